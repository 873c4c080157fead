//! Copy / cut / paste of a region with rotation about Y and mirroring.
//!
//! Orientation convention: X grows to the right and Z downwards in the layer view, so
//! [`Rotation::R90`] (which turns +X into +Z and +Z into −X) is a quarter turn clockwise on
//! screen. Mirroring is applied first, in the clipboard's own frame, then the rotation.

use vwr::{
    local_index, local_position, Block, MetaRecord, MoveObject, World, CHUNK_SIZE,
    META_MOVE_OBJECT, META_PLATE_ROTATION,
};

use crate::error::in_chunk;
use crate::error::{EditError, Result};
use crate::history::Tx;

/// Largest region a clipboard may hold (cells; 2 bytes each, so 64 MiB).
pub const MAX_CLIPBOARD_CELLS: u64 = 1 << 25;

/// Quarter turns about the Y axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rotation {
    /// No rotation.
    #[default]
    R0,
    /// 90°: +X becomes +Z (clockwise in the layer view).
    R90,
    /// 180°.
    R180,
    /// 270°: +X becomes −Z.
    R270,
}

impl Rotation {
    /// The rotation for a number of degrees (0, 90, 180, 270; multiples of 360 added allowed).
    pub fn from_degrees(deg: i32) -> Option<Rotation> {
        match deg.rem_euclid(360) {
            0 => Some(Rotation::R0),
            90 => Some(Rotation::R90),
            180 => Some(Rotation::R180),
            270 => Some(Rotation::R270),
            _ => None,
        }
    }

    /// Degrees, 0..=270.
    pub fn degrees(self) -> u32 {
        match self {
            Rotation::R0 => 0,
            Rotation::R90 => 90,
            Rotation::R180 => 180,
            Rotation::R270 => 270,
        }
    }

    fn swaps_axes(self) -> bool {
        matches!(self, Rotation::R90 | Rotation::R270)
    }
}

/// Mirroring in the clipboard's frame, applied before the rotation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mirror {
    /// No mirroring.
    #[default]
    None,
    /// Mirror along X (x becomes width − 1 − x).
    X,
    /// Mirror along Z (z becomes depth − 1 − z).
    Z,
}

/// How to paste a clipboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PasteOptions {
    /// Rotation about Y.
    pub rotation: Rotation,
    /// Mirroring (before rotating).
    pub mirror: Mirror,
    /// Leave destination cells alone where the clipboard holds air (a stamp), and keep the
    /// destination's metadata records. Default `false`: the region is replaced exactly,
    /// including its records.
    pub skip_air: bool,
    /// Paste the clipboard's metadata records (default `true`).
    pub with_metadata: bool,
}

impl Default for PasteOptions {
    fn default() -> Self {
        PasteOptions {
            rotation: Rotation::R0,
            mirror: Mirror::None,
            skip_air: false,
            with_metadata: true,
        }
    }
}

/// A metadata record held by a clipboard, at a cell relative to the clipboard's origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClipRecord {
    /// Cell relative to the clipboard's minimum corner.
    pub offset: [u32; 3],
    /// Metadata type.
    pub record_type: u16,
    /// Payload bytes (MoveObject positions are absolute world positions of the source).
    pub payload: Vec<u8>,
}

/// A copied region: its blocks (x fastest, then y, then z) and the metadata records inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clipboard {
    /// Width, height, depth.
    pub size: [u32; 3],
    /// World cell the region was copied from (its minimum corner); MoveObject positions are
    /// translated relative to it when pasting.
    pub source: [i32; 3],
    /// `size[0] * size[1] * size[2]` blocks, x fastest, then y, then z.
    pub blocks: Vec<Block>,
    /// Records inside the region, in the world's record order.
    pub records: Vec<ClipRecord>,
}

