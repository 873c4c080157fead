//! Levels of detail (docs/format/vwr-v3.md §13).
//!
//! Level `k` of a world is itself a world whose cell `(x, y, z)` stands for the blocks
//! `[x·2^k, (x+1)·2^k)` on each axis: level 0 is the world, level `k` is built from level
//! `k − 1`, each cell from the 8 cells it covers:
//!
//! - **air only when all 8 are air** — so a coarse level's solid volume contains the fine one's
//!   and nothing seen from outside disappears into a hole;
//! - otherwise **the most common non-air block** among the 8, ties going to the one met first
//!   in the order y descending (the top layer first: what is seen from above), then z, then x.
//!
//! Level `k` has `ceil(chunks / 2)` chunks per axis of level `k − 1`, so chunk `p` of level
//! `k` is built from the chunks `2p + d` (`d` in `{0, 1}³`) of level `k − 1`. LOD chunks hold
//! no metadata records.
//!
//! ```
//! use vwr::{lod, Block, World};
//! let mut world = World::with_chunk_dims([4, 1, 4])?;
//! world.fill_box([0, 0, 0], [39, 3, 39], Block::make(35, 0)?)?; // a stone floor 4 high
//! world.set_block([7, 4, 7], Block::make(261, 0)?)?; // one brick on it
//! let l1 = lod::build_next(&world)?;
//! assert_eq!(l1.chunk_dims(), [2, 1, 2]);
//! assert_eq!(l1.get_block([3, 2, 3]).block_type(), 261); // the brick's cell is not air
//! assert!(l1.get_block([2, 2, 2]).is_air());
//! assert_eq!(l1.get_block([0, 1, 0]).block_type(), 35);
//! # Ok::<(), vwr::VwrError>(())
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use crate::block::Block;
use crate::chunk::{local_index, Chunk, CHUNK_SIZE, CHUNK_VOLUME};
use crate::error::{Result, VwrError};
use crate::world::World;

/// The most levels a file holds above level 0 (a level-8 cell is 256 blocks wide).
pub const MAX_LOD_LEVELS: u8 = 8;

/// Chunks per axis of level `k` of a world of `dims` chunks: `ceil(dims / 2^k)`.
pub fn level_dims(dims: [u32; 3], k: u8) -> [u32; 3] {
    dims.map(|d| {
        let s = 1u64 << k.min(31);
        (u64::from(d).div_ceil(s)) as u32
    })
}

/// Chunks of level `k` of a world of `dims` chunks.
pub fn level_chunk_count(dims: [u32; 3], k: u8) -> u64 {
    level_dims(dims, k).iter().map(|&d| u64::from(d)).product()
}

/// The fewest levels after which one chunk covers a world of `dims` chunks (at most
/// [`MAX_LOD_LEVELS`]).
pub fn levels_to_one_chunk(dims: [u32; 3]) -> u8 {
    (0..MAX_LOD_LEVELS)
        .find(|&k| level_dims(dims, k).iter().all(|&d| d == 1))
        .unwrap_or(MAX_LOD_LEVELS)
}

/// The most levels of detail a file of `dims` chunks has room for (at most
/// [`MAX_LOD_LEVELS`]): every level's chunks take chunk indices, and a file has 2^32 − 1.
/// The largest worlds have room for none.
pub fn most_levels(dims: [u32; 3]) -> u8 {
    (0..=MAX_LOD_LEVELS)
        .rev()
        .find(|&k| space_count(dims, k) <= crate::world::MAX_CHUNK_COUNT)
        .unwrap_or(0)
}

/// The levels of detail a file's bytes say it stores: `lodLevels` of a v3 header with the
/// `LOD` flag, else 0 (v2, `.vox`, anything shorter than a header).
pub fn stored_levels(bytes: &[u8]) -> u8 {
    let v3 = crate::world_version(bytes) == Some(crate::layout::WORLD_VERSION_V3);
    match bytes.get(6..15) {
        Some(h) if v3 && u16::from_le_bytes([h[0], h[1]]) & crate::layout::FLAG_LOD != 0 => h[8],
        _ => 0,
    }
}

/// Where level `k`'s chunks start in the chunk index space of a file (vwr-v3.md §13): level 0
/// first, then each level in turn, each in its own `x + X·(y + Y·z)` order.
pub fn level_offset(dims: [u32; 3], k: u8) -> u64 {
    (0..k).map(|j| level_chunk_count(dims, j)).sum()
}

/// Chunk indices of a file of `dims` chunks with `lod` levels above level 0.
pub fn space_count(dims: [u32; 3], lod: u8) -> u64 {
    level_offset(dims, lod + 1)
}

/// The chunk index of chunk `pos` of level `k` (the caller keeps it inside the space).
pub fn index_of(dims: [u32; 3], k: u8, pos: [u32; 3]) -> u32 {
    let ld = level_dims(dims, k);
    (level_offset(dims, k) + u64::from(crate::v3::linear(ld, pos))) as u32
}

