//! `voxcaf world info|dump|check|resave|new|convert|get`: the format-level world commands.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;
use vwr::{stats::WorldStats, SaveOptions, World, WorldFile};

use crate::world_args::{save_options, CodecArg, ConvertArgs, FormatArg};

/// Parses `XxYxZ` block sizes (multiples of 10) into chunk counts.
fn parse_size(s: &str) -> std::result::Result<[u32; 3], String> {
    let blocks: [u32; 3] =
        crate::lists::numbers(s, &['x', 'X'], "XxYxZ in blocks, e.g. 1000x100x1000")?;
    let mut out = [0u32; 3];
    for (o, v) in out.iter_mut().zip(blocks) {
        if v == 0 || v % 10 != 0 {
            return Err(format!(
                "{s:?}: {v} is not a positive multiple of 10 (chunks are 10 blocks)"
            ));
        }
        *o = v / 10;
    }
    Ok(out)
}

/// A block position given as three arguments (`50 1 50`) or as one (`50,1,50`).
fn block_position(at: &[String]) -> Result<[i32; 3]> {
    let shape = "X Y Z or X,Y,Z";
    match at {
        [one] => crate::lists::numbers(one, &[','], shape),
        _ => crate::lists::numbers(&at.join(" "), &[' '], shape),
    }
    .map_err(|e| crate::output::usage(None, format!("the block position: {e}")))
}

