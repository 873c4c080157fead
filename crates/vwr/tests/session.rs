//! `WorldSession`: the one edit path. Format kept, lazy loads, history and revert, change
//! detection, locking, compaction that keeps history.

mod common;

use vwr::{
    Block, Codec, CommitKind, SaveOptions, SessionOptions, VwrError, World, WorldFile, WorldSession,
};

/// A 4×2×4-chunk terrain saved as `name` in a fresh folder.
fn saved_terrain(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let (d, p) = common::temp(name);
    terrain([4, 2, 4]).save(&p).unwrap();
    (d, p)
}

fn terrain(dims: [u32; 3]) -> World {
    let mut w = World::with_chunk_dims(dims).unwrap();
    let b = w.block_dims();
    w.fill_box(
        [0, 0, 0],
        [b[0] as i32 - 1, 4, b[2] as i32 - 1],
        Block(35 << 4),
    )
    .unwrap();
    w
}

fn open(path: &std::path::Path) -> (WorldSession, World) {
    WorldSession::open(path, SessionOptions::tool("session test")).unwrap()
}

/// One edit through a fresh session: load the cell's chunk, set it, save.
fn edit(path: &std::path::Path, p: [i32; 3], b: Block) -> vwr::SaveReport {
    let (mut s, mut w) = open(path);
    s.load_box(&mut w, p, p).unwrap();
    w.set_block(p, b).unwrap();
    s.save(&w).unwrap()
}

#[test]
fn a_v3_world_stays_v3_and_a_v2_world_stays_v2() {
    let (_d, p3) = common::temp("cube3.vwr");
    let w = terrain([3, 3, 3]); // fits v2, saved as v3 on purpose
    w.save_with(&p3, &SaveOptions::v3(Codec::Auto)).unwrap();
    let r = edit(&p3, [1, 10, 1], Block(7));
    assert!(r.incremental && r.written && r.backup.is_none(), "{r:?}");
    assert_eq!(WorldFile::open(&p3).unwrap().version(), 3);
    assert!(!vwr::backup_path(&p3).exists());

    let (_d2, p2) = common::temp("cube2.vwr");
    w.save(&p2).unwrap(); // v2
    let before = std::fs::read(&p2).unwrap();
    let r = edit(&p2, [1, 10, 1], Block(7));
    assert!(r.written && !r.incremental, "{r:?}");
    assert_eq!(WorldFile::open(&p2).unwrap().version(), 2);
    assert_eq!(std::fs::read(vwr::backup_path(&p2)).unwrap(), before);
    assert_eq!(World::load(&p2).unwrap().get_block([1, 10, 1]), Block(7));
}

#[test]
fn an_unchanged_world_writes_nothing_even_after_an_edit_and_its_reversal() {
    let (_d, p) = saved_terrain("same.vwr");
    let before = std::fs::read(&p).unwrap();
    let (mut s, mut w) = open(&p);
    s.load_box(&mut w, [0, 0, 0], [39, 19, 39]).unwrap();
    // As an undo does: the chunk put back as it was (a new revision, the same content).
    let old = w.chunk([0, 0, 0]).unwrap().clone();
    w.set_block([5, 2, 5], Block(9)).unwrap();
    w.set_chunk([0, 0, 0], old).unwrap();
    let r = s.save(&w).unwrap();
    assert!(!r.written, "{r:?}");
    assert_eq!(std::fs::read(&p).unwrap(), before);
}

