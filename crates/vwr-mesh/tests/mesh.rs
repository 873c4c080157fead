//! Face counts, greedy coverage, AO and the incremental cache (`mesh/cache.rs`).

#[path = "mesh/cache.rs"]
mod cache;
mod common;

use std::collections::BTreeSet;

use common::*;
use vwr::{Block, World};
use vwr_blocks::Registry;
use vwr_mesh::{
    cache::MeshCache, mesh_chunk, mesh_world, mesh_world_into, mesh_world_serial,
    mesh_world_serial_into, ChunkMesh, Face, MeshOptions, Mesher, Neighborhood, Quad, WorldMesh,
};

fn counts(w: &World, opts: MeshOptions) -> (usize, usize, usize, u64) {
    let m = mesh_world(w, &Registry::default(), opts);
    let o: usize = m.chunks.iter().map(|c| c.opaque.len()).sum();
    let t: usize = m.chunks.iter().map(|c| c.transparent.len()).sum();
    (o, t, m.special_count(), m.unit_face_count())
}

fn world(n: u32) -> World {
    World::with_chunks_per_axis(n).unwrap()
}

/// A world of `n`³ chunks with the blocks `b(t)` set at their cells.
fn world_with(n: u32, blocks: &[([i32; 3], u16)]) -> World {
    let mut w = world(n);
    for &(p, t) in blocks {
        w.set_block(p, b(t)).unwrap();
    }
    w
}

#[test]
fn single_cube_has_six_faces() {
    let mut w = world(3);
    w.set_block([15, 15, 15], b(35)).unwrap();
    assert_eq!(counts(&w, MeshOptions::EXPOSED), (6, 0, 0, 6));
    assert_eq!(counts(&w, MeshOptions::GREEDY), (6, 0, 0, 6));
    let m = mesh_world(&w, &Registry::default(), MeshOptions::EXPOSED);
    let faces: BTreeSet<Face> = m.chunks[0].opaque.iter().map(|q| q.face).collect();
    assert_eq!(faces.len(), 6);
}

#[test]
fn two_adjacent_cubes_have_ten_faces() {
    let mut w = world_with(3, &[([12, 15, 15], 35), ([13, 15, 15], 35)]);
    assert_eq!(counts(&w, MeshOptions::EXPOSED), (10, 0, 0, 10));
    // Greedy merges the four long sides: 6 quads covering the same 10 faces.
    assert_eq!(counts(&w, MeshOptions::GREEDY), (6, 0, 0, 10));
    // Different blocks are not merged.
    w.set_block([13, 15, 15], b(261)).unwrap();
    assert_eq!(counts(&w, MeshOptions::GREEDY), (10, 0, 0, 10));
}

#[test]
fn cube_on_chunk_border_with_neighbour_in_next_chunk() {
    for axis in 0..3 {
        let mut w = world(3);
        let mut a = [5, 5, 5];
        let mut c = [5, 5, 5];
        a[axis] = 9;
        c[axis] = 10;
        w.set_block([a[0], a[1], a[2]], b(35)).unwrap();
        w.set_block([c[0], c[1], c[2]], b(35)).unwrap();
        let m = mesh_world(&w, &Registry::default(), MeshOptions::EXPOSED);
        assert_eq!(m.chunks.len(), 2, "axis {axis}");
        assert_eq!(m.chunks[0].opaque.len(), 5);
        assert_eq!(m.chunks[1].opaque.len(), 5);
        assert_eq!(counts(&w, MeshOptions::EXPOSED).0, 10);
        assert_eq!(counts(&w, MeshOptions::GREEDY_AO).3, 10);
    }
}

