//! The edit-script language: one operation per line (or per command-line argument), driving
//! the [`Editor`] tools.
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
use std::time::{Duration, Instant};

use vwr::{Block, MoveObject, VwrError, World};

use crate::{
    Brush, BrushShape, Change, Clipboard, EditError, Editor, FloodLimits, Mirror, PasteOptions,
    Rotation,
};

// ---------------------------------------------------------------------------------------------
// Locations and errors

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

/// Why a BLOCK word could not be read (see [`parse_block`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BlockSyntaxError {
    /// Neither a number, a raw value, `air` nor a registry name.
    #[error(
        "unknown block {text:?} (use type[:meta] like 35 or 35:2, a raw value like 0x0230 or \
         raw:560, or a name like rockpile)"
    )]
    Unknown {
        /// The word as written.
        text: String,
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
        /// The refusal of [`Block::make`].
        #[source]
        source: VwrError,
    },
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
    fn new(at: Location, text: String, kind: ScriptErrorKind) -> ScriptError {
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

/// Why [`demo_pool`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DemoError {
    /// [`POOL_SCRIPT`] did not parse.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Parse(Vec<ScriptError>),
    /// An operation of [`POOL_SCRIPT`] was refused.
    #[error(transparent)]
    Apply(ScriptError),
    /// Undoing every command did not give back the original bytes.
    #[error("undo did not restore the original")]
    UndoMismatch,
    /// Redoing every command did not give back the edited bytes.
    #[error("redo did not reproduce the edit")]
    RedoMismatch,
}

// ---------------------------------------------------------------------------------------------
// Operations

/// One parsed operation. Coordinates are block cells; boxes are two inclusive corners.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Op {
    /// `box`: fill a box ([`Editor::fill_box`]).
    Box([i32; 3], [i32; 3], Block),
    /// `hollow`: a box's shell ([`Editor::hollow_box`]).
    Hollow([i32; 3], [i32; 3], Block),
    /// `walls`: a box's four side walls ([`Editor::walls`]).
    Walls([i32; 3], [i32; 3], Block),
    /// `fill`: flood fill ([`Editor::flood_fill`]).
    Fill {
        /// The seed cell.
        seed: [i32; 3],
        /// The new block.
        block: Block,
        /// A box the fill stays inside.
        bounds: Option<([i32; 3], [i32; 3])>,
        /// Cell limit; `None` uses the caller's default.
        limit: Option<u64>,
    },
    /// `brush`: a sphere or cube around a cell ([`Editor::brush`]).
    Brush(Brush, [i32; 3], Block),
    /// `replace`: every block A becomes B, optionally inside a box ([`Editor::replace`]).
    Replace(Block, Block, Option<([i32; 3], [i32; 3])>),
    /// `place` (or `set`): one block.
    Place([i32; 3], Block),
    /// `erase`: one cell becomes air.
    Erase([i32; 3]),
    /// `copy`: a box into the script's clipboard.
    Copy([i32; 3], [i32; 3]),
    /// `cut`: copy, then clear the box.
    Cut([i32; 3], [i32; 3]),
    /// `paste`: the clipboard at a cell.
    Paste([i32; 3], PasteOptions),
    /// `object add`.
    ObjectAdd(MoveObject),
    /// `object remove`: the MoveObject anchored at a cell.
    ObjectRemove([i32; 3]),
    /// `object move`: the MoveObject anchored at a cell to a new start position.
    ObjectMove([i32; 3], [f32; 3]),
    /// `decor`: a BigDecor with an icon.
    Decor([i32; 3], u16),
    /// `decor remove`.
    DecorRemove([i32; 3]),
    /// `plate`: plate rotation on or off.
    Plate([i32; 3], bool),
    /// `spawn`: the spawn cell, or none.
    Spawn(Option<[i32; 3]>),
    /// `sky`: the sky region.
    Sky(u32),
    /// `mission`: the mission number.
    Mission(u32),
    /// `undo`: the last command.
    Undo,
    /// `redo`: the last undone command.
    Redo,
}

