//! `voxcaf world edit|layer`: scripted editing with the `vwr-edit` tools, and the layer view.
//!
//! A script is parsed completely before anything is applied, and applied completely in memory
//! before anything is written: a malformed line, or an operation the world refuses, leaves the
//! file on disk untouched.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use serde_json::json;
use vwr::{Block, MoveObject, World};
use vwr_edit::{
    all_chunk_stats, render_chunk_stats, Brush, BrushShape, Change, Clipboard, Editor, FloodLimits,
    Layer, Mirror, PasteOptions, RenderOptions, Rotation,
};

#[derive(Subcommand)]
pub enum EditCmd {
    /// Apply edit operations to a world: box fills, flood fills, brushes, replace, copy/paste,
    /// objects, decor, spawn, sky, mission, undo/redo. See the operation list below.
    ///
    /// Operations (one per script line or per argument; `#` starts a comment; coordinates are
    /// block cells, boxes are inclusive and clamped to the world):
    ///
    ///   box x0 y0 z0 x1 y1 z1 BLOCK      hollow ... BLOCK      walls ... BLOCK
    ///   fill x y z BLOCK [x0 y0 z0 x1 y1 z1] [limit N]      (flood fill, 6-connected)
    ///   brush sphere|cube x y z R BLOCK
    ///   replace A B [x0 y0 z0 x1 y1 z1]
    ///   place x y z BLOCK                erase x y z
    ///   copy x0 y0 z0 x1 y1 z1           cut x0 y0 z0 x1 y1 z1
    ///   paste x y z [rot 90|180|270] [mirror x|z] [noair] [nometa]
    ///   object add TYPE x y z [end=X,Y,Z] [speed=S] [advance=T] [recede=T]
    ///                         [stop-start=T] [stop-end=T] [icon=N]
    ///   object remove x y z              object move x y z NX NY NZ
    ///   decor x y z ICON                 decor remove x y z
    ///   plate x y z on|off               spawn x y z | spawn none
    ///   sky N    mission N    undo    redo
    ///
    /// BLOCK is `type[:meta]` (`35`, `35:2`), a raw value (`0x0230`, `raw:560`), `air`, or a
    /// block registry name (RockPile, BrickWall, Water, Lava, Grate, Grass, Stone, Glass,
    /// tileN, ...; case, `_` and `-` ignored), optionally with `:meta`.
    #[command(verbatim_doc_comment)]
    Edit(EditArgs),
    /// Print one Y level of a world as a text grid (rows = Z, columns = X).
    Layer(LayerArgs),
}

#[derive(Args)]
pub struct EditArgs {
    /// The .vwr file to edit (saved in place, keeping FILE.bak, unless -o is given).
    pub file: PathBuf,
    /// Read operations from this script (one per line; `-` reads standard input).
    #[arg(long, short = 's', conflicts_with = "ops")]
    pub script: Option<PathBuf>,
    /// Operations, one per argument (quote each one: "box 0 0 0 99 0 99 rockpile"); `;`
    /// separates several operations inside one argument.
    pub ops: Vec<String>,
    /// Write the edited world here; FILE itself is left untouched.
    #[arg(short = 'o', long = "out")]
    pub out: Option<PathBuf>,
    /// Apply and report, but write nothing.
    #[arg(short = 'n', long)]
    pub dry_run: bool,
    /// Default cell limit of `fill` (flood fill) operations.
    #[arg(long, default_value_t = 1_000_000)]
    pub fill_limit: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct LayerArgs {
    /// The .vwr file.
    pub file: PathBuf,
    /// The Y level.
    #[arg(allow_negative_numbers = true)]
    pub y: i32,
    /// Only the rectangle between two (x, z) corners: X0,Z0,X1,Z1.
    #[arg(long, value_parser = parse_rect, allow_hyphen_values = true)]
    pub region: Option<[i32; 4]>,
    /// Draw chunk borders.
    #[arg(long)]
    pub grid: bool,
    /// Hide the MoveObject (@), BigDecor (*) and spawn (+) markers.
    #[arg(long)]
    pub no_markers: bool,
    /// Also print statistics of the chunks this level crosses.
    #[arg(long)]
    pub chunks: bool,
    /// Print one JSON object (raw block values row by row) instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: EditCmd) -> Result<u8> {
    match cmd {
        EditCmd::Edit(a) => edit(&a),
        EditCmd::Layer(a) => layer(&a),
    }
}

// ---------------------------------------------------------------------------------------------
// Block and object names

/// The shared block registry (Galaxy Eggbert's named types; others are `tileN`).
fn registry() -> &'static vwr_blocks::Registry {
    vwr_blocks::default_registry()
}

fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The registry name of a block type, unless it is only the generic `tileN`.
fn block_name(t: u16) -> Option<&'static str> {
    let n = registry().name(t);
    (!n.starts_with("tile")).then_some(n)
}

fn parse_u16(s: &str) -> Option<u16> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u16::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Parses BLOCK: `type[:meta]`, `0xRAW`, `raw:N`, `air`, or `name[:meta]`.
pub fn parse_block(s: &str) -> std::result::Result<Block, String> {
    let bad = || {
        format!(
            "unknown block {s:?} (use type[:meta] like 35 or 35:2, a raw value like 0x0230 or \
             raw:560, or a name like rockpile)"
        )
    };
    if let Some(r) = s.strip_prefix("raw:") {
        return parse_u16(r).map(Block::from_raw).ok_or_else(bad);
    }
    if s.starts_with("0x") || s.starts_with("0X") {
        return parse_u16(s).map(Block::from_raw).ok_or_else(bad);
    }
    let (head, meta) = match s.split_once(':') {
        Some((h, m)) => {
            let m: u8 = m
                .parse()
                .map_err(|_| format!("bad metadata {m:?} in block {s:?} (0..=15)"))?;
            (h, m)
        }
        None => (s, 0),
    };
    let key = normalize(head);
    let t = if let Ok(t) = key.parse::<u16>() {
        t
    } else if key == "air" && meta == 0 {
        return Ok(Block::AIR);
    } else if let Some(t) = registry().id_by_name(head) {
        t
    } else {
        return Err(bad());
    };
    Block::make(t, meta).map_err(|e| format!("block {s:?}: {e}"))
}

fn parse_object_type(s: &str) -> std::result::Result<u8, String> {
    if let Ok(t) = s.parse::<u8>() {
        return Ok(t);
    }
    MoveObject::type_by_name(s).ok_or_else(|| {
        format!(
            "unknown object type {s:?} (a number 0-255 or one of: {})",
            vwr::MOVE_OBJECT_NAMES
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

fn parse_rect(s: &str) -> std::result::Result<[i32; 4], String> {
    let v: Vec<i32> = s
        .split(',')
        .map(|p| p.trim().parse::<i32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| format!("expected X0,Z0,X1,Z1 (four integers), got {s:?}"))?;
    <[i32; 4]>::try_from(v).map_err(|_| format!("expected X0,Z0,X1,Z1 (four integers), got {s:?}"))
}

// ---------------------------------------------------------------------------------------------
// Operations

/// One parsed operation.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Box([i32; 3], [i32; 3], Block),
    Hollow([i32; 3], [i32; 3], Block),
    Walls([i32; 3], [i32; 3], Block),
    Fill {
        seed: [i32; 3],
        block: Block,
        bounds: Option<([i32; 3], [i32; 3])>,
        limit: Option<u64>,
    },
    Brush(Brush, [i32; 3], Block),
    Replace(Block, Block, Option<([i32; 3], [i32; 3])>),
    Place([i32; 3], Block),
    Erase([i32; 3]),
    Copy([i32; 3], [i32; 3]),
    Cut([i32; 3], [i32; 3]),
    Paste([i32; 3], PasteOptions),
    ObjectAdd(MoveObject),
    ObjectRemove([i32; 3]),
    ObjectMove([i32; 3], [f32; 3]),
    Decor([i32; 3], u16),
    DecorRemove([i32; 3]),
    Plate([i32; 3], bool),
    Spawn(Option<[i32; 3]>),
    Sky(u32),
    Mission(u32),
    Undo,
    Redo,
}

/// A parsed operation with where it came from (for messages).
#[derive(Clone, Debug)]
pub struct Located {
    /// "script.txt:3" or "argument 2".
    pub at: String,
    /// The source text.
    pub text: String,
    /// The operation.
    pub op: Op,
}

type P<T> = std::result::Result<T, String>;

fn int(s: &str) -> P<i32> {
    s.parse()
        .map_err(|_| format!("expected an integer coordinate, got {s:?}"))
}

fn float(s: &str) -> P<f32> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("expected a finite number, got {s:?}")),
    }
}

