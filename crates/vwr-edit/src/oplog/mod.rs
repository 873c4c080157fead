//! The operation log of a world edited by several people at once, and undo rebased over the
//! others' operations.
//!
//! Every accepted operation gets the next sequence number in one [`OpLog`]: who did it, when,
//! and what ([`Action`]: the edit-script text, or the undo or redo of an earlier operation).
//! Each operation also keeps its exact [`OpRecord`] (every chunk it changed, as it was before
//! and after, and the world fields) for as long as its author may still undo it.
//!
//! **Undo rule.** Undoing an operation puts back what it replaced only where the world still
//! holds what it wrote: a cell goes back to its value before the operation if it still holds
//! the value the operation gave it; a cell someone else changed since is left as it is. The
//! same holds for metadata records (per cell and record type) and for the world fields (sky
//! region, mission number, spawn, each on its own). A chunk nobody else touched since is put
//! back whole, so that a single user's undo is exact to the byte. Redo is the undo of the undo,
//! under the same rule. Each user's undo and redo act on that user's own operations only.
//!
//! The log's text form (one JSON object per line, [`LogLine`]) is what `voxcaf world serve`
//! writes beside a world as `FILE.oplog`, and [`replay`] rebuilds the saved world from it; see
//! `docs/format/oplog.md`.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use vwr::{Block, Chunk, MetaRecord, World, WorldFields, CHUNK_VOLUME};

use crate::script::{apply_ops, Applied, Located, Op, ScriptError};
use crate::{Change, EditError, Editor, HistoryLimits};

#[cfg(feature = "serde")]
mod text;
#[cfg(feature = "serde")]
pub use text::{replay, LogLine, ReplayError, ReplayReport};

/// The exact record of one operation: each chunk it changed, before and after (`None`: not
/// allocated), and the world fields before and after when it changed them.
#[derive(Clone, Debug, Default)]
pub struct OpRecord {
    chunks: Vec<([u32; 3], Option<Chunk>, Option<Chunk>)>,
    fields: Option<(WorldFields, WorldFields)>,
    bytes: usize,
}

fn chunk_heap(c: &Option<Chunk>) -> usize {
    c.as_ref()
        .map_or(0, |c| std::mem::size_of::<Chunk>() + c.heap_bytes())
}

impl OpRecord {
    /// The record of `ed`'s newest command (the world as it is now is its "after").
    fn of_newest(ed: &Editor) -> OpRecord {
        let world = ed.world();
        let Some(nb) = ed.history().newest_before(world) else {
            return OpRecord::default();
        };
        let chunks: Vec<_> = nb
            .chunks
            .into_iter()
            .map(|(p, before)| (p, before, world.chunk(p).cloned()))
            .collect();
        let bytes = chunks
            .iter()
            .map(|(_, b, a)| 16 + chunk_heap(b) + chunk_heap(a))
            .sum();
        OpRecord {
            chunks,
            fields: nb.fields.map(|f| (f, world.fields())),
            bytes,
        }
    }

    /// Approximate heap bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Chunks the operation changed.
    pub fn chunks(&self) -> impl Iterator<Item = [u32; 3]> + '_ {
        self.chunks.iter().map(|(p, _, _)| *p)
    }
}

/// Whether `c` (`None`: unallocated, all air without records) equals `other`.
fn same(c: Option<&Chunk>, other: Option<&Chunk>) -> bool {
    match (c, other) {
        (Some(a), Some(b)) => a == b,
        (None, None) => true,
        (Some(a), None) | (None, Some(a)) => *a == Chunk::new(),
    }
}

fn blocks(c: Option<&Chunk>) -> Vec<Block> {
    c.map_or_else(
        || vec![Block::AIR; CHUNK_VOLUME],
        |c| c.to_blocks().to_vec(),
    )
}

