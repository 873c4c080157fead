//! v3 writing: chunk encodings, bodies, entry pages, root indexes, whole files.

use std::mem::size_of;

use rayon::prelude::*;
use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromZeros, IntoBytes};

use crate::block::Block;
use crate::chunk::{unpack_all, Chunk, CHUNK_VOLUME};
use crate::codec::{meta_section_size, write_chunk};
use crate::layout::*;
use crate::world::World;

use super::*;

/// A chunk as a v3 file stores it.
pub(crate) enum Coded {
    /// No entry.
    Empty,
    /// Inline entry.
    Uniform(Block),
    /// A payload in one of the encodings.
    Payload { encoding: u8, bytes: Vec<u8> },
}

pub(crate) fn code_chunk(c: &Chunk, codec: Codec) -> Coded {
    if c.is_empty() {
        return Coded::Empty;
    }
    if c.palette().len() == 1 && c.records().is_empty() {
        return Coded::Uniform(c.palette()[0]);
    }
    let packed = || {
        let mut v = Vec::with_capacity(crate::codec::chunk_payload_size(c));
        write_chunk(&mut v, c);
        v
    };
    let (encoding, bytes) = match codec {
        Codec::Packed => (ENCODING_PACKED, packed()),
        Codec::Rle => (ENCODING_RLE, rle_encode(c)),
        Codec::Auto | Codec::Zstd => {
            let r = rle_encode(c);
            if r.len() < crate::codec::chunk_payload_size(c) {
                (ENCODING_RLE, r)
            } else {
                (ENCODING_PACKED, packed())
            }
        }
    };
    Coded::Payload { encoding, bytes }
}

/// RLE payload of a chunk (vwr-v3.md §6).
pub(crate) fn rle_encode(c: &Chunk) -> Vec<u8> {
    let mut idx = [0u16; CHUNK_VOLUME];
    unpack_all(c.words(), c.bits_per_block(), &mut idx);
    let mut runs: Vec<RleRun> = Vec::new();
    for &i in idx.iter() {
        match runs.last_mut() {
            Some(r) if r.palette_index.get() == i => r.count = U16::new(r.count.get() + 1),
            _ => runs.push(RleRun {
                count: U16::new(1),
                palette_index: U16::new(i),
            }),
        }
    }
    let meta = meta_section_size(c);
    let mut out = Vec::with_capacity(8 + 2 * c.palette().len() + 4 * runs.len() + meta);
    let h = RleHeader {
        palette_count: U16::new(c.palette().len() as u16),
        run_count: U16::new(runs.len() as u16),
        meta_size: U32::new(meta as u32),
    };
    out.extend_from_slice(h.as_bytes());
    for b in c.palette() {
        out.extend_from_slice(U16::new(b.0).as_bytes());
    }
    out.extend_from_slice(runs.as_bytes());
    if meta > 0 {
        // The BMD1 section exactly as the packed payload has it: its tail.
        let mut packed = Vec::new();
        write_chunk(&mut packed, c);
        out.extend_from_slice(&packed[packed.len() - meta..]);
    }
    out
}

/// Payloads, groups and entries of a body written at file offset `base`.
pub(crate) struct Body {
    pub data: Vec<u8>,
    pub entries: Vec<ChunkEntryV3>,
    pub groups: Vec<GroupEntry>,
}

fn entry(
    index: u32,
    encoding: u8,
    storage: u8,
    location: u64,
    size: u32,
    value: u32,
    stored: &[u8],
) -> ChunkEntryV3 {
    ChunkEntryV3 {
        crc: U32::new(if stored.is_empty() {
            0
        } else {
            crc32fast::hash(stored)
        }),
        chunk_index: U32::new(index),
        encoding,
        storage,
        reserved: U16::ZERO,
        location: U64::new(location),
        size: U32::new(size),
        value: U32::new(value),
    }
}

pub(crate) fn compress(bytes: &[u8], level: i32) -> Vec<u8> {
    zstd::bulk::compress(bytes, level).expect("zstd compression of an in-memory buffer")
}

/// Encodes chunks (index, chunk) in increasing index order into a body placed at `base`, with
/// group numbers starting at `group_base`.
/// Chunks from which [`encode_body`] encodes on the thread pool.
const PARALLEL_CHUNKS: usize = 64;

