//! Writing v3 commits (docs/format/vwr-v3.md §9 and §11): an incremental commit of changed
//! chunks, a revert, the append with its two `fsync`s, and the compaction that keeps history.

use std::collections::HashMap;
use std::io::{Seek, SeekFrom, Write};
use std::mem::size_of;
use std::path::Path;

use zerocopy::little_endian::{U32, U64};
use zerocopy::IntoBytes;

use crate::chunk::Chunk;
use crate::error::{Result, VwrError};
use crate::layout::*;
use crate::v3::{self, CommitInfo, Index, RootFields, Source};

/// How the record of a new commit is made.
pub(crate) enum Record {
    /// A new commit of `kind` (`reverted_to` for reverts) by `info`.
    Fresh {
        info: CommitInfo,
        kind: u8,
        reverted_to: u32,
    },
    /// A commit replayed by compaction: its original record (the previous-commit link is
    /// made anew).
    Copy(CommitRecord),
}

/// A commit ready to append after `base` (the committed `dataEnd`).
pub(crate) struct Planned {
    /// Payloads and entry pages.
    pub data: Vec<u8>,
    /// The root index.
    pub root: Vec<u8>,
    pub generation: u32,
    pub chunks_written: u64,
}

impl Planned {
    /// Bytes the commit writes, slot included.
    pub fn bytes(&self) -> u64 {
        (self.data.len() + self.root.len() + size_of::<CommitSlot>()) as u64
    }
}

fn record_of(spec: &Record, prev: &Index, bytes: u64, chunks: u64) -> CommitRecord {
    match spec {
        Record::Fresh {
            info,
            kind,
            reverted_to,
        } => {
            let mut r = info.record(*kind, Some(prev), bytes, chunks);
            r.reverted_to = U32::new(*reverted_to);
            r
        }
        Record::Copy(r) => {
            let mut r = *r;
            r.prev_offset = U64::new(prev.offset);
            r.prev_size = U32::new(prev.size as u32);
            r.prev_generation = U32::new(prev.generation);
            r
        }
    }
}

/// Plans the commit after `old` in which the chunks of `changed` (chunk index, new content;
/// `None` or an empty chunk removes it; sorted by chunk index) replace theirs and every other
/// chunk keeps its entry. Only the entry pages holding changed chunks are read (`read_page`,
/// by position in `old.pages`) and written again; the others, and the group table, are kept
/// as they are (new groups are appended; groups no entry refers to any more stay in the table
/// until a compaction).
pub(crate) fn plan_commit(
    old: &Index,
    read_page: &dyn Fn(usize) -> Result<Vec<ChunkEntryV3>>,
    changed: &[(u32, Option<&Chunk>)],
    fields: &RootFields,
    (codec, level): (v3::Codec, i32),
    record: &Record,
) -> Result<Planned> {
    let encode: Vec<(u32, &Chunk)> = changed
        .iter()
        .filter_map(|&(i, c)| c.filter(|c| !c.is_empty()).map(|c| (i, c)))
        .collect();
    let base = old.data_end;
    let mut groups = old.groups.clone();
    let mut body = v3::encode_body(&encode, codec, level, base, groups.len() as u32);
    groups.extend_from_slice(&body.groups);
    body.entries.sort_unstable_by_key(|e| e.chunk_index.get());
    // Live bytes: the old commit's without its root, then page by page and entry by entry.
    let mut live = old.live_bytes.saturating_sub(old.size) + body.data.len() as u64;
    let touched = touched_pages(changed);
    let (mut pages, mut k, mut fresh) = (Vec::new(), 0usize, body.entries.as_slice());
    for &page in &touched {
        while k < old.pages.len() && old.pages[k].page.get() < page {
            pages.push(old.pages[k]);
            k += 1;
        }
        let mut entries = Vec::new();
        if k < old.pages.len() && old.pages[k].page.get() == page {
            entries = read_page(k)?;
            live = live.saturating_sub(v3::stored_len(&old.pages[k], old.compact));
            k += 1;
        }
        let gone = |e: &ChunkEntryV3| {
            changed
                .binary_search_by_key(&e.chunk_index.get(), |c| c.0)
                .is_ok()
        };
        for e in entries.iter().filter(|e| gone(e)) {
            if e.storage == STORAGE_RAW || e.storage == STORAGE_ZSTD {
                live -= u64::from(e.size.get());
            }
        }
        entries.retain(|e| !gone(e));
        let n = fresh
            .iter()
            .take_while(|e| e.chunk_index.get() / PAGE_ENTRIES == page)
            .count();
        entries.extend_from_slice(&fresh[..n]);
        fresh = &fresh[n..];
        entries.sort_unstable_by_key(|e| e.chunk_index.get());
        if entries.is_empty() {
            continue;
        }
        // Rewritten pages keep the file's form (vwr-v3.md §9).
        let bytes = v3::page_bytes(&entries, page, old.compact);
        let at = base + body.data.len() as u64;
        pages.push(v3::page_entry(page, entries.len(), &bytes, at, old.compact));
        live += bytes.len() as u64;
        body.data.extend_from_slice(&bytes);
    }
    pages.extend_from_slice(&old.pages[k..]);
    let generation = old.generation + 1;
    let index_at = base + body.data.len() as u64;
    let size = v3::index_size(groups.len() as u64, pages.len() as u64);
    let bytes = body.data.len() as u64 + size + size_of::<CommitSlot>() as u64;
    let rec = record_of(record, old, bytes, encode.len() as u64);
    let root = v3::encode_index(fields, generation, &rec, &groups, &pages, index_at, live);
    Ok(Planned {
        data: body.data,
        root,
        generation,
        chunks_written: encode.len() as u64,
    })
}

