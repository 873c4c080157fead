//! `voxcaf world lod`: build, rebuild or drop the levels of detail a v3 world stores
//! (docs/format/vwr-v3.md §13).

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::json;
use vwr::{lod, SessionOptions, WorldSession};

#[derive(Subcommand)]
pub enum LodCmd {
    /// Build, rebuild or drop the levels of detail of a v3 world. Level k stands for 2^k
    /// blocks per cell on each axis; level k is made from level k-1 keeping what is seen from
    /// outside (air only where all 8 cells are air, else the most common other block). Levels
    /// are stored as ordinary chunks, so every later save rebuilds only the ancestors of the
    /// chunks it changed. The file is rewritten once, atomically, keeping its history.
    ///
    /// Examples:
    ///   voxcaf world lod big.vwr                # as many as needed (and the file has room for)
    ///   voxcaf world lod big.vwr --levels 3
    ///   voxcaf world lod big.vwr --levels 0     # drop them
    ///   voxcaf world info big.vwr --json | jq .lod
    #[command(verbatim_doc_comment)]
    Lod(LodArgs),
}

#[derive(Args)]
pub struct LodArgs {
    /// The .vwr file (v3; convert a v2 world with `voxcaf world convert --format v3`).
    pub file: PathBuf,
    /// Levels above level 0, 0..=8 (0 drops them). Default: until one chunk of the coarsest
    /// level covers the whole world, or as many as the file's chunk indices have room for.
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=8))]
    pub levels: Option<u8>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

impl LodCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            LodCmd::Lod(a) => a.json,
        }
    }
}

/// Runs `world lod`; returns the exit code.
pub fn run(cmd: LodCmd) -> Result<u8> {
    let LodCmd::Lod(a) = cmd;
    crate::world::refuse_vox_history(&a.file, "world lod")?;
    let o = |e| crate::output::failed(&a.file, e);
    let t = std::time::Instant::now();
    let (mut s, _) =
        WorldSession::open(&a.file, SessionOptions::tool("voxcaf world lod")).map_err(o)?;
    let dims = s.file().chunk_dims();
    let levels = a
        .levels
        .unwrap_or_else(|| lod::levels_to_one_chunk(dims).min(lod::most_levels(dims)));
    let r = s.set_lod_levels(levels).map_err(o)?;
    drop(s);
    let stats = vwr::WorldFile::open(&a.file)
        .and_then(|mut f| f.codec_stats())
        .map_err(o)?
        .map(|c| c.levels)
        .unwrap_or_default();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let base = stats.first().map_or(0, |l| l.bytes);
    let pyramid: u64 = stats.iter().skip(1).map(|l| l.bytes).sum();
    if a.json {
        let v = json!({
            "ok": true, "file": a.file.display().to_string(), "levels": levels,
            "file_size": r.file_size, "ms": ms,
            "lod": stats.iter().map(|l| json!({"level": l.level, "chunks": l.chunks, "bytes": l.bytes})).collect::<Vec<_>>(),
            "pyramid_bytes": pyramid, "level0_bytes": base,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    if levels == 0 {
        let why = match a.levels {
            None if lod::levels_to_one_chunk(dims) > 0 => concat!(
                " (a world this size has no room for them: every level's chunks take chunk",
                " indices, and a file has 2^32-1)"
            ),
            _ => "",
        };
        crate::global::say!(
            "{}: no levels of detail{why}; {} bytes",
            a.file.display(),
            r.file_size
        );
        return Ok(0);
    }
    let share = match base {
        0 => String::new(),
        _ => format!(
            " = {:.1} % of level 0's {base}",
            100.0 * pyramid as f64 / base as f64
        ),
    };
    crate::global::say!(
        "{}: {levels} levels of detail, {pyramid} bytes{share} ({:.0} ms); {} bytes in all",
        a.file.display(),
        ms,
        r.file_size
    );
    for l in &stats {
        crate::global::say!(
            "  level {}: {}, {} bytes",
            l.level,
            crate::global::count(l.chunks, "chunk"),
            l.bytes
        );
    }
    Ok(0)
}