impl Clipboard {
    /// Copies the box between two corners (any order, clamped to the world).
    pub fn copy(world: &World, a: [i32; 3], b: [i32; 3]) -> Result<Clipboard> {
        let (lo, hi) = world
            .clamp_box(a, b)
            .ok_or(EditError::BoxOutsideWorld { a, b })?;
        let size = [0, 1, 2].map(|k| hi[k] - lo[k] + 1);
        let cells = size.iter().map(|&v| v as u64).product::<u64>();
        if cells > MAX_CLIPBOARD_CELLS {
            return Err(EditError::RegionTooLarge {
                cells,
                limit: MAX_CLIPBOARD_CELLS,
            });
        }
        let mut blocks = vec![Block::AIR; cells as usize];
        let mut records = Vec::new();
        let s = CHUNK_SIZE as u32;
        let mut buf = Box::new([Block::AIR; vwr::CHUNK_VOLUME]);
        for cz in lo[2] / s..=hi[2] / s {
            for cy in lo[1] / s..=hi[1] / s {
                for cx in lo[0] / s..=hi[0] / s {
                    let Some(chunk) = world.chunk([cx, cy, cz]) else {
                        continue;
                    };
                    let base = [cx * s, cy * s, cz * s];
                    let cmin = [0, 1, 2].map(|k| lo[k].max(base[k]) - base[k]);
                    let cmax = [0, 1, 2].map(|k| hi[k].min(base[k] + s - 1) - base[k]);
                    if !chunk.is_uniform() || !chunk.palette()[0].is_air() {
                        chunk.blocks_into(&mut buf);
                        for z in cmin[2]..=cmax[2] {
                            for y in cmin[1]..=cmax[1] {
                                for x in cmin[0]..=cmax[0] {
                                    let w = [base[0] + x, base[1] + y, base[2] + z];
                                    let o = clip_index(size, [0, 1, 2].map(|k| w[k] - lo[k]));
                                    blocks[o] =
                                        buf[local_index(x as usize, y as usize, z as usize)];
                                }
                            }
                        }
                    }
                    for r in chunk.records() {
                        let l = local_position(r.index as usize).map(|v| v as u32);
                        if (0..3).all(|k| l[k] >= cmin[k] && l[k] <= cmax[k]) {
                            records.push(ClipRecord {
                                offset: [0, 1, 2].map(|k| base[k] + l[k] - lo[k]),
                                record_type: r.record_type,
                                payload: r.payload.clone(),
                            });
                        }
                    }
                }
            }
        }
        Ok(Clipboard {
            size,
            source: lo.map(|v| v as i32),
            blocks,
            records,
        })
    }

    /// The block at a clipboard cell.
    pub fn get(&self, p: [u32; 3]) -> Block {
        self.blocks[clip_index(self.size, p)]
    }

    /// The size of the region once pasted with `rotation` (90° and 270° swap X and Z).
    pub fn pasted_size(&self, rotation: Rotation) -> [u32; 3] {
        let [sx, sy, sz] = self.size;
        if rotation.swaps_axes() {
            [sz, sy, sx]
        } else {
            [sx, sy, sz]
        }
    }

    fn check(&self) -> Result<()> {
        let expected = self.size.iter().map(|&v| v as u64).product::<u64>();
        if expected != self.blocks.len() as u64 || self.size.contains(&0) {
            return Err(EditError::BadClipboard {
                size: self.size,
                expected,
                found: self.blocks.len() as u64,
            });
        }
        Ok(())
    }
}

fn clip_index(size: [u32; 3], p: [u32; 3]) -> usize {
    (p[0] as usize) + size[0] as usize * (p[1] as usize + size[1] as usize * p[2] as usize)
}

/// Maps a clipboard cell to its pasted cell (relative to the paste origin).
pub fn transform_cell(size: [u32; 3], p: [u32; 3], o: PasteOptions) -> [u32; 3] {
    let [sx, _, sz] = size;
    let [mut x, y, mut z] = p;
    match o.mirror {
        Mirror::None => {}
        Mirror::X => x = sx - 1 - x,
        Mirror::Z => z = sz - 1 - z,
    }
    let (x, z) = match o.rotation {
        Rotation::R0 => (x, z),
        Rotation::R90 => (sz - 1 - z, x),
        Rotation::R180 => (sx - 1 - x, sz - 1 - z),
        Rotation::R270 => (z, sx - 1 - x),
    };
    [x, y, z]
}

/// Maps a pasted cell (relative to the paste origin) back to its clipboard cell; the inverse
/// of [`transform_cell`].
pub fn inverse_cell(size: [u32; 3], q: [u32; 3], o: PasteOptions) -> [u32; 3] {
    let [sx, _, sz] = size;
    let [u, y, w] = q;
    let (mut x, mut z) = match o.rotation {
        Rotation::R0 => (u, w),
        Rotation::R90 => (w, sz - 1 - u),
        Rotation::R180 => (sx - 1 - u, sz - 1 - w),
        Rotation::R270 => (sx - 1 - w, u),
    };
    match o.mirror {
        Mirror::None => {}
        Mirror::X => x = sx - 1 - x,
        Mirror::Z => z = sz - 1 - z,
    }
    [x, y, z]
}

/// Transforms a direction (dx, dz) like the cells.
fn transform_vec(d: [f32; 3], o: PasteOptions) -> [f32; 3] {
    let [mut x, y, mut z] = d;
    match o.mirror {
        Mirror::None => {}
        Mirror::X => x = -x,
        Mirror::Z => z = -z,
    }
    let (x, z) = match o.rotation {
        Rotation::R0 => (x, z),
        Rotation::R90 => (-z, x),
        Rotation::R180 => (-x, -z),
        Rotation::R270 => (z, -x),
    };
    [x, y, z]
}

/// A reflected offset inside a unit cell. Grid-aligned offsets (0) stay grid-aligned so that
/// the anchor `floor(pos_start)` lands on the transformed cell.
fn reflect_frac(f: f32) -> f32 {
    if f == 0.0 {
        0.0
    } else {
        1.0 - f
    }
}

