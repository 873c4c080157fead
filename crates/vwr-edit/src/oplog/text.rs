//! The text form of the log (`FILE.oplog`, one JSON object per line) and its replay.

use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};

use vwr::{SessionOptions, World, WorldSession};

use super::{group_label, world_hash, Action, Entry, OpRecord};
use crate::script::{apply_ops, parse_text};
use crate::{Editor, HistoryLimits};

/// One line of `FILE.oplog` (see `docs/format/oplog.md`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum LogLine {
    /// A segment begins: an editing session opened the world whose hash is `hash`.
    Begin {
        /// When (milliseconds since the Unix epoch).
        time: u64,
        /// [`world_hash`] of the world the segment starts from, 16 hex digits.
        hash: String,
        /// The cell limit of `fill` lines that give none, in this segment.
        fill_limit: u64,
    },
    /// An edit script, applied as one step.
    Edit {
        /// Sequence number.
        seq: u64,
        /// Who.
        user: String,
        /// When (ms since the Unix epoch).
        time: u64,
        /// The script.
        text: String,
        /// What it did, as the session labelled it.
        label: String,
        /// Cells it changed.
        cells: u64,
    },
    /// The undo of operation `of` (the same user's), under the undo rule.
    Undo {
        /// Sequence number.
        seq: u64,
        /// Who.
        user: String,
        /// When.
        time: u64,
        /// The operation undone.
        of: u64,
        /// Label.
        label: String,
        /// Cells it changed.
        cells: u64,
    },
    /// The redo of the operation undo `of` undid (the undo of that undo).
    Redo {
        /// Sequence number.
        seq: u64,
        /// Who.
        user: String,
        /// When.
        time: u64,
        /// The undo redone.
        of: u64,
        /// Label.
        label: String,
        /// Cells it changed.
        cells: u64,
    },
    /// The world was saved; a v3 commit made then is stamped `time`.
    Save {
        /// Who saved.
        user: String,
        /// The commit's time (ms since the Unix epoch).
        time: u64,
        /// [`world_hash`] of the world saved.
        hash: String,
    },
    /// The unsaved edits were discarded: the world is the file as last saved.
    Reload {
        /// Who.
        user: String,
        /// When.
        time: u64,
    },
}

/// 16 hex digits.
pub(crate) fn hex(h: u64) -> String {
    format!("{h:016x}")
}

impl LogLine {
    /// The line of an operation of the log.
    pub fn of_entry(e: &Entry) -> LogLine {
        let (seq, user, time) = (e.seq, e.user.clone(), e.time_ms);
        let (label, cells) = (e.change.label.clone(), e.change.cells);
        match &e.action {
            Action::Edit { text } => LogLine::Edit {
                seq,
                user,
                time,
                text: text.clone(),
                label,
                cells,
            },
            Action::Undo { of } => LogLine::Undo {
                seq,
                user,
                time,
                of: *of,
                label,
                cells,
            },
            Action::Redo { of } => LogLine::Redo {
                seq,
                user,
                time,
                of: *of,
                label,
                cells,
            },
        }
    }

    /// The line of a segment's start from `world`.
    pub fn begin(world: &World, fill_limit: u64, time: u64) -> LogLine {
        LogLine::Begin {
            time,
            hash: hex(world_hash(world)),
            fill_limit,
        }
    }

    /// The line of a save of `world` whose commit is stamped `time`.
    pub fn save(world: &World, user: &str, time: u64) -> LogLine {
        LogLine::Save {
            user: user.into(),
            time,
            hash: hex(world_hash(world)),
        }
    }

    /// The line as JSON, with its newline.
    pub fn to_json_line(&self) -> String {
        // Serializing these plain fields cannot fail.
        let mut s = serde_json::to_string(self).unwrap_or_default();
        s.push('\n');
        s
    }

    fn seq(&self) -> Option<u64> {
        match self {
            LogLine::Edit { seq, .. } | LogLine::Undo { seq, .. } | LogLine::Redo { seq, .. } => {
                Some(*seq)
            }
            _ => None,
        }
    }
}