/// A parsed operation with where it came from.
#[derive(Clone, Debug)]
pub struct Located {
    /// Where the operation came from.
    pub at: Location,
    /// The source text, without its comment.
    pub text: String,
    /// The operation.
    pub op: Op,
}

type P<T> = std::result::Result<T, ScriptErrorKind>;

fn parse_u16(s: &str) -> Option<u16> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u16::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Parses a BLOCK word: `type[:meta]` (`35`, `35:2`), `0xRAW`, `raw:N`, `air`, or a name of
/// the default [`vwr_blocks`] registry with optional `:meta` (`RockPile`, `brick_wall:3`).
///
/// ```
/// use vwr::Block;
/// use vwr_edit::script::parse_block;
///
/// assert_eq!(parse_block("brick_wall:3")?, Block::make(261, 3)?);
/// assert_eq!(parse_block("raw:560")?, Block::make(35, 0)?);
/// assert!(parse_block("35:16").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_block(s: &str) -> Result<Block, BlockSyntaxError> {
    let bad = || BlockSyntaxError::Unknown { text: s.into() };
    if let Some(r) = s.strip_prefix("raw:") {
        return parse_u16(r).map(Block::from_raw).ok_or_else(bad);
    }
    if s.starts_with("0x") || s.starts_with("0X") {
        return parse_u16(s).map(Block::from_raw).ok_or_else(bad);
    }
    let (head, meta) = match s.split_once(':') {
        Some((h, m)) => {
            let m: u8 = m.parse().map_err(|_| BlockSyntaxError::BadMetadata {
                meta: m.into(),
                text: s.into(),
            })?;
            (h, m)
        }
        None => (s, 0),
    };
    let key = vwr_blocks::normalize_name(head);
    let t = if let Ok(t) = key.parse::<u16>() {
        t
    } else if key == "air" && meta == 0 {
        return Ok(Block::AIR);
    } else if let Some(t) = vwr_blocks::default_registry().id_by_name(head) {
        t
    } else {
        return Err(bad());
    };
    Block::make(t, meta).map_err(|source| BlockSyntaxError::OutOfRange {
        text: s.into(),
        source,
    })
}

fn parse_object_type(s: &str) -> P<u8> {
    if let Ok(t) = s.parse::<u8>() {
        return Ok(t);
    }
    MoveObject::type_by_name(s).ok_or_else(|| ScriptErrorKind::UnknownObjectType { text: s.into() })
}

fn int(s: &str) -> P<i32> {
    s.parse()
        .map_err(|_| ScriptErrorKind::BadCoordinate { text: s.into() })
}

fn float(s: &str) -> P<f32> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(ScriptErrorKind::BadNumber { text: s.into() }),
    }
}

// Three words as a cell. Callers have checked the word count; a slice of another length
// still gets an error naming the words rather than a panic.
fn cell(a: &[&str]) -> P<[i32; 3]> {
    match a {
        [x, y, z] => Ok([int(x)?, int(y)?, int(z)?]),
        _ => Err(ScriptErrorKind::BadCoordinate { text: a.join(" ") }),
    }
}

fn fcell(a: &[&str]) -> P<[f32; 3]> {
    match a {
        [x, y, z] => Ok([float(x)?, float(y)?, float(z)?]),
        _ => Err(ScriptErrorKind::BadNumber { text: a.join(" ") }),
    }
}

fn need(args: &[&str], n: usize, usage: &'static str) -> P<()> {
    if args.len() == n {
        Ok(())
    } else {
        Err(ScriptErrorKind::ArgumentCount {
            usage,
            expected: n,
            got: args.len(),
        })
    }
}

fn bad_value(what: &'static str, text: &str, expected: &'static str) -> ScriptErrorKind {
    ScriptErrorKind::BadValue {
        what,
        text: text.into(),
        expected,
    }
}

