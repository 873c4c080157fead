// Picking: the voxel raycast and what a click points at. No DOM: node's tests import it.
//
// `raycast` is vwr-play's (crates/vwr-play/src/ray.rs), step for step in the same IEEE double
// arithmetic, so that the page and the gameplay layer agree on every ray (a shared fixture
// holds them to it): Amanatides–Woo traversal of the cells the ray's interior passes through,
// the world half-open ([0, dims) on each axis), an exact edge or corner crossing stepping to
// the diagonal cell at once, the entered face of such a step the first crossing axis in the
// order Y, X, Z.

const ORDER = [1, 0, 2];
const FACES = [['+x', '-x'], ['+y', '-y'], ['+z', '-z']];
/** f64::MIN_POSITIVE, the smallest normal double. */
const MIN_NORMAL = 2.2250738585072014e-308;

/** The face through which a ray moving along `axis` (positive or not) enters a cell: moving
 * +x enters through the -x face. Faces are named by their outward normal. */
export const enteredFace = (axis, positive) => FACES[axis][positive ? 1 : 0];

/** The outward normal of a face name ('+x' -> [1, 0, 0]). */
export function faceNormal(face) {
  const n = [0, 0, 0];
  n['xyz'.indexOf(face[1])] = face[0] === '+' ? 1 : -1;
  return n;
}

// 2^floor(log2 m) for m > 0: m with its mantissa cleared (the smallest normal for subnormal m).
const bits = new DataView(new ArrayBuffer(8));
function powerOfTwoFloor(m) {
  bits.setFloat64(0, m);
  bits.setUint32(0, bits.getUint32(0) & 0x7ff00000);
  bits.setUint32(4, 0);
  return Math.max(bits.getFloat64(0), MIN_NORMAL);
}

// The direction scaled exactly by a power of two to components of at most 2 in magnitude (so
// exact ties stay ties), and its length.
function scaled(dir) {
  const m = Math.max(Math.abs(dir[0]), Math.abs(dir[1]), Math.abs(dir[2]));
  if (m === 0) throw new Error('ray direction is zero');
  const e = powerOfTwoFloor(m);
  const v = dir.map((x) => x / e);
  return { u: v, len: Math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) };
}

function checkRay(origin, dir, maxDistance) {
  if (![...origin, ...dir].every(Number.isFinite)) throw new Error('ray origin and direction must be finite');
  if (Number.isNaN(maxDistance) || maxDistance < 0) throw new Error(`bad ray max distance ${maxDistance}`);
}

// Where a ray enters the box [0, dims): its start cell, the entered face and the parameters
// (in units of u) of entering and leaving; null when it misses.
function enter(dims, origin, u, maxS) {
  let tIn = 0, tOut = maxS, entryAxis = -1;
  for (let k = 0; k < 3; k++) {
    if (u[k] === 0) {
      if (origin[k] < 0 || origin[k] >= dims[k]) return null;
      continue;
    }
    const a = (0 - origin[k]) / u[k], b = (dims[k] - origin[k]) / u[k];
    const near = a < b ? a : b, far = a < b ? b : a;
    // An origin on the far face (outside the half-open world) enters through it at t = 0.
    const onFarFace = near === tIn && origin[k] >= dims[k];
    if (near > tIn || (onFarFace && entryAxis === -1)) { tIn = Math.max(near, 0); entryAxis = k; }
    tOut = Math.min(tOut, far);
  }
  const inside = [0, 1, 2].every((k) => origin[k] >= 0 && origin[k] < dims[k]);
  if (tIn > tOut || (tIn === tOut && !inside)) return null;
  const cell = [0, 0, 0], crossing = [false, false, false];
  for (let k = 0; k < 3; k++) {
    const p = tIn === 0 ? origin[k] : origin[k] + u[k] * tIn;
    let c = Math.floor(p);
    crossing[k] = !inside && u[k] !== 0 && p === Math.floor(p);
    // Entering exactly on a cell boundary while moving down that axis: the lower cell.
    if (!inside && u[k] < 0 && p === Math.floor(p)) c -= 1;
    // Exactly on the world face: the cell just inside.
    if (k === entryAxis) c = u[k] > 0 ? 0 : dims[k] - 1;
    cell[k] = Math.min(Math.max(c, 0), dims[k] - 1);
  }
  if (entryAxis >= 0) crossing[entryAxis] = true;
  const k0 = ORDER.find((k) => crossing[k]);
  const face = k0 === undefined ? null : enteredFace(k0, u[k0] > 0);
  return { cell, face, tIn, tOut };
}

