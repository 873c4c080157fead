//! Encoded payloads: COMPRESSED and ENCRYPTED (`docs/format/caf-extensions.md`).
//!
//! An encoded payload is a block index (an 88-byte [`BlockIndexHeader`] and one 16-byte
//! [`BlockEntry`] per block) followed by independently decodable blocks of about
//! [`DEFAULT_BLOCK_SIZE`] plain bytes each: compressed with zstd or LZ4, then encrypted with
//! XChaCha20-Poly1305 or AES-256-GCM ([`Cipher`]). The container (header, metadata, both CRCs)
//! is unchanged. [`StreamReader`] reads a payload, encoded or plain, block by block in bounded
//! memory.

use crate::container::layout::layout;
use crate::error::CafError;

mod codec;
mod decode;

mod encode;
#[cfg(test)]
mod feature_tests;
mod index;
mod seal;
mod stream;

pub(crate) use decode::BlockDecoder;
pub use decode::{decode_asset, decode_payload, DecodeOptions, PayloadDecoder};
pub use encode::{encode_asset, encode_payload, Encoding};
pub use index::{block_index, is_encoded, parse_entries, parse_index_header, plain_size};
pub use seal::Key;
pub use stream::{StreamReader, MAX_STREAM_METADATA};

/// Magic of the block index (`"CAFB"`).
pub const BLOCK_MAGIC: [u8; 4] = *b"CAFB";
/// The block index version this crate reads and writes.
pub const BLOCK_VERSION: u16 = 1;
/// Plain bytes per block unless chosen otherwise (64 KiB).
pub const DEFAULT_BLOCK_SIZE: u32 = 64 << 10;
/// Smallest block size (4 KiB).
pub const MIN_BLOCK_SIZE: u32 = 4 << 10;
/// Largest block size (16 MiB).
pub const MAX_BLOCK_SIZE: u32 = 16 << 20;
/// Default limit of [`decode_payload`] on the plain size (4 GiB): larger payloads are refused
/// before allocating and must be streamed ([`crate::encoded::StreamReader`]).
pub const DEFAULT_MAX_PLAIN_SIZE: u64 = 4 << 30;
/// Most zero bytes allowed between the entries and the first block.
pub const MAX_INDEX_PADDING: u32 = 4096;
/// Bytes of a Poly1305 tag.
pub const TAG_SIZE: usize = 16;
/// Bytes of a key.
pub const KEY_SIZE: usize = 32;

#[cfg(feature = "crypto")]
const KEY_CHECK_AAD: &[u8] = b"voxcaf key check v1";
#[cfg(feature = "crypto")]
const KEY_CHECK_NONCE: [u8; 24] = [0xFF; 24];
const INDEX_TAG_COUNTER: u64 = u64::MAX;
#[cfg(feature = "crypto")]
/// HKDF-SHA256 `info` of cipher 2's file key (spec section 1a).
const AES_FILE_KEY_INFO: &[u8] = b"voxcaf caf cipher 2 aes-256-gcm v1";

layout! {
    /// The 88-byte header of an encoded payload (payload offset 0).
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub struct BlockIndexHeader (RawBlockIndexHeader, 88 bytes) {
        /// Offset 0: [`BLOCK_MAGIC`].
        pub magic: [u8; 4],
        /// Offset 4: [`BLOCK_VERSION`].
        pub version: u16,
        /// Offset 6: codec code (see [`Codec`]).
        pub codec: u8,
        /// Offset 7: cipher code (0 none, see [`Cipher`]).
        pub cipher: u8,
        /// Offset 8: plain bytes per block (all but the last).
        pub block_size: u32,
        /// Offset 12: number of blocks.
        pub block_count: u32,
        /// Offset 16: length of the plain payload.
        pub plain_size: u64,
        /// Offset 24: CRC-32 of the plain payload.
        pub plain_crc32: u32,
        /// Offset 28: payload offset of block 0.
        pub data_offset: u32,
        /// Offset 32: per-file random salt of the nonces (zero without a cipher).
        pub salt: [u8; 16],
        /// Offset 48: key check value (zero without a cipher).
        pub key_check: [u8; 16],
        /// Offset 64: tag authenticating header, metadata and index (zero without a cipher).
        pub index_tag: [u8; 16],
        /// Offset 80: must be 0.
        pub reserved: u32,
        /// Offset 84: CRC-32 of bytes [0, 84) and of all entries.
        pub index_crc32: u32,
    }
}

layout! {
    /// One block of an encoded payload (16 bytes, in block order after the header).
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub struct BlockEntry (RawBlockEntry, 16 bytes) {
        /// Payload offset of the stored block.
        pub offset: u64,
        /// Length of the stored block.
        pub stored_size: u32,
        /// CRC-32 of the stored bytes.
        pub stored_crc32: u32,
    }
}

