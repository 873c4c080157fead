//! [`PgStore`]: a world in a database as a [`vwr::ChunkStore`] (vwr-postgres.md §3, §6).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;
use postgres::{Client, GenericClient, Row, Statement};
use vwr::{
    ChunkStore, Codec, Committed, Expect, Result, StoreCommit, StoreHead, StoredChunk, Versioned,
    VwrError,
};

use crate::commit::{
    columns, fields_from_row, finish, lock, record_commit, spawn_columns, stmt, write_rows,
    CommitFail, CommitKind, Meta, Prepared, Rows, COMMIT_SQL, VERSIONS_SQL,
};
use crate::db::{connect, db_error, now_ms, store_error};
use crate::PgLocation;

/// A world in a database, open for reading and committing.
pub struct PgStore {
    client: Client,
    loc: PgLocation,
    name: String,
    id: i64,
    dims: [u32; 3],
    statements: Prepared,
    listening: bool,
    keep: usize,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("location", &self.loc.display())
            .field("id", &self.id)
            .finish()
    }
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
    /// What made it: an edit, a revert, a migrate.
    pub kind: CommitKind,
    /// A revert's target: the seq whose state it made current again.
    pub reverted_to: Option<u64>,
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

/// The NOTIFY channel of commits (payload `<world id> <seq>`).
pub const CHANNEL: &str = "voxcaf_world";

const HEAD_SQL: &str = "SELECT dims_x, dims_y, dims_z, sky_region, mission_number, spawn_x, \
     spawn_y, spawn_z, fields_version, head, format_version FROM voxcaf.worlds WHERE id = $1";
const READ_SQL: &str = "SELECT p.i, c.version, c.encoding, c.storage, c.value, c.crc, c.data \
     FROM unnest($2::int4[], $3::int4[], $4::int4[]) WITH ORDINALITY AS p(x, y, z, i) \
     JOIN voxcaf.chunks c ON c.world = $1 AND c.x = p.x AND c.y = p.y AND c.z = p.z";
const LIST_SQL: &str = "SELECT x, y, z FROM voxcaf.chunks WHERE world = $1 ORDER BY z, y, x";
fn conflict_what(moved: &[[u32; 3]]) -> String {
    match moved {
        [p] => format!("chunk ({}, {}, {})", p[0], p[1], p[2]),
        m => format!("{} chunks", m.len()),
    }
}

/// A stored row's columns `first..first+5` (encoding, storage, value, crc, data) as a stored
/// chunk; a value out of its column's range is a bad chunk.
pub(crate) fn row_stored(loc: &str, row: &Row, first: usize, pos: [u32; 3]) -> Result<StoredChunk> {
    let bad = |what: &str| VwrError::BadStoredChunk {
        location: loc.to_string(),
        chunk: pos,
        reason: format!("{what} out of range"),
    };
    let encoding: i16 = row.get(first);
    let storage: i16 = row.get(first + 1);
    let value: i64 = row.get(first + 2);
    let crc: i64 = row.get(first + 3);
    let stored = StoredChunk {
        encoding: u8::try_from(encoding).map_err(|_| bad("encoding"))?,
        storage: u8::try_from(storage).map_err(|_| bad("storage"))?,
        value: u32::try_from(value).map_err(|_| bad("value"))?,
        crc: u32::try_from(crc).map_err(|_| bad("crc"))?,
        data: row.get(first + 4),
    };
    Ok(stored)
}

impl PgStore {
    /// Opens the world `loc` names (which must exist).
    pub fn open(loc: &PgLocation) -> Result<PgStore> {
        let name = loc.world_name()?.to_string();
        let mut client = connect(loc)?;
        let row = client
            .query_opt(
                "SELECT id, dims_x, dims_y, dims_z FROM voxcaf.worlds WHERE name = $1",
                &[&name],
            )
            .map_err(|e| db_error(loc, &e))?
            .ok_or_else(|| {
                store_error(
                    loc,
                    format!(
                        "no world {name:?} in this database (`world list` lists them; \
                         `world new` or `world migrate` makes one)"
                    ),
                )
            })?;
        Ok(PgStore::with_row(client, loc, name, &row))
    }

