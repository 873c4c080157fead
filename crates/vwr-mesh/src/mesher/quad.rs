//! The output geometry: face directions, quads and special cells.

use vwr::Block;

use super::ao::unpack_ao;
use vwr_blocks::Shape;

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
        (self as usize).is_multiple_of(2)
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

    /// Corner positions in world units (block corners, so whole numbers), in AO order.
    pub fn corner_points(&self) -> [[i32; 3]; 4] {
        let (u, v) = self.face.tangent_axes();
        let mut base = self.origin;
        if self.face.is_positive() {
            base[self.face.axis()] += 1;
        }
        let (su, sv) = (self.size[0] as i32, self.size[1] as i32);
        let mut out = [base; 4];
        out[1][u] += su;
        out[2][u] += su;
        out[2][v] += sv;
        out[3][v] += sv;
        out
    }

    /// Corner positions in world units, in AO order.
    pub fn corners(&self) -> [[f32; 3]; 4] {
        self.corner_points().map(|p| p.map(|x| x as f32))
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

impl Quad {
    /// The quad of face `face` starting at local cell `cell` of a chunk whose first cell is at
    /// `origin`, from a face key (block value in the low 16 bits, packed AO above): the one
    /// place both meshing paths turn faces into quads.
    #[inline(always)]
    pub(super) fn from_key(
        origin: [i32; 3],
        cell: [usize; 3],
        face: Face,
        size: [u8; 2],
        key: u32,
    ) -> Quad {
        let mut quad = Quad {
            origin: world_pos(origin, cell),
            face,
            size,
            block: Block(0),
            ao: [0; 4],
        };
        quad.set_key(key);
        quad
    }

    /// Sets the block and AO from a face key (see [`Quad::from_key`]).
    #[inline(always)]
    pub(super) fn set_key(&mut self, key: u32) {
        self.block = Block(key as u16);
        self.ao = unpack_ao((key >> 16) as u8);
    }
}

/// World position of local cell `cell` of a chunk whose first cell is at `origin`.
#[inline(always)]
pub(super) fn world_pos(origin: [i32; 3], cell: [usize; 3]) -> [i32; 3] {
    [
        origin[0] + cell[0] as i32,
        origin[1] + cell[1] as i32,
        origin[2] + cell[2] as i32,
    ]
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

#[cfg(test)]
mod tests {
    use super::*;

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
