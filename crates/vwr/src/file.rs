//! World files on disk: format dispatch, lazy open with a bounded chunk cache, and the
//! incremental, crash-safe save of v3 files (docs/format/vwr-v3.md §9).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use zerocopy::FromZeros;

use crate::block::Block;
use crate::chunk::{local_index, Chunk, CHUNK_SIZE};
use crate::codec::{read_world_checked_v2, write_world_v2};
use crate::error::{Result, VwrError};
use crate::layout::{
    ChunkEntryV3, ChunkTableEntry, CommitSlot, ENTRY_EMPTY, STORAGE_GROUP, TABLE_ENTRY_SIZE,
    WORLD_HEADER_SIZE, WORLD_VERSION_V3,
};
use crate::v3::{self, Codec, CodecStats, Commit, FileBytes, Header, Index, SaveOptions, Source};
use crate::world::World;
use crate::Oddity;

/// Decoded chunks a [`WorldFile`] keeps by default.
pub const DEFAULT_CACHE_CHUNKS: usize = 4096;

/// Header version of a `.vwr` file's bytes (2 or 3), if they start like one.
pub fn world_version(bytes: &[u8]) -> Option<u8> {
    (bytes.len() >= 5 && &bytes[..4] == crate::layout::WORLD_MAGIC).then(|| bytes[4])
}

/// Positioned reads from an open file.
pub(crate) struct FileSource {
    /// Positioned reads (`pread`) need no lock: threads read pages and chunks at once.
    file: File,
    len: u64,
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Cow<'_, [u8]>> {
        if offset.checked_add(len as u64).is_none_or(|e| e > self.len) {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let mut buf = vec![0; len];
        read_exact_at(&self.file, &mut buf, offset)?;
        Ok(Cow::Owned(buf))
    }
}

#[cfg(unix)]
fn read_exact_at(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
}

