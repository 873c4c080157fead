//! Compact entry pages (docs/format/vwr-v3.md §4.2): items of variable-length integers, runs of
//! uniform chunks, group entries that follow the one before them.

use std::borrow::Cow;
use std::mem::size_of;

use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::IntoBytes;

use super::checks::bad;
use crate::error::{Result, V3Fault, VwrError};
use crate::layout::*;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Whether `e` continues the group entry `p` (same group, payload right after `p`'s).
fn follows(p: &ChunkEntryV3, e: &ChunkEntryV3) -> bool {
    p.storage == STORAGE_GROUP
        && e.storage == STORAGE_GROUP
        && p.location == e.location
        && p.value.get().checked_add(p.size.get()) == Some(e.value.get())
}

/// Uniform inline entries of `block` with consecutive chunk indices at the start of `es`.
fn run_len(es: &[ChunkEntryV3]) -> usize {
    let first = &es[0];
    es.iter()
        .enumerate()
        .take_while(|(n, e)| {
            e.encoding == ENCODING_UNIFORM
                && e.storage == STORAGE_INLINE
                && e.value == first.value
                && u64::from(e.chunk_index.get()) == u64::from(first.chunk_index.get()) + *n as u64
        })
        .count()
}

/// The compact form of the entries of page `page` (valid entries, increasing chunk index, all
/// in the page).
pub(crate) fn encode_page(entries: &[ChunkEntryV3], page: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * 8);
    let mut next = u64::from(page) * u64::from(PAGE_ENTRIES);
    let mut k = 0usize;
    while k < entries.len() {
        let e = &entries[k];
        let i = u64::from(e.chunk_index.get());
        put_varint(&mut out, i.saturating_sub(next));
        if e.encoding == ENCODING_UNIFORM && e.storage == STORAGE_INLINE {
            let run = run_len(&entries[k..]);
            out.push(ITEM_RUN);
            put_varint(&mut out, run as u64);
            put_varint(&mut out, e.value.get().into());
            k += run;
            next = i + run as u64;
            continue;
        }
        let following = k > 0 && follows(&entries[k - 1], e);
        let form = if following { ITEM_FOLLOWING } else { e.storage };
        out.push(e.encoding * 16 + form);
        if !following {
            put_varint(&mut out, e.location.get());
        }
        put_varint(&mut out, e.size.get().into());
        if form == STORAGE_ZSTD || form == STORAGE_GROUP {
            put_varint(&mut out, e.value.get().into());
        }
        out.extend_from_slice(e.crc.as_bytes());
        k += 1;
        next = i + 1;
    }
    out
}

/// A page's stored bytes in the file's form: compact, or the entries as they are.
pub(crate) fn page_bytes(entries: &[ChunkEntryV3], page: u32, compact: bool) -> Cow<'_, [u8]> {
    if compact {
        Cow::Owned(encode_page(entries, page))
    } else {
        Cow::Borrowed(entries.as_bytes())
    }
}

/// The page entry of `entries` stored as `bytes` at `offset`.
pub(crate) fn page_entry(
    page: u32,
    count: usize,
    bytes: &[u8],
    offset: u64,
    compact: bool,
) -> PageEntry {
    PageEntry {
        page: U32::new(page),
        count: U32::new(count as u32),
        offset: U64::new(offset),
        crc: U32::new(crc32fast::hash(bytes)),
        stored_size: U32::new(if compact { bytes.len() as u32 } else { 0 }),
    }
}

/// Bytes a page occupies in the file.
pub(crate) fn stored_len(pe: &PageEntry, compact: bool) -> u64 {
    if compact {
        u64::from(pe.stored_size.get())
    } else {
        u64::from(pe.count.get()) * size_of::<ChunkEntryV3>() as u64
    }
}

/// Reads the items of one compact page.
struct Items<'a> {
    bytes: &'a [u8],
    at: usize,
    /// File offset of the page.
    base: u64,
    page: u32,
    /// Where the current item starts.
    item: usize,
}

