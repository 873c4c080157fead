//! Reading the block index: the checks of the index header and of the entries (check order
//! steps 2 to 4), and what a verified asset's index says.

use zerocopy::FromBytes;

use super::{
    BlockEntry, BlockIndexHeader, Cipher, Codec, RawBlockEntry, RawBlockIndexHeader, BLOCK_MAGIC,
    BLOCK_VERSION, ENTRY_SIZE, INDEX_CRC_HEADER, INDEX_HEADER_SIZE, MAX_BLOCK_SIZE,
    MAX_INDEX_PADDING, MIN_BLOCK_SIZE, TAG_SIZE,
};
use crate::container::crc::{crc32, crc32_continue};
use crate::container::header::CafFlags;
use crate::container::load::Asset;
use crate::error::CafError;

/// The most stored bytes a block of `block_size` plain bytes may take.
fn stored_bound(block_size: u32, encrypted: bool) -> u64 {
    let b = u64::from(block_size);
    b + b / 8 + 1024 + if encrypted { TAG_SIZE as u64 } else { 0 }
}

pub(super) fn index_crc(header_bytes: &[u8; INDEX_HEADER_SIZE], entry_bytes: &[u8]) -> u32 {
    crc32_continue(crc32(&header_bytes[..INDEX_CRC_HEADER]), entry_bytes)
}

impl BlockIndexHeader {
    /// Encode to the on-disk bytes.
    pub fn to_bytes(&self) -> [u8; INDEX_HEADER_SIZE] {
        zerocopy::transmute!(RawBlockIndexHeader::from(self))
    }

    /// Plain length of block `i`.
    pub fn plain_len(&self, i: u32) -> usize {
        let start = u64::from(i) * u64::from(self.block_size);
        (self.plain_size.saturating_sub(start)).min(u64::from(self.block_size)) as usize
    }

    /// The codec (checked when the index was parsed).
    pub fn codec(&self) -> Codec {
        Codec::from_code(self.codec).unwrap_or(Codec::None)
    }

    /// True when the blocks are encrypted.
    pub fn is_encrypted(&self) -> bool {
        self.cipher != 0
    }

    /// The cipher of encrypted blocks (checked when the index was parsed), `None` when plain.
    pub fn cipher(&self) -> Option<Cipher> {
        Cipher::from_code(self.cipher)
    }
}

impl BlockEntry {
    /// Encode to the on-disk bytes.
    pub fn to_bytes(&self) -> [u8; ENTRY_SIZE] {
        zerocopy::transmute!(RawBlockEntry::from(self))
    }
}

fn bad_index(offset: usize, what: &'static str) -> CafError {
    CafError::BadBlockIndex {
        offset: offset as u64,
        what,
    }
}

/// True when the flags say the payload is encoded.
pub fn is_encoded(flags: CafFlags) -> bool {
    flags.0 & (CafFlags::COMPRESSED.0 | CafFlags::ENCRYPTED.0) != 0
}

/// Check the 88 header bytes of an encoded payload of `data_size` bytes (check order steps 2,
/// without the entries and the CRC).
pub fn parse_index_header(
    flags: CafFlags,
    bytes: &[u8],
    data_size: u64,
) -> Result<BlockIndexHeader, CafError> {
    let raw = RawBlockIndexHeader::read_from_prefix(bytes)
        .map_err(|_| bad_index(0, "payload too short for the 88-byte block index header"))?
        .0;
    let h = BlockIndexHeader::from(raw);
    use std::mem::offset_of as off;
    type R = RawBlockIndexHeader;
    if h.magic != BLOCK_MAGIC {
        return Err(bad_index(
            off!(R, magic),
            "bad block index magic (expected \"CAFB\")",
        ));
    }
    if h.version != BLOCK_VERSION {
        return Err(CafError::UnsupportedEncoding {
            what: "block index version",
            value: u64::from(h.version),
        });
    }
    let Some(codec) = Codec::from_code(h.codec) else {
        return Err(CafError::UnsupportedEncoding {
            what: "codec",
            value: u64::from(h.codec),
        });
    };
    if h.cipher != 0 && Cipher::from_code(h.cipher).is_none() {
        return Err(CafError::UnsupportedEncoding {
            what: "cipher",
            value: u64::from(h.cipher),
        });
    }
    if (codec != Codec::None) != flags.contains(CafFlags::COMPRESSED) {
        return Err(bad_index(
            off!(R, codec),
            "codec disagrees with the COMPRESSED flag",
        ));
    }
    if (h.cipher != 0) != flags.contains(CafFlags::ENCRYPTED) {
        return Err(bad_index(
            off!(R, cipher),
            "cipher disagrees with the ENCRYPTED flag",
        ));
    }
    if h.reserved != 0 {
        return Err(bad_index(off!(R, reserved), "reserved field is not zero"));
    }
    if !(MIN_BLOCK_SIZE..=MAX_BLOCK_SIZE).contains(&h.block_size) || !h.block_size.is_power_of_two()
    {
        return Err(bad_index(
            off!(R, block_size),
            "block size is not a power of two from 4 KiB to 16 MiB",
        ));
    }
    if h.plain_size.div_ceil(u64::from(h.block_size)) != u64::from(h.block_count) {
        return Err(bad_index(
            off!(R, block_count),
            "block count disagrees with plain size / block size",
        ));
    }
    let index_end = INDEX_HEADER_SIZE as u64 + u64::from(h.block_count) * ENTRY_SIZE as u64;
    let d = u64::from(h.data_offset);
    if d < index_end || d > index_end + u64::from(MAX_INDEX_PADDING) {
        return Err(bad_index(
            off!(R, data_offset),
            "data offset is not just after the block entries",
        ));
    }
    if d > data_size {
        return Err(bad_index(
            off!(R, data_offset),
            "block index is longer than the payload",
        ));
    }
    if h.cipher == 0 && (h.salt != [0; 16] || h.key_check != [0; 16] || h.index_tag != [0; 16]) {
        return Err(bad_index(
            off!(R, salt),
            "cipher fields set without a cipher",
        ));
    }
    Ok(h)
}

