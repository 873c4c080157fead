//! Neighbourhood gathering: the padded block volume around a chunk, read across chunk borders,
//! and its classification into opaque-occupancy rows and transparent/special cells.

use vwr::{Block, Chunk, World, CHUNK_VOLUME};

use super::ao::{face_ao, front_ao, front_rows, AO_OPEN};
use super::{Face, N, PAD, PAD2, PAD3, ROW};
use vwr_blocks::{Registry, RenderKind, Shape, CLASS_NONE, CLASS_OPAQUE, CLASS_TRANSPARENT};

/// A chunk's cells plus a one-cell shell from its neighbours, classified by a registry:
/// the input of [`Mesher::mesh`](super::Mesher::mesh).
///
/// Holds the raw block values (index of local cell `(x, y, z)`, each −1..=10, is
/// `(x+1) + 12(y+1) + 144(z+1)`), the opaque-occupancy bit rows, and the list of interior
/// cells that are transparent or special. Build it with [`Neighborhood::gather`] (from a
/// world) or [`Neighborhood::from_fn`].
#[derive(Clone)]
pub struct Neighborhood {
    pub(super) cells: Box<[u16; PAD3]>,
    /// Opaque occupancy: `occ[z][y]` bit x (padded coordinates).
    pub(super) occ: [[u16; PAD]; PAD],
    /// Interior transparent and special cells: (linear index, class, shape).
    pub(super) others: Vec<(u16, u8, Option<Shape>)>,
    /// No opaque cell can show a face (none inside, or all buried).
    pub(super) no_opaque_faces: bool,
    /// Every opaque interior cell holds this block value (the centre's palette has one
    /// opaque entry): the opaque passes then read no block values. Only whole-world meshing's
    /// gather sets it, and only for chunks with no transparent or special cell, so the
    /// transparent pass never sees it; `None` means "read each cell".
    pub(super) opaque_value: Option<u16>,
    /// Set by whole-world meshing's gather ([`Neighborhood::gather_classes`]): `cells` is not
    /// filled, and block values of the interior come from the centre's packed words below.
    packed: bool,
    centre_words: Vec<u64>,
    centre_palette: Vec<u16>,
    centre_bits: u32,
}

impl Default for Neighborhood {
    fn default() -> Self {
        Neighborhood::new()
    }
}

impl std::fmt::Debug for Neighborhood {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Neighborhood {{ .. }}")
    }
}

/// The block values of one interior row of a [`Neighborhood`] ([`Neighborhood::row`]).
pub(super) struct RowReader<'a> {
    nb: &'a Neighborhood,
    y: usize,
    z: usize,
    /// The row's packed indices, field `x` at bit `x · bits`, when read in one piece.
    window: Option<u64>,
}

impl RowReader<'_> {
    /// The block value of cell `x` of the row.
    #[inline(always)]
    pub(super) fn raw(&self, x: usize) -> u16 {
        match self.window {
            Some(v) => {
                let bits = self.nb.centre_bits;
                let idx = ((v >> (x as u32 * bits)) & ((1u64 << bits) - 1)) as usize;
                // A decoded chunk's indices are always inside its palette; air otherwise.
                self.nb.centre_palette.get(idx).copied().unwrap_or(0)
            }
            None => self.nb.raw_at(x, self.y, self.z),
        }
    }
}

/// The face keys of one interior row's faces along ±Y or ±Z (those rows run along x): block
/// values from [`Neighborhood::row`] (or the one opaque value), AO windows from one word of
/// the rows in front ([`front_rows`]). See [`Neighborhood::row_keys`].
pub(super) struct RowKeys<'a> {
    cells: Option<RowReader<'a>>,
    value: u16,
    front: Option<u64>,
}

impl RowKeys<'_> {
    /// The face key of cell `x` of the row (see [`Neighborhood::face_key`]).
    #[inline(always)]
    pub(super) fn key(&self, x: usize) -> u32 {
        let raw = match &self.cells {
            Some(r) => r.raw(x),
            None => self.value,
        };
        let ao = match self.front {
            Some(f) => front_ao(f, x),
            None => AO_OPEN,
        };
        raw as u32 | (ao as u32) << 16
    }
}

