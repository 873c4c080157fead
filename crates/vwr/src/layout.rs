//! The on-disk records of the `.vwr` format (VWR.md sections 3–5), each declared once.
//!
//! Every fixed-size record is a `#[repr(C)]` struct of little-endian fields with no padding and
//! alignment 1, so the reader takes it from the file with one checked cast and the writer emits
//! its bytes as they are. Field offsets in error messages come from `offset_of!` on these
//! structs, never from numbers written by hand. The magic numbers, versions and flags of a
//! record sit next to its struct; the sizes are pinned at compile time.

use core::mem::size_of;

use zerocopy::little_endian::{F32, U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

// ---------------------------------------------------------------------------------------------
// World file `VWR1`, header v2 (VWR.md section 5)
// ---------------------------------------------------------------------------------------------

/// World header v2: the first 40 bytes of a `.vwr` file.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct WorldHeader {
    /// [`WORLD_MAGIC`].
    pub magic: [u8; 4],
    /// [`WORLD_VERSION`]; no other version is read.
    pub version: u8,
    /// Blocks per chunk edge, always 10.
    pub chunk_size: u8,
    /// Chunks per world edge `n`, at least 1.
    pub chunks_per_axis: u8,
    /// Must be 0.
    pub flags: u8,
    /// Number of chunk-table entries, `n³`.
    pub chunk_count: U32,
    /// Where the chunk table starts (the writer puts it right after this header).
    pub chunk_table_offset: U32,
    /// Where the payloads start; written, ignored by the reader.
    pub chunk_data_offset: U32,
    /// Sky region, stored as is (0–31 meaningful).
    pub sky_region: U32,
    /// Mission number, 0 = none.
    pub mission_number: U32,
    /// Spawn cell + 1 on each axis; all 0 = unset.
    pub spawn: [U32; 3],
}

/// World file magic.
pub const WORLD_MAGIC: &[u8; 4] = b"VWR1";
/// World header version written and read.
pub const WORLD_VERSION: u8 = 2;
/// World header size (v2).
pub const WORLD_HEADER_SIZE: usize = size_of::<WorldHeader>();
const _: () = assert!(size_of::<WorldHeader>() == 40);

/// One entry of the chunk table that follows the world header (`n³` of them).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct ChunkTableEntry {
    /// File offset of the chunk payload (0 for an empty chunk).
    pub offset: U64,
    /// Payload size in bytes (0 for an empty chunk).
    pub size: U32,
    /// Chunk position x, y, z in chunks.
    pub pos: [U16; 3],
    /// [`ENTRY_EMPTY`]; other bits are ignored.
    pub flags: U16,
}

/// Chunk table entry size.
pub const TABLE_ENTRY_SIZE: usize = size_of::<ChunkTableEntry>();
const _: () = assert!(size_of::<ChunkTableEntry>() == 20);
/// Chunk-table flag: the chunk is empty and has no payload.
pub const ENTRY_EMPTY: u16 = 0x0001;

// ---------------------------------------------------------------------------------------------
// Chunk payload `VCH1` (VWR.md section 3)
// ---------------------------------------------------------------------------------------------

/// Chunk payload header v1 (20 bytes), which is also the first part of the v2 header.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct ChunkHeaderV1 {
    /// [`CHUNK_MAGIC`].
    pub magic: [u8; 4],
    /// 1 or 2 ([`CHUNK_VERSION`] is written).
    pub version: u8,
    /// Blocks per chunk edge, always 10.
    pub chunk_size: u8,
    /// Bits per palette index, a function of the palette count.
    pub bits_per_block: u8,
    /// [`CHUNK_FLAG_META`] or 0; v1 chunks must have 0.
    pub flags: u8,
    /// Palette entries, 1..=256.
    pub palette_count: U16,
    /// Must be 0.
    pub reserved: U16,
    /// Cells in the chunk, always 1000.
    pub block_count: U32,
    /// Bytes of packed index words, 8 × the word count.
    pub data_size_bytes: U32,
}

/// Chunk payload header v2 (24 bytes): v1 plus the size of the metadata section.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct ChunkHeaderV2 {
    /// The fields shared with v1.
    pub v1: ChunkHeaderV1,
    /// Bytes of the `BMD1` section after the words; non-zero exactly when
    /// [`CHUNK_FLAG_META`] is set.
    pub extra_meta_size_bytes: U32,
}

