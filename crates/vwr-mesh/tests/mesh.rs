//! Face counts, greedy coverage, AO and the incremental cache.

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
    let mut w = world(3);
    w.set_block([12, 15, 15], b(35)).unwrap();
    w.set_block([13, 15, 15], b(35)).unwrap();
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
    let mut w = world(2);
    w.set_block([3, 3, 3], b(92)).unwrap();
    w.set_block([4, 3, 3], b(92)).unwrap();
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
    let mut w = world(2);
    w.set_block([3, 3, 3], b(92)).unwrap();
    w.set_block([4, 3, 3], b(35)).unwrap();
    // Stone keeps its face towards the water; water drops its face towards the stone.
    assert_eq!(counts(&w, MeshOptions::EXPOSED), (6, 5, 0, 11));
    let m = mesh_world(&w, &Registry::default(), MeshOptions::EXPOSED);
    assert!(m.chunks[0].transparent.iter().all(|q| q.face != Face::PosX));
    // Across a chunk border too.
    let mut w = world(2);
    w.set_block([9, 3, 3], b(35)).unwrap();
    w.set_block([10, 3, 3], b(92)).unwrap();
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
    let mut w = world(1);
    w.set_block([5, 5, 5], b(35)).unwrap();
    w.set_block([6, 5, 5], b(4001)).unwrap();
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
    let mut w = world(2);
    w.set_block([0, 0, 0], b(35)).unwrap();
    w.set_block([19, 19, 19], b(35)).unwrap();
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
    let mut w = world(2);
    w.set_block([9, 5, 5], b(35)).unwrap();
    w.set_block([10, 6, 5], b(35)).unwrap();
    let m = mesh_world(&w, &Registry::default(), MeshOptions::EXPOSED_AO);
    assert_eq!(face_of(&m, [9, 5, 5], Face::PosY).ao, [3, 2, 2, 3]);

    // A −X face: U = Y, V = Z; occluder in front at (4, 6, 5) is the +U side.
    let mut w = world(2);
    w.set_block([5, 5, 5], b(35)).unwrap();
    w.set_block([4, 6, 5], b(35)).unwrap();
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
    for ao in [false, true] {
        let e = mesh_world(w, r, MeshOptions { greedy: false, ao });
        let g = mesh_world(w, r, MeshOptions { greedy: true, ao });
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
fn parallel_meshing_equals_serial_and_feeds_the_cache() {
    let r = Registry::default();
    let mut worlds: Vec<(String, World)> = vec![
        ("mixed 3".into(), mixed_world(3)),
        ("random 5".into(), random_world(5, 4, 9000)),
    ];
    worlds.extend(
        golden_worlds()
            .into_iter()
            .filter(|(n, _)| n == "world999.vwr" || n.starts_with("random-1")),
    );
    for (name, mut w) in worlds {
        for reg in [Registry::all_opaque(), Registry::default()] {
            let serial = mesh_world_serial(&w, &reg, MeshOptions::GREEDY_AO);
            let one_by_one: Vec<_> = w
                .chunks()
                .map(|(p, _)| mesh_chunk(&w, &reg, p, MeshOptions::GREEDY_AO))
                .filter(|m| !m.is_empty())
                .collect();
            assert_eq!(serial.chunks, one_by_one, "{name}");
            assert_eq!(
                mesh_world(&w, &reg, MeshOptions::GREEDY_AO),
                serial,
                "{name}"
            );
        }
        for (opts, fill) in [
            (MeshOptions::EXPOSED, 261),
            (MeshOptions::GREEDY, 92),
            (MeshOptions::GREEDY_AO, 35),
        ] {
            let serial = mesh_world_serial(&w, &r, opts);
            assert_eq!(mesh_world(&w, &r, opts), serial, "{name} {opts:?}");
            // Whole-world meshing (chunks classified once) equals chunk-by-chunk meshing
            // through the full gather.
            let one_by_one: Vec<_> = w
                .chunks()
                .map(|(p, _)| mesh_chunk(&w, &r, p, opts))
                .filter(|m| !m.is_empty())
                .collect();
            assert_eq!(serial.chunks, one_by_one, "{name} {opts:?}");
            // The cache's first update (parallel: many chunks) equals the serial mesh ...
            let mut cache = MeshCache::new(opts);
            cache.update(&w, &r);
            let cached: Vec<_> = cache.meshes().into_iter().cloned().collect();
            assert_eq!(cached, serial.chunks, "{name} {opts:?}");
            // ... and so does an incremental update touching many chunks (parallel too).
            let [x, y, z] = w.block_dims().map(|v| v as i32 - 1);
            w.fill_box([1, y / 2, 1], [x - 1, y / 2 + 1, z - 1], b(fill))
                .unwrap();
            w.fill_box([x / 3, 0, 0], [x / 3, y, z], Block::AIR)
                .unwrap();
            let rebuilt = cache.update(&w, &r);
            assert!(
                w.chunk_count() < 32 || rebuilt.len() >= 32,
                "{name}: the parallel path was not taken"
            );
            let cached: Vec<_> = cache.meshes().into_iter().cloned().collect();
            assert_eq!(
                cached,
                mesh_world_serial(&w, &r, opts).chunks,
                "{name} {opts:?}"
            );
        }
    }
}

/// Whole-world meshing shares its batches between the calling thread and the pool's other
/// threads (each taking its own run of batches first, then the others'): the meshes must not
/// depend on how many threads there are, on whether the caller is one of the pool's threads,
/// or on how the runs divide the chunks (world sizes that leave a short last batch and runs
/// of unequal length).
#[test]
fn parallel_meshing_gives_the_same_meshes_on_any_number_of_threads() {
    let r = Registry::default();
    let worlds = [
        ("5³ chunks", random_world(11, 5, 9000)),
        ("7³ chunks", random_world(12, 7, 30_000)),
    ];
    for (name, mut w) in worlds {
        let opts_all = [
            MeshOptions::EXPOSED,
            MeshOptions::GREEDY,
            MeshOptions::GREEDY_AO,
        ];
        let serial: Vec<_> = opts_all
            .iter()
            .map(|&o| mesh_world_serial(&w, &r, o))
            .collect();
        for threads in [1, 2, 3, 7] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut kept = WorldMesh::default();
            for (&o, expected) in opts_all.iter().zip(&serial) {
                // Called from one of the pool's threads.
                let fresh = pool.install(|| mesh_world(&w, &r, o));
                assert_eq!(&fresh, expected, "{name}, {threads} threads, {o:?}");
                pool.install(|| mesh_world_into(&w, &r, o, &mut kept));
                assert_eq!(&kept, expected, "{name}, {threads} threads, {o:?}");
            }
            // Called from outside any pool (rayon's global pool).
            assert_eq!(
                &mesh_world(&w, &r, MeshOptions::GREEDY),
                &serial[1],
                "{name}"
            );
            // The cache's parallel rebuild, inside the pool.
            let mut cache = MeshCache::new(MeshOptions::GREEDY_AO);
            pool.install(|| cache.update(&w, &r));
            let cached: Vec<_> = cache.meshes().into_iter().cloned().collect();
            assert_eq!(cached, serial[2].chunks, "{name}, {threads} threads");
        }
        // An edit across many chunks, re-meshed into the previous mesh on several pools.
        let mut kept = mesh_world(&w, &r, MeshOptions::GREEDY_AO);
        let [x, y, z] = w.block_dims().map(|v| v as i32 - 1);
        w.fill_box([0, y / 3, 0], [x, y / 3, z], b(35)).unwrap();
        w.fill_box([x / 2, 0, 0], [x / 2 + 3, y, z], Block::AIR)
            .unwrap();
        let expected = mesh_world_serial(&w, &r, MeshOptions::GREEDY_AO);
        for threads in [2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| mesh_world_into(&w, &r, MeshOptions::GREEDY_AO, &mut kept));
            assert_eq!(kept, expected, "{name}, {threads} threads after an edit");
        }
    }
}

