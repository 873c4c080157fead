//! Reading and writing `.vwr` files (VWR.md sections 3–5).
//!
//! The byte layouts are declared once, in [`crate::layout`]: the reader casts each record from
//! the file and validates its fields, the writer fills the same structs and emits their bytes.

use core::mem::{offset_of, size_of};

use rayon::prelude::*;

use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use crate::block::Block;
use crate::chunk::{
    bits_for, word_count, Chunk, MetaRecord, CHUNK_SIZE, CHUNK_VOLUME, MAX_PALETTE,
};
use crate::error::{ChunkFault, RecordFault, Result, TableFault, VwrError};
use crate::layout::{
    ChunkHeaderV1, ChunkHeaderV2, ChunkTableEntry, MetaSectionHeader, RecordHeader, WorldHeader,
    CHUNK_FLAG_META, CHUNK_MAGIC, CHUNK_VERSION, ENTRY_EMPTY, META_MAGIC, META_MOVE_OBJECT,
    META_VERSION, WORLD_MAGIC, WORLD_VERSION,
};
use crate::records::MoveObject;
use crate::world::World;

/// Something the original library tolerates but a careful tool should mention
/// (`voxcaf world check --strict`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Oddity {
    /// Bits past the last index of a chunk's last word are not zero.
    NonZeroPadding {
        /// Chunk position.
        pos: [u16; 3],
    },
    /// A palette holds the same value twice (lookups use the first).
    DuplicatePaletteEntry {
        /// Chunk position.
        pos: [u16; 3],
        /// Raw block value.
        raw: u16,
    },
    /// A palette entry that no cell uses.
    UnusedPaletteEntries {
        /// Chunk position.
        pos: [u16; 3],
        /// How many.
        count: usize,
    },
    /// A table entry's `size` covers bytes after the parsed payload.
    TrailingBytes {
        /// Chunk position.
        pos: [u16; 3],
        /// How many bytes were ignored.
        count: u64,
    },
    /// `skyRegion` above 31.
    SkyRegionOutOfRange(u32),
    /// A MoveObject whose position holds NaN.
    MoveObjectNaN {
        /// Anchor cell.
        cell: [i32; 3],
    },
    /// A chunk stored as v1.
    LegacyChunkVersion {
        /// Chunk position.
        pos: [u16; 3],
    },
    /// v3: the newest commit could not be read; the previous one was used (a save was
    /// interrupted, or the file is damaged).
    NewestCommitUnreadable {
        /// Generation of the unreadable commit.
        generation: u32,
        /// Generation read instead.
        used: u32,
    },
    /// A MoveObject record in the legacy 45-byte form.
    LegacyMoveObject {
        /// Anchor cell.
        cell: [i32; 3],
    },
    /// v3: a stored level-of-detail chunk is not what the rule makes from the level below
    /// (vwr-v3.md §13): a writer did not rebuild it.
    StaleLevelChunk {
        /// The level (1..).
        level: u8,
        /// The chunk's position in its level.
        chunk: [u32; 3],
    },
}

impl std::fmt::Display for Oddity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Oddity::NonZeroPadding { pos } => {
                write!(f, "chunk {pos:?}: non-zero padding bits in the last word")
            }
            Oddity::DuplicatePaletteEntry { pos, raw } => {
                write!(f, "chunk {pos:?}: palette repeats value {raw}")
            }
            Oddity::UnusedPaletteEntries { pos, count } => {
                write!(f, "chunk {pos:?}: {count} unused palette entries")
            }
            Oddity::TrailingBytes { pos, count } => write!(
                f,
                "chunk {pos:?}: {count} trailing bytes inside the table entry"
            ),
            Oddity::SkyRegionOutOfRange(s) => write!(f, "skyRegion {s} is above 31"),
            Oddity::MoveObjectNaN { cell } => {
                write!(f, "MoveObject at {cell:?} has a NaN position")
            }
            Oddity::NewestCommitUnreadable { generation, used } => write!(
                f,
                "newest commit (generation {generation}) unreadable, using generation {used}"
            ),
            Oddity::LegacyChunkVersion { pos } => {
                write!(f, "chunk {pos:?}: legacy v1 chunk payload")
            }
            Oddity::StaleLevelChunk { level, chunk } => write!(
                f,
                "level of detail {level}, chunk {chunk:?}: not what level {} makes (rebuild the levels with `voxcaf world lod`)",
                level - 1
            ),
            Oddity::LegacyMoveObject { cell } => {
                write!(f, "MoveObject at {cell:?} uses the legacy 45-byte form")
            }
        }
    }
}