/// Chunk payload magic.
pub const CHUNK_MAGIC: &[u8; 4] = b"VCH1";
/// Chunk payload version written (1 and 2 are read).
pub const CHUNK_VERSION: u8 = 2;
/// Chunk payload header size, v2.
pub const CHUNK_HEADER_V2: usize = size_of::<ChunkHeaderV2>();
/// Chunk payload header size, v1.
pub const CHUNK_HEADER_V1: usize = size_of::<ChunkHeaderV1>();
const _: () = assert!(size_of::<ChunkHeaderV1>() == 20);
const _: () = assert!(size_of::<ChunkHeaderV2>() == 24);
/// Chunk flag: an extra-metadata section follows the words.
pub const CHUNK_FLAG_META: u8 = 0x01;

// ---------------------------------------------------------------------------------------------
// Sparse metadata section `BMD1` (VWR.md section 4)
// ---------------------------------------------------------------------------------------------

/// Header of a chunk's extra-metadata section (12 bytes).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct MetaSectionHeader {
    /// [`META_MAGIC`].
    pub magic: [u8; 4],
    /// [`META_VERSION`].
    pub version: U16,
    /// Must be 0.
    pub reserved: U16,
    /// Number of records that follow.
    pub record_count: U32,
}

/// Metadata section magic.
pub const META_MAGIC: &[u8; 4] = b"BMD1";
/// Metadata section version.
pub const META_VERSION: u16 = 1;
/// Metadata section header size.
pub const META_HEADER_SIZE: usize = size_of::<MetaSectionHeader>();
const _: () = assert!(size_of::<MetaSectionHeader>() == 12);

/// Header of one metadata record (8 bytes); `payload_size` payload bytes follow, no padding.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct RecordHeader {
    /// Cell inside the chunk, < 1000 (x fastest, then y, then z).
    pub local_block_index: U32,
    /// Metadata type ([`META_MOVE_OBJECT`], [`META_PLATE_ROTATION`], [`META_BIG_DECOR`] or
    /// opaque).
    pub metadata_type: U16,
    /// Payload bytes that follow.
    pub payload_size: U16,
}

/// Per-record header size (index u32, type u16, size u16).
pub const RECORD_HEADER_SIZE: usize = size_of::<RecordHeader>();
const _: () = assert!(size_of::<RecordHeader>() == 8);

// ---------------------------------------------------------------------------------------------
// Typed record payloads (VWR.md section 4)
// ---------------------------------------------------------------------------------------------

/// Metadata type of a MoveObject record ([`MoveObjectPayload`]).
pub const META_MOVE_OBJECT: u16 = 1;
/// Metadata type of a plate-rotation record ([`PlateRotationPayload`]).
pub const META_PLATE_ROTATION: u16 = 2;
/// Metadata type of a BigDecor record ([`BigDecorPayload`]).
pub const META_BIG_DECOR: u16 = 3;
/// Metadata type (`0x5650`, "VP") under which a `.vox` import keeps the MagicaVoxel palette on
/// cell `(0, 0, 0)`, so that an export writes the same palette back (its payload is vwr-vox's,
/// `docs/format/vox-voxcaf-chunk.md`); not a record of the original.
pub const META_VOX_PALETTE: u16 = 0x5650;

/// The legacy 45-byte MoveObject payload: the current form without `visual_icon`.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct MoveObjectLegacyPayload {
    /// Object type.
    pub object_type: u8,
    /// Start position x, y, z.
    pub pos_start: [F32; 3],
    /// End position x, y, z.
    pub pos_end: [F32; 3],
    /// Speed.
    pub speed: F32,
    /// Ticks to advance one step.
    pub step_advance_ticks: F32,
    /// Ticks to recede one step.
    pub step_recede_ticks: F32,
    /// Ticks to wait at the start.
    pub time_stop_start_ticks: F32,
    /// Ticks to wait at the end.
    pub time_stop_end_ticks: F32,
}

