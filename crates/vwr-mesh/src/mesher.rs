//! Per-chunk meshers: exposed faces and greedy rectangles, with optional ambient occlusion.
//!
//! A chunk is meshed from a [`Neighborhood`]: its 10³ cells plus a one-cell shell read from
//! the neighbouring chunks (air outside the world), so faces on chunk borders and AO across
//! them come out exactly as if the world were one array.

use vwr::{Block, Chunk, World, CHUNK_SIZE, CHUNK_VOLUME, META_PLATE_ROTATION};
use vwr_blocks::{
    Registry, RenderKind, Shape, CLASS_NONE, CLASS_OPAQUE, CLASS_SPECIAL, CLASS_TRANSPARENT,
};

/// Cells per axis of a padded neighbourhood (10 + 2).
pub const PAD: usize = CHUNK_SIZE + 2;
const PAD2: usize = PAD * PAD;
/// Cells in a padded neighbourhood.
pub const PAD3: usize = PAD * PAD * PAD;
const N: usize = CHUNK_SIZE;
const ROW: u16 = (1 << N) - 1;

/// One of the six axis-aligned face directions, in the crate's fixed order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Face {
    /// Facing +X (east).
    PosX = 0,
    /// Facing −X (west).
    NegX = 1,
    /// Facing +Y (up).
    PosY = 2,
    /// Facing −Y (down).
    NegY = 3,
    /// Facing +Z (south, towards a default glTF viewer).
    PosZ = 4,
    /// Facing −Z (north).
    NegZ = 5,
}

impl Face {
    /// All faces in order.
    pub const ALL: [Face; 6] = [
        Face::PosX,
        Face::NegX,
        Face::PosY,
        Face::NegY,
        Face::PosZ,
        Face::NegZ,
    ];

    /// The face's index in [`Face::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The axis the face is perpendicular to (0 = X, 1 = Y, 2 = Z).
    pub const fn axis(self) -> usize {
        self as usize / 2
    }

    /// Whether the face points along the positive axis.
    pub const fn is_positive(self) -> bool {
        self as usize % 2 == 0
    }

    /// The outward unit normal.
    pub const fn normal(self) -> [i32; 3] {
        let mut n = [0; 3];
        n[self.axis()] = if self.is_positive() { 1 } else { -1 };
        n
    }

    /// The quad's (U, V) axes: X faces (Y, Z), Y faces (X, Z), Z faces (X, Y).
    pub const fn tangent_axes(self) -> (usize, usize) {
        match self.axis() {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        }
    }

    /// Whether U × V equals the outward normal (then corners 0-1-2-3 run counter-clockwise
    /// seen from outside); true for +X, −Y and +Z.
    pub const fn uv_is_ccw(self) -> bool {
        matches!(self, Face::PosX | Face::NegY | Face::PosZ)
    }
}

/// A rectangle of coplanar unit faces of one block with one AO pattern.
///
/// It covers the faces of cells `origin + i·U + j·V` for `i < size[0]`, `j < size[1]`, where
/// (U, V) are [`Face::tangent_axes`]. Corner `k` of [`Quad::ao`] and [`Quad::corners`] is, in
/// (U, V) units, `(0,0)`, `(size0,0)`, `(size0,size1)`, `(0,size1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Quad {
    /// World position of the first cell.
    pub origin: [i32; 3],
    /// Which face of the cells.
    pub face: Face,
    /// Extent along U and V in cells (1..=10).
    pub size: [u8; 2],
    /// The block whose faces these are.
    pub block: Block,
    /// Per-corner ambient occlusion, 0 (darkest) ..= 3 (open); all 3 when AO is off.
    pub ao: [u8; 4],
}

impl Quad {
    /// Number of unit faces covered.
    pub fn area(&self) -> u32 {
        self.size[0] as u32 * self.size[1] as u32
    }

