//! History, revert and compaction of a world in a database (vwr-postgres.md §7).

use std::ops::RangeInclusive;
use std::path::PathBuf;

use postgres::Transaction;
use vwr::{Committed, Result, VwrError};

use crate::commit::{
    fields_from_row, finish, kept_from, lock, prune, write_rows, CommitFail, CommitKind, Locked,
    Meta, Rows,
};
use crate::db::db_error;
use crate::store::row_stored;
use crate::PgStore;

/// The state at `$2` of every chunk changed after it: for each position, the history row with
/// the smallest `replaced_by` above `$2` (storage -1: no chunk).
const STATES_SQL: &str = "SELECT DISTINCT ON (x, y, z) x, y, z, encoding, storage, value, crc, \
     data FROM voxcaf.chunk_history WHERE world = $1 AND replaced_by > $2 \
     ORDER BY x, y, z, replaced_by";
const FIELDS_AT_SQL: &str = "SELECT sky_region, mission_number, spawn_x, spawn_y, spawn_z \
     FROM voxcaf.commits WHERE world = $1 AND seq = $2";
const KEPT_SQL: &str = "SELECT history_from, head FROM voxcaf.worlds WHERE id = $1";
/// Every position a commit after `$2` wrote (its row's version) or replaced or removed (a
/// history row it replaced).
const CHANGED_SQL: &str = "SELECT x, y, z FROM voxcaf.chunks WHERE world = $1 AND version > $2 \
     UNION SELECT x, y, z FROM voxcaf.chunk_history WHERE world = $1 AND replaced_by > $2";

/// `from..=head` as the error message writes a kept range (`none` when empty).
fn range_text(from: i64, head: i64) -> String {
    if from > head {
        "none".to_string()
    } else {
        format!("{from}..={head}")
    }
}

impl PgStore {
    /// The seqs a revert can go back to now: `history_from..=head` (empty when the world has
    /// no commit).
    pub fn kept(&mut self) -> Result<RangeInclusive<u64>> {
        let (client, _, id, _) = self.parts();
        let row = client.query_opt(KEPT_SQL, &[&id]);
        let row = row.map_err(|e| db_error(self.loc(), &e))?;
        let row = row.ok_or_else(|| self.fail(CommitFail::Gone))?;
        let (from, head): (i64, i64) = (row.get(0), row.get(1));
        Ok(from.max(1) as u64..=head.max(0) as u64)
    }

    /// The chunk positions that commits after `seq` wrote, replaced or removed, when the kept
    /// history still reaches back to `seq` (so that removals are known); `None` when it does not,
    /// and the world must be read whole. What an editor that holds the world at `seq` reads to
    /// catch up.
    pub fn changed_since(&mut self, seq: u64) -> Result<Option<Vec<[u32; 3]>>> {
        let kept = self.kept()?;
        if seq >= *kept.end() {
            return Ok(Some(Vec::new()));
        }
        if seq < *kept.start() {
            return Ok(None);
        }
        let (client, _, id, _) = self.parts();
        let rows = client.query(CHANGED_SQL, &[&id, &(seq as i64)]);
        let rows = rows.map_err(|e| db_error(self.loc(), &e))?;
        let mut out: Vec<[u32; 3]> = rows
            .iter()
            .map(|r| [0, 1, 2].map(|i| r.get::<_, i32>(i) as u32))
            .collect();
        out.sort_unstable_by_key(|p| (p[2], p[1], p[0]));
        Ok(Some(out))
    }

    /// Makes the state of commit `to` (default: the one before the head) current again as a
    /// new commit of kind `revert`, which itself can be reverted (vwr-postgres.md §7). Reverts
    /// the head this store reads now: see [`PgStore::revert_from`].
    pub fn revert(&mut self, to: Option<u64>, tool: &str) -> Result<Committed> {
        let head = vwr::ChunkStore::head(self)?.head;
        self.revert_from(head, to, tool)
    }

    /// [`PgStore::revert`] provided the head is still `seen` (`Expect::Head(seen)`): a commit
    /// made since is a [`VwrError::Conflict`] and nothing is written. `to` defaults to
    /// `seen - 1`; a seq outside the kept range is a [`VwrError::NoSuchCommit`] naming it.
    pub fn revert_from(&mut self, seen: u64, to: Option<u64>, tool: &str) -> Result<Committed> {
        self.prepare_commit()?;
        let to = to.unwrap_or(seen.saturating_sub(1));
        let location = self.loc().display();
        let result = revert_tx(self, seen, to, tool, &location);
        let (seq, chunks) = result.map_err(|f| self.fail(f))?;
        Ok(Committed {
            seq,
            chunks,
            report: Default::default(),
        })
    }

