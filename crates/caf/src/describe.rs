//! Describing `.caf` files for people and tools: what `voxcaf asset info` and `asset check`
//! print, built here from the file bytes so that every front end reports the same facts.
//!
//! [`Description::from_bytes`] reads as much of a file as its bytes allow, damaged files
//! included: the header fields whenever 32 bytes exist, the offsets and both CRCs (stored and
//! computed) whenever the structure is sound, the decoded metadata of the fixed-struct types and
//! a typed-view summary, and finally whether the file is valid and which check failed. Its
//! [`Display`](std::fmt::Display) form is the text report; [`Verdict`] is the one-line verdict
//! of a full check.
//!
//! ```
//! use caf::mesh::MeshMetadata;
//! use caf::{describe::Description, AssetType};
//!
//! let bytes = caf::AssetWriter::new(AssetType::MESH)
//!     .metadata(&MeshMetadata::default().to_bytes())
//!     .to_vec();
//! let d = Description::from_bytes(&bytes);
//! assert!(d.is_valid());
//! assert!(d.to_string().starts_with("valid, 52 bytes\n  magic         0xcafecafe"));
//!
//! let d = Description::from_bytes(&bytes[..40]);
//! assert_eq!(d.error.as_ref().map(|e| e.check_name()), Some("size mismatch"));
//! ```
//!
//! # JSON
//!
//! With the `json` cargo feature, `Description::to_json` and `Verdict::to_json` give the JSON
//! objects `voxcaf` prints. The feature pulls in `serde_json`, and is off by default: loading
//! assets should not cost an engine a JSON library. Producing the JSON through `serde_json`
//! rather than by hand keeps string escaping and float formatting (the audio duration)
//! exactly as the tools have always printed them, with object keys in sorted order.

use std::fmt;
use std::path::Path;

use crate::container::header::{AssetType, CafHeader, HEADER_SIZE};
use crate::container::load::{Asset, CrcCheck, LoadedAsset};
use crate::encoded::{block_index, decode_asset, is_encoded, BlockIndexHeader, DecodeOptions, Key};
use crate::error::CafError;

mod decoded;

#[cfg(feature = "json")]
mod json;
mod metadata;
#[cfg(test)]
mod tests;

pub use decoded::{ClipSummary, Decoded, EntitySummary, SectionSummary};
pub use metadata::{FieldValue, KnownMetadata};

fn hex32(v: u32) -> String {
    format!("{v:#010x}")
}

/// Where the parts of a structurally sound file are, and its CRCs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Layout {
    /// File offset of the metadata (always 32).
    pub metadata_offset: usize,
    /// Metadata length in bytes.
    pub metadata_len: usize,
    /// File offset of the payload.
    pub payload_offset: usize,
    /// Payload length in bytes.
    pub payload_len: usize,
    /// File offset of the footer CRC.
    pub footer_offset: usize,
    /// Both CRCs, stored and computed.
    pub crcs: CrcCheck,
}

/// True when the payload starts with a block index's magic. Files written before the
/// COMPRESSED / ENCRYPTED extension may carry those flags on a plain payload; without the
/// magic they are judged as containers only (their payload cannot be decoded).
fn has_block_index(a: &Asset<'_>) -> bool {
    a.payload.starts_with(&crate::encoded::BLOCK_MAGIC)
}

/// Everything that can be said about one file's bytes, valid or not.
#[derive(Debug)]
pub struct Description {
    /// Length of the file.
    pub file_size: u64,
    /// The header fields as stored, when the file has at least 32 bytes (decoded even when
    /// they are wrong).
    pub header: Option<CafHeader>,
    /// Offsets and CRCs, when length, magic, version and sizes are sound.
    pub layout: Option<Layout>,
    /// The decoded metadata of a fixed-struct type whose size matches (needs `layout`).
    pub metadata: Option<KnownMetadata>,
    /// The typed-view summary, or why the view refused the asset, for types with a payload
    /// convention (needs `layout`).
    pub decoded: Option<Result<Decoded, CafError>>,
    /// The block index of a COMPRESSED or ENCRYPTED payload (needs `layout`).
    pub encoding: Option<BlockIndexHeader>,
    /// The first check that failed (`None` = valid): the container checks and, for an
    /// encoded payload, its decoding (a missing key is not a failure: `decoded` then says a
    /// key is needed). Typed-view failures do not make a file invalid here; they are
    /// reported in `decoded`.
    pub error: Option<CafError>,
}