    /// The unit faces covered, as (cell, face).
    pub fn unit_faces(&self) -> impl Iterator<Item = ([i32; 3], Face)> + '_ {
        let (u, v) = self.face.tangent_axes();
        (0..self.size[1] as i32).flat_map(move |j| {
            (0..self.size[0] as i32).map(move |i| {
                let mut c = self.origin;
                c[u] += i;
                c[v] += j;
                (c, self.face)
            })
        })
    }

    /// Corner positions in world units, in AO order.
    pub fn corners(&self) -> [[f32; 3]; 4] {
        let (u, v) = self.face.tangent_axes();
        let a = self.face.axis();
        let mut base = [
            self.origin[0] as f32,
            self.origin[1] as f32,
            self.origin[2] as f32,
        ];
        if self.face.is_positive() {
            base[a] += 1.0;
        }
        let (su, sv) = (self.size[0] as f32, self.size[1] as f32);
        let mut out = [base; 4];
        out[1][u] += su;
        out[2][u] += su;
        out[2][v] += sv;
        out[3][v] += sv;
        out
    }

    /// Whether the quad is split along the 1–3 diagonal instead of 0–2: chosen when corners
    /// 0 and 2 are together brighter than 1 and 3, so that the darker pair shares the
    /// diagonal and AO interpolates symmetrically (no anisotropy artifacts).
    pub fn flipped(&self) -> bool {
        let a = self.ao;
        a[0] as u32 + a[2] as u32 > a[1] as u32 + a[3] as u32
    }

    /// The two triangles as corner indices (0..4), counter-clockwise seen from outside.
    pub fn triangles(&self) -> [u32; 6] {
        match (self.flipped(), self.face.uv_is_ccw()) {
            (false, true) => [0, 1, 2, 0, 2, 3],
            (false, false) => [0, 2, 1, 0, 3, 2],
            (true, true) => [1, 2, 3, 1, 3, 0],
            (true, false) => [1, 3, 2, 1, 0, 3],
        }
    }
}

/// A cell drawn with special (non-cube) geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpecialCell {
    /// World position.
    pub pos: [i32; 3],
    /// The block.
    pub block: Block,
    /// Its shape.
    pub shape: Shape,
    /// A plate-rotation record turns it 90° (swapping X and Z).
    pub rotated: bool,
}

/// The mesh of one chunk: quads of the opaque and transparent passes, and special cells.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkMesh {
    /// Chunk position.
    pub chunk: [u32; 3],
    /// Faces of opaque cubes.
    pub opaque: Vec<Quad>,
    /// Faces of transparent cubes.
    pub transparent: Vec<Quad>,
    /// Cells with special geometry.
    pub special: Vec<SpecialCell>,
}

impl ChunkMesh {
    /// Whether there is nothing to draw.
    pub fn is_empty(&self) -> bool {
        self.opaque.is_empty() && self.transparent.is_empty() && self.special.is_empty()
    }

    /// Number of quads in both cube passes.
    pub fn quad_count(&self) -> usize {
        self.opaque.len() + self.transparent.len()
    }

    /// Number of unit faces covered by both cube passes.
    pub fn unit_face_count(&self) -> u64 {
        self.opaque
            .iter()
            .chain(&self.transparent)
            .map(|q| q.area() as u64)
            .sum()
    }

    fn clear(&mut self) {
        self.opaque.clear();
        self.transparent.clear();
        self.special.clear();
    }
}

/// What to produce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MeshOptions {
    /// Merge coplanar faces of the same block (and the same AO) into rectangles.
    pub greedy: bool,
    /// Compute per-corner ambient occlusion.
    pub ao: bool,
}

impl MeshOptions {
    /// One quad per visible face, no AO.
    pub const EXPOSED: MeshOptions = MeshOptions {
        greedy: false,
        ao: false,
    };
    /// One quad per visible face, with AO.
    pub const EXPOSED_AO: MeshOptions = MeshOptions {
        greedy: false,
        ao: true,
    };
    /// Greedy merging, no AO.
    pub const GREEDY: MeshOptions = MeshOptions {
        greedy: true,
        ao: false,
    };
    /// Greedy merging of faces with equal AO.
    pub const GREEDY_AO: MeshOptions = MeshOptions {
        greedy: true,
        ao: true,
    };
}