/// Parses one operation: a line without its comment, trimmed.
///
/// ```
/// use vwr::Block;
/// use vwr_edit::script::{parse_op, Op};
///
/// assert_eq!(
///     parse_op("box 0 0 0 99 0 99 rockpile")?,
///     Op::Box([0, 0, 0], [99, 0, 99], Block::make(35, 0)?)
/// );
/// assert_eq!(
///     parse_op("teleport 1 2 3").unwrap_err().to_string(),
///     "unknown operation \"teleport\" (box, hollow, walls, fill, brush, replace, place, erase, \
///      copy, cut, paste, object, decor, plate, spawn, sky, mission, undo, redo)"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_op(line: &str) -> Result<Op, ScriptErrorKind> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((first, a)) = words.split_first() else {
        return Err(ScriptErrorKind::UnknownOperation {
            name: String::new(),
        });
    };
    let kw = first.to_ascii_lowercase();
    let box_op = |a: &[&str], usage: &'static str| -> P<([i32; 3], [i32; 3], Block)> {
        need(a, 7, usage)?;
        Ok((cell(&a[0..3])?, cell(&a[3..6])?, parse_block(a[6])?))
    };
    Ok(match kw.as_str() {
        "box" => {
            let (p, q, b) = box_op(a, "box x0 y0 z0 x1 y1 z1 BLOCK")?;
            Op::Box(p, q, b)
        }
        "hollow" => {
            let (p, q, b) = box_op(a, "hollow x0 y0 z0 x1 y1 z1 BLOCK")?;
            Op::Hollow(p, q, b)
        }
        "walls" => {
            let (p, q, b) = box_op(a, "walls x0 y0 z0 x1 y1 z1 BLOCK")?;
            Op::Walls(p, q, b)
        }
        "fill" => {
            let usage = "fill x y z BLOCK [x0 y0 z0 x1 y1 z1] [limit N]";
            let mut rest = a;
            let mut limit = None;
            if let [head @ .., word, n] = rest {
                if word.eq_ignore_ascii_case("limit") {
                    limit = Some(
                        n.parse::<u64>()
                            .map_err(|_| bad_value("limit", n, "a cell count"))?,
                    );
                    rest = head;
                }
            }
            match rest.len() {
                4 => Op::Fill {
                    seed: cell(&rest[0..3])?,
                    block: parse_block(rest[3])?,
                    bounds: None,
                    limit,
                },
                10 => Op::Fill {
                    seed: cell(&rest[0..3])?,
                    block: parse_block(rest[3])?,
                    bounds: Some((cell(&rest[4..7])?, cell(&rest[7..10])?)),
                    limit,
                },
                _ => return Err(ScriptErrorKind::Usage { usage }),
            }
        }
        "brush" => {
            need(a, 6, "brush sphere|cube x y z R BLOCK")?;
            let shape = match a[0].to_ascii_lowercase().as_str() {
                "sphere" | "ball" => BrushShape::Sphere,
                "cube" | "box" => BrushShape::Cube,
                s => {
                    return Err(ScriptErrorKind::UnknownWord {
                        what: "brush shape",
                        text: s.into(),
                        hint: "sphere or cube",
                    })
                }
            };
            let radius = a[4]
                .parse::<u32>()
                .map_err(|_| bad_value("radius", a[4], "a whole number >= 0"))?;
            Op::Brush(Brush { shape, radius }, cell(&a[1..4])?, parse_block(a[5])?)
        }
        "replace" => match a.len() {
            2 => Op::Replace(parse_block(a[0])?, parse_block(a[1])?, None),
            8 => Op::Replace(
                parse_block(a[0])?,
                parse_block(a[1])?,
                Some((cell(&a[2..5])?, cell(&a[5..8])?)),
            ),
            _ => {
                return Err(ScriptErrorKind::Usage {
                    usage: "replace A B [x0 y0 z0 x1 y1 z1]",
                })
            }
        },
        "place" | "set" => {
            need(a, 4, "place x y z BLOCK")?;
            Op::Place(cell(&a[0..3])?, parse_block(a[3])?)
        }
        "erase" => {
            need(a, 3, "erase x y z")?;
            Op::Erase(cell(a)?)
        }
        "copy" => {
            need(a, 6, "copy x0 y0 z0 x1 y1 z1")?;
            Op::Copy(cell(&a[0..3])?, cell(&a[3..6])?)
        }
        "cut" => {
            need(a, 6, "cut x0 y0 z0 x1 y1 z1")?;
            Op::Cut(cell(&a[0..3])?, cell(&a[3..6])?)
        }
        "paste" => parse_paste(a)?,
        "object" => parse_object(a)?,
        "decor" => {
            if a.first().is_some_and(|w| w.eq_ignore_ascii_case("remove")) {
                need(&a[1..], 3, "decor remove x y z")?;
                Op::DecorRemove(cell(&a[1..4])?)
            } else {
                need(a, 4, "decor x y z ICON")?;
                let icon = parse_u16(a[3])
                    .filter(|&i| i != 0)
                    .ok_or_else(|| bad_value("icon", a[3], "1..=65535"))?;
                Op::Decor(cell(&a[0..3])?, icon)
            }
        }
        "plate" => {
            need(a, 4, "plate x y z on|off")?;
            let on = match a[3].to_ascii_lowercase().as_str() {
                "on" | "1" | "true" | "rotated" => true,
                "off" | "0" | "false" => false,
                s => return Err(bad_value("plate rotation", s, "on or off")),
            };
            Op::Plate(cell(&a[0..3])?, on)
        }
        "spawn" => {
            if a.len() == 1 && a[0].eq_ignore_ascii_case("none") {
                Op::Spawn(None)
            } else {
                need(a, 3, "spawn x y z | spawn none")?;
                Op::Spawn(Some(cell(a)?))
            }
        }
        "sky" => {
            need(a, 1, "sky N")?;
            let n = a[0]
                .parse::<u32>()
                .map_err(|_| bad_value("sky value", a[0], "a whole number"))?;
            Op::Sky(n)
        }
        "mission" => {
            need(a, 1, "mission N")?;
            let n = a[0]
                .parse::<u32>()
                .map_err(|_| bad_value("mission value", a[0], "a whole number"))?;
            Op::Mission(n)
        }
        "undo" => {
            need(a, 0, "undo")?;
            Op::Undo
        }
        "redo" => {
            need(a, 0, "redo")?;
            Op::Redo
        }
        _ => return Err(ScriptErrorKind::UnknownOperation { name: kw }),
    })
}

