//! A mesh cache that rebuilds only what an edit can have changed.

use std::collections::{BTreeSet, HashMap};

use vwr::{Block, World, CHUNK_SIZE, CHUNK_VOLUME};

use crate::mesher::{mesh_chunk_with, ChunkMesh, MeshOptions, Mesher, Neighborhood};
use vwr_blocks::Registry;

/// What a chunk looked like when it was last meshed.
#[derive(Debug)]
struct Snapshot {
    blocks: Box<[Block; CHUNK_VOLUME]>,
    plates: Vec<(u32, bool)>,
}

fn plates_of(c: &vwr::Chunk) -> Vec<(u32, bool)> {
    let mut v: Vec<(u32, bool)> = c
        .records()
        .iter()
        .filter(|r| r.record_type == vwr::META_PLATE_ROTATION)
        .map(|r| (r.index as u32, r.payload.first().is_some_and(|&b| b != 0)))
        .collect();
    v.sort_by_key(|e| e.0); // stable: the first record of a cell wins, as in lookups
    v.dedup_by_key(|e| e.0);
    v
}

/// Chunk meshes kept across edits.
///
/// [`MeshCache::update`] finds the chunks the world marks dirty, compares their blocks with a
/// snapshot taken when they were last meshed, and rebuilds exactly the chunks whose padded
/// neighbourhood contains a changed cell: the chunk itself, and a neighbour only when the
/// change is on the shared border (with AO on, diagonal neighbours across an edge or corner
/// too, because AO reads those cells). Metadata-only edits rebuild nothing (plate rotations
/// excepted: they change special geometry, so a dirty chunk with special cells is rebuilt).
#[derive(Debug)]
pub struct MeshCache {
    opts: MeshOptions,
    n: u32,
    built: bool,
    meshes: HashMap<[u32; 3], ChunkMesh>,
    snapshots: HashMap<[u32; 3], Snapshot>,
    mesher: Mesher,
    nb: Neighborhood,
}

impl MeshCache {
    /// An empty cache; the first [`MeshCache::update`] meshes everything.
    pub fn new(opts: MeshOptions) -> MeshCache {
        MeshCache {
            opts,
            n: 0,
            built: false,
            meshes: HashMap::new(),
            snapshots: HashMap::new(),
            mesher: Mesher::new(),
            nb: Neighborhood::new(),
        }
    }

    /// The options meshes are built with.
    pub fn options(&self) -> MeshOptions {
        self.opts
    }

    /// Forgets everything (e.g. after a registry change); the next update rebuilds all.
    pub fn invalidate_all(&mut self) {
        self.built = false;
        self.meshes.clear();
        self.snapshots.clear();
    }

    /// The mesh of a chunk, if it draws anything.
    pub fn get(&self, pos: [u32; 3]) -> Option<&ChunkMesh> {
        self.meshes.get(&pos)
    }

    /// All non-empty chunk meshes, sorted in file order (z, y, x).
    pub fn meshes(&self) -> Vec<&ChunkMesh> {
        let mut v: Vec<&ChunkMesh> = self.meshes.values().collect();
        v.sort_by_key(|m| [m.chunk[2], m.chunk[1], m.chunk[0]]);
        v
    }

