//! The densely bit-packed index stream: reading and writing one value, unpacking and packing
//! all 1000, and the palette search.

use super::{word_count, CHUNK_VOLUME};
use crate::block::Block;

#[inline(always)]
pub(super) fn read_packed(words: &[u64], bits: u32, i: usize) -> usize {
    let bit = i * bits as usize;
    let w = bit >> 6;
    let off = (bit & 63) as u32;
    let mut v = words[w] >> off;
    if off + bits > 64 {
        v |= words[w + 1] << (64 - off);
    }
    (v & ((1u64 << bits) - 1)) as usize
}

#[inline(always)]
pub(super) fn write_packed(words: &mut [u64], bits: u32, i: usize, value: usize) {
    let mask = (1u64 << bits) - 1;
    let value = value as u64 & mask;
    let bit = i * bits as usize;
    let w = bit >> 6;
    let off = (bit & 63) as u32;
    words[w] = (words[w] & !(mask << off)) | (value << off);
    if off + bits > 64 {
        let shift = 64 - off;
        words[w + 1] = (words[w + 1] & !(mask >> shift)) | (value >> shift);
    }
}

/// Decodes all 1000 indices of a packed stream sequentially.
pub(crate) fn unpack_all(words: &[u64], bits: u8, out: &mut [u16; CHUNK_VOLUME]) {
    match bits {
        1 => unpack_fixed::<1>(words, out),
        2 => unpack_fixed::<2>(words, out),
        3 => unpack_fixed::<3>(words, out),
        4 => unpack_fixed::<4>(words, out),
        5 => unpack_fixed::<5>(words, out),
        6 => unpack_fixed::<6>(words, out),
        7 => unpack_fixed::<7>(words, out),
        _ => unpack_fixed::<8>(words, out),
    }
}

/// 64 values of `B` bits fill exactly `B` words, so each group of 64 has compile-time shifts.
#[inline(always)]
fn unpack_fixed<const B: u32>(words: &[u64], out: &mut [u16; CHUNK_VOLUME]) {
    let mask = (1u64 << B) - 1;
    let groups = CHUNK_VOLUME / 64;
    for g in 0..groups {
        let w = &words[g * B as usize..(g + 1) * B as usize];
        let o = &mut out[g * 64..(g + 1) * 64];
        for k in 0..64u32 {
            let bit = k * B;
            let wi = (bit / 64) as usize;
            let off = bit % 64;
            let mut v = w[wi] >> off;
            if off + B > 64 {
                v |= w[wi + 1] << (64 - off);
            }
            o[k as usize] = (v & mask) as u16;
        }
    }
    for (i, slot) in out.iter_mut().enumerate().skip(groups * 64) {
        *slot = read_packed(words, B, i) as u16;
    }
}

/// First palette position holding `block`: 16 entries per step so the comparison vectorises.
#[inline]
pub(super) fn find_in_palette(palette: &[Block], block: Block) -> Option<usize> {
    let raw = block.0;
    let mut groups = palette.chunks_exact(16);
    let mut base = 0;
    for g in &mut groups {
        let mut m = 0u32;
        for (k, e) in g.iter().enumerate() {
            m |= ((e.0 == raw) as u32) << k;
        }
        if m != 0 {
            return Some(base + m.trailing_zeros() as usize);
        }
        base += 16;
    }
    groups
        .remainder()
        .iter()
        .position(|e| e.0 == raw)
        .map(|p| base + p)
}

/// Packs 1000 indices at `bits` bits into a fresh word vector (padding bits zero).
pub(crate) fn pack_all(indices: &[u16; CHUNK_VOLUME], bits: u8) -> Vec<u64> {
    let mut words = vec![0u64; word_count(bits)];
    let bits = bits as u32;
    let mut acc: u128 = 0;
    let mut have = 0u32;
    let mut next = 0usize;
    for &v in indices.iter() {
        acc |= (v as u128) << have;
        have += bits;
        if have >= 64 {
            words[next] = acc as u64;
            next += 1;
            acc >>= 64;
            have -= 64;
        }
    }
    if have > 0 {
        words[next] = acc as u64;
    }
    words
}