impl Description {
    /// Describe a file from its bytes, going as far as the damage allows.
    pub fn from_bytes(bytes: &[u8]) -> Description {
        Description::from_bytes_with_key(bytes, None)
    }

    /// [`Description::from_bytes`] with the key of an encrypted asset, so that its payload
    /// is decoded, checked and summarised too.
    pub fn from_bytes_with_key(bytes: &[u8], key: Option<&Key>) -> Description {
        let mut d = Description {
            file_size: bytes.len() as u64,
            header: None,
            layout: None,
            metadata: None,
            decoded: None,
            encoding: None,
            error: None,
        };
        let Some(hb) = bytes
            .get(..HEADER_SIZE)
            .and_then(|s| <&[u8; HEADER_SIZE]>::try_from(s).ok())
        else {
            // Too short even for the header: the check names the header's 32 bytes, not the
            // 36 of a whole file, because that is what is missing first.
            d.error = Some(CafError::TooShort {
                len: bytes.len() as u64,
                min: HEADER_SIZE as u64,
            });
            return d;
        };
        let h = CafHeader::from_bytes(hb);
        d.header = Some(h);
        let (asset, crcs) = match Asset::parse_layout(bytes) {
            Ok(x) => x,
            Err(e) => {
                d.error = Some(e);
                return d;
            }
        };
        d.layout = Some(Layout {
            metadata_offset: HEADER_SIZE,
            metadata_len: asset.metadata.len(),
            payload_offset: asset.payload_offset(),
            payload_len: asset.payload.len(),
            footer_offset: asset.footer_offset(),
            crcs,
        });
        d.metadata = KnownMetadata::decode(h.asset_type, asset.metadata);
        d.error = crcs.check().err();
        if !is_encoded(h.flags) {
            d.decoded = Decoded::from_asset(&asset);
            return d;
        }
        d.encoding = block_index(&asset).ok().map(|(ix, _)| ix);
        if d.error.is_some() {
            return d;
        }
        if !has_block_index(&asset) {
            // Flags set by a writer from before the extension on a plain payload: a valid
            // container whose payload nothing can decode.
            d.decoded = Some(Err(CafError::BadBlockIndex {
                offset: 0,
                what: "no block index: COMPRESSED/ENCRYPTED set on a plain payload (a file \
                       from before the extension)",
            }));
            return d;
        }
        match decode_asset(&asset, &DecodeOptions::with_key(key)) {
            Ok(plain) => {
                // decode_asset builds a sound plain file; parse only fails on a bug.
                d.decoded = match Asset::parse(&plain) {
                    Ok(p) => Decoded::from_asset(&p),
                    Err(e) => Some(Err(e)),
                };
            }
            Err(CafError::KeyRequired) => d.decoded = Some(Err(CafError::KeyRequired)),
            Err(e) => d.error = Some(e),
        }
        d
    }

    /// True when every container check passed.
    pub fn is_valid(&self) -> bool {
        self.error.is_none()
    }

    /// True when the payload is encrypted and was not verified for want of a key: the
    /// container is valid, its content unchecked (a check with the key may still fail it).
    pub fn payload_unverified(&self) -> bool {
        matches!(self.decoded, Some(Err(CafError::KeyRequired)))
    }

    /// The first line of the report: `valid, N bytes`, `valid container, N bytes (encrypted
    /// payload not verified: no key)` or `INVALID (check), N bytes: reason`.
    pub fn status_line(&self) -> String {
        match &self.error {
            None if self.payload_unverified() => format!(
                "valid container, {} bytes (encrypted payload not verified: no key)",
                self.file_size
            ),
            None => format!("valid, {} bytes", self.file_size),
            Some(e) => format!(
                "INVALID ({}), {} bytes: {e}",
                e.check_name(),
                self.file_size
            ),
        }
    }