/// A chunk's cells plus a one-cell shell from its neighbours, classified by a registry:
/// the input of [`Mesher::mesh`].
///
/// Holds the raw block values (index of local cell `(x, y, z)`, each −1..=10, is
/// `(x+1) + 12(y+1) + 144(z+1)`), the opaque-occupancy bit rows, and the list of interior
/// cells that are transparent or special. Build it with [`Neighborhood::gather`] (from a
/// world) or [`Neighborhood::from_fn`].
#[derive(Clone)]
pub struct Neighborhood {
    cells: Box<[u16; PAD3]>,
    /// Opaque occupancy: `occ[z][y]` bit x (padded coordinates).
    occ: [[u16; PAD]; PAD],
    /// Interior transparent and special cells: (linear index, class, shape).
    others: Vec<(u16, u8, Option<Shape>)>,
    /// No opaque cell can show a face (none inside, or all buried).
    no_opaque_faces: bool,
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

#[inline(always)]
const fn pidx(x: usize, y: usize, z: usize) -> usize {
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
        if let Some(c) = world.chunk(cx, cy, cz) {
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
                    let Some(ch) = world.chunk(nx as u32, ny as u32, nz as u32) else {
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

const fn ao_bit(n: usize, du: i32, dv: i32) -> u8 {
    ((n >> ((du + 1) + 3 * (dv + 1))) & 1) as u8
}

/// AO of the four corners from a 3×3 occupancy pattern of the cells in front of a face
/// (bit `(du+1) + 3(dv+1)`), packed 2 bits per corner in corner order.
const AO_TABLE: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut n = 0;
    while n < 512 {
        let corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)];
        let mut packed = 0u8;
        let mut k = 0;
        while k < 4 {
            let (du, dv) = corners[k];
            let s1 = ao_bit(n, du, 0);
            let s2 = ao_bit(n, 0, dv);
            let c = ao_bit(n, du, dv);
            let ao = if s1 == 1 && s2 == 1 {
                0
            } else {
                3 - s1 - s2 - c
            };
            packed |= ao << (2 * k);
            k += 1;
        }
        t[n] = packed;
        n += 1;
    }
    t
};

/// Packed AO with every corner open.
const AO_OPEN: u8 = 0xFF;

#[inline(always)]
fn unpack_ao(p: u8) -> [u8; 4] {
    [p & 3, (p >> 2) & 3, (p >> 4) & 3, (p >> 6) & 3]
}

/// Visible-face rows of one pass: `[face][slice][row]`, bit = position along the row.
type FaceRows = [[[u16; N]; N]; 6];

/// Reusable meshing scratch buffers; one per thread.
#[derive(Clone)]
pub struct Mesher {
    vis: Box<FaceRows>,
    keys: [[u32; N]; N],
    tkeys: [[u32; N]; N],
    rects: Vec<(u8, u8, u8, u8, u32)>,
    rects2: Vec<(u8, u8, u8, u8, u32)>,
}

impl Default for Mesher {
    fn default() -> Self {
        Mesher::new()
    }
}

impl std::fmt::Debug for Mesher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mesher {{ .. }}")
    }
}

/// Local (x, y, z) of bit `b` in row `q` of slice `s` of face `f`.
#[inline(always)]
fn local_of(face: usize, s: usize, q: usize, b: usize) -> (usize, usize, usize) {
    match face {
        0 | 1 => (s, b, q),
        2 | 3 => (b, s, q),
        _ => (b, q, s),
    }
}

/// Packed AO of face `face` of local cell (x, y, z) (0..10 each).
#[inline(always)]
fn face_ao(occ: &[[u16; PAD]; PAD], face: usize, x: usize, y: usize, z: usize) -> u8 {
    // Padded coordinates of the cell are (x+1, y+1, z+1); the plane in front of the face is
    // one step along the normal. Window rows dv = −1, 0, 1, 3 bits (du = −1, 0, 1) each.
    let n9 = match face {
        0 | 1 => {
            // U = Y, V = Z: gather bit xp of rows occ[z'][y'] for the 3×3 (y', z').
            let xp = if face == 0 { x + 2 } else { x };
            let mut n = 0u16;
            for dv in 0..3 {
                for du in 0..3 {
                    n |= ((occ[z + dv][y + du] >> xp) & 1) << (du + 3 * dv);
                }
            }
            n
        }
        2 | 3 => {
            let yp = if face == 2 { y + 2 } else { y };
            ((occ[z][yp] >> x) & 7)
                | ((occ[z + 1][yp] >> x) & 7) << 3
                | ((occ[z + 2][yp] >> x) & 7) << 6
        }
        _ => {
            let zp = if face == 4 { z + 2 } else { z };
            ((occ[zp][y] >> x) & 7)
                | ((occ[zp][y + 1] >> x) & 7) << 3
                | ((occ[zp][y + 2] >> x) & 7) << 6
        }
    };
    AO_TABLE[n9 as usize]
}

