//! Background loading, de-duplication, status transitions and load failures.

mod common;

use std::path::{Path, PathBuf};

use caf::{AssetType, CafError};
use caf_assets::{AssetError, AssetManager, Audio, EntryInfo, Handle, Kind, Raw, Status, Texture};
use common::*;

fn status_name(s: &Status) -> &'static str {
    match s {
        Status::Unloaded => "unloaded",
        Status::Loading => "loading",
        Status::Loaded => "loaded",
        Status::Failed(_) => "failed",
    }
}

#[test]
fn concurrent_loads_share_entries_and_read_each_file_once() {
    const FILES: u32 = 120;
    const THREADS: usize = 6;
    let dir = tempfile::tempdir().unwrap();
    for i in 0..FILES {
        // Sizes vary so that some loads take longer than others.
        write_atomic(
            &dir.path().join(format!("t/{i}.caf")),
            &texture_bytes(1 + (i * 37) % 500, i as u8),
        );
    }
    let m = manager(dir.path(), 3);

    let per_thread: Vec<Vec<(u32, Handle<Texture>, Status)>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let m = &m;
                s.spawn(move || {
                    (0..FILES)
                        .map(|k| {
                            let i = (k + t as u32 * 17) % FILES;
                            // Different spellings of the same path must meet in one entry.
                            let path = match t % 3 {
                                0 => format!("t/{i}.caf"),
                                1 => format!("./t/{i}.caf"),
                                _ => format!("t/sub/../{i}.caf"),
                            };
                            let h = m.load::<Texture>(&path);
                            let first = m.status(&h);
                            (i, h, first)
                        })
                        .collect()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });

    for (i, h, first) in per_thread.iter().flatten() {
        // Right after `load` an entry is loading or (when another thread got there first and
        // it finished) loaded; never unloaded or failed.
        assert!(
            matches!(first, Status::Loading | Status::Loaded),
            "{i}: first status {first}"
        );
        // Observe every change from here on: Loading* then Loaded, nothing else.
        let mut seen = vec![status_name(first)];
        let done = m
            .wait_until(h, Some(WAIT), |info: &EntryInfo| {
                let name = status_name(&info.status);
                if seen.last() != Some(&name) {
                    seen.push(name);
                }
                info.status.is_loaded() || info.status.is_failed()
            })
            .expect("load finished");
        assert!(
            seen == ["loading", "loaded"] || seen == ["loaded"],
            "{i}: transitions {seen:?}"
        );
        assert_eq!(done.version, 1);
        assert_eq!(done.attempts, 1, "{i}: the file was read more than once");
        let g = m.get(h).unwrap();
        let tex = g.view();
        assert_eq!(tex.meta.width, 1 + (i * 37) % 500);
        assert!(g.asset().payload.iter().all(|&b| b == *i as u8));
    }
    // All handles to one path point to the same entry.
    let first = &per_thread[0];
    for other in &per_thread[1..] {
        for (i, h, _) in other {
            let (_, h0, _) = first.iter().find(|(j, _, _)| j == i).unwrap();
            assert!(h.same_entry(h0), "{i}: two entries for one path");
        }
    }
    let st = m.stats();
    assert_eq!(st.entries, FILES as usize);
    assert_eq!(st.loaded, FILES as usize);
    assert_eq!(st.misses, FILES as u64);
    assert_eq!(st.hits, (THREADS as u64 - 1) * FILES as u64);
    assert!((st.hit_rate() - (THREADS as f64 - 1.0) / THREADS as f64).abs() < 1e-9);
    assert_eq!(st.pending_loads, 0);
    assert_eq!(st.by_type.get(&AssetType::TEXTURE), Some(&(FILES as usize)));
    assert_eq!(st.referenced, FILES as usize);
    let h = &per_thread[0][0].1;
    assert_eq!(h.ref_count(), THREADS);
}

