//! Codec statistics of a v3 commit.

use std::mem::size_of;

use super::compact::stored_len;
use super::read::Index;
use crate::layout::*;

/// Codec statistics of a v3 commit (`voxcaf world info`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodecStats {
    /// Commit generation.
    pub generation: u32,
    /// Chunks stored as one block value.
    pub uniform: u64,
    /// Chunks in the packed encoding.
    pub packed: u64,
    /// Chunks in the RLE encoding.
    pub rle: u64,
    /// Payloads stored uncompressed.
    pub raw: u64,
    /// Payloads in their own zstd frame.
    pub zstd: u64,
    /// Payloads inside groups.
    pub grouped: u64,
    /// Groups.
    pub groups: u64,
    /// Payload bytes before compression (groups and frames decompressed).
    pub payload_bytes: u64,
    /// Payload bytes as stored (frames and groups compressed).
    pub stored_bytes: u64,
    /// Index bytes.
    pub index_bytes: u64,
    /// Bytes the commit references (header, payloads, index).
    pub live_bytes: u64,
    /// Per level: level 0 (the world) and each stored level of detail (vwr-v3.md §13).
    pub levels: Vec<LevelStats>,
}

/// The chunks and bytes of one level of a v3 commit (`voxcaf world info --json`'s `lod`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelStats {
    /// 0 = the world, 1.. = levels of detail.
    pub level: u8,
    /// Chunks the level stores (empty chunks are not stored).
    pub chunks: u64,
    /// Bytes as stored: raw payloads and frames whole, each grouped payload its share of its
    /// group's compressed frame, and each entry its share of its entry page.
    pub bytes: u64,
}

pub(crate) fn stats_of(ix: &Index, entries: &[ChunkEntryV3]) -> CodecStats {
    let mut s = CodecStats {
        generation: ix.generation,
        groups: ix.groups.len() as u64,
        index_bytes: ix.size,
        live_bytes: ix.live_bytes,
        ..CodecStats::default()
    };
    for g in &ix.groups {
        s.stored_bytes += u64::from(g.stored_size.get());
    }
    s.levels = level_stats(ix, entries);
    for e in entries {
        match e.encoding {
            ENCODING_UNIFORM => s.uniform += 1,
            ENCODING_PACKED => s.packed += 1,
            _ => s.rle += 1,
        }
        match e.storage {
            STORAGE_RAW => {
                s.raw += 1;
                s.payload_bytes += u64::from(e.size.get());
                s.stored_bytes += u64::from(e.size.get());
            }
            STORAGE_ZSTD => {
                s.zstd += 1;
                s.payload_bytes += u64::from(e.value.get());
                s.stored_bytes += u64::from(e.size.get());
            }
            STORAGE_GROUP => {
                s.grouped += 1;
                s.payload_bytes += u64::from(e.size.get());
            }
            _ => {}
        }
    }
    s
}

fn level_stats(ix: &Index, entries: &[ChunkEntryV3]) -> Vec<LevelStats> {
    let dims = ix.dims;
    let mut out: Vec<LevelStats> = (0..=ix.lod)
        .map(|level| LevelStats {
            level,
            ..LevelStats::default()
        })
        .collect();
    let page_len = |page: u32| {
        ix.pages
            .binary_search_by_key(&page, |p| p.page.get())
            .map_or((0, 1), |n| {
                let p = &ix.pages[n];
                (stored_len(p, ix.compact), u64::from(p.count.get()))
            })
    };
    for e in entries {
        let (level, _) = crate::lod::locate(dims, ix.lod, e.chunk_index.get());
        let l = &mut out[usize::from(level)];
        l.chunks += 1;
        let (page_bytes, page_count) = page_len(e.chunk_index.get() / PAGE_ENTRIES);
        l.bytes += page_bytes / page_count.max(1);
        l.bytes += match e.storage {
            STORAGE_RAW | STORAGE_ZSTD => u64::from(e.size.get()),
            STORAGE_GROUP => ix.groups.get(e.location.get() as usize).map_or(0, |g| {
                u64::from(e.size.get()) * u64::from(g.stored_size.get())
                    / u64::from(g.raw_size.get()).max(1)
            }),
            _ => 0,
        };
    }
    out
}

/// Where every byte of a v3 file goes (`voxcaf world info`): the parts sum to the file size.
///
/// A byte referenced twice is counted once, in the first part that claims it, in this order:
/// header, the current commit's root index (its fixed fields, commit record, group table and
/// page table), its entry pages, its payloads, then the older commits the history keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileBytes {
    /// The file's size.
    pub file: u64,
    /// The 64-byte header with its commit slots.
    pub header: u64,
    /// The current root index's fixed fields and CRC.
    pub root_index: u64,
    /// The current root index's commit record (files with history).
    pub commit_record: u64,
    /// The current root index's group table.
    pub group_table: u64,
    /// The current root index's page table.
    pub page_table: u64,
    /// The current commit's entry pages.
    pub entry_pages: u64,
    /// The current commit's chunk payloads: groups, frames and raw payloads.
    pub payload: u64,
    /// Bytes only older commits of the history reference (their root indexes, pages and
    /// payloads): what a revert can go back to.
    pub history: u64,
    /// Bytes no kept commit references (superseded by later saves; reclaimed by a compaction).
    pub dead: u64,
    /// Bytes after the current commit's end (the torn tail of a crashed save).
    pub tail: u64,
}

