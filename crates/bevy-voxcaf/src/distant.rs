//! Distant views: a [`VoxWorldRoot`] that also has a [`VoxDistantView`] draws each region of
//! its world at the coarsest level of detail whose cells, seen from a viewer entity (the
//! camera), span at most about a pixel, instead of every chunk of blocks.
//!
//! The levels are `vwr::lod`'s (a cell of level k covers 2^k blocks a side; air only where
//! all of them are), built from the loaded world when the view first needs them and brought
//! up to date after edits by rebuilding only the changed chunks' ancestors. The regions are
//! `vwr-mesh`'s [`plan_view_px`]: every region above level 0, and a level-0 chunk on the sides
//! where a coarser region meets it, is meshed closed, so no crack shows where levels meet.
//! Level-0 chunks with no coarser neighbour draw the world's own chunk meshes (the ones
//! [`crate::VoxChunkPart`] children would draw); a world loaded without them
//! ([`crate::VwrLoaderSettings::chunk_meshes`] off, for big worlds) has those meshed here too,
//! so only what the view draws is ever meshed.
//!
//! The view is planned again when the viewer has moved [`VoxDistantView::replan_distance`]
//! blocks, and after the world changed; region meshes are kept while their region stays in
//! the plan and dropped when it leaves it; a region re-meshed after an edit keeps its entity,
//! given the new mesh. Removing the view from the root despawns its regions, and the root's
//! chunk children come back.

use std::collections::{HashMap, HashSet};

use bevy::asset::{Assets, Handle};
use bevy::ecs::message::MessageReader;
use bevy::math::Vec3;
use bevy::mesh::{Mesh, Mesh3d};
use bevy::prelude::{
    ChildOf, Commands, Component, Entity, GlobalTransform, On, Query, Remove, Res, ResMut,
    Transform,
};
use vwr::World;
use vwr_mesh::lod::{mesh_regions, plan_view_px, Sides, ViewChunk};

use crate::remesh::{ChunksRemeshed, VoxRegistry};
use crate::spawn::{SpawnedChunks, VoxWorldRoot};
use crate::world::{chunk_parts, VoxWorld};

/// Draws a [`VoxWorldRoot`]'s far regions from levels of detail: put it on the root entity,
/// naming the entity whose position chooses the levels (the camera).
///
/// ```no_run
/// # use bevy_voxcaf::bevy::prelude::*;
/// # use bevy_voxcaf::{VoxDistantView, VoxWorld, VoxWorldRoot};
/// # fn setup(mut commands: Commands, server: Res<AssetServer>) {
/// let camera = commands.spawn(Transform::from_xyz(500.0, 120.0, -40.0)).id();
/// let world: Handle<VoxWorld> = server.load("big.vwr");
/// commands.spawn((VoxWorldRoot(world), VoxDistantView::new(camera)));
/// # }
/// ```
#[derive(Component, Clone, Debug)]
#[require(DistantRegions)]
pub struct VoxDistantView {
    /// The entity whose [`GlobalTransform`] is the point of view.
    pub viewer: Entity,
    /// Levels of detail used above the blocks, 0..=8 (default 3: cells up to 8 blocks).
    pub levels: u8,
    /// The view's width in pixels over its horizontal field of view in radians (default
    /// 1222: 1920 pixels at 90°).
    pub px_per_radian: f32,
    /// The largest a cell may look, in pixels (default 4: at 1920 pixels and 90°, level 1
    /// beyond 611 blocks, level 2 beyond 1222, level 3 beyond 2444; 1 changes nothing
    /// visible, but no level applies closer than 2444 blocks).
    pub max_cell_px: f32,
    /// How far, in blocks, the viewer moves before the view is planned again (default 10,
    /// a chunk).
    pub replan_distance: f32,
}

impl VoxDistantView {
    /// A view from `viewer` with the default settings.
    pub fn new(viewer: Entity) -> VoxDistantView {
        VoxDistantView {
            viewer,
            levels: 3,
            px_per_radian: 1222.0,
            max_cell_px: 4.0,
            replan_distance: 10.0,
        }
    }
}

/// A child of a [`VoxWorldRoot`] drawn by its [`VoxDistantView`]: one pass of one region.
/// Its mesh is in world block units, like a [`crate::VoxChunkPart`]'s.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VoxRegionPart {
    /// The level of detail (0: blocks).
    pub level: u8,
    /// The chunk's position in that level (a chunk of level k covers 10·2^k blocks a side).
    pub chunk: [u32; 3],
    /// Border planes meshed closed, in `vwr_mesh::Face::ALL` order.
    pub closed: Sides,
    /// The transparent pass.
    pub transparent: bool,
}

