//! The crate's error type.

use std::path::PathBuf;

use crate::header::AssetType;

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
    #[error("bad magic at offset 0: {found:#010x}, expected 0xcafecafe (not a .caf container)")]
    BadMagic {
        /// The u32 found at offset 0.
        found: u32,
    },
    /// versionMajor (offset 4) is not 1.
    #[error("unsupported version {major}.{minor} at offset 4: only major version 1 is readable")]
    UnsupportedVersion {
        /// versionMajor found.
        major: u16,
        /// versionMinor found.
        minor: u16,
    },
    /// 32 + metadataSize + dataSize + 4 does not fit in a u64 (a crafted header).
    #[error(
        "size overflow: 32 + metadataSize {metadata_size} + dataSize {data_size} + 4 exceeds 2^64"
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
    #[error("payload CRC mismatch: header (offset 12) says {stored:#010x}, payload hashes to {computed:#010x}")]
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
    #[error("{ty} metadata field {field} = {value} is not supported: {reason}")]
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
        flags: crate::header::CafFlags,
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
