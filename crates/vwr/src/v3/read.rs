//! v3 reading: header, commit choice, root index and page validation, chunk decoding.

use std::borrow::Cow;
use std::mem::size_of;

use rayon::prelude::*;
use zerocopy::little_endian::U16;
use zerocopy::{FromBytes, IntoBytes};

use crate::block::Block;
use crate::chunk::{bits_for, pack_all, Chunk, CHUNK_VOLUME, MAX_PALETTE};
use crate::codec::{read_chunk, read_meta};
use crate::error::{Result, V3Fault, VwrError};
use crate::layout::*;
use crate::world::World;

use super::checks::{bad, check_entries, check_groups, check_pages, check_record};
use super::compact::{decode_page, stored_len};
use super::*;

fn rle_decode(p: &[u8], pos: [u16; 3], base: u64) -> Result<Chunk> {
    let bad = |field: &'static str, value: u64, rule: &'static str| VwrError::BadV3 {
        offset: base,
        what: format!("RLE chunk {pos:?}"),
        reason: V3Fault::Field { field, value, rule },
    };
    let (h, rest) = crate::codec::record::<RleHeader>(p, base, "RLE header")?;
    let pcount = h.palette_count.get() as usize;
    let rcount = h.run_count.get() as usize;
    let meta = h.meta_size.get() as usize;
    if !(1..=MAX_PALETTE).contains(&pcount) {
        return Err(bad("paletteCount", pcount as u64, "must be 1..=256"));
    }
    if !(1..=CHUNK_VOLUME).contains(&rcount) {
        return Err(bad("runCount", rcount as u64, "must be 1..=1000"));
    }
    let need = 2 * pcount + 4 * rcount + meta;
    if rest.len() != need {
        return Err(VwrError::BadV3 {
            offset: base,
            what: format!("RLE chunk {pos:?}"),
            reason: V3Fault::Size {
                found: p.len() as u64,
                expected: (size_of::<RleHeader>() + need) as u64,
            },
        });
    }
    let (pal, rest) = <[U16]>::ref_from_prefix_with_elems(rest, pcount).expect("size checked");
    let (runs, meta_bytes) =
        <[RleRun]>::ref_from_prefix_with_elems(rest, rcount).expect("size checked");
    if !runs_valid(runs, pcount) {
        // Some run is bad: find the first one, with the error a run-by-run read reports.
        let mut at = 0usize;
        for r in runs {
            let n = r.count.get() as usize;
            let i = r.palette_index.get();
            if n == 0 {
                return Err(bad("run count", 0, "runs hold at least one cell"));
            }
            if i as usize >= pcount {
                return Err(bad("paletteIndex", i.into(), "must be below paletteCount"));
            }
            if at + n > CHUNK_VOLUME {
                return Err(bad("run counts", (at + n) as u64, "must sum to 1000"));
            }
            at += n;
        }
        return Err(bad("run counts", at as u64, "must sum to 1000"));
    }
    let palette: Vec<Block> = pal.iter().map(|v| Block(v.get())).collect();
    let bits = bits_for(pcount);
    let words = if bits == 8 {
        // A byte per cell (indices are below 256): the bytes are the little-endian words.
        let mut idx = [0u8; CHUNK_VOLUME];
        rle_fill(runs, &mut idx, |i| i as u8);
        idx.chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect()
    } else {
        let mut idx = [0u16; CHUNK_VOLUME];
        rle_fill(runs, &mut idx, |i| i);
        pack_all(&idx, bits)
    };
    let records = if meta > 0 {
        read_meta(meta_bytes, pos, base + (p.len() - meta) as u64)?
    } else {
        Vec::new()
    };
    Ok(Chunk::from_parts(palette, words, records))
}

/// Whether every run holds at least one cell of a palette entry and the runs cover exactly
/// the 1000 cells (then no prefix of them passes 1000): one branch-free pass over all runs.
fn runs_valid(runs: &[RleRun], pcount: usize) -> bool {
    let (mut total, mut empty, mut outside) = (0u32, false, false);
    for r in runs {
        let n = r.count.get();
        total += u32::from(n);
        empty |= n == 0;
        outside |= usize::from(r.palette_index.get()) >= pcount;
    }
    !empty && !outside && total as usize == CHUNK_VOLUME
}