fn parse_paste(a: &[&str]) -> P<Op> {
    let usage = "paste x y z [rot 90|180|270] [mirror x|z] [noair] [nometa]";
    if a.len() < 3 {
        return Err(ScriptErrorKind::Usage { usage });
    }
    let mut o = PasteOptions::default();
    let mut i = 3;
    while i < a.len() {
        match a[i].to_ascii_lowercase().as_str() {
            "rot" | "rotate" => {
                let d = a.get(i + 1).ok_or(ScriptErrorKind::MissingValue {
                    option: "rot",
                    needs: "90, 180 or 270",
                    usage,
                })?;
                o.rotation = d
                    .parse::<i32>()
                    .ok()
                    .and_then(Rotation::from_degrees)
                    .ok_or_else(|| bad_value("rotation", d, "0, 90, 180 or 270"))?;
                i += 2;
            }
            "mirror" => {
                let m = a.get(i + 1).ok_or(ScriptErrorKind::MissingValue {
                    option: "mirror",
                    needs: "x or z",
                    usage,
                })?;
                o.mirror = match m.to_ascii_lowercase().as_str() {
                    "x" => Mirror::X,
                    "z" => Mirror::Z,
                    _ => return Err(bad_value("mirror axis", m, "x or z")),
                };
                i += 2;
            }
            "noair" => {
                o.skip_air = true;
                i += 1;
            }
            "nometa" => {
                o.with_metadata = false;
                i += 1;
            }
            w => {
                return Err(ScriptErrorKind::UnknownWord {
                    what: "paste option",
                    text: w.into(),
                    hint: usage,
                })
            }
        }
    }
    Ok(Op::Paste(cell(&a[0..3])?, o))
}

