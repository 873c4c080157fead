//! Meshing levels of detail (`vwr_mesh::lod`): closed chunk borders, the distant-view plan and
//! its meshes.

mod common;

use std::collections::BTreeSet;

use common::edges::*;
use common::*;
use vwr::{lod, World, CHUNK_SIZE};
use vwr_blocks::{Registry, CLASS_OPAQUE};
use vwr_mesh::lod::{
    mesh_chunk_closed, mesh_level, mesh_regions, mesh_view, plan_view, ViewChunk, ViewPlan, CLOSED,
};
use vwr_mesh::{mesh_world, Face, MeshBuffers, MeshOptions};

const TIGHT: MeshOptions = MeshOptions::GREEDY_AO_WATERTIGHT;

/// Level 0 and the levels above it, up to `top`.
fn pyramid(world: &World, top: u8) -> Vec<World> {
    let mut levels = vec![world.clone()];
    for _ in 0..top {
        let next = lod::build_next(levels.last().expect("level 0")).expect("lod");
        levels.push(next);
    }
    levels
}

/// A world of 4×2×4 chunks: boxes of stone and bricks, scattered cells of opaque,
/// transparent and special blocks.
fn world_of(boxes: &[(i32, i32, i32, i32)], cells: &[(i32, i32, i32, usize)]) -> World {
    let types = [35u16, 261, 92, 96, 378, 4000];
    let mut w = World::with_chunk_dims([4, 2, 4]).expect("dims");
    for (k, &(x, y, z, s)) in boxes.iter().enumerate() {
        let hi = [(x + s).min(39), (y + s / 2).min(19), (z + s).min(39)];
        w.fill_box([x, y, z], hi, b(types[k % 2])).expect("fill");
    }
    for &(x, y, z, t) in cells {
        w.set_block([x, y, z], b(types[t])).expect("set");
    }
    w
}

/// The unit faces of a chunk's opaque quads (cell units of its level).
fn opaque_faces(m: &vwr_mesh::ChunkMesh) -> BTreeSet<([i32; 3], Face)> {
    m.opaque.iter().flat_map(|q| q.unit_faces()).collect()
}

/// The faces a closed chunk must show: every face of an opaque cell of chunk `pos` whose
/// neighbour is not opaque or lies across the chunk's border.
fn closed_faces(level: &World, r: &Registry, pos: [u32; 3]) -> BTreeSet<([i32; 3], Face)> {
    let n = CHUNK_SIZE as i32;
    let lo = pos.map(|v| v as i32 * n);
    let opaque = |p: [i32; 3]| r.class_of_type(level.get_block(p).block_type()) == CLASS_OPAQUE;
    let inside = |p: [i32; 3]| (0..3).all(|a| (lo[a]..lo[a] + n).contains(&p[a]));
    let mut out = BTreeSet::new();
    for z in lo[2]..lo[2] + n {
        for y in lo[1]..lo[1] + n {
            for x in lo[0]..lo[0] + n {
                if !opaque([x, y, z]) {
                    continue;
                }
                for f in Face::ALL {
                    let d = f.normal();
                    let q = [x + d[0], y + d[1], z + d[2]];
                    if !inside(q) || !opaque(q) {
                        out.insert(([x, y, z], f));
                    }
                }
            }
        }
    }
    out
}

