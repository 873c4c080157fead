//! One cache entry and its state machine: unloaded, loading, loaded (possibly reloading), or
//! failed. Shared by the cache map, every handle of the entry and the loader jobs. With it,
//! the typed check an entry runs on its loads ([`validate`]) and the queue on which its last
//! handle reports being dropped ([`ReleaseQueue`]).

use std::any::Any;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, Weak};

use caf::{AssetType, LoadedAsset};

use crate::error::AssetError;
use crate::kind::{AssetKind, Kind};
use crate::path::AssetPath;
use crate::sync::lock;

/// Where an entry is in its life.
#[derive(Clone, Debug)]
pub enum Status {
    /// No data and no load in flight: the entry was [unloaded](crate::AssetManager::unload).
    Unloaded,
    /// A load is queued or running and no earlier version is available.
    Loading,
    /// A version is available through [`AssetManager::get`](crate::AssetManager::get). A
    /// reload may be in flight, or the last reload may have failed (see
    /// [`EntryInfo::last_error`]); the data stays valid.
    Loaded,
    /// The last load failed and no earlier version is available.
    Failed(Arc<AssetError>),
}

impl Status {
    /// True for [`Status::Loaded`].
    pub fn is_loaded(&self) -> bool {
        matches!(self, Status::Loaded)
    }
    /// True for [`Status::Failed`].
    pub fn is_failed(&self) -> bool {
        matches!(self, Status::Failed(_))
    }
    /// True for [`Status::Loading`].
    pub fn is_loading(&self) -> bool {
        matches!(self, Status::Loading)
    }
    /// The error of a [`Status::Failed`].
    pub fn error(&self) -> Option<&Arc<AssetError>> {
        match self {
            Status::Failed(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Unloaded => f.write_str("unloaded"),
            Status::Loading => f.write_str("loading"),
            Status::Loaded => f.write_str("loaded"),
            Status::Failed(e) => write!(f, "failed: {e}"),
        }
    }
}

/// A snapshot of one entry, from [`AssetManager::info`](crate::AssetManager::info) and the
/// `wait` helpers.
#[derive(Clone, Debug)]
pub struct EntryInfo {
    /// Current status.
    pub status: Status,
    /// Number of successful loads so far (0 before the first; each hot reload adds one).
    pub version: u64,
    /// Number of finished load attempts, successful or not.
    pub attempts: u64,
    /// The error of the last attempt, if it failed (also while an older version stays loaded).
    pub last_error: Option<Arc<AssetError>>,
    /// A load or reload is queued or running.
    pub in_flight: bool,
    /// Bytes of the loaded version (0 when none).
    pub bytes: u64,
    /// Header type of the loaded version.
    pub asset_type: Option<AssetType>,
}

/// The untyped identity of an entry: the normalised path and the requested kind.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Key {
    pub(crate) path: AssetPath,
    pub(crate) kind: Kind,
}

/// [`Slot::lru_at`] of an entry the LRU does not list.
pub(crate) const UNLISTED: u64 = u64::MAX;

/// Why a load job runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Reason {
    /// A first load (or a load after failure/unload requested by `load`): no event.
    Initial,
    /// A reload: reports an event.
    Reload,
}

/// One loaded version: the verified file and the layout its kind's check kept. Cloning clones
/// two `Arc`s; guards hold such a clone.
#[derive(Clone)]
pub(crate) struct Version {
    pub(crate) asset: Arc<LoadedAsset>,
    pub(crate) layout: ErasedLayout,
}

/// One cache entry. Shared by the map and every handle.
pub(crate) struct Slot {
    pub(crate) key: Key,
    pub(crate) file: PathBuf,
    pub(crate) validate: Validator,
    /// Where a handle reports that it was the last one (`None` for entries outside the
    /// cache, such as the error-only entry of an invalid path).
    pub(crate) releases: Option<Arc<ReleaseQueue>>,
    /// Live handles. Goes 0 -> 1 only under the cache lock (in `load`), so eviction and GC,
    /// which hold the cache lock, see a stable zero.
    pub(crate) refs: AtomicUsize,
    /// Tick of the last `load` or `get`; orders the LRU and tells stale LRU records apart.
    pub(crate) last_used: AtomicU64,
    /// The tick under which the cache's LRU lists this entry, or [`UNLISTED`]. Changed only
    /// under the cache lock.
    pub(crate) lru_at: AtomicU64,
    pub(crate) state: Mutex<SlotState>,
    pub(crate) cv: Condvar,
}

