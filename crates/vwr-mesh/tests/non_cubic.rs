//! Meshing, the mesh cache and every preview on non-cubic worlds (v3 sizes).

use vwr::{Block, World};
use vwr_blocks::default_registry;
use vwr_mesh::{
    mesh_chunk, mesh_world, mesh_world_serial, render_chunks, render_layer, render_world,
    MeshCache, MeshOptions, RenderOptions,
};

fn flat_world() -> World {
    // 60 × 20 × 30 blocks: x, y and z all differ.
    let mut w = World::with_chunk_dims([6, 2, 3]).unwrap();
    let stone = Block::make(35, 0).unwrap();
    w.fill_box([0, 0, 0], [59, 2, 29], stone).unwrap();
    w.fill_box([50, 3, 20], [59, 19, 29], Block::make(261, 0).unwrap())
        .unwrap();
    w.set_block([0, 19, 0], stone).unwrap();
    w
}

#[test]
fn whole_world_meshing_equals_chunk_by_chunk_on_a_non_cubic_world() {
    let w = flat_world();
    let r = default_registry();
    for opts in [
        MeshOptions::default(),
        MeshOptions {
            greedy: true,
            ..MeshOptions::default()
        },
        MeshOptions::GREEDY_AO_WATERTIGHT,
    ] {
        let par = mesh_world(&w, r, opts);
        let ser = mesh_world_serial(&w, r, opts);
        assert_eq!(par, ser);
        let by_chunk: Vec<_> = w
            .chunks()
            .map(|(p, _)| mesh_chunk(&w, r, p, opts))
            .filter(|m| !m.is_empty())
            .collect();
        assert_eq!(par.chunks, by_chunk);
        // The far corners are meshed: the block at (0, 19, 0) and the tower's top at z = 29.
        assert!(par.chunks.iter().any(|c| c.chunk == [0, 1, 0]));
        assert!(par.chunks.iter().any(|c| c.chunk == [5, 1, 2]));
    }
    let mut cache = MeshCache::new(MeshOptions::default());
    cache.update(&w, r);
    let mut w2 = w.clone();
    w2.set_block([59, 19, 29], Block::AIR).unwrap();
    let changed = cache.update(&w2, r);
    assert!(changed.contains(&[5, 1, 2]));
}

#[test]
fn previews_follow_the_world_shape() {
    let w = flat_world();
    let r = default_registry();
    let layer = render_layer(&w, r, 1, 1024).unwrap();
    // Wider than deep: 60 blocks along x, 30 along z.
    assert!(layer.image.width() > layer.image.height());
    assert!(
        render_layer(&w, r, 20, 1024).is_err(),
        "y is only 20 blocks"
    );
    assert!(render_layer(&w, r, 19, 1024).is_ok());
    let chunks = render_chunks(&w);
    assert!(chunks.covered > 0);
    let iso = render_world(&w, r, &RenderOptions::default()).unwrap();
    assert!(iso.triangles > 0 && iso.covered > 0);
}
