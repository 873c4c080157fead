//! # vwr-edit — editing tools, exact undo/redo and editor views for `.vwr` worlds
//!
//! An [`Editor`] owns a [`vwr::World`] and a [`History`]. Every tool call — place, erase, box
//! fill, hollow box, walls, brush, flood fill, replace, cut, paste, and the metadata edits
//! (MoveObjects, BigDecor, plate rotation, sky region, mission number, spawn) — is one command
//! that undo and redo restore *exactly*: blocks, palettes, packed bits, metadata records and
//! world fields, so a world saved after undoing everything is byte-identical to the original.
//! All edits go through the `vwr` world API; the editor never touches packed bits itself.
//!
//! ```
//! use vwr::{Block, MoveObject, World};
//! use vwr_edit::{Brush, BrushShape, Editor, FloodLimits, PasteOptions, Rotation};
//!
//! let original = World::new();
//! let mut ed = Editor::new(original.clone());
//! let stone = Block::make(35, 0)?;
//! let brick = Block::make(261, 0)?;
//!
//! ed.fill_box([0, 0, 0], [99, 0, 99], stone)?; // a floor: 100 uniform chunks, no cell loop
//! ed.walls([10, 1, 10], [20, 4, 20], brick)?;
//! ed.brush(Brush { shape: BrushShape::Sphere, radius: 3 }, [50, 5, 50], stone)?;
//! // Water inside the walls: the fill is bounded by a box (the room has no ceiling).
//! let limits = FloodLimits { bounds: Some(([10, 1, 10], [20, 4, 20])), ..Default::default() };
//! let change = ed.flood_fill([15, 1, 15], Block::make(92, 0)?, limits)?;
//! assert_eq!(change.cells, 9 * 4 * 9);
//! let (anchor, _) = ed.place_move_object(&MoveObject::new(7, [15.0, 1.0, 15.0]))?;
//! assert_eq!(anchor, [15, 1, 15]);
//!
//! let clip = ed.copy([10, 1, 10], [20, 4, 20])?;
//! ed.paste(&clip, [60, 1, 10], PasteOptions { rotation: Rotation::R90, ..Default::default() })?;
//! assert_eq!(ed.world().move_objects()?.len(), 2);
//!
//! while ed.undo().is_some() {}
//! assert_eq!(ed.world().to_bytes(), original.to_bytes());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Headline figures (100³ world, release build, one run of `cargo bench -p vwr-edit` on a shared
//! 2-core machine, medians): a whole-world box fill takes about 0.14 ms, ~190× faster than the same
//! fill done one `set_block` at a time (27 ms), and its undo record holds 64 KB; an unaligned
//! 37×23×41 box fill 0.2 ms, a sphere brush of radius 8 0.08 ms, a flood fill of 50 000 cells
//! 6 ms; undoing any of them takes 1–60 µs.
//!
//! Edit scripts: [`script`] parses the line-based edit language (`box 0 0 0 99 0 99 rockpile`,
//! `paste 30 0 10 rot 90`, …; block names from the `vwr-blocks` registry) and applies it
//! through an [`Editor`], reporting each operation; [`script::demo_pool`] runs the README's
//! example script with an exact-undo check.
//!
//! Views for editors: [`Layer`] (one Y level as a grid, with a terminal rendering) and
//! [`ChunkStats`] (per-chunk storage statistics for a chunk debug view).

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used)]

mod clipboard;
mod editor;
mod error;
mod flood;
mod history;
pub mod oplog;
pub mod script;
mod view;

pub use clipboard::{
    inverse_cell, transform_cell, ClipRecord, Clipboard, Mirror, PasteOptions, Rotation,
    MAX_CLIPBOARD_CELLS,
};
pub use editor::{block_label, Brush, BrushShape, Editor, MAX_BRUSH_RADIUS};
pub use error::{EditError, Result};
pub use flood::FloodLimits;
pub use history::{Change, History, HistoryLimits, Tx, WorldFields};
pub use view::{
    all_chunk_stats, chunk_stats, render_chunk_stats, ChunkStats, Layer, RenderOptions,
};