/// Index of padded cell (x, y, z) (0..12 each) in [`Neighborhood::cells`].
#[inline(always)]
pub(super) const fn pidx(x: usize, y: usize, z: usize) -> usize {
    x + PAD * y + PAD2 * z
}

impl Neighborhood {
    /// An all-air neighbourhood.
    pub fn new() -> Neighborhood {
        Neighborhood {
            cells: Box::new([0; PAD3]),
            occ: [[0; PAD]; PAD],
            others: Vec::new(),
            no_opaque_faces: true,
            opaque_value: None,
            packed: false,
            centre_words: Vec::new(),
            centre_palette: Vec::new(),
            centre_bits: 1,
        }
    }

    /// Builds one from a function of local coordinates (−1..=10 on each axis).
    pub fn from_fn(registry: &Registry, mut f: impl FnMut(i32, i32, i32) -> Block) -> Neighborhood {
        let mut nb = Neighborhood::new();
        for z in 0..PAD {
            for y in 0..PAD {
                for x in 0..PAD {
                    nb.cells[pidx(x, y, z)] = f(x as i32 - 1, y as i32 - 1, z as i32 - 1).raw();
                }
            }
        }
        nb.packed = false;
        nb.classify(registry);
        nb
    }

    /// The block at local coordinates (−1..=10 each); air outside that range.
    pub fn get(&self, x: i32, y: i32, z: i32) -> Block {
        let r = -1..=N as i32;
        if !(r.contains(&x) && r.contains(&y) && r.contains(&z)) {
            return Block::AIR;
        }
        Block(self.cells[pidx((x + 1) as usize, (y + 1) as usize, (z + 1) as usize)])
    }

    /// The raw padded cells.
    pub fn cells(&self) -> &[u16; PAD3] {
        &self.cells
    }

    /// Fills the neighbourhood of chunk `pos` from the world (cells outside the world are
    /// air) and classifies it with `registry`.
    ///
    /// Works straight from the chunks' palettes and packed words: the centre chunk's indices
    /// are unpacked in bulk and each of its palette entries is classified once; each of the
    /// 26 neighbours contributes only the slab, edge or corner the shell needs, read from its
    /// packed words (a uniform or absent neighbour is a constant fill). Every cell is written
    /// exactly once and the occupancy rows are built on the way, so no second pass over the
    /// 12³ cells is needed.
    pub fn gather(&mut self, world: &World, pos: [u32; 3], registry: &Registry) {
        self.gather_closed(world, pos, registry, [false; 6]);
    }

    /// [`Neighborhood::gather`] with the cells across the chunk's border planes marked in
    /// `closed` ([`Face::ALL`] order) read as air: the neighbourhood of a chunk meshed with
    /// closed borders ([`crate::lod`]).
    pub fn gather_closed(
        &mut self,
        world: &World,
        pos: [u32; 3],
        registry: &Registry,
        closed: [bool; 6],
    ) {
        let table = registry.class_table();
        self.packed = false;
        self.opaque_value = None;
        self.others.clear();
        self.occ = [[0; PAD]; PAD];
        self.fill_centre(world.chunk(pos), registry);
        // Per axis: (local start in the neighbour, length, padded start).
        let spans = |d: i32| -> (usize, usize, usize) {
            match d {
                -1 => (N - 1, 1, 0),
                0 => (0, N, 1),
                _ => (0, 1, N + 1),
            }
        };
        for dz in -1i32..=1 {
            for dy in -1i32..=1 {
                for dx in -1i32..=1 {
                    if dx == 0 && dy == 0 && dz == 0 {
                        continue;
                    }
                    let n = [
                        pos[0].wrapping_add_signed(dx),
                        pos[1].wrapping_add_signed(dy),
                        pos[2].wrapping_add_signed(dz),
                    ];
                    let across_closed = [dx, dy, dz]
                        .iter()
                        .enumerate()
                        .any(|(a, &d)| (d == 1 && closed[2 * a]) || (d == -1 && closed[2 * a + 1]));
                    // A wrapped coordinate is far outside the world, so `chunk` says None.
                    let ch = world.chunk(n).filter(|_| !across_closed);
                    let (sx, lx, px) = spans(dx);
                    let (sy, ly, py) = spans(dy);
                    let (sz, lz, pz) = spans(dz);
                    self.fill_shell(ch, table, [sx, sy, sz], [lx, ly, lz], [px, py, pz]);
                }
            }
        }
        self.finish_occupancy();
    }

