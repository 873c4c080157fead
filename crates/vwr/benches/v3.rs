//! v3 benchmarks (criterion), each group a baseline and its subjects measured in the same run
//! (compare the times of one group, not across runs):
//! - `38MB vs plain read`: a 38 MB world (30³ chunks, 8 bits per block), `std::fs::read` of the
//!   file (the baseline) against loading it as v2 and as v3 (`auto`, decoded in parallel), and
//!   against the checked read behind `voxcaf world check --strict` (read + check) of each;
//! - `decode 1 core vs memcpy`: the same world's chunks decoded from uncompressed packed and RLE
//!   v3 payloads on one thread, in decoded block data (2 bytes per cell, 54 MB), against a
//!   `memcpy` of as many bytes;
//! - an empty 255³-chunk world: create, save as v3, load;
//! - lazy `WorldFile::open` + `get_block` on a 1000×100×1000 terrain world against the same on
//!   the 100³ world999.
//!
//! Run: `cargo bench -p vwr --bench v3`.
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use vwr::{Block, Chunk, Codec, SaveOptions, World, WorldFile};

/// 30³ chunks, each with 256 distinct values (8 bits per block): a 38 MB v2 file.
fn big_8bit_world() -> World {
    let mut w = World::with_chunks_per_axis(30).unwrap();
    let mut blocks = [Block::AIR; 1000];
    for cz in 0..30u32 {
        for cy in 0..30u32 {
            for cx in 0..30u32 {
                for (i, b) in blocks.iter_mut().enumerate() {
                    let v = (i * 37 + cx as usize * 11 + cy as usize * 7 + cz as usize) % 256;
                    *b = Block(v as u16 * 16 + 1);
                }
                w.set_chunk([cx, cy, cz], Chunk::from_blocks(&blocks).unwrap())
                    .unwrap();
            }
        }
    }
    w
}

/// Hilly terrain filling every chunk column of a 1000×100×1000 world.
pub fn terrain_1000() -> World {
    let mut w = World::with_chunk_dims([100, 10, 100]).unwrap();
    for x in 0..1000 {
        for z in 0..1000 {
            let h = 20 + ((x as f32 * 0.05).sin() * 8.0 + (z as f32 * 0.04).cos() * 8.0) as i32;
            w.fill_box([x, 0, z], [x, h - 4, z], Block(35 << 4))
                .unwrap();
            w.fill_box([x, h - 3, z], [x, h - 1, z], Block(2 << 4))
                .unwrap();
            w.set_block([x, h, z], Block(1 << 4)).unwrap();
        }
    }
    w
}

fn quick(c: &mut Criterion) -> criterion::BenchmarkGroup<'_, criterion::measurement::WallTime> {
    named(c, "v3")
}

fn named<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    g
}

fn big_world(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let world = big_8bit_world();
    let v2 = dir.path().join("big-v2.vwr");
    let v3 = dir.path().join("big-v3.vwr");
    world.save(&v2).unwrap();
    world.save_with(&v3, &SaveOptions::v3(Codec::Auto)).unwrap();
    let size = std::fs::metadata(&v2).unwrap().len();
    eprintln!(
        "big world: v2 {size} bytes, v3 {} bytes",
        std::fs::metadata(&v3).unwrap().len()
    );
    let mut g = named(c, "38MB vs plain read");
    g.throughput(Throughput::Bytes(size));
    g.bench_function("baseline fs::read v2", |b| {
        b.iter(|| std::fs::read(black_box(&v2)).unwrap())
    });
    g.bench_function("subject load v2", |b| {
        b.iter(|| World::load(black_box(&v2)).unwrap())
    });
    g.bench_function("subject check --strict v2", |b| {
        b.iter(|| vwr::read_world_checked(&std::fs::read(black_box(&v2)).unwrap()).unwrap())
    });
    g.bench_function("subject load v3", |b| {
        b.iter(|| World::load(black_box(&v3)).unwrap())
    });
    g.bench_function("subject check --strict v3", |b| {
        b.iter(|| vwr::read_world_checked(&std::fs::read(black_box(&v3)).unwrap()).unwrap())
    });
    g.finish();
    decode_one_core(c, &world);
}

