// The page's chunk-answer decoder (assets/wire.js) against an answer written by vwr-serve and
// the values the Rust side computed from the world and its meshes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { decodeChunks, chunkKey } from '../../assets/wire.js';
import { fixtureBuffer, fixtureJson } from './fixtures.mjs';

const typed = (a) => (a === null ? null : Array.from(a));

test('the decoder reads every chunk, block and vertex the server wrote', () => {
  const expected = fixtureJson('wire.json');
  const got = decodeChunks(fixtureBuffer('world.bin'));
  assert.equal(got.epoch, expected.epoch);
  assert.equal(got.chunks.length, expected.chunks.length);
  let vertices = 0;
  got.chunks.forEach((c, i) => {
    const e = expected.chunks[i];
    const at = `chunk ${chunkKey(e.pos)}`;
    assert.deepEqual(c.pos, e.pos, at);
    assert.deepEqual(typed(c.blocks), e.blocks, at);
    assert.equal(c.parts.length, 2, at);
    c.parts.forEach((p, k) => {
      const ep = e.parts[k];
      if (ep === null) return assert.equal(p, null, `${at} pass ${k}`);
      assert.notEqual(p, null, `${at} pass ${k}`);
      for (const f of ['positions', 'normals', 'colors', 'indices']) assert.deepEqual(typed(p[f]), ep[f], `${at} pass ${k} ${f}`);
      vertices += p.positions.length / 3;
    });
  });
  // The fixture exercises what it should: blocks with metadata, both passes, many vertices.
  assert.ok(got.chunks.some((c) => c.blocks && c.blocks.some((b) => (b & 15) !== 0)), 'a block with metadata');
  assert.ok(got.chunks.some((c) => c.parts[1] !== null), 'a transparent pass');
  assert.ok(vertices > 100, `${vertices} vertices`);
  // And the page's watertight split (the server sends plain quads): passes with split quads.
  assert.ok(got.chunks.some((c) => c.parts.some((p) => p && (p.positions.length / 3) % 4 !== 0)), 'a split quad');
});

test('a level of detail decodes in world units, watertight, as vwr-mesh builds it', () => {
  const expected = fixtureJson('lod.json');
  const got = decodeChunks(fixtureBuffer('lod.bin'));
  assert.equal(got.epoch, expected.epoch);
  assert.equal(got.chunks.length, expected.chunks.length);
  assert.ok(got.chunks.length > 0);
  got.chunks.forEach((c, i) => {
    const e = expected.chunks[i], at = `level-1 chunk ${chunkKey(e.pos)}`;
    assert.deepEqual(c.pos, e.pos, at);
    assert.equal(c.level, 1, at);
    assert.equal(c.blocks, null, at);
    c.parts.forEach((p, k) => {
      const ep = e.parts[k];
      if (ep === null) return assert.equal(p, null, `${at} pass ${k}`);
      for (const f of ['positions', 'normals', 'colors', 'indices']) assert.deepEqual(typed(p[f]), ep[f], `${at} pass ${k} ${f}`);
    });
  });
  // Cells two blocks wide: every vertex on a multiple of 2 blocks.
  const xs = got.chunks.flatMap((c) => c.parts.filter(Boolean).flatMap((p) => Array.from(p.positions)));
  assert.ok(xs.length > 0 && xs.every((v) => v % 2 === 0), 'positions on the level\'s cells');
});

test('the decoder refuses a foreign or cut answer', () => {
  const buf = fixtureBuffer('world.bin');
  const bad = buf.slice(0);
  new Uint8Array(bad)[0] = 0x58;
  assert.throws(() => decodeChunks(bad), /bad chunk answer/);
  assert.throws(() => decodeChunks(buf.slice(0, 8)), /bad chunk answer/);
  assert.throws(() => decodeChunks(buf.slice(0, buf.byteLength - 8)), /cut short/);
});

// A hand-made answer of one chunk at `pos` with block runs `runs` ([value, length]) and one
// opaque pass of quantized positions `q` (1/256 block from the chunk's corner) and 16-bit
// indices `idx`.
function oneChunk(pos, runs, q, idx) {
  const nv = q.length / 3, posBytes = (nv * 6 + 3) & ~3, idxBytes = (idx.length * 2 + 3) & ~3;
  const size = 12 + 16 + 4 + runs.length * 4 + 12 + posBytes + nv * 8 + idxBytes;
  const buf = new ArrayBuffer(size), dv = new DataView(buf);
  let o = 0;
  const u32 = (v) => { dv.setUint32(o, v, true); o += 4; };
  u32(0x324d5856); u32(5); u32(1);
  pos.forEach(u32); u32(7);
  u32(runs.length);
  for (const [v, n] of runs) { dv.setUint16(o, v, true); dv.setUint16(o + 2, n, true); o += 4; }
  u32(nv); u32(idx.length); u32(3);
  q.forEach((v, i) => dv.setInt16(o + i * 2, v, true)); o += posBytes;
  for (let i = 0; i < nv; i++) { dv.setInt8(o, 1); o += 4; }
  for (let i = 0; i < nv; i++) { dv.setUint32(o, 0xff336699); o += 4; }
  idx.forEach((v, i) => dv.setUint16(o + i * 2, v, true));
  return buf;
}

test('runs expand to the 1000 block values; quantized positions to world units', () => {
  const buf = oneChunk([2, 0, 3], [[16, 100], [0, 899], [35 << 4 | 2, 1]], [0, 0, 0, 256, 0, 128, 2560, 2560, 2560], [0, 1, 2]);
  const { epoch, chunks } = decodeChunks(buf);
  assert.equal(epoch, 5);
  const c = chunks[0];
  assert.deepEqual(c.pos, [2, 0, 3]);
  assert.equal(c.blocks.length, 1000);
  assert.equal(c.blocks[0], 16); assert.equal(c.blocks[99], 16); assert.equal(c.blocks[100], 0); assert.equal(c.blocks[999], 35 << 4 | 2);
  assert.deepEqual(Array.from(c.parts[0].positions), [20, 0, 30, 21, 0, 30.5, 30, 10, 40]);
  assert.deepEqual(Array.from(c.parts[0].indices), [0, 1, 2]);
  assert.equal(c.parts[1], null);
});

test('runs that do not fill a chunk exactly are refused', () => {
  assert.throws(() => decodeChunks(oneChunk([0, 0, 0], [[16, 999]], [0, 0, 0], [0, 0, 0])), /do not fill/);
  assert.throws(() => decodeChunks(oneChunk([0, 0, 0], [[16, 1000], [0, 1]], [0, 0, 0], [0, 0, 0])), /overflow/);
});