    fn with_row(client: Client, loc: &PgLocation, name: String, row: &Row) -> PgStore {
        let d = |i: usize| row.get::<_, i32>(i) as u32;
        PgStore {
            client,
            loc: loc.clone(),
            name,
            id: row.get(0),
            dims: [d(1), d(2), d(3)],
            statements: HashMap::new(),
            listening: false,
            keep: vwr::DEFAULT_KEEP,
        }
    }

    /// Creates an empty world (no chunks, no commit) with `head`'s dimensions, fields and
    /// format version; an existing world of that name is an error unless `replace`, which
    /// drops it in the same transaction.
    pub fn create(loc: &PgLocation, head: &StoreHead, replace: bool) -> Result<PgStore> {
        let name = loc.world_name()?.to_string();
        let mut client = connect(loc)?;
        let mut tx = client.transaction().map_err(|e| db_error(loc, &e))?;
        let id = insert_world(&mut tx, loc, head, replace, 0)?;
        tx.commit().map_err(|e| db_error(loc, &e))?;
        let d = head.chunk_dims;
        Ok(PgStore {
            client,
            loc: loc.clone(),
            name,
            id,
            dims: d,
            statements: HashMap::new(),
            listening: false,
            keep: vwr::DEFAULT_KEEP,
        })
    }

    /// The world's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The world's row id (the first number of its NOTIFY payloads).
    pub fn id(&self) -> i64 {
        self.id
    }

    /// Commits whose state later commits keep (vwr-postgres.md §7; default
    /// [`vwr::DEFAULT_KEEP`], at least 1): history older than that is pruned at each commit.
    pub fn set_keep(&mut self, keep: usize) {
        self.keep = keep.max(1);
    }

    /// The newest `limit` commits, newest first.
    pub fn commits(&mut self, limit: usize) -> Result<Vec<CommitRow>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self
            .client
            .query(
                "SELECT seq, time_ms, tool, summary, chunks, kind, reverted_to \
                 FROM voxcaf.commits WHERE world = $1 ORDER BY seq DESC LIMIT $2",
                &[&self.id, &limit],
            )
            .map_err(|e| db_error(&self.loc, &e))?;
        rows.iter()
            .map(|r| {
                let kind: String = r.get(5);
                Ok(CommitRow {
                    seq: r.get::<_, i64>(0) as u64,
                    time_ms: r.get::<_, i64>(1) as u64,
                    tool: r.get(2),
                    summary: r.get(3),
                    chunks: r.get::<_, i32>(4) as u64,
                    kind: kind.parse::<CommitKind>().ok().ok_or_else(|| {
                        store_error(&self.loc, format!("a commit of unknown kind {kind:?}"))
                    })?,
                    reverted_to: r.get::<_, Option<i64>>(6).map(|v| v as u64),
                })
            })
            .collect()
    }

    /// Waits until the world's head moves past `after` (another writer committed), for at
    /// most `timeout`: the new head, or `None` on timeout. Listens on `voxcaf_world`.
    pub fn wait_for_commit(&mut self, after: u64, timeout: Duration) -> Result<Option<u64>> {
        let deadline = Instant::now() + timeout;
        if !self.listening {
            let listen = format!("LISTEN {CHANNEL}");
            self.client
                .batch_execute(&listen)
                .map_err(|e| db_error(&self.loc, &e))?;
            self.listening = true;
        }
        loop {
            // Checked after LISTEN, so a commit in between is not missed.
            let head = self.head()?.head;
            if head > after {
                return Ok(Some(head));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            let mut notes = self.client.notifications();
            let mut it = notes.timeout_iter(left);
            use postgres::fallible_iterator::FallibleIterator;
            if it.next().map_err(|e| db_error(&self.loc, &e))?.is_none() {
                return Ok(None);
            }
        }
    }

    /// A prepared statement, prepared once per store.
    fn statement(&mut self, sql: &'static str) -> Result<Statement> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self
            .client
            .prepare(sql)
            .map_err(|e| db_error(&self.loc, &e))?;
        self.statements.insert(sql, s.clone());
        Ok(s)
    }

    fn check_pos(&self, pos: [u32; 3]) -> Result<()> {
        if (0..3).all(|k| pos[k] < self.dims[k]) {
            return Ok(());
        }
        let [x, y, z] = self.dims;
        Err(store_error(
            &self.loc,
            format!(
                "chunk ({}, {}, {}) is outside the world's {x}×{y}×{z} chunks",
                pos[0], pos[1], pos[2]
            ),
        ))
    }

    fn missing_world(&self) -> VwrError {
        store_error(
            &self.loc,
            format!(
                "the row of world {:?} (id {}) is gone from voxcaf.worlds: the world was \
                 dropped or replaced while open",
                self.name, self.id
            ),
        )
    }
}

