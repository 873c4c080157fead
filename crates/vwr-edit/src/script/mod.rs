//! The edit-script language: one operation per line (or per command-line argument), driving
//! the [`Editor`](crate::Editor) tools.
//!
//! ```text
//! box x0 y0 z0 x1 y1 z1 BLOCK      hollow ... BLOCK      walls ... BLOCK
//! fill x y z BLOCK [x0 y0 z0 x1 y1 z1] [limit N]      (flood fill, 6-connected)
//! brush sphere|cube x y z R BLOCK
//! replace A B [x0 y0 z0 x1 y1 z1]
//! place x y z BLOCK                erase x y z
//! copy x0 y0 z0 x1 y1 z1           cut x0 y0 z0 x1 y1 z1
//! paste x y z [rot 90|180|270] [mirror x|z] [noair] [nometa]
//! object add TYPE x y z [end=X,Y,Z] [speed=S] [advance=T] [recede=T]
//!                       [stop-start=T] [stop-end=T] [icon=N]
//! object remove x y z              object move x y z NX NY NZ
//! decor x y z ICON                 decor remove x y z
//! plate x y z on|off               spawn x y z | spawn none
//! sky N    mission N    undo    redo
//! ```
//!
//! `#` starts a comment; coordinates are block cells; boxes are inclusive and clamped to the
//! world. BLOCK is `type[:meta]` (`35`, `35:2`), a raw value (`0x0230`, `raw:560`), `air`, or
//! a block name of the [`vwr_blocks`] registry (`RockPile`, `brick_wall`, `tile999`, …),
//! optionally with `:meta` (see [`parse_block`]). MoveObject types are numbers or the names of
//! [`vwr::MOVE_OBJECT_NAMES`].
//!
//! A script is parsed completely before anything is applied ([`parse_script`] reports every
//! malformed line, not just the first), and applied in memory ([`apply_ops`]), so a caller can
//! write the result only when every operation succeeded.
//!
//! ```
//! use vwr::World;
//! use vwr_edit::script::{apply_ops, parse_text, Effect};
//! use vwr_edit::Editor;
//!
//! let ops = parse_text("example", "box 0 0 0 9 0 9 rockpile\nplace 1 1 1 water\nundo\n")
//!     .map_err(|errors| errors[0].to_string())?;
//! let mut ed = Editor::new(World::new());
//! let applied = apply_ops(&mut ed, &ops, 1_000_000)?;
//! assert_eq!(applied[0].change.cells, 100);
//! assert_eq!(applied[2].effect, Effect::Undone);
//! assert_eq!(applied[2].at.to_string(), "example:3");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

mod apply;
mod demo;
mod error;
mod footprint;
mod parse;
mod store;

pub use apply::{apply_ops, Applied, Effect};
pub use demo::{demo_pool, DemoReport, POOL_SCRIPT};
pub use error::{BlockSyntaxError, DemoError, ScriptError, ScriptErrorKind};
pub use footprint::{footprint, Footprint, EDIT_BYTES_PER_CHUNK};
pub use parse::{
    argument_lines, parse_block, parse_op, parse_script, parse_text, script_lines, Located, Op,
};
pub use store::{edit_store, StoreEdit, StoreEditError, MAX_ATTEMPTS};

/// Where an operation came from, for messages and reports.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Location {
    /// A line of a script. Displays as `source_name:line`.
    Line {
        /// The script's name: a path, `stdin`, `demo`.
        source_name: String,
        /// 1-based line number.
        line: usize,
    },
    /// A command-line argument. Displays as `argument 2`, or `argument 2.1` for the first
    /// `;`-separated part of an argument holding several.
    Argument {
        /// 1-based argument number.
        index: usize,
        /// 1-based part number when the argument holds several operations.
        part: Option<usize>,
    },
}

impl Location {
    /// The 1-based script line, if the operation came from a script.
    pub fn line(&self) -> Option<usize> {
        match self {
            Location::Line { line, .. } => Some(*line),
            Location::Argument { .. } => None,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line { source_name, line } => write!(f, "{source_name}:{line}"),
            Location::Argument { index, part: None } => write!(f, "argument {index}"),
            Location::Argument {
                index,
                part: Some(p),
            } => write!(f, "argument {index}.{p}"),
        }
    }
}
