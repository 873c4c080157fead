//! The cache: entries by key, the byte budget, the LRU of unreferenced entries, eviction,
//! garbage collection, and applying the releases that dropped handles queued.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use caf::AssetType;

use crate::kind::Kind;
use crate::manager::{lock, Inner};
use crate::slot::{Key, Slot, Version, UNLISTED};

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
    lru: BTreeMap<u64, Key>,
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
    fn released(&mut self, slot: &Arc<Slot>) {
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
    fn remove(&mut self, key: &Key) -> Option<Arc<Slot>> {
        let slot = self.map.remove(key)?;
        self.unlist(&slot);
        Some(slot)
    }
}

impl Inner {
    /// Applies the releases that dropped handles queued: their entries join the LRU, and if
    /// the cache is over budget the oldest unreferenced ones are evicted. Freed buffers are
    /// dropped after the cache lock is released. Returns how many entries were evicted.
    ///
    /// Called at the start of the manager's calls and when a worker finishes a load; cheap
    /// (one atomic load) when nothing was released.
    pub(crate) fn maintain(&self) -> usize {
        let released = self.releases.take();
        if released.is_empty() {
            return 0;
        }
        let (evicted, freed) = {
            let mut cache = lock(&self.cache);
            for slot in released.iter().filter_map(|w| w.upgrade()) {
                cache.released(&slot);
            }
            self.evict(&mut cache)
        };
        drop(freed);
        evicted
    }

    /// True when a budget is set and the loaded data exceeds it.
    pub(crate) fn over_budget(&self) -> bool {
        self.budget
            .is_some_and(|b| self.bytes.load(Ordering::Acquire) > b)
    }

    /// Evicts listed (unreferenced) entries, least recently used first, until the cache fits
    /// its budget. Returns how many were evicted.
    pub(crate) fn enforce_budget(&self) -> usize {
        if !self.over_budget() {
            return 0;
        }
        let (evicted, freed) = {
            let mut cache = lock(&self.cache);
            self.evict(&mut cache)
        };
        drop(freed);
        evicted
    }

    /// The eviction pass, with the cache lock held. Entries with a load in flight or without
    /// data stay listed (they free nothing now). Returns the count and the versions to free
    /// once the lock is released.
    fn evict(&self, cache: &mut Cache) -> (usize, Vec<Version>) {
        let mut freed = Vec::new();
        let mut evicted = 0;
        let Some(budget) = self.budget else {
            return (0, freed);
        };
        let mut skipped = Vec::new();
        while self.bytes.load(Ordering::Acquire) > budget {
            let Some((at, key)) = cache.lru.pop_first() else {
                break;
            };
            let Some(slot) = cache.map.get(&key) else {
                continue;
            };
            // Listing guarantees that the record is the slot's and that no handle holds it;
            // both are re-checked because eviction must never drop a held entry.
            if slot.lru_at.load(Ordering::Relaxed) != at {
                continue;
            }
            if slot.is_referenced() {
                slot.lru_at.store(UNLISTED, Ordering::Relaxed);
                continue;
            }
            {
                let st = lock(&slot.state);
                if st.in_flight || st.data.is_none() {
                    skipped.push((at, key));
                    continue;
                }
            }
            if let Some(slot) = cache.remove(&key) {
                freed.extend(self.detach(&slot));
                evicted += 1;
            }
        }
        cache.lru.extend(skipped);
        self.evictions.fetch_add(evicted as u64, Ordering::Relaxed);
        (evicted, freed)
    }

    /// Removes a slot's data from the accounting; the slot is no longer in the map.
    fn detach(&self, slot: &Slot) -> Option<Version> {
        let mut st = lock(&slot.state);
        st.detached = true;
        let old = st.data.take();
        if let Some(d) = &old {
            self.bytes.fetch_sub(d.asset.file_size(), Ordering::AcqRel);
        }
        slot.changed(&mut st);
        old
    }

    /// Removes every entry that no handle holds and that has no load in flight. Returns how
    /// many were removed.
    pub(crate) fn collect_garbage(&self) -> usize {
        self.maintain();
        let mut freed = Vec::new();
        let removed = {
            let mut cache = lock(&self.cache);
            let victims: Vec<Key> = cache
                .map
                .iter()
                .filter(|(_, s)| !s.is_referenced())
                .filter(|(_, s)| !lock(&s.state).in_flight)
                .map(|(k, _)| k.clone())
                .collect();
            for key in &victims {
                if let Some(slot) = cache.remove(key) {
                    freed.extend(self.detach(&slot));
                }
            }
            victims.len()
        };
        drop(freed);
        self.collected.fetch_add(removed as u64, Ordering::Relaxed);
        removed
    }

    /// Current statistics (after applying queued releases).
    pub(crate) fn stats(&self) -> Stats {
        self.maintain();
        let mut s = Stats {
            budget: self.budget,
            pending_loads: self.pending.load(Ordering::Acquire),
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            collected: self.collected.load(Ordering::Relaxed),
            reloads: self.reloads.load(Ordering::Relaxed),
            reload_failures: self.reload_failures.load(Ordering::Relaxed),
            validations: self.validations.load(Ordering::Relaxed),
            ..Stats::default()
        };
        let cache = lock(&self.cache);
        s.bytes_cached = self.bytes.load(Ordering::Acquire);
        s.entries = cache.map.len();
        for (key, slot) in cache.map.iter() {
            *s.by_kind.entry(key.kind).or_default() += 1;
            if slot.is_referenced() {
                s.referenced += 1;
            }
            let st = lock(&slot.state);
            if let Some(d) = &st.data {
                s.loaded += 1;
                *s.by_type.entry(d.asset.header().asset_type).or_default() += 1;
            } else if st.error.is_some() && !st.in_flight {
                s.failed += 1;
            }
        }
        s
    }
}
