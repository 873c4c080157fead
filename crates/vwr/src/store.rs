//! Sparse chunk storage of a [`crate::World`]: a table of pages, each page a block of up to
//! 512 chunk slots allocated on first write.
//!
//! The table ([`crate::page_table`]) has two levels, so an empty world costs 16 bytes per
//! directory of 4096 pages (the largest world, 8.4 million pages: 32 KiB) and a written one
//! 64 KiB more per directory it writes to. The page shape adapts to the world's proportions so
//! that flat worlds (1000×100×1000 blocks) do not waste slots. Chunks live in their page's
//! slots (no box per chunk), so a lookup is two dependent loads (the directory, the page)
//! before the chunk's own fields: measured on the random `get_block` benchmark, slots in the
//! page are worth about a fifth more reads per second than a pointer per slot. A full
//! page costs 512 × `size_of::<Chunk>()` (about 56 KiB) however few chunks it holds, so in
//! worlds past [`FAST_MAX_POSITIONS`] a page starts in the Few form (only its occupied slots,
//! [`crate::page`]) and becomes full when it holds more than 32 chunks: scattered edits cost
//! memory in proportion to the chunks they made, not to the pages they fell in.
//!
//! Worlds of at most [`FAST_MAX_POSITIONS`] chunk positions (every v2 world up to 64³ chunks,
//! and a 1280×100×1280-block v3 world) also keep a [`FastTable`]: one word per chunk position
//! (8 bytes: 2 MiB at most) that answers a read of a uniform or absent chunk by itself and of
//! any other chunk with the address of its direct copy (8-bit chunks) or of the chunk itself,
//! so random `get_block` does not walk page and slot. Larger worlds read through the pages.

use crate::block::Block;
use crate::chunk::{local_index, Chunk, CHUNK_SIZE};
use crate::fast::FastTable;
use crate::page::{Page, Slot, PAGE_SLOTS};
use crate::page_table::PageTable;

/// log2 of the slots in a full page.
const PAGE_BITS: u32 = 9;
const _: () = assert!(1 << PAGE_BITS == PAGE_SLOTS);

/// Largest world (in chunk positions) that keeps a [`FastTable`]: 2 MiB of table at most.
const FAST_MAX_POSITIONS: u64 = 1 << 18;

#[derive(Debug)]
pub(crate) struct ChunkStore {
    dims: [u32; 3],
    /// log2 of the page edge on each axis.
    shift: [u32; 3],
    /// Pages per axis.
    pages_per_axis: [u32; 3],
    pages: PageTable,
    fast: FastTable,
    cells: CellIndex,
}

impl Clone for ChunkStore {
    fn clone(&self) -> ChunkStore {
        let mut c = ChunkStore {
            dims: self.dims,
            shift: self.shift,
            pages_per_axis: self.pages_per_axis,
            pages: self.pages.clone(),
            fast: FastTable::default(),
            cells: self.cells.clone(),
        };
        c.build_fast();
        c
    }
}

impl ChunkStore {
    pub(crate) fn new(dims: [u32; 3]) -> ChunkStore {
        // Give page bits to the axis with the most pages left, up to 2^PAGE_BITS slots.
        let mut shift = [0u32; 3];
        for _ in 0..PAGE_BITS {
            let left = |k: usize| dims[k].div_ceil(1 << shift[k]);
            let k = (0..3)
                .max_by_key(|&k| (left(k), std::cmp::Reverse(k)))
                .unwrap_or(0);
            if left(k) <= 1 {
                break;
            }
            shift[k] += 1;
        }
        let pages_per_axis = [0, 1, 2].map(|k| dims[k].div_ceil(1 << shift[k]));
        let count = pages_per_axis
            .iter()
            .map(|&p| p as usize)
            .product::<usize>();
        let pages = PageTable::new(count);
        let mut store = ChunkStore {
            dims,
            shift,
            pages_per_axis,
            pages,
            fast: FastTable::default(),
            cells: CellIndex::for_fast_table(dims),
        };
        store.build_fast();
        store
    }

    /// Fills the fast table from the slots (none for worlds past [`FAST_MAX_POSITIONS`]).
    fn build_fast(&mut self) {
        let positions = self.dims.iter().map(|&d| d as u64).product::<u64>();
        let mut fast = FastTable::default();
        if positions <= FAST_MAX_POSITIONS {
            fast = FastTable::all_air(positions as usize);
            for (pos, chunk) in self.iter() {
                fast.set(self.linear(pos) as usize, Some(chunk));
            }
        }
        self.fast = fast;
    }