impl Mesher {
    /// A mesher with empty scratch buffers.
    pub fn new() -> Mesher {
        Mesher {
            vis: Box::new([[[0; N]; N]; 6]),
            keys: [[0; N]; N],
            tkeys: [[0; N]; N],
            rects: Vec::new(),
            rects2: Vec::new(),
        }
    }

    /// Meshes one neighbourhood whose first interior cell is at world position `origin`,
    /// replacing the contents of `out` (its `chunk` field is left as is). Special cells come
    /// out unrotated; [`mesh_chunk`] applies plate-rotation records.
    pub fn mesh(
        &mut self,
        nb: &Neighborhood,
        origin: [i32; 3],
        opts: MeshOptions,
        out: &mut ChunkMesh,
    ) {
        out.clear();
        let cells = &*nb.cells;
        let occ = &nb.occ;

        if nb.no_opaque_faces {
            // Nothing to do for the opaque pass.
        } else if !opts.greedy {
            // Exposed faces straight from whole-row bit operations.
            let q = &mut out.opaque;
            let emit =
                |q: &mut Vec<Quad>, mut bits: u16, face: Face, y: usize, z: usize, ao_on: bool| {
                    while bits != 0 {
                        let x = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        let ao = if ao_on {
                            face_ao(occ, face as usize, x, y, z)
                        } else {
                            AO_OPEN
                        };
                        q.push(Quad {
                            origin: [
                                origin[0] + x as i32,
                                origin[1] + y as i32,
                                origin[2] + z as i32,
                            ],
                            face,
                            size: [1, 1],
                            block: Block(cells[pidx(x + 1, y + 1, z + 1)]),
                            ao: unpack_ao(ao),
                        });
                    }
                };
            for z in 0..N {
                for y in 0..N {
                    let c = occ[z + 1][y + 1];
                    if c & (ROW << 1) == 0 {
                        continue;
                    }
                    let row = |v: u16| (v >> 1) & ROW;
                    emit(q, row(c & !(c >> 1)), Face::PosX, y, z, opts.ao);
                    emit(q, row(c & !(c << 1)), Face::NegX, y, z, opts.ao);
                    emit(q, row(c & !occ[z + 1][y + 2]), Face::PosY, y, z, opts.ao);
                    emit(q, row(c & !occ[z + 1][y]), Face::NegY, y, z, opts.ao);
                    emit(q, row(c & !occ[z + 2][y + 1]), Face::PosZ, y, z, opts.ao);
                    emit(q, row(c & !occ[z][y + 1]), Face::NegZ, y, z, opts.ao);
                }
            }
        } else {
            // Greedy: visible-face rows per slice, then rectangles.
            let vis = &mut *self.vis;
            vis[0] = [[0; N]; N];
            vis[1] = [[0; N]; N];
            let mut nonempty = [0u16; 6];
            for s in 0..N {
                let (mut a2, mut a3, mut a4, mut a5) = (0u16, 0u16, 0u16, 0u16);
                for q in 0..N {
                    // ±Y: slice y = s, row z = q, bits x.
                    let c = occ[q + 1][s + 1];
                    let py = (c & !occ[q + 1][s + 2]) >> 1 & ROW;
                    let ny = (c & !occ[q + 1][s]) >> 1 & ROW;
                    // ±Z: slice z = s, row y = q, bits x.
                    let c2 = occ[s + 1][q + 1];
                    let pz = (c2 & !occ[s + 2][q + 1]) >> 1 & ROW;
                    let nz = (c2 & !occ[s][q + 1]) >> 1 & ROW;
                    vis[2][s][q] = py;
                    vis[3][s][q] = ny;
                    vis[4][s][q] = pz;
                    vis[5][s][q] = nz;
                    a2 |= py;
                    a3 |= ny;
                    a4 |= pz;
                    a5 |= nz;
                    // ±X: rows along x here (z = s, y = q), scattered into slice x, row z, bit y.
                    let mut px = (c2 & !(c2 >> 1)) >> 1 & ROW;
                    let mut nx = (c2 & !(c2 << 1)) >> 1 & ROW;
                    nonempty[0] |= px;
                    nonempty[1] |= nx;
                    while px != 0 {
                        let x = px.trailing_zeros() as usize;
                        px &= px - 1;
                        vis[0][x][s] |= 1 << q;
                    }
                    while nx != 0 {
                        let x = nx.trailing_zeros() as usize;
                        nx &= nx - 1;
                        vis[1][x][s] |= 1 << q;
                    }
                }
                nonempty[2] |= ((a2 != 0) as u16) << s;
                nonempty[3] |= ((a3 != 0) as u16) << s;
                nonempty[4] |= ((a4 != 0) as u16) << s;
                nonempty[5] |= ((a5 != 0) as u16) << s;
            }
            let any = nonempty.iter().fold(0, |a, &b| a | b);
            if any != 0 {
                self.greedy_pass(cells, occ, origin, opts, nonempty, &mut out.opaque);
            }
        }

        if nb.others.is_empty() {
            return;
        }
        // Transparent cubes and special cells: few, handled cell by cell.
        let is_opaque = |p: usize| -> bool {
            let (x, y, z) = (p % PAD, (p / PAD) % PAD, p / PAD2);
            (occ[z][y] >> x) & 1 == 1
        };
        let mut any_t = false;
        for &(i, class, shape) in &nb.others {
            let i = i as usize;
            let (x, y, z) = (i % N, (i / N) % N, i / (N * N));
            let p = pidx(x + 1, y + 1, z + 1);
            let raw = cells[p];
            if class == CLASS_SPECIAL {
                if let Some(shape) = shape {
                    out.special.push(SpecialCell {
                        pos: [
                            origin[0] + x as i32,
                            origin[1] + y as i32,
                            origin[2] + z as i32,
                        ],
                        block: Block(raw),
                        shape,
                        rotated: false,
                    });
                }
                continue;
            }
            if !any_t {
                *self.vis = [[[0; N]; N]; 6];
                any_t = true;
            }
            for face in Face::ALL {
                let [dx, dy, dz] = face.normal();
                let np = (p as isize
                    + dx as isize
                    + dy as isize * PAD as isize
                    + dz as isize * PAD2 as isize) as usize;
                let nraw = cells[np];
                if nraw == raw || is_opaque(np) {
                    continue;
                }
                let (s, q, b) = match face.axis() {
                    0 => (x, z, y),
                    1 => (y, z, x),
                    _ => (z, y, x),
                };
                self.vis[face.index()][s][q] |= 1 << b;
            }
        }
        if any_t {
            self.greedy_pass(cells, occ, origin, opts, [ROW; 6], &mut out.transparent);
        }
    }