    /// Keeps the state of the newest `keep` commits only (at least 1): moves the kept range's
    /// start up and deletes the history rows no kept state needs (vwr-postgres.md §7). The
    /// rows dropped.
    pub fn compact(&mut self, keep: usize) -> Result<u64> {
        let (client, prepared, id, _) = self.parts();
        let r = (|| -> std::result::Result<u64, CommitFail> {
            let mut tx = client.transaction()?;
            let locked = lock(&mut tx, prepared, id)?;
            let from = kept_from(locked.head, keep);
            let n = prune(&mut tx, prepared, id, &locked, from)?;
            tx.commit()?;
            Ok(n)
        })();
        r.map_err(|f| self.fail(f))
    }
}

/// The state at `to` of every chunk changed after it, as the rows a revert writes.
fn states_at(
    tx: &mut Transaction<'_>,
    id: i64,
    to: i64,
    location: &str,
) -> std::result::Result<Rows, CommitFail> {
    let mut rows = Rows::default();
    for r in tx.query(STATES_SQL, &[&id, &to])? {
        let pos = [0, 1, 2].map(|i| r.get::<_, i32>(i) as u32);
        if r.get::<_, i16>(4) < 0 {
            rows.deletes.push(pos);
        } else {
            let s = row_stored(location, &r, 3, pos).map_err(CommitFail::Vwr)?;
            rows.upserts.push((pos, s));
        }
    }
    Ok(rows)
}

/// The fields recorded with commit `to`.
fn fields_at(
    tx: &mut Transaction<'_>,
    id: i64,
    to: i64,
    location: &str,
) -> std::result::Result<vwr::WorldFields, CommitFail> {
    let row = tx.query_opt(FIELDS_AT_SQL, &[&id, &to])?;
    row.as_ref()
        .and_then(|r| fields_from_row(r, 0))
        .ok_or_else(|| {
            CommitFail::Vwr(VwrError::Store {
                location: location.to_string(),
                message: format!("commit {to} has no recorded fields; it cannot be reverted to"),
            })
        })
}

/// Refuses `to` outside the kept range of `locked`.
fn check_kept(locked: &Locked, to: u64, location: &str) -> std::result::Result<i64, CommitFail> {
    let from = locked.history_from.max(1);
    match i64::try_from(to) {
        Ok(t) if t >= from && t <= locked.head => Ok(t),
        _ => Err(CommitFail::Vwr(VwrError::NoSuchCommit {
            path: PathBuf::from(location),
            generation: u32::try_from(to).unwrap_or(u32::MAX),
            kept: range_text(from, locked.head),
        })),
    }
}

/// The revert transaction: §3 with `Expect::Head(seen)`, the states at `to` as the changes
/// and commit `to`'s fields; the new seq and the chunks written.
fn revert_tx(
    s: &mut PgStore,
    seen: u64,
    to: u64,
    tool: &str,
    location: &str,
) -> std::result::Result<(u64, u64), CommitFail> {
    let (client, prepared, id, keep) = s.parts();
    let mut tx = client.transaction()?;
    let locked = lock(&mut tx, prepared, id)?;
    if locked.head as u64 != seen {
        return Err(CommitFail::Conflict("the world".into()));
    }
    let to = check_kept(&locked, to, location)?;
    let fields = fields_at(&mut tx, id, to, location)?;
    let rows = states_at(&mut tx, id, to, location)?;
    let seq = locked.head + 1;
    write_rows(&mut tx, prepared, id, seq, &rows)?;
    let summary = format!("revert to {to}");
    let meta = Meta {
        kind: CommitKind::Revert,
        reverted_to: Some(to),
        tool,
        summary: &summary,
        chunks: rows.len() as u64,
    };
    let new_fields = (fields != locked.fields).then_some(fields);
    finish(&mut tx, prepared, id, seq, &locked, new_fields, &meta, keep)?;
    tx.commit()?;
    Ok((seq as u64, rows.len() as u64))
}
