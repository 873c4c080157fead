//! Chunks: 10 × 10 × 10 blocks stored as a palette plus densely bit-packed indices.
//!
//! The in-memory form is the on-disk form (palette, packed little-endian `u64` words whose values
//! straddle word boundaries, sparse extra-metadata records), so loading and saving are copies and
//! the bytes the original library would write fall out directly.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::block::Block;
use crate::error::{Result, VwrError};

mod packed;
#[cfg(test)]
mod tests;

use packed::{find_in_palette, read_packed, write_packed};
pub(crate) use packed::{pack_all, unpack_all};

/// Blocks along one edge of a chunk.
pub const CHUNK_SIZE: usize = 10;
/// Blocks in one chunk.
pub const CHUNK_VOLUME: usize = CHUNK_SIZE * CHUNK_SIZE * CHUNK_SIZE;
/// Largest palette a chunk may hold.
pub const MAX_PALETTE: usize = 256;

/// Bits per block for a palette of `len` entries: the smallest `b >= 1` with `2^b >= len`.
pub const fn bits_for(len: usize) -> u8 {
    let mut b = 1u8;
    while (1usize << b) < len {
        b += 1;
    }
    b
}

/// Number of `u64` words holding 1000 indices of `bits` bits: `ceil(1000 * bits / 64)`.
pub const fn word_count(bits: u8) -> usize {
    (CHUNK_VOLUME * bits as usize).div_ceil(64)
}

/// Linear index of a local position: `x + 10*y + 100*z` (x fastest).
#[inline]
pub const fn local_index(x: usize, y: usize, z: usize) -> usize {
    x + CHUNK_SIZE * (y + CHUNK_SIZE * z)
}

/// Local position of a linear index.
#[inline]
pub const fn local_position(i: usize) -> [usize; 3] {
    [
        i % CHUNK_SIZE,
        (i / CHUNK_SIZE) % CHUNK_SIZE,
        i / (CHUNK_SIZE * CHUNK_SIZE),
    ]
}

/// One sparse extra-metadata record: a typed payload attached to a cell of the chunk.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MetaRecord {
    /// Linear block index inside the chunk (< 1000).
    pub index: u16,
    /// Metadata type (1 MoveObject, 2 plate rotation, 3 BigDecor; others opaque).
    pub record_type: u16,
    /// Payload bytes (at most 65535).
    pub payload: Vec<u8>,
}

/// The one source of chunk revisions in the process, so that no two chunk states (in any
/// chunk of any world) are ever numbered alike. 0 is reserved for "not numbered yet".
static NEXT_REVISION: AtomicU64 = AtomicU64::new(1);

/// A revision number drawn lazily from [`NEXT_REVISION`].
///
/// A change only stores 0 ("changed since last numbered"), a plain store through `&mut`, so hot
/// paths such as [`Chunk::set`] pay no atomic read-modify-write; the first read after a change
/// draws the next number. A clone reads (and so fixes) the number first and keeps it: equal
/// numbers then always mean equal content.
#[derive(Debug, Default)]
struct Revision(AtomicU64);

impl Revision {
    /// Marks a change: the next [`Revision::get`] draws a new number.
    #[inline(always)]
    fn bump(&mut self) {
        *self.0.get_mut() = 0;
    }

    /// The current number, drawing one if the state changed since the last read.
    #[inline]
    fn get(&self) -> u64 {
        // Relaxed is enough: the number is an identity, not a guard for other memory, and any
        // thread reading a `&Chunk` already sees its content through the borrow's own
        // synchronisation.
        match self.0.load(Ordering::Relaxed) {
            0 => {
                let fresh = NEXT_REVISION.fetch_add(1, Ordering::Relaxed);
                // Another reader of the same unchanged state may have numbered it meanwhile;
                // its number wins so that all readers agree.
                match self
                    .0
                    .compare_exchange(0, fresh, Ordering::Relaxed, Ordering::Relaxed)
                {
                    Ok(_) => fresh,
                    Err(current) => current,
                }
            }
            n => n,
        }
    }
}

impl Clone for Revision {
    fn clone(&self) -> Self {
        Revision(AtomicU64::new(self.get()))
    }
}