/// The ASCII text of a magic number, for error messages.
const fn ascii(magic: &'static [u8; 4]) -> &'static str {
    match core::str::from_utf8(magic) {
        Ok(s) => s,
        Err(_) => "????",
    }
}

/// Casts the record `T` from the start of `bytes`, which begin at file offset `offset`, and
/// returns it with the bytes after it. A slice shorter than `T` is [`VwrError::Truncated`].
pub(crate) fn record<'a, T: FromBytes + KnownLayout + Immutable>(
    bytes: &'a [u8],
    offset: u64,
    what: &'static str,
) -> Result<(&'a T, &'a [u8])> {
    T::ref_from_prefix(bytes).map_err(|_| VwrError::Truncated {
        offset,
        what,
        needed: size_of::<T>() as u64,
        available: bytes.len() as u64,
    })
}

/// Reads a world from the bytes of a `.vwr` file.
pub fn read_world(bytes: &[u8]) -> Result<World> {
    read_inner(bytes, None)
}

/// Reads a v2 world and also reports [`Oddity`]s the format tolerates.
pub(crate) fn read_world_checked_v2(bytes: &[u8]) -> Result<(World, Vec<Oddity>)> {
    let mut odd = Vec::new();
    let w = read_inner(bytes, Some(&mut odd))?;
    Ok((w, odd))
}

/// Checks the fields of a v2 world header (the first 40 bytes); returns chunks per axis.
pub(crate) fn check_v2_header(bytes: &[u8]) -> Result<u32> {
    let (h, _) = record::<WorldHeader>(bytes, 0, "world header")?;
    let at = |field_offset: usize| field_offset as u64;
    if &h.magic != WORLD_MAGIC {
        return Err(VwrError::BadMagic {
            offset: at(offset_of!(WorldHeader, magic)),
            expected: ascii(WORLD_MAGIC),
            found: h.magic,
        });
    }
    if h.version != WORLD_VERSION {
        return Err(VwrError::UnsupportedVersion {
            offset: at(offset_of!(WorldHeader, version)),
            what: "world header",
            found: h.version.into(),
            supported: "2, 3",
        });
    }
    if h.chunk_size as usize != CHUNK_SIZE {
        return Err(VwrError::InvalidField {
            offset: at(offset_of!(WorldHeader, chunk_size)),
            field: "chunkSize",
            value: h.chunk_size.into(),
            rule: "must be 10",
        });
    }
    let n = u32::from(h.chunks_per_axis);
    if n == 0 {
        return Err(VwrError::InvalidField {
            offset: at(offset_of!(WorldHeader, chunks_per_axis)),
            field: "chunksPerAxis",
            value: 0,
            rule: "must be at least 1",
        });
    }
    if h.flags != 0 {
        return Err(VwrError::InvalidField {
            offset: at(offset_of!(WorldHeader, flags)),
            field: "flags",
            value: h.flags.into(),
            rule: "must be 0",
        });
    }
    let count = h.chunk_count.get();
    if count != n * n * n {
        return Err(VwrError::InvalidField {
            offset: at(offset_of!(WorldHeader, chunk_count)),
            field: "chunkCount",
            value: count.into(),
            rule: "must be chunksPerAxis³",
        });
    }
    Ok(n)
}

