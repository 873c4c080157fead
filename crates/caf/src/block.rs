//! Encoded payloads: COMPRESSED and ENCRYPTED (`docs/format/caf-extensions.md`).
//!
//! An encoded payload is a block index (an 88-byte [`BlockIndexHeader`] and one 16-byte
//! [`BlockEntry`] per block) followed by independently decodable blocks of about
//! [`DEFAULT_BLOCK_SIZE`] plain bytes each: compressed with zstd or LZ4, then encrypted with
//! XChaCha20-Poly1305 or AES-256-GCM ([`Cipher`]). The container (header, metadata, both CRCs)
//! is unchanged.

use aes_gcm::Aes256Gcm;
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{Tag, XChaCha20Poly1305, XNonce};
use zerocopy::{FromBytes, IntoBytes};

use crate::crc::{crc32, crc32_continue};
use crate::error::CafError;
use crate::header::{AssetType, CafFlags, CafHeader, FOOTER_SIZE, HEADER_SIZE};
use crate::layout::layout;
use crate::load::{Asset, LoadedAsset};
use crate::write::AssetWriter;

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
/// before allocating and must be streamed ([`crate::StreamReader`]).
pub const DEFAULT_MAX_PLAIN_SIZE: u64 = 4 << 30;
/// Most zero bytes allowed between the entries and the first block.
pub const MAX_INDEX_PADDING: u32 = 4096;
/// Bytes of a Poly1305 tag.
pub const TAG_SIZE: usize = 16;
/// Bytes of a key.
pub const KEY_SIZE: usize = 32;

const KEY_CHECK_AAD: &[u8] = b"voxcaf key check v1";
const KEY_CHECK_NONCE: [u8; 24] = [0xFF; 24];
const INDEX_TAG_COUNTER: u64 = u64::MAX;
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

/// Compression of the blocks.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
pub enum Codec {
    /// Blocks stored as they are (code 0): only useful with encryption.
    None,
    /// One zstd frame per block (code 1), the default.
    #[default]
    Zstd,
    /// One raw LZ4 block per block (code 2), for the fastest decoding.
    Lz4,
}

impl Codec {
    /// The on-disk code.
    pub fn code(self) -> u8 {
        match self {
            Codec::None => 0,
            Codec::Zstd => 1,
            Codec::Lz4 => 2,
        }
    }

    /// The codec of an on-disk code.
    pub fn from_code(code: u8) -> Option<Codec> {
        match code {
            0 => Some(Codec::None),
            1 => Some(Codec::Zstd),
            2 => Some(Codec::Lz4),
            _ => None,
        }
    }

    /// `none`, `zstd` or `lz4`.
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Zstd => "zstd",
            Codec::Lz4 => "lz4",
        }
    }
}

impl std::fmt::Display for Codec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Codec {
    type Err = String;
    fn from_str(s: &str) -> Result<Codec, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(Codec::None),
            "zstd" => Ok(Codec::Zstd),
            "lz4" => Ok(Codec::Lz4),
            _ => Err(format!("unknown codec '{s}': use zstd, lz4 or none")),
        }
    }
}

/// The authenticated encryption of the blocks of an encrypted payload.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
pub enum Cipher {
    /// XChaCha20-Poly1305 (code 1), the default: fast and constant-time on every CPU.
    #[default]
    XChaCha20Poly1305,
    /// AES-256-GCM (code 2) under a per-file key: faster to decrypt on x86-64 with AES-NI. On
    /// aarch64 the `aes` crate uses the ARMv8 AES instructions only when built with
    /// `RUSTFLAGS="--cfg aes_armv8"`; without it, its constant-time software AES is slower than
    /// XChaCha20-Poly1305.
    Aes256Gcm,
}

impl Cipher {
    /// The on-disk code.
    pub fn code(self) -> u8 {
        match self {
            Cipher::XChaCha20Poly1305 => 1,
            Cipher::Aes256Gcm => 2,
        }
    }

    /// The cipher of an on-disk code (0, no cipher, is `None` too).
    pub fn from_code(code: u8) -> Option<Cipher> {
        match code {
            1 => Some(Cipher::XChaCha20Poly1305),
            2 => Some(Cipher::Aes256Gcm),
            _ => None,
        }
    }