/// Expands valid runs (see [`runs_valid`]) into palette indices, each converted by `f`.
fn rle_fill<T: Copy>(runs: &[RleRun], idx: &mut [T; CHUNK_VOLUME], f: impl Fn(u16) -> T) {
    if runs.len() == CHUNK_VOLUME {
        // 1000 runs over 1000 cells: one cell each (a noisy chunk), a plain copy.
        for (o, r) in idx.iter_mut().zip(runs) {
            *o = f(r.palette_index.get());
        }
        return;
    }
    let mut at = 0usize;
    for r in runs {
        let n = usize::from(r.count.get());
        idx[at..at + n].fill(f(r.palette_index.get()));
        at += n;
    }
}

/// Decodes one payload of `encoding` (bytes at file offset `base`, or inside a frame).
pub(crate) fn decode_payload(encoding: u8, p: &[u8], pos: [u16; 3], base: u64) -> Result<Chunk> {
    match encoding {
        ENCODING_PACKED => {
            let (c, used) = read_chunk(p, pos, base, None)?;
            if used != p.len() {
                return Err(VwrError::BadV3 {
                    offset: base,
                    what: format!("packed chunk {pos:?}"),
                    reason: V3Fault::Size {
                        found: p.len() as u64,
                        expected: used as u64,
                    },
                });
            }
            Ok(c)
        }
        _ => rle_decode(p, pos, base),
    }
}

/// Where v3 bytes come from: a whole file in memory or positioned reads.
pub(crate) trait Source: Sync {
    fn len(&self) -> u64;
    fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Cow<'_, [u8]>>;
}

impl Source for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }
    fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Cow<'_, [u8]>> {
        offset
            .checked_add(len as u64)
            .filter(|&e| e <= <[u8]>::len(self) as u64)
            .map(|e| Cow::Borrowed(&self[offset as usize..e as usize]))
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))
    }
}

/// The header's fixed part and its two slots, checked.
pub(crate) struct Header {
    pub dims: [u32; 3],
    pub slots: [CommitSlot; 2],
    /// [`FLAG_HISTORY`]: every root index carries a commit record.
    pub history: bool,
    /// [`FLAG_COMPACT`]: every entry page is compact (vwr-v3.md §4.2).
    pub compact: bool,
    /// [`FLAG_LOD`]: levels of detail stored above level 0 (vwr-v3.md §13); 0 without it.
    pub lod: u8,
}

pub(crate) fn parse_header(bytes: &[u8]) -> Result<Header> {
    let (h, _) = crate::codec::record::<WorldHeaderV3>(bytes, 0, "world header v3")?;
    if &h.magic != WORLD_MAGIC {
        return Err(VwrError::BadMagic {
            offset: 0,
            expected: "VWR1",
            found: h.magic,
        });
    }
    if h.version != WORLD_VERSION_V3 {
        return Err(VwrError::UnsupportedVersion {
            offset: 4,
            what: "world header",
            found: h.version.into(),
            supported: "2, 3",
        });
    }
    let computed = crc32fast::hash(&h.as_bytes()[..16]);
    if computed != h.header_crc.get() {
        return Err(bad(
            16,
            "header",
            V3Fault::Crc {
                stored: h.header_crc.get(),
                computed,
            },
        ));
    }
    let field = |offset: u64, field: &'static str, value: u64, rule: &'static str| {
        bad(offset, "header", V3Fault::Field { field, value, rule })
    };
    if h.chunk_size != 10 {
        return Err(field(5, "chunkSize", h.chunk_size.into(), "must be 10"));
    }
    if h.flags.get() & !(FLAG_HISTORY | FLAG_COMPACT | FLAG_LOD) != 0 {
        return Err(field(
            6,
            "flags",
            h.flags.get().into(),
            "only bits 0 (history), 1 (compact pages) and 2 (levels of detail) are defined in v3",
        ));
    }
    if h.reserved != 0 || h.reserved2.get() != 0 {
        return Err(field(15, "reserved", 1, "must be 0"));
    }
    let lod = h.lod_levels;
    let lod_flag = h.flags.get() & FLAG_LOD != 0;
    if lod_flag != (lod > 0) || lod > crate::lod::MAX_LOD_LEVELS {
        let rule = "1..=8 exactly when flag bit 2 (levels of detail) is set, else 0";
        return Err(field(14, "lodLevels", lod.into(), rule));
    }
    if lod > 0 && h.flags.get() & FLAG_HISTORY == 0 {
        let rule = "levels of detail need flag bit 0 (history)";
        return Err(field(6, "flags", h.flags.get().into(), rule));
    }
    let dims = h.chunks.map(|v| u32::from(v.get()));
    for (k, &d) in dims.iter().enumerate() {
        if d == 0 {
            return Err(field(
                8 + 2 * k as u64,
                "chunks",
                0,
                "each axis must be at least 1",
            ));
        }
    }
    if crate::lod::space_count(dims, lod) > crate::world::MAX_CHUNK_COUNT {
        return Err(field(
            8,
            "chunks",
            0,
            "more than 2^32-1 chunks, levels of detail included",
        ));
    }
    Ok(Header {
        dims,
        slots: h.slots,
        history: h.flags.get() & FLAG_HISTORY != 0,
        compact: h.flags.get() & FLAG_COMPACT != 0,
        lod,
    })
}