#[derive(Subcommand)]
pub enum WorldCmd {
    /// Show a world's header fields and storage statistics.
    Info {
        /// The .vwr files (`-` reads standard input; a folder stands for every .vwr file
        /// below it), or database worlds, postgres://USER@HOST:PORT/DB?world=NAME.
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
        /// The .vwr file (`-` reads standard input), or a database world,
        /// postgres://USER@HOST:PORT/DB?world=NAME.
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
        /// Output .vwr (may equal the input).
        #[command(flatten)]
        output: crate::out_arg::OutArg,
        /// Overwrite an existing output that is not a .vwr world.
        #[arg(long)]
        force: bool,
    },
    /// Write an empty world.
    ///
    /// Examples:
    ///   voxcaf world new level.vwr                        (100³ blocks, v2)
    ///   voxcaf world new big.vwr --size 1000x100x1000     (v3: not cubic)
    ///   voxcaf world new cube.vwr --chunks 40 --format v3
    ///   voxcaf world new 'postgres://me@localhost/game?world=level1' --size 1000x100x1000
    #[command(verbatim_doc_comment)]
    New {
        /// Output .vwr.
        #[command(flatten)]
        out: crate::out_arg::OutArg,
        /// Chunks per axis of a cubic world (1..=255); the world has 10×N blocks per axis.
        #[arg(long, default_value_t = 10, conflicts_with = "size")]
        chunks: u32,
        /// World size in blocks, XxYxZ, each a multiple of 10 (up to 655350 per axis).
        #[arg(long, value_parser = parse_size)]
        size: Option<[u32; 3]>,
        /// File format: v2 when the world fits it, else v3.
        #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
        format: FormatArg,
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
    /// Convert a world: between v2 and v3, between v3 codecs, and to and from MagicaVoxel
    /// .vox (the direction follows the extensions). The save is atomic.
    ///
    /// .vwr -> .vwr: a v3 world that fits v2 converts back to the original writer's exact bytes.
    /// .vox -> .vwr places every model of the scene (translations and 90° rotations) in one
    /// world, the smallest cubic world that holds it (with --tight: the smallest per axis, in
    /// v3), and maps colours to the block type of nearest registry colour, or through --palette.
    /// .vwr -> .vox writes each distinct block value (at most 255) as a palette entry with its
    /// registry colour and records the mapping in the file, so converting back gives the same
    /// blocks; MoveObjects and other metadata cannot go into a .vox and are reported. Anything
    /// not carried over is printed as a warning.
    ///
    /// Examples:
    ///   voxcaf world convert level.vwr level3.vwr --format v3
    ///   voxcaf world convert level3.vwr level.vwr --format v2
    ///   voxcaf world convert big.vwr small.vwr --codec zstd --level 19
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
    /// Print one block, reading only what it needs (header, one index page, one chunk).
    ///
    /// Examples:
    ///   voxcaf world get big.vwr 500 40 500 --json
    ///   voxcaf world get big.vwr 500,40,500
    #[command(verbatim_doc_comment)]
    Get {
        /// The .vwr file (v2 or v3; `-` reads standard input whole), or a database world,
        /// postgres://USER@HOST:PORT/DB?world=NAME (one chunk read).
        file: PathBuf,
        /// Block x, or the whole position as one X,Y,Z (as `world ray --from` takes it).
        #[arg(value_name = "X", allow_hyphen_values = true)]
        x: String,
        /// Block y (not given with X,Y,Z).
        #[arg(value_name = "Y", allow_hyphen_values = true)]
        y: Option<String>,
        /// Block z (not given with X,Y,Z).
        #[arg(value_name = "Z", allow_hyphen_values = true)]
        z: Option<String>,
        /// Print a JSON object.
        #[arg(long)]
        json: bool,
    },
}

impl WorldCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            WorldCmd::Info { json, .. }
            | WorldCmd::Check { json, .. }
            | WorldCmd::Get { json, .. }
            | WorldCmd::Convert(ConvertArgs { json, .. }) => *json,
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
            let output = output.path();
            if !o::is_dash(&output) {
                o::check_file(&output, &[&input], &o::WORLD, force, true)?;
            }
            let t = Instant::now();
            let bytes = o::read_input(&input)?;
            let world = World::from_bytes(&bytes).map_err(|e| o::failed(&input, e))?;
            // A resave keeps the file's format; `world convert --format` changes it.
            let opts = SaveOptions {
                lod: vwr::lod::stored_levels(&bytes),
                ..SaveOptions::of_version(vwr::world_version(&bytes).unwrap_or(2))
            };
            if o::is_dash(&output) {
                let out = world
                    .to_bytes_with(&opts)
                    .map_err(|e| o::failed(&input, e))?;
                return o::write_stdout(&out).map(|_| 0);
            }
            if o::same_file(&input, &output) {
                resave_in_place(&output, &world, &opts)?;
            } else {
                o::create_parent(&output)?;
                world
                    .save_with(&output, &opts)
                    .map_err(|e| o::failed(&output, e))?;
            }
            crate::global::say!(
                "{} -> {} ({} bytes, {:.2} ms)",
                input.display(),
                output.display(),
                std::fs::metadata(&output).map(|m| m.len()).unwrap_or(0),
                t.elapsed().as_secs_f64() * 1e3
            );
            Ok(0)
        }
        WorldCmd::Convert(args) => convert(&args),
        WorldCmd::Get {
            file,
            x,
            y,
            z,
            json,
        } => {
            let at: Vec<String> = [Some(x), y, z].into_iter().flatten().collect();
            get(&file, block_position(&at)?, json)
        }
        WorldCmd::New {
            out,
            chunks,
            size,
            format,
            sky,
            mission,
            force,
        } => {
            use crate::output as o;
            let out = out.path();
            if matches!(format, FormatArg::Vox) {
                return Err(o::usage(
                    None,
                    "--format vox: world new writes .vwr worlds (v2 or v3); make a .vox with `voxcaf world convert NEW.vwr OUT.vox`",
                ));
            }
            let db = crate::world_db::is_db(&out);
            if !o::is_dash(&out) && !db {
                o::check_file(&out, &[], &o::WORLD, true, false)?;
                if out.exists() && !force {
                    return Err(o::usage(
                        Some(&out),
                        "already exists; pass --force to overwrite it",
                    ));
                }
            }
            let mut world = match size {
                Some(dims) => World::with_chunk_dims(dims).map_err(|e| {
                    o::usage(
                        None,
                        format!("--size {}: {e}", size_text(dims.map(|d| d * 10))),
                    )
                })?,
                None => World::with_chunks_per_axis(chunks)
                    .map_err(|e| o::usage(None, format!("--chunks {chunks}: {e}")))?,
            };
            world.set_sky_region(sky);
            world.set_mission_number(mission);
            let opts = save_options(
                format,
                CodecArg::Auto,
                vwr::DEFAULT_ZSTD_LEVEL,
                "voxcaf world new",
            );
            if db {
                let v3 = matches!(format, FormatArg::V3) || !world.fits_v2();
                return crate::world_db::create(&out, &world, if v3 { 3 } else { 2 }, force);
            }
            let bytes = world
                .to_bytes_with(&opts)
                .map_err(|e| o::usage(None, e.to_string()))?;
            if o::is_dash(&out) {
                return o::write_stdout(&bytes).map(|_| 0);
            }
            o::create_parent(&out)?;
            voxcaf_fs::write_atomic(&out, &bytes).map_err(|e| o::failed(&out, e))?;
            crate::global::say!(
                "wrote {}: {} chunks ({} blocks), v{}, {} bytes",
                out.display(),
                size_text(world.chunk_dims()),
                size_text(world.block_dims()),
                vwr::world_version(&bytes).unwrap_or(0),
                bytes.len()
            );
            Ok(0)
        }
    }
}

