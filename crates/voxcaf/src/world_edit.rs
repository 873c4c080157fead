//! `voxcaf world edit|layer`: scripted editing with the `vwr-edit` tools, and the layer view.
//!
//! The edit language itself (parsing, applying, reports) is `vwr_edit::script`; this module
//! reads the script, prints, and saves. A script is parsed completely before anything is
//! applied, and applied completely in memory before anything is written: a malformed line, or
//! an operation the world refuses, leaves the file on disk untouched.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use serde_json::json;
use vwr::{Block, SaveOptions, SaveReport, World};
use vwr_edit::script::{
    apply_ops, argument_lines, edit_store, footprint, parse_script, script_lines, Applied, Effect,
    Located, Location, ScriptError, StoreEditError,
};
use vwr_edit::{all_chunk_stats, render_chunk_stats, Editor, Layer, RenderOptions};

use crate::global::label;

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
    /// The .vwr file to edit, saved in place in its own format (v3: one commit, undone by
    /// `voxcaf world revert`; v2: rewritten keeping FILE.bak) unless -o names another file;
    /// `-` reads standard input and then needs -o or --dry-run, and so does a MagicaVoxel
    /// .vox model (read as a world, as `world convert` imports it). A database world,
    /// postgres://USER@HOST:PORT/DB?world=NAME, gets one commit, applied again when another
    /// writer committed first.
    pub file: PathBuf,
    /// Read operations from this script (one per line; `-` reads standard input).
    #[arg(long, short = 's', conflicts_with = "ops")]
    pub script: Option<PathBuf>,
    /// Operations, one per argument (quote each one: "box 0 0 0 99 0 99 rockpile"); `;`
    /// separates several operations inside one argument.
    pub ops: Vec<String>,
    /// Write the edited world here; FILE itself is left untouched (`-` writes standard output;
    /// naming FILE itself edits in place and keeps FILE.bak; missing folders are created).
    #[arg(short = 'o', long = "out")]
    pub out: Option<PathBuf>,
    /// Overwrite an existing -o file that is not a .vwr world.
    #[arg(long)]
    pub force: bool,
    /// Apply and report, but write nothing.
    #[arg(short = 'n', long)]
    pub dry_run: bool,
    /// Default cell limit of `fill` (flood fill) operations.
    #[arg(long, default_value_t = 1_000_000)]
    pub fill_limit: u64,
    /// Refuse, before any work, an edit whose boxes reach more chunks than this much memory
    /// holds (bytes, or 512M, 2G, 1.5GiB; by default what `ulimit -v` and the machine allow).
    #[arg(long, value_parser = crate::world_args::parse_byte_size)]
    pub max_memory: Option<u64>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct LayerArgs {
    /// The .vwr file (`-` reads standard input).
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

impl EditCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            EditCmd::Edit(a) => a.json,
            EditCmd::Layer(a) => a.json,
        }
    }
}

/// Run one edit or layer command; returns the process exit code.
pub fn run(cmd: EditCmd) -> Result<u8> {
    match cmd {
        EditCmd::Edit(a) => edit(&a),
        EditCmd::Layer(a) => layer(&a),
    }
}

/// The registry name of a block type, unless it is only the generic `tileN`.
fn block_name(t: u16) -> Option<&'static str> {
    let n = vwr_blocks::default_registry().name(t);
    (!n.starts_with("tile")).then_some(n)
}

fn parse_rect(s: &str) -> std::result::Result<[i32; 4], String> {
    crate::lists::numbers(s, &[','], "X0,Z0,X1,Z1")
}

/// The extra words of an operation's report line (copy sizes, undo/redo), also the `note` of
/// the JSON report.
fn note(effect: &Effect) -> Option<String> {
    match effect {
        Effect::Copied { size, records } => Some(format!(
            "copied {}x{}x{} cells, {records} metadata records",
            size[0], size[1], size[2]
        )),
        Effect::Undone => Some("undone".into()),
        Effect::Redone => Some("redone".into()),
        _ => None,
    }
}

fn read_lines(args: &EditArgs) -> Result<Vec<(Location, String)>> {
    let Some(path) = &args.script else {
        return Ok(argument_lines(&args.ops));
    };
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
    Ok(script_lines(&name, &text))
}