    /// `xchacha20-poly1305` or `aes-256-gcm`.
    pub fn name(self) -> &'static str {
        match self {
            Cipher::XChaCha20Poly1305 => "xchacha20-poly1305",
            Cipher::Aes256Gcm => "aes-256-gcm",
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

impl std::fmt::Display for Cipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Cipher {
    type Err = String;
    fn from_str(s: &str) -> Result<Cipher, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "xchacha20-poly1305" | "xchacha20poly1305" | "xchacha" => Ok(Cipher::XChaCha20Poly1305),
            "aes-256-gcm" | "aes256gcm" | "aes" => Ok(Cipher::Aes256Gcm),
            _ => Err(format!(
                "unknown cipher '{s}': use xchacha20-poly1305 or aes-256-gcm"
            )),
        }
    }
}

/// A cipher keyed for one file: seals and opens blocks and the index tag by counter (the
/// block index, or [`INDEX_TAG_COUNTER`]).
enum Sealer {
    XChaCha(XChaCha20Poly1305, [u8; 16]),
    Aes(Box<Aes256Gcm>),
}

impl Sealer {
    fn new(key: &Key, cipher: Cipher, salt: &[u8; 16]) -> Result<Sealer, CafError> {
        Ok(match cipher {
            Cipher::XChaCha20Poly1305 => Sealer::XChaCha(key.cipher(), *salt),
            Cipher::Aes256Gcm => {
                let mut file_key = [0u8; KEY_SIZE];
                hkdf::Hkdf::<sha2::Sha256>::new(Some(salt), &key.0)
                    .expand(AES_FILE_KEY_INFO, &mut file_key)
                    .map_err(|_| CafError::BadEncoding {
                        what: "key derivation failed",
                    })?;
                Sealer::Aes(Box::new(Aes256Gcm::new(&file_key.into())))
            }
        })
    }

    fn aes_nonce(counter: u64) -> aes_gcm::Nonce<aes_gcm::aead::consts::U12> {
        let mut n = [0u8; 12];
        n[..8].copy_from_slice(&counter.to_le_bytes());
        n.into()
    }

    /// Encrypts `buf` in place; returns the tag.
    fn seal(&self, counter: u64, aad: &[u8], buf: &mut [u8]) -> Result<[u8; TAG_SIZE], ()> {
        let tag = match self {
            Sealer::XChaCha(c, salt) => c
                .encrypt_in_place_detached(&block_nonce(salt, counter), aad, buf)
                .map_err(drop)?,
            Sealer::Aes(c) => c
                .encrypt_in_place_detached(&Sealer::aes_nonce(counter), aad, buf)
                .map_err(drop)?,
        };
        Ok(tag.into())
    }

    /// Decrypts `buf` in place after checking `tag`.
    fn open(&self, counter: u64, aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), ()> {
        let tag = Tag::from_slice(tag);
        match self {
            Sealer::XChaCha(c, salt) => c
                .decrypt_in_place_detached(&block_nonce(salt, counter), aad, buf, tag)
                .map_err(drop),
            Sealer::Aes(c) => c
                .decrypt_in_place_detached(&Sealer::aes_nonce(counter), aad, buf, tag)
                .map_err(drop),
        }
    }
}

/// A 32-byte key of either [`Cipher`]. Its `Debug` form never shows the bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Key([u8; KEY_SIZE]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

impl Key {
    /// A key of these bytes.
    pub fn from_bytes(bytes: [u8; KEY_SIZE]) -> Key {
        Key(bytes)
    }

    /// A fresh key from the operating system's random generator.
    pub fn generate() -> Result<Key, CafError> {
        let mut k = [0u8; KEY_SIZE];
        getrandom::fill(&mut k).map_err(|e| CafError::Random(e.to_string()))?;
        Ok(Key(k))
    }