/// Inserts a world row (dropping an existing one first when `replace`) with head and fields
/// version `seq`; its id.
fn insert_world(
    tx: &mut impl GenericClient,
    loc: &PgLocation,
    head: &StoreHead,
    replace: bool,
    seq: i64,
) -> Result<i64> {
    let name = loc.world_name()?;
    let dbe = |e: postgres::Error| db_error(loc, &e);
    if replace {
        tx.execute("DELETE FROM voxcaf.worlds WHERE name = $1", &[&name])
            .map_err(dbe)?;
    } else if tx
        .query_opt("SELECT 1 FROM voxcaf.worlds WHERE name = $1", &[&name])
        .map_err(dbe)?
        .is_some()
    {
        return Err(store_error(
            loc,
            format!("world {name:?} already exists (replacing it must be asked for)"),
        ));
    }
    let d = head.chunk_dims.map(|v| v as i32);
    let f = &head.fields;
    let spawn = spawn_columns(f);
    let row = tx
        .query_one(
            "INSERT INTO voxcaf.worlds (name, dims_x, dims_y, dims_z, sky_region, \
             mission_number, spawn_x, spawn_y, spawn_z, fields_version, head, format_version, \
             created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $12) \
             RETURNING id",
            &[
                &name,
                &d[0],
                &d[1],
                &d[2],
                &i64::from(f.sky_region),
                &i64::from(f.mission_number),
                &spawn[0],
                &spawn[1],
                &spawn[2],
                &seq,
                &i16::from(head.format_version),
                &now_ms(),
            ],
        )
        .map_err(dbe)?;
    Ok(row.get(0))
}

impl ChunkStore for PgStore {
    fn location(&self) -> String {
        self.loc.display()
    }

    fn head(&mut self) -> Result<StoreHead> {
        let stmt = self.statement(HEAD_SQL)?;
        let row = self
            .client
            .query_opt(&stmt, &[&self.id])
            .map_err(|e| db_error(&self.loc, &e))?
            .ok_or_else(|| self.missing_world())?;
        let d = |i: usize| row.get::<_, i32>(i) as u32;
        Ok(StoreHead {
            chunk_dims: [d(0), d(1), d(2)],
            fields: fields_from_row(&row, 3).unwrap_or_default(),
            fields_version: row.get::<_, i64>(8) as u64,
            head: row.get::<_, i64>(9) as u64,
            format_version: row.get::<_, i16>(10) as u8,
        })
    }

    fn read(&mut self, positions: &[[u32; 3]]) -> Result<Vec<Versioned>> {
        for &p in positions {
            self.check_pos(p)?;
        }
        let mut out: Vec<Versioned> = positions
            .iter()
            .map(|&pos| Versioned {
                pos,
                version: 0,
                chunk: None,
            })
            .collect();
        if positions.is_empty() {
            return Ok(out);
        }
        let stmt = self.statement(READ_SQL)?;
        let [xs, ys, zs] = columns(positions.iter().copied());
        let rows = self
            .client
            .query(&stmt, &[&self.id, &xs, &ys, &zs])
            .map_err(|e| db_error(&self.loc, &e))?;
        let location = self.loc.display();
        for row in rows {
            let i = (row.get::<_, i64>(0) - 1) as usize;
            let v = &mut out[i];
            v.version = row.get::<_, i64>(1) as u64;
            v.chunk = Some(row_stored(&location, &row, 2, v.pos)?.decode(&location, v.pos)?);
        }
        Ok(out)
    }

