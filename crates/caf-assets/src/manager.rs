//! The manager, its entries, handles and guards.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use caf::{Asset, AssetType, LoadedAsset};

use crate::error::AssetError;
use crate::kind::{validate, AssetKind, Kind, Validator};
use crate::path::AssetPath;
use crate::watch::HotReload;

/// Locks a mutex, ignoring poisoning: every critical section here leaves the state consistent
/// at each step, so a panic elsewhere (in user code holding nothing of ours) cannot break it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where an entry is in its life.
#[derive(Clone, Debug)]
pub enum Status {
    /// No data and no load in flight: the entry was [unloaded](AssetManager::unload).
    Unloaded,
    /// A load is queued or running and no earlier version is available.
    Loading,
    /// A version is available through [`AssetManager::get`]. A reload may be in flight, or
    /// the last reload may have failed (see [`EntryInfo::last_error`]); the data stays valid.
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

/// A snapshot of one entry, from [`AssetManager::info`] and the `wait` helpers.
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

/// Something that happened to an entry through a reload (a file change seen by the watcher,
/// or [`AssetManager::reload`]). Drained on the caller's thread by
/// [`AssetManager::drain_events`]. First loads report nothing; watch their [`Status`].
#[non_exhaustive]
#[derive(Clone, Debug)]
pub enum AssetEvent {
    /// A new version was swapped in; the next [`AssetManager::get`] returns it.
    Reloaded {
        /// The asset.
        path: AssetPath,
        /// The kind of the entry.
        kind: Kind,
        /// The new version number.
        version: u64,
        /// The entry had failed before and now has data.
        recovered: bool,
    },
    /// A reload failed. The previous version, if any, stays in place.
    ReloadFailed {
        /// The asset.
        path: AssetPath,
        /// The kind of the entry.
        kind: Kind,
        /// What went wrong (a half-written file shows up as a size or CRC mismatch).
        error: Arc<AssetError>,
        /// The version still served, `None` when the entry has no data.
        kept_version: Option<u64>,
    },
}

impl AssetEvent {
    /// The asset the event is about.
    pub fn path(&self) -> &AssetPath {
        match self {
            AssetEvent::Reloaded { path, .. } | AssetEvent::ReloadFailed { path, .. } => path,
        }
    }
}

/// Cache statistics from [`AssetManager::stats`].
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Bytes of loaded data held by the cache (file sizes of the current versions). Older
    /// versions still borrowed through guards are not counted.
    pub bytes_cached: u64,
    /// The configured byte budget.
    pub budget: Option<u64>,
    /// Entries in the cache, in any state.
    pub entries: usize,
    /// Entries with data.
    pub loaded: usize,
    /// Entries whose last load failed with no data.
    pub failed: usize,
    /// Entries held by at least one handle.
    pub referenced: usize,
    /// Loaded entries per header type.
    pub by_type: BTreeMap<AssetType, usize>,
    /// Entries per requested kind.
    pub by_kind: BTreeMap<Kind, usize>,
    /// Loads and reloads queued or running.
    pub pending_loads: usize,
    /// `load` requests served by an existing entry (loaded or already loading).
    pub hits: u64,
    /// `load` requests that had to read the file.
    pub misses: u64,
    /// Entries evicted to stay within the budget.
    pub evictions: u64,
    /// Entries removed by [`AssetManager::collect_garbage`].
    pub collected: u64,
    /// Successful reloads.
    pub reloads: u64,
    /// Failed reloads.
    pub reload_failures: u64,
}

