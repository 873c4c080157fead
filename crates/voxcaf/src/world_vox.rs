//! `voxcaf world convert` for MagicaVoxel `.vox` files: `.vox -> .vwr` imports a scene,
//! `.vwr -> .vox` exports a world (the work is `vwr-vox`'s; this module parses, prints and
//! sets the exit code). [`convert`] is the function a general `world convert` dispatches to
//! when either side is a `.vox` ([`involves_vox`]).

use std::path::Path;

use anyhow::Result;
use serde_json::{json, Value};
use vwr::World;
use vwr_vox::{ExportOptions, ImportOptions, PaletteMap, VoxWarning, WorldSize};

use crate::global::{label, say, tell};
use crate::output as o;
use crate::world_args::{ConvertArgs, FormatArg};

/// A MagicaVoxel file.
pub const VOX: o::Kind = o::Kind {
    name: "a .vox model",
    exts: &["vox"],
    magic: Some(b"VOX "),
};

fn ext_is(p: &Path, ext: &str) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// Whether a convert between `input` and `output` is this module's (either side a `.vox`).
pub fn involves_vox(input: &Path, output: &Path) -> bool {
    ext_is(input, "vox") || ext_is(output, "vox")
}

#[derive(Clone, Copy, PartialEq)]
enum Direction {
    Import,
    Export,
}

/// `.vox <-> .vwr` by the extensions (or, for `-`, the input's magic / the output's
/// extension). `pre_read` holds the input's bytes when the caller already read them (a `-`
/// input found to be a `.vox` by its magic).
pub fn convert(a: &ConvertArgs, pre_read: Option<Vec<u8>>) -> Result<u8> {
    let known = check_args(a)?;
    let palette = read_palette(a.palette.as_deref())?;
    let bytes = match pre_read {
        Some(b) => b,
        None => o::read_input(&a.input)?,
    };
    let dir = known.unwrap_or(if bytes.starts_with(b"VOX ") {
        Direction::Import
    } else {
        Direction::Export
    });
    let (summary, warnings) = match dir {
        Direction::Import => import_vox(a, &bytes, palette)?,
        Direction::Export => export_vox(a, &bytes, palette)?,
    };
    let warning_text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    if a.json {
        print_json(a, dir, &summary, &warning_text);
    } else {
        print_text(a, dir, &summary, &warning_text);
    }
    Ok(0)
}

/// The direction, from what can be known before reading anything.
fn known_direction(a: &ConvertArgs) -> Option<Direction> {
    let (input, output) = (&a.input, &a.output);
    if ext_is(input, "vox") || ext_is(output, "vwr") {
        Some(Direction::Import)
    } else if ext_is(input, "vwr") || ext_is(output, "vox") || matches!(a.format, FormatArg::Vox) {
        Some(Direction::Export)
    } else {
        None
    }
}

/// The usage checks of the paths and the flags (and of a named output that is already there);
/// the direction when it is known before reading the input.
fn check_args(a: &ConvertArgs) -> Result<Option<Direction>> {
    let (input, output) = (&a.input, &a.output);
    if o::is_dash(input) && o::is_dash(output) {
        return Err(o::usage(
            None,
            "the input and the output cannot both be `-`; name one file",
        ));
    }
    let known = known_direction(a);
    if !o::is_dash(input) && !ext_is(input, "vox") && !ext_is(input, "vwr") {
        return Err(o::usage(
            Some(input),
            "unknown input type; use a .vox or .vwr file",
        ));
    }
    if ext_is(input, "vox") && ext_is(output, "vox") {
        return Err(o::usage(
            Some(output),
            "both sides are .vox; convert to .vwr or from .vwr",
        ));
    }
    if !o::is_dash(output) {
        check_output(a, known)?;
    }
    check_flags(a, known)?;
    Ok(known)
}

/// A named output: its extension is the other kind than the input's, and what is there may be
/// replaced.
fn check_output(a: &ConvertArgs, known: Option<Direction>) -> Result<()> {
    let (input, output) = (&a.input, &a.output);
    // A named output has a known extension, so `known` is set.
    let kind = match known {
        Some(Direction::Import) if ext_is(output, "vwr") => &o::WORLD,
        Some(Direction::Export) if ext_is(output, "vox") => &VOX,
        _ => {
            return Err(o::usage(
                Some(output),
                "the output must end in .vwr or .vox (the other kind than the input)",
            ))
        }
    };
    o::check_file(output, &[input], kind, a.force, false)
}

/// `--format`, `--origin` and `--tight` against the direction.
fn check_flags(a: &ConvertArgs, known: Option<Direction>) -> Result<()> {
    match (known, a.format) {
        (Some(Direction::Import), FormatArg::Vox) => {
            return Err(o::usage(
                None,
                "--format vox asks for a .vox output, but the input is the .vox here",
            ))
        }
        (Some(Direction::Export), FormatArg::V2 | FormatArg::V3) => {
            return Err(o::usage(
                None,
                "--format v2/v3 choose a .vwr output's format; this writes a .vox",
            ))
        }
        _ => {}
    }
    if a.origin.is_some() && known == Some(Direction::Export) {
        return Err(o::usage(
            None,
            "--origin places an imported .vox scene; it has no meaning for a .vwr -> .vox export",
        ));
    }
    if a.tight && known == Some(Direction::Export) {
        return Err(o::usage(
            None,
            "--tight sizes the world of an import; it has no meaning for a .vwr -> .vox export",
        ));
    }
    Ok(())
}

