//! The one way to edit a world file: [`WorldSession`]. It opens lazily, holds the file's write
//! lock, loads only the chunks an edit touches, and saves in the file's own format: a v3 file
//! by an incremental commit (vwr-v3.md §9, with its history §11), a v2 file by an atomic
//! rewrite that keeps `FILE.bak`. It never overwrites a file that changed on disk since it was
//! opened or last saved.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use voxcaf_fs::lock::{LockError, WriteLock};

use crate::chunk::Chunk;
use crate::commit::{self, Record};
use crate::error::{Result, VwrError};
use crate::file::{io, WorldFile};
use crate::layout::*;
use crate::v3::{self, Codec, CommitInfo, RootFields};
use crate::world::World;

/// Commits a v3 file keeps by default (vwr-v3.md §11).
pub const DEFAULT_KEEP: usize = 8;

/// How a [`WorldSession`] writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionOptions {
    /// The program, as its commit records and the lock file name it (`voxcaf world edit`).
    pub tool: String,
    /// The command line the lock file shows to a second writer.
    pub command: String,
    /// Commits of the history a compaction keeps (at least 1).
    pub keep: usize,
    /// Codec of the chunks v3 saves encode.
    pub codec: Codec,
    /// zstd level.
    pub level: i32,
}

impl Default for SessionOptions {
    fn default() -> SessionOptions {
        SessionOptions {
            tool: "voxcaf".into(),
            command: std::env::args().collect::<Vec<_>>().join(" "),
            keep: DEFAULT_KEEP,
            codec: Codec::Auto,
            level: v3::DEFAULT_ZSTD_LEVEL,
        }
    }
}

impl SessionOptions {
    /// Defaults, with `tool` as the commits' tool.
    pub fn tool(tool: &str) -> SessionOptions {
        SessionOptions {
            tool: tool.into(),
            ..SessionOptions::default()
        }
    }
}

/// What a save did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SaveReport {
    /// Whether anything was written (an unchanged world writes nothing).
    pub written: bool,
    /// Whether only changed chunks and a new commit were appended (v3).
    pub incremental: bool,
    /// Chunks encoded and written (levels of detail included).
    pub chunks_written: u64,
    /// Of those, level-of-detail chunks (vwr-v3.md §13), per level from level 1.
    pub lod_chunks: Vec<u64>,
    /// Bytes written to the world file (the backup not included).
    pub bytes_written: u64,
    /// Whether the file was rewritten whole to reclaim space (keeping its history).
    pub compacted: bool,
    /// File size afterwards.
    pub file_size: u64,
    /// v3: the generation of the new current commit.
    pub generation: Option<u32>,
    /// v2: where the previous version was kept.
    pub backup: Option<PathBuf>,
}

/// The backup a v2 save keeps: `FILE.bak`.
pub fn backup_path(file: &Path) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(".bak");
    PathBuf::from(s)
}

/// What the file on disk looked like when last read or written by the session.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp {
    id: (u64, u64),
    len: u64,
    modified: Option<std::time::SystemTime>,
    /// v3: the current commit's generation and root offset.
    commit: Option<(u32, u64)>,
}

fn stamp_of(path: &Path, file: &WorldFile) -> Result<Stamp> {
    let m = std::fs::metadata(path).map_err(io(path))?;
    Ok(Stamp {
        id: file_id(&m),
        len: m.len(),
        modified: m.modified().ok(),
        commit: file.index().map(|ix| (ix.generation, ix.offset)),
    })
}

#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