#[cfg(not(unix))]
fn read_exact_at(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = f;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

enum Kind {
    V2 {
        table: u64,
    },
    V3 {
        index: Box<Index>,
        /// Entries of the commit, once read (full load or save).
        entries: Option<Vec<ChunkEntryV3>>,
        newer: Option<u32>,
    },
}

struct Cache {
    map: HashMap<u32, (Arc<Chunk>, u64)>,
    clock: u64,
}

/// A `.vwr` file opened lazily for reading: the header and index only; chunks are decoded on
/// first access and kept in a cache of at most `cache_chunks` chunks. Editing goes through
/// [`WorldSession`](crate::WorldSession), which reads through one of these.
///
/// ```no_run
/// # fn main() -> vwr::Result<()> {
/// let mut file = vwr::WorldFile::open("big.vwr")?;
/// let b = file.get_block([500, 40, 500])?; // reads one index page and one chunk
/// let world = file.load()?; // or everything, decoded in parallel
/// # let _ = (b, world);
/// # Ok(()) }
/// ```
pub struct WorldFile {
    path: PathBuf,
    src: FileSource,
    dims: [u32; 3],
    kind: Kind,
    cache: Mutex<Cache>,
    cache_chunks: usize,
}

pub(crate) fn io(path: &Path) -> impl Fn(std::io::Error) -> VwrError + '_ {
    move |source| VwrError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl WorldFile {
    /// Opens a world file, reading only its header and index (v3) or header (v2).
    pub fn open(path: impl AsRef<Path>) -> Result<WorldFile> {
        let path = path.as_ref();
        let file = File::open(path).map_err(io(path))?;
        let len = file.metadata().map_err(io(path))?.len();
        let src = FileSource { file, len };
        let head = src
            .read_at(0, crate::layout::WORLD_HEADER_V3_SIZE.min(len as usize))
            .map_err(io(path))?;
        let (dims, kind) = if world_version(&head) == Some(WORLD_VERSION_V3) {
            let h = v3::parse_header(&head)?;
            let (index, newer) = v3::choose_commit(&src, &h)?;
            (
                h.dims,
                Kind::V3 {
                    index: Box::new(index),
                    entries: None,
                    newer,
                },
            )
        } else {
            // v2: validate the header exactly as a full read does, then read table entries on
            // demand (table and payload errors surface when chunks are read).
            let n = crate::codec::check_v2_header(&head)?;
            (
                [n; 3],
                Kind::V2 {
                    table: WORLD_HEADER_SIZE as u64,
                },
            )
        };
        Ok(WorldFile {
            path: path.to_path_buf(),
            src,
            dims,
            kind,
            cache: Mutex::new(Cache {
                map: HashMap::new(),
                clock: 0,
            }),
            cache_chunks: DEFAULT_CACHE_CHUNKS,
        })
    }

    /// Limits the decoded chunks kept by [`WorldFile::get_block`] (at least 1).
    pub fn with_cache_chunks(mut self, n: usize) -> WorldFile {
        self.cache_chunks = n.max(1);
        self
    }

    /// Decoded chunks kept by the cache.
    pub fn cache_chunks(&self) -> usize {
        self.cache_chunks
    }

    /// Chunks along x, y and z.
    pub fn chunk_dims(&self) -> [u32; 3] {
        self.dims
    }

    /// Header version of the file (2 or 3).
    pub fn version(&self) -> u8 {
        match self.kind {
            Kind::V2 { .. } => 2,
            Kind::V3 { .. } => 3,
        }
    }

    /// The path the file was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// File size in bytes when opened or last saved.
    pub fn file_size(&self) -> u64 {
        self.src.len
    }

    /// v3: generation of a newer commit that could not be read (the reader fell back to the
    /// previous one, vwr-v3.md §3).
    pub fn unreadable_newer_commit(&self) -> Option<u32> {
        match &self.kind {
            Kind::V3 { newer, .. } => *newer,
            Kind::V2 { .. } => None,
        }
    }

    /// The world-wide fields (sky region, mission number, spawn): from the header of a v2
    /// file (validated as a full read does), from the current commit of a v3 file.
    pub fn fields(&self) -> Result<crate::WorldFields> {
        match &self.kind {
            Kind::V3 { index, .. } => Ok(crate::WorldFields {
                sky_region: index.sky_region,
                mission_number: index.mission_number,
                spawn: index.spawn,
            }),
            Kind::V2 { .. } => {
                let head = self
                    .src
                    .read_at(0, WORLD_HEADER_SIZE.min(self.src.len as usize))
                    .map_err(io(&self.path))?;
                crate::codec::v2_fields(&head)
            }
        }
    }

    /// The positions of the chunks the file stores, in file order, reading no chunk. v3: the
    /// current commit's (reads every index page). v2: the table entries not marked empty (the
    /// table read in 64 KiB blocks; such a chunk may still hold only air), or `None` when the
    /// table is not laid out as the original writes it (entry `i` at `20·i` past the header,
    /// for chunk position `i`), and only a full read can tell.
    pub fn stored_chunks(&mut self) -> Result<Option<Vec<[u32; 3]>>> {
        let dims = self.dims;
        if let Kind::V2 { table } = self.kind {
            return self.v2_stored_chunks(table);
        }
        let entries = v3::level0(dims, self.entries()?);
        Ok(Some(
            entries
                .iter()
                .map(|e| crate::store::delinear(dims, e.chunk_index.get()))
                .collect(),
        ))
    }

    /// [`WorldFile::stored_chunks`] of a v2 file whose table starts at `table`.
    fn v2_stored_chunks(&self, table: u64) -> Result<Option<Vec<[u32; 3]>>> {
        const PER_READ: u64 = 65536 / TABLE_ENTRY_SIZE as u64;
        let n = self.dims.iter().map(|&d| u64::from(d)).product::<u64>();
        if table + n * TABLE_ENTRY_SIZE as u64 > self.src.len {
            return Ok(None);
        }
        let mut list = Vec::new();
        for first in (0..n).step_by(PER_READ as usize) {
            let count = PER_READ.min(n - first);
            let bytes = self
                .src
                .read_at(
                    table + first * TABLE_ENTRY_SIZE as u64,
                    (count as usize) * TABLE_ENTRY_SIZE,
                )
                .map_err(io(&self.path))?;
            let Ok(entries) = <[ChunkTableEntry] as zerocopy::FromBytes>::ref_from_bytes(&bytes)
            else {
                return Ok(None);
            };
            for (k, e) in entries.iter().enumerate() {
                let pos = v3::delinear(self.dims, (first + k as u64) as u32);
                if e.pos.map(|v| u32::from(v.get())) != pos {
                    return Ok(None);
                }
                if e.flags.get() & ENTRY_EMPTY == 0 {
                    list.push(pos);
                }
            }
        }
        Ok(Some(list))
    }

    /// v3: codec statistics of the current commit (reads every index page).
    pub fn codec_stats(&mut self) -> Result<Option<CodecStats>> {
        self.ensure_entries()?;
        Ok(match &self.kind {
            Kind::V3 {
                index,
                entries: Some(e),
                ..
            } => Some(v3::stats_of(index, e)),
            _ => None,
        })
    }

    fn ensure_entries(&mut self) -> Result<()> {
        if let Kind::V3 { index, entries, .. } = &mut self.kind {
            if entries.is_none() {
                *entries = Some(v3::all_entries(&self.src, self.dims, index)?);
            }
        }
        Ok(())
    }

    /// The block at a world position (air outside the world), decoding only its chunk.
    pub fn get_block(&self, p: [i32; 3]) -> Result<Block> {
        let c = CHUNK_SIZE as i32;
        let b = self.dims.map(|d| (d * CHUNK_SIZE as u32) as i32);
        if (0..3).any(|k| p[k] < 0 || p[k] >= b[k]) {
            return Ok(Block::AIR);
        }
        let pos = [p[0] / c, p[1] / c, p[2] / c].map(|v| v as u32);
        Ok(match self.chunk(pos)? {
            Some(ch) => ch.get(local_index(
                (p[0] % c) as usize,
                (p[1] % c) as usize,
                (p[2] % c) as usize,
            )),
            None => Block::AIR,
        })
    }

    /// The chunk at a chunk position (`None` if empty or outside the world), through the cache.
    pub fn chunk(&self, pos: [u32; 3]) -> Result<Option<Arc<Chunk>>> {
        if (0..3).any(|k| pos[k] >= self.dims[k]) {
            return Ok(None);
        }
        self.cached(v3::linear(self.dims, pos), pos)
    }

    /// v3: the levels of detail the file stores above level 0 (vwr-v3.md §13); 0 for v2.
    pub fn lod_levels(&self) -> u8 {
        self.index().map_or(0, |ix| ix.lod)
    }

    /// The chunk at `pos` of level `level` (0 = the world; `None` if empty, outside the level
    /// or above the levels the file stores), through the cache.
    pub fn lod_chunk(&self, level: u8, pos: [u32; 3]) -> Result<Option<Arc<Chunk>>> {
        if level == 0 {
            return self.chunk(pos);
        }
        let d = crate::lod::level_dims(self.dims, level);
        if level > self.lod_levels() || (0..3).any(|k| pos[k] >= d[k]) {
            return Ok(None);
        }
        self.cached(crate::lod::index_of(self.dims, level, pos), pos)
    }

    /// Level `level` (1..=[`WorldFile::lod_levels`]) as a world of its cells, reading only its
    /// chunks and the entry pages that list them.
    pub fn load_level(&self, level: u8) -> Result<World> {
        if !(1..=self.lod_levels()).contains(&level) {
            return Err(VwrError::Unrepresentable(format!(
                "{} stores {} levels of detail, not level {level} (`voxcaf world lod FILE --levels N` builds them)",
                self.path.display(),
                self.lod_levels()
            )));
        }
        let dims = self.dims;
        let (lo, hi) = (
            crate::lod::level_offset(dims, level),
            crate::lod::level_offset(dims, level + 1),
        );
        let Kind::V3 { index, .. } = &self.kind else {
            return World::with_chunk_dims(crate::lod::level_dims(dims, level));
        };
        // Only the entry pages that hold the level's chunk indices are read.
        let pages = (lo / u64::from(crate::layout::PAGE_ENTRIES))
            ..hi.div_ceil(u64::from(crate::layout::PAGE_ENTRIES));
        let mut entries: Vec<ChunkEntryV3> = Vec::new();
        for (n, pe) in index.pages.iter().enumerate() {
            if pages.contains(&u64::from(pe.page.get())) {
                let page = v3::read_page(&self.src, dims, index, n)?;
                let inside = |e: &&ChunkEntryV3| (lo..hi).contains(&u64::from(e.chunk_index.get()));
                entries.extend(page.iter().filter(inside));
            }
        }
        let chunks = v3::decode_all(&self.src, dims, index, &entries)?;
        let mut w = World::with_chunk_dims(crate::lod::level_dims(dims, level))?;
        for (i, c) in chunks {
            w.set_chunk(crate::lod::locate(dims, level, i).1, c)?;
        }
        Ok(w)
    }

    fn cached(&self, i: u32, pos: [u32; 3]) -> Result<Option<Arc<Chunk>>> {
        {
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            cache.clock += 1;
            let clock = cache.clock;
            if let Some((c, stamp)) = cache.map.get_mut(&i) {
                *stamp = clock;
                return Ok(Some(c.clone()));
            }
        }
        let Some(chunk) = self.decode_chunk(pos, i)? else {
            return Ok(None);
        };
        let chunk = Arc::new(chunk);
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if cache.map.len() >= self.cache_chunks {
            // Evict the least recently used eighth (at least one).
            let mut stamps: Vec<u64> = cache.map.values().map(|v| v.1).collect();
            let k = (stamps.len() / 8).max(1);
            stamps.select_nth_unstable(k - 1);
            let cut = stamps[k - 1];
            cache.map.retain(|_, v| v.1 > cut);
        }
        let clock = cache.clock;
        cache.map.insert(i, (chunk.clone(), clock));
        Ok(Some(chunk))
    }

    fn decode_chunk(&self, pos: [u32; 3], i: u32) -> Result<Option<Chunk>> {
        match &self.kind {
            Kind::V3 { index, entries, .. } => {
                let e = match entries {
                    Some(es) => es
                        .binary_search_by_key(&i, |e| e.chunk_index.get())
                        .ok()
                        .map(|k| es[k]),
                    None => v3::find_entry(&self.src, self.dims, index, i)?,
                };
                let Some(e) = e else { return Ok(None) };
                let group = if e.storage == STORAGE_GROUP {
                    let g = e.location.get() as usize;
                    Some(v3::read_group(&self.src, &index.groups[g], g)?)
                } else {
                    None
                };
                v3::decode_entry(&self.src, self.dims, &e, group.as_deref()).map(Some)
            }
            Kind::V2 { table } => {
                // The entry of slot i sits at table + 20·i in files written by the original;
                // any other arrangement falls back to a full read.
                let at = table + (i as u64) * std::mem::size_of::<ChunkTableEntry>() as u64;
                let raw = self
                    .src
                    .read_at(at, std::mem::size_of::<ChunkTableEntry>())
                    .map_err(io(&self.path))?;
                let e = <ChunkTableEntry as zerocopy::FromBytes>::read_from_bytes(&raw)
                    .expect("20 bytes");
                let epos = e.pos.map(|v| u32::from(v.get()));
                if epos != pos {
                    let w = self.read_all()?;
                    return Ok(w.chunk(pos).filter(|c| !c.is_empty()).cloned());
                }
                if e.flags.get() & ENTRY_EMPTY != 0 {
                    return Ok(None);
                }
                let (off, size) = (e.offset.get(), e.size.get() as usize);
                let p = self
                    .src
                    .read_at(off, size)
                    .map_err(|_| VwrError::BadTableEntry {
                        entry: i,
                        offset: at,
                        pos: pos.map(|v| v as u16),
                        reason: crate::TableFault::PayloadOutsideFile {
                            offset: off,
                            size: size as u32,
                            file_size: self.src.len,
                        },
                    })?;
                let (c, _) = crate::codec::read_chunk(&p, pos.map(|v| v as u16), off, None)?;
                Ok(Some(c))
            }
        }
    }

    fn read_all(&self) -> Result<World> {
        let bytes = self
            .src
            .read_at(0, self.src.len as usize)
            .map_err(io(&self.path))?;
        World::from_bytes(&bytes)
    }

    /// Decodes the whole world (v3: in parallel).
    pub fn load(&mut self) -> Result<World> {
        let bytes = self
            .src
            .read_at(0, self.src.len as usize)
            .map_err(io(&self.path))?;
        let world = match &mut self.kind {
            Kind::V2 { .. } => World::from_bytes(&bytes)?,
            Kind::V3 {
                index,
                entries,
                newer,
            } => {
                let d = v3::read_v3_detailed(&bytes[..])?;
                **index = d.index;
                *entries = Some(d.entries);
                *newer = d.newer;
                d.world
            }
        };
        Ok(world)
    }

    /// v3 with commit records: the commits still in the file, newest (current) first, at most
    /// `limit`; the second value says why the history ends early when an older commit named
    /// by a record cannot be read. v2 files and v3 files written before commit records have
    /// no history: the list is empty.
    pub fn history(&self, limit: usize) -> (Vec<Commit>, Option<VwrError>) {
        let (chain, cut) = self.chain(limit);
        let list = chain
            .iter()
            .enumerate()
            .map(|(k, ix)| Commit::of(ix, k == 0))
            .collect();
        (list, cut)
    }

    /// Whether the file is v3 with commit records (vwr-v3.md §11).
    pub fn has_history(&self) -> bool {
        matches!(&self.kind, Kind::V3 { index, .. } if index.record.is_some())
    }

    pub(crate) fn chain(&self, limit: usize) -> (Vec<Index>, Option<VwrError>) {
        match &self.kind {
            Kind::V3 { index, .. } if index.record.is_some() => {
                let h = Header {
                    dims: self.dims,
                    slots: [CommitSlot::new_zeroed(); 2],
                    history: true,
                    compact: index.compact,
                    lod: index.lod,
                };
                v3::chain(&self.src, &h, index, limit)
            }
            _ => (Vec::new(), None),
        }
    }

    /// v3: the current commit's root index.
    pub(crate) fn index(&self) -> Option<&Index> {
        match &self.kind {
            Kind::V3 { index, .. } => Some(index),
            Kind::V2 { .. } => None,
        }
    }

    /// v3: the current commit's entries (read on first use).
    pub(crate) fn entries(&mut self) -> Result<&[ChunkEntryV3]> {
        self.ensure_entries()?;
        match &self.kind {
            Kind::V3 {
                entries: Some(e), ..
            } => Ok(e),
            _ => Ok(&[]),
        }
    }

    pub(crate) fn source(&self) -> &FileSource {
        &self.src
    }
}

/// Test hook: `VOXCAF_VWR_FAIL_AT=<point>` aborts the process at that point of a save, so the
/// crash tests can stop a save between its writes.
pub(crate) fn fail_point(point: &str) {
    if std::env::var_os("VOXCAF_VWR_FAIL_AT").is_some_and(|v| v == point) {
        std::process::abort();
    }
}

impl World {
    /// Parses a world from the bytes of a `.vwr` file (v2 or v3).
    pub fn from_bytes(bytes: &[u8]) -> Result<World> {
        if world_version(bytes) == Some(WORLD_VERSION_V3) {
            v3::read_world_v3(bytes)
        } else {
            crate::codec::read_world(bytes)
        }
    }

    /// Loads a world from a file (v2 or v3; one read, then [`World::from_bytes`]).
    pub fn load(path: impl AsRef<Path>) -> Result<World> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(io(path))?;
        World::from_bytes(&bytes)
    }

    /// Serialises the world: v2, byte-identical to the original writer, when the world fits v2
    /// (cubic, at most 255 chunks per axis); v3 with the default codec otherwise.
    pub fn to_bytes(&self) -> Vec<u8> {
        if self.fits_v2() {
            write_world_v2(self)
        } else {
            v3::write_world_v3(self, Codec::Auto, v3::DEFAULT_ZSTD_LEVEL)
        }
    }

    /// Serialises the world in the format and codec `options` ask for.
    pub fn to_bytes_with(&self, options: &SaveOptions) -> Result<Vec<u8>> {
        if options.writes_v3(self) {
            let how = (options.codec, options.level, options.pages);
            if options.lod > crate::lod::MAX_LOD_LEVELS {
                return Err(VwrError::Unrepresentable(format!(
                    "{} levels of detail: at most {} are stored",
                    options.lod,
                    crate::lod::MAX_LOD_LEVELS
                )));
            }
            let levels = crate::lod::build_levels(self, options.lod)?;
            Ok(v3::full_file(self, &levels, how, 1, &options.commit))
        } else if self.fits_v2() {
            Ok(write_world_v2(self))
        } else {
            let [x, y, z] = self.chunk_dims();
            Err(VwrError::Unrepresentable(format!(
                "a {x}x{y}x{z}-chunk world does not fit v2 (cubic, at most 255 chunks per axis); use v3"
            )))
        }
    }

    /// Writes the world ([`World::to_bytes`]) to any writer.
    pub fn write_to<W: Write>(&self, mut w: W) -> Result<()> {
        w.write_all(&self.to_bytes())?;
        Ok(())
    }

    /// Saves the world atomically (temp file + fsync + rename) as [`World::to_bytes`] does: a
    /// crash or error never leaves a truncated world at `path`.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        self.save_with(path, &SaveOptions::default())
    }

    /// Saves the world atomically in the format and codec `options` ask for.
    pub fn save_with(&self, path: impl AsRef<Path>, options: &SaveOptions) -> Result<()> {
        let path = path.as_ref();
        let bytes = self.to_bytes_with(options)?;
        voxcaf_fs::write_atomic(path, &bytes).map_err(io(path))
    }
}

