//! The plugin headless (Bevy's `MinimalPlugins` and asset plugin, no window, no GPU): every
//! golden world loads with the chunks, quads, objects, spawn and sky region the library's own
//! reader and mesher give, each chunk's meshes as labeled sub-assets with the library's vertex
//! and index counts; a `.vwr.meta` file sets one world's meshing; a broken file is refused with
//! the reader's message.

use std::time::Duration;

use bevy::asset::{Assets, Handle};
use bevy::mesh::{Mesh, VertexAttributeValues};
use bevy_voxcaf::{headless_app, load_now, LoadFailure, VoxWorld, VwrLoaderSettings};
use vwr_blocks::Registry;
use vwr_mesh::{mesh_world, MeshBuffers, MeshOptions, MeshPart};

const WAIT: Duration = Duration::from_secs(120);

/// The golden worlds, relative to the golden `vwr` folder.
fn golden_worlds() -> Option<(std::path::PathBuf, Vec<String>)> {
    let root = voxcaf_golden::with_worlds()?.join("vwr");
    let manifest = std::fs::read_to_string(root.join("manifest.tsv")).expect("manifest");
    let files = manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter(|f| f.ends_with(".vwr"))
        .map(str::to_string)
        .collect();
    Some((root, files))
}

/// Vertices and indices of a loaded mesh.
fn counts(meshes: &Assets<Mesh>, handle: Option<&Handle<Mesh>>) -> (usize, usize) {
    let Some(mesh) = handle.and_then(|h| meshes.get(h)) else {
        return (0, 0);
    };
    let positions = match mesh.attribute(Mesh::ATTRIBUTE_POSITION) {
        Some(VertexAttributeValues::Float32x3(p)) => p.len(),
        other => panic!("positions: {other:?}"),
    };
    (positions, mesh.indices().map_or(0, |i| i.len()))
}

fn part_counts(p: &MeshPart) -> (usize, usize) {
    (p.vertex_count(), p.indices.len())
}

#[test]
fn every_golden_world_loads_as_the_library_reads_and_meshes_it() {
    let Some((root, files)) = golden_worlds() else {
        return;
    };
    assert!(files.len() >= 100, "{} golden worlds", files.len());
    let mut app = headless_app(&root);
    let registry = Registry::default();
    let (mut loaded, mut refused) = (0, 0);
    for file in &files {
        let bytes = std::fs::read(root.join(file)).expect("golden world");
        let expected = vwr::World::from_bytes(&bytes);
        let got = load_now::<VoxWorld>(&mut app, file, WAIT);
        let (world, handle) = match (expected, got) {
            (Ok(w), Ok(h)) => (w, h),
            (Err(e), Err(LoadFailure::Failed { message, .. })) => {
                assert_eq!(message, e.to_string(), "{file}");
                refused += 1;
                continue;
            }
            (e, g) => panic!("{file}: library {:?}, plugin {g:?}", e.err()),
        };
        loaded += 1;
        let mesh = mesh_world(&world, &registry, MeshOptions::GREEDY_AO);
        let worlds = app.world().resource::<Assets<VoxWorld>>();
        let meshes = app.world().resource::<Assets<Mesh>>();
        let w = worlds.get(&handle).expect("loaded world");
        assert_eq!(w.chunks.len(), mesh.chunks.len(), "{file}: chunks");
        assert_eq!(w.quad_count(), mesh.quad_count(), "{file}: quads");
        assert_eq!(w.objects, world.move_objects().expect("objects"), "{file}");
        assert_eq!(w.spawn, world.spawn(), "{file}");
        assert_eq!(w.sky_region, world.sky_region(), "{file}");
        assert_eq!(w.block_dims, world.block_dims(), "{file}");
        for (c, m) in w.chunks.iter().zip(&mesh.chunks) {
            assert_eq!(c.chunk, m.chunk, "{file}");
            assert_eq!(c.special_cells, m.special.len(), "{file}");
            let b = MeshBuffers::from_chunk(m, &registry);
            let at = format!("{file}: chunk {:?}", c.chunk);
            assert_eq!(
                counts(meshes, c.opaque.as_ref()),
                part_counts(&b.opaque),
                "{at}"
            );
            assert_eq!(
                counts(meshes, c.transparent.as_ref()),
                part_counts(&b.transparent),
                "{at}"
            );
            assert_eq!(c.opaque.is_some(), !b.opaque.is_empty(), "{at}");
            assert_eq!(c.origin, c.chunk.map(|v| v as f32 * 10.0), "{at}");
        }
    }
    assert!(
        loaded >= 90,
        "{loaded} golden worlds loaded, {refused} refused"
    );
}

