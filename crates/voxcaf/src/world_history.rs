//! `voxcaf world history|revert|compact`: the commits a v3 world keeps (docs/format/vwr-v3.md
//! §11).

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::json;
use vwr::{Commit, CommitKind, SessionOptions, WorldFile, WorldSession};

#[derive(Subcommand)]
pub enum HistoryCmd {
    /// List the commits a v3 world keeps, newest first: sequence number, time, bytes written,
    /// chunks changed and the tool that wrote each.
    ///
    /// Examples:
    ///   voxcaf world history level.vwr
    ///   voxcaf world history level.vwr --json | jq '.commits[0]'
    #[command(verbatim_doc_comment)]
    History(HistoryArgs),
    /// Make an earlier commit of a v3 world current again, as a new commit (so a revert can
    /// itself be reverted). Writes only a new root index.
    ///
    /// Examples:
    ///   voxcaf world revert level.vwr            # undo the last save
    ///   voxcaf world revert level.vwr --to 12    # back to commit 12
    #[command(verbatim_doc_comment)]
    Revert(RevertArgs),
    /// Rewrite a v3 world with only the commits its history keeps (atomic).
    Compact(CompactArgs),
    /// Rebuild a world from the operation log `voxcaf world serve` keeps beside it
    /// (FILE.oplog): copies BASE (the world as it was when the log began) to OUT and replays
    /// every operation, writing OUT at each of the log's saves as the editor wrote its file,
    /// so that OUT ends equal, byte for byte, to the file as last saved. Operations after the
    /// last save were never saved and are not written.
    ///
    /// Examples:
    ///   voxcaf world replay level.vwr.oplog level-before.vwr rebuilt.vwr
    ///   cmp rebuilt.vwr level.vwr && echo identical
    #[command(verbatim_doc_comment)]
    Replay(ReplayArgs),
}

#[derive(Args)]
pub struct ReplayArgs {
    /// The log (FILE.oplog, one JSON object per line; docs/format/oplog.md).
    pub log: PathBuf,
    /// The world as it was when the log began.
    pub base: PathBuf,
    /// The world to write (replaced if it exists; never BASE).
    pub out: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct HistoryArgs {
    /// The .vwr file, or a database world, postgres://USER@HOST:PORT/DB?world=NAME.
    pub file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct RevertArgs {
    /// The .vwr file (v3), or a database world, postgres://USER@HOST:PORT/DB?world=NAME.
    pub file: PathBuf,
    /// The commit to make current again (default: the one before the current commit).
    #[arg(long, value_name = "SEQ")]
    pub to: Option<u32>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct CompactArgs {
    /// The .vwr file (v3), or a database world (its chunk history is pruned; the commit log
    /// is kept).
    pub file: PathBuf,
    /// Commits to keep.
    #[arg(long, default_value_t = vwr::DEFAULT_KEEP as u64,
          value_parser = clap::value_parser!(u64).range(1..100_000))]
    pub keep: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

impl HistoryCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            HistoryCmd::History(a) => a.json,
            HistoryCmd::Revert(a) => a.json,
            HistoryCmd::Compact(a) => a.json,
            HistoryCmd::Replay(a) => a.json,
        }
    }
}

/// Run one history command; returns the process exit code.
pub fn run(cmd: HistoryCmd) -> Result<u8> {
    match cmd {
        HistoryCmd::History(a) => history(&a),
        HistoryCmd::Revert(a) => revert(&a),
        HistoryCmd::Compact(a) => compact(&a),
        HistoryCmd::Replay(a) => replay(&a),
    }
}

fn replay(a: &ReplayArgs) -> Result<u8> {
    let r = vwr_edit::oplog::replay(&a.log, &a.base, &a.out)?;
    if a.json {
        println!(
            "{}",
            json!({ "out": a.out, "ops": r.ops, "saves": r.saves,
                    "unsaved_ops": r.unsaved_ops, "segments": r.segments })
        );
    } else {
        println!(
            "{}: {} replayed in {}, {} written",
            a.out.display(),
            crate::global::count(r.ops, "operation"),
            crate::global::count(r.segments, "editing session"),
            crate::global::count(r.saves, "save")
        );
        if r.unsaved_ops > 0 {
            let (n, were) = (
                r.unsaved_ops,
                if r.unsaved_ops == 1 { "was" } else { "were" },
            );
            println!(
                "  {} after the last save {were} never saved and {} not written",
                crate::global::count(n, "operation"),
                if n == 1 { "is" } else { "are" }
            );
        }
    }
    Ok(0)
}