/// The level and position of chunk index `i` in a space of `lod` levels above level 0
/// (indices past the space are placed in its last level).
pub fn locate(dims: [u32; 3], lod: u8, i: u32) -> (u8, [u32; 3]) {
    let mut rest = u64::from(i);
    for k in 0..lod {
        let n = level_chunk_count(dims, k);
        if rest < n {
            return (k, crate::v3::delinear(level_dims(dims, k), rest as u32));
        }
        rest -= n;
    }
    (lod, crate::v3::delinear(level_dims(dims, lod), rest as u32))
}

/// The offsets of the 8 children of a parent, in the order of [`build_chunk`]'s argument.
pub const CHILD_OFFSETS: [[u32; 3]; 8] = {
    let mut out = [[0; 3]; 8];
    let mut i = 0;
    while i < 8 {
        out[i] = [(i & 1) as u32, ((i >> 1) & 1) as u32, ((i >> 2) & 1) as u32];
        i += 1;
    }
    out
};

/// One cell of level `k` from its 8 cells of level `k − 1` given in the order
/// y descending, then z, then x (the tie order): air when all are air, else the most common
/// non-air value, the first met on ties.
pub fn pick(cells: &[Block; 8]) -> Block {
    let first = cells[0];
    if cells.iter().all(|&c| c == first) {
        return first;
    }
    let (mut best, mut best_n) = (Block::AIR, 0);
    for (i, &c) in cells.iter().enumerate() {
        if c.is_air() || cells[..i].contains(&c) {
            continue;
        }
        let n = cells[i..].iter().filter(|&&o| o == c).count();
        if n > best_n {
            (best, best_n) = (c, n);
        }
    }
    best
}

/// The chunk of level `k` built from its 8 children of level `k − 1`, indexed by
/// `dx + 2·dy + 4·dz` ([`CHILD_OFFSETS`]); `None` for children that are empty or outside the
/// level. Returns `None` when the result is all air.
pub fn build_chunk(children: [Option<&Chunk>; 8]) -> Result<Option<Chunk>> {
    let live: Vec<&Chunk> = children
        .iter()
        .flatten()
        .filter(|c| !c.is_empty())
        .copied()
        .collect();
    if live.is_empty() {
        return Ok(None);
    }
    if live.len() == 8
        && live
            .iter()
            .all(|c| c.is_uniform() && c.get(0) == live[0].get(0))
    {
        return Ok(Some(Chunk::uniform(live[0].get(0))));
    }
    let half = CHUNK_SIZE / 2;
    let mut out = [Block::AIR; CHUNK_VOLUME];
    for (ci, child) in children.iter().enumerate() {
        let Some(child) = child.filter(|c| !c.is_empty()) else {
            continue;
        };
        let d = CHILD_OFFSETS[ci].map(|v| v as usize * half);
        if child.is_uniform() {
            let b = child.get(0);
            for z in 0..half {
                for y in 0..half {
                    for x in 0..half {
                        out[local_index(d[0] + x, d[1] + y, d[2] + z)] = b;
                    }
                }
            }
            continue;
        }
        let cells = child.to_blocks();
        for z in 0..half {
            for y in 0..half {
                for x in 0..half {
                    let at = |dx: usize, dy: usize, dz: usize| {
                        cells[local_index(2 * x + dx, 2 * y + dy, 2 * z + dz)]
                    };
                    let eight = [
                        at(0, 1, 0),
                        at(1, 1, 0),
                        at(0, 1, 1),
                        at(1, 1, 1),
                        at(0, 0, 0),
                        at(1, 0, 0),
                        at(0, 0, 1),
                        at(1, 0, 1),
                    ];
                    out[local_index(d[0] + x, d[1] + y, d[2] + z)] = pick(&eight);
                }
            }
        }
    }
    if out.iter().all(|b| b.is_air()) {
        return Ok(None);
    }
    Chunk::from_blocks(&out).map(Some)
}

/// The 8 children of chunk `parent` in a level of `dims` chunks (outside ones are `None`).
pub fn children_of(parent: [u32; 3], dims: [u32; 3]) -> [Option<[u32; 3]>; 8] {
    CHILD_OFFSETS.map(|d| {
        let c = [0, 1, 2].map(|k| 2 * parent[k] + d[k]);
        (0..3).all(|k| c[k] < dims[k]).then_some(c)
    })
}