/// A 10³ chunk: palette + dense bit-packed indices + sparse metadata records + dirty flag +
/// revision numbers.
///
/// Palette semantics follow the original library so that the same edits give the same bytes:
/// a fresh chunk has palette `[air]` at 1 bit per block; setting a block uses the first equal
/// palette entry or appends a new one (re-packing every index when the width grows); entries are
/// never dropped implicitly, except that a 257th distinct value first drops the entries no block
/// uses (see [`Chunk::compact`]).
///
/// [`Chunk::revision`] identifies the chunk's content: it changes on every change of blocks,
/// palette or records, and numbers are unique across all chunks of the process, so a cache that
/// remembers a revision never mistakes a replaced or newly decoded chunk for the one it saw. A
/// clone keeps the revision (it has the same content).
#[derive(Clone, Debug)]
pub struct Chunk {
    palette: Vec<Block>,
    words: Vec<u64>,
    bits: u8,
    meta: Vec<MetaRecord>,
    dirty: bool,
    /// Changes with blocks, palette and records.
    revision: Revision,
    /// Changes with blocks and palette only (not with records).
    blocks_revision: Revision,
    /// Reverse index (raw value -> first palette position) for palettes above
    /// [`LOOKUP_THRESHOLD`] entries, so `set` does not scan up to 256 entries. Derived state:
    /// rebuilt whenever the palette changes, ignored by equality.
    lookup: Option<Box<Lookup>>,
    /// Every cell's value, for chunks of [`DIRECT_BITS`] bits per block (palettes above 128
    /// entries): `get` then reads one value instead of a packed index and then its palette
    /// entry, two dependent cache misses on random access. Derived state, like `lookup`: the
    /// packed words and the palette stay the stored form; this copy is rebuilt whenever they
    /// change wholesale, updated cell by cell by `set` and `fill_box`, and ignored by equality.
    /// It costs 2000 bytes on top of the chunk's 1000 bytes of words and 512 of palette (the
    /// same trade as Minecraft's direct palette above 8 bits).
    direct: Option<Box<[Block; CHUNK_VOLUME]>>,
}

/// Chunks with this many bits per block keep a direct copy of their values
/// ([`Chunk::direct`](Chunk)).
const DIRECT_BITS: u8 = 8;
// `rebuild_direct` reads one byte per cell: the direct copy is for 8-bit chunks only.
const _: () = assert!(DIRECT_BITS == bits_for(MAX_PALETTE));

/// Palettes longer than this get a hashed reverse index.
const LOOKUP_THRESHOLD: usize = 16;
const LOOKUP_SLOTS: usize = 512;

/// Open-addressing table of palette positions + 1 (0 = empty slot), linear probing.
#[derive(Clone, Debug)]
struct Lookup([u16; LOOKUP_SLOTS]);

impl Lookup {
    #[inline]
    fn slot(raw: u16) -> usize {
        ((raw as u32).wrapping_mul(0x9E37_79B1) >> 23) as usize
    }

    fn build(palette: &[Block]) -> Option<Box<Lookup>> {
        if palette.len() <= LOOKUP_THRESHOLD {
            return None;
        }
        let mut t = Box::new(Lookup([0; LOOKUP_SLOTS]));
        for (i, &b) in palette.iter().enumerate() {
            t.insert(palette, b, i);
        }
        Some(t)
    }

    /// Records `block` at position `i` unless an earlier position already holds it.
    fn insert(&mut self, palette: &[Block], block: Block, i: usize) {
        let mut s = Self::slot(block.0);
        loop {
            match self.0[s] {
                0 => {
                    self.0[s] = i as u16 + 1;
                    return;
                }
                p if palette[p as usize - 1] == block => return,
                _ => s = (s + 1) % LOOKUP_SLOTS,
            }
        }
    }

    #[inline]
    fn find(&self, palette: &[Block], block: Block) -> Option<usize> {
        let mut s = Self::slot(block.0);
        loop {
            match self.0[s] {
                0 => return None,
                p if palette[p as usize - 1] == block => return Some(p as usize - 1),
                _ => s = (s + 1) % LOOKUP_SLOTS,
            }
        }
    }
}

impl Default for Chunk {
    fn default() -> Self {
        Chunk::new()
    }
}

/// Equality of stored content (palette, packed words, records); the dirty flag and the
/// revisions are ignored.
impl PartialEq for Chunk {
    fn eq(&self, other: &Chunk) -> bool {
        self.palette == other.palette && self.words == other.words && self.meta == other.meta
    }
}
impl Eq for Chunk {}