    /// Emits the quads of the visible-face rows in `self.vis` (merged when `opts.greedy`).
    fn greedy_pass(
        &mut self,
        cells: &[u16; PAD3],
        occ: &[[u16; PAD]; PAD],
        origin: [i32; 3],
        opts: MeshOptions,
        nonempty: [u16; 6],
        out: &mut Vec<Quad>,
    ) {
        let keys = &mut self.keys;
        for (f, slices) in self.vis.iter().enumerate() {
            let face = Face::ALL[f];
            let mut todo = nonempty[f];
            while todo != 0 {
                let s = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                let rows = &slices[s];
                if rows.iter().all(|&r| r == 0) {
                    continue;
                }
                // Y and Z faces merge column-first (on the transposed slice), X faces
                // row-first: rectangles grow along X first on Y faces, along Y first on Z
                // faces and along Z first on X faces, which on the benchmark worlds gives
                // no more quads than either peer library.
                let transposed = f >= 2 && opts.greedy;
                let mut tmask = [0u16; N];
                let mut count = 0u32;
                let mut first = None;
                let mut uniform = true;
                for (q, &row) in rows.iter().enumerate() {
                    let mut bits = row;
                    count += row.count_ones();
                    while bits != 0 {
                        let b = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        let (x, y, z) = local_of(f, s, q, b);
                        let raw = cells[pidx(x + 1, y + 1, z + 1)] as u32;
                        let ao = if opts.ao {
                            face_ao(occ, f, x, y, z)
                        } else {
                            AO_OPEN
                        };
                        let k = raw | (ao as u32) << 16;
                        if transposed {
                            tmask[b] |= 1 << q;
                            self.tkeys[b][q] = k;
                        } else {
                            keys[q][b] = k;
                        }
                        match first {
                            None => first = Some(k),
                            Some(f) => uniform &= f == k,
                        }
                    }
                }
                if !opts.greedy || count == 1 {
                    for (q, &row) in rows.iter().enumerate() {
                        let mut bits = row;
                        while bits != 0 {
                            let b = bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            let k = if transposed {
                                self.tkeys[b][q]
                            } else {
                                keys[q][b]
                            };
                            self.rects.push((b as u8, q as u8, 1, 1, k));
                        }
                    }
                } else if transposed {
                    merge_rows(&tmask, &self.tkeys, uniform, &mut self.rects2);
                    self.rects
                        .extend(self.rects2.iter().map(|&(b, q, w, h, k)| (q, b, h, w, k)));
                } else {
                    merge_rows(rows, keys, uniform, &mut self.rects);
                }
                for &(b, q, w, h, k) in &self.rects {
                    let (x, y, z) = local_of(f, s, q as usize, b as usize);
                    out.push(Quad {
                        origin: [
                            origin[0] + x as i32,
                            origin[1] + y as i32,
                            origin[2] + z as i32,
                        ],
                        face,
                        size: [w, h],
                        block: Block(k as u16),
                        ao: unpack_ao((k >> 16) as u8),
                    });
                }
                self.rects.clear();
            }
        }
    }
}

