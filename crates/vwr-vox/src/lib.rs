//! # vwr-vox — MagicaVoxel `.vox` in and out of `.vwr` worlds
//!
//! [`import`] places every model of a `.vox` scene graph (nTRN/nGRP/nSHP with translations
//! and 90° rotations; a shared group or shape, MagicaVoxel's instances, at each transform that
//! names it) in one world; [`export`] writes a world's blocks as a `.vox` scene (worlds
//! larger than 256 on an axis as several models with translations). Reading and writing the
//! file itself is done by the field's crate, [`dot_vox`].
//!
//! ```
//! use vwr::{Block, World};
//!
//! let mut world = World::with_chunks_per_axis(2)?;
//! world.fill_box([0, 0, 0], [9, 0, 9], Block::make(35, 0)?)?; // a floor
//! world.set_block([4, 1, 4], Block::make(261, 3)?)?; // a brick, metadata 3
//!
//! let out = vwr_vox::export(&world, &vwr_vox::ExportOptions::default())?;
//! let back = vwr_vox::import(&out.bytes, &vwr_vox::ImportOptions::default())?;
//! assert_eq!(back.world.get_block([4, 1, 4]), Block::make(261, 3)?); // lossless
//! assert_eq!(back.world.count_non_air(), 101);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Axes.** MagicaVoxel is Z-up, worlds are Y-up: `.vox` `(x, y, z)` is block `(x, z, -y)`
//! (both right-handed), moved so that the scene's lowest corner lands on the chosen origin.
//!
//! **What is carried over.** Blocks, through a palette mapping: on import a
//! [`PaletteMap`] (the CLI's `--palette FILE.toml`), else the mapping a voxcaf export recorded
//! in the file, else the registry block type of nearest colour; on export each distinct block
//! value (type and metadata, at most 255) takes a palette index coloured with its registry
//! colour, and the mapping, the world's chunk dimensions, sky region, mission number and
//! spawn are recorded as attributes of the root node, so `.vwr → .vox → .vwr` gives the same
//! blocks and fields back. **Reported as lossy** ([`VoxWarning`]): metadata records
//! (MoveObjects, plate rotations, BigDecor, unknown types) on export; animation frames beyond
//! the first, hidden nodes and layers, models no shape places, and non-diffuse materials on
//! import. Cameras, render settings and notes are not read.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used)]

mod chunks;
mod error;
mod export;
mod import;
mod palette;
mod record;
mod scene;
mod warning;

pub use error::{Result, VoxError};
pub use export::{distinct_block_values, export, ExportOptions, Exported, MAX_MODEL_SIZE};
pub use import::{import, ImportOptions, Imported, WorldSize};
pub use palette::PaletteMap;
pub use warning::VoxWarning;