impl Stats {
    /// `hits / (hits + misses)`, 0 when there were no requests.
    pub fn hit_rate(&self) -> f64 {
        let total = self.hits + self.misses;
        if total == 0 {
            0.0
        } else {
            self.hits as f64 / total as f64
        }
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub(crate) path: AssetPath,
    pub(crate) kind: Kind,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reason {
    /// A first load (or a load after failure/unload requested by `load`): no event.
    Initial,
    /// A reload: reports an event.
    Reload,
}

/// One cache entry. Shared by the map and every handle.
pub(crate) struct Slot {
    key: Key,
    file: PathBuf,
    validate: Validator,
    /// The manager, so that dropping the last handle can apply the byte budget.
    owner: Weak<Inner>,
    /// Live handles. Goes 0 -> 1 only under the map lock (in `load`), so eviction and GC,
    /// which hold the map lock, see a stable zero.
    refs: AtomicUsize,
    last_used: AtomicU64,
    state: Mutex<SlotState>,
    cv: Condvar,
}

struct SlotState {
    data: Option<Arc<LoadedAsset>>,
    error: Option<Arc<AssetError>>,
    /// A job for this slot is queued or running; at most one is.
    in_flight: bool,
    /// The file changed again while a job was in flight: run another when it ends.
    rerun: Option<Reason>,
    version: u64,
    attempts: u64,
    /// Removed from the cache (evicted or collected): nothing may add bytes for it again.
    detached: bool,
    /// Bumped on every change, so waiters can tell whether they missed one.
    seq: u64,
}

impl Slot {
    fn new(key: Key, file: PathBuf, validate: Validator, owner: Weak<Inner>) -> Slot {
        Slot {
            key,
            file,
            validate,
            owner,
            refs: AtomicUsize::new(0),
            last_used: AtomicU64::new(0),
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

    /// Records a change and wakes the waiters. Call with the state lock held.
    fn changed(&self, st: &mut SlotState) {
        st.seq = st.seq.wrapping_add(1);
        self.cv.notify_all();
    }

    fn info(st: &SlotState) -> EntryInfo {
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
            bytes: st.data.as_ref().map_or(0, |d| d.file_size()),
            asset_type: st.data.as_ref().map(|d| d.header().asset_type),
        }
    }
}

/// A typed, reference-counted handle to a cache entry. Cloning is cheap (an atomic increment);
/// an entry with no handles left becomes collectable by [`AssetManager::collect_garbage`] and
/// evictable under the byte budget.
pub struct Handle<T: AssetKind> {
    slot: Arc<Slot>,
    _kind: PhantomData<fn() -> T>,
}

impl<T: AssetKind> Handle<T> {
    fn new(slot: Arc<Slot>) -> Self {
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
            // The entry just became evictable: if the cache is over budget, make room now
            // rather than at the next load.
            if let Some(inner) = self.slot.owner.upgrade() {
                if inner.over_budget() {
                    inner.enforce_budget();
                }
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
    version: u64,
    _kind: PhantomData<fn() -> T>,
}

impl<T: AssetKind> AssetGuard<T> {
    /// The typed view (for [`Raw`](crate::Raw), the untyped [`caf::Asset`]).
    pub fn view(&self) -> T::View<'_> {
        // The same pure check ran on these same immutable bytes before the entry was marked
        // loaded (`kind::validate`), so it cannot fail here.
        T::view(&self.asset).expect("typed view was validated when the asset loaded")
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
            version: self.version,
            _kind: PhantomData,
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

pub(crate) struct Inner {
    pub(crate) base: PathBuf,
    alt_base: PathBuf,
    pool: rayon::ThreadPool,
    entries: Mutex<HashMap<Key, Arc<Slot>>>,
    budget: Option<u64>,
    /// Sum of `file_size` of the current versions of attached slots. Changed only while holding
    /// the slot's state lock, together with the slot's `data`.
    bytes: AtomicU64,
    tick: AtomicU64,
    pending: AtomicUsize,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
    collected: AtomicU64,
    reloads: AtomicU64,
    reload_failures: AtomicU64,
    events: Mutex<VecDeque<AssetEvent>>,
    events_cv: Condvar,
}

/// Configures an [`AssetManager`]. Start with [`AssetManager::builder`].
#[derive(Debug, Clone)]
pub struct AssetManagerBuilder {
    base: PathBuf,
    workers: Option<usize>,
    budget: Option<u64>,
    hot_reload: bool,
    debounce: Duration,
}

impl AssetManagerBuilder {
    /// Number of loader threads (default: the number of CPUs). At least 1.
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = Some(n.max(1));
        self
    }

    /// Byte budget for the cache (default: none). When loaded data exceeds it, entries that no
    /// handle holds are evicted, least recently used first: after each load that grows the
    /// cache, and when the last handle of an entry drops while the cache is over budget.
    /// Entries with handles are never evicted, so the cache can stay above the budget while
    /// they are held.
    pub fn budget(mut self, bytes: u64) -> Self {
        self.budget = Some(bytes);
        self
    }

    /// Watch the base directory and reload changed files (default: off).
    pub fn hot_reload(mut self, on: bool) -> Self {
        self.hot_reload = on;
        self
    }

    /// How long a file must stay quiet after a change before it is reloaded (default 50 ms).
    /// Editors write in several steps; waiting for the last one avoids pointless reloads. A
    /// reload that still catches a half-written file fails its size or CRC check and keeps
    /// the previous version; the next write triggers another reload.
    pub fn debounce(mut self, d: Duration) -> Self {
        self.debounce = d;
        self
    }

    /// Creates the manager: opens the base directory, starts the loader threads and, with hot
    /// reload, the watcher.
    pub fn build(self) -> Result<AssetManager, AssetError> {
        let base = self
            .base
            .canonicalize()
            .map_err(|source| AssetError::BaseDir {
                path: self.base.clone(),
                source,
            })?;
        if !base.is_dir() {
            return Err(AssetError::BaseDir {
                path: self.base.clone(),
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"),
            });
        }
        let workers = self
            .workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("caf-assets-{i}"))
            .build()
            .map_err(|e| AssetError::ThreadPool(e.to_string()))?;
        let inner = Arc::new(Inner {
            base,
            alt_base: std::path::absolute(&self.base).unwrap_or_else(|_| self.base.clone()),
            pool,
            entries: Mutex::new(HashMap::new()),
            budget: self.budget,
            bytes: AtomicU64::new(0),
            tick: AtomicU64::new(0),
            pending: AtomicUsize::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
            collected: AtomicU64::new(0),
            reloads: AtomicU64::new(0),
            reload_failures: AtomicU64::new(0),
            events: Mutex::new(VecDeque::new()),
            events_cv: Condvar::new(),
        });
        let watcher = if self.hot_reload {
            Some(HotReload::start(&inner, self.debounce)?)
        } else {
            None
        };
        Ok(AssetManager {
            inner,
            workers,
            _watcher: watcher,
        })
    }
}

/// Loads `.caf` assets from a base directory on a pool of worker threads, caches them,
/// de-duplicates requests and (optionally) hot-reloads changed files.
///
/// Entries are keyed by the normalised path and the requested [`Kind`]: two `load::<Texture>`
/// of `"a/../hero.caf"` and `"hero.caf"` share one entry, while a `load::<Raw>` of the same
/// file is a separate entry.
///
/// The manager is `Send + Sync`; share it by reference (or in an `Arc`) between threads.
/// Dropping it stops the watcher; loads already running finish in the background, and handles
/// and guards stay usable.
pub struct AssetManager {
    inner: Arc<Inner>,
    workers: usize,
    _watcher: Option<HotReload>,
}

impl fmt::Debug for AssetManager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AssetManager")
            .field("base", &self.inner.base)
            .field("workers", &self.workers)
            .field("budget", &self.inner.budget)
            .field("hot_reload", &self._watcher.is_some())
            .finish()
    }
}

impl AssetManager {
    /// A manager over `base` with default settings (all CPUs, no budget, no hot reload).
    pub fn new(base: impl AsRef<Path>) -> Result<AssetManager, AssetError> {
        Self::builder(base).build()
    }

    /// A builder for a manager over `base`.
    pub fn builder(base: impl AsRef<Path>) -> AssetManagerBuilder {
        AssetManagerBuilder {
            base: base.as_ref().to_path_buf(),
            workers: None,
            budget: None,
            hot_reload: false,
            debounce: Duration::from_millis(50),
        }
    }

    /// The canonical base directory.
    pub fn base_dir(&self) -> &Path {
        &self.inner.base
    }

    /// Number of loader threads.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// True when the watcher is running.
    pub fn hot_reload_enabled(&self) -> bool {
        self._watcher.is_some()
    }

    /// Normalises a path the way entries are keyed.
    pub fn normalise(&self, path: impl AsRef<Path>) -> Result<AssetPath, AssetError> {
        AssetPath::normalise(path.as_ref(), &self.inner.base, &self.inner.alt_base)
    }

    /// Requests `path` as a `T` and returns at once. The load runs on a worker thread; watch
    /// it with [`status`](Self::status) or [`wait`](Self::wait).
    ///
    /// An entry that exists already is shared (a cache hit). An entry whose last load failed,
    /// or that was unloaded, is loaded again. An invalid path (empty, or leaving the base
    /// directory) gives a handle that is [`Status::Failed`] with [`AssetError::InvalidPath`].
    pub fn load<T: AssetKind>(&self, path: impl AsRef<Path>) -> Handle<T> {
        self.request::<T>(path.as_ref(), false)
    }

    /// Like [`load`](Self::load), but blocks until the entry has data or has failed. A load
    /// this call starts runs on the calling thread.
    pub fn load_sync<T: AssetKind>(
        &self,
        path: impl AsRef<Path>,
    ) -> Result<Handle<T>, Arc<AssetError>> {
        let handle = self.request::<T>(path.as_ref(), true);
        match self.wait_until(&handle, None, |i| !i.in_flight || i.status.is_loaded()) {
            Some(EntryInfo {
                status: Status::Failed(e),
                ..
            }) => Err(e),
            _ => Ok(handle),
        }
    }

    fn request<T: AssetKind>(&self, path: &Path, inline: bool) -> Handle<T> {
        let inner = &self.inner;
        let apath = match self.normalise(path) {
            Ok(p) => p,
            Err(e) => {
                // Not cached: a detached entry that only carries the error.
                let slot = Slot::new(
                    Key {
                        path: AssetPath::raw(&path.to_string_lossy()),
                        kind: T::KIND,
                    },
                    PathBuf::new(),
                    validate::<T>,
                    Weak::new(),
                );
                {
                    let mut st = lock(&slot.state);
                    st.error = Some(Arc::new(e));
                    st.attempts = 1;
                    st.detached = true;
                }
                slot.refs.store(1, Ordering::Relaxed);
                return Handle::new(Arc::new(slot));
            }
        };
        let key = Key {
            path: apath,
            kind: T::KIND,
        };
        let slot = {
            let mut map = lock(&inner.entries);
            let slot = map
                .entry(key)
                .or_insert_with_key(|k| {
                    Arc::new(Slot::new(
                        k.clone(),
                        inner.base.join(k.path.as_str()),
                        validate::<T>,
                        Arc::downgrade(inner),
                    ))
                })
                .clone();
            slot.refs.fetch_add(1, Ordering::AcqRel);
            slot
        };
        inner.touch(&slot);
        let handle = Handle::new(slot.clone());
        let start = {
            let mut st = lock(&slot.state);
            if st.data.is_none() && !st.in_flight {
                st.in_flight = true;
                inner.pending.fetch_add(1, Ordering::AcqRel);
                slot.changed(&mut st);
                true
            } else {
                false
            }
        };
        if start {
            inner.misses.fetch_add(1, Ordering::Relaxed);
            if inline {
                Inner::run_job(inner, slot, Reason::Initial);
            } else {
                inner.spawn(slot, Reason::Initial);
            }
        } else {
            inner.hits.fetch_add(1, Ordering::Relaxed);
        }
        handle
    }

    /// The current version as a guard, or `None` when the entry has no data (loading, failed,
    /// unloaded). Marks the entry as recently used.
    pub fn get<T: AssetKind>(&self, handle: &Handle<T>) -> Option<AssetGuard<T>> {
        self.inner.touch(&handle.slot);
        let st = lock(&handle.slot.state);
        st.data.as_ref().map(|asset| AssetGuard {
            asset: asset.clone(),
            version: st.version,
            _kind: PhantomData,
        })
    }

    /// The entry's status.
    pub fn status<T: AssetKind>(&self, handle: &Handle<T>) -> Status {
        Slot::info(&lock(&handle.slot.state)).status
    }

    /// A snapshot of the entry: status, version, attempts, last error, size.
    pub fn info<T: AssetKind>(&self, handle: &Handle<T>) -> EntryInfo {
        Slot::info(&lock(&handle.slot.state))
    }

    /// Blocks until the entry has data or no load is in flight (it failed or is unloaded), or
    /// until `timeout` passes; returns the status then.
    pub fn wait<T: AssetKind>(&self, handle: &Handle<T>, timeout: Duration) -> Status {
        match self.wait_until(handle, Some(timeout), |i| {
            !i.in_flight || i.status.is_loaded()
        }) {
            Some(i) => i.status,
            None => self.status(handle),
        }
    }

    /// Blocks until `pred` holds for the entry, re-checking on every change of the entry
    /// (condition variable, no polling). Returns the snapshot that satisfied it, or `None`
    /// when `timeout` passed first (`None` timeout: wait as long as it takes). `pred` runs
    /// without any lock held, so it may call back into the manager.
    pub fn wait_until<T: AssetKind>(
        &self,
        handle: &Handle<T>,
        timeout: Option<Duration>,
        mut pred: impl FnMut(&EntryInfo) -> bool,
    ) -> Option<EntryInfo> {
        let slot = &handle.slot;
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        loop {
            let (info, seq) = {
                let st = lock(&slot.state);
                (Slot::info(&st), st.seq)
            };
            if pred(&info) {
                return Some(info);
            }
            let mut st = lock(&slot.state);
            // Sleep only if nothing changed since the snapshot `pred` rejected.
            while st.seq == seq {
                match deadline {
                    // No timeout, or one too large for an Instant: wait as long as it takes.
                    None => st = slot.cv.wait(st).unwrap_or_else(PoisonError::into_inner),
                    Some(deadline) => {
                        let now = Instant::now();
                        if now >= deadline {
                            return None;
                        }
                        st = slot
                            .cv
                            .wait_timeout(st, deadline - now)
                            .unwrap_or_else(PoisonError::into_inner)
                            .0;
                    }
                }
            }
        }
    }

    /// Drops the entry's data (the entry and its handles stay; status becomes
    /// [`Status::Unloaded`]). A load in flight is not cancelled and will install its result.
    /// Guards keep their version alive. Returns the bytes released from the cache.
    pub fn unload<T: AssetKind>(&self, handle: &Handle<T>) -> u64 {
        let (old, released) = {
            let mut st = lock(&handle.slot.state);
            let old = st.data.take();
            let released = old.as_ref().map_or(0, |d| d.file_size());
            if !st.detached {
                self.inner.bytes.fetch_sub(released, Ordering::AcqRel);
            }
            st.error = None;
            handle.slot.changed(&mut st);
            (old, released)
        };
        drop(old);
        released
    }

    /// Reloads the entry in the background (as the watcher does on a file change); the result
    /// is reported through [`drain_events`](Self::drain_events).
    pub fn reload<T: AssetKind>(&self, handle: &Handle<T>) {
        self.inner.request_reload(&handle.slot, true);
    }

    /// Removes every entry that no handle holds and that has no load in flight. Returns how
    /// many were removed.
    pub fn collect_garbage(&self) -> usize {
        let mut map = lock(&self.inner.entries);
        let victims: Vec<Key> = map
            .iter()
            .filter(|(_, s)| s.refs.load(Ordering::Acquire) == 0)
            .filter(|(_, s)| !lock(&s.state).in_flight)
            .map(|(k, _)| k.clone())
            .collect();
        for key in &victims {
            if let Some(slot) = map.remove(key) {
                self.inner.detach(&slot);
            }
        }
        self.inner
            .collected
            .fetch_add(victims.len() as u64, Ordering::Relaxed);
        victims.len()
    }

    /// Evicts unreferenced entries until the cache is within its budget (this also happens
    /// on its own after loads and handle drops). Returns how many were evicted.
    pub fn trim(&self) -> usize {
        self.inner.enforce_budget()
    }

    /// Takes the queued reload events, oldest first.
    pub fn drain_events(&self) -> Vec<AssetEvent> {
        lock(&self.inner.events).drain(..).collect()
    }

    /// Like [`drain_events`](Self::drain_events), but first blocks (up to `timeout`) until
    /// at least one event is queued.
    pub fn wait_events(&self, timeout: Duration) -> Vec<AssetEvent> {
        let deadline = Instant::now().checked_add(timeout);
        let mut q = lock(&self.inner.events);
        while q.is_empty() {
            let now = Instant::now();
            let left = match deadline {
                Some(d) if now >= d => break,
                Some(d) => d - now,
                None => Duration::from_secs(3600),
            };
            q = self
                .inner
                .events_cv
                .wait_timeout(q, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        q.drain(..).collect()
    }

    /// Current cache statistics.
    pub fn stats(&self) -> Stats {
        let inner = &self.inner;
        let mut s = Stats {
            budget: inner.budget,
            pending_loads: inner.pending.load(Ordering::Acquire),
            hits: inner.hits.load(Ordering::Relaxed),
            misses: inner.misses.load(Ordering::Relaxed),
            evictions: inner.evictions.load(Ordering::Relaxed),
            collected: inner.collected.load(Ordering::Relaxed),
            reloads: inner.reloads.load(Ordering::Relaxed),
            reload_failures: inner.reload_failures.load(Ordering::Relaxed),
            ..Stats::default()
        };
        let map = lock(&inner.entries);
        s.bytes_cached = inner.bytes.load(Ordering::Acquire);
        s.entries = map.len();
        for (key, slot) in map.iter() {
            *s.by_kind.entry(key.kind).or_default() += 1;
            if slot.refs.load(Ordering::Acquire) > 0 {
                s.referenced += 1;
            }
            let st = lock(&slot.state);
            if let Some(d) = &st.data {
                s.loaded += 1;
                *s.by_type.entry(d.header().asset_type).or_default() += 1;
            } else if st.error.is_some() && !st.in_flight {
                s.failed += 1;
            }
        }
        s
    }
}

impl Inner {
    fn touch(&self, slot: &Slot) {
        let t = self.tick.fetch_add(1, Ordering::Relaxed);
        slot.last_used.store(t, Ordering::Relaxed);
    }

    fn spawn(self: &Arc<Self>, slot: Arc<Slot>, reason: Reason) {
        let inner = self.clone();
        self.pool
            .spawn(move || Inner::run_job(&inner, slot, reason));
    }

    /// Loads the slot's file, validates it for the slot's kind and installs the result.
    fn run_job(self: &Arc<Self>, slot: Arc<Slot>, reason: Reason) {
        let result = LoadedAsset::open(&slot.file)
            .map_err(|source| AssetError::Load {
                path: slot.key.path.clone(),
                source,
            })
            .and_then(|asset| (slot.validate)(&slot.key.path, &asset).map(|()| asset));
        let mut grew = false;
        let old = {
            let mut st = lock(&slot.state);
            st.attempts += 1;
            let old = match result {
                Ok(asset) => {
                    let new_bytes = asset.file_size();
                    let old = st.data.replace(Arc::new(asset));
                    let old_bytes = old.as_ref().map_or(0, |d| d.file_size());
                    if !st.detached {
                        self.bytes.fetch_add(new_bytes, Ordering::AcqRel);
                        self.bytes.fetch_sub(old_bytes, Ordering::AcqRel);
                        grew = new_bytes > old_bytes;
                    }
                    st.version += 1;
                    st.error = None;
                    if reason == Reason::Reload {
                        self.reloads.fetch_add(1, Ordering::Relaxed);
                        self.push_event(AssetEvent::Reloaded {
                            path: slot.key.path.clone(),
                            kind: slot.key.kind,
                            version: st.version,
                            recovered: old.is_none(),
                        });
                    }
                    old
                }
                Err(e) => {
                    let e = Arc::new(e);
                    st.error = Some(e.clone());
                    if reason == Reason::Reload {
                        self.reload_failures.fetch_add(1, Ordering::Relaxed);
                        self.push_event(AssetEvent::ReloadFailed {
                            path: slot.key.path.clone(),
                            kind: slot.key.kind,
                            error: e,
                            kept_version: st.data.as_ref().map(|_| st.version),
                        });
                    }
                    None
                }
            };
            match st.rerun.take() {
                Some(next) if !st.detached => {
                    // Stays in flight; `pending` keeps counting it.
                    self.spawn(slot.clone(), next);
                }
                _ => {
                    st.in_flight = false;
                    self.pending.fetch_sub(1, Ordering::AcqRel);
                }
            }
            slot.changed(&mut st);
            old
        };
        // The old version's buffer is released outside the lock (unless a guard holds it).
        drop(old);
        if grew {
            self.enforce_budget();
        }
    }

    fn push_event(&self, event: AssetEvent) {
        lock(&self.events).push_back(event);
        self.events_cv.notify_all();
    }

    /// Queues a reload. From the watcher (`explicit == false`), entries that were unloaded on
    /// purpose stay unloaded; failed entries are retried.
    pub(crate) fn request_reload(self: &Arc<Self>, slot: &Arc<Slot>, explicit: bool) {
        let mut st = lock(&slot.state);
        if st.detached {
            return;
        }
        if st.in_flight {
            st.rerun = Some(Reason::Reload);
            return;
        }
        if !explicit && st.data.is_none() && st.error.is_none() {
            return;
        }
        st.in_flight = true;
        self.pending.fetch_add(1, Ordering::AcqRel);
        slot.changed(&mut st);
        drop(st);
        self.spawn(slot.clone(), Reason::Reload);
    }

    /// Called by the watcher with the paths that changed (files, or directories whose
    /// contents changed); `None` means "anything may have changed" (event queue overflow).
    pub(crate) fn files_changed(self: &Arc<Self>, changed: Option<&[AssetPath]>) {
        let slots: Vec<Arc<Slot>> = {
            let map = lock(&self.entries);
            map.iter()
                .filter(|(k, _)| match changed {
                    None => true,
                    Some(paths) => paths.iter().any(|p| k.path.is_at_or_below(p)),
                })
                .map(|(_, s)| s.clone())
                .collect()
        };
        for slot in &slots {
            self.request_reload(slot, false);
        }
    }

    /// Removes a slot's data from the accounting; the slot is no longer in the map.
    fn detach(&self, slot: &Slot) -> Option<Arc<LoadedAsset>> {
        let mut st = lock(&slot.state);
        st.detached = true;
        let old = st.data.take();
        if let Some(d) = &old {
            self.bytes.fetch_sub(d.file_size(), Ordering::AcqRel);
        }
        slot.changed(&mut st);
        old
    }

    fn over_budget(&self) -> bool {
        self.budget
            .is_some_and(|b| self.bytes.load(Ordering::Acquire) > b)
    }

    /// Evicts unreferenced, settled entries, least recently used first, until the cache fits
    /// its budget.
    fn enforce_budget(&self) -> usize {
        let Some(budget) = self.budget else { return 0 };
        if !self.over_budget() {
            return 0;
        }
        let mut released = Vec::new();
        let mut map = lock(&self.entries);
        let mut candidates: Vec<(u64, Key)> = map
            .iter()
            .filter(|(_, s)| s.refs.load(Ordering::Acquire) == 0)
            .map(|(k, s)| (s.last_used.load(Ordering::Relaxed), k.clone()))
            .collect();
        candidates.sort_unstable_by_key(|(t, _)| *t);
        let mut evicted = 0;
        for (_, key) in candidates {
            if self.bytes.load(Ordering::Acquire) <= budget {
                break;
            }
            let Some(slot) = map.get(&key) else { continue };
            {
                let st = lock(&slot.state);
                if st.in_flight || st.data.is_none() {
                    continue;
                }
            }
            if let Some(slot) = map.remove(&key) {
                released.push(self.detach(&slot));
                evicted += 1;
            }
        }
        drop(map);
        self.evictions.fetch_add(evicted as u64, Ordering::Relaxed);
        drop(released);
        evicted
    }
}
