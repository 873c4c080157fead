//! Changing a loaded world: [`VoxWorld::edit`] notes the chunks whose blocks changed, and
//! [`remesh_changed`] (a system [`crate::VoxcafPlugin`] runs every update) re-meshes them and
//! their neighbours, updating the chunks' mesh assets in place.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use bevy::asset::{AssetId, Assets};
use bevy::ecs::message::{Message, MessageWriter};
use bevy::ecs::system::{Res, ResMut};
use bevy::mesh::Mesh;
use bevy::prelude::Resource;
use vwr::World;
use vwr_blocks::Registry;
use vwr_mesh::mesh_chunk;

use crate::world::{chunk_parts, VoxChunk, VoxWorld};

/// The block registry worlds are meshed with (the [`crate::VoxcafPlugin`]'s).
#[derive(Resource, Clone)]
pub struct VoxRegistry(pub Arc<Registry>);

/// Sent after [`remesh_changed`] re-meshed chunks of a world: which ones.
#[derive(Message, Debug, Clone)]
pub struct ChunksRemeshed {
    /// The world.
    pub world: AssetId<VoxWorld>,
    /// The chunks whose blocks changed.
    pub changed: Vec<[u32; 3]>,
    /// Every chunk meshed again: the changed ones and their neighbours (a face or an
    /// ambient-occlusion corner on a chunk's border depends on the next chunk's blocks).
    pub remeshed: Vec<[u32; 3]>,
}

impl VoxWorld {
    /// The world's blocks and records as they are now.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Changes the world through `f` and notes every chunk whose blocks changed (appeared,
    /// changed or vanished): the next [`remesh_changed`] meshes them again. The world's fields
    /// ([`VoxWorld::objects`], `decors`, `spawn`, `sky_region`, `mission`) are read again
    /// from what `f` left. Costs a look at each allocated chunk's revision before and after,
    /// and at its records, whatever `f` did.
    pub fn edit<R>(&mut self, f: impl FnOnce(&mut World) -> R) -> R {
        let before: HashMap<[u32; 3], u64> = self
            .world
            .chunks()
            .map(|(p, c)| (p, c.blocks_revision()))
            .collect();
        let r = f(&mut self.world);
        let mut seen = 0;
        for (p, c) in self.world.chunks() {
            match before.get(&p) {
                Some(rev) => {
                    seen += 1;
                    if *rev != c.blocks_revision() {
                        self.dirty.insert(p);
                    }
                }
                None => {
                    self.dirty.insert(p);
                }
            }
        }
        if seen < before.len() {
            let gone = before.keys().filter(|p| self.world.chunk(**p).is_none());
            self.dirty.extend(gone);
        }
        self.read_fields();
        r
    }

    /// Reads the world's records and header fields into [`VoxWorld::objects`], `decors`,
    /// `spawn`, `sky_region` and `mission` (records that do not decode leave their list empty,
    /// with a warning).
    pub(crate) fn read_fields(&mut self) {
        let w = &self.world;
        self.objects = w.move_objects().unwrap_or_else(|e| {
            tracing::warn!("the world's moving objects: {e}");
            Vec::new()
        });
        self.decors = w.big_decors().unwrap_or_else(|e| {
            tracing::warn!("the world's big decorations: {e}");
            Vec::new()
        });
        self.spawn = w.spawn();
        self.sky_region = w.sky_region();
        self.mission = w.mission_number();
    }

