//! Whole-world meshing's gather: every chunk classified once into a 1000-bit opaque bitset,
//! then each chunk's padded occupancy rows assembled from its own and its 26 neighbours'
//! bitsets with a few hundred bit-window reads.
//!
//! [`Neighborhood::gather`] reads a chunk's neighbours from their packed words every time, so
//! meshing a whole world that way decodes every chunk 27 times (once whole, 26 times in
//! slabs). Here each chunk's packed words are decoded once, with compile-time shifts, straight
//! into opaque bits (one palette lookup per cell, no block values written), and the meshers'
//! occupancy rows are bit windows of those sets. Block values are needed only for the faces
//! that show: the neighbourhood keeps a copy of the centre chunk's packed words and palette
//! and reads them per visible face. Chunks holding transparent or special cells take the full
//! [`Neighborhood::gather`] instead (their passes read block values across the border).

use std::sync::OnceLock;

use vwr::{Chunk, World, CHUNK_VOLUME};
use vwr_blocks::{Registry, CLASS_NONE, CLASS_OPAQUE, CLASS_TRANSPARENT};

use super::neighbourhood::Neighborhood;
use super::N;

/// Words of a chunk's opaque bitset: 1000 bits, plus one zero word so a 10-bit window never
/// reads past the end.
const SET_WORDS: usize = CHUNK_VOLUME.div_ceil(64) + 1;

/// One chunk, classified once.
#[derive(Clone, Debug)]
pub(crate) struct ChunkClass {
    /// Opaque cells by row: `rows[y + 10 z]` bit x.
    rows: [u16; N * N],
    /// Some cell is transparent or special (their passes need the full neighbourhood).
    pub(crate) other: bool,
    /// Some cell draws something.
    pub(crate) visible: bool,
    /// Every cell is opaque.
    pub(crate) full: bool,
    /// The block value of every opaque cell, when the palette has exactly one opaque entry.
    opaque_value: Option<u16>,
}

impl ChunkClass {
    /// The class of a chunk with no cell (before [`ChunkClass::classify`]).
    const NONE: ChunkClass = ChunkClass {
        rows: [0; N * N],
        other: false,
        visible: false,
        full: false,
        opaque_value: None,
    };

    fn of(chunk: &Chunk, registry: &Registry) -> ChunkClass {
        let mut class = ChunkClass::NONE;
        class.classify(chunk, registry);
        class
    }

