//! Reference counting, garbage collection, the byte budget with LRU eviction, statistics.

mod common;

use caf_assets::{AssetManager, Texture};
use common::*;

/// Every test file here has the same size: a 64-pixel texture.
fn file_size() -> u64 {
    texture_bytes(64, 0).len() as u64
}

/// A manager over `dir` with `workers` loader threads and a cache budget of `bytes`.
fn budgeted(dir: &std::path::Path, workers: usize, bytes: u64) -> AssetManager {
    AssetManager::builder(dir)
        .workers(workers)
        .budget(bytes)
        .build()
        .unwrap()
}

fn setup(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (i, n) in names.iter().enumerate() {
        write_atomic(&dir.path().join(n), &texture_bytes(64, i as u8));
    }
    dir
}

#[test]
fn handles_count_references() {
    let dir = setup(&["a.caf"]);
    let m = manager(dir.path(), 1);
    let h = m.load_sync::<Texture>("a.caf").unwrap();
    assert_eq!(h.ref_count(), 1);
    let h2 = h.clone();
    assert_eq!(h.ref_count(), 2);
    let h3 = m.load::<Texture>("a.caf");
    assert_eq!(h.ref_count(), 3);
    drop(h2);
    assert_eq!(h3.ref_count(), 2);
    drop(h);
    assert_eq!(h3.ref_count(), 1);
    assert_eq!(m.stats().referenced, 1);
    // Held entries are never collected.
    assert_eq!(m.collect_garbage(), 0);
    assert!(m.get(&h3).is_some());
    drop(h3);
    assert_eq!(m.stats().referenced, 0);
}

#[test]
fn collect_garbage_removes_unreferenced_entries_only() {
    let dir = setup(&["a.caf", "b.caf", "c.caf"]);
    let m = manager(dir.path(), 1);
    let a = m.load_sync::<Texture>("a.caf").unwrap();
    let b = m.load_sync::<Texture>("b.caf").unwrap();
    let c = m.load_sync::<Texture>("c.caf").unwrap();
    let failed = m.load::<Texture>("missing.caf");
    assert!(m.wait(&failed, WAIT).is_failed());
    assert_eq!(m.stats().bytes_cached, 3 * file_size());
    // A guard outlives its entry: the buffer stays alive while borrowed.
    let guard_b = m.get(&b).unwrap();
    drop((b, c, failed));
    // Unreferenced entries stay cached until collected: loading again is a hit.
    assert_eq!(m.stats().entries, 4);
    let c = m.load::<Texture>("c.caf");
    assert!(m.status(&c).is_loaded());
    assert_eq!(m.stats().hits, 1);
    drop(c);

    assert_eq!(m.collect_garbage(), 3); // b, c and the failed entry
    let st = m.stats();
    assert_eq!(st.entries, 1);
    assert_eq!(st.loaded, 1);
    assert_eq!(st.collected, 3);
    assert_eq!(st.bytes_cached, file_size());
    assert!(guard_b.asset().payload.iter().all(|&p| p == 1));
    assert_eq!(guard_b.view().meta.width, 64);
    assert!(m.get(&a).is_some());
    // Collected entries load afresh.
    let misses = m.stats().misses;
    let b = m.load_sync::<Texture>("b.caf").unwrap();
    assert_eq!(m.stats().misses, misses + 1);
    assert!(!b.same_entry(&m.load::<Texture>("a.caf")));
    assert_eq!(m.collect_garbage(), 0);
}

