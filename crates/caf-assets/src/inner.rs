//! The state shared by the manager, its load jobs and its watcher. Its operations live with
//! their subjects: the cache's upkeep in `upkeep`, load jobs in `loader`.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::cache::Cache;
use crate::event::AssetEvent;
use crate::slot::{ReleaseQueue, Slot};

/// The state shared by the manager, its load jobs and its watcher.
pub(crate) struct Inner {
    pub(crate) base: PathBuf,
    pub(crate) alt_base: PathBuf,
    pub(crate) pool: rayon::ThreadPool,
    pub(crate) cache: Mutex<Cache>,
    /// Where dropped last handles report; applied by [`Inner::maintain`].
    pub(crate) releases: Arc<ReleaseQueue>,
    pub(crate) budget: Option<u64>,
    /// Key of ENCRYPTED assets.
    pub(crate) key: Option<caf::encoded::Key>,
    /// Mounted packs, searched (newest first) for paths with no loose file.
    pub(crate) packs: caf::pack::PackSet,
    /// Sum of `file_size` of the current versions of attached slots. Changed only while holding
    /// the slot's state lock, together with the slot's `data`.
    pub(crate) bytes: AtomicU64,
    pub(crate) tick: AtomicU64,
    pub(crate) pending: AtomicUsize,
    pub(crate) hits: AtomicU64,
    pub(crate) misses: AtomicU64,
    pub(crate) evictions: AtomicU64,
    pub(crate) collected: AtomicU64,
    pub(crate) reloads: AtomicU64,
    pub(crate) reload_failures: AtomicU64,
    pub(crate) validations: AtomicU64,
    pub(crate) events: Mutex<VecDeque<AssetEvent>>,
    pub(crate) events_cv: Condvar,
}

impl Inner {
    pub(crate) fn new(
        base: PathBuf,
        alt_base: PathBuf,
        pool: rayon::ThreadPool,
        budget: Option<u64>,
        key: Option<caf::encoded::Key>,
        packs: caf::pack::PackSet,
    ) -> Inner {
        Inner {
            base,
            alt_base,
            pool,
            cache: Mutex::new(Cache::new()),
            releases: Arc::new(ReleaseQueue::new()),
            budget,
            key,
            packs,
            bytes: AtomicU64::new(0),
            tick: AtomicU64::new(0),
            pending: AtomicUsize::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
            collected: AtomicU64::new(0),
            reloads: AtomicU64::new(0),
            reload_failures: AtomicU64::new(0),
            validations: AtomicU64::new(0),
            events: Mutex::new(VecDeque::new()),
            events_cv: Condvar::new(),
        }
    }

    /// Marks the slot as used now (unique, increasing ticks order the LRU).
    pub(crate) fn touch(&self, slot: &Slot) {
        let t = self.tick.fetch_add(1, Ordering::Relaxed);
        slot.last_used.store(t, Ordering::Relaxed);
    }
}