/// The mutable part of a [`Slot`], under its lock.
pub(crate) struct SlotState {
    pub(crate) data: Option<Version>,
    pub(crate) error: Option<Arc<AssetError>>,
    /// A job for this slot is queued or running; at most one is.
    pub(crate) in_flight: bool,
    /// The file changed again while a job was in flight: run another when it ends.
    pub(crate) rerun: Option<Reason>,
    pub(crate) version: u64,
    pub(crate) attempts: u64,
    /// Removed from the cache (evicted or collected): nothing may add bytes for it again.
    pub(crate) detached: bool,
    /// Bumped on every change, so waiters can tell whether they missed one.
    pub(crate) seq: u64,
}

impl Slot {
    pub(crate) fn new(
        key: Key,
        file: PathBuf,
        validate: Validator,
        releases: Option<Arc<ReleaseQueue>>,
    ) -> Slot {
        Slot {
            key,
            file,
            validate,
            releases,
            refs: AtomicUsize::new(0),
            last_used: AtomicU64::new(0),
            lru_at: AtomicU64::new(UNLISTED),
            state: Mutex::new(SlotState {
                data: None,
                error: None,
                in_flight: false,
                rerun: None,
                version: 0,
                attempts: 0,
                detached: false,
                seq: 0,
            }),
            cv: Condvar::new(),
        }
    }

    /// An entry outside the cache that only carries `error` (an invalid path): failed from
    /// the start, never loaded, never reported as released.
    pub(crate) fn failed(key: Key, validate: Validator, error: AssetError) -> Slot {
        let slot = Slot::new(key, PathBuf::new(), validate, None);
        {
            let mut st = lock(&slot.state);
            st.error = Some(Arc::new(error));
            st.attempts = 1;
            st.detached = true;
        }
        slot
    }

    /// Records a change and wakes the waiters. Call with the state lock held.
    pub(crate) fn changed(&self, st: &mut SlotState) {
        st.seq = st.seq.wrapping_add(1);
        self.cv.notify_all();
    }

    /// True while at least one handle holds the entry.
    pub(crate) fn is_referenced(&self) -> bool {
        self.refs.load(Ordering::Acquire) > 0
    }

    /// The snapshot the public API reports.
    pub(crate) fn info(st: &SlotState) -> EntryInfo {
        let status = match (&st.data, &st.error) {
            (Some(_), _) => Status::Loaded,
            (None, _) if st.in_flight => Status::Loading,
            (None, Some(e)) => Status::Failed(e.clone()),
            (None, None) => Status::Unloaded,
        };
        EntryInfo {
            status,
            version: st.version,
            attempts: st.attempts,
            last_error: st.error.clone(),
            in_flight: st.in_flight,
            bytes: st.data.as_ref().map_or(0, |d| d.asset.file_size()),
            asset_type: st.data.as_ref().map(|d| d.asset.header().asset_type),
        }
    }
}

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
    pub(crate) fn send(&self, slot: &Arc<Slot>) {
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

/// A type-erased layout, as stored in an entry that has no type parameter.
pub(crate) type ErasedLayout = Arc<dyn Any + Send + Sync>;

/// The check run on the worker thread for a request of kind `T`: header type, then the typed
/// layout. Stored in each entry as a function pointer so entries need no type parameter.
pub(crate) fn validate<T: AssetKind>(
    path: &AssetPath,
    asset: &LoadedAsset,
) -> Result<ErasedLayout, AssetError> {
    let found = asset.header().asset_type;
    if let Some(expected) = T::KIND.asset_type() {
        if found != expected {
            return Err(AssetError::WrongType {
                path: path.clone(),
                expected: T::KIND,
                found,
            });
        }
    }
    match T::layout(asset) {
        Ok(layout) => Ok(Arc::new(layout)),
        Err(source) => Err(AssetError::BadContent {
            path: path.clone(),
            kind: T::KIND,
            source,
        }),
    }
}

pub(crate) type Validator = fn(&AssetPath, &LoadedAsset) -> Result<ErasedLayout, AssetError>;