fn read_inner(bytes: &[u8], mut odd: Option<&mut Vec<Oddity>>) -> Result<World> {
    let n = check_v2_header(bytes)?;
    let (h, _) = record::<WorldHeader>(bytes, 0, "world header")?;
    let count = n * n * n;
    // The whole table must lie inside the file before anything is allocated for it.
    let table = u64::from(h.chunk_table_offset.get());
    let entries = bytes
        .get(table as usize..)
        .and_then(|rest| <[ChunkTableEntry]>::ref_from_prefix_with_elems(rest, count as usize).ok())
        .map(|(entries, _)| entries)
        .ok_or_else(|| VwrError::Truncated {
            offset: table,
            what: "chunk table",
            needed: u64::from(count) * size_of::<ChunkTableEntry>() as u64,
            available: (bytes.len() as u64).saturating_sub(table),
        })?;
    let fields = header_fields(h, n)?;
    let (sky, mission, spawn) = (fields.sky_region, fields.mission_number, fields.spawn);

    if let Some(o) = odd.as_deref_mut() {
        if sky > 31 {
            o.push(Oddity::SkyRegionOutOfRange(sky));
        }
    }

    let mut world = World::with_chunks_per_axis(n)?;
    world.set_sky_region(sky);
    world.set_mission_number(mission);
    world.set_spawn_unchecked(spawn);

    // Table checks run in file order up to the first bad entry; the payloads of the entries
    // before it are then decoded in parallel and placed in file order, and the first error in
    // file order wins (a payload's error comes before a later entry's table error).
    let (jobs, table_error) = table_jobs(bytes, entries, table, n);
    let checked = odd.is_some();
    let decoded: Vec<Result<(Chunk, Vec<Oddity>)>> = jobs
        .par_iter()
        .with_min_len(64)
        .map(|job| decode_job(job, checked))
        .collect();
    for (job, r) in jobs.iter().zip(decoded) {
        let (chunk, found) = r?;
        if let Some(o) = odd.as_deref_mut() {
            o.extend(found);
        }
        let pos = job.pos.map(u32::from);
        world.set_chunk(pos, chunk)?;
    }
    if let Some(e) = table_error {
        return Err(e);
    }
    if let Some(o) = odd {
        for (cell, p) in world.collect_extra_metadata(META_MOVE_OBJECT) {
            if let Ok(m) = MoveObject::decode(p) {
                if m.pos_start
                    .iter()
                    .chain(m.pos_end.iter())
                    .any(|v| v.is_nan())
                {
                    o.push(Oddity::MoveObjectNaN { cell });
                }
                if p.len() == MoveObject::LEGACY_SIZE {
                    o.push(Oddity::LegacyMoveObject { cell });
                }
            }
        }
    }
    // Chunks come out of the decoder with clean dirty flags.
    Ok(world)
}

/// A table entry whose payload lies inside the file, ready to decode.
struct Job<'a> {
    pos: [u16; 3],
    /// File offset of the payload.
    offset: u64,
    payload: &'a [u8],
}

/// Checks the table entries in file order (position, duplicates, payload bounds) and returns
/// the payloads to decode, up to the first bad entry, with that entry's error.
fn table_jobs<'a>(
    bytes: &'a [u8],
    entries: &[ChunkTableEntry],
    table: u64,
    n: u32,
) -> (Vec<Job<'a>>, Option<VwrError>) {
    let mut jobs = Vec::new();
    // The table fits in the file (checked by the caller), so this bitmap is smaller than it.
    let mut seen = vec![false; entries.len()];
    for (e, entry) in (0u32..).zip(entries) {
        let eo = table + u64::from(e) * size_of::<ChunkTableEntry>() as u64;
        let offset = entry.offset.get();
        let size = entry.size.get();
        let pos = entry.pos.map(|v| v.get());
        let bad = |reason: TableFault| VwrError::BadTableEntry {
            entry: e,
            offset: eo,
            pos,
            reason,
        };
        if pos.iter().any(|&p| u32::from(p) >= n) {
            return (
                jobs,
                Some(bad(TableFault::PositionOutsideGrid { chunks_per_axis: n })),
            );
        }
        let slot = (u32::from(pos[0]) + n * (u32::from(pos[1]) + n * u32::from(pos[2]))) as usize;
        if std::mem::replace(&mut seen[slot], true) {
            return (jobs, Some(bad(TableFault::ListedTwice)));
        }
        if entry.flags.get() & ENTRY_EMPTY != 0 {
            continue;
        }
        if size == 0 {
            return (jobs, Some(bad(TableFault::EmptyPayload)));
        }
        let payload = offset
            .checked_add(u64::from(size))
            .filter(|&end| end <= bytes.len() as u64)
            .and_then(|end| bytes.get(offset as usize..end as usize));
        let Some(payload) = payload else {
            let fault = TableFault::PayloadOutsideFile {
                offset,
                size,
                file_size: bytes.len() as u64,
            };
            return (jobs, Some(bad(fault)));
        };
        jobs.push(Job {
            pos,
            offset,
            payload,
        });
    }
    (jobs, None)
}

