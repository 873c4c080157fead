//! A mesh cache that rebuilds only what an edit can have changed.

use std::collections::{BTreeSet, HashMap};

use vwr::{Block, Chunk, World, CHUNK_SIZE, CHUNK_VOLUME};

use crate::mesher::{
    file_key, mesh_chunk_with, mesh_chunks_par, ChunkMesh, MeshOptions, Mesher, Neighborhood,
    PAR_MIN_CHUNKS,
};
use vwr_blocks::Registry;

/// Cells of a chunk with a coordinate on its faces (0 or 9): the only cells that the meshes
/// of its neighbours read.
const BORDER_CELLS: usize = CHUNK_VOLUME - (CHUNK_SIZE - 2) * (CHUNK_SIZE - 2) * (CHUNK_SIZE - 2);

/// Linear indices of the border cells, ascending.
const BORDER_INDEX: [u16; BORDER_CELLS] = {
    let mut out = [0u16; BORDER_CELLS];
    let (mut i, mut k) = (0, 0);
    while i < CHUNK_VOLUME {
        let l = vwr::local_position(i);
        let mut on_border = false;
        let mut a = 0;
        while a < 3 {
            on_border |= l[a] == 0 || l[a] == CHUNK_SIZE - 1;
            a += 1;
        }
        if on_border {
            out[k] = i as u16;
            k += 1;
        }
        i += 1;
    }
    out
};

/// What the cache remembers of an allocated chunk as it was last meshed. A chunk it has no
/// entry for was not allocated, so all air.
#[derive(Debug)]
struct Seen {
    /// [`Chunk::revision`]: unchanged means nothing to do.
    revision: u64,
    /// [`Chunk::blocks_revision`]: unchanged means only records changed.
    blocks_revision: u64,
    /// Every cell was air.
    air: bool,
    /// Plate rotations by cell (they change special geometry without changing blocks).
    plates: Vec<(u32, bool)>,
    /// Raw values of the border cells (in [`BORDER_INDEX`] order), so that a neighbour is
    /// rebuilt only when a cell it reads changed.
    border: Box<[u16; BORDER_CELLS]>,
}

impl Seen {
    fn of(c: &Chunk) -> Seen {
        let mut blocks = [Block::AIR; CHUNK_VOLUME];
        c.read_into(&mut blocks);
        Seen {
            revision: c.revision(),
            blocks_revision: c.blocks_revision(),
            air: blocks.iter().all(|b| b.is_air()),
            plates: plates_of(c),
            border: Box::new(BORDER_INDEX.map(|i| blocks[i as usize].raw())),
        }
    }
}

/// Fills in the [`Seen`] state of every (allocated) chunk listed in `now`, in parallel.
fn seen_par(world: &World, now: &mut [([u32; 3], Option<Seen>)]) {
    use rayon::prelude::*;
    now.par_iter_mut()
        .for_each(|(p, s)| *s = world.chunk(*p).map(Seen::of));
}

/// The plate rotations of a remembered chunk (none for an unallocated one).
fn plates(s: Option<&Seen>) -> &[(u32, bool)] {
    s.map_or(&[], |s| s.plates.as_slice())
}