impl Chunk {
    /// A fresh all-air chunk: palette `[air]`, 1 bit per block.
    pub fn new() -> Chunk {
        Chunk::uniform(Block::AIR)
    }

    /// A chunk whose every cell is `block`: one-entry palette, all-zero words.
    pub fn uniform(block: Block) -> Chunk {
        Chunk {
            palette: vec![block],
            words: vec![0; word_count(1)],
            bits: 1,
            meta: Vec::new(),
            dirty: true,
            lookup: None,
            direct: None,
            revision: Revision::default(),
            blocks_revision: Revision::default(),
        }
    }

    /// Builds a chunk from 1000 blocks in linear order, palette in first-occurrence order.
    pub fn from_blocks(blocks: &[Block; CHUNK_VOLUME]) -> Result<Chunk> {
        let mut palette: Vec<Block> = Vec::new();
        let mut indices = [0u16; CHUNK_VOLUME];
        let mut last = None;
        for (i, &b) in blocks.iter().enumerate() {
            let p = match last {
                Some((lb, lp)) if lb == b => lp,
                _ => match palette.iter().position(|&e| e == b) {
                    Some(p) => p,
                    None => {
                        if palette.len() == MAX_PALETTE {
                            return Err(VwrError::PaletteFull { pos: None });
                        }
                        palette.push(b);
                        palette.len() - 1
                    }
                },
            };
            last = Some((b, p));
            indices[i] = p as u16;
        }
        let bits = bits_for(palette.len());
        let mut chunk = Chunk {
            words: pack_all(&indices, bits),
            lookup: None,
            direct: None,
            palette,
            bits,
            meta: Vec::new(),
            dirty: true,
            revision: Revision::default(),
            blocks_revision: Revision::default(),
        };
        chunk.rebuild_direct();
        Ok(chunk)
    }

    /// Assembles a chunk from already validated parts (used by the decoder).
    pub(crate) fn from_parts(palette: Vec<Block>, words: Vec<u64>, meta: Vec<MetaRecord>) -> Chunk {
        let bits = bits_for(palette.len());
        debug_assert_eq!(words.len(), word_count(bits));
        let mut chunk = Chunk {
            lookup: None,
            direct: None,
            palette,
            words,
            bits,
            meta,
            dirty: false,
            revision: Revision::default(),
            blocks_revision: Revision::default(),
        };
        chunk.rebuild_direct();
        chunk
    }

    /// Rebuilds (or drops) the direct copy of the values after a wholesale change of the
    /// words or the palette.
    fn rebuild_direct(&mut self) {
        if self.bits < DIRECT_BITS {
            self.direct = None;
            return;
        }
        let mut d = self
            .direct
            .take()
            .unwrap_or_else(|| Box::new([Block::AIR; CHUNK_VOLUME]));
        // Indices of a built or decoded chunk are inside its palette; air otherwise. A full
        // 256-entry table answers every byte without a bounds check.
        let mut table = [Block::AIR; MAX_PALETTE];
        let known = self.palette.len().min(MAX_PALETTE);
        table[..known].copy_from_slice(&self.palette[..known]);
        // 8 bits per block (the only width with a direct copy): byte k of word j, least
        // significant first, is the index of cell 8j + k.
        for (&w, o) in self.words.iter().zip(d.chunks_exact_mut(8)) {
            for (k, slot) in o.iter_mut().enumerate() {
                *slot = table[usize::from((w >> (8 * k)) as u8)];
            }
        }
        self.direct = Some(d);
    }

    /// Bytes the chunk holds on the heap: palette, words, records, and the derived reverse
    /// index and direct copy when it has them (what a snapshot of it costs beside its
    /// `size_of`).
    pub fn heap_bytes(&self) -> usize {
        self.palette.capacity() * std::mem::size_of::<Block>()
            + self.words.capacity() * 8
            + self
                .lookup
                .as_ref()
                .map_or(0, |_| std::mem::size_of::<Lookup>())
            + self.direct.as_ref().map_or(0, |_| 2 * CHUNK_VOLUME)
            + self
                .meta
                .iter()
                .map(|m| std::mem::size_of::<MetaRecord>() + m.payload.capacity())
                .sum::<usize>()
    }

    /// The direct copy of every cell's value, when the chunk keeps one (8 bits per block).
    #[inline]
    pub(crate) fn direct(&self) -> Option<&[Block; CHUNK_VOLUME]> {
        self.direct.as_deref()
    }