/// Checks a pyramid: (a) every closed chunk of every level shows exactly the faces of its
/// opaque cells towards non-opaque cells or across its border (so every border face of the
/// coarse side whose cell is opaque is covered), (b) each level's solid contains the finer
/// one's, (c) each closed chunk's watertight opaque pass is a closed surface, and a whole
/// level's buffers lie in the world's box rounded up to whole cells.
fn check_pyramid(levels: &[World], r: &Registry) {
    for k in 1..levels.len() {
        let (fine, coarse) = (&levels[k - 1], &levels[k]);
        fine.for_each_non_air(|p, _| {
            let c = p.map(|v| v / 2);
            assert!(
                !coarse.get_block(c).is_air(),
                "level {k}: {p:?} not in a solid cell"
            );
        });
        for (pos, _) in coarse.chunks() {
            let m = mesh_chunk_closed(coarse, r, pos, k as u8, CLOSED, TIGHT);
            assert_eq!(m.level, k as u8);
            assert_eq!(
                opaque_faces(&m),
                closed_faces(coarse, r, pos),
                "level {k} {pos:?}"
            );
            let buffers = MeshBuffers::from_chunk(&m, r);
            assert_eq!(
                unmatched_edges(&buffers.opaque),
                0,
                "level {k} {pos:?}: cracks"
            );
            for t in buffers.opaque.indices.chunks_exact(3) {
                assert!(
                    twice_area(&buffers.opaque, t) > 1e-9,
                    "flipped or degenerate"
                );
            }
        }
        let whole = MeshBuffers::from_world(&mesh_level(coarse, k as u8, r, TIGHT), r);
        assert_eq!(unmatched_edges(&whole.opaque), 0, "level {k}: cracks");
        if let Some((lo, hi)) = whole.opaque.bounds() {
            // The world's box, rounded up to whole cells of the level.
            let dims = levels[0]
                .block_dims()
                .map(|d| d.next_multiple_of(1 << k) as f32);
            assert!(
                (0..3).all(|a| lo[a] >= 0.0 && hi[a] <= dims[a]),
                "{lo:?} {hi:?}"
            );
        }
    }
}

#[test]
fn a_level_chunk_is_scaled_into_world_units() {
    let mut w = World::with_chunk_dims([2, 1, 2]).expect("dims");
    w.fill_box([0, 0, 0], [3, 3, 3], b(35)).expect("fill");
    let levels = pyramid(&w, 2);
    let r = Registry::default();
    let m = mesh_level(&levels[2], 2, &r, MeshOptions::GREEDY);
    assert_eq!(m.quad_count(), 6, "one level-2 cell");
    let buffers = MeshBuffers::from_world(&m, &r);
    assert_eq!(buffers.opaque.bounds(), Some(([0.0; 3], [4.0; 3])));
    // Textures still repeat once per block: UVs span 4 on the 4-block top face.
    let o = &buffers.opaque;
    let top: Vec<[f32; 2]> = (0..o.vertex_count())
        .filter(|&i| o.normals[i] == [0.0, 1.0, 0.0])
        .map(|i| o.uvs[i])
        .collect();
    assert_eq!(top.len(), 4);
    for a in 0..2 {
        let (lo, hi) = top.iter().fold((f32::MAX, f32::MIN), |(l, h), uv| {
            (l.min(uv[a]), h.max(uv[a]))
        });
        assert_eq!(hi - lo, 4.0);
    }
}

#[test]
fn closed_borders_show_faces_where_an_open_chunk_does_not() {
    let mut w = World::with_chunk_dims([2, 1, 1]).expect("dims");
    w.fill_box([0, 0, 0], [19, 9, 9], b(35)).expect("fill");
    let r = Registry::default();
    let open = vwr_mesh::mesh_chunk(&w, &r, [0, 0, 0], MeshOptions::GREEDY);
    let closed = mesh_chunk_closed(&w, &r, [0, 0, 0], 0, CLOSED, MeshOptions::GREEDY);
    assert_eq!(open.opaque.len(), 5, "no face towards the solid neighbour");
    assert_eq!(closed.opaque.len(), 6, "a closed box");
    let mut east_only = [false; 6];
    east_only[Face::PosX.index()] = true;
    let east = mesh_chunk_closed(&w, &r, [0, 0, 0], 0, east_only, MeshOptions::GREEDY);
    assert_eq!(opaque_faces(&east), opaque_faces(&closed));
    let west = mesh_chunk_closed(&w, &r, [1, 0, 0], 0, [false; 6], MeshOptions::GREEDY);
    assert_eq!(
        west,
        vwr_mesh::mesh_chunk(&w, &r, [1, 0, 0], MeshOptions::GREEDY)
    );
}