/// What an edit did: the operations, the session's save (in place) or the bytes of the
/// world in its input's format (a copy, standard output, a dry run), and whether it changed.
struct Done {
    applied: Vec<Applied>,
    saved: Option<SaveReport>,
    bytes: Option<Vec<u8>>,
    changed: bool,
    /// Commit attempts (more than 1 when other writers of a database world committed first).
    attempts: u32,
}

/// Refuses, before any work, an edit whose boxes reach more chunks than the memory budget
/// holds (`--max-memory`, `ulimit -v`, the machine's available memory; see
/// [`crate::world_args::memory_budget`]). Scripts without bounds (a flood fill, a `replace`
/// of the whole world) and worlds read from standard input are not estimated.
fn check_edit_memory(args: &EditArgs, ops: &[Located]) -> Result<()> {
    if crate::output::is_dash(&args.file) {
        return Ok(());
    }
    // A file that does not open is reported by the edit itself.
    let Ok(file) = vwr::WorldFile::open(&args.file) else {
        return Ok(());
    };
    let Some(chunks) = footprint(ops).chunks_within(file.chunk_dims()) else {
        return Ok(());
    };
    let need = chunks.saturating_mul(vwr_edit::script::EDIT_BYTES_PER_CHUNK);
    match crate::world_args::memory_budget(args.max_memory) {
        Some(budget) if need > budget => Err(crate::output::failed(
            &args.file,
            format!(
                "the edit reaches up to {chunks} chunks, about {} of memory, more than the {} \
                 it may use; edit a smaller box, or raise --max-memory",
                vwr_mesh::human_bytes(need),
                vwr_mesh::human_bytes(budget)
            ),
        )),
        _ => Ok(()),
    }
}

/// The in-place edit (and its dry run) of a file or a database world, through the one edit
/// path: `vwr_edit::script::edit_store` over the world's [`vwr::ChunkStore`]. It reads only
/// what the script reaches and commits in the world's own way (a v3 file: one commit; a v2
/// file: rewrite with FILE.bak; a database: one transaction, applied again if another writer
/// committed first). Errors of the world itself (locked, unreadable) end the command; errors of
/// the script come back as `Err` inside.
fn edit_in_place(
    args: &EditArgs,
    ops: &[Located],
) -> Result<std::result::Result<Done, anyhow::Error>> {
    const TOOL: &str = "voxcaf world edit";
    let mut store = crate::world_db::open_store(&args.file, TOOL)?;
    let at = store.location();
    match edit_store(store.as_mut(), ops, args.fill_limit, TOOL, args.dry_run) {
        Ok(e) => {
            let changed = e.chunks_changed > 0 || e.fields_changed;
            // A database commit has no file report: its chunk count is the commit's.
            let saved = e.committed.map(|c| SaveReport {
                written: true,
                generation: Some(c.seq as u32),
                chunks_written: c.report.chunks_written.max(c.chunks),
                ..c.report
            });
            Ok(Ok(Done {
                applied: e.applied,
                changed,
                saved: saved.filter(|r| r.written),
                bytes: None,
                attempts: e.attempts,
            }))
        }
        Err(StoreEditError::Script(e)) => Ok(Err(e.into())),
        Err(StoreEditError::Store(e)) => Err(crate::world_db::failed(&at, e)),
    }
}

/// The edit of a copy (`-o OTHER`, standard input or output, `--dry-run`): the whole world
/// read, edited, and serialised in the input's format.
fn edit_copy(
    args: &EditArgs,
    run: impl Fn(&mut Editor) -> Result<Vec<Applied>, ScriptError>,
) -> Result<std::result::Result<Done, anyhow::Error>> {
    use crate::output as o;
    let original = o::read_input(&args.file)?;
    // A .vox model is read as a world, as `world convert` imports it.
    let world = crate::world::from_bytes(&args.file, &original)?;
    let vox = original.starts_with(b"VOX ");
    let version = match vwr::world_version(&original) {
        Some(v) => v,
        None if vox && !world.fits_v2() => 3,
        None => 2,
    };
    let save = |w: &World| {
        w.to_bytes_with(&SaveOptions::of_version(version))
            .map_err(|e| o::failed(&args.file, e))
    };
    // What "changed" compares with: the file itself, or a .vox model's world unedited.
    let before = if vox { save(&world)? } else { original };
    let mut ed = Editor::new(world);
    let applied = match run(&mut ed) {
        Ok(a) => a,
        Err(e) => return Ok(Err(e.into())),
    };
    let bytes = save(ed.world())?;
    Ok(Ok(Done {
        applied,
        changed: bytes != before,
        saved: None,
        bytes: Some(bytes),
        attempts: 1,
    }))
}