    fn list(&mut self) -> Result<Vec<[u32; 3]>> {
        let stmt = self.statement(LIST_SQL)?;
        let rows = self
            .client
            .query(&stmt, &[&self.id])
            .map_err(|e| db_error(&self.loc, &e))?;
        Ok(rows
            .iter()
            .map(|r| [0, 1, 2].map(|i| r.get::<_, i32>(i) as u32))
            .collect())
    }

    fn commit(&mut self, c: &StoreCommit<'_>) -> Result<Committed> {
        for &(p, _) in &c.changes {
            self.check_pos(p)?;
        }
        // Encoded before the transaction, so the world row is locked for the writes only.
        let mut rows = Rows::default();
        for &(p, chunk) in &c.changes {
            let enc =
                chunk.and_then(|ch| StoredChunk::encode(ch, Codec::Auto, vwr::DEFAULT_ZSTD_LEVEL));
            match enc {
                Some(s) => rows.upserts.push((p, s)),
                None => rows.deletes.push(p),
            }
        }
        self.prepare_commit()?;
        let result = commit_tx(self, c, &rows);
        let seq = result.map_err(|f| self.fail(f))?;
        Ok(Committed {
            seq,
            chunks: c.changes.len() as u64,
            report: Default::default(),
        })
    }
}

impl PgStore {
    /// Prepares the statements of a commit (once per store).
    pub(crate) fn prepare_commit(&mut self) -> Result<()> {
        for sql in COMMIT_SQL {
            self.statement(sql)?;
        }
        Ok(())
    }

    /// A failed commit transaction as an error.
    pub(crate) fn fail(&self, f: CommitFail) -> VwrError {
        match f {
            CommitFail::Db(e) => db_error(&self.loc, &e),
            CommitFail::Conflict(what) => VwrError::Conflict {
                location: self.loc.display(),
                what,
            },
            CommitFail::Gone => self.missing_world(),
            CommitFail::Vwr(e) => e,
        }
    }

    /// The connection, the prepared statements, the world's id and the commits kept: what a
    /// commit transaction needs.
    pub(crate) fn parts(&mut self) -> (&mut Client, &Prepared, i64, usize) {
        (&mut self.client, &self.statements, self.id, self.keep)
    }

    /// The location, for messages.
    pub(crate) fn loc(&self) -> &PgLocation {
        &self.loc
    }
}

/// The version check of §3 step 2 for `Expect::Chunks`: the positions that moved.
fn moved_chunks(
    tx: &mut postgres::Transaction<'_>,
    versions: &Statement,
    id: i64,
    list: &[([u32; 3], u64)],
) -> std::result::Result<Vec<[u32; 3]>, postgres::Error> {
    let [xs, ys, zs] = columns(list.iter().map(|(p, _)| *p));
    let now: HashMap<[u32; 3], u64> = tx
        .query(versions, &[&id, &xs, &ys, &zs])?
        .iter()
        .map(|r| {
            let p = [0, 1, 2].map(|i| r.get::<_, i32>(i) as u32);
            (p, r.get::<_, i64>(3) as u64)
        })
        .collect();
    Ok(list
        .iter()
        .filter(|(p, v)| now.get(p).copied().unwrap_or(0) != *v)
        .map(|(p, _)| *p)
        .collect())
}