/**
 * Visits the cells inside the world box `dims` that the ray `origin + t·dir/|dir|` passes
 * through, nearest first, up to `maxDistance` (Infinity: to the world's edge), until `visit`
 * returns false. Each visit gets `{cell, distance, face}`: the distance along the normalised
 * direction at which the ray enters the cell (0 for the cell it starts in) and the face it
 * enters through (null for the start cell). Throws on a zero or non-finite direction.
 */
export function rayCells(dims, origin, dir, maxDistance, visit) {
  checkRay(origin, dir, maxDistance);
  const { u, len } = scaled(dir);
  const start = enter(dims, origin, u, maxDistance / len);
  if (!start) return;
  const { cell, tOut } = start;
  let { face, tIn: t } = start;
  const step = u.map((v) => (v > 0 ? 1 : -1));
  const boundary = (c, k) => (u[k] === 0 ? Infinity : ((u[k] > 0 ? c + 1 : c) - origin[k]) / u[k]);
  const tMax = [0, 1, 2].map((k) => boundary(cell[k], k));
  const limit = dims[0] + dims[1] + dims[2] + 6;
  for (let n = 0; n < limit; n++) {
    // + 0 turns a -0 (a boundary crossed at the origin) into 0.
    if (!visit({ cell: cell.slice(), distance: t * len + 0, face })) return;
    const tNext = Math.min(tMax[0], tMax[1], tMax[2]);
    if (tNext > tOut) return;
    face = null;
    for (const k of ORDER) {
      if (tMax[k] === tNext) {
        cell[k] += step[k];
        if (face === null) face = enteredFace(k, u[k] > 0);
        tMax[k] = boundary(cell[k], k);
      }
    }
    t = tNext;
    if (!cell.every((c, k) => c >= 0 && c < dims[k])) return;
  }
}

/**
 * The first cell on a ray for which `hit(cell)` holds, within `maxDistance`: `{cell, face,
 * distance, point}` (face null and distance 0 when the ray starts in it), or null. With
 * `hit` = "solid" this is vwr-play's `raycast`.
 */
export function raycast(dims, origin, dir, maxDistance, hit) {
  let found = null;
  rayCells(dims, origin, dir, maxDistance, (c) => {
    if (hit(c.cell)) { found = c; return false; }
    return true;
  });
  if (!found) return null;
  const { u, len } = scaled(dir);
  const s = found.distance / len;
  let point = [0, 1, 2].map((k) => origin[k] + u[k] * s);
  if (found.face) {
    // Exactly on the entered face.
    const k = 'xyz'.indexOf(found.face[1]);
    point[k] = found.cell[k] + (dir[k] > 0 ? 0 : 1);
  }
  if (found.distance === 0) point = origin.slice();
  return { cell: found.cell, face: found.face, distance: found.distance, point };
}

/** The raw block value at a cell of the chunks the page holds (0 outside them). */
export function blockAt(chunks, x, y, z) {
  if (x < 0 || y < 0 || z < 0) return 0;
  const c = chunks.get(`${Math.floor(x / 10)},${Math.floor(y / 10)},${Math.floor(z / 10)}`);
  if (!c || !c.blocks) return 0;
  return c.blocks[(x % 10) + (y % 10) * 10 + (z % 10) * 100];
}

/**
 * What a ray `{o, d}` points at in the editor: the first non-air cell at or under level `top`
 * (`cell`), the cell in front of the face it entered (`place`) and that face; with no block
 * hit, the ground plane at level `ground` stands in (`cell` null). `view`: `{dims, chunks,
 * top, ground}`. Null when the ray points at nothing in the world.
 */
export function pick(ray, view) {
  const { dims, chunks, top } = view;
  const h = raycast(dims, ray.o, ray.d, Infinity, (c) => c[1] <= top && blockAt(chunks, c[0], c[1], c[2]) !== 0);
  if (!h) return groundPick(ray, view);
  const n = h.face ? faceNormal(h.face) : [0, 0, 0];
  return { cell: h.cell, place: h.cell.map((v, i) => v + n[i]), face: h.face };
}

// No block hit: the ground plane (y = ground) stands in, picked from above.
function groundPick(ray, { dims, ground }) {
  if (Math.abs(ray.d[1]) < 1e-9) return null;
  const t = (ground - ray.o[1]) / ray.d[1]; if (t < 0) return null;
  const c = [Math.floor(ray.o[0] + ray.d[0] * t), ground, Math.floor(ray.o[2] + ray.d[2] * t)];
  if (!c.every((v, i) => v >= 0 && v < dims[i])) return null;
  return { cell: null, place: c, face: '+y' };
}