#[test]
fn concurrent_failures_from_many_threads() {
    let dir = tempfile::tempdir().unwrap();
    write_atomic(
        &dir.path().join("corrupt.caf"),
        &corrupted(texture_bytes(16, 1)),
    );
    write_atomic(&dir.path().join("audio.caf"), &audio_bytes(32, 2));
    let m = manager(dir.path(), 2);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..10 {
                    let missing = m.load::<Texture>("missing.caf");
                    let corrupt = m.load::<Texture>("corrupt.caf");
                    let wrong = m.load::<Texture>("audio.caf");
                    assert!(failure(&m, &missing).is_not_found());
                    assert!(matches!(
                        load_error(&failure(&m, &corrupt)),
                        Some(CafError::PayloadCrcMismatch { .. })
                    ));
                    assert!(matches!(
                        &*failure(&m, &wrong),
                        AssetError::WrongType {
                            expected: Kind::Texture,
                            found: AssetType::AUDIO,
                            ..
                        }
                    ));
                    assert!(m.get(&missing).is_none() && m.get(&corrupt).is_none());
                    assert!(m.get(&wrong).is_none());
                }
            });
        }
    });
    let st = m.stats();
    assert_eq!(st.entries, 3);
    assert_eq!(st.failed, 3);
    assert_eq!(st.loaded, 0);
    assert_eq!(st.bytes_cached, 0);
    assert_eq!(st.pending_loads, 0);
}

/// A one-worker manager over `dir` whose worker is stuck loading `gate.caf`, a named pipe
/// (opening it blocks until a writer shows up), with the load of `queued.caf` (a texture of 4
/// texels of `fill`) waiting behind it: the pipe, the manager, the gated and the queued handle.
/// `None`, with a note, where `mkfifo` is unavailable.
#[cfg(unix)]
fn gated_worker(
    dir: &Path,
    fill: u8,
) -> Option<(PathBuf, AssetManager, Handle<Texture>, Handle<Texture>)> {
    write_atomic(&dir.join("queued.caf"), &texture_bytes(4, fill));
    let gate = dir.join("gate.caf");
    let ok = std::process::Command::new("mkfifo").arg(&gate).status();
    if !ok.is_ok_and(|s| s.success()) {
        eprintln!("note: mkfifo unavailable, skipping");
        return None;
    }
    let m = manager(dir, 1);
    let gated = m.load::<Texture>("gate.caf");
    let queued = m.load::<Texture>("queued.caf");
    Some((gate, m, gated, queued))
}

/// A named pipe blocks the worker in `open` until a writer shows up, which makes the Loading
/// state observable without any timing assumption.
#[cfg(unix)]
#[test]
fn status_transitions_through_a_gated_worker() {
    let dir = tempfile::tempdir().unwrap();
    let Some((gate, m, gated, queued)) = gated_worker(dir.path(), 9) else {
        return;
    };
    // The single worker is stuck opening the pipe: both stay Loading.
    assert!(m.status(&gated).is_loading());
    assert!(m.status(&queued).is_loading());
    assert!(m.get(&gated).is_none() && m.get(&queued).is_none());
    assert_eq!(m.stats().pending_loads, 2);
    assert!(m.info(&gated).in_flight);

    // Open the writing end and close it at once: the loader sees a zero-length file.
    drop(std::fs::OpenOptions::new().write(true).open(&gate).unwrap());
    let e = failure(&m, &gated);
    assert!(
        matches!(load_error(&e), Some(CafError::TooShort { .. })),
        "{e}"
    );
    assert!(m.wait(&queued, WAIT).is_loaded());
    assert_eq!(m.stats().pending_loads, 0);

    // Failed -> Loading -> Loaded: a later load retries once the file is valid.
    std::fs::remove_file(&gate).unwrap();
    write_atomic(&gate, &texture_bytes(8, 3));
    let again = m.load::<Texture>("gate.caf");
    assert!(again.same_entry(&gated));
    assert!(m.wait(&gated, WAIT).is_loaded());
    let info = m.info(&gated);
    assert_eq!((info.version, info.attempts), (1, 2));
    assert!(info.last_error.is_none());

    // Loaded -> Unloaded -> Loading -> Loaded.
    let bytes = m.stats().bytes_cached;
    let released = m.unload(&gated);
    assert_eq!(released, texture_bytes(8, 3).len() as u64);
    assert!(matches!(m.status(&gated), Status::Unloaded));
    assert!(m.get(&gated).is_none());
    assert_eq!(m.stats().bytes_cached, bytes - released);
    let _reloaded = m.load::<Texture>("gate.caf");
    assert!(m.wait(&gated, WAIT).is_loaded());
    assert_eq!(m.get(&gated).unwrap().view().meta.width, 8);
}

