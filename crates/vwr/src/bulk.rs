//! Bulk readers for code that reads many cells: a whole chunk's palette indices or blocks into
//! a caller's buffer, and a box of a world into a caller's slice.
//!
//! They decode the packed words sequentially with compile-time shifts (64 values of `b` bits
//! fill exactly `b` words), so a full scan runs at memory speed instead of paying the three
//! dependent loads of [`World::get_block`] per cell. [`World::read_box`] uses only `World`'s
//! public API (chunk lookups), one chunk at a time.

use crate::block::Block;
use crate::chunk::{local_index, Chunk, CHUNK_SIZE, CHUNK_VOLUME};
use crate::world::World;

/// Why [`World::read_box`] refused a request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BulkError {
    /// A corner of the box is greater than the other on some axis.
    #[error("box corner lo {lo:?} exceeds hi {hi:?} on axis {axis}")]
    InvertedBox {
        /// The low corner given.
        lo: [i32; 3],
        /// The high corner given.
        hi: [i32; 3],
        /// The first axis (0 = x) where `lo > hi`.
        axis: usize,
    },
    /// The output slice does not hold exactly one block per cell of the box.
    #[error("output holds {got} blocks but the box {lo:?}..={hi:?} has {needed} cells")]
    WrongLength {
        /// The low corner given.
        lo: [i32; 3],
        /// The high corner given.
        hi: [i32; 3],
        /// Cells in the box.
        needed: u64,
        /// Length of the output slice.
        got: usize,
    },
}

/// Decodes 1000 indices of `B` bits each (little-endian bit stream) and writes `table[index]`
/// for each: one pass, compile-time shifts, and a 256-entry table so no lookup is checked.
#[inline(always)]
fn unpack_map<const B: usize, T: Copy>(
    words: &[u64],
    table: &[T; 256],
    out: &mut [T; CHUNK_VOLUME],
) {
    let mask = (1u64 << B) - 1;
    // 64 values of B bits fill exactly B words.
    let full = CHUNK_VOLUME / 64;
    for (w, o) in words
        .chunks_exact(B)
        .zip(out.chunks_exact_mut(64))
        .take(full)
    {
        for (k, slot) in o.iter_mut().enumerate() {
            let bit = k * B;
            let (wi, off) = (bit / 64, bit % 64);
            let mut v = w[wi] >> off;
            if off + B > 64 {
                v |= w[wi + 1] << (64 - off);
            }
            *slot = table[(v & mask) as usize];
        }
    }
    for (i, slot) in out.iter_mut().enumerate().skip(full * 64) {
        let bit = i * B;
        let (wi, off) = (bit / 64, bit % 64);
        let mut v = words[wi] >> off;
        if off + B > 64 {
            v |= words[wi + 1] << (64 - off);
        }
        *slot = table[(v & mask) as usize];
    }
}

/// [`unpack_map`] for the chunk's width.
fn decode_map<T: Copy>(chunk: &Chunk, table: &[T; 256], out: &mut [T; CHUNK_VOLUME]) {
    let words = chunk.words();
    match chunk.bits_per_block() {
        1 => unpack_map::<1, T>(words, table, out),
        2 => unpack_map::<2, T>(words, table, out),
        3 => unpack_map::<3, T>(words, table, out),
        4 => unpack_map::<4, T>(words, table, out),
        5 => unpack_map::<5, T>(words, table, out),
        6 => unpack_map::<6, T>(words, table, out),
        7 => unpack_map::<7, T>(words, table, out),
        _ => unpack_map::<8, T>(words, table, out),
    }
}

/// `IDENTITY[i] == i`: the table that makes [`unpack_map`] yield the indices themselves.
static IDENTITY: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i as u8;
        i += 1;
    }
    t
};

impl Chunk {
    /// Writes the palette index of every cell into `out` (linear order, x fastest). Palettes
    /// hold at most 256 entries, so every index fits a byte.
    pub fn indices_into(&self, out: &mut [u8; CHUNK_VOLUME]) {
        decode_map(self, &IDENTITY, out);
    }

    /// Writes every block of the chunk into `out` (linear order, x fastest): the bulk form of
    /// [`Chunk::get`], with a fast path for uniform chunks.
    pub fn read_into(&self, out: &mut [Block; CHUNK_VOLUME]) {
        if let Some(d) = self.direct() {
            out.copy_from_slice(d);
            return;
        }
        let palette = self.palette();
        if let [only] = palette {
            out.fill(*only);
            return;
        }
        // A full 256-entry table makes every lookup in bounds without a check per cell.
        let mut table = [Block::AIR; 256];
        table[..palette.len()].copy_from_slice(palette);
        decode_map(self, &table, out);
    }
}