/// Reads a world (v2 or v3) and also reports [`Oddity`]s the format tolerates.
pub fn read_world_checked(bytes: &[u8]) -> Result<(World, Vec<Oddity>)> {
    if world_version(bytes) == Some(WORLD_VERSION_V3) {
        let d = v3::read_v3_detailed(bytes)?;
        let mut odd = Vec::new();
        if let Some(g) = d.newer {
            odd.push(Oddity::NewestCommitUnreadable {
                generation: g,
                used: d.index.generation,
            });
        }
        if d.world.sky_region() > 31 {
            odd.push(Oddity::SkyRegionOutOfRange(d.world.sky_region()));
        }
        odd.extend(stale_levels(bytes, &d)?);
        Ok((d.world, odd))
    } else {
        read_world_checked_v2(bytes)
    }
}

/// The stored level-of-detail chunks of a decoded v3 file that differ from the levels built
/// from its level 0 (vwr-v3.md §13).
fn stale_levels(bytes: &[u8], d: &v3::Decoded) -> Result<Vec<Oddity>> {
    let (dims, ix) = (d.index.dims, &d.index);
    if ix.lod == 0 {
        return Ok(Vec::new());
    }
    let upper = &d.entries[v3::level0(dims, &d.entries).len()..];
    let chunks = v3::decode_all(bytes, dims, ix, upper)?;
    let (_, stored) = v3::assemble(dims, ix, chunks)?;
    let built = crate::lod::build_levels(&d.world, ix.lod)?;
    let mut out = Vec::new();
    for ((level, s), b) in (1u8..).zip(&stored).zip(&built) {
        let mut at: Vec<[u32; 3]> = s
            .non_empty_chunks()
            .chain(b.non_empty_chunks())
            .map(|c| c.0)
            .collect();
        at.sort_unstable();
        at.dedup();
        for chunk in at
            .into_iter()
            .filter(|&p| live_chunk(s, p) != live_chunk(b, p))
        {
            out.push(Oddity::StaleLevelChunk { level, chunk });
        }
    }
    Ok(out)
}

