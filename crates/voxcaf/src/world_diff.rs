//! `voxcaf world stats` (the blocks a world holds, by type) and `voxcaf world diff A B` (which
//! chunks and cells differ). Both read `.vwr` files chunk by chunk through [`WorldFile`], so
//! memory stays at a few decoded chunks whatever the world's size; the time grows with the
//! number of chunk slots. A MagicaVoxel `.vox` model is read whole, as a world.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;
use vwr::{local_position, Block, Chunk, World, WorldFields, WorldFile, CHUNK_SIZE, CHUNK_VOLUME};

#[derive(Subcommand)]
pub enum DiffCmd {
    /// Count a world's blocks by type (with registry names), and the box that holds them
    ///
    /// Reads one chunk at a time, so memory stays small for any world (`world info` gives the
    /// storage statistics).
    ///
    /// Examples:
    ///   voxcaf world stats level.vwr
    ///   voxcaf world stats big.vwr --json
    ///   voxcaf world stats castle.vox
    #[command(verbatim_doc_comment)]
    Stats {
        /// The .vwr file (v2 or v3), or a MagicaVoxel .vox model read as a world.
        file: PathBuf,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Compare two worlds: sizes, world-wide fields, and which chunks and cells differ
    ///
    /// Exit status as for `diff`: 0 the same, 1 different, 2 trouble (a file that does not
    /// load, a usage error). Reads one chunk of each file at a time.
    ///
    /// Examples:
    ///   voxcaf world diff before.vwr after.vwr
    ///   voxcaf world diff a.vwr b.vwr --max 100 --json
    ///   voxcaf world diff castle.vox castle.vwr        (a .vox model read as a world)
    #[command(verbatim_doc_comment)]
    Diff {
        /// The first world (.vwr, v2 or v3, or a .vox model read as a world).
        a: PathBuf,
        /// The second world.
        b: PathBuf,
        /// How many differing cells to list (all are counted).
        #[arg(long, default_value_t = 20)]
        max: usize,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

impl DiffCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            DiffCmd::Stats { json, .. } | DiffCmd::Diff { json, .. } => *json,
        }
    }
}

/// Run `world stats` or `world diff`; returns the process exit code.
pub fn run(cmd: DiffCmd) -> Result<u8> {
    match cmd {
        DiffCmd::Stats { file, json } => stats(&file, json),
        DiffCmd::Diff { a, b, max, json } => match diff(&a, &b, max, json) {
            Ok(code) => Ok(code),
            // 1 means "different" here, so trouble is 2, as for `diff` and `cmp`.
            Err(e) => {
                if json {
                    println!("{}", crate::output::error_json(&e));
                } else {
                    crate::global::print_error(&e);
                }
                Ok(2)
            }
        },
    }
}

/// A world read chunk by chunk: a `.vwr` file lazily, keeping at most a couple of decoded
/// chunks, or a MagicaVoxel `.vox` model imported whole (as `world convert` imports it; a
/// model's size is bounded by its file).
enum Source {
    File(WorldFile),
    Vox(World),
}

impl Source {
    fn open(path: &Path) -> Result<Source> {
        crate::output::no_dash(
            path,
            "an input of world stats or diff (they read files lazily)",
        )?;
        if crate::world::is_vox_file(path) {
            return Ok(Source::Vox(crate::world::load(path)?));
        }
        Ok(Source::File(
            WorldFile::open(path)
                .map_err(|e| crate::output::failed(path, e))?
                .with_cache_chunks(2),
        ))
    }

    fn chunk_dims(&self) -> [u32; 3] {
        match self {
            Source::File(f) => f.chunk_dims(),
            Source::Vox(w) => w.chunk_dims(),
        }
    }

    /// The header version; none for a `.vox` model.
    fn version(&self) -> Option<u8> {
        match self {
            Source::File(f) => Some(f.version()),
            Source::Vox(_) => None,
        }
    }

    fn fields(&self, path: &Path) -> Result<WorldFields> {
        match self {
            Source::File(f) => f.fields().map_err(|e| crate::output::failed(path, e)),
            Source::Vox(w) => Ok(w.fields()),
        }
    }

    /// The chunks stored, in file order, when the source lists them (v3, `.vox`, a v2 file's
    /// table entries not marked empty; see `WorldFile::stored_chunks`).
    fn stored_chunks(&mut self, path: &Path) -> Result<Option<Vec<[u32; 3]>>> {
        match self {
            Source::File(f) => f
                .stored_chunks()
                .map_err(|e| crate::output::failed(path, e)),
            Source::Vox(w) => {
                let mut list: Vec<[u32; 3]> = w.non_empty_chunks().map(|(p, _)| p).collect();
                list.sort_unstable_by_key(|p| (p[2], p[1], p[0]));
                Ok(Some(list))
            }
        }
    }