fn parse_object(a: &[&str]) -> P<Op> {
    let sub = a
        .first()
        .map(|s| s.to_ascii_lowercase())
        .unwrap_or_default();
    let a = a.get(1..).unwrap_or(&[]);
    Ok(match sub.as_str() {
        "add" => {
            let usage = "object add TYPE x y z [end=X,Y,Z] [speed=S] [advance=T] [recede=T] \
                         [stop-start=T] [stop-end=T] [icon=N]";
            if a.len() < 4 {
                return Err(ScriptErrorKind::Usage { usage });
            }
            let mut m = MoveObject::new(parse_object_type(a[0])?, fcell(&a[1..4])?);
            for kv in &a[4..] {
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| ScriptErrorKind::NotKeyValue {
                        text: (*kv).into(),
                        usage,
                    })?;
                match vwr_blocks::normalize_name(k).as_str() {
                    "end" => {
                        let p: Vec<&str> = v.split(',').collect();
                        if p.len() != 3 {
                            return Err(ScriptErrorKind::BadEnd { text: v.into() });
                        }
                        m.pos_end = fcell(&p)?;
                    }
                    "speed" => m.speed = float(v)?,
                    "advance" => m.step_advance_ticks = float(v)?,
                    "recede" => m.step_recede_ticks = float(v)?,
                    "stopstart" => m.time_stop_start_ticks = float(v)?,
                    "stopend" => m.time_stop_end_ticks = float(v)?,
                    "icon" => {
                        m.visual_icon =
                            parse_u16(v).ok_or_else(|| bad_value("icon", v, "0..=65535"))?
                    }
                    _ => {
                        return Err(ScriptErrorKind::UnknownWord {
                            what: "object field",
                            text: k.into(),
                            hint: usage,
                        })
                    }
                }
            }
            Op::ObjectAdd(m)
        }
        "remove" => {
            need(a, 3, "object remove x y z")?;
            Op::ObjectRemove(cell(a)?)
        }
        "move" => {
            need(a, 6, "object move x y z NX NY NZ")?;
            Op::ObjectMove(cell(&a[0..3])?, fcell(&a[3..6])?)
        }
        _ => return Err(ScriptErrorKind::ObjectUsage),
    })
}

// ---------------------------------------------------------------------------------------------
// Scripts

/// The lines of a script text, each with its location `source_name:N` (1-based; blank and
/// comment lines keep their numbers).
pub fn script_lines(source_name: &str, text: &str) -> Vec<(Location, String)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            let at = Location::Line {
                source_name: source_name.into(),
                line: i + 1,
            };
            (at, l.to_string())
        })
        .collect()
}

/// Operations given as command-line arguments, one per argument, `;` separating several
/// inside one argument (located as `argument N` or `argument N.K`).
pub fn argument_lines<S: AsRef<str>>(args: &[S]) -> Vec<(Location, String)> {
    let mut out = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let parts: Vec<&str> = arg.as_ref().split(';').collect();
        for (k, p) in parts.iter().enumerate() {
            let at = Location::Argument {
                index: i + 1,
                part: (parts.len() > 1).then_some(k + 1),
            };
            out.push((at, p.to_string()));
        }
    }
    out
}