#[test]
fn solid_chunk_600_faces_6_greedy_quads() {
    for pos in [[1u32, 1, 1], [0, 0, 0], [2, 2, 2]] {
        let mut w = world(3);
        w.set_chunk([pos[0], pos[1], pos[2]], vwr::Chunk::uniform(b(261)))
            .unwrap();
        assert_eq!(counts(&w, MeshOptions::EXPOSED), (600, 0, 0, 600));
        assert_eq!(counts(&w, MeshOptions::GREEDY), (6, 0, 0, 600));
        // AO on a lone cube's outside is all open, so greedy stays at 6.
        assert_eq!(counts(&w, MeshOptions::GREEDY_AO), (6, 0, 0, 600));
        let m = mesh_world(&w, &Registry::default(), MeshOptions::GREEDY);
        assert!(m.chunks[0].opaque.iter().all(|q| q.size == [10, 10]));
    }
    // Two solid chunks side by side: the shared wall disappears.
    let mut w = world(3);
    w.set_chunk([0, 0, 0], vwr::Chunk::uniform(b(261))).unwrap();
    w.set_chunk([1, 0, 0], vwr::Chunk::uniform(b(261))).unwrap();
    assert_eq!(counts(&w, MeshOptions::EXPOSED).0, 1000);
    assert_eq!(counts(&w, MeshOptions::GREEDY).0, 10);
}

#[test]
fn water_next_to_water_has_no_face_between() {
    let mut w = world_with(2, &[([3, 3, 3], 92), ([4, 3, 3], 92)]);
    assert_eq!(counts(&w, MeshOptions::EXPOSED), (0, 10, 0, 10));
    // Two different transparent types keep both faces between them.
    w.set_block([4, 3, 3], b(96)).unwrap();
    assert_eq!(counts(&w, MeshOptions::EXPOSED), (0, 12, 0, 12));
    // Same type, different metadata nibble: different blocks, faces kept.
    w.set_block([4, 3, 3], Block::make(92, 3).unwrap()).unwrap();
    assert_eq!(counts(&w, MeshOptions::EXPOSED), (0, 12, 0, 12));
}

#[test]
fn water_next_to_stone() {
    let w = world_with(2, &[([3, 3, 3], 92), ([4, 3, 3], 35)]);
    // Stone keeps its face towards the water; water drops its face towards the stone.
    assert_eq!(counts(&w, MeshOptions::EXPOSED), (6, 5, 0, 11));
    let m = mesh_world(&w, &Registry::default(), MeshOptions::EXPOSED);
    assert!(m.chunks[0].transparent.iter().all(|q| q.face != Face::PosX));
    // Across a chunk border too.
    let w = world_with(2, &[([9, 3, 3], 35), ([10, 3, 3], 92)]);
    assert_eq!(counts(&w, MeshOptions::EXPOSED), (6, 5, 0, 11));
}

#[test]
fn special_geometry_never_hides_faces() {
    let mut w = world(2);
    w.set_block([5, 5, 5], b(35)).unwrap();
    for (x, y, z, t) in [
        (6, 5, 5, 378),
        (4, 5, 5, 200),
        (5, 6, 5, 53),
        (5, 4, 5, 384),
        (5, 5, 6, 202),
    ] {
        w.set_block([x, y, z], b(t)).unwrap();
    }
    w.set_block([5, 5, 4], b(92)).unwrap();
    let (o, t, s, _) = counts(&w, MeshOptions::EXPOSED);
    assert_eq!((o, s), (6, 5));
    // Water keeps its face towards the stone? No: stone is opaque, so 5 water faces.
    assert_eq!(t, 5);
    // Invisible types neither draw nor hide.
    let mut r = Registry::default();
    r.apply_toml("[[block]]\nid = 4001\nkind = \"invisible\"\n")
        .unwrap();
    let w = world_with(1, &[([5, 5, 5], 35), ([6, 5, 5], 4001)]);
    let m = mesh_world(&w, &r, MeshOptions::EXPOSED);
    assert_eq!(m.quad_count(), 6);
    // Type 0 with a metadata nibble is not air but renders as nothing.
    let mut w = world(1);
    w.set_block([5, 5, 5], Block::make(0, 5).unwrap()).unwrap();
    assert_eq!(counts(&w, MeshOptions::EXPOSED), (0, 0, 0, 0));
}

#[test]
fn world_edges_count_as_air() {
    let mut w = world(1);
    w.set_chunk([0, 0, 0], vwr::Chunk::uniform(b(35))).unwrap();
    assert_eq!(counts(&w, MeshOptions::EXPOSED).0, 600);
    let mut w = world_with(2, &[([0, 0, 0], 35), ([19, 19, 19], 35)]);
    assert_eq!(counts(&w, MeshOptions::EXPOSED).0, 12);
    let raw = vwr::Block(0xFFFF); // type 4095, unknown: opaque
    w.set_block([19, 0, 19], raw).unwrap();
    assert_eq!(counts(&w, MeshOptions::EXPOSED).0, 18);
}