/// The next coarser level of `finer` (level `k` from level `k − 1`).
pub fn build_next(finer: &World) -> Result<World> {
    let dims = finer.chunk_dims();
    let mut out = World::with_chunk_dims(level_dims(dims, 1))?;
    let mut parents: Vec<[u32; 3]> = finer
        .non_empty_chunks()
        .map(|(p, _)| p.map(|v| v / 2))
        .collect();
    parents.sort_unstable();
    parents.dedup();
    for p in parents {
        let kids = children_of(p, dims).map(|c| c.and_then(|c| finer.chunk(c)));
        if let Some(c) = build_chunk(kids)? {
            out.set_chunk(p, c)?;
        }
    }
    Ok(out)
}

/// Level `k` (1..=[`MAX_LOD_LEVELS`]) of `world`, built level by level.
pub fn build_level(world: &World, k: u8) -> Result<World> {
    if !(1..=MAX_LOD_LEVELS).contains(&k) {
        return Err(VwrError::Unrepresentable(format!(
            "level of detail {k}: levels go from 1 to {MAX_LOD_LEVELS}"
        )));
    }
    let mut levels = build_levels(world, k)?;
    levels
        .pop()
        .ok_or(VwrError::Unrepresentable("no level".into()))
}

/// A chunk of some level as a caller has it: `(level, position)` → the chunk, `None` when
/// empty. For level 0 it gives the new state; for the levels above, what the file stores.
pub(crate) type Lookup<'a> = dyn FnMut(u8, [u32; 3]) -> Result<Option<Arc<Chunk>>> + 'a;

/// The level-of-detail chunks to write after the level-0 chunks at `changed` changed
/// (vwr-v3.md §13): each ancestor, level by level up to `lod`, rebuilt from its children,
/// and kept when it differs from what `get` says the file stores. Returns `(chunk index, new
/// chunk or None when it became empty)`, in increasing index order.
pub(crate) fn rebuild_ancestors(
    dims: [u32; 3],
    lod: u8,
    changed: &[[u32; 3]],
    get: &mut Lookup<'_>,
) -> Result<Vec<(u32, Option<Chunk>)>> {
    let mut out = Vec::new();
    let mut below: HashMap<[u32; 3], Option<Arc<Chunk>>> = HashMap::new();
    let mut set: Vec<[u32; 3]> = changed.to_vec();
    for k in 1..=lod {
        set = set.iter().map(|p| p.map(|v| v / 2)).collect();
        set.sort_unstable();
        set.dedup();
        let finer = level_dims(dims, k - 1);
        let mut here = HashMap::with_capacity(set.len());
        for &p in &set {
            let mut kids: [Option<Arc<Chunk>>; 8] = Default::default();
            for (slot, c) in kids.iter_mut().zip(children_of(p, finer)) {
                let Some(c) = c else { continue };
                *slot = match below.get(&c) {
                    Some(fresh) => fresh.clone(),
                    None => get(k - 1, c)?,
                };
            }
            let new = build_chunk(kids.each_ref().map(|c| c.as_deref()))?;
            let old = get(k, p)?;
            if old.as_deref() != new.as_ref() {
                out.push((index_of(dims, k, p), new.clone()));
            }
            here.insert(p, new.map(Arc::new));
        }
        below = here;
    }
    out.sort_unstable_by_key(|c| c.0);
    Ok(out)
}

/// Every level of `world` from 1 to `lod`.
pub fn build_levels(world: &World, lod: u8) -> Result<Vec<World>> {
    let mut out: Vec<World> = Vec::with_capacity(usize::from(lod));
    for _ in 0..lod {
        let next = build_next(out.last().unwrap_or(world))?;
        out.push(next);
    }
    Ok(out)
}