/// The entry pages holding the chunk indices of `changed`, in order.
fn touched_pages(changed: &[(u32, Option<&Chunk>)]) -> Vec<u32> {
    let mut pages: Vec<u32> = changed.iter().map(|c| c.0 / PAGE_ENTRIES).collect();
    pages.dedup();
    pages
}

/// Plans a revert: a root index after `old` that repeats `target`'s fields, groups and pages.
pub(crate) fn plan_revert(old: &Index, target: &Index, info: &CommitInfo) -> Planned {
    let fields = RootFields {
        sky_region: target.sky_region,
        mission_number: target.mission_number,
        spawn: target.spawn,
    };
    let size = v3::index_size(target.groups.len() as u64, target.pages.len() as u64);
    let spec = Record::Fresh {
        info: *info,
        kind: COMMIT_REVERT,
        reverted_to: target.generation,
    };
    let rec = record_of(&spec, old, size + size_of::<CommitSlot>() as u64, 0);
    let live = target.live_bytes - target.size;
    let generation = old.generation + 1;
    let root = v3::encode_index(
        &fields,
        generation,
        &rec,
        &target.groups,
        &target.pages,
        old.data_end,
        live,
    );
    Planned {
        data: Vec::new(),
        root,
        generation,
        chunks_written: 0,
    }
}

/// Where the slot of the commit after `old` goes (the older of the two).
fn slot_at(old: &Index) -> u64 {
    COMMIT_SLOTS_OFFSET as u64 + (1 - old.slot as u64) * size_of::<CommitSlot>() as u64
}

/// Appends `p` to the file after `old` and commits it: truncate to the committed end, append,
/// `fsync`, write the older slot, `fsync` (vwr-v3.md §9).
pub(crate) fn append_to_file(path: &Path, old: &Index, p: &Planned) -> Result<u64> {
    let err = |source| VwrError::Io {
        path: path.to_path_buf(),
        source,
    };
    let base = old.data_end;
    let index_at = base + p.data.len() as u64;
    let slot = v3::commit_slot(p.generation, index_at, p.root.len() as u32);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(err)?;
    f.set_len(base).map_err(err)?;
    f.seek(SeekFrom::Start(base)).map_err(err)?;
    f.write_all(&p.data).map_err(err)?;
    f.write_all(&p.root).map_err(err)?;
    f.sync_data().map_err(err)?;
    crate::file::fail_point("before-commit");
    f.seek(SeekFrom::Start(slot_at(old))).map_err(err)?;
    f.write_all(slot.as_bytes()).map_err(err)?;
    f.sync_data().map_err(err)?;
    Ok(index_at + p.root.len() as u64)
}

