//! Codec statistics of a v3 commit.

use super::read::Index;
use crate::layout::*;

/// Codec statistics of a v3 commit (`voxcaf world info`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodecStats {
    /// Commit generation.
    pub generation: u32,
    /// Chunks stored as one block value.
    pub uniform: u64,
    /// Chunks in the packed encoding.
    pub packed: u64,
    /// Chunks in the RLE encoding.
    pub rle: u64,
    /// Payloads stored uncompressed.
    pub raw: u64,
    /// Payloads in their own zstd frame.
    pub zstd: u64,
    /// Payloads inside groups.
    pub grouped: u64,
    /// Groups.
    pub groups: u64,
    /// Payload bytes before compression (groups and frames decompressed).
    pub payload_bytes: u64,
    /// Payload bytes as stored (frames and groups compressed).
    pub stored_bytes: u64,
    /// Index bytes.
    pub index_bytes: u64,
    /// Bytes the commit references (header, payloads, index).
    pub live_bytes: u64,
}

pub(crate) fn stats_of(ix: &Index, entries: &[ChunkEntryV3]) -> CodecStats {
    let mut s = CodecStats {
        generation: ix.generation,
        groups: ix.groups.len() as u64,
        index_bytes: ix.size,
        live_bytes: ix.live_bytes,
        ..CodecStats::default()
    };
    for g in &ix.groups {
        s.stored_bytes += u64::from(g.stored_size.get());
    }
    for e in entries {
        match e.encoding {
            ENCODING_UNIFORM => s.uniform += 1,
            ENCODING_PACKED => s.packed += 1,
            _ => s.rle += 1,
        }
        match e.storage {
            STORAGE_RAW => {
                s.raw += 1;
                s.payload_bytes += u64::from(e.size.get());
                s.stored_bytes += u64::from(e.size.get());
            }
            STORAGE_ZSTD => {
                s.zstd += 1;
                s.payload_bytes += u64::from(e.value.get());
                s.stored_bytes += u64::from(e.size.get());
            }
            STORAGE_GROUP => {
                s.grouped += 1;
                s.payload_bytes += u64::from(e.size.get());
            }
            _ => {}
        }
    }
    s
}