fn edit(args: &EditArgs) -> Result<u8> {
    use crate::output as o;
    let stdin_file = o::is_dash(&args.file);
    if stdin_file && args.out.is_none() && !args.dry_run {
        return Err(o::usage(
            None,
            "a world read from standard input cannot be saved in place; pass -o OUT.vwr (or -o - for standard output)",
        ));
    }
    if stdin_file && args.script.as_deref().is_some_and(o::is_dash) {
        return Err(o::usage(
            None,
            "the world and the script cannot both come from standard input; name one of them",
        ));
    }
    // The -o file is checked before anything is read or applied; naming FILE itself is an
    // in-place edit.
    let in_place = match &args.out {
        None => true,
        Some(out) if o::is_dash(out) => false,
        Some(out) => {
            o::check_file(out, &[&args.file], &o::WORLD, args.force, true)?;
            o::same_file(out, &args.file)
        }
    };
    if !in_place && crate::world_db::is_db(&args.file) {
        return Err(o::usage(
            Some(&args.file),
            "a database world is edited in place (one commit); to edit a copy, copy it first \
             with `voxcaf world migrate URL COPY.vwr`",
        ));
    }
    if in_place && !args.dry_run && crate::world::is_vox_file(&args.file) {
        return Err(o::usage(
            Some(&args.file),
            "this is a MagicaVoxel .vox model; an edit of it writes a .vwr world: pass \
             -o OUT.vwr (or --dry-run), then `voxcaf world convert OUT.vwr OUT.vox` if you \
             want a .vox again",
        ));
    }
    let lines = read_lines(args)?;
    if lines.is_empty() {
        return Err(o::usage(
            None,
            "no operations given; pass them as arguments (quote each: \"place 1 1 1 35\") or with --script FILE",
        ));
    }
    let ops = match parse_script(lines) {
        Ok(ops) => ops,
        Err(errors) => {
            if args.json {
                let mut msgs: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                if args.script.is_none() && args.ops.iter().any(|a| a.parse::<f64>().is_ok()) {
                    msgs.push("hint: quote each operation: \"place 1 1 1 35\"".into());
                }
                // Malformed operations are bad input (exit 1), named by their script if any.
                let e = match &args.script {
                    Some(path) if !o::is_dash(path) => o::failed(path, msgs.join("; ")),
                    _ => anyhow::anyhow!(msgs.join("; ")),
                };
                println!("{}", o::error_json(&e));
                return Ok(1);
            }
            for e in &errors {
                eprintln!("{} {e}", label("error"));
            }
            // `place 1 1 1 35` unquoted arrives as five operations; say so.
            if args.script.is_none() && args.ops.iter().any(|a| a.parse::<f64>().is_ok()) {
                eprintln!("hint: quote each operation: \"place 1 1 1 35\"");
            }
            eprintln!(
                "{} malformed operation{}; nothing was written",
                errors.len(),
                if errors.len() == 1 { "" } else { "s" }
            );
            return Ok(1);
        }
    };
    check_edit_memory(args, &ops)?;
    let run = |ed: &mut Editor| apply_ops(ed, &ops, args.fill_limit);
    let through_store =
        in_place && !o::is_dash(&args.file) && !crate::world::is_vox_file(&args.file);
    let done = if through_store {
        edit_in_place(args, &ops)?
    } else {
        edit_copy(args, run)?
    };
    let Done {
        applied,
        saved,
        bytes,
        changed,
        attempts,
    } = match done {
        Ok(d) => d,
        Err(e) => {
            if args.json {
                println!("{}", o::error_json(&o::failed(&args.file, &e)));
                return Ok(1);
            }
            eprintln!("{} {e}", label("error"));
            eprintln!("nothing was written");
            return Ok(1);
        }
    };
    let target = match &args.out {
        Some(out) if !in_place => out.clone(),
        _ => args.file.clone(),
    };
    if !args.dry_run && o::is_dash(&target) {
        // The world goes to standard output; the report would corrupt it, so it goes nowhere.
        o::write_stdout(&bytes.unwrap_or_default())?;
        return Ok(0);
    }
    let mut written = None;
    if let Some(bytes) = bytes.filter(|_| !args.dry_run && !in_place) {
        o::create_parent(&target)?;
        voxcaf_fs::write_atomic(&target, &bytes).map_err(|e| o::failed(&target, e))?;
        written = Some((target.clone(), bytes.len() as u64));
    }
    if let Some(r) = saved.as_ref().filter(|r| r.written) {
        written = Some((target.clone(), r.file_size));
    }
    let report = Report {
        saved: saved.as_ref(),
        written,
        changed,
        attempts,
    };
    print_report(args, &applied, &report, &target)
}