impl FileBytes {
    /// The parts by name, in file-accounting order; their values sum to [`FileBytes::file`].
    pub fn parts(&self) -> [(&'static str, u64); 10] {
        [
            ("header", self.header),
            ("root index", self.root_index),
            ("commit record", self.commit_record),
            ("group table", self.group_table),
            ("page table", self.page_table),
            ("entry pages", self.entry_pages),
            ("chunk payload", self.payload),
            ("history", self.history),
            ("dead", self.dead),
            ("torn tail", self.tail),
        ]
    }
}

/// A byte range `[start, end)` of the file.
type Range = (u64, u64);

/// Byte ranges already counted: sorted, disjoint.
#[derive(Default)]
struct Claimed(Vec<Range>);

/// Sorts and merges ranges (empty ones dropped).
fn normalise(mut r: Vec<Range>) -> Vec<Range> {
    r.retain(|&(a, b)| a < b);
    r.sort_unstable();
    let mut out: Vec<Range> = Vec::with_capacity(r.len());
    for (a, b) in r {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

impl Claimed {
    /// Claims `ranges` (clamped to `[0, end)`); returns the bytes not claimed before.
    fn claim(&mut self, ranges: Vec<Range>, end: u64) -> u64 {
        let new = normalise(ranges.into_iter().map(|(a, b)| (a, b.min(end))).collect());
        let total: u64 = new.iter().map(|(a, b)| b - a).sum();
        let (mut i, mut j, mut overlap) = (0, 0, 0u64);
        while i < new.len() && j < self.0.len() {
            let (a, b) = (new[i].0.max(self.0[j].0), new[i].1.min(self.0[j].1));
            overlap += b.saturating_sub(a);
            if new[i].1 < self.0[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        let mut all = std::mem::take(&mut self.0);
        all.extend(new);
        self.0 = normalise(all);
        total - overlap
    }
}

/// The file ranges a commit's pages and payloads occupy.
fn commit_ranges(ix: &Index, entries: &[ChunkEntryV3]) -> (Vec<Range>, Vec<Range>) {
    let pages = ix
        .pages
        .iter()
        .map(|p| (p.offset.get(), p.offset.get() + stored_len(p, ix.compact)))
        .collect();
    let groups = ix.groups.iter().map(|g| {
        let o = g.offset.get();
        (o, o + u64::from(g.stored_size.get()))
    });
    let singles = entries
        .iter()
        .filter(|e| e.storage == STORAGE_RAW || e.storage == STORAGE_ZSTD)
        .map(|e| (e.location.get(), e.location.get() + u64::from(e.size.get())));
    (pages, groups.chain(singles).collect())
}

/// Accounts for every byte of a v3 file whose current commit is `ix` with `entries`; `older`
/// are the other commits its history keeps, each with its entries if they could be read.
pub(crate) fn file_bytes_of(
    len: u64,
    ix: &Index,
    entries: &[ChunkEntryV3],
    older: &[(Index, Option<Vec<ChunkEntryV3>>)],
) -> FileBytes {
    let mut c = Claimed::default();
    let mut b = FileBytes {
        file: len,
        header: c.claim(vec![(0, WORLD_HEADER_V3_SIZE as u64)], len),
        ..FileBytes::default()
    };
    let root = c.claim(vec![(ix.offset, ix.offset + ix.size)], len);
    b.commit_record = if ix.record.is_some() {
        size_of::<CommitRecord>() as u64
    } else {
        0
    };
    b.group_table = (ix.groups.len() * size_of::<GroupEntry>()) as u64;
    b.page_table = (ix.pages.len() * size_of::<PageEntry>()) as u64;
    b.root_index = root.saturating_sub(b.commit_record + b.group_table + b.page_table);
    let (pages, payload) = commit_ranges(ix, entries);
    b.entry_pages = c.claim(pages, len);
    b.payload = c.claim(payload, len);
    for (old, es) in older {
        b.history += c.claim(vec![(old.offset, old.offset + old.size)], len);
        if let Some(es) = es {
            let (pages, payload) = commit_ranges(old, es);
            b.history += c.claim(pages, len);
            b.history += c.claim(payload, len);
        }
    }
    b.tail = len.saturating_sub(ix.data_end);
    let counted = b.parts().iter().map(|p| p.1).sum::<u64>();
    b.dead = len - counted.min(len);
    b
}