    /// Classifies `chunk` into `self`, in place: a class returned by value was copied into
    /// its list (a measurable share of meshing a sparse world).
    fn classify(&mut self, chunk: &Chunk, registry: &Registry) {
        let table = registry.class_table();
        let palette = chunk.palette();
        let class = self;
        // Every path below sets the rows; the flags are reset here.
        (class.other, class.visible, class.full) = (false, false, false);
        class.opaque_value = None;
        // Each palette entry classified once.
        let mut opaque = [0u8; 256];
        for (k, b) in palette.iter().enumerate() {
            let c = table[(b.raw() >> 4) as usize];
            opaque[k] = (c == CLASS_OPAQUE) as u8;
            class.other |= c >= CLASS_TRANSPARENT;
            class.visible |= c != CLASS_NONE;
        }
        let opaque_entries = &opaque[..palette.len()];
        if opaque_entries.iter().all(|&o| o == 0) {
            class.rows = NO_ROWS;
            return;
        }
        let mut opaque_raws = palette.iter().zip(opaque_entries).filter(|(_, &o)| o == 1);
        if let (Some((b, _)), None) = (opaque_raws.next(), opaque_raws.next()) {
            class.opaque_value = Some(b.raw());
        }
        // Every entry opaque (one, or stone and dirt underground): every cell is, so no
        // cell needs decoding.
        if opaque_entries.iter().all(|&o| o == 1) {
            class.rows = [FULL_ROW; N * N];
            class.full = true;
            return;
        }
        let words = chunk.words();
        // The palette indices that are not opaque.
        let mut clear_at = [0u64; MAX_CLEAR];
        let mut n_clear = 0;
        for (k, _) in opaque_entries.iter().enumerate().filter(|(_, &o)| o == 0) {
            if let Some(c) = clear_at.get_mut(n_clear) {
                *c = k as u64;
            }
            n_clear += 1;
        }
        let clear = &clear_at[..n_clear.min(MAX_CLEAR)];
        // Bit `i` set where cell `i` (linear index, x fastest) is opaque.
        let mut opaque_set = [0u64; SET_WORDS];
        let set = &mut opaque_set;
        match chunk.bits_per_block() {
            1 => {
                // One bit per cell: the words are the set (or its complement).
                let (o0, o1) = (opaque[0] as u64, opaque[1] as u64);
                for (d, &w) in set.iter_mut().zip(words) {
                    *d = (w & (0u64.wrapping_sub(o1))) | (!w & (0u64.wrapping_sub(o0)));
                }
                set[SET_WORDS - 2] &= (1u64 << (CHUNK_VOLUME % 64)) - 1;
            }
            // Few entries that are not opaque (air, typically): compare whole words.
            2 if n_clear <= MAX_CLEAR => opaque_bits_aligned::<2>(words, clear, set),
            4 if n_clear <= MAX_CLEAR => opaque_bits_aligned::<4>(words, clear, set),
            8 if n_clear <= MAX_CLEAR => opaque_bits_aligned::<8>(words, clear, set),
            3 if n_clear <= MAX_CLEAR => opaque_bits_swar::<3>(words, clear, set),
            5 if n_clear <= MAX_CLEAR => opaque_bits_swar::<5>(words, clear, set),
            6 if n_clear <= MAX_CLEAR => opaque_bits_swar::<6>(words, clear, set),
            7 if n_clear <= MAX_CLEAR => opaque_bits_swar::<7>(words, clear, set),
            2 => opaque_bits::<2>(words, &opaque, set),
            3 => opaque_bits::<3>(words, &opaque, set),
            4 => opaque_bits::<4>(words, &opaque, set),
            5 => opaque_bits::<5>(words, &opaque, set),
            6 => opaque_bits::<6>(words, &opaque, set),
            7 => opaque_bits::<7>(words, &opaque, set),
            _ => opaque_bits::<8>(words, &opaque, set),
        }
        // Every cell's bit set: whole words of ones, then the last cells' bits (compared, not
        // counted: this target has no popcount instruction).
        let (whole, tail) = (CHUNK_VOLUME / 64, CHUNK_VOLUME % 64);
        class.full = set[..whole].iter().all(|&w| w == u64::MAX) && set[whole] == (1 << tail) - 1;
        // The rows are consecutive 10-bit fields of the set: four at a time from one 40-bit
        // window, each window read on its own (no chain of dependent shifts between them),
        // spread into four 16-bit lanes.
        for (k, rows) in class.rows.chunks_exact_mut(4).enumerate() {
            let i = 4 * N * k;
            let (w, off) = (i / 64, i % 64);
            // `off` < 64, so the second shift is by 1..=64 bits: split it to stay below 64.
            let v = (set[w] >> off) | ((set[w + 1] << 1) << (63 - off));
            if v & ((1 << (4 * N)) - 1) == 0 {
                // Four rows of air (most of a sparse level's chunk).
                rows.fill(0);
                continue;
            }
            let f = FULL_ROW as u64;
            let lanes = (v & f)
                | ((v << 6) & (f << 16))
                | ((v << 12) & (f << 32))
                | ((v << 18) & (f << 48));
            for (j, row) in rows.iter_mut().enumerate() {
                *row = (lanes >> (16 * j)) as u16;
            }
        }
    }
}

/// A row of 10 opaque cells.
const FULL_ROW: u16 = (1 << N) - 1;
/// The rows of a chunk with no opaque cell (or of no chunk).
static NO_ROWS: [u16; N * N] = [0; N * N];

/// Most non-opaque palette entries [`opaque_bits_aligned`] and [`opaque_bits_swar`] take;
/// past that the per-cell table lookup of [`opaque_bits`] is cheaper.
const MAX_CLEAR: usize = 3;