pub(crate) fn time_text(ms: u64) -> String {
    if ms == 0 {
        return "unknown time".into();
    }
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn kind_text(k: &CommitKind) -> String {
    match k {
        CommitKind::Revert(g) => format!("revert to {g}"),
        k => k.name().to_string(),
    }
}

fn commit_json(c: &Commit) -> serde_json::Value {
    json!({
        "seq": c.generation, "time_ms": c.time_ms, "bytes_written": c.bytes_written,
        "chunks_written": c.chunks_written, "kind": c.kind.name(),
        "reverted_to": match c.kind { CommitKind::Revert(g) => Some(g), _ => None },
        "tool": c.tool, "live_bytes": c.live_bytes, "current": c.current,
    })
}

fn history(a: &HistoryArgs) -> Result<u8> {
    if crate::world_db::is_db(&a.file) {
        return crate::world_db::history(&a.file, a.json);
    }
    crate::world::refuse_vox_history(&a.file, "world history")?;
    let o = |e| crate::output::failed(&a.file, e);
    let f = WorldFile::open(&a.file).map_err(o)?;
    if !f.has_history() {
        return Err(o(vwr::VwrError::NoHistory {
            path: a.file.clone(),
            version: f.version(),
        }));
    }
    let (list, cut) = f.history(usize::MAX);
    if a.json {
        let v = json!({
            "ok": true, "file": a.file.display().to_string(),
            "commits": list.iter().map(commit_json).collect::<Vec<_>>(),
            "older_unreadable": cut.map(|e| e.to_string()),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    println!(
        "{:>5}  {:<23}  {:>10}  {:>7}  {:<14}  tool",
        "seq", "time", "bytes", "chunks", "kind"
    );
    for c in &list {
        println!(
            "{:>5}{} {:<23}  {:>10}  {:>7}  {:<14}  {}",
            c.generation,
            if c.current { "*" } else { " " },
            time_text(c.time_ms),
            c.bytes_written,
            c.chunks_written,
            kind_text(&c.kind),
            if c.tool.is_empty() { "-" } else { &c.tool }
        );
    }
    if let Some(e) = cut {
        println!("(older commits unreadable: {e})");
    }
    Ok(0)
}

fn revert(a: &RevertArgs) -> Result<u8> {
    if crate::world_db::is_db(&a.file) {
        return crate::world_db::revert(&a.file, a.to.map(u64::from), a.json);
    }
    crate::world::refuse_vox_history(&a.file, "world revert")?;
    let o = |e| crate::output::failed(&a.file, e);
    let (mut s, _) =
        WorldSession::open(&a.file, SessionOptions::tool("voxcaf world revert")).map_err(o)?;
    let r = s.revert(a.to).map_err(o)?;
    let (list, _) = s.file().history(1);
    let to = match list.first().map(|c| c.kind) {
        Some(CommitKind::Revert(g)) => g,
        _ => 0,
    };
    let g = r.generation.unwrap_or(0);
    if a.json {
        let v = json!({
            "ok": true, "file": a.file.display().to_string(), "commit": g,
            "reverted_to": to, "bytes_written": r.bytes_written,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        crate::global::say!(
            "{}: commit {g} makes commit {to} current again ({} bytes written); `voxcaf world revert {} --to {}` goes back",
            a.file.display(),
            r.bytes_written,
            a.file.display(),
            g - 1
        );
    }
    Ok(0)
}

fn compact(a: &CompactArgs) -> Result<u8> {
    if crate::world_db::is_db(&a.file) {
        return crate::world_db::compact(&a.file, a.keep, a.json);
    }
    crate::world::refuse_vox_history(&a.file, "world compact")?;
    let o = |e| crate::output::failed(&a.file, e);
    let opts = SessionOptions {
        keep: a.keep as usize,
        ..SessionOptions::tool("voxcaf world compact")
    };
    let before = std::fs::metadata(&a.file).map(|m| m.len()).unwrap_or(0);
    let (mut s, _) = WorldSession::open(&a.file, opts).map_err(o)?;
    let r = s.compact().map_err(o)?;
    let kept = s.file().history(usize::MAX).0.len();
    if a.json {
        let v = json!({
            "ok": true, "file": a.file.display().to_string(), "bytes_before": before,
            "bytes": r.file_size, "commits_kept": kept,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        crate::global::say!(
            "{}: {before} -> {} bytes, {} kept",
            a.file.display(),
            r.file_size,
            crate::global::count(kept as u64, "commit")
        );
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_are_civil() {
        assert_eq!(super::time_text(0), "unknown time");
        assert_eq!(super::time_text(1_000), "1970-01-01 00:00:01 UTC");
        assert_eq!(
            super::time_text(1_796_518_800_000),
            "2026-12-06 01:00:00 UTC"
        );
    }
}
