//! A world in the scene: an entity with [`VoxWorldRoot`] gets one child per chunk and pass,
//! each with the chunk's [`Mesh3d`] (in world block units, so the child sits at its parent's
//! origin: the root's [`Transform`] places the whole world), kept in step with the world
//! as chunks are re-meshed (a pass that appears gets its child, one that empties loses it).
//! A renderer adds the materials (see the `play` example): the children carry
//! [`VoxChunkPart`] to be found by.

use std::collections::HashMap;

use bevy::asset::{AssetEvent, Assets, Handle};
use bevy::ecs::message::MessageReader;
use bevy::mesh::Mesh3d;
use bevy::prelude::{ChildOf, Commands, Component, Entity, Query, Res, Transform, Without};

use crate::distant::VoxDistantView;
use crate::world::VoxWorld;

/// Spawns a [`VoxWorld`] as entities: put it on an entity (with its own [`Transform`] for
/// where the world sits; one block is one unit).
#[derive(Component, Clone, Debug)]
#[require(Transform, SpawnedChunks)]
pub struct VoxWorldRoot(pub Handle<VoxWorld>);

/// A child of a [`VoxWorldRoot`]: one pass of one chunk.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VoxChunkPart {
    /// Chunk coordinates.
    pub chunk: [u32; 3],
    /// The transparent pass (water, glass: draw it blended, after the opaque ones).
    pub transparent: bool,
}

/// The children a [`VoxWorldRoot`] has spawned, by chunk and pass.
#[derive(Component, Default, Debug)]
pub struct SpawnedChunks(HashMap<VoxChunkPart, (Entity, Handle<bevy::mesh::Mesh>)>);

impl SpawnedChunks {
    /// How many chunk passes are spawned.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True before the world has loaded, or when it shows nothing.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Despawns every chunk child (a [`crate::VoxDistantView`] draws the root instead).
    pub(crate) fn despawn_all(&mut self, commands: &mut Commands) {
        for (e, _) in self.0.drain().map(|(_, v)| v) {
            commands.entity(e).despawn();
        }
    }
}

/// Brings the children of every [`VoxWorldRoot`] in line with its world: when the world
/// loads or changes, and when the root is new. Roots with a [`VoxDistantView`] are drawn by
/// [`crate::distant::update_distant_views`] instead.
pub fn spawn_world_chunks(
    mut commands: Commands,
    mut events: MessageReader<AssetEvent<VoxWorld>>,
    worlds: Res<Assets<VoxWorld>>,
    mut roots: Query<(Entity, &VoxWorldRoot, &mut SpawnedChunks), Without<VoxDistantView>>,
) {
    let touched: Vec<_> = events
        .read()
        .filter_map(|e| match e {
            AssetEvent::Added { id }
            | AssetEvent::Modified { id }
            | AssetEvent::LoadedWithDependencies { id } => Some(*id),
            _ => None,
        })
        .collect();
    for (root, handle, mut spawned) in &mut roots {
        let fresh = spawned.0.is_empty();
        if !fresh && !touched.contains(&handle.0.id()) {
            continue;
        }
        let Some(world) = worlds.get(&handle.0) else {
            continue;
        };
        let mut want = HashMap::new();
        for c in &world.chunks {
            for (transparent, h) in [(false, &c.opaque), (true, &c.transparent)] {
                if let Some(h) = h {
                    let part = VoxChunkPart {
                        chunk: c.chunk,
                        transparent,
                    };
                    want.insert(part, h.clone());
                }
            }
        }
        spawned.0.retain(|part, (e, h)| {
            let keep = want.get(part).is_some_and(|w| w == h);
            if !keep {
                commands.entity(*e).despawn();
            }
            keep
        });
        for (part, h) in want {
            if spawned.0.contains_key(&part) {
                continue;
            }
            let e = commands
                .spawn((part, Mesh3d(h.clone()), Transform::IDENTITY, ChildOf(root)))
                .id();
            spawned.0.insert(part, (e, h));
        }
    }
}