/// `items` mapped in order, on the thread pool from `min` items on: a save of a few chunks
/// (an edit) is done before the pool would be up.
fn map_maybe_par<T: Sync, R: Send>(
    items: &[T],
    min: usize,
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    if items.len() < min {
        items.iter().map(f).collect()
    } else {
        items.par_iter().map(f).collect()
    }
}

pub(crate) fn encode_body(
    chunks: &[(u32, &Chunk)],
    codec: Codec,
    level: i32,
    base: u64,
    group_base: u32,
) -> Body {
    let coded: Vec<(u32, Coded)> =
        map_maybe_par(chunks, PARALLEL_CHUNKS, |&(i, c)| (i, code_chunk(c, codec)));
    // Plan: each payload is raw, its own frame, or part of a group.
    enum Plan {
        Inline(Block),
        Raw(u8, Vec<u8>),
        Frame(u8, Vec<u8>, u32),
        Group(u8, u32, u32, u32), // encoding, group, offset, size
    }
    let mut plans: Vec<(u32, Plan)> = Vec::with_capacity(coded.len());
    let mut group_raw: Vec<Vec<u8>> = Vec::new();
    let mut big: Vec<usize> = Vec::new();
    for (i, c) in coded {
        match c {
            Coded::Empty => {}
            Coded::Uniform(b) => plans.push((i, Plan::Inline(b))),
            Coded::Payload { encoding, bytes } => match codec {
                Codec::Packed | Codec::Rle => plans.push((i, Plan::Raw(encoding, bytes))),
                Codec::Zstd => {
                    big.push(plans.len());
                    plans.push((i, Plan::Raw(encoding, bytes)));
                }
                Codec::Auto if bytes.len() >= GROUP_CHUNK_LIMIT => {
                    big.push(plans.len());
                    plans.push((i, Plan::Raw(encoding, bytes)));
                }
                Codec::Auto => {
                    if group_raw.last().is_none_or(|g| g.len() >= GROUP_TARGET) {
                        group_raw.push(Vec::new());
                    }
                    let g = group_raw.len() - 1;
                    let buf = &mut group_raw[g];
                    let off = buf.len() as u32;
                    buf.extend_from_slice(&bytes);
                    plans.push((
                        i,
                        Plan::Group(encoding, group_base + g as u32, off, bytes.len() as u32),
                    ));
                }
            },
        }
    }
    // Compress frames and groups in parallel.
    let frames: Vec<(usize, Vec<u8>)> = map_maybe_par(&big, 2, |&k| match &plans[k].1 {
        Plan::Raw(_, b) => (k, compress(b, level)),
        _ => unreachable!("only raw plans are listed"),
    });
    for (k, f) in frames {
        if let (_, Plan::Raw(enc, b)) = &mut plans[k] {
            // Keep the frame only if it is smaller (under Zstd, always a frame).
            if codec == Codec::Zstd || f.len() < b.len() {
                let raw_len = b.len() as u32;
                plans[k].1 = Plan::Frame(*enc, f, raw_len);
            }
        }
    }
    let packed_groups: Vec<Vec<u8>> = map_maybe_par(&group_raw, 2, |g| compress(g, level));

    let mut data = Vec::new();
    let mut groups = Vec::with_capacity(packed_groups.len());
    for (raw, frame) in group_raw.iter().zip(&packed_groups) {
        groups.push(GroupEntry {
            offset: U64::new(base + data.len() as u64),
            stored_size: U32::new(frame.len() as u32),
            raw_size: U32::new(raw.len() as u32),
            crc: U32::new(crc32fast::hash(frame)),
        });
        data.extend_from_slice(frame);
    }
    let mut entries = Vec::with_capacity(plans.len());
    for (i, plan) in plans {
        let e = match plan {
            Plan::Inline(b) => entry(i, ENCODING_UNIFORM, STORAGE_INLINE, 0, 0, b.0.into(), &[]),
            Plan::Raw(enc, b) => {
                let at = base + data.len() as u64;
                data.extend_from_slice(&b);
                entry(i, enc, STORAGE_RAW, at, b.len() as u32, 0, &b)
            }
            Plan::Frame(enc, f, raw) => {
                let at = base + data.len() as u64;
                data.extend_from_slice(&f);
                entry(i, enc, STORAGE_ZSTD, at, f.len() as u32, raw, &f)
            }
            Plan::Group(enc, g, off, size) => {
                let raw = &group_raw[(g - group_base) as usize];
                let payload = &raw[off as usize..(off + size) as usize];
                entry(i, enc, STORAGE_GROUP, g.into(), size, off, payload)
            }
        };
        entries.push(e);
    }
    Body {
        data,
        entries,
        groups,
    }
}

