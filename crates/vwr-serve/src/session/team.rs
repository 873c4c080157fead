//! Several people on one file session: every accepted operation goes through the session's
//! [`OpLog`] (one sequence, each user's own undo and redo, rebased over the others'
//! operations: see [`vwr_edit::oplog`]), and every save appends the log's new lines to
//! `FILE.oplog` beside the world, which `voxcaf world replay` replays.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use vwr::World;
use vwr_edit::oplog::{world_hash, Entry, LogLine, OpLog};
use vwr_edit::script::{Applied, Located};
use vwr_edit::Editor;

use super::{Session, SessionOptions};
use crate::answer::{LogAnswer, LogOp, SharedFields, Success, WorldSummary};
use crate::error::{Result, ServeError};
use crate::wire;

/// The name of the session's owner (the person who started `voxcaf world serve`) in the log.
pub const OWNER: &str = "owner";

/// The operation log of `file`: `FILE.oplog`.
pub fn oplog_path(file: &Path) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(".oplog");
    PathBuf::from(s)
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The log of a file session and the lines not yet written to `FILE.oplog`.
#[derive(Debug)]
pub(super) struct Team {
    pub(super) log: OpLog,
    pending: Vec<LogLine>,
    /// The shared fields of the summary the last push carried (at first, the world's as the
    /// session opened it).
    pushed: SharedFields,
}

/// The last line of an existing log: its last operation number and whether it ends with a
/// save of the world whose hash is `hash` (then a new session continues it).
fn log_tail(path: &Path, hash: &str) -> std::io::Result<Option<(u64, bool)>> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let (mut last_seq, mut saved) = (0, false);
    for line in std::io::BufReader::new(file).lines() {
        let line = line?;
        let Ok(l) = serde_json::from_str::<LogLine>(&line) else {
            // A torn last line (a crash while appending) or a foreign file: not continued.
            saved = false;
            continue;
        };
        saved = matches!(&l, LogLine::Save { hash: h, .. } if h == hash);
        if let LogLine::Edit { seq, .. } | LogLine::Undo { seq, .. } | LogLine::Redo { seq, .. } = l
        {
            last_seq = seq;
        }
    }
    Ok(Some((last_seq, saved)))
}

impl Team {
    /// The log of a session opening `path` on `world`: continues `FILE.oplog` when it ends
    /// with a save of this very world, else starts afresh (moving a stale log aside to
    /// `FILE.oplog.old`).
    pub(super) fn start(path: &Path, world: &World, opts: &SessionOptions) -> Result<Team> {
        let log_path = oplog_path(path);
        let hash = format!("{:016x}", world_hash(world));
        let tail = log_tail(&log_path, &hash).map_err(|e| ServeError::io(&log_path, e))?;
        let first = match tail {
            Some((seq, true)) => seq + 1,
            Some(_) => {
                let mut old = log_path.clone().into_os_string();
                old.push(".old");
                std::fs::rename(&log_path, &old).map_err(|e| ServeError::io(&log_path, e))?;
                1
            }
            None => 1,
        };
        Ok(Team {
            log: OpLog::new(first, super::history_limits(opts)),
            pending: vec![LogLine::begin(world, opts.fill_limit, now_ms())],
            pushed: SharedFields::of(world),
        })
    }

    /// The log of a database session: kept in memory for each person's undo (every
    /// operation is a commit of the store, which is its record).
    pub(super) fn in_memory(opts: &SessionOptions, world: &World) -> Team {
        Team {
            log: OpLog::new(1, super::history_limits(opts)),
            pending: Vec::new(),
            pushed: SharedFields::of(world),
        }
    }

    /// A new segment: the world was replaced (recovered from a journal, saved as a new file).
    pub(super) fn restart(&mut self, world: &World, fill_limit: u64) {
        self.log.clear_undo();
        self.pending
            .push(LogLine::begin(world, fill_limit, now_ms()));
    }

    /// The unsaved edits were dropped: the world is the file as last saved.
    pub(super) fn reloaded(&mut self, user: &str) {
        self.log.clear_undo();
        self.pending.push(LogLine::Reload {
            user: user.into(),
            time: now_ms(),
        });
    }

    /// `user`'s undo (or redo) through the log: the new entry, if there was a step.
    pub(super) fn step(
        &mut self,
        ed: &mut Editor,
        user: &str,
        redo: bool,
    ) -> Result<Option<Entry>> {
        let t = now_ms();
        let e = if redo {
            self.log.redo(ed, user, t)
        } else {
            self.log.undo(ed, user, t)
        };
        Ok(e.map_err(ServeError::from_log)?.cloned())
    }

    fn logged(&mut self, e: Option<&Entry>) {
        if let Some(e) = e {
            self.pending.push(LogLine::of_entry(e));
        }
    }

    /// Appends the pending lines and a save of `world` (its commit stamped `time`) to
    /// `FILE.oplog`, synced.
    pub(super) fn write(
        &mut self,
        path: &Path,
        world: &World,
        user: &str,
        time: u64,
    ) -> Result<()> {
        let log_path = oplog_path(path);
        self.pending.push(LogLine::save(world, user, time));
        let text: String = self.pending.iter().map(LogLine::to_json_line).collect();
        let io = |e| ServeError::io(&log_path, e);
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(io)?;
        f.write_all(text.as_bytes()).map_err(io)?;
        f.sync_data().map_err(io)?;
        self.pending.clear();
        Ok(())
    }
}

