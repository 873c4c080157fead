//! Writing encoded payloads: the [`Encoding`] asked for, block compression, sealing and the
//! block index.

use super::codec::{check_level, compress};
use super::index::index_crc;
use super::seal::{block_aad, index_aad, random_salt, Key, Sealer};
use super::{
    BlockEntry, BlockIndexHeader, Cipher, Codec, BLOCK_MAGIC, BLOCK_VERSION, DEFAULT_BLOCK_SIZE,
    ENTRY_SIZE, INDEX_HEADER_SIZE, INDEX_TAG_COUNTER, MAX_BLOCK_SIZE, MIN_BLOCK_SIZE, TAG_SIZE,
};
use crate::container::crc::crc32;
use crate::container::header::{AssetType, CafFlags, CafHeader};
use crate::container::write::AssetWriter;
use crate::error::CafError;

/// How [`encode_asset`] encodes a payload.
#[derive(Clone, Debug)]
pub struct Encoding {
    /// Compression of each block.
    pub codec: Codec,
    /// Compression level (zstd: 1..=22, default 3; ignored by LZ4 and none).
    pub level: i32,
    /// Plain bytes per block: a power of two from [`MIN_BLOCK_SIZE`] to [`MAX_BLOCK_SIZE`].
    pub block_size: u32,
    /// Encrypt with this key (ENCRYPTED), or not.
    pub key: Option<Key>,
    /// The cipher when encrypting (default XChaCha20-Poly1305).
    pub cipher: Cipher,
    /// The nonce salt of an encrypted file; `None` draws a random one. A caller that wants
    /// reproducible output derives it from the key and the content (a synthetic salt), so
    /// that equal inputs give equal files and different inputs different salts. Never reuse
    /// a salt with the same key for different content.
    pub salt: Option<[u8; 16]>,
    /// For a plain encoding (no codec, no key): pad the metadata so that the payload is
    /// aligned in the file ([`AssetWriter::align_payload`]). Encoded payloads are decoded into
    /// a fresh aligned buffer anyway, so this does not apply to them. Default off.
    pub align_payload: bool,
}

impl Default for Encoding {
    /// zstd level 3, 64 KiB blocks, no encryption.
    fn default() -> Encoding {
        Encoding {
            codec: Codec::Zstd,
            level: 3,
            block_size: DEFAULT_BLOCK_SIZE,
            key: None,
            cipher: Cipher::default(),
            salt: None,
            align_payload: false,
        }
    }
}

impl Encoding {
    /// True when this encoding changes nothing (no codec, no key): the payload stays plain.
    pub fn is_plain(&self) -> bool {
        self.codec == Codec::None && self.key.is_none()
    }

    /// The header flags this encoding sets.
    pub fn flags(&self) -> CafFlags {
        let mut f = CafFlags::NONE;
        if self.codec != Codec::None {
            f |= CafFlags::COMPRESSED;
        }
        if self.key.is_some() {
            f |= CafFlags::ENCRYPTED;
        }
        f
    }
}

