//! `voxcaf world info|dump|check|resave|new`: the format-level world commands.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;
use vwr::{stats::WorldStats, World};

#[derive(Subcommand)]
pub enum WorldCmd {
    /// Show a world's header fields and storage statistics.
    Info {
        /// The .vwr files (`-` reads standard input); a folder stands for every .vwr file
        /// below it.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one JSON object instead of text (one per line for several files).
        #[arg(long)]
        json: bool,
    },
    /// Print the canonical text dump (header, non-air blocks, metadata records).
    ///
    /// On a load error prints `ERROR: <message>` and exits 1.
    Dump {
        /// The .vwr file (`-` reads standard input).
        file: PathBuf,
    },
    /// Check that worlds load; exit 1 if any does not.
    Check {
        /// The .vwr files (`-` reads standard input); a folder stands for every .vwr file
        /// below it.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also report (and fail on) oddities the original tolerates: non-zero padding bits,
        /// duplicate or unused palette entries, trailing bytes in a table entry, skyRegion above
        /// 31, MoveObjects with NaN positions, legacy v1 chunks and 45-byte MoveObjects.
        #[arg(long)]
        strict: bool,
        /// Print one JSON object per file (JSON lines).
        #[arg(long)]
        json: bool,
    },
    /// Load a world and save it again (atomic; byte-identical for files the original wrote).
    Resave {
        /// Input .vwr (`-` reads standard input).
        input: PathBuf,
        /// Output .vwr (may equal the input; `-` writes standard output; missing folders are
        /// created).
        output: PathBuf,
        /// Overwrite an existing output that is not a .vwr world.
        #[arg(long)]
        force: bool,
    },
    /// Write an empty world.
    New {
        /// Output .vwr (`-` writes standard output; missing folders are created).
        out: PathBuf,
        /// Chunks per axis (1..=255); the world has 10×N blocks per axis.
        #[arg(long, default_value_t = 10)]
        chunks: u32,
        /// Sky region (0-31).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=31))]
        sky: u32,
        /// Mission number (0 = none).
        #[arg(long, default_value_t = 0)]
        mission: u32,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
}

impl WorldCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            WorldCmd::Info { json, .. } | WorldCmd::Check { json, .. } => *json,
            _ => false,
        }
    }
}

/// Run one world command; returns the process exit code.
pub fn run(cmd: WorldCmd) -> Result<u8> {
    match cmd {
        WorldCmd::Info { files, json } => crate::inputs::info_each(&files, "vwr", json, info),
        WorldCmd::Dump { file } => dump(&file),
        WorldCmd::Check {
            files,
            strict,
            json,
        } => check(&crate::inputs::expand(&files, "vwr")?, strict, json),
        WorldCmd::Resave {
            input,
            output,
            force,
        } => {
            use crate::output as o;
            if !o::is_dash(&output) {
                o::check_file(&output, &[&input], &o::WORLD, force, true)?;
            }
            let t = Instant::now();
            let world = load(&input)?;
            if o::is_dash(&output) {
                return o::write_stdout(&world.to_bytes()).map(|_| 0);
            }
            o::create_parent(&output)?;
            world.save(&output).map_err(|e| o::failed(&output, e))?;
            println!(
                "{} -> {} ({} bytes, {:.2} ms)",
                input.display(),
                output.display(),
                std::fs::metadata(&output).map(|m| m.len()).unwrap_or(0),
                t.elapsed().as_secs_f64() * 1e3
            );
            Ok(0)
        }
        WorldCmd::New {
            out,
            chunks,
            sky,
            mission,
            force,
        } => {
            use crate::output as o;
            if !o::is_dash(&out) {
                o::check_file(&out, &[], &o::WORLD, true, false)?;
                if out.exists() && !force {
                    return Err(o::usage(
                        Some(&out),
                        "already exists; pass --force to overwrite it",
                    ));
                }
            }
            let mut world = World::with_chunks_per_axis(chunks)
                .map_err(|e| o::usage(None, format!("--chunks {chunks}: {e}")))?;
            world.set_sky_region(sky);
            world.set_mission_number(mission);
            if o::is_dash(&out) {
                return o::write_stdout(&world.to_bytes()).map(|_| 0);
            }
            o::create_parent(&out)?;
            world.save(&out).map_err(|e| o::failed(&out, e))?;
            println!(
                "wrote {}: {}³ chunks ({}³ blocks), {} bytes",
                out.display(),
                chunks,
                world.blocks_per_axis(),
                std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0)
            );
            Ok(0)
        }
    }
}

/// Loads a world (`-` reads standard input), with the file name once in the error.
pub fn load(path: &Path) -> Result<World> {
    let bytes = crate::output::read_input(path)?;
    World::from_bytes(&bytes).map_err(|e| crate::output::failed(path, e))
}

