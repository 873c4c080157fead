//! A game changing its world: [`VoxWorld::edit`] notes the chunks whose blocks changed, the
//! plugin re-meshes them and their neighbours in the next update (the meshes the library
//! gives for the edited world), and the [`VoxWorldRoot`] entity's children follow.

use std::time::Duration;

use bevy::asset::{Assets, Handle};
use bevy::ecs::message::Messages;
use bevy::math::Vec3;
use bevy::mesh::Mesh3d;
use bevy::mesh::{Mesh, VertexAttributeValues};
use bevy::prelude::Transform;
use bevy_voxcaf::{
    headless_app, load_now, ChunksRemeshed, SpawnedChunks, VoxChunkPart, VoxWorld, VoxWorldRoot,
};
use vwr::{Block, World};
use vwr_blocks::Registry;
use vwr_mesh::{mesh_chunk, MeshBuffers};

fn vertices(meshes: &Assets<Mesh>, h: Option<&Handle<Mesh>>) -> usize {
    match h
        .and_then(|h| meshes.get(h))
        .map(|m| m.attribute(Mesh::ATTRIBUTE_POSITION))
    {
        Some(Some(VertexAttributeValues::Float32x3(p))) => p.len(),
        _ => 0,
    }
}

/// Checks that each chunk child draws its chunk where the chunk is (its mesh and transform
/// together put every vertex inside the chunk's box of the world); how many there are.
fn placed_parts(app: &mut bevy::app::App) -> usize {
    let mut parts = app
        .world_mut()
        .query::<(&VoxChunkPart, &Mesh3d, &Transform)>();
    let meshes = app.world().resource::<Assets<Mesh>>();
    let mut placed = 0;
    for (part, mesh, at) in parts.iter(app.world()) {
        let corner = Vec3::from_array(part.chunk.map(|c| c as f32 * 10.0));
        let Some(VertexAttributeValues::Float32x3(p)) = meshes
            .get(&mesh.0)
            .and_then(|m| m.attribute(Mesh::ATTRIBUTE_POSITION))
        else {
            panic!("no positions");
        };
        for v in p {
            let w = at.transform_point(Vec3::from_array(*v)) - corner;
            assert!(
                w.min_element() >= -1e-4 && w.max_element() <= 10.0 + 1e-4,
                "{part:?}: {w}"
            );
        }
        placed += 1;
    }
    placed
}