    /// Recomputes the fast-table words of the positions lent mutably since the last call.
    pub(crate) fn settle(&mut self) {
        // The table is taken out so that the chunks can be borrowed while their words are set.
        let mut fast = std::mem::take(&mut self.fast);
        while let Some(linear) = fast.next_pending() {
            fast.set(linear, self.get(delinear(self.dims, linear as u32)));
        }
        self.fast = fast;
    }

    #[cfg(test)]
    fn page_len(&self) -> usize {
        1 << (self.shift[0] + self.shift[1] + self.shift[2])
    }

    /// (page number, slot in page) of an in-range chunk position.
    #[inline]
    fn locate(&self, c: [u32; 3]) -> (usize, usize) {
        let [sx, sy, sz] = self.shift;
        let p = [c[0] >> sx, c[1] >> sy, c[2] >> sz];
        let page = p[0] as usize
            + self.pages_per_axis[0] as usize
                * (p[1] as usize + self.pages_per_axis[1] as usize * p[2] as usize);
        let m = |v: u32, s: u32| (v & ((1 << s) - 1)) as usize;
        let slot = m(c[0], sx) | (m(c[1], sy) << sx) | (m(c[2], sz) << (sx + sy));
        (page, slot)
    }

    /// Position of (page, slot); may lie outside the world for partial pages.
    fn position(&self, page: usize, slot: usize) -> [u32; 3] {
        let [ppx, ppy, _] = self.pages_per_axis.map(|v| v as usize);
        let p = [page % ppx, (page / ppx) % ppy, page / (ppx * ppy)];
        let [sx, sy, sz] = self.shift;
        let l = [
            slot & ((1 << sx) - 1),
            (slot >> sx) & ((1 << sy) - 1),
            (slot >> (sx + sy)) & ((1 << sz) - 1),
        ];
        [
            ((p[0] << sx) | l[0]) as u32,
            ((p[1] << sy) | l[1]) as u32,
            ((p[2] << sz) | l[2]) as u32,
        ]
    }

    /// The chunk at an in-range position (the caller checked the bounds).
    #[inline]
    pub(crate) fn get(&self, c: [u32; 3]) -> Option<&Chunk> {
        let (page, slot) = self.locate(c);
        // SAFETY-free fast path: `locate` of an in-range position is always in range, so the
        // bounds checks below never fail; they stay for memory safety.
        self.pages.get(page).and_then(|p| p.get(slot))
    }

    /// The block at block position `p`; air outside the world or where no chunk is allocated.
    #[inline]
    pub(crate) fn block(&self, p: [u32; 3]) -> Block {
        let Some((linear, i)) = self.cells.locate(p) else {
            return self.block_unindexed(p);
        };
        match self.fast.block(linear, i) {
            Some(b) => b,
            // Three scalars, not an array: an array argument goes through memory, and the
            // stores to set it up cost every read, not just this rare one.
            None => self.block_slow(p[0], p[1], p[2]),
        }
    }

    /// [`ChunkStore::block`] where the cell index has no answer: outside the world, or in a
    /// world too large for a fast table (and so for a cell index).
    #[cold]
    #[inline(never)]
    fn block_unindexed(&self, p: [u32; 3]) -> Block {
        let c = CHUNK_SIZE as u32;
        match (0..3).all(|a| p[a] / c < self.dims[a]) {
            true => self.block_slow(p[0], p[1], p[2]),
            false => Block::AIR,
        }
    }

    /// [`ChunkStore::block`] through the pages, for what the fast table does not answer.
    #[cold]
    #[inline(never)]
    fn block_slow(&self, x: u32, y: u32, z: u32) -> Block {
        let c = CHUNK_SIZE as u32;
        let i = local_index((x % c) as usize, (y % c) as usize, (z % c) as usize);
        match self.get([x / c, y / c, z / c]) {
            Some(ch) => ch.get(i),
            None => Block::AIR,
        }
    }

    /// Calls `f` with the slot of an in-range position (allocating its page) and brings its
    /// fast-table word up to date before returning: what single-chunk changes use.
    #[inline]
    pub(crate) fn update<R>(&mut self, c: [u32; 3], f: impl FnOnce(&mut Slot) -> R) -> R {
        self.settle();
        let linear = self.linear(c) as usize;
        let (page, slot) = self.locate(c);
        let few = self.few_pages();
        let slot = Self::page(&mut self.pages, page, few).slot_mut(slot);
        // Zeroed first, so that a panic in `f` leaves no stale address behind.
        self.fast.clear(linear);
        let r = f(slot);
        self.fast.set(linear, slot.as_ref());
        r
    }