    /// The key written as 64 hexadecimal digits, surrounding whitespace ignored (the key file
    /// and `VOXCAF_KEY` form).
    pub fn from_hex(text: &str) -> Result<Key, CafError> {
        let t = text.trim().as_bytes();
        if t.len() != 2 * KEY_SIZE {
            return Err(CafError::BadKey {
                what: "a key is 64 hexadecimal digits",
            });
        }
        let mut k = [0u8; KEY_SIZE];
        for (i, pair) in t.chunks_exact(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16);
            let lo = (pair[1] as char).to_digit(16);
            match (hi, lo) {
                (Some(h), Some(l)) => k[i] = (h * 16 + l) as u8,
                _ => {
                    return Err(CafError::BadKey {
                        what: "a key holds only hexadecimal digits",
                    })
                }
            }
        }
        Ok(Key(k))
    }

    /// 64 lower-case hexadecimal digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Read a key file (64 hexadecimal digits).
    pub fn read_file(path: &std::path::Path) -> Result<Key, CafError> {
        let meta = std::fs::metadata(path).map_err(|e| CafError::io(Some(path), e))?;
        if meta.len() > 1024 {
            return Err(CafError::BadKey {
                what: "a key file holds 64 hexadecimal digits, this one is larger than 1 KiB",
            });
        }
        let text = std::fs::read(path).map_err(|e| CafError::io(Some(path), e))?;
        let text = std::str::from_utf8(&text).map_err(|_| CafError::BadKey {
            what: "a key file holds 64 hexadecimal digits, this one is not text",
        })?;
        Key::from_hex(text)
    }

    /// The key's bytes (for deriving other values; never print them).
    pub fn as_bytes(&self) -> &[u8; KEY_SIZE] {
        &self.0
    }

    /// A public 16-byte fingerprint of the key: the key check value stored in every file it
    /// encrypts. Tools compare fingerprints to tell keys apart without revealing them.
    pub fn fingerprint(&self) -> [u8; 16] {
        self.check_value()
    }

    fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new(chacha20poly1305::Key::from_slice(&self.0))
    }

    /// The key check value stored in encrypted files.
    fn check_value(&self) -> [u8; 16] {
        let tag = self
            .cipher()
            .encrypt_in_place_detached(XNonce::from_slice(&KEY_CHECK_NONCE), KEY_CHECK_AAD, &mut [])
            // An empty message is always within the cipher's length limit.
            .unwrap_or_default();
        tag.into()
    }
}

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

/// The most stored bytes a block of `block_size` plain bytes may take.
fn stored_bound(block_size: u32, encrypted: bool) -> u64 {
    let b = u64::from(block_size);
    b + b / 8 + 1024 + if encrypted { TAG_SIZE as u64 } else { 0 }
}

fn block_nonce(salt: &[u8; 16], counter: u64) -> XNonce {
    let mut n = [0u8; 24];
    n[..16].copy_from_slice(salt);
    n[16..].copy_from_slice(&counter.to_le_bytes());
    XNonce::from(n)
}

fn block_aad(header_bytes: &[u8; INDEX_HEADER_SIZE], entry: &BlockEntry) -> [u8; 44] {
    let mut aad = [0u8; BLOCK_AAD_HEADER + ENTRY_AAD];
    aad[..BLOCK_AAD_HEADER].copy_from_slice(&header_bytes[..BLOCK_AAD_HEADER]);
    aad[BLOCK_AAD_HEADER..].copy_from_slice(&RawBlockEntry::from(entry).as_bytes()[..ENTRY_AAD]);
    aad
}

/// The associated data of the index tag (spec: `IndexAad`).
fn index_aad(
    container: &CafHeader,
    metadata: &[u8],
    header_bytes: &[u8; INDEX_HEADER_SIZE],
    entries: &[BlockEntry],
) -> Vec<u8> {
    let h = CafHeader {
        crc32: 0,
        ..*container
    };
    let mut aad = Vec::with_capacity(
        HEADER_SIZE + metadata.len() + INDEX_AAD_HEADER + entries.len() * ENTRY_AAD,
    );
    aad.extend_from_slice(&h.to_bytes());
    aad.extend_from_slice(metadata);
    aad.extend_from_slice(&header_bytes[..INDEX_AAD_HEADER]);
    for e in entries {
        aad.extend_from_slice(&RawBlockEntry::from(e).as_bytes()[..ENTRY_AAD]);
    }
    aad
}

