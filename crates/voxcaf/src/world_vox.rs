//! `voxcaf world convert` for MagicaVoxel `.vox` files: `.vox -> .vwr` imports a scene,
//! `.vwr -> .vox` exports a world (the work is `vwr-vox`'s; this module parses, prints and
//! sets the exit code). [`convert`] is the function a general `world convert` dispatches to
//! when either side is a `.vox` ([`involves_vox`]).

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;
use vwr::World;
use vwr_vox::{ExportOptions, ImportOptions, PaletteMap, VoxWarning, WorldSize};

use crate::output as o;

/// A MagicaVoxel file.
pub const VOX: o::Kind = o::Kind {
    name: "a .vox model",
    exts: &["vox"],
    magic: Some(b"VOX "),
};

#[derive(Subcommand)]
pub enum VoxCmd {
    /// Convert between MagicaVoxel .vox and .vwr worlds (the direction follows the
    /// extensions).
    ///
    /// .vox -> .vwr places every model of the scene (translations and 90° rotations) in one
    /// world, the smallest cubic world that holds it (with --tight: the smallest per axis),
    /// and maps colours to the block type of nearest registry colour, or through --palette.
    /// .vwr -> .vox writes each distinct block value (at most 255) as a palette entry with its
    /// registry colour and records the mapping in the file, so converting back gives the same
    /// blocks; MoveObjects and other metadata cannot go into a .vox and are reported.
    /// Anything not carried over is printed as a warning.
    ///
    /// Examples:
    ///   voxcaf world convert castle.vox castle.vwr
    ///   voxcaf world convert castle.vox level.vwr --origin 20,1,20 --palette blocks.toml
    ///   voxcaf world convert level.vwr level.vox
    ///   voxcaf world convert - out.vwr < model.vox
    ///
    /// A palette file maps MagicaVoxel palette indices to blocks (a name, a type number, or
    /// "type:meta"):
    ///   [palette]
    ///   1 = "rockpile"
    ///   2 = 261
    ///   3 = "35:2"
    #[command(verbatim_doc_comment)]
    Convert(ConvertArgs),
}

#[derive(clap::Args)]
pub struct ConvertArgs {
    /// Input: .vox or .vwr (`-` reads standard input; the kind is then told by its magic).
    pub input: PathBuf,
    /// Output: .vwr or .vox, the other kind (`-` writes standard output; missing folders are
    /// created).
    pub output: PathBuf,
    /// Palette mapping (TOML): MagicaVoxel palette indices to block types, used both ways.
    #[arg(long, value_name = "FILE.toml")]
    pub palette: Option<PathBuf>,
    /// Import: where the scene's lowest corner lands, in blocks (default 0,0,0, or where a
    /// voxcaf export had it).
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_origin, allow_hyphen_values = true)]
    pub origin: Option<[i32; 3]>,
    /// Import: the smallest world per axis instead of the smallest cube (non-cubic worlds need
    /// the v3 format).
    #[arg(long)]
    pub tight: bool,
    /// Overwrite an existing output that is not of the output's kind.
    #[arg(long)]
    pub force: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
}

fn parse_origin(s: &str) -> Result<[i32; 3], String> {
    let bad = || format!("bad origin {s:?}: use X,Y,Z block coordinates, e.g. 10,0,10");
    let parts: Vec<i32> = s
        .split(',')
        .map(|p| p.trim().parse::<i32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| bad())?;
    <[i32; 3]>::try_from(parts).map_err(|_| bad())
}

impl VoxCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        matches!(self, VoxCmd::Convert(ConvertArgs { json: true, .. }))
    }
}