#[test]
fn failure_kinds_are_specific() {
    let dir = tempfile::tempdir().unwrap();
    let good = texture_bytes(4, 7);
    write_atomic(&dir.path().join("good.caf"), &good);
    write_atomic(&dir.path().join("truncated.caf"), &good[..good.len() - 3]);
    write_atomic(
        &dir.path().join("garbage.caf"),
        b"this is not a caf file at all, just forty-odd bytes",
    );
    let mut footer = good.clone();
    let n = footer.len();
    footer[n - 1] ^= 1;
    write_atomic(&dir.path().join("footer.caf"), &footer);
    // A texture header with metadata of the wrong size: a valid container, a bad texture.
    let bad_meta = asset_bytes(AssetType::TEXTURE, &[0; 8], &[0; 16]);
    write_atomic(&dir.path().join("badmeta.caf"), &bad_meta);
    let m = AssetManager::new(dir.path()).unwrap();

    type Check = fn(&AssetError) -> bool;
    let cases: [(&str, Check); 4] = [
        ("truncated.caf", |e| {
            matches!(load_error(e), Some(CafError::SizeMismatch { .. }))
        }),
        ("garbage.caf", |e| {
            matches!(load_error(e), Some(CafError::BadMagic { .. }))
        }),
        ("footer.caf", |e| {
            matches!(load_error(e), Some(CafError::FooterCrcMismatch { .. }))
        }),
        ("badmeta.caf", |e| {
            matches!(
                e,
                AssetError::BadContent {
                    kind: Kind::Texture,
                    ..
                }
            )
        }),
    ];
    for (name, expected) in cases {
        let e = failure(&m, &m.load::<Texture>(name));
        assert!(expected(&e), "{name}: {e}");
    }
    // Raw accepts any valid container, including that one.
    let raw = m.load::<Raw>("badmeta.caf");
    assert!(m.wait(&raw, WAIT).is_loaded());
    assert_eq!(
        m.get(&raw).unwrap().view().header.asset_type,
        AssetType::TEXTURE
    );

    // Wrong type: a clear error naming both types, never a default view.
    let e = failure(&m, &m.load::<Audio>("good.caf"));
    assert!(matches!(
        &*e,
        AssetError::WrongType {
            expected: Kind::Audio,
            found: AssetType::TEXTURE,
            ..
        }
    ));
    let msg = e.to_string();
    assert!(
        msg.contains("good.caf") && msg.contains("audio") && msg.contains("texture"),
        "{msg}"
    );
    // The Texture entry for the same file is separate and fine.
    let tex = m.load::<Texture>("good.caf");
    assert!(m.wait(&tex, WAIT).is_loaded());
    assert_eq!(e.asset_path().map(|p| p.as_str()), Some("good.caf"));

    // Paths that leave the base directory never touch the disk.
    for bad in ["../good.caf", "/etc/passwd", "", "a/../.."] {
        let h = m.load::<Texture>(bad);
        let e = failure(&m, &h);
        assert!(
            matches!(&*e, AssetError::InvalidPath { .. }),
            "{bad:?}: {e}"
        );
    }
    // Absolute paths inside the base directory are fine.
    let abs = m.load::<Texture>(dir.path().join("good.caf"));
    assert!(abs.same_entry(&tex));
    // The failed loads are cached entries too (except invalid paths, which are not).
    let st = m.stats();
    assert_eq!(st.failed, 5);
    assert_eq!(st.by_kind.get(&Kind::Raw), Some(&1));
}

