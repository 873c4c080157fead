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
});

test('the decoder refuses a foreign or cut answer', () => {
  const buf = fixtureBuffer('world.bin');
  const bad = buf.slice(0);
  new Uint8Array(bad)[0] = 0x58;
  assert.throws(() => decodeChunks(bad), /bad chunk answer/);
  assert.throws(() => decodeChunks(buf.slice(0, 8)), /bad chunk answer/);
  assert.throws(() => decodeChunks(buf.slice(0, buf.byteLength - 8)), /cut short/);
});