    fn chunk(&self, pos: [u32; 3], path: &Path) -> Result<Option<Arc<Chunk>>> {
        match self {
            Source::File(f) => f.chunk(pos).map_err(|e| crate::output::failed(path, e)),
            Source::Vox(w) => Ok(w.chunk(pos).map(|c| Arc::new(c.clone()))),
        }
    }
}

/// Calls `f` for every chunk position inside `dims`, in file order (x fastest).
fn each_chunk(dims: [u32; 3], mut f: impl FnMut([u32; 3]) -> Result<()>) -> Result<()> {
    for z in 0..dims[2] {
        for y in 0..dims[1] {
            for x in 0..dims[0] {
                f([x, y, z])?;
            }
        }
    }
    Ok(())
}

/// The block position of cell `i` of the chunk at `pos`.
fn cell(pos: [u32; 3], i: usize) -> [i64; 3] {
    let l = local_position(i);
    [0, 1, 2].map(|k| pos[k] as i64 * CHUNK_SIZE as i64 + l[k] as i64)
}

fn block_text(b: Block) -> String {
    format!(
        "{}:{} {}",
        b.block_type(),
        b.metadata(),
        vwr_blocks::default_registry().name(b.block_type())
    )
}

fn stats(path: &Path, as_json: bool) -> Result<u8> {
    let mut f = Source::open(path)?;
    let dims = f.chunk_dims();
    let list = f.stored_chunks(path)?;
    let mut by_type: BTreeMap<u16, u64> = BTreeMap::new();
    let (mut stored, mut records) = (0u64, 0u64);
    let mut bounds: Option<([i64; 3], [i64; 3])> = None;
    let mut visit = |pos: [u32; 3]| -> Result<()> {
        let Some(c) = f.chunk(pos, path)? else {
            return Ok(());
        };
        stored += 1;
        records += c.records().len() as u64;
        c.for_each_non_air(|i, b| {
            *by_type.entry(b.block_type()).or_default() += 1;
            let p = cell(pos, i);
            let (lo, hi) = bounds.get_or_insert((p, p));
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        });
        Ok(())
    };
    match list {
        Some(list) => list.into_iter().try_for_each(&mut visit)?,
        None => each_chunk(dims, visit)?,
    }
    let non_air: u64 = by_type.values().sum();
    let mut rows: Vec<(u16, u64)> = by_type.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let reg = vwr_blocks::default_registry();
    if as_json {
        let v = json!({
            "ok": true, "file": path.display().to_string(), "version": f.version(),
            "vox": matches!(f, Source::Vox(_)),
            "chunk_dims": dims, "chunks_stored": stored, "non_air_blocks": non_air,
            "metadata_records": records,
            "bounds": bounds.map(|(lo, hi)| json!({"min": lo, "max": hi})),
            "types": rows.iter().map(|&(t, n)| json!({
                "type": t, "name": reg.name(t), "blocks": n,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    println!("{}", path.display());
    println!(
        "  chunks          {} stored of {}",
        stored,
        dims.iter().map(|&d| d as u64).product::<u64>()
    );
    println!("  non-air blocks  {non_air}");
    println!(
        "  metadata        {}",
        crate::global::count(records, "record")
    );
    if let Some((lo, hi)) = bounds {
        println!(
            "  bounds          ({}, {}, {}) to ({}, {}, {})",
            lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]
        );
    }
    println!(
        "  {:>5}  {:<16} {:>12} {:>7}",
        "type", "name", "blocks", "share"
    );
    for (t, n) in rows {
        println!(
            "  {t:>5}  {:<16} {n:>12} {:>6.2}%",
            reg.name(t),
            n as f64 * 100.0 / non_air.max(1) as f64
        );
    }
    Ok(0)
}

/// What `world diff` found.
#[derive(Default)]
struct Found {
    cells: u64,
    chunks: u64,
    record_chunks: u64,
    first: Vec<([i64; 3], Block, Block)>,
    record_first: Vec<[u32; 3]>,
}

impl Found {
    /// Compares the chunk at `pos` of both files.
    fn chunk(&mut self, pos: [u32; 3], a: Option<Arc<Chunk>>, b: Option<Arc<Chunk>>, max: usize) {
        let get = |c: &Option<Arc<Chunk>>, i: usize| c.as_ref().map_or(Block::AIR, |c| c.get(i));
        let mut differs = false;
        for i in 0..CHUNK_VOLUME {
            let (x, y) = (get(&a, i), get(&b, i));
            if x != y {
                differs = true;
                self.cells += 1;
                if self.first.len() < max {
                    self.first.push((cell(pos, i), x, y));
                }
            }
        }
        self.chunks += u64::from(differs);
        let records = |c: &Option<Arc<Chunk>>| c.as_ref().map(|c| c.records().to_vec());
        let (ra, rb) = (
            records(&a).unwrap_or_default(),
            records(&b).unwrap_or_default(),
        );
        if ra != rb {
            self.record_chunks += 1;
            if self.record_first.len() < max {
                self.record_first.push(pos);
            }
        }
    }
}

fn diff(a: &Path, b: &Path, max: usize, as_json: bool) -> Result<u8> {
    let (mut fa, mut fb) = (Source::open(a)?, Source::open(b)?);
    let (da, db) = (fa.chunk_dims(), fb.chunk_dims());
    let fields_differ = fa.fields(a)? != fb.fields(b)?;
    let union = [0, 1, 2].map(|k| da[k].max(db[k]));
    let mut found = Found::default();
    // Two sources that list their chunks (v3, .vox, v2 in the original's layout): only the
    // chunks either stores; otherwise every position.
    let lists = (fa.stored_chunks(a)?, fb.stored_chunks(b)?);
    let mut visit = |pos: [u32; 3]| -> Result<()> {
        let ca = fa.chunk(pos, a)?;
        let cb = fb.chunk(pos, b)?;
        if ca.is_some() || cb.is_some() {
            found.chunk(pos, ca, cb, max);
        }
        Ok(())
    };
    match lists {
        (Some(sa), Some(sb)) => {
            let mut all: Vec<[u32; 3]> = sa.into_iter().chain(sb).collect();
            all.sort_unstable_by_key(|p| (p[2], p[1], p[0]));
            all.dedup();
            all.into_iter().try_for_each(&mut visit)?;
        }
        _ => each_chunk(union, visit)?,
    }
    let same = da == db && !fields_differ && found.cells == 0 && found.record_chunks == 0;
    if as_json {
        let v = json!({
            "ok": true, "same": same,
            "a": a.display().to_string(), "b": b.display().to_string(),
            "chunk_dims": [da, db], "sizes_differ": da != db,
            "fields_differ": fields_differ,
            "cells": found.cells, "chunks": found.chunks,
            "metadata_chunks": found.record_chunks,
            "first": found.first.iter().map(|(p, x, y)| json!({
                "cell": p, "a": x.raw(), "b": y.raw(),
            })).collect::<Vec<_>>(),
            "first_metadata_chunks": found.record_first,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(u8::from(!same));
    }
    print_diff(a, b, [da, db], fields_differ, &found);
    Ok(u8::from(!same))
}

fn print_diff(a: &Path, b: &Path, dims: [[u32; 3]; 2], fields: bool, f: &Found) {
    let (a, b) = (a.display(), b.display());
    let dim = |d: [u32; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
    if dims[0] != dims[1] {
        println!("sizes differ: {} vs {} chunks", dim(dims[0]), dim(dims[1]));
    }
    if fields {
        println!("world-wide fields differ (sky region, mission number or spawn)");
    }
    if f.cells > 0 {
        println!(
            "{} {} in {}{}:",
            crate::global::count(f.cells, "cell"),
            if f.cells == 1 { "differs" } else { "differ" },
            crate::global::count(f.chunks, "chunk"),
            if f.first.len() as u64 == f.cells {
                String::new()
            } else {
                format!(", the first {}", f.first.len())
            }
        );
        for (p, x, y) in &f.first {
            println!(
                "  ({}, {}, {})  {} -> {}",
                p[0],
                p[1],
                p[2],
                block_text(*x),
                block_text(*y)
            );
        }
    }
    if f.record_chunks > 0 {
        let list: Vec<String> = f
            .record_first
            .iter()
            .map(|p| format!("({}, {}, {})", p[0], p[1], p[2]))
            .collect();
        println!(
            "metadata records differ in {}: {}",
            crate::global::count(f.record_chunks, "chunk"),
            list.join(", ")
        );
    }
    let same = dims[0] == dims[1] && !fields && f.cells == 0 && f.record_chunks == 0;
    if same {
        crate::global::say!("{a} and {b} hold the same world");
    } else {
        crate::global::say!("{a} and {b} differ");
    }
}