#[test]
fn empty_and_missing_chunks_mesh_to_nothing() {
    let w = world(2);
    assert!(mesh_world(&w, &Registry::default(), MeshOptions::GREEDY_AO)
        .chunks
        .is_empty());
    assert!(mesh_chunk(&w, &Registry::default(), [1, 1, 1], MeshOptions::GREEDY).is_empty());
    assert!(mesh_chunk(&w, &Registry::default(), [7, 7, 7], MeshOptions::GREEDY).is_empty());
}

fn face_of(m: &vwr_mesh::WorldMesh, cell: [i32; 3], face: Face) -> Quad {
    *m.chunks
        .iter()
        .flat_map(|c| &c.opaque)
        .find(|q| q.unit_faces().any(|(c, f)| c == cell && f == face))
        .expect("face present")
}

#[test]
fn ambient_occlusion_on_constructed_corners() {
    let top = |extra: &[[i32; 3]]| {
        let mut w = world(2);
        w.set_block([5, 5, 5], b(35)).unwrap();
        for e in extra {
            w.set_block([e[0], e[1], e[2]], b(35)).unwrap();
        }
        let m = mesh_world(&w, &Registry::default(), MeshOptions::EXPOSED_AO);
        face_of(&m, [5, 5, 5], Face::PosY)
    };
    // +Y face: U = X, V = Z; corners (x0,z0), (x1,z0), (x1,z1), (x0,z1).
    assert_eq!(top(&[]).ao, [3, 3, 3, 3]);
    // A block diagonally above the (x0, z0) corner.
    assert_eq!(top(&[[4, 6, 4]]).ao, [2, 3, 3, 3]);
    // One side block above the −X edge darkens both −X corners.
    assert_eq!(top(&[[4, 6, 5]]).ao, [2, 3, 3, 2]);
    // Side + corner.
    assert_eq!(top(&[[4, 6, 5], [4, 6, 4]]).ao, [1, 3, 3, 2]);
    // Two sides of one corner: fully dark, whatever the corner cell.
    assert_eq!(top(&[[4, 6, 5], [5, 6, 4]]).ao, [0, 2, 3, 2]);
    // An inner corner (walls on −X and −Z sides, all along).
    let q = top(&[[4, 6, 4], [4, 6, 5], [4, 6, 6], [5, 6, 4], [6, 6, 4]]);
    assert_eq!(q.ao, [0, 1, 3, 1]);
    // Blocks below the face's plane do not occlude it.
    assert_eq!(top(&[[4, 5, 5], [4, 4, 4]]).ao, [3, 3, 3, 3]);

    // Diagonal flip: split along the darker diagonal.
    let dark0 = top(&[[4, 6, 4]]);
    assert!(!dark0.flipped());
    let dark1 = top(&[[6, 6, 4]]);
    assert_eq!(dark1.ao, [3, 2, 3, 3]);
    assert!(dark1.flipped());
    assert_eq!(dark1.triangles(), [1, 3, 2, 1, 0, 3]);

    // AO across a chunk border: occluder in the next chunk.
    let w = world_with(2, &[([9, 5, 5], 35), ([10, 6, 5], 35)]);
    let m = mesh_world(&w, &Registry::default(), MeshOptions::EXPOSED_AO);
    assert_eq!(face_of(&m, [9, 5, 5], Face::PosY).ao, [3, 2, 2, 3]);

    // A −X face: U = Y, V = Z; occluder in front at (4, 6, 5) is the +U side.
    let w = world_with(2, &[([5, 5, 5], 35), ([4, 6, 5], 35)]);
    let m = mesh_world(&w, &Registry::default(), MeshOptions::EXPOSED_AO);
    assert_eq!(face_of(&m, [5, 5, 5], Face::NegX).ao, [3, 2, 2, 3]);
}