/// Run the command; returns the process exit code.
pub fn run(cmd: VoxCmd) -> Result<u8> {
    match cmd {
        VoxCmd::Convert(args) => convert(&args),
    }
}

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
/// extension).
pub fn convert(a: &ConvertArgs) -> Result<u8> {
    let (input, output) = (&a.input, &a.output);
    if o::is_dash(input) && o::is_dash(output) {
        return Err(o::usage(
            None,
            "the input and the output cannot both be `-`; name one file",
        ));
    }
    // The direction, from what can be known before reading anything.
    let known = if ext_is(input, "vox") || ext_is(output, "vwr") {
        Some(Direction::Import)
    } else if ext_is(input, "vwr") || ext_is(output, "vox") {
        Some(Direction::Export)
    } else {
        None
    };
    if !o::is_dash(input) && !ext_is(input, "vox") && !ext_is(input, "vwr") {
        return Err(o::usage(
            Some(input),
            "unknown input type; use a .vox or .vwr file",
        ));
    }
    if !involves_vox(input, output) && ext_is(input, "vwr") && ext_is(output, "vwr") {
        return Err(o::usage(
            Some(output),
            "both sides are .vwr: use `voxcaf world resave` (this convert handles .vox)",
        ));
    }
    if ext_is(input, "vox") && ext_is(output, "vox") {
        return Err(o::usage(
            Some(output),
            "both sides are .vox; convert to .vwr or from .vwr",
        ));
    }
    if !o::is_dash(output) {
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
        o::check_file(output, &[input], kind, a.force, false)?;
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
    let palette = match &a.palette {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| o::failed(p, format!("cannot read: {e}")))?;
            Some(
                PaletteMap::from_toml(&text, vwr_blocks::default_registry())
                    .map_err(|e| o::failed(p, e))?,
            )
        }
        None => None,
    };
    let bytes = o::read_input(input)?;
    let dir = known.unwrap_or(if bytes.starts_with(b"VOX ") {
        Direction::Import
    } else {
        Direction::Export
    });
    let warnings: Vec<VoxWarning>;
    let summary;
    match dir {
        Direction::Import => {
            let opts = ImportOptions {
                palette,
                origin: a.origin,
                size: if a.tight {
                    WorldSize::Tight
                } else {
                    WorldSize::Cubic
                },
                ..ImportOptions::default()
            };
            let out = vwr_vox::import(&bytes, &opts).map_err(|e| o::failed(input, e))?;
            let w = &out.world;
            if !w.fits_v2() {
                let [x, y, z] = w.chunk_dims();
                return Err(o::failed(
                    input,
                    format!(
                        "the scene needs a world of {x}×{y}×{z} chunks, which only the v3 format \
                         holds, and v3 saving is not available yet; convert without --tight"
                    ),
                ));
            }
            save_world(w, output)?;
            summary = json!({
                "models": out.models,
                "voxels": out.voxels,
                "blocks": w.count_non_air(),
                "chunk_dims": w.chunk_dims(),
            });
            warnings = out.warnings;
        }
        Direction::Export => {
            let world = World::from_bytes(&bytes).map_err(|e| o::failed(input, e))?;
            let out = vwr_vox::export(&world, &ExportOptions { palette })
                .map_err(|e| o::failed(input, e))?;
            if o::is_dash(output) {
                o::write_stdout(&out.bytes)?;
            } else {
                o::create_parent(output)?;
                voxcaf_fs::write_atomic(output, &out.bytes).map_err(|e| o::failed(output, e))?;
            }
            summary = json!({
                "models": out.models,
                "voxels": out.voxels,
                "palette_entries": out.mapping.len(),
            });
            warnings = out.warnings;
        }
    }
    let warning_text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    if a.json {
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
    } else {
        for w in &warning_text {
            eprintln!("warning: {}: {w}", input.display());
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
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }
    Ok(0)
}

fn save_world(world: &World, output: &Path) -> Result<()> {
    if o::is_dash(output) {
        return o::write_stdout(&world.to_bytes());
    }
    o::create_parent(output)?;
    world.save(output).map_err(|e| o::failed(output, e))?;
    Ok(())
}
