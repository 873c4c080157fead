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
    #[error(
        "bad magic at offset {offset}: expected {expected:?}, found {found:02x?}{}",
        is_instead(*offset, found)
    )]
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
        reason: TableFault,
    },
    /// A chunk payload is inconsistent.
    #[error("chunk {pos:?} (payload at offset {offset}): {reason}")]
    BadChunk {
        /// Chunk position.
        pos: [u16; 3],
        /// Offset of the payload in the file.
        offset: u64,
        /// What is wrong.
        reason: ChunkFault,
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
        reason: RecordFault,
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
    #[error(
        "position ({x}, {y}, {z}) is outside the world (0..{} × 0..{} × 0..{})",
        limit[0], limit[1], limit[2]
    )]
    OutOfBounds {
        /// X coordinate.
        x: i64,
        /// Y coordinate.
        y: i64,
        /// Z coordinate.
        z: i64,
        /// Exclusive upper bound on x, y and z (the world's size in blocks).
        limit: [u32; 3],
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
    /// Per-axis chunk counts outside 1..=65535 or more than `u32::MAX` chunks in all.
    #[error(
        "chunk counts {}x{}x{} are not allowed: each axis must be 1..=65535 and the total at most 4294967295",
        .0[0], .0[1], .0[2]
    )]
    BadChunkDims([u32; 3]),
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
        reason: RecordError,
    },
    /// A typed record was rejected before placing it.
    #[error("invalid {what}: {reason}")]
    InvalidRecord {
        /// Record kind.
        what: &'static str,
        /// Reason.
        reason: RecordError,
    },
    /// A v3 header, commit slot, index or chunk entry is damaged (docs/format/vwr-v3.md).
    #[error("v3 {what} at offset {offset}: {reason}")]
    BadV3 {
        /// Offset of the structure at fault.
        offset: u64,
        /// `"header"`, `"commit"`, `"index"`, `"chunk entry N"`…
        what: String,
        /// What is wrong.
        reason: V3Fault,
    },
    /// A world cannot be written in the requested format.
    #[error("{0}")]
    Unrepresentable(String),
    /// A metadata payload longer than the format's u16 size field.
    #[error("metadata payload of {0} bytes exceeds 65535")]
    PayloadTooLarge(usize),
    /// Another session holds the file's write lock (`FILE.lock`).
    #[error("{}: open for writing by {holder}; close that editor first (readers are not blocked)", path.display())]
    Locked {
        /// The world file.
        path: PathBuf,
        /// The holder, as its lock file names it: `process 1234 (voxcaf world serve w.vwr)`.
        holder: String,
    },
    /// The file changed on disk since the session read or last wrote it; saving would
    /// overwrite someone else's change.
    #[error("{}: changed on disk since it was opened ({what}); nothing was written", path.display())]
    ChangedOnDisk {
        /// The world file.
        path: PathBuf,
        /// What changed.
        what: String,
    },
    /// An edit changed a chunk the session had not loaded from the file.
    #[error("{}: chunk ({}, {}, {}) was edited without being loaded first (WorldSession::load_box); nothing was written", path.display(), chunk[0], chunk[1], chunk[2])]
    NotLoaded {
        /// The world file.
        path: PathBuf,
        /// The chunk position.
        chunk: [u32; 3],
    },
    /// A revert named a commit the file no longer has.
    #[error("{}: commit {generation} is not in the kept history (kept: {kept})", path.display())]
    NoSuchCommit {
        /// The world file.
        path: PathBuf,
        /// The generation asked for.
        generation: u32,
        /// The generations still kept, `first..=last`.
        kept: String,
    },
    /// A chunk a store holds is damaged (a wrong CRC, a field out of range).
    #[error("{location}: chunk ({}, {}, {}) is damaged: {reason}", chunk[0], chunk[1], chunk[2])]
    BadStoredChunk {
        /// The world (a path, or a URL without password).
        location: String,
        /// The chunk position.
        chunk: [u32; 3],
        /// What is wrong.
        reason: String,
    },
    /// A commit found what it read changed by another writer; nothing was written.
    #[error("{location}: {what} changed since it was read (another writer committed); nothing was written")]
    Conflict {
        /// The world.
        location: String,
        /// What moved: `chunk (1, 2, 3)`, `3 chunks`, `the world`, `the world-wide fields`.
        what: String,
    },
    /// A store failed (a database connection, a query, a schema from a newer voxcaf).
    #[error("{location}: {message}")]
    Store {
        /// The world or database.
        location: String,
        /// What failed.
        message: String,
    },
    /// History operations need a v3 file with commit records.
    #[error("{}: no commit history (a v{version} file{}); `voxcaf world convert --format v3` makes one that has", path.display(), if *version == 3 { " written before commit records" } else { "" })]
    NoHistory {
        /// The world file.
        path: PathBuf,
        /// Its header version.
        version: u8,
    },
}

