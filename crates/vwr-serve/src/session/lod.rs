//! Levels of detail of the world as edited, for `GET /api/lod`: the page draws far regions
//! from them.
//!
//! Level k (`vwr::lod`) is a world of cells 2^k blocks wide. The session builds levels
//! 1..=k in memory the first time level k is asked for, meshes their chunks **closed**
//! (`vwr_mesh::lod::mesh_chunk_closed`: every border plane closed, so a chunk's surface is
//! closed by itself and no crack shows where it meets a chunk of another level), and keeps
//! both up to date: each edit's changed level-0 chunks are noted ([`Lod::note`]) and, on
//! the next request, `vwr::lod::update_levels` rebuilds only their ancestors; the level
//! chunks whose content changed are meshed again and stamped with the session's epoch, so
//! that `since` answers only them, as `GET /api/chunks` does.

use std::collections::HashMap;

use vwr::World;
use vwr_blocks::Registry;
use vwr_mesh::lod::{mesh_chunk_closed, mesh_level, CLOSED};
use vwr_mesh::ChunkMesh;

use super::{mesh_options, Session};
use crate::error::{Result, ServeError};
use crate::wire;

/// The coarsest level `GET /api/lod` serves: a level-3 chunk covers 80 blocks a side, one
/// region of the page.
pub const LOD_MAX_LEVEL: u8 = 3;

/// One level's chunks: their closed meshes (non-empty ones) and the epoch at which each
/// chunk's mesh last changed.
#[derive(Debug, Default)]
struct Meshes {
    meshes: HashMap<[u32; 3], ChunkMesh>,
    versions: HashMap<[u32; 3], u32>,
}

impl Meshes {
    /// The meshes of `world`, level `k`, every chunk stamped `epoch`; `old` (the meshes
    /// these replace) has its chunks stamped too, so that a page holding them drops them.
    fn build(world: &World, k: u8, registry: &Registry, epoch: u32, old: Option<Meshes>) -> Meshes {
        let meshes: HashMap<[u32; 3], ChunkMesh> = mesh_level(world, k, registry, mesh_options())
            .chunks
            .into_iter()
            .map(|m| (m.chunk, m))
            .collect();
        let mut versions = old.map(|l| l.versions).unwrap_or_default();
        versions.values_mut().for_each(|v| *v = epoch);
        versions.extend(meshes.keys().map(|p| (*p, epoch)));
        Meshes { meshes, versions }
    }
}

/// The session's levels of detail (built lazily, see the module doc).
#[derive(Debug, Default)]
pub(crate) struct Lod {
    /// Levels 1.. as built so far.
    worlds: Vec<World>,
    /// Their meshes, level 1 first.
    levels: Vec<Meshes>,
    /// The level-0 chunk grid they were built for.
    dims: [u32; 3],
    /// Level-0 chunks changed since the levels were last brought up to date.
    pending: Vec<[u32; 3]>,
}

impl Lod {
    /// Notes level-0 chunks an edit changed (nothing to do while no level is built).
    pub(crate) fn note(&mut self, changed: &[[u32; 3]]) {
        if !self.levels.is_empty() {
            self.pending.extend_from_slice(changed);
            self.pending.sort_unstable();
            self.pending.dedup();
        }
    }

    /// Brings levels 1..=`k` of `world` up to date, stamping what changed with `epoch`.
    fn update(&mut self, world: &World, k: u8, registry: &Registry, epoch: u32) -> Result<()> {
        if world.chunk_dims() != self.dims {
            // A world of another size (reloaded, recovered): everything again.
            let n = k.max(self.levels.len() as u8);
            let mut old = std::mem::take(&mut self.levels).into_iter();
            self.dims = world.chunk_dims();
            self.pending.clear();
            self.worlds.clear();
            for _ in 0..n {
                self.push_level(world, registry, epoch, old.next())?;
            }
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let changed =
            vwr::lod::update_levels(world, &mut self.worlds, &pending).map_err(lod_error)?;
        for ((l, k), list) in self.levels.iter_mut().zip(1u8..).zip(changed) {
            let w = &self.worlds[usize::from(k) - 1];
            for p in list {
                let m = mesh_chunk_closed(w, registry, p, k, CLOSED, mesh_options());
                match m.is_empty() {
                    true => l.meshes.remove(&p),
                    false => l.meshes.insert(p, m),
                };
                l.versions.insert(p, epoch);
            }
        }
        // Levels not built yet, each from the one below.
        while self.levels.len() < usize::from(k) {
            self.push_level(world, registry, epoch, None)?;
        }
        Ok(())
    }

    /// Builds and meshes the level above the coarsest held (of `world` when none is), its
    /// chunks stamped `epoch` (and those of `old`, the meshes it replaces).
    fn push_level(
        &mut self,
        world: &World,
        registry: &Registry,
        epoch: u32,
        old: Option<Meshes>,
    ) -> Result<()> {
        let below = self.worlds.last().unwrap_or(world);
        let next = vwr::lod::build_next(below).map_err(lod_error)?;
        let level = self.levels.len() as u8 + 1;
        self.levels
            .push(Meshes::build(&next, level, registry, epoch, old));
        self.worlds.push(next);
        Ok(())
    }
}

/// A level that could not be built (a world too big for its grid of chunks).
fn lod_error(e: vwr::VwrError) -> ServeError {
    ServeError::Refused {
        message: format!("levels of detail: {e}"),
    }
}

/// The level `GET /api/lod` was asked for, checked: 1..=[`LOD_MAX_LEVEL`].
pub(crate) fn parse_level(level: Option<&str>) -> Result<u8> {
    let text = level.ok_or_else(|| bad_level("no level given".into()))?;
    let k: u64 = text
        .trim()
        .parse()
        .map_err(|_| bad_level(format!("level {text:?} is not a number")))?;
    check_level(k)
}

/// `k` if it is a level `GET /api/lod` serves.
fn check_level(k: u64) -> Result<u8> {
    match u8::try_from(k) {
        Ok(k) if (1..=LOD_MAX_LEVEL).contains(&k) => Ok(k),
        _ => Err(bad_level(format!("there is no level of detail {k}"))),
    }
}

fn bad_level(what: String) -> ServeError {
    ServeError::LodLevel {
        message: format!("{what}: ask for a level of detail from 1 to {LOD_MAX_LEVEL} (level=K)"),
    }
}

impl Session {
    /// The binary chunk answer (see [`crate::wire`]: chunk flag bits 8–11 give the level) of
    /// the closed meshes of level `level` (1..=[`LOD_MAX_LEVEL`]) that changed after `since`
    /// (0: every non-empty one), the levels built or brought up to date first. A chunk listed
    /// without passes became empty.
    pub fn lod_since(&mut self, level: u8, since: u32) -> Result<Vec<u8>> {
        check_level(level.into())?;
        self.update_meshes();
        let world = self.editor.world();
        self.lod.update(world, level, self.registry, self.epoch)?;
        let l = &self.lod.levels[usize::from(level) - 1];
        let mut list: Vec<[u32; 3]> = l
            .versions
            .iter()
            .filter(|(p, v)| **v > since && (since > 0 || l.meshes.contains_key(*p)))
            .map(|(p, _)| *p)
            .collect();
        list.sort_by_key(|p| [p[2], p[1], p[0]]);
        let chunks: Vec<_> = list.iter().map(|p| (*p, l.meshes.get(p))).collect();
        Ok(wire::lod_answer(self.epoch, level, &chunks, self.registry))
    }
}