/// Parses a whole script. `#` starts a comment; blank lines are skipped. Returns every
/// malformed line, not just the first, including a `paste` with no `copy` or `cut` before it.
pub fn parse_script(
    lines: impl IntoIterator<Item = (Location, String)>,
) -> Result<Vec<Located>, Vec<ScriptError>> {
    let mut ops = Vec::new();
    let mut errors = Vec::new();
    let mut have_clip = false;
    for (at, raw) in lines {
        let text = raw.split('#').next().unwrap_or("").trim();
        if text.is_empty() {
            continue;
        }
        let error = |kind| ScriptError::new(at.clone(), text.to_string(), kind);
        match parse_op(text) {
            Ok(op) => {
                match op {
                    Op::Copy(..) | Op::Cut(..) => have_clip = true,
                    Op::Paste(..) if !have_clip => {
                        errors.push(error(ScriptErrorKind::PasteWithoutCopy));
                        continue;
                    }
                    _ => {}
                }
                ops.push(Located {
                    at,
                    text: text.to_string(),
                    op,
                });
            }
            Err(kind) => errors.push(error(kind)),
        }
    }
    if errors.is_empty() {
        Ok(ops)
    } else {
        Err(errors)
    }
}

/// [`parse_script`] over the lines of `text` (see [`script_lines`]).
pub fn parse_text(source_name: &str, text: &str) -> Result<Vec<Located>, Vec<ScriptError>> {
    parse_script(script_lines(source_name, text))
}

/// What kind of thing applying an operation did; the numbers are in [`Applied::change`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Effect {
    /// An editing command ran (its change may be empty).
    Edited,
    /// `copy` filled the clipboard; the world is unchanged.
    Copied {
        /// Width, height, depth of the copied region.
        size: [u32; 3],
        /// Metadata records copied with it.
        records: usize,
    },
    /// `undo` undid the command described by the change.
    Undone,
    /// `redo` redid the command described by the change.
    Redone,
}

/// What applying one operation did.
#[derive(Clone, Debug)]
pub struct Applied {
    /// Where the operation came from.
    pub at: Location,
    /// What changed (for undo/redo: the command undone/redone; for copy: nothing, labelled
    /// `copy`).
    pub change: Change,
    /// What kind of thing happened.
    pub effect: Effect,
}

