//! The binary chunk-mesh answer of `GET /api/chunks` (the page reads it with typed arrays).
//!
//! Little-endian, every section a multiple of 4 bytes so that the page can view it in place.
//! It sends only what the page needs: block values compactly (a uniform chunk is one run),
//! positions quantized when that is exact (one byte a coordinate for whole blocks), quads
//! without their indices and with one normal each, 16-bit indices when they fit.
//!
//! ```text
//! "VXM2"  u32 epoch  u32 chunk_count
//! per chunk:
//!   u32 cx, cy, cz   u32 flags (bit 0: block values follow; bit 1: as runs; bit 2: an
//!   opaque pass follows; bit 3: a transparent pass follows; bit 4: plate rotations follow,
//!   only with bit 0; bits 8–11: the level of detail k, 0 but in answers of `GET /api/lod`)
//!   block values (only with flag bit 0), x fastest then y then z:
//!     bit 1 clear: [u16; 1000] raw block values
//!     bit 1 set:   u32 run_count, then (u16 raw value, u16 length) × run_count
//!   plate rotations (flag bit 4): the chunk's plate-rotation records (type 2), which change
//!   how its plates are meshed; a chunk sent with block values and without bit 4 has none:
//!     u32 count, then u32 × count: the cell's index in the chunk (bits 0–15, below 1000, x
//!     fastest) and bit 16 set when the plate is rotated 90°
//!   opaque pass (flag bit 2), then transparent pass (flag bit 3), each:
//!     u32 vertex_count  u32 index_count  u32 pass flags
//!     positions, x y z per vertex, each padded to 4 bytes:
//!       flag bit 3 set:   [u8; 3] whole blocks from the chunk's corner
//!       else bit 0 set:   [i16; 3] in 1/256 block from the chunk's corner
//!       else:             [f32; 3] in world units
//!     flag bit 2 clear (any triangles):
//!       [i8; 4] normal (x, y, z, 0)               × vertex_count
//!       [u8; 4] colour, sRGB, AO baked in, alpha  × vertex_count
//!       indices: bit 1 set: u16 × index_count, padded to 4; else u32 × index_count
//!     flag bit 2 set (quads: 4 vertices each, one normal and block colour each, every quad's
//!     six indices q·4 plus one of four patterns):
//!       [i8; 4] normal (x, y, z, 0)               × quad count
//!       [u8; 4] block colour, sRGB, alpha         × quad count
//!       u8 ambient occlusion level (0 darkest … 3) × vertex_count, padded to 4
//!       [u8; 6] × 4: the patterns (vertex numbers within the quad)
//!       u8 pattern of each quad                   × quad count, padded to 4
//!     The page bakes AO into a quad's colours as [`vertex_color`] does.
//! ```
//!
//! A chunk listed with no block values and no passes has been emptied: the page drops it.
//!
//! **Levels of detail** (`GET /api/lod?level=K`): chunk `(cx, cy, cz)` of level k covers
//! 10·2^k blocks a side from block `(cx, cy, cz)·10·2^k`, its "chunk's corner" above; its
//! positions are in world units from that corner like any other (whole multiples of 2^k, so
//! the one-byte form holds them up to level 4), its mesh closed on every border plane
//! (`vwr_mesh::lod::mesh_chunk_closed`), and it carries no block values.

use vwr::layout::META_PLATE_ROTATION;
use vwr::{Block, Chunk, CHUNK_SIZE, CHUNK_VOLUME};
use vwr_blocks::Registry;
use vwr_mesh::mesher::ChunkMesh;
use vwr_mesh::{MeshBuffers, MeshPart};

/// The magic of the chunk answer.
pub const MAGIC: &[u8; 4] = b"VXM2";

/// Quantized positions count in these steps per block.
pub const POSITION_SCALE: f32 = 256.0;

/// Shade factors of the four AO levels (0 darkest … 3 open), in 1/255.
const AO_SHADE: [u32; 4] = [140, 180, 220, 255];

