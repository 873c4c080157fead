//! Worlds in a database (docs/format/vwr-postgres.md): the location a world argument may be
//! (`postgres://USER@HOST:PORT/DB?world=NAME`), `voxcaf world migrate` and `voxcaf world list`.
//! The store itself is `vwr-postgres`; this module parses, prints and streams.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;
use vwr::{ChunkStore, StoreHead, StoredChunk, World, WorldFile};
use vwr_postgres::{PgLocation, PgStore};

use crate::world_args::FormatArg;

/// Chunks per batch of a migration (vwr-postgres.md §5).
const BATCH: usize = vwr::STORE_BATCH;

#[derive(Subcommand)]
pub enum DbCmd {
    /// Copy a world between a file and a database, or two databases, streaming and checking
    /// every chunk's CRC
    ///
    /// Into a database the copy is one commit (nothing is visible before it is complete); the
    /// destination world must not exist unless --replace. Into a file the format is the
    /// source's (or --format), written atomically. The password comes from PGPASSWORD or
    /// ~/.pgpass, never from the URL.
    ///
    /// Examples:
    ///   voxcaf world migrate big.vwr 'postgres://me@localhost/game?world=big'
    ///   voxcaf world migrate 'postgres://me@localhost/game?world=big' big-copy.vwr
    ///   voxcaf world migrate 'postgres://me@db1/game?world=a' 'postgres://me@db2/game?world=a'
    #[command(verbatim_doc_comment)]
    Migrate {
        /// The world to copy: a .vwr file or postgres://USER@HOST:PORT/DB?world=NAME.
        src: PathBuf,
        /// Where to copy it: a .vwr file or a database location.
        dst: PathBuf,
        /// Replace an existing destination (a database world, or a file).
        #[arg(long)]
        replace: bool,
        /// The file format written into a file (default: the source's).
        #[arg(long, value_enum)]
        format: Option<FormatArg>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// List the worlds of a database
    ///
    /// Examples:
    ///   voxcaf world list 'postgres://me@localhost/game'
    ///   voxcaf world list 'postgres://me@/game?host=/var/run/postgresql' --json
    #[command(verbatim_doc_comment)]
    List {
        /// The database: postgres://USER@HOST:PORT/DB (a `world=` is ignored).
        db: PathBuf,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

impl DbCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            DbCmd::Migrate { json, .. } | DbCmd::List { json, .. } => *json,
        }
    }
}

/// Run `world migrate` or `world list`; returns the exit code.
pub fn run(cmd: DbCmd) -> Result<u8> {
    match cmd {
        DbCmd::Migrate {
            src,
            dst,
            replace,
            format,
            json,
        } => migrate(&src, &dst, replace, format, json),
        DbCmd::List { db, json } => list(&db, json),
    }
}

/// The database location `path` is written as, if it is one (`Err` when it is one but
/// malformed).
pub fn location(path: &Path) -> Option<Result<PgLocation>> {
    let s = path.to_str()?;
    // The error names the location itself, with any password masked: the argument as typed
    // is never repeated.
    PgLocation::is_url(s).then(|| PgLocation::parse(s).map_err(|e| anyhow::anyhow!(e)))
}

/// The database location `path` names (a usage error when it names none).
fn db_location(path: &Path) -> Result<PgLocation> {
    location(path).unwrap_or_else(|| {
        Err(crate::output::usage(
            Some(path),
            "not a database location (postgres://USER@HOST:PORT/DB?world=NAME)",
        ))
    })
}

/// The database world `path` names, open: its location, how messages name it, the store.
fn open_db(path: &Path) -> Result<(PgLocation, String, PgStore)> {
    let loc = db_location(path)?;
    let at = loc.display();
    let store = PgStore::open(&loc).map_err(|e| failed(&at, e))?;
    Ok((loc, at, store))
}

/// Whether `path` is written as a database location.
pub fn is_db(path: &Path) -> bool {
    path.to_str().is_some_and(PgLocation::is_url)
}

/// An error about the database world `at`, its location once.
pub fn failed(at: &str, e: impl std::fmt::Display) -> anyhow::Error {
    crate::output::failed(Path::new(at), e)
}

/// Opens the world at `path` (a file or a database location) as a [`ChunkStore`] for editing:
/// a file through its session (which holds the write lock), a database world as is.
pub fn open_store(path: &Path, tool: &str) -> Result<Box<dyn ChunkStore>> {
    match location(path) {
        Some(loc) => {
            let loc = loc?;
            let store = PgStore::open(&loc).map_err(|e| failed(&loc.display(), e))?;
            Ok(Box::new(store))
        }
        None => {
            let opts = vwr::SessionOptions::tool(tool);
            let store =
                vwr::FileStore::open(path, opts).map_err(|e| crate::output::failed(path, e))?;
            Ok(Box::new(store))
        }
    }
}

