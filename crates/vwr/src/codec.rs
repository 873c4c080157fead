//! Reading and writing `.vwr` files (VWR.md sections 3–5).
//!
//! Every layout is declared once here: the reader and the writer share the constants below.

use std::io::Write;
use std::path::Path;

use crate::block::Block;
use crate::chunk::{
    bits_for, word_count, Chunk, MetaRecord, CHUNK_SIZE, CHUNK_VOLUME, MAX_PALETTE,
};
use crate::error::{Result, VwrError};
use crate::records::{MoveObject, META_MOVE_OBJECT};
use crate::world::World;

/// World file magic.
pub const WORLD_MAGIC: &[u8; 4] = b"VWR1";
/// World header version written and read.
pub const WORLD_VERSION: u8 = 2;
/// World header size (v2).
pub const WORLD_HEADER_SIZE: usize = 40;
/// Chunk table entry size.
pub const TABLE_ENTRY_SIZE: usize = 20;
/// Chunk-table flag: the chunk is empty and has no payload.
pub const ENTRY_EMPTY: u16 = 0x0001;
/// Chunk payload magic.
pub const CHUNK_MAGIC: &[u8; 4] = b"VCH1";
/// Chunk payload version written (1 and 2 are read).
pub const CHUNK_VERSION: u8 = 2;
/// Chunk payload header size, v2.
pub const CHUNK_HEADER_V2: usize = 24;
/// Chunk payload header size, v1.
pub const CHUNK_HEADER_V1: usize = 20;
/// Chunk flag: an extra-metadata section follows the words.
pub const CHUNK_FLAG_META: u8 = 0x01;
/// Metadata section magic.
pub const META_MAGIC: &[u8; 4] = b"BMD1";
/// Metadata section version.
pub const META_VERSION: u16 = 1;
/// Metadata section header size.
pub const META_HEADER_SIZE: usize = 12;
/// Per-record header size (index u32, type u16, size u16).
pub const RECORD_HEADER_SIZE: usize = 8;

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
    /// A MoveObject record in the legacy 45-byte form.
    LegacyMoveObject {
        /// Anchor cell.
        cell: [i32; 3],
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
            Oddity::LegacyChunkVersion { pos } => {
                write!(f, "chunk {pos:?}: legacy v1 chunk payload")
            }
            Oddity::LegacyMoveObject { cell } => {
                write!(f, "MoveObject at {cell:?} uses the legacy 45-byte form")
            }
        }
    }
}

/// Little-endian reads from a slice with offsets passed explicitly. Callers check bounds first.
fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[o..o + 8]);
    u64::from_le_bytes(a)
}

fn need(avail: usize, offset: u64, needed: usize, what: &'static str) -> Result<()> {
    if avail < needed {
        return Err(VwrError::Truncated {
            offset,
            what,
            needed: needed as u64,
            available: avail as u64,
        });
    }
    Ok(())
}

/// Reads a world from the bytes of a `.vwr` file.
pub fn read_world(bytes: &[u8]) -> Result<World> {
    read_inner(bytes, None)
}

/// Reads a world and also reports [`Oddity`]s the format tolerates.
pub fn read_world_checked(bytes: &[u8]) -> Result<(World, Vec<Oddity>)> {
    let mut odd = Vec::new();
    let w = read_inner(bytes, Some(&mut odd))?;
    Ok((w, odd))
}