/// A parsed, validated root index (entry pages are read on demand).
#[derive(Clone, Debug)]
pub(crate) struct Index {
    pub generation: u32,
    pub offset: u64,
    pub size: u64,
    pub sky_region: u32,
    pub mission_number: u32,
    pub spawn: Option<[i32; 3]>,
    pub data_end: u64,
    pub live_bytes: u64,
    pub groups: Vec<GroupEntry>,
    pub pages: Vec<PageEntry>,
    /// Slot number used (0 = A).
    pub slot: usize,
    /// The commit record (files with [`FLAG_HISTORY`]).
    pub record: Option<CommitRecord>,
    /// The file's entry pages are compact ([`FLAG_COMPACT`]).
    pub compact: bool,
    /// Levels of detail above level 0 the file stores ([`FLAG_LOD`]).
    pub lod: u8,
    /// The file's chunks per axis (level 0).
    pub dims: [u32; 3],
}

fn parse_index<S: Source + ?Sized>(src: &S, h: &Header, k: usize) -> Result<Index> {
    let slot = &h.slots[k];
    let so = (COMMIT_SLOTS_OFFSET + k * size_of::<CommitSlot>()) as u64;
    let what = if k == 0 {
        "commit slot A"
    } else {
        "commit slot B"
    };
    if slot.as_bytes().iter().all(|&b| b == 0) {
        return Err(bad(so, what, V3Fault::Unused));
    }
    let computed = crc32fast::hash(&slot.as_bytes()[..16]);
    if computed != slot.slot_crc.get() {
        let stored = slot.slot_crc.get();
        return Err(bad(so, what, V3Fault::Crc { stored, computed }));
    }
    let generation = slot.generation.get();
    if generation == 0 {
        let reason = V3Fault::Field {
            field: "generation",
            value: 0,
            rule: "must be at least 1",
        };
        return Err(bad(so, what, reason));
    }
    let offset = slot.index_offset.get();
    let size = u64::from(slot.index_size.get());
    let mut ix = parse_root(src, h, offset, size, generation).map_err(|e| match e {
        VwrError::BadV3 {
            offset: 0, reason, ..
        } => bad(so, what, reason),
        e => e,
    })?;
    ix.slot = k;
    Ok(ix)
}