/// Appends `p` to a file image in memory after `old` and commits it.
fn append_to_vec(bytes: &mut Vec<u8>, old: &Index, p: &Planned) {
    bytes.truncate(old.data_end as usize);
    let index_at = bytes.len() as u64 + p.data.len() as u64;
    bytes.extend_from_slice(&p.data);
    bytes.extend_from_slice(&p.root);
    let slot = v3::commit_slot(p.generation, index_at, p.root.len() as u32);
    let at = slot_at(old) as usize;
    bytes[at..at + size_of::<CommitSlot>()].copy_from_slice(slot.as_bytes());
}

/// Two commits' entries name the same stored bytes (groups compared by their frame).
fn same_entry(a: &ChunkEntryV3, ag: &[GroupEntry], b: &ChunkEntryV3, bg: &[GroupEntry]) -> bool {
    if a.storage != b.storage || a.encoding != b.encoding {
        return false;
    }
    let same_loc = if a.storage == STORAGE_GROUP {
        ag.get(a.location.get() as usize).map(|g| g.offset)
            == bg.get(b.location.get() as usize).map(|g| g.offset)
    } else {
        a.location == b.location
    };
    same_loc && a.size == b.size && a.value == b.value && a.crc == b.crc
}

/// The chunks of commit `ix` whose entries differ from those of `prev` (decoded; `None` for a
/// chunk `ix` no longer has), in chunk-index order.
fn decode_changes<S: Source + ?Sized>(
    src: &S,
    dims: [u32; 3],
    prev: Option<(&Index, &[ChunkEntryV3])>,
    ix: &Index,
    entries: &[ChunkEntryV3],
) -> Result<Vec<(u32, Option<Chunk>)>> {
    let mut out = Vec::new();
    let old: HashMap<u32, &ChunkEntryV3> = prev
        .map(|(_, es)| es.iter().map(|e| (e.chunk_index.get(), e)).collect())
        .unwrap_or_default();
    let old_groups: &[GroupEntry] = prev.map_or(&[], |(p, _)| &p.groups);
    let mut seen = std::collections::HashSet::new();
    for e in entries {
        let i = e.chunk_index.get();
        seen.insert(i);
        if old
            .get(&i)
            .is_some_and(|o| same_entry(o, old_groups, e, &ix.groups))
        {
            continue;
        }
        let group = if e.storage == STORAGE_GROUP {
            let g = e.location.get() as usize;
            Some(v3::read_group(src, &ix.groups[g], g)?)
        } else {
            None
        };
        out.push((i, Some(v3::decode_entry(src, dims, e, group.as_deref())?)));
    }
    out.extend(
        old.keys()
            .filter(|i| !seen.contains(i))
            .map(|&i| (i, None::<Chunk>)),
    );
    out.sort_unstable_by_key(|c| c.0);
    Ok(out)
}

