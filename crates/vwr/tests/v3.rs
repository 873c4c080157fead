//! The v3 format (docs/format/vwr-v3.md): golden round trips through every codec, random
//! non-cubic worlds, lazy reads, incremental saves and their crash safety, and damage.

mod common;

use proptest::prelude::*;
use vwr::dump::dump;
use vwr::{
    Block, Codec, Format, MoveObject, SaveOptions, SessionOptions, World, WorldFile, WorldSession,
};

const CODECS: [Codec; 4] = [Codec::Auto, Codec::Packed, Codec::Rle, Codec::Zstd];

#[test]
fn every_golden_world_converts_v2_v3_v2_byte_identically_with_every_codec() {
    let files = common::golden_worlds();
    let mut failures = Vec::new();
    let (mut v2_total, mut v3_total) = (0usize, 0usize);
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let Ok(world) = World::from_bytes(&bytes) else {
            continue; // the invalid ones are rejected by golden.rs
        };
        let want = dump(&world);
        for codec in CODECS {
            let v3 = world.to_bytes_with(&SaveOptions::v3(codec)).unwrap();
            assert_eq!(vwr::world_version(&v3), Some(3));
            let back = match World::from_bytes(&v3) {
                Ok(w) => w,
                Err(e) => {
                    failures.push(format!("{} {codec:?}: {e}", path.display()));
                    continue;
                }
            };
            if dump(&back) != want {
                failures.push(format!("{} {codec:?}: dump differs", path.display()));
            }
            let v2 = back
                .to_bytes_with(&SaveOptions {
                    format: Format::V2,
                    ..SaveOptions::default()
                })
                .unwrap();
            if v2 != bytes {
                failures.push(format!("{} {codec:?}: v2 bytes differ", path.display()));
            }
            if codec == Codec::Auto && path.to_string_lossy().contains("worlds3d") {
                v2_total += bytes.len();
                v3_total += v3.len();
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if !files.is_empty() {
        // The goal: golden worlds3d levels in v3 auto at most 1/20 of their v2 size.
        eprintln!("worlds3d: v2 {v2_total} bytes, v3 auto {v3_total} bytes");
        assert!(v3_total * 20 <= v2_total, "v2 {v2_total}, v3 {v3_total}");
    }
}

fn random_world(seed: u64, dims: [u32; 3]) -> World {
    let mut rng = common::Rng::new(seed);
    let mut w = World::with_chunk_dims(dims).unwrap();
    let b = w.block_dims();
    for _ in 0..rng.below(400) {
        let p = [0, 1, 2].map(|k| rng.below(b[k] as u64) as i32);
        let v = Block(rng.below(40) as u16 * 7);
        w.set_block(p, v).unwrap();
    }
    for _ in 0..rng.below(4) {
        let a = [0, 1, 2].map(|k| rng.below(b[k] as u64) as i32);
        let c = [0, 1, 2].map(|k| rng.below(b[k] as u64) as i32);
        w.fill_box(a, c, Block(rng.below(5) as u16 + 1)).unwrap();
    }
    if rng.below(2) == 0 {
        let p = [0, 1, 2].map(|k| rng.below(b[k] as u64) as f32);
        w.place_move_object(&MoveObject::new(7, p)).unwrap();
    }
    if rng.below(2) == 0 {
        w.set_spawn([0, 1, 2].map(|k| rng.below(b[k] as u64) as i32))
            .unwrap();
    }
    w.set_sky_region(rng.below(32) as u32);
    w
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_non_cubic_worlds_round_trip_with_every_codec(
        seed in any::<u64>(),
        dx in 1u32..7, dy in 1u32..4, dz in 1u32..7,
    ) {
        let w = random_world(seed, [dx, dy, dz]);
        for codec in CODECS {
            let bytes = w.to_bytes_with(&SaveOptions::v3(codec)).unwrap();
            let back = World::from_bytes(&bytes).unwrap();
            prop_assert!(back == w, "{codec:?}");
            prop_assert_eq!(dump(&back), dump(&w));
        }
    }
}

#[test]
fn auto_format_writes_v2_when_it_fits_and_v3_otherwise() {
    let cubic = World::with_chunk_dims([3, 3, 3]).unwrap();
    assert_eq!(vwr::world_version(&cubic.to_bytes()), Some(2));
    let flat = World::with_chunk_dims([4, 1, 4]).unwrap();
    assert_eq!(vwr::world_version(&flat.to_bytes()), Some(3));
    let err = flat
        .to_bytes_with(&SaveOptions {
            format: Format::V2,
            ..SaveOptions::default()
        })
        .unwrap_err();
    assert!(err.to_string().contains("does not fit v2"), "{err}");
    assert!(dump(&flat).starts_with("header chunks=4x1x4 "));
}

#[test]
fn an_empty_255_cube_is_small_and_cheap() {
    let w = World::with_chunk_dims([255, 255, 255]).unwrap();
    let bytes = w.to_bytes_with(&SaveOptions::v3(Codec::Auto)).unwrap();
    assert!(bytes.len() < 200, "{} bytes", bytes.len());
    let back = World::from_bytes(&bytes).unwrap();
    assert_eq!(back.chunk_dims(), [255; 3]);
    assert_eq!(back.count_non_air(), 0);
}

#[test]
fn lazy_reads_match_the_full_world() {
    let w = random_world(7, [6, 2, 5]);
    for codec in CODECS {
        let (_d, path) = common::temp("lazy.vwr");
        w.save_with(&path, &SaveOptions::v3(codec)).unwrap();
        let f = WorldFile::open(&path).unwrap().with_cache_chunks(3);
        let b = w.block_dims();
        for z in (0..b[2] as i32).step_by(3) {
            for y in 0..b[1] as i32 {
                for x in (0..b[0] as i32).step_by(2) {
                    assert_eq!(f.get_block([x, y, z]).unwrap(), w.get_block([x, y, z]));
                }
            }
        }
        assert_eq!(f.get_block([-1, 0, 0]).unwrap(), Block::AIR);
    }
    // v2 files too.
    let cubic = random_world(8, [4, 4, 4]);
    let (_d, path) = common::temp("lazy2.vwr");
    cubic.save(&path).unwrap();
    let f = WorldFile::open(&path).unwrap();
    assert_eq!(f.version(), 2);
    for p in [[0, 0, 0], [13, 27, 39], [39, 39, 39], [5, 5, 5]] {
        assert_eq!(f.get_block(p).unwrap(), cubic.get_block(p));
    }
}

#[test]
fn incremental_saves_write_little_and_read_back() {
    let (_d, path) = common::temp("inc.vwr");
    let mut w = World::with_chunk_dims([20, 4, 20]).unwrap();
    for x in 0..200 {
        for z in 0..200 {
            let h = 5 + ((x * 7 + z * 3) % 13);
            w.fill_box([x, 0, z], [x, h, z], Block((1 + (x + z) % 5) as u16))
                .unwrap();
        }
    }
    w.save_with(&path, &SaveOptions::v3(Codec::Auto)).unwrap();
    let (mut f, mut world) = WorldSession::open(&path, SessionOptions::tool("test")).unwrap();
    f.load_all(&mut world).unwrap();
    assert!(world == w);
    let before = std::fs::metadata(&path).unwrap().len();
    for k in 0..10 {
        world.set_block([k * 13, 30, k * 17], Block(99)).unwrap();
    }
    let r = f.save(&world).unwrap();
    assert!(r.incremental);
    assert!(r.chunks_written <= 10);
    assert!(r.bytes_written < 64 * 1024, "{r:?}");
    assert!(std::fs::metadata(&path).unwrap().len() > before);
    let back = World::load(&path).unwrap();
    assert!(back == world);
    // A second round, then removing a chunk entirely.
    world.fill_box([0, 0, 0], [9, 39, 9], Block::AIR).unwrap();
    world.set_sky_region(9);
    let r = f.save(&world).unwrap();
    assert!(r.incremental || r.compacted);
    assert!(World::load(&path).unwrap() == world);
    // An explicit compaction keeping one commit rewrites the file with only live data.
    drop(f);
    let opts = SessionOptions {
        keep: 1,
        ..SessionOptions::tool("test")
    };
    let (mut f, _) = WorldSession::open(&path, opts).unwrap();
    f.compact().unwrap();
    assert!(World::load(&path).unwrap() == world);
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        world
            .to_bytes_with(&SaveOptions::v3(Codec::Auto))
            .unwrap()
            .len() as u64
    );
}

#[test]
fn a_save_cut_at_any_byte_leaves_the_old_or_the_new_world() {
    let (_d, path) = common::temp("cut.vwr");
    let mut w = random_world(3, [5, 2, 5]);
    w.save_with(&path, &SaveOptions::v3(Codec::Auto)).unwrap();
    let old_bytes = std::fs::read(&path).unwrap();
    let old = World::from_bytes(&old_bytes).unwrap();
    let (mut f, loaded) = WorldSession::open(&path, SessionOptions::tool("test")).unwrap();
    w = loaded;
    f.load_all(&mut w).unwrap();
    for k in 0..20 {
        w.set_block([k * 2, 3, 40 - k * 2], Block(500 + k as u16))
            .unwrap();
    }
    f.save(&w).unwrap();
    let new_bytes = std::fs::read(&path).unwrap();
    let new = World::from_bytes(&new_bytes).unwrap();
    assert!(new == w && old != new);
    // Simulated power loss: the appended tail cut at every length, with the slot write not
    // yet done (old header), or done (new header) but the tail complete.
    let header_len = 64;
    let mut checked = 0;
    for cut in old_bytes.len()..new_bytes.len() {
        let mut img = new_bytes[..cut].to_vec();
        img[..header_len].copy_from_slice(&old_bytes[..header_len]);
        let got = World::from_bytes(&img).unwrap();
        assert!(got == old, "cut at {cut}");
        checked += 1;
    }
    assert!(checked > 0);
    // A torn slot write: any prefix of the new slot's 20 bytes over the old ones.
    let slot_at = (24..64).find(|&i| old_bytes[i] != new_bytes[i]).unwrap();
    for k in 0..20 {
        let mut img = new_bytes.clone();
        let end = (slot_at + k).min(64);
        img[end..64].copy_from_slice(&old_bytes[end..64]);
        let got = World::from_bytes(&img).unwrap();
        assert!(got == old || got == new, "torn slot at {k}");
    }
}

#[test]
fn damage_is_a_typed_error_never_a_panic() {
    let w = random_world(11, [4, 3, 2]);
    for codec in CODECS {
        let bytes = w.to_bytes_with(&SaveOptions::v3(codec)).unwrap();
        for i in 0..bytes.len() {
            for bit in [0x01u8, 0x80] {
                let mut b = bytes.clone();
                b[i] ^= bit;
                if let Ok(got) = World::from_bytes(&b) {
                    // Only bytes no CRC covers may change without an error (the reserved
                    // unused slot B), and then the world is unchanged.
                    assert!(got == w, "flip at {i} changed the world silently");
                }
            }
        }
        for cut in 0..bytes.len() {
            assert!(World::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
}

#[test]
fn a_1000x100x1000_world_is_edited_saved_incrementally_and_read_lazily() {
    let (_d, path) = common::temp("terrain.vwr");
    let w = common::terrain_1000();
    w.save(&path).unwrap(); // not cubic: v3
    let full = std::fs::metadata(&path).unwrap().len();
    let (mut f, mut world) = WorldSession::open(&path, SessionOptions::tool("test")).unwrap();
    assert_eq!(f.version(), 3);
    assert!(!f.all_loaded());
    let edits: Vec<[i32; 3]> = (0..10).map(|k| [k * 97 + 3, 60, k * 89 + 5]).collect();
    for &p in &edits {
        assert_eq!(f.load_box(&mut world, p, p).unwrap(), 1);
        world.set_block(p, Block(77 << 4)).unwrap();
    }
    // Only the ten edited chunks were decoded.
    assert_eq!(world.non_empty_chunks().count(), 10);
    let r = f.save(&world).unwrap();
    eprintln!("terrain: full file {full} bytes, incremental save of 10 edits {r:?}");
    assert!(r.incremental && !r.compacted, "{r:?}");
    assert!(
        r.bytes_written < 64 * 1024,
        "an incremental save of 10 edits wrote {} bytes (full file {full})",
        r.bytes_written
    );
    let lazy = WorldFile::open(&path).unwrap().with_cache_chunks(4);
    for &p in &edits {
        assert_eq!(lazy.get_block(p).unwrap(), Block(77 << 4));
    }
    for p in [[0, 0, 0], [999, 5, 999], [500, 25, 500], [123, 99, 456]] {
        assert_eq!(lazy.get_block(p).unwrap(), w.get_block(p), "{p:?}");
    }
    let mut expected = w;
    for &p in &edits {
        expected.set_block(p, Block(77 << 4)).unwrap();
    }
    assert!(World::load(&path).unwrap() == expected);
}

#[test]
fn a_fresh_file_is_all_live() {
    let w = random_world(5, [3, 2, 4]);
    let bytes = w.to_bytes_with(&SaveOptions::v3(Codec::Auto)).unwrap();
    let s = vwr::codec_stats(&bytes).unwrap().unwrap();
    assert_eq!(s.live_bytes, bytes.len() as u64);
}

/// Child side of the crash test: saves edits incrementally forever (until killed), or stops
/// inside a save when `VOXCAF_VWR_FAIL_AT` is set.
#[test]
fn crash_child() {
    let Some(path) = std::env::var_os("VWR_CRASH_CHILD") else {
        return;
    };
    let (mut f, mut w) = WorldSession::open(&path, SessionOptions::tool("crash")).unwrap();
    f.load_all(&mut w).unwrap();
    let mut k = 0u16;
    loop {
        k = k.wrapping_add(1);
        let p = [(k % 40) as i32, (k / 40 % 20) as i32, 3];
        w.set_block(p, Block(1 + k % 1000)).unwrap();
        f.save(&w).unwrap();
    }
}

fn spawn_child(path: &std::path::Path, fail_at: Option<&str>) -> std::process::Child {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "crash_child", "--nocapture", "--test-threads=1"])
        .env("VWR_CRASH_CHILD", path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Some(point) = fail_at {
        cmd.env("VOXCAF_VWR_FAIL_AT", point);
    }
    cmd.spawn().unwrap()
}

#[test]
fn killed_saves_leave_a_readable_world() {
    let (_d, path) = common::temp("crash.vwr");
    random_world(9, [4, 2, 4])
        .save_with(&path, &SaveOptions::v3(Codec::Auto))
        .unwrap();
    // Stopped between appending and committing: the previous commit is what a reader sees.
    let before = World::load(&path).unwrap();
    let status = spawn_child(&path, Some("before-commit")).wait().unwrap();
    assert!(!status.success());
    assert!(std::fs::metadata(&path).unwrap().len() > before.to_bytes().len() as u64);
    assert!(World::load(&path).unwrap() == before);
    // SIGKILL at random moments of a stream of saves: always a readable world.
    for delay_ms in [5u64, 20, 40, 80, 150] {
        let mut child = spawn_child(&path, None);
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        World::from_bytes(&bytes).unwrap_or_else(|e| panic!("after kill at {delay_ms} ms: {e}"));
    }
}