/// Why a replay stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The base or output world could not be opened or saved.
    #[error("{path}: {source}")]
    World {
        /// The file.
        path: PathBuf,
        /// The error.
        source: vwr::VwrError,
    },
    /// A line of the log is not what it should be, or does not replay the same way.
    #[error("{path}:{line}: {message}")]
    Line {
        /// The log.
        path: PathBuf,
        /// The line (from 1).
        line: u64,
        /// What is wrong.
        message: String,
    },
}

/// What a replay did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayReport {
    /// Operations applied.
    pub ops: u64,
    /// Saves reproduced (each written to the output).
    pub saves: u64,
    /// Operations after the last save: never saved by the session, so not written.
    pub unsaved_ops: u64,
    /// Segments (editing sessions) in the log.
    pub segments: u64,
}

/// Reads the log's lines, calling `f` with each line number and line.
fn each_line(
    log: &Path,
    mut f: impl FnMut(u64, LogLine) -> Result<(), ReplayError>,
) -> Result<(), ReplayError> {
    let io = |source| ReplayError::Io {
        path: log.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(log).map_err(io)?;
    let mut no = 0u64;
    for line in std::io::BufReader::new(file).lines() {
        no += 1;
        let line = line.map_err(io)?;
        if line.trim().is_empty() {
            continue;
        }
        let parsed: LogLine = serde_json::from_str(&line).map_err(|e| ReplayError::Line {
            path: log.to_path_buf(),
            line: no,
            message: format!("not a log line: {e}"),
        })?;
        f(no, parsed)?;
    }
    Ok(())
}

/// The replay in progress.
struct Replay<'a> {
    log: &'a Path,
    out: &'a Path,
    session: WorldSession,
    ed: Editor,
    fill_limit: u64,
    referenced: HashSet<u64>,
    records: HashMap<u64, (OpRecord, String)>,
    last_seq: Option<u64>,
    report: ReplayReport,
}

fn open(out: &Path) -> Result<(WorldSession, Editor), ReplayError> {
    let err = |source| ReplayError::World {
        path: out.to_path_buf(),
        source,
    };
    let (mut s, mut world) =
        WorldSession::open(out, SessionOptions::tool("voxcaf world serve")).map_err(err)?;
    s.load_all(&mut world).map_err(err)?;
    let ed = Editor::with_limits(world, super::editor_limits(HistoryLimits::default()));
    Ok((s, ed))
}