/// Where each chunk's opaque quads live, to see which buffers a re-mesh reused.
fn opaque_buffers(m: &WorldMesh) -> Vec<([u32; 3], *const Quad)> {
    m.chunks
        .iter()
        .map(|c| (c.chunk, c.opaque.as_ptr()))
        .collect()
}

#[test]
fn meshing_into_a_previous_mesh_equals_a_fresh_one_and_reuses_its_buffers() {
    let r = Registry::default();
    type Into = fn(&World, &Registry, MeshOptions, &mut WorldMesh);
    let into: [(&str, Into); 2] = [
        ("parallel", mesh_world_into),
        ("serial", mesh_world_serial_into),
    ];
    for (name, mesh_into) in into {
        // Enough chunks for several parallel batches.
        let mut w = random_world(7, 6, 20_000);
        let mut m = WorldMesh::default();
        mesh_into(&w, &r, MeshOptions::GREEDY_AO, &mut m);
        assert_eq!(
            m,
            mesh_world_serial(&w, &r, MeshOptions::GREEDY_AO),
            "{name}"
        );
        // Unchanged world, same options: every chunk refilled in its own buffer.
        let before = opaque_buffers(&m);
        mesh_into(&w, &r, MeshOptions::GREEDY_AO, &mut m);
        assert_eq!(
            m,
            mesh_world_serial(&w, &r, MeshOptions::GREEDY_AO),
            "{name}"
        );
        assert_eq!(opaque_buffers(&m), before, "{name}: buffers not reused");
        // Other options, then an edited world: chunks emptied, chunks new, chunks changed.
        for opts in [MeshOptions::EXPOSED, MeshOptions::GREEDY] {
            mesh_into(&w, &r, opts, &mut m);
            assert_eq!(m, mesh_world_serial(&w, &r, opts), "{name} {opts:?}");
        }
        w.fill_box([0, 0, 0], [29, 59, 29], Block::AIR).unwrap();
        w.fill_box([30, 0, 30], [59, 4, 59], b(35)).unwrap();
        w.set_block([45, 20, 15], b(92)).unwrap();
        mesh_into(&w, &r, MeshOptions::EXPOSED_AO, &mut m);
        assert_eq!(
            m,
            mesh_world_serial(&w, &r, MeshOptions::EXPOSED_AO),
            "{name}"
        );
        // A previous mesh out of file order, from another world, or altered by its user
        // only costs the reuse, never the result.
        let mut other = mesh_world(&mixed_world(4), &r, MeshOptions::GREEDY);
        other.chunks.reverse();
        if let Some(c) = other.chunks.first_mut() {
            c.chunk = [0, 0, 0];
            c.special.clear();
        }
        mesh_into(&w, &r, MeshOptions::GREEDY, &mut other);
        assert_eq!(
            other,
            mesh_world_serial(&w, &r, MeshOptions::GREEDY),
            "{name}"
        );
        mesh_into(&world(2), &r, MeshOptions::GREEDY, &mut other);
        assert!(other.chunks.is_empty(), "{name}");
    }
}

