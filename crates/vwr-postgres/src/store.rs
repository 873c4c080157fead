//! [`PgStore`]: a world in a database as a [`vwr::ChunkStore`] (vwr-postgres.md §3, §6).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::{ToSql, Type};
use postgres::{Client, GenericClient, Row, Statement};
use vwr::{
    ChunkStore, Codec, Committed, Expect, Result, StoreCommit, StoreHead, StoredChunk, Versioned,
    VwrError, WorldFields,
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
    statements: HashMap<&'static str, Statement>,
    listening: bool,
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
const LOCK_SQL: &str = "SELECT head, fields_version FROM voxcaf.worlds WHERE id = $1 FOR UPDATE";
const VERSIONS_SQL: &str = "SELECT c.x, c.y, c.z, c.version \
     FROM unnest($2::int4[], $3::int4[], $4::int4[]) AS p(x, y, z) \
     JOIN voxcaf.chunks c ON c.world = $1 AND c.x = p.x AND c.y = p.y AND c.z = p.z";
const UPSERT_SQL: &str = "INSERT INTO voxcaf.chunks \
     (world, x, y, z, version, encoding, storage, value, crc, data) \
     SELECT $1, x, y, z, $2, e, s, v, c, d FROM unnest($3::int4[], $4::int4[], $5::int4[], \
     $6::int2[], $7::int2[], $8::int8[], $9::int8[], $10::bytea[]) AS t(x, y, z, e, s, v, c, d) \
     ON CONFLICT (world, x, y, z) DO UPDATE SET version = EXCLUDED.version, \
     encoding = EXCLUDED.encoding, storage = EXCLUDED.storage, value = EXCLUDED.value, \
     crc = EXCLUDED.crc, data = EXCLUDED.data";
const DELETE_SQL: &str = "DELETE FROM voxcaf.chunks WHERE world = $1 AND (x, y, z) IN \
     (SELECT * FROM unnest($2::int4[], $3::int4[], $4::int4[]))";
const HEAD_UPDATE_SQL: &str = "UPDATE voxcaf.worlds SET head = $2 WHERE id = $1";
const FIELDS_UPDATE_SQL: &str = "UPDATE voxcaf.worlds SET head = $2, fields_version = $2, \
     sky_region = $3, mission_number = $4, spawn_x = $5, spawn_y = $6, spawn_z = $7 \
     WHERE id = $1";
const COMMIT_ROW_SQL: &str = "INSERT INTO voxcaf.commits (world, seq, time_ms, tool, summary, \
     chunks) VALUES ($1, $2, $3, $4, $5, $6)";
const NOTIFY_SQL: &str = "SELECT pg_notify('voxcaf_world', $1)";

/// Positions as three coordinate arrays (for `unnest`).
fn columns(positions: impl Iterator<Item = [u32; 3]>) -> [Vec<i32>; 3] {
    let mut c: [Vec<i32>; 3] = Default::default();
    for p in positions {
        for k in 0..3 {
            c[k].push(p[k] as i32);
        }
    }
    c
}

fn conflict_what(moved: &[[u32; 3]]) -> String {
    match moved {
        [p] => format!("chunk ({}, {}, {})", p[0], p[1], p[2]),
        m => format!("{} chunks", m.len()),
    }
}

/// A stored row's columns `first..first+5` (encoding, storage, value, crc, data) as a chunk,
/// checked; a value out of its column's range is a bad chunk too.
fn row_chunk(loc: &str, row: &Row, first: usize, pos: [u32; 3]) -> Result<vwr::Chunk> {
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
    stored.decode(loc, pos)
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

    /// The newest `limit` commits, newest first.
    pub fn commits(&mut self, limit: usize) -> Result<Vec<CommitRow>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self
            .client
            .query(
                "SELECT seq, time_ms, tool, summary, chunks FROM voxcaf.commits \
                 WHERE world = $1 ORDER BY seq DESC LIMIT $2",
                &[&self.id, &limit],
            )
            .map_err(|e| db_error(&self.loc, &e))?;
        Ok(rows
            .iter()
            .map(|r| CommitRow {
                seq: r.get::<_, i64>(0) as u64,
                time_ms: r.get::<_, i64>(1) as u64,
                tool: r.get(2),
                summary: r.get(3),
                chunks: r.get::<_, i32>(4) as u64,
            })
            .collect())
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

/// The spawn as the three nullable columns (all NULL: no spawn).
fn spawn_columns(f: &WorldFields) -> [Option<i32>; 3] {
    f.spawn.map_or([None; 3], |s| s.map(Some))
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

/// The commits row and its NOTIFY.
fn record_commit(
    tx: &mut impl GenericClient,
    id: i64,
    seq: i64,
    tool: &str,
    summary: &str,
    chunks: u64,
) -> std::result::Result<(), postgres::Error> {
    let n = i32::try_from(chunks).unwrap_or(i32::MAX);
    tx.execute(COMMIT_ROW_SQL, &[&id, &seq, &now_ms(), &tool, &summary, &n])?;
    tx.execute(NOTIFY_SQL, &[&format!("{id} {seq}")])?;
    Ok(())
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
        let spawn: [Option<i32>; 3] = [row.get(5), row.get(6), row.get(7)];
        let spawn = match spawn {
            [Some(x), Some(y), Some(z)] => Some([x, y, z]),
            _ => None,
        };
        Ok(StoreHead {
            chunk_dims: [d(0), d(1), d(2)],
            fields: WorldFields {
                sky_region: row.get::<_, i64>(3) as u32,
                mission_number: row.get::<_, i64>(4) as u32,
                spawn,
            },
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
            v.chunk = Some(row_chunk(&location, &row, 2, v.pos)?);
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
        let mut upserts = Vec::new();
        let mut deletes = Vec::new();
        for &(p, chunk) in &c.changes {
            let enc =
                chunk.and_then(|ch| StoredChunk::encode(ch, Codec::Auto, vwr::DEFAULT_ZSTD_LEVEL));
            match enc {
                Some(s) => upserts.push((p, s)),
                None => deletes.push(p),
            }
        }
        let stmts = [
            LOCK_SQL,
            VERSIONS_SQL,
            UPSERT_SQL,
            DELETE_SQL,
            HEAD_UPDATE_SQL,
            FIELDS_UPDATE_SQL,
            COMMIT_ROW_SQL,
            NOTIFY_SQL,
        ];
        for sql in stmts {
            self.statement(sql)?;
        }
        let result = commit_tx(self, c, &upserts, &deletes);
        match result {
            Ok(seq) => Ok(Committed {
                seq,
                chunks: c.changes.len() as u64,
                report: Default::default(),
            }),
            Err(CommitFail::Db(e)) => Err(db_error(&self.loc, &e)),
            Err(CommitFail::Conflict(what)) => Err(VwrError::Conflict {
                location: self.loc.display(),
                what,
            }),
            Err(CommitFail::Gone) => Err(self.missing_world()),
        }
    }
}

/// Why a commit transaction did not commit (it rolled back).
enum CommitFail {
    Db(postgres::Error),
    Conflict(String),
    Gone,
}

impl From<postgres::Error> for CommitFail {
    fn from(e: postgres::Error) -> Self {
        CommitFail::Db(e)
    }
}

/// The transaction of vwr-postgres.md §3; the new seq.
fn commit_tx(
    s: &mut PgStore,
    c: &StoreCommit<'_>,
    upserts: &[([u32; 3], StoredChunk)],
    deletes: &[[u32; 3]],
) -> std::result::Result<u64, CommitFail> {
    let st = |sql: &str| s.statements[sql].clone();
    let (lock, versions, upsert, delete) = (
        st(LOCK_SQL),
        st(VERSIONS_SQL),
        st(UPSERT_SQL),
        st(DELETE_SQL),
    );
    let (head_up, fields_up) = (st(HEAD_UPDATE_SQL), st(FIELDS_UPDATE_SQL));
    let id = s.id;
    let mut tx = s.client.transaction()?;
    // 1. The world row, locked: commits of this world are serial from here.
    let row = tx.query_opt(&lock, &[&id])?.ok_or(CommitFail::Gone)?;
    let (head, fields_version): (i64, i64) = (row.get(0), row.get(1));
    // 2. The version check.
    match &c.expect {
        Expect::Head(h) if *h != head as u64 => {
            return Err(CommitFail::Conflict("the world".into()))
        }
        Expect::Head(_) => {}
        Expect::Chunks(list) => {
            let [xs, ys, zs] = columns(list.iter().map(|(p, _)| *p));
            let now: HashMap<[u32; 3], u64> = tx
                .query(&versions, &[&id, &xs, &ys, &zs])?
                .iter()
                .map(|r| {
                    let p = [0, 1, 2].map(|i| r.get::<_, i32>(i) as u32);
                    (p, r.get::<_, i64>(3) as u64)
                })
                .collect();
            let moved: Vec<[u32; 3]> = list
                .iter()
                .filter(|(p, v)| now.get(p).copied().unwrap_or(0) != *v)
                .map(|(p, _)| *p)
                .collect();
            if !moved.is_empty() {
                return Err(CommitFail::Conflict(conflict_what(&moved)));
            }
        }
    }
    if let Some((_, seen)) = c.fields {
        if seen != fields_version as u64 {
            return Err(CommitFail::Conflict("the world-wide fields".into()));
        }
    }
    let seq = head + 1;
    // 3. The chunk rows.
    if !upserts.is_empty() {
        let [xs, ys, zs] = columns(upserts.iter().map(|(p, _)| *p));
        let e: Vec<i16> = upserts.iter().map(|(_, s)| i16::from(s.encoding)).collect();
        let st: Vec<i16> = upserts.iter().map(|(_, s)| i16::from(s.storage)).collect();
        let v: Vec<i64> = upserts.iter().map(|(_, s)| i64::from(s.value)).collect();
        let crc: Vec<i64> = upserts.iter().map(|(_, s)| i64::from(s.crc)).collect();
        let data: Vec<&[u8]> = upserts.iter().map(|(_, s)| &s.data[..]).collect();
        let params: [&(dyn ToSql + Sync); 10] =
            [&id, &seq, &xs, &ys, &zs, &e, &st, &v, &crc, &data];
        tx.execute(&upsert, &params)?;
    }
    if !deletes.is_empty() {
        let [xs, ys, zs] = columns(deletes.iter().copied());
        tx.execute(&delete, &[&id, &xs, &ys, &zs])?;
    }
    // 4. The world row and the commits row; 5. NOTIFY (sent at COMMIT).
    match c.fields {
        Some((f, _)) => {
            let spawn = spawn_columns(&f);
            let (sky, mission) = (i64::from(f.sky_region), i64::from(f.mission_number));
            let params: [&(dyn ToSql + Sync); 7] =
                [&id, &seq, &sky, &mission, &spawn[0], &spawn[1], &spawn[2]];
            tx.execute(&fields_up, &params)?;
        }
        None => {
            tx.execute(&head_up, &[&id, &seq])?;
        }
    }
    record_commit(&mut tx, id, seq, c.tool, c.summary, c.changes.len() as u64)?;
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
    record_commit(&mut tx, id, seq, tool, summary, report.chunks).map_err(dbe)?;
    tx.commit().map_err(dbe)?;
    Ok(report)
}
