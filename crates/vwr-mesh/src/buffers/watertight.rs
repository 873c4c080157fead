//! Watertight triangulation of cube-face quads: no T-junctions.
//!
//! Greedy quads of different sizes meet with a corner of one in the middle of another's edge
//! (a T-junction). A rasteriser rounds the long edge and the two short ones differently, so
//! single pixels of whatever lies behind show through along such edges. Here a quad is drawn
//! as the polygon of its corners and of every point on its edges where a corner of another
//! quad lies, cut into triangles without degenerate ones; neighbouring triangles then share
//! whole edges.
//!
//! Within a chunk, the points are the corners of the chunk's own quads (both passes). Across
//! chunks: a quad lies in its chunk's closed box, so a corner of a neighbouring chunk's quad
//! that lies inside one of its edges lies on a border plane of that box, and an edge of a
//! quad in the box with an inner point on a plane bounding the box lies in that plane. Such
//! edges are split at every whole-block point, where all corners of the neighbour's quads
//! lie: nothing is read from the neighbour, so the buffers of a chunk depend on its own
//! quads alone (a cached chunk stays right when only its neighbour is meshed again). A plane
//! the chunk was meshed closed on ([`ChunkMesh::closed`], levels of detail) is not split:
//! the chunk's surface is closed there by itself.

use super::{face_uv, MeshPart};
use crate::mesher::{ChunkMesh, Quad};
use vwr::CHUNK_SIZE;
use vwr_blocks::Registry;

/// Points per axis of a chunk's closed box.
const SIDE: usize = CHUNK_SIZE + 1;
const WORDS: usize = (SIDE * SIDE * SIDE).div_ceil(64);

/// The corners of a chunk's quads: a set of whole-block points of the chunk's closed box.
pub(super) struct CornerSet {
    lo: [i32; 3],
    bits: [u64; WORDS],
    /// The chunk's closed border planes ([`ChunkMesh::closed`]).
    closed: [bool; 6],
}

impl CornerSet {
    /// The corners of every cube-face quad of `c` (both passes).
    pub(super) fn of(c: &ChunkMesh) -> CornerSet {
        let lo = c.chunk.map(|v| v as i32 * CHUNK_SIZE as i32);
        let mut set = CornerSet {
            lo,
            bits: [0; WORDS],
            closed: c.closed,
        };
        for q in c.opaque.iter().chain(&c.transparent) {
            for p in q.corner_points() {
                if let Some(i) = set.index(p) {
                    set.bits[i / 64] |= 1 << (i % 64);
                }
            }
        }
        set
    }

    fn index(&self, p: [i32; 3]) -> Option<usize> {
        let mut i = 0;
        for a in (0..3).rev() {
            let l = usize::try_from(p[a] - self.lo[a])
                .ok()
                .filter(|&l| l < SIDE)?;
            i = i * SIDE + l;
        }
        Some(i)
    }

    fn contains(&self, p: [i32; 3]) -> bool {
        self.index(p)
            .is_some_and(|i| self.bits[i / 64] & (1 << (i % 64)) != 0)
    }

    /// Whether coordinate `x` on axis `a` is that of one of the box's two border planes, and
    /// that plane is not closed (a closed chunk's surface continues in no other chunk).
    fn on_border(&self, a: usize, x: i32) -> bool {
        let l = x - self.lo[a];
        (l == 0 && !self.closed[2 * a + 1]) || (l == CHUNK_SIZE as i32 && !self.closed[2 * a])
    }
}

/// A point of a quad's boundary.
pub(super) struct Point {
    pos: [i32; 3],
    ao: u8,
    /// Distance from corner 0 along the boundary, in blocks.
    dist: i32,
}