/// Decoded block data per second on one thread, against `memcpy` of as many bytes: the
/// world's chunks stored as uncompressed packed and RLE payloads, so that only chunk decoding
/// (and building the world) is timed; dropping the world is not.
fn decode_one_core(c: &mut Criterion, world: &World) {
    const OUTPUT: usize = 27_000 * 1000 * 2;
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut g = named(c, "decode 1 core vs memcpy");
    g.throughput(Throughput::Bytes(OUTPUT as u64));
    let src: Vec<u8> = (0..OUTPUT).map(|i| (i * 7) as u8).collect();
    let mut dst = vec![0u8; OUTPUT];
    g.bench_function("baseline memcpy 54MB", |b| {
        b.iter(|| dst.copy_from_slice(black_box(&src)))
    });
    drop((src, dst));
    for (name, codec) in [("packed", Codec::Packed), ("rle", Codec::Rle)] {
        let bytes = world.to_bytes_with(&SaveOptions::v3(codec)).unwrap();
        g.bench_function(format!("subject decode {name} (1 thread)"), |b| {
            b.iter_batched(
                || (),
                |()| one.install(|| World::from_bytes(black_box(&bytes)).unwrap()),
                BatchSize::PerIteration,
            )
        });
    }
    let bytes = world.to_bytes_with(&SaveOptions::v3(Codec::Auto)).unwrap();
    g.bench_function("subject decode auto (zstd groups, all threads)", |b| {
        b.iter_batched(
            || (),
            |()| World::from_bytes(black_box(&bytes)).unwrap(),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn empty_255(c: &mut Criterion) {
    let mut g = quick(c);
    g.bench_function("empty 255³ create", |b| {
        b.iter(|| World::with_chunk_dims(black_box([255; 3])).unwrap())
    });
    let w = World::with_chunk_dims([255; 3]).unwrap();
    let bytes = w.to_bytes_with(&SaveOptions::v3(Codec::Auto)).unwrap();
    g.bench_function("empty 255³ save v3", |b| {
        b.iter(|| {
            black_box(&w)
                .to_bytes_with(&SaveOptions::v3(Codec::Auto))
                .unwrap()
        })
    });
    g.bench_function("empty 255³ load v3", |b| {
        b.iter(|| World::from_bytes(black_box(&bytes)).unwrap())
    });
    g.finish();
}

/// Opens a world file lazily and reads one block of it: the cost of a single look-up.
fn open_and_get(path: &std::path::Path, p: [i32; 3]) -> Block {
    WorldFile::open(black_box(path))
        .unwrap()
        .get_block(p)
        .unwrap()
}

fn lazy_get(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("terrain.vwr");
    terrain_1000()
        .save_with(&big, &SaveOptions::v3(Codec::Auto))
        .unwrap();
    eprintln!(
        "terrain 1000x100x1000: {} bytes",
        std::fs::metadata(&big).unwrap().len()
    );
    let mut g = quick(c);
    if let Ok(b999) = std::fs::read(voxcaf_golden::root().join("vwr/worlds3d/world999.vwr")) {
        let small = dir.path().join("world999.vwr");
        std::fs::write(&small, b999).unwrap();
        g.bench_function("get baseline world999 (v2, open + get)", |b| {
            b.iter(|| open_and_get(&small, [50, 5, 50]))
        });
    }
    g.bench_function("get terrain 1000x100x1000 (v3, open + get)", |b| {
        b.iter(|| open_and_get(&big, [500, 20, 500]))
    });
    g.finish();
}

criterion_group!(benches, big_world, empty_255, lazy_get);
criterion_main!(benches);
