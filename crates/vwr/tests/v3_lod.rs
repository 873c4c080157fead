//! Levels of detail in v3 files (docs/format/vwr-v3.md §13): built, stored as ordinary
//! chunks, rebuilt only where a save changed level 0, kept by compaction and revert, refused
//! when the header is wrong.

mod common;

use common::{temp, Rng};
use vwr::{lod, Block, SessionOptions, World, WorldFile, WorldSession};

fn b(t: u16) -> Block {
    Block::make(t, 0).unwrap()
}

/// Hills with a few towers and a floating slab: uniform, mixed and empty chunks on 3 levels.
fn hills(dims: [u32; 3], seed: u64) -> World {
    let mut w = World::with_chunk_dims(dims).unwrap();
    let bd = w.block_dims().map(|v| v as i32);
    let mut rng = Rng::new(seed);
    for x in 0..bd[0] {
        for z in 0..bd[2] {
            let h = 6 + ((x as f32 * 0.3).sin() * 3.0 + (z as f32 * 0.2).cos() * 3.0) as i32;
            w.fill_box([x, 0, z], [x, h - 2, z], b(35)).unwrap();
            w.fill_box([x, h - 1, z], [x, h, z], b(2)).unwrap();
        }
    }
    for _ in 0..12 {
        let p = [
            rng.below(bd[0] as u64) as i32,
            0,
            rng.below(bd[2] as u64) as i32,
        ];
        let top = (rng.below(bd[1] as u64) as i32).max(1);
        w.fill_box(p, [p[0], top, p[2]], b(261)).unwrap();
    }
    w.fill_box([3, bd[1] - 3, 3], [14, bd[1] - 2, 9], b(92))
        .unwrap();
    w
}

fn write(w: &World, path: &std::path::Path) {
    w.save_with(path, &vwr::SaveOptions::v3(vwr::Codec::Auto))
        .unwrap();
}

fn open(path: &std::path::Path) -> (WorldSession, World) {
    WorldSession::open(path, SessionOptions::tool("lod test")).unwrap()
}

/// Every stored level equals the level built from the file's level 0 by the rule.
fn assert_levels_follow_the_rule(path: &std::path::Path, levels: u8) {
    let mut f = WorldFile::open(path).unwrap();
    assert_eq!(f.lod_levels(), levels);
    let (_, odd) = vwr::read_world_checked(&std::fs::read(path).unwrap()).unwrap();
    assert!(odd.is_empty(), "{odd:?}");
    let world = f.load().unwrap();
    let built = lod::build_levels(&world, levels).unwrap();
    for (k, want) in (1..=levels).zip(&built) {
        let got = f.load_level(k).unwrap();
        assert_eq!(got.chunk_dims(), lod::level_dims(world.chunk_dims(), k));
        let same = want.chunks().chain(got.chunks()).all(|(p, _)| {
            got.chunk(p).filter(|c| !c.is_empty()) == want.chunk(p).filter(|c| !c.is_empty())
        });
        assert!(same, "level {k} differs from the rule");
        for (p, c) in want.non_empty_chunks() {
            assert_eq!(
                f.lod_chunk(k, p).unwrap().as_deref(),
                Some(c),
                "level {k} chunk {p:?}"
            );
        }
    }
}

#[test]
fn levels_are_built_stored_and_follow_the_rule() {
    let (_d, path) = temp("hills.vwr");
    let w = hills([6, 3, 5], 7);
    write(&w, &path);
    let (mut s, _) = open(&path);
    let r = s.set_lod_levels(3).unwrap();
    assert_eq!(r.lod_chunks.len(), 3);
    assert!(r.lod_chunks.iter().all(|&n| n > 0), "{:?}", r.lod_chunks);
    drop(s);
    assert_levels_follow_the_rule(&path, 3);
    // Level 0 reads exactly as before.
    assert_eq!(World::load(&path).unwrap(), w);
    let stats = WorldFile::open(&path)
        .unwrap()
        .codec_stats()
        .unwrap()
        .unwrap();
    let levels: Vec<u8> = stats.levels.iter().map(|l| l.level).collect();
    assert_eq!(levels, [0, 1, 2, 3]);
    assert!(stats.levels[1].chunks > 0 && stats.levels[1].bytes > 0);
}