/// `world resave F F`: under the file's write lock; a v3 file is compacted (its kept history
/// stays), a v2 file rewritten.
fn resave_in_place(path: &Path, world: &World, opts: &SaveOptions) -> Result<()> {
    let o = |e| crate::output::failed(path, e);
    let (mut session, _) =
        vwr::WorldSession::open(path, vwr::SessionOptions::tool("voxcaf world resave"))
            .map_err(o)?;
    if session.file().has_history() {
        session.compact().map_err(o)?;
    } else {
        world.save_with(path, opts).map_err(o)?;
    }
    Ok(())
}

fn size_text(d: [u32; 3]) -> String {
    if d[0] == d[1] && d[1] == d[2] {
        format!("{}³", d[0])
    } else {
        format!("{}x{}x{}", d[0], d[1], d[2])
    }
}

fn convert(a: &ConvertArgs) -> Result<u8> {
    use crate::output as o;
    use crate::world_vox;
    let (input, output) = (a.input.as_path(), a.output.as_path());
    if world_vox::involves_vox(input, output) || matches!(a.format, FormatArg::Vox) {
        return world_vox::convert(a, None);
    }
    if !o::is_dash(input) && input.extension().is_none_or(|e| e != "vwr") {
        return Err(o::usage(
            Some(input),
            "unknown input type; use a .vwr or .vox file",
        ));
    }
    if o::is_dash(input) && o::is_dash(output) {
        return Err(o::usage(
            None,
            "the input and the output cannot both be `-`; name one file",
        ));
    }
    if !o::is_dash(output) {
        o::check_file(output, &[input], &o::WORLD, a.force, true)?;
    }
    let t = Instant::now();
    let spinner = o::spinner(format!("converting {}", input.display()));
    let in_bytes = o::read_input(input)?;
    if in_bytes.starts_with(b"VOX ") {
        // `-` holding a .vox model.
        return world_vox::convert(a, Some(in_bytes));
    }
    for (flag, given) in [
        ("--palette", a.palette.is_some()),
        ("--origin", a.origin.is_some()),
        ("--tight", a.tight),
    ] {
        if given {
            return Err(o::usage(
                None,
                format!("{flag} applies to .vox conversions; both sides here are .vwr worlds"),
            ));
        }
    }
    let world = World::from_bytes(&in_bytes).map_err(|e| o::failed(input, e))?;
    let mut opts = a.save_options();
    if opts.writes_v3(&world) {
        // A v3 copy keeps the levels of detail the input stores (v2 cannot hold them).
        opts.lod = vwr::lod::stored_levels(&in_bytes);
    }
    if !matches!(a.codec, CodecArg::Auto) && !opts.writes_v3(&world) {
        return Err(o::usage(
            None,
            "--codec applies to v3 files, and this world is written as v2 (the original format, which it fits); add --format v3 to use the codec",
        ));
    }
    let bytes = world
        .to_bytes_with(&opts)
        .map_err(|e| o::usage(Some(input), e.to_string()))?;
    if o::is_dash(output) {
        return o::write_stdout(&bytes).map(|_| 0);
    }
    o::create_parent(output)?;
    voxcaf_fs::write_atomic(output, &bytes).map_err(|e| o::failed(output, e))?;
    drop(spinner);
    let (x, y) = (in_bytes.len() as f64, bytes.len().max(1) as f64);
    let ratio = if x >= y {
        format!("{:.1}x smaller", x / y)
    } else {
        format!("{:.1}x larger", y / x)
    };
    if a.json {
        println!(
            "{}",
            json!({"ok": true, "file": input.display().to_string(),
                   "out": output.display().to_string(),
                   "version_in": vwr::world_version(&in_bytes), "bytes_in": in_bytes.len(),
                   "version_out": vwr::world_version(&bytes), "bytes_out": bytes.len()})
        );
        return Ok(0);
    }
    crate::global::say!(
        "{} (v{}, {} bytes) -> {} (v{}, {} bytes, {ratio}, {:.2} ms)",
        input.display(),
        vwr::world_version(&in_bytes).unwrap_or(0),
        in_bytes.len(),
        output.display(),
        vwr::world_version(&bytes).unwrap_or(0),
        bytes.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    Ok(0)
}

fn get(path: &Path, p: [i32; 3], as_json: bool) -> Result<u8> {
    use crate::output as o;
    let is_vox = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("vox"));
    let (block, dims) = if let Some(loc) = crate::world_db::location(path) {
        crate::world_db::get_block(&loc?, p)?
    } else if o::is_dash(path) || is_vox {
        let w = load(path)?;
        (w.get_block(p), w.block_dims())
    } else {
        let f = WorldFile::open(path).map_err(|e| o::failed(path, e))?;
        let b = f.get_block(p).map_err(|e| o::failed(path, e))?;
        (b, f.chunk_dims().map(|d| d * 10))
    };
    let inside = (0..3).all(|k| p[k] >= 0 && (p[k] as u32) < dims[k]);
    if as_json {
        println!(
            "{}",
            json!({"ok": true, "file": path.display().to_string(), "cell": p,
                   "inside": inside, "type": block.block_type(), "meta": block.metadata(),
                   "raw": block.raw()})
        );
    } else {
        let name = if inside { "" } else { "  (outside the world)" };
        println!(
            "({}, {}, {}) type {} meta {} raw {}{name}",
            p[0],
            p[1],
            p[2],
            block.block_type(),
            block.metadata(),
            block.raw()
        );
    }
    Ok(0)
}