    /// Brings the meshes up to date with the world and clears the world's dirty flags.
    /// Returns the chunk positions that were rebuilt, sorted (z, y, x).
    pub fn update(&mut self, world: &mut World, registry: &Registry) -> Vec<[u32; 3]> {
        let n = world.chunks_per_axis();
        let mut todo: BTreeSet<[u32; 3]> = BTreeSet::new();
        if !self.built || n != self.n {
            self.invalidate_all();
            self.n = n;
            for (p, _) in world.chunks() {
                todo.insert([p[2], p[1], p[0]]);
            }
        } else {
            let mut changed: Vec<[u32; 3]> = Vec::new();
            for (p, c) in world.chunks() {
                if c.is_dirty() || !self.snapshots.contains_key(&p) {
                    changed.push(p);
                }
            }
            for p in self.snapshots.keys() {
                if world.chunk(p[0], p[1], p[2]).is_none() {
                    changed.push(*p);
                }
            }
            let air = [Block::AIR; CHUNK_VOLUME];
            let mut now = [Block::AIR; CHUNK_VOLUME];
            for p in changed {
                match world.chunk(p[0], p[1], p[2]) {
                    Some(c) => c.blocks_into(&mut now),
                    None => now = air,
                }
                let before: &[Block; CHUNK_VOLUME] =
                    self.snapshots.get(&p).map(|s| &*s.blocks).unwrap_or(&air);
                let mut any = false;
                for i in 0..CHUNK_VOLUME {
                    if before[i] != now[i] {
                        any = true;
                        mark_readers(p, vwr::local_position(i), n, self.opts.ao, &mut todo);
                    }
                }
                // A plate-rotation edit changes special geometry without changing blocks.
                if !any {
                    let now_plates = world
                        .chunk(p[0], p[1], p[2])
                        .map(plates_of)
                        .unwrap_or_default();
                    let before_plates = self
                        .snapshots
                        .get(&p)
                        .map(|s| s.plates.as_slice())
                        .unwrap_or(&[]);
                    if now_plates != before_plates {
                        todo.insert([p[2], p[1], p[0]]);
                    }
                }
            }
        }
        let mut rebuilt = Vec::with_capacity(todo.len());
        let mut out = ChunkMesh::default();
        for zyx in todo {
            let p = [zyx[2], zyx[1], zyx[0]];
            if world.chunk(p[0], p[1], p[2]).is_none() {
                // Never allocated (all air): only a mesh it had before needs dropping.
                if self.meshes.remove(&p).is_some() {
                    rebuilt.push(p);
                }
                continue;
            }
            mesh_chunk_with(
                world,
                registry,
                p,
                self.opts,
                &mut self.mesher,
                &mut self.nb,
                &mut out,
            );
            if out.is_empty() {
                self.meshes.remove(&p);
            } else {
                self.meshes.insert(p, std::mem::take(&mut out));
            }
            rebuilt.push(p);
        }
        // Snapshots of every allocated chunk that is new or changed.
        for (p, c) in world.chunks() {
            if c.is_dirty() || !self.snapshots.contains_key(&p) {
                self.snapshots.insert(
                    p,
                    Snapshot {
                        blocks: c.to_blocks(),
                        plates: plates_of(c),
                    },
                );
            }
        }
        self.snapshots
            .retain(|p, _| world.chunk(p[0], p[1], p[2]).is_some());
        world.clear_dirty();
        self.built = true;
        rebuilt
    }
}

/// Inserts (as z, y, x keys) every chunk whose meshing reads local cell `l` of chunk `p`.
pub(crate) fn mark_readers(
    p: [u32; 3],
    l: [usize; 3],
    n: u32,
    diagonal: bool,
    todo: &mut BTreeSet<[u32; 3]>,
) {
    let last = CHUNK_SIZE - 1;
    let offs = |a: usize| -> &'static [i64] {
        match (l[a] == 0, l[a] == last) {
            (true, _) => &[0, -1],
            (_, true) => &[0, 1],
            _ => &[0],
        }
    };
    for &dz in offs(2) {
        for &dy in offs(1) {
            for &dx in offs(0) {
                let moved = (dx != 0) as u8 + (dy != 0) as u8 + (dz != 0) as u8;
                if moved > 1 && !diagonal {
                    continue;
                }
                let q = [p[0] as i64 + dx, p[1] as i64 + dy, p[2] as i64 + dz];
                if q.iter().all(|&c| (0..n as i64).contains(&c)) {
                    todo.insert([q[2] as u32, q[1] as u32, q[0] as u32]);
                }
            }
        }
    }
}