/// The MoveObject payload (type 1, 47 bytes), the only form written.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct MoveObjectPayload {
    /// Every field but the icon, laid out as in the legacy form.
    pub legacy: MoveObjectLegacyPayload,
    /// Icon, 0 = derive from the object type.
    pub visual_icon: U16,
}

const _: () = assert!(size_of::<MoveObjectLegacyPayload>() == 45);
const _: () = assert!(size_of::<MoveObjectPayload>() == 47);

/// The plate-rotation payload (type 2, 1 byte).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct PlateRotationPayload {
    /// Non-zero = rotated 90° (X and Z swapped); "not rotated" is stored as 0.
    pub rotated: u8,
}

const _: () = assert!(size_of::<PlateRotationPayload>() == 1);

/// The BigDecor payload (type 3, 2 bytes).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct BigDecorPayload {
    /// Icon, must be non-zero.
    pub icon: U16,
}

const _: () = assert!(size_of::<BigDecorPayload>() == 2);

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::offset_of;

    /// The field offsets of VWR.md's tables, written out independently of the structs.
    #[test]
    fn field_offsets_match_the_spec() {
        assert_eq!(offset_of!(WorldHeader, version), 4);
        assert_eq!(offset_of!(WorldHeader, chunks_per_axis), 6);
        assert_eq!(offset_of!(WorldHeader, chunk_count), 8);
        assert_eq!(offset_of!(WorldHeader, chunk_table_offset), 12);
        assert_eq!(offset_of!(WorldHeader, chunk_data_offset), 16);
        assert_eq!(offset_of!(WorldHeader, sky_region), 20);
        assert_eq!(offset_of!(WorldHeader, mission_number), 24);
        assert_eq!(offset_of!(WorldHeader, spawn), 28);

        assert_eq!(offset_of!(ChunkTableEntry, size), 8);
        assert_eq!(offset_of!(ChunkTableEntry, pos), 12);
        assert_eq!(offset_of!(ChunkTableEntry, flags), 18);

        assert_eq!(offset_of!(ChunkHeaderV1, bits_per_block), 6);
        assert_eq!(offset_of!(ChunkHeaderV1, palette_count), 8);
        assert_eq!(offset_of!(ChunkHeaderV1, reserved), 10);
        assert_eq!(offset_of!(ChunkHeaderV1, block_count), 12);
        assert_eq!(offset_of!(ChunkHeaderV1, data_size_bytes), 16);
        assert_eq!(offset_of!(ChunkHeaderV2, extra_meta_size_bytes), 20);

        assert_eq!(offset_of!(MetaSectionHeader, version), 4);
        assert_eq!(offset_of!(MetaSectionHeader, record_count), 8);
        assert_eq!(offset_of!(RecordHeader, metadata_type), 4);
        assert_eq!(offset_of!(RecordHeader, payload_size), 6);

        assert_eq!(offset_of!(MoveObjectLegacyPayload, pos_start), 1);
        assert_eq!(offset_of!(MoveObjectLegacyPayload, pos_end), 13);
        assert_eq!(offset_of!(MoveObjectLegacyPayload, speed), 25);
        assert_eq!(offset_of!(MoveObjectLegacyPayload, time_stop_end_ticks), 41);
        assert_eq!(offset_of!(MoveObjectPayload, visual_icon), 45);
    }
}

// ---------------------------------------------------------------------------------------------
// World file header v3 (docs/format/vwr-v3.md)
// ---------------------------------------------------------------------------------------------

/// World header version 3 (v3 header, docs/format/vwr-v3.md §2).
pub const WORLD_VERSION_V3: u8 = 3;

/// Commit slot: where the index of one committed version lives (vwr-v3.md §3).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct CommitSlot {
    /// 1, 2, 3, …; 0 = never used.
    pub generation: U32,
    /// File offset of the index.
    pub index_offset: U64,
    /// Index size in bytes.
    pub index_size: U32,
    /// CRC-32 of the 16 bytes before it.
    pub slot_crc: U32,
}
const _: () = assert!(size_of::<CommitSlot>() == 20);