/// The whole world in a database, read in batches (every row's CRC checked).
pub fn load(loc: &PgLocation) -> Result<World> {
    let at = loc.display();
    let mut store = PgStore::open(loc).map_err(|e| failed(&at, e))?;
    let (world, _, _) = vwr::load_store(&mut store).map_err(|e| failed(&at, e))?;
    Ok(world)
}

/// Where a migration reads: a file (v3 lazily, chunk by chunk; v2 whole) or a database.
enum Source {
    File(WorldFile),
    Db(Box<PgStore>),
}

impl Source {
    fn open(path: &Path) -> Result<(Source, StoreHead, String)> {
        if let Some(loc) = location(path) {
            let loc = loc?;
            let at = loc.display();
            let mut s = PgStore::open(&loc).map_err(|e| failed(&at, e))?;
            let head = s.head().map_err(|e| failed(&at, e))?;
            return Ok((Source::Db(Box::new(s)), head, at));
        }
        let o = |e| crate::output::failed(path, e);
        crate::output::no_dash(path, "a migration source (it is read lazily)")?;
        let f = WorldFile::open(path).map_err(o)?;
        let head = StoreHead {
            chunk_dims: f.chunk_dims(),
            fields: f.fields().map_err(o)?,
            head: 0,
            fields_version: 0,
            format_version: f.version(),
        };
        Ok((Source::File(f), head, path.display().to_string()))
    }

    /// The stored chunk positions in file order.
    fn list(&mut self) -> vwr::Result<Vec<[u32; 3]>> {
        match self {
            Source::Db(s) => s.list(),
            Source::File(f) => {
                let v3 = f.version() == 3;
                let d = f.chunk_dims();
                // v2: the table's entries (or every position when only a full read can tell),
                // keeping the chunks that hold a block.
                let candidates: Box<dyn Iterator<Item = [u32; 3]>> = match f.stored_chunks()? {
                    Some(list) if v3 => return Ok(list),
                    Some(list) => Box::new(list.into_iter()),
                    None => Box::new((0..d[2]).flat_map(move |z| {
                        (0..d[1]).flat_map(move |y| (0..d[0]).map(move |x| [x, y, z]))
                    })),
                };
                let mut all = Vec::new();
                for pos in candidates {
                    if f.chunk(pos)?.is_some_and(|c| !c.is_empty()) {
                        all.push(pos);
                    }
                }
                Ok(all)
            }
        }
    }

    /// The chunks of `batch` (absent ones left out).
    fn read(&mut self, batch: &[[u32; 3]]) -> vwr::Result<Vec<([u32; 3], vwr::Chunk)>> {
        match self {
            Source::Db(s) => Ok(s
                .read(batch)?
                .into_iter()
                .filter_map(|v| v.chunk.map(|c| (v.pos, c)))
                .collect()),
            Source::File(f) => {
                let mut out = Vec::with_capacity(batch.len());
                for &p in batch {
                    if let Some(c) = f.chunk(p)? {
                        out.push((p, vwr::Chunk::clone(&c)));
                    }
                }
                Ok(out)
            }
        }
    }
}

fn migrate(
    src: &Path,
    dst: &Path,
    replace: bool,
    format: Option<FormatArg>,
    as_json: bool,
) -> Result<u8> {
    let t = Instant::now();
    let (mut source, head, from) = Source::open(src)?;
    let list = source.list().map_err(|e| failed(&from, e))?;
    let (chunks, bytes, to) = match location(dst) {
        Some(loc) => {
            let loc = loc?;
            let to = loc.display();
            let mut batches = list.chunks(BATCH).map(|batch| {
                let read = source.read(batch)?;
                Ok(read
                    .iter()
                    .filter_map(|(p, c)| {
                        StoredChunk::encode(c, vwr::Codec::Auto, vwr::DEFAULT_ZSTD_LEVEL)
                            .map(|s| (*p, s))
                    })
                    .collect())
            });
            let summary = format!("migrate from {from}");
            let r = vwr_postgres::import(
                &loc,
                &head,
                replace,
                "voxcaf world migrate",
                &summary,
                &mut batches,
            )
            .map_err(|e| failed(&to, e))?;
            (r.chunks, r.bytes, to)
        }
        None => {
            let o = crate::output::WORLD;
            crate::output::check_file(dst, &[], &o, replace, false)?;
            let mut world =
                World::with_chunk_dims(head.chunk_dims).map_err(|e| failed(&from, e))?;
            world
                .set_fields(head.fields)
                .map_err(|e| failed(&from, e))?;
            let mut n = 0u64;
            for batch in list.chunks(BATCH) {
                for (p, c) in source.read(batch).map_err(|e| failed(&from, e))? {
                    world.set_chunk(p, c).map_err(|e| failed(&from, e))?;
                    n += 1;
                }
            }
            let opts = match format {
                Some(f) => crate::world_args::save_options(
                    f,
                    crate::world_args::CodecArg::Auto,
                    vwr::DEFAULT_ZSTD_LEVEL,
                    "voxcaf world migrate",
                ),
                None => vwr::SaveOptions::of_version(head.format_version),
            };
            let bytes = world
                .to_bytes_with(&opts)
                .map_err(|e| crate::output::failed(dst, e))?;
            crate::output::create_parent(dst)?;
            voxcaf_fs::write_atomic(dst, &bytes).map_err(|e| crate::output::failed(dst, e))?;
            (n, bytes.len() as u64, dst.display().to_string())
        }
    };
    let secs = t.elapsed().as_secs_f64();
    if as_json {
        println!(
            "{}",
            json!({"ok": true, "from": from, "to": to, "chunks": chunks, "bytes": bytes,
                   "seconds": secs})
        );
    } else {
        crate::global::say!(
            "{from} -> {to}: {}, {bytes} bytes in {secs:.2} s",
            crate::global::count(chunks, "chunk")
        );
    }
    Ok(0)
}

