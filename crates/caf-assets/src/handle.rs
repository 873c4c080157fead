//! Typed handles, the guards they hand out, and the queue on which a dropped last handle
//! reports its entry.
//!
//! As in `bevy_asset`, dropping a handle only records that work is due: the drop decrements
//! the entry's count and, for the last handle, sends the entry on the [`ReleaseQueue`]. The
//! manager applies the queue (LRU bookkeeping, eviction, freeing the buffers) on its own side,
//! at its next call or when a worker finishes a load, so a drop never takes the cache lock or
//! frees a large buffer on the dropping thread.

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, Weak};

use caf::{Asset, LoadedAsset};

use crate::kind::AssetKind;
use crate::manager::lock;
use crate::path::AssetPath;
use crate::slot::Slot;

/// Entries whose last handle dropped, waiting for the manager to apply them.
pub(crate) struct ReleaseQueue {
    /// `Sender` is `Sync`: any thread sends without a lock.
    tx: Sender<Weak<Slot>>,
    rx: Mutex<Receiver<Weak<Slot>>>,
    /// Messages sent and not yet taken: lets the manager skip the receiver lock when idle.
    /// Raised before each send, so taking never lowers it below zero.
    queued: AtomicUsize,
}

impl ReleaseQueue {
    pub(crate) fn new() -> ReleaseQueue {
        let (tx, rx) = mpsc::channel();
        ReleaseQueue {
            tx,
            rx: Mutex::new(rx),
            queued: AtomicUsize::new(0),
        }
    }

    /// Records that `slot` lost its last handle. A weak reference, so that a queue nobody
    /// drains (the manager is gone) keeps no entry alive.
    fn send(&self, slot: &Arc<Slot>) {
        self.queued.fetch_add(1, Ordering::AcqRel);
        // The receiver lives as long as the queue, so sending cannot fail; if it ever did,
        // the entry would merely wait for the next budget pass or `collect_garbage`.
        let _ = self.tx.send(Arc::downgrade(slot));
    }

    /// Number of releases sent and not yet taken.
    pub(crate) fn len(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }

    /// Takes every queued release (cheap when there is none).
    pub(crate) fn take(&self) -> Vec<Weak<Slot>> {
        if self.len() == 0 {
            return Vec::new();
        }
        let taken: Vec<Weak<Slot>> = lock(&self.rx).try_iter().collect();
        self.queued.fetch_sub(taken.len(), Ordering::AcqRel);
        taken
    }
}

/// A typed, reference-counted handle to a cache entry. Cloning is cheap (an atomic increment).
/// Dropping the last handle of an entry only queues a note for the manager (no lock, no
/// free); the manager then treats the entry as unreferenced: collectable by
/// [`AssetManager::collect_garbage`](crate::AssetManager::collect_garbage) and evictable under
/// the byte budget.
pub struct Handle<T: AssetKind> {
    pub(crate) slot: Arc<Slot>,
    _kind: PhantomData<fn() -> T>,
}

impl<T: AssetKind> Handle<T> {
    /// Wraps a slot whose count already includes this handle.
    pub(crate) fn new(slot: Arc<Slot>) -> Self {
        Handle {
            slot,
            _kind: PhantomData,
        }
    }

    /// The normalised path of the asset.
    pub fn path(&self) -> &AssetPath {
        &self.slot.key.path
    }

    /// Number of live handles to this entry (this one included).
    pub fn ref_count(&self) -> usize {
        self.slot.refs.load(Ordering::Acquire)
    }

    /// True when both handles point to the same entry (de-duplicated loads do).
    pub fn same_entry(&self, other: &Handle<T>) -> bool {
        Arc::ptr_eq(&self.slot, &other.slot)
    }
}

impl<T: AssetKind> Clone for Handle<T> {
    fn clone(&self) -> Self {
        // Relaxed is enough for an increment from a count we already hold (like Arc).
        self.slot.refs.fetch_add(1, Ordering::Relaxed);
        Handle::new(self.slot.clone())
    }
}

impl<T: AssetKind> Drop for Handle<T> {
    fn drop(&mut self) {
        if self.slot.refs.fetch_sub(1, Ordering::AcqRel) == 1 {
            // The last handle: tell the manager, which decides later (it re-checks the
            // count, since a `load` may have taken the entry again in between).
            if let Some(queue) = &self.slot.releases {
                queue.send(&self.slot);
            }
        }
    }
}

impl<T: AssetKind> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("path", &self.slot.key.path)
            .field("kind", &T::KIND)
            .field("refs", &self.ref_count())
            .finish()
    }
}

/// A borrow of one loaded version. Holds the buffer alive: a hot reload swaps the entry to a
/// new version, but views taken through this guard keep reading the old one until it drops.
pub struct AssetGuard<T: AssetKind> {
    asset: Arc<LoadedAsset>,
    layout: Arc<T::Layout>,
    version: u64,
}

impl<T: AssetKind> AssetGuard<T> {
    pub(crate) fn new(asset: Arc<LoadedAsset>, layout: Arc<T::Layout>, version: u64) -> Self {
        AssetGuard {
            asset,
            layout,
            version,
        }
    }

    /// The typed view (for [`Raw`](crate::Raw), the untyped [`caf::Asset`]). Built from the
    /// layout checked when this version loaded: no check runs here.
    pub fn view(&self) -> T::View<'_> {
        T::view(&self.asset, &self.layout)
    }

    /// Header, metadata and payload of the file.
    pub fn asset(&self) -> Asset<'_> {
        self.asset.asset()
    }

    /// The loaded file.
    pub fn loaded(&self) -> &LoadedAsset {
        &self.asset
    }

    /// The version this guard borrows.
    pub fn version(&self) -> u64 {
        self.version
    }
}

impl<T: AssetKind> Clone for AssetGuard<T> {
    fn clone(&self) -> Self {
        AssetGuard {
            asset: self.asset.clone(),
            layout: self.layout.clone(),
            version: self.version,
        }
    }
}

impl<T: AssetKind> fmt::Debug for AssetGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AssetGuard")
            .field("kind", &T::KIND)
            .field("version", &self.version)
            .field("bytes", &self.asset.file_size())
            .finish()
    }
}
