//! Watertight buffers (`MeshOptions::watertight`): no T-junctions, the same faces covered.
//!
//! The opaque pass of any world is the boundary of the set of opaque cells (an opaque face
//! shows exactly where the cell across is not opaque), so it is a closed surface: welded by
//! position, every edge a → b of a triangle must be matched by an edge b → a of another
//! (a T-junction leaves a long edge matched by two short ones), and on manifold shapes (a
//! box, a ball) every edge belongs to exactly two triangles.

mod common;

use common::edges::*;
use common::*;
use vwr::World;
use vwr_blocks::Registry;
use vwr_mesh::{mesh_world, MeshBuffers, MeshCache, MeshOptions, MeshPart, WorldMesh};

/// The watertight buffers of `m` (meshed watertight) are closed, free of degenerate or
/// back-facing triangles, and cover as much area as the quads (so, with the triangles of a
/// quad inside it, the same unit faces). Returns the buffers.
fn check_watertight(name: &str, m: &WorldMesh, r: &Registry) -> MeshBuffers {
    assert!(m.chunks.iter().all(|c| c.watertight), "{name}");
    let b = MeshBuffers::from_world(m, r);
    let o = &b.opaque;
    assert_eq!(unmatched_edges(o), 0, "{name}: cracks in the opaque pass");
    let mut cube_area = 0.0;
    for t in o.indices.chunks_exact(3) {
        let a = twice_area(o, t);
        assert!(
            a > 1e-9,
            "{name}: degenerate or flipped triangle {t:?}: {a}"
        );
        if t.iter()
            .all(|&i| o.positions[i as usize].iter().all(|v| v.fract() == 0.0))
        {
            cube_area += a / 2.0;
        }
    }
    let faces: u64 = m
        .chunks
        .iter()
        .flat_map(|c| &c.opaque)
        .map(|q| q.area() as u64)
        .sum();
    assert!(
        (cube_area - faces as f64).abs() < 1e-6,
        "{name}: {cube_area} vs {faces}"
    );
    for part in [&b.opaque, &b.transparent] {
        assert_eq!(part.ao.len(), part.positions.len());
    }
    b
}

fn fill(w: &mut World, lo: [i32; 3], hi: [i32; 3], t: u16) {
    w.fill_box(lo, hi, b(t)).unwrap();
}

/// A box spanning chunk borders, striped with two blocks (many quads of different sizes).
fn striped_box() -> World {
    let mut w = World::with_chunks_per_axis(3).unwrap();
    fill(&mut w, [3, 4, 5], [24, 17, 21], 35);
    for x in (3..=24).step_by(3) {
        fill(&mut w, [x, 4, 5], [x, 17 - x % 5, 21], 261);
    }
    w
}

/// A ball of radius 12 around a point off the chunk grid.
fn ball() -> World {
    let mut w = World::with_chunks_per_axis(3).unwrap();
    let c = [14.5, 15.0, 13.5];
    for x in 0..30 {
        for y in 0..30 {
            for z in 0..30 {
                let d: f64 = [x, y, z]
                    .iter()
                    .zip(c)
                    .map(|(&v, c)| (v as f64 + 0.5 - c).powi(2))
                    .sum();
                if d <= 144.0 {
                    let t = if (x + y + z) % 7 == 0 { 261 } else { 35 };
                    w.set_block([x, y, z], b(t)).unwrap();
                }
            }
        }
    }
    w
}

/// Random blobs of opaque blocks: boxes of random sizes, some cut out again.
fn blobs(seed: u64) -> World {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut w = World::with_chunks_per_axis(3).unwrap();
    for k in 0..40 {
        let lo = [0; 3].map(|_| rng.below(26) as i32);
        let hi = lo.map(|v| (v + 1 + rng.below(8) as i32).min(29));
        let t = [35, 261, 378, 0][if k % 5 == 4 { 3 } else { rng.below(3) as usize }];
        fill(&mut w, lo, hi, t);
    }
    w
}

fn opts(ao: bool) -> MeshOptions {
    MeshOptions {
        greedy: true,
        ao,
        watertight: true,
    }
}

#[test]
fn closed_shapes_have_no_cracks_and_are_manifold() {
    let r = Registry::default();
    for (name, w) in [("striped box", striped_box()), ("ball", ball())] {
        for ao in [false, true] {
            let m = mesh_world(&w, &r, opts(ao));
            let b = check_watertight(name, &m, &r);
            assert_manifold(name, &b.opaque);
        }
    }
}

#[test]
fn plain_greedy_buffers_have_t_junctions_that_watertight_ones_do_not() {
    let r = Registry::default();
    for w in [striped_box(), ball(), blobs(1)] {
        let plain = MeshBuffers::from_world(&mesh_world(&w, &r, MeshOptions::GREEDY_AO), &r);
        assert!(unmatched_edges(&plain.opaque) > 0);
        let tight = mesh_world(&w, &r, MeshOptions::GREEDY_AO_WATERTIGHT);
        check_watertight("tight", &tight, &r);
    }
}

