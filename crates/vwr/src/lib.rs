//! # vwr — `.vwr` voxel worlds
//!
//! Reads, edits and writes the palette-compressed voxel worlds of Galaxy Eggbert, byte for byte
//! like the original C++ library: worlds of `n³` chunks (default 10³ chunks of 10³ blocks), each
//! chunk a palette of up to 256 block values plus densely bit-packed indices, with sparse typed
//! metadata records (MoveObjects, plate rotations, BigDecor) attached to cells.
//!
//! ```
//! use vwr::{Block, MoveObject, World};
//!
//! let mut world = World::new(); // 10 × 10 × 10 chunks = 100³ blocks
//! let stone = Block::make(35, 0)?; // RockPile
//! world.fill_box([0, 0, 0], [99, 0, 99], stone)?; // a floor, whole chunks at once
//! world.set_block([50, 1, 50], Block::make(261, 0)?)?; // one brick
//! world.place_move_object(&MoveObject::new(7, [52.0, 1.0, 50.0]))?; // a level exit
//! world.set_spawn([10, 1, 10])?;
//!
//! let bytes = world.to_bytes();
//! let back = World::from_bytes(&bytes)?;
//! assert_eq!(back, world);
//! assert_eq!(back.get_block([50, 1, 50]).block_type(), 261);
//! assert_eq!(back.move_objects()?.len(), 1);
//! # Ok::<(), vwr::VwrError>(())
//! ```
//!
//! The format is specified in `shared/spec/VWR.md`; [`dump`] produces the canonical text form
//! used by the golden conformance tests.

#![deny(unsafe_code)]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used)]

mod block;
mod bulk;
mod chunk;
mod chunk_store;
mod codec;
mod commit;
pub mod dump;
mod error;
#[allow(unsafe_code)]
mod fast;
mod file;
pub mod layout;
pub mod lod;
mod page;
mod page_table;
mod records;
pub mod samples;
mod session;
pub mod stats;
mod store;
mod v3;
mod world;

pub use block::Block;
pub use bulk::BulkError;
pub use chunk::{
    bits_for, local_index, local_position, word_count, Chunk, MetaRecord, CHUNK_SIZE, CHUNK_VOLUME,
    MAX_PALETTE,
};
pub use chunk_store::{
    commit_world, load_store, ChunkStore, Committed, Expect, FileStore, Loaded, StoreCommit,
    StoreHead, StoredChunk, Versioned, STORE_BATCH,
};
pub use codec::{chunk_payload_size, read_world, write_world, Oddity};
pub use error::{ChunkFault, RecordError, RecordFault, Result, TableFault, V3Fault, VwrError};
pub use file::{
    codec_stats, file_bytes, read_world_checked, world_version, WorldFile, DEFAULT_CACHE_CHUNKS,
};
pub use records::{
    record_type_name, MoveObject, META_BIG_DECOR, META_MOVE_OBJECT, META_PLATE_ROTATION,
    META_VOX_PALETTE, MOVE_OBJECT_NAMES,
};
pub use session::{backup_path, SaveReport, SessionOptions, WorldSession, DEFAULT_KEEP};
pub use v3::{
    read_world_v3, write_world_v3, Codec, CodecStats, Commit, CommitInfo, CommitKind, FileBytes,
    Format, LevelStats, PageForm, SaveOptions, DEFAULT_ZSTD_LEVEL,
};
pub use world::{
    World, WorldFields, DEFAULT_CHUNKS_PER_AXIS, MAX_CHUNKS_PER_AXIS, MAX_CHUNK_COUNT,
};
