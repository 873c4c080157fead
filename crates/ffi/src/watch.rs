//! Changed-chunk watches: which chunks of a world changed since an engine last looked, so that
//! it re-meshes only those.
//!
//! A watch remembers, for every chunk of the world that is allocated and not all air, the
//! chunk's revision (`vwr::Chunk::blocks_revision`, or `vwr::Chunk::revision` with
//! [`VOXCAF_WATCH_RECORDS`]). Revisions are drawn from one process-wide counter when first read
//! after a change and are never reused, so two equal numbers mean the same content; they say
//! nothing by their order, and the watch only compares them for inequality. A chunk that is
//! not allocated and one whose palette is air alone (what filling a chunk with air leaves; no
//! records either, with `VOXCAF_WATCH_RECORDS`) count alike: neither draws anything, so a
//! change between the two is no change. (A chunk whose cells all became air one by one keeps
//! its other palette entries and is reported: one needless re-mesh, never a missed one.)
//!
//! Cost: a watch holds 24 bytes per remembered chunk (plus 12 per chunk of its last answer),
//! and each question compares the world's allocated chunks with the remembered ones in one
//! merge, in file order: the watch's memory and work grow with the allocated chunks, nothing
//! is sized by the world's nominal chunk count. Listing the allocated chunks
//! (`vwr::World::chunks`) also makes one pass over the world's page table (a page holds up to
//! 512 chunk positions), which in a huge, nearly empty world costs more than the chunks
//! themselves: 4 ms in the largest world (65535 × 1 × 65535 chunks) holding two.

use vwr::{Chunk, World};

use crate::error::*;
use crate::ptr;
use crate::world::VoxcafWorld;

/// Also report chunks whose records (MoveObjects, BigDecor, other metadata) changed while their
/// blocks did not: the watch compares `vwr::Chunk::revision` instead of `blocks_revision`.
/// Records do not change a chunk's mesh, so a watch for re-meshing leaves this off.
pub const VOXCAF_WATCH_RECORDS: u32 = 1;

/// Also report, around every changed chunk, the allocated chunks among its 26 neighbours (its
/// faces, edges and corners) that are not all air: a chunk's mesh culls its faces against the
/// neighbouring cells and reads them for ambient occlusion, so an edit on a chunk's border can
/// change its neighbours' meshes too. Without this flag an engine that re-meshes only the
/// reported chunks may keep a face a new neighbour block now hides, or miss one it uncovers.
pub const VOXCAF_WATCH_NEIGHBOURS: u32 = 2;

/// A changed-chunk watch over a world. Opaque; created by `voxcaf_watch_new`, freed by
/// `voxcaf_watch_free`. Not thread-safe: use one watch from one thread at a time.
pub struct VoxcafWatch {
    flags: u32,
    /// Chunk dimensions of the world it was made for.
    dims: [u32; 3],
    /// The allocated, not-all-air chunks as last seen, in file order.
    seen: Vec<Seen>,
    /// The last answer of `voxcaf_watch_changes`: x, y, z of each chunk (lent to the caller).
    changes: Vec<u32>,
}

/// One remembered chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    /// `[z, y, x]`: sorting by it is file order (x fastest, then y, then z).
    key: [u32; 3],
    revision: u64,
}

/// Whether a chunk counts as not allocated: a palette of air alone (and, when records are
/// watched, no records), so it draws nothing.
fn blank(chunk: &Chunk, records: bool) -> bool {
    if records {
        chunk.is_empty()
    } else {
        chunk.is_uniform() && chunk.get(0).is_air()
    }
}

fn key([x, y, z]: [u32; 3]) -> [u32; 3] {
    [z, y, x]
}

/// The state of every allocated chunk of `world` that is not blank, in file order.
fn snapshot(world: &World, flags: u32) -> Vec<Seen> {
    let records = flags & VOXCAF_WATCH_RECORDS != 0;
    let mut seen: Vec<Seen> = world
        .chunks()
        .filter(|(_, c)| !blank(c, records))
        .map(|(p, c)| Seen {
            key: key(p),
            revision: if records {
                c.revision()
            } else {
                c.blocks_revision()
            },
        })
        .collect();
    // `World::chunks` yields file order already; a stable sort of sorted input is one pass.
    seen.sort_by_key(|s| s.key);
    seen
}

/// Keys of the chunks whose state differs between `old` and `new` (both in file order):
/// another revision, or present in one only. Ascending.
fn differences(old: &[Seen], new: &[Seen]) -> Vec<[u32; 3]> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        // Whether the next key is only in `old` (removed or emptied), else only in `new`
        // (appeared).
        let only_old = match (old.get(i), new.get(j)) {
            (None, None) => return out,
            (Some(a), Some(b)) if a.key == b.key => {
                if a.revision != b.revision {
                    out.push(a.key);
                }
                i += 1;
                j += 1;
                continue;
            }
            (Some(a), Some(b)) => a.key < b.key,
            (Some(_), None) => true,
            (None, Some(_)) => false,
        };
        if only_old {
            out.push(old[i].key);
            i += 1;
        } else {
            out.push(new[j].key);
            j += 1;
        }
    }
}

