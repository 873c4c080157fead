//! The cache: entries by key and the LRU of unreferenced entries, and the statistics the
//! manager reports. Its upkeep (releases, budget, eviction, collection) is in `upkeep`.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use caf::AssetType;

use crate::kind::Kind;
use crate::slot::{Key, Slot, UNLISTED};

/// Cache statistics from [`AssetManager::stats`](crate::AssetManager::stats).
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
    /// Entries removed by [`AssetManager::collect_garbage`](crate::AssetManager::collect_garbage).
    pub collected: u64,
    /// Successful reloads.
    pub reloads: u64,
    /// Failed reloads.
    pub reload_failures: u64,
    /// Typed checks run (one per load or reload that read a sound container). Taking guards
    /// and views runs none.
    pub validations: u64,
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

/// The entries and the LRU, under one lock.
pub(crate) struct Cache {
    pub(crate) map: HashMap<Key, Arc<Slot>>,
    /// Unreferenced entries of the map, by the tick of their last use, oldest first. Only
    /// entries whose release was applied are listed, each once (its `lru_at`): a `load` that
    /// takes an entry again unlists it, and eviction or collection removes it.
    pub(crate) lru: BTreeMap<u64, Key>,
}

impl Cache {
    pub(crate) fn new() -> Cache {
        Cache {
            map: HashMap::new(),
            lru: BTreeMap::new(),
        }
    }

    /// Takes `slot` off the LRU (it was referenced again, or it leaves the cache).
    pub(crate) fn unlist(&mut self, slot: &Slot) {
        let at = slot.lru_at.swap(UNLISTED, Ordering::Relaxed);
        if at != UNLISTED {
            self.lru.remove(&at);
        }
    }

    /// Applies one release: lists `slot` as unreferenced if it still is and is still the
    /// map's entry for its key (it may have been collected, or taken again, since).
    pub(crate) fn released(&mut self, slot: &Arc<Slot>) {
        if slot.is_referenced() {
            return;
        }
        if !self
            .map
            .get(&slot.key)
            .is_some_and(|s| Arc::ptr_eq(s, slot))
        {
            return;
        }
        self.unlist(slot);
        // Ticks are unique, so no other entry is listed under this one.
        let at = slot.last_used.load(Ordering::Relaxed);
        slot.lru_at.store(at, Ordering::Relaxed);
        self.lru.insert(at, slot.key.clone());
    }

    /// Removes an entry from the map and the LRU.
    pub(crate) fn remove(&mut self, key: &Key) -> Option<Arc<Slot>> {
        let slot = self.map.remove(key)?;
        self.unlist(&slot);
        Some(slot)
    }
}
