//! Checks of a root index's tables and commit record (vwr-v3.md §4, §5.3, §11).

use std::mem::size_of;

use super::read::bad;
use crate::error::{Result, V3Fault};
use crate::layout::*;

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

/// Page entries (§4.1) of the root index whose pages start at `poff`; returns the entries they
/// hold.
pub(super) fn check_pages(
    pages: &[PageEntry],
    poff: u64,
    limit: u64,
    chunk_count: u64,
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
        if prev.is_some_and(|p| page <= p) {
            return Err(f(
                "page",
                page.into(),
                "pages must be in strictly increasing order",
            ));
        }
        prev = Some(page);
        let count = pe.count.get();
        if !(1..=PAGE_ENTRIES).contains(&count) {
            return Err(f("count", count.into(), "must be 1..=128"));
        }
        if pe.reserved.get() != 0 {
            return Err(f("reserved", pe.reserved.get().into(), "must be 0"));
        }
        let bytes = u64::from(count) * size_of::<ChunkEntryV3>() as u64;
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
