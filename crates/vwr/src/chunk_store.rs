//! The boundary between worlds and where they are kept: [`ChunkStore`] (docs/format/vwr-postgres.md
//! §6). A store gives a world's header, reads chunks by position in batches, lists the stored
//! chunks, and commits a set of changed chunks atomically with a version check. The v2/v3 file
//! ([`FileStore`], through the one edit path, [`WorldSession`]) and PostgreSQL (the
//! `vwr-postgres` crate) implement it; the editors see only the trait.
//!
//! [`StoredChunk`] is a chunk as a store keeps it, outside a file: a v3 chunk entry's encoding,
//! storage, value and CRC with its bytes (vwr-v3.md §5), without groups.

use std::path::Path;

use crate::chunk::Chunk;
use crate::error::{Result, VwrError};
use crate::layout::{
    ENCODING_PACKED, ENCODING_RLE, ENCODING_UNIFORM, MAX_PAYLOAD, STORAGE_INLINE, STORAGE_RAW,
    STORAGE_ZSTD,
};
use crate::session::{SaveReport, SessionOptions, WorldSession};
use crate::v3::{self, Codec, Coded};
use crate::world::{World, WorldFields};
use crate::Block;

/// A chunk as a store keeps it: the fields of a v3 chunk entry and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredChunk {
    /// 0 uniform, 1 packed, 2 rle.
    pub encoding: u8,
    /// 0 inline, 1 raw, 2 zstd frame.
    pub storage: u8,
    /// Inline: the block's raw value; zstd: the decompressed size; raw: 0.
    pub value: u32,
    /// CRC-32 of `data` (0 for inline).
    pub crc: u32,
    /// The payload (raw) or the frame (zstd); empty for inline.
    pub data: Vec<u8>,
}

impl StoredChunk {
    /// `chunk` encoded with `codec` (zstd at `level`: a frame kept only when smaller, always
    /// under [`Codec::Zstd`]); `None` for an all-air chunk, which is not stored.
    pub fn encode(chunk: &Chunk, codec: Codec, level: i32) -> Option<StoredChunk> {
        let (encoding, bytes) = match v3::code_chunk(chunk, codec) {
            Coded::Empty => return None,
            Coded::Uniform(b) => {
                return Some(StoredChunk {
                    encoding: ENCODING_UNIFORM,
                    storage: STORAGE_INLINE,
                    value: b.raw().into(),
                    crc: 0,
                    data: Vec::new(),
                })
            }
            Coded::Payload { encoding, bytes } => (encoding, bytes),
        };
        if matches!(codec, Codec::Auto | Codec::Zstd) {
            let frame = v3::compress(&bytes, level);
            if codec == Codec::Zstd || frame.len() < bytes.len() {
                return Some(StoredChunk {
                    encoding,
                    storage: STORAGE_ZSTD,
                    value: bytes.len() as u32,
                    crc: crc32fast::hash(&frame),
                    data: frame,
                });
            }
        }
        Some(StoredChunk {
            encoding,
            storage: STORAGE_RAW,
            value: 0,
            crc: crc32fast::hash(&bytes),
            data: bytes,
        })
    }

    /// The chunk, every field and the CRC checked (vwr-v3.md §5 and §10); an error names
    /// `pos` and, through `location`, where the row came from.
    pub fn decode(&self, location: &str, pos: [u32; 3]) -> Result<Chunk> {
        self.decode_inner(pos)
            .map_err(|e| VwrError::BadStoredChunk {
                location: location.to_string(),
                chunk: pos,
                // The fault itself: the chunk is named once, and a row has no file offset.
                reason: match e {
                    VwrError::BadV3 { reason, .. } => reason.to_string(),
                    e => e.to_string(),
                },
            })
    }

