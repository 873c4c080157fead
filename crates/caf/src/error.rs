//! The crate's error type.

use std::mem::offset_of;
use std::path::PathBuf;

use crate::container::header::{AssetType, RawHeader, FOOTER_SIZE, HEADER_SIZE};

/// The category of a [`CafError`], for callers that react by kind rather than by check (retry,
/// report a damaged file, report a bug in the caller, ...).
#[non_exhaustive]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ErrorKind {
    /// Reading or writing the underlying file or stream failed.
    Io,
    /// The bytes are not a valid `.caf` file or asset of the type they claim: damaged,
    /// truncated, inconsistent sizes or CRCs, impossible metadata, broken payload structure.
    Malformed,
    /// The file is well-formed but uses something this crate does not implement: another major
    /// version, a payload encoding flag.
    Unsupported,
    /// The caller broke an API contract: a typed view asked of an asset of another type, a
    /// streaming payload reader shorter than the length promised for it.
    Misuse,
    /// A size does not fit this platform's address space, or exceeds a decoding limit.
    LimitExceeded,
    /// The asset is encrypted and no key, a malformed key or the wrong key was given.
    Key,
}

/// Everything that can go wrong reading, checking or writing a `.caf` file.
///
/// Container checks (in the order the loader runs them): [`TooShort`](CafError::TooShort),
/// [`BadMagic`](CafError::BadMagic), [`UnsupportedVersion`](CafError::UnsupportedVersion),
/// [`SizeOverflow`](CafError::SizeOverflow) / [`SizeMismatch`](CafError::SizeMismatch),
/// [`PayloadCrcMismatch`](CafError::PayloadCrcMismatch),
/// [`FooterCrcMismatch`](CafError::FooterCrcMismatch). The rest come from typed access.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum CafError {
    /// Reading or writing failed.
    #[error("I/O error{}: {source}", path.as_ref().map(|p| format!(" on {}", p.display())).unwrap_or_default())]
    Io {
        /// The file involved, when known.
        path: Option<PathBuf>,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file is shorter than the minimum (36 bytes for a file, 32 for a header check).
    #[error("too short: {len} bytes, a .caf file needs at least {min}")]
    TooShort {
        /// Bytes available.
        len: u64,
        /// Bytes needed.
        min: u64,
    },
    /// Offset 0 does not hold 0xCAFECAFE.
    #[error(
        "bad magic at offset {}: {found:#010x}, expected {:#010x} ({})",
        offset_of!(RawHeader, magic),
        crate::container::header::MAGIC,
        match voxcaf_names::file_kind(&found.to_le_bytes()) {
            Some(kind) => format!("this is {kind}, not a .caf container"),
            None => "not a .caf container".to_string(),
        }
    )]
    BadMagic {
        /// The u32 found at offset 0.
        found: u32,
    },
    /// versionMajor (offset 4) is not 1.
    #[error(
        "unsupported version {major}.{minor} at offset {}: only major version {} is readable",
        offset_of!(RawHeader, version_major),
        crate::container::header::VERSION_MAJOR
    )]
    UnsupportedVersion {
        /// versionMajor found.
        major: u16,
        /// versionMinor found.
        minor: u16,
    },
    /// 32 + metadataSize + dataSize + 4 does not fit in a u64 (a crafted header).
    #[error(
        "size overflow: {} + metadataSize {metadata_size} + dataSize {data_size} + {} exceeds 2^64",
        HEADER_SIZE,
        FOOTER_SIZE
    )]
    SizeOverflow {
        /// metadataSize (offset 16).
        metadata_size: u64,
        /// dataSize (offset 24).
        data_size: u64,
    },
    /// The header's sizes imply a different file length than the real one.
    #[error("size mismatch: header says the file is {expected} bytes, it is {actual}")]
    SizeMismatch {
        /// 32 + N + M + 4 from the header.
        expected: u64,
        /// Real length.
        actual: u64,
    },
    /// The payload does not hash to the header's crc32 (offset 12).
    #[error(
        "payload CRC mismatch: header (offset {}) says {stored:#010x}, payload hashes to \
         {computed:#010x}",
        offset_of!(RawHeader, crc32)
    )]
    PayloadCrcMismatch {
        /// CRC stored in the header.
        stored: u32,
        /// CRC of the payload bytes.
        computed: u32,
    },
    /// The footer does not match the CRC of everything before it.
    #[error("footer CRC mismatch: footer says {stored:#010x}, the bytes before it hash to {computed:#010x}")]
    FooterCrcMismatch {
        /// Footer value.
        stored: u32,
        /// CRC of everything before the footer.
        computed: u32,
    },
    /// A typed view found metadata of the wrong length for its type.
    #[error("{ty} metadata is {actual} bytes, expected {expected}")]
    MetadataSize {
        /// The type being read.
        ty: AssetType,
        /// Size the type needs.
        expected: u64,
        /// Size found.
        actual: u64,
    },
    /// A typed view found a payload of a different length than the metadata implies.
    #[error("{ty} payload is {actual} bytes, the metadata implies {expected}")]
    PayloadSize {
        /// The type being read.
        ty: AssetType,
        /// Size implied by the metadata (`u64::MAX` when that computation overflows).
        expected: u64,
        /// Size found.
        actual: u64,
    },
    /// A typed view was asked for on an asset of another type.
    #[error("wrong asset type: expected {expected}, found {found}")]
    WrongType {
        /// Type wanted.
        expected: AssetType,
        /// Type in the header.
        found: AssetType,
    },
    /// A metadata field has a value this crate cannot interpret.
    #[error("{ty} metadata field {field} = {value} is invalid: {reason}")]
    BadMetadata {
        /// The type being read.
        ty: AssetType,
        /// Field name.
        field: &'static str,
        /// Value found.
        value: u64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The asset's flags ask for an encoding this crate does not implement (COMPRESSED,
    /// ENCRYPTED), so typed access refuses rather than misread the payload.
    #[error("{ty} has flags {flags} (payload encoding not supported by this reader)")]
    UnsupportedFlags {
        /// The type being read.
        ty: AssetType,
        /// The header flags.
        flags: crate::container::header::CafFlags,
    },
    /// The payload's inner structure (scene sections, prefab entities, mesh indices) is broken.
    #[error("malformed {ty} payload at payload offset {offset}: {what}")]
    Malformed {
        /// The type being read.
        ty: AssetType,
        /// Offset inside the payload.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// A streaming writer's reader ended before the promised length.
    #[error("payload reader ended after {actual} bytes, {expected} were promised")]
    StreamTooShort {
        /// Promised length.
        expected: u64,
        /// Bytes actually read.
        actual: u64,
    },
    /// The block index of a COMPRESSED or ENCRYPTED payload is inconsistent.
    #[error("bad block index at payload offset {offset}: {what}")]
    BadBlockIndex {
        /// Offset inside the payload.
        offset: u64,
        /// What is wrong.
        what: &'static str,
    },
    /// The block index uses a version, codec or cipher this crate does not know.
    #[error("unsupported {what} {value} in the block index")]
    UnsupportedEncoding {
        /// `"block index version"`, `"codec"` or `"cipher"`.
        what: &'static str,
        /// The value found.
        value: u64,
    },
    /// The payload's codec or cipher needs a cargo feature of this crate that the build leaves
    /// out (a build with `default-features = false`).
    #[error("{kind} {name} needs the `{feature}` feature of caf, which this build leaves out")]
    FeatureDisabled {
        /// `"codec"` or `"cipher"`.
        kind: &'static str,
        /// The codec's or cipher's name (`"zstd"`, `"aes-256-gcm"`, ...).
        name: &'static str,
        /// The cargo feature it needs (`"zstd"`, `"lz4"` or `"crypto"`).
        feature: &'static str,
    },
    /// The block index does not hash to its stored CRC.
    #[error(
        "block index CRC mismatch: stored {stored:#010x}, the index hashes to {computed:#010x}"
    )]
    IndexCrcMismatch {
        /// CRC stored in the index header.
        stored: u32,
        /// CRC computed.
        computed: u32,
    },
    /// The asset is ENCRYPTED and no key was given.
    #[error("the payload is encrypted and no key was given")]
    KeyRequired,
    /// The key's check value differs from the file's: it is not the key the file was
    /// encrypted with.
    #[error("wrong key: the payload was encrypted with another key")]
    WrongKey,
    /// The header, metadata or block index were changed after encryption (the index tag does
    /// not verify with the right key).
    #[error("index authentication failed: header, metadata or block index were altered after encryption")]
    IndexAuthFailed,
    /// The plain payload is larger than the decoding limit; it must be streamed.
    #[error("plain payload of {size} bytes exceeds the decoding limit of {limit} bytes (stream it instead)")]
    PlainTooLarge {
        /// Declared plain size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A stored block does not hash to its entry's CRC.
    #[error("block {block} CRC mismatch: entry says {stored:#010x}, the block hashes to {computed:#010x}")]
    BlockCrcMismatch {
        /// Block index.
        block: u32,
        /// CRC in the entry.
        stored: u32,
        /// CRC computed.
        computed: u32,
    },
    /// A block's authentication tag does not verify: the block was altered, moved or belongs
    /// to another file.
    #[error("block {block} authentication failed: the block was altered, moved or comes from another file")]
    BlockAuthFailed {
        /// Block index.
        block: u32,
    },
    /// A block does not decode to exactly its plain length.
    #[error("block {block} does not decode: {what}")]
    BlockDecode {
        /// Block index.
        block: u32,
        /// What went wrong.
        what: &'static str,
    },
    /// The decoded payload does not hash to the index's plain CRC.
    #[error("plain payload CRC mismatch: index says {stored:#010x}, the decoded payload hashes to {computed:#010x}")]
    PlainCrcMismatch {
        /// CRC stored in the index.
        stored: u32,
        /// CRC computed.
        computed: u32,
    },
    /// A key (text or file) is malformed.
    #[error("bad key: {what}")]
    BadKey {
        /// What is wrong.
        what: &'static str,
    },
    /// Encoding options the writer cannot honour.
    #[error("bad encoding options: {what}")]
    BadEncoding {
        /// What is wrong.
        what: &'static str,
    },
    /// A pack archive's header or index is inconsistent.
    #[error("bad pack at offset {offset}: {what}")]
    BadPack {
        /// File offset.
        offset: u64,
        /// What is wrong.
        what: &'static str,
    },
    /// A path given to the pack writer is not a relative `/`-separated path, or repeats.
    #[error("bad or repeated pack path {path:?} (relative, '/'-separated, no '.' or '..' parts)")]
    BadPackPath {
        /// The path.
        path: String,
    },
    /// A streamed file ends before the bytes its header and index promise.
    #[error("file ends early: more bytes expected at offset {offset}")]
    Truncated {
        /// File offset where bytes were missing.
        offset: u64,
    },
    /// The operating system's random generator failed.
    #[error("random generator failed: {0}")]
    Random(String),
    /// A caller's output buffer is not exactly the plain payload's length.
    #[error("output buffer is {actual} bytes, the plain payload is {expected}")]
    OutputSize {
        /// Length of the plain payload.
        expected: u64,
        /// Length of the buffer given.
        actual: u64,
    },
    /// The file (or a size in it) does not fit in this machine's address space.
    #[error("{what} of {size} bytes does not fit in memory on this platform")]
    TooLarge {
        /// What was too large.
        what: &'static str,
        /// Its size.
        size: u64,
    },
}