/// Decodes one v2 payload; with `checked`, also returns its oddities in the order a serial
/// read reports them.
fn decode_job(job: &Job<'_>, checked: bool) -> Result<(Chunk, Vec<Oddity>)> {
    let mut odd = Vec::new();
    let (chunk, used) = read_chunk(
        job.payload,
        job.pos,
        job.offset,
        checked.then_some(&mut odd),
    )?;
    if checked && used < job.payload.len() {
        odd.push(Oddity::TrailingBytes {
            pos: job.pos,
            count: (job.payload.len() - used) as u64,
        });
    }
    Ok((chunk, odd))
}

/// Parses one chunk payload (at file offset `base`); returns the chunk and the bytes consumed.
pub(crate) fn read_chunk(
    p: &[u8],
    pos: [u16; 3],
    base: u64,
    mut odd: Option<&mut Vec<Oddity>>,
) -> Result<(Chunk, usize)> {
    let bad = |reason: ChunkFault| VwrError::BadChunk {
        pos,
        offset: base,
        reason,
    };
    let at = |field_offset: usize| base + field_offset as u64;
    let (h, after_v1) = record::<ChunkHeaderV1>(p, base, "chunk header")?;
    if &h.magic != CHUNK_MAGIC {
        return Err(VwrError::BadMagic {
            offset: at(offset_of!(ChunkHeaderV1, magic)),
            expected: ascii(CHUNK_MAGIC),
            found: h.magic,
        });
    }
    let version = h.version;
    // v2 is v1 plus the metadata section size; `body` is what follows the header.
    let (meta_size, body) = match version {
        1 => (0, after_v1),
        2 => {
            let (h2, body) = record::<ChunkHeaderV2>(p, base, "chunk header")?;
            (h2.extra_meta_size_bytes.get(), body)
        }
        v => {
            return Err(VwrError::UnsupportedVersion {
                offset: at(offset_of!(ChunkHeaderV1, version)),
                what: "chunk payload",
                found: v.into(),
                supported: "1, 2",
            })
        }
    };
    if h.chunk_size as usize != CHUNK_SIZE {
        return Err(bad(ChunkFault::ChunkSize {
            found: h.chunk_size,
        }));
    }
    let bits = h.bits_per_block;
    let flags = h.flags;
    let palette_count = h.palette_count.get();
    let pcount = usize::from(palette_count);
    let reserved = h.reserved.get();
    let block_count = h.block_count.get();
    let data_size = h.data_size_bytes.get();
    if !(1..=MAX_PALETTE).contains(&pcount) {
        return Err(bad(ChunkFault::PaletteCount {
            count: palette_count,
        }));
    }
    if bits != bits_for(pcount) {
        return Err(bad(ChunkFault::BitsMismatch {
            bits,
            palette: palette_count,
            expected: bits_for(pcount),
        }));
    }
    if reserved != 0 {
        return Err(bad(ChunkFault::Reserved { value: reserved }));
    }
    if block_count as usize != CHUNK_VOLUME {
        return Err(bad(ChunkFault::BlockCount { count: block_count }));
    }
    let words = word_count(bits);
    let expected_data = words * size_of::<U64>();
    if data_size as usize != expected_data {
        return Err(bad(ChunkFault::DataSize {
            size: data_size,
            expected: expected_data as u32,
            bits,
        }));
    }
    if version == 1 && flags != 0 {
        return Err(bad(ChunkFault::V1Flags { flags }));
    }
    if flags & !CHUNK_FLAG_META != 0 {
        return Err(bad(ChunkFault::ReservedFlags { flags }));
    }
    if (flags & CHUNK_FLAG_META != 0) != (meta_size != 0) {
        return Err(bad(ChunkFault::MetaFlagMismatch {
            flag: flags & CHUNK_FLAG_META,
            meta_size,
        }));
    }
    // Palette, words and metadata section must all be present: one error for the whole body.
    let header = p.len() - body.len();
    let total = header + pcount * size_of::<U16>() + expected_data + meta_size as usize;
    let short = || VwrError::Truncated {
        offset: base,
        what: "chunk body",
        needed: total as u64,
        available: p.len() as u64,
    };
    let (palette_raw, rest) =
        <[U16]>::ref_from_prefix_with_elems(body, pcount).map_err(|_| short())?;
    let (words_raw, rest) =
        <[U64]>::ref_from_prefix_with_elems(rest, words).map_err(|_| short())?;
    let meta_bytes = rest.get(..meta_size as usize).ok_or_else(short)?;
    // Whole-slice conversions: no per-element bounds checks.
    let palette: Vec<Block> = palette_raw.iter().map(|v| Block(v.get())).collect();
    let mut w: Vec<u64> = words_raw.iter().map(|v| v.get()).collect();
    // Padding bits past index 999 carry nothing: clear them so a re-save writes zeros.
    let used_bits = CHUNK_VOLUME * bits as usize - (words - 1) * 64;
    if used_bits < 64 {
        let mask = (1u64 << used_bits) - 1;
        if w[words - 1] & !mask != 0 {
            if let Some(o) = odd.as_deref_mut() {
                o.push(Oddity::NonZeroPadding { pos });
            }
            w[words - 1] &= mask;
        }
    }
    // With a power-of-two palette every index is valid; otherwise check them all now (the
    // original only fails later, on access).
    let mut idx = [0u16; CHUNK_VOLUME];
    if pcount != 1 << bits || odd.is_some() {
        crate::chunk::unpack_all(&w, bits, &mut idx);
        if let Some(i) = idx.iter().position(|&v| v as usize >= pcount) {
            return Err(bad(ChunkFault::PaletteIndex {
                block: i as u16,
                index: idx[i],
                palette: palette_count,
            }));
        }
    }
    if let Some(o) = odd {
        let mut used = [false; MAX_PALETTE];
        idx.iter().for_each(|&v| used[v as usize] = true);
        let unused = used[..pcount].iter().filter(|u| !**u).count();
        // Duplicates, reported once per extra occurrence in palette order.
        for_each_repeat(&palette, |raw| {
            o.push(Oddity::DuplicatePaletteEntry { pos, raw })
        });
        if unused > 0 {
            o.push(Oddity::UnusedPaletteEntries { pos, count: unused });
        }
        if version == 1 {
            o.push(Oddity::LegacyChunkVersion { pos });
        }
    }
    let meta = if meta_size > 0 {
        let section_at = base + (total - meta_bytes.len()) as u64;
        read_meta(meta_bytes, pos, section_at)?
    } else {
        Vec::new()
    };
    Ok((Chunk::from_parts(palette, w, meta), total))
}