    /// Writes the interior 10³ cells from the centre chunk (air if absent), their occupancy
    /// bits and the transparent/special list.
    fn fill_centre(&mut self, chunk: Option<&Chunk>, registry: &Registry) {
        let table = registry.class_table();
        let entry = |raw: u16| -> (u8, Option<Shape>) {
            let class = table[(raw >> 4) as usize];
            let shape = match class >= CLASS_TRANSPARENT {
                true => match registry.kind(raw >> 4) {
                    RenderKind::Special(s) => Some(s),
                    _ => None,
                },
                false => None,
            };
            (class, shape)
        };
        let palette = chunk.map_or(&[Block::AIR][..], Chunk::palette);
        if let [only] = palette {
            let v = only.raw();
            let (class, shape) = entry(v);
            let bits = if class == CLASS_OPAQUE { ROW << 1 } else { 0 };
            for z in 1..=N {
                for y in 1..=N {
                    self.cells[pidx(1, y, z)..][..N].fill(v);
                    self.occ[z][y] = bits;
                }
            }
            if class >= CLASS_TRANSPARENT {
                self.others
                    .extend((0..CHUNK_VOLUME as u16).map(|i| (i, class, shape)));
            }
            return;
        }
        // Each palette entry classified once: raw value, opaque bit, other (class, shape).
        let mut raw = [0u16; 256];
        let mut opaque = [0u16; 256];
        let mut other = [(CLASS_NONE, None); 256];
        let mut any_other = false;
        for (k, b) in palette.iter().enumerate() {
            let (class, shape) = entry(b.raw());
            raw[k] = b.raw();
            opaque[k] = (class == CLASS_OPAQUE) as u16;
            if class >= CLASS_TRANSPARENT {
                other[k] = (class, shape);
                any_other = true;
            }
        }
        let mut idx = [0u8; CHUNK_VOLUME];
        if let Some(c) = chunk {
            c.indices_into(&mut idx);
        }
        for z in 0..N {
            for y in 0..N {
                let src = &idx[N * y + N * N * z..][..N];
                let dst = &mut self.cells[pidx(1, y + 1, z + 1)..][..N];
                let mut bits = 0u16;
                for (x, (d, &p)) in dst.iter_mut().zip(src).enumerate() {
                    *d = raw[p as usize];
                    bits |= opaque[p as usize] << (x + 1);
                }
                self.occ[z + 1][y + 1] = bits;
            }
        }
        if any_other {
            for (i, &p) in idx.iter().enumerate() {
                let (class, shape) = other[p as usize];
                if class >= CLASS_TRANSPARENT {
                    self.others.push((i as u16, class, shape));
                }
            }
        }
    }

    /// Writes one shell region (a face slab, an edge or a corner) from neighbour `ch`: cells
    /// `start..start+len` of the neighbour (local) to padded `dst..dst+len`, with their
    /// occupancy bits.
    fn fill_shell(
        &mut self,
        ch: Option<&Chunk>,
        table: &[u8; vwr_blocks::TYPE_COUNT],
        start: [usize; 3],
        len: [usize; 3],
        dst: [usize; 3],
    ) {
        let uniform = match ch {
            None => Some(0),
            Some(c) => match c.palette() {
                [only] => Some(only.raw()),
                _ => None,
            },
        };
        if let Some(v) = uniform {
            let opaque = table[(v >> 4) as usize] == CLASS_OPAQUE;
            let xbits = (((1u32 << len[0]) - 1) << dst[0]) as u16;
            for z in dst[2]..dst[2] + len[2] {
                for y in dst[1]..dst[1] + len[1] {
                    self.cells[pidx(dst[0], y, z)..][..len[0]].fill(v);
                    if opaque {
                        self.occ[z][y] |= xbits;
                    }
                }
            }
            return;
        }
        let Some(c) = ch else { return };
        let (palette, words, bits) = (c.palette(), c.words(), c.bits_per_block() as usize);
        let mask = (1u64 << bits) - 1;
        for z in 0..len[2] {
            for y in 0..len[1] {
                let (py, pz) = (dst[1] + y, dst[2] + z);
                let row = &mut self.cells[pidx(dst[0], py, pz)..][..len[0]];
                let mut occ = 0u16;
                let first = vwr::local_index(start[0], start[1] + y, start[2] + z);
                for (x, cell) in row.iter_mut().enumerate() {
                    let bit = (first + x) * bits;
                    let (w, off) = (bit / 64, bit % 64);
                    let mut v = words[w] >> off;
                    if off + bits > 64 {
                        v |= words[w + 1] << (64 - off);
                    }
                    let r = palette[(v & mask) as usize].raw();
                    *cell = r;
                    occ |= ((table[(r >> 4) as usize] == CLASS_OPAQUE) as u16) << x;
                }
                self.occ[pz][py] |= occ << dst[0];
            }
        }
    }