impl Items<'_> {
    fn fault(&self, field: &'static str, value: u64, rule: &'static str) -> VwrError {
        bad(
            self.base + self.item as u64,
            format!(
                "item at byte {} of compact entry page {}",
                self.item, self.page
            ),
            V3Fault::Field { field, value, rule },
        )
    }

    fn byte(&mut self, field: &'static str) -> Result<u8> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| self.fault(field, self.at as u64, "the page ends inside the item"))?;
        self.at += 1;
        Ok(b)
    }

    /// A shortest-form LEB128 varint of at most `bits` bits.
    fn varint(&mut self, field: &'static str, bits: u32) -> Result<u64> {
        let mut v = 0u64;
        let mut shift = 0u32;
        loop {
            let b = self.byte(field)?;
            let low = u64::from(b & 0x7f);
            if shift >= bits || (shift > 0 && low >> (bits - shift).min(63) != 0) {
                return Err(self.fault(field, low, "varint wider than its field"));
            }
            v |= low << shift;
            if b & 0x80 == 0 {
                if b == 0 && shift > 0 {
                    return Err(self.fault(field, v, "varint not in its shortest form"));
                }
                return Ok(v);
            }
            shift += 7;
        }
    }

    fn crc(&mut self) -> Result<U32> {
        let mut b = [0u8; 4];
        for x in &mut b {
            *x = self.byte("crc")?;
        }
        Ok(U32::new(u32::from_le_bytes(b)))
    }
}

fn entry(index: u64, encoding: u8, storage: u8) -> ChunkEntryV3 {
    ChunkEntryV3 {
        chunk_index: U32::new(index as u32),
        encoding,
        storage,
        reserved: U16::ZERO,
        location: U64::ZERO,
        size: U32::ZERO,
        value: U32::ZERO,
        crc: U32::ZERO,
    }
}