/// Applies operations in order, each as one undoable command of `ed`, and reports what each
/// did. `fill_limit` is the cell limit of `fill` operations that give none.
///
/// Stops at the first refused operation, naming it; the operations before it stay applied to
/// `ed`, so a caller that wants all-or-nothing discards the editor (or the world) on error —
/// which is why scripts are applied in memory before anything is saved.
pub fn apply_ops(
    ed: &mut Editor,
    ops: &[Located],
    fill_limit: u64,
) -> Result<Vec<Applied>, ScriptError> {
    let mut clip: Option<Clipboard> = None;
    let mut out = Vec::new();
    for l in ops {
        let fail = |kind: ScriptErrorKind| ScriptError::new(l.at.clone(), l.text.clone(), kind);
        let mut effect = Effect::Edited;
        let change = match &l.op {
            Op::Box(a, b, blk) => ed.fill_box(*a, *b, *blk),
            Op::Hollow(a, b, blk) => ed.hollow_box(*a, *b, *blk),
            Op::Walls(a, b, blk) => ed.walls(*a, *b, *blk),
            Op::Fill {
                seed,
                block,
                bounds,
                limit,
            } => ed.flood_fill(
                *seed,
                *block,
                FloodLimits {
                    bounds: *bounds,
                    max_cells: limit.unwrap_or(fill_limit),
                },
            ),
            Op::Brush(br, c, blk) => ed.brush(*br, *c, *blk),
            Op::Replace(a, b, r) => ed.replace(*a, *b, *r),
            Op::Place(p, blk) => ed.place(*p, *blk),
            Op::Erase(p) => ed.erase(*p),
            Op::Copy(a, b) => ed.copy(*a, *b).map(|c| {
                effect = Effect::Copied {
                    size: c.size,
                    records: c.records.len(),
                };
                clip = Some(c);
                Change {
                    label: "copy".into(),
                    ..Change::default()
                }
            }),
            Op::Cut(a, b) => ed.cut(*a, *b).map(|(c, change)| {
                clip = Some(c);
                change
            }),
            Op::Paste(p, o) => match &clip {
                Some(c) => ed.paste(c, *p, *o),
                None => return Err(fail(ScriptErrorKind::PasteWithoutCopy)),
            },
            Op::ObjectAdd(m) => ed.place_move_object(m).map(|(_, c)| c),
            Op::ObjectRemove(p) => ed.remove_move_object(*p),
            Op::ObjectMove(p, to) => ed.move_move_object(*p, *to).map(|(_, c)| c),
            Op::Decor(p, i) => ed.place_big_decor(*p, *i),
            Op::DecorRemove(p) => ed.remove_big_decor(*p),
            Op::Plate(p, on) => ed.set_plate_rotation(*p, *on),
            Op::Spawn(s) => ed.set_spawn(*s),
            Op::Sky(n) => ed.set_sky_region(*n),
            Op::Mission(n) => ed.set_mission_number(*n),
            Op::Undo => {
                effect = Effect::Undone;
                Ok(ed
                    .undo()
                    .ok_or_else(|| fail(ScriptErrorKind::NothingToUndo))?)
            }
            Op::Redo => {
                effect = Effect::Redone;
                Ok(ed
                    .redo()
                    .ok_or_else(|| fail(ScriptErrorKind::NothingToRedo))?)
            }
        }
        .map_err(|e| fail(e.into()))?;
        out.push(Applied {
            at: l.at.clone(),
            change,
            effect,
        });
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// The pool demo

/// The example script of the README: a walled pool with a lava fountain, copied rotated next
/// to it. Run by [`demo_pool`], the `voxcaf demo` and `examples/pool.rs`.
pub const POOL_SCRIPT: &str = "\
# a walled pool with a lava fountain, copied rotated next to it
box 0 0 0 99 0 99 rockpile
walls 10 1 10 20 4 20 brickwall
fill 15 1 15 water 11 1 11 19 3 19
brush sphere 15 8 15 2 lava
object add exit 15 5 15
decor 12 1 12 66
copy 10 0 10 20 10 20
paste 30 0 10 rot 90
spawn 12 1 25
sky 3
";

/// What [`demo_pool`] did. Displays as one indented line per operation and a summary line.
#[derive(Clone, Debug)]
pub struct DemoReport {
    /// Each operation of [`POOL_SCRIPT`] and what it did.
    pub applied: Vec<Applied>,
    /// Commands on the undo history after the script.
    pub commands: usize,
    /// Bytes the undo history holds.
    pub history_bytes: usize,
    /// Time taken to apply the script.
    pub elapsed: Duration,
}

impl fmt::Display for DemoReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for a in &self.applied {
            writeln!(f, "  {}", a.change)?;
        }
        writeln!(
            f,
            "  {} commands in {:.2} ms; history holds {} bytes; undo of all restores the \
             original bytes exactly, redo reproduces the edit",
            self.commands,
            self.elapsed.as_secs_f64() * 1e3,
            self.history_bytes
        )
    }
}

/// Runs [`POOL_SCRIPT`] on `world`, checks that undoing every command restores the original
/// bytes exactly and that redoing them reproduces the edit, and returns the edited world with
/// a report.
pub fn demo_pool(world: World) -> Result<(World, DemoReport), DemoError> {
    let ops = parse_text("demo", POOL_SCRIPT).map_err(DemoError::Parse)?;
    let original = world.to_bytes();
    let mut ed = Editor::new(world);
    let start = Instant::now();
    let applied = apply_ops(&mut ed, &ops, 1_000_000).map_err(DemoError::Apply)?;
    let elapsed = start.elapsed();
    let edited = ed.world().to_bytes();
    let commands = ed.history().undo_depth();
    let history_bytes = ed.history().memory_bytes();
    while ed.undo().is_some() {}
    if ed.world().to_bytes() != original {
        return Err(DemoError::UndoMismatch);
    }
    while ed.redo().is_some() {}
    if ed.world().to_bytes() != edited {
        return Err(DemoError::RedoMismatch);
    }
    let report = DemoReport {
        applied,
        commands,
        history_bytes,
        elapsed,
    };
    Ok((ed.into_world(), report))
}