/// Rewrites a v3 file image so that it holds the commits `chain` (oldest first) and nothing
/// else: the oldest as a full write, each later one as an incremental commit of the chunks
/// that differ from its predecessor, each with its original record and generation (§11).
pub(crate) fn compact_chain<S: Source + ?Sized>(
    src: &S,
    dims: [u32; 3],
    chain: &[Index],
    codec: v3::Codec,
    level: i32,
    relod: Option<u8>,
) -> Result<Vec<u8>> {
    let first = &chain[0];
    let entries0 = v3::all_entries(src, dims, first)?;
    // With the levels of detail rebuilt, only level 0 is read.
    let read = match relod {
        Some(_) => v3::level0(dims, &entries0),
        None => &entries0,
    };
    let chunks = v3::decode_all(src, dims, first, read)?;
    let (mut world, mut levels) = v3::assemble(dims, first, chunks)?;
    let lod = relod.unwrap_or(first.lod);
    if relod.is_some() {
        levels = crate::lod::build_levels(&world, lod)?;
    }
    let info = first
        .record
        .as_ref()
        .map(CommitInfo::of)
        .unwrap_or_default();
    // A compaction keeps the file's page form (vwr-v3.md §9).
    let how = (codec, level, v3::PageForm::of(first.compact));
    let mut bytes = v3::full_file(&world, &levels, how, first.generation, &info);
    let (mut prev_src, mut prev_entries) = (first.clone(), entries0);
    for ix in &chain[1..] {
        let entries = v3::all_entries(src, dims, ix)?;
        let mut changes =
            decode_changes(src, dims, Some((&prev_src, &prev_entries)), ix, &entries)?;
        if relod.is_some() {
            changes = with_levels(dims, lod, changes, &mut world, &mut levels)?;
        }
        let h = v3::parse_header(&bytes)?;
        let (cur, _) = v3::choose_commit(&bytes[..], &h)?;
        let changed: Vec<(u32, Option<&Chunk>)> =
            changes.iter().map(|(i, c)| (*i, c.as_ref())).collect();
        let fields = RootFields {
            sky_region: ix.sky_region,
            mission_number: ix.mission_number,
            spawn: ix.spawn,
        };
        let spec = match ix.record {
            Some(r) => Record::Copy(r),
            None => Record::Fresh {
                info: CommitInfo::default(),
                kind: COMMIT_WRITE,
                reverted_to: 0,
            },
        };
        let image: &[u8] = &bytes;
        let read = |n: usize| v3::read_page(image, dims, &cur, n);
        let p = plan_commit(&cur, &read, &changed, &fields, (codec, level), &spec)?;
        append_to_vec(&mut bytes, &cur, &p);
        (prev_src, prev_entries) = (ix.clone(), entries);
    }
    Ok(bytes)
}

/// A commit's level-0 `changes` applied to `world`, with the level-of-detail chunks they
/// change (rebuilt, applied to `levels`) instead of the ones the commit stored.
fn with_levels(
    dims: [u32; 3],
    lod: u8,
    mut changes: Vec<(u32, Option<Chunk>)>,
    world: &mut crate::World,
    levels: &mut [crate::World],
) -> Result<Vec<(u32, Option<Chunk>)>> {
    let count0 = crate::lod::level_chunk_count(dims, 0);
    changes.retain(|(i, _)| u64::from(*i) < count0);
    let mut at = Vec::with_capacity(changes.len());
    for (i, c) in &changes {
        let p = v3::delinear(dims, *i);
        match c {
            Some(c) => world.set_chunk(p, c.clone())?,
            None => drop(world.take_chunk(p)),
        }
        at.push(p);
    }
    let lod_changes = {
        let mut get = |k: u8, p: [u32; 3]| -> Result<Option<std::sync::Arc<Chunk>>> {
            let w = if k == 0 {
                &*world
            } else {
                &levels[usize::from(k) - 1]
            };
            Ok(w.chunk(p)
                .filter(|c| !c.is_empty())
                .cloned()
                .map(std::sync::Arc::new))
        };
        crate::lod::rebuild_ancestors(dims, lod, &at, &mut get)?
    };
    for (i, c) in &lod_changes {
        let (k, p) = crate::lod::locate(dims, lod, *i);
        let w = &mut levels[usize::from(k) - 1];
        match c {
            Some(c) => w.set_chunk(p, c.clone())?,
            None => drop(w.take_chunk(p)),
        }
    }
    changes.extend(lod_changes);
    changes.sort_unstable_by_key(|c| c.0);
    Ok(changes)
}