/// Decodes the compact page `page` (stored at file offset `base`) into exactly `count`
/// entries; the entries still need the checks of §5.
pub(crate) fn decode_page(
    bytes: &[u8],
    page: u32,
    count: usize,
    base: u64,
) -> Result<Vec<ChunkEntryV3>> {
    let mut it = Items {
        bytes,
        at: 0,
        base,
        page,
        item: 0,
    };
    let first = u64::from(page) * u64::from(PAGE_ENTRIES);
    let end = first + u64::from(PAGE_ENTRIES);
    let mut out: Vec<ChunkEntryV3> = Vec::with_capacity(count.min(PAGE_ENTRIES as usize));
    let mut next = first;
    while it.at < bytes.len() {
        it.item = it.at;
        let gap = it.varint("gap", 32)?;
        let i = next + gap;
        if i >= end {
            return Err(it.fault("gap", gap, "the item starts outside its page"));
        }
        let tag = it.byte("tag")?;
        let (encoding, form) = (tag >> 4, tag & 0x0f);
        let left = count - out.len().min(count);
        if left == 0 {
            return Err(it.fault("tag", tag.into(), "more entries than the page's count"));
        }
        if tag == ITEM_RUN {
            let run = it.varint("run", 32)?;
            let block = it.varint("block", 32)?;
            if run == 0 || i + run > end || run > left as u64 {
                return Err(it.fault("run", run, "1.. entries inside the page and its count"));
            }
            for k in 0..run {
                let mut e = entry(i + k, ENCODING_UNIFORM, STORAGE_INLINE);
                e.value = U32::new(block as u32);
                out.push(e);
            }
            next = i + run;
            continue;
        }
        if !matches!(encoding, ENCODING_PACKED | ENCODING_RLE)
            || !matches!(
                form,
                STORAGE_RAW | STORAGE_ZSTD | STORAGE_GROUP | ITEM_FOLLOWING
            )
        {
            return Err(it.fault("tag", tag.into(), "not an item tag"));
        }
        let mut e = entry(i, encoding, form);
        if form == ITEM_FOLLOWING {
            let Some(p) = out.last().filter(|p| p.storage == STORAGE_GROUP) else {
                return Err(it.fault("tag", tag.into(), "no group entry before it"));
            };
            e.storage = STORAGE_GROUP;
            e.location = p.location;
            e.size = U32::new(it.varint("size", 32)? as u32);
            let value = u64::from(p.value.get()) + u64::from(p.size.get());
            if value > u64::from(u32::MAX) {
                return Err(it.fault("value", value, "must fit 32 bits"));
            }
            e.value = U32::new(value as u32);
        } else {
            e.location = U64::new(it.varint("location", 64)?);
            e.size = U32::new(it.varint("size", 32)? as u32);
            if form != STORAGE_RAW {
                e.value = U32::new(it.varint("value", 32)? as u32);
            }
        }
        e.crc = it.crc()?;
        out.push(e);
        next = i + 1;
    }
    if out.len() != count {
        it.item = it.at;
        return Err(it.fault(
            "count",
            out.len() as u64,
            "the items must hold exactly the page's count",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(i: u32, enc: u8, sto: u8, loc: u64, size: u32, value: u32, crc: u32) -> ChunkEntryV3 {
        ChunkEntryV3 {
            chunk_index: U32::new(i),
            encoding: enc,
            storage: sto,
            reserved: U16::ZERO,
            location: U64::new(loc),
            size: U32::new(size),
            value: U32::new(value),
            crc: U32::new(crc),
        }
    }

    /// Page 3 (chunk indices 384..512) with every kind of item.
    fn mixed() -> Vec<ChunkEntryV3> {
        let u = |i, b| e(i, ENCODING_UNIFORM, STORAGE_INLINE, 0, 0, b, 0);
        vec![
            u(384, 48),
            u(385, 48),
            u(386, 48),
            u(388, 48),
            u(389, 0xFFFF),
            e(390, ENCODING_RLE, STORAGE_GROUP, 7, 40, 0, 0xDEAD_BEEF),
            e(391, ENCODING_RLE, STORAGE_GROUP, 7, 33, 40, 1),
            e(392, ENCODING_PACKED, STORAGE_GROUP, 7, 90, 73, 2),
            e(393, ENCODING_PACKED, STORAGE_GROUP, 8, 90, 0, 3),
            e(
                400,
                ENCODING_PACKED,
                STORAGE_RAW,
                u64::MAX,
                u32::MAX,
                0,
                u32::MAX,
            ),
            e(401, ENCODING_RLE, STORAGE_ZSTD, 1 << 40, 17, 4 << 20, 5),
            u(511, 1),
        ]
    }

    #[test]
    fn pages_round_trip_and_are_never_larger_than_plain() {
        let es = mixed();
        let b = encode_page(&es, 3);
        assert!(b.len() <= es.as_bytes().len(), "{} bytes", b.len());
        assert_eq!(decode_page(&b, 3, es.len(), 1000).unwrap(), es);
        // A full page of one block is one item of 5 bytes.
        let full: Vec<_> = (0..128)
            .map(|i| e(128 + i, ENCODING_UNIFORM, STORAGE_INLINE, 0, 0, 48, 0))
            .collect();
        let b = encode_page(&full, 1);
        assert_eq!(b, [0, ITEM_RUN, 0x80, 0x01, 48]);
        assert_eq!(decode_page(&b, 1, 128, 0).unwrap(), full);
        // The largest items: every varint at its widest.
        let wide: Vec<_> = (0..128)
            .map(|i| {
                e(
                    i,
                    ENCODING_RLE,
                    STORAGE_ZSTD,
                    u64::MAX,
                    u32::MAX,
                    u32::MAX,
                    9,
                )
            })
            .collect();
        let b = encode_page(&wide, 0);
        assert!(b.len() <= wide.as_bytes().len());
        assert_eq!(decode_page(&b, 0, 128, 0).unwrap(), wide);
    }

    /// Valid entries of page 2 from random choices: (gap, kind, block or size, group step).
    fn entries_of(spec: &[(u8, u8, u32, bool)]) -> Vec<ChunkEntryV3> {
        let (mut i, mut out) = (256u32, Vec::new());
        let (mut group, mut at) = (0u64, 0u32);
        for &(gap, kind, v, next_group) in spec {
            i += u32::from(gap % 3);
            if i >= 384 {
                break;
            }
            let enc = 1 + kind % 2;
            out.push(match kind % 4 {
                0 => e(i, ENCODING_UNIFORM, STORAGE_INLINE, 0, 0, 1 + v % 3, 0),
                1 => e(i, enc, STORAGE_RAW, u64::from(v) << 9, v, 0, v ^ 7),
                2 => e(i, enc, STORAGE_ZSTD, u64::from(v) * 3, v % 999 + 1, v, v),
                _ => {
                    if next_group {
                        (group, at) = (group + 1, 0);
                    }
                    let size = v % 5000 + 1;
                    at += size;
                    e(i, enc, STORAGE_GROUP, group, size, at - size, v)
                }
            });
            i += 1;
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn random_pages_round_trip(
            spec in proptest::collection::vec(
                (proptest::prelude::any::<u8>(), 0u8..8, proptest::prelude::any::<u32>(),
                 proptest::prelude::any::<bool>()),
                1..140,
            )
        ) {
            let es = entries_of(&spec);
            let b = encode_page(&es, 2);
            proptest::prop_assert!(b.len() <= es.as_bytes().len());
            proptest::prop_assert_eq!(decode_page(&b, 2, es.len(), 0).unwrap(), es);
        }

        #[test]
        fn random_bytes_decode_to_an_error_or_exactly_count_entries(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
            count in 1usize..=128,
        ) {
            if let Ok(es) = decode_page(&bytes, 2, count, 0) {
                proptest::prop_assert_eq!(es.len(), count);
                proptest::prop_assert!(es.iter().all(|e| e.chunk_index.get() / PAGE_ENTRIES == 2));
            }
        }
    }

    fn fails(bytes: &[u8], count: usize, what: &str) {
        match decode_page(bytes, 3, count, 5000) {
            Err(VwrError::BadV3 { offset, .. }) => {
                assert!(
                    (5000..=5000 + bytes.len() as u64).contains(&offset),
                    "{what}"
                )
            }
            other => panic!("{what}: {other:?}"),
        }
    }

    #[test]
    fn malformed_items_are_typed_errors_at_their_offset() {
        let good = encode_page(&mixed(), 3);
        fails(&good, 11, "fewer entries than the count");
        fails(&good, 13, "more entries than the items");
        fails(&good[..good.len() - 1], 12, "cut inside an item");
        fails(&[0x80, 0x01, 0, 1, 1], 1, "gap leaving the page");
        fails(&[0, 0, 0x81, 0x01, 1], 129, "run leaving the page");
        fails(&[0, 0, 0, 1], 1, "empty run");
        fails(&[0, 0, 2, 1], 1, "run above the count");
        fails(&[0, 0, 0x81, 0x00, 1], 1, "varint not shortest");
        fails(
            &[0, 0x11, 0xff, 0xff, 0xff, 0xff, 0x1f],
            1,
            "varint too wide",
        );
        fails(&[0, 0x15, 1, 1, 0, 0, 0, 0], 1, "unknown form");
        fails(&[0, 0x31, 1, 1, 0, 0, 0, 0], 1, "unknown encoding");
        fails(&[0, 0x10, 1, 1], 1, "inline payload encoding");
        fails(
            &[0, 0x14, 1, 0, 0, 0, 0],
            1,
            "following without a group before",
        );
        fails(
            &[0, 0, 1, 5, 0, 0x14, 1, 0, 0, 0, 0],
            2,
            "following a uniform",
        );
        fails(&[], 1, "no items");
    }
}
