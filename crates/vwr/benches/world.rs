//! World format benchmarks (criterion), each group with its baseline measured in the same run:
//! - `load` / `save`: a whole `.vwr` file against `memcpy` of the same bytes;
//! - `get_block` / `set_block`: 2²⁰ random cells of a full 8-bit world, across the world and
//!   inside one cache-resident chunk, and a full scan;
//! - `full scan`: every cell of the full 8-bit world through `get_block` (the baseline) and
//!   through the bulk readers (`Chunk::read_into` chunk by chunk, `World::read_box` of the
//!   whole world into one buffer);
//! - `fill 100³`: `World::fill_box` against `set_block` one cell at a time.
//!
//! Run: `cargo bench -p vwr --bench world` (world999 from the golden data, `VOXCAF_GOLDEN` or
//! `../shared/golden`; its rows are skipped without it). Reference figures of the original C++
//! library on its own machine: random get 13.8 M/s, random set 11.4 M/s, per-block fill of
//! 100³ ~1430 ms.
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use voxcaf_golden::Rng;
use vwr::{Block, World};

fn files() -> Vec<(&'static str, Vec<u8>)> {
    let mut v = Vec::new();
    match std::fs::read(voxcaf_golden::root().join("vwr/worlds3d/world999.vwr")) {
        Ok(b) => v.push(("world999", b)),
        Err(e) => eprintln!("world999.vwr skipped: {e}"),
    }
    v.push(("full 8-bit world", vwr::samples::full_8bit().to_bytes()));
    v
}

fn load_save(c: &mut Criterion) {
    for (name, bytes) in files() {
        let world = World::from_bytes(&bytes).unwrap();
        assert_eq!(world.to_bytes(), bytes, "{name} does not round-trip");
        let mut g = c.benchmark_group(format!("load+save {name}"));
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function("baseline memcpy", |b| b.iter(|| black_box(&bytes).to_vec()));
        g.bench_function("load", |b| {
            b.iter(|| World::from_bytes(black_box(&bytes)).unwrap())
        });
        g.bench_function("save", |b| b.iter(|| black_box(&world).to_bytes()));
        g.finish();
    }
}

/// The sum of every block of a 100³ world read through `get_block`, x fastest.
fn scan_x_fastest(world: &World) -> u32 {
    let mut acc = 0u32;
    for z in 0..100 {
        for y in 0..100 {
            for x in 0..100 {
                acc = acc.wrapping_add(world.get_block([x, y, z]).raw() as u32);
            }
        }
    }
    acc
}

fn access(c: &mut Criterion) {
    let full = vwr::samples::full_8bit();
    let mut rng = Rng::new(0x1234_5678);
    let coords: Vec<[i32; 3]> = (0..1 << 20)
        .map(|_| [0; 3].map(|_| rng.below(100) as i32))
        .collect();
    // The same pattern inside one 8-bit chunk: the cost of the call itself, cache-resident.
    let local: Vec<[i32; 3]> = coords.iter().map(|c| c.map(|v| v % 10)).collect();
    let values: Vec<Block> = (0..256).map(|k| Block(k * 16 + 1)).collect();

    let mut g = c.benchmark_group("get_block");
    g.throughput(Throughput::Elements(coords.len() as u64));
    for (name, cells) in [("random", &coords), ("random, 1 chunk", &local)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                cells.iter().fold(0u32, |acc, &[x, y, z]| {
                    acc.wrapping_add(full.get_block([x, y, z]).raw() as u32)
                })
            })
        });
    }
    g.throughput(Throughput::Elements(1_000_000));
    g.bench_function("scan (x fastest)", |b| b.iter(|| scan_x_fastest(&full)));
    g.finish();

    let mut g = c.benchmark_group("full scan 8-bit world");
    g.throughput(Throughput::Elements(1_000_000));
    g.bench_function("baseline get_block (x fastest)", |b| {
        b.iter(|| scan_x_fastest(&full))
    });
    let mut buf = [Block::AIR; 1000];
    g.bench_function("Chunk::read_into per chunk", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for (_, ch) in full.chunks() {
                ch.read_into(&mut buf);
                acc = buf
                    .iter()
                    .fold(acc, |a, blk| a.wrapping_add(blk.raw() as u32));
            }
            acc
        })
    });
    let mut all = vec![Block::AIR; 1_000_000];
    g.bench_function("World::read_box whole world", |b| {
        b.iter(|| {
            full.read_box([0; 3], [99; 3], &mut all).unwrap();
            all.iter()
                .fold(0u32, |a, blk| a.wrapping_add(blk.raw() as u32))
        })
    });
    g.finish();

    let mut g = c.benchmark_group("set_block (existing palette values)");
    g.throughput(Throughput::Elements(coords.len() as u64));
    for (name, cells) in [("random", &coords), ("random, 1 chunk", &local)] {
        let mut w = full.clone();
        g.bench_function(name, |b| {
            b.iter(|| {
                for (k, &[x, y, z]) in cells.iter().enumerate() {
                    w.set_block([x, y, z], values[k & 255]).unwrap();
                }
            })
        });
    }
    g.finish();
}

fn fill(c: &mut Criterion) {
    let stone = Block(560);
    let mut g = c.benchmark_group("fill 100³");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.bench_function("baseline set_block per cell", |b| {
        b.iter_batched(
            World::new,
            |mut w| {
                for z in 0..100 {
                    for y in 0..100 {
                        for x in 0..100 {
                            w.set_block([x, y, z], stone).unwrap();
                        }
                    }
                }
                w
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("fill_box", |b| {
        b.iter_batched(
            World::new,
            |mut w| {
                w.fill_box([0, 0, 0], [99, 99, 99], stone).unwrap();
                w
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, load_save, access, fill);
criterion_main!(benches);