/// The transaction of vwr-postgres.md §3; the new seq.
fn commit_tx(
    s: &mut PgStore,
    c: &StoreCommit<'_>,
    rows: &Rows,
) -> std::result::Result<u64, CommitFail> {
    let (client, prepared, id, keep) = s.parts();
    let mut tx = client.transaction()?;
    // 1. The world row, locked: commits of this world are serial from here.
    let locked = lock(&mut tx, prepared, id)?;
    // 2. The version check.
    match &c.expect {
        Expect::Head(h) if *h != locked.head as u64 => {
            return Err(CommitFail::Conflict("the world".into()))
        }
        Expect::Head(_) => {}
        Expect::Chunks(list) => {
            let versions = stmt(&mut tx, prepared, VERSIONS_SQL)?;
            let moved = moved_chunks(&mut tx, &versions, id, list)?;
            if !moved.is_empty() {
                return Err(CommitFail::Conflict(conflict_what(&moved)));
            }
        }
    }
    if let Some((_, seen)) = c.fields {
        if seen != locked.fields_version as u64 {
            return Err(CommitFail::Conflict("the world-wide fields".into()));
        }
    }
    let seq = locked.head + 1;
    // 3. The chunk rows (the replaced ones to history).
    write_rows(&mut tx, prepared, id, seq, rows)?;
    // 4. The world row, the commits row, pruning; 5. NOTIFY (sent at COMMIT).
    let meta = Meta {
        kind: CommitKind::Save,
        reverted_to: None,
        tool: c.tool,
        summary: c.summary,
        chunks: c.changes.len() as u64,
    };
    let fields = c.fields.map(|(f, _)| f);
    finish(&mut tx, prepared, id, seq, &locked, fields, &meta, keep)?;
    // 6.
    tx.commit()?;
    Ok(seq as u64)
}

/// The worlds of the database `loc` names (its `world=` is ignored), by name.
pub fn list_worlds(loc: &PgLocation) -> Result<Vec<WorldRow>> {
    let mut client = connect(loc)?;
    let rows = client
        .query(
            "SELECT w.name, w.dims_x, w.dims_y, w.dims_z, w.head, count(c.world), \
             coalesce(sum(length(c.data)), 0)::int8 FROM voxcaf.worlds w \
             LEFT JOIN voxcaf.chunks c ON c.world = w.id GROUP BY w.id ORDER BY w.name",
            &[],
        )
        .map_err(|e| db_error(loc, &e))?;
    Ok(rows
        .iter()
        .map(|r| WorldRow {
            name: r.get(0),
            chunk_dims: [1, 2, 3].map(|i| r.get::<_, i32>(i) as u32),
            head: r.get::<_, i64>(4) as u64,
            chunks: r.get::<_, i64>(5) as u64,
            bytes: r.get::<_, i64>(6) as u64,
        })
        .collect())
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
    let mut client = connect(loc)?;
    let dbe = |e: postgres::Error| db_error(loc, &e);
    let mut tx = client.transaction().map_err(dbe)?;
    let seq = 1i64;
    let id = insert_world(&mut tx, loc, head, replace, seq)?;
    let mut report = ImportReport {
        seq: seq as u64,
        ..Default::default()
    };
    {
        let sink = tx
            .copy_in(
                "COPY voxcaf.chunks (world, x, y, z, version, encoding, storage, value, crc, \
                 data) FROM STDIN (FORMAT binary)",
            )
            .map_err(dbe)?;
        let types = [
            Type::INT8,
            Type::INT4,
            Type::INT4,
            Type::INT4,
            Type::INT8,
            Type::INT2,
            Type::INT2,
            Type::INT8,
            Type::INT8,
            Type::BYTEA,
        ];
        let mut w = BinaryCopyInWriter::new(sink, &types);
        for batch in batches {
            for (p, s) in batch? {
                if (0..3).any(|k| p[k] >= head.chunk_dims[k]) {
                    return Err(store_error(
                        loc,
                        format!(
                            "chunk {p:?} is outside the world's {:?} chunks",
                            head.chunk_dims
                        ),
                    ));
                }
                let [x, y, z] = p.map(|v| v as i32);
                let (e, st) = (i16::from(s.encoding), i16::from(s.storage));
                let (v, crc) = (i64::from(s.value), i64::from(s.crc));
                w.write(&[&id, &x, &y, &z, &seq, &e, &st, &v, &crc, &s.data])
                    .map_err(dbe)?;
                report.chunks += 1;
                report.bytes += s.data.len() as u64;
            }
        }
        w.finish().map_err(dbe)?;
    }
    let meta = Meta {
        kind: CommitKind::Migrate,
        reverted_to: None,
        tool,
        summary,
        chunks: report.chunks,
    };
    record_commit(&mut tx, &HashMap::new(), id, seq, &meta, &head.fields).map_err(dbe)?;
    tx.commit().map_err(dbe)?;
    Ok(report)
}