fn index_crc(header_bytes: &[u8; INDEX_HEADER_SIZE], entry_bytes: &[u8]) -> u32 {
    crc32_continue(crc32(&header_bytes[..INDEX_CRC_HEADER]), entry_bytes)
}

fn compress_block(
    codec: Codec,
    level: i32,
    plain: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), CafError> {
    match codec {
        Codec::None => out.extend_from_slice(plain),
        Codec::Zstd => {
            let c = zstd::bulk::compress(plain, level).map_err(|e| CafError::io(None, e))?;
            out.extend_from_slice(&c);
        }
        Codec::Lz4 => out.extend_from_slice(&lz4_flex::block::compress(plain)),
    }
    Ok(())
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
    if enc.codec == Codec::Zstd && !zstd::compression_level_range().contains(&enc.level) {
        return Err(CafError::BadEncoding {
            what: "zstd level out of range (1 to 22, or negative for faster modes)",
        });
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
        compress_block(enc.codec, enc.level, chunk, &mut blocks)?;
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
            None => {
                getrandom::fill(&mut header.salt).map_err(|e| CafError::Random(e.to_string()))?
            }
        }
        header.key_check = key.check_value();
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

/// The per-asset part of block decoding: the index header and the cipher (its key checked).
/// The reusable part (codec context, scratch) is a [`DecodeContext`], so that one context
/// serves every block of every asset a [`PayloadDecoder`] or [`crate::StreamReader`] decodes.
pub(crate) struct BlockDecoder {
    header: BlockIndexHeader,
    header_bytes: [u8; INDEX_HEADER_SIZE],
    cipher: Option<Sealer>,
}

/// Codec context and scratch kept across blocks and assets: a zstd decompression context
/// (created on first use) and the buffer that decrypted compressed blocks pass through.
/// Nothing in it carries over from one block to the next except allocations, so an error in
/// one block or asset leaves it ready for the next.
#[derive(Default)]
pub(crate) struct DecodeContext {
    zstd: Option<zstd::bulk::Decompressor<'static>>,
    scratch: Vec<u8>,
}

impl DecodeContext {
    fn ensure_zstd(&mut self) -> Result<(), CafError> {
        if self.zstd.is_none() {
            self.zstd = Some(zstd::bulk::Decompressor::new().map_err(|e| CafError::io(None, e))?);
        }
        Ok(())
    }
}

impl BlockDecoder {
    /// Check the key (step 5) and the index tag; `container` and `metadata` are the file's.
    pub(crate) fn new(
        header: BlockIndexHeader,
        entries: &[BlockEntry],
        container: &CafHeader,
        metadata: &[u8],
        key: Option<&Key>,
    ) -> Result<BlockDecoder, CafError> {
        let header_bytes = header.to_bytes();
        let cipher = if header.is_encrypted() {
            let key = key.ok_or(CafError::KeyRequired)?;
            if key.check_value() != header.key_check {
                return Err(CafError::WrongKey);
            }
            let kind = header.cipher().ok_or(CafError::UnsupportedEncoding {
                what: "cipher",
                value: u64::from(header.cipher),
            })?;
            let cipher = Sealer::new(key, kind, &header.salt)?;
            let aad = index_aad(container, metadata, &header_bytes, entries);
            cipher
                .open(INDEX_TAG_COUNTER, &aad, &mut [], &header.index_tag)
                .map_err(|_| CafError::IndexAuthFailed)?;
            Some(cipher)
        } else {
            None
        };
        Ok(BlockDecoder {
            header,
            header_bytes,
            cipher,
        })
    }

    pub(crate) fn header(&self) -> &BlockIndexHeader {
        &self.header
    }

    /// Decode block `i` (entry `e`, stored bytes `stored`) into `out`, which must be exactly
    /// the block's plain length; every byte of `out` is written (nothing needs zeroing first).
    /// Checks the stored CRC first (the stored bytes are then in cache for the codec), then
    /// the tag (in place on `out`, or on the context's scratch when the block is also
    /// compressed), then the codec's output length.
    pub(crate) fn decode(
        &self,
        ctx: &mut DecodeContext,
        i: u32,
        e: &BlockEntry,
        stored: &[u8],
        out: &mut [u8],
    ) -> Result<(), CafError> {
        let computed = crc32(stored);
        if computed != e.stored_crc32 {
            return Err(CafError::BlockCrcMismatch {
                block: i,
                stored: e.stored_crc32,
                computed,
            });
        }
        let codec = self.header.codec();
        let body: &[u8] = if let Some(cipher) = &self.cipher {
            let (ct, tag) = stored.split_at(stored.len() - TAG_SIZE);
            let buf: &mut [u8] = if codec == Codec::None {
                if ct.len() != out.len() {
                    return Err(block_decode(
                        i,
                        "stored block length differs from its plain length",
                    ));
                }
                &mut *out
            } else {
                // Grown, never shrunk or cleared: no zero-fill per block.
                if ctx.scratch.len() < ct.len() {
                    ctx.scratch.resize(ct.len(), 0);
                }
                &mut ctx.scratch[..ct.len()]
            };
            buf.copy_from_slice(ct);
            cipher
                .open(u64::from(i), &block_aad(&self.header_bytes, e), buf, tag)
                .map_err(|_| CafError::BlockAuthFailed { block: i })?;
            if codec == Codec::None {
                return Ok(());
            }
            &ctx.scratch[..ct.len()]
        } else {
            stored
        };
        match codec {
            Codec::None => {
                if body.len() != out.len() {
                    return Err(block_decode(
                        i,
                        "stored block length differs from its plain length",
                    ));
                }
                out.copy_from_slice(body);
            }
            Codec::Zstd => {
                let z = ctx
                    .zstd
                    .as_mut()
                    .ok_or(block_decode(i, "no zstd context"))?;
                let n = z.decompress_to_buffer(body, out).map_err(|_| {
                    block_decode(i, "zstd data is corrupt or larger than the block")
                })?;
                if n != out.len() {
                    return Err(block_decode(i, "zstd data is shorter than the block"));
                }
            }
            Codec::Lz4 => {
                let n = lz4_flex::block::decompress_into(body, out)
                    .map_err(|_| block_decode(i, "LZ4 data is corrupt or larger than the block"))?;
                if n != out.len() {
                    return Err(block_decode(i, "LZ4 data is shorter than the block"));
                }
            }
        }
        Ok(())
    }

    /// Make sure `ctx` has what this asset's codec needs (a zstd context is created once per
    /// context, not per asset).
    pub(crate) fn prepare(&self, ctx: &mut DecodeContext) -> Result<(), CafError> {
        if self.header.codec() == Codec::Zstd {
            ctx.ensure_zstd()?;
        }
        Ok(())
    }
}

fn block_decode(block: u32, what: &'static str) -> CafError {
    CafError::BlockDecode { block, what }
}

/// Decoding limits and key for [`decode_payload`] and [`decode_asset`].
#[derive(Clone, Debug)]
pub struct DecodeOptions<'k> {
    /// The key of encrypted assets.
    pub key: Option<&'k Key>,
    /// Largest plain payload decoded whole (default [`DEFAULT_MAX_PLAIN_SIZE`]).
    pub max_plain_size: u64,
}