/// Check the index CRC, the padding and the entries (steps 3 and 4); `index` is the payload's
/// bytes `[0, data_offset)`.
pub fn parse_entries(
    h: &BlockIndexHeader,
    index: &[u8],
    data_size: u64,
) -> Result<Vec<BlockEntry>, CafError> {
    let count = h.block_count as usize;
    let entries_end = INDEX_HEADER_SIZE + count * ENTRY_SIZE;
    let entry_bytes = index
        .get(INDEX_HEADER_SIZE..entries_end)
        .ok_or_else(|| bad_index(INDEX_HEADER_SIZE, "block entries cut short"))?;
    let computed = index_crc(&h.to_bytes(), entry_bytes);
    if computed != h.index_crc32 {
        return Err(CafError::IndexCrcMismatch {
            stored: h.index_crc32,
            computed,
        });
    }
    let pad = index
        .get(entries_end..h.data_offset as usize)
        .ok_or_else(|| bad_index(entries_end, "block index padding cut short"))?;
    if let Some(p) = pad.iter().position(|&b| b != 0) {
        return Err(bad_index(
            entries_end + p,
            "block index padding is not zero",
        ));
    }
    let raws = <[RawBlockEntry]>::ref_from_bytes(entry_bytes)
        .map_err(|_| bad_index(INDEX_HEADER_SIZE, "block entries cut short"))?;
    let bound = stored_bound(h.block_size, h.is_encrypted());
    let mut next = u64::from(h.data_offset);
    let mut entries = Vec::with_capacity(count);
    for (i, raw) in raws.iter().enumerate() {
        let e = BlockEntry::from(*raw);
        let at = INDEX_HEADER_SIZE + i * ENTRY_SIZE;
        if e.offset != next {
            return Err(bad_index(
                at,
                "block does not start where the previous one ends",
            ));
        }
        if u64::from(e.stored_size) > bound {
            return Err(bad_index(
                at + 8,
                "stored block larger than its plain size allows",
            ));
        }
        if h.is_encrypted() && (e.stored_size as usize) < TAG_SIZE {
            return Err(bad_index(at + 8, "encrypted block shorter than its tag"));
        }
        next += u64::from(e.stored_size);
        if next > data_size {
            return Err(bad_index(at, "block runs past the end of the payload"));
        }
        entries.push(e);
    }
    if next != data_size {
        return Err(bad_index(
            INDEX_HEADER_SIZE + count.saturating_sub(1) * ENTRY_SIZE,
            "blocks end before the payload does",
        ));
    }
    Ok(entries)
}

/// The parsed index of a verified asset's encoded payload (steps 2 to 4; no key needed).
pub fn block_index(asset: &Asset<'_>) -> Result<(BlockIndexHeader, Vec<BlockEntry>), CafError> {
    let p = asset.payload;
    let h = parse_index_header(asset.header.flags, p, p.len() as u64)?;
    let index = &p[..h.data_offset as usize]; // parse_index_header checked data_offset <= len
    let entries = parse_entries(&h, index, p.len() as u64)?;
    Ok((h, entries))
}

/// Length of a verified asset's plain payload: the index's plain size when it is encoded
/// (index checked, no key needed), the payload's length otherwise. What
/// [`PayloadDecoder::decode_to_slice`](super::PayloadDecoder::decode_to_slice) expects its
/// buffer to hold.
pub fn plain_size(asset: &Asset<'_>) -> Result<u64, CafError> {
    if !is_encoded(asset.header.flags) {
        return Ok(asset.payload.len() as u64);
    }
    let p = asset.payload;
    Ok(parse_index_header(asset.header.flags, p, p.len() as u64)?.plain_size)
}