/// Reads and checks the root index at `offset` (vwr-v3.md §4) for commit `generation`; a
/// range outside the file is reported at offset 0 for the caller to place.
pub(crate) fn parse_root<S: Source + ?Sized>(
    src: &S,
    hd: &Header,
    offset: u64,
    size: u64,
    generation: u32,
) -> Result<Index> {
    let (dims, history) = (hd.dims, hd.history);
    let file = src.len();
    if offset < WORLD_HEADER_V3_SIZE as u64 || offset.checked_add(size).is_none_or(|e| e > file) {
        let reason = V3Fault::OutOfRange {
            offset,
            size,
            limit: file,
        };
        return Err(bad(0, "index", reason));
    }
    let record_size = if history {
        size_of::<CommitRecord>() as u64
    } else {
        0
    };
    let at_least = size_of::<IndexHeader>() as u64 + record_size + 4;
    if size < at_least {
        let reason = V3Fault::Size {
            found: size,
            expected: at_least,
        };
        return Err(bad(offset, "index", reason));
    }
    // Bounded by the file size (checked above).
    let bytes = src
        .read_at(offset, size as usize)
        .map_err(VwrError::Write)?;
    let (h, rest) = IndexHeader::ref_from_prefix(&bytes).expect("size checked");
    if &h.magic != INDEX_MAGIC {
        return Err(VwrError::BadMagic {
            offset,
            expected: "VWX1",
            found: h.magic,
        });
    }
    let entries_n = u64::from(h.entry_count.get());
    let groups_n = u64::from(h.group_count.get());
    let pages_n = u64::from(h.page_count.get());
    let expected = index_size(groups_n, pages_n) + record_size - size_of::<CommitRecord>() as u64;
    if expected != size {
        return Err(bad(
            offset,
            "index",
            V3Fault::Size {
                found: size,
                expected,
            },
        ));
    }
    let body = &bytes[..bytes.len() - 4];
    let stored = u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().expect("4 bytes"));
    let computed = crc32fast::hash(body);
    if stored != computed {
        return Err(bad(
            offset + size - 4,
            "index",
            V3Fault::Crc { stored, computed },
        ));
    }
    let field = |off: usize, field: &'static str, value: u64, rule: &'static str| {
        bad(
            offset + off as u64,
            "index",
            V3Fault::Field { field, value, rule },
        )
    };
    if h.generation.get() != generation {
        let g = h.generation.get().into();
        return Err(field(4, "generation", g, "must equal the commit slot's"));
    }
    let chunk_count = crate::lod::space_count(dims, hd.lod);
    if entries_n > chunk_count {
        return Err(field(
            8,
            "entryCount",
            entries_n,
            "more entries than chunks",
        ));
    }
    // No rule ties groupCount to entryCount: a commit that removes chunks keeps the groups
    // of the commits before it (entries of unchanged pages name them by number), so a group
    // may have no entry left until a compaction (vwr-v3.md §4). The index size, checked above
    // against the bytes read, bounds groupCount.
    if h.data_end.get() != offset + size {
        let v = h.data_end.get();
        return Err(field(40, "dataEnd", v, "must be the end of the index"));
    }
    let sp = h.spawn.map(|v| v.get());
    let spawn = if sp == [0, 0, 0] {
        None
    } else {
        for k in 0..3 {
            if sp[k] == 0 || sp[k] > dims[k] * 10 {
                let rule = "cell + 1 must be 1..=blocks on the axis (or all 0)";
                return Err(field(24 + 4 * k, "spawn", sp[k].into(), rule));
            }
        }
        Some(sp.map(|v| v as i32 - 1))
    };
    let (record, rest) = if history {
        let (r, rest) = CommitRecord::read_from_prefix(rest).expect("size checked");
        check_record(&r, offset, generation)?;
        (Some(r), rest)
    } else {
        (None, rest)
    };
    let (groups, rest) =
        <[GroupEntry]>::ref_from_prefix_with_elems(rest, groups_n as usize).expect("size checked");
    let (pages, _) =
        <[PageEntry]>::ref_from_prefix_with_elems(rest, pages_n as usize).expect("size checked");
    // Every referenced byte lies between the header and the index.
    let goff = offset + size_of::<IndexHeader>() as u64 + record_size;
    check_groups(groups, goff, offset)?;
    let poff = goff + std::mem::size_of_val(groups) as u64;
    let total = check_pages(pages, poff, offset, chunk_count, hd.compact)?;
    if total != entries_n {
        return Err(field(
            8,
            "entryCount",
            entries_n,
            "must equal the sum of the page counts",
        ));
    }
    Ok(Index {
        generation,
        offset,
        size,
        sky_region: h.sky_region.get(),
        mission_number: h.mission_number.get(),
        spawn,
        data_end: offset + size,
        live_bytes: h.live_bytes.get(),
        groups: groups.to_vec(),
        pages: pages.to_vec(),
        slot: 0,
        record,
        compact: hd.compact,
        lod: hd.lod,
        dims: hd.dims,
    })
}

