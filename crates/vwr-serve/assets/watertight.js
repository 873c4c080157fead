// Watertight triangulation of a chunk's cube-face quads, on the page: the server sends plain
// greedy quads (compact on the wire) and the page splits a quad's edges where another quad's
// corner lies on them (and, on a chunk border plane, at every whole block, where a
// neighbouring chunk's corners can lie), so that no T-junction leaves pixels of sky between
// quads. This is vwr-mesh's `buffers/watertight.rs` (MeshOptions::watertight) in JavaScript;
// the page test holds the two to the same vertices and triangles. No DOM, no GL.

/** Blocks along a chunk's side. */
const SIDE = 10;

// The cyclic orientation of a triangle of three of a quad's four corners: true when it runs
// in the corners' own order.
const inCornerOrder = (t) => (t[1] - t[0] + 4) % 4 < (t[2] - t[0] + 4) % 4;

// Cuts the convex polygon `pts` into triangles as a strip from point `a` to point `b` (see
// `strip` in watertight.rs): local indices, in the polygon's turning direction.
function strip(pts, perimeter, a, b, emit) {
  const n = pts.length;
  const e1 = (b + n - a) % n, e2 = (a + n - b) % n;
  const fwd = (i) => (a + i) % n, back = (j) => (a + n - j) % n;
  const mod = (x) => ((x % perimeter) + perimeter) % perimeter;
  const d1 = (k) => mod(pts[k].dist - pts[a].dist), d2 = (k) => mod(pts[a].dist - pts[k].dist);
  emit([fwd(0), fwd(1), back(1)]);
  let i = 1, j = 1;
  while (i + 1 < e1 || j + 1 < e2) {
    if (i + 1 < e1 && (j + 1 === e2 || d1(fwd(i + 1)) <= d2(back(j + 1)))) {
      emit([fwd(i), fwd(i + 1), back(j)]); i++;
    } else {
      emit([back(j + 1), back(j), fwd(i)]); j++;
    }
  }
  emit([fwd(e1 - 1), fwd(e1), back(e2 - 1)]);
}

// The boundary of quad `c` (four corners) in corner order, with the points inside its edges
// where it must be split: {v: the corner whose normal and colour it takes, pos, dist}; and
// where each corner is in it.
function boundary(c, has, onBorder) {
  const pts = [], at = [0, 0, 0, 0];
  const whole = c.every((p) => p.every(Number.isInteger));
  let dist = 0;
  for (let k = 0; k < 4; k++) {
    at[k] = pts.length;
    const p = c[k], e = c[(k + 1) % 4];
    pts.push({ v: k, pos: p, dist });
    const axis = [0, 1, 2].find((a) => p[a] !== e[a]);
    if (axis === undefined) continue;
    const len = Math.abs(e[axis] - p[axis]), step = Math.sign(e[axis] - p[axis]);
    const border = [0, 1, 2].some((a) => a !== axis && onBorder(a, p[a]));
    for (let t = 1; whole && t < len; t++) {
      const m = p.slice(); m[axis] += t * step;
      if (border || has(m)) pts.push({ v: k, pos: m, dist: dist + t });
    }
    dist += len;
  }
  return { pts, at, perimeter: dist };
}

// One quad pass made watertight (see the module docs).
function splitPart(p, has, onBorder) {
  const nq = p.positions.length / 12;
  const pos = [], nor = [], col = [], idx = [];
  const vertex = (q, v, at) => {
    pos.push(...at);
    for (let k = 0; k < 4; k++) { nor.push(p.normals[(q * 4 + v) * 4 + k]); col.push(p.colors[(q * 4 + v) * 4 + k]); }
  };
  for (let q = 0; q < nq; q++) {
    const c = [0, 1, 2, 3].map((k) => [0, 1, 2].map((a) => p.positions[(q * 4 + k) * 3 + a]));
    const tri = Array.from(p.indices.subarray(q * 6, q * 6 + 6), (i) => i - q * 4);
    const base = pos.length / 3;
    const { pts, at, perimeter } = boundary(c, has, onBorder);
    if (pts.length === 4) {
      c.forEach((x, k) => vertex(q, k, x));
      tri.forEach((t) => idx.push(base + t));
      continue;
    }
    pts.forEach((x) => vertex(q, x.v, x.pos));
    // The plain quad's diagonal: the two corners both its triangles use.
    const twice = [0, 1, 2, 3].filter((k) => tri.filter((t) => t === k).length === 2);
    const flipped = twice.includes(1) && twice.includes(3);
    const [a, b] = flipped ? [at[0], at[2]] : [at[1], at[3]];
    const ccw = inCornerOrder(tri.slice(0, 3));
    strip(pts, perimeter, a, b, (t) => idx.push(...(ccw ? t : [t[0], t[2], t[1]]).map((k) => base + k)));
  }
  const n = pos.length / 3;
  return {
    positions: new Float32Array(pos), normals: new Int8Array(nor), colors: new Uint8Array(col),
    indices: n <= 65536 ? new Uint16Array(idx) : new Uint32Array(idx),
  };
}

/**
 * The passes of the chunk whose lowest corner is `corner` (blocks), made watertight: passes
 * of quads (`quads: true`, as the decoder marks them) are split, others kept as they are.
 * A chunk meshed `closed` (a level of detail: every border plane closed, vwr-mesh's
 * ChunkMesh::closed) is sealed by itself, so edges on its border planes are not split.
 */
export function watertight(parts, corner, closed = false) {
  const inBox = (p) => p.every((v, a) => v - corner[a] >= 0 && v - corner[a] <= SIDE);
  const key = (p) => ((p[0] - corner[0]) * (SIDE + 1) + (p[1] - corner[1])) * (SIDE + 1) + (p[2] - corner[2]);
  const set = new Set();
  for (const p of parts) {
    if (!p || !p.quads) continue;
    for (let i = 0; i < p.positions.length; i += 3) {
      const pt = [p.positions[i], p.positions[i + 1], p.positions[i + 2]];
      if (pt.every(Number.isInteger) && inBox(pt)) set.add(key(pt));
    }
  }
  const has = (m) => inBox(m) && set.has(key(m));
  const onBorder = (a, x) => !closed && (x - corner[a] === 0 || x - corner[a] === SIDE);
  return parts.map((p) => (p && p.quads ? splitPart(p, has, onBorder) : p));
}