    /// The palette, in stored order.
    pub fn palette(&self) -> &[Block] {
        &self.palette
    }

    /// The packed index words (little-endian bit stream, LSB first).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Bits per block, 1..=8.
    pub fn bits_per_block(&self) -> u8 {
        self.bits
    }

    /// Whether the chunk changed since the flag was last cleared (runtime only, never stored).
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// Sets or clears the dirty flag.
    pub fn set_dirty(&mut self, dirty: bool) {
        self.dirty = dirty;
    }

    /// A number identifying the chunk's content (blocks, palette and records), for callers
    /// that want to know whether a chunk changed since they last looked (caches, the editor's
    /// history). Every change draws a new number from one process-wide counter, so numbers
    /// are never reused, not even by another chunk or world; a clone keeps its original's
    /// number. The dirty flag does not take part.
    pub fn revision(&self) -> u64 {
        self.revision.get()
    }

    /// Like [`Chunk::revision`], but for blocks and palette only: record edits leave it
    /// unchanged (used by meshing, which ignores most records).
    pub fn blocks_revision(&self) -> u64 {
        self.blocks_revision.get()
    }

    /// Notes a change of blocks or palette.
    #[inline(always)]
    fn blocks_changed(&mut self) {
        self.revision.bump();
        self.blocks_revision.bump();
    }

    /// Notes a change of the record list.
    #[inline(always)]
    fn records_changed(&mut self) {
        self.revision.bump();
    }

    /// Empty = palette exactly `[air]` and no metadata records. Empty chunks are not stored.
    pub fn is_empty(&self) -> bool {
        self.palette.len() == 1 && self.palette[0].is_air() && self.meta.is_empty()
    }

    /// Whether every cell holds the same value (a one-entry palette).
    pub fn is_uniform(&self) -> bool {
        self.palette.len() == 1
    }

    /// Palette index stored for cell `i`.
    #[inline]
    pub fn palette_index(&self, i: usize) -> usize {
        read_packed(&self.words, self.bits as u32, i)
    }

    /// Block at linear index `i` (< 1000; panics otherwise, like slice indexing).
    #[inline]
    pub fn get(&self, i: usize) -> Block {
        // 8-bit chunks answer from their direct copy: one load instead of two dependent ones.
        if let Some(d) = &self.direct {
            return d[i];
        }
        // Uniform chunks (solid ground, open sky) answer without reading their words.
        if let [only] = self.palette[..] {
            return only;
        }
        self.palette[self.palette_index(i)]
    }

    /// Block at a local position (each coordinate < 10).
    #[inline]
    pub fn get_local(&self, p: [usize; 3]) -> Block {
        let [x, y, z] = p;
        self.get(local_index(x, y, z))
    }

    /// Decodes every cell into `out` (linear order).
    pub fn blocks_into(&self, out: &mut [Block; CHUNK_VOLUME]) {
        if self.palette.len() == 1 {
            out.fill(self.palette[0]);
            return;
        }
        let mut idx = [0u16; CHUNK_VOLUME];
        unpack_all(&self.words, self.bits, &mut idx);
        for (o, &p) in out.iter_mut().zip(idx.iter()) {
            *o = self.palette[p as usize];
        }
    }

    /// All 1000 blocks in linear order.
    pub fn to_blocks(&self) -> Box<[Block; CHUNK_VOLUME]> {
        let mut out = Box::new([Block::AIR; CHUNK_VOLUME]);
        self.blocks_into(&mut out);
        out
    }

    /// First palette position of `block`. Large palettes get their hashed index on first use
    /// (so loading a world costs nothing extra).
    #[inline]
    fn find(&mut self, block: Block) -> Option<usize> {
        if self.palette.len() <= LOOKUP_THRESHOLD {
            return find_in_palette(&self.palette, block);
        }
        let palette = &self.palette;
        self.lookup
            .get_or_insert_with(|| Lookup::build(palette).expect("palette above threshold"))
            .find(palette, block)
    }