/// [`opaque_bits`] for `B` in {2, 4, 8}, where no index straddles two words: per word, the
/// fields equal to each index in `clear` (the palette entries that are not opaque) are
/// found with word-wide compares, and the complement's field flags are packed into
/// consecutive bits. A decoded chunk's indices are always inside its palette, so a field
/// equal to no `clear` index is an opaque entry.
#[inline(always)]
fn opaque_bits_aligned<const B: usize>(words: &[u64], clear: &[u64], set: &mut [u64; SET_WORDS]) {
    // Bit 0 of every field.
    let low = const { fields_of::<B>(1) };
    let per = 64 / B;
    let cells = CHUNK_VOLUME.div_ceil(per);
    let word_flags = |w: u64| {
        let mut not_opaque = 0u64;
        for &k in clear {
            not_opaque |= !nonzero_fields::<B>(w ^ k.wrapping_mul(low)) & low;
        }
        compress_fields::<B>(!not_opaque & low)
    };
    // A word of index 0 (air, in most chunks' palettes) has no opaque cell: the words of
    // the air around a sparse level's few blocks are skipped.
    let skip_zero = word_flags(0) == 0;
    for (i, &w) in words.iter().enumerate().take(cells) {
        if skip_zero && w == 0 {
            continue;
        }
        let flags = word_flags(w);
        let bit = i * per;
        set[bit / 64] |= flags << (bit % 64);
    }
    // Fields past the last cell are zero-filled padding, not cells.
    set[SET_WORDS - 2] &= (1u64 << (CHUNK_VOLUME % 64)) - 1;
    set[SET_WORDS - 1] = 0;
}

/// Bit 0 of each `B`-bit field of the result is set where that field of `x` is not zero (the
/// other bits are garbage): with `x = v ^ k·low`, clear exactly where a field of `v` is `k`.
#[inline(always)]
fn nonzero_fields<const B: usize>(x: u64) -> u64 {
    if B <= 3 {
        // Each shift stays inside the field: bit 0 gathers bits 0..B of its own field.
        let mut t = x;
        for shift in 1..B {
            t |= x >> shift;
        }
        t
    } else {
        // Wider fields in four steps whatever the width: adding all-ones to a field's low
        // B − 1 bits carries into its top bit exactly when one of them is set, and never out
        // of the field; or-ing the field's own top bit in and moving it down gives the flag.
        let low_bits = const { fields_of::<B>((1 << (B - 1)) - 1) };
        ((x & low_bits).wrapping_add(low_bits) | x) >> (B - 1)
    }
}

/// `v` repeated in every whole `B`-bit field of a word.
const fn fields_of<const B: usize>(v: u64) -> u64 {
    let mut r = 0;
    let mut i = 0;
    while i + B <= 64 {
        r |= v << i;
        i += B;
    }
    r
}

/// Packs bit 0 of each `B`-bit field of `x` (the other bits clear) into the low `64 / B`
/// bits, in order.
#[inline(always)]
fn compress_fields<const B: usize>(mut x: u64) -> u64 {
    match B {
        2 => {
            x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
            x = (x | (x >> 2)) & 0x0f0f_0f0f_0f0f_0f0f;
            x = (x | (x >> 4)) & 0x00ff_00ff_00ff_00ff;
            x = (x | (x >> 8)) & 0x0000_ffff_0000_ffff;
            (x | (x >> 16)) & 0xffff_ffff
        }
        4 => {
            x = (x | (x >> 3)) & 0x0303_0303_0303_0303;
            x = (x | (x >> 6)) & 0x000f_000f_000f_000f;
            x = (x | (x >> 12)) & 0x0000_00ff_0000_00ff;
            (x | (x >> 24)) & 0xffff
        }
        _ => {
            x = (x | (x >> 7)) & 0x0003_0003_0003_0003;
            x = (x | (x >> 14)) & 0x0000_000f_0000_000f;
            (x | (x >> 28)) & 0xff
        }
    }
}

/// [`opaque_bits`] for the widths whose indices straddle words (3, 5, 6, 7), with few
/// entries that are not opaque: the eight `B`-bit fields of each byte-aligned window are
/// compared with each index in `clear` at once, and their eight flags (one every `B` bits)
/// are gathered into a byte in three shift-and-mask steps.
#[inline(always)]
fn opaque_bits_swar<const B: usize>(words: &[u64], clear: &[u64], set: &mut [u64; SET_WORDS]) {
    // Bit 0 of each of the eight fields.
    let low: u64 = (0..8).fold(0, |a, i| a | 1 << (i * B));
    // The flags at bits 2jB and 2jB + 1 after pairing, then 4jB..4jB + 4, then 0..8.
    let keep1: u64 = (0..4).fold(0, |a, j| a | 3 << (2 * j * B));
    let keep2: u64 = (0..2).fold(0, |a, j| a | 15 << (4 * j * B));
    by_windows::<B>(words, set, |v| {
        let mut not_opaque = 0u64;
        for &k in clear {
            not_opaque |= !nonzero_fields::<B>(v ^ k.wrapping_mul(low)) & low;
        }
        let f = !not_opaque & low;
        let f = (f | (f >> (B - 1))) & keep1;
        let f = (f | (f >> (2 * B - 2))) & keep2;
        ((f | (f >> (4 * B - 4))) & 0xff) as u8
    });
}