impl Default for DecodeOptions<'_> {
    fn default() -> Self {
        DecodeOptions {
            key: None,
            max_plain_size: DEFAULT_MAX_PLAIN_SIZE,
        }
    }
}

impl<'k> DecodeOptions<'k> {
    /// Default limits with this key.
    pub fn with_key(key: Option<&'k Key>) -> DecodeOptions<'k> {
        DecodeOptions {
            key,
            ..DecodeOptions::default()
        }
    }
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
/// [`PayloadDecoder::decode_to_slice`] expects its buffer to hold.
pub fn plain_size(asset: &Asset<'_>) -> Result<u64, CafError> {
    if !is_encoded(asset.header.flags) {
        return Ok(asset.payload.len() as u64);
    }
    let p = asset.payload;
    Ok(parse_index_header(asset.header.flags, p, p.len() as u64)?.plain_size)
}

/// Reusable payload decoding: one zstd context and one scratch buffer kept across blocks and
/// assets, output written straight into the caller's buffer (no zero-fill of reused memory,
/// no copy of decrypted blocks), each block's plain CRC computed right after the block is
/// decoded, while it is still in cache. What a game streaming many assets keeps per thread;
/// [`decode_payload`], [`decode_asset`] and [`crate::StreamReader`] go through the same
/// block decoder.
///
/// An error in one asset (corrupt block, wrong key, ...) leaves the decoder ready for the
/// next one; the output buffer's content is then unspecified.
///
/// ```
/// use caf::{encode_asset, Asset, AssetType, CafFlags, Codec, DecodeOptions, Encoding, PayloadDecoder};
///
/// let mut dec = PayloadDecoder::new();
/// let mut plain = Vec::new(); // reused: grows to the largest payload, never zeroed again
/// for (i, codec) in [Codec::Zstd, Codec::Lz4, Codec::Zstd].into_iter().enumerate() {
///     let data = vec![i as u8; 100_000];
///     let enc = Encoding { codec, ..Encoding::default() };
///     let file = encode_asset(AssetType::TEXTURE, CafFlags::NONE, &[], &data, &enc)?;
///     dec.decode_into(&Asset::parse(&file)?, &DecodeOptions::default(), &mut plain)?;
///     assert_eq!(plain, data);
/// }
/// # Ok::<(), caf::CafError>(())
/// ```
#[derive(Default)]
pub struct PayloadDecoder {
    ctx: DecodeContext,
}

impl std::fmt::Debug for PayloadDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PayloadDecoder")
            .field("zstd_context", &self.ctx.zstd.is_some())
            .field("scratch", &self.ctx.scratch.len())
            .finish()
    }
}