#[test]
fn random_blobs_have_no_cracks() {
    let r = Registry::default();
    for seed in 1..=8 {
        let w = blobs(seed);
        for ao in [false, true] {
            check_watertight(&format!("blobs {seed}"), &mesh_world(&w, &r, opts(ao)), &r);
        }
    }
}

#[test]
fn golden_and_random_worlds_have_no_cracks_in_the_opaque_pass() {
    let r = Registry::default();
    for (name, w) in golden_worlds() {
        check_watertight(&name, &mesh_world(&w, &r, opts(true)), &r);
    }
    for seed in 1..=4 {
        let w = random_world(seed, 2, 3000);
        check_watertight("random", &mesh_world(&w, &r, opts(true)), &r);
    }
}

/// Points inside a quad's edges take the AO of the edge's corners, which is right only if
/// the two corners of every edge longer than one block have the same AO.
#[test]
fn long_quad_edges_have_one_ao() {
    let r = Registry::default();
    let mut worlds = vec![striped_box(), ball()];
    worlds.extend((1..=4).map(blobs));
    worlds.extend((1..=4).map(|s| random_world(s, 2, 3000)));
    let mut long = 0;
    for w in worlds {
        let m = mesh_world(&w, &r, MeshOptions::GREEDY_AO);
        for q in m
            .chunks
            .iter()
            .flat_map(|c| c.opaque.iter().chain(&c.transparent))
        {
            for k in 0..4 {
                if q.size[k % 2] > 1 {
                    long += 1;
                    assert_eq!(q.ao[k], q.ao[(k + 1) % 4], "{q:?}");
                }
            }
        }
    }
    assert!(long > 1000);
}

/// Without splits a quad keeps its two triangles, cut along the same diagonal.
#[test]
fn lone_cubes_keep_two_triangles_per_face() {
    let r = Registry::default();
    let mut w = World::with_chunks_per_axis(2).unwrap();
    w.set_block([3, 3, 3], b(35)).unwrap();
    w.set_block([5, 3, 3], b(35)).unwrap();
    w.set_block([4, 4, 3], b(35)).unwrap();
    let plain = MeshBuffers::from_world(&mesh_world(&w, &r, MeshOptions::GREEDY_AO), &r);
    let tight = MeshBuffers::from_world(&mesh_world(&w, &r, opts(true)), &r);
    assert_eq!(tight.opaque.triangle_count(), plain.opaque.triangle_count());
    let tris = |p: &MeshPart| {
        let mut v: Vec<[Key; 3]> = p
            .indices
            .chunks_exact(3)
            .map(|t| {
                let mut k = [t[0], t[1], t[2]].map(|i| key(p.positions[i as usize]));
                let m = (0..3).min_by_key(|&i| k[i]).unwrap_or(0);
                k.rotate_left(m);
                k
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(tris(&tight.opaque), tris(&plain.opaque));
}

/// A mesh cache meshing watertight, brought up to date after edits on and near chunk
/// borders, gives the buffers of a fresh mesh, still closed: a chunk's watertight buffers
/// depend on its own quads alone.
#[test]
fn cached_watertight_meshes_stay_closed_after_edits() {
    let r = Registry::default();
    let mut w = blobs(3);
    let mut cache = MeshCache::new(MeshOptions::GREEDY_AO_WATERTIGHT);
    cache.update(&w, &r);
    let edits = [
        ([9, 9, 9], 261),
        ([10, 4, 19], 0),
        ([20, 20, 10], 35),
        ([5, 0, 29], 378),
    ];
    for (p, t) in edits {
        w.fill_box(p, p.map(|v| (v + 2).min(29)), b(t)).unwrap();
        cache.update(&w, &r);
        let cached = WorldMesh {
            chunks: cache.meshes().into_iter().cloned().collect(),
        };
        let fresh = mesh_world(&w, &r, MeshOptions::GREEDY_AO_WATERTIGHT);
        assert_eq!(cached, fresh);
        check_watertight("cached", &cached, &r);
    }
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Random worlds across chunk borders (opaque, transparent and special blocks): the
        /// watertight opaque pass is closed and covers the quads' area.
        #[test]
        fn watertight_has_no_cracks(
            cells in proptest::collection::vec((0i32..20, 0i32..20, 0i32..20, 0usize..6), 1..400),
            boxes in proptest::collection::vec((0i32..18, 0i32..18, 0i32..18, 1i32..9), 0..6),
        ) {
            let types = [35u16, 261, 92, 96, 378, 4000];
            let mut w = World::with_chunks_per_axis(2).unwrap();
            for (k, (x, y, z, s)) in boxes.into_iter().enumerate() {
                let hi = [x + s, y + s / 2, z + s].map(|v| v.min(19));
                fill(&mut w, [x, y, z], hi, types[k % 2]);
            }
            for (x, y, z, t) in cells {
                w.set_block([x, y, z], b(types[t])).unwrap();
            }
            let r = Registry::default();
            for ao in [false, true] {
                let m = mesh_world(&w, &r, opts(ao));
                let b = check_watertight("prop", &m, &r);
                prop_assert_eq!(unmatched_edges(&b.opaque), 0);
            }
        }
    }
}