/// Reads and validates the entries of page `n` of a commit.
pub(crate) fn read_page<S: Source + ?Sized>(
    src: &S,
    dims: [u32; 3],
    ix: &Index,
    n: usize,
) -> Result<Vec<ChunkEntryV3>> {
    let pe = &ix.pages[n];
    let count = pe.count.get() as usize;
    let off = pe.offset.get();
    // Bounded: at most 28·128 bytes, inside the file (checked when the index was parsed).
    let len = stored_len(pe, ix.compact) as usize;
    let bytes = src.read_at(off, len).map_err(VwrError::Write)?;
    let computed = crc32fast::hash(&bytes);
    if computed != pe.crc.get() {
        let stored = pe.crc.get();
        return Err(bad(
            off,
            format!("entry page {n}"),
            V3Fault::Crc { stored, computed },
        ));
    }
    let entries = if ix.compact {
        decode_page(&bytes, pe.page.get(), count, off)?
    } else {
        let (es, _) =
            <[ChunkEntryV3]>::ref_from_prefix_with_elems(&bytes, count).expect("size checked");
        es.to_vec()
    };
    let chunk_count = crate::lod::space_count(dims, ix.lod);
    check_entries(
        &entries,
        &ix.groups,
        ix.offset,
        chunk_count,
        pe,
        !ix.compact,
    )?;
    Ok(entries)
}

/// Entry pages from which [`all_entries`] reads in parallel.
const PARALLEL_PAGES: usize = 4096;

/// Every entry of a commit, page by page.
pub(crate) fn all_entries<S: Source + ?Sized>(
    src: &S,
    dims: [u32; 3],
    ix: &Index,
) -> Result<Vec<ChunkEntryV3>> {
    // A few thousand pages read faster on this thread than the pool can be woken for them.
    let pages: Vec<Vec<ChunkEntryV3>> = if ix.pages.len() < PARALLEL_PAGES {
        (0..ix.pages.len())
            .map(|n| read_page(src, dims, ix, n))
            .collect::<Result<_>>()?
    } else {
        (0..ix.pages.len())
            .into_par_iter()
            .map(|n| read_page(src, dims, ix, n))
            .collect::<Result<_>>()?
    };
    Ok(pages.concat())
}

/// The entry of one chunk, reading only its page.
pub(crate) fn find_entry<S: Source + ?Sized>(
    src: &S,
    dims: [u32; 3],
    ix: &Index,
    chunk_index: u32,
) -> Result<Option<ChunkEntryV3>> {
    let page = chunk_index / PAGE_ENTRIES;
    let Ok(n) = ix.pages.binary_search_by_key(&page, |p| p.page.get()) else {
        return Ok(None);
    };
    let entries = read_page(src, dims, ix, n)?;
    Ok(entries
        .binary_search_by_key(&chunk_index, |e| e.chunk_index.get())
        .ok()
        .map(|k| entries[k]))
}

/// Picks the newest readable commit (vwr-v3.md §3); the second value is the generation of a
/// newer commit that could not be read, if any.
pub(crate) fn choose_commit<S: Source + ?Sized>(
    src: &S,
    h: &Header,
) -> Result<(Index, Option<u32>)> {
    let a = parse_index(src, h, 0);
    let b = parse_index(src, h, 1);
    let gen = |k: usize| h.slots[k].generation.get();
    match (a, b) {
        (Ok(a), Ok(b)) => {
            if a.generation == b.generation {
                return Err(bad(
                    COMMIT_SLOTS_OFFSET as u64,
                    "commit slots",
                    V3Fault::SameGeneration(a.generation),
                ));
            }
            Ok((if a.generation > b.generation { a } else { b }, None))
        }
        (Ok(a), Err(_)) => {
            let newer = (gen(1) > a.generation && slot_crc_ok(&h.slots[1])).then(|| gen(1));
            Ok((a, newer))
        }
        (Err(_), Ok(b)) => {
            let newer = (gen(0) > b.generation && slot_crc_ok(&h.slots[0])).then(|| gen(0));
            Ok((b, newer))
        }
        (Err(ea), Err(eb)) => {
            // A file with one used slot reports that slot's own error.
            let a_unused = h.slots[0].as_bytes().iter().all(|&x| x == 0);
            let b_unused = h.slots[1].as_bytes().iter().all(|&x| x == 0);
            if b_unused && !a_unused {
                return Err(ea);
            }
            if a_unused && !b_unused {
                return Err(eb);
            }
            Err(bad(
                COMMIT_SLOTS_OFFSET as u64,
                "commit slots",
                V3Fault::NoCommit {
                    a: ea.to_string(),
                    b: eb.to_string(),
                },
            ))
        }
    }
}