#[test]
fn greedy_never_merges_different_ao() {
    // A floor with one block on it: greedy with AO must keep the AO gradient exact, so
    // every merged quad has AO constant along its long directions.
    let mut w = world(2);
    w.fill_box([0, 0, 0], [9, 0, 9], b(35)).unwrap();
    w.set_block([5, 1, 5], b(35)).unwrap();
    let m = mesh_world(&w, &Registry::default(), MeshOptions::GREEDY_AO);
    let e = mesh_world(&w, &Registry::default(), MeshOptions::EXPOSED_AO);
    assert_eq!(face_set(&m), face_set(&e));
    for q in m.chunks.iter().flat_map(|c| &c.opaque) {
        if q.size[0] > 1 {
            assert_eq!((q.ao[0], q.ao[3]), (q.ao[1], q.ao[2]), "{q:?}");
        }
        if q.size[1] > 1 {
            assert_eq!((q.ao[0], q.ao[1]), (q.ao[3], q.ao[2]), "{q:?}");
        }
    }
    // Per unit face, the AO implied by the merged quad equals the exposed mesher's.
    let unit: std::collections::HashMap<([i32; 3], Face), [u8; 4]> = e
        .chunks
        .iter()
        .flat_map(|c| &c.opaque)
        .map(|q| ((q.origin, q.face), q.ao))
        .collect();
    for q in m.chunks.iter().flat_map(|c| &c.opaque) {
        for (cell, f) in q.unit_faces() {
            assert_eq!(unit[&(cell, f)], q.ao, "{cell:?} {f:?}");
        }
    }
    assert!(m.quad_count() < e.quad_count());
}

fn check_greedy_equals_exposed(name: &str, w: &World, r: &Registry) {
    for (ao, watertight) in [(false, false), (true, false), (true, true)] {
        let e = mesh_world(
            w,
            r,
            MeshOptions {
                greedy: false,
                ao,
                watertight: false,
            },
        );
        let g = mesh_world(
            w,
            r,
            MeshOptions {
                greedy: true,
                ao,
                watertight,
            },
        );
        let (fe, fg) = (face_set(&e), face_set(&g));
        assert_eq!(fe.len() as u64, e.quad_count() as u64, "{name}");
        assert!(fe == fg, "{name} ao={ao}: greedy covers different faces");
        assert!(g.quad_count() <= e.quad_count(), "{name}");
        let se: Vec<_> = e.chunks.iter().flat_map(|c| &c.special).collect();
        let sg: Vec<_> = g.chunks.iter().flat_map(|c| &c.special).collect();
        assert_eq!(se, sg, "{name}");
    }
}

#[test]
fn greedy_covers_same_faces_on_golden_worlds() {
    let r = Registry::default();
    let all = Registry::all_opaque();
    for (name, w) in golden_worlds() {
        check_greedy_equals_exposed(&name, &w, &r);
        if name == "world999.vwr" || name.starts_with("random-1") {
            check_greedy_equals_exposed(&name, &w, &all);
        }
    }
}

#[test]
fn greedy_covers_same_faces_on_random_worlds() {
    for seed in 1..=6 {
        let w = random_world(seed, 2, 3000);
        check_greedy_equals_exposed(&format!("random seed {seed}"), &w, &Registry::default());
    }
}

/// Reference: a face of cube cell `c` towards `d` is visible by the rules, straight from
/// the world with no bit tricks.
fn reference_faces(w: &World, r: &Registry) -> BTreeSet<([i32; 3], Face, u16, u8)> {
    use vwr_blocks::RenderKind::*;
    let mut s = BTreeSet::new();
    w.for_each_non_air(|[x, y, z], blk| {
        let kind = r.kind(blk.block_type());
        let pass = match kind {
            Opaque => 0,
            Transparent => 1,
            _ => return,
        };
        for f in Face::ALL {
            let n = f.normal();
            let nb = w.get_block([x + n[0], y + n[1], z + n[2]]);
            let nk = r.kind(nb.block_type());
            let visible = match kind {
                Opaque => nk != Opaque,
                _ => nk != Opaque && nb != blk,
            };
            if visible {
                s.insert(([x, y, z], f, blk.raw(), pass));
            }
        }
    });
    s
}

