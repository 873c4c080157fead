//! The public manager: the API that hands out handles and guards, on top of the crate. The
//! shared state behind it is in `inner`, entries and their states in `slot`, the cache in
//! `cache` and its upkeep (budget, eviction) in `upkeep`, load jobs in `loader`, handles and
//! guards in `handle`, its configuration in `builder`.

use std::fmt;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

use crate::builder::AssetManagerBuilder;
use crate::cache::Stats;
use crate::error::AssetError;
use crate::event::AssetEvent;
use crate::handle::{AssetGuard, Handle};
use crate::inner::Inner;
use crate::kind::AssetKind;
use crate::path::AssetPath;
use crate::slot::{validate, EntryInfo, Key, Reason, Slot, Status};
use crate::sync::lock;
use crate::watch::HotReload;

/// Loads `.caf` assets from a base directory on a pool of worker threads, caches them,
/// de-duplicates requests and (optionally) hot-reloads changed files.
///
/// Entries are keyed by the normalised path and the requested [`Kind`](crate::Kind): two
/// `load::<Texture>` of `"a/../hero.caf"` and `"hero.caf"` share one entry, while a
/// `load::<Raw>` of the same file is a separate entry.
///
/// The manager is `Send + Sync`; share it by reference (or in an `Arc`) between threads.
/// Dropping it stops the watcher; loads already running finish in the background, and handles
/// and guards stay usable.
pub struct AssetManager {
    pub(crate) inner: Arc<Inner>,
    pub(crate) workers: usize,
    pub(crate) watcher: Option<HotReload>,
}

impl fmt::Debug for AssetManager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AssetManager")
            .field("base", &self.inner.base)
            .field("workers", &self.workers)
            .field("budget", &self.inner.budget)
            .field("hot_reload", &self.watcher.is_some())
            .finish()
    }
}

impl AssetManagerBuilder {
    /// Creates the manager: opens the base directory, starts the loader threads and, with hot
    /// reload, the watcher.
    pub fn build(self) -> Result<AssetManager, AssetError> {
        let (inner, workers, watcher) = self.start()?;
        Ok(AssetManager {
            inner,
            workers,
            watcher,
        })
    }
}

impl AssetManager {
    /// A manager over `base` with default settings (all CPUs, no budget, no hot reload).
    pub fn new(base: impl AsRef<Path>) -> Result<AssetManager, AssetError> {
        Self::builder(base).build()
    }

    /// A builder for a manager over `base`.
    pub fn builder(base: impl AsRef<Path>) -> AssetManagerBuilder {
        AssetManagerBuilder::new(base.as_ref().to_path_buf())
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
        self.watcher.is_some()
    }