/// The colour a vertex is sent with: its block colour (sRGB, alpha) shaded by its ambient
/// occlusion level (0 darkest … 3 open; higher levels count as 3), alpha kept.
pub fn vertex_color(color: [u8; 4], ao: u8) -> [u8; 4] {
    let s = AO_SHADE[usize::from(ao.min(3))];
    let shade = |x: u8| (u32::from(x) * s / 255) as u8;
    [shade(color[0]), shade(color[1]), shade(color[2]), color[3]]
}

/// Starts an answer.
pub(crate) fn begin(out: &mut Vec<u8>, epoch: u32, count: u32) {
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&epoch.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
}

/// The runs of equal values of `blocks`, as (raw value, length).
fn runs(blocks: &[Block; CHUNK_VOLUME]) -> Vec<(u16, u16)> {
    let mut out: Vec<(u16, u16)> = Vec::new();
    for b in blocks {
        match out.last_mut() {
            Some((v, n)) if *v == b.raw() => *n += 1,
            _ => out.push((b.raw(), 1)),
        }
    }
    out
}

/// Appends one chunk: with its block values and plate rotations when `chunk` is given (an
/// absent chunk is sent without, as emptied or all air).
pub(crate) fn push_chunk(
    out: &mut Vec<u8>,
    pos: [u32; 3],
    chunk: Option<&Chunk>,
    mesh: Option<&ChunkMesh>,
    registry: &Registry,
) {
    let mut blocks = [Block::AIR; CHUNK_VOLUME];
    let values = chunk.map(|c| {
        c.blocks_into(&mut blocks);
        (&blocks, plates_of(c))
    });
    let values = values.as_ref().map(|(b, p)| (*b, p.as_slice()));
    push_chunk_at(out, (pos, 0), values, mesh, registry);
}

/// What a chunk sends besides its meshes: its block values and plate rotations.
type ChunkValues<'a> = (&'a [Block; CHUNK_VOLUME], &'a [(u16, bool)]);

/// A chunk's plate rotations: (cell index, rotated) of each plate-rotation record.
pub fn plates_of(chunk: &Chunk) -> Vec<(u16, bool)> {
    chunk
        .records()
        .iter()
        .filter(|r| r.record_type == META_PLATE_ROTATION)
        .map(|r| (r.index, r.payload.first().is_some_and(|&b| b != 0)))
        .collect()
}

/// The answer of `GET /api/lod` at `epoch`: chunks of level of detail `level` (1..=15), each
/// with its closed mesh (in the level's cells, [`ChunkMesh::level`] `level`) sent in world
/// units and no block values; a chunk without a mesh became empty.
pub fn lod_answer(
    epoch: u32,
    level: u8,
    chunks: &[([u32; 3], Option<&ChunkMesh>)],
    registry: &Registry,
) -> Vec<u8> {
    let mut out = Vec::new();
    begin(&mut out, epoch, chunks.len() as u32);
    for (pos, mesh) in chunks {
        push_chunk_at(&mut out, (*pos, level), None, *mesh, registry);
    }
    out
}