    fn decode_inner(&self, pos: [u32; 3]) -> Result<Chunk> {
        let p16 = pos.map(|v| v.min(u16::MAX as u32) as u16);
        let what = || format!("chunk {pos:?}");
        let field = |field: &'static str, value: u64, rule: &'static str| VwrError::BadV3 {
            offset: 0,
            what: what(),
            reason: crate::V3Fault::Field { field, value, rule },
        };
        match (self.encoding, self.storage) {
            (ENCODING_UNIFORM, STORAGE_INLINE) => {
                let raw = u16::try_from(self.value)
                    .map_err(|_| field("value", self.value.into(), "a block is below 65536"))?;
                Ok(Chunk::uniform(Block(raw)))
            }
            (ENCODING_PACKED | ENCODING_RLE, STORAGE_RAW) => {
                if self.data.len() > MAX_PAYLOAD as usize {
                    let n = self.data.len() as u64;
                    return Err(field("size", n, "a payload is at most 4 MiB"));
                }
                v3::check_crc(&self.data, self.crc, 0, what)?;
                v3::decode_payload(self.encoding, &self.data, p16, 0)
            }
            (ENCODING_PACKED | ENCODING_RLE, STORAGE_ZSTD) => {
                v3::check_crc(&self.data, self.crc, 0, what)?;
                let p = v3::unzstd(&self.data, self.value, MAX_PAYLOAD, 0, what)?;
                v3::decode_payload(self.encoding, &p, p16, 0)
            }
            (e, s) => Err(field(
                "encoding/storage",
                (u64::from(e) << 8) | u64::from(s),
                "uniform+inline, or packed or rle with raw or zstd",
            )),
        }
    }
}

/// A world's header as its store keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreHead {
    /// Chunks per axis.
    pub chunk_dims: [u32; 3],
    /// Sky region, mission number and spawn.
    pub fields: WorldFields,
    /// The world's commit counter: the last commit's sequence number (0: none).
    pub head: u64,
    /// The commit that last changed the fields.
    pub fields_version: u64,
    /// The file format the world is written as by default (2 or 3).
    pub format_version: u8,
}

/// One position read from a store.
#[derive(Clone, Debug)]
pub struct Versioned {
    /// The chunk position.
    pub pos: [u32; 3],
    /// The commit that wrote it (0: absent).
    pub version: u64,
    /// The chunk; `None` when none is stored (all air).
    pub chunk: Option<Chunk>,
}

/// What a commit requires to still hold (the compare-and-swap of vwr-postgres.md §3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Each position still has the version read (0: absent).
    Chunks(Vec<([u32; 3], u64)>),
    /// No commit at all since the one read (for edits whose reach is not bounded in advance).
    Head(u64),
}

/// A set of changes to commit.
#[derive(Clone, Debug)]
pub struct StoreCommit<'a> {
    /// What must not have moved since it was read.
    pub expect: Expect,
    /// Changed chunks: the new chunk, or `None` to remove it (all air).
    pub changes: Vec<([u32; 3], Option<&'a Chunk>)>,
    /// New world-wide fields and the fields version they were read at, when they changed.
    pub fields: Option<(WorldFields, u64)>,
    /// The program committing (`voxcaf world edit`).
    pub tool: &'a str,
    /// What the commit does (the edit script, one line per operation).
    pub summary: &'a str,
}

/// A commit that happened.
#[derive(Clone, Debug, Default)]
pub struct Committed {
    /// Its sequence number (a v3 file's generation; 0 for a v2 file).
    pub seq: u64,
    /// Chunks written or removed.
    pub chunks: u64,
    /// A file's save report.
    pub report: SaveReport,
}

/// Where a world is kept: the operations every backend provides (vwr-postgres.md §6).
pub trait ChunkStore {
    /// Where the world is, for messages (a path, or a URL without password).
    fn location(&self) -> String;
    /// The header as it is now.
    fn head(&mut self) -> Result<StoreHead>;
    /// The version and chunk of each position, in the order given.
    fn read(&mut self, positions: &[[u32; 3]]) -> Result<Vec<Versioned>>;
    /// The positions of the stored chunks, in file order (z, then y, x fastest).
    fn list(&mut self) -> Result<Vec<[u32; 3]>>;
    /// Commits atomically, or fails with [`VwrError::Conflict`] (nothing written) when what
    /// `commit.expect` names has moved.
    fn commit(&mut self, commit: &StoreCommit<'_>) -> Result<Committed>;
}

/// A `.vwr` file as a [`ChunkStore`]: its [`WorldSession`] (which holds the write lock, so
/// commits never conflict) and the world loaded so far.
#[derive(Debug)]
pub struct FileStore {
    session: WorldSession,
    world: World,
}

impl FileStore {
    /// Opens `path` for editing (its write lock held until the store is dropped).
    pub fn open(path: impl AsRef<Path>, opts: SessionOptions) -> Result<FileStore> {
        let (session, world) = WorldSession::open(path, opts)?;
        Ok(FileStore { session, world })
    }

    /// The session (history, revert, the file's read side).
    pub fn session(&mut self) -> &mut WorldSession {
        &mut self.session
    }

    fn generation(&self) -> u64 {
        self.session
            .file()
            .index()
            .map_or(0, |ix| u64::from(ix.generation))
    }
}

impl ChunkStore for FileStore {
    fn location(&self) -> String {
        self.session.path().display().to_string()
    }