/// World header v3: the first 64 bytes of a v3 `.vwr` file (vwr-v3.md §2).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct WorldHeaderV3 {
    /// [`WORLD_MAGIC`].
    pub magic: [u8; 4],
    /// [`WORLD_VERSION_V3`].
    pub version: u8,
    /// Always 10.
    pub chunk_size: u8,
    /// Feature bits: [`FLAG_HISTORY`], [`FLAG_COMPACT`], [`FLAG_LOD`]; the others are reserved
    /// and must be 0.
    pub flags: U16,
    /// Chunks along x, y and z (each 1..=65535).
    pub chunks: [U16; 3],
    /// Levels of detail stored above level 0 (0..=8; not 0 exactly with [`FLAG_LOD`]).
    pub lod_levels: u8,
    /// Must be 0.
    pub reserved: u8,
    /// CRC-32 of bytes 0..16.
    pub header_crc: U32,
    /// Must be 0.
    pub reserved2: U32,
    /// The two commit slots A and B.
    pub slots: [CommitSlot; 2],
}
/// Header v3 size.
pub const WORLD_HEADER_V3_SIZE: usize = size_of::<WorldHeaderV3>();
const _: () = assert!(size_of::<WorldHeaderV3>() == 64);
/// File offset of commit slot A (slot B follows it).
pub const COMMIT_SLOTS_OFFSET: usize = 24;

/// Index header (vwr-v3.md §4).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct IndexHeader {
    /// [`INDEX_MAGIC`].
    pub magic: [u8; 4],
    /// Equal to the slot's generation.
    pub generation: U32,
    /// Chunk entries in all pages.
    pub entry_count: U32,
    /// Group entries that follow this header.
    pub group_count: U32,
    /// Sky region, as v2.
    pub sky_region: U32,
    /// Mission number, as v2.
    pub mission_number: U32,
    /// Spawn cell + 1 on each axis; all 0 = unset.
    pub spawn: [U32; 3],
    /// Entry pages listed after the groups.
    pub page_count: U32,
    /// End of the data this commit owns (= index offset + index size).
    pub data_end: U64,
    /// Bytes referenced by this commit.
    pub live_bytes: U64,
}
const _: () = assert!(size_of::<IndexHeader>() == 56);
/// Index magic.
pub const INDEX_MAGIC: &[u8; 4] = b"VWX1";

/// Header flag: every root index carries a [`CommitRecord`] (vwr-v3.md §11).
pub const FLAG_HISTORY: u16 = 1;
/// Header flag: every entry page is in the compact form (vwr-v3.md §4.2).
pub const FLAG_COMPACT: u16 = 2;
/// Header flag: the file stores levels of detail (vwr-v3.md §13), `lodLevels` of them.
pub const FLAG_LOD: u16 = 4;

/// Commit kind: an incremental save.
pub const COMMIT_SAVE: u8 = 0;
/// Commit kind: a full write (a new file, a conversion, the first commit after a compaction).
pub const COMMIT_WRITE: u8 = 1;
/// Commit kind: a revert to an earlier commit's state.
pub const COMMIT_REVERT: u8 = 2;
/// Bytes of [`CommitRecord::tool`].
pub const TOOL_LEN: usize = 20;

/// What a commit was and which commit came before it (vwr-v3.md §11); follows the
/// [`IndexHeader`] in files with [`FLAG_HISTORY`].
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct CommitRecord {
    /// Root index of the previous commit kept in the history; 0 = none.
    pub prev_offset: U64,
    /// Its index size (0 with no previous commit).
    pub prev_size: U32,
    /// Its generation (0 with no previous commit).
    pub prev_generation: U32,
    /// Milliseconds since the Unix epoch.
    pub time_ms: U64,
    /// Bytes the save that made this commit wrote.
    pub bytes_written: U64,
    /// Chunks it encoded.
    pub chunks_written: U32,
    /// [`COMMIT_SAVE`], [`COMMIT_WRITE`] or [`COMMIT_REVERT`].
    pub kind: u8,
    /// Must be 0.
    pub reserved: [u8; 3],
    /// Revert: the generation made current again; otherwise 0.
    pub reverted_to: U32,
    /// The program that made the commit, UTF-8 padded with NUL bytes.
    pub tool: [u8; TOOL_LEN],
}
const _: () = assert!(size_of::<CommitRecord>() == 64);

