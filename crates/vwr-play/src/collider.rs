//! The collision view of a world: one flag byte per cell, built from the block registry.

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

/// A snapshot of a world's collision: for every cell its [`CellFlags`] (1 byte per cell of
/// non-uniform chunks, nothing for uniform or missing chunks). Owning its data, it does not
/// borrow the world; [`Collider::refresh`] brings it up to date after edits, rebuilding only
/// the chunks whose block revision changed.
///
/// Cells outside the world are empty (not solid): boxes and rays may leave the world.
#[derive(Clone, Debug)]
pub struct Collider {
    table: Box<[u8; TYPE_COUNT]>,
    dims: [u32; 3],
    cdims: [u32; 3],
    chunks: Vec<(Flags, u64)>,
}

impl Collider {
    /// The collision view of `world` under `registry`.
    pub fn new(world: &World, registry: &Registry) -> Collider {
        let mut table = Box::new([0u8; TYPE_COUNT]);
        for (t, f) in table.iter_mut().enumerate() {
            *f = CellFlags::of(registry.collision(t as u16)).0;
        }
        let cdims = world.chunk_dims();
        let n = cdims.iter().map(|&d| d as usize).product();
        let mut c = Collider {
            table,
            dims: world.block_dims(),
            cdims,
            chunks: vec![(Flags::Uniform(0), u64::MAX); n],
        };
        c.refresh(world);
        c
    }

    /// Rebuilds the chunks whose blocks changed since the last build (compares
    /// `Chunk::blocks_revision`). A world of other dimensions is rebuilt completely.
    pub fn refresh(&mut self, world: &World) {
        if world.chunk_dims() != self.cdims {
            *self = Collider {
                table: self.table.clone(),
                dims: world.block_dims(),
                cdims: world.chunk_dims(),
                chunks: vec![
                    (Flags::Uniform(0), u64::MAX);
                    world.chunk_dims().iter().map(|&d| d as usize).product()
                ],
            };
        }
        let [cx, cy, _] = self.cdims;
        for (pos, chunk) in world.chunks() {
            let slot = (pos[0] + cx * (pos[1] + cy * pos[2])) as usize;
            let rev = chunk.blocks_revision();
            if self.chunks[slot].1 == rev {
                continue;
            }
            let flags = if chunk.is_uniform() {
                Flags::Uniform(self.table[(chunk.get(0).block_type()) as usize])
            } else {
                let mut d = Box::new([0u8; CHUNK_VOLUME]);
                chunk.for_each(|i, b| d[i] = self.table[b.block_type() as usize]);
                if d.iter().all(|&f| f == d[0]) {
                    Flags::Uniform(d[0])
                } else {
                    let triggers = d.iter().fold(0u8, |m, &f| m | 1 << (f >> TRIGGER_SHIFT));
                    Flags::Dense(d, triggers)
                }
            };
            self.chunks[slot] = (flags, rev);
        }
        // Chunks the world no longer has (taken out) are air.
        let present: std::collections::HashSet<usize> = world
            .chunks()
            .map(|(p, _)| (p[0] + cx * (p[1] + cy * p[2])) as usize)
            .collect();
        for (i, c) in self.chunks.iter_mut().enumerate() {
            if !present.contains(&i) {
                *c = (Flags::Uniform(0), u64::MAX);
            }
        }
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
        match &self.chunks[slot].0 {
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
                    match &self.chunks[slot].0 {
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