fn record_of(r: &[MetaRecord], key: (u16, u16)) -> Option<&MetaRecord> {
    r.iter().find(|m| (m.index, m.record_type) == key)
}

/// The records of `now` with, for each (cell, type) whose record `before` and `after`
/// disagree on and `now` still has as `after` has it, `before`'s record instead.
fn rebased_records(
    now: &[MetaRecord],
    before: &[MetaRecord],
    after: &[MetaRecord],
) -> Vec<MetaRecord> {
    let mut keys: Vec<(u16, u16)> = before
        .iter()
        .chain(after)
        .map(|m| (m.index, m.record_type))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let mut out = now.to_vec();
    for k in keys {
        let (b, a) = (record_of(before, k), record_of(after, k));
        if b == a || record_of(now, k) != a {
            continue;
        }
        out.retain(|m| (m.index, m.record_type) != k);
        out.extend(b.cloned());
    }
    out
}

impl Editor {
    /// Reverts `rec` under the undo rule of [`crate::oplog`]: back to `rec`'s "before" where
    /// the world still holds its "after", as one command labelled `label`.
    pub fn revert(&mut self, rec: &OpRecord, label: impl Into<String>) -> crate::Result<Change> {
        let label = label.into();
        Ok(self
            .edit(label, |tx| {
                for (pos, before, after) in &rec.chunks {
                    let now = tx.world().chunk(*pos);
                    if same(now, after.as_ref()) {
                        tx.replace_chunk(*pos, before.clone());
                        continue;
                    }
                    let (b, a, n) = (blocks(before.as_ref()), blocks(after.as_ref()), blocks(now));
                    let none: &[MetaRecord] = &[];
                    let recs = rebased_records(
                        now.map_or(none, |c| c.records()),
                        before.as_ref().map_or(none, |c| c.records()),
                        after.as_ref().map_or(none, |c| c.records()),
                    );
                    let Some(chunk) = tx.chunk_mut(*pos) else {
                        continue;
                    };
                    for i in 0..CHUNK_VOLUME {
                        if b[i] != a[i] && n[i] == a[i] {
                            chunk.set(i, b[i])?;
                        }
                    }
                    if chunk.records() != recs.as_slice() {
                        chunk.set_records(recs);
                    }
                }
                if let Some((b, a)) = rec.fields {
                    let now = tx.world().fields();
                    if b.sky_region != a.sky_region && now.sky_region == a.sky_region {
                        tx.set_sky_region(b.sky_region);
                    }
                    if b.mission_number != a.mission_number
                        && now.mission_number == a.mission_number
                    {
                        tx.set_mission_number(b.mission_number);
                    }
                    if b.spawn != a.spawn && now.spawn == a.spawn {
                        tx.set_spawn(b.spawn)?;
                    }
                }
                Ok(())
            })?
            .1)
    }
}

/// What an operation of the log did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// An edit script (the `voxcaf world edit` language), applied as one step.
    Edit {
        /// The script.
        text: String,
    },
    /// The undo of operation `of` (by the same user), under the undo rule.
    Undo {
        /// The operation undone.
        of: u64,
    },
    /// The redo of the operation that `of` undid: the undo of undo `of`.
    Redo {
        /// The undo redone.
        of: u64,
    },
}

/// One accepted operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its place in the log (1, 2, …).
    pub seq: u64,
    /// Who did it.
    pub user: String,
    /// When (milliseconds since the Unix epoch).
    pub time_ms: u64,
    /// What.
    pub action: Action,
    /// What it changed.
    pub change: Change,
}

