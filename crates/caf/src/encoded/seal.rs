//! The ciphers of encrypted payloads: the 32-byte [`Key`], the per-file sealer of blocks and of
//! the index tag, their nonces and the associated data each tag authenticates.
//!
//! The ciphers need the `crypto` feature. Without it, [`Sealer`] has no value ([`Sealer::new`]
//! refuses) and neither has a key check value, so an encrypted payload is refused with
//! [`CafError::FeatureDisabled`]; keys can still be read and written.

#[cfg(feature = "crypto")]
use aes_gcm::Aes256Gcm;
#[cfg(feature = "crypto")]
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
#[cfg(feature = "crypto")]
use chacha20poly1305::{Tag, XChaCha20Poly1305, XNonce};
use zerocopy::IntoBytes;

use super::{
    BlockEntry, Cipher, RawBlockEntry, BLOCK_AAD_HEADER, ENTRY_AAD, INDEX_AAD_HEADER,
    INDEX_HEADER_SIZE, KEY_SIZE, TAG_SIZE,
};
#[cfg(feature = "crypto")]
use super::{AES_FILE_KEY_INFO, KEY_CHECK_AAD, KEY_CHECK_NONCE};
use crate::container::header::{CafHeader, HEADER_SIZE};
use crate::error::CafError;

/// A cipher keyed for one file: seals and opens blocks and the index tag by counter (the
/// block index, or [`INDEX_TAG_COUNTER`](super::INDEX_TAG_COUNTER)).
#[cfg(feature = "crypto")]
pub(super) enum Sealer {
    XChaCha(XChaCha20Poly1305, [u8; 16]),
    Aes(Box<Aes256Gcm>),
}

#[cfg(feature = "crypto")]
impl Sealer {
    pub(super) fn new(key: &Key, cipher: Cipher, salt: &[u8; 16]) -> Result<Sealer, CafError> {
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
    pub(super) fn seal(
        &self,
        counter: u64,
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; TAG_SIZE], ()> {
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
    pub(super) fn open(
        &self,
        counter: u64,
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), ()> {
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

/// Without the `crypto` feature no sealer exists: [`Sealer::new`] refuses.
#[cfg(not(feature = "crypto"))]
pub(super) enum Sealer {}

#[cfg(not(feature = "crypto"))]
impl Sealer {
    pub(super) fn new(_key: &Key, cipher: Cipher, _salt: &[u8; 16]) -> Result<Sealer, CafError> {
        Err(cipher.missing())
    }

    pub(super) fn seal(&self, _: u64, _: &[u8], _: &mut [u8]) -> Result<[u8; TAG_SIZE], ()> {
        match *self {}
    }

    pub(super) fn open(&self, _: u64, _: &[u8], _: &mut [u8], _: &[u8]) -> Result<(), ()> {
        match *self {}
    }
}

/// A fresh 16-byte salt from the operating system's random generator.
#[cfg(feature = "crypto")]
pub(super) fn random_salt() -> Result<[u8; 16], CafError> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| CafError::Random(e.to_string()))?;
    Ok(salt)
}

/// Without the `crypto` feature there is no random generator: refused.
#[cfg(not(feature = "crypto"))]
pub(super) fn random_salt() -> Result<[u8; 16], CafError> {
    Err(Cipher::default().missing())
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

    /// A fresh key from the operating system's random generator (needs the `crypto` feature).
    #[cfg(feature = "crypto")]
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
    /// encrypts. Tools compare fingerprints to tell keys apart without revealing them (needs
    /// the `crypto` feature).
    #[cfg(feature = "crypto")]
    pub fn fingerprint(&self) -> [u8; 16] {
        self.tag_of_nothing()
    }

    #[cfg(feature = "crypto")]
    fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new(chacha20poly1305::Key::from_slice(&self.0))
    }

    /// The key check value stored in encrypted files.
    pub(super) fn check_value(&self) -> Result<[u8; 16], CafError> {
        #[cfg(feature = "crypto")]
        return Ok(self.tag_of_nothing());
        // The key check is an XChaCha20-Poly1305 tag whatever the file's cipher.
        #[cfg(not(feature = "crypto"))]
        Err(Cipher::XChaCha20Poly1305.missing())
    }

    /// The XChaCha20-Poly1305 tag of the empty message under the key check nonce and associated
    /// data: the key check value.
    #[cfg(feature = "crypto")]
    fn tag_of_nothing(&self) -> [u8; 16] {
        let tag = self
            .cipher()
            .encrypt_in_place_detached(XNonce::from_slice(&KEY_CHECK_NONCE), KEY_CHECK_AAD, &mut [])
            // An empty message is always within the cipher's length limit.
            .unwrap_or_default();
        tag.into()
    }
}

#[cfg(feature = "crypto")]
fn block_nonce(salt: &[u8; 16], counter: u64) -> XNonce {
    let mut n = [0u8; 24];
    n[..16].copy_from_slice(salt);
    n[16..].copy_from_slice(&counter.to_le_bytes());
    XNonce::from(n)
}

pub(super) fn block_aad(header_bytes: &[u8; INDEX_HEADER_SIZE], entry: &BlockEntry) -> [u8; 44] {
    let mut aad = [0u8; BLOCK_AAD_HEADER + ENTRY_AAD];
    aad[..BLOCK_AAD_HEADER].copy_from_slice(&header_bytes[..BLOCK_AAD_HEADER]);
    aad[BLOCK_AAD_HEADER..].copy_from_slice(&RawBlockEntry::from(entry).as_bytes()[..ENTRY_AAD]);
    aad
}

/// The associated data of the index tag (spec: `IndexAad`).
pub(super) fn index_aad(
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
