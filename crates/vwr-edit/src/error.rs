//! The one error type of the crate.

use vwr::VwrError;

/// Why an edit was refused. A refused edit leaves the world exactly as it was.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// The world layer refused an operation (outside the world, palette full, bad record…).
    #[error(transparent)]
    World(#[from] VwrError),
    /// A flood fill reached its cell limit; nothing was changed.
    #[error(
        "flood fill from ({}, {}, {}) stopped: the region has more than {limit} cells \
         (raise the limit or bound the fill with a box); nothing was changed",
        seed[0], seed[1], seed[2]
    )]
    FloodLimit {
        /// The seed cell.
        seed: [i32; 3],
        /// The cell limit that was reached.
        limit: u64,
    },
    /// A cell that must exist lies outside the world.
    #[error(
        "{what} at ({}, {}, {}) is outside the world (0..{} × 0..{} × 0..{})",
        pos[0], pos[1], pos[2], limit[0], limit[1], limit[2]
    )]
    OutsideWorld {
        /// What was asked for (e.g. "flood fill seed").
        what: &'static str,
        /// The cell.
        pos: [i32; 3],
        /// Exclusive upper bound on x, y and z (the world's size in blocks).
        limit: [u32; 3],
    },
    /// A box lies entirely outside the world.
    #[error(
        "box ({}, {}, {})..({}, {}, {}) lies outside the world",
        a[0], a[1], a[2], b[0], b[1], b[2]
    )]
    BoxOutsideWorld {
        /// First corner.
        a: [i32; 3],
        /// Second corner.
        b: [i32; 3],
    },
    /// A layer view larger than a view may be (its cells are held in memory).
    #[error(
        "layer y={y} is {width}×{depth} = {} cells, more than the {max} a layer view holds; \
         ask for a region of it",
        (*width as u64) * (*depth as u64)
    )]
    LayerTooLarge {
        /// The level.
        y: i32,
        /// Cells along x.
        width: u32,
        /// Cells along z.
        depth: u32,
        /// The most cells a view holds.
        max: u64,
    },
    /// The operation needs a record that is not there (e.g. removing a missing MoveObject).
    #[error("no {what} at ({}, {}, {})", pos[0], pos[1], pos[2])]
    NothingThere {
        /// Record kind.
        what: &'static str,
        /// The cell.
        pos: [i32; 3],
    },
    /// A region is too large to copy into a clipboard.
    #[error("region of {cells} cells is too large to copy (limit {limit})")]
    RegionTooLarge {
        /// Cells in the region.
        cells: u64,
        /// The limit.
        limit: u64,
    },
    /// A clipboard's contents are inconsistent (a hand-built clipboard with a wrong length).
    #[error("clipboard holds {found} blocks but its size {size:?} needs {expected}")]
    BadClipboard {
        /// Declared size.
        size: [u32; 3],
        /// Blocks the size needs.
        expected: u64,
        /// Blocks present.
        found: u64,
    },
}

/// Result alias.
pub type Result<T, E = EditError> = std::result::Result<T, E>;

/// A full palette reported without a place, placed in chunk `c`.
pub(crate) fn in_chunk(e: VwrError, c: [u32; 3]) -> VwrError {
    match e {
        VwrError::PaletteFull { pos: None } => VwrError::PaletteFull {
            pos: Some(c.map(|v| v as u16)),
        },
        e => e,
    }
}
