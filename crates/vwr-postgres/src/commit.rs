//! The commit transaction of vwr-postgres.md §3, in parts shared by commits, reverts (§7) and
//! imports: lock the world row, write the chunk rows (the replaced ones moving to history),
//! finish with the world row, the commits row, pruning and NOTIFY.

use std::collections::HashMap;

use postgres::types::ToSql;
use postgres::{Row, Statement, Transaction};
use vwr::{StoredChunk, VwrError, WorldFields};

use crate::db::now_ms;

voxcaf_names::names! {
    /// What made a commit (`commits.kind`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum CommitKind as "commit kind" {
        /// An edit (`save`).
        Save => "save",
        /// A revert (`revert`): the state of an older commit made current again.
        Revert => "revert",
        /// A whole world written by `migrate` or import (`migrate`).
        Migrate => "migrate",
    }
}

pub(crate) const LOCK_SQL: &str = "SELECT head, fields_version, history_from, sky_region, \
     mission_number, spawn_x, spawn_y, spawn_z FROM voxcaf.worlds WHERE id = $1 FOR UPDATE";
pub(crate) const VERSIONS_SQL: &str = "SELECT c.x, c.y, c.z, c.version \
     FROM unnest($2::int4[], $3::int4[], $4::int4[]) AS p(x, y, z) \
     JOIN voxcaf.chunks c ON c.world = $1 AND c.x = p.x AND c.y = p.y AND c.z = p.z";
const HISTORY_SQL: &str = "INSERT INTO voxcaf.chunk_history \
     (world, x, y, z, replaced_by, version, encoding, storage, value, crc, data) \
     SELECT $1, p.x, p.y, p.z, $2, coalesce(c.version, 0), coalesce(c.encoding, -1), \
     coalesce(c.storage, -1), coalesce(c.value, 0), coalesce(c.crc, 0), c.data \
     FROM unnest($3::int4[], $4::int4[], $5::int4[]) AS p(x, y, z) \
     LEFT JOIN voxcaf.chunks c ON c.world = $1 AND c.x = p.x AND c.y = p.y AND c.z = p.z";
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
     chunks, kind, reverted_to, sky_region, mission_number, spawn_x, spawn_y, spawn_z) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)";
const PRUNE_SQL: &str = "DELETE FROM voxcaf.chunk_history WHERE world = $1 AND replaced_by <= $2";
const FROM_UPDATE_SQL: &str = "UPDATE voxcaf.worlds SET history_from = $2 WHERE id = $1";
const NOTIFY_SQL: &str = "SELECT pg_notify('voxcaf_world', $1)";

/// The statements of a commit, prepared once per store before its first commit.
pub(crate) const COMMIT_SQL: [&str; 11] = [
    LOCK_SQL,
    VERSIONS_SQL,
    HISTORY_SQL,
    UPSERT_SQL,
    DELETE_SQL,
    HEAD_UPDATE_SQL,
    FIELDS_UPDATE_SQL,
    COMMIT_ROW_SQL,
    PRUNE_SQL,
    FROM_UPDATE_SQL,
    NOTIFY_SQL,
];

/// Statements prepared on the store's connection.
pub(crate) type Prepared = HashMap<&'static str, Statement>;

/// `sql`, prepared already or now.
pub(crate) fn stmt(
    tx: &mut Transaction<'_>,
    prepared: &Prepared,
    sql: &'static str,
) -> Result<Statement, postgres::Error> {
    match prepared.get(sql) {
        Some(s) => Ok(s.clone()),
        None => tx.prepare(sql),
    }
}

/// Why a commit transaction did not commit (it rolled back).
pub(crate) enum CommitFail {
    /// A query failed.
    Db(postgres::Error),
    /// What the writer read moved: what.
    Conflict(String),
    /// The world row is gone.
    Gone,
    /// Refused for another reason (a revert to a commit no longer kept, a damaged row).
    Vwr(VwrError),
}

impl From<postgres::Error> for CommitFail {
    fn from(e: postgres::Error) -> Self {
        CommitFail::Db(e)
    }
}

/// The spawn as the three nullable columns (all NULL: no spawn).
pub(crate) fn spawn_columns(f: &WorldFields) -> [Option<i32>; 3] {
    f.spawn.map_or([None; 3], |s| s.map(Some))
}