#[test]
fn random_worlds_make_closed_levels() {
    let r = Registry::default();
    for seed in 1..=3 {
        let w = random_world(seed, 4, 4000);
        check_pyramid(&pyramid(&w, 3), &r);
    }
}

/// Every non-empty level-0 chunk of the world is covered by exactly one region, and every
/// region holds a non-empty chunk of its level.
fn assert_covers(chunks: &[ViewChunk], levels: &[World]) {
    let dims = levels[0].chunk_dims();
    // Hits per level-0 position the regions cover (a map: the largest world has 4.3 G).
    let mut hits = std::collections::HashMap::<[u32; 3], u32>::new();
    let non_empty = |w: &World, p: [u32; 3]| w.chunk(p).is_some_and(|c| !c.is_empty());
    for c in chunks {
        assert!(
            non_empty(&levels[c.level as usize], c.chunk),
            "{c:?} is empty"
        );
        let (lo, hi) = c.block_box(dims);
        let n = CHUNK_SIZE as u32;
        assert!((0..3).all(|a| lo[a] < hi[a]), "{c:?} outside the world");
        for z in lo[2] / n..hi[2].div_ceil(n) {
            for y in lo[1] / n..hi[1].div_ceil(n) {
                for x in lo[0] / n..hi[0].div_ceil(n) {
                    *hits.entry([x, y, z]).or_default() += 1;
                }
            }
        }
    }
    assert!(hits.values().all(|&h| h == 1), "overlap");
    for (p, _) in levels[0].non_empty_chunks() {
        assert!(hits.contains_key(&p), "chunk {p:?}: hole");
    }
}

/// The nearest distance from `cam` to region `c`, and whether its cells fit in a pixel.
fn fits(c: &ViewChunk, cam: [f32; 3], dims: [u32; 3], ppr: f32) -> bool {
    let (lo, hi) = c.block_box(dims);
    let cam = cam.map(f64::from);
    let d: f64 = (0..3)
        .map(|a| (cam[a].clamp(lo[a] as f64, hi[a] as f64) - cam[a]).powi(2))
        .sum::<f64>()
        .sqrt();
    f64::from(1u32 << c.level) * f64::from(ppr) <= d
}

/// Checks a plan of `levels` (level 0 and those above it): covering, the coarsest level that
/// fits (its parent does not), level 0 near the camera, and the closed sides of level-0
/// regions (those facing a non-empty chunk of a coarser region).
fn check_plan(cam: [f32; 3], levels: &[World], ppr: f32) -> Vec<ViewChunk> {
    let (dims, top) = (levels[0].chunk_dims(), (levels.len() - 1) as u8);
    let plan = plan_view(cam, levels, ppr);
    assert_covers(&plan.chunks, levels);
    let level0: BTreeSet<[u32; 3]> = plan
        .chunks
        .iter()
        .filter(|c| c.level == 0)
        .map(|c| c.chunk)
        .collect();
    for c in &plan.chunks {
        assert!(c.level <= top);
        if c.level > 0 {
            assert!(fits(c, cam, dims, ppr), "{c:?} too coarse");
            assert_eq!(c.closed, CLOSED);
        }
        if c.level < top {
            let parent = ViewChunk {
                level: c.level + 1,
                chunk: c.chunk.map(|v| v / 2),
                closed: CLOSED,
            };
            assert!(!fits(&parent, cam, dims, ppr), "{c:?} could be coarser");
        }
        if c.level == 0 {
            for f in Face::ALL {
                let d = f.normal();
                let q = [0, 1, 2].map(|a| c.chunk[a].wrapping_add_signed(d[a]));
                let filled = levels[0].chunk(q).is_some_and(|c| !c.is_empty());
                let coarser = filled && !level0.contains(&q);
                assert_eq!(c.closed[f.index()], coarser, "{c:?} side {f:?}");
            }
        }
    }
    plan.chunks
}