/// Greedy rectangles: widest run along the row, then as many rows down as match. With
/// `uniform` (every key of the slice equal) only the bit masks are compared.
#[inline]
fn merge_rows(
    rows: &[u16; N],
    keys: &[[u32; N]; N],
    uniform: bool,
    out: &mut Vec<(u8, u8, u8, u8, u32)>,
) {
    out.clear();
    let mut mask = *rows;
    let mut live = 0u16;
    for (q, &m) in mask.iter().enumerate() {
        live |= ((m != 0) as u16) << q;
    }
    while live != 0 {
        let q = live.trailing_zeros() as usize;
        let row = mask[q];
        let b = row.trailing_zeros() as usize;
        let k = keys[q][b];
        let run = (!(row >> b)).trailing_zeros() as usize;
        let w = if uniform {
            run
        } else {
            let kr = &keys[q][b..b + run];
            kr.iter().position(|&kk| kk != k).unwrap_or(run)
        };
        let span: u16 = (((1u32 << w) - 1) << b) as u16;
        let mut h = 1;
        while q + h < N && mask[q + h] & span == span {
            if !uniform && keys[q + h][b..b + w].iter().any(|&kk| kk != k) {
                break;
            }
            h += 1;
        }
        for (j, m) in mask[q..q + h].iter_mut().enumerate() {
            *m &= !span;
            if *m == 0 {
                live &= !(1 << (q + j));
            }
        }
        out.push((b as u8, q as u8, w as u8, h as u8, k));
    }
}

/// Whether any palette entry of a chunk draws something.
pub(crate) fn chunk_has_visible(chunk: &Chunk, registry: &Registry) -> bool {
    chunk
        .palette()
        .iter()
        .any(|b| registry.class_of_type(b.block_type()) != CLASS_NONE)
}

/// Meshes chunk `pos` of a world (an empty mesh when nothing in it is drawn).
pub fn mesh_chunk(
    world: &World,
    registry: &Registry,
    pos: [u32; 3],
    opts: MeshOptions,
) -> ChunkMesh {
    let mut mesher = Mesher::new();
    let mut nb = Neighborhood::new();
    let mut out = ChunkMesh::default();
    mesh_chunk_with(world, registry, pos, opts, &mut mesher, &mut nb, &mut out);
    out
}