/// The checked index and per-asset decoder of an encoded payload, after the size limit.
struct Prepared {
    header: BlockIndexHeader,
    entries: Vec<BlockEntry>,
    blocks: BlockDecoder,
    plain: usize,
}

impl PayloadDecoder {
    /// A decoder with no context yet (the zstd context is created by the first zstd asset).
    pub fn new() -> PayloadDecoder {
        PayloadDecoder::default()
    }

    /// The reusable contexts (for the streaming reader).
    pub(crate) fn context(&mut self) -> &mut DecodeContext {
        &mut self.ctx
    }

    /// Index, key and limit checks of an encoded asset (check order steps 2 to 5).
    fn prepare(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
    ) -> Result<Prepared, CafError> {
        let (header, entries) = block_index(asset)?;
        let blocks = BlockDecoder::new(header, &entries, &asset.header, asset.metadata, opts.key)?;
        if header.plain_size > opts.max_plain_size {
            return Err(CafError::PlainTooLarge {
                size: header.plain_size,
                limit: opts.max_plain_size,
            });
        }
        let plain = usize::try_from(header.plain_size).map_err(|_| CafError::TooLarge {
            what: "plain payload",
            size: header.plain_size,
        })?;
        blocks.prepare(&mut self.ctx)?;
        Ok(Prepared {
            header,
            entries,
            blocks,
            plain,
        })
    }

    /// Decode the plain payload of a verified asset into `out`, replacing its content (a
    /// plain asset's payload is copied). `out`'s memory is reused: bytes it already holds are
    /// overwritten, not zeroed first, so decoding into the same buffer again costs no
    /// allocation and no zero-fill. Returns the CRC-32 of the plain payload.
    pub fn decode_into(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
        out: &mut Vec<u8>,
    ) -> Result<u32, CafError> {
        self.decode_into_after(asset, opts, out, 0)
    }

    /// Decode the plain payload of a verified asset into `out`, which must be exactly
    /// [`plain_size`] bytes long (else [`CafError::OutputSize`]): for a buffer the caller
    /// placed, e.g. a mapped GPU upload buffer. Returns the CRC-32 of the plain payload.
    pub fn decode_to_slice(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
        out: &mut [u8],
    ) -> Result<u32, CafError> {
        if !is_encoded(asset.header.flags) {
            if out.len() != asset.payload.len() {
                return Err(CafError::OutputSize {
                    expected: asset.payload.len() as u64,
                    actual: out.len() as u64,
                });
            }
            out.copy_from_slice(asset.payload);
            return Ok(crc32(asset.payload));
        }
        let p = self.prepare(asset, opts)?;
        if out.len() != p.plain {
            return Err(CafError::OutputSize {
                expected: p.header.plain_size,
                actual: out.len() as u64,
            });
        }
        self.decode_blocks(&p, asset.payload, out)
    }