#[test]
fn budget_evicts_least_recently_used_unreferenced_entries() {
    let dir = setup(&["a.caf", "b.caf", "c.caf", "d.caf", "e.caf"]);
    let size = file_size();
    let m = budgeted(dir.path(), 1, 3 * size);
    // Load a, b, c and let go of them: they fit the budget and stay cached.
    for n in ["a.caf", "b.caf", "c.caf"] {
        drop(m.load_sync::<Texture>(n).unwrap());
    }
    assert_eq!(m.stats().entries, 3);
    assert_eq!(m.stats().evictions, 0);
    // Use a again: the least recently used is now b, then c.
    drop(m.load_sync::<Texture>("a.caf").unwrap());

    let d = m.load_sync::<Texture>("d.caf").unwrap();
    let st = m.stats();
    assert_eq!(st.evictions, 1);
    assert_eq!(st.entries, 3);
    assert_eq!(st.bytes_cached, 3 * size);
    // b was evicted (a miss now), a was kept (a hit).
    let misses = st.misses;
    let hits = st.hits;
    let a = m.load::<Texture>("a.caf");
    assert!(m.status(&a).is_loaded());
    assert_eq!(m.stats().hits, hits + 1);
    // Loading b again evicts c, the least recently used unreferenced entry.
    let b = m.load_sync::<Texture>("b.caf").unwrap();
    let st = m.stats();
    assert_eq!(st.misses, misses + 1);
    assert_eq!(st.evictions, 2);
    assert_eq!(st.bytes_cached, 3 * size);
    assert!(m.get(&a).is_some() && m.get(&b).is_some() && m.get(&d).is_some());

    // Everything cached is held now: a further load goes over budget rather than evict a
    // held entry.
    let e = m.load_sync::<Texture>("e.caf").unwrap();
    let st = m.stats();
    assert_eq!(st.evictions, 2);
    assert_eq!(st.bytes_cached, 4 * size);
    assert_eq!(st.referenced, 4);
    // Releasing the last handle of an entry while over budget evicts it at once.
    drop(a);
    assert_eq!(m.trim(), 0);
    let st = m.stats();
    assert_eq!(st.evictions, 3);
    assert_eq!(st.bytes_cached, 3 * size);
    assert_eq!(st.entries, 3);
    drop((b, d, e));
}

#[test]
fn budget_smaller_than_one_asset_keeps_only_held_ones() {
    let dir = setup(&["a.caf", "b.caf"]);
    let m = budgeted(dir.path(), 2, 1);
    let a = m.load_sync::<Texture>("a.caf").unwrap();
    let a2 = a.clone();
    // Held: over budget but kept.
    assert_eq!(m.stats().bytes_cached, file_size());
    drop(a);
    assert_eq!(m.stats().entries, 1);
    // The last handle going away evicts it.
    drop(a2);
    let st = m.stats();
    assert_eq!((st.entries, st.evictions, st.bytes_cached), (0, 1, 0));
    let b = m.load_sync::<Texture>("b.caf").unwrap();
    let st = m.stats();
    assert_eq!(st.entries, 1);
    assert_eq!(st.evictions, 1);
    assert_eq!(st.bytes_cached, file_size());
    assert!(m.get(&b).is_some());
}

#[test]
fn manager_handles_and_guards_are_thread_safe() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<AssetManager>();
    send_sync::<caf_assets::Handle<Texture>>();
    send_sync::<caf_assets::AssetGuard<Texture>>();
    send_sync::<caf_assets::AssetEvent>();
    send_sync::<caf_assets::Status>();
}

#[test]
fn a_dropped_then_reloaded_entry_is_not_lost() {
    let dir = setup(&["a.caf"]);
    let m = budgeted(dir.path(), 1, 1);
    let a = m.load_sync::<Texture>("a.caf").unwrap();
    assert_eq!(m.stats().misses, 1);
    // The last handle goes; before the manager applies that, the asset is requested again.
    drop(a);
    let a = m.load::<Texture>("a.caf");
    // The entry survived: a hit, loaded at once, nothing evicted or read again.
    assert!(m.status(&a).is_loaded());
    assert!(m.get(&a).is_some());
    let st = m.stats();
    assert_eq!((st.hits, st.misses, st.evictions), (1, 1, 0));
    assert_eq!((st.entries, st.bytes_cached), (1, file_size()));
    assert_eq!(m.info(&a).attempts, 1);
    // Released for good, it is evicted (over budget) when the manager applies the drop.
    drop(a);
    let st = m.stats();
    assert_eq!((st.entries, st.evictions, st.bytes_cached), (0, 1, 0));
}

#[test]
fn handles_dropped_on_other_threads_are_applied_by_the_manager() {
    let dir = setup(&["a.caf", "b.caf", "c.caf"]);
    let m = budgeted(dir.path(), 2, 2 * file_size());
    let handles: Vec<_> = ["a.caf", "b.caf", "c.caf"]
        .iter()
        .map(|n| m.load_sync::<Texture>(n).unwrap())
        .collect();
    assert_eq!(m.stats().bytes_cached, 3 * file_size());
    std::thread::scope(|s| {
        for h in handles {
            s.spawn(move || drop(h));
        }
    });
    let st = m.stats();
    assert_eq!((st.referenced, st.evictions), (0, 1));
    assert_eq!(st.bytes_cached, 2 * file_size());
}