fn plates_of(c: &Chunk) -> Vec<(u32, bool)> {
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
/// [`MeshCache::update`] finds the chunks whose [`Chunk::revision`] differs from the one it
/// last meshed (or that appeared or disappeared) and rebuilds the chunks whose padded
/// neighbourhood an edit can have changed: a chunk whose blocks changed is rebuilt itself
/// (even if the edits happened to restore every value), and a neighbour only when a cell on
/// the shared border changed (with AO on, diagonal neighbours across an edge or corner too,
/// because AO reads those cells). Border cells are compared exactly: the cache keeps the 488
/// border cells of each chunk as last meshed, not the whole chunk. Record-only edits rebuild
/// nothing (plate rotations excepted: they change special geometry, so a chunk whose plate
/// rotations changed is rebuilt). The world is only read: its dirty flags belong to the
/// saving code and are left alone.
#[derive(Debug)]
pub struct MeshCache {
    opts: MeshOptions,
    dims: [u32; 3],
    built: bool,
    meshes: HashMap<[u32; 3], ChunkMesh>,
    seen: HashMap<[u32; 3], Seen>,
    mesher: Mesher,
    nb: Neighborhood,
}

impl MeshCache {
    /// An empty cache; the first [`MeshCache::update`] meshes everything.
    pub fn new(opts: MeshOptions) -> MeshCache {
        MeshCache {
            opts,
            dims: [0; 3],
            built: false,
            meshes: HashMap::new(),
            seen: HashMap::new(),
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
        self.seen.clear();
    }

    /// The mesh of a chunk, if it draws anything.
    pub fn get(&self, pos: [u32; 3]) -> Option<&ChunkMesh> {
        self.meshes.get(&pos)
    }

    /// All non-empty chunk meshes, sorted in file order (z, y, x).
    pub fn meshes(&self) -> Vec<&ChunkMesh> {
        let mut v: Vec<&ChunkMesh> = self.meshes.values().collect();
        v.sort_by_key(|m| file_key(m.chunk));
        v
    }

    /// Brings the meshes up to date with the world. Returns the chunk positions that were
    /// rebuilt, sorted (z, y, x).
    pub fn update(&mut self, world: &World, registry: &Registry) -> Vec<[u32; 3]> {
        let n = world.chunk_dims();
        let mut todo: BTreeSet<[u32; 3]> = BTreeSet::new();
        // What the chunks that may have changed look like now (`None`: not allocated).
        let mut now: Vec<([u32; 3], Option<Seen>)> = Vec::new();
        if !self.built || n != self.dims {
            self.invalidate_all();
            self.dims = n;
            for (p, _) in world.chunks() {
                todo.insert(file_key(p));
                now.push((p, None));
            }
            seen_par(world, &mut now);
        } else {
            for (p, c) in world.chunks() {
                if self.seen.get(&p).map(|s| s.revision) != Some(c.revision()) {
                    now.push((p, None));
                }
            }
            seen_par(world, &mut now);
            for p in self.seen.keys() {
                if world.chunk([p[0], p[1], p[2]]).is_none() {
                    now.push((*p, None));
                }
            }
            for (p, seen) in &now {
                self.mark_changes(*p, seen.as_ref(), n, &mut todo);
            }
        }
        let mut rebuilt = Vec::with_capacity(todo.len());
        let mut build = Vec::with_capacity(todo.len());
        for zyx in todo {
            let p = file_key(zyx);
            if world.chunk(p).is_some() {
                build.push(p);
            } else if self.meshes.remove(&p).is_some() {
                // Never allocated (all air): only a mesh it had before needs dropping.
                rebuilt.push(p);
            }
        }
        // A few chunks (a typical edit): this thread, with the cache's own scratch buffers;
        // more (a first build, a big fill): in parallel. Both give the same meshes, each
        // chunk's in the buffers of its previous mesh when it had one.
        let meshes = if build.len() >= PAR_MIN_CHUNKS {
            let mut previous: Vec<ChunkMesh> =
                build.iter().filter_map(|p| self.meshes.remove(p)).collect();
            mesh_chunks_par(world, registry, &build, self.opts, &mut previous)
        } else {
            build
                .iter()
                .map(|&p| {
                    let mut out = self.meshes.remove(&p).unwrap_or_default();
                    let (m, nb) = (&mut self.mesher, &mut self.nb);
                    mesh_chunk_with(world, registry, p, self.opts, m, nb, &mut out);
                    out
                })
                .collect()
        };
        for (p, out) in build.into_iter().zip(meshes) {
            if out.is_empty() {
                self.meshes.remove(&p);
            } else {
                self.meshes.insert(p, out);
            }
            rebuilt.push(p);
        }
        rebuilt.sort_by_key(|&p| file_key(p));
        for (p, seen) in now {
            match seen {
                Some(s) => self.seen.insert(p, s),
                None => self.seen.remove(&p),
            };
        }
        self.built = true;
        rebuilt
    }

    /// Adds to `todo` (as z, y, x keys) the chunks whose mesh reads a cell of chunk `p` that
    /// changed since it was last meshed; `now` is the chunk's current state.
    fn mark_changes(
        &self,
        p: [u32; 3],
        now: Option<&Seen>,
        n: [u32; 3],
        todo: &mut BTreeSet<[u32; 3]>,
    ) {
        let before = self.seen.get(&p);
        // An unallocated chunk is all air.
        let same_blocks = match (before, now) {
            (Some(a), Some(b)) => a.blocks_revision == b.blocks_revision || (a.air && b.air),
            (Some(s), None) | (None, Some(s)) => s.air,
            (None, None) => true,
        };
        if same_blocks {
            if plates(before) != plates(now) {
                todo.insert(file_key(p));
            }
            return;
        }
        // The chunk's own mesh reads every cell of it.
        todo.insert(file_key(p));
        for (k, &i) in BORDER_INDEX.iter().enumerate() {
            let cell = |s: Option<&Seen>| s.map_or(0, |s| s.border[k]);
            if cell(before) != cell(now) {
                mark_readers(p, vwr::local_position(i as usize), n, self.opts.ao, todo);
            }
        }
    }
}

/// Inserts (as z, y, x keys) every chunk whose meshing reads local cell `l` of chunk `p`.
pub(crate) fn mark_readers(
    p: [u32; 3],
    l: [usize; 3],
    n: [u32; 3],
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
                if (0..3).all(|a| (0..n[a] as i64).contains(&q[a])) {
                    todo.insert(file_key(q.map(|v| v as u32)));
                }
            }
        }
    }
}
