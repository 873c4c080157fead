//! The cache's upkeep on the shared state: applying the releases that dropped handles queued,
//! the byte budget and eviction, garbage collection, and the statistics.

use std::sync::atomic::Ordering;

use crate::cache::{Cache, Stats};
use crate::inner::Inner;
use crate::slot::{Key, Slot, Version, UNLISTED};
use crate::sync::lock;

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
