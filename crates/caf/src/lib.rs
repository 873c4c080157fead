//! The Caffeine Asset Format (`.caf`): a 32-byte header, metadata, payload and a footer CRC,
//! read with one read (or a memory map) and zero copies, and verified by hashing each byte
//! once.
//!
//! ```
//! use caf::texture::{TextureMetadata, TextureView};
//! use caf::{Asset, AssetType, AssetWriter, CafFlags};
//!
//! let meta = TextureMetadata::rgba8(2, 2, 1);
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
//! The root holds the container every asset shares. Each asset type has its module with its
//! metadata layout, its typed view and its encoder where it has one: [`texture`] (with the
//! texture formats), [`audio`], [`mesh`] (with skins and [`mesh::encode_mesh`], the inverse of
//! [`mesh::MeshView`]), [`shader`], [`scene`], [`prefab`], [`font`] and [`animation`].
//! Compressed and encrypted payloads, and streaming, are in [`encoded`]; many assets in one
//! file in [`pack`]. Reports on files, damaged ones included, come from [`describe`]
//! ([`Description`], [`Verdict`]); its JSON form needs the `json` cargo feature.
//!
//! The byte-level contract is CAF.md of the voxcaf project; files are interchangeable with the
//! original Caffeine engine, except that crafted headers whose size sum overflows are refused.

#![warn(missing_docs)]
#![deny(unsafe_code)]
#![deny(clippy::unwrap_used)]

mod container;
pub mod describe;
pub mod encoded;
mod error;
pub mod pack;

pub mod animation;
pub mod audio;
pub mod font;
pub mod mesh;
pub mod prefab;
pub mod scene;
pub mod shader;
pub mod texture;

pub use container::crc::{crc32, crc32_combine, crc32_continue};
pub use container::header::{
    AssetType, CafFlags, CafHeader, FOOTER_SIZE, HEADER_SIZE, MAGIC, MAX_PAYLOAD_ALIGNMENT,
    MIN_FILE_SIZE, VERSION_MAJOR, VERSION_MINOR,
};
pub use container::load::{
    validate_header, validate_header_bytes, verify_file, Asset, CrcCheck, LoadMode, LoadedAsset,
    MAP_THRESHOLD, PARALLEL_VERIFY_MIN,
};
pub use container::metadata::strip_alignment_padding;
pub use container::view::cast_or_copy;
pub use container::write::{AssetWriter, ReaderPayload, SlicePayload};
pub use describe::{Description, Verdict};
pub use error::{CafError, ErrorKind};