#[test]
fn history_lists_commits_and_revert_restores_the_state_before_the_second_edit() {
    let (_d, p) = common::temp("hist.vwr");
    terrain([5, 2, 3]).save(&p).unwrap();
    edit(&p, [3, 6, 3], Block(11));
    let after_first = World::load(&p).unwrap();
    edit(&p, [40, 6, 20], Block(12));
    assert_ne!(World::load(&p).unwrap(), after_first);
    let f = WorldFile::open(&p).unwrap();
    let (h, cut) = f.history(100);
    assert!(cut.is_none());
    let gens: Vec<u32> = h.iter().map(|c| c.generation).collect();
    assert_eq!(gens, [3, 2, 1]);
    assert!(h[0].current && !h[1].current);
    assert_eq!(h[0].kind, CommitKind::Save);
    assert_eq!(h[0].tool, "session test");
    assert_eq!(h[0].chunks_written, 1);
    assert!(h[0].time_ms > 0);
    assert_eq!(h[2].kind, CommitKind::Write);
    drop(f);

    let (mut s, _) = open(&p);
    let r = s.revert(None).unwrap();
    assert_eq!(r.generation, Some(4));
    assert!(
        r.bytes_written < 512,
        "a revert writes a root index only: {r:?}"
    );
    drop(s);
    assert_eq!(World::load(&p).unwrap(), after_first);
    let (h, _) = WorldFile::open(&p).unwrap().history(100);
    assert_eq!(h[0].kind, CommitKind::Revert(2));
    // A revert can itself be reverted.
    let (mut s, _) = open(&p);
    s.revert(Some(3)).unwrap();
    drop(s);
    assert_eq!(World::load(&p).unwrap().get_block([40, 6, 20]), Block(12));
    // A commit that is not there is a typed error.
    let (mut s, _) = open(&p);
    match s.revert(Some(99)) {
        Err(VwrError::NoSuchCommit {
            generation, kept, ..
        }) => {
            assert_eq!(generation, 99);
            assert_eq!(kept, "1..=5");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn compaction_keeps_the_promised_history() {
    let (_d, p) = common::temp("keep.vwr");
    terrain([6, 2, 6]).save(&p).unwrap();
    let mut states = Vec::new();
    for k in 0..12 {
        edit(&p, [k * 5, 8, 3], Block(100 + k as u16));
        states.push(World::load(&p).unwrap());
    }
    let opts = SessionOptions {
        keep: 4,
        ..SessionOptions::tool("compact")
    };
    let before = std::fs::metadata(&p).unwrap().len();
    let (mut s, _) = WorldSession::open(&p, opts).unwrap();
    s.compact().unwrap();
    drop(s);
    assert!(std::fs::metadata(&p).unwrap().len() < before);
    let (h, cut) = WorldFile::open(&p).unwrap().history(100);
    assert!(cut.is_none());
    let gens: Vec<u32> = h.iter().map(|c| c.generation).collect();
    assert_eq!(gens, [13, 12, 11, 10]);
    assert!(h.iter().all(|c| c.tool == "session test"), "{h:?}");
    assert_eq!(World::load(&p).unwrap(), states[11]);
    // Every kept commit is still the state it was.
    for g in [10u32, 11, 12] {
        let (mut s, _) = open(&p);
        s.revert(Some(g)).unwrap();
        drop(s);
        assert_eq!(
            World::load(&p).unwrap(),
            states[g as usize - 2],
            "generation {g}"
        );
    }
}

#[test]
fn a_change_on_disk_is_never_overwritten() {
    let (_d, p) = saved_terrain("race.vwr");
    let (mut s, mut w) = open(&p);
    s.load_box(&mut w, [1, 1, 1], [1, 1, 1]).unwrap();
    w.set_block([1, 1, 1], Block(3)).unwrap();
    // Another program rewrites the file meanwhile (the lock only binds sessions).
    let mut other = World::load(&p).unwrap();
    other.set_block([20, 6, 20], Block(4)).unwrap();
    other.save(&p).unwrap();
    match s.save(&w) {
        Err(e @ VwrError::ChangedOnDisk { .. }) => {
            assert!(e.to_string().contains("changed on disk"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(World::load(&p).unwrap(), other);
}

#[test]
fn a_second_writer_is_refused_with_the_holder() {
    let (_d, p) = common::temp("locked.vwr");
    terrain([2, 2, 2]).save(&p).unwrap();
    let opts = SessionOptions {
        command: "voxcaf world serve locked.vwr".into(),
        ..SessionOptions::tool("t")
    };
    let (first, _) = WorldSession::open(&p, opts).unwrap();
    match WorldSession::open(&p, SessionOptions::tool("t")) {
        Err(e @ VwrError::Locked { .. }) => {
            let m = e.to_string();
            assert!(m.contains("voxcaf world serve locked.vwr"), "{m}");
            assert!(m.contains(&std::process::id().to_string()), "{m}");
        }
        other => panic!("{other:?}"),
    }
    // Readers are never blocked.
    assert!(World::load(&p).is_ok());
    drop(first);
    assert!(WorldSession::open(&p, SessionOptions::tool("t")).is_ok());
}

#[test]
fn an_edit_outside_the_loaded_chunks_is_refused_not_saved_as_a_hole() {
    let (_d, p) = saved_terrain("hole.vwr");
    let before = std::fs::read(&p).unwrap();
    let (mut s, mut w) = open(&p);
    w.set_block([15, 2, 15], Block(5)).unwrap(); // chunk (1, 0, 1) never loaded
    match s.save(&w) {
        Err(VwrError::NotLoaded { chunk, .. }) => assert_eq!(chunk, [1, 0, 1]),
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read(&p).unwrap(), before);
}

/// Random edits through many sessions (small chunks in groups, chunks emptied, world fields,
/// reverts, compactions keeping 3 commits): the file always reads back as the world edited.
#[test]
fn random_sessions_always_read_back_what_was_saved() {
    let mut rng = voxcaf_golden::Rng::new(36);
    let (_d, p) = common::temp("random.vwr");
    let mut expected = terrain([5, 2, 4]);
    expected.save(&p).unwrap();
    let mut saved_states = vec![expected.clone()];
    let mut compactions = 0;
    for round in 0..40 {
        let opts = SessionOptions {
            keep: 3,
            ..SessionOptions::tool("random")
        };
        let (mut s, mut w) = WorldSession::open(&p, opts).unwrap();
        if round % 13 == 12 {
            s.revert(None).unwrap();
            saved_states.pop();
            expected = saved_states.last().unwrap().clone();
            drop(s);
            assert_eq!(World::load(&p).unwrap(), expected, "round {round}: revert");
            continue;
        }
        let a = [rng.range(0, 49), rng.range(0, 19), rng.range(0, 39)];
        let b = [
            a[0] + rng.range(0, 12),
            a[1] + rng.range(0, 6),
            a[2] + rng.range(0, 12),
        ];
        s.load_box(&mut w, a, b).unwrap();
        for _ in 0..rng.range(1, 20) {
            let c = [
                rng.range(a[0], b[0]),
                rng.range(a[1], b[1]),
                rng.range(a[2], b[2]),
            ];
            let blk = Block(rng.range(0, 40) as u16 * 16);
            if w.contains(c) {
                w.set_block(c, blk).unwrap();
                expected.set_block(c, blk).unwrap();
            }
        }
        if rng.below(5) == 0 {
            w.fill_box(a, b, Block::AIR).unwrap();
            expected.fill_box(a, b, Block::AIR).unwrap();
        }
        if rng.below(4) == 0 {
            let sky = rng.below(30) as u32;
            w.set_sky_region(sky);
            expected.set_sky_region(sky);
        }
        let r = s.save(&w).unwrap();
        drop(s);
        if r.written {
            saved_states.push(expected.clone());
        }
        compactions += usize::from(r.compacted);
        assert_eq!(World::load(&p).unwrap(), expected, "round {round}: {r:?}");
        let f = WorldFile::open(&p).unwrap();
        let live = f.history(1).0[0].live_bytes;
        assert!(live <= f.file_size(), "round {round}: live {live} > file");
    }
    assert!(
        compactions > 0,
        "the rounds should reach an automatic compaction"
    );
}

#[cfg(unix)]
#[test]
fn a_failed_v2_save_leaves_the_backup_as_it_was() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, p) = common::temp("ro.vwr");
    terrain([3, 3, 3]).save(&p).unwrap(); // v2
    edit(&p, [1, 10, 1], Block(7)); // FILE.bak: the first version
    let bak = vwr::backup_path(&p);
    let backup = std::fs::read(&bak).unwrap();
    let file = std::fs::read(&p).unwrap();
    // The file turns read-only: the save fails, and neither the file nor its backup changed
    // (the backup used to be replaced before the write was tried).
    let (mut s, mut w) = open(&p);
    s.load_box(&mut w, [2, 10, 2], [2, 10, 2]).unwrap();
    w.set_block([2, 10, 2], Block(9)).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
    assert!(s.save(&w).is_err());
    assert!(std::fs::read(&bak).unwrap() == backup, "the backup changed");
    assert!(std::fs::read(&p).unwrap() == file, "the file changed");
}

#[test]
fn a_v2_file_lists_its_stored_chunks_from_its_table_and_refuses_to_guess_an_odd_one() {
    let (_d, p) = common::temp("v2.vwr");
    let mut w = World::with_chunks_per_axis(6).unwrap();
    let stone = Block(35 << 4);
    for c in [[5, 0, 0], [0, 3, 1], [2, 5, 5], [4, 4, 4]] {
        w.set_block(c.map(|v| v * 10 + 3), stone).unwrap();
    }
    let bytes = w.to_bytes();
    std::fs::write(&p, &bytes).unwrap();
    let mut want: Vec<[u32; 3]> = w.non_empty_chunks().map(|(c, _)| c).collect();
    want.sort_unstable_by_key(|c| (c[2], c[1], c[0]));
    let mut f = WorldFile::open(&p).unwrap();
    assert_eq!(f.stored_chunks().unwrap(), Some(want), "file order");

    // Two table entries swapped: entry i no longer names position i, so the list is not
    // guessed (a full read still finds every chunk).
    // The v2 header is 40 bytes, each table entry 20.
    let entry = |i: usize| 40 + 20 * i..40 + 20 * (i + 1);
    let mut odd = bytes.clone();
    let (a, b) = (bytes[entry(5)].to_vec(), bytes[entry(6)].to_vec());
    odd[entry(5)].copy_from_slice(&b);
    odd[entry(6)].copy_from_slice(&a);
    std::fs::write(&p, &odd).unwrap();
    let mut f = WorldFile::open(&p).unwrap();
    assert_eq!(f.stored_chunks().unwrap(), None);
    assert_eq!(f.load().unwrap().to_bytes(), w.to_bytes());
}