impl CafError {
    /// The category of this error; every variant belongs to exactly one.
    pub fn kind(&self) -> ErrorKind {
        match self {
            CafError::Io { .. } => ErrorKind::Io,
            CafError::TooShort { .. }
            | CafError::BadMagic { .. }
            | CafError::SizeOverflow { .. }
            | CafError::SizeMismatch { .. }
            | CafError::PayloadCrcMismatch { .. }
            | CafError::FooterCrcMismatch { .. }
            | CafError::MetadataSize { .. }
            | CafError::PayloadSize { .. }
            | CafError::BadMetadata { .. }
            | CafError::Malformed { .. }
            | CafError::BadBlockIndex { .. }
            | CafError::IndexCrcMismatch { .. }
            | CafError::IndexAuthFailed
            | CafError::BlockCrcMismatch { .. }
            | CafError::BlockAuthFailed { .. }
            | CafError::BlockDecode { .. }
            | CafError::PlainCrcMismatch { .. }
            | CafError::Truncated { .. }
            | CafError::BadPack { .. } => ErrorKind::Malformed,
            CafError::BadPackPath { .. } => ErrorKind::Misuse,
            CafError::UnsupportedEncoding { .. } | CafError::FeatureDisabled { .. } => {
                ErrorKind::Unsupported
            }
            CafError::KeyRequired | CafError::WrongKey | CafError::BadKey { .. } => ErrorKind::Key,
            CafError::PlainTooLarge { .. } => ErrorKind::LimitExceeded,
            CafError::BadEncoding { .. } => ErrorKind::Misuse,
            CafError::Random(_) => ErrorKind::Io,
            CafError::UnsupportedVersion { .. } | CafError::UnsupportedFlags { .. } => {
                ErrorKind::Unsupported
            }
            CafError::WrongType { .. }
            | CafError::StreamTooShort { .. }
            | CafError::OutputSize { .. } => ErrorKind::Misuse,
            CafError::TooLarge { .. } => ErrorKind::LimitExceeded,
        }
    }

