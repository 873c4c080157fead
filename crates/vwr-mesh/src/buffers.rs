//! Vertex buffers built from quads and special cells: what exporters and the rasteriser use.

mod watertight;

use crate::mesher::{ChunkMesh, Face, Quad, SpecialCell, WorldMesh};
use vwr_blocks::{Registry, Shape};

fn srgb_to_linear(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Indexed triangles with per-vertex attributes, one pass (opaque or transparent).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshPart {
    /// Positions in world units (one unit = one block).
    pub positions: Vec<[f32; 3]>,
    /// Unit normals.
    pub normals: Vec<[f32; 3]>,
    /// Texture coordinates in block units: they tile across merged quads (one texture repeat
    /// per block), V grows downwards on side faces.
    pub uvs: Vec<[f32; 2]>,
    /// Registry colour of the block, sRGB with straight alpha.
    pub colors: Vec<[u8; 4]>,
    /// Raw block value.
    pub blocks: Vec<u16>,
    /// Ambient occlusion 0 (darkest) ..= 3 (open).
    pub ao: Vec<u8>,
    /// Triangle list, counter-clockwise seen from the front.
    pub indices: Vec<u32>,
}

impl MeshPart {
    /// Linear RGBA vertex colours (the sRGB block colours decoded), multiplied by the
    /// ambient-occlusion factor [`crate::export::AO_FACTORS`] of each vertex when `bake_ao`:
    /// what glTF's `COLOR_0` and game engines' vertex colour attributes take.
    pub fn linear_colors(&self, bake_ao: bool) -> Vec<[f32; 4]> {
        // A quad's four vertices share a colour: each is decoded once per run.
        let mut last: Option<([u8; 4], u8, [f32; 4])> = None;
        self.colors
            .iter()
            .zip(&self.ao)
            .map(|(&c, &ao)| {
                let ao = if bake_ao { ao.min(3) } else { 3 };
                if let Some((lc, la, v)) = last {
                    if lc == c && la == ao {
                        return v;
                    }
                }
                let f = if bake_ao {
                    crate::export::AO_FACTORS[ao as usize]
                } else {
                    1.0
                };
                let v = [
                    srgb_to_linear(c[0]) * f,
                    srgb_to_linear(c[1]) * f,
                    srgb_to_linear(c[2]) * f,
                    c[3] as f32 / 255.0,
                ];
                last = Some((c, ao, v));
                v
            })
            .collect()
    }

    /// Vertex count.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Triangle count.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Whether there are no triangles.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// Axis-aligned bounds of the positions, if any.
    pub fn bounds(&self) -> Option<([f32; 3], [f32; 3])> {
        let mut it = self.positions.iter();
        let first = *it.next()?;
        let (mut lo, mut hi) = (first, first);
        for p in it {
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        Some((lo, hi))
    }

    /// Appends another part.
    pub fn append(&mut self, other: &MeshPart) {
        let base = self.positions.len() as u32;
        self.positions.extend_from_slice(&other.positions);
        self.normals.extend_from_slice(&other.normals);
        self.uvs.extend_from_slice(&other.uvs);
        self.colors.extend_from_slice(&other.colors);
        self.blocks.extend_from_slice(&other.blocks);
        self.ao.extend_from_slice(&other.ao);
        self.indices.extend(other.indices.iter().map(|i| i + base));
    }

    /// Subtracts `offset` from every position (to make a chunk's mesh chunk-local).
    pub fn translate(&mut self, offset: [f32; 3]) {
        for p in &mut self.positions {
            for a in 0..3 {
                p[a] -= offset[a];
            }
        }
    }

    /// Multiplies the positions and texture coordinates of the vertices from `first` on by
    /// `scale` (cells of a level of detail to world units).
    fn scale_from(&mut self, first: usize, scale: f32) {
        for p in &mut self.positions[first..] {
            *p = p.map(|v| v * scale);
        }
        for uv in &mut self.uvs[first..] {
            *uv = uv.map(|v| v * scale);
        }
    }

    fn push_vertex(
        &mut self,
        p: [f32; 3],
        n: [f32; 3],
        uv: [f32; 2],
        color: [u8; 4],
        block: u16,
        ao: u8,
    ) {
        self.positions.push(p);
        self.normals.push(n);
        self.uvs.push(uv);
        self.colors.push(color);
        self.blocks.push(block);
        self.ao.push(ao);
    }

    /// Appends one cube-face quad.
    pub fn push_quad(&mut self, q: &Quad, registry: &Registry) {
        let base = self.positions.len() as u32;
        let n = q.face.normal();
        let nf = [n[0] as f32, n[1] as f32, n[2] as f32];
        let color = registry.color(q.block.block_type());
        for (k, c) in q.corners().into_iter().enumerate() {
            self.push_vertex(c, nf, face_uv(q.face, c), color, q.block.raw(), q.ao[k]);
        }
        self.indices.extend(q.triangles().iter().map(|i| base + i));
    }

    /// Appends a planar quad from four corners in counter-clockwise order (seen from the
    /// side the normal points to).
    fn push_raw_quad(
        &mut self,
        c: [[f32; 3]; 4],
        n: [f32; 3],
        uv: [[f32; 2]; 4],
        color: [u8; 4],
        block: u16,
    ) {
        let base = self.positions.len() as u32;
        for k in 0..4 {
            self.push_vertex(c[k], n, uv[k], color, block, 3);
        }
        self.indices
            .extend([0, 1, 2, 0, 2, 3].iter().map(|i| base + i));
    }

    fn push_box(&mut self, lo: [f32; 3], hi: [f32; 3], color: [u8; 4], block: u16) {
        for face in Face::ALL {
            let (u, v) = face.tangent_axes();
            let a = face.axis();
            let mut c = [lo; 4];
            let plane = if face.is_positive() { hi[a] } else { lo[a] };
            let uvs = [(0, 0), (1, 0), (1, 1), (0, 1)];
            for (k, &(su, sv)) in uvs.iter().enumerate() {
                c[k][a] = plane;
                c[k][u] = if su == 1 { hi[u] } else { lo[u] };
                c[k][v] = if sv == 1 { hi[v] } else { lo[v] };
            }
            if !face.uv_is_ccw() {
                c.swap(1, 3);
            }
            let n = face.normal();
            let uv = c.map(|p| face_uv(face, p));
            self.push_raw_quad(c, [n[0] as f32, n[1] as f32, n[2] as f32], uv, color, block);
        }
    }

    /// A vertical rectangle from `a` to `b` (xz), `y0..y1`, drawn from both sides.
    fn push_double_sided(
        &mut self,
        a: [f32; 2],
        b: [f32; 2],
        y0: f32,
        y1: f32,
        color: [u8; 4],
        block: u16,
    ) {
        let (dx, dz) = (b[0] - a[0], b[1] - a[1]);
        let len = (dx * dx + dz * dz).sqrt().max(1e-6);
        // Normal of the front side: (dz, 0, -dx) / len makes a→b, bottom→top CCW.
        let n = [dz / len, 0.0, -dx / len];
        let p = |s: [f32; 2], y: f32| [s[0], y, s[1]];
        let front = [p(a, y0), p(b, y0), p(b, y1), p(a, y1)];
        let uv = [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]];
        // Check orientation: (b-a) × (up) must equal n for CCW.
        // (dx,0,dz) × (0,1,0) = (-dz, 0, dx) = -n·len, so reverse the order for the front.
        let front_ccw = [front[1], front[0], front[3], front[2]];
        let uv_f = [uv[1], uv[0], uv[3], uv[2]];
        self.push_raw_quad(front_ccw, n, uv_f, color, block);
        self.push_raw_quad(front, [-n[0], -n[1], -n[2]], uv, color, block);
    }

    /// Appends the geometry of a special cell.
    pub fn push_special(&mut self, s: &SpecialCell, registry: &Registry) {
        let color = registry.color(s.block.block_type());
        let block = s.block.raw();
        let o = [s.pos[0] as f32, s.pos[1] as f32, s.pos[2] as f32];
        let at = |x: f32, y: f32, z: f32| [o[0] + x, o[1] + y, o[2] + z];
        // A box in cell units, x and z swapped when the plate is rotated, placed in the cell.
        let plate = |lo: [f32; 3], hi: [f32; 3]| {
            let (lo, hi) = if s.rotated {
                ([lo[2], lo[1], lo[0]], [hi[2], hi[1], hi[0]])
            } else {
                (lo, hi)
            };
            (at(lo[0], lo[1], lo[2]), at(hi[0], hi[1], hi[2]))
        };
        match s.shape {
            Shape::Plate => {
                let (lo, hi) = plate([0.0, 0.0, 0.4375], [1.0, 1.0, 0.5625]);
                self.push_box(lo, hi, color, block);
            }
            Shape::GroundPlate => {
                let (lo, hi) = plate([0.05, 0.0, 0.44], [0.95, 0.85, 0.56]);
                self.push_box(lo, hi, color, block);
            }
            Shape::Pillar => self.push_box(at(0.3, 0.0, 0.3), at(0.7, 1.0, 0.7), color, block),
            Shape::Bar => self.push_box(at(0.44, 0.0, 0.44), at(0.56, 1.0, 0.56), color, block),
            Shape::Billboard => {
                for k in 0..3 {
                    let ang = std::f32::consts::PI * k as f32 / 3.0;
                    let (c, sn) = (0.5 * ang.cos(), 0.5 * ang.sin());
                    self.push_double_sided(
                        [o[0] + 0.5 - c, o[2] + 0.5 - sn],
                        [o[0] + 0.5 + c, o[2] + 0.5 + sn],
                        o[1],
                        o[1] + 1.0,
                        color,
                        block,
                    );
                }
            }
            Shape::Grate => {
                let e = 0.02;
                let (x0, x1, z0, z1) = (o[0] + e, o[0] + 1.0 - e, o[2] + e, o[2] + 1.0 - e);
                let (y0, y1) = (o[1], o[1] + 1.0);
                self.push_double_sided([x0, z1], [x1, z1], y0, y1, color, block);
                self.push_double_sided([x1, z0], [x0, z0], y0, y1, color, block);
                self.push_double_sided([x1, z1], [x1, z0], y0, y1, color, block);
                self.push_double_sided([x0, z0], [x0, z1], y0, y1, color, block);
            }
        }
    }
}

/// Texture coordinates of a point on a cube face, in block units.
fn face_uv(face: Face, p: [f32; 3]) -> [f32; 2] {
    let [x, y, z] = p;
    match face {
        Face::PosX => [-z, -y],
        Face::NegX => [z, -y],
        Face::PosZ => [x, -y],
        Face::NegZ => [-x, -y],
        Face::PosY => [x, z],
        Face::NegY => [x, -z],
    }
}

/// The two passes of a mesh.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshBuffers {
    /// Opaque cube faces and opaque special geometry.
    pub opaque: MeshPart,
    /// Transparent cube faces and see-through special geometry (alpha < 255).
    pub transparent: MeshPart,
}