/// `changed` (ascending keys) with the neighbours of each that are in `now`, ascending and
/// without repeats.
fn with_neighbours(changed: &[[u32; 3]], now: &[Seen], dims: [u32; 3]) -> Vec<[u32; 3]> {
    let mut out = changed.to_vec();
    let kdims = key(dims);
    for k in changed {
        for dz in -1i64..=1 {
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let n = [k[0] as i64 + dz, k[1] as i64 + dy, k[2] as i64 + dx];
                    if (0..3).any(|a| n[a] < 0 || n[a] >= i64::from(kdims[a])) {
                        continue;
                    }
                    let n = n.map(|v| v as u32);
                    if now.binary_search_by_key(&n, |s| s.key).is_ok() {
                        out.push(n);
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn check_dims(watch: &VoxcafWatch, world: &World) -> Result<(), Fail> {
    if watch.dims == world.chunk_dims() {
        return Ok(());
    }
    Err(Fail::new(
        VOXCAF_ERR_MISMATCH,
        format!(
            "the watch was made for a world of {:?} chunks, this world has {:?} \
             (make a new watch and re-mesh every chunk)",
            watch.dims,
            world.chunk_dims()
        ),
    ))
}

/// Creates a watch that remembers the current state of every chunk of `world`; ask it with
/// `voxcaf_watch_changes`. `flags`: 0 for the chunks whose blocks changed (what needs
/// re-meshing), or'ed with `VOXCAF_WATCH_RECORDS` and `VOXCAF_WATCH_NEIGHBOURS`.
///
/// Ownership: borrows `world` for the call only (the watch keeps no pointer to it); on success
/// `*out` receives a new watch owned by the caller (free it with `voxcaf_watch_free`).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_watch_new(
    world: *const VoxcafWorld,
    flags: u32,
    out: *mut *mut VoxcafWatch,
) -> i32 {
    guard(|| {
        ptr::check_out(out, "out")?;
        let w = &ptr::handle(world, "world")?.0;
        if flags & !(VOXCAF_WATCH_RECORDS | VOXCAF_WATCH_NEIGHBOURS) != 0 {
            return Err(Fail::new(
                VOXCAF_ERR_INVALID_ARGUMENT,
                format!("unknown watch flags {flags:#x}"),
            ));
        }
        let watch = VoxcafWatch {
            flags,
            dims: w.chunk_dims(),
            seen: snapshot(w, flags),
            changes: Vec::new(),
        };
        ptr::out(out, ptr::give(watch), "out")
    })
}

/// The chunks of `world` that changed since the watch was created or last asked, then
/// remembers the world as it is now (the next call reports only what changes after this one).
///
/// `*chunks` receives `*count` chunk positions, three `uint32_t` each (x, y, z), in file order
/// (z outer, then y, x fastest; NULL when `*count` is 0). A chunk is reported when its blocks
/// changed (its records too with `VOXCAF_WATCH_RECORDS`; its neighbours too with
/// `VOXCAF_WATCH_NEIGHBOURS`), including a chunk that appeared and one that was emptied or
/// removed. Re-meshing every reported chunk with `voxcaf_mesh_chunk` is always right: an
/// emptied or removed chunk gives empty parts, whose mesh the engine drops. A chunk that is not
/// allocated and one filled whole with air count alike (no change between the two).
///
/// The watch compares revisions, not contents: a change undone (a block set and set back) is
/// still reported, and a world loaded again (`voxcaf_world_open`, `_from_bytes`) has new
/// revisions in every chunk, so all its chunks are reported once. `world` may be another
/// handle than the one the watch was made with, of the same chunk dimensions; other
/// dimensions are refused with `VOXCAF_ERR_MISMATCH`, and the watch is left as it was.
///
/// Ownership: borrows `watch` mutably and `world` for the call; the positions are borrowed
/// from the watch: valid until the next `voxcaf_watch_changes` on it or `voxcaf_watch_free`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_watch_changes(
    watch: *mut VoxcafWatch,
    world: *const VoxcafWorld,
    chunks: *mut *const u32,
    count: *mut usize,
) -> i32 {
    guard(|| {
        ptr::check_out(chunks, "chunks")?;
        ptr::check_out(count, "count")?;
        let watch = ptr::handle_mut(watch, "watch")?;
        let w = &ptr::handle(world, "world")?.0;
        check_dims(watch, w)?;
        let now = snapshot(w, watch.flags);
        let mut changed = differences(&watch.seen, &now);
        if watch.flags & VOXCAF_WATCH_NEIGHBOURS != 0 {
            changed = with_neighbours(&changed, &now, watch.dims);
        }
        watch.seen = now;
        watch.changes.clear();
        watch
            .changes
            .extend(changed.iter().flat_map(|&[z, y, x]| [x, y, z]));
        let data = if changed.is_empty() {
            std::ptr::null()
        } else {
            watch.changes.as_ptr()
        };
        ptr::out(chunks, data, "chunks")?;
        ptr::out(count, changed.len(), "count")
    })
}

/// Frees a watch. Accepts NULL.
/// Leaves `voxcaf_last_error()` as it was.
///
/// Ownership: takes back `watch`; it and the positions it lent must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_watch_free(watch: *mut VoxcafWatch) {
    ptr::free(watch);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: u32, revision: u64) -> Seen {
        Seen {
            key: [0, 0, x],
            revision,
        }
    }

    #[test]
    fn differences_merge_both_sides() {
        let old = [s(1, 10), s(2, 20), s(4, 40)];
        let new = [s(0, 5), s(2, 21), s(4, 40), s(5, 50)];
        let keys: Vec<u32> = differences(&old, &new).iter().map(|k| k[2]).collect();
        assert_eq!(keys, [0, 1, 2, 5]);
        assert!(differences(&new, &new).is_empty());
        assert_eq!(differences(&[], &new).len(), 4);
        assert_eq!(differences(&old, &[]).len(), 3);
    }

    #[test]
    fn neighbours_stay_inside_the_world_and_in_the_snapshot() {
        // A 3×1×1 world: chunk 0 changed; 1 is remembered, 2 is not.
        let now = [s(0, 1), s(1, 1)];
        let got = with_neighbours(&[[0, 0, 0]], &now, [3, 1, 1]);
        assert_eq!(got, [[0, 0, 0], [0, 0, 1]]);
    }
}