    /// The slot of an in-range position, allocating its page. Its fast-table word is recomputed
    /// by the next [`ChunkStore::settle`] (which every other mutable access runs first).
    pub(crate) fn slot_mut(&mut self, c: [u32; 3]) -> &mut Slot {
        self.settle();
        self.fast.lend(self.linear(c) as usize);
        let (page, slot) = self.locate(c);
        let few = self.few_pages();
        Self::page(&mut self.pages, page, few).slot_mut(slot)
    }

    /// Whether new pages start Few (see [`crate::page`]): only where no fast table holds
    /// chunk addresses, since a Few page moves its chunks.
    fn few_pages(&self) -> bool {
        self.dims.iter().map(|&d| d as u64).product::<u64>() > FAST_MAX_POSITIONS
    }

    /// A page, allocated on first use.
    fn page(pages: &mut PageTable, page: usize, few: bool) -> &mut Page {
        pages.get_or_insert_with(page, || Page::new(few))
    }

    /// The slot of an in-range position if its page exists.
    pub(crate) fn existing_slot_mut(&mut self, c: [u32; 3]) -> Option<&mut Slot> {
        self.settle();
        self.fast.lend(self.linear(c) as usize);
        let (page, slot) = self.locate(c);
        self.pages.get_mut(page).and_then(|p| p.existing_mut(slot))
    }

    /// Every allocated chunk with its position, in file order (x fastest, then y, then z).
    ///
    /// Layer by layer of pages (one page high along z): the layer's allocated pages are found
    /// by one look at each of its page-table entries, then the layer's chunk rows (z, then y)
    /// that cross one of them are walked along those pages' in-world slots only. File order
    /// comes out directly, with no sort, no visit of the slots partial pages hold past the
    /// world's edge, and a huge, nearly empty world costs a pass over its page table, not over
    /// every row of chunk positions.
    pub(crate) fn iter(&self) -> impl Iterator<Item = ([u32; 3], &Chunk)> + '_ {
        let [ex, ey, ez] = self.shift.map(|s| 1u32 << s);
        let [ppx, ppy, ppz] = self.pages_per_axis.map(|v| v as usize);
        let mut all = Vec::new();
        // The layer's allocated pages, (page y, page x, page), in table order.
        let mut live: Vec<(u32, u32, &Page)> = Vec::new();
        for pz in 0..ppz {
            live.clear();
            let first = pz * ppx * ppy;
            for (i, page) in self.pages.range(first, first + ppx * ppy) {
                let i = i - first;
                live.push(((i / ppx) as u32, (i % ppx) as u32, page));
            }
            if live.is_empty() {
                continue;
            }
            let z0 = pz as u32 * ez;
            for z in z0..self.dims[2].min(z0 + ez) {
                for group in live.chunk_by(|a, b| a.0 == b.0) {
                    let y0 = group[0].0 * ey;
                    for y in y0..self.dims[1].min(y0 + ey) {
                        for &(_, px, page) in group {
                            let x0 = px * ex;
                            let (_, in_page) = self.locate([x0, y, z]);
                            let len = (self.dims[0].min(x0 + ex) - x0) as usize;
                            for (s, c) in page.range(in_page, in_page + len) {
                                all.push(([x0 + (s - in_page) as u32, y, z], c));
                            }
                        }
                    }
                }
            }
        }
        all.into_iter()
    }

    /// Mutable iteration over allocated chunks, in file order.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = ([u32; 3], &mut Chunk)> + '_ {
        self.settle();
        let mut all: Vec<(u64, [u32; 3], &mut Chunk)> = Vec::new();
        let shape = ChunkStore {
            dims: self.dims,
            shift: self.shift,
            pages_per_axis: self.pages_per_axis,
            pages: PageTable::default(),
            fast: FastTable::default(),
            cells: CellIndex::default(),
        };
        for (pi, page) in self.pages.iter_mut() {
            for (si, c) in page.chunks_mut() {
                let pos = shape.position(pi, si);
                let linear = shape.linear(pos);
                self.fast.lend(linear as usize);
                all.push((linear, pos, c));
            }
        }
        all.sort_unstable_by_key(|e| e.0);
        all.into_iter().map(|(_, p, c)| (p, c))
    }

    /// Calls `f` on every allocated slot (any order); a slot set to `None` is freed.
    pub(crate) fn retain_mut(&mut self, mut f: impl FnMut(&mut Chunk) -> bool) {
        // No table while slots change and pages are freed (a panic in `f` leaves none behind).
        self.fast = FastTable::default();
        self.pages.retain(|p| p.retain(&mut f));
        self.build_fast();
    }

    /// File-order index of a chunk position.
    #[inline]
    pub(crate) fn linear(&self, c: [u32; 3]) -> u64 {
        let [dx, dy, _] = self.dims.map(u64::from);
        c[0] as u64 + dx * (c[1] as u64 + dy * c[2] as u64)
    }

    /// Whether every position's fast-table word answers without the pages (nothing pending,
    /// no zero word): what a world left by any of its own methods should hold.
    #[cfg(test)]
    pub(crate) fn settled(&self) -> bool {
        self.fast.settled()
    }

    /// Bytes held by the page table and allocated pages (not the chunks themselves).
    #[cfg(test)]
    pub(crate) fn overhead_bytes(&self) -> usize {
        self.pages.bytes()
    }
}

