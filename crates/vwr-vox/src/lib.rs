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
//! in the file, else the registry block type of nearest colour; the palette of a `.vox` voxcaf
//! did not write is kept in the world as a metadata record ([`VOX_PALETTE_RECORD`]) and written
//! back by the export. On export each distinct block value (type and metadata) takes a palette
//! index coloured with its registry colour (beyond 255 values, the rarest take the nearest
//! colour), and the mapping, the world's chunk dimensions, sky region, mission number and spawn
//! are recorded as attributes of the root node; the exact value of every voxel (when values were
//! folded) and the world's metadata records go to an extra chunk, `VCAF`, that MagicaVoxel skips
//! (`docs/format/vox-voxcaf-chunk.md`), so `.vwr → .vox → .vwr` gives the same world back.
//! **Reported** ([`VoxWarning`]): folded values and records MagicaVoxel cannot show on export;
//! animation frames beyond the chosen one, hidden nodes and layers, models no shape places, and
//! non-diffuse materials on import. Cameras, render settings and notes are not read.

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
mod vcaf;
mod warning;

pub use error::{Result, VoxError};
pub use export::{distinct_block_values, export, ExportOptions, Exported, MAX_MODEL_SIZE};
pub use import::{import, ImportOptions, Imported, WorldSize};
pub use palette::PaletteMap;
pub use vcaf::VOX_PALETTE_RECORD;
pub use warning::VoxWarning;