/// The `--palette` mapping, when one is given.
fn read_palette(path: Option<&Path>) -> Result<Option<PaletteMap>> {
    let Some(p) = path else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(p).map_err(|e| o::failed(p, format!("cannot read: {e}")))?;
    Ok(Some(
        PaletteMap::from_toml(&text, vwr_blocks::default_registry())
            .map_err(|e| o::failed(p, e))?,
    ))
}

/// `.vox -> .vwr`: imports the scene and saves the world; the report's numbers and the
/// warnings.
fn import_vox(
    a: &ConvertArgs,
    bytes: &[u8],
    palette: Option<PaletteMap>,
) -> Result<(Value, Vec<VoxWarning>)> {
    let opts = ImportOptions {
        palette,
        origin: a.origin,
        frame: a.frame,
        size: if a.tight {
            WorldSize::Tight
        } else {
            WorldSize::Cubic
        },
        ..ImportOptions::default()
    };
    let out = vwr_vox::import(bytes, &opts).map_err(|e| o::failed(&a.input, e))?;
    let w = &out.world;
    save_world(w, &a.output, &a.save_options())?;
    let summary = json!({
        "models": out.models,
        "voxels": out.voxels,
        "blocks": w.count_non_air(),
        "chunk_dims": w.chunk_dims(),
    });
    Ok((summary, out.warnings))
}

/// `.vwr -> .vox`: exports the world and writes the model; the report's numbers and the
/// warnings.
fn export_vox(
    a: &ConvertArgs,
    bytes: &[u8],
    palette: Option<PaletteMap>,
) -> Result<(Value, Vec<VoxWarning>)> {
    let (input, output) = (&a.input, &a.output);
    let world = World::from_bytes(bytes).map_err(|e| o::failed(input, e))?;
    let out =
        vwr_vox::export(&world, &ExportOptions { palette }).map_err(|e| o::failed(input, e))?;
    if o::is_dash(output) {
        o::write_stdout(&out.bytes)?;
    } else {
        o::create_parent(output)?;
        voxcaf_fs::write_atomic(output, &out.bytes).map_err(|e| o::failed(output, e))?;
    }
    let summary = json!({
        "models": out.models,
        "voxels": out.voxels,
        "palette_entries": out.mapping.len(),
    });
    Ok((summary, out.warnings))
}

/// The `--json` report: one object on stdout, unless stdout is the output.
fn print_json(a: &ConvertArgs, dir: Direction, summary: &Value, warning_text: &[String]) {
    let (input, output) = (&a.input, &a.output);
    let mut v = json!({
        "ok": true,
        "file": input.display().to_string(),
        "out": output.display().to_string(),
        "direction": if dir == Direction::Import { "vox-to-vwr" } else { "vwr-to-vox" },
        "warnings": warning_text,
    });
    if let (Some(m), Some(s)) = (v.as_object_mut(), summary.as_object()) {
        m.extend(s.clone());
    }
    // JSON goes to stdout: with `-` as the output that is the file itself, so no report.
    if !o::is_dash(output) {
        println!("{v}");
    }
}

/// The text report: the warnings and a summary line (on stderr when stdout is the output);
/// nothing with `-q`.
fn print_text(a: &ConvertArgs, dir: Direction, summary: &Value, warning_text: &[String]) {
    let (input, output) = (&a.input, &a.output);
    for w in warning_text {
        tell!("{} {}: {w}", label("warning"), input.display());
    }
    let line = match dir {
        Direction::Import => format!(
            "{} -> {}: {} model(s), {} voxels -> {} blocks in a world of {} chunks",
            input.display(),
            output.display(),
            summary["models"],
            summary["voxels"],
            summary["blocks"],
            summary["chunk_dims"]
                .as_array()
                .map(|d| d
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join("×"))
                .unwrap_or_default(),
        ),
        Direction::Export => format!(
            "{} -> {}: {} voxels in {} model(s), {} palette entries",
            input.display(),
            output.display(),
            summary["voxels"],
            summary["models"],
            summary["palette_entries"],
        ),
    };
    if o::is_dash(output) {
        tell!("{line}");
    } else {
        say!("{line}");
    }
}

fn save_world(world: &World, output: &Path, opts: &vwr::SaveOptions) -> Result<()> {
    let bytes = world
        .to_bytes_with(opts)
        .map_err(|e| o::usage(Some(output), e.to_string()))?;
    if o::is_dash(output) {
        return o::write_stdout(&bytes);
    }
    o::create_parent(output)?;
    voxcaf_fs::write_atomic(output, &bytes).map_err(|e| o::failed(output, e))?;
    Ok(())
}