pub(super) fn no_log() -> ServeError {
    ServeError::Refused {
        message: "a world in a database keeps its history as commits, not as an operation log"
            .into(),
    }
}

impl Session {
    /// Applies `ops` (parsed from `text`) as `user`'s one operation (file mode).
    pub(super) fn apply_logged(
        &mut self,
        user: &str,
        text: &str,
        ops: &[Located],
    ) -> Result<Vec<Applied>> {
        let limit = self.opts.fill_limit;
        let team = self.team.as_mut().ok_or_else(no_log)?;
        let (applied, entry) = team
            .log
            .edit(&mut self.editor, user, text, ops, limit, now_ms())
            .map_err(ServeError::from_log)?;
        let entry = entry.cloned();
        team.logged(entry.as_ref());
        Ok(applied)
    }

    /// `user`'s undo (or redo) in file mode: the change, if there was a step.
    pub(super) fn step_logged(
        &mut self,
        user: &str,
        redo: bool,
    ) -> Result<Option<vwr_edit::Change>> {
        let team = self.team.as_mut().ok_or_else(no_log)?;
        let e = team.step(&mut self.editor, user, redo)?;
        team.logged(e.as_ref());
        Ok(e.map(|e| e.change))
    }

    /// The newest operation of the log.
    pub fn last_op(&self) -> Option<LogOp> {
        self.team.as_ref()?.log.entries().last().map(LogOp::of)
    }

    /// The chunks changed after epoch `from` (see [`crate::wire`]), the current epoch and
    /// the world's summary, when a chunk changed or the summary's shared fields (spawn, sky,
    /// mission, objects, decor: [`SharedFields`]) differ from those the last push carried;
    /// `None` when nothing changed. An edit of records or fields alone (an object added, the
    /// spawn moved) changes no chunk mesh, and is pushed all the same.
    pub fn take_push(&mut self, from: u32) -> Option<(u32, Vec<u8>, WorldSummary)> {
        let bytes = self.chunks_since(from);
        let summary = self.summary();
        let shared = summary.shared();
        let news = match self.team.as_mut() {
            Some(t) if t.pushed != shared => {
                t.pushed = shared;
                true
            }
            _ => false,
        };
        (self.epoch > from || news).then_some((self.epoch, bytes, summary))
    }

    /// The timeline (`GET /api/timeline?seq=N&shown=M`): the binary chunk answer (see
    /// [`crate::wire`], epoch 0) of the chunks that differ between the world after
    /// operation `m` and after operation `n`, as they are after `n`, with their meshes, for
    /// a page that shows the world after `m` to show it after `n`. Refused when the log no
    /// longer keeps the records back that far.
    pub fn timeline(&self, n: u64, m: u64) -> Result<Vec<u8>> {
        let team = self.team.as_ref().ok_or_else(no_log)?;
        let states = team
            .log
            .states_between(n, m)
            .map_err(|k| ServeError::Refused {
                message: format!(
                    "the log keeps the world's states back to after operation {k} only \
                 (older records were dropped to bound the memory)"
                ),
            })?;
        let world = self.editor.world();
        let mut view = World::with_chunk_dims(world.chunk_dims())
            .map_err(|e| ServeError::world(&self.path, e))?;
        let touched: std::collections::HashSet<[u32; 3]> = states.iter().map(|s| s.0).collect();
        for (p, c) in &states {
            if let Some(c) = c {
                view.set_chunk(*p, c.clone())
                    .map_err(|e| ServeError::world(&self.path, e))?;
            }
            // Neighbours as they are (faces against them are hidden or shown alike).
            for d in [
                [-1, 0, 0],
                [1, 0, 0],
                [0, -1, 0],
                [0, 1, 0],
                [0, 0, -1],
                [0, 0, 1],
            ] {
                let q = [0, 1, 2].map(|i| p[i].wrapping_add_signed(d[i]));
                if touched.contains(&q) || view.chunk(q).is_some() {
                    continue;
                }
                if let Some(c) = world.chunk(q) {
                    view.set_chunk(q, c.clone())
                        .map_err(|e| ServeError::world(&self.path, e))?;
                }
            }
        }
        let mut out = Vec::new();
        wire::begin(&mut out, 0, states.len() as u32);
        for (p, c) in &states {
            let mesh =
                vwr_mesh::mesher::mesh_chunk(&view, self.registry, *p, super::mesh_options());
            wire::push_chunk(&mut out, *p, c.as_ref(), Some(&mesh), self.registry);
        }
        Ok(out)
    }

    /// The operations of the log from `since` on (`GET /api/log?since=SEQ`), as many as are
    /// kept in memory (all of this session's).
    pub fn log_since(&self, since: u64) -> LogAnswer {
        let Some(t) = self.team.as_ref() else {
            return LogAnswer {
                ok: Success,
                ops: Vec::new(),
                next: 1,
                timeline_from: 0,
            };
        };
        LogAnswer {
            ok: Success,
            ops: t
                .log
                .entries()
                .iter()
                .filter(|e| e.seq >= since)
                .map(LogOp::of)
                .collect(),
            next: t.log.next_seq(),
            timeline_from: t.log.timeline_start(),
        }
    }
}
