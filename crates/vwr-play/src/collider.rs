//! The collision view of a world: one flag byte per cell, built from the block registry.

use std::collections::HashMap;

use vwr::{local_index, World, CHUNK_SIZE, CHUNK_VOLUME};
use vwr_blocks::{Registry, Trigger, TYPE_COUNT};

/// Flag bit: the cell is solid.
pub const SOLID: u8 = 1;
/// Flag bit: the cell is a liquid.
pub const LIQUID: u8 = 2;
const TRIGGER_SHIFT: u32 = 2;

/// The collision flags of one cell: [`SOLID`], [`LIQUID`] and a [`Trigger`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CellFlags(pub u8);

impl CellFlags {
    /// Whether boxes cannot enter the cell.
    #[inline]
    pub fn solid(self) -> bool {
        self.0 & SOLID != 0
    }
    /// Whether the cell is a liquid.
    #[inline]
    pub fn liquid(self) -> bool {
        self.0 & LIQUID != 0
    }
    /// The cell's trigger.
    #[inline]
    pub fn trigger(self) -> Trigger {
        Trigger::from_code(self.0 >> TRIGGER_SHIFT).unwrap_or_default()
    }
    fn of(c: vwr_blocks::Collision) -> CellFlags {
        CellFlags(
            ((c.solid as u8) * SOLID)
                | ((c.liquid as u8) * LIQUID)
                | (c.trigger.code() << TRIGGER_SHIFT),
        )
    }
}

#[derive(Clone, Debug)]
enum Flags {
    Uniform(u8),
    /// The flags of every cell, and the set of trigger codes present (bit `1 << code`).
    Dense(Box<[u8; CHUNK_VOLUME]>, u8),
}

/// A chunk's flags and the block revision they were built from.
type Entry = (Flags, u64);

/// What a chunk the world does not hold collides as.
static AIR: Flags = Flags::Uniform(0);

/// Chunk positions up to which the collider keeps an entry for every position (24 bytes each,
/// 6 MiB at most); larger worlds keep entries only for the chunks they hold, so that the
/// collider of a sparse world costs memory in proportion to its chunks.
const DENSE_MAX_POSITIONS: usize = 1 << 18;

#[derive(Clone, Debug)]
enum Chunks {
    /// One entry per chunk position, in file order.
    Dense(Vec<Entry>),
    /// Entries of the chunks the world holds, by file-order index.
    Sparse(HashMap<u32, Entry>),
}

impl Chunks {
    fn new(cdims: [u32; 3]) -> Chunks {
        let n = cdims.iter().map(|&d| d as usize).product::<usize>();
        if n <= DENSE_MAX_POSITIONS {
            Chunks::Dense(vec![(AIR.clone(), u64::MAX); n])
        } else {
            Chunks::Sparse(HashMap::new())
        }
    }

    #[inline]
    fn get(&self, slot: usize) -> &Flags {
        match self {
            Chunks::Dense(v) => v.get(slot).map_or(&AIR, |e| &e.0),
            Chunks::Sparse(m) => m.get(&(slot as u32)).map_or(&AIR, |e| &e.0),
        }
    }

    /// Takes a chunk's entry out (air with no revision where there is none).
    fn take(&mut self, slot: usize) -> Entry {
        let air = || (AIR.clone(), u64::MAX);
        match self {
            Chunks::Dense(v) => v
                .get_mut(slot)
                .map_or_else(air, |e| std::mem::replace(e, air())),
            Chunks::Sparse(m) => m.remove(&(slot as u32)).unwrap_or_else(air),
        }
    }

    fn put(&mut self, slot: usize, e: Entry) {
        match self {
            Chunks::Dense(v) => {
                if let Some(d) = v.get_mut(slot) {
                    *d = e;
                }
            }
            Chunks::Sparse(m) => {
                m.insert(slot as u32, e);
            }
        }
    }
}