/// Encode `plain` as an encoded payload for an asset of this type, flags and metadata; returns
/// the header flags (the given ones plus COMPRESSED / ENCRYPTED as the encoding asks) and the
/// stored payload. A plain encoding ([`Encoding::is_plain`]) returns the payload unchanged.
pub fn encode_payload(
    asset_type: AssetType,
    flags: CafFlags,
    metadata: &[u8],
    plain: &[u8],
    enc: &Encoding,
) -> Result<(CafFlags, Vec<u8>), CafError> {
    let encoded_bits = CafFlags::COMPRESSED | CafFlags::ENCRYPTED;
    let flags = CafFlags(flags.0 & !encoded_bits.0) | enc.flags();
    if enc.is_plain() {
        return Ok((flags, plain.to_vec()));
    }
    let bs = enc.block_size;
    if !(MIN_BLOCK_SIZE..=MAX_BLOCK_SIZE).contains(&bs) || !bs.is_power_of_two() {
        return Err(CafError::BadEncoding {
            what: "block size must be a power of two from 4 KiB to 16 MiB",
        });
    }
    check_level(enc.codec, enc.level)?;
    if enc.key.is_some() {
        enc.cipher.require()?;
    }
    let count = plain.len().div_ceil(bs as usize);
    let block_count = u32::try_from(count).map_err(|_| CafError::TooLarge {
        what: "payload for this block size",
        size: plain.len() as u64,
    })?;
    let tag = if enc.key.is_some() { TAG_SIZE } else { 0 };

    // Compress every block into one buffer, remembering where each ends.
    let mut blocks = Vec::with_capacity(plain.len() / 2 + 64);
    let mut ends = Vec::with_capacity(count);
    for chunk in plain.chunks(bs as usize) {
        compress(enc.codec, enc.level, chunk, &mut blocks)?;
        blocks.resize(blocks.len() + tag, 0); // room for the tag
        ends.push(blocks.len());
    }
    let index_len = INDEX_HEADER_SIZE + count * ENTRY_SIZE;
    let mut data_offset = index_len;
    if (data_offset + blocks.len()) as u64 == plain.len() as u64 {
        // Never let an older reader's payload-size check mistake this for a plain payload.
        data_offset += 16;
    }
    let mut entries = Vec::with_capacity(count);
    let mut start = 0usize;
    for &end in &ends {
        entries.push(BlockEntry {
            offset: (data_offset + start) as u64,
            stored_size: (end - start) as u32,
            stored_crc32: 0,
        });
        start = end;
    }
    let mut header = BlockIndexHeader {
        magic: BLOCK_MAGIC,
        version: BLOCK_VERSION,
        codec: enc.codec.code(),
        cipher: if enc.key.is_some() {
            enc.cipher.code()
        } else {
            0
        },
        block_size: bs,
        block_count,
        plain_size: plain.len() as u64,
        plain_crc32: crc32(plain),
        data_offset: u32::try_from(data_offset).map_err(|_| CafError::TooLarge {
            what: "block index",
            size: data_offset as u64,
        })?,
        salt: [0; 16],
        key_check: [0; 16],
        index_tag: [0; 16],
        reserved: 0,
        index_crc32: 0,
    };
    let data_size = (data_offset + blocks.len()) as u64;
    if let Some(key) = &enc.key {
        match enc.salt {
            Some(s) => header.salt = s,
            None => header.salt = random_salt()?,
        }
        header.key_check = key.check_value()?;
        let sealer = Sealer::new(key, enc.cipher, &header.salt)?;
        let hb = header.to_bytes();
        let mut start = 0usize;
        for (i, e) in entries.iter().enumerate() {
            let end = ends[i];
            let (body, tag_out) = blocks[start..end].split_at_mut(end - start - TAG_SIZE);
            let t = sealer
                .seal(i as u64, &block_aad(&hb, e), body)
                .map_err(|_| CafError::BadEncoding {
                    what: "block too large for the cipher",
                })?;
            tag_out.copy_from_slice(&t);
            start = end;
        }
        let container = CafHeader::new(asset_type, flags, 0, metadata.len() as u64, data_size);
        let aad = index_aad(&container, metadata, &hb, &entries);
        header.index_tag =
            sealer
                .seal(INDEX_TAG_COUNTER, &aad, &mut [])
                .map_err(|_| CafError::BadEncoding {
                    what: "index too large for the cipher",
                })?;
    }
    let mut start = 0usize;
    for (e, &end) in entries.iter_mut().zip(&ends) {
        e.stored_crc32 = crc32(&blocks[start..end]);
        start = end;
    }
    let mut out = Vec::with_capacity(data_offset + blocks.len());
    out.extend_from_slice(&header.to_bytes());
    for e in &entries {
        out.extend_from_slice(&e.to_bytes());
    }
    header.index_crc32 = index_crc(&header.to_bytes(), &out[INDEX_HEADER_SIZE..]);
    out[..INDEX_HEADER_SIZE].copy_from_slice(&header.to_bytes());
    out.resize(data_offset, 0);
    out.extend_from_slice(&blocks);
    Ok((flags, out))
}

/// A complete `.caf` file with an encoded payload (see [`encode_payload`]).
pub fn encode_asset(
    asset_type: AssetType,
    flags: CafFlags,
    metadata: &[u8],
    plain: &[u8],
    enc: &Encoding,
) -> Result<Vec<u8>, CafError> {
    let (flags, stored) = encode_payload(asset_type, flags, metadata, plain, enc)?;
    let w = AssetWriter::new(asset_type)
        .flags(flags)
        .metadata(metadata)
        .payload(&stored);
    // Padding changes the metadata, which an index tag covers: plain payloads only.
    let w = if enc.align_payload && enc.is_plain() {
        w.align_payload()
    } else {
        w
    };
    Ok(w.to_vec())
}