/// Calls `f` with every palette entry equal to an earlier one, in palette order: an exact set
/// of the values seen so far (open addressing, 512 slots for at most 256 entries), so each
/// entry costs one or two probes instead of a scan of the entries before it.
fn for_each_repeat(palette: &[Block], mut f: impl FnMut(u16)) {
    const SLOTS: usize = 2 * MAX_PALETTE;
    // Each slot holds a value + 1 (0 = free).
    let mut set = [0u32; SLOTS];
    for b in palette {
        let key = u32::from(b.0) + 1;
        let mut s = (u32::from(b.0).wrapping_mul(0x9E37_79B1) >> 23) as usize;
        loop {
            match set[s] {
                0 => {
                    set[s] = key;
                    break;
                }
                k if k == key => {
                    f(b.0);
                    break;
                }
                _ => s = (s + 1) % SLOTS,
            }
        }
    }
}

/// Parses a chunk's `BMD1` section (at file offset `base`), which must be consumed exactly.
pub(crate) fn read_meta(s: &[u8], pos: [u16; 3], base: u64) -> Result<Vec<MetaRecord>> {
    let at = |field_offset: usize| base + field_offset as u64;
    let (h, mut rest) = record::<MetaSectionHeader>(s, base, "metadata section header")?;
    if &h.magic != META_MAGIC {
        return Err(VwrError::BadMagic {
            offset: at(offset_of!(MetaSectionHeader, magic)),
            expected: ascii(META_MAGIC),
            found: h.magic,
        });
    }
    let version = h.version.get();
    if version != META_VERSION {
        return Err(VwrError::UnsupportedVersion {
            offset: at(offset_of!(MetaSectionHeader, version)),
            what: "metadata section",
            found: version.into(),
            supported: "1",
        });
    }
    let reserved = h.reserved.get();
    if reserved != 0 {
        // Reported at the section start, as the original tools did.
        return Err(VwrError::BadChunk {
            pos,
            offset: base,
            reason: ChunkFault::MetaReserved { value: reserved },
        });
    }
    // The section's size came from a u32 field, so every length inside it fits a u32.
    let section_size = s.len() as u32;
    let count = h.record_count.get();
    // Each record takes at least a header: bound the count by the section before allocating.
    if count as usize > rest.len() / size_of::<RecordHeader>() {
        return Err(VwrError::BadChunk {
            pos,
            offset: at(offset_of!(MetaSectionHeader, record_count)),
            reason: ChunkFault::RecordCount {
                count,
                section_size,
            },
        });
    }
    // Records are 32 bytes in memory for >= 8 in the file: reserve modestly, grow as parsed.
    let mut out = Vec::with_capacity((count as usize).min(64));
    for r in 0..count {
        let bad = |reason: RecordFault| VwrError::BadRecord {
            pos,
            record: r,
            offset: base + (s.len() - rest.len()) as u64,
            reason,
        };
        let (rh, after) =
            RecordHeader::ref_from_prefix(rest).map_err(|_| bad(RecordFault::HeaderPastEnd))?;
        let index = rh.local_block_index.get();
        let size = rh.payload_size.get();
        if index as usize >= CHUNK_VOLUME {
            return Err(bad(RecordFault::LocalIndex { index }));
        }
        let Some((payload, after)) = after.split_at_checked(usize::from(size)) else {
            return Err(bad(RecordFault::PayloadPastEnd { size }));
        };
        out.push(MetaRecord {
            index: index as u16,
            record_type: rh.metadata_type.get(),
            payload: payload.to_vec(),
        });
        rest = after;
    }
    if !rest.is_empty() {
        return Err(VwrError::BadChunk {
            pos,
            offset: base + (s.len() - rest.len()) as u64,
            reason: ChunkFault::MetaLeftover {
                count: rest.len() as u32,
                records: count,
            },
        });
    }
    Ok(out)
}

