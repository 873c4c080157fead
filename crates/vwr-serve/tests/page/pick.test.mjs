// The page's raycast (assets/pick.js) against vwr-play's on the same world and rays: one
// raycast definition for the editor and the gameplay layer.
import test from 'node:test';
import assert from 'node:assert/strict';
import { decodeChunks, chunkKey } from '../../assets/wire.js';
import { blockAt, faceNormal, pick, raycast } from '../../assets/pick.js';
import { fixtureBuffer, fixtureJson } from './fixtures.mjs';

const fixture = fixtureJson('rays.json');
const chunks = new Map(decodeChunks(fixtureBuffer('world.bin')).chunks.map((c) => [chunkKey(c.pos), c]));
const dims = fixture.dims;
const solidTypes = new Set(fixture.solid_types);
const raw = (c) => blockAt(chunks, c[0], c[1], c[2]);
const maxOf = (r) => (r.max === null ? Infinity : r.max);

test('every ray hits the solid cell vwr-play hits, through the same face at the same distance', () => {
  let hits = 0;
  for (const [i, r] of fixture.rays.entries()) {
    const at = `ray ${i}: ${JSON.stringify([r.origin, r.dir, r.max])}`;
    const run = () => raycast(dims, r.origin, r.dir, maxOf(r), (c) => solidTypes.has(raw(c) >> 4));
    if (r.error) { assert.throws(run, undefined, at); continue; }
    const got = run();
    if (r.solid === null) { assert.equal(got, null, at); continue; }
    assert.notEqual(got, null, at);
    assert.deepEqual(got.cell, r.solid.cell, at);
    assert.equal(got.face, r.solid.face, at);
    assert.equal(got.distance, r.solid.distance, at);
    assert.deepEqual(got.point, r.solid.point, at);
    hits++;
  }
  assert.ok(hits > 100, `${hits} hits`);
});

test('the editor picks the first non-air cell vwr-play visits, and places in front of its face', () => {
  const view = { dims, chunks, top: dims[1] - 1, ground: 0 };
  let picked = 0;
  for (const [i, r] of fixture.rays.entries()) {
    if (r.error) continue;
    const at = `ray ${i}: ${JSON.stringify([r.origin, r.dir, r.max])}`;
    const got = raycast(dims, r.origin, r.dir, maxOf(r), (c) => raw(c) !== 0);
    if (r.non_air === null) { assert.equal(got, null, at); continue; }
    assert.deepEqual([got.cell, got.face, got.distance], [r.non_air.cell, r.non_air.face, r.non_air.distance], at);
    // The page's pick casts without a limit: the same cell when vwr-play's ray was not cut.
    if (r.max === null) {
      const p = pick({ o: r.origin, d: r.dir }, view);
      const n = r.non_air.face ? faceNormal(r.non_air.face) : [0, 0, 0];
      assert.deepEqual(p.cell, r.non_air.cell, at);
      assert.deepEqual(p.place, r.non_air.cell.map((v, k) => v + n[k]), at);
      picked++;
    }
  }
  assert.ok(picked > 100, `${picked} picks`);
});

test('with no block hit, the ground plane stands in', () => {
  const view = { dims, chunks: new Map(), top: dims[1] - 1, ground: 0 };
  assert.deepEqual(pick({ o: [3.5, 10, 4.5], d: [0, -1, 0] }, view), { cell: null, place: [3, 0, 4], face: '+y' });
  assert.equal(pick({ o: [3.5, 10, 4.5], d: [0, 1, 0] }, view), null);
});

test('a pick reaches a block across a 1000-wide world', () => {
  const blocks = new Uint16Array(1000);
  blocks[5 + 0 * 10 + 5 * 100] = 35 << 4;
  const far = new Map([['99,0,99', { pos: [99, 0, 99], blocks }]]);
  const view = { dims: [1000, 100, 1000], chunks: far, top: 99, ground: -1 };
  const p = pick({ o: [0.5, 0.7, 0.5], d: [995, 0, 995.2] }, view);
  assert.notEqual(p, null);
  assert.deepEqual(p.cell, [995, 0, 995]);
  assert.equal(Math.abs(p.place[0] - 995) + Math.abs(p.place[2] - 995), 1);
});
