// The binary chunk answer of /api/chunks (layout in vwr-serve's src/wire.rs), decoded into
// typed arrays, quads made watertight (watertight.js). No DOM and no GL: node's tests import it.
import { watertight } from './watertight.js';

/** "VXM2" read as a little-endian u32. */
export const MAGIC = 0x324d5856;

/** Blocks in a chunk (10 × 10 × 10). */
const VOLUME = 1000;
/** Blocks along a chunk's side. */
const SIDE = 10;
/** Quantized positions count in these steps per block. */
const POSITION_SCALE = 256;

/** The key of a chunk position in maps: 'x,y,z'. */
export const chunkKey = (pos) => pos.join(',');

// Throws unless `n` bytes follow `off`.
function need(buf, off, n) {
  if (off + n > buf.byteLength) throw new Error(`chunk answer cut short at byte ${off}`);
}
const pad4 = (n) => (n + 3) & ~3;

// The block values of a chunk at `off` (flags bit 1: as runs): {off, blocks}.
function decodeBlocks(buf, dv, off, flags) {
  if (!(flags & 2)) {
    need(buf, off, VOLUME * 2);
    return { off: off + VOLUME * 2, blocks: new Uint16Array(buf.slice(off, off + VOLUME * 2)) };
  }
  need(buf, off, 4);
  const n = dv.getUint32(off, true); off += 4;
  need(buf, off, n * 4);
  const blocks = new Uint16Array(VOLUME);
  let at = 0;
  for (let i = 0; i < n; i++, off += 4) {
    const v = dv.getUint16(off, true), len = dv.getUint16(off + 2, true);
    if (at + len > VOLUME) throw new Error('bad chunk answer: runs overflow a chunk');
    blocks.fill(v, at, at + len); at += len;
  }
  if (at !== VOLUME) throw new Error('bad chunk answer: runs do not fill a chunk');
  return { off, blocks };
}

// Positions (pass flags: bit 3 whole blocks as u8, bit 0 1/256 block as i16, else f32) in
// world units, from `off`; `corner`: the chunk's lowest corner in blocks.
function positionsAt(buf, off, nv, flags, corner) {
  if (!(flags & 9)) return new Float32Array(buf, off, nv * 3);
  const q = flags & 8 ? new Uint8Array(buf, off, nv * 3) : new Int16Array(buf, off, nv * 3);
  const scale = flags & 8 ? 1 : 1 / POSITION_SCALE;
  const out = new Float32Array(nv * 3);
  for (let i = 0; i < nv * 3; i++) out[i] = corner[i % 3] + q[i] * scale;
  return out;
}

/** Shade factors of the four AO levels (0 darkest … 3 open), in 1/255: as the server's. */
const AO_SHADE = [140, 180, 220, 255];

// A quad pass's per-vertex normals, AO-shaded colours and indices, from its per-quad normals
// and block colours, per-vertex AO levels, four index patterns and each quad's pattern.
function expandQuads(nv, q) {
  const normals = new Int8Array(nv * 4), colors = new Uint8Array(nv * 4);
  const indices = nv <= 65536 ? new Uint16Array(nv / 4 * 6) : new Uint32Array(nv / 4 * 6);
  for (let i = 0; i < nv; i++) {
    const f = i >> 2, s = AO_SHADE[q.ao[i]];
    for (let k = 0; k < 3; k++) {
      normals[i * 4 + k] = q.normals[f * 4 + k];
      colors[i * 4 + k] = Math.floor((q.colors[f * 4 + k] * s) / 255);
    }
    colors[i * 4 + 3] = q.colors[f * 4 + 3];
  }
  for (let f = 0; f < nv / 4; f++) {
    const pat = q.which[f] * 6;
    for (let k = 0; k < 6; k++) indices[f * 6 + k] = f * 4 + q.patterns[pat + k];
  }
  return { normals, colors, indices };
}