fn list(db: &Path, as_json: bool) -> Result<u8> {
    let Some(loc) = location(db) else {
        return Err(crate::output::usage(
            Some(db),
            "world list lists the worlds of a database: postgres://USER@HOST:PORT/DB",
        ));
    };
    let loc = loc?;
    let at = loc.display();
    let rows = vwr_postgres::list_worlds(&loc).map_err(|e| failed(&at, e))?;
    if as_json {
        let v = json!({"ok": true, "database": at, "worlds": rows.iter().map(|r| json!({
            "name": r.name, "chunk_dims": r.chunk_dims, "chunks": r.chunks,
            "bytes": r.bytes, "head": r.head,
        })).collect::<Vec<_>>()});
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    if rows.is_empty() {
        crate::global::say!(
            "{at}: no worlds (`voxcaf world migrate FILE.vwr URL?world=NAME` adds one)"
        );
        return Ok(0);
    }
    crate::global::say!(
        "{:<24} {:>16} {:>9} {:>12} {:>7}",
        "world",
        "chunks per axis",
        "chunks",
        "bytes",
        "commit"
    );
    for r in rows {
        let d = r.chunk_dims;
        crate::global::say!(
            "{:<24} {:>16} {:>9} {:>12} {:>7}",
            r.name,
            format!("{}x{}x{}", d[0], d[1], d[2]),
            r.chunks,
            r.bytes,
            r.head
        );
    }
    Ok(0)
}

/// The block at `p` of a database world and the world's size in blocks (one chunk read).
pub fn get_block(loc: &PgLocation, p: [i32; 3]) -> Result<(vwr::Block, [u32; 3])> {
    let at = loc.display();
    let mut store = PgStore::open(loc).map_err(|e| failed(&at, e))?;
    let head = store.head().map_err(|e| failed(&at, e))?;
    let dims = head.chunk_dims.map(|d| d * vwr::CHUNK_SIZE as u32);
    if (0..3).any(|k| p[k] < 0 || p[k] as u32 >= dims[k]) {
        return Ok((vwr::Block::AIR, dims));
    }
    let c = vwr::CHUNK_SIZE as i32;
    let pos = p.map(|v| (v / c) as u32);
    let read = store.read(&[pos]).map_err(|e| failed(&at, e))?;
    let block = read
        .into_iter()
        .next()
        .and_then(|v| v.chunk)
        .map_or(vwr::Block::AIR, |ch| {
            let l = p.map(|v| (v % c) as usize);
            ch.get(vwr::local_index(l[0], l[1], l[2]))
        });
    Ok((block, dims))
}

/// `world info` of a database world.
pub fn info(path: &Path, as_json: bool) -> Result<u8> {
    let (_, at, mut store) = open_db(path)?;
    // One connection: the head and the world read together.
    let (world, head, _) = vwr::load_store(&mut store).map_err(|e| failed(&at, e))?;
    let s = vwr::stats::WorldStats::of(&world);
    let f = head.fields;
    if as_json {
        let v = json!({
            "ok": true, "file": at, "database": true, "commit": head.head,
            "format_version": head.format_version, "chunk_dims": head.chunk_dims,
            "chunks_stored": s.non_empty_chunks, "uniform_chunks": s.uniform_chunks,
            "non_air_blocks": s.non_air_blocks, "metadata_records": s.metadata_records,
            "sky_region": f.sky_region, "mission_number": f.mission_number, "spawn": f.spawn,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    let d = head.chunk_dims;
    let spawn = f.spawn.map_or("none".to_string(), |p| {
        format!("({}, {}, {})", p[0], p[1], p[2])
    });
    crate::global::say!(
        "{at}\n  database world  commit {}, written as v{} by `migrate`\n  \
         chunks          {}x{}x{} ({} blocks), {} stored ({} uniform)\n  \
         non-air blocks  {}\n  metadata        {} records\n  \
         sky {}, mission {}, spawn {spawn}",
        head.head,
        head.format_version,
        d[0],
        d[1],
        d[2],
        world.block_dims().map(|v| v.to_string()).join("x"),
        s.non_empty_chunks,
        s.uniform_chunks,
        s.non_air_blocks,
        s.metadata_records,
        f.sky_region,
        f.mission_number
    );
    Ok(0)
}

/// `world new` into a database: an empty world of `world`'s size and fields.
pub fn create(path: &Path, world: &World, format_version: u8, replace: bool) -> Result<u8> {
    let loc = db_location(path)?;
    let at = loc.display();
    let head = StoreHead {
        chunk_dims: world.chunk_dims(),
        fields: world.fields(),
        head: 0,
        fields_version: 0,
        format_version,
    };
    PgStore::create(&loc, &head, replace).map_err(|e| failed(&at, e))?;
    let d = world.chunk_dims();
    crate::global::say!("created {at}: {}x{}x{} chunks", d[0], d[1], d[2]);
    Ok(0)
}

/// `world history` of a database world: its commits, newest first.
pub fn history(path: &Path, as_json: bool) -> Result<u8> {
    let (_, at, mut store) = open_db(path)?;
    let commits = store.commits(usize::MAX).map_err(|e| failed(&at, e))?;
    if as_json {
        let v = json!({"ok": true, "file": at, "commits": commits.iter().map(|c| json!({
            "generation": c.seq, "time_ms": c.time_ms, "tool": c.tool,
            "summary": c.summary, "chunks_written": c.chunks, "kind": c.kind.name(),
            "reverted_to": c.reverted_to,
        })).collect::<Vec<_>>()});
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    crate::global::say!(
        "{:>7}  {:<23}  {:>7}  {:<11}  {:<22}  summary",
        "seq",
        "time",
        "chunks",
        "kind",
        "tool"
    );
    for c in commits {
        let first = c.summary.lines().next().unwrap_or("");
        let more = c.summary.lines().count().saturating_sub(1);
        let more = if more > 0 {
            format!(" (+{more} lines)")
        } else {
            String::new()
        };
        let kind = match c.reverted_to {
            Some(to) => format!("revert {to}"),
            None => c.kind.name().to_string(),
        };
        crate::global::say!(
            "{:>7}  {:<23}  {:>7}  {:<11}  {:<22}  {first}{more}",
            c.seq,
            crate::world_history::time_text(c.time_ms),
            c.chunks,
            kind,
            c.tool
        );
    }
    Ok(0)
}

/// `world revert` of a database world: the state of commit `to` (default: the one before the
/// head) made current again as a new commit.
pub fn revert(path: &Path, to: Option<u64>, as_json: bool) -> Result<u8> {
    let (_, at, mut store) = open_db(path)?;
    let c = store
        .revert(to, "voxcaf world revert")
        .map_err(|e| failed(&at, e))?;
    let target = store
        .commits(1)
        .map_err(|e| failed(&at, e))?
        .first()
        .and_then(|r| r.reverted_to)
        .unwrap_or(0);
    if as_json {
        let v = json!({"ok": true, "file": at, "commit": c.seq, "reverted_to": target,
                       "chunks": c.chunks});
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        crate::global::say!(
            "{at}: commit {} makes commit {target} current again ({}); \
             `voxcaf world revert '{at}' --to {}` goes back",
            c.seq,
            crate::global::count(c.chunks, "chunk"),
            c.seq - 1
        );
    }
    Ok(0)
}

/// `world compact` of a database world: the chunk history older than the last `keep` commits
/// dropped (the commit log itself is kept).
pub fn compact(path: &Path, keep: u64, as_json: bool) -> Result<u8> {
    let (_, at, mut store) = open_db(path)?;
    let keep = usize::try_from(keep).unwrap_or(usize::MAX);
    let dropped = store.compact(keep).map_err(|e| failed(&at, e))?;
    let kept = store.kept().map_err(|e| failed(&at, e))?;
    if as_json {
        let v = json!({"ok": true, "file": at, "history_rows_dropped": dropped,
                       "revertible": [kept.start(), kept.end()]});
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        crate::global::say!(
            "{at}: {dropped} rows of chunk history dropped; commits {}..={} can be reverted to",
            kept.start(),
            kept.end()
        );
    }
    Ok(0)
}
