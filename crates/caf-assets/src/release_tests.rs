//! Dropping a handle only queues a release; the manager applies it. These tests look at the
//! manager's internals (the byte counter, the queue, the cache map) to see that nothing
//! happens on the dropping thread.

use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

use caf::CafFlags;

use crate::sync::lock;
use crate::test_files::texture_file;
use crate::{AssetManager, Texture};

/// A 4 MiB texture file; returns its size.
fn write_large(dir: &std::path::Path, name: &str) -> u64 {
    let width = 1 << 20;
    let bytes = texture_file(width, 1, 1, CafFlags::NONE, &vec![9u8; width as usize * 4]);
    std::fs::write(dir.join(name), &bytes).expect("write test file");
    bytes.len() as u64
}

#[test]
fn dropping_the_last_handle_frees_nothing_until_the_manager_applies_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let size = write_large(dir.path(), "big.caf");
    // A budget of one byte: the entry must go as soon as nobody holds it.
    let m = AssetManager::builder(dir.path())
        .workers(1)
        .budget(1)
        .build()
        .expect("manager");
    let big = m.load_sync::<Texture>("big.caf").expect("loads");
    assert_eq!(m.stats().bytes_cached, size);

    // Drop on another thread while this one holds the cache lock: a drop that locked the
    // cache (to evict or free) would block, and the signal would not come.
    let (done_tx, done_rx) = mpsc::channel();
    let dropper = {
        let cache = lock(&m.inner.cache);
        let dropper = std::thread::spawn(move || {
            drop(big);
            let _ = done_tx.send(());
        });
        let signalled = done_rx.recv_timeout(Duration::from_secs(10));
        drop(cache);
        assert!(signalled.is_ok(), "the drop waited for the cache lock");
        dropper
    };
    dropper.join().expect("dropping thread");

    // Recorded, not done: the release is queued, the entry and its bytes are still there.
    assert_eq!(m.inner.releases.len(), 1);
    assert_eq!(m.inner.bytes.load(Ordering::Acquire), size);
    assert_eq!(lock(&m.inner.cache).map.len(), 1);
    assert_eq!(m.inner.evictions.load(Ordering::Relaxed), 0);

    // The manager's next call applies it: evicted, bytes released.
    let st = m.stats();
    assert_eq!(m.inner.releases.len(), 0);
    assert_eq!((st.entries, st.evictions, st.bytes_cached), (0, 1, 0));
}

#[test]
fn a_load_applies_queued_releases_and_makes_room() {
    let dir = tempfile::tempdir().expect("temp dir");
    let size = write_large(dir.path(), "a.caf");
    write_large(dir.path(), "b.caf");
    let m = AssetManager::builder(dir.path())
        .workers(1)
        .budget(size)
        .build()
        .expect("manager");
    let a = m.load_sync::<Texture>("a.caf").expect("loads");
    drop(a);
    assert_eq!(m.inner.releases.len(), 1);
    // `load` applies the queue (a is listed, but within budget it stays), then the finished
    // load of b grows the cache past the budget and evicts a. (`load_sync` runs the job on
    // this thread, so the eviction has happened when it returns.)
    let b = m.load_sync::<Texture>("b.caf").expect("loads");
    assert_eq!(m.inner.releases.len(), 0);
    let st = m.stats();
    assert_eq!((st.entries, st.evictions, st.bytes_cached), (1, 1, size));
    assert!(m.get(&b).is_some());
}
