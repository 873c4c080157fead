//! `voxcaf world blocks`: the block registry listing (each type's name, how it renders and
//! collides, its trigger and colour), with the `--registry FILE` overrides the other world
//! commands take.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::json;
use vwr_blocks::{hashed_color, BlockInfo, Collision, Registry, RenderKind, TYPE_COUNT};

#[derive(Subcommand)]
pub enum BlocksCmd {
    /// List the block registry: type, name, render kind, collision, trigger and colour
    ///
    /// Without arguments lists every type the registry describes (Galaxy Eggbert's named types
    /// and those a --registry file sets); types nobody described are `tileN`, opaque solid
    /// cubes of a colour hashed from the type (--all lists them too). Entries a --registry file
    /// changed are marked `*`.
    ///
    /// Examples:
    ///   voxcaf world blocks
    ///   voxcaf world blocks water lava 35 --json
    ///   voxcaf world blocks --registry blocks.toml
    #[command(verbatim_doc_comment)]
    Blocks(BlocksArgs),
}

/// The arguments of `world blocks`.
#[derive(Args)]
pub struct BlocksArgs {
    /// Types to show, by name (case, `_` and `-` ignored) or number; none lists the registry.
    #[arg(value_name = "BLOCK")]
    blocks: Vec<String>,
    /// List all 4096 types, also the `tileN` types nobody described.
    #[arg(long, conflicts_with = "blocks")]
    all: bool,
    /// Block registry overrides (TOML, see the vwr-blocks docs), as `world mesh|render|play`
    /// take them.
    #[arg(long)]
    registry: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl BlocksCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        let BlocksCmd::Blocks(a) = self;
        a.json
    }
}

/// The registry: the default one, with the overrides of `path` applied; a refused file is
/// bad input about that file.
pub fn load_registry(path: Option<&Path>) -> Result<Registry> {
    match path {
        None => Ok(Registry::default()),
        Some(p) => Registry::load_toml(p).map_err(|e| crate::output::failed(p, e)),
    }
}

/// Whether `info` is what a type nobody described gets (`tileN`, an opaque solid cube of
/// the hashed colour).
fn undescribed(t: u16, info: &BlockInfo) -> bool {
    info.name == format!("tile{t}")
        && info.kind == RenderKind::Opaque
        && info.color == hashed_color(t)
        && info.collision == Collision::for_kind(RenderKind::Opaque, false)
}

/// Run `world blocks`; returns the process exit code.
pub fn run(cmd: BlocksCmd) -> Result<u8> {
    let BlocksCmd::Blocks(a) = cmd;
    let reg = load_registry(a.registry.as_deref())?;
    let default = vwr_blocks::default_registry();
    let types: Vec<u16> = if a.blocks.is_empty() {
        (0..TYPE_COUNT as u16)
            .filter(|&t| a.all || !undescribed(t, reg.info(t)))
            .collect()
    } else {
        a.blocks
            .iter()
            .map(|name| resolve(&reg, name))
            .collect::<Result<_>>()?
    };
    let changed = |t: u16| reg.info(t) != default.info(t);
    if a.json {
        let rows: Vec<_> = types
            .iter()
            .map(|&t| {
                let i = reg.info(t);
                json!({
                    "type": t, "name": i.name, "kind": i.kind.as_str(),
                    "solid": i.collision.solid, "liquid": i.collision.liquid,
                    "trigger": i.collision.trigger.as_str(),
                    "color": hex(i.color), "rgba": i.color, "overridden": changed(t),
                })
            })
            .collect();
        let v = json!({
            "ok": true,
            "registry": a.registry.as_ref().map(|p| p.display().to_string()),
            "blocks": rows,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    println!(
        "{:>5}  {:<16} {:<13} {:<9} {:<10} colour",
        "type", "name", "kind", "collision", "trigger"
    );
    for &t in &types {
        let i = reg.info(t);
        let collision = match (i.collision.solid, i.collision.liquid) {
            (true, _) => "solid",
            (false, true) => "liquid",
            (false, false) => "passable",
        };
        println!(
            "{t:>5}{} {:<16} {:<13} {collision:<9} {:<10} {}",
            if changed(t) { "*" } else { " " },
            i.name,
            i.kind.as_str(),
            i.collision.trigger.as_str(),
            hex(i.color)
        );
    }
    crate::global::say!("{}", crate::global::count(types.len() as u64, "block type"));
    Ok(0)
}

/// A block named on the command line, with a "did you mean" for a misspelt name.
fn resolve(reg: &Registry, name: &str) -> Result<u16> {
    reg.id_by_name(name).ok_or_else(|| {
        let hint = reg
            .suggest_name(name)
            .map(|s| format!("; did you mean {s:?}?"))
            .unwrap_or_default();
        crate::output::usage(None, format!("no block named {name:?}{hint}"))
    })
}

/// `#rrggbb`, or `#rrggbbaa` when not opaque.
fn hex(c: [u8; 4]) -> String {
    let rgb = format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
    if c[3] == 255 {
        rgb
    } else {
        format!("{rgb}{:02x}", c[3])
    }
}