    /// Short, stable name of the failed check, for one-line reports:
    /// `"too short"`, `"bad magic"`, `"payload crc"`, ...
    pub fn check_name(&self) -> &'static str {
        match self {
            CafError::Io { .. } => "io",
            CafError::TooShort { .. } => "too short",
            CafError::BadMagic { .. } => "bad magic",
            CafError::UnsupportedVersion { .. } => "unsupported version",
            CafError::SizeOverflow { .. } => "size overflow",
            CafError::SizeMismatch { .. } => "size mismatch",
            CafError::PayloadCrcMismatch { .. } => "payload crc",
            CafError::FooterCrcMismatch { .. } => "footer crc",
            CafError::MetadataSize { .. } => "metadata size",
            CafError::PayloadSize { .. } => "payload size",
            CafError::WrongType { .. } => "wrong type",
            CafError::BadMetadata { .. } => "bad metadata",
            CafError::UnsupportedFlags { .. } => "unsupported flags",
            CafError::Malformed { .. } => "malformed payload",
            CafError::StreamTooShort { .. } => "stream too short",
            CafError::TooLarge { .. } => "too large",
            CafError::OutputSize { .. } => "output size",
            CafError::BadBlockIndex { .. } => "block index",
            CafError::UnsupportedEncoding { .. } => "unsupported encoding",
            CafError::FeatureDisabled { .. } => "feature disabled",
            CafError::IndexCrcMismatch { .. } => "index crc",
            CafError::KeyRequired => "key required",
            CafError::WrongKey => "wrong key",
            CafError::IndexAuthFailed => "index authentication",
            CafError::PlainTooLarge { .. } => "plain too large",
            CafError::BlockCrcMismatch { .. } => "block crc",
            CafError::BlockAuthFailed { .. } => "block authentication",
            CafError::BlockDecode { .. } => "block decode",
            CafError::PlainCrcMismatch { .. } => "plain crc",
            CafError::BadKey { .. } => "bad key",
            CafError::BadEncoding { .. } => "bad encoding",
            CafError::Truncated { .. } => "truncated",
            CafError::BadPack { .. } => "bad pack",
            CafError::BadPackPath { .. } => "bad pack path",
            CafError::Random(_) => "random",
        }
    }

    pub(crate) fn io(path: Option<&std::path::Path>, source: std::io::Error) -> CafError {
        CafError::Io {
            path: path.map(|p| p.to_path_buf()),
            source,
        }
    }
}