#[test]
fn exposed_faces_match_a_plain_reference() {
    let r = Registry::default();
    for seed in 10..14 {
        let w = random_world(seed, 3, 6000);
        let m = mesh_world(&w, &r, MeshOptions::EXPOSED);
        assert_eq!(face_set(&m), reference_faces(&w, &r), "seed {seed}");
    }
    for (name, w) in golden_worlds()
        .into_iter()
        .filter(|(n, _)| n.starts_with("random") || n == "world999.vwr")
    {
        let m = mesh_world(&w, &r, MeshOptions::EXPOSED);
        assert_eq!(face_set(&m), reference_faces(&w, &r), "{name}");
    }
}

#[test]
fn neighborhood_gather_matches_world() {
    let w = random_world(77, 3, 8000);
    let mut nb = Neighborhood::new();
    for pos in [[0u32, 0, 0], [1, 1, 1], [2, 1, 0], [2, 2, 2]] {
        nb.gather(&w, pos, &Registry::default());
        for z in -1..=10 {
            for y in -1..=10 {
                for x in -1..=10 {
                    let (wx, wy, wz) = (
                        pos[0] as i32 * 10 + x,
                        pos[1] as i32 * 10 + y,
                        pos[2] as i32 * 10 + z,
                    );
                    assert_eq!(nb.get(x, y, z), w.get_block([wx, wy, wz]));
                }
            }
        }
    }
    // Meshing a hand-made neighbourhood gives the same as meshing from the world.
    nb.gather(&w, [1, 1, 1], &Registry::default());
    let nb2 = Neighborhood::from_fn(&Registry::default(), |x, y, z| {
        w.get_block([10 + x, 10 + y, 10 + z])
    });
    let mut m = Mesher::new();
    let (mut a, mut c) = (Default::default(), Default::default());
    m.mesh(&nb, [10, 10, 10], MeshOptions::GREEDY_AO, &mut a);
    m.mesh(&nb2, [10, 10, 10], MeshOptions::GREEDY_AO, &mut c);
    assert_eq!(a, c);
}

/// A non-cubic world mixing uniform chunks (solid stone, water, air), absent chunks,
/// half-filled chunks and random cells of every render kind, so the gather's uniform, absent
/// and packed paths all meet across faces, edges and corners.
fn mixed_world(seed: u64) -> World {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut w = World::with_chunk_dims([4, 3, 2]).unwrap();
    w.fill_box([0, 0, 0], [39, 9, 19], b(35)).unwrap(); // a solid floor of uniform chunks
    w.fill_box([10, 10, 0], [19, 19, 9], b(92)).unwrap(); // a uniform water chunk
    w.fill_box([20, 10, 0], [29, 14, 9], b(261)).unwrap(); // half a chunk of bricks
    let types = [0u16, 35, 261, 92, 96, 30, 378, 200, 53, 4000, 3, 68];
    for _ in 0..3000 {
        let t = types[rng.below(types.len() as u64) as usize];
        let p = [rng.below(40), rng.below(30), rng.below(20)].map(|v| v as i32);
        w.set_block(p, Block::make(t, (rng.below(4) == 0) as u8).unwrap())
            .unwrap();
    }
    w
}

#[test]
fn gathered_neighbourhood_meshes_like_a_plain_one_on_every_chunk() {
    let r = Registry::default();
    let mut nb = Neighborhood::new();
    let mut m = Mesher::new();
    let (mut a, mut c) = (Default::default(), Default::default());
    for seed in [1, 2] {
        let w = mixed_world(seed);
        let [nx, ny, nz] = w.chunk_dims();
        for pos in (0..nz).flat_map(|z| (0..ny).flat_map(move |y| (0..nx).map(move |x| [x, y, z])))
        {
            nb.gather(&w, pos, &r);
            let o = pos.map(|v| v as i32 * 10);
            let plain =
                Neighborhood::from_fn(&r, |x, y, z| w.get_block([o[0] + x, o[1] + y, o[2] + z]));
            assert_eq!(nb.cells(), plain.cells(), "{pos:?}");
            for opts in [
                MeshOptions::EXPOSED,
                MeshOptions::GREEDY,
                MeshOptions::EXPOSED_AO,
                MeshOptions::GREEDY_AO,
            ] {
                m.mesh(&nb, o, opts, &mut a);
                m.mesh(&plain, o, opts, &mut c);
                assert_eq!(a, c, "{pos:?} {opts:?}");
            }
        }
        // And the whole world against the brute-force reference.
        let e = mesh_world(&w, &r, MeshOptions::EXPOSED);
        assert_eq!(face_set(&e), reference_faces(&w, &r), "seed {seed}");
        check_greedy_equals_exposed(&format!("mixed {seed}"), &w, &r);
    }
}