/// [`mesh_chunk`] with caller-owned scratch buffers.
pub fn mesh_chunk_with(
    world: &World,
    registry: &Registry,
    pos: [u32; 3],
    opts: MeshOptions,
    mesher: &mut Mesher,
    nb: &mut Neighborhood,
    out: &mut ChunkMesh,
) {
    out.clear();
    out.chunk = pos;
    let Some(chunk) = world.chunk(pos[0], pos[1], pos[2]) else {
        return;
    };
    if !chunk_has_visible(chunk, registry) {
        return;
    }
    nb.gather(world, pos, registry);
    let c = CHUNK_SIZE as i32;
    let origin = [pos[0] as i32 * c, pos[1] as i32 * c, pos[2] as i32 * c];
    mesher.mesh(nb, origin, opts, out);
    for s in &mut out.special {
        let l = [
            (s.pos[0] - origin[0]) as usize,
            (s.pos[1] - origin[1]) as usize,
            (s.pos[2] - origin[2]) as usize,
        ];
        s.rotated = chunk
            .metadata(vwr::local_index(l[0], l[1], l[2]), META_PLATE_ROTATION)
            .is_some_and(|p| p.first().is_some_and(|&b| b != 0));
    }
}

/// Meshes of every chunk of a world that draws something, in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorldMesh {
    /// Non-empty chunk meshes.
    pub chunks: Vec<ChunkMesh>,
}

impl WorldMesh {
    /// Quads in both cube passes.
    pub fn quad_count(&self) -> usize {
        self.chunks.iter().map(|c| c.quad_count()).sum()
    }

    /// Unit faces covered.
    pub fn unit_face_count(&self) -> u64 {
        self.chunks.iter().map(|c| c.unit_face_count()).sum()
    }

    /// Special cells.
    pub fn special_count(&self) -> usize {
        self.chunks.iter().map(|c| c.special.len()).sum()
    }
}

/// Meshes a whole world.
pub fn mesh_world(world: &World, registry: &Registry, opts: MeshOptions) -> WorldMesh {
    let mut mesher = Mesher::new();
    let mut nb = Neighborhood::new();
    let mut chunks = Vec::new();
    let mut out = ChunkMesh::default();
    let positions: Vec<[u32; 3]> = world.chunks().map(|(p, _)| p).collect();
    for pos in positions {
        mesh_chunk_with(world, registry, pos, opts, &mut mesher, &mut nb, &mut out);
        if !out.is_empty() {
            chunks.push(std::mem::take(&mut out));
        }
    }
    WorldMesh { chunks }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ao_table_rule() {
        // Nothing around: all open.
        assert_eq!(unpack_ao(AO_TABLE[0]), [3, 3, 3, 3]);
        // Only the (-1,-1) corner cell: corner 0 gets 2.
        assert_eq!(unpack_ao(AO_TABLE[1]), [2, 3, 3, 3]);
        // Both sides of corner 0 (du=-1,dv=0 is bit 3; du=0,dv=-1 is bit 1): 0 regardless.
        assert_eq!(unpack_ao(AO_TABLE[(1 << 3) | (1 << 1)])[0], 0);
        // One side (bit 3 = left) darkens corners 0 and 3 by one.
        assert_eq!(unpack_ao(AO_TABLE[1 << 3]), [2, 3, 3, 2]);
    }

    #[test]
    fn face_tables_consistent() {
        for f in Face::ALL {
            let (u, v) = f.tangent_axes();
            let mut e = [[0i32; 3]; 2];
            e[0][u] = 1;
            e[1][v] = 1;
            let cross = [
                e[0][1] * e[1][2] - e[0][2] * e[1][1],
                e[0][2] * e[1][0] - e[0][0] * e[1][2],
                e[0][0] * e[1][1] - e[0][1] * e[1][0],
            ];
            assert_eq!(cross == f.normal(), f.uv_is_ccw(), "{f:?}");
        }
    }
}