#[cfg(not(unix))]
fn file_id(_m: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// A world file open for editing.
///
/// ```no_run
/// # fn main() -> vwr::Result<()> {
/// use vwr::{Block, SessionOptions, WorldSession};
/// let (mut session, mut world) = WorldSession::open("big.vwr", SessionOptions::tool("my tool"))?;
/// session.load_box(&mut world, [500, 40, 500], [509, 40, 509])?; // only these chunks
/// world.fill_box([500, 40, 500], [509, 40, 509], Block::make(35, 0)?)?;
/// let report = session.save(&world)?; // v3: one small commit; v2: rewrite + FILE.bak
/// # let _ = report; Ok(()) }
/// ```
pub struct WorldSession {
    file: WorldFile,
    _lock: WriteLock,
    opts: SessionOptions,
    /// Chunk indices loaded into the caller's world; `None` = all of them.
    resident: Option<HashSet<u32>>,
    /// Revision of each loaded chunk as it is in the file.
    revisions: HashMap<u32, u64>,
    fields: RootFields,
    stamp: Stamp,
    /// The time the next commit records ([`WorldSession::save_at`]); `None` = now.
    clock: Option<u64>,
}

impl std::fmt::Debug for WorldSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorldSession")
            .field("path", &self.file.path())
            .field("version", &self.file.version())
            .finish_non_exhaustive()
    }
}

impl WorldSession {
    /// Opens `path` for editing: takes its write lock (refused with [`VwrError::Locked`] while
    /// another session holds it) and reads its header and index. Returns the session and the
    /// world to edit: for v3 only its dimensions and world-wide fields, chunks to be loaded with
    /// [`WorldSession::load_box`] or [`WorldSession::load_all`]; for v2, the whole world.
    pub fn open(path: impl AsRef<Path>, opts: SessionOptions) -> Result<(WorldSession, World)> {
        let path = path.as_ref();
        // A missing or unreadable file is its own error, and leaves no lock file behind.
        std::fs::File::open(path).map_err(io(path))?;
        let lock = WriteLock::acquire(path, &opts.command).map_err(|e| match e {
            LockError::Held(h) => VwrError::Locked {
                path: path.to_path_buf(),
                holder: h.to_string(),
            },
            LockError::Io(e) => io(&voxcaf_fs::lock::lock_path(path))(e),
        })?;
        let (file, stamp, world, resident) = read_fresh(path)?;
        let mut s = WorldSession {
            file,
            _lock: lock,
            opts,
            resident,
            revisions: HashMap::new(),
            fields: RootFields::of(&world),
            stamp,
            clock: None,
        };
        if s.resident.is_none() {
            s.remember(&world);
        }
        Ok((s, world))
    }

