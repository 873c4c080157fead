//! Typed handles and the guards they hand out.
//!
//! As in `bevy_asset`, dropping a handle only records that work is due: the drop decrements
//! the entry's count and, for the last handle, sends the entry on its release queue
//! (`slot::ReleaseQueue`). The
//! manager applies the queue (LRU bookkeeping, eviction, freeing the buffers) on its own side,
//! at its next call or when a worker finishes a load, so a drop never takes the cache lock or
//! frees a large buffer on the dropping thread.

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use caf::{Asset, LoadedAsset};

use crate::kind::AssetKind;
use crate::path::AssetPath;
use crate::slot::Slot;

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