#[test]
fn plate_rotation_is_applied() {
    let mut w = world_with(1, &[([3, 0, 3], 379), ([5, 0, 5], 379)]);
    w.set_plate_rotation([5, 0, 5], true).unwrap();
    w.set_plate_rotation([3, 0, 3], false).unwrap();
    let m = mesh_world(&w, &Registry::default(), MeshOptions::GREEDY);
    let rot: Vec<bool> = m.chunks[0].special.iter().map(|s| s.rotated).collect();
    assert_eq!(rot, [false, true]);
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Greedy meshing covers exactly the exposed unit faces, with and without AO, for
        /// arbitrary small worlds spanning chunk borders.
        #[test]
        fn greedy_equals_exposed(cells in proptest::collection::vec((0i32..20, 0i32..20, 0i32..20, 0usize..6), 1..400)) {
            let types = [35u16, 261, 92, 96, 378, 4000];
            let mut w = World::with_chunks_per_axis(2).unwrap();
            for (x, y, z, t) in cells {
                w.set_block([x, y, z], b(types[t])).unwrap();
            }
            let r = Registry::default();
            for (ao, watertight) in [(false, false), (true, false), (true, true)] {
                let e = mesh_world(&w, &r, MeshOptions { greedy: false, ao, watertight: false });
                let g = mesh_world(&w, &r, MeshOptions { greedy: true, ao, watertight });
                prop_assert_eq!(face_set(&e), face_set(&g));
            }
            let e = mesh_world(&w, &r, MeshOptions::EXPOSED);
            prop_assert_eq!(face_set(&e), reference_faces(&w, &r));
        }
    }
}

/// The greedy quads of one chunk's pass, by a plain reference: the exposed mesher's unit
/// faces laid out per face and slice on a (row, bit) grid in the mesher's merge order (X
/// faces: rows along Z, bits along Y; Y faces: rows along X, bits along Z; Z faces: rows along
/// X, bits along Y), then, in row and bit order, the widest run of one key (block and AO)
/// from each face not yet covered, grown down over the rows that hold that key all along it.
fn reference_greedy(unit: &[vwr_mesh::Quad]) -> Vec<vwr_mesh::Quad> {
    use std::collections::BTreeMap;
    type Key = (vwr::Block, [u8; 4]);
    // (face, slice) -> grid[row][bit]
    let mut grids: BTreeMap<(Face, i32), [[Option<Key>; 10]; 10]> = BTreeMap::new();
    // Local (row, bit) axes, and the chunk's origin (for going back to world cells).
    let axes = |f: Face| match f.axis() {
        0 => (2, 1),
        1 => (0, 2),
        _ => (0, 1),
    };
    let Some(first) = unit.first() else {
        return Vec::new();
    };
    let base = first.origin.map(|c| c.div_euclid(10) * 10);
    for q in unit {
        assert_eq!(q.size, [1, 1]);
        let (r, b) = axes(q.face);
        let l = [0, 1, 2].map(|a| (q.origin[a] - base[a]) as usize);
        let g = grids
            .entry((q.face, q.origin[q.face.axis()]))
            .or_insert([[None; 10]; 10]);
        g[l[r]][l[b]] = Some((q.block, q.ao));
    }
    let mut out = Vec::new();
    for ((face, slice), g) in grids {
        let (ra, ba) = axes(face);
        let mut done = [[false; 10]; 10];
        for r in 0..10 {
            for b in 0..10 {
                let Some(k) = g[r][b].filter(|_| !done[r][b]) else {
                    continue;
                };
                let open =
                    |r: usize, c: usize, done: &[[bool; 10]; 10]| !done[r][c] && g[r][c] == Some(k);
                let mut w = 1;
                while b + w < 10 && open(r, b + w, &done) {
                    w += 1;
                }
                let mut h = 1;
                while r + h < 10 && (b..b + w).all(|c| open(r + h, c, &done)) {
                    h += 1;
                }
                for row in &mut done[r..r + h] {
                    row[b..b + w].fill(true);
                }
                let mut origin = base;
                origin[face.axis()] = slice;
                origin[ra] += r as i32;
                origin[ba] += b as i32;
                // Sizes along (U, V): the bit axis is U on X faces, the row axis elsewhere.
                let size = if face.axis() == 0 { [w, h] } else { [h, w] };
                out.push(vwr_mesh::Quad {
                    origin,
                    face,
                    size: size.map(|s| s as u8),
                    block: k.0,
                    ao: k.1,
                });
            }
        }
    }
    out.sort();
    out
}