/// Why the log refused an operation.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// A line of the script was malformed or refused.
    #[error(transparent)]
    Script(#[from] ScriptError),
    /// A tool refused (an undo that cannot be applied).
    #[error(transparent)]
    Edit(#[from] EditError),
    /// An `undo` or `redo` line inside a script sent by several people's editor.
    #[error("{at}: `undo` and `redo` are not script lines in a shared session: they act on your own last operation (POST /api/undo, /api/redo)")]
    UndoInScript {
        /// Where the line is.
        at: String,
    },
}

/// A user's own operations that can be undone (oldest first) and undos that can be redone.
#[derive(Clone, Debug, Default)]
struct Stacks {
    undo: VecDeque<u64>,
    redo: Vec<u64>,
    dropped: u64,
}

/// A user's undo state, for an answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UserDepth {
    /// Own operations that can be undone.
    pub undo: usize,
    /// Own undos that can be redone.
    pub redo: usize,
    /// Own operations dropped from the oldest end to keep the log's memory bounded.
    pub dropped: u64,
}

/// FNV-1a (64 bits) of the world's bytes as [`World::to_bytes`] writes them: tells two
/// worlds apart (a log's segment names the world it starts from by it).
pub fn world_hash(world: &World) -> u64 {
    fnv64(&world.to_bytes())
}

/// FNV-1a, 64 bits.
pub fn fnv64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The label of a request's operations merged into one undo step.
pub fn group_label(changes: &[&Change]) -> String {
    let shown: Vec<&str> = changes.iter().take(3).map(|c| c.label.as_str()).collect();
    let more = if changes.len() > 3 { "; …" } else { "" };
    format!("{} edits: {}{more}", changes.len(), shown.join("; "))
}

/// The operations of a shared session, in order, and what each user can undo and redo.
#[derive(Clone, Debug)]
pub struct OpLog {
    next: u64,
    entries: Vec<Entry>,
    /// The record and label of every operation kept (for undo, redo and the timeline).
    records: BTreeMap<u64, (Arc<OpRecord>, String)>,
    users: HashMap<String, Stacks>,
    limits: HistoryLimits,
    bytes: usize,
}

/// The editor history an [`OpLog`] needs of its [`Editor`]: the newest command only (the
/// log keeps the records).
pub fn editor_limits(limits: HistoryLimits) -> HistoryLimits {
    HistoryLimits {
        max_depth: 1,
        max_bytes: limits.max_bytes,
    }
}

impl OpLog {
    /// An empty log whose first operation gets number `first`; each user keeps at most
    /// `limits.max_depth` undo steps, and all records together at most `limits.max_bytes`
    /// (the oldest are dropped first). The editor it drives should have
    /// [`editor_limits`].
    pub fn new(first: u64, limits: HistoryLimits) -> OpLog {
        OpLog {
            next: first.max(1),
            entries: Vec::new(),
            records: BTreeMap::new(),
            users: HashMap::new(),
            limits,
            bytes: 0,
        }
    }

    /// The number the next operation gets.
    pub fn next_seq(&self) -> u64 {
        self.next
    }

    /// The operations kept, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Forgets everything users could undo or redo (the world was replaced).
    pub fn clear_undo(&mut self) {
        self.records.clear();
        self.users.clear();
        self.bytes = 0;
    }

    /// Takes the newest operation, `user`'s, back out of the log after its effect on the
    /// world was taken back by the caller (a commit that lost a race): the entry, its record
    /// and its place on the user's stacks go; the operation an undo or redo stepped over goes
    /// back where it was.
    pub fn retract_last(&mut self, user: &str) {
        if self.entries.last().is_none_or(|e| e.user != user) {
            return;
        }
        let Some(e) = self.entries.pop() else {
            return;
        };
        self.next = e.seq;
        self.drop_record(e.seq);
        let s = self.users.entry(user.to_string()).or_default();
        match e.action {
            Action::Edit { .. } => {
                if s.undo.back() == Some(&e.seq) {
                    s.undo.pop_back();
                }
            }
            Action::Undo { of } => {
                if s.redo.last() == Some(&e.seq) {
                    s.redo.pop();
                }
                s.undo.push_back(of);
            }
            Action::Redo { of } => {
                if s.undo.back() == Some(&e.seq) {
                    s.undo.pop_back();
                }
                s.redo.push(of);
            }
        }
    }