/// Splits `entries` (increasing chunk index) into pages of [`PAGE_ENTRIES`] chunk indices. A page
/// whose entries equal those of a page in `old` keeps that page's location; the others are
/// appended to `data`, which starts at file offset `base`, compact (vwr-v3.md §4.2) or plain.
pub(crate) fn write_pages(
    entries: &[ChunkEntryV3],
    old: &[(PageEntry, &[ChunkEntryV3])],
    base: u64,
    data: &mut Vec<u8>,
    compact: bool,
) -> Vec<PageEntry> {
    let mut pages = Vec::new();
    let mut rest = entries;
    let mut o = 0usize;
    while let Some(first) = rest.first() {
        let page = first.chunk_index.get() / PAGE_ENTRIES;
        let n = rest
            .iter()
            .take_while(|e| e.chunk_index.get() / PAGE_ENTRIES == page)
            .count();
        let (these, tail) = rest.split_at(n);
        rest = tail;
        while o < old.len() && old[o].0.page.get() < page {
            o += 1;
        }
        let reused = old
            .get(o)
            .filter(|(pe, es)| pe.page.get() == page && *es == these)
            .map(|(pe, _)| *pe);
        pages.push(reused.unwrap_or_else(|| {
            let bytes = page_bytes(these, page, compact);
            let pe = page_entry(page, n, &bytes, base + data.len() as u64, compact);
            data.extend_from_slice(&bytes);
            pe
        }));
    }
    pages
}

/// The world-wide fields a root index stores (vwr-v3.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RootFields {
    pub sky_region: u32,
    pub mission_number: u32,
    pub spawn: Option<[i32; 3]>,
}

impl RootFields {
    pub fn of(world: &World) -> RootFields {
        RootFields {
            sky_region: world.sky_region(),
            mission_number: world.mission_number(),
            spawn: world.spawn(),
        }
    }
}