impl PartialEq for ChunkStore {
    /// Same chunks at the same positions; an absent chunk equals a fresh one.
    fn eq(&self, other: &ChunkStore) -> bool {
        if self.dims != other.dims {
            return false;
        }
        let fresh = Chunk::new();
        let a: Vec<_> = self.iter().filter(|(_, c)| **c != fresh).collect();
        let b: Vec<_> = other.iter().filter(|(_, c)| **c != fresh).collect();
        a == b
    }
}

/// Per-axis tables that turn a block position into (file-order chunk index, cell index) with
/// three loads and two adds, bounds check included: entry `v` of axis `k` holds
/// `(v / 10) · stride[k]` in its low 32 bits and `(v % 10) · 10^k` above, where `stride` is
/// `[1, X, X·Y]`. Neither half of a sum of three entries carries into the other (chunk indices
/// fit `u32`, cell indices are below 1000).
///
/// The divisions, remainders and products this replaces, and the array argument of the slow
/// path (passed through memory), made the read loop of random `get_block` over the full 8-bit
/// world 55 instructions long instead of 30; measured in one run, reads went from 137 to
/// 200 M/s in a plain loop and from 143 to 160 M/s in the criterion benchmark (whose heap
/// leaves the cells of the chunks further apart).
#[derive(Clone, Debug, Default)]
struct CellIndex {
    axes: [Box<[u64]>; 3],
}

impl CellIndex {
    /// [`CellIndex::new`] for a world that keeps a fast table (at most [`FAST_MAX_POSITIONS`]
    /// chunk positions); none (every `locate` answering `None`) for a larger world, whose reads
    /// go through the pages anyway: its tables would be sized by the world (10 MB for the
    /// largest), not by what it holds.
    fn for_fast_table(dims: [u32; 3]) -> CellIndex {
        match dims.iter().map(|&d| d as u64).product::<u64>() <= FAST_MAX_POSITIONS {
            true => CellIndex::new(dims),
            false => CellIndex::default(),
        }
    }

    /// Tables for a world of `dims` chunks per axis: `8 · 10 · (X + Y + Z)` bytes.
    fn new(dims: [u32; 3]) -> CellIndex {
        let c = CHUNK_SIZE as u64;
        let stride = [1, dims[0] as u64, dims[0] as u64 * dims[1] as u64];
        let axes = [0, 1, 2].map(|k| {
            let cell_stride = c.pow(k as u32);
            (0..dims[k] as u64 * c)
                .map(|v| ((v / c) * stride[k]) | (((v % c) * cell_stride) << 32))
                .collect()
        });
        CellIndex { axes }
    }

    /// (file-order chunk index, cell index) of block position `p`, `None` outside the world.
    #[inline(always)]
    fn locate(&self, p: [u32; 3]) -> Option<(usize, usize)> {
        let [a, b, c] = &self.axes;
        let s = a.get(p[0] as usize)? + b.get(p[1] as usize)? + c.get(p[2] as usize)?;
        Some((s as u32 as usize, (s >> 32) as usize))
    }
}

/// The chunk index of chunk position `p` in a grid of `dims` chunks: x fastest, then y, then z
/// (v2's file order and v3's `chunkIndex`, vwr-v3.md §4).
pub(crate) fn linear(dims: [u32; 3], p: [u32; 3]) -> u32 {
    (p[0] as u64 + dims[0] as u64 * (p[1] as u64 + dims[1] as u64 * p[2] as u64)) as u32
}