/// A world of `dims` chunks with one stone block in each chunk of `filled` (taken modulo
/// `dims`), or stone throughout when `filled` is `None`.
fn chunks_of(dims: [u32; 3], filled: Option<&[[u32; 3]]>) -> World {
    let mut w = World::with_chunk_dims(dims).expect("dims");
    let n = CHUNK_SIZE as i32;
    match filled {
        None => {
            let hi = dims.map(|d| d as i32 * n - 1);
            w.fill_box([0; 3], hi, b(35)).expect("fill");
        }
        Some(list) => {
            for p in list {
                let at = [0, 1, 2].map(|a| (p[a] % dims[a]) as i32 * n + 3);
                w.set_block(at, b(35)).expect("set");
            }
        }
    }
    w
}

#[test]
fn a_distant_view_tiles_the_world_coarser_far_away() {
    let levels = pyramid(&chunks_of([100, 10, 100], None), 8);
    // An 800-pixel view of 90°, 300 blocks off a corner of a 1000×100×1000 world.
    let chunks = check_plan([-173.0, 273.0, -173.0], &levels, 509.0);
    let counts = plan_view([-173.0, 273.0, -173.0], &levels, 509.0).level_counts();
    assert!(counts.len() > 1 && counts[0] > 0, "{counts:?}");
    let near = chunks.iter().find(|c| c.chunk == [0, 9, 0]);
    assert_eq!(near.map(|c| c.level), Some(0));
    // A camera far away sees the whole world at the coarsest level; inside it, level 0 near.
    let far = plan_view([-1e6, 0.0, 0.0], &levels[..4], 1000.0);
    assert_eq!(far.level_counts(), vec![0, 0, 0, 13 * 2 * 13]);
    let inside = check_plan([500.0, 50.0, 500.0], &levels[..5], 300.0);
    let at = |p: [u32; 3]| {
        inside
            .iter()
            .find(|c| c.level == 0 && c.chunk == p)
            .is_some()
    };
    assert!(at([50, 5, 50]));
}

/// The largest world the format allows (65535 × 1 × 65535 chunks) holding two chunks, far
/// apart: the plan is found from the chunks the levels hold, a few regions, not from the
/// world's 4.3 G positions.
#[test]
fn a_view_of_the_largest_world_plans_only_its_chunks() {
    let max = vwr::MAX_CHUNKS_PER_AXIS;
    let w = chunks_of([max, 1, max], Some(&[[5, 0, 5], [max - 1, 0, max - 2]]));
    let levels = pyramid(&w, 3);
    let plan = check_plan([50.0, 5.0, 50.0], &levels, 1222.0);
    let regions: Vec<(u8, [u32; 3])> = plan.iter().map(|c| (c.level, c.chunk)).collect();
    // The chunk by the camera at level 0, the far one at level 3 (cells of 8 blocks).
    assert_eq!(
        regions,
        vec![(0, [5, 0, 5]), (3, [(max - 1) / 8, 0, (max - 2) / 8])]
    );
    assert_eq!(plan[0].closed, [false; 6], "its neighbours are empty");
    let m = mesh_view(
        &ViewPlan { chunks: plan },
        &levels,
        &Registry::default(),
        TIGHT,
    )
    .expect("view");
    assert_eq!(m.chunks.len(), 2);
}