    /// `user`'s undo state.
    pub fn depth(&self, user: &str) -> UserDepth {
        self.users
            .get(user)
            .map_or_else(UserDepth::default, |s| UserDepth {
                undo: s.undo.len(),
                redo: s.redo.len(),
                dropped: s.dropped,
            })
    }

    /// The label of `user`'s next undo.
    pub fn undo_label(&self, user: &str) -> Option<&str> {
        let seq = *self.users.get(user)?.undo.back()?;
        self.records.get(&seq).map(|(_, l)| l.as_str())
    }

    /// The label of what `user`'s next redo does again.
    pub fn redo_label(&self, user: &str) -> Option<&str> {
        let seq = *self.users.get(user)?.redo.last()?;
        let l = self.records.get(&seq).map(|(_, l)| l.as_str())?;
        Some(l.strip_prefix("undo: ").unwrap_or(l))
    }

    /// Applies `ops` (parsed from `text`) as `user`'s one operation, all or nothing.
    /// Answers what each line did and the new entry (`None` when nothing changed).
    pub fn edit(
        &mut self,
        ed: &mut Editor,
        user: &str,
        text: &str,
        ops: &[Located],
        fill_limit: u64,
        time_ms: u64,
    ) -> Result<(Vec<Applied>, Option<&Entry>), LogError> {
        if let Some(l) = ops.iter().find(|l| matches!(l.op, Op::Undo | Op::Redo)) {
            return Err(LogError::UndoInScript {
                at: l.at.to_string(),
            });
        }
        let (applied, change) = ed.group(group_label, |ed| apply_ops(ed, ops, fill_limit))?;
        let Some(change) = change.filter(|c| !c.is_empty()) else {
            return Ok((applied, None));
        };
        let rec = OpRecord::of_newest(ed);
        self.users.entry(user.to_string()).or_default().redo.clear();
        let seq = self.push(user, time_ms, Action::Edit { text: text.into() }, change);
        self.keep(user, seq, rec, false);
        Ok((applied, self.entries.last()))
    }

    /// Undoes `user`'s newest own operation under the undo rule; `None` when there is none.
    pub fn undo(
        &mut self,
        ed: &mut Editor,
        user: &str,
        time_ms: u64,
    ) -> Result<Option<&Entry>, LogError> {
        self.step(ed, user, time_ms, false)
    }

    /// Redoes `user`'s newest own undo; `None` when there is none.
    pub fn redo(
        &mut self,
        ed: &mut Editor,
        user: &str,
        time_ms: u64,
    ) -> Result<Option<&Entry>, LogError> {
        self.step(ed, user, time_ms, true)
    }

    fn step(
        &mut self,
        ed: &mut Editor,
        user: &str,
        time_ms: u64,
        redo: bool,
    ) -> Result<Option<&Entry>, LogError> {
        let Some(stacks) = self.users.get_mut(user) else {
            return Ok(None);
        };
        let of = if redo {
            stacks.redo.pop()
        } else {
            stacks.undo.pop_back()
        };
        let Some(of) = of else {
            return Ok(None);
        };
        let Some((rec, label)) = self.records.get(&of).cloned() else {
            return Ok(None);
        };
        let shown = if redo {
            label
                .strip_prefix("undo: ")
                .map_or_else(|| format!("redo: {label}"), str::to_string)
        } else {
            format!("undo: {label}")
        };
        let change = match ed.revert(&rec, shown) {
            Ok(c) => c,
            Err(e) => {
                // Nothing was applied: the step stays where it was.
                let s = self.users.entry(user.to_string()).or_default();
                if redo {
                    s.redo.push(of);
                } else {
                    s.undo.push_back(of);
                }
                return Err(e.into());
            }
        };
        let new = if change.is_empty() {
            OpRecord::default()
        } else {
            OpRecord::of_newest(ed)
        };
        let action = if redo {
            Action::Redo { of }
        } else {
            Action::Undo { of }
        };
        let seq = self.push(user, time_ms, action, change);
        self.keep(user, seq, new, !redo);
        Ok(self.entries.last())
    }