#[test]
fn cache_rebuilds_refill_the_buffers_of_the_meshes_they_replace() {
    let r = Registry::default();
    let mut w = random_world(9, 6, 20_000);
    w.fill_box([0, 0, 0], [59, 4, 59], b(35)).unwrap();
    let mut cache = MeshCache::new(MeshOptions::EXPOSED);
    cache.update(&w, &r);
    let buffers = |c: &MeshCache| -> Vec<([u32; 3], *const Quad)> {
        c.meshes()
            .into_iter()
            .map(|m| (m.chunk, m.opaque.as_ptr()))
            .collect()
    };
    let before = buffers(&cache);
    // Bricks for stone in the floor: the same faces, other blocks. Every floor chunk and its
    // neighbours are rebuilt (more than the parallel threshold), into their own buffers.
    w.fill_box([0, 0, 0], [59, 4, 59], b(261)).unwrap();
    let rebuilt = cache.update(&w, &r);
    assert!(rebuilt.len() >= 32, "the parallel path was not taken");
    assert_eq!(buffers(&cache), before, "parallel rebuild");
    // One cell (the serial path).
    w.set_block([5, 2, 5], b(35)).unwrap();
    assert!(!cache.update(&w, &r).is_empty());
    assert_eq!(buffers(&cache), before, "serial rebuild");
    let cached: Vec<_> = cache.meshes().into_iter().cloned().collect();
    assert_eq!(cached, mesh_world(&w, &r, MeshOptions::EXPOSED).chunks);
}

