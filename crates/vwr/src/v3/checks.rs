//! Checks of a root index's tables and commit record (vwr-v3.md §4, §5.3, §11).

use std::mem::size_of;

use crate::error::{Result, V3Fault, VwrError};
use crate::layout::*;

pub(crate) fn bad(offset: u64, what: impl Into<String>, reason: V3Fault) -> VwrError {
    VwrError::BadV3 {
        offset,
        what: what.into(),
        reason,
    }
}

/// Group entries (§5.3) of the root index whose groups start at `goff`: every frame inside
/// `[64, limit)`, raw sizes within bounds.
pub(super) fn check_groups(groups: &[GroupEntry], goff: u64, limit: u64) -> Result<()> {
    for (g, ge) in groups.iter().enumerate() {
        let at = goff + (g * size_of::<GroupEntry>()) as u64;
        let (o, s) = (ge.offset.get(), u64::from(ge.stored_size.get()));
        if !in_data(o, s, limit) {
            let reason = V3Fault::OutOfRange {
                offset: o,
                size: s,
                limit,
            };
            return Err(bad(at, format!("group {g}"), reason));
        }
        if ge.raw_size.get() > MAX_GROUP_RAW || ge.raw_size.get() == 0 {
            let reason = V3Fault::Field {
                field: "rawSize",
                value: ge.raw_size.get().into(),
                rule: "must be 1..=1 MiB",
            };
            return Err(bad(at, format!("group {g}"), reason));
        }
    }
    Ok(())
}

/// The rule for page numbers in a page table.
const PAGES_INCREASING: &str = "pages must be in strictly increasing order";
/// The rule for chunk indices in a page.
const ENTRIES_INCREASING: &str = "entries must be in strictly increasing order";

/// Moves `prev` on to `value`; `false` when `value` is not above the previous one (the
/// sequence must be strictly increasing).
fn step_up(prev: &mut Option<u32>, value: u32) -> bool {
    let up = prev.is_none_or(|p| value > p);
    *prev = Some(value);
    up
}

/// Page entries (§4.1) of the root index whose pages start at `poff`, in a file with compact
/// pages (§4.2) or not; returns the entries they hold.
pub(super) fn check_pages(
    pages: &[PageEntry],
    poff: u64,
    limit: u64,
    chunk_count: u64,
    compact: bool,
) -> Result<u64> {
    let mut prev: Option<u32> = None;
    let mut total = 0u64;
    for (n, pe) in pages.iter().enumerate() {
        let at = poff + (n * size_of::<PageEntry>()) as u64;
        let f = |field: &'static str, value: u64, rule: &'static str| {
            bad(
                at,
                format!("page entry {n}"),
                V3Fault::Field { field, value, rule },
            )
        };
        let page = pe.page.get();
        if u64::from(page) * u64::from(PAGE_ENTRIES) >= chunk_count {
            return Err(f("page", page.into(), "outside the world"));
        }
        if !step_up(&mut prev, page) {
            return Err(f("page", page.into(), PAGES_INCREASING));
        }
        let count = pe.count.get();
        if !(1..=PAGE_ENTRIES).contains(&count) {
            return Err(f("count", count.into(), "must be 1..=128"));
        }
        let plain = u64::from(count) * size_of::<ChunkEntryV3>() as u64;
        let stored = u64::from(pe.stored_size.get());
        if !compact && stored != 0 {
            return Err(f("reserved", stored, "must be 0 without compact pages"));
        }
        if compact && !(1..=plain).contains(&stored) {
            return Err(f("storedSize", stored, "must be 1..=28·count"));
        }
        let bytes = if compact { stored } else { plain };
        if !in_data(pe.offset.get(), bytes, limit) {
            let reason = V3Fault::OutOfRange {
                offset: pe.offset.get(),
                size: bytes,
                limit,
            };
            return Err(bad(at, format!("page entry {n}"), reason));
        }
        total += u64::from(count);
    }
    Ok(total)
}