impl From<std::io::Error> for CafError {
    fn from(e: std::io::Error) -> CafError {
        CafError::io(None, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::header::CafFlags;

    /// One of every variant, with its expected kind.
    fn all() -> Vec<(CafError, ErrorKind)> {
        let ty = AssetType::MESH;
        vec![
            (
                CafError::io(None, std::io::Error::other("x")),
                ErrorKind::Io,
            ),
            (CafError::TooShort { len: 3, min: 36 }, ErrorKind::Malformed),
            (CafError::BadMagic { found: 1 }, ErrorKind::Malformed),
            (
                CafError::UnsupportedVersion { major: 2, minor: 0 },
                ErrorKind::Unsupported,
            ),
            (
                CafError::SizeOverflow {
                    metadata_size: u64::MAX,
                    data_size: 1,
                },
                ErrorKind::Malformed,
            ),
            (
                CafError::SizeMismatch {
                    expected: 40,
                    actual: 36,
                },
                ErrorKind::Malformed,
            ),
            (
                CafError::PayloadCrcMismatch {
                    stored: 1,
                    computed: 2,
                },
                ErrorKind::Malformed,
            ),
            (
                CafError::FooterCrcMismatch {
                    stored: 1,
                    computed: 2,
                },
                ErrorKind::Malformed,
            ),
            (
                CafError::MetadataSize {
                    ty,
                    expected: 16,
                    actual: 8,
                },
                ErrorKind::Malformed,
            ),
            (
                CafError::PayloadSize {
                    ty,
                    expected: 48,
                    actual: 47,
                },
                ErrorKind::Malformed,
            ),
            (
                CafError::WrongType {
                    expected: AssetType::TEXTURE,
                    found: ty,
                },
                ErrorKind::Misuse,
            ),
            (
                CafError::BadMetadata {
                    ty,
                    field: "f",
                    value: 1,
                    reason: "r",
                },
                ErrorKind::Malformed,
            ),
            (
                CafError::UnsupportedFlags {
                    ty,
                    flags: CafFlags::COMPRESSED,
                },
                ErrorKind::Unsupported,
            ),
            (
                CafError::Malformed {
                    ty,
                    offset: 4,
                    what: "w".into(),
                },
                ErrorKind::Malformed,
            ),
            (
                CafError::StreamTooShort {
                    expected: 9,
                    actual: 1,
                },
                ErrorKind::Misuse,
            ),
            (
                CafError::TooLarge {
                    what: "file",
                    size: u64::MAX,
                },
                ErrorKind::LimitExceeded,
            ),
            (
                CafError::BadBlockIndex {
                    offset: 0,
                    what: "w",
                },
                ErrorKind::Malformed,
            ),
            (
                CafError::UnsupportedEncoding {
                    what: "codec",
                    value: 9,
                },
                ErrorKind::Unsupported,
            ),
            (
                CafError::FeatureDisabled {
                    kind: "codec",
                    name: "zstd",
                    feature: "zstd",
                },
                ErrorKind::Unsupported,
            ),
            (CafError::KeyRequired, ErrorKind::Key),
            (CafError::WrongKey, ErrorKind::Key),
            (CafError::BadKey { what: "w" }, ErrorKind::Key),
            (CafError::IndexAuthFailed, ErrorKind::Malformed),
            (CafError::BlockAuthFailed { block: 1 }, ErrorKind::Malformed),
            (
                CafError::PlainTooLarge { size: 2, limit: 1 },
                ErrorKind::LimitExceeded,
            ),
            (CafError::BadEncoding { what: "w" }, ErrorKind::Misuse),
            (CafError::Truncated { offset: 3 }, ErrorKind::Malformed),
            (
                CafError::OutputSize {
                    expected: 8,
                    actual: 7,
                },
                ErrorKind::Misuse,
            ),
        ]
    }

    #[test]
    fn every_variant_has_a_kind_and_a_library_message() {
        for (e, kind) in all() {
            assert_eq!(e.kind(), kind, "{e}");
            let msg = e.to_string();
            // Library errors describe the file, never a command line.
            assert!(!msg.contains("--"), "{msg}");
        }
    }

    #[test]
    fn header_offsets_in_messages_come_from_the_layout() {
        let msg = |e: CafError| e.to_string();
        assert!(msg(CafError::BadMagic { found: 0 }).contains("at offset 0:"));
        assert!(msg(CafError::UnsupportedVersion { major: 9, minor: 1 }).contains("at offset 4:"));
        let crc = msg(CafError::PayloadCrcMismatch {
            stored: 0,
            computed: 0,
        });
        assert!(crc.contains("(offset 12)"), "{crc}");
        let overflow = msg(CafError::SizeOverflow {
            metadata_size: 1,
            data_size: 2,
        });
        assert!(overflow.starts_with("size overflow: 32 + metadataSize 1 + dataSize 2 + 4"));
    }
}