    /// Palette index of `block`, appending it (and re-packing, or compacting a full palette)
    /// when it is new. `spare` is a cell about to be overwritten: its current value does not
    /// count as used when a full palette is compacted.
    fn index_for(&mut self, block: Block, spare: Option<usize>) -> Result<usize> {
        if let Some(p) = self.find(block) {
            return Ok(p);
        }
        if self.palette.len() == MAX_PALETTE {
            self.compact_except(spare);
            if self.palette.len() == MAX_PALETTE {
                return Err(VwrError::PaletteFull { pos: None });
            }
        }
        self.palette.push(block);
        self.blocks_changed();
        let i = self.palette.len() - 1;
        if let Some(t) = &mut self.lookup {
            t.insert(&self.palette, block, i);
        }
        let nb = bits_for(self.palette.len());
        if nb != self.bits {
            self.repack(nb);
        }
        Ok(self.palette.len() - 1)
    }

    fn repack(&mut self, nb: u8) {
        let mut idx = [0u16; CHUNK_VOLUME];
        unpack_all(&self.words, self.bits, &mut idx);
        self.words = pack_all(&idx, nb);
        self.bits = nb;
        self.rebuild_direct();
    }

    /// Sets cell `i` (< 1000). Fails only with [`VwrError::PaletteFull`].
    #[inline]
    pub fn set(&mut self, i: usize, block: Block) -> Result<()> {
        let p = match self.find(block) {
            Some(p) => p,
            None => self.index_for(block, Some(i))?,
        };
        // Writing the value a cell already holds is no change: the revision stays, so caches
        // keyed on it do no work for it.
        if read_packed(&self.words, self.bits as u32, i) != p {
            write_packed(&mut self.words, self.bits as u32, i, p);
            if let Some(d) = &mut self.direct {
                d[i] = block;
            }
            self.blocks_changed();
        }
        self.dirty = true;
        Ok(())
    }

    /// Sets a local position (each coordinate < 10).
    pub fn set_local(&mut self, p: [usize; 3], block: Block) -> Result<()> {
        let [x, y, z] = p;
        self.set(local_index(x, y, z), block)
    }

    /// Fills the whole chunk with `block` (palette `[block]`); metadata records are kept.
    pub fn fill(&mut self, block: Block) {
        if self.palette != [block] || self.words.iter().any(|&w| w != 0) {
            self.blocks_changed();
        }
        self.palette.clear();
        self.palette.push(block);
        self.words.clear();
        self.words.resize(word_count(1), 0);
        self.bits = 1;
        self.lookup = None;
        self.direct = None;
        self.dirty = true;
    }

    /// Fills the inclusive local box `min..=max` with `block` without per-cell palette work.
    /// Returns the number of cells whose value changed.
    pub fn fill_box(&mut self, min: [usize; 3], max: [usize; 3], block: Block) -> Result<usize> {
        if min == [0, 0, 0] && max == [9, 9, 9] {
            let mut changed = 0;
            self.for_each(|_, b| changed += (b != block) as usize);
            self.fill(block);
            return Ok(changed);
        }
        let mut changed = 0usize;
        // The old value of a cell inside the box does not keep a palette entry alive: pick any
        // cell of the box as the spare for compaction (all are overwritten).
        let p = self.index_for(block, Some(local_index(min[0], min[1], min[2])))?;
        let bits = self.bits as u32;
        for z in min[2]..=max[2] {
            for y in min[1]..=max[1] {
                let row = local_index(0, y, z);
                for x in min[0]..=max[0] {
                    let i = row + x;
                    if read_packed(&self.words, bits, i) != p {
                        changed += 1;
                        write_packed(&mut self.words, bits, i, p);
                        if let Some(d) = &mut self.direct {
                            d[i] = block;
                        }
                    }
                }
            }
        }
        if changed > 0 {
            self.blocks_changed();
        }
        self.dirty = true;
        Ok(changed)
    }

    /// Calls `f(i, block)` for every cell in linear order.
    pub fn for_each(&self, mut f: impl FnMut(usize, Block)) {
        if self.palette.len() == 1 {
            let b = self.palette[0];
            (0..CHUNK_VOLUME).for_each(|i| f(i, b));
            return;
        }
        let mut idx = [0u16; CHUNK_VOLUME];
        unpack_all(&self.words, self.bits, &mut idx);
        for (i, &p) in idx.iter().enumerate() {
            f(i, self.palette[p as usize]);
        }
    }

    /// Calls `f(i, block)` for every non-air cell in linear order.
    pub fn for_each_non_air(&self, mut f: impl FnMut(usize, Block)) {
        if !self.palette.iter().any(|b| !b.is_air()) {
            return;
        }
        self.for_each(|i, b| {
            if !b.is_air() {
                f(i, b)
            }
        });
    }