/// Root index bytes for a commit (vwr-v3.md §4 and §11, with its commit record), placed at
/// `offset`.
pub(crate) fn encode_index(
    fields: &RootFields,
    generation: u32,
    record: &CommitRecord,
    groups: &[GroupEntry],
    pages: &[PageEntry],
    offset: u64,
    live_bytes: u64,
) -> Vec<u8> {
    let size = index_size(groups.len() as u64, pages.len() as u64);
    let spawn = fields.spawn.map_or([0u32; 3], |s| s.map(|v| v as u32 + 1));
    let entries: u64 = pages.iter().map(|p| u64::from(p.count.get())).sum();
    let h = IndexHeader {
        magic: *INDEX_MAGIC,
        generation: U32::new(generation),
        entry_count: U32::new(entries as u32),
        group_count: U32::new(groups.len() as u32),
        sky_region: U32::new(fields.sky_region),
        mission_number: U32::new(fields.mission_number),
        spawn: spawn.map(U32::new),
        page_count: U32::new(pages.len() as u32),
        data_end: U64::new(offset + size),
        live_bytes: U64::new(live_bytes + size),
    };
    let mut out = Vec::with_capacity(size as usize);
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(record.as_bytes());
    out.extend_from_slice(groups.as_bytes());
    out.extend_from_slice(pages.as_bytes());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Size of a root index with its commit record.
pub(crate) fn index_size(groups: u64, pages: u64) -> u64 {
    size_of::<IndexHeader>() as u64
        + size_of::<CommitRecord>() as u64
        + groups * size_of::<GroupEntry>() as u64
        + pages * size_of::<PageEntry>() as u64
        + 4
}

pub(crate) fn commit_slot(generation: u32, offset: u64, size: u32) -> CommitSlot {
    let mut s = CommitSlot {
        generation: U32::new(generation),
        index_offset: U64::new(offset),
        index_size: U32::new(size),
        slot_crc: U32::ZERO,
    };
    s.slot_crc = U32::new(crc32fast::hash(&s.as_bytes()[..16]));
    s
}

/// A v3 header with commit records and, if `compact`, compact entry pages.
pub(crate) fn header_v3(
    dims: [u32; 3],
    slots: [CommitSlot; 2],
    compact: bool,
    lod: u8,
) -> WorldHeaderV3 {
    let mut flags = FLAG_HISTORY;
    if compact {
        flags |= FLAG_COMPACT;
    }
    if lod > 0 {
        flags |= FLAG_LOD;
    }
    let mut h = WorldHeaderV3 {
        magic: *WORLD_MAGIC,
        version: WORLD_VERSION_V3,
        chunk_size: crate::chunk::CHUNK_SIZE as u8,
        flags: U16::new(flags),
        chunks: dims.map(|d| U16::new(d as u16)),
        lod_levels: lod,
        reserved: 0,
        header_crc: U32::ZERO,
        reserved2: U32::ZERO,
        slots,
    };
    h.header_crc = U32::new(crc32fast::hash(&h.as_bytes()[..16]));
    h
}

/// Bytes a commit references besides its root index: header, groups, payloads, pages.
pub(crate) fn live_bytes(
    groups: &[GroupEntry],
    entries: &[ChunkEntryV3],
    pages: &[PageEntry],
    compact: bool,
) -> u64 {
    WORLD_HEADER_V3_SIZE as u64
        + pages.iter().map(|p| stored_len(p, compact)).sum::<u64>()
        + groups
            .iter()
            .map(|g| g.stored_size.get() as u64)
            .sum::<u64>()
        + entries
            .iter()
            .filter(|e| e.storage == STORAGE_RAW || e.storage == STORAGE_ZSTD)
            .map(|e| e.size.get() as u64)
            .sum::<u64>()
}

/// Serialises a world as a fresh v3 file (one commit, generation 1, compact entry pages).
pub fn write_world_v3(world: &World, codec: Codec, level: i32) -> Vec<u8> {
    full_file(
        world,
        &[],
        (codec, level, PageForm::Compact),
        1,
        &CommitInfo::default(),
    )
}

/// A fresh v3 file whose one commit has `generation` and the time and tool of `info`
/// (kind `write`, no previous commit).
pub(crate) fn full_file(
    world: &World,
    lod: &[World],
    (codec, level, form): (Codec, i32, PageForm),
    generation: u32,
    info: &CommitInfo,
) -> Vec<u8> {
    let compact = form == PageForm::Compact;
    let dims = world.chunk_dims();
    let mut chunks: Vec<(u32, &Chunk)> = world
        .non_empty_chunks()
        .map(|(p, c)| (linear(dims, p), c))
        .collect();
    for (k, w) in (1u8..).zip(lod) {
        let at = w.non_empty_chunks();
        chunks.extend(at.map(|(p, c)| (crate::lod::index_of(dims, k, p), c)));
    }
    let base = WORLD_HEADER_V3_SIZE as u64;
    let mut body = encode_body(&chunks, codec, level, base, 0);
    let pages = write_pages(&body.entries, &[], base, &mut body.data, compact);
    let index_at = base + body.data.len() as u64;
    let live = live_bytes(&body.groups, &body.entries, &pages, compact);
    let size = index_size(body.groups.len() as u64, pages.len() as u64);
    let record = info.record(COMMIT_WRITE, None, index_at + size, chunks.len() as u64);
    let fields = RootFields::of(world);
    let index = encode_index(
        &fields,
        generation,
        &record,
        &body.groups,
        &pages,
        index_at,
        live,
    );
    let empty = CommitSlot::new_zeroed();
    let slot = commit_slot(generation, index_at, index.len() as u32);
    let header = header_v3(dims, [slot, empty], compact, lod.len() as u8);
    let mut out = Vec::with_capacity(index_at as usize + index.len());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&body.data);
    out.extend_from_slice(&index);
    out
}