/// A region's identity in the plan: (level, chunk, closed sides).
type RegionKey = (u8, [u32; 3], Sides);

fn key(c: &ViewChunk) -> RegionKey {
    (c.level, c.chunk, c.closed)
}

/// What a [`VoxDistantView`] has built and drawn (added with it).
#[derive(Component, Default, Debug)]
pub struct DistantRegions {
    /// The load of the world the levels were built from.
    load: Option<u64>,
    /// Levels 1.. of the world.
    levels: Vec<World>,
    /// Where the viewer was (in the world's blocks) when the view was planned.
    planned_at: Option<Vec3>,
    /// The world changed since the view was planned.
    stale: bool,
    plan: Vec<ViewChunk>,
    /// Meshes of the regions that are not plain level-0 chunks (both passes; `None`: empty).
    meshes: HashMap<RegionKey, [Option<Handle<Mesh>>; 2]>,
    parts: HashMap<VoxRegionPart, (Entity, Handle<Mesh>)>,
    error: Option<String>,
}

impl DistantRegions {
    /// The regions of the current view (they cover the world's non-empty chunks once each),
    /// level-0 chunks first.
    pub fn regions(&self) -> &[ViewChunk] {
        &self.plan
    }

    /// How many regions of the current view each level has, from level 0 up.
    pub fn level_counts(&self) -> Vec<usize> {
        let mut n = vec![0; self.levels.len() + 1];
        for c in &self.plan {
            n[usize::from(c.level)] += 1;
        }
        n
    }

    /// How many region passes are spawned as children.
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// True before the first view, or when it shows nothing.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Why the levels or the regions could not be built, when they could not.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Builds the levels from `world` anew (a new view, another world or a reload).
    fn rebuild(&mut self, world: &VoxWorld, levels: u8) {
        self.meshes.clear();
        self.stale = true;
        self.load = Some(world.load_id);
        match vwr::lod::build_levels(world.world(), levels.min(vwr::lod::MAX_LOD_LEVELS)) {
            Ok(l) => {
                self.levels = l;
                self.error = None;
            }
            Err(e) => self.fail(format!("building the levels of detail: {e}")),
        }
    }

    /// Brings the levels up to date after `msg`'s chunks changed, and drops the region meshes
    /// that the change touched.
    fn apply(&mut self, world: &World, msg: &ChunksRemeshed) {
        self.stale = true;
        let per_level = match vwr::lod::update_levels(world, &mut self.levels, &msg.changed) {
            Ok(p) => p,
            Err(e) => return self.fail(format!("updating the levels of detail: {e}")),
        };
        let touched: HashSet<(u8, [u32; 3])> = (1..)
            .zip(&per_level)
            .flat_map(|(k, ps)| ps.iter().map(move |p| (k, *p)))
            // A level-0 region closed on some sides still reads its neighbours on the others.
            .chain(msg.remeshed.iter().map(|p| (0, *p)))
            .collect();
        self.meshes
            .retain(|(k, p, _), _| !touched.contains(&(*k, *p)));
    }

    fn fail(&mut self, message: String) {
        tracing::warn!("{message}");
        self.error = Some(message);
        // Built again from scratch at the next update.
        self.load = None;
    }