    /// Number of non-air cells.
    pub fn count_non_air(&self) -> usize {
        let mut n = 0;
        self.for_each_non_air(|_, _| n += 1);
        n
    }

    /// How many cells use each palette entry.
    pub fn palette_usage(&self) -> Vec<u32> {
        let mut uses = vec![0u32; self.palette.len()];
        if self.palette.len() == 1 {
            uses[0] = CHUNK_VOLUME as u32;
            return uses;
        }
        let mut idx = [0u16; CHUNK_VOLUME];
        unpack_all(&self.words, self.bits, &mut idx);
        for &p in idx.iter() {
            uses[p as usize] += 1;
        }
        uses
    }

    /// Drops palette entries no cell uses and merges duplicate entries, keeping the order of
    /// the rest, then re-packs at the smallest width. Never changes any block.
    pub fn compact(&mut self) {
        self.compact_except(None);
    }

    fn compact_except(&mut self, spare: Option<usize>) {
        let mut idx = [0u16; CHUNK_VOLUME];
        unpack_all(&self.words, self.bits, &mut idx);
        let mut used = [false; MAX_PALETTE];
        for (i, &p) in idx.iter().enumerate() {
            if spare != Some(i) {
                used[p as usize] = true;
            }
        }
        // New position of each old entry: the first live entry with the same value.
        let mut remap = [0u16; MAX_PALETTE];
        let mut palette: Vec<Block> = Vec::with_capacity(self.palette.len());
        for (old, &b) in self.palette.iter().enumerate() {
            if !used[old] {
                continue;
            }
            match palette.iter().position(|&e| e == b) {
                Some(p) => remap[old] = p as u16,
                None => {
                    remap[old] = palette.len() as u16;
                    palette.push(b);
                }
            }
        }
        if palette.len() == self.palette.len() {
            return;
        }
        for p in idx.iter_mut() {
            // Only the spare cell can point at a dropped entry; the caller overwrites it next.
            *p = if used[*p as usize] {
                remap[*p as usize]
            } else {
                0
            };
        }
        self.bits = bits_for(palette.len());
        self.lookup = None;
        self.palette = palette;
        self.words = pack_all(&idx, self.bits);
        self.rebuild_direct();
        self.blocks_changed();
        self.dirty = true;
    }

    /// The chunk's metadata records in stored (insertion) order.
    pub fn records(&self) -> &[MetaRecord] {
        &self.meta
    }

    /// Payload of the first record of `record_type` on cell `i`.
    pub fn metadata(&self, i: usize, record_type: u16) -> Option<&[u8]> {
        self.meta
            .iter()
            .find(|r| r.index as usize == i && r.record_type == record_type)
            .map(|r| r.payload.as_slice())
    }

    /// Sets the payload of (`i`, `record_type`): replaces the first match, otherwise appends.
    pub fn set_metadata(&mut self, i: usize, record_type: u16, payload: &[u8]) -> Result<()> {
        if payload.len() > u16::MAX as usize {
            return Err(VwrError::PayloadTooLarge(payload.len()));
        }
        debug_assert!(i < CHUNK_VOLUME);
        match self
            .meta
            .iter_mut()
            .find(|r| r.index as usize == i && r.record_type == record_type)
        {
            Some(r) => {
                r.payload.clear();
                r.payload.extend_from_slice(payload);
            }
            None => self.meta.push(MetaRecord {
                index: i as u16,
                record_type,
                payload: payload.to_vec(),
            }),
        }
        self.records_changed();
        self.dirty = true;
        Ok(())
    }

    /// Removes every record of `record_type` on cell `i`; returns how many were removed.
    pub fn remove_metadata(&mut self, i: usize, record_type: u16) -> usize {
        let before = self.meta.len();
        self.meta
            .retain(|r| !(r.index as usize == i && r.record_type == record_type));
        let removed = before - self.meta.len();
        if removed > 0 {
            self.records_changed();
            self.dirty = true;
        }
        removed
    }

    /// Removes every record of the chunk.
    pub fn clear_metadata(&mut self) {
        if !self.meta.is_empty() {
            self.meta.clear();
            self.records_changed();
            self.dirty = true;
        }
    }

    /// Replaces the whole record list (order kept as given).
    pub fn set_records(&mut self, records: Vec<MetaRecord>) {
        if self.meta != records {
            self.records_changed();
        }
        self.meta = records;
        self.dirty = true;
    }
}