/// Brings `levels` (levels 1.. of `world`, as [`build_levels`] made them) up to date after
/// the level-0 chunks at `changed` changed, rebuilding only their ancestors. Returns, per
/// level from 1, the chunk positions whose content changed.
pub fn update_levels(
    world: &World,
    levels: &mut [World],
    changed: &[[u32; 3]],
) -> Result<Vec<Vec<[u32; 3]>>> {
    let dims = world.chunk_dims();
    let lod = levels.len().min(usize::from(MAX_LOD_LEVELS)) as u8;
    let fresh = {
        let mut get = |k: u8, p: [u32; 3]| -> Result<Option<Arc<Chunk>>> {
            let w = if k == 0 {
                world
            } else {
                &levels[usize::from(k) - 1]
            };
            Ok(w.chunk(p).filter(|c| !c.is_empty()).cloned().map(Arc::new))
        };
        rebuild_ancestors(dims, lod, changed, &mut get)?
    };
    let mut out = vec![Vec::new(); usize::from(lod)];
    for (i, c) in fresh {
        let (k, p) = locate(dims, lod, i);
        let w = &mut levels[usize::from(k) - 1];
        match c {
            Some(c) => w.set_chunk(p, c)?,
            None => drop(w.take_chunk(p)),
        }
        out[usize::from(k) - 1].push(p);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(t: u16) -> Block {
        Block::make(t, 0).expect("block")
    }

    #[test]
    fn most_levels_is_the_deepest_pyramid_with_chunk_indices_to_spare() {
        let max = crate::world::MAX_CHUNKS_PER_AXIS;
        assert_eq!(most_levels([100, 10, 100]), MAX_LOD_LEVELS);
        assert_eq!(most_levels([max, 1, max]), 0);
        assert_eq!(most_levels([max, 1, max / 2]), MAX_LOD_LEVELS);
        for dims in [[max, 1, max], [max, 1, 50_000], [max, 1, 58_000], [1, 1, 1]] {
            let k = most_levels(dims);
            assert!(
                space_count(dims, k) <= crate::world::MAX_CHUNK_COUNT,
                "{dims:?}"
            );
            if k < MAX_LOD_LEVELS {
                assert!(
                    space_count(dims, k + 1) > crate::world::MAX_CHUNK_COUNT,
                    "{dims:?}"
                );
            }
        }
    }

    #[test]
    fn updating_levels_equals_building_them_again() {
        let mut w = World::with_chunk_dims([5, 2, 4]).expect("world");
        w.fill_box([0, 0, 0], [49, 3, 39], b(35)).expect("fill");
        let mut levels = build_levels(&w, 3).expect("levels");
        for (i, p) in [[3, 4, 3], [49, 19, 39], [20, 2, 20], [0, 0, 0]]
            .into_iter()
            .enumerate()
        {
            let block = if i % 2 == 0 { b(261) } else { Block::AIR };
            w.set_block(p, block).expect("set");
            let c = p.map(|v| v as u32 / 10);
            let changed = update_levels(&w, &mut levels, &[c]).expect("update");
            assert!(changed.iter().all(|l| l.len() <= 1), "{changed:?}");
            let again = build_levels(&w, 3).expect("again");
            for (a, b) in levels.iter().zip(&again) {
                let mut x: Vec<_> = a.non_empty_chunks().collect();
                let mut y: Vec<_> = b.non_empty_chunks().collect();
                x.sort_by_key(|c| c.0);
                y.sort_by_key(|c| c.0);
                assert_eq!(x, y);
            }
        }
    }

    #[test]
    fn a_strict_check_names_level_chunks_a_writer_left_stale() {
        let mut w = World::with_chunk_dims([4, 1, 4]).expect("world");
        w.fill_box([0, 0, 0], [39, 2, 39], b(35)).expect("fill");
        let mut levels = build_levels(&w, 2).expect("levels");
        let how = (crate::Codec::Auto, 3, crate::PageForm::Compact);
        let info = crate::CommitInfo::default();
        let good = crate::v3::full_file(&w, &levels, how, 1, &info);
        let (_, odd) = crate::read_world_checked(&good).expect("read");
        assert!(odd.is_empty(), "{odd:?}");
        // A level the writer did not rebuild after an edit.
        levels[0].set_block([3, 5, 3], b(261)).expect("set");
        let stale = crate::v3::full_file(&w, &levels, how, 1, &info);
        let (_, odd) = crate::read_world_checked(&stale).expect("read");
        let text: Vec<String> = odd.iter().map(|o| o.to_string()).collect();
        assert_eq!(text.len(), 1, "{text:?}");
        assert!(
            text[0].contains("level of detail 1, chunk [0, 0, 0]"),
            "{text:?}"
        );
    }

    #[test]
    fn pick_keeps_solids_and_breaks_ties_top_first() {
        let a = Block::AIR;
        assert_eq!(pick(&[a; 8]), a);
        assert_eq!(pick(&[a, a, a, a, a, a, a, b(5)]), b(5));
        // 4 grass on top, 4 dirt below: the top wins the tie.
        assert_eq!(
            pick(&[b(1), b(1), b(1), b(1), b(2), b(2), b(2), b(2)]),
            b(1)
        );
        // 3 dirt beat 2 grass.
        assert_eq!(pick(&[b(1), b(1), a, a, b(2), b(2), b(2), a]), b(2));
    }

    #[test]
    fn a_level_contains_the_finer_solid_and_halves_the_size() {
        let mut w = World::with_chunk_dims([3, 2, 3]).expect("world");
        for i in 0..400i32 {
            let p = [(i * 37) % 30, (i * 11) % 20, (i * 53) % 30];
            w.set_block(p, b((i % 7 + 1) as u16)).expect("set");
        }
        let l1 = build_next(&w).expect("l1");
        assert_eq!(l1.chunk_dims(), [2, 1, 2]);
        w.for_each_non_air(|p, _| {
            assert!(!l1.get_block(p.map(|v| v / 2)).is_air(), "{p:?}");
        });
        let l2 = build_level(&w, 2).expect("l2");
        l1.for_each_non_air(|p, _| assert!(!l2.get_block(p.map(|v| v / 2)).is_air()));
        assert!(build_level(&w, 0).is_err());
    }
}