/// What is wrong with a v3 structure ([`VwrError::BadV3`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum V3Fault {
    /// A CRC does not match.
    #[error("CRC mismatch (stored {stored:#010x}, computed {computed:#010x})")]
    Crc {
        /// CRC in the file.
        stored: u32,
        /// CRC of the bytes.
        computed: u32,
    },
    /// Neither commit slot describes a readable version.
    #[error("no readable commit (slot A: {a}; slot B: {b})")]
    NoCommit {
        /// Why slot A was not used.
        a: String,
        /// Why slot B was not used.
        b: String,
    },
    /// Both slots claim the same generation.
    #[error("both commit slots have generation {0}")]
    SameGeneration(u32),
    /// The slot was never written.
    #[error("unused slot")]
    Unused,
    /// A byte range lies outside the file or the committed data.
    #[error("range {offset}+{size} lies outside {limit} bytes")]
    OutOfRange {
        /// Start.
        offset: u64,
        /// Length.
        size: u64,
        /// The limit it must stay under.
        limit: u64,
    },
    /// A size field disagrees with what the counts imply.
    #[error("size {found}, expected {expected}")]
    Size {
        /// Size in the file.
        found: u64,
        /// Size the format requires.
        expected: u64,
    },
    /// A field holds a value the format forbids.
    #[error("{field} = {value} ({rule})")]
    Field {
        /// Field name.
        field: &'static str,
        /// Value found.
        value: u64,
        /// The rule.
        rule: &'static str,
    },
    /// A zstd frame did not decompress.
    #[error("zstd: {0}")]
    Zstd(String),
}

/// What is wrong with a chunk-table entry ([`VwrError::BadTableEntry`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TableFault {
    /// The entry names a chunk position outside the grid.
    #[error("position outside the {chunks_per_axis}³ chunk grid")]
    PositionOutsideGrid {
        /// Chunks per axis of the world.
        chunks_per_axis: u32,
    },
    /// An earlier entry already named this position.
    #[error("chunk position listed twice")]
    ListedTwice,
    /// A non-empty entry with payload size 0.
    #[error("non-empty chunk with payload size 0")]
    EmptyPayload,
    /// The payload range does not lie inside the file.
    #[error("payload range {offset}+{size} lies outside the {file_size}-byte file")]
    PayloadOutsideFile {
        /// Payload offset from the entry.
        offset: u64,
        /// Payload size from the entry.
        size: u32,
        /// Size of the file.
        file_size: u64,
    },
}