fn transform_frac(f: [f32; 3], o: PasteOptions) -> [f32; 3] {
    let [mut x, y, mut z] = f;
    match o.mirror {
        Mirror::None => {}
        Mirror::X => x = reflect_frac(x),
        Mirror::Z => z = reflect_frac(z),
    }
    let (x, z) = match o.rotation {
        Rotation::R0 => (x, z),
        Rotation::R90 => (reflect_frac(z), x),
        Rotation::R180 => (reflect_frac(x), reflect_frac(z)),
        Rotation::R270 => (z, reflect_frac(x)),
    };
    [x, y, z]
}

/// The payload of a record moved to `cell` (absolute world cell) by a paste.
fn transform_payload(r: &ClipRecord, cell: [i32; 3], o: PasteOptions) -> Vec<u8> {
    match r.record_type {
        META_MOVE_OBJECT => match MoveObject::decode(&r.payload) {
            Ok(mut m) => {
                let start = m.pos_start;
                let frac = start.map(|v| v - v.floor());
                let frac = transform_frac(frac, o);
                let mut new_start = [0f32; 3];
                for k in 0..3 {
                    let c = cell[k] as f32;
                    let v = c + frac[k];
                    // A tiny reflected offset may round up into the next cell.
                    new_start[k] = if v.floor() == c { v } else { c };
                }
                let d = transform_vec([0, 1, 2].map(|k| m.pos_end[k] - start[k]), o);
                m.pos_end = [0, 1, 2].map(|k| new_start[k] + d[k]);
                m.pos_start = new_start;
                m.encode().to_vec()
            }
            // An undecodable payload is kept as it is.
            Err(_) => r.payload.clone(),
        },
        META_PLATE_ROTATION if o.rotation.swaps_axes() && r.payload.len() == 1 => {
            vec![(r.payload[0] == 0) as u8]
        }
        _ => r.payload.clone(),
    }
}

/// Pastes `clip` with its minimum corner at `origin`; cells outside the world are dropped.
pub(crate) fn paste(
    tx: &mut Tx<'_>,
    clip: &Clipboard,
    origin: [i32; 3],
    o: PasteOptions,
) -> Result<()> {
    clip.check()?;
    let ps = clip.pasted_size(o.rotation);
    let far = [0, 1, 2].map(|k| origin[k].saturating_add(ps[k] as i32 - 1));
    let Some((lo, hi)) = tx.world().clamp_box(origin, far) else {
        return Ok(());
    };
    let s = CHUNK_SIZE as u32;
    for cz in lo[2] / s..=hi[2] / s {
        for cy in lo[1] / s..=hi[1] / s {
            for cx in lo[0] / s..=hi[0] / s {
                let base = [cx * s, cy * s, cz * s];
                let cmin = [0, 1, 2].map(|k| lo[k].max(base[k]) - base[k]);
                let cmax = [0, 1, 2].map(|k| hi[k].min(base[k] + s - 1) - base[k]);
                let Some(chunk) = tx.chunk_mut([cx, cy, cz]) else {
                    continue;
                };
                for z in cmin[2]..=cmax[2] {
                    for y in cmin[1]..=cmax[1] {
                        for x in cmin[0]..=cmax[0] {
                            let w = [base[0] + x, base[1] + y, base[2] + z];
                            let rel = [0, 1, 2].map(|k| (w[k] as i64 - origin[k] as i64) as u32);
                            let b = clip.get(inverse_cell(clip.size, rel, o));
                            if o.skip_air && b.is_air() {
                                continue;
                            }
                            chunk
                                .set(local_index(x as usize, y as usize, z as usize), b)
                                .map_err(|e| in_chunk(e, [cx, cy, cz]))?;
                        }
                    }
                }
                if o.skip_air || !o.with_metadata {
                    continue;
                }
                // Exact replacement: the region's old records go.
                let keep: Vec<MetaRecord> = chunk
                    .records()
                    .iter()
                    .filter(|r| {
                        let l = local_position(r.index as usize).map(|v| v as u32);
                        !(0..3).all(|k| l[k] >= cmin[k] && l[k] <= cmax[k])
                    })
                    .cloned()
                    .collect();
                if keep.len() != chunk.records().len() {
                    chunk.set_records(keep);
                }
            }
        }
    }
    if !o.with_metadata {
        return Ok(());
    }
    for r in &clip.records {
        if (0..3).any(|k| r.offset[k] >= clip.size[k]) {
            continue;
        }
        let q = transform_cell(clip.size, r.offset, o);
        let cell = [0, 1, 2].map(|k| origin[k] as i64 + q[k] as i64);
        let limit = tx.world().block_dims().map(i64::from);
        if (0..3).any(|k| cell[k] < 0 || cell[k] >= limit[k]) {
            continue;
        }
        let cell = cell.map(|v| v as i32);
        let payload = transform_payload(r, cell, o);
        tx.set_extra_metadata([cell[0], cell[1], cell[2]], r.record_type, &payload)?;
    }
    Ok(())
}