/// Size in bytes of a chunk's payload as written.
pub fn chunk_payload_size(c: &Chunk) -> usize {
    size_of::<ChunkHeaderV2>()
        + size_of::<U16>() * c.palette().len()
        + size_of::<U64>() * c.words().len()
        + meta_section_size(c)
}

pub(crate) fn meta_section_size(c: &Chunk) -> usize {
    if c.records().is_empty() {
        0
    } else {
        size_of::<MetaSectionHeader>()
            + c.records()
                .iter()
                .map(|r| size_of::<RecordHeader>() + r.payload.len())
                .sum::<usize>()
    }
}

pub(crate) fn write_chunk(out: &mut Vec<u8>, c: &Chunk) {
    let meta = meta_section_size(c);
    let header = ChunkHeaderV2 {
        v1: ChunkHeaderV1 {
            magic: *CHUNK_MAGIC,
            version: CHUNK_VERSION,
            chunk_size: CHUNK_SIZE as u8,
            bits_per_block: c.bits_per_block(),
            flags: if meta > 0 { CHUNK_FLAG_META } else { 0 },
            palette_count: U16::new(c.palette().len() as u16),
            reserved: U16::ZERO,
            block_count: U32::new(CHUNK_VOLUME as u32),
            data_size_bytes: U32::new((size_of::<U64>() * c.words().len()) as u32),
        },
        extra_meta_size_bytes: U32::new(meta as u32),
    };
    out.extend_from_slice(header.as_bytes());
    for b in c.palette() {
        out.extend_from_slice(U16::new(b.0).as_bytes());
    }
    for &w in c.words() {
        out.extend_from_slice(U64::new(w).as_bytes());
    }
    if meta > 0 {
        let section = MetaSectionHeader {
            magic: *META_MAGIC,
            version: U16::new(META_VERSION),
            reserved: U16::ZERO,
            record_count: U32::new(c.records().len() as u32),
        };
        out.extend_from_slice(section.as_bytes());
        for r in c.records() {
            let header = RecordHeader {
                local_block_index: U32::new(r.index.into()),
                metadata_type: U16::new(r.record_type),
                payload_size: U16::new(r.payload.len() as u16),
            };
            out.extend_from_slice(header.as_bytes());
            out.extend_from_slice(&r.payload);
        }
    }
}

/// Serialises a world as [`World::to_bytes`] does: exactly as the original library (header v2,
/// chunk payloads v2) when the world fits v2, v3 otherwise.
pub fn write_world(world: &World) -> Vec<u8> {
    world.to_bytes()
}