fn slot_crc_ok(s: &CommitSlot) -> bool {
    crc32fast::hash(&s.as_bytes()[..16]) == s.slot_crc.get()
}

fn pos16(dims: [u32; 3], i: u32) -> [u16; 3] {
    delinear(dims, i).map(|v| v as u16)
}

/// Decompresses one zstd frame that must hold exactly `raw` bytes (checked against `limit`
/// before allocating).
pub(crate) fn unzstd(
    frame: &[u8],
    raw: u32,
    limit: u32,
    offset: u64,
    what: impl Fn() -> String,
) -> Result<Vec<u8>> {
    if raw > limit {
        return Err(bad(
            offset,
            what(),
            V3Fault::Field {
                field: "decompressed size",
                value: raw.into(),
                rule: "above the format's limit",
            },
        ));
    }
    let out = zstd::bulk::decompress(frame, raw as usize)
        .map_err(|e| bad(offset, what(), V3Fault::Zstd(e.to_string())))?;
    if out.len() != raw as usize {
        return Err(bad(
            offset,
            what(),
            V3Fault::Size {
                found: out.len() as u64,
                expected: raw.into(),
            },
        ));
    }
    Ok(out)
}

pub(crate) fn check_crc(
    bytes: &[u8],
    stored: u32,
    offset: u64,
    what: impl Fn() -> String,
) -> Result<()> {
    let computed = crc32fast::hash(bytes);
    if computed != stored {
        return Err(bad(offset, what(), V3Fault::Crc { stored, computed }));
    }
    Ok(())
}

/// Decodes one group's frame.
pub(crate) fn read_group<S: Source + ?Sized>(src: &S, g: &GroupEntry, n: usize) -> Result<Vec<u8>> {
    let frame = src
        .read_at(g.offset.get(), g.stored_size.get() as usize)
        .map_err(VwrError::Write)?;
    check_crc(&frame, g.crc.get(), g.offset.get(), || format!("group {n}"))?;
    unzstd(
        &frame,
        g.raw_size.get(),
        MAX_GROUP_RAW,
        g.offset.get(),
        || format!("group {n}"),
    )
}

/// Decodes the chunk of one entry; `group` is the decompressed group when the entry is in one.
pub(crate) fn decode_entry<S: Source + ?Sized>(
    src: &S,
    dims: [u32; 3],
    e: &ChunkEntryV3,
    group: Option<&[u8]>,
) -> Result<Chunk> {
    let pos = pos16(dims, e.chunk_index.get());
    let (loc, size, value) = (e.location.get(), e.size.get() as usize, e.value.get());
    match e.storage {
        STORAGE_INLINE => Ok(Chunk::uniform(Block(value as u16))),
        STORAGE_RAW => {
            let p = src.read_at(loc, size).map_err(VwrError::Write)?;
            check_crc(&p, e.crc.get(), loc, || format!("chunk {pos:?}"))?;
            decode_payload(e.encoding, &p, pos, loc)
        }
        STORAGE_ZSTD => {
            let f = src.read_at(loc, size).map_err(VwrError::Write)?;
            check_crc(&f, e.crc.get(), loc, || format!("chunk {pos:?}"))?;
            let p = unzstd(&f, value, MAX_PAYLOAD, loc, || format!("chunk {pos:?}"))?;
            decode_payload(e.encoding, &p, pos, loc)
        }
        _ => {
            let g = group.expect("callers pass the group of grouped entries");
            let p = &g[value as usize..value as usize + size];
            check_crc(p, e.crc.get(), loc, || {
                format!("chunk {pos:?} in group {loc}")
            })?;
            decode_payload(e.encoding, p, pos, loc)
        }
    }
}

