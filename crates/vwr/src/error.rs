//! The one error type of the crate.

use std::path::PathBuf;

/// Everything that can go wrong reading, writing or editing a world.
///
/// Decoding errors name the byte offset in the file (`offset`) and, where one is involved, the
/// chunk position or the record at fault, so a user can find the damage with a hex editor.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VwrError {
    /// An I/O error while reading or writing `path`.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An I/O error on a caller-supplied writer.
    #[error("write failed: {0}")]
    Write(#[from] std::io::Error),
    /// The file ended before a structure it announces.
    #[error("truncated at offset {offset}: {what} needs {needed} bytes, {available} available")]
    Truncated {
        /// Where the structure starts.
        offset: u64,
        /// What was being read.
        what: &'static str,
        /// Bytes the structure needs.
        needed: u64,
        /// Bytes left in the file (or in the enclosing entry).
        available: u64,
    },
    /// A magic number did not match.
    #[error("bad magic at offset {offset}: expected {expected:?}, found {found:02x?}")]
    BadMagic {
        /// Offset of the magic.
        offset: u64,
        /// The expected ASCII magic.
        expected: &'static str,
        /// The bytes found.
        found: [u8; 4],
    },
    /// A version byte this library does not read.
    #[error("unsupported {what} version {found} at offset {offset} (supported: {supported})")]
    UnsupportedVersion {
        /// Offset of the version field.
        offset: u64,
        /// `"world header"` or `"chunk payload"` or `"metadata section"`.
        what: &'static str,
        /// The version found.
        found: u32,
        /// The versions accepted, for the message.
        supported: &'static str,
    },
    /// A header field holds a value the format forbids.
    #[error("invalid {field} at offset {offset}: {value} ({rule})")]
    InvalidField {
        /// Offset of the field.
        offset: u64,
        /// Field name as in VWR.md.
        field: &'static str,
        /// The value found.
        value: u64,
        /// The rule it breaks.
        rule: &'static str,
    },
    /// A chunk-table entry is inconsistent.
    #[error("chunk table entry {entry} (offset {offset}, chunk {pos:?}): {reason}")]
    BadTableEntry {
        /// Index of the entry in the table.
        entry: u32,
        /// Offset of the entry in the file.
        offset: u64,
        /// The chunk position the entry names.
        pos: [u16; 3],
        /// What is wrong.
        reason: String,
    },
    /// A chunk payload is inconsistent.
    #[error("chunk {pos:?} (payload at offset {offset}): {reason}")]
    BadChunk {
        /// Chunk position.
        pos: [u16; 3],
        /// Offset of the payload in the file.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// An extra-metadata record is inconsistent.
    #[error("chunk {pos:?}, metadata record {record} (offset {offset}): {reason}")]
    BadRecord {
        /// Chunk position.
        pos: [u16; 3],
        /// Index of the record in the chunk's section.
        record: u32,
        /// Offset of the record in the file.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// `Block::make` got a type above 4095 or metadata above 15.
    #[error("block out of range: type {block_type} (max 4095), metadata {meta} (max 15)")]
    BlockOutOfRange {
        /// Requested type.
        block_type: u32,
        /// Requested metadata.
        meta: u32,
    },
    /// A coordinate outside the world (or chunk).
    #[error("position ({x}, {y}, {z}) is outside the world (0..{limit} on each axis)")]
    OutOfBounds {
        /// X coordinate.
        x: i64,
        /// Y coordinate.
        y: i64,
        /// Z coordinate.
        z: i64,
        /// Exclusive upper bound on each axis.
        limit: u32,
    },
    /// A chunk would need a 257th distinct value while all 256 are in use.
    #[error("palette full: 256 distinct block values in use (chunk {pos:?})")]
    PaletteFull {
        /// Chunk position, when known.
        pos: Option<[u16; 3]>,
    },
    /// `chunksPerAxis` outside 1..=255.
    #[error("chunks per axis must be 1..=255, got {0}")]
    BadChunksPerAxis(u32),
    /// A typed record payload has the wrong size or content.
    #[error("metadata type {record_type} at ({x}, {y}, {z}): {reason}")]
    BadPayload {
        /// Metadata type.
        record_type: u16,
        /// Cell.
        x: u32,
        /// Cell.
        y: u32,
        /// Cell.
        z: u32,
        /// What is wrong.
        reason: String,
    },
    /// A typed record was rejected before placing it.
    #[error("invalid {what}: {reason}")]
    InvalidRecord {
        /// Record kind.
        what: &'static str,
        /// Reason.
        reason: String,
    },
    /// A metadata payload longer than the format's u16 size field.
    #[error("metadata payload of {0} bytes exceeds 65535")]
    PayloadTooLarge(usize),
}

/// Result alias.
pub type Result<T, E = VwrError> = std::result::Result<T, E>;
