//! Whole-world meshing on threads and into previous meshes, and the incremental cache.

use super::*;

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
