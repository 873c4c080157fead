// The binary chunk answer of /api/chunks (layout in vwr-serve's src/wire.rs), decoded into
// typed arrays viewing the answer in place. No DOM and no GL: node's tests import it.

/** "VXM1" read as a little-endian u32. */
export const MAGIC = 0x314d5856;

/** Blocks in a chunk (10 × 10 × 10). */
const VOLUME = 1000;

/** The key of a chunk position in maps: 'x,y,z'. */
export const chunkKey = (pos) => pos.join(',');

// Throws unless `n` bytes follow `off`.
function need(buf, off, n) {
  if (off + n > buf.byteLength) throw new Error(`chunk answer cut short at byte ${off}`);
}

// One pass: null when it draws nothing; else its vertex and index arrays.
function decodePart(buf, dv, off) {
  need(buf, off, 8);
  const nv = dv.getUint32(off, true), ni = dv.getUint32(off + 4, true); off += 8;
  need(buf, off, nv * 20 + ni * 4);
  const end = off + nv * 20 + ni * 4;
  if (nv === 0 || ni === 0) return { off: end, part: null };
  const positions = new Float32Array(buf, off, nv * 3); off += nv * 12;
  const normals = new Int8Array(buf, off, nv * 4); off += nv * 4;
  const colors = new Uint8Array(buf, off, nv * 4); off += nv * 4;
  const indices = new Uint32Array(buf, off, ni);
  return { off: end, part: { positions, normals, colors, indices } };
}

/**
 * Decodes a chunk answer (an ArrayBuffer): `{epoch, chunks: [{pos, blocks, parts}]}` where
 * `blocks` is a Uint16Array of the 1000 raw block values (x fastest, then y, then z) or null,
 * and `parts` the opaque and transparent passes, each null or `{positions: Float32Array (xyz),
 * normals: Int8Array (xyz0), colors: Uint8Array (rgba, AO baked in), indices: Uint32Array}`.
 * A chunk without blocks and passes has been emptied.
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
    if (flags & 1) need(buf, off, VOLUME * 2);
    if (flags & 1) { blocks = new Uint16Array(buf.slice(off, off + VOLUME * 2)); off += VOLUME * 2; }
    const parts = [];
    for (let k = 0; k < 2; k++) {
      const r = decodePart(buf, dv, off); off = r.off; parts.push(r.part);
    }
    chunks.push({ pos, blocks, parts });
  }
  return { epoch, chunks };
}