/// A snapshot of a world's collision: for every cell its [`CellFlags`] (1 byte per cell of
/// non-uniform chunks, nothing for uniform or missing chunks). Owning its data, it does not
/// borrow the world; [`Collider::refresh`] brings it up to date after edits, rebuilding only
/// the chunks whose block revision changed. Its memory follows the chunks the world holds,
/// not the world's size (an empty 655350×10×655350-block world costs nothing per chunk).
///
/// Cells outside the world are empty (not solid): boxes and rays may leave the world.
#[derive(Clone, Debug)]
pub struct Collider {
    table: Box<[u8; TYPE_COUNT]>,
    dims: [u32; 3],
    cdims: [u32; 3],
    chunks: Chunks,
}

impl Collider {
    /// The collision view of `world` under `registry`.
    pub fn new(world: &World, registry: &Registry) -> Collider {
        let mut table = Box::new([0u8; TYPE_COUNT]);
        for (t, f) in table.iter_mut().enumerate() {
            *f = CellFlags::of(registry.collision(t as u16)).0;
        }
        let cdims = world.chunk_dims();
        let mut c = Collider {
            table,
            dims: world.block_dims(),
            cdims,
            chunks: Chunks::new(cdims),
        };
        c.refresh(world);
        c
    }

    /// Rebuilds the chunks whose blocks changed since the last build (compares
    /// `Chunk::blocks_revision`). A world of other dimensions is rebuilt completely.
    pub fn refresh(&mut self, world: &World) {
        let resized = world.chunk_dims() != self.cdims;
        self.dims = world.block_dims();
        self.cdims = world.chunk_dims();
        // Chunks the world no longer has (taken out) are left behind in `old`: air. A world
        // of other dimensions keeps nothing.
        let mut old = std::mem::replace(&mut self.chunks, Chunks::new(self.cdims));
        if resized {
            old = Chunks::Sparse(HashMap::new());
        }
        let [cx, cy, _] = self.cdims;
        for (pos, chunk) in world.chunks() {
            let slot = (pos[0] + cx * (pos[1] + cy * pos[2])) as usize;
            let rev = chunk.blocks_revision();
            let (kept, was) = old.take(slot);
            let entry = if was == rev {
                (kept, rev)
            } else {
                (self.flags_of(chunk), rev)
            };
            self.chunks.put(slot, entry);
        }
    }

    fn flags_of(&self, chunk: &vwr::Chunk) -> Flags {
        if chunk.is_uniform() {
            return Flags::Uniform(self.table[(chunk.get(0).block_type()) as usize]);
        }
        let mut d = Box::new([0u8; CHUNK_VOLUME]);
        chunk.for_each(|i, b| d[i] = self.table[b.block_type() as usize]);
        if d.iter().all(|&f| f == d[0]) {
            Flags::Uniform(d[0])
        } else {
            let triggers = d.iter().fold(0u8, |m, &f| m | 1 << (f >> TRIGGER_SHIFT));
            Flags::Dense(d, triggers)
        }
    }

    /// The (x, z) chunk columns holding a chunk with a solid cell, in no order.
    pub(crate) fn solid_columns(&self) -> Vec<[u32; 2]> {
        let [cx, cy, _] = self.cdims.map(|d| d as usize);
        let solid = |f: &Flags| match f {
            Flags::Uniform(f) => f & SOLID != 0,
            Flags::Dense(d, _) => d.iter().any(|f| f & SOLID != 0),
        };
        let column = |slot: usize| [(slot % cx) as u32, (slot / (cx * cy)) as u32];
        let mut columns: Vec<[u32; 2]> = match &self.chunks {
            Chunks::Dense(v) => v
                .iter()
                .enumerate()
                .filter(|(_, e)| solid(&e.0))
                .map(|(i, _)| column(i))
                .collect(),
            Chunks::Sparse(m) => m
                .iter()
                .filter(|(_, e)| solid(&e.0))
                .map(|(&i, _)| column(i as usize))
                .collect(),
        };
        columns.sort_unstable();
        columns.dedup();
        columns
    }

