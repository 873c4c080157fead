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
        1 => unpack_aligned::<1>(words, out),
        2 => unpack_aligned::<2>(words, out),
        3 => unpack_fixed::<3>(words, out),
        4 => unpack_aligned::<4>(words, out),
        5 => unpack_fixed::<5>(words, out),
        6 => unpack_fixed::<6>(words, out),
        7 => unpack_fixed::<7>(words, out),
        _ => unpack_aligned::<8>(words, out),
    }
}

/// [`unpack_all`] for widths that divide 64: no value straddles two words, so each word
/// yields `64 / B` values by constant shifts with no carry from the word before (at 8 bits, a
/// byte per cell).
#[inline(always)]
fn unpack_aligned<const B: u32>(words: &[u64], out: &mut [u16; CHUNK_VOLUME]) {
    let mask = (1u64 << B) - 1;
    let per = (64 / B) as usize;
    let mut slots = out.chunks_exact_mut(per);
    for (&w, o) in words.iter().zip(&mut slots) {
        for (k, slot) in o.iter_mut().enumerate() {
            *slot = ((w >> (k as u32 * B)) & mask) as u16;
        }
    }
    // The last word is partly used when 1000 is not a multiple of 64 / B.
    let tail = slots.into_remainder();
    if let Some(&w) = words.get(CHUNK_VOLUME / per) {
        for (k, slot) in tail.iter_mut().enumerate() {
            *slot = ((w >> (k as u32 * B)) & mask) as u16;
        }
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
    match bits {
        1 => pack_aligned::<1>(indices, &mut words),
        2 => pack_aligned::<2>(indices, &mut words),
        4 => pack_aligned::<4>(indices, &mut words),
        8 => pack_aligned::<8>(indices, &mut words),
        _ => pack_stream(indices, bits, &mut words),
    }
    words
}

/// [`pack_all`] for widths that divide 64: each word gathers `64 / B` whole values.
#[inline(always)]
fn pack_aligned<const B: u32>(indices: &[u16; CHUNK_VOLUME], words: &mut [u64]) {
    let gather = |vals: &[u16]| {
        vals.iter()
            .enumerate()
            .fold(0u64, |acc, (k, &v)| acc | (v as u64) << (k as u32 * B))
    };
    let mut vals = indices.chunks_exact((64 / B) as usize);
    for (w, v) in words.iter_mut().zip(&mut vals) {
        *w = gather(v);
    }
    // The last word is partly used when 1000 is not a multiple of 64 / B.
    let tail = vals.remainder();
    if !tail.is_empty() {
        if let Some(w) = words.last_mut() {
            *w = gather(tail);
        }
    }
}

/// [`pack_all`] for any width: a bit accumulator, values straddling words.
fn pack_stream(indices: &[u16; CHUNK_VOLUME], bits: u8, words: &mut [u64]) {
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
}
