//! Commit records and the history chain of v3 files (docs/format/vwr-v3.md §11).

use zerocopy::little_endian::{U32, U64};

use super::read::{parse_root, Header, Index, Source};
use crate::error::VwrError;
use crate::layout::*;

/// Who made a commit and when: the tool and time its commit record carries (vwr-v3.md §11).
///
/// The default (no tool, time 0) keeps full writes byte-for-byte reproducible; editing
/// sessions stamp their commits with [`CommitInfo::now`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitInfo {
    tool: [u8; TOOL_LEN],
    /// Milliseconds since the Unix epoch; 0 = unknown.
    pub time_ms: u64,
}

impl CommitInfo {
    /// `tool` (cut to 20 bytes at a character boundary) at `time_ms`.
    pub fn new(tool: &str, time_ms: u64) -> CommitInfo {
        let mut end = tool.len().min(TOOL_LEN);
        while !tool.is_char_boundary(end) {
            end -= 1;
        }
        let mut t = [0u8; TOOL_LEN];
        t[..end].copy_from_slice(&tool.as_bytes()[..end]);
        CommitInfo { tool: t, time_ms }
    }

    /// `tool`, now.
    pub fn now(tool: &str) -> CommitInfo {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        CommitInfo::new(tool, ms)
    }

    /// The tool's name ("" when unknown).
    pub fn tool(&self) -> String {
        tool_name(&self.tool)
    }

    /// The record of a commit made with this info.
    pub(crate) fn record(
        &self,
        kind: u8,
        prev: Option<&Index>,
        bytes_written: u64,
        chunks_written: u64,
    ) -> CommitRecord {
        CommitRecord {
            prev_offset: U64::new(prev.map_or(0, |p| p.offset)),
            prev_size: U32::new(prev.map_or(0, |p| p.size as u32)),
            prev_generation: U32::new(prev.map_or(0, |p| p.generation)),
            time_ms: U64::new(self.time_ms),
            bytes_written: U64::new(bytes_written),
            chunks_written: U32::new(chunks_written.min(u32::MAX.into()) as u32),
            kind,
            reserved: [0; 3],
            reverted_to: U32::ZERO,
            tool: self.tool,
        }
    }

    /// The info of an existing record.
    pub(crate) fn of(r: &CommitRecord) -> CommitInfo {
        CommitInfo {
            tool: r.tool,
            time_ms: r.time_ms.get(),
        }
    }
}

fn tool_name(t: &[u8; TOOL_LEN]) -> String {
    let end = t.iter().position(|&b| b == 0).unwrap_or(TOOL_LEN);
    String::from_utf8_lossy(&t[..end]).into_owned()
}

/// What made a commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitKind {
    /// An incremental save.
    Save,
    /// A full write: a new file, a conversion, the first commit after a compaction, or a file
    /// written before commit records existed.
    Write,
    /// A revert that made this generation's state current again.
    Revert(u32),
}

impl CommitKind {
    /// `save`, `write` or `revert`.
    pub fn name(&self) -> &'static str {
        match self {
            CommitKind::Save => "save",
            CommitKind::Write => "write",
            CommitKind::Revert(_) => "revert",
        }
    }
}

/// One commit of a v3 file's history (`voxcaf world history`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    /// Sequence number (the commit's generation).
    pub generation: u32,
    /// Milliseconds since the Unix epoch; 0 = unknown.
    pub time_ms: u64,
    /// Bytes the save wrote.
    pub bytes_written: u64,
    /// Chunks it encoded.
    pub chunks_written: u64,
    /// What made it.
    pub kind: CommitKind,
    /// The tool that wrote it ("" when unknown).
    pub tool: String,
    /// Bytes of the file this commit references.
    pub live_bytes: u64,
    /// Whether this is the file's current commit.
    pub current: bool,
}

impl Commit {
    pub(crate) fn of(ix: &Index, current: bool) -> Commit {
        let r = ix.record.as_ref();
        Commit {
            generation: ix.generation,
            time_ms: r.map_or(0, |r| r.time_ms.get()),
            bytes_written: r.map_or(0, |r| r.bytes_written.get()),
            chunks_written: r.map_or(0, |r| r.chunks_written.get().into()),
            kind: match r.map(|r| (r.kind, r.reverted_to.get())) {
                Some((COMMIT_SAVE, _)) => CommitKind::Save,
                Some((COMMIT_REVERT, g)) => CommitKind::Revert(g),
                _ => CommitKind::Write,
            },
            tool: r.map(|r| tool_name(&r.tool)).unwrap_or_default(),
            live_bytes: ix.live_bytes,
            current,
        }
    }
}

/// The commits still in the file, newest (`current`) first, at most `limit`; the second
/// value is why the chain ended early, if an older commit named by a record is unreadable.
pub(crate) fn chain<S: Source + ?Sized>(
    src: &S,
    h: &Header,
    current: &Index,
    limit: usize,
) -> (Vec<Index>, Option<VwrError>) {
    let mut out = vec![current.clone()];
    while out.len() < limit {
        let last = out.last().expect("starts with the current commit");
        let Some(r) = last.record.filter(|r| r.prev_offset.get() != 0) else {
            break;
        };
        let (o, s, g) = (
            r.prev_offset.get(),
            u64::from(r.prev_size.get()),
            r.prev_generation.get(),
        );
        match parse_root(src, h, o, s, g) {
            Ok(ix) => out.push(ix),
            Err(e) => return (out, Some(e)),
        }
    }
    (out, None)
}