/// What an edit wrote, for [`print_report`].
struct Report<'a> {
    saved: Option<&'a SaveReport>,
    written: Option<(PathBuf, u64)>,
    changed: bool,
    attempts: u32,
}

/// The edit's report: one JSON object, or a line per operation and what was written.
fn print_report(
    args: &EditArgs,
    applied: &[Applied],
    report: &Report<'_>,
    target: &std::path::Path,
) -> Result<u8> {
    let Report {
        saved,
        ref written,
        changed,
        attempts,
    } = *report;
    let backup = saved.and_then(|r| r.backup.clone());
    if args.json {
        let ops_json: Vec<_> = applied
            .iter()
            .map(|a| {
                json!({
                    "at": a.at.to_string(),
                    "label": a.change.label,
                    "cells": a.change.cells,
                    "chunks": a.change.chunks,
                    "records_added": a.change.records_added,
                    "records_removed": a.change.records_removed,
                    "fields": a.change.fields,
                    "note": note(&a.effect),
                })
            })
            .collect();
        let v = json!({
            "ok": true,
            "file": args.file.display().to_string(),
            "ops": ops_json,
            "changed": changed,
            "written": written.as_ref().map(|(p, _)| p.display().to_string()),
            "backup": backup.as_ref().map(|p| p.display().to_string()),
            "bytes": written.as_ref().map(|w| w.1),
            "commit": saved.and_then(|r| r.generation),
            "incremental": saved.is_some_and(|r| r.incremental),
            "bytes_written": saved.map(|r| r.bytes_written),
            "attempts": attempts,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    let mut o = String::new();
    for a in applied {
        let _ = match note(&a.effect) {
            Some(n) if matches!(a.effect, Effect::Copied { .. }) => writeln!(o, "{}: {n}", a.at),
            Some(n) => writeln!(o, "{}: {n} {}", a.at, a.change),
            None => writeln!(o, "{}: {}", a.at, a.change),
        };
    }
    match (written, changed) {
        (Some((p, size)), _) => {
            match saved.and_then(|r| r.generation.map(|g| (g, r))) {
                Some((g, r)) if crate::world_db::is_db(p) => {
                    let _ = write!(
                        o,
                        "committed to {} as commit {g}: {}",
                        p.display(),
                        crate::global::count(r.chunks_written, "chunk")
                    );
                    if attempts > 1 {
                        let _ = write!(
                            o,
                            " (applied {attempts} times: other writers committed first)"
                        );
                    }
                }
                Some((g, r)) => {
                    let _ = write!(
                        o,
                        "saved {} as commit {g}: {}, {} bytes written (file {size} bytes",
                        p.display(),
                        crate::global::count(r.chunks_written, "chunk"),
                        r.bytes_written
                    );
                    o.push_str(if r.compacted { ", compacted)" } else { ")" });
                    let _ = write!(o, "; `voxcaf world revert {}` undoes it", p.display());
                }
                None => {
                    let _ = write!(o, "wrote {} ({size} bytes)", p.display());
                }
            }
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
    // A dry run's report is what it was asked for; otherwise it is a report line.
    if args.dry_run || !crate::global::quiet() {
        print!("{o}");
    }
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
        Err(e @ vwr_edit::EditError::LayerTooLarge { .. }) => {
            return Err(crate::output::failed(
                &args.file,
                format!("{e} (--region X0,Z0,X1,Z1)"),
            ))
        }
        Err(e) => return Err(crate::output::failed(&args.file, e)),
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
            "ok": true,
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