impl World {
    /// Reads every cell of the box with inclusive corners `lo` and `hi` into `out`, x fastest
    /// then y then z (`out[(x-lo.x) + w·((y-lo.y) + h·(z-lo.z))]`); cells outside the world
    /// read as air, as with [`World::get_block`]. Each chunk the box touches is decoded once.
    ///
    /// Errors when `lo > hi` on an axis or when `out` does not hold exactly one block per cell.
    pub fn read_box(&self, lo: [i32; 3], hi: [i32; 3], out: &mut [Block]) -> Result<(), BulkError> {
        if let Some(axis) = (0..3).find(|&a| lo[a] > hi[a]) {
            return Err(BulkError::InvertedBox { lo, hi, axis });
        }
        let size = [0, 1, 2].map(|a| (hi[a] as i64 - lo[a] as i64 + 1) as u64);
        let needed = size[0].saturating_mul(size[1]).saturating_mul(size[2]);
        if needed != out.len() as u64 {
            return Err(BulkError::WrongLength {
                lo,
                hi,
                needed,
                got: out.len(),
            });
        }
        let (w, h) = (size[0] as usize, size[1] as usize);
        // Clamp to the world; whatever lies outside stays air.
        let limit = self.block_dims();
        let clo = [0, 1, 2].map(|a| (lo[a] as i64).max(0));
        let chi = [0, 1, 2].map(|a| (hi[a] as i64).min(limit[a] as i64 - 1));
        if (0..3).any(|a| clo[a] != lo[a] as i64 || chi[a] != hi[a] as i64) {
            out.fill(Block::AIR);
        }
        if (0..3).any(|a| clo[a] > chi[a]) {
            return Ok(());
        }
        let c = CHUNK_SIZE as i64;
        let mut blocks = [Block::AIR; CHUNK_VOLUME];
        for cz in clo[2] / c..=chi[2] / c {
            for cy in clo[1] / c..=chi[1] / c {
                for cx in clo[0] / c..=chi[0] / c {
                    let cpos = [cx, cy, cz];
                    // The part of the box inside this chunk, in world coordinates.
                    let a = [0, 1, 2].map(|k| clo[k].max(cpos[k] * c));
                    let b = [0, 1, 2].map(|k| chi[k].min(cpos[k] * c + c - 1));
                    let chunk = self.chunk([cx as u32, cy as u32, cz as u32]);
                    let uniform = match chunk {
                        None => Some(Block::AIR),
                        Some(ch) => match ch.palette() {
                            [only] => Some(*only),
                            _ => {
                                ch.read_into(&mut blocks);
                                None
                            }
                        },
                    };
                    let run = (b[0] - a[0] + 1) as usize;
                    for z in a[2]..=b[2] {
                        for y in a[1]..=b[1] {
                            let o = (a[0] - lo[0] as i64) as usize
                                + w * ((y - lo[1] as i64) as usize
                                    + h * (z - lo[2] as i64) as usize);
                            let dst = &mut out[o..o + run];
                            match uniform {
                                Some(v) => dst.fill(v),
                                None => {
                                    let s = local_index(
                                        (a[0] - cx * c) as usize,
                                        (y - cy * c) as usize,
                                        (z - cz * c) as usize,
                                    );
                                    dst.copy_from_slice(&blocks[s..s + run]);
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_into_matches_palette_index_for_every_width() {
        for len in [2usize, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65, 128, 129, 256] {
            let blocks: Box<[Block; CHUNK_VOLUME]> = Box::new(std::array::from_fn(|i| {
                Block(((i * 7 + i / 13) % len) as u16 * 16 + 1)
            }));
            let ch = Chunk::from_blocks(&blocks).unwrap();
            let mut idx = [0u8; CHUNK_VOLUME];
            ch.indices_into(&mut idx);
            for (i, &v) in idx.iter().enumerate() {
                assert_eq!(v as usize, ch.palette_index(i), "len {len} cell {i}");
            }
            let mut out = [Block::AIR; CHUNK_VOLUME];
            ch.read_into(&mut out);
            assert_eq!(&out, &*blocks, "len {len}");
        }
    }

    #[test]
    fn read_box_rejects_bad_requests() {
        let w = World::with_chunk_dims([2, 1, 3]).unwrap();
        let mut out = vec![Block::AIR; 8];
        assert!(matches!(
            w.read_box([1, 0, 0], [0, 1, 1], &mut out),
            Err(BulkError::InvertedBox { axis: 0, .. })
        ));
        assert!(matches!(
            w.read_box([0, 0, 0], [1, 1, 2], &mut out),
            Err(BulkError::WrongLength {
                needed: 12,
                got: 8,
                ..
            })
        ));
        // Far outside the world: all air, no panic, no allocation.
        let mut out = vec![Block(5); 8];
        w.read_box([i32::MAX - 1; 3], [i32::MAX; 3], &mut out)
            .unwrap();
        assert!(out.iter().all(|b| b.is_air()));
        w.read_box([i32::MIN; 3], [i32::MIN + 1; 3], &mut out)
            .unwrap();
        assert!(out.iter().all(|b| b.is_air()));
    }
}