impl Replay<'_> {
    fn bad(&self, line: u64, message: impl Into<String>) -> ReplayError {
        ReplayError::Line {
            path: self.log.to_path_buf(),
            line,
            message: message.into(),
        }
    }

    fn line(&mut self, no: u64, line: LogLine) -> Result<(), ReplayError> {
        if let Some(seq) = line.seq() {
            if let Some(last) = self.last_seq.filter(|l| seq != l + 1) {
                return Err(self.bad(
                    no,
                    format!("operation {seq} follows {last}: the log is incomplete"),
                ));
            }
            self.last_seq = Some(seq);
            self.report.unsaved_ops += 1;
            self.report.ops += 1;
        }
        match line {
            LogLine::Begin {
                hash, fill_limit, ..
            } => {
                let now = hex(world_hash(self.ed.world()));
                if now != hash {
                    return Err(self.bad(no, format!(
                        "this segment starts from the world {hash}, but the replay holds {now} here: {}",
                        if self.report.segments == 0 {
                            "BASE is not the world the log began from"
                        } else {
                            "the file was changed outside the editor (or recovered from a journal) between two editing sessions"
                        }
                    )));
                }
                self.fill_limit = fill_limit;
                self.report.segments += 1;
            }
            LogLine::Edit {
                seq, text, cells, ..
            } => {
                let ops = parse_text(&format!("operation {seq}"), &text)
                    .map_err(|e| self.bad(no, format!("the script does not parse: {}", e[0])))?;
                let (_, change) = self
                    .ed
                    .group(group_label, |ed| apply_ops(ed, &ops, self.fill_limit))
                    .map_err(|e| self.bad(no, format!("the script does not apply: {e}")))?;
                self.after(no, seq, change.unwrap_or_default(), cells)?;
            }
            LogLine::Undo { seq, of, cells, .. } | LogLine::Redo { seq, of, cells, .. } => {
                let Some((rec, label)) = self.records.remove(&of) else {
                    return Err(self.bad(
                        no,
                        format!("it reverts operation {of}, which is not before it in the log"),
                    ));
                };
                let change = self
                    .ed
                    .revert(&rec, label)
                    .map_err(|e| self.bad(no, format!("the revert does not apply: {e}")))?;
                self.after(no, seq, change, cells)?;
            }
            LogLine::Save { time, hash, .. } => {
                let now = hex(world_hash(self.ed.world()));
                if now != hash {
                    return Err(self.bad(
                        no,
                        format!("the session saved the world {hash}, the replay has {now}"),
                    ));
                }
                self.session
                    .save_at(self.ed.world(), time)
                    .map_err(|source| ReplayError::World {
                        path: self.out.to_path_buf(),
                        source,
                    })?;
                self.report.saves += 1;
                self.report.unsaved_ops = 0;
            }
            LogLine::Reload { .. } => {
                (self.session, self.ed) = open(self.out)?;
                self.records.clear();
                self.report.unsaved_ops = 0;
            }
        }
        Ok(())
    }

    /// Checks an operation did what the log says and keeps its record if a later line
    /// reverts it.
    fn after(
        &mut self,
        no: u64,
        seq: u64,
        change: crate::Change,
        cells: u64,
    ) -> Result<(), ReplayError> {
        if change.cells != cells {
            return Err(self.bad(no, format!(
                "operation {seq} changed {} cells in the replay, {cells} in the session: the replay differs",
                change.cells
            )));
        }
        if self.referenced.contains(&seq) {
            let rec = if change.is_empty() {
                OpRecord::default()
            } else {
                OpRecord::of_newest(&self.ed)
            };
            self.records.insert(seq, (rec, change.label));
        }
        Ok(())
    }
}

/// Rebuilds the world a logged session saved: copies `base` (the world as it was when the
/// log began) to `out` and replays `log` on it, writing `out` at each of the log's saves the
/// way the session wrote its file, so that `out` ends equal, byte for byte, to the file as
/// last saved. Operations after the last save were never saved and are not written.
pub fn replay(log: &Path, base: &Path, out: &Path) -> Result<ReplayReport, ReplayError> {
    // Only the operations a later line reverts need their records.
    let mut reverted = HashSet::new();
    each_line(log, |_, l| {
        if let LogLine::Undo { of, .. } | LogLine::Redo { of, .. } = l {
            reverted.insert(of);
        }
        Ok(())
    })?;
    if std::fs::canonicalize(base).ok() == std::fs::canonicalize(out).ok() && out.exists() {
        return Err(ReplayError::Io {
            path: out.to_path_buf(),
            source: std::io::Error::other("the output must be another file than BASE"),
        });
    }
    std::fs::copy(base, out).map_err(|source| ReplayError::Io {
        path: out.to_path_buf(),
        source,
    })?;
    let (session, ed) = open(out)?;
    let mut r = Replay {
        log,
        out,
        session,
        ed,
        fill_limit: 1_000_000,
        referenced: reverted,
        records: HashMap::new(),
        last_seq: None,
        report: ReplayReport::default(),
    };
    let mut first = true;
    each_line(log, |no, l| {
        if first && !matches!(l, LogLine::Begin { .. }) {
            return Err(r.bad(no, "the log does not start with a `begin` line"));
        }
        first = false;
        r.line(no, l)
    })?;
    Ok(r.report)
}