/// Decodes 1000 indices of `B` bits and sets bit `i` of `set` where `opaque[index]` is 1,
/// taking the eight fields of each window with compile-time shifts.
#[inline(always)]
fn opaque_bits<const B: usize>(words: &[u64], opaque: &[u8; 256], set: &mut [u64; SET_WORDS]) {
    let mask = (1u64 << B) - 1;
    by_windows::<B>(words, set, |v| {
        let mut b = 0u8;
        for k in 0..8 {
            b |= opaque[((v >> (k * B)) & mask) as usize] << k;
        }
        b
    });
}

/// Byte `j` of `set` is `flags` of window `j`: eight values of `B` bits start on a byte
/// boundary (bit `8·B·j`), so each window is one unaligned little-endian `u64` read from the
/// words' bytes, holding those eight fields in its low `8·B` bits.
#[inline(always)]
fn by_windows<const B: usize>(
    words: &[u64],
    set: &mut [u64; SET_WORDS],
    flags: impl Fn(u64) -> u8,
) {
    // The words as bytes, with 8 spare zero bytes for the last unaligned read.
    let mut bytes = [0u8; 8 * (CHUNK_VOLUME * 8 / 64) + 8];
    for (d, w) in bytes.chunks_exact_mut(8).zip(words) {
        d.copy_from_slice(&w.to_le_bytes());
    }
    let mut out = [0u8; SET_WORDS * 8];
    // The window's eight fields; above them, the next window's.
    let fields = u64::MAX >> (64 - 8 * B);
    // Eight cells of index 0 (air, in most chunks' palettes) are not compared: the air
    // around a sparse level's few blocks costs a test per window.
    let zero = flags(0);
    for (j, o) in out.iter_mut().enumerate().take(CHUNK_VOLUME / 8) {
        let at = j * B;
        let mut v = [0u8; 8];
        v.copy_from_slice(&bytes[at..at + 8]);
        let v = u64::from_le_bytes(v) & fields;
        *o = if v == 0 { zero } else { flags(v) };
    }
    for (d, c) in set.iter_mut().zip(out.chunks_exact(8)) {
        *d = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    }
}

/// Where a [`WorldClasses`] keeps a chunk's class: in place ([`ChunkClass`], when one thread
/// classifies every chunk before any is read), or in a cell that any thread sets once
/// (`OnceLock`, when threads share the classification; a class reads as absent until set).
pub(crate) trait ClassSlot: Sync {
    /// The class, when there is one yet.
    fn class(&self) -> Option<&ChunkClass>;
}

impl ClassSlot for ChunkClass {
    #[inline]
    fn class(&self) -> Option<&ChunkClass> {
        Some(self)
    }
}

impl ClassSlot for OnceLock<ChunkClass> {
    #[inline]
    fn class(&self) -> Option<&ChunkClass> {
        self.get()
    }
}

/// Chunk position (file-order index) → index of the chunk in the list of allocated chunks.
///
/// A table of every position where it costs little next to the chunks themselves (4 bytes a
/// position: at most 4 MiB, or 16 positions per chunk); a map of the allocated chunks in sparse
/// large worlds, so that meshing an empty 655350×10×655350-block world does not allocate
/// 17 GB for its 4.3 billion positions.
#[derive(Debug)]
enum SlotIndex {
    /// Per position: the index, or `u32::MAX` when not allocated.
    Table(Vec<u32>),
    Map(std::collections::HashMap<usize, u32>),
}

impl SlotIndex {
    fn new(count: usize, positions: &[[u32; 3]], dims: [u32; 3]) -> SlotIndex {
        let slots = positions
            .iter()
            .enumerate()
            .map(|(k, &p)| (slot_of(dims, p), k as u32));
        if count <= (1 << 20).max(16 * positions.len()) {
            let mut t = vec![u32::MAX; count];
            for (s, k) in slots {
                t[s] = k;
            }
            SlotIndex::Table(t)
        } else {
            SlotIndex::Map(slots.collect())
        }
    }