    /// Decode every block of `p` into `out` (exactly the plain length) and check the plain CRC.
    fn decode_blocks(
        &mut self,
        p: &Prepared,
        payload: &[u8],
        out: &mut [u8],
    ) -> Result<u32, CafError> {
        let mut crc = crc32fast::Hasher::new();
        let mut start = 0usize;
        for (i, e) in p.entries.iter().enumerate() {
            let i = i as u32;
            let end = start + p.header.plain_len(i);
            let block = &mut out[start..end];
            self.decode_block(p, i, e, payload, block)?;
            crc.update(block);
            start = end;
        }
        check_plain_crc(&p.header, crc.finalize())
    }

    /// The plain asset of a verified (possibly encoded) asset, ready for typed views: decoded
    /// straight into the loaded asset's aligned buffer, its CRCs taken from the decoding (the
    /// plain payload is hashed once, block by block, and never copied or re-verified). What
    /// [`decode_asset`] and [`LoadedAsset::from_vec`] do in two steps, in one.
    pub fn decode_loaded(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
    ) -> Result<LoadedAsset, CafError> {
        let front = HEADER_SIZE + asset.metadata.len();
        let (plain_len, prepared) = if is_encoded(asset.header.flags) {
            let p = self.prepare(asset, opts)?;
            // Past the bomb bound, grow as the blocks prove themselves (then copy once).
            let stored = asset.payload.len() as u64;
            if p.header.plain_size > stored.saturating_mul(64) {
                return LoadedAsset::from_vec(self.decode_asset(asset, opts)?);
            }
            (p.plain, Some(p))
        } else {
            (asset.payload.len(), None)
        };
        let encoded_bits = CafFlags::COMPRESSED.0 | CafFlags::ENCRYPTED.0;
        let mut h = CafHeader {
            flags: CafFlags(asset.header.flags.0 & !encoded_bits),
            data_size: plain_len as u64,
            ..asset.header
        };
        let len = front + plain_len + FOOTER_SIZE;
        LoadedAsset::build(len, front, |file| {
            let (head, rest) = file.split_at_mut(front);
            let (body, footer) = rest.split_at_mut(plain_len);
            let plain_crc = match &prepared {
                Some(p) => self.decode_blocks(p, asset.payload, body)?,
                None => {
                    body.copy_from_slice(asset.payload);
                    let c = crc32(body);
                    if c != asset.header.crc32 {
                        return Err(CafError::PayloadCrcMismatch {
                            stored: asset.header.crc32,
                            computed: c,
                        });
                    }
                    c
                }
            };
            h.crc32 = plain_crc;
            head[..HEADER_SIZE].copy_from_slice(&h.to_bytes());
            head[HEADER_SIZE..].copy_from_slice(asset.metadata);
            let footer_crc = crate::crc::crc32_combine(crc32(head), plain_crc, plain_len as u64);
            footer.copy_from_slice(&footer_crc.to_le_bytes());
            Ok(())
        })
    }

    /// A plain `.caf` file equivalent to a verified (possibly encoded) asset, like
    /// [`decode_asset`], with this decoder's contexts.
    pub fn decode_asset(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
    ) -> Result<Vec<u8>, CafError> {
        let front = HEADER_SIZE + asset.metadata.len();
        let mut out = Vec::new();
        let plain_crc = self.decode_into_after(asset, opts, &mut out, front)?;
        let plain_len = (out.len() - front) as u64;
        let encoded_bits = CafFlags::COMPRESSED.0 | CafFlags::ENCRYPTED.0;
        let h = CafHeader {
            flags: CafFlags(asset.header.flags.0 & !encoded_bits),
            crc32: plain_crc,
            data_size: plain_len,
            ..asset.header
        };
        out[..HEADER_SIZE].copy_from_slice(&h.to_bytes());
        out[HEADER_SIZE..front].copy_from_slice(asset.metadata);
        let head = crc32(&out[..front]);
        let footer = crate::crc::crc32_combine(head, plain_crc, plain_len);
        out.extend_from_slice(&footer.to_le_bytes());
        Ok(out)
    }