    /// Normalises a path the way entries are keyed.
    pub fn normalise(&self, path: impl AsRef<Path>) -> Result<AssetPath, AssetError> {
        let path = path.as_ref();
        AssetPath::normalise(path, &self.inner.base, &self.inner.alt_base)
            .map_err(|reason| AssetError::invalid_path(path, reason))
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

    /// Opens `path` for streaming instead of loading it whole: a [`caf::encoded::StreamReader`] over the
    /// file (or the member of a mounted pack, see
    /// [`AssetManagerBuilder::mount_pack`](crate::AssetManagerBuilder::mount_pack)) that yields the plain payload block by block (decoded and decrypted with the
    /// manager's key), checking each block and, at the end of a full read, the whole file.
    /// Memory: a few blocks, whatever the payload's size. This is how games play audio assets
    /// flagged STREAMED ([`caf::CafFlags::STREAMED`]); streams bypass the cache and its budget.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let samples = vec![0u8; 200_000];
    /// let file = caf::encoded::encode_asset(caf::AssetType::AUDIO, caf::CafFlags::STREAMED, &[], &samples,
    ///     &caf::encoded::Encoding::default())?;
    /// std::fs::write(dir.path().join("music.caf"), file)?;
    /// let m = caf_assets::AssetManager::new(dir.path())?;
    /// let mut s = m.stream("music.caf")?;
    /// let mut total = 0;
    /// while let Some(block) = s.next_block()? {
    ///     total += block.len(); // hand the block to the audio device
    /// }
    /// assert_eq!(total, 200_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stream(
        &self,
        path: impl AsRef<Path>,
    ) -> Result<caf::encoded::StreamReader<std::io::BufReader<caf::pack::FileRange>>, AssetError>
    {
        let apath = self.normalise(path)?;
        let file = self.inner.base.join(apath.as_str());
        let load = |source| AssetError::Load {
            path: apath.clone(),
            source,
        };
        // The same precedence as loads: the loose file, else the newest pack that has it.
        let range = match std::fs::File::open(&file) {
            Ok(f) => caf::pack::FileRange::whole(f).map_err(caf::CafError::from),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match self.inner.packs.open_member(apath.as_str()) {
                    Ok(Some(r)) => Ok(r),
                    Ok(None) => Err(caf::CafError::Io {
                        path: Some(file.clone()),
                        source: e,
                    }),
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(caf::CafError::Io {
                path: Some(file.clone()),
                source: e,
            }),
        }
        .map_err(load)?;
        caf::encoded::StreamReader::new(
            std::io::BufReader::with_capacity(1 << 16, range),
            self.inner.key.as_ref(),
        )
        .map_err(load)
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
                let key = Key {
                    path: AssetPath::raw(&path.to_string_lossy()),
                    kind: T::KIND,
                };
                let slot = Slot::failed(key, validate::<T>, e);
                slot.refs.store(1, Ordering::Relaxed);
                return Handle::new(Arc::new(slot));
            }
        };
        let key = Key {
            path: apath,
            kind: T::KIND,
        };
        let slot = {
            let mut cache = lock(&inner.cache);
            let slot = cache
                .map
                .entry(key)
                .or_insert_with_key(|k| {
                    Arc::new(Slot::new(
                        k.clone(),
                        inner.base.join(k.path.as_str()),
                        validate::<T>,
                        Some(inner.releases.clone()),
                    ))
                })
                .clone();
            slot.refs.fetch_add(1, Ordering::AcqRel);
            // Held again: no longer a candidate for eviction.
            cache.unlist(&slot);
            slot
        };
        inner.touch(&slot);
        // Only now, with the entry held, apply queued releases: an entry whose last handle
        // was dropped just before this call must survive, not be evicted and read again.
        inner.maintain();
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
    ///
    /// O(1): clones two `Arc`s under the entry's lock. The typed check ran when the version
    /// loaded; neither this nor [`AssetGuard::view`] runs it again.
    pub fn get<T: AssetKind>(&self, handle: &Handle<T>) -> Option<AssetGuard<T>> {
        self.inner.maintain();
        self.inner.touch(&handle.slot);
        let st = lock(&handle.slot.state);
        let data = st.data.as_ref()?;
        // The entry's key includes `T::KIND` and each kind has one marker type (the trait is
        // sealed), so the stored layout is a `T::Layout`.
        let layout = data.layout.clone().downcast::<T::Layout>().ok()?;
        Some(AssetGuard::new(data.asset.clone(), layout, st.version))
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
            let released = old.as_ref().map_or(0, |d| d.asset.file_size());
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
        self.inner.collect_garbage()
    }

    /// Evicts unreferenced entries until the cache is within its budget. This also happens
    /// on its own after loads and when the manager applies dropped handles: those releases
    /// are applied first, and evictions they cause count in [`Stats::evictions`] but not in
    /// the result. Returns how many entries this call evicted beyond those.
    pub fn trim(&self) -> usize {
        self.inner.maintain();
        self.inner.enforce_budget()
    }

    /// Takes the queued reload events, oldest first.
    pub fn drain_events(&self) -> Vec<AssetEvent> {
        // The once-per-frame call: a good moment to apply dropped handles too.
        self.inner.maintain();
        lock(&self.inner.events).drain(..).collect()
    }

    /// Like [`drain_events`](Self::drain_events), but first blocks (up to `timeout`) until
    /// at least one event is queued.
    pub fn wait_events(&self, timeout: Duration) -> Vec<AssetEvent> {
        self.inner.maintain();
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

    /// Current cache statistics, after applying the releases of dropped handles.
    pub fn stats(&self) -> Stats {
        self.inner.stats()
    }
}