    /// The visible opaque faces of row (y, z) (local, 0..10), per face in [`Face::ALL`] order:
    /// bit x set where opaque cell (x, y, z) shows that face, i.e. the cell across it is not
    /// opaque. The one face test of opaque cubes, shared by the exposed and greedy paths.
    #[inline(always)]
    pub(super) fn opaque_face_rows(&self, y: usize, z: usize) -> [u16; 6] {
        let occ = &self.occ;
        let c = occ[z + 1][y + 1];
        let row = |v: u16| (v >> 1) & ROW;
        [
            row(c & !(c >> 1)),
            row(c & !(c << 1)),
            row(c & !occ[z + 1][y + 2]),
            row(c & !occ[z + 1][y]),
            row(c & !occ[z + 2][y + 1]),
            row(c & !occ[z][y + 1]),
        ]
    }

    /// The face key of face `face` of local cell (x, y, z): its raw block value, with the
    /// packed AO of that face (all open when `ao` is off) in bits 16..24. Faces merge only
    /// when their keys are equal; [`super::Quad::from_key`] turns a key back into a quad.
    #[inline(always)]
    pub(super) fn face_key(&self, face: Face, x: usize, y: usize, z: usize, ao: bool) -> u32 {
        self.face_key_of(self.raw_at(x, y, z), face, x, y, z, ao)
    }

    /// The block value of interior cell (x, y, z) (local, 0..10).
    #[inline(always)]
    pub(super) fn raw_at(&self, x: usize, y: usize, z: usize) -> u16 {
        if self.packed {
            self.packed_raw(x + N * y + N * N * z)
        } else {
            self.cells[pidx(x + 1, y + 1, z + 1)]
        }
    }