fn info(path: &Path, as_json: bool, pretty: bool) -> Result<u8> {
    let bytes = crate::output::read_input(path)?;
    let file_size = bytes.len() as u64;
    let world = World::from_bytes(&bytes).map_err(|e| crate::output::failed(path, e))?;
    let s = WorldStats::of(&world);
    let spawn = world.spawn();
    if as_json {
        let v = json!({
            "ok": true,
            "file": path.display().to_string(),
            "chunks_per_axis": s.chunks_per_axis,
            "blocks_per_axis": world.blocks_per_axis(),
            "sky_region": world.sky_region(),
            "mission_number": world.mission_number(),
            "spawn": spawn,
            "chunk_count": s.chunk_count,
            "non_empty_chunks": s.non_empty_chunks,
            "empty_chunks": s.chunk_count - s.non_empty_chunks,
            "uniform_chunks": s.uniform_chunks,
            "non_air_blocks": s.non_air_blocks,
            "bits_per_block": s.bits_histogram.iter().map(|(k, v)| (k.to_string(), json!(*v))).collect::<serde_json::Map<_, _>>(),
            "palette_sizes": s.palette_sizes.iter().map(|(k, v)| (k.to_string(), json!(*v))).collect::<serde_json::Map<_, _>>(),
            "metadata_records": s.metadata_records,
            "metadata_by_type": s.records_by_type.iter().map(|(k, v)| (k.to_string(), json!(*v))).collect::<serde_json::Map<_, _>>(),
            "file_size": file_size,
        });
        if pretty {
            println!("{}", serde_json::to_string_pretty(&v)?);
        } else {
            println!("{v}");
        }
        return Ok(0);
    }
    let mut o = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(o, "{}", path.display());
    let _ = writeln!(
        o,
        "  size            {} chunks per axis ({}³ blocks)",
        s.chunks_per_axis,
        world.blocks_per_axis()
    );
    let _ = writeln!(o, "  sky region      {}", world.sky_region());
    let _ = writeln!(o, "  mission number  {}", world.mission_number());
    let _ = writeln!(
        o,
        "  spawn           {}",
        spawn.map_or("none".to_string(), |[x, y, z]| format!("({x}, {y}, {z})"))
    );
    let _ = writeln!(
        o,
        "  chunks          {} stored ({} uniform), {} empty, of {}",
        s.non_empty_chunks,
        s.uniform_chunks,
        s.chunk_count - s.non_empty_chunks,
        s.chunk_count
    );
    let _ = writeln!(o, "  non-air blocks  {}", s.non_air_blocks);
    let hist = |m: &mut dyn Iterator<Item = (String, u64)>| {
        m.map(|(k, v)| format!("{k}:{v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(
        o,
        "  bits per block  {}",
        non_empty(hist(
            &mut s.bits_histogram.iter().map(|(k, v)| (k.to_string(), *v))
        ))
    );
    let _ = writeln!(
        o,
        "  palette sizes   {}",
        non_empty(hist(
            &mut s.palette_sizes.iter().map(|(k, v)| (k.to_string(), *v))
        ))
    );
    let names = |t: u16| match vwr::record_type_name(t) {
        Some(n) => format!("{t} ({n})"),
        None => t.to_string(),
    };
    let _ = writeln!(o, "  metadata        {} records", s.metadata_records);
    for (t, c) in &s.records_by_type {
        let _ = writeln!(o, "    type {:<20} {c}", names(*t));
    }
    let _ = writeln!(o, "  file size       {file_size} bytes");
    print!("{o}");
    Ok(0)
}

fn non_empty(s: String) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s
    }
}

fn dump(path: &Path) -> Result<u8> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match crate::output::read_input(path)
        .map_err(|e| e.to_string())
        .and_then(|b| World::from_bytes(&b).map_err(|e| e.to_string()))
    {
        Ok(world) => {
            out.write_all(vwr::dump::dump(&world).as_bytes())?;
            out.flush()?;
            Ok(0)
        }
        Err(msg) => {
            writeln!(out, "ERROR: {msg}")?;
            out.flush()?;
            Ok(1)
        }
    }
}

fn check(files: &[PathBuf], strict: bool, as_json: bool) -> Result<u8> {
    let mut failed = 0usize;
    for path in files {
        let result = crate::output::read_input(path)
            .map_err(|e| e.to_string())
            .and_then(|b| vwr::read_world_checked(&b).map_err(|e| e.to_string()));
        let (ok, reason, warnings) = match &result {
            Ok((_, odd)) => {
                let warnings: Vec<String> = if strict {
                    odd.iter().map(|o| o.to_string()).collect()
                } else {
                    Vec::new()
                };
                (warnings.is_empty(), None, warnings)
            }
            Err(e) => (false, Some(e.clone()), Vec::new()),
        };
        if !ok {
            failed += 1;
        }
        if as_json {
            println!(
                "{}",
                json!({"file": path.display().to_string(), "ok": ok, "error": reason, "warnings": warnings})
            );
        } else if let Some(r) = reason {
            println!("FAIL {}: {r}", path.display());
        } else if !warnings.is_empty() {
            println!("WARN {}: {} oddities", path.display(), warnings.len());
            for w in warnings {
                println!("  - {w}");
            }
        } else {
            println!("OK   {}", path.display());
        }
    }
    if !as_json && files.len() > 1 {
        println!("{} of {} files passed", files.len() - failed, files.len());
    }
    Ok(if failed == 0 { 0 } else { 1 })
}