// One pass: null when it draws nothing; else its vertex and index arrays (positions in world
// units, a normal and colour a vertex).
function decodePart(buf, dv, off, corner) {
  need(buf, off, 12);
  const nv = dv.getUint32(off, true), ni = dv.getUint32(off + 4, true), flags = dv.getUint32(off + 8, true); off += 12;
  const posBytes = pad4(nv * (flags & 8 ? 3 : flags & 1 ? 6 : 12));
  const nq = nv / 4;
  if (flags & 4 && (nv % 4 || ni !== nq * 6)) throw new Error('bad chunk answer: quads do not match their counts');
  const rest = flags & 4 ? nq * 8 + pad4(nv) + 24 + pad4(nq) : nv * 8 + (flags & 2 ? pad4(ni * 2) : ni * 4);
  need(buf, off, posBytes + rest);
  const end = off + posBytes + rest;
  if (nv === 0 || ni === 0) return { off: end, part: null };
  const positions = positionsAt(buf, off, nv, flags, corner); off += posBytes;
  if (flags & 4) {
    const at = (n) => { const a = new Uint8Array(buf, off, n); off += pad4(n); return a; };
    const q = { normals: new Int8Array(buf, off, nq * 4), colors: at(nq * 4 + nq * 4).subarray(nq * 4), ao: at(nv), patterns: at(24), which: at(nq) };
    if (q.ao.some((a) => a > 3) || q.patterns.some((v) => v > 3) || q.which.some((w) => w > 3)) throw new Error('bad chunk answer: bad quads');
    return { off: end, part: { positions, ...expandQuads(nv, q), quads: true } };
  }
  const normals = new Int8Array(buf, off, nv * 4); off += nv * 4;
  const colors = new Uint8Array(buf, off, nv * 4); off += nv * 4;
  const indices = flags & 2 ? new Uint16Array(buf, off, ni) : new Uint32Array(buf, off, ni);
  return { off: end, part: { positions, normals, colors, indices } };
}

// `f` of the passes in cells of `cell` blocks (positions scaled exactly: a power of two), the
// result back in blocks.
function inCells(parts, cell, f) {
  const scale = (p, by) => p && Object.assign(p, { positions: p.positions.map((v) => v * by) });
  return f(parts.map((p) => scale(p, 1 / cell))).map((p) => scale(p, cell));
}

/**
 * Decodes a chunk answer (an ArrayBuffer): `{epoch, chunks: [{pos, level, blocks, parts}]}` where
 * `level` is the level of detail (0 but in answers of /api/lod, whose chunk `pos` covers
 * 10·2^level blocks a side and carries no blocks), `blocks` is a Uint16Array of the 1000 raw block values (x fastest, then y, then z) or null,
 * and `parts` the opaque and transparent passes, each null or `{positions: Float32Array (xyz,
 * world units), normals: Int8Array (xyz0), colors: Uint8Array (rgba, AO baked in), indices:
 * Uint16Array or Uint32Array}`, cube-face quads split so that no T-junction shows (the
 * triangles of vwr-mesh's watertight buffers). A chunk without blocks and passes has been
 * emptied.
 */
export function decodeChunks(buf) {
  const dv = new DataView(buf);
  if (buf.byteLength < 12 || dv.getUint32(0, true) !== MAGIC) throw new Error('bad chunk answer');
  const epoch = dv.getUint32(4, true), count = dv.getUint32(8, true);
  const chunks = [];
  let off = 12;
  for (let i = 0; i < count; i++) {
    need(buf, off, 16);
    const pos = [dv.getUint32(off, true), dv.getUint32(off + 4, true), dv.getUint32(off + 8, true)];
    const flags = dv.getUint32(off + 12, true); off += 16;
    let blocks = null;
    if (flags & 1) ({ off, blocks } = decodeBlocks(buf, dv, off, flags));
    // Plate rotations (bit 4): for clients that mesh; the page draws the server's meshes.
    if (flags & 16) {
      need(buf, off, 4);
      const n = dv.getUint32(off, true);
      need(buf, off + 4, n * 4);
      off += 4 + n * 4;
    }
    // Level of detail k (GET /api/lod): cells 2^k blocks wide, positions in world units.
    const level = (flags >> 8) & 15, cell = 2 ** level;
    const corner = pos.map((v) => v * SIDE * cell);
    const parts = [];
    for (let k = 0; k < 2; k++) {
      if (!(flags & (4 << k))) { parts.push(null); continue; }
      const r = decodePart(buf, dv, off, corner); off = r.off; parts.push(r.part);
    }
    chunks.push({ pos, level, blocks, parts: level ? inCells(parts, cell, (p) => watertight(p, pos.map((v) => v * SIDE), true)) : watertight(parts, corner) });
  }
  return { epoch, chunks };
}