#[test]
fn plate_rotation_is_applied() {
    let mut w = world(1);
    w.set_block([3, 0, 3], b(379)).unwrap();
    w.set_block([5, 0, 5], b(379)).unwrap();
    w.set_plate_rotation([5, 0, 5], true).unwrap();
    w.set_plate_rotation([3, 0, 3], false).unwrap();
    let m = mesh_world(&w, &Registry::default(), MeshOptions::GREEDY);
    let rot: Vec<bool> = m.chunks[0].special.iter().map(|s| s.rotated).collect();
    assert_eq!(rot, [false, true]);
}

/// Chunks whose padded 12³ neighbourhood contains a changed cell.
fn expected_rebuilds(changed: &BTreeSet<[i32; 3]>, n: u32) -> BTreeSet<[u32; 3]> {
    let mut out = BTreeSet::new();
    for cz in 0..n {
        for cy in 0..n {
            for cx in 0..n {
                let lo = [cx as i32 * 10 - 1, cy as i32 * 10 - 1, cz as i32 * 10 - 1];
                if changed
                    .iter()
                    .any(|c| (0..3).all(|a| c[a] >= lo[a] && c[a] <= lo[a] + 11))
                {
                    out.insert([cx, cy, cz]);
                }
            }
        }
    }
    out
}

#[test]
fn incremental_rebuild_equals_full_rebuild() {
    let r = Registry::default();
    for opts in [MeshOptions::GREEDY_AO, MeshOptions::EXPOSED] {
        for seed in 1..=4u64 {
            let mut w = random_world(seed, 3, 2500);
            let mut cache = MeshCache::new(opts);
            let first = cache.update(&w, &r);
            assert_eq!(first.len(), w.chunks().count());
            // Nothing changed: nothing rebuilt.
            assert!(cache.update(&w, &r).is_empty());
            let mut rng = Rng(seed * 31 + 7);
            for round in 0..6 {
                let mut changed = BTreeSet::new();
                let edits = 1 + rng.below(12);
                for _ in 0..edits {
                    let p = [
                        rng.below(30) as i32,
                        rng.below(30) as i32,
                        rng.below(30) as i32,
                    ];
                    // Bias edits towards chunk borders.
                    let p = p.map(|c| {
                        if rng.below(3) == 0 {
                            (c / 10) * 10 + 9 * (c % 2)
                        } else {
                            c
                        }
                    });
                    let t = [0u16, 35, 92, 261, 378][rng.below(5) as usize];
                    let old = w.get_block([p[0], p[1], p[2]]);
                    w.set_block([p[0], p[1], p[2]], b(t)).unwrap();
                    if old != b(t) {
                        changed.insert(p);
                    }
                }
                let rebuilt: BTreeSet<[u32; 3]> = cache.update(&w, &r).into_iter().collect();
                let full = mesh_world(&w, &r, opts);
                let cached: Vec<_> = cache.meshes().into_iter().cloned().collect();
                assert_eq!(cached, full.chunks, "seed {seed} round {round}");
                if opts.ao {
                    let expected: BTreeSet<[u32; 3]> = expected_rebuilds(&changed, 3)
                        .into_iter()
                        .filter(|c| w.chunk([c[0], c[1], c[2]]).is_some())
                        .collect();
                    assert_eq!(rebuilt, expected, "seed {seed} round {round}");
                } else {
                    assert!(rebuilt.is_subset(&expected_rebuilds(&changed, 3)));
                    // Without AO only face neighbours can be affected.
                    for c in &rebuilt {
                        let touches = changed.iter().any(|p| {
                            let lo = [c[0] as i32 * 10, c[1] as i32 * 10, c[2] as i32 * 10];
                            let outside: Vec<usize> = (0..3)
                                .filter(|&a| p[a] < lo[a] || p[a] > lo[a] + 9)
                                .collect();
                            outside.len() <= 1
                                && (0..3).all(|a| p[a] >= lo[a] - 1 && p[a] <= lo[a] + 10)
                        });
                        assert!(touches, "rebuilt {c:?} needlessly");
                    }
                }
            }
        }
    }
}