    /// The indented detail lines after the status line: header, offsets and CRCs, metadata,
    /// decoded view. Damaged files give as many as their bytes allow.
    pub fn detail_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let Some(h) = &self.header else {
            return lines;
        };
        lines.push(format!("  magic         {}", hex32(h.magic)));
        lines.push(format!(
            "  version       {}.{}",
            h.version_major, h.version_minor
        ));
        let ty = h.asset_type;
        let label = match ty.name() {
            Some(n) => format!("{} ({n})", ty.0),
            None => format!("{} (no such type)", ty.0),
        };
        lines.push(format!("  type          {label}"));
        lines.push(format!("  flags         {:#06x} ({})", h.flags.0, h.flags));
        lines.push(format!(
            "  sizes         metadata {} + payload {} bytes",
            h.metadata_size, h.data_size
        ));
        let Some(l) = &self.layout else {
            return lines;
        };
        let state = |ok: bool, computed: u32| {
            if ok {
                "matches".to_string()
            } else {
                format!("MISMATCH, bytes hash to {}", hex32(computed))
            }
        };
        let c = &l.crcs;
        lines.push(format!(
            "  metadata      {} bytes at offset {}",
            l.metadata_len, l.metadata_offset
        ));
        lines.push(format!(
            "  payload       {} bytes at offset {}, crc32 {} ({})",
            l.payload_len,
            l.payload_offset,
            hex32(c.payload_stored),
            state(c.payload_ok(), c.payload_computed)
        ));
        lines.push(format!(
            "  footer        at offset {}: {} ({})",
            l.footer_offset,
            hex32(c.footer_stored),
            state(c.footer_ok(), c.footer_computed)
        ));
        if let Some(ix) = &self.encoding {
            lines.push(format!(
                "  encoding      {}{}, {} block(s) of {} bytes, plain payload {} bytes (crc32 {})",
                ix.codec(),
                match ix.cipher() {
                    Some(c) => format!(", encrypted ({})", c.title()),
                    None => String::new(),
                },
                ix.block_count,
                ix.block_size,
                ix.plain_size,
                hex32(ix.plain_crc32)
            ));
        }
        if let Some(m) = &self.metadata {
            let fields: Vec<String> = m.fields().iter().map(|(k, v)| format!("{k}={v}")).collect();
            lines.push(format!("  {:<13} {}", format!("{ty}:"), fields.join(" ")));
        }
        match &self.decoded {
            Some(Ok(d)) => lines.push(format!("  decoded       {d}")),
            Some(Err(e)) => lines.push(format!("  decoded       cannot decode as {ty}: {e}")),
            None => {}
        }
        lines
    }
}

impl fmt::Display for Description {
    /// The text report: [`Description::status_line`], then each of
    /// [`Description::detail_lines`] on its own line (no trailing newline). `voxcaf asset info`
    /// prints it after `FILE: `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.status_line())?;
        for l in self.detail_lines() {
            write!(f, "\n{l}")?;
        }
        Ok(())
    }
}

/// The verdict of a full check of one file: every container check, and optionally the typed
/// view of its type.
#[derive(Debug)]
#[non_exhaustive]
pub enum Verdict {
    /// Every check passed.
    Valid {
        /// The asset type.
        asset_type: AssetType,
        /// Length of the file.
        file_size: u64,
    },
    /// A check failed; [`CafError::check_name`] names it.
    Invalid(CafError),
}

/// Whether the payload of the file at `path` starts with a block index's magic.
fn file_has_block_index(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let read = || -> std::io::Result<[u8; 4]> {
        let mut f = std::fs::File::open(path)?;
        let mut hb = [0u8; HEADER_SIZE];
        f.read_exact(&mut hb)?;
        let h = CafHeader::from_bytes(&hb);
        f.seek(SeekFrom::Start(h.payload_offset().unwrap_or(u64::MAX)))?;
        let mut m = [0u8; 4];
        f.read_exact(&mut m)?;
        Ok(m)
    };
    read().is_ok_and(|m| m == crate::encoded::BLOCK_MAGIC)
}

impl Verdict {
    /// Load and verify `path` (see [`LoadedAsset::open`]); with `typed`, also decode it with
    /// the typed view of its type (types without a payload convention pass).
    pub fn check_file(path: &Path, typed: bool) -> Verdict {
        Verdict::check_file_with_key(path, typed, None)
    }

