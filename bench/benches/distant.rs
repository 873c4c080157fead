//! A distant view of the 1000×100×1000 terrain (issue 40's goal: at most 2 M triangles, under
//! 200 ms to mesh): the camera 300 blocks off a corner (along the diagonal, above the top
//! corner), looking at the world. `vwr_mesh::lod::plan_view` picks per region the coarsest
//! level of detail whose cell spans at most one pixel of a 1920-pixel-wide view of 90°
//! (1222 pixels per radian), and at most 2 and 4 pixels; `mesh_view` meshes the chosen
//! chunks (greedy with AO, watertight, as the editor draws). The baseline, in the same run:
//! meshing all of level 0 with the same options. Printed after the timings: levels built,
//! regions per level, triangles of each view and of the baseline.
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use vwr::World;
use vwr_blocks::Registry;
use vwr_mesh::lod::{mesh_view, plan_view, ViewPlan};
use vwr_mesh::{mesh_world, MeshBuffers, MeshOptions, WorldMesh};

const OPTS: MeshOptions = MeshOptions::GREEDY_AO_WATERTIGHT;
/// Pixels per radian of a 1920-pixel-wide view of 90°.
const PPR: f32 = 1222.0;
/// The camera: 300 blocks from the top corner (0, 100, 0), along the outward diagonal.
const CAMERA: [f32; 3] = [-173.2, 273.2, -173.2];

fn plan(levels: &[World], px: f32) -> ViewPlan {
    plan_view(CAMERA, levels, PPR / px)
}

fn distant(c: &mut Criterion) {
    let reg = Registry::default();
    let w = voxcaf_bench::terrain_1000();
    let t = Instant::now();
    let mut levels = vec![w.clone()];
    for _ in 0..vwr::lod::MAX_LOD_LEVELS {
        let next = vwr::lod::build_next(levels.last().expect("level 0")).expect("lod");
        levels.push(next);
    }
    let build = t.elapsed();
    let mut g = c.benchmark_group("distant view of the 1000x100x1000 terrain");
    g.sample_size(10).measurement_time(Duration::from_secs(15));
    g.bench_function("baseline: all of level 0", |b| {
        b.iter(|| mesh_world(black_box(&w), &reg, OPTS))
    });
    let budgets = [1.0f32, 2.0, 4.0];
    g.bench_function("plan alone, cells <= 1 px", |b| {
        b.iter(|| plan(black_box(&levels), 1.0))
    });
    for px in budgets {
        g.bench_function(format!("view, cells <= {px} px (plan + mesh)"), |b| {
            b.iter(|| mesh_view(&plan(&levels, px), black_box(&levels), &reg, OPTS))
        });
    }
    g.finish();
    println!("\n{}", voxcaf_bench::machine());
    println!(
        "levels built: 1..={} in {:.0} ms; chunks per level: {:?}",
        levels.len() - 1,
        build.as_secs_f64() * 1e3,
        levels.iter().map(|l| l.chunk_count()).collect::<Vec<_>>()
    );
    let base = mesh_world(&w, &reg, OPTS);
    let (base_tight, base_plain) = triangles(&base, &reg);
    println!("baseline, all of level 0: {base_tight} triangles watertight, {base_plain} plain");
    for px in budgets {
        let p = plan(&levels, px);
        let m = mesh_view(&p, &levels, &reg, OPTS).expect("view");
        let (tight, plain) = triangles(&m, &reg);
        println!(
            "view, cells <= {px} px: regions per level {:?}, {} chunk meshes, {tight} triangles \
             watertight ({:.2}x the baseline; goal <= 2 M), {plain} plain ({:.2}x)",
            p.level_counts(),
            m.chunks.len(),
            tight as f64 / base_tight as f64,
            plain as f64 / base_plain as f64,
        );
        let per_level: Vec<(u8, usize)> = (0..levels.len() as u8)
            .map(|k| {
                let level = WorldMesh {
                    chunks: m.chunks.iter().filter(|c| c.level == k).cloned().collect(),
                };
                (k, triangles(&level, &reg).0)
            })
            .filter(|&(_, t)| t > 0)
            .collect();
        println!("  watertight triangles per level: {per_level:?}");
    }
}

/// Triangles of a mesh's buffers, watertight (as meshed) and plain (the same quads).
fn triangles(m: &WorldMesh, reg: &Registry) -> (usize, usize) {
    let mut plain = m.clone();
    for c in &mut plain.chunks {
        c.watertight = false;
    }
    (
        MeshBuffers::from_world(m, reg).triangle_count(),
        MeshBuffers::from_world(&plain, reg).triangle_count(),
    )
}

criterion_group!(benches, distant);
criterion_main!(benches);