impl MeshBuffers {
    /// Appends a chunk's quads and special geometry; the quads without T-junctions when the
    /// chunk was meshed [`watertight`](crate::MeshOptions::watertight).
    /// A chunk of a level of detail ([`ChunkMesh::level`] k) is scaled by 2^k, positions and
    /// texture coordinates alike (so textures still repeat once per block).
    pub fn push_chunk(&mut self, c: &ChunkMesh, registry: &Registry) {
        let firsts = [self.opaque.vertex_count(), self.transparent.vertex_count()];
        let passes = [
            (&mut self.opaque, &c.opaque),
            (&mut self.transparent, &c.transparent),
        ];
        if c.watertight {
            let set = watertight::CornerSet::of(c);
            let mut pts = Vec::new();
            for (part, quads) in passes {
                for q in quads {
                    watertight::push_quad(part, q, registry, &set, &mut pts);
                }
            }
        } else {
            for (part, quads) in passes {
                for q in quads {
                    part.push_quad(q, registry);
                }
            }
        }
        for s in &c.special {
            if registry.color(s.block.block_type())[3] == 255 {
                self.opaque.push_special(s, registry);
            } else {
                self.transparent.push_special(s, registry);
            }
        }
        if c.level > 0 {
            let scale = c.cell_size();
            self.opaque.scale_from(firsts[0], scale);
            self.transparent.scale_from(firsts[1], scale);
        }
    }

    /// Buffers of one chunk.
    pub fn from_chunk(c: &ChunkMesh, registry: &Registry) -> MeshBuffers {
        let mut b = MeshBuffers::default();
        b.push_chunk(c, registry);
        b
    }

    /// Buffers of a whole world, merged.
    pub fn from_world(m: &WorldMesh, registry: &Registry) -> MeshBuffers {
        let mut b = MeshBuffers::default();
        for c in &m.chunks {
            b.push_chunk(c, registry);
        }
        b
    }

    /// Vertices in both passes.
    pub fn vertex_count(&self) -> usize {
        self.opaque.vertex_count() + self.transparent.vertex_count()
    }

    /// Triangles in both passes.
    pub fn triangle_count(&self) -> usize {
        self.opaque.triangle_count() + self.transparent.triangle_count()
    }
}
