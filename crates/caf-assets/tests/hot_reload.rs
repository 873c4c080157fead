//! Reloading: explicit reloads (deterministic, no watcher) and hot reload through the file
//! watcher (bounded condition waits, no sleeps).

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use caf::{AssetType, CafError};
use caf_assets::{AssetError, AssetEvent, AssetManager, EntryInfo, Handle, Kind, Texture};
use common::*;

fn first_pixel(m: &AssetManager, h: &Handle<Texture>) -> u8 {
    m.get(h).expect("loaded").asset().payload[0]
}

/// Collects events until one matches `pred` (or the bound passes). Returns all collected.
fn events_until(m: &AssetManager, mut pred: impl FnMut(&AssetEvent) -> bool) -> Vec<AssetEvent> {
    let deadline = Instant::now() + WAIT;
    let mut all = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let batch = m.wait_events(left);
        let hit = batch.iter().any(&mut pred);
        all.extend(batch);
        if hit {
            return all;
        }
        assert!(
            !left.is_zero(),
            "no matching event within {WAIT:?}; got {all:?}"
        );
    }
}

fn watched(dir: &Path) -> AssetManager {
    AssetManager::builder(dir)
        .workers(2)
        .hot_reload(true)
        .debounce(Duration::from_millis(20))
        .build()
        .unwrap()
}

/// A temporary folder holding `name` (a `width`-pixel texture of 1s), loaded by the manager
/// `open` makes over the folder: the folder, the file, the manager and the handle.
fn loaded_texture(
    name: &str,
    width: u32,
    open: fn(&Path) -> AssetManager,
) -> (tempfile::TempDir, PathBuf, AssetManager, Handle<Texture>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    write_atomic(&file, &texture_bytes(width, 1));
    let m = open(dir.path());
    let h = m.load_sync::<Texture>(name).unwrap();
    (dir, file, m, h)
}

// ---- explicit reloads: the swap semantics, independent of the watcher ----

/// One worker, no watcher.
fn unwatched(dir: &Path) -> AssetManager {
    manager(dir, 1)
}

/// Writes `bytes` over `file`, asks for a reload of `h` and waits for its version 2.
fn reload_to_version_2(
    m: &AssetManager,
    h: &Handle<Texture>,
    file: &Path,
    bytes: &[u8],
) -> EntryInfo {
    write_atomic(file, bytes);
    m.reload(h);
    m.wait_until(h, Some(WAIT), |i| i.version == 2)
        .expect("reloaded")
}

#[test]
fn explicit_reload_swaps_atomically_and_keeps_guards_valid() {
    let (_dir, file, m, h) = loaded_texture("t.caf", 4, unwatched);
    let old = m.get(&h).unwrap();

    let info = reload_to_version_2(&m, &h, &file, &texture_bytes(8, 2));
    assert!(info.status.is_loaded());
    let new = m.get(&h).unwrap();
    assert_eq!(
        (new.version(), new.view().meta.width, first_pixel(&m, &h)),
        (2, 8, 2)
    );
    // The guard taken before the reload still reads the old buffer.
    assert_eq!((old.version(), old.view().meta.width), (1, 4));
    assert!(old.asset().payload.iter().all(|&p| p == 1));
    assert_eq!(m.stats().bytes_cached, texture_bytes(8, 2).len() as u64);
    let ev = m.drain_events();
    assert!(
        matches!(
            &ev[..],
            [AssetEvent::Reloaded {
                version: 2,
                recovered: false,
                kind: Kind::Texture,
                ..
            }]
        ),
        "{ev:?}"
    );
    assert!(m.drain_events().is_empty());
}

#[test]
fn explicit_reload_failures_keep_the_previous_version() {
    let (_dir, file, m, h) = loaded_texture("t.caf", 4, unwatched);

    type Check = fn(&AssetError) -> bool;
    let cases: Vec<(Vec<u8>, Check)> = vec![
        (corrupted(texture_bytes(4, 9)), |e| {
            matches!(load_error(e), Some(CafError::PayloadCrcMismatch { .. }))
        }),
        (texture_bytes(4, 9)[..40].to_vec(), |e| {
            matches!(load_error(e), Some(CafError::SizeMismatch { .. }))
        }),
        (audio_bytes(8, 9), |e| {
            matches!(
                e,
                AssetError::WrongType {
                    found: AssetType::AUDIO,
                    ..
                }
            )
        }),
    ];
    for (attempt, (bytes, expected)) in cases.into_iter().enumerate() {
        write_atomic(&file, &bytes);
        m.reload(&h);
        let events = events_until(&m, |e| matches!(e, AssetEvent::ReloadFailed { .. }));
        let Some(AssetEvent::ReloadFailed {
            error,
            kept_version,
            ..
        }) = events.last()
        else {
            panic!("{events:?}")
        };
        assert!(expected(error), "case {attempt}: {error}");
        assert_eq!(*kept_version, Some(1));
        let info = m.info(&h);
        assert!(info.status.is_loaded());
        assert_eq!(info.version, 1);
        assert_eq!(info.attempts, 2 + attempt as u64);
        assert!(info.last_error.is_some());
        assert_eq!(first_pixel(&m, &h), 1);
    }
    std::fs::remove_file(&file).unwrap();
    m.reload(&h);
    let events = events_until(&m, |e| matches!(e, AssetEvent::ReloadFailed { .. }));
    assert!(
        matches!(events.last(), Some(AssetEvent::ReloadFailed { error, .. }) if error.is_not_found())
    );
    assert_eq!(first_pixel(&m, &h), 1);
    assert_eq!(m.stats().reload_failures, 4);
    // Fixed: the next reload succeeds and clears the error.
    let info = reload_to_version_2(&m, &h, &file, &texture_bytes(4, 5));
    assert!(info.last_error.is_none());
    assert_eq!(first_pixel(&m, &h), 5);
}