/// Bytes of the block index header.
pub const INDEX_HEADER_SIZE: usize = BlockIndexHeader::SIZE;
/// Bytes of one block entry.
pub const ENTRY_SIZE: usize = BlockEntry::SIZE;
/// Header bytes bound into every block's associated data (magic .. data_offset).
const BLOCK_AAD_HEADER: usize = std::mem::offset_of!(RawBlockIndexHeader, salt);
/// Header bytes bound into the index tag (everything before the tag itself).
const INDEX_AAD_HEADER: usize = std::mem::offset_of!(RawBlockIndexHeader, index_tag);
/// Header bytes covered by `index_crc32` (everything before it).
const INDEX_CRC_HEADER: usize = std::mem::offset_of!(RawBlockIndexHeader, index_crc32);
/// Entry bytes that are authenticated (offset and stored size; the CRC is of the ciphertext).
const ENTRY_AAD: usize = std::mem::offset_of!(RawBlockEntry, stored_crc32);

voxcaf_names::names! {
    /// Compression of the blocks.
    #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
    pub enum Codec: u8 as "codec" {
        /// Blocks stored as they are (code 0): only useful with encryption.
        None = 0 => "none",
        /// One zstd frame per block (code 1), the default.
        #[default]
        Zstd = 1 => "zstd",
        /// One raw LZ4 block per block (code 2), for the fastest decoding.
        Lz4 = 2 => "lz4",
    }
}

impl Codec {
    /// The cargo feature of this crate the codec needs (`"zstd"` or `"lz4"`), `None` for
    /// [`Codec::None`].
    pub fn feature(self) -> Option<&'static str> {
        match self {
            Codec::None => None,
            Codec::Zstd => Some("zstd"),
            Codec::Lz4 => Some("lz4"),
        }
    }

    /// True when this build encodes and decodes the codec (its feature is on).
    pub fn is_available(self) -> bool {
        match self {
            Codec::None => true,
            Codec::Zstd => cfg!(feature = "zstd"),
            Codec::Lz4 => cfg!(feature = "lz4"),
        }
    }

    /// [`CafError::FeatureDisabled`] unless [`is_available`](Codec::is_available).
    pub(crate) fn require(self) -> Result<(), CafError> {
        match self.feature() {
            Some(feature) if !self.is_available() => Err(CafError::FeatureDisabled {
                kind: "codec",
                name: self.name(),
                feature,
            }),
            _ => Ok(()),
        }
    }
}

voxcaf_names::names! {
    /// The authenticated encryption of the blocks of an encrypted payload.
    #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
    pub enum Cipher: u8 as "cipher" {
        /// XChaCha20-Poly1305 (code 1), the default: fast and constant-time on every CPU.
        #[default]
        XChaCha20Poly1305 = 1 => "xchacha20-poly1305" | "xchacha20poly1305" | "xchacha",
        /// AES-256-GCM (code 2) under a per-file key: faster to decrypt on x86-64 with AES-NI. On
        /// aarch64 the `aes` crate uses the ARMv8 AES instructions only when built with
        /// `RUSTFLAGS="--cfg aes_armv8"`; without it, its constant-time software AES is slower
        /// than XChaCha20-Poly1305.
        Aes256Gcm = 2 => "aes-256-gcm" | "aes256gcm" | "aes",
    }
}

impl Cipher {
    /// The cargo feature of this crate every cipher needs: `"crypto"`.
    pub fn feature(self) -> &'static str {
        "crypto"
    }

    /// True when this build encrypts and decrypts with the cipher (the `crypto` feature is on).
    pub fn is_available(self) -> bool {
        cfg!(feature = "crypto")
    }

    /// [`CafError::FeatureDisabled`] unless [`is_available`](Cipher::is_available).
    pub(crate) fn require(self) -> Result<(), CafError> {
        if self.is_available() {
            return Ok(());
        }
        Err(self.missing())
    }

    /// The [`CafError::FeatureDisabled`] of this cipher.
    pub(crate) fn missing(self) -> CafError {
        CafError::FeatureDisabled {
            kind: "cipher",
            name: self.name(),
            feature: self.feature(),
        }
    }

    /// `XChaCha20-Poly1305` or `AES-256-GCM`, for people.
    pub fn title(self) -> &'static str {
        match self {
            Cipher::XChaCha20Poly1305 => "XChaCha20-Poly1305",
            Cipher::Aes256Gcm => "AES-256-GCM",
        }
    }
}