#[test]
fn a_chunk_mesh_is_an_ordinary_asset_path() {
    let Some((root, _)) = golden_worlds() else {
        return;
    };
    let file = "worlds3d/world001.vwr";
    let mut app = headless_app(&root);
    let world = load_now::<VoxWorld>(&mut app, file, WAIT).expect("world");
    let first = {
        let worlds = app.world().resource::<Assets<VoxWorld>>();
        let w = worlds.get(&world).expect("loaded");
        w.chunks
            .iter()
            .find(|c| c.opaque.is_some())
            .expect("a chunk with faces")
            .clone()
    };
    let [x, y, z] = first.chunk;
    let path = format!("{file}#chunk/{x}/{y}/{z}");
    let by_path = load_now::<Mesh>(&mut app, &path, WAIT).expect("chunk mesh by path");
    assert_eq!(Some(by_path.id()), first.opaque.as_ref().map(Handle::id));
    let err = load_now::<Mesh>(&mut app, &format!("{file}#chunk/999/0/0"), WAIT)
        .expect_err("no such chunk");
    assert!(err.to_string().contains("chunk/999/0/0"), "{err}");
}

#[test]
fn a_broken_world_is_refused_with_the_readers_message() {
    let Some((root, _)) = golden_worlds() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp");
    let good = std::fs::read(root.join("worlds3d/world001.vwr")).expect("golden");
    std::fs::write(dir.path().join("cut.vwr"), &good[..good.len() / 2]).expect("write");
    std::fs::write(dir.path().join("text.vwr"), b"not a world").expect("write");
    let mut app = headless_app(dir.path());
    for name in ["cut.vwr", "text.vwr"] {
        let expected = vwr::World::from_bytes(&std::fs::read(dir.path().join(name)).expect("r"))
            .expect_err("broken");
        match load_now::<VoxWorld>(&mut app, name, WAIT) {
            Err(LoadFailure::Failed { message, .. }) => {
                assert_eq!(message, expected.to_string(), "{name}")
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn a_meta_file_sets_the_meshing_of_one_world() {
    let Some((root, _)) = golden_worlds() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp");
    let bytes = std::fs::read(root.join("worlds3d/world001.vwr")).expect("golden");
    std::fs::write(dir.path().join("greedy.vwr"), &bytes).expect("write");
    std::fs::write(dir.path().join("faces.vwr"), &bytes).expect("write");
    let meta = VwrLoaderSettings {
        greedy: false,
        ao: false,
        ..VwrLoaderSettings::default()
    }
    .meta_file();
    std::fs::write(dir.path().join("faces.vwr.meta"), meta).expect("meta");
    let world = vwr::World::from_bytes(&bytes).expect("world");
    let registry = Registry::default();
    let mut app = headless_app(dir.path());
    for (name, opts) in [
        ("greedy.vwr", MeshOptions::GREEDY_AO),
        ("faces.vwr", MeshOptions::EXPOSED),
    ] {
        let h = load_now::<VoxWorld>(&mut app, name, WAIT).expect("load");
        let w = app.world().resource::<Assets<VoxWorld>>();
        let quads = w.get(&h).expect("loaded").quad_count();
        assert_eq!(
            quads,
            mesh_world(&world, &registry, opts).quad_count(),
            "{name}"
        );
    }
    let greedy = mesh_world(&world, &registry, MeshOptions::GREEDY_AO).quad_count();
    let faces = mesh_world(&world, &registry, MeshOptions::EXPOSED).quad_count();
    assert!(greedy < faces, "{greedy} greedy quads, {faces} faces");
}