/// What is wrong with a chunk payload or its metadata section ([`VwrError::BadChunk`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChunkFault {
    /// `chunkSize` is not 10.
    #[error("chunkSize {found} (must be 10)")]
    ChunkSize {
        /// The value found.
        found: u8,
    },
    /// `paletteCount` outside 1..=256.
    #[error("paletteCount {count} (must be 1..=256)")]
    PaletteCount {
        /// The value found.
        count: u16,
    },
    /// `bitsPerBlock` is not the width the palette count calls for.
    #[error("bitsPerBlock {bits} does not match paletteCount {palette} (expected {expected})")]
    BitsMismatch {
        /// The value found.
        bits: u8,
        /// The palette count.
        palette: u16,
        /// The width that palette count needs.
        expected: u8,
    },
    /// The reserved header field is not 0.
    #[error("reserved field is {value} (must be 0)")]
    Reserved {
        /// The value found.
        value: u16,
    },
    /// `blockCount` is not 1000.
    #[error("blockCount {count} (must be 1000)")]
    BlockCount {
        /// The value found.
        count: u32,
    },
    /// `dataSizeBytes` is not 8 × the word count.
    #[error("dataSizeBytes {size} (must be {expected} for {bits} bits per block)")]
    DataSize {
        /// The value found.
        size: u32,
        /// The size `bits` calls for.
        expected: u32,
        /// Bits per block.
        bits: u8,
    },
    /// A v1 chunk with flags set.
    #[error("v1 chunk with flags {flags:#04x} (must be 0)")]
    V1Flags {
        /// The flags found.
        flags: u8,
    },
    /// Flag bits other than the metadata flag are set.
    #[error("reserved chunk flag bits set ({flags:#04x})")]
    ReservedFlags {
        /// The flags found.
        flags: u8,
    },
    /// The metadata flag and `extraMetaSizeBytes` disagree.
    #[error("metadata flag {flag} but extraMetaSizeBytes {meta_size}")]
    MetaFlagMismatch {
        /// The metadata flag bit (0 or 1).
        flag: u8,
        /// The section size found.
        meta_size: u32,
    },
    /// A cell's palette index is beyond the palette.
    #[error("block {block} uses palette index {index} but the palette has {palette} entries")]
    PaletteIndex {
        /// Local index of the cell.
        block: u16,
        /// The palette index found.
        index: u16,
        /// The palette count.
        palette: u16,
    },
    /// The metadata section's reserved field is not 0.
    #[error("metadata section reserved field is {value} (must be 0)")]
    MetaReserved {
        /// The value found.
        value: u16,
    },
    /// `recordCount` is more than the section can hold.
    #[error("recordCount {count} cannot fit in a {section_size}-byte metadata section")]
    RecordCount {
        /// The value found.
        count: u32,
        /// Size of the section.
        section_size: u32,
    },
    /// Bytes remain in the section after the last record.
    #[error("{count} bytes left over after {records} metadata records")]
    MetaLeftover {
        /// Bytes left.
        count: u32,
        /// Records parsed.
        records: u32,
    },
}

/// What is wrong with one record of a metadata section ([`VwrError::BadRecord`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordFault {
    /// Fewer bytes than a record header remain in the section.
    #[error("record header runs past the end of the metadata section")]
    HeaderPastEnd,
    /// `localBlockIndex` is not a cell of the chunk.
    #[error("localBlockIndex {index} (must be < 1000)")]
    LocalIndex {
        /// The value found.
        index: u32,
    },
    /// The payload runs past the end of the section.
    #[error("payload of {size} bytes runs past the end of the metadata section")]
    PayloadPastEnd {
        /// `payloadSize` of the record.
        size: u16,
    },
}

/// Why a typed record (MoveObject, BigDecor) cannot be decoded or placed
/// ([`VwrError::BadPayload`], [`VwrError::InvalidRecord`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// A MoveObject payload of neither 47 nor 45 bytes.
    #[error(
        "MoveObject payload is {len} bytes (expected {}, or {} for the legacy form)",
        crate::MoveObject::SIZE,
        crate::MoveObject::LEGACY_SIZE
    )]
    MoveObjectSize {
        /// Payload size found.
        len: usize,
    },
    /// A MoveObject start position holding NaN or an infinity.
    #[error("start position {start:?} is not finite")]
    StartNotFinite {
        /// The start position.
        start: [f32; 3],
    },
    /// A MoveObject start position below 0 on some axis.
    #[error("start position {start:?} is negative")]
    StartNegative {
        /// The start position.
        start: [f32; 3],
    },
    /// A MoveObject start position at or beyond the world's far edge.
    #[error(
        "start position {start:?} lies outside the world (0..{} × 0..{} × 0..{})",
        block_dims[0], block_dims[1], block_dims[2]
    )]
    StartOutsideWorld {
        /// The start position.
        start: [f32; 3],
        /// Blocks along x, y and z.
        block_dims: [u32; 3],
    },
    /// A BigDecor payload that is not 2 bytes.
    #[error("BigDecor payload is {len} bytes (expected {})", size_of::<crate::layout::BigDecorPayload>())]
    BigDecorSize {
        /// Payload size found.
        len: usize,
    },
    /// A stored BigDecor record with icon 0.
    #[error("BigDecor icon is 0")]
    BigDecorIconZero,
    /// Placing a BigDecor with icon 0.
    #[error("icon 0 is not allowed")]
    ZeroIcon,
}