/// The v2 writer; the world fits v2 (callers check [`World::fits_v2`]).
pub(crate) fn write_world_v2(world: &World) -> Vec<u8> {
    let n = world.chunks_per_axis();
    let count = (n * n * n) as usize;
    let data_start = size_of::<WorldHeader>() + size_of::<ChunkTableEntry>() * count;
    let payload_bytes: usize = world
        .non_empty_chunks()
        .map(|(_, c)| chunk_payload_size(c))
        .sum();
    let mut out = Vec::with_capacity(data_start + payload_bytes);
    let spawn = world.spawn().map_or([0u32; 3], |s| s.map(|v| v as u32 + 1));
    let header = WorldHeader {
        magic: *WORLD_MAGIC,
        version: WORLD_VERSION,
        chunk_size: CHUNK_SIZE as u8,
        chunks_per_axis: n as u8,
        flags: 0,
        chunk_count: U32::new(count as u32),
        chunk_table_offset: U32::new(size_of::<WorldHeader>() as u32),
        chunk_data_offset: U32::new(data_start as u32),
        sky_region: U32::new(world.sky_region()),
        mission_number: U32::new(world.mission_number()),
        spawn: spawn.map(U32::new),
    };
    out.extend_from_slice(header.as_bytes());
    // Table: every position in z, y, x order; payloads follow back to back in the same order.
    let mut offset = data_start as u64;
    for slot in 0..count {
        let s = slot as u32;
        let pos = [s % n, (s / n) % n, s / (n * n)];
        let chunk = world
            .chunk([pos[0], pos[1], pos[2]])
            .filter(|c| !c.is_empty());
        let (off, size, flags) = match chunk {
            Some(c) => {
                let size = chunk_payload_size(c);
                let o = offset;
                offset += size as u64;
                (o, size as u32, 0u16)
            }
            None => (0, 0, ENTRY_EMPTY),
        };
        let entry = ChunkTableEntry {
            offset: U64::new(off),
            size: U32::new(size),
            pos: pos.map(|v| U16::new(v as u16)),
            flags: U16::new(flags),
        };
        out.extend_from_slice(entry.as_bytes());
    }
    for (_, c) in world.non_empty_chunks() {
        write_chunk(&mut out, c);
    }
    out
}

/// The world-wide fields of a v2 header of `n` chunks per axis, the spawn checked as a full
/// read checks it.
fn header_fields(h: &WorldHeader, n: u32) -> Result<crate::WorldFields> {
    let at = |o: usize| o as u64;
    let bpa = n * CHUNK_SIZE as u32;
    let sp = h.spawn.map(|v| v.get());
    let spawn = if sp == [0, 0, 0] {
        None
    } else {
        for (k, &v) in sp.iter().enumerate() {
            let offset = at(offset_of!(WorldHeader, spawn) + k * size_of::<U32>());
            if v == 0 {
                return Err(VwrError::InvalidField {
                    offset,
                    field: "spawn",
                    value: 0,
                    rule: "spawn components must be all 0 (unset) or all non-zero",
                });
            }
            if v > bpa {
                return Err(VwrError::InvalidField {
                    offset,
                    field: "spawn",
                    value: v.into(),
                    rule: "spawn component (cell + 1) exceeds blocks per axis",
                });
            }
        }
        Some(sp.map(|v| v as i32 - 1))
    };
    Ok(crate::WorldFields {
        sky_region: h.sky_region.get(),
        mission_number: h.mission_number.get(),
        spawn,
    })
}

/// The world-wide fields of the v2 header at the start of `head` (checked as a full read
/// checks the header).
pub(crate) fn v2_fields(head: &[u8]) -> Result<crate::WorldFields> {
    let n = check_v2_header(head)?;
    let (h, _) = record::<WorldHeader>(head, 0, "world header")?;
    header_fields(h, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The hashed set reports what a scan of the earlier entries does.
        #[test]
        fn repeats_match_a_scan(raw in proptest::collection::vec(0u16..40, 1..=MAX_PALETTE)) {
            let palette: Vec<Block> = raw.iter().map(|&v| Block(v.wrapping_mul(4099))).collect();
            let mut got = Vec::new();
            for_each_repeat(&palette, |v| got.push(v));
            let want: Vec<u16> = (0..palette.len())
                .filter(|&k| palette[..k].contains(&palette[k]))
                .map(|k| palette[k].0)
                .collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