    fn head(&mut self) -> Result<StoreHead> {
        let head = self.generation();
        Ok(StoreHead {
            chunk_dims: self.world.chunk_dims(),
            fields: self.world.fields(),
            head,
            fields_version: head,
            format_version: self.session.version(),
        })
    }

    fn read(&mut self, positions: &[[u32; 3]]) -> Result<Vec<Versioned>> {
        let version = self.generation();
        positions
            .iter()
            .map(|&pos| {
                self.session.load_chunk(&mut self.world, pos)?;
                let chunk = self.world.chunk(pos).filter(|c| !c.is_empty()).cloned();
                Ok(Versioned {
                    pos,
                    version: if chunk.is_some() { version } else { 0 },
                    chunk,
                })
            })
            .collect()
    }

    fn list(&mut self) -> Result<Vec<[u32; 3]>> {
        if let Some(list) = self.session.stored_chunks()? {
            return Ok(list);
        }
        // A v2 file is loaded whole.
        Ok(self
            .world
            .non_empty_chunks()
            .map(|(p, _)| p)
            .collect::<Vec<_>>())
    }

    fn commit(&mut self, c: &StoreCommit<'_>) -> Result<Committed> {
        // The write lock is held: only this store commits, so `expect` holds.
        for &(pos, chunk) in &c.changes {
            self.session.load_chunk(&mut self.world, pos)?;
            match chunk {
                Some(chunk) => self.world.set_chunk(pos, chunk.clone())?,
                None => drop(self.world.take_chunk(pos)),
            }
        }
        if let Some((fields, _)) = c.fields {
            self.world.set_fields(fields)?;
        }
        let report = self.session.save(&self.world)?;
        Ok(Committed {
            seq: report.generation.map_or(0, u64::from),
            chunks: report.chunks_written,
            report,
        })
    }
}

/// Positions a store is read in per request by [`load_store`] and [`commit_world`].
pub const STORE_BATCH: usize = 512;

/// A whole world read from a store: the world, the head it was read at, and each stored
/// chunk's version.
pub type Loaded = (World, StoreHead, Vec<([u32; 3], u64)>);

/// The whole world a store holds (every chunk checked as it is decoded).
pub fn load_store(store: &mut dyn ChunkStore) -> Result<Loaded> {
    let head = store.head()?;
    let mut world = World::with_chunk_dims(head.chunk_dims)?;
    world.set_fields(head.fields)?;
    let list = store.list()?;
    let mut versions = Vec::with_capacity(list.len());
    for batch in list.chunks(STORE_BATCH) {
        for v in store.read(batch)? {
            if let Some(c) = v.chunk {
                world.set_chunk(v.pos, c)?;
                versions.push((v.pos, v.version));
            }
        }
    }
    Ok((world, head, versions))
}

/// Commits `world` whole into `store`, as one commit of the chunks that differ from the stored
/// ones, provided nothing was committed since `base` (the head the world was loaded at; a
/// [`VwrError::Conflict`] otherwise). Returns `None` when nothing differs.
pub fn commit_world(
    store: &mut dyn ChunkStore,
    world: &World,
    base: u64,
    tool: &str,
    summary: &str,
) -> Result<Option<Committed>> {
    let head = store.head()?;
    if head.chunk_dims != world.chunk_dims() {
        return Err(VwrError::Unrepresentable(format!(
            "{}: the world has {:?} chunks, the stored one {:?}; write it as a new world",
            store.location(),
            world.chunk_dims(),
            head.chunk_dims
        )));
    }
    let stored = store.list()?;
    let mut changes: Vec<([u32; 3], Option<&Chunk>)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for batch in stored.chunks(STORE_BATCH) {
        for v in store.read(batch)? {
            seen.insert(v.pos);
            let mine = world.chunk(v.pos).filter(|c| !c.is_empty());
            if mine != v.chunk.as_ref() {
                changes.push((v.pos, mine));
            }
        }
    }
    for (p, c) in world.non_empty_chunks() {
        if !seen.contains(&p) {
            changes.push((p, Some(c)));
        }
    }
    let fields = (world.fields() != head.fields).then_some((world.fields(), head.fields_version));
    if changes.is_empty() && fields.is_none() {
        return Ok(None);
    }
    changes.sort_unstable_by_key(|(p, _)| (p[2], p[1], p[0]));
    let commit = StoreCommit {
        expect: Expect::Head(base),
        changes,
        fields,
        tool,
        summary,
    };
    store.commit(&commit).map(Some)
}