#[test]
fn a_one_block_edit_rewrites_at_most_one_chunk_per_level() {
    let (_d, path) = temp("edits.vwr");
    write(&hills([8, 3, 8], 11), &path);
    open(&path).0.set_lod_levels(4).unwrap();
    let mut rng = Rng::new(3);
    for step in 0..40 {
        let (mut s, mut w) = open(&path);
        let p = [0, 1, 2].map(|k| rng.below([80, 30, 80][k]) as i32);
        s.load_box(&mut w, p, p).unwrap();
        let block = match step % 3 {
            0 => Block::AIR,
            1 => b(261),
            _ => b(92),
        };
        w.set_block(p, block).unwrap();
        let r = s.save(&w).unwrap();
        assert!(
            r.lod_chunks.iter().all(|&n| n <= 1),
            "step {step}: {:?}",
            r.lod_chunks
        );
        drop(s);
        if step % 8 == 7 {
            assert_levels_follow_the_rule(&path, 4);
        }
    }
    // Clearing a whole region empties chunks on every level; the levels follow.
    let (mut s, mut w) = open(&path);
    s.load_all(&mut w).unwrap();
    w.fill_box([0, 0, 0], [39, 29, 39], Block::AIR).unwrap();
    s.save(&w).unwrap();
    drop(s);
    assert_levels_follow_the_rule(&path, 4);
}

#[test]
fn compaction_revert_and_dropping_keep_the_levels_right() {
    let (_d, path) = temp("history.vwr");
    write(&hills([4, 2, 4], 5), &path);
    {
        let (mut s, mut w) = open(&path);
        s.load_all(&mut w).unwrap();
        w.fill_box([0, 0, 0], [5, 5, 5], b(261)).unwrap();
        s.save(&w).unwrap();
        // The levels are built for every kept commit: the older one too.
        s.set_lod_levels(2).unwrap();
        w.fill_box([20, 0, 20], [39, 19, 39], Block::AIR).unwrap();
        s.save(&w).unwrap();
        s.compact().unwrap();
    }
    assert_levels_follow_the_rule(&path, 2);
    let history = WorldFile::open(&path).unwrap().history(100).0.len();
    assert_eq!(history, 3);
    open(&path).0.revert(None).unwrap();
    assert_levels_follow_the_rule(&path, 2);
    let before = World::load(&path).unwrap();
    open(&path).0.set_lod_levels(0).unwrap();
    assert_eq!(WorldFile::open(&path).unwrap().lod_levels(), 0);
    assert_eq!(World::load(&path).unwrap(), before);
    assert_eq!(WorldFile::open(&path).unwrap().history(100).0.len(), 4);
    let err = open(&path).0.set_lod_levels(9).unwrap_err().to_string();
    assert!(err.contains("at most 8"), "{err}");
}

#[test]
fn wrong_level_headers_are_refused_with_the_field_named() {
    let (_d, path) = temp("bad.vwr");
    write(&hills([2, 1, 2], 1), &path);
    open(&path).0.set_lod_levels(2).unwrap();
    let good = std::fs::read(&path).unwrap();
    assert_eq!(good[14], 2);
    let with = |flags: u16, levels: u8| {
        let mut bytes = good.clone();
        bytes[6..8].copy_from_slice(&flags.to_le_bytes());
        bytes[14] = levels;
        let crc = crc32fast::hash(&bytes[..16]);
        bytes[16..20].copy_from_slice(&crc.to_le_bytes());
        World::from_bytes(&bytes).unwrap_err().to_string()
    };
    let flags = u16::from_le_bytes([good[6], good[7]]);
    for (f, l) in [(flags & !4, 2), (flags, 0), (flags, 9)] {
        let e = with(f, l);
        assert!(e.contains("lodLevels"), "{e}");
    }
    let e = with(flags & !1, 2);
    assert!(e.contains("history"), "{e}");
}

/// What the pyramid costs on the hilly 1000×100×1000 terrain. A heightfield's bytes follow its
/// surface, which shrinks 4× a level (not 8× as a volume), so no pyramid of a terrain costs less
/// than 1/4 + 1/16 + … = 1/3 of a level 0 that spends as much per surface column; this one's
/// heights change every 2 blocks, so level 1 keeps all of them. Held near that floor.
#[test]
fn the_terrain_pyramid_stays_near_the_heightfield_floor() {
    let (_d, path) = temp("terrain.vwr");
    write(&common::terrain_1000(), &path);
    open(&path).0.set_lod_levels(7).unwrap();
    let stats = WorldFile::open(&path)
        .unwrap()
        .codec_stats()
        .unwrap()
        .unwrap();
    let base = stats.levels[0].bytes;
    let pyramid: u64 = stats.levels[1..].iter().map(|l| l.bytes).sum();
    println!("levels {:?}", stats.levels);
    let pct = 100.0 * pyramid as f64 / base as f64;
    println!("pyramid {pyramid} bytes = {pct:.1} % of level 0's {base}");
    assert!(pct <= 40.0, "{pct:.1} %");
    // Each level above the first costs less than a third of the one below.
    for w in stats.levels[1..].windows(2) {
        assert!(w[1].bytes * 3 < w[0].bytes, "{w:?}");
    }
}
