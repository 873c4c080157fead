//! [`PgStore`]: a world in a database as a [`vwr::ChunkStore`].

use vwr::{ChunkStore, Committed, Result, StoreCommit, StoreHead, StoredChunk, Versioned};

use crate::PgLocation;

/// A world in a database, open for reading and committing.
pub struct PgStore {
    _p: (),
}

/// One world of a database, as `world list` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldRow {
    /// Its name.
    pub name: String,
    /// Chunks per axis.
    pub chunk_dims: [u32; 3],
    /// Chunk rows stored.
    pub chunks: u64,
    /// Bytes of chunk data stored.
    pub bytes: u64,
    /// Its commit counter.
    pub head: u64,
}

/// One commit of a world (`world history`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitRow {
    /// Sequence number.
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// The program.
    pub tool: String,
    /// What it did (the edit script).
    pub summary: String,
    /// Chunks written or removed.
    pub chunks: u64,
}

/// What [`import`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Chunk rows written.
    pub chunks: u64,
    /// Bytes of chunk data written.
    pub bytes: u64,
    /// The commit's sequence number.
    pub seq: u64,
}

impl PgStore {
    /// Opens the world `loc` names (which must exist).
    pub fn open(loc: &PgLocation) -> Result<PgStore> {
        let _ = loc;
        todo!()
    }

    /// Creates an empty world (no chunks, no commit) with `head`'s dimensions, fields and
    /// format version; an existing world of that name is an error unless `replace`, which
    /// drops it in the same transaction.
    pub fn create(loc: &PgLocation, head: &StoreHead, replace: bool) -> Result<PgStore> {
        let _ = (loc, head, replace);
        todo!()
    }

    /// The newest `limit` commits, newest first.
    pub fn commits(&mut self, limit: usize) -> Result<Vec<CommitRow>> {
        let _ = limit;
        todo!()
    }
}

impl ChunkStore for PgStore {
    fn location(&self) -> String {
        todo!()
    }
    fn head(&mut self) -> Result<StoreHead> {
        todo!()
    }
    fn read(&mut self, positions: &[[u32; 3]]) -> Result<Vec<Versioned>> {
        let _ = positions;
        todo!()
    }
    fn list(&mut self) -> Result<Vec<[u32; 3]>> {
        todo!()
    }
    fn commit(&mut self, commit: &StoreCommit<'_>) -> Result<Committed> {
        let _ = commit;
        todo!()
    }
}

/// The worlds of the database `loc` names (its `world=` is ignored), by name.
pub fn list_worlds(loc: &PgLocation) -> Result<Vec<WorldRow>> {
    let _ = loc;
    todo!()
}

/// Writes a whole world into the database as one commit (`migrate`): creates the world `loc`
/// names with `head`'s dimensions and fields (replacing an existing one only if `replace`, in
/// the same transaction), then the chunks `batches` yields (each batch sent as it comes, so
/// memory stays at one batch), then the commit row with `summary`. Nothing is visible to
/// readers until it all committed.
pub fn import(
    loc: &PgLocation,
    head: &StoreHead,
    replace: bool,
    tool: &str,
    summary: &str,
    batches: &mut dyn Iterator<Item = Result<Vec<([u32; 3], StoredChunk)>>>,
) -> Result<ImportReport> {
    let _ = (loc, head, replace, tool, summary, batches);
    todo!()
}