/// The chunk position of chunk index `i` in a grid of `dims` chunks (inverse of [`linear`]).
pub(crate) fn delinear(dims: [u32; 3], i: u32) -> [u32; 3] {
    let (dx, dy) = (dims[0], dims[1]);
    [i % dx, (i / dx) % dy, i / (dx * dy)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_shapes_fit_the_world() {
        for dims in [
            [1, 1, 1],
            [10, 10, 10],
            [255, 255, 255],
            [100, 10, 100],
            [65535, 1, 3],
        ] {
            let s = ChunkStore::new(dims);
            for (k, &d) in dims.iter().enumerate() {
                assert!(s.pages_per_axis[k] << s.shift[k] >= d);
            }
            assert!(s.page_len() <= 1 << PAGE_BITS);
        }
        // An empty 255³ world: 32768 page pointers (16 bytes each).
        assert!(ChunkStore::new([255; 3]).overhead_bytes() <= 512 * 1024);
        // Flat worlds get flat pages.
        let flat = ChunkStore::new([100, 10, 100]);
        assert!(flat.shift[1] <= 4 && flat.shift[0] >= 4);
    }

    proptest::proptest! {
        /// `iter` walks rows of pages; the order must be file order (the positions sorted by
        /// their linear index), whatever the world's and the pages' shapes, in small worlds
        /// and in large ones whose pages span many directories of the page table.
        #[test]
        fn iter_is_in_file_order(
            dims in proptest::prop_oneof![
                (1u32..40, 1u32..12, 1u32..40),
                (1u32..=65535, 1u32..12, 1u32..=65535),
            ],
            picks in proptest::collection::vec(
                (proptest::num::u32::ANY, 0u32..12, proptest::num::u32::ANY),
                0..60,
            ),
        ) {
            let dims = [dims.0, dims.1, dims.2];
            let mut s = ChunkStore::new(dims);
            let mut want = Vec::new();
            for (x, y, z) in picks {
                let c = [x % dims[0], y % dims[1], z % dims[2]];
                if s.get(c).is_none() {
                    *s.slot_mut(c) = Some(Chunk::new());
                    want.push(c);
                }
            }
            want.sort_by_key(|&c| s.linear(c));
            let got: Vec<_> = s.iter().map(|(c, _)| c).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn cell_index_locates_every_block_and_nothing_outside() {
        for dims in [[1, 1, 1], [3, 5, 2], [7, 1, 4]] {
            let s = ChunkStore::new(dims);
            let b = dims.map(|d| d * CHUNK_SIZE as u32);
            for z in 0..b[2] + 2 {
                for y in 0..b[1] + 2 {
                    for x in 0..b[0] + 2 {
                        let p = [x, y, z];
                        let want = (x < b[0] && y < b[1] && z < b[2]).then(|| {
                            let c = p.map(|v| v / CHUNK_SIZE as u32);
                            let l = p.map(|v| (v % CHUNK_SIZE as u32) as usize);
                            (s.linear(c) as usize, local_index(l[0], l[1], l[2]))
                        });
                        assert_eq!(s.cells.locate(p), want, "{p:?} in {dims:?}");
                    }
                }
            }
        }
        // The largest axis and the largest chunk count: no carry between the halves.
        let cells = CellIndex::new([65535, 1, 65535]);
        let last = [655_349, 9, 655_349];
        assert_eq!(
            cells.locate(last),
            Some(((65535u64 * 65535 - 1) as usize, 999))
        );
        for bad in [u32::MAX, i32::MIN as u32, 655_350] {
            assert_eq!(cells.locate([bad, 0, 0]), None);
            assert_eq!(cells.locate([0, 0, bad]), None);
        }
        assert_eq!(cells.locate([0, 10, 0]), None);
    }

    /// A world too large for a fast table keeps no cell index, and reads through its pages
    /// what lies inside it, air outside.
    #[test]
    fn a_world_past_the_fast_table_reads_without_a_cell_index() {
        let mut s = ChunkStore::new([65535, 1, 65535]);
        assert!(s.cells.axes.iter().all(|a| a.is_empty()));
        let mut c = Chunk::new();
        c.set(999, Block::from_raw(7)).unwrap();
        *s.slot_mut([65534, 0, 65534]) = Some(c);
        s.settle();
        assert_eq!(s.block([655_349, 9, 655_349]).raw(), 7);
        assert_eq!(s.block([655_348, 9, 655_349]), Block::AIR);
        for bad in [[655_350, 0, 0], [0, 10, 0], [0, 0, u32::MAX]] {
            assert_eq!(s.block(bad), Block::AIR, "{bad:?}");
        }
        // The whole store of that world, empty: its page table's directories, no more.
        assert!(ChunkStore::new([65535, 1, 65535]).overhead_bytes() <= 64 * 1024);
    }

    #[test]
    fn position_inverts_locate() {
        let s = ChunkStore::new([37, 5, 70]);
        for z in 0..70 {
            for y in 0..5 {
                for x in 0..37 {
                    let (p, sl) = s.locate([x, y, z]);
                    assert_eq!(s.position(p, sl), [x, y, z]);
                }
            }
        }
    }
}