    /// Plans the view from `at` and meshes the regions it lacks; returns the passes to draw.
    fn replan(
        &mut self,
        world: &VoxWorld,
        view: &VoxDistantView,
        at: Vec3,
        meshes: &mut Assets<Mesh>,
        registry: &vwr_blocks::Registry,
    ) -> HashMap<VoxRegionPart, Handle<Mesh>> {
        let levels: Vec<&World> = std::iter::once(world.world()).chain(&self.levels).collect();
        let plan =
            plan_view_px(at.to_array(), &levels, view.px_per_radian, view.max_cell_px).chunks;
        // Plain level-0 chunks draw the world's own chunk meshes, when it has them.
        let own_meshes = world.settings.chunk_meshes;
        let plain = |c: &ViewChunk| own_meshes && c.level == 0 && c.closed == [false; 6];
        let missing: Vec<ViewChunk> = plan
            .iter()
            .filter(|c| !plain(c) && !self.meshes.contains_key(&key(c)))
            .copied()
            .collect();
        if !missing.is_empty() {
            let opts = world.mesh_options();
            match mesh_regions(&levels, &missing, registry, opts) {
                Ok(list) => {
                    for m in list {
                        let p = chunk_parts(&m, registry, opts.ao);
                        let pair = [p.opaque, p.transparent].map(|m| m.map(|m| meshes.add(m)));
                        self.meshes.insert((m.level, m.chunk, m.closed), pair);
                    }
                    for c in &missing {
                        self.meshes.entry(key(c)).or_default();
                    }
                }
                Err(e) => self.fail(format!("meshing the view: {e}")),
            }
        }
        let own = |i: usize| {
            let c = &world.chunks[i];
            [c.opaque.clone(), c.transparent.clone()]
        };
        let mut want = HashMap::new();
        for c in &plan {
            let pair = match plain(c) {
                true => world.chunk_index(c.chunk).ok().map(own),
                false => self.meshes.get(&key(c)).cloned(),
            };
            for (transparent, h) in [false, true].into_iter().zip(pair.into_iter().flatten()) {
                if let Some(h) = h {
                    let part = VoxRegionPart {
                        level: c.level,
                        chunk: c.chunk,
                        closed: c.closed,
                        transparent,
                    };
                    want.insert(part, h);
                }
            }
        }
        let in_plan: HashSet<RegionKey> = plan.iter().map(key).collect();
        self.meshes.retain(|k, _| in_plan.contains(k));
        self.plan = plan;
        self.planned_at = Some(at);
        self.stale = false;
        want
    }
}

/// When a root's [`VoxDistantView`] is removed, despawns its region children and forgets
/// what it built: the root's chunk children come back with the next update.
pub fn drop_distant_view(
    remove: On<Remove, VoxDistantView>,
    mut commands: Commands,
    mut states: Query<&mut DistantRegions>,
) {
    if let Ok(mut state) = states.get_mut(remove.entity) {
        for (e, _) in state.parts.drain().map(|(_, v)| v) {
            // The root may be going too, taking its children with it.
            commands.entity(e).try_despawn();
        }
        *state = DistantRegions::default();
    }
}

/// Keeps the regions of every [`VoxDistantView`] in step with its viewer and its world.
#[allow(clippy::type_complexity)]
pub fn update_distant_views(
    mut commands: Commands,
    mut remeshed: MessageReader<ChunksRemeshed>,
    worlds: Res<Assets<VoxWorld>>,
    mut meshes: ResMut<Assets<Mesh>>,
    registry: Res<VoxRegistry>,
    mut roots: Query<(
        Entity,
        &VoxWorldRoot,
        &VoxDistantView,
        &mut DistantRegions,
        &mut SpawnedChunks,
        &GlobalTransform,
    )>,
    viewers: Query<&GlobalTransform>,
) {
    let changes: Vec<&ChunksRemeshed> = remeshed.read().collect();
    for (root, handle, view, mut state, mut spawned, root_at) in &mut roots {
        // Chunk children from before the view was added give way to the regions.
        if !spawned.is_empty() {
            spawned.despawn_all(&mut commands);
        }
        let Some(world) = worlds.get(&handle.0) else {
            continue;
        };
        let state = &mut *state;
        let wanted = view.levels.min(vwr::lod::MAX_LOD_LEVELS);
        if state.load != Some(world.load_id) || state.levels.len() != usize::from(wanted) {
            state.rebuild(world, wanted);
        } else {
            for msg in changes.iter().filter(|m| m.world == handle.0.id()) {
                state.apply(world.world(), msg);
            }
        }
        if state.load.is_none() {
            continue;
        }
        let Ok(viewer) = viewers.get(view.viewer) else {
            continue;
        };
        let at = root_at
            .affine()
            .inverse()
            .transform_point3(viewer.translation());
        let near = |p: Vec3| p.distance(at) < view.replan_distance;
        if !state.stale && state.planned_at.is_some_and(near) {
            continue;
        }
        let mut want = state.replan(world, view, at, &mut meshes, &registry.0);
        // A part still wanted keeps its entity, given the new mesh if it was re-meshed.
        state.parts.retain(|part, (e, h)| match want.remove(part) {
            Some(new) => {
                if new != *h {
                    commands.entity(*e).insert(Mesh3d(new.clone()));
                    *h = new;
                }
                true
            }
            None => {
                commands.entity(*e).despawn();
                false
            }
        });
        for (part, h) in want {
            let e = commands
                .spawn((part, Mesh3d(h.clone()), Transform::IDENTITY, ChildOf(root)))
                .id();
            state.parts.insert(part, (e, h));
        }
    }
}