/// Fills `out` with the boundary of `q` in corner order (corner 0, the points inside edge
/// 0–1, corner 1, …) and returns where each corner is. A point inside an edge takes the AO
/// of the edge's corners: greedy quads only merge faces with equal AO, which makes the two
/// corners of an edge longer than one block equal (the tests check it).
fn boundary(q: &Quad, set: &CornerSet, out: &mut Vec<Point>) -> [usize; 4] {
    out.clear();
    let c = q.corner_points();
    let mut at = [0; 4];
    let mut dist = 0;
    for k in 0..4 {
        at[k] = out.len();
        let (p, e) = (c[k], c[(k + 1) % 4]);
        let ao = q.ao[k];
        out.push(Point { pos: p, ao, dist });
        let Some(axis) = (0..3).find(|&a| p[a] != e[a]) else {
            continue;
        };
        let (len, step) = ((e[axis] - p[axis]).abs(), (e[axis] - p[axis]).signum());
        let border = (0..3).any(|a| a != axis && set.on_border(a, p[a]));
        for t in 1..len {
            let mut m = p;
            m[axis] += t * step;
            if border || set.contains(m) {
                out.push(Point {
                    pos: m,
                    ao,
                    dist: dist + t,
                });
            }
        }
        dist += len;
    }
    at
}

/// Cuts the convex polygon `pts` (its points in order, some on straight runs, `perimeter`
/// blocks around) into
/// `pts.len() − 2` triangles, none degenerate, as a strip from corner `a` to the opposite
/// corner `b`: the chains `a → b` forwards and backwards are zipped together, the one whose
/// next point is nearer (along the boundary) advancing. Every triangle then has two
/// neighbouring points of one chain and one of the other, which never lie on one line
/// (the chains only meet at `a` and `b`, the ends, which are each used once). With no points
/// inside edges it gives the two triangles of the diagonal that does not touch `a`.
/// Triangles come in the polygon's own turning direction, as local indices.
fn strip(pts: &[Point], perimeter: i32, a: usize, b: usize, mut emit: impl FnMut([usize; 3])) {
    let n = pts.len();
    let (e1, e2) = ((b + n - a) % n, (a + n - b) % n);
    let fwd = |i: usize| (a + i) % n;
    let back = |j: usize| (a + n - j) % n;
    let d1 = |k: usize| (pts[k].dist - pts[a].dist).rem_euclid(perimeter);
    let d2 = |k: usize| (pts[a].dist - pts[k].dist).rem_euclid(perimeter);
    emit([fwd(0), fwd(1), back(1)]);
    let (mut i, mut j) = (1, 1);
    while i + 1 < e1 || j + 1 < e2 {
        if i + 1 < e1 && (j + 1 == e2 || d1(fwd(i + 1)) <= d2(back(j + 1))) {
            emit([fwd(i), fwd(i + 1), back(j)]);
            i += 1;
        } else {
            emit([back(j + 1), back(j), fwd(i)]);
            j += 1;
        }
    }
    emit([fwd(e1 - 1), fwd(e1), back(e2 - 1)]);
}

/// Appends `q` to `part` split at the points of `set` on its edges (see the module
/// documentation); `pts` is scratch.
pub(super) fn push_quad(
    part: &mut MeshPart,
    q: &Quad,
    registry: &Registry,
    set: &CornerSet,
    pts: &mut Vec<Point>,
) {
    let at = boundary(q, set, pts);
    if pts.len() == 4 {
        // Nothing on its edges: the plain quad, cut along the same diagonal.
        return part.push_quad(q, registry);
    }
    let base = part.positions.len() as u32;
    let n = q.face.normal().map(|v| v as f32);
    let color = registry.color(q.block.block_type());
    for p in pts.iter() {
        let c = p.pos.map(|v| v as f32);
        part.push_vertex(c, n, face_uv(q.face, c), color, q.block.raw(), p.ao);
    }
    // The diagonal the plain quad is cut along (see `Quad::triangles`) joins the other two
    // corners to the ones the strip runs between.
    let (a, b) = if q.flipped() {
        (at[0], at[2])
    } else {
        (at[1], at[3])
    };
    let ccw = q.face.uv_is_ccw();
    let perimeter = 2 * (q.size[0] as i32 + q.size[1] as i32);
    strip(pts, perimeter, a, b, |t| {
        let t = if ccw { t } else { [t[0], t[2], t[1]] };
        part.indices.extend(t.map(|k| base + k as u32));
    });
}