    #[inline]
    fn get(&self, slot: usize) -> Option<usize> {
        match self {
            SlotIndex::Table(t) => match t.get(slot) {
                None | Some(&u32::MAX) => None,
                Some(&k) => Some(k as usize),
            },
            SlotIndex::Map(m) => m.get(&slot).map(|&k| k as usize),
        }
    }
}

/// Every allocated chunk of a world, classified once (for one meshing pass with one registry).
#[derive(Debug)]
pub(crate) struct WorldClasses<'w, S = ChunkClass> {
    dims: [u32; 3],
    /// Chunk position → index into `classes`.
    slot: SlotIndex,
    chunks: Vec<&'w Chunk>,
    classes: Vec<S>,
    /// The allocated chunks' positions, in file order.
    positions: Vec<[u32; 3]>,
}

impl<'w, S> WorldClasses<'w, S> {
    /// Lists every allocated chunk of `world`, with `classes` giving each one's slot.
    fn list_with(world: &'w World, classes: impl FnOnce(&[&'w Chunk]) -> Vec<S>) -> Self {
        let dims = world.chunk_dims();
        let mut chunks: Vec<&Chunk> = Vec::new();
        let mut positions = Vec::new();
        for (p, c) in world.chunks() {
            chunks.push(c);
            positions.push(p);
        }
        let slot = SlotIndex::new(world.chunk_count(), &positions, dims);
        WorldClasses {
            dims,
            slot,
            classes: classes(&chunks),
            chunks,
            positions,
        }
    }

    /// Number of allocated chunks.
    pub(crate) fn len(&self) -> usize {
        self.chunks.len()
    }
}

impl<'w> WorldClasses<'w> {
    /// Every allocated chunk of `world`, classified on the calling thread.
    pub(crate) fn new(world: &'w World, registry: &Registry) -> WorldClasses<'w> {
        WorldClasses::list_with(world, |chunks| {
            let mut classes = vec![ChunkClass::NONE; chunks.len()];
            for (class, c) in classes.iter_mut().zip(chunks) {
                class.classify(c, registry);
            }
            classes
        })
    }
}

impl<'w> WorldClasses<'w, OnceLock<ChunkClass>> {
    /// Lists every allocated chunk of `world`, none classified yet: threads then classify
    /// each once with [`WorldClasses::classify`].
    pub(crate) fn list(world: &'w World) -> Self {
        WorldClasses::list_with(world, |chunks| {
            std::iter::repeat_with(OnceLock::new)
                .take(chunks.len())
                .collect()
        })
    }

    /// Classifies the `k`-th allocated chunk (in file order), unless that was done already.
    pub(crate) fn classify(&self, k: usize, registry: &Registry) {
        if let (Some(c), Some(slot)) = (self.chunks.get(k), self.classes.get(k)) {
            slot.get_or_init(|| ChunkClass::of(c, registry));
        }
    }
}

impl<'w, S: ClassSlot> WorldClasses<'w, S> {
    /// The allocated chunks' positions, in file order.
    pub(crate) fn positions(&self) -> &[[u32; 3]] {
        &self.positions
    }

    /// Which allocated chunk (in file order) `p` is (wrapped coordinates from
    /// `wrapping_add_signed` fall outside).
    #[inline]
    fn index(&self, p: [u32; 3]) -> Option<usize> {
        if (0..3).any(|a| p[a] >= self.dims[a]) {
            return None;
        }
        self.slot.get(slot_of(self.dims, p))
    }

    /// The class of chunk `p`.
    #[inline]
    pub(crate) fn get(&self, p: [u32; 3]) -> Option<&ChunkClass> {
        self.classes.get(self.index(p)?)?.class()
    }