#[test]
fn load_sync_returns_loaded_or_the_error() {
    let dir = tempfile::tempdir().unwrap();
    write_atomic(&dir.path().join("a.caf"), &audio_bytes(100, 5));
    let m = manager(dir.path(), 1);
    let h = m.load_sync::<Audio>("a.caf").unwrap();
    assert!(m.status(&h).is_loaded());
    let g = m.get(&h).unwrap();
    assert_eq!(g.view().meta.sample_count, 100);
    assert_eq!(g.view().data.len(), 200);
    assert_eq!(g.version(), 1);
    let e = m.load_sync::<Audio>("nope.caf").unwrap_err();
    assert!(e.is_not_found(), "{e}");
    let e = m.load_sync::<Texture>("a.caf").unwrap_err();
    assert!(matches!(&*e, AssetError::WrongType { .. }));
    // A second load_sync of a loaded entry is a hit.
    let before = m.stats();
    let h2 = m.load_sync::<Audio>("a.caf").unwrap();
    assert!(h2.same_entry(&h));
    let after = m.stats();
    assert_eq!((after.hits, after.misses), (before.hits + 1, before.misses));
}

#[test]
fn missing_base_dir_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let e = AssetManager::new(dir.path().join("nope")).unwrap_err();
    assert!(matches!(e, AssetError::BaseDir { .. }), "{e}");
    std::fs::write(dir.path().join("file"), b"x").unwrap();
    let e = AssetManager::new(dir.path().join("file")).unwrap_err();
    assert!(matches!(e, AssetError::BaseDir { .. }), "{e}");
}

/// A change reported while a load is in flight is not lost, and several are coalesced: one
/// more load runs after the current one.
#[cfg(unix)]
#[test]
fn reloads_requested_during_a_load_are_coalesced() {
    let dir = tempfile::tempdir().unwrap();
    // The single worker blocks on the pipe; the load of x waits behind it.
    let Some((gate, m, gated, x)) = gated_worker(dir.path(), 6) else {
        return;
    };
    assert!(m.status(&x).is_loading());
    m.reload(&x);
    m.reload(&x);
    m.reload(&x);
    assert_eq!(m.stats().pending_loads, 2);
    drop(std::fs::OpenOptions::new().write(true).open(&gate).unwrap());
    assert!(m.wait(&gated, WAIT).is_failed());
    let info = m
        .wait_until(&x, Some(WAIT), |i| !i.in_flight)
        .expect("loads finished");
    assert!(info.status.is_loaded());
    assert_eq!((info.version, info.attempts), (2, 2));
    let ev = m.drain_events();
    assert!(
        matches!(
            &ev[..],
            [caf_assets::AssetEvent::Reloaded {
                recovered: false,
                version: 2,
                ..
            }]
        ),
        "{ev:?}"
    );
    assert_eq!(m.stats().pending_loads, 0);
}

/// Regression (SIGBUS): files of `MAP_THRESHOLD` and more used to be memory-mapped, so a watched file
/// truncated in place by another program killed the process on the next access. The manager
/// reads files into memory: the loaded data stays readable, and a reload of the truncated file
/// fails cleanly, keeping the previous version.
#[test]
fn a_large_loaded_file_truncated_in_place_does_not_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.caf");
    let payload = vec![0x5Au8; (caf::MAP_THRESHOLD as usize) + 4096];
    write_atomic(&path, &asset_bytes(AssetType::UNKNOWN, &[], &payload));
    drop(payload);
    let m = AssetManager::builder(dir.path()).build().unwrap();
    let h = m.load::<Raw>("big.caf");
    assert!(matches!(m.wait(&h, WAIT), Status::Loaded));
    let guard = m.get(&h).unwrap();

    // Truncate in place (same inode), as an editor that rewrites files without a rename does.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(100)
        .unwrap();
    let view = guard.view();
    assert_eq!(view.payload.len(), caf::MAP_THRESHOLD as usize + 4096);
    assert!(view.payload.iter().all(|&b| b == 0x5A));
    drop(guard);

    m.drain_events();
    m.reload(&h);
    assert!(m
        .wait_events(WAIT)
        .iter()
        .any(|e| matches!(e, caf_assets::AssetEvent::ReloadFailed { .. })));
    let again = m.get(&h).expect("the previous version stays");
    assert_eq!(
        again.view().payload.len(),
        caf::MAP_THRESHOLD as usize + 4096
    );
}