fn read_inner(bytes: &[u8], mut odd: Option<&mut Vec<Oddity>>) -> Result<World> {
    need(bytes.len(), 0, WORLD_HEADER_SIZE, "world header")?;
    if &bytes[0..4] != WORLD_MAGIC {
        return Err(VwrError::BadMagic {
            offset: 0,
            expected: "VWR1",
            found: bytes[0..4].try_into().unwrap_or([0; 4]),
        });
    }
    if bytes[4] != WORLD_VERSION {
        return Err(VwrError::UnsupportedVersion {
            offset: 4,
            what: "world header",
            found: bytes[4].into(),
            supported: "2",
        });
    }
    if bytes[5] as usize != CHUNK_SIZE {
        return Err(VwrError::InvalidField {
            offset: 5,
            field: "chunkSize",
            value: bytes[5].into(),
            rule: "must be 10",
        });
    }
    let n = bytes[6] as u32;
    if n == 0 {
        return Err(VwrError::InvalidField {
            offset: 6,
            field: "chunksPerAxis",
            value: 0,
            rule: "must be at least 1",
        });
    }
    if bytes[7] != 0 {
        return Err(VwrError::InvalidField {
            offset: 7,
            field: "flags",
            value: bytes[7].into(),
            rule: "must be 0",
        });
    }
    let count = u32_at(bytes, 8);
    let expected = n * n * n;
    if count != expected {
        return Err(VwrError::InvalidField {
            offset: 8,
            field: "chunkCount",
            value: count.into(),
            rule: "must be chunksPerAxis³",
        });
    }
    let table = u32_at(bytes, 12) as u64;
    let table_len = count as u64 * TABLE_ENTRY_SIZE as u64;
    match table.checked_add(table_len) {
        Some(end) if end <= bytes.len() as u64 => {}
        _ => {
            return Err(VwrError::Truncated {
                offset: table,
                what: "chunk table",
                needed: table_len,
                available: (bytes.len() as u64).saturating_sub(table),
            })
        }
    }
    let sky = u32_at(bytes, 20);
    let mission = u32_at(bytes, 24);
    let bpa = n * CHUNK_SIZE as u32;
    let sp = [u32_at(bytes, 28), u32_at(bytes, 32), u32_at(bytes, 36)];
    let spawn = if sp == [0, 0, 0] {
        None
    } else {
        for (k, &v) in sp.iter().enumerate() {
            let offset = 28 + 4 * k as u64;
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
    if let Some(o) = odd.as_deref_mut() {
        if sky > 31 {
            o.push(Oddity::SkyRegionOutOfRange(sky));
        }
    }

    let mut world = World::with_chunks_per_axis(n)?;
    world.set_sky_region(sky);
    world.set_mission_number(mission);
    world.set_spawn_unchecked(spawn);

    // The table fits in the file (checked above), so this bitmap is smaller than the file.
    let mut seen = vec![false; count as usize];
    for e in 0..count {
        let eo = table as usize + e as usize * TABLE_ENTRY_SIZE;
        let offset = u64_at(bytes, eo);
        let size = u32_at(bytes, eo + 8);
        let pos = [
            u16_at(bytes, eo + 12),
            u16_at(bytes, eo + 14),
            u16_at(bytes, eo + 16),
        ];
        let flags = u16_at(bytes, eo + 18);
        let bad = |reason: String| VwrError::BadTableEntry {
            entry: e,
            offset: eo as u64,
            pos,
            reason,
        };
        if pos.iter().any(|&p| p as u32 >= n) {
            return Err(bad(format!("position outside the {n}³ chunk grid")));
        }
        let slot = (pos[0] as u32 + n * (pos[1] as u32 + n * pos[2] as u32)) as usize;
        if std::mem::replace(&mut seen[slot], true) {
            return Err(bad("chunk position listed twice".into()));
        }
        if flags & ENTRY_EMPTY != 0 {
            continue;
        }
        if size == 0 {
            return Err(bad("non-empty chunk with payload size 0".into()));
        }
        let end = offset
            .checked_add(size as u64)
            .filter(|&end| end <= bytes.len() as u64);
        let Some(end) = end else {
            return Err(bad(format!(
                "payload range {offset}+{size} lies outside the {}-byte file",
                bytes.len()
            )));
        };
        let payload = &bytes[offset as usize..end as usize];
        let (chunk, used) = read_chunk(payload, pos, offset, odd.as_deref_mut())?;
        if let Some(o) = odd.as_deref_mut() {
            if used < payload.len() {
                o.push(Oddity::TrailingBytes {
                    pos,
                    count: (payload.len() - used) as u64,
                });
            }
        }
        world.set_chunk(pos[0].into(), pos[1].into(), pos[2].into(), chunk)?;
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

/// Parses one chunk payload; returns the chunk and the bytes consumed.
fn read_chunk(
    p: &[u8],
    pos: [u16; 3],
    base: u64,
    mut odd: Option<&mut Vec<Oddity>>,
) -> Result<(Chunk, usize)> {
    let bad = |reason: String| VwrError::BadChunk {
        pos,
        offset: base,
        reason,
    };
    need(p.len(), base, CHUNK_HEADER_V1, "chunk header")?;
    if &p[0..4] != CHUNK_MAGIC {
        return Err(VwrError::BadMagic {
            offset: base,
            expected: "VCH1",
            found: p[0..4].try_into().unwrap_or([0; 4]),
        });
    }
    let version = p[4];
    let header = match version {
        1 => CHUNK_HEADER_V1,
        2 => CHUNK_HEADER_V2,
        v => {
            return Err(VwrError::UnsupportedVersion {
                offset: base + 4,
                what: "chunk payload",
                found: v.into(),
                supported: "1, 2",
            })
        }
    };
    need(p.len(), base, header, "chunk header")?;
    if p[5] as usize != CHUNK_SIZE {
        return Err(bad(format!("chunkSize {} (must be 10)", p[5])));
    }
    let bits = p[6];
    let flags = p[7];
    let pcount = u16_at(p, 8) as usize;
    let reserved = u16_at(p, 10);
    let block_count = u32_at(p, 12);
    let data_size = u32_at(p, 16) as usize;
    let meta_size = if version == 2 {
        u32_at(p, 20) as usize
    } else {
        0
    };
    if !(1..=MAX_PALETTE).contains(&pcount) {
        return Err(bad(format!("paletteCount {pcount} (must be 1..=256)")));
    }
    if bits != bits_for(pcount) {
        return Err(bad(format!(
            "bitsPerBlock {bits} does not match paletteCount {pcount} (expected {})",
            bits_for(pcount)
        )));
    }
    if reserved != 0 {
        return Err(bad(format!("reserved field is {reserved} (must be 0)")));
    }
    if block_count as usize != CHUNK_VOLUME {
        return Err(bad(format!("blockCount {block_count} (must be 1000)")));
    }
    let words = word_count(bits);
    if data_size != words * 8 {
        return Err(bad(format!(
            "dataSizeBytes {data_size} (must be {} for {bits} bits per block)",
            words * 8
        )));
    }
    if version == 1 && flags != 0 {
        return Err(bad(format!("v1 chunk with flags {flags:#04x} (must be 0)")));
    }
    if flags & !CHUNK_FLAG_META != 0 {
        return Err(bad(format!("reserved chunk flag bits set ({flags:#04x})")));
    }
    if (flags & CHUNK_FLAG_META != 0) != (meta_size != 0) {
        return Err(bad(format!(
            "metadata flag {} but extraMetaSizeBytes {meta_size}",
            flags & CHUNK_FLAG_META
        )));
    }
    let body = header + pcount * 2 + data_size;
    let total = body + meta_size;
    need(p.len(), base, total, "chunk body")?;
    // Bounds were checked above (`need(.., total, ..)`); whole-slice conversions let the
    // compiler copy without per-element checks.
    let palette: Vec<Block> = p[header..header + 2 * pcount]
        .chunks_exact(2)
        .map(|c| Block(u16::from_le_bytes([c[0], c[1]])))
        .collect();
    let wo = header + pcount * 2;
    let mut w: Vec<u64> = p[wo..wo + 8 * words]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
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
            return Err(bad(format!(
                "block {i} uses palette index {} but the palette has {pcount} entries",
                idx[i]
            )));
        }
    }
    if let Some(o) = odd {
        let mut used = [false; MAX_PALETTE];
        idx.iter().for_each(|&v| used[v as usize] = true);
        let unused = used[..pcount].iter().filter(|u| !**u).count();
        for (k, b) in palette.iter().enumerate() {
            if palette[..k].contains(b) {
                o.push(Oddity::DuplicatePaletteEntry { pos, raw: b.0 });
            }
        }
        if unused > 0 {
            o.push(Oddity::UnusedPaletteEntries { pos, count: unused });
        }
        if version == 1 {
            o.push(Oddity::LegacyChunkVersion { pos });
        }
    }
    let meta = if meta_size > 0 {
        read_meta(&p[body..total], pos, base + body as u64)?
    } else {
        Vec::new()
    };
    Ok((Chunk::from_parts(palette, w, meta), total))
}

fn read_meta(s: &[u8], pos: [u16; 3], base: u64) -> Result<Vec<MetaRecord>> {
    need(s.len(), base, META_HEADER_SIZE, "metadata section header")?;
    if &s[0..4] != META_MAGIC {
        return Err(VwrError::BadMagic {
            offset: base,
            expected: "BMD1",
            found: s[0..4].try_into().unwrap_or([0; 4]),
        });
    }
    let version = u16_at(s, 4);
    if version != META_VERSION {
        return Err(VwrError::UnsupportedVersion {
            offset: base + 4,
            what: "metadata section",
            found: version.into(),
            supported: "1",
        });
    }
    if u16_at(s, 6) != 0 {
        return Err(VwrError::BadChunk {
            pos,
            offset: base,
            reason: format!(
                "metadata section reserved field is {} (must be 0)",
                u16_at(s, 6)
            ),
        });
    }
    let count = u32_at(s, 8) as usize;
    // Each record takes at least 8 bytes: bound the count by the section before allocating.
    if count > (s.len() - META_HEADER_SIZE) / RECORD_HEADER_SIZE {
        return Err(VwrError::BadChunk {
            pos,
            offset: base + 8,
            reason: format!(
                "recordCount {count} cannot fit in a {}-byte metadata section",
                s.len()
            ),
        });
    }
    // Records are 32 bytes in memory for >= 8 in the file: reserve modestly, grow as parsed.
    let mut out = Vec::with_capacity(count.min(64));
    let mut o = META_HEADER_SIZE;
    for r in 0..count {
        let bad = |offset: usize, reason: String| VwrError::BadRecord {
            pos,
            record: r as u32,
            offset: base + offset as u64,
            reason,
        };
        if s.len() - o < RECORD_HEADER_SIZE {
            return Err(bad(
                o,
                "record header runs past the end of the metadata section".into(),
            ));
        }
        let index = u32_at(s, o);
        let record_type = u16_at(s, o + 4);
        let size = u16_at(s, o + 6) as usize;
        if index as usize >= CHUNK_VOLUME {
            return Err(bad(o, format!("localBlockIndex {index} (must be < 1000)")));
        }
        if s.len() - o - RECORD_HEADER_SIZE < size {
            return Err(bad(
                o,
                format!("payload of {size} bytes runs past the end of the metadata section"),
            ));
        }
        let start = o + RECORD_HEADER_SIZE;
        out.push(MetaRecord {
            index: index as u16,
            record_type,
            payload: s[start..start + size].to_vec(),
        });
        o = start + size;
    }
    if o != s.len() {
        return Err(VwrError::BadChunk {
            pos,
            offset: base + o as u64,
            reason: format!(
                "{} bytes left over after {count} metadata records",
                s.len() - o
            ),
        });
    }
    Ok(out)
}

/// Size in bytes of a chunk's payload as written.
pub fn chunk_payload_size(c: &Chunk) -> usize {
    let meta = meta_section_size(c);
    CHUNK_HEADER_V2 + 2 * c.palette().len() + 8 * c.words().len() + meta
}

fn meta_section_size(c: &Chunk) -> usize {
    if c.records().is_empty() {
        0
    } else {
        META_HEADER_SIZE
            + c.records()
                .iter()
                .map(|r| RECORD_HEADER_SIZE + r.payload.len())
                .sum::<usize>()
    }
}

fn write_chunk(out: &mut Vec<u8>, c: &Chunk) {
    let meta = meta_section_size(c);
    out.extend_from_slice(CHUNK_MAGIC);
    out.push(CHUNK_VERSION);
    out.push(CHUNK_SIZE as u8);
    out.push(c.bits_per_block());
    out.push(if meta > 0 { CHUNK_FLAG_META } else { 0 });
    out.extend_from_slice(&(c.palette().len() as u16).to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(CHUNK_VOLUME as u32).to_le_bytes());
    out.extend_from_slice(&((c.words().len() * 8) as u32).to_le_bytes());
    out.extend_from_slice(&(meta as u32).to_le_bytes());
    for b in c.palette() {
        out.extend_from_slice(&b.0.to_le_bytes());
    }
    for w in c.words() {
        out.extend_from_slice(&w.to_le_bytes());
    }
    if meta > 0 {
        out.extend_from_slice(META_MAGIC);
        out.extend_from_slice(&META_VERSION.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&(c.records().len() as u32).to_le_bytes());
        for r in c.records() {
            out.extend_from_slice(&(r.index as u32).to_le_bytes());
            out.extend_from_slice(&r.record_type.to_le_bytes());
            out.extend_from_slice(&(r.payload.len() as u16).to_le_bytes());
            out.extend_from_slice(&r.payload);
        }
    }
}

/// Serialises a world exactly as the original library does (header v2, chunk payloads v2).
pub fn write_world(world: &World) -> Vec<u8> {
    let n = world.chunks_per_axis();
    let count = (n * n * n) as usize;
    let data_start = WORLD_HEADER_SIZE + TABLE_ENTRY_SIZE * count;
    let payload_bytes: usize = world
        .non_empty_chunks()
        .map(|(_, c)| chunk_payload_size(c))
        .sum();
    let mut out = Vec::with_capacity(data_start + payload_bytes);
    out.extend_from_slice(WORLD_MAGIC);
    out.push(WORLD_VERSION);
    out.push(CHUNK_SIZE as u8);
    out.push(n as u8);
    out.push(0);
    out.extend_from_slice(&(count as u32).to_le_bytes());
    out.extend_from_slice(&(WORLD_HEADER_SIZE as u32).to_le_bytes());
    out.extend_from_slice(&(data_start as u32).to_le_bytes());
    out.extend_from_slice(&world.sky_region().to_le_bytes());
    out.extend_from_slice(&world.mission_number().to_le_bytes());
    let sp = world.spawn().map_or([0u32; 3], |s| s.map(|v| v as u32 + 1));
    for v in sp {
        out.extend_from_slice(&v.to_le_bytes());
    }
    // Table: every position in z, y, x order; payloads follow back to back in the same order.
    out.resize(data_start, 0);
    let mut offset = data_start as u64;
    for slot in 0..count {
        let s = slot as u32;
        let pos = [s % n, (s / n) % n, s / (n * n)];
        let e = WORLD_HEADER_SIZE + slot * TABLE_ENTRY_SIZE;
        let chunk = world
            .chunk(pos[0], pos[1], pos[2])
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
        out[e..e + 8].copy_from_slice(&off.to_le_bytes());
        out[e + 8..e + 12].copy_from_slice(&size.to_le_bytes());
        for k in 0..3 {
            out[e + 12 + 2 * k..e + 14 + 2 * k].copy_from_slice(&(pos[k] as u16).to_le_bytes());
        }
        out[e + 18..e + 20].copy_from_slice(&flags.to_le_bytes());
    }
    for (_, c) in world.non_empty_chunks() {
        write_chunk(&mut out, c);
    }
    out
}

impl World {
    /// Parses a world from the bytes of a `.vwr` file.
    pub fn from_bytes(bytes: &[u8]) -> Result<World> {
        read_world(bytes)
    }

    /// Loads a world from a file (one read, then [`World::from_bytes`]).
    pub fn load(path: impl AsRef<Path>) -> Result<World> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| VwrError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        read_world(&bytes)
    }

    /// Serialises the world (v2, byte-identical to the original writer).
    pub fn to_bytes(&self) -> Vec<u8> {
        write_world(self)
    }

    /// Writes the world to any writer.
    pub fn write_to<W: Write>(&self, mut w: W) -> Result<()> {
        w.write_all(&write_world(self))?;
        Ok(())
    }

    /// Saves the world atomically (temp file + fsync + rename): a crash or error never leaves a
    /// truncated world at `path`.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        voxcaf_fs::write_atomic(path, &write_world(self)).map_err(|source| VwrError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}