/// Loads a world (`-` reads standard input), with the file name once in the error.
pub fn load(path: &Path) -> Result<World> {
    if let Some(loc) = crate::world_db::location(path) {
        return crate::world_db::load(&loc?);
    }
    let bytes = crate::output::read_input(path)?;
    from_bytes(path, &bytes)
}

/// The world in `bytes` (a `.vwr` world, or a `.vox` model read as a world), its error as bare
/// text for the lines of `check` and `dump`, which name the file themselves.
fn world_of(bytes: &[u8]) -> std::result::Result<World, String> {
    if bytes.starts_with(b"VOX ") {
        return vwr_vox::import(bytes, &vwr_vox::ImportOptions::default())
            .map(|o| o.world)
            .map_err(|e| e.to_string());
    }
    World::from_bytes(bytes).map_err(|e| e.to_string())
}

/// The world in `bytes` read from `path`: a `.vwr` world, or a MagicaVoxel `.vox` model read
/// as a world (as `world convert` imports it, every model placed, frame 0), its import
/// warnings said as notes; so that every command that reads a world reads a `.vox` too.
pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<World> {
    if bytes.starts_with(b"VOX ") {
        let out = vwr_vox::import(bytes, &vwr_vox::ImportOptions::default())
            .map_err(|e| crate::output::failed(path, e))?;
        for w in &out.warnings {
            crate::global::note(format!("{}: {w}", path.display()));
        }
        return Ok(out.world);
    }
    World::from_bytes(bytes).map_err(|e| crate::output::failed(path, e))
}

/// Whether the file at `path` (not standard input) starts as a MagicaVoxel `.vox` model.
pub fn is_vox_file(path: &Path) -> bool {
    use std::io::Read as _;
    let mut magic = [0u8; 4];
    !crate::output::is_dash(path)
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut magic))
            .is_ok()
        && &magic == b"VOX "
}

/// Refuses a `.vox` model for a command that works on a world's commit history.
pub fn refuse_vox_history(path: &Path, command: &str) -> Result<()> {
    if !is_vox_file(path) {
        return Ok(());
    }
    Err(crate::output::failed(
        path,
        format!(
            "this is a MagicaVoxel .vox model, which keeps no commit history for {command}; \
             only v3 worlds do: `voxcaf world convert {} WORLD.vwr --format v3` makes one",
            path.display()
        ),
    ))
}