/// The view of a world: with every region at level 0 it is the world's own mesh; mixing
/// levels, its watertight opaque pass is still one closed surface (no crack at any seam).
#[test]
fn a_view_mixing_levels_has_no_cracks() {
    let r = Registry::default();
    let w = world_of(
        &[(0, 0, 0, 39), (5, 10, 3, 12), (22, 4, 20, 9)],
        &[
            (3, 19, 3, 1),
            (30, 19, 30, 2),
            (12, 18, 33, 4),
            (39, 19, 0, 0),
        ],
    );
    let levels = pyramid(&w, 2);
    let all0 = plan_view([20.0, 10.0, 20.0], &levels, 1e9);
    let m = mesh_view(&all0, &levels, &r, MeshOptions::GREEDY_AO).expect("view");
    assert_eq!(
        face_set(&m),
        face_set(&mesh_world(&w, &r, MeshOptions::GREEDY_AO))
    );
    // At 3 pixels per radian every region is of level 1; at 6 and 10 level 0 is near.
    for (ppr, seams) in [(3.0, false), (6.0, true), (10.0, true)] {
        let plan = plan_view([-5.0, 25.0, -5.0], &levels, ppr);
        let m = mesh_view(&plan, &levels, &r, TIGHT).expect("view");
        assert!(m.chunks.iter().any(|c| c.level > 0), "ppr {ppr}: one level");
        let seam = |c: &&vwr_mesh::ChunkMesh| c.level == 0 && c.closed.contains(&true);
        assert_eq!(m.chunks.iter().any(|c| seam(&c)), seams, "ppr {ppr}: seams");
        let buffers = MeshBuffers::from_world(&m, &r);
        assert_eq!(unmatched_edges(&buffers.opaque), 0, "ppr {ppr}: cracks");
    }
    let plan = plan_view([-5.0, 25.0, -5.0], &levels, 8.0);
    assert!(mesh_view(&plan, &levels[..1], &r, TIGHT).is_err());

    // Some regions at a time (as a view that keeps its earlier meshes asks for them): the same
    // meshes as the whole view's, each region's found by its level, chunk and sides.
    let refs: Vec<&World> = levels.iter().collect();
    let whole = mesh_view(&plan, &levels, &r, TIGHT).expect("view");
    let some: Vec<ViewChunk> = plan.chunks.iter().step_by(2).copied().collect();
    let part = mesh_regions(&refs, &some, &r, TIGHT).expect("regions");
    assert!(!part.is_empty());
    for m in &part {
        assert!(some
            .iter()
            .any(|c| (c.level, c.chunk, c.closed) == (m.level, m.chunk, m.closed)));
        let same = whole
            .chunks
            .iter()
            .find(|w| (w.level, w.chunk, w.closed) == (m.level, m.chunk, m.closed));
        assert_eq!(same, Some(m));
    }
    let err = mesh_regions(&refs[..1], &some, &r, TIGHT)
        .unwrap_err()
        .to_string();
    assert!(err.contains("1 levels were given"), "{err}");
}

#[test]
fn mesh_level_tags_every_chunk() {
    let r = Registry::default();
    let levels = pyramid(&random_world(9, 2, 2000), 2);
    for (k, l) in levels.iter().enumerate() {
        let m = mesh_level(l, k as u8, &r, MeshOptions::GREEDY_AO);
        assert!(!m.chunks.is_empty() && m.chunks.iter().all(|c| c.level == k as u8));
    }
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// Random worlds, three levels above level 0: (a), (b) and (c) of `check_pyramid`.
        #[test]
        fn levels_are_closed_and_contain_the_finer_ones(
            boxes in proptest::collection::vec((0i32..38, 0i32..18, 0i32..38, 1i32..14), 0..6),
            cells in proptest::collection::vec((0i32..40, 0i32..20, 0i32..40, 0usize..6), 1..300),
        ) {
            let w = world_of(&boxes, &cells);
            check_pyramid(&pyramid(&w, 3), &Registry::default());
        }

        /// Random cameras, world sizes and filled chunks (all of them, or a few): the regions
        /// cover the non-empty chunks, each at the coarsest level that fits, level-0 regions
        /// closed towards coarser ones.
        #[test]
        fn view_regions_cover_the_world(
            cam in (-300.0f32..600.0, -100.0f32..300.0, -300.0f32..600.0),
            dims in (1u32..40, 1u32..8, 1u32..40),
            filled in proptest::option::of(
                proptest::collection::vec((0u32..40, 0u32..8, 0u32..40), 0..40)
            ),
            top in 0u8..=8,
            ppr in 1.0f32..2000.0,
        ) {
            let filled: Option<Vec<[u32; 3]>> =
                filled.map(|l| l.into_iter().map(|(x, y, z)| [x, y, z]).collect());
            let w = chunks_of([dims.0, dims.1, dims.2], filled.as_deref());
            check_plan([cam.0, cam.1, cam.2], &pyramid(&w, top), ppr);
        }
    }
}