#[test]
fn compressed_and_encrypted_assets_load_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let plain = texture_bytes(3000, 7);
    let a = caf::Asset::parse(&plain).unwrap();
    let key = caf::encoded::Key::from_bytes([9; 32]);
    for (name, enc) in [
        ("zstd.caf", caf::encoded::Encoding::default()),
        (
            "lz4-enc.caf",
            caf::encoded::Encoding {
                codec: caf::encoded::Codec::Lz4,
                key: Some(key.clone()),
                ..caf::encoded::Encoding::default()
            },
        ),
    ] {
        write_atomic(
            &dir.path().join(name),
            &encoded(&plain, a.header.flags, &enc),
        );
    }
    let m = AssetManager::builder(dir.path())
        .workers(1)
        .key(key)
        .build()
        .unwrap();
    for name in ["zstd.caf", "lz4-enc.caf"] {
        let h = m.load_sync::<Texture>(name).unwrap();
        let g = m.get(&h).unwrap();
        assert_eq!(g.loaded().payload(), a.payload, "{name}");
        assert!(!caf::encoded::is_encoded(g.loaded().header().flags));
    }
    // Without the key the encrypted asset fails with a clear error; the compressed one loads.
    let m = manager(dir.path(), 1);
    assert!(m.load_sync::<Texture>("zstd.caf").is_ok());
    let e = m.load_sync::<Texture>("lz4-enc.caf").unwrap_err();
    assert!(matches!(load_error(&e), Some(CafError::KeyRequired)), "{e}");
}

#[test]
fn streamed_audio_is_read_block_by_block() {
    let dir = tempfile::tempdir().unwrap();
    let plain = audio_bytes(100_000, 3);
    let a = caf::Asset::parse(&plain).unwrap();
    let key = caf::encoded::Key::from_bytes([4; 32]);
    let enc = caf::encoded::Encoding {
        key: Some(key.clone()),
        ..caf::encoded::Encoding::default()
    };
    write_atomic(
        &dir.path().join("music.caf"),
        &encoded(&plain, caf::CafFlags::STREAMED, &enc),
    );
    let m = AssetManager::builder(dir.path()).key(key).build().unwrap();
    let mut s = m.stream("music.caf").unwrap();
    assert!(s.header().flags.contains(caf::CafFlags::STREAMED));
    assert_eq!(s.metadata(), a.metadata);
    let mut back = Vec::new();
    let mut blocks = 0;
    while let Some(b) = s.next_block().unwrap() {
        assert!(b.len() <= caf::encoded::DEFAULT_BLOCK_SIZE as usize);
        back.extend_from_slice(b);
        blocks += 1;
    }
    assert_eq!(back, a.payload);
    assert!(blocks > 1);
    // Unhappy paths: a missing file, a path leaving the base, no key.
    assert!(matches!(m.stream("nope.caf"), Err(e) if e.is_not_found()));
    assert!(matches!(
        m.stream("../x.caf"),
        Err(AssetError::InvalidPath { .. })
    ));
    let m = AssetManager::new(dir.path()).unwrap();
    assert!(matches!(
        m.stream("music.caf"),
        Err(AssetError::Load {
            source: CafError::KeyRequired,
            ..
        })
    ));
}