/// The rules of a commit record (vwr-v3.md §11) of the root index at `offset`.
pub(super) fn check_record(r: &CommitRecord, offset: u64, generation: u32) -> Result<()> {
    let at = offset + size_of::<IndexHeader>() as u64;
    let field = |off: usize, field: &'static str, value: u64, rule: &'static str| {
        bad(
            at + off as u64,
            "commit record",
            V3Fault::Field { field, value, rule },
        )
    };
    if r.kind > COMMIT_REVERT {
        return Err(field(36, "kind", r.kind.into(), "must be 0, 1 or 2"));
    }
    if r.reserved != [0; 3] {
        return Err(field(37, "reserved", 1, "must be 0"));
    }
    let prev = r.prev_offset.get();
    if prev == 0 {
        if r.prev_size.get() != 0 || r.prev_generation.get() != 0 {
            return Err(field(
                8,
                "prevSize",
                r.prev_size.get().into(),
                "must be 0 without a previous commit",
            ));
        }
    } else {
        if prev < WORLD_HEADER_V3_SIZE as u64 || prev >= offset {
            return Err(field(
                0,
                "prevOffset",
                prev,
                "must lie between the header and this index",
            ));
        }
        if r.prev_generation.get() >= generation || r.prev_generation.get() == 0 {
            let g = r.prev_generation.get().into();
            return Err(field(
                12,
                "prevGeneration",
                g,
                "must be 1.. below this commit's",
            ));
        }
    }
    Ok(())
}

pub(super) fn in_data(o: u64, s: u64, limit: u64) -> bool {
    s > 0 && o >= WORLD_HEADER_V3_SIZE as u64 && o.checked_add(s).is_some_and(|e| e <= limit)
}

/// The rules of §5 for the entries of the page of `pe` (at file offset `off`; `plain`: each
/// entry's own offset is known), in a commit whose root index is at `limit`.
pub(super) fn check_entries(
    entries: &[ChunkEntryV3],
    groups: &[GroupEntry],
    limit: u64,
    chunk_count: u64,
    pe: &PageEntry,
    plain: bool,
) -> Result<()> {
    let off = pe.offset.get();
    let page = pe.page.get();
    let mut prev: Option<u32> = None;
    for (k, e) in entries.iter().enumerate() {
        let at = off
            + if plain {
                (k * size_of::<ChunkEntryV3>()) as u64
            } else {
                0
            };
        let what = || format!("chunk entry {k} of page {page}");
        let f = |field: &'static str, value: u64, rule: &'static str| {
            bad(at, what(), V3Fault::Field { field, value, rule })
        };
        let i = e.chunk_index.get();
        if u64::from(i) >= chunk_count || i / PAGE_ENTRIES != page {
            return Err(f("chunkIndex", i.into(), "outside the world or its page"));
        }
        if !step_up(&mut prev, i) {
            return Err(f("chunkIndex", i.into(), ENTRIES_INCREASING));
        }
        if e.reserved.get() != 0 {
            return Err(f("reserved", e.reserved.get().into(), "must be 0"));
        }
        let (loc, size, value) = (e.location.get(), u64::from(e.size.get()), e.value.get());
        let range = |offset: u64, size: u64, limit: u64| {
            bad(
                at,
                what(),
                V3Fault::OutOfRange {
                    offset,
                    size,
                    limit,
                },
            )
        };
        match (e.encoding, e.storage) {
            (ENCODING_UNIFORM, STORAGE_INLINE) => {
                if loc != 0 || size != 0 || value > 0xFFFF || e.crc.get() != 0 {
                    let rule = "a uniform entry holds one 16-bit block and nothing else";
                    return Err(f("value", value.into(), rule));
                }
                if value == 0 {
                    return Err(f("value", 0, "an all-air chunk has no entry"));
                }
            }
            (ENCODING_PACKED | ENCODING_RLE, STORAGE_RAW) => {
                if !in_data(loc, size, limit) || value != 0 {
                    return Err(range(loc, size, limit));
                }
            }
            (ENCODING_PACKED | ENCODING_RLE, STORAGE_ZSTD) => {
                if !in_data(loc, size, limit) {
                    return Err(range(loc, size, limit));
                }
                if value == 0 || value > MAX_PAYLOAD {
                    return Err(f(
                        "value",
                        value.into(),
                        "decompressed size must be 1..=4 MiB",
                    ));
                }
            }
            (ENCODING_PACKED | ENCODING_RLE, STORAGE_GROUP) => {
                let Some(g) = groups.get(loc.min(usize::MAX as u64) as usize) else {
                    return Err(f("location", loc, "group number out of range"));
                };
                let raw = u64::from(g.raw_size.get());
                if size == 0 || u64::from(value) + size > raw {
                    return Err(range(value.into(), size, raw));
                }
            }
            (enc, sto) => {
                let v = (u64::from(enc) << 8) | u64::from(sto);
                return Err(f("encoding/storage", v, "not a valid combination"));
            }
        }
    }
    Ok(())
}