    /// The world's size in blocks per axis.
    pub fn block_dims(&self) -> [u32; 3] {
        self.dims
    }

    /// Whether a cell lies inside the world.
    #[inline]
    pub fn contains(&self, c: [i64; 3]) -> bool {
        (0..3).all(|k| c[k] >= 0 && c[k] < self.dims[k] as i64)
    }

    /// The flags of a cell (empty outside the world).
    #[inline]
    pub fn flags(&self, c: [i64; 3]) -> CellFlags {
        if !self.contains(c) {
            return CellFlags(0);
        }
        CellFlags(self.flags_in(c[0] as u32, c[1] as u32, c[2] as u32))
    }

    /// Flags of a cell known to be inside the world.
    #[inline]
    pub(crate) fn flags_in(&self, x: u32, y: u32, z: u32) -> u8 {
        let s = CHUNK_SIZE as u32;
        let slot = (x / s + self.cdims[0] * (y / s + self.cdims[1] * (z / s))) as usize;
        match self.chunks.get(slot) {
            Flags::Uniform(f) => *f,
            Flags::Dense(d, _) => {
                d[local_index((x % s) as usize, (y % s) as usize, (z % s) as usize)]
            }
        }
    }

    /// Whether a cell is solid (never outside the world).
    #[inline]
    pub fn solid(&self, c: [i64; 3]) -> bool {
        self.flags(c).solid()
    }

    /// Whether any cell of the inclusive range is solid (clamped to the world).
    pub fn any_solid(&self, lo: [i64; 3], hi: [i64; 3]) -> bool {
        let Some((lo, hi)) = self.clamp(lo, hi) else {
            return false;
        };
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                for x in lo[0]..=hi[0] {
                    if self.flags_in(x, y, z) & SOLID != 0 {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The set of trigger codes (bit `1 << code`) of the cells of an inclusive range, clamped
    /// to the world. Chunks holding one trigger kind only (most hold none) are not scanned.
    pub(crate) fn trigger_mask(&self, lo: [i64; 3], hi: [i64; 3]) -> u8 {
        let Some((lo, hi)) = self.clamp(lo, hi) else {
            return 0;
        };
        let s = CHUNK_SIZE as u32;
        let mut mask = 0u8;
        for cz in lo[2] / s..=hi[2] / s {
            for cy in lo[1] / s..=hi[1] / s {
                for cx in lo[0] / s..=hi[0] / s {
                    let slot = (cx + self.cdims[0] * (cy + self.cdims[1] * cz)) as usize;
                    match self.chunks.get(slot) {
                        Flags::Uniform(f) => mask |= 1 << (f >> TRIGGER_SHIFT),
                        Flags::Dense(_, m) if m.count_ones() == 1 => mask |= m,
                        Flags::Dense(d, _) => {
                            let a = [cx, cy, cz].map(|c| c * s);
                            for z in lo[2].max(a[2])..=hi[2].min(a[2] + s - 1) {
                                for y in lo[1].max(a[1])..=hi[1].min(a[1] + s - 1) {
                                    for x in lo[0].max(a[0])..=hi[0].min(a[0] + s - 1) {
                                        let i = local_index(
                                            (x - a[0]) as usize,
                                            (y - a[1]) as usize,
                                            (z - a[2]) as usize,
                                        );
                                        mask |= 1 << (d[i] >> TRIGGER_SHIFT);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        mask
    }

    /// The inclusive range clamped to the world, `None` when nothing is left.
    pub(crate) fn clamp(&self, lo: [i64; 3], hi: [i64; 3]) -> Option<([u32; 3], [u32; 3])> {
        let mut a = [0u32; 3];
        let mut b = [0u32; 3];
        for k in 0..3 {
            let l = lo[k].max(0);
            let h = hi[k].min(self.dims[k] as i64 - 1);
            if l > h {
                return None;
            }
            a[k] = l as u32;
            b[k] = h as u32;
        }
        Some((a, b))
    }
}