    /// Takes the file as it is on disk now, keeping the lock: after a
    /// [`VwrError::ChangedOnDisk`], to reload it or to save over it. Returns the world as
    /// [`WorldSession::open`] does; chunks loaded before are forgotten.
    pub fn reopen(&mut self) -> Result<World> {
        let (file, stamp, world, resident) = read_fresh(self.file.path())?;
        self.file = file;
        self.stamp = stamp;
        self.resident = resident;
        self.revisions.clear();
        self.fields = RootFields::of(&world);
        if self.resident.is_none() {
            self.remember(&world);
        }
        Ok(world)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The file's header version (2 or 3); saves keep it.
    pub fn version(&self) -> u8 {
        self.file.version()
    }

    /// The read side of the file (history, statistics, lazy reads of the saved state).
    pub fn file(&self) -> &WorldFile {
        &self.file
    }

    /// Whether every chunk of the file is loaded into the world.
    pub fn all_loaded(&self) -> bool {
        self.resident.is_none()
    }

    /// Loads the chunks holding the cells of the box between `a` and `b` (inclusive, clamped
    /// to the world) that are not loaded yet into `world`; returns how many chunks were read.
    pub fn load_box(&mut self, world: &mut World, a: [i32; 3], b: [i32; 3]) -> Result<u64> {
        let Some((lo, hi)) = world.clamp_box(a, b) else {
            return Ok(0);
        };
        let c = crate::CHUNK_SIZE as u32;
        let mut n = 0;
        for z in lo[2] / c..=hi[2] / c {
            for y in lo[1] / c..=hi[1] / c {
                for x in lo[0] / c..=hi[0] / c {
                    n += u64::from(self.load_chunk(world, [x, y, z])?);
                }
            }
        }
        Ok(n)
    }

    /// Loads every chunk not loaded yet (the whole world).
    pub fn load_all(&mut self, world: &mut World) -> Result<()> {
        let Some(resident) = &self.resident else {
            return Ok(());
        };
        let dims = self.file.chunk_dims();
        let wanted: Vec<u32> = v3::level0(dims, self.file.entries()?)
            .iter()
            .map(|e| e.chunk_index.get())
            .filter(|i| !resident.contains(i))
            .collect();
        for i in wanted {
            self.load_chunk(world, v3::delinear(dims, i))?;
        }
        self.resident = None;
        Ok(())
    }

    /// v3: the stored chunk positions in file order; v2: `None` (the world is loaded whole).
    pub(crate) fn stored_chunks(&mut self) -> Result<Option<Vec<[u32; 3]>>> {
        if self.file.version() != 3 {
            return Ok(None);
        }
        self.file.stored_chunks()
    }

    fn is_resident(&self, i: u32) -> bool {
        resident_has(&self.resident, i)
    }

    /// Loads the chunk at `pos` into `world` unless it is loaded; whether it was read.
    pub(crate) fn load_chunk(&mut self, world: &mut World, pos: [u32; 3]) -> Result<bool> {
        let i = v3::linear(self.file.chunk_dims(), pos);
        if self.is_resident(i) {
            return Ok(false);
        }
        if let Some(c) = self.file.chunk(pos)? {
            world.set_chunk(pos, Chunk::clone(&c))?;
            if let Some(rev) = world.chunk_revision(pos) {
                self.revisions.insert(i, rev);
            }
        }
        if let Some(r) = &mut self.resident {
            r.insert(i);
        }
        Ok(true)
    }

    fn remember(&mut self, world: &World) {
        let dims = self.file.chunk_dims();
        let revisions = world
            .chunks()
            .map(|(p, c)| (v3::linear(dims, p), c))
            .filter(|(i, c)| !c.is_empty() && self.is_resident(*i))
            .map(|(i, c)| (i, c.revision()))
            .collect();
        self.revisions = revisions;
        self.fields = RootFields::of(world);
    }

    /// Fails with [`VwrError::ChangedOnDisk`] if the file is no longer what the session last
    /// read or wrote.
    pub fn check_unchanged(&self) -> Result<()> {
        let path = self.file.path();
        let changed = |what: &str| VwrError::ChangedOnDisk {
            path: path.to_path_buf(),
            what: what.to_string(),
        };
        let m = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(changed("it was removed"))
            }
            Err(e) => return Err(io(path)(e)),
        };
        if file_id(&m) != self.stamp.id {
            return Err(changed("it was replaced by another file"));
        }
        if self.stamp.commit.is_none() {
            if m.len() != self.stamp.len || m.modified().ok() != self.stamp.modified {
                return Err(changed("its size or modification time changed"));
            }
            return Ok(());
        }
        let now = WorldFile::open(path)?;
        let commit = now.index().map(|ix| (ix.generation, ix.offset));
        if commit != self.stamp.commit {
            let g = commit.map_or(0, |c| c.0);
            return Err(changed(&format!(
                "another program committed generation {g}"
            )));
        }
        Ok(())
    }

    /// The chunks of `world` that differ from the file, with their chunk indices.
    fn changed_chunks<'w>(&self, world: &'w World) -> Result<Vec<(u32, Option<&'w Chunk>)>> {
        let dims = self.file.chunk_dims();
        let mut out = Vec::new();
        let mut present = HashSet::new();
        for (p, c) in world.chunks() {
            let i = v3::linear(dims, p);
            if !self.is_resident(i) {
                if c.is_empty() {
                    continue;
                }
                return Err(VwrError::NotLoaded {
                    path: self.file.path().to_path_buf(),
                    chunk: p,
                });
            }
            present.insert(i);
            if self.revisions.get(&i) == Some(&c.revision()) {
                continue;
            }
            let same = match self.file.chunk(p)? {
                Some(d) => *d == *c,
                None => c.is_empty(),
            };
            if !same {
                out.push((i, Some(c)));
            }
        }
        for &i in self.revisions.keys() {
            if !present.contains(&i) {
                out.push((i, None));
            }
        }
        out.sort_unstable_by_key(|c| c.0);
        Ok(out)
    }

    /// Saves `world` in the file's format. Nothing is written when nothing changed. v3 files
    /// get an incremental commit (compacted, keeping the history, when the file grew past
    /// twice what the kept commits need); v2 files are rewritten atomically, the previous
    /// version kept as `FILE.bak`. Refused with [`VwrError::ChangedOnDisk`] when another
    /// program changed the file since it was opened or last saved.
    pub fn save(&mut self, world: &World) -> Result<SaveReport> {
        if world.chunk_dims() != self.file.chunk_dims() {
            return Err(VwrError::Unrepresentable(format!(
                "the world changed size from {:?} to {:?} chunks; write it as a new file",
                self.file.chunk_dims(),
                world.chunk_dims()
            )));
        }
        self.check_unchanged()?;
        if self.file.version() == 2 {
            return self.save_v2(world);
        }
        let changed = self.changed_chunks(world)?;
        let fields = RootFields::of(world);
        if changed.is_empty() && fields == self.fields {
            self.remember(world);
            return Ok(self.unchanged_report());
        }
        if !self.file.has_history() {
            return self.upgrade(world);
        }
        let lod = self.lod_changes(world, &changed)?;
        let mut all: Vec<(u32, Option<&Chunk>)> = changed;
        all.extend(lod.iter().map(|(i, c)| (*i, c.as_ref())));
        all.sort_unstable_by_key(|c| c.0);
        let mut report = self.append(&all, &fields)?;
        report.lod_chunks = self.per_level(lod.iter().map(|c| c.0));
        self.remember(world);
        self.maybe_compact(report)
    }

    /// The level-of-detail chunks that change with the level-0 chunks `changed` (vwr-v3.md
    /// §13): only their ancestors are rebuilt, from the world where it is loaded and from the
    /// file elsewhere.
    fn lod_changes(
        &self,
        world: &World,
        changed: &[(u32, Option<&Chunk>)],
    ) -> Result<Vec<(u32, Option<Chunk>)>> {
        let (dims, lod) = (self.file.chunk_dims(), self.file.lod_levels());
        if lod == 0 || changed.is_empty() {
            return Ok(Vec::new());
        }
        let at: Vec<[u32; 3]> = changed.iter().map(|c| v3::delinear(dims, c.0)).collect();
        let mut get = |k: u8, p: [u32; 3]| -> Result<Option<Arc<Chunk>>> {
            if k == 0 && self.is_resident(v3::linear(dims, p)) {
                let c = world.chunk(p).filter(|c| !c.is_empty());
                return Ok(c.cloned().map(Arc::new));
            }
            self.file.lod_chunk(k, p)
        };
        crate::lod::rebuild_ancestors(dims, lod, &at, &mut get)
    }

    fn per_level(&self, indices: impl Iterator<Item = u32>) -> Vec<u64> {
        let (dims, lod) = (self.file.chunk_dims(), self.file.lod_levels());
        let mut out = vec![0; usize::from(lod)];
        for i in indices {
            let (k, _) = crate::lod::locate(dims, lod, i);
            if k > 0 {
                out[usize::from(k) - 1] += 1;
            }
        }
        out
    }

    /// v3: builds, rebuilds or drops levels of detail so that the file stores `levels` of them
    /// above level 0 (0 = none; at most [`crate::lod::MAX_LOD_LEVELS`]). The file is rewritten
    /// whole and atomically, keeping its history: every kept commit gets the levels of its own
    /// state. The session's world is not saved by this: save it first.
    pub fn set_lod_levels(&mut self, levels: u8) -> Result<SaveReport> {
        let dims = self.file.chunk_dims();
        if self.file.version() != 3 {
            return Err(VwrError::Unrepresentable(
                "levels of detail need a v3 file; convert it with `voxcaf world convert --format v3`"
                    .into(),
            ));
        }
        if levels > crate::lod::MAX_LOD_LEVELS {
            return Err(VwrError::Unrepresentable(format!(
                "{levels} levels of detail: at most {} are stored",
                crate::lod::MAX_LOD_LEVELS
            )));
        }
        let most = crate::lod::most_levels(dims);
        if levels > most {
            let room = match most {
                0 => "none".to_string(),
                1 => "1 level".to_string(),
                n => format!("at most {n} levels"),
            };
            return Err(VwrError::Unrepresentable(format!(
                "{levels} levels of detail would take the file past 2^32-1 chunk indices \
                 (a world this size has room for {room})"
            )));
        }
        self.check_unchanged()?;
        let (codec, level) = (self.opts.codec, self.opts.level);
        let bytes = if self.file.has_history() {
            let (mut chain, _) = self.file.chain(self.opts.keep.max(1));
            chain.reverse();
            let src = self.file.source();
            commit::compact_chain(src, dims, &chain, codec, level, Some(levels))?
        } else {
            let full = self.file.load()?;
            let lv = crate::lod::build_levels(&full, levels)?;
            let generation = self.file.index().map_or(1, |ix| ix.generation + 1);
            let how = (codec, level, v3::PageForm::Compact);
            v3::full_file(&full, &lv, how, generation, &self.info())
        };
        let mut report = self.write_whole(&bytes, 0)?;
        let stored: Vec<u32> = self
            .file
            .entries()?
            .iter()
            .map(|e| e.chunk_index.get())
            .collect();
        report.lod_chunks = self.per_level(stored.into_iter());
        Ok(report)
    }

    fn unchanged_report(&self) -> SaveReport {
        SaveReport {
            file_size: self.file.file_size(),
            generation: self.file.index().map(|ix| ix.generation),
            ..SaveReport::default()
        }
    }

    fn info(&self) -> CommitInfo {
        match self.clock {
            Some(ms) => CommitInfo::new(&self.opts.tool, ms),
            None => CommitInfo::now(&self.opts.tool),
        }
    }

    /// [`WorldSession::save`], with the commit stamped `time_ms` (milliseconds since the Unix
    /// epoch) instead of now, so that a replay of an editing session writes the same bytes
    /// as the session did.
    pub fn save_at(&mut self, world: &World, time_ms: u64) -> Result<SaveReport> {
        self.clock = Some(time_ms);
        let r = self.save(world);
        self.clock = None;
        r
    }

    fn append(
        &mut self,
        changed: &[(u32, Option<&Chunk>)],
        fields: &RootFields,
    ) -> Result<SaveReport> {
        let spec = Record::Fresh {
            info: self.info(),
            kind: COMMIT_SAVE,
            reverted_to: 0,
        };
        let old = self.file.index().expect("v3").clone();
        let (src, dims) = (self.file.source(), self.file.chunk_dims());
        let read = |n: usize| v3::read_page(src, dims, &old, n);
        let codec = (self.opts.codec, self.opts.level);
        let p = commit::plan_commit(&old, &read, changed, fields, codec, &spec)?;
        let size = commit::append_to_file(self.file.path(), &old, &p)?;
        self.refresh()?;
        Ok(SaveReport {
            written: true,
            incremental: true,
            chunks_written: p.chunks_written,
            bytes_written: p.bytes(),
            file_size: size,
            generation: Some(p.generation),
            ..SaveReport::default()
        })
    }

    /// Re-reads the file after the session wrote it.
    fn refresh(&mut self) -> Result<()> {
        let cache = self.file.cache_chunks();
        self.file = WorldFile::open(self.file.path())?.with_cache_chunks(cache);
        self.stamp = stamp_of(self.file.path(), &self.file)?;
        Ok(())
    }

    /// A v3 file written before commit records: rewritten whole, with them, once.
    fn upgrade(&mut self, world: &World) -> Result<SaveReport> {
        let dims = self.file.chunk_dims();
        let mut full = self.file.load()?;
        for (i, c) in self.changed_chunks(world)? {
            let pos = v3::delinear(dims, i);
            match c {
                Some(c) => full.set_chunk(pos, c.clone())?,
                None => drop(full.take_chunk(pos)),
            }
        }
        full.set_sky_region(world.sky_region());
        full.set_mission_number(world.mission_number());
        full.set_spawn_unchecked(world.spawn());
        let generation = self.file.index().map_or(1, |ix| ix.generation + 1);
        let (codec, level) = (self.opts.codec, self.opts.level);
        // The rewrite writes compact pages (vwr-v3.md §9).
        let how = (codec, level, v3::PageForm::Compact);
        let bytes = v3::full_file(&full, &[], how, generation, &self.info());
        let report = self.write_whole(&bytes, full.non_empty_chunks().count() as u64)?;
        self.remember(world);
        Ok(report)
    }

    /// Replaces the file whole and atomically with `bytes` holding `chunks` chunks.
    fn write_whole(&mut self, bytes: &[u8], chunks: u64) -> Result<SaveReport> {
        self.write_whole_then(bytes, chunks, || Ok(()))
    }

    /// Writes `bytes` as the whole file: staged beside it (temporary file, fsync), then
    /// `before_replace` (the v2 backup), then renamed over it. A failure or an interruption
    /// while staging (a full disk, a read-only file, Ctrl-C) leaves the file and its backup as
    /// they were.
    fn write_whole_then(
        &mut self,
        bytes: &[u8],
        chunks: u64,
        before_replace: impl FnOnce() -> Result<()>,
    ) -> Result<SaveReport> {
        use std::io::Write as _;
        let path = self.file.path().to_path_buf();
        let mut staged = voxcaf_fs::AtomicFile::create(&path).map_err(io(&path))?;
        staged.write_all(bytes).map_err(io(&path))?;
        before_replace()?;
        staged.commit().map_err(io(&path))?;
        self.refresh()?;
        Ok(SaveReport {
            written: true,
            chunks_written: chunks,
            bytes_written: bytes.len() as u64,
            file_size: bytes.len() as u64,
            generation: self.file.index().map(|ix| ix.generation),
            ..SaveReport::default()
        })
    }

    fn save_v2(&mut self, world: &World) -> Result<SaveReport> {
        let path = self.file.path().to_path_buf();
        if !world.fits_v2() {
            return Err(VwrError::Unrepresentable(
                "the world no longer fits v2; convert it with `voxcaf world convert --format v3`"
                    .into(),
            ));
        }
        let bytes = crate::codec::write_world_v2(world);
        let old = std::fs::read(&path).map_err(io(&path))?;
        if old == bytes {
            self.remember(world);
            return Ok(SaveReport {
                file_size: bytes.len() as u64,
                ..SaveReport::default()
            });
        }
        let bak = backup_path(&path);
        // The backup is replaced only once the new version is staged in full.
        let chunks = world.non_empty_chunks().count() as u64;
        let mut report = self.write_whole_then(&bytes, chunks, || {
            voxcaf_fs::write_atomic(&bak, &old).map_err(io(&bak))
        })?;
        self.remember(world);
        report.backup = Some(bak);
        Ok(report)
    }

    /// Compacts when the file exceeds twice what the kept commits need (vwr-v3.md §11).
    fn maybe_compact(&mut self, mut report: SaveReport) -> Result<SaveReport> {
        let (chain, _) = self.file.chain(self.opts.keep.max(1));
        let need = chain[0].live_bytes
            + chain[1..]
                .iter()
                .map(|ix| ix.record.map_or(ix.live_bytes, |r| r.bytes_written.get()))
                .sum::<u64>();
        if self.file.file_size() > 2 * need {
            let c = self.compact()?;
            report.compacted = true;
            report.bytes_written += c.bytes_written;
            report.file_size = c.file_size;
        }
        Ok(report)
    }

    /// v3: rewrites the file so that it holds only the kept commits (the newest `keep`), each
    /// with its original generation, time and tool. Atomic.
    pub fn compact(&mut self) -> Result<SaveReport> {
        self.require_history()?;
        self.check_unchanged()?;
        let (mut chain, _) = self.file.chain(self.opts.keep.max(1));
        chain.reverse();
        let dims = self.file.chunk_dims();
        let (codec, level) = (self.opts.codec, self.opts.level);
        let bytes = commit::compact_chain(self.file.source(), dims, &chain, codec, level, None)?;
        let mut report = self.write_whole(&bytes, 0)?;
        report.compacted = true;
        Ok(report)
    }

    fn require_history(&self) -> Result<()> {
        if self.file.has_history() {
            return Ok(());
        }
        Err(VwrError::NoHistory {
            path: self.file.path().to_path_buf(),
            version: self.file.version(),
        })
    }

    /// v3: makes the state of commit `to` (default: the one before the current) current again
    /// as a new commit, which itself can be reverted. Only a root index is written. The
    /// session's world is then stale: open a new session to edit further.
    pub fn revert(&mut self, to: Option<u32>) -> Result<SaveReport> {
        self.require_history()?;
        self.check_unchanged()?;
        let (chain, _) = self.file.chain(usize::MAX);
        let current = chain[0].clone();
        let target = match to {
            None => chain.get(1),
            Some(g) => chain.iter().find(|ix| ix.generation == g),
        };
        let Some(target) = target else {
            let kept = match (chain.last(), chain.first()) {
                (Some(o), Some(n)) => format!("{}..={}", o.generation, n.generation),
                _ => String::new(),
            };
            return Err(VwrError::NoSuchCommit {
                path: self.file.path().to_path_buf(),
                generation: to.unwrap_or(current.generation.saturating_sub(1)),
                kept,
            });
        };
        let p = commit::plan_revert(&current, target, &self.info());
        let size = commit::append_to_file(self.file.path(), &current, &p)?;
        self.refresh()?;
        self.resident = Some(HashSet::new());
        self.revisions.clear();
        Ok(SaveReport {
            written: true,
            incremental: true,
            bytes_written: p.bytes(),
            file_size: size,
            generation: Some(p.generation),
            ..SaveReport::default()
        })
    }
}

/// What a session starts from: the file, its stamp, the world to edit and which chunks it holds
/// (`None`: all of them, as for v2 files).
type Fresh = (WorldFile, Stamp, World, Option<HashSet<u32>>);

fn read_fresh(path: &Path) -> Result<Fresh> {
    let mut file = WorldFile::open(path)?;
    let stamp = stamp_of(path, &file)?;
    Ok(match file.index() {
        Some(ix) => {
            let mut w = World::with_chunk_dims(file.chunk_dims())?;
            w.set_sky_region(ix.sky_region);
            w.set_mission_number(ix.mission_number);
            w.set_spawn_unchecked(ix.spawn);
            (file, stamp, w, Some(HashSet::new()))
        }
        None => {
            let w = file.load()?;
            (file, stamp, w, None)
        }
    })
}

fn resident_has(resident: &Option<HashSet<u32>>, i: u32) -> bool {
    resident.as_ref().is_none_or(|r| r.contains(&i))
}