    /// The chunks changed since they were last meshed.
    pub fn changed_chunks(&self) -> impl Iterator<Item = [u32; 3]> + '_ {
        self.dirty.iter().copied()
    }

    /// Meshes the changed chunks and their 26 neighbours again, replacing their mesh assets
    /// in `meshes` (a pass that appears gets a new asset, one that empties is removed), and
    /// returns (changed, re-meshed). A world loaded without chunk meshes
    /// ([`crate::VwrLoaderSettings::chunk_meshes`]) gets none: only the lists are returned.
    pub fn remesh(
        &mut self,
        meshes: &mut Assets<Mesh>,
        registry: &Registry,
    ) -> (Vec<[u32; 3]>, Vec<[u32; 3]>) {
        let changed: Vec<[u32; 3]> = std::mem::take(&mut self.dirty).into_iter().collect();
        let dims = self.world.chunk_dims();
        let mut around = BTreeSet::new();
        for p in &changed {
            for d in neighbourhood() {
                let q = [0, 1, 2].map(|k| p[k].checked_add_signed(d[k]));
                if let [Some(x), Some(y), Some(z)] = q {
                    if x < dims[0] && y < dims[1] && z < dims[2] {
                        around.insert([x, y, z]);
                    }
                }
            }
        }
        if !self.settings.chunk_meshes {
            // Nothing meshed here: a distant view meshes what it draws.
            return (changed, around.into_iter().collect());
        }
        let opts = self.settings.mesh_options();
        let mut emptied = Vec::new();
        for &p in &around {
            let m = mesh_chunk(&self.world, registry, p, opts);
            let parts = chunk_parts(&m, registry, opts.ao);
            // The chunks stay in file order: a new one goes in its place.
            let slot = match self.chunk_index(p) {
                Ok(i) => &mut self.chunks[i],
                Err(_) if parts.opaque.is_none() && parts.transparent.is_none() => continue,
                Err(i) => {
                    self.chunks.insert(i, parts.chunk.clone());
                    &mut self.chunks[i]
                }
            };
            replace(meshes, &mut slot.opaque, parts.opaque);
            replace(meshes, &mut slot.transparent, parts.transparent);
            slot.quads = parts.chunk.quads;
            slot.special_cells = parts.chunk.special_cells;
            if slot.opaque.is_none() && slot.transparent.is_none() {
                emptied.push(p);
            }
        }
        if !emptied.is_empty() {
            self.chunks
                .retain(|c: &VoxChunk| !emptied.contains(&c.chunk));
        }
        (changed, around.into_iter().collect())
    }
}

/// The 27 offsets of a chunk's neighbourhood (itself included).
fn neighbourhood() -> impl Iterator<Item = [i32; 3]> {
    (-1..=1).flat_map(|z| (-1..=1).flat_map(move |y| (-1..=1).map(move |x| [x, y, z])))
}

/// Puts `new` in the place of the asset `slot` names: in place when both exist.
fn replace(
    meshes: &mut Assets<Mesh>,
    slot: &mut Option<bevy::asset::Handle<Mesh>>,
    new: Option<Mesh>,
) {
    match (slot.as_ref(), new) {
        // Replaced in place: entities drawing it keep their handle.
        (Some(h), Some(m)) if meshes.contains(h.id()) => {
            let _ = meshes.insert(h.id(), m);
        }
        (_, Some(m)) => *slot = Some(meshes.add(m)),
        (Some(h), None) => {
            meshes.remove(h.id());
            *slot = None;
        }
        (None, None) => {}
    }
}

/// Re-meshes the changed chunks of every loaded [`VoxWorld`] (see [`VoxWorld::edit`]) and
/// says which in a [`ChunksRemeshed`] message.
pub fn remesh_changed(
    mut worlds: ResMut<Assets<VoxWorld>>,
    mut meshes: ResMut<Assets<Mesh>>,
    registry: Res<VoxRegistry>,
    mut out: MessageWriter<ChunksRemeshed>,
) {
    let ids: Vec<AssetId<VoxWorld>> = worlds
        .iter()
        .filter(|(_, w)| !w.dirty.is_empty())
        .map(|(id, _)| id)
        .collect();
    for id in ids {
        if let Some(mut w) = worlds.get_mut(id) {
            let (changed, remeshed) = w.remesh(&mut meshes, &registry.0);
            out.write(ChunksRemeshed {
                world: id,
                changed,
                remeshed,
            });
        }
    }
}
