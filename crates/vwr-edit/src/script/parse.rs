//! Reading operations: BLOCK words, one operation, whole scripts with every error located.

use vwr::{Block, MoveObject};

use super::{BlockSyntaxError, Location, ScriptError, ScriptErrorKind};
use crate::{Brush, BrushShape, Mirror, PasteOptions, Rotation};

/// One parsed operation. Coordinates are block cells; boxes are two inclusive corners.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Op {
    /// `box`: fill a box ([`Editor::fill_box`](crate::Editor::fill_box)).
    Box([i32; 3], [i32; 3], Block),
    /// `hollow`: a box's shell ([`Editor::hollow_box`](crate::Editor::hollow_box)).
    Hollow([i32; 3], [i32; 3], Block),
    /// `walls`: a box's four side walls ([`Editor::walls`](crate::Editor::walls)).
    Walls([i32; 3], [i32; 3], Block),
    /// `fill`: flood fill ([`Editor::flood_fill`](crate::Editor::flood_fill)).
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
    /// `brush`: a sphere or cube around a cell ([`Editor::brush`](crate::Editor::brush)).
    Brush(Brush, [i32; 3], Block),
    /// `replace`: every block A becomes B, optionally inside a box ([`Editor::replace`](crate::Editor::replace)).
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
    let bad = || BlockSyntaxError::Unknown {
        text: s.into(),
        suggestion: None,
    };
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
        return Err(BlockSyntaxError::Unknown {
            text: s.into(),
            suggestion: vwr_blocks::default_registry().suggest_name(head),
        });
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

/// The arguments `x y z` of a command (`usage` in the error for another count).
fn one_cell(a: &[&str], usage: &'static str) -> P<[i32; 3]> {
    need(a, 3, usage)?;
    cell(a)
}

/// The arguments `x0 y0 z0 x1 y1 z1` of a command (`usage` in the error for another count).
fn two_cells(a: &[&str], usage: &'static str) -> P<([i32; 3], [i32; 3])> {
    need(a, 6, usage)?;
    Ok((cell(&a[0..3])?, cell(&a[3..6])?))
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

/// The largest sky region the game has (`sky N`, like `voxcaf world new --sky`).
pub const MAX_SKY_REGION: u32 = 31;

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
        "fill" => parse_fill(a)?,
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
        "erase" => Op::Erase(one_cell(a, "erase x y z")?),
        "copy" => {
            let (p, q) = two_cells(a, "copy x0 y0 z0 x1 y1 z1")?;
            Op::Copy(p, q)
        }
        "cut" => {
            let (p, q) = two_cells(a, "cut x0 y0 z0 x1 y1 z1")?;
            Op::Cut(p, q)
        }
        "paste" => parse_paste(a)?,
        "object" => parse_object(a)?,
        "decor" => {
            if a.first().is_some_and(|w| w.eq_ignore_ascii_case("remove")) {
                Op::DecorRemove(one_cell(&a[1..], "decor remove x y z")?)
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
                Op::Spawn(Some(one_cell(a, "spawn x y z | spawn none")?))
            }
        }
        "sky" => {
            need(a, 1, "sky N")?;
            // The same range `voxcaf world new --sky` takes: the regions the game has.
            let n = a[0]
                .parse::<u32>()
                .ok()
                .filter(|n| *n <= MAX_SKY_REGION)
                .ok_or_else(|| bad_value("sky value", a[0], "a sky region 0-31"))?;
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

fn parse_fill(a: &[&str]) -> P<Op> {
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
    Ok(match rest.len() {
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
        "remove" => Op::ObjectRemove(one_cell(a, "object remove x y z")?),
        "move" => {
            need(a, 6, "object move x y z NX NY NZ")?;
            Op::ObjectMove(cell(&a[0..3])?, fcell(&a[3..6])?)
        }
        _ => return Err(ScriptErrorKind::ObjectUsage),
    })
}

/// The lines of a script text, each with its location `source_name:N` (1-based; blank and
/// comment lines keep their numbers).
pub fn script_lines(source_name: &str, text: &str) -> Vec<(Location, String)> {
    // Editors on some systems start UTF-8 files with a byte-order mark; it is not an operation.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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