/// Columns `first..first+5` (sky region, mission number, spawn x, y, z) as fields; `None`
/// when the sky region is NULL (a commit row from before schema version 2).
pub(crate) fn fields_from_row(row: &Row, first: usize) -> Option<WorldFields> {
    let sky: Option<i64> = row.get(first);
    let mission: Option<i64> = row.get(first + 1);
    let spawn: [Option<i32>; 3] = [row.get(first + 2), row.get(first + 3), row.get(first + 4)];
    let spawn = match spawn {
        [Some(x), Some(y), Some(z)] => Some([x, y, z]),
        _ => None,
    };
    Some(WorldFields {
        sky_region: sky? as u32,
        mission_number: mission? as u32,
        spawn,
    })
}

/// Positions as three coordinate arrays (for `unnest`).
pub(crate) fn columns(positions: impl Iterator<Item = [u32; 3]>) -> [Vec<i32>; 3] {
    let mut c: [Vec<i32>; 3] = Default::default();
    for p in positions {
        for k in 0..3 {
            c[k].push(p[k] as i32);
        }
    }
    c
}

/// The world row as a commit locks it.
pub(crate) struct Locked {
    /// The last commit's seq.
    pub head: i64,
    /// The commit that last changed the fields.
    pub fields_version: i64,
    /// The oldest seq a revert can go back to.
    pub history_from: i64,
    /// The fields now.
    pub fields: WorldFields,
}

/// §3 step 1: locks the world row (commits of this world are serial from here).
pub(crate) fn lock(
    tx: &mut Transaction<'_>,
    prepared: &Prepared,
    id: i64,
) -> Result<Locked, CommitFail> {
    let s = stmt(tx, prepared, LOCK_SQL)?;
    let row = tx.query_opt(&s, &[&id])?.ok_or(CommitFail::Gone)?;
    Ok(Locked {
        head: row.get(0),
        fields_version: row.get(1),
        history_from: row.get(2),
        fields: fields_from_row(&row, 3).unwrap_or_default(),
    })
}

/// The chunk rows a commit writes: new stored chunks, and positions to clear.
#[derive(Default)]
pub(crate) struct Rows {
    /// Chunks to write.
    pub upserts: Vec<([u32; 3], StoredChunk)>,
    /// Positions whose row goes (all air).
    pub deletes: Vec<[u32; 3]>,
}

impl Rows {
    /// Positions written or cleared.
    pub fn len(&self) -> usize {
        self.upserts.len() + self.deletes.len()
    }

    /// Nothing to write.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// §3 step 3: the replaced rows (and the absence of the new ones) to history, then the
/// upserts and deletes with `version = seq`.
pub(crate) fn write_rows(
    tx: &mut Transaction<'_>,
    prepared: &Prepared,
    id: i64,
    seq: i64,
    rows: &Rows,
) -> Result<(), postgres::Error> {
    if rows.is_empty() {
        return Ok(());
    }
    let all = rows.upserts.iter().map(|(p, _)| *p);
    let [xs, ys, zs] = columns(all.chain(rows.deletes.iter().copied()));
    let history = stmt(tx, prepared, HISTORY_SQL)?;
    tx.execute(&history, &[&id, &seq, &xs, &ys, &zs])?;
    let ups = &rows.upserts;
    if !ups.is_empty() {
        let [xs, ys, zs] = columns(ups.iter().map(|(p, _)| *p));
        let e: Vec<i16> = ups.iter().map(|(_, s)| i16::from(s.encoding)).collect();
        let st: Vec<i16> = ups.iter().map(|(_, s)| i16::from(s.storage)).collect();
        let v: Vec<i64> = ups.iter().map(|(_, s)| i64::from(s.value)).collect();
        let crc: Vec<i64> = ups.iter().map(|(_, s)| i64::from(s.crc)).collect();
        let data: Vec<&[u8]> = ups.iter().map(|(_, s)| &s.data[..]).collect();
        let params: [&(dyn ToSql + Sync); 10] =
            [&id, &seq, &xs, &ys, &zs, &e, &st, &v, &crc, &data];
        let upsert = stmt(tx, prepared, UPSERT_SQL)?;
        tx.execute(&upsert, &params)?;
    }
    if !rows.deletes.is_empty() {
        let [xs, ys, zs] = columns(rows.deletes.iter().copied());
        let delete = stmt(tx, prepared, DELETE_SQL)?;
        tx.execute(&delete, &[&id, &xs, &ys, &zs])?;
    }
    Ok(())
}

/// What a commits row says besides its seq and fields.
pub(crate) struct Meta<'a> {
    /// What made it.
    pub kind: CommitKind,
    /// A revert's target.
    pub reverted_to: Option<i64>,
    /// The program.
    pub tool: &'a str,
    /// What it did.
    pub summary: &'a str,
    /// Chunks written or removed.
    pub chunks: u64,
}