fn info(path: &Path, as_json: bool, pretty: bool) -> Result<u8> {
    if crate::world_db::is_db(path) {
        return crate::world_db::info(path, as_json);
    }
    let bytes = crate::output::read_input(path)?;
    let file_size = bytes.len() as u64;
    let world = from_bytes(path, &bytes)?;
    let s = WorldStats::of(&world);
    let spawn = world.spawn();
    let version = vwr::world_version(&bytes).unwrap_or(0);
    let codec = vwr::codec_stats(&bytes).map_err(|e| crate::output::failed(path, e))?;
    // v3: every byte of the file in one part (vwr-v3.md §12).
    let parts = vwr::file_bytes(&bytes)
        .map_err(|e| crate::output::failed(path, e))?
        .map(|b| b.parts());
    if as_json {
        let v = json!({
            "ok": true,
            "file": path.display().to_string(),
            "version": version,
            "vox": bytes.starts_with(b"VOX "),
            "chunks_per_axis": s.chunks_per_axis,
            "chunk_dims": s.chunk_dims,
            "blocks_per_axis": world.blocks_per_axis(),
            "block_dims": world.block_dims(),
            "codec": codec.as_ref().map(|c| json!({
                "generation": c.generation, "uniform": c.uniform, "packed": c.packed,
                "rle": c.rle, "raw": c.raw, "zstd": c.zstd, "grouped": c.grouped,
                "groups": c.groups, "payload_bytes": c.payload_bytes,
                "stored_bytes": c.stored_bytes, "index_bytes": c.index_bytes,
                "live_bytes": c.live_bytes,
                "v2_size": s.v2_size,
                "ratio": s.v2_size.map(|v| v as f64 / file_size.max(1) as f64),
            })),
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
            "lod": codec.as_ref().map(|c| c.levels.iter().map(|l| json!({
                "level": l.level, "chunks": l.chunks, "bytes": l.bytes,
            })).collect::<Vec<_>>()),
            "file_bytes": parts.map(|p| p.iter().map(|(k, v)| (k.replace(' ', "_"), json!(*v))).collect::<serde_json::Map<_, _>>()),
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
    if bytes.starts_with(b"VOX ") {
        let _ = writeln!(o, "  format          MagicaVoxel .vox (read as a world)");
    } else {
        let _ = writeln!(o, "  format          v{version}");
    }
    let _ = writeln!(
        o,
        "  size            {} chunks ({} blocks)",
        size_text(world.chunk_dims()),
        size_text(world.block_dims())
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
    let _ = writeln!(
        o,
        "  metadata        {}",
        crate::global::count(s.metadata_records, "record")
    );
    for (t, c) in &s.records_by_type {
        let _ = writeln!(o, "    type {:<20} {c}", names(*t));
    }
    if let Some(c) = &codec {
        let _ = writeln!(
            o,
            "  codecs          {} uniform, {} packed, {} rle; {} raw, {} zstd frames, {} in {} groups",
            c.uniform, c.packed, c.rle, c.raw, c.zstd, c.grouped, c.groups
        );
        levels_text(&mut o, &c.levels);
        let _ = writeln!(
            o,
            "  payload bytes   {} before, {} after compression; index {} bytes; generation {}",
            c.payload_bytes, c.stored_bytes, c.index_bytes, c.generation
        );
        if let Some(v2) = s.v2_size {
            let _ = writeln!(
                o,
                "  ratio           {:.1}x smaller than v2 ({v2} bytes)",
                v2 as f64 / file_size.max(1) as f64
            );
        }
    }
    if let Some(p) = parts {
        let each: Vec<String> = p.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(o, "  file bytes      {}", each.join(", "));
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
    let world = if crate::world_db::is_db(path) {
        load(path).map_err(|e| format!("{e:#}"))
    } else {
        crate::output::read_input(path)
            .map_err(|e| e.to_string())
            .and_then(|b| world_of(&b))
    };
    match world {
        Ok(world) => {
            vwr::dump::write_dump_to(&world, &mut out)?;
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
        let spinner = crate::output::spinner(format!("checking {}", path.display()));
        let result = if crate::world_db::is_db(path) {
            // Every row's CRC and fields are checked as the world is read.
            load(path).map(|w| (w, Vec::new())).map_err(|e| {
                // The line names the world already.
                let m = format!("{e:#}");
                let named = format!("{}: ", path.display());
                m.strip_prefix(&named).map_or(m.clone(), str::to_string)
            })
        } else {
            crate::output::read_input(path)
                .map_err(|e| e.to_string())
                .and_then(|b| {
                    // The oddity scan only when asked: without --strict a check is a load.
                    if strict && !b.starts_with(b"VOX ") {
                        vwr::read_world_checked(&b).map_err(|e| e.to_string())
                    } else {
                        world_of(&b).map(|w| (w, Vec::new()))
                    }
                })
        };
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
        drop(spinner);
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
            crate::global::say!("OK   {}", path.display());
        }
    }
    if !as_json && files.len() > 1 {
        crate::global::say!(
            "{} of {} passed",
            files.len() - failed,
            crate::global::count(files.len() as u64, "file")
        );
    }
    Ok(if failed == 0 { 0 } else { 1 })
}

/// The `levels` lines of `world info`: each stored level of detail and its share of level 0.
fn levels_text(o: &mut String, levels: &[vwr::LevelStats]) {
    use std::fmt::Write as _;
    let [first, rest @ ..] = levels else { return };
    if rest.is_empty() {
        return;
    }
    let base = first.bytes.max(1) as f64;
    let _ = writeln!(
        o,
        "  levels          level 0: {}, {} bytes",
        crate::global::count(first.chunks, "chunk"),
        first.bytes
    );
    for l in rest {
        let pct = 100.0 * l.bytes as f64 / base;
        let _ = writeln!(
            o,
            "                  level {}: {}, {} bytes ({pct:.1} %)",
            l.level,
            crate::global::count(l.chunks, "chunk"),
            l.bytes
        );
    }
}