#[test]
fn edited_chunks_and_their_neighbours_are_remeshed_and_respawned() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = World::with_chunk_dims([3, 2, 3]).unwrap();
    w.fill_box([0, 0, 0], [29, 1, 29], Block(35 << 4)).unwrap();
    w.save_with(
        dir.path().join("level.vwr"),
        &vwr::SaveOptions::v3(vwr::Codec::Auto),
    )
    .unwrap();
    let mut app = headless_app(dir.path());
    let h = load_now::<VoxWorld>(&mut app, "level.vwr", Duration::from_secs(30)).unwrap();
    let root = app.world_mut().spawn(VoxWorldRoot(h.clone())).id();
    app.update();
    assert_eq!(app.world().get::<SpawnedChunks>(root).unwrap().len(), 9);
    assert_eq!(placed_parts(&mut app), 9);

    // Dig a hole on the border of chunks (0,0,0) and (1,0,0), and build in an empty chunk.
    let mut worlds = app.world_mut().resource_mut::<Assets<VoxWorld>>();
    let mut vw = worlds.get_mut(&h).unwrap();
    vw.edit(|w| {
        w.set_block([9, 1, 4], Block::AIR).unwrap();
        w.set_block([5, 15, 5], Block(35 << 4)).unwrap();
    });
    assert_eq!(
        vw.changed_chunks().collect::<Vec<_>>(),
        [[0, 0, 0], [0, 1, 0]]
    );
    drop(vw);
    let mut cursor = app
        .world()
        .resource::<Messages<ChunksRemeshed>>()
        .get_cursor_current();
    app.update();
    let msgs = app.world().resource::<Messages<ChunksRemeshed>>();
    let m: Vec<&ChunksRemeshed> = cursor.read(msgs).collect();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].changed, [[0, 0, 0], [0, 1, 0]]);
    // Neighbours within the world (2 chunks high): x, y and z in 0..=1 for both.
    assert_eq!(m[0].remeshed.len(), 8, "{:?}", m[0].remeshed);

    // Every chunk's meshes are the library's for the edited world.
    let worlds = app.world().resource::<Assets<VoxWorld>>();
    let meshes = app.world().resource::<Assets<Mesh>>();
    let vw = worlds.get(&h).unwrap();
    let registry = Registry::default();
    assert_eq!(vw.chunks.len(), 10);
    // Still in the order vwr-mesh meshes a world (file order: z, then y, then x), the new
    // chunk in its place.
    let order: Vec<[u32; 3]> = vw.chunks.iter().map(|c| c.chunk).collect();
    let meshed: Vec<[u32; 3]> = vwr_mesh::mesh_world(vw.world(), &registry, vw.mesh_options())
        .chunks
        .iter()
        .map(|c| c.chunk)
        .collect();
    assert_eq!(order, meshed);
    for c in &vw.chunks {
        let lib = mesh_chunk(vw.world(), &registry, c.chunk, vw.mesh_options());
        let b = MeshBuffers::from_chunk(&lib, &registry);
        assert_eq!(
            vertices(meshes, c.opaque.as_ref()),
            b.opaque.vertex_count(),
            "{:?}",
            c.chunk
        );
        assert_eq!(c.quads, lib.quad_count(), "{:?}", c.chunk);
    }
    app.update();
    assert_eq!(app.world().get::<SpawnedChunks>(root).unwrap().len(), 10);

    // Emptied again: the chunk and its entity go.
    let mut worlds = app.world_mut().resource_mut::<Assets<VoxWorld>>();
    worlds
        .get_mut(&h)
        .unwrap()
        .edit(|w| w.set_block([5, 15, 5], Block::AIR).unwrap());
    app.update();
    app.update();
    assert_eq!(app.world().get::<SpawnedChunks>(root).unwrap().len(), 9);
    assert_eq!(placed_parts(&mut app), 9);
}

/// An edit of records and header fields alone: the world's fields follow it, and no chunk is
/// re-meshed.
#[test]
fn an_edit_of_records_and_fields_updates_the_world_fields() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = World::with_chunk_dims([2, 2, 2]).unwrap();
    w.fill_box([0, 0, 0], [19, 1, 19], Block(35 << 4)).unwrap();
    w.place_big_decor([2, 2, 2], 4).unwrap();
    w.save(dir.path().join("level.vwr")).unwrap();
    let mut app = headless_app(dir.path());
    let h = load_now::<VoxWorld>(&mut app, "level.vwr", Duration::from_secs(30)).unwrap();
    let mut worlds = app.world_mut().resource_mut::<Assets<VoxWorld>>();
    let mut vw = worlds.get_mut(&h).unwrap();
    assert_eq!(vw.decors, [([2, 2, 2], 4)]);
    assert_eq!(
        (vw.objects.len(), vw.spawn, vw.sky_region, vw.mission),
        (0, None, 0, 0)
    );
    vw.edit(|w| {
        w.remove_big_decor([2, 2, 2]);
        w.place_big_decor([12, 2, 3], 9).unwrap();
        w.place_move_object(&vwr::MoveObject::new(1, [5.5, 2.0, 5.5]))
            .unwrap();
        w.set_spawn([7, 2, 7]).unwrap();
        w.set_sky_region(3);
        w.set_mission_number(12);
    });
    assert_eq!(vw.decors, [([12, 2, 3], 9)]);
    assert_eq!(vw.objects.len(), 1);
    assert_eq!(vw.objects[0].0, [5, 2, 5]);
    assert_eq!(
        (vw.spawn, vw.sky_region, vw.mission),
        (Some([7, 2, 7]), 3, 12)
    );
    assert_eq!(vw.changed_chunks().count(), 0, "records change no mesh");
}
