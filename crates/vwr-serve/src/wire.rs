//! The binary chunk-mesh answer of `GET /api/chunks` (the page reads it with typed arrays).
//!
//! Little-endian, every section a multiple of 4 bytes so that the page can view it in place:
//!
//! ```text
//! "VXM1"  u32 epoch  u32 chunk_count
//! per chunk:
//!   u32 cx, cy, cz   u32 flags (bit 0: block values follow)
//!   [u16; 1000] raw block values, x fastest then y then z (only with flag bit 0)
//!   opaque pass, then transparent pass, each:
//!     u32 vertex_count  u32 index_count
//!     [f32; 3] positions (world units)          × vertex_count
//!     [i8; 4]  normal (x, y, z, 0)               × vertex_count
//!     [u8; 4]  colour, sRGB, AO baked in, alpha  × vertex_count
//!     u32 indices                                 × index_count
//! ```
//!
//! A chunk listed with no block values and empty passes has been emptied: the page drops it.

use vwr::{Block, CHUNK_VOLUME};
use vwr_blocks::Registry;
use vwr_mesh::mesher::ChunkMesh;
use vwr_mesh::{MeshBuffers, MeshPart};

/// The magic of the chunk answer.
pub const MAGIC: &[u8; 4] = b"VXM1";

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

/// Appends one chunk.
pub(crate) fn push_chunk(
    out: &mut Vec<u8>,
    pos: [u32; 3],
    blocks: Option<&[Block; CHUNK_VOLUME]>,
    mesh: Option<&ChunkMesh>,
    registry: &Registry,
) {
    for v in pos {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&u32::from(blocks.is_some()).to_le_bytes());
    if let Some(b) = blocks {
        out.reserve(CHUNK_VOLUME * 2);
        for c in b.iter() {
            out.extend_from_slice(&c.raw().to_le_bytes());
        }
        // CHUNK_VOLUME (1000) u16 values are 2000 bytes: already a multiple of 4.
    }
    let buffers = mesh.map(|m| MeshBuffers::from_chunk(m, registry));
    let empty = MeshPart::default();
    let (opaque, transparent) = match &buffers {
        Some(b) => (&b.opaque, &b.transparent),
        None => (&empty, &empty),
    };
    push_part(out, opaque);
    push_part(out, transparent);
}

fn push_part(out: &mut Vec<u8>, p: &MeshPart) {
    let n = p.positions.len();
    out.extend_from_slice(&(n as u32).to_le_bytes());
    out.extend_from_slice(&(p.indices.len() as u32).to_le_bytes());
    out.reserve(n * 20 + p.indices.len() * 4);
    for v in &p.positions {
        for c in v {
            out.extend_from_slice(&c.to_le_bytes());
        }
    }
    for v in &p.normals {
        out.extend_from_slice(&[v[0] as i8 as u8, v[1] as i8 as u8, v[2] as i8 as u8, 0]);
    }
    for (c, ao) in p.colors.iter().zip(&p.ao) {
        out.extend_from_slice(&vertex_color(*c, *ao));
    }
    for i in &p.indices {
        out.extend_from_slice(&i.to_le_bytes());
    }
}

/// A chunk of an answer read back: its position and block values.
pub type DecodedChunk = ([u32; 3], Option<Vec<u16>>);

/// Reads an answer's chunks: each chunk's position and block values (raw, as
/// [`vwr::Block::raw`]; `None` when the answer carries none for it). What a client that
/// follows the world without drawing it needs; the page's own reader is `wire.js`.
pub fn decode_blocks(bytes: &[u8]) -> Result<Vec<DecodedChunk>, String> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let s = bytes
            .get(at..at + n)
            .ok_or_else(|| format!("the answer ends at byte {} (wanted {n} more)", bytes.len()))?;
        at += n;
        Ok(s)
    };
    let u32_at = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    if take(4)? != MAGIC {
        return Err("not a chunk answer (no VXM1 magic)".into());
    }
    let _epoch = u32_at(take(4)?);
    let count = u32_at(take(4)?);
    let mut out = Vec::new();
    for _ in 0..count {
        let h = take(16)?;
        let pos = [u32_at(&h[0..]), u32_at(&h[4..]), u32_at(&h[8..])];
        let blocks = if u32_at(&h[12..]) & 1 == 1 {
            let b = take(CHUNK_VOLUME * 2)?;
            Some(
                b.chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect(),
            )
        } else {
            None
        };
        for _ in 0..2 {
            let p = take(8)?;
            let (nv, ni) = (u32_at(p) as usize, u32_at(&p[4..]) as usize);
            take(nv.saturating_mul(20).saturating_add(ni.saturating_mul(4)))?;
        }
        out.push((pos, blocks));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_stay_four_byte_aligned() {
        let mut out = Vec::new();
        begin(&mut out, 7, 1);
        let blocks = [Block::AIR; CHUNK_VOLUME];
        push_chunk(
            &mut out,
            [1, 2, 3],
            Some(&blocks),
            None,
            vwr_blocks::default_registry(),
        );
        assert_eq!(out.len() % 4, 0);
        assert_eq!(&out[..4], MAGIC);
        assert_eq!(u32::from_le_bytes(out[4..8].try_into().unwrap()), 7);
        // header 12 + chunk header 16 + blocks 2000 + two empty passes 16
        assert_eq!(out.len(), 12 + 16 + 2000 + 16);
    }
}