/// A zstd frame holding several chunk payloads (vwr-v3.md §5.3).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct GroupEntry {
    /// File offset of the frame.
    pub offset: U64,
    /// Frame bytes.
    pub stored_size: U32,
    /// Decompressed bytes (at most [`MAX_GROUP_RAW`]).
    pub raw_size: U32,
    /// CRC-32 of the frame's bytes.
    pub crc: U32,
}
const _: () = assert!(size_of::<GroupEntry>() == 20);

/// One page of chunk entries: the entries of chunk indices `page·128 .. page·128+128`
/// (vwr-v3.md §4.1).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct PageEntry {
    /// Page number (chunk index / [`PAGE_ENTRIES`]), strictly increasing.
    pub page: U32,
    /// Entries in the page, 1..=[`PAGE_ENTRIES`].
    pub count: U32,
    /// File offset of the page's stored bytes.
    pub offset: U64,
    /// CRC-32 of the page's stored bytes.
    pub crc: U32,
    /// Files with [`FLAG_COMPACT`]: the page's stored bytes (1..=`28·count`); otherwise 0 (the
    /// page is `28·count` bytes).
    pub stored_size: U32,
}
const _: () = assert!(size_of::<PageEntry>() == 24);
/// Chunk indices covered by one entry page.
pub const PAGE_ENTRIES: u32 = 128;
/// Compact page item tag: a run of uniform inline entries (vwr-v3.md §4.2).
pub const ITEM_RUN: u8 = 0x00;
/// Compact page item form (tag's low nibble): a group entry following the previous one.
pub const ITEM_FOLLOWING: u8 = 4;

/// One stored chunk of a v3 index (vwr-v3.md §5).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct ChunkEntryV3 {
    /// `x + X·(y + Y·z)`.
    pub chunk_index: U32,
    /// [`ENCODING_UNIFORM`], [`ENCODING_PACKED`] or [`ENCODING_RLE`].
    pub encoding: u8,
    /// [`STORAGE_INLINE`], [`STORAGE_RAW`], [`STORAGE_ZSTD`] or [`STORAGE_GROUP`].
    pub storage: u8,
    /// Must be 0.
    pub reserved: U16,
    /// File offset (raw, zstd) or group number (group); 0 for inline.
    pub location: U64,
    /// Payload bytes (raw, group) or frame bytes (zstd); 0 for inline.
    pub size: U32,
    /// Block value (inline), decompressed size (zstd), offset in the group (group), 0 (raw).
    pub value: U32,
    /// CRC-32 of the stored bytes (raw payload, zstd frame, or the payload inside its
    /// decompressed group); 0 for inline entries.
    pub crc: U32,
}
const _: () = assert!(size_of::<ChunkEntryV3>() == 28);

/// Encoding: one block value, no payload.
pub const ENCODING_UNIFORM: u8 = 0;
/// Encoding: the v2 chunk payload (`VCH1`).
pub const ENCODING_PACKED: u8 = 1;
/// Encoding: run-length payload (vwr-v3.md §6).
pub const ENCODING_RLE: u8 = 2;
/// Storage: nothing beyond the entry.
pub const STORAGE_INLINE: u8 = 0;
/// Storage: payload bytes at `location`.
pub const STORAGE_RAW: u8 = 1;
/// Storage: one zstd frame at `location`.
pub const STORAGE_ZSTD: u8 = 2;
/// Storage: inside group number `location`.
pub const STORAGE_GROUP: u8 = 3;
/// Largest decompressed chunk payload a reader accepts.
pub const MAX_PAYLOAD: u32 = 4 << 20;
/// Largest decompressed group a reader accepts.
pub const MAX_GROUP_RAW: u32 = 1 << 20;

/// RLE payload header (vwr-v3.md §6).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct RleHeader {
    /// Palette entries, 1..=256.
    pub palette_count: U16,
    /// Runs, 1..=1000.
    pub run_count: U16,
    /// Bytes of the `BMD1` section at the end.
    pub meta_size: U32,
}
const _: () = assert!(size_of::<RleHeader>() == 8);

/// One run of equal palette indices (the seed's `struct RleRun`).
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct RleRun {
    /// Cells in the run, at least 1.
    pub count: U16,
    /// Palette index of every cell of the run.
    pub palette_index: U16,
}
const _: () = assert!(size_of::<RleRun>() == 4);