// ---- hot reload through the watcher ----

#[test]
fn modified_file_is_seen_through_the_same_handle() {
    let (_dir, file, m, h) = loaded_texture("tex/hero.caf", 4, watched);
    assert!(m.hot_reload_enabled());
    let old = m.get(&h).unwrap();

    // An atomic save (temporary file + rename) ...
    write_atomic(&file, &texture_bytes(6, 2));
    let info = m
        .wait_until(&h, Some(WAIT), |i| {
            i.version >= 2 && first_pixel(&m, &h) == 2
        })
        .expect("hot reload within the bound");
    assert!(info.status.is_loaded(), "{info:?}");
    assert_eq!(m.get(&h).unwrap().view().meta.width, 6);
    assert_eq!(first_pixel(&m, &h), 2);
    assert_eq!(old.view().meta.width, 4);
    let v = info.version;

    // ... and an in-place rewrite both reload.
    write_in_place(&file, &texture_bytes(3, 3));
    let info = m
        .wait_until(&h, Some(WAIT), |i| {
            i.version > v && first_pixel(&m, &h) == 3
        })
        .expect("hot reload within the bound");
    assert!(info.status.is_loaded());
    assert_eq!(m.get(&h).unwrap().view().meta.width, 3);
    let events = m.drain_events();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AssetEvent::Reloaded { path, .. } if path == "tex/hero.caf")),
        "{events:?}"
    );
}

#[test]
fn corrupt_or_half_written_replacement_keeps_old_data_until_fixed() {
    let (_dir, file, m, h) = loaded_texture("a.caf", 16, watched);

    // A corrupt replacement: reported, old data kept.
    write_in_place(&file, &corrupted(texture_bytes(16, 2)));
    let events = events_until(&m, |e| matches!(e, AssetEvent::ReloadFailed { .. }));
    assert!(
        events.iter().all(|e| matches!(
            e,
            AssetEvent::ReloadFailed {
                kept_version: Some(1),
                ..
            }
        )),
        "{events:?}"
    );
    assert!(m.status(&h).is_loaded());
    assert_eq!(first_pixel(&m, &h), 1);

    // A half-written file (the first half of a valid one): also rejected.
    let full = texture_bytes(16, 3);
    write_in_place(&file, &full[..full.len() / 2]);
    events_until(&m, |e| {
        matches!(e, AssetEvent::ReloadFailed { error, .. }
        if matches!(load_error(error), Some(CafError::SizeMismatch { .. })))
    });
    assert_eq!(first_pixel(&m, &h), 1);
    assert_eq!(m.info(&h).version, 1);

    // Completing the write swaps in the new version.
    write_in_place(&file, &full);
    let info = m
        .wait_until(&h, Some(WAIT), |i| i.version >= 2)
        .expect("reloaded after the complete write");
    assert!(info.status.is_loaded());
    assert_eq!(first_pixel(&m, &h), 3);
    events_until(&m, |e| matches!(e, AssetEvent::Reloaded { version: 2, .. }));
}

#[test]
fn failed_file_is_retried_when_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let m = watched(dir.path());
    let missing = m.load::<Texture>("later.caf");
    let e = m.wait(&missing, WAIT);
    assert!(matches!(e.error(), Some(e) if e.is_not_found()), "{e}");
    write_in_place(
        &dir.path().join("bad.caf"),
        b"not yet a caf file, just some bytes",
    );
    let bad = m.load::<Texture>("bad.caf");
    assert!(m.wait(&bad, WAIT).is_failed());

    write_atomic(&dir.path().join("later.caf"), &texture_bytes(4, 7));
    write_atomic(&dir.path().join("bad.caf"), &texture_bytes(4, 8));
    for (h, px) in [(&missing, 7), (&bad, 8)] {
        let info = m
            .wait_until(h, Some(WAIT), |i| i.status.is_loaded())
            .expect("retried after the file changed");
        assert_eq!(info.version, 1);
        assert_eq!(first_pixel(&m, h), px);
    }
    let events = m.drain_events();
    for name in ["later.caf", "bad.caf"] {
        assert!(
            events.iter().any(
                |e| matches!(e, AssetEvent::Reloaded { path, recovered: true, .. } if path == name)
            ),
            "{name}: {events:?}"
        );
    }
}

#[test]
fn unrelated_entries_are_not_reloaded() {
    let dir = tempfile::tempdir().unwrap();
    write_atomic(&dir.path().join("a.caf"), &texture_bytes(4, 1));
    write_atomic(&dir.path().join("b.caf"), &texture_bytes(4, 2));
    let m = watched(dir.path());
    let a = m.load_sync::<Texture>("a.caf").unwrap();
    let b = m.load_sync::<Texture>("b.caf").unwrap();
    write_atomic(&dir.path().join("b.caf"), &texture_bytes(4, 3));
    m.wait_until(&b, Some(WAIT), |i| i.version >= 2)
        .expect("b reloaded");
    // Reloads of b ran; a was not touched by them (each entry's attempts count its reads).
    assert_eq!(m.info(&a).attempts, 1);
    assert_eq!(first_pixel(&m, &a), 1);
    drop(m); // stopping the watcher with loads possibly in flight is fine
    drop((a, b));
}