    /// [`Verdict::check_file`] with the key of encrypted assets. A COMPRESSED or ENCRYPTED
    /// file is streamed ([`crate::encoded::StreamReader`]): every block, the plain CRC and both
    /// container CRCs are checked with memory for a few blocks, whatever the payload's size
    /// (with `typed` it is decoded whole to run the typed view).
    pub fn check_file_with_key(path: &Path, typed: bool, key: Option<&Key>) -> Verdict {
        let header = match crate::container::load::validate_header(path) {
            Ok(h) => h,
            Err(e) => return Verdict::Invalid(e),
        };
        if is_encoded(header.flags) && !typed && (key.is_some() || file_has_block_index(path)) {
            let r = std::fs::File::open(path)
                .map_err(|e| CafError::io(Some(path), e))
                .and_then(|f| {
                    let len = f.metadata().map_err(|e| CafError::io(Some(path), e))?.len();
                    crate::encoded::StreamReader::new(
                        std::io::BufReader::with_capacity(1 << 20, f),
                        key,
                    )?
                    .for_each_block(|_| Ok(()))?;
                    Ok(len)
                });
            return match r {
                Ok(file_size) => Verdict::Valid {
                    asset_type: header.asset_type,
                    file_size,
                },
                Err(e) => Verdict::Invalid(e),
            };
        }
        if !typed {
            // Container checks only (encoded payloads were handled above): one streaming pass
            // through a small buffer, at the speed of the read itself.
            return match crate::container::load::verify_file(path) {
                Ok((h, file_size)) => Verdict::Valid {
                    asset_type: h.asset_type,
                    file_size,
                },
                Err(e) => Verdict::Invalid(e),
            };
        }
        match LoadedAsset::open(path) {
            Ok(l) => Verdict::of_asset(&l.asset(), l.file_size(), typed, key),
            Err(e) => Verdict::Invalid(e),
        }
    }

    /// [`Verdict::check_file`] for a file already in memory.
    pub fn check_bytes(bytes: &[u8], typed: bool) -> Verdict {
        Verdict::check_bytes_with_key(bytes, typed, None)
    }

    /// [`Verdict::check_bytes`] with the key of encrypted assets.
    pub fn check_bytes_with_key(bytes: &[u8], typed: bool, key: Option<&Key>) -> Verdict {
        match Asset::parse(bytes) {
            Ok(a) => Verdict::of_asset(&a, bytes.len() as u64, typed, key),
            Err(e) => Verdict::Invalid(e),
        }
    }

    fn of_asset(a: &Asset<'_>, file_size: u64, typed: bool, key: Option<&Key>) -> Verdict {
        // Without a key or a typed check, a payload without a block index (flags from a writer
        // older than the extension) is judged as a container, as the original loader does.
        let legacy = key.is_none() && !typed && !has_block_index(a);
        if is_encoded(a.header.flags) && !legacy {
            let plain = match decode_asset(a, &DecodeOptions::with_key(key)) {
                Ok(p) => p,
                Err(e) => return Verdict::Invalid(e),
            };
            return match Asset::parse(&plain) {
                Ok(p) => Verdict::of_asset(&p, file_size, typed, None),
                Err(e) => Verdict::Invalid(e),
            };
        }
        if typed {
            if let Some(Err(e)) = Decoded::from_asset(a) {
                return Verdict::Invalid(e);
            }
        }
        Verdict::Valid {
            asset_type: a.header.asset_type,
            file_size,
        }
    }

    /// True for [`Verdict::Valid`].
    pub fn is_valid(&self) -> bool {
        matches!(self, Verdict::Valid { .. })
    }

    /// The report line for `file`: `ok    FILE (type, N bytes)` or
    /// `FAIL  FILE [check]: reason`.
    pub fn line(&self, file: &str) -> String {
        match self {
            Verdict::Valid {
                asset_type,
                file_size,
            } => format!("ok    {file} ({asset_type}, {file_size} bytes)"),
            Verdict::Invalid(e) => format!("FAIL  {file} [{}]: {e}", e.check_name()),
        }
    }
}