    fn label_of(&self, seq: u64) -> String {
        self.entries
            .iter()
            .rev()
            .find(|e| e.seq == seq)
            .map_or_else(String::new, |e| e.change.label.clone())
    }

    fn push(&mut self, user: &str, time_ms: u64, action: Action, change: Change) -> u64 {
        let seq = self.next;
        self.next += 1;
        self.entries.push(Entry {
            seq,
            user: user.to_string(),
            time_ms,
            action,
            change,
        });
        seq
    }

    /// Keeps `rec` as `user`'s step `seq` (on the redo stack when `redo`), then honours the
    /// limits.
    fn keep(&mut self, user: &str, seq: u64, rec: OpRecord, redo: bool) {
        let label = self.label_of(seq);
        self.bytes += rec.bytes;
        self.records.insert(seq, (Arc::new(rec), label));
        let s = self.users.entry(user.to_string()).or_default();
        if redo {
            s.redo.push(seq);
        } else {
            s.undo.push_back(seq);
        }
        // Past the depth the oldest step can no longer be undone (its record stays for the
        // timeline while the byte budget allows).
        while s.undo.len() > self.limits.max_depth {
            s.undo.pop_front();
            s.dropped += 1;
        }
        while self.bytes > self.limits.max_bytes && self.records.len() > 1 {
            let Some((&old, _)) = self.records.iter().next() else {
                break;
            };
            self.drop_record(old);
            for s in self.users.values_mut() {
                let before = s.undo.len() + s.redo.len();
                s.undo.retain(|x| *x != old);
                s.redo.retain(|x| *x != old);
                s.dropped += (before - s.undo.len() - s.redo.len()) as u64;
            }
        }
    }

    /// The chunks operations `min(n, m) + 1 ..= max(n, m)` changed, each in its state just
    /// after operation `n` (0: before the first), sorted (z, y, x): what a view showing the
    /// world after operation `m` must change to show it after `n`. `Err(k)`: the records go
    /// back to after operation `k` only.
    #[allow(clippy::type_complexity)]
    pub fn states_between(&self, n: u64, m: u64) -> Result<Vec<([u32; 3], Option<Chunk>)>, u64> {
        let (lo, hi) = (n.min(m), n.max(m).min(self.next - 1));
        let kept = self.records.keys().next().map_or(self.next - 1, |k| k - 1);
        if (lo + 1..=hi).any(|s| !self.records.contains_key(&s)) {
            return Err(kept);
        }
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut take = |rec: &OpRecord, before: bool| {
            for (pos, b, a) in &rec.chunks {
                if seen.insert(*pos) {
                    out.push((*pos, if before { b.clone() } else { a.clone() }));
                }
            }
        };
        if n < m {
            // Back: each chunk as the first operation after `n` found it.
            for s in lo + 1..=hi {
                take(&self.records[&s].0, true);
            }
        } else {
            // Forward: each chunk as the last operation up to `n` left it.
            for s in (lo + 1..=hi).rev() {
                take(&self.records[&s].0, false);
            }
        }
        out.sort_unstable_by_key(|(p, _)| [p[2], p[1], p[0]]);
        Ok(out)
    }

    /// The oldest operation the timeline can show the world before (`next_seq() - 1` when
    /// nothing is kept).
    pub fn timeline_start(&self) -> u64 {
        self.records.keys().next().map_or(self.next - 1, |k| k - 1)
    }

    fn drop_record(&mut self, seq: u64) {
        if let Some((r, _)) = self.records.remove(&seq) {
            self.bytes -= r.bytes;
        }
    }
}

#[cfg(test)]
mod tests;
