//! Where an operation is, and what can be wrong with it.

use vwr::VwrError;

use super::Location;
use crate::EditError;

/// Why a BLOCK word could not be read (see [`parse_block`](super::parse_block)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BlockSyntaxError {
    /// Neither a number, a raw value, `air` nor a registry name.
    #[error(
        "unknown block {text:?}{} (use type[:meta] like 35 or 35:2, a raw value like 0x0230 or \
         raw:560, or a name like rockpile)",
        did_you_mean(.suggestion)
    )]
    Unknown {
        /// The word as written.
        text: String,
        /// The registry's nearest name, when one is close
        /// ([`Registry::suggest_name`](vwr_blocks::Registry::suggest_name)).
        suggestion: Option<String>,
    },
    /// The part after `:` is not a number.
    #[error("bad metadata {meta:?} in block {text:?} (0..=15)")]
    BadMetadata {
        /// The metadata part.
        meta: String,
        /// The whole word.
        text: String,
    },
    /// Type or metadata out of range.
    #[error("block {text:?}: {source}")]
    OutOfRange {
        /// The word as written.
        text: String,
        /// The refusal of [`Block::make`](vwr::Block::make).
        #[source]
        source: VwrError,
    },
}

/// ", did you mean NAME?" for a suggestion, or nothing.
fn did_you_mean(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map(|name| format!("; did you mean {name}?"))
        .unwrap_or_default()
}

/// What is wrong with one operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScriptErrorKind {
    /// The first word is no operation.
    #[error(
        "unknown operation {name:?} (box, hollow, walls, fill, brush, replace, place, erase, \
         copy, cut, paste, object, decor, plate, spawn, sky, mission, undo, redo)"
    )]
    UnknownOperation {
        /// The word, lower-cased.
        name: String,
    },
    /// An operation with a fixed number of values got another number.
    #[error("expected `{usage}` ({expected} values after the keyword, got {got})")]
    ArgumentCount {
        /// How the operation is written.
        usage: &'static str,
        /// Values it needs after the keyword.
        expected: usize,
        /// Values it got.
        got: usize,
    },
    /// An operation with optional parts does not match its usage.
    #[error("expected `{usage}`")]
    Usage {
        /// How the operation is written.
        usage: &'static str,
    },
    /// `object` without `add`, `remove` or `move`.
    #[error("expected `object add ...`, `object remove x y z` or `object move x y z NX NY NZ`")]
    ObjectUsage,
    /// A coordinate is not an integer.
    #[error("expected an integer coordinate, got {text:?}")]
    BadCoordinate {
        /// The word as written.
        text: String,
    },
    /// A position or timing value is not a finite number.
    #[error("expected a finite number, got {text:?}")]
    BadNumber {
        /// The word as written.
        text: String,
    },
    /// A value is out of its range or not of its form (limit, radius, rotation, mirror axis,
    /// icon, plate rotation, sky or mission value).
    #[error("bad {what} {text:?} ({expected})")]
    BadValue {
        /// What the value is (`radius`, `icon`, `sky value`, …).
        what: &'static str,
        /// The value as written.
        text: String,
        /// What is allowed.
        expected: &'static str,
    },
    /// An option word is missing its value (`rot` without degrees, `mirror` without axis).
    #[error("`{option}` needs {needs} ({usage})")]
    MissingValue {
        /// The option.
        option: &'static str,
        /// What it needs.
        needs: &'static str,
        /// How the operation is written.
        usage: &'static str,
    },
    /// A word that must be one of a few keywords is none of them (brush shape, paste option,
    /// object field).
    #[error("unknown {what} {text:?} ({hint})")]
    UnknownWord {
        /// What the word is (`brush shape`, `paste option`, `object field`).
        what: &'static str,
        /// The word as written.
        text: String,
        /// What is allowed.
        hint: &'static str,
    },
    /// An `object add` field is not `key=value`.
    #[error("expected key=value, got {text:?} ({usage})")]
    NotKeyValue {
        /// The word as written.
        text: String,
        /// How the operation is written.
        usage: &'static str,
    },
    /// `end=` is not three comma-separated numbers.
    #[error("end needs X,Y,Z, got {text:?}")]
    BadEnd {
        /// The value as written.
        text: String,
    },
    /// A MoveObject type that is neither a number 0-255 nor a known name.
    #[error(
        "unknown object type {text:?} (a number 0-255 or one of: {})",
        object_type_names()
    )]
    UnknownObjectType {
        /// The word as written.
        text: String,
    },
    /// A BLOCK word could not be read.
    #[error(transparent)]
    Block(#[from] BlockSyntaxError),
    /// `paste` before any `copy` or `cut`.
    #[error("paste without a copy or cut before it")]
    PasteWithoutCopy,
    /// `undo` with an empty undo history.
    #[error("nothing to undo")]
    NothingToUndo,
    /// `redo` with nothing undone.
    #[error("nothing to redo")]
    NothingToRedo,
    /// The editor refused the operation when it was applied.
    #[error(transparent)]
    Edit(#[from] EditError),
}

fn object_type_names() -> String {
    vwr::MOVE_OBJECT_NAMES
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A malformed or refused operation: where it is, its text and what is wrong. Displays as
/// `script.txt:3: `text`: what is wrong`.
#[derive(Debug, thiserror::Error)]
#[error("{at}: `{text}`: {kind}")]
#[non_exhaustive]
pub struct ScriptError {
    /// Where the operation came from.
    pub at: Location,
    /// The operation's text (without its comment).
    pub text: String,
    // Boxed so that results carrying a `ScriptError` stay small (the editor's errors are
    // large); read it with `kind()`.
    #[source]
    kind: Box<ScriptErrorKind>,
}

impl ScriptError {
    pub(super) fn new(at: Location, text: String, kind: ScriptErrorKind) -> ScriptError {
        ScriptError {
            at,
            text,
            kind: Box::new(kind),
        }
    }

    /// What is wrong.
    pub fn kind(&self) -> &ScriptErrorKind {
        &self.kind
    }

    /// The 1-based script line, if the operation came from a script.
    pub fn line(&self) -> Option<usize> {
        self.at.line()
    }
}

/// Why [`demo_pool`](super::demo_pool) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DemoError {
    /// [`POOL_SCRIPT`](super::POOL_SCRIPT) did not parse.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Parse(Vec<ScriptError>),
    /// An operation of [`POOL_SCRIPT`](super::POOL_SCRIPT) was refused.
    #[error(transparent)]
    Apply(ScriptError),
    /// Undoing every command did not give back the original bytes.
    #[error("undo did not restore the original")]
    UndoMismatch,
    /// Redoing every command did not give back the edited bytes.
    #[error("redo did not reproduce the edit")]
    RedoMismatch,
}