/// Decodes every chunk of a commit, in parallel; returns (chunk index, chunk) in index order.
pub(crate) fn decode_all<S: Source + ?Sized>(
    src: &S,
    dims: [u32; 3],
    ix: &Index,
    entries: &[ChunkEntryV3],
) -> Result<Vec<(u32, Chunk)>> {
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); ix.groups.len()];
    let mut single = Vec::new();
    for (n, e) in entries.iter().enumerate() {
        if e.storage == STORAGE_GROUP {
            members[e.location.get() as usize].push(n);
        } else {
            single.push(n);
        }
    }
    let grouped: Vec<Vec<(u32, Chunk)>> = members
        .par_iter()
        .enumerate()
        .map(|(g, list)| {
            let raw = read_group(src, &ix.groups[g], g)?;
            list.iter()
                .map(|&n| {
                    let e = &entries[n];
                    decode_entry(src, dims, e, Some(&raw)).map(|c| (e.chunk_index.get(), c))
                })
                .collect()
        })
        .collect::<Result<_>>()?;
    let singles: Vec<(u32, Chunk)> = single
        .par_iter()
        .map(|&n| {
            let e = &entries[n];
            decode_entry(src, dims, e, None).map(|c| (e.chunk_index.get(), c))
        })
        .collect::<Result<_>>()?;
    // Without groups (the packed, RLE and zstd codecs) the singles are already the result:
    // no second copy of every chunk.
    let mut all = singles;
    if !grouped.is_empty() {
        let total = all.len() + grouped.iter().map(Vec::len).sum::<usize>();
        all.reserve_exact(total - all.len());
        all.extend(grouped.into_iter().flatten());
    }
    all.sort_unstable_by_key(|e| e.0);
    Ok(all)
}

/// Builds a world and its stored levels of detail (1..=`ix.lod`) from a commit's decoded
/// chunks.
pub(crate) fn assemble(
    dims: [u32; 3],
    ix: &Index,
    chunks: Vec<(u32, Chunk)>,
) -> Result<(World, Vec<World>)> {
    let mut w = World::with_chunk_dims(dims)?;
    w.set_sky_region(ix.sky_region);
    w.set_mission_number(ix.mission_number);
    w.set_spawn_unchecked(ix.spawn);
    let mut levels = (1..=ix.lod)
        .map(|k| World::with_chunk_dims(crate::lod::level_dims(dims, k)))
        .collect::<Result<Vec<World>>>()?;
    for (i, c) in chunks {
        match crate::lod::locate(dims, ix.lod, i) {
            (0, p) => w.set_chunk(p, c)?,
            (k, p) => levels[usize::from(k) - 1].set_chunk(p, c)?,
        }
    }
    Ok((w, levels))
}

/// The level-0 entries of a commit's sorted entries (those before its levels of detail).
pub(crate) fn level0(dims: [u32; 3], entries: &[ChunkEntryV3]) -> &[ChunkEntryV3] {
    let n = crate::lod::level_chunk_count(dims, 0);
    &entries[..entries.partition_point(|e| u64::from(e.chunk_index.get()) < n)]
}

/// Reads a whole v3 file from memory.
pub fn read_world_v3(bytes: &[u8]) -> Result<World> {
    read_v3_detailed(bytes).map(|d| d.world)
}

/// A whole v3 file, decoded.
pub(crate) struct Decoded {
    pub world: World,
    pub index: Index,
    pub entries: Vec<ChunkEntryV3>,
    /// Generation of a newer commit that could not be read.
    pub newer: Option<u32>,
}

/// Reads a whole v3 file: the world, the commit used and its entries.
pub(crate) fn read_v3_detailed<S: Source + ?Sized>(src: &S) -> Result<Decoded> {
    let head = src
        .read_at(0, WORLD_HEADER_V3_SIZE.min(src.len() as usize))
        .map_err(VwrError::Write)?;
    let h = parse_header(&head)?;
    let (index, newer) = choose_commit(src, &h)?;
    let entries = all_entries(src, h.dims, &index)?;
    let chunks = decode_all(src, h.dims, &index, level0(h.dims, &entries))?;
    Ok(Decoded {
        world: assemble(h.dims, &index, chunks)?.0,
        index,
        entries,
        newer,
    })
}