/// The commits row with the fields after the commit, and its NOTIFY.
pub(crate) fn record_commit(
    tx: &mut Transaction<'_>,
    prepared: &Prepared,
    id: i64,
    seq: i64,
    meta: &Meta<'_>,
    fields: &WorldFields,
) -> Result<(), postgres::Error> {
    let n = i32::try_from(meta.chunks).unwrap_or(i32::MAX);
    let spawn = spawn_columns(fields);
    let (sky, mission) = (
        i64::from(fields.sky_region),
        i64::from(fields.mission_number),
    );
    let params: [&(dyn ToSql + Sync); 13] = [
        &id,
        &seq,
        &now_ms(),
        &meta.tool,
        &meta.summary,
        &n,
        &meta.kind.name(),
        &meta.reverted_to,
        &sky,
        &mission,
        &spawn[0],
        &spawn[1],
        &spawn[2],
    ];
    let row = stmt(tx, prepared, COMMIT_ROW_SQL)?;
    tx.execute(&row, &params)?;
    let notify = stmt(tx, prepared, NOTIFY_SQL)?;
    tx.execute(&notify, &[&format!("{id} {seq}")])?;
    Ok(())
}

/// Moves `history_from` up to `from` (when that is later) and deletes the history rows no
/// state from `from` on needs (§7); the rows deleted.
pub(crate) fn prune(
    tx: &mut Transaction<'_>,
    prepared: &Prepared,
    id: i64,
    locked: &Locked,
    from: i64,
) -> Result<u64, postgres::Error> {
    if from <= locked.history_from {
        return Ok(0);
    }
    let del = stmt(tx, prepared, PRUNE_SQL)?;
    let n = tx.execute(&del, &[&id, &from])?;
    let up = stmt(tx, prepared, FROM_UPDATE_SQL)?;
    tx.execute(&up, &[&id, &from])?;
    Ok(n)
}

/// The oldest seq kept when the head is `head` and `keep` commits are kept.
pub(crate) fn kept_from(head: i64, keep: usize) -> i64 {
    let keep = i64::try_from(keep.max(1)).unwrap_or(i64::MAX);
    head.saturating_sub(keep).saturating_add(1).max(1)
}

/// §3 step 4 (and 5, sent at COMMIT): the world row (`fields`: new ones, when they changed),
/// the commits row, history older than the `keep` newest commits pruned.
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish(
    tx: &mut Transaction<'_>,
    prepared: &Prepared,
    id: i64,
    seq: i64,
    locked: &Locked,
    fields: Option<WorldFields>,
    meta: &Meta<'_>,
    keep: usize,
) -> Result<(), postgres::Error> {
    match fields {
        Some(f) => {
            let spawn = spawn_columns(&f);
            let (sky, mission) = (i64::from(f.sky_region), i64::from(f.mission_number));
            let params: [&(dyn ToSql + Sync); 7] =
                [&id, &seq, &sky, &mission, &spawn[0], &spawn[1], &spawn[2]];
            let up = stmt(tx, prepared, FIELDS_UPDATE_SQL)?;
            tx.execute(&up, &params)?;
        }
        None => {
            let up = stmt(tx, prepared, HEAD_UPDATE_SQL)?;
            tx.execute(&up, &[&id, &seq])?;
        }
    }
    record_commit(
        tx,
        prepared,
        id,
        seq,
        meta,
        &fields.unwrap_or(locked.fields),
    )?;
    prune(tx, prepared, id, locked, kept_from(seq, keep))?;
    Ok(())
}