    /// Chunk `p` and its class, with one lookup.
    #[inline]
    pub(crate) fn chunk_and_class(&self, p: [u32; 3]) -> Option<(&'w Chunk, &ChunkClass)> {
        let k = self.index(p)?;
        Some((self.chunks.get(k)?, self.classes.get(k)?.class()?))
    }
}

/// The ten rows of `rows` from `src` (a whole y range of one z).
#[inline(always)]
fn row_span(rows: &[u16; N * N], src: usize) -> &[u16; N] {
    rows[src..src + N].try_into().unwrap_or(&[0; N])
}

#[inline]
fn slot_of(dims: [u32; 3], p: [u32; 3]) -> usize {
    p[0] as usize + dims[0] as usize * (p[1] as usize + dims[1] as usize * p[2] as usize)
}

impl Neighborhood {
    /// Fills the occupancy of chunk `pos` from the world's classes and keeps the centre's
    /// packed words and palette for the block values of visible faces. Only for chunks whose
    /// class has no transparent or special cell; cells are not filled (the neighbourhood is
    /// internal to whole-world meshing and only meshed).
    ///
    /// Without `edges`, only what the face test reads is filled: the twelve edge and corner
    /// rows of the padded volume are zero, and the rows beside the chunk above, below, in
    /// front and behind get no x-border bits; only ambient occlusion reads those. The six face
    /// neighbours are then the only classes looked up (the centre's comes in with its chunk),
    /// instead of all 26 neighbours.
    pub(crate) fn gather_classes<S: ClassSlot>(
        &mut self,
        classes: &WorldClasses<'_, S>,
        (chunk, class): (&Chunk, &ChunkClass),
        pos: [u32; 3],
        edges: bool,
    ) {
        self.others.clear();
        self.set_packed_centre(chunk);
        self.opaque_value = class.opaque_value;
        // Padded rows (py, pz) come in 3×3 blocks by the chunk offsets (dy, dz): per block,
        // the source row inside those chunks and the padded rows it fills.
        let spans = |d: i32| -> (usize, usize, usize) {
            match d {
                -1 => (N - 1, 1, 0),
                0 => (0, N, 1),
                _ => (0, 1, N + 1),
            }
        };
        let rows_of = |p: [u32; 3]| -> &[u16; N * N] {
            match classes.get(p) {
                Some(c) => &c.rows,
                None => &NO_ROWS,
            }
        };
        for dz in -1i32..=1 {
            for dy in -1i32..=1 {
                let (sy, ly, py) = spans(dy);
                let (sz, lz, pz) = spans(dz);
                let middle = dy == 0 && dz == 0;
                if !edges && dy != 0 && dz != 0 {
                    self.occ[pz][py] = 0;
                    continue;
                }
                let at = |dx: i32| {
                    if dx == 0 && middle {
                        return &class.rows;
                    }
                    if dx != 0 && !edges && !middle {
                        return &NO_ROWS;
                    }
                    rows_of([
                        pos[0].wrapping_add_signed(dx),
                        pos[1].wrapping_add_signed(dy),
                        pos[2].wrapping_add_signed(dz),
                    ])
                };
                let (l, m, r) = (at(-1), at(0), at(1));
                // Middle chunk's cells at padded x 1..=10, the left neighbour's x = 9 at
                // padded 0, the right neighbour's x = 0 at padded 11.
                let join =
                    |l: u16, m: u16, r: u16| (m << 1) | (l >> (N - 1)) | ((r & 1) << (N + 1));
                for z in 0..lz {
                    let src = sy + N * (sz + z);
                    let dst = &mut self.occ[pz + z];
                    if ly == N {
                        // A whole row of rows: fixed lengths, so the loop is vectorised.
                        let (l, m, r) = (row_span(l, src), row_span(m, src), row_span(r, src));
                        if let Some(d) = dst.first_chunk_mut::<{ N + 1 }>() {
                            let joined: [u16; N] = std::array::from_fn(|i| join(l[i], m[i], r[i]));
                            d[1..].copy_from_slice(&joined);
                        }
                    } else {
                        dst[py] = join(l[src], m[src], r[src]);
                    }
                }
            }
        }
        self.finish_occupancy();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Packs `idx` (one per cell) into `B`-bit fields the way chunks store them (a field may
    /// straddle two words).
    fn pack<const B: usize>(idx: &[u8]) -> Vec<u64> {
        let mut words = vec![0u64; (CHUNK_VOLUME * B).div_ceil(64) + 1];
        for (i, &v) in idx.iter().enumerate() {
            let bit = i * B;
            let wide = (v as u128) << (bit % 64);
            words[bit / 64] |= wide as u64;
            words[bit / 64 + 1] |= (wide >> 64) as u64;
        }
        words.truncate((CHUNK_VOLUME * B).div_ceil(64));
        words
    }

    fn both<const B: usize>(idx: &[u8], opaque: &[u8; 256], palette_len: usize) {
        let words = pack::<B>(idx);
        let mut table = [0u64; SET_WORDS];
        opaque_bits::<B>(&words, opaque, &mut table);
        let clear: Vec<u64> = (0..palette_len as u64)
            .filter(|&k| opaque[k as usize] == 0)
            .collect();
        let mut compared = [0u64; SET_WORDS];
        if 64 % B == 0 {
            opaque_bits_aligned::<B>(&words, &clear, &mut compared);
        } else {
            opaque_bits_swar::<B>(&words, &clear, &mut compared);
        }
        assert_eq!(table, compared);
        for (i, &v) in idx.iter().enumerate() {
            let bit = (compared[i / 64] >> (i % 64)) & 1;
            assert_eq!(bit, opaque[v as usize] as u64, "cell {i}");
        }
    }

    /// [`both`] for every width that holds `palette_len` entries, entry `k` opaque where bit
    /// `k` of `opaque_mask` is set.
    fn every_width(idx: &[u8], palette_len: usize, opaque_mask: u16) {
        let mut opaque = [0u8; 256];
        for (k, o) in opaque.iter_mut().enumerate().take(palette_len) {
            *o = ((opaque_mask >> k) & 1) as u8;
        }
        if palette_len <= 4 {
            both::<2>(idx, &opaque, palette_len);
        }
        if palette_len <= 8 {
            both::<3>(idx, &opaque, palette_len);
        }
        both::<4>(idx, &opaque, palette_len);
        both::<5>(idx, &opaque, palette_len);
        both::<6>(idx, &opaque, palette_len);
        both::<7>(idx, &opaque, palette_len);
        both::<8>(idx, &opaque, palette_len);
    }

    /// Checks [`nonzero_fields`] for every value of every whole field of a word, the other
    /// fields holding `fill`.
    fn nonzero_flags<const B: usize>(fill: u64) {
        for at in (0..=64 - B).step_by(B) {
            for v in 0..1u64 << B {
                let mask = ((1u64 << B) - 1) << at;
                let x = (fill & !mask) | (v << at);
                let flag = (nonzero_fields::<B>(x) >> at) & 1;
                assert_eq!(flag, (v != 0) as u64, "B = {B}, field at {at}, value {v}");
            }
        }
    }

    #[test]
    fn nonzero_fields_flags_every_value_of_every_field() {
        for fill in [0, u64::MAX, 0x5555_5555_5555_5555, 0x8421_0842_1084_2108] {
            nonzero_flags::<2>(fill);
            nonzero_flags::<3>(fill);
            nonzero_flags::<4>(fill);
            nonzero_flags::<5>(fill);
            nonzero_flags::<6>(fill);
            nonzero_flags::<7>(fill);
            nonzero_flags::<8>(fill);
        }
    }

    proptest! {
        /// The word-wide compares give the same opaque set as the per-cell lookup, for every
        /// width, whichever entries are opaque.
        #[test]
        fn aligned_opaque_bits_equal_the_lookup(
            seed in any::<u64>(),
            palette_len in 2usize..=16,
            opaque_mask in any::<u16>(),
        ) {
            let mut s = seed | 1;
            let idx: Vec<u8> = (0..CHUNK_VOLUME)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    (s % palette_len as u64) as u8
                })
                .collect();
            every_width(&idx, palette_len, opaque_mask);
        }

        /// The same on sparse chunks, index 0 everywhere but a few runs, where whole words
        /// and windows of index 0 are skipped: whether entry 0 is opaque or not.
        #[test]
        fn sparse_opaque_bits_equal_the_lookup(
            runs in proptest::collection::vec((0usize..CHUNK_VOLUME, 1usize..24, 1u8..16), 0..10),
            palette_len in 2usize..=16,
            opaque_mask in any::<u16>(),
        ) {
            let mut idx = vec![0u8; CHUNK_VOLUME];
            for (start, len, v) in runs {
                let end = (start + len).min(CHUNK_VOLUME);
                idx[start..end].fill(v % palette_len as u8);
            }
            every_width(&idx, palette_len, opaque_mask);
        }
    }
}
