//! Neighbourhood gathering: the padded block volume around a chunk, read across chunk borders,
//! and its classification into opaque-occupancy rows and transparent/special cells.

use vwr::{Block, Chunk, World, CHUNK_VOLUME};

use super::ao::{face_ao, AO_OPEN};
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
    pub fn gather(&mut self, world: &World, pos: [u32; 3], registry: &Registry) {
        self.cells.fill(0);
        let [cx, cy, cz] = pos;
        if let Some(c) = world.chunk([cx, cy, cz]) {
            let mut tmp = [Block::AIR; CHUNK_VOLUME];
            c.blocks_into(&mut tmp);
            for z in 0..N {
                for y in 0..N {
                    let src = &tmp[N * y + N * N * z..][..N];
                    let dst = &mut self.cells[pidx(1, y + 1, z + 1)..][..N];
                    for (d, s) in dst.iter_mut().zip(src) {
                        *d = s.raw();
                    }
                }
            }
        }
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
                    let (nx, ny, nz) = (
                        cx as i64 + dx as i64,
                        cy as i64 + dy as i64,
                        cz as i64 + dz as i64,
                    );
                    if nx < 0 || ny < 0 || nz < 0 {
                        continue;
                    }
                    let Some(ch) = world.chunk([nx as u32, ny as u32, nz as u32]) else {
                        continue;
                    };
                    let (sx, lx, px) = spans(dx);
                    let (sy, ly, py) = spans(dy);
                    let (sz, lz, pz) = spans(dz);
                    copy_block_range(
                        ch,
                        &mut self.cells,
                        [sx, sy, sz],
                        [lx, ly, lz],
                        [px, py, pz],
                    );
                }
            }
        }
        self.classify(registry);
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
        let raw = self.cells[pidx(x + 1, y + 1, z + 1)] as u32;
        let ao = if ao {
            face_ao(&self.occ, face.index(), x, y, z)
        } else {
            AO_OPEN
        };
        raw | (ao as u32) << 16
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
        let inner: u16 = ROW << 1;
        let mut any = 0u16;
        let mut buried = true;
        for a in 1..=N {
            for b in 1..=N {
                any |= self.occ[a][b] & inner;
                buried &= self.occ[a][b] == (1 << PAD) - 1;
            }
            buried &= self.occ[0][a] & inner == inner
                && self.occ[PAD - 1][a] & inner == inner
                && self.occ[a][0] & inner == inner
                && self.occ[a][PAD - 1] & inner == inner;
        }
        self.no_opaque_faces = any == 0 || buried;
    }
}

fn copy_block_range(
    ch: &Chunk,
    cells: &mut [u16; PAD3],
    start: [usize; 3],
    len: [usize; 3],
    dst: [usize; 3],
) {
    if ch.is_uniform() {
        let v = ch.palette()[0].raw();
        if v == 0 {
            return;
        }
        for z in 0..len[2] {
            for y in 0..len[1] {
                for x in 0..len[0] {
                    cells[pidx(dst[0] + x, dst[1] + y, dst[2] + z)] = v;
                }
            }
        }
        return;
    }
    for z in 0..len[2] {
        for y in 0..len[1] {
            for x in 0..len[0] {
                let i = vwr::local_index(start[0] + x, start[1] + y, start[2] + z);
                cells[pidx(dst[0] + x, dst[1] + y, dst[2] + z)] = ch.get(i).raw();
            }
        }
    }
}