fn cell(a: &[&str]) -> P<[i32; 3]> {
    Ok([int(a[0])?, int(a[1])?, int(a[2])?])
}

fn fcell(a: &[&str]) -> P<[f32; 3]> {
    Ok([float(a[0])?, float(a[1])?, float(a[2])?])
}

fn need(args: &[&str], n: usize, usage: &str) -> P<()> {
    if args.len() == n {
        Ok(())
    } else {
        Err(format!(
            "expected `{usage}` ({} values after the keyword, got {})",
            n,
            args.len()
        ))
    }
}

/// Parses one operation (a line without its comment, already trimmed and non-empty).
pub fn parse_op(line: &str) -> P<Op> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (kw, a) = (words[0].to_ascii_lowercase(), &words[1..]);
    let box_op = |a: &[&str], usage: &str| -> P<([i32; 3], [i32; 3], Block)> {
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
            if rest.len() >= 2 && rest[rest.len() - 2].eq_ignore_ascii_case("limit") {
                let n = rest[rest.len() - 1];
                limit = Some(
                    n.parse::<u64>()
                        .map_err(|_| format!("bad limit {n:?} (a cell count)"))?,
                );
                rest = &rest[..rest.len() - 2];
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
                _ => return Err(format!("expected `{usage}`")),
            }
        }
        "brush" => {
            need(a, 6, "brush sphere|cube x y z R BLOCK")?;
            let shape = match a[0].to_ascii_lowercase().as_str() {
                "sphere" | "ball" => BrushShape::Sphere,
                "cube" | "box" => BrushShape::Cube,
                s => return Err(format!("unknown brush shape {s:?} (sphere or cube)")),
            };
            let radius = a[4]
                .parse::<u32>()
                .map_err(|_| format!("bad radius {:?} (a whole number >= 0)", a[4]))?;
            Op::Brush(Brush { shape, radius }, cell(&a[1..4])?, parse_block(a[5])?)
        }
        "replace" => {
            let usage = "replace A B [x0 y0 z0 x1 y1 z1]";
            match a.len() {
                2 => Op::Replace(parse_block(a[0])?, parse_block(a[1])?, None),
                8 => Op::Replace(
                    parse_block(a[0])?,
                    parse_block(a[1])?,
                    Some((cell(&a[2..5])?, cell(&a[5..8])?)),
                ),
                _ => return Err(format!("expected `{usage}`")),
            }
        }
        "place" | "set" => {
            need(a, 4, "place x y z BLOCK")?;
            Op::Place(cell(&a[0..3])?, parse_block(a[3])?)
        }
        "erase" => {
            need(a, 3, "erase x y z")?;
            Op::Erase(cell(a)?)
        }
        "copy" | "cut" => {
            need(a, 6, &format!("{kw} x0 y0 z0 x1 y1 z1"))?;
            let (p, q) = (cell(&a[0..3])?, cell(&a[3..6])?);
            if kw == "copy" {
                Op::Copy(p, q)
            } else {
                Op::Cut(p, q)
            }
        }
        "paste" => {
            let usage = "paste x y z [rot 90|180|270] [mirror x|z] [noair] [nometa]";
            if a.len() < 3 {
                return Err(format!("expected `{usage}`"));
            }
            let mut o = PasteOptions::default();
            let mut i = 3;
            while i < a.len() {
                match a[i].to_ascii_lowercase().as_str() {
                    "rot" | "rotate" => {
                        let d = a
                            .get(i + 1)
                            .ok_or_else(|| format!("`rot` needs 90, 180 or 270 ({usage})"))?;
                        o.rotation = d
                            .parse::<i32>()
                            .ok()
                            .and_then(Rotation::from_degrees)
                            .ok_or_else(|| format!("bad rotation {d:?} (0, 90, 180 or 270)"))?;
                        i += 2;
                    }
                    "mirror" => {
                        let m = a
                            .get(i + 1)
                            .ok_or_else(|| format!("`mirror` needs x or z ({usage})"))?;
                        o.mirror = match m.to_ascii_lowercase().as_str() {
                            "x" => Mirror::X,
                            "z" => Mirror::Z,
                            _ => return Err(format!("bad mirror axis {m:?} (x or z)")),
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
                    w => return Err(format!("unknown paste option {w:?} ({usage})")),
                }
            }
            Op::Paste(cell(&a[0..3])?, o)
        }
        "object" => parse_object(a)?,
        "decor" => {
            if a.first().is_some_and(|w| w.eq_ignore_ascii_case("remove")) {
                need(&a[1..], 3, "decor remove x y z")?;
                Op::DecorRemove(cell(&a[1..4])?)
            } else {
                need(a, 4, "decor x y z ICON")?;
                let icon = parse_u16(a[3])
                    .filter(|&i| i != 0)
                    .ok_or_else(|| format!("bad icon {:?} (1..=65535)", a[3]))?;
                Op::Decor(cell(&a[0..3])?, icon)
            }
        }
        "plate" => {
            need(a, 4, "plate x y z on|off")?;
            let on = match a[3].to_ascii_lowercase().as_str() {
                "on" | "1" | "true" | "rotated" => true,
                "off" | "0" | "false" => false,
                s => return Err(format!("bad plate rotation {s:?} (on or off)")),
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
        "sky" | "mission" => {
            need(a, 1, &format!("{kw} N"))?;
            let n = a[0]
                .parse::<u32>()
                .map_err(|_| format!("bad {kw} value {:?} (a whole number)", a[0]))?;
            if kw == "sky" {
                Op::Sky(n)
            } else {
                Op::Mission(n)
            }
        }
        "undo" | "redo" => {
            need(a, 0, &kw)?;
            if kw == "undo" {
                Op::Undo
            } else {
                Op::Redo
            }
        }
        other => {
            return Err(format!(
                "unknown operation {other:?} (box, hollow, walls, fill, brush, replace, place, \
                 erase, copy, cut, paste, object, decor, plate, spawn, sky, mission, undo, redo)"
            ))
        }
    })
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
                return Err(format!("expected `{usage}`"));
            }
            let mut m = MoveObject::new(parse_object_type(a[0])?, fcell(&a[1..4])?);
            for kv in &a[4..] {
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| format!("expected key=value, got {kv:?} ({usage})"))?;
                match normalize(k).as_str() {
                    "end" => {
                        let p: Vec<&str> = v.split(',').collect();
                        if p.len() != 3 {
                            return Err(format!("end needs X,Y,Z, got {v:?}"));
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
                            parse_u16(v).ok_or_else(|| format!("bad icon {v:?} (0..=65535)"))?
                    }
                    _ => return Err(format!("unknown object field {k:?} ({usage})")),
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
        _ => {
            return Err(
                "expected `object add ...`, `object remove x y z` or `object move x y z NX NY NZ`"
                    .into(),
            )
        }
    })
}

