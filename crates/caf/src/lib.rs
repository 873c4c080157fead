//! The Caffeine Asset Format (`.caf`): a 32-byte header, metadata, payload and a footer CRC,
//! read with one read (or a memory map) and zero copies, and verified by hashing each byte
//! once.
//!
//! ```
//! use caf::{Asset, AssetType, AssetWriter, CafFlags, TextureMetadata, TextureView};
//!
//! let meta = TextureMetadata { width: 2, height: 2, format: 0, mip_levels: 1, reserved: 0 };
//! let pixels = [255u8; 16]; // 2x2 RGBA8
//! let bytes = AssetWriter::new(AssetType::TEXTURE)
//!     .flags(CafFlags::SRGB)
//!     .metadata(&meta.to_bytes())
//!     .payload(&pixels)
//!     .to_vec();
//! assert_eq!(bytes.len(), 32 + 24 + 16 + 4);
//!
//! let asset = Asset::parse(&bytes)?; // checks length, magic, version, sizes and both CRCs
//! let tex = TextureView::from_asset(&asset)?;
//! assert_eq!((tex.meta.width, tex.channels, tex.level_count()), (2, 4, 1));
//!
//! let mut damaged = bytes.clone();
//! damaged[60] ^= 1;
//! let err = Asset::parse(&damaged).unwrap_err();
//! assert!(matches!(err, caf::CafError::PayloadCrcMismatch { .. }));
//! assert_eq!(err.kind(), caf::ErrorKind::Malformed);
//! # Ok::<(), caf::CafError>(())
//! ```
//!
//! Files on disk: [`AssetWriter::write_file`] (atomic: temporary file, fsync, rename; the
//! payload from memory or streamed from a `Read` set with [`AssetWriter::payload_reader`]),
//! [`LoadedAsset::open`] (verified, payload aligned to [`AssetType::payload_alignment`]),
//! [`validate_header`] (32 bytes only).
//!
//! Every on-disk struct (the header and each metadata struct) is declared once: a public typed
//! struct and a raw zerocopy image with little-endian fields, converted into each other by one
//! function each way; no field offset is computed by hand.
//!
//! Mesh payloads are encoded by [`encode_mesh`], the inverse of [`MeshView`]. Reports on files,
//! damaged ones included, come from [`describe`] ([`Description`], [`Verdict`]); its JSON form
//! needs the `json` cargo feature.
//!
//! The byte-level contract is CAF.md of the voxcaf project; files are interchangeable with the
//! original Caffeine engine, except that crafted headers whose size sum overflows are refused.

#![warn(missing_docs)]
#![deny(unsafe_code)]
#![deny(clippy::unwrap_used)]

mod anim;
mod block;
mod crc;
pub mod describe;
mod error;
mod format;
mod header;
mod layout;
mod load;
mod mesh_encode;
mod meta;
#[allow(unsafe_code)]
mod mmap;
pub mod pack;
mod skin;
mod stream;
mod view;
mod write;

pub use anim::{
    encode_animation, AnimationEncodeError, AnimationView, ChannelData, ChannelPath, ChannelValue,
    ClipData,
};
pub use block::{
    block_index, decode_asset, decode_payload, encode_asset, encode_payload, is_encoded,
    plain_size, BlockEntry, BlockIndexHeader, Cipher, Codec, DecodeOptions, Encoding, Key,
    PayloadDecoder, BLOCK_MAGIC, BLOCK_VERSION, DEFAULT_BLOCK_SIZE, DEFAULT_MAX_PLAIN_SIZE,
    ENTRY_SIZE, INDEX_HEADER_SIZE, KEY_SIZE, MAX_BLOCK_SIZE, MIN_BLOCK_SIZE,
};
pub use crc::{crc32, crc32_combine, crc32_continue};
pub use describe::{Description, Verdict};
pub use error::{CafError, ErrorKind};
pub use format::{FormatClass, FormatInfo, FormatRefusal, TextureFormat};
pub use header::{
    AssetType, CafFlags, CafHeader, FOOTER_SIZE, HEADER_SIZE, MAGIC, MAX_PAYLOAD_ALIGNMENT,
    MIN_FILE_SIZE, VERSION_MAJOR, VERSION_MINOR,
};
pub use load::{
    validate_header, validate_header_bytes, verify_file, Asset, CrcCheck, LoadMode, LoadedAsset,
    MAP_THRESHOLD, PARALLEL_VERIFY_MIN,
};
pub use mesh_encode::{encode_mesh, encode_mesh_ext, MeshEncodeError, MeshExtras, SkinStreams};
pub use meta::{
    strip_alignment_padding, AnimationMetadata, ArchetypeDesc, AudioMetadata, ChannelEntry,
    ClipEntry, FontFormat, FontMetadata, GlyphRecord, JointEntry, KerningRecord, MeshExtHeader,
    MeshMetadata, SceneMetadata, ShaderMetadata, ShaderStage, SkinHeader, SubMeshEntry,
    TextureMetadata, Vertex,
};
pub use skin::{Joint, Skin, IDENTITY, WEIGHT_SUM_TOLERANCE};
pub use stream::{StreamReader, MAX_STREAM_METADATA};
pub use view::{
    cast_or_copy, prefab_component, scene_component, AudioView, FontTables, FontView, MeshExt,
    MeshView, PrefabComponent, PrefabEntity, PrefabView, SceneEntry, SceneSection, SceneView,
    ShaderView, TextureView, MAX_FONT_ATLAS_SIDE, MAX_FONT_GLYPHS, MAX_FONT_KERNING,
};
pub use write::{AssetWriter, ReaderPayload, SlicePayload};