/// Result alias.
pub type Result<T, E = VwrError> = std::result::Result<T, E>;

/// For a file-level magic (offset 0): " (this is a PNG image)" and the like, when the bytes
/// name another known kind of file.
fn is_instead(offset: u64, found: &[u8; 4]) -> String {
    match voxcaf_names::file_kind(found) {
        Some(kind) if offset == 0 => format!(" (this is {kind}, not a world)"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_another_kind_is_named_in_the_bad_magic_error() {
        let e = |found: &[u8; 4], offset| {
            VwrError::BadMagic {
                offset,
                expected: "VWR1",
                found: *found,
            }
            .to_string()
        };
        assert!(e(b"VOX ", 0).ends_with("(this is a MagicaVoxel .vox model, not a world)"));
        assert!(e(&[0xfe, 0xca, 0xfe, 0xca], 0).contains("this is a .caf asset"));
        assert!(!e(b"zzzz", 0).contains("this is"));
        // A chunk's magic deep inside a world is not a file kind.
        assert!(!e(b"VOX ", 64).contains("this is"));
    }

    /// The typed faults print the messages the string reasons used to carry (CLI output and
    /// its tests depend on them).
    #[test]
    fn faults_keep_their_messages() {
        let chunk = VwrError::BadChunk {
            pos: [1, 2, 3],
            offset: 60,
            reason: ChunkFault::BitsMismatch {
                bits: 2,
                palette: 5,
                expected: 3,
            },
        };
        assert_eq!(
            chunk.to_string(),
            "chunk [1, 2, 3] (payload at offset 60): bitsPerBlock 2 does not match paletteCount 5 \
             (expected 3)"
        );
        assert_eq!(
            ChunkFault::V1Flags { flags: 1 }.to_string(),
            "v1 chunk with flags 0x01 (must be 0)"
        );
        assert_eq!(
            ChunkFault::DataSize {
                size: 8,
                expected: 128,
                bits: 1
            }
            .to_string(),
            "dataSizeBytes 8 (must be 128 for 1 bits per block)"
        );
        assert_eq!(
            TableFault::PositionOutsideGrid { chunks_per_axis: 2 }.to_string(),
            "position outside the 2³ chunk grid"
        );
        assert_eq!(
            TableFault::PayloadOutsideFile {
                offset: 7,
                size: 9,
                file_size: 10
            }
            .to_string(),
            "payload range 7+9 lies outside the 10-byte file"
        );
        assert_eq!(
            RecordFault::LocalIndex { index: 1000 }.to_string(),
            "localBlockIndex 1000 (must be < 1000)"
        );
        assert_eq!(
            RecordError::MoveObjectSize { len: 46 }.to_string(),
            "MoveObject payload is 46 bytes (expected 47, or 45 for the legacy form)"
        );
        assert_eq!(
            RecordError::BigDecorSize { len: 3 }.to_string(),
            "BigDecor payload is 3 bytes (expected 2)"
        );
        assert_eq!(
            RecordError::StartOutsideWorld {
                start: [10.0, 0.0, 0.0],
                block_dims: [10, 20, 10]
            }
            .to_string(),
            "start position [10.0, 0.0, 0.0] lies outside the world (0..10 × 0..20 × 0..10)"
        );
        assert_eq!(
            VwrError::InvalidRecord {
                what: "BigDecor",
                reason: RecordError::ZeroIcon
            }
            .to_string(),
            "invalid BigDecor: icon 0 is not allowed"
        );
    }
}
