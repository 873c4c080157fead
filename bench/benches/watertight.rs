//! What watertight buffers (`MeshOptions::watertight`: no T-junctions) cost against plain
//! greedy buffers with AO, in the same run, on world999, the hilly 100³ terrain, the 32³
//! sphere and the 1000×100×1000 terrain.
//!
//! The quads are the same either way (watertight only changes how buffers are built), so two
//! rows per world: "buffers" (vertex buffers from an already meshed world, plain against
//! watertight) and "mesh + buffers" (from the `World`, as the editor does for a first view).
//! After the groups, the triangle and vertex counts of both, and their ratios.
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use vwr::World;
use vwr_blocks::Registry;
use vwr_mesh::{mesh_world, MeshBuffers, MeshOptions};

const PLAIN: MeshOptions = MeshOptions::GREEDY_AO;
const TIGHT: MeshOptions = MeshOptions::GREEDY_AO_WATERTIGHT;

fn worlds() -> Vec<(&'static str, World)> {
    let mut v = Vec::new();
    match voxcaf_bench::world999() {
        Some(w) => v.push(("world999", w)),
        None => eprintln!("note: golden world999 not found; skipping it"),
    }
    v.push(("hilly terrain 100³", voxcaf_bench::hilly_terrain()));
    v.push(("sphere 32³", voxcaf_bench::sphere32()));
    v.push(("terrain 1000×100×1000", voxcaf_bench::terrain_1000()));
    v
}

fn watertight(c: &mut Criterion) {
    let reg = Registry::default();
    let mut counts = Vec::new();
    for (name, w) in worlds() {
        let plain = mesh_world(&w, &reg, PLAIN);
        let tight = mesh_world(&w, &reg, TIGHT);
        let big = w.chunk_count() > 10_000;
        let mut g = c.benchmark_group(format!("watertight {name}"));
        if big {
            g.sample_size(10).measurement_time(Duration::from_secs(20));
        }
        g.bench_function("buffers plain", |b| {
            b.iter(|| MeshBuffers::from_world(black_box(&plain), &reg))
        });
        g.bench_function("buffers watertight", |b| {
            b.iter(|| MeshBuffers::from_world(black_box(&tight), &reg))
        });
        g.bench_function("mesh + buffers plain", |b| {
            b.iter(|| MeshBuffers::from_world(&mesh_world(black_box(&w), &reg, PLAIN), &reg))
        });
        g.bench_function("mesh + buffers watertight", |b| {
            b.iter(|| MeshBuffers::from_world(&mesh_world(black_box(&w), &reg, TIGHT), &reg))
        });
        g.finish();
        let (p, t) = (
            MeshBuffers::from_world(&plain, &reg),
            MeshBuffers::from_world(&tight, &reg),
        );
        counts.push((
            name,
            p.triangle_count(),
            t.triangle_count(),
            p.vertex_count(),
            t.vertex_count(),
        ));
    }
    println!("\nwatertight against plain greedy + AO buffers (same quads):");
    println!(
        "{:<24} {:>12} {:>12} {:>7} {:>12} {:>12} {:>7}",
        "world", "triangles", "watertight", "ratio", "vertices", "watertight", "ratio"
    );
    for (name, pt, tt, pv, tv) in counts {
        println!(
            "{name:<24} {pt:>12} {tt:>12} {:>6.2}x {pv:>12} {tv:>12} {:>6.2}x",
            tt as f64 / pt as f64,
            tv as f64 / pv as f64
        );
    }
}

criterion_group!(benches, watertight);
criterion_main!(benches);
