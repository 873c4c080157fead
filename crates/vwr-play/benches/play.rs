//! Gameplay benchmarks on the showcase level (100³ blocks), each with a naive baseline measured
//! in the same run:
//!
//! - `raycast`: cells visited per second by the Amanatides–Woo traversal (goal: 50 M/s per
//!   core) against a fixed-step ray march sampling every 0.1 block (`march_0.1`).
//! - `sweep`: one 0.6 × 1.8 × 0.6 box moved by one block with gravity (goal: < 1 µs) against
//!   20 sub-steps with an overlap test each (`substeps_20`).
//! - `triggers`: trigger queries of 10 000 player boxes (goal: < 1 ms per frame) against the
//!   same queries reading blocks through `World::get_block` and the registry (`world_get_block`).
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use voxcaf_golden::Rng;
use vwr_blocks::Registry;
use vwr_play::{ray_cells, sweep, touching_triggers, Aabb, Collider, TOUCH};

fn rays(n: usize) -> Vec<([f64; 3], [f64; 3])> {
    let mut rng = Rng::new(7);
    let mut f =
        move |lo: f64, hi: f64| lo + (hi - lo) * (rng.below(1 << 20) as f64 / (1 << 20) as f64);
    (0..n)
        .map(|_| {
            let o = [f(0.0, 100.0), f(9.0, 30.0), f(0.0, 100.0)];
            let d = [f(-1.0, 1.0), f(-0.3, 0.1), f(-1.0, 1.0)];
            (o, d)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let world = vwr::samples::showcase().unwrap();
    let reg = Registry::default();
    let col = Collider::new(&world, &reg);

    // Raycasts: every cell to the world's edge.
    let rs = rays(256);
    let mut cells = 0u64;
    for (o, d) in &rs {
        ray_cells(&col, *o, *d, f64::INFINITY, |_| {
            cells += 1;
            true
        })
        .unwrap();
    }
    let mut g = c.benchmark_group("raycast");
    g.throughput(Throughput::Elements(cells));
    g.bench_function("amanatides_woo", |b| {
        b.iter(|| {
            let mut solid = 0u32;
            for (o, d) in &rs {
                ray_cells(&col, *o, *d, f64::INFINITY, |c| {
                    solid += c.flags.solid() as u32;
                    true
                })
                .unwrap();
            }
            black_box(solid)
        })
    });
    g.bench_function("march_0.1", |b| {
        b.iter(|| {
            let mut solid = 0u32;
            for (o, d) in &rs {
                let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                let u = d.map(|v| v / len * 0.1);
                let mut p = *o;
                while (0..3).all(|k| p[k] >= 0.0 && p[k] < 100.0) {
                    solid += col.solid(p.map(|v| v.floor() as i64)) as u32;
                    for k in 0..3 {
                        p[k] += u[k];
                    }
                }
            }
            black_box(solid)
        })
    });
    g.finish();

    // Sweep of a player box by one block (walking into the stairs, with gravity).
    let boxes: Vec<Aabb> = (0..64)
        .map(|i| {
            Aabb::from_feet(
                [12.5 + (i % 8) as f64, 1.0, 20.5 + (i / 8) as f64 * 0.5],
                [0.6, 1.8, 0.6],
            )
        })
        .collect();
    let mut g = c.benchmark_group("sweep");
    g.throughput(Throughput::Elements(boxes.len() as u64));
    g.bench_function("move_and_slide_1_block", |b| {
        b.iter(|| {
            for bx in &boxes {
                black_box(sweep(&col, bx, black_box([1.0, -0.04, 0.3])).unwrap());
            }
        })
    });
    g.bench_function("substeps_20", |b| {
        b.iter(|| {
            for bx in &boxes {
                let mut cur = *bx;
                for _ in 0..20 {
                    let next = cur.translated([0.05, -0.002, 0.015]);
                    let (lo, hi) = next.cell_range();
                    if !col.any_solid(lo, hi) {
                        cur = next;
                    }
                }
                black_box(cur);
            }
        })
    });
    g.finish();

    // Trigger queries: 10 000 player boxes scattered over the level.
    let mut rng = Rng::new(11);
    let players: Vec<Aabb> = (0..10_000)
        .map(|_| {
            let x = 10.0 + rng.below(8000) as f64 / 100.0;
            let z = 10.0 + rng.below(8000) as f64 / 100.0;
            let y = 1.0 + rng.below(900) as f64 / 100.0;
            Aabb::from_feet([x, y, z], [0.6, 1.8, 0.6])
        })
        .collect();
    let mut g = c.benchmark_group("triggers");
    g.throughput(Throughput::Elements(players.len() as u64));
    g.bench_with_input(BenchmarkId::new("collider", 10_000), &players, |b, ps| {
        b.iter(|| {
            let mut hazards = 0u32;
            for p in ps {
                hazards += touching_triggers(&col, p).contains(vwr_blocks::Trigger::Hazard) as u32;
            }
            black_box(hazards)
        })
    });
    g.bench_with_input(
        BenchmarkId::new("world_get_block", 10_000),
        &players,
        |b, ps| {
            b.iter(|| {
                let mut hazards = 0u32;
                for p in ps {
                    let (lo, hi) = p.inflated(TOUCH).cell_range();
                    for z in lo[2]..=hi[2] {
                        for y in lo[1]..=hi[1] {
                            for x in lo[0]..=hi[0] {
                                let blk = world.get_block([x as i32, y as i32, z as i32]);
                                hazards += (reg.collision(blk.block_type()).trigger
                                    == vwr_blocks::Trigger::Hazard)
                                    as u32;
                            }
                        }
                    }
                }
                black_box(hazards)
            })
        },
    );
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