    /// A reader of the block values of interior row (y, z) (local, 0..10): on whole-world
    /// meshing's packed centre, the row's ten indices are taken out of the words once.
    #[inline(always)]
    pub(super) fn row(&self, y: usize, z: usize) -> RowReader<'_> {
        let first = N * y + N * N * z;
        let bits = self.centre_bits as usize;
        // Ten fields of at most 6 bits fit one u64 wherever they start in a word.
        let window = (self.packed && bits <= 6).then(|| {
            let bit = first * bits;
            let (w, off) = (bit / 64, bit % 64);
            let lo = self.centre_words.get(w).copied().unwrap_or(0) as u128;
            let hi = self.centre_words.get(w + 1).copied().unwrap_or(0) as u128;
            ((lo | hi << 64) >> off) as u64
        });
        RowReader {
            nb: self,
            y,
            z,
            window,
        }
    }

    /// The face keys of face `face` (±Y or ±Z) of the cells of interior row (y, z), the AO
    /// packed in when `ao`: the same keys as [`Neighborhood::face_key`], with the row's
    /// reads done once.
    #[inline(always)]
    pub(super) fn row_keys(&self, face: Face, y: usize, z: usize, ao: bool) -> RowKeys<'_> {
        debug_assert!(face.axis() != 0, "rows run along x");
        RowKeys {
            cells: self.opaque_value.is_none().then(|| self.row(y, z)),
            value: self.opaque_value.unwrap_or(0),
            front: ao.then(|| front_rows(&self.occ, face.index(), y, z)),
        }
    }

    /// [`Neighborhood::face_key`] for a cell whose block value `raw` the caller already read.
    #[inline(always)]
    pub(super) fn face_key_of(
        &self,
        raw: u16,
        face: Face,
        x: usize,
        y: usize,
        z: usize,
        ao: bool,
    ) -> u32 {
        let raw = raw as u32;
        let ao = if ao {
            face_ao(&self.occ, face.index(), x, y, z)
        } else {
            AO_OPEN
        };
        raw | (ao as u32) << 16
    }

    /// Keeps a copy of `chunk`'s packed words and palette as the source of interior block
    /// values ([`Neighborhood::face_key`]), instead of filling `cells`.
    pub(super) fn set_packed_centre(&mut self, chunk: &Chunk) {
        self.packed = true;
        self.centre_bits = chunk.bits_per_block() as u32;
        self.centre_words.clear();
        self.centre_words.extend_from_slice(chunk.words());
        // One spare word: a value straddling the last word reads zeros, never out of bounds.
        self.centre_words.push(0);
        self.centre_palette.clear();
        self.centre_palette
            .extend(chunk.palette().iter().map(|b| b.raw()));
    }

    /// Block value of interior cell `i` (linear index) from the packed centre.
    #[inline(always)]
    fn packed_raw(&self, i: usize) -> u16 {
        let bits = self.centre_bits as usize;
        let bit = i * bits;
        let (w, off) = (bit / 64, bit % 64);
        let v = (self.centre_words[w] >> off) | ((self.centre_words[w + 1] << 1) << (63 - off));
        let idx = (v & ((1u64 << bits) - 1)) as usize;
        // A decoded chunk's indices are always inside its palette; air otherwise.
        self.centre_palette.get(idx).copied().unwrap_or(0)
    }

    /// Recomputes the occupancy rows and the transparent/special list.
    fn classify(&mut self, registry: &Registry) {
        let table = registry.class_table();
        self.others.clear();
        for z in 0..PAD {
            for y in 0..PAD {
                let row = &self.cells[pidx(0, y, z)..][..PAD];
                let first = row[0];
                let mut bits = 0u16;
                if row.iter().all(|&r| r == first) {
                    // Common: a whole row of one value (air, or solid ground).
                    let class = table[(first >> 4) as usize];
                    if class == CLASS_OPAQUE {
                        bits = (1 << PAD) - 1;
                    } else if class == CLASS_NONE {
                        self.occ[z][y] = 0;
                        continue;
                    }
                }
                let interior = (1..=N).contains(&y) && (1..=N).contains(&z);
                if bits == 0 {
                    for (x, &raw) in row.iter().enumerate() {
                        let class = table[(raw >> 4) as usize];
                        bits |= ((class == CLASS_OPAQUE) as u16) << x;
                        if class >= CLASS_TRANSPARENT && interior && (1..=N).contains(&x) {
                            let i = (x - 1) + N * (y - 1) + N * N * (z - 1);
                            let shape = match registry.kind(raw >> 4) {
                                RenderKind::Special(s) => Some(s),
                                _ => None,
                            };
                            self.others.push((i as u16, class, shape));
                        }
                    }
                }
                self.occ[z][y] = bits;
            }
        }
        self.finish_occupancy();
    }

    /// Sets [`Neighborhood::no_opaque_faces`] from the occupancy rows.
    pub(super) fn finish_occupancy(&mut self) {
        let inner: u16 = ROW << 1;
        let (mut any, mut all) = (0u16, u16::MAX);
        for row in &self.occ[1..=N] {
            for &v in &row[1..=N] {
                any |= v;
                all &= v;
            }
        }
        let mut shell = inner;
        for a in 1..=N {
            shell &= self.occ[0][a] & self.occ[PAD - 1][a] & self.occ[a][0] & self.occ[a][PAD - 1];
        }
        let buried = all == (1 << PAD) - 1 && shell == inner;
        self.no_opaque_faces = any & inner == 0 || buried;
    }
}