    fn decode_block(
        &mut self,
        p: &Prepared,
        i: u32,
        e: &BlockEntry,
        payload: &[u8],
        out: &mut [u8],
    ) -> Result<(), CafError> {
        let s = e.offset as usize; // parse_entries checked offsets against the payload
        let stored = &payload[s..s + e.stored_size as usize];
        p.blocks.decode(&mut self.ctx, i, e, stored, out)
    }

    /// Decode into `out[front..]`, `out[..front]` left for the caller to fill.
    fn decode_into_after(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
        out: &mut Vec<u8>,
        front: usize,
    ) -> Result<u32, CafError> {
        if !is_encoded(asset.header.flags) {
            out.truncate(front);
            out.resize(front, 0);
            out.extend_from_slice(asset.payload);
            return Ok(crc32(asset.payload));
        }
        let p = self.prepare(asset, opts)?;
        let want = front + p.plain;
        // Only what the stored bytes can honestly expand to is allocated up front (every block
        // must decode to its full length); a bomb that declares more fails at its first short
        // block long before the buffer grows to the declared size. Memory `out` already holds
        // is reused as it is: every byte of it is overwritten by a block.
        let stored = asset.payload.len() as u64;
        let first = front + (stored.saturating_mul(64)).min(p.header.plain_size) as usize;
        out.truncate(want);
        if out.len() < first {
            grow_zeroed(out, first);
        }
        let mut crc = crc32fast::Hasher::new();
        let mut start = front;
        for (i, e) in p.entries.iter().enumerate() {
            let i = i as u32;
            let end = start + p.header.plain_len(i);
            if out.len() < end {
                grow_zeroed(out, end.max(out.len().saturating_mul(2)).min(want));
            }
            let block = &mut out[start..end];
            self.decode_block(&p, i, e, asset.payload, block)?;
            crc.update(block);
            start = end;
        }
        debug_assert_eq!(start, want);
        check_plain_crc(&p.header, crc.finalize())
    }
}

/// Lengthen `out` to `n` bytes. A buffer without memory takes it zeroed from the allocator
/// (fresh pages come zeroed from the kernel, so large buffers are not written twice).
fn grow_zeroed(out: &mut Vec<u8>, n: usize) {
    if out.capacity() == 0 {
        *out = vec![0u8; n];
    } else {
        out.resize(n, 0);
    }
}

fn check_plain_crc(h: &BlockIndexHeader, computed: u32) -> Result<u32, CafError> {
    if computed != h.plain_crc32 {
        return Err(CafError::PlainCrcMismatch {
            stored: h.plain_crc32,
            computed,
        });
    }
    Ok(computed)
}

/// The plain payload of a verified asset: decoded and checked block by block when the asset is
/// COMPRESSED or ENCRYPTED, a copy of the payload otherwise. A fresh decoder and buffer per
/// call; to decode many assets, keep a [`PayloadDecoder`] and an output buffer instead.
pub fn decode_payload(asset: &Asset<'_>, opts: &DecodeOptions<'_>) -> Result<Vec<u8>, CafError> {
    let mut out = Vec::new();
    PayloadDecoder::new().decode_into(asset, opts, &mut out)?;
    Ok(out)
}

/// A plain `.caf` file equivalent to a verified (possibly encoded) asset: same type, metadata
/// and flags without COMPRESSED and ENCRYPTED, the decoded payload and fresh CRCs. Typed views
/// work on the result. A fresh decoder per call ([`PayloadDecoder::decode_asset`] reuses one).
pub fn decode_asset(asset: &Asset<'_>, opts: &DecodeOptions<'_>) -> Result<Vec<u8>, CafError> {
    PayloadDecoder::new().decode_asset(asset, opts)
}