/// Parses a whole script. Returns every malformed line, not just the first.
pub fn parse_script(
    lines: impl IntoIterator<Item = (String, String)>,
) -> std::result::Result<Vec<Located>, Vec<String>> {
    let mut ops = Vec::new();
    let mut errors = Vec::new();
    let mut have_clip = false;
    for (at, raw) in lines {
        let text = raw.split('#').next().unwrap_or("").trim();
        if text.is_empty() {
            continue;
        }
        match parse_op(text) {
            Ok(op) => {
                match op {
                    Op::Copy(..) | Op::Cut(..) => have_clip = true,
                    Op::Paste(..) if !have_clip => {
                        errors.push(format!(
                            "{at}: `{text}`: paste without a copy or cut before it"
                        ));
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
            Err(e) => errors.push(format!("{at}: `{text}`: {e}")),
        }
    }
    if errors.is_empty() {
        Ok(ops)
    } else {
        Err(errors)
    }
}

/// What applying one operation did.
pub struct Applied {
    /// Where the operation came from.
    pub at: String,
    /// What changed (for undo/redo: the command undone/redone; for copy: nothing).
    pub change: Change,
    /// Extra text (copy sizes, undo/redo).
    pub note: Option<String>,
}

/// Applies operations in order; stops at the first refused one, naming it.
pub fn apply_ops(
    ed: &mut Editor,
    ops: &[Located],
    fill_limit: u64,
) -> std::result::Result<Vec<Applied>, String> {
    let mut clip: Option<Clipboard> = None;
    let mut out = Vec::new();
    for l in ops {
        let fail = |e: &dyn std::fmt::Display| format!("{}: `{}`: {e}", l.at, l.text);
        let mut note = None;
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
            Op::Copy(a, b) => match ed.copy(*a, *b) {
                Ok(c) => {
                    note = Some(format!(
                        "copied {}x{}x{} cells, {} metadata records",
                        c.size[0],
                        c.size[1],
                        c.size[2],
                        c.records.len()
                    ));
                    clip = Some(c);
                    Ok(Change {
                        label: "copy".into(),
                        ..Change::default()
                    })
                }
                Err(e) => Err(e),
            },
            Op::Cut(a, b) => match ed.cut(*a, *b) {
                Ok((c, change)) => {
                    clip = Some(c);
                    Ok(change)
                }
                Err(e) => Err(e),
            },
            Op::Paste(p, o) => match &clip {
                Some(c) => ed.paste(c, *p, *o),
                None => return Err(fail(&"paste without a copy or cut before it")),
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
            Op::Undo => match ed.undo() {
                Some(c) => {
                    note = Some("undone".into());
                    Ok(c)
                }
                None => return Err(fail(&"nothing to undo")),
            },
            Op::Redo => match ed.redo() {
                Some(c) => {
                    note = Some("redone".into());
                    Ok(c)
                }
                None => return Err(fail(&"nothing to redo")),
            },
        }
        .map_err(|e| fail(&e))?;
        out.push(Applied {
            at: l.at.clone(),
            change,
            note,
        });
    }
    Ok(out)
}

fn read_lines(args: &EditArgs) -> Result<Vec<(String, String)>> {
    if let Some(path) = &args.script {
        let (name, text) = if path.as_os_str() == "-" {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("reading the script from standard input")?;
            ("stdin".to_string(), s)
        } else {
            let s = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read script {}", path.display()))?;
            (path.display().to_string(), s)
        };
        return Ok(text
            .lines()
            .enumerate()
            .map(|(i, l)| (format!("{name}:{}", i + 1), l.to_string()))
            .collect());
    }
    let mut out = Vec::new();
    for (i, arg) in args.ops.iter().enumerate() {
        let parts: Vec<&str> = arg.split(';').collect();
        for (k, p) in parts.iter().enumerate() {
            let at = if parts.len() == 1 {
                format!("argument {}", i + 1)
            } else {
                format!("argument {}.{}", i + 1, k + 1)
            };
            out.push((at, p.to_string()));
        }
    }
    Ok(out)
}

fn backup_path(file: &Path) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(".bak");
    PathBuf::from(s)
}

fn edit(args: &EditArgs) -> Result<u8> {
    let lines = read_lines(args)?;
    if lines.is_empty() {
        anyhow::bail!("no operations given (pass them as arguments or with --script FILE)");
    }
    let ops = match parse_script(lines) {
        Ok(ops) => ops,
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {e}");
            }
            eprintln!(
                "{} malformed operation{}; nothing was written",
                errors.len(),
                if errors.len() == 1 { "" } else { "s" }
            );
            return Ok(1);
        }
    };
    let original = std::fs::read(&args.file)
        .with_context(|| format!("cannot read world {}", args.file.display()))?;
    let world = World::from_bytes(&original)
        .with_context(|| format!("cannot load world {}", args.file.display()))?;
    let mut ed = Editor::new(world);
    let applied = match apply_ops(&mut ed, &ops, args.fill_limit) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!("nothing was written");
            return Ok(1);
        }
    };
    let bytes = ed.world().to_bytes();
    let changed = bytes != original;
    let target = args.out.clone().unwrap_or_else(|| args.file.clone());
    let mut written = None;
    let mut backup = None;
    if !args.dry_run && (changed || args.out.is_some()) {
        if args.out.is_none() {
            let bak = backup_path(&args.file);
            voxcaf_fs::write_atomic(&bak, &original)
                .with_context(|| format!("cannot write backup {}", bak.display()))?;
            backup = Some(bak);
        }
        voxcaf_fs::write_atomic(&target, &bytes)
            .with_context(|| format!("cannot write {}", target.display()))?;
        written = Some(target.clone());
    }
    if args.json {
        let ops_json: Vec<_> = applied
            .iter()
            .map(|a| {
                json!({
                    "at": a.at,
                    "label": a.change.label,
                    "cells": a.change.cells,
                    "chunks": a.change.chunks,
                    "records_added": a.change.records_added,
                    "records_removed": a.change.records_removed,
                    "fields": a.change.fields,
                    "note": a.note,
                })
            })
            .collect();
        let v = json!({
            "file": args.file.display().to_string(),
            "ops": ops_json,
            "changed": changed,
            "written": written.as_ref().map(|p| p.display().to_string()),
            "backup": backup.as_ref().map(|p| p.display().to_string()),
            "bytes": bytes.len(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    let mut o = String::new();
    for a in &applied {
        let _ = match &a.note {
            Some(n) if a.change.label == "copy" => writeln!(o, "{}: {n}", a.at),
            Some(n) => writeln!(o, "{}: {n} {}", a.at, a.change),
            None => writeln!(o, "{}: {}", a.at, a.change),
        };
    }
    match (&written, changed) {
        (Some(p), _) => {
            let _ = write!(o, "wrote {} ({} bytes)", p.display(), bytes.len());
            if let Some(b) = &backup {
                let _ = write!(o, "; previous version kept as {}", b.display());
            }
            o.push('\n');
        }
        (None, false) => o.push_str("no changes; nothing written\n"),
        (None, true) => {
            let _ = writeln!(
                o,
                "dry run: {} would change; nothing written",
                target.display()
            );
        }
    }
    print!("{o}");
    Ok(0)
}

fn layer(args: &LayerArgs) -> Result<u8> {
    let world = crate::world::load(&args.file)?;
    let layer = match args.region {
        Some([x0, z0, x1, z1]) => Layer::region(&world, args.y, [x0, z0], [x1, z1]),
        None => Layer::of(&world, args.y),
    };
    let layer = match layer {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {}: {e}", args.file.display());
            return Ok(1);
        }
    };
    let chunk_stats = || {
        let cy = (args.y as u32) / vwr::CHUNK_SIZE as u32;
        let s = vwr::CHUNK_SIZE as i32;
        let (cx0, cx1) = (layer.x0 / s, (layer.x0 + layer.width as i32 - 1) / s);
        let (cz0, cz1) = (layer.z0 / s, (layer.z0 + layer.depth as i32 - 1) / s);
        all_chunk_stats(&world)
            .into_iter()
            .filter(|c| {
                c.pos[1] == cy
                    && (cx0..=cx1).contains(&(c.pos[0] as i32))
                    && (cz0..=cz1).contains(&(c.pos[2] as i32))
            })
            .collect::<Vec<_>>()
    };
    if args.json {
        let rows: Vec<Vec<u16>> = layer
            .cells
            .chunks(layer.width as usize)
            .map(|r| r.iter().map(|b| b.raw()).collect())
            .collect();
        let mut v = json!({
            "file": args.file.display().to_string(),
            "y": layer.y,
            "x0": layer.x0,
            "z0": layer.z0,
            "width": layer.width,
            "depth": layer.depth,
            "rows": rows,
            "objects": layer.objects,
            "decors": layer.decors,
            "spawn": layer.spawn,
        });
        if args.chunks {
            v["chunks"] = chunk_stats()
                .iter()
                .map(|c| {
                    json!({
                        "pos": c.pos, "palette": c.palette_len, "live_palette": c.live_palette,
                        "bits": c.bits, "non_air": c.non_air, "records": c.records,
                        "bytes": c.payload_bytes, "uniform": c.uniform, "empty": c.empty,
                    })
                })
                .collect();
        }
        println!("{}", serde_json::to_string(&v)?);
        return Ok(0);
    }
    let name = |b: Block| block_name(b.block_type()).map(str::to_string);
    let opts = RenderOptions {
        chunk_grid: args.grid,
        no_markers: args.no_markers,
        name: Some(&name),
    };
    print!("{}", layer.render(&opts));
    if args.chunks {
        println!();
        print!("{}", render_chunk_stats(&chunk_stats()));
    }
    Ok(0)
}

/// The example script of the README, also run by the demo.
pub const DEMO_SCRIPT: &str = "\
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

/// Demo hook: runs [`DEMO_SCRIPT`] on `world`, checks that undoing every command restores the
/// original bytes exactly and that redoing reproduces the edit, and returns the edited world
/// with a short report.
pub fn demo_edit(world: World) -> Result<(World, String)> {
    let lines = DEMO_SCRIPT
        .lines()
        .enumerate()
        .map(|(i, l)| (format!("demo:{}", i + 1), l.to_string()));
    let ops = parse_script(lines).map_err(|e| anyhow::anyhow!(e.join("; ")))?;
    let original = world.to_bytes();
    let mut ed = Editor::new(world);
    let start = std::time::Instant::now();
    let applied = apply_ops(&mut ed, &ops, 1_000_000).map_err(anyhow::Error::msg)?;
    let took = start.elapsed();
    let edited = ed.world().to_bytes();
    let depth = ed.history().undo_depth();
    let memory = ed.history().memory_bytes();
    while ed.undo().is_some() {}
    anyhow::ensure!(
        ed.world().to_bytes() == original,
        "undo did not restore the original"
    );
    while ed.redo().is_some() {}
    anyhow::ensure!(
        ed.world().to_bytes() == edited,
        "redo did not reproduce the edit"
    );
    let mut o = String::new();
    for a in &applied {
        let _ = writeln!(o, "  {}", a.change);
    }
    let _ = writeln!(
        o,
        "  {} commands in {:.2} ms; history holds {} bytes; undo of all restores the original \
         bytes exactly, redo reproduces the edit",
        depth,
        took.as_secs_f64() * 1e3,
        memory
    );
    Ok((ed.into_world(), o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_hook_runs_and_verifies_undo() {
        let (w, report) = demo_edit(World::new()).unwrap();
        assert_eq!(w.get_block(15, 2, 15).block_type(), 92);
        assert_eq!(
            w.move_objects().unwrap().len(),
            2,
            "the exit was copied too"
        );
        assert!(report.contains("undo of all restores"), "{report}");
    }

    #[test]
    fn blocks_parse_in_every_form() {
        let b = |t, m| Block::make(t, m).unwrap();
        assert_eq!(parse_block("35").unwrap(), b(35, 0));
        assert_eq!(parse_block("35:2").unwrap(), b(35, 2));
        assert_eq!(parse_block("0x0230").unwrap(), Block::from_raw(0x230));
        assert_eq!(parse_block("raw:560").unwrap(), b(35, 0));
        assert_eq!(parse_block("raw:0xffff").unwrap(), Block::from_raw(0xffff));
        assert_eq!(parse_block("RockPile").unwrap(), b(35, 0));
        assert_eq!(parse_block("brick_wall:3").unwrap(), b(261, 3));
        assert_eq!(parse_block("water").unwrap(), b(92, 0));
        assert_eq!(parse_block("tile999").unwrap(), b(999, 0));
        assert_eq!(parse_block("Gold-Pillar:1").unwrap(), b(183, 1));
        assert_eq!(parse_block("grate").unwrap(), b(200, 0));
        assert_eq!(parse_block("lava").unwrap(), b(68, 0));
        assert_eq!(parse_block("air").unwrap(), Block::AIR);
        for bad in ["4096", "35:16", "raw:65536", "0xZZ", "nosuch", "35:x", ""] {
            assert!(parse_block(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn operations_parse() {
        assert_eq!(
            parse_op("box 0 0 0 99 0 99 rockpile").unwrap(),
            Op::Box([0, 0, 0], [99, 0, 99], Block::make(35, 0).unwrap())
        );
        assert!(matches!(
            parse_op("fill 1 2 3 water 0 0 0 9 9 9 limit 50").unwrap(),
            Op::Fill {
                bounds: Some(_),
                limit: Some(50),
                ..
            }
        ));
        assert!(matches!(
            parse_op("paste 1 2 3 rot 270 mirror z noair").unwrap(),
            Op::Paste(
                _,
                PasteOptions {
                    rotation: Rotation::R270,
                    mirror: Mirror::Z,
                    skip_air: true,
                    ..
                }
            )
        ));
        match parse_op("object add exit 52 1 50.5 end=52,4,50.5 speed=2 icon=0x10").unwrap() {
            Op::ObjectAdd(m) => {
                assert_eq!(m.object_type, 7);
                assert_eq!(m.pos_start, [52.0, 1.0, 50.5]);
                assert_eq!(m.pos_end, [52.0, 4.0, 50.5]);
                assert_eq!((m.speed, m.visual_icon), (2.0, 16));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(parse_op("spawn none").unwrap(), Op::Spawn(None));
        assert_eq!(parse_op("UNDO").unwrap(), Op::Undo);
        for bad in [
            "box 0 0 0 99 0 rockpile",
            "box 0 0 0 99 0 99",
            "box a 0 0 99 0 99 35",
            "brush star 1 1 1 2 35",
            "brush sphere 1 1 1 -2 35",
            "paste 1 2 3 rot 45",
            "paste 1 2 3 mirror y",
            "object add 1 nan 0 0",
            "object add dragon 1 1 1",
            "object add 1 1 1 1 end=1,2",
            "decor 1 1 1 0",
            "plate 1 1 1 sideways",
            "sky -1",
            "undo 3",
            "teleport 1 2 3",
        ] {
            assert!(parse_op(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn script_errors_name_every_bad_line_and_orphan_pastes() {
        let lines = [
            "# a comment",
            "box 0 0 0 9 9 9 35  # trailing comment",
            "paste 1 1 1",
            "box 1",
            "",
            "copy 0 0 0 1 1 1",
            "paste 5 5 5",
        ]
        .iter()
        .enumerate()
        .map(|(i, l)| (format!("s:{}", i + 1), l.to_string()));
        let errors = parse_script(lines).unwrap_err();
        assert_eq!(errors.len(), 2);
        assert!(
            errors[0].starts_with("s:3:") && errors[0].contains("paste without"),
            "{}",
            errors[0]
        );
        assert!(errors[1].starts_with("s:4:"), "{}", errors[1]);
    }
}
