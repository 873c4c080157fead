// The view's guides as line and triangle vertices (x y z r g b a, 7 floats each): the grid, the
// world bounds box, the axis gizmo and the ghost of what a click would change. No DOM and no
// GL: node's tests import it; render.js draws what it gives.

/** The guides shown (toggled by keys; see help.js). The only state this module keeps. */
export const guides = { grid: true, bounds: true, gizmo: true };

// The 12 edges of a box as pairs of corners (0: low, 1: high on each axis).
const EDGES = [[0, 0, 0, 1, 0, 0], [0, 1, 0, 1, 1, 0], [0, 0, 1, 1, 0, 1], [0, 1, 1, 1, 1, 1], [0, 0, 0, 0, 1, 0], [1, 0, 0, 1, 1, 0],
  [0, 0, 1, 0, 1, 1], [1, 0, 1, 1, 1, 1], [0, 0, 0, 0, 0, 1], [1, 0, 0, 1, 0, 1], [0, 1, 0, 0, 1, 1], [1, 1, 0, 1, 1, 1]];
// The 6 faces of a box as quads of corners.
const FACES = [[0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1], [0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0], [0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0],
  [0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1], [0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1]];

// The float corners of the cells from `a` to `b` (inclusive, any order), grown by `pad`.
function cellBox(a, b, pad) {
  const lo = [0, 1, 2].map((i) => Math.min(a[i], b[i]) - pad), hi = [0, 1, 2].map((i) => Math.max(a[i], b[i]) + 1 + pad);
  return (x, y, z) => [x ? hi[0] : lo[0], y ? hi[1] : lo[1], z ? hi[2] : lo[2]];
}

/** Appends the edges of the box of cells `a`..`b` (inclusive) in colour `col` to `out`. */
export function boxLines(out, a, b, col, pad = 0.01) {
  const c = cellBox(a, b, pad);
  for (const s of EDGES) out.push(...c(s[0], s[1], s[2]), ...col, ...c(s[3], s[4], s[5]), ...col);
}

/** Appends the faces of the box of cells `a`..`b` as triangles in colour `col` to `out`. */
export function boxTris(out, a, b, col, pad = 0.02) {
  const c = cellBox(a, b, pad);
  for (const f of FACES) {
    const q = [0, 1, 2, 3].map((k) => c(f[k * 3], f[k * 3 + 1], f[k * 3 + 2]));
    for (const k of [0, 1, 2, 0, 2, 3]) out.push(...q[k], ...col);
  }
}

/** The grid step for a world `dims`: every cell, or every chunk (10) on a large world. */
export const gridStep = (dims) => (Math.max(dims[0], dims[2]) <= 200 ? 1 : 10);

/** Appends the grid on level `y` of a world `dims` (the plane under the cells of that level):
 * a line every grid step, chunk borders darker. */
export function gridLines(out, dims, y) {
  const step = gridStep(dims), h = y + 0.005;
  const col = (v) => (v % 10 === 0 ? [0.22, 0.25, 0.32, 1] : [0.42, 0.47, 0.56, 1]);
  for (let x = 0; x <= dims[0]; x += step) out.push(x, h, 0, ...col(x), x, h, dims[2], ...col(x));
  for (let z = 0; z <= dims[2]; z += step) out.push(0, h, z, ...col(z), dims[0], h, z, ...col(z));
}

/** Appends the axis gizmo at the world's origin: X red, Y green, Z blue, `len` long. */
export function gizmoLines(out, len) {
  const cols = [[1, 0.15, 0.15, 1], [0.1, 0.9, 0.2, 1], [0.2, 0.35, 1, 1]];
  for (let k = 0; k < 3; k++) {
    const end = [-0.02, -0.02, -0.02]; end[k] = len;
    out.push(-0.02, -0.02, -0.02, ...cols[k], ...end, ...cols[k]);
  }
}

/** Appends the guides switched on for a world `dims`, the grid on level `y`, to `out`; the
 * gizmo goes to `onTop` (drawn over everything). */
export function guideLines(out, onTop, dims, y) {
  if (guides.gizmo) gizmoLines(onTop, Math.max(3, Math.min(dims[0], dims[1], dims[2]) / 3));
  if (guides.grid) gridLines(out, dims, y);
  if (guides.bounds) boxLines(out, [0, 0, 0], dims.map((v) => v - 1), [0.95, 0.95, 0.6, 1], 0);
}

/** Appends the ghost `{a, b, col}` (cells `a`..`b`, colour rgb) as outlines to `lines` and
 * translucent faces to `tris`; nothing for null. */
export function ghostGeometry(lines, tris, ghost) {
  if (!ghost) return;
  const [r, g, b] = ghost.col;
  boxLines(lines, ghost.a, ghost.b, [r, g, b, 1], 0.03);
  boxTris(tris, ghost.a, ghost.b, [r, g, b, 0.35]);
}