/// Greedy meshing gives exactly the reference's rectangles (same quads, not only the same
/// faces), with and without AO, in both passes.
fn check_greedy_rectangles(name: &str, w: &World, r: &Registry) {
    for ao in [false, true] {
        let e = mesh_world(
            w,
            r,
            MeshOptions {
                greedy: false,
                ao,
                watertight: false,
            },
        );
        let g = mesh_world(
            w,
            r,
            MeshOptions {
                greedy: true,
                ao,
                watertight: ao,
            },
        );
        assert_eq!(e.chunks.len(), g.chunks.len(), "{name}");
        for (ce, cg) in e.chunks.iter().zip(&g.chunks) {
            for (pe, pg) in [(&ce.opaque, &cg.opaque), (&ce.transparent, &cg.transparent)] {
                let mut got = pg.clone();
                got.sort();
                assert_eq!(
                    got,
                    reference_greedy(pe),
                    "{name} ao={ao} chunk {:?}",
                    cg.chunk
                );
            }
        }
    }
}

#[test]
fn greedy_rectangles_match_a_plain_reference() {
    for seed in 1..=6 {
        let w = random_world(seed, 2, 3000);
        check_greedy_rectangles(&format!("seed {seed}"), &w, &Registry::default());
        check_greedy_rectangles(&format!("seed {seed}"), &w, &Registry::all_opaque());
    }
    for (name, w) in golden_worlds() {
        check_greedy_rectangles(&name, &w, &Registry::default());
        check_greedy_rectangles(&name, &w, &Registry::all_opaque());
    }
}

/// Chunk meshes that nobody had before are exactly as long as their lists' room (meshing
/// gives a new list room for 1024 quads, then gives back what it did not use), on every path
/// that makes new meshes, including a chunk of more than 1024 quads.
#[test]
fn new_chunk_meshes_keep_no_spare_room() {
    let r = Registry::default();
    let mut w = random_world(11, 5, 6_000);
    // A checkerboard chunk: 500 cubes, every face shown (3000 unit quads).
    for z in 0..10 {
        for y in 0..10 {
            for x in 0..10 {
                let cell = if (x + y + z) % 2 == 0 {
                    b(35)
                } else {
                    Block::AIR
                };
                w.set_block([20 + x, 20 + y, 20 + z], cell).unwrap();
            }
        }
    }
    let snug = |m: &ChunkMesh| m.opaque.capacity() == m.opaque.len();
    for opts in [MeshOptions::EXPOSED, MeshOptions::GREEDY_AO] {
        let serial = mesh_world_serial(&w, &r, opts);
        assert!(
            serial.chunks.iter().any(|c| c.opaque.len() > 1024),
            "{opts:?}: the checkerboard chunk should pass 1024 quads"
        );
        let parallel = mesh_world(&w, &r, opts);
        let mut cache = MeshCache::new(opts);
        cache.update(&w, &r);
        let single: Vec<ChunkMesh> = serial
            .chunks
            .iter()
            .map(|c| mesh_chunk(&w, &r, c.chunk, opts))
            .collect();
        for (name, meshes) in [
            ("serial", serial.chunks.iter().collect::<Vec<_>>()),
            ("parallel", parallel.chunks.iter().collect()),
            ("cache", cache.meshes()),
            ("mesh_chunk", single.iter().collect()),
        ] {
            assert!(!meshes.is_empty(), "{name} {opts:?}");
            for m in meshes {
                assert!(
                    snug(m),
                    "{name} {opts:?}: chunk {:?} has {} quads in room for {}",
                    m.chunk,
                    m.opaque.len(),
                    m.opaque.capacity()
                );
            }
        }
    }
}