fn live_chunk(w: &World, p: [u32; 3]) -> Option<&Chunk> {
    w.chunk(p).filter(|c| !c.is_empty())
}

/// Codec statistics of a v3 file's current commit; `None` for v2 files.
pub fn codec_stats(bytes: &[u8]) -> Result<Option<CodecStats>> {
    let Some((_, ix, entries)) = current_commit_v3(bytes)? else {
        return Ok(None);
    };
    Ok(Some(v3::stats_of(&ix, &entries)))
}

/// The header, current commit index and chunk entries of a v3 file; `None` for v2 files.
fn current_commit_v3(bytes: &[u8]) -> Result<Option<(Header, Index, Vec<ChunkEntryV3>)>> {
    if world_version(bytes) != Some(WORLD_VERSION_V3) {
        return Ok(None);
    }
    let h = v3::parse_header(bytes)?;
    let (ix, _) = v3::choose_commit(bytes, &h)?;
    let entries = v3::all_entries(bytes, h.dims, &ix)?;
    Ok(Some((h, ix, entries)))
}

/// Where every byte of a v3 file goes (header, root index, entry pages, payloads, history,
/// dead bytes; the parts sum to the file size); `None` for v2 files.
pub fn file_bytes(bytes: &[u8]) -> Result<Option<FileBytes>> {
    let Some((h, ix, entries)) = current_commit_v3(bytes)? else {
        return Ok(None);
    };
    let (chain, _) = v3::chain(bytes, &h, &ix, usize::MAX);
    let older: Vec<(Index, Option<Vec<ChunkEntryV3>>)> = chain
        .into_iter()
        .skip(1)
        .map(|old| {
            let es = v3::all_entries(bytes, h.dims, &old).ok();
            (old, es)
        })
        .collect();
    Ok(Some(v3::file_bytes_of(
        bytes.len() as u64,
        &ix,
        &entries,
        &older,
    )))
}