/// Appends chunk `pos` of level `level` (0: blocks), with its block values and plate
/// rotations when given.
fn push_chunk_at(
    out: &mut Vec<u8>,
    (pos, level): ([u32; 3], u8),
    values: Option<ChunkValues<'_>>,
    mesh: Option<&ChunkMesh>,
    registry: &Registry,
) {
    let blocks = values.map(|v| v.0);
    let plates = values.map_or(&[][..], |v| v.1);
    for v in pos {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let runs = blocks.map(runs);
    // Runs take 4 bytes each: smaller than the 2000-byte array below 500 runs.
    let as_runs = runs
        .as_ref()
        .is_some_and(|r| r.len() * 4 < CHUNK_VOLUME * 2);
    let buffers = mesh.map(|m| MeshBuffers::from_chunk(m, registry));
    let passes = match &buffers {
        Some(b) => [&b.opaque, &b.transparent].map(|p| (!p.indices.is_empty()).then_some(p)),
        None => [None, None],
    };
    let flags = u32::from(blocks.is_some())
        | (u32::from(as_runs) << 1)
        | (u32::from(passes[0].is_some()) << 2)
        | (u32::from(passes[1].is_some()) << 3)
        | (u32::from(!plates.is_empty()) << 4)
        | (u32::from(level.min(15)) << 8);
    out.extend_from_slice(&flags.to_le_bytes());
    match (blocks, runs) {
        (Some(_), Some(r)) if as_runs => {
            out.extend_from_slice(&(r.len() as u32).to_le_bytes());
            for (v, n) in r {
                out.extend_from_slice(&v.to_le_bytes());
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        (Some(b), _) => {
            // CHUNK_VOLUME (1000) u16 values are 2000 bytes: already a multiple of 4.
            for c in b.iter() {
                out.extend_from_slice(&c.raw().to_le_bytes());
            }
        }
        _ => {}
    }
    if !plates.is_empty() {
        out.extend_from_slice(&(plates.len() as u32).to_le_bytes());
        for &(i, rotated) in plates {
            out.extend_from_slice(&(u32::from(i) | u32::from(rotated) << 16).to_le_bytes());
        }
    }
    let corner = pos.map(|v| ((v as usize * CHUNK_SIZE) << level.min(15)) as f32);
    for p in passes.into_iter().flatten() {
        push_part(out, p, corner);
    }
}

/// `v` (world units) in 1/256 block from `corner`, if that is exact and fits an i16.
fn quantized(v: f32, corner: f32) -> Option<i16> {
    let q = (v - corner) * POSITION_SCALE;
    let ok = q == q.round() && (f32::from(i16::MIN)..=f32::from(i16::MAX)).contains(&q);
    // The page computes corner + q / 256 in f32: it must give v back exactly.
    (ok && corner + q / POSITION_SCALE == v).then_some(q as i16)
}

/// Pads `out` with zeros to a multiple of 4 bytes.
fn pad4(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

/// A pass as quads: the four index patterns and each quad's pattern, when `p` is quads (4
/// vertices each, each with one normal and one block colour, every quad's six indices q·4 plus
/// one of at most four patterns).
fn quads(p: &MeshPart) -> Option<([[u8; 6]; 4], Vec<u8>)> {
    let n = p.positions.len();
    if n == 0 || !n.is_multiple_of(4) || p.indices.len() != n / 4 * 6 {
        return None;
    }
    let mut pats: Vec<[u8; 6]> = Vec::new();
    let mut which = Vec::with_capacity(n / 4);
    for (q, ix) in p.indices.chunks(6).enumerate() {
        let mut pat = [0u8; 6];
        for (k, i) in ix.iter().enumerate() {
            let rel = (*i as usize).checked_sub(q * 4).filter(|v| *v < 4)?;
            pat[k] = rel as u8;
        }
        let at = match pats.iter().position(|x| *x == pat) {
            Some(at) => at,
            None if pats.len() < 4 => {
                pats.push(pat);
                pats.len() - 1
            }
            None => return None,
        };
        which.push(at as u8);
    }
    let flat = |v: &[[f32; 3]]| v.iter().all(|x| x == &v[0]);
    let one_colour = |v: &[[u8; 4]]| v.iter().all(|x| x == &v[0]);
    let uniform = p.normals.chunks(4).all(flat) && p.colors.chunks(4).all(one_colour);
    let pat = |k: usize| pats.get(k).copied().unwrap_or(pats[0]);
    uniform.then_some(([pat(0), pat(1), pat(2), pat(3)], which))
}

fn push_part(out: &mut Vec<u8>, p: &MeshPart, corner: [f32; 3]) {
    let n = p.positions.len();
    let q: Option<Vec<i16>> = p
        .positions
        .iter()
        .flat_map(|v| (0..3).map(move |k| quantized(v[k], corner[k])))
        .collect();
    let whole = q
        .as_ref()
        .is_some_and(|q| q.iter().all(|v| v % 256 == 0 && *v >= 0));
    let as_quads = quads(p);
    let short_indices = n <= usize::from(u16::MAX) + 1;
    let flags = u32::from(q.is_some())
        | (u32::from(short_indices) << 1)
        | (u32::from(as_quads.is_some()) << 2)
        | (u32::from(whole) << 3);
    out.extend_from_slice(&(n as u32).to_le_bytes());
    out.extend_from_slice(&(p.indices.len() as u32).to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    match q {
        Some(q) if whole => out.extend(q.iter().map(|v| (v / 256) as u8)),
        Some(q) => q
            .iter()
            .for_each(|c| out.extend_from_slice(&c.to_le_bytes())),
        None => p
            .positions
            .iter()
            .flatten()
            .for_each(|c| out.extend_from_slice(&c.to_le_bytes())),
    }
    pad4(out);
    let step = if as_quads.is_some() { 4 } else { 1 };
    for v in p.normals.iter().step_by(step) {
        out.extend_from_slice(&[v[0] as i8 as u8, v[1] as i8 as u8, v[2] as i8 as u8, 0]);
    }
    match as_quads {
        Some((pats, which)) => {
            p.colors.iter().step_by(4).for_each(|c| out.extend(c));
            out.extend(p.ao.iter().map(|a| (*a).min(3)));
            pad4(out);
            out.extend(pats.iter().flatten());
            out.extend(which);
        }
        None => {
            for (c, ao) in p.colors.iter().zip(&p.ao) {
                out.extend_from_slice(&vertex_color(*c, *ao));
            }
            if short_indices {
                let ix = p.indices.iter().map(|i| *i as u16);
                ix.for_each(|i| out.extend_from_slice(&i.to_le_bytes()));
            } else {
                p.indices
                    .iter()
                    .for_each(|i| out.extend_from_slice(&i.to_le_bytes()));
            }
        }
    }
    pad4(out);
}

/// The epoch an answer was made at (the word after its magic).
pub fn answer_epoch(bytes: &[u8]) -> Result<u32, String> {
    match bytes.get(..8) {
        Some(h) if &h[..4] == MAGIC => Ok(u32::from_le_bytes([h[4], h[5], h[6], h[7]])),
        _ => Err("not a chunk answer (no VXM2 magic and epoch)".into()),
    }
}

/// A chunk of an answer read back: what a client that follows the world without drawing it
/// needs (the page's own reader is `wire.js`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedChunk {
    /// The chunk's position.
    pub pos: [u32; 3],
    /// Its block values (raw, as [`vwr::Block::raw`]); `None` when the answer carries none
    /// for it (an emptied chunk).
    pub blocks: Option<Vec<u16>>,
    /// Its plate rotations, (cell index, rotated), when it came with block values (none
    /// otherwise).
    pub plates: Vec<(u16, bool)>,
}

/// Reads an answer's chunks: each chunk's position, block values and plate rotations.
pub fn decode_blocks(bytes: &[u8]) -> Result<Vec<DecodedChunk>, String> {
    Ok(decode_all(bytes)?.into_iter().map(|(_, c)| c).collect())
}

/// A chunk of an answer read back with its flags (see the module doc): position, flags,
/// block values.
pub type DecodedFlags = ([u32; 3], u32, Option<Vec<u16>>);

/// [`decode_blocks`] with each chunk's flags too.
pub fn decode_chunks(bytes: &[u8]) -> Result<Vec<DecodedFlags>, String> {
    Ok(decode_all(bytes)?
        .into_iter()
        .map(|(flags, c)| (c.pos, flags, c.blocks))
        .collect())
}

/// Every chunk of an answer with its flags.
fn decode_all(bytes: &[u8]) -> Result<Vec<(u32, DecodedChunk)>, String> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let end = at
            .checked_add(n)
            .filter(|e| *e <= bytes.len())
            .ok_or_else(|| {
                format!(
                    "the answer ends at byte {} (wanted {n} more at {at})",
                    bytes.len()
                )
            })?;
        let s = &bytes[at..end];
        at = end;
        Ok(s)
    };
    let u32_at = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let padded = |n: usize| n.div_ceil(4) * 4;
    if take(4)? != MAGIC {
        return Err("not a chunk answer (no VXM2 magic)".into());
    }
    take(4)?; // the epoch: answer_epoch
    let count = u32_at(take(4)?);
    let mut out = Vec::new();
    for _ in 0..count {
        let h = take(16)?;
        let pos = [u32_at(&h[0..]), u32_at(&h[4..]), u32_at(&h[8..])];
        let flags = u32_at(&h[12..]);
        let blocks = match (flags & 1 == 1, flags & 2 == 2) {
            (false, _) => None,
            (true, false) => {
                let b = take(CHUNK_VOLUME * 2)?;
                Some(
                    b.chunks_exact(2)
                        .map(|c| u16::from_le_bytes([c[0], c[1]]))
                        .collect(),
                )
            }
            (true, true) => {
                let n = u32_at(take(4)?) as usize;
                let mut v: Vec<u16> = Vec::with_capacity(CHUNK_VOLUME);
                for r in take(n.saturating_mul(4))?.chunks_exact(4) {
                    let (value, len) = (
                        u16::from_le_bytes([r[0], r[1]]),
                        u16::from_le_bytes([r[2], r[3]]),
                    );
                    if v.len() + usize::from(len) > CHUNK_VOLUME {
                        return Err(format!(
                            "chunk {pos:?}: its runs exceed {CHUNK_VOLUME} cells"
                        ));
                    }
                    v.extend(std::iter::repeat_n(value, usize::from(len)));
                }
                if v.len() != CHUNK_VOLUME {
                    return Err(format!("chunk {pos:?}: its runs cover {} cells", v.len()));
                }
                Some(v)
            }
        };
        let mut plates = Vec::new();
        if flags & 16 != 0 {
            let n = u32_at(take(4)?) as usize;
            for v in take(n.saturating_mul(4))?.chunks_exact(4) {
                let v = u32_at(v);
                let i = (v & 0xFFFF) as u16;
                if usize::from(i) >= CHUNK_VOLUME || v >> 17 != 0 {
                    return Err(format!(
                        "chunk {pos:?}: a plate rotation {v:#x} out of range"
                    ));
                }
                plates.push((i, v >> 16 == 1));
            }
        }
        for pass in [4u32, 8] {
            if flags & pass == 0 {
                continue;
            }
            let p = take(12)?;
            let (n, m, pf) = (
                u32_at(p) as usize,
                u32_at(&p[4..]) as usize,
                u32_at(&p[8..]),
            );
            let per = if pf & 8 != 0 {
                3
            } else if pf & 1 != 0 {
                6
            } else {
                12
            };
            take(padded(n.saturating_mul(per)))?;
            if pf & 4 != 0 {
                let q = n / 4;
                take(q * 8)?;
                take(padded(n))?;
                take(24)?;
                take(padded(q))?;
            } else {
                take(n.saturating_mul(8))?;
                take(padded(m.saturating_mul(if pf & 2 != 0 { 2 } else { 4 })))?;
            }
        }
        out.push((
            flags,
            DecodedChunk {
                pos,
                blocks,
                plates,
            },
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(blocks: &[Block; CHUNK_VOLUME]) -> Vec<u8> {
        let mut c = Chunk::new();
        for (i, b) in blocks.iter().enumerate() {
            c.set(i, *b).unwrap();
        }
        answer_of(&c)
    }

    fn answer_of(c: &Chunk) -> Vec<u8> {
        let mut out = Vec::new();
        begin(&mut out, 7, 1);
        let reg = vwr_blocks::default_registry();
        push_chunk(&mut out, [1, 2, 3], Some(c), None, reg);
        out
    }

    /// Plate rotations travel with a chunk's block values and come back as they were; a bad
    /// cell index is an error, not a panic.
    #[test]
    fn plate_rotations_follow_the_block_values() {
        let mut c = Chunk::new();
        c.set(5, Block(50 << 4)).unwrap();
        c.set_metadata(5, META_PLATE_ROTATION, &[1]).unwrap();
        c.set_metadata(999, META_PLATE_ROTATION, &[0]).unwrap();
        let out = answer_of(&c);
        let back = decode_blocks(&out).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].plates, vec![(5, true), (999, false)]);
        assert_eq!(back[0].blocks.as_ref().map(|b| b[5]), Some(50 << 4));
        // Without records: no section, flag bit 4 clear.
        let plain = decode_chunks(&answer(&[Block::AIR; CHUNK_VOLUME])).unwrap();
        assert_eq!(plain[0].1 & 16, 0);
        // A cell index past the chunk, in the section's last word.
        let mut bad = out.clone();
        let n = bad.len();
        bad[n - 4..].copy_from_slice(&1000u32.to_le_bytes());
        assert!(decode_blocks(&bad).unwrap_err().contains("out of range"));
        assert!(decode_blocks(&out[..n - 2]).is_err(), "cut short");
    }

    #[test]
    fn a_uniform_chunk_is_one_run() {
        let out = answer(&[Block::AIR; CHUNK_VOLUME]);
        assert_eq!(&out[..4], MAGIC);
        assert_eq!(u32::from_le_bytes(out[4..8].try_into().unwrap()), 7);
        // header 12 + chunk header 16 + run count 4 + one run 4, no passes
        assert_eq!(out.len(), 12 + 16 + 8);
        assert_eq!(u32::from_le_bytes(out[24..28].try_into().unwrap()), 3);
    }

    #[test]
    fn a_varied_chunk_is_sent_raw_and_aligned() {
        let mut b = [Block::AIR; CHUNK_VOLUME];
        for (i, c) in b.iter_mut().enumerate() {
            *c = Block((i % 7) as u16 * 16);
        }
        let out = answer(&b);
        assert_eq!(out.len() % 4, 0);
        assert_eq!(u32::from_le_bytes(out[24..28].try_into().unwrap()), 1);
        assert_eq!(out.len(), 12 + 16 + 2000);
    }

    #[test]
    fn positions_quantize_only_when_exact() {
        assert_eq!(quantized(12.5, 10.0), Some(640));
        assert_eq!(quantized(10.1, 10.0), None);
        assert_eq!(quantized(500.0, 0.0), None, "beyond an i16");
    }

    /// Quads of one normal and colour each, quad q's indices q·4 plus `pats[q]`.
    fn quad_part(pats: &[[u32; 6]]) -> MeshPart {
        let mut p = MeshPart::default();
        for (q, pat) in pats.iter().enumerate() {
            p.positions.extend([[0.0; 3]; 4]);
            p.normals.extend([[0.0, 1.0, 0.0]; 4]);
            p.colors.extend([[1, 2, 3, 255]; 4]);
            p.indices.extend(pat.map(|i| i + 4 * q as u32));
        }
        p
    }

    #[test]
    fn quads_are_recognised_by_their_patterns_shared_normals_and_colours() {
        let (a, b) = ([0, 1, 2, 0, 2, 3], [1, 2, 3, 1, 3, 0]);
        let mut p = quad_part(&[a, b, a]);
        let (pats, which) = quads(&p).unwrap();
        assert_eq!(pats, [a, b, a, a].map(|x| x.map(|v| v as u8)));
        assert_eq!(which, [0, 1, 0]);
        p.normals[5] = [1.0, 0.0, 0.0];
        assert_eq!(quads(&p), None, "normals differ within a quad");
        p.normals[5] = [0.0, 1.0, 0.0];
        p.colors[6] = [9, 9, 9, 255];
        assert_eq!(quads(&p), None, "colours differ within a quad");
        let (c, d, e) = ([0, 2, 1, 0, 3, 2], [1, 3, 2, 1, 0, 3], [0, 1, 3, 1, 2, 3]);
        assert!(quads(&quad_part(&[a, b, c, d])).is_some(), "four patterns");
        assert_eq!(quads(&quad_part(&[a, b, c, d, e])), None, "a fifth pattern");
    }
}