#[test]
fn cache_handles_removed_chunks_and_metadata_only_edits() {
    let r = Registry::default();
    let mut w = world(2);
    w.set_chunk([0, 0, 0], vwr::Chunk::uniform(b(35))).unwrap();
    w.set_block([15, 5, 5], b(35)).unwrap();
    let mut cache = MeshCache::new(MeshOptions::GREEDY);
    cache.update(&w, &r);
    assert_eq!(cache.meshes().len(), 2);
    // A MoveObject edit marks the chunk dirty but changes no block.
    w.place_move_object(&vwr::MoveObject::new(7, [15.0, 6.0, 5.0]))
        .unwrap();
    assert!(cache.update(&w, &r).is_empty());
    w.take_chunk([0, 0, 0]);
    let rebuilt = cache.update(&w, &r);
    assert_eq!(rebuilt, vec![[0, 0, 0], [1, 0, 0]]);
    assert_eq!(cache.meshes().len(), 1);
    assert_eq!(cache.meshes()[0].chunk, [1, 0, 0]);
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
            for ao in [false, true] {
                let e = mesh_world(&w, &r, MeshOptions { greedy: false, ao });
                let g = mesh_world(&w, &r, MeshOptions { greedy: true, ao });
                prop_assert_eq!(face_set(&e), face_set(&g));
            }
            let e = mesh_world(&w, &r, MeshOptions::EXPOSED);
            prop_assert_eq!(face_set(&e), reference_faces(&w, &r));
        }
    }
}

#[test]
fn cache_reads_the_world_only_and_follows_replaced_chunks() {
    let r = Registry::default();
    let mut w = world(2);
    w.fill_box([0, 0, 0], [19, 3, 19], b(35)).unwrap();
    w.set_block([5, 4, 5], b(261)).unwrap();
    let mut cache = MeshCache::new(MeshOptions::GREEDY_AO);
    cache.update(&w, &r);
    // The dirty flags belong to the saving code: meshing leaves them set.
    assert!(w.chunks().all(|(_, c)| c.is_dirty()));
    // A chunk replaced by one with other blocks is rebuilt, with its neighbours across the
    // border it changed.
    let before = w.clone();
    w.set_chunk([0, 0, 0], vwr::Chunk::uniform(b(35))).unwrap();
    let rebuilt = cache.update(&w, &r);
    assert_eq!(rebuilt, vec![[0, 0, 0], [1, 0, 0], [0, 0, 1], [1, 0, 1]]);
    let full = mesh_world(&w, &r, MeshOptions::GREEDY_AO);
    assert_eq!(
        cache.meshes().into_iter().cloned().collect::<Vec<_>>(),
        full.chunks
    );
    // Going back to another world value (say, an undo that swapped whole worlds) works too.
    cache.update(&before, &r);
    let full = mesh_world(&before, &r, MeshOptions::GREEDY_AO);
    assert_eq!(
        cache.meshes().into_iter().cloned().collect::<Vec<_>>(),
        full.chunks
    );
    // A world read back from its bytes has the same blocks under new revisions: every chunk is
    // rebuilt, to the same meshes.
    let back = World::from_bytes(&before.to_bytes()).unwrap();
    let rebuilt = cache.update(&back, &r);
    assert_eq!(rebuilt.len(), back.chunks().count());
    assert_eq!(
        cache.meshes().into_iter().cloned().collect::<Vec<_>>(),
        full.chunks
    );
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
        let e = mesh_world(w, r, MeshOptions { greedy: false, ao });
        let g = mesh_world(w, r, MeshOptions { greedy: true, ao });
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
