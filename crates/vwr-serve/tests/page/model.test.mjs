// The modelling basics of the page (camera presets and the orthographic view, selection height,
// paste footprint, block words with metadata, block names in labels, the guides' geometry) and
// the key table of the help overlay, which the README's table must match.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { camBasis, frameBox, orthoHalf, presetView, rayThrough, viewProj } from '../../assets/camera.js';
import { ghostBox, pasteSize, raiseTop } from '../../assets/tools.js';
import { blockTypeOf, blockWord } from '../../assets/ui.js';
import { namedBlocks, typeName } from '../../assets/dom.js';
import { boxTris, gizmoLines, gridLines, gridStep } from '../../assets/overlay.js';
import { KEYS, keyAction } from '../../assets/help.js';
import { state } from '../../assets/state.js';

const rect = { left: 10, top: 20, width: 400, height: 300 };
const cam = (o = {}) => Object.assign({ target: [20, 5, 30], yaw: 0.8, pitch: 0.6, dist: 50, fov: 0.9 }, o);
const close = (a, b, eps, at) => a.forEach((v, i) => assert.ok(Math.abs(v - b[i]) < eps, `${at}: ${a} vs ${b}`));

// Where point p lands in normalized device coordinates.
function ndc(m, p) {
  const c = [0, 1, 2, 3].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
  return [c[0] / c[3], c[1] / c[3], c[2] / c[3]];
}

test('a ray through a pixel projects back onto that pixel, in perspective and orthographic views', () => {
  for (const ortho of [false, true]) {
    const c = cam({ ortho }), m = viewProj(c, rect.width / rect.height);
    for (const [px, py] of [[210, 170], [15, 25], [400, 310], [300, 60]]) {
      const r = rayThrough(c, px, py, rect);
      const want = [((px - rect.left) / rect.width) * 2 - 1, 1 - ((py - rect.top) / rect.height) * 2];
      for (const t of [5, 40, 80]) {
        const q = ndc(m, r.o.map((v, i) => v + r.d[i] * t));
        if (ortho) assert.ok(q[2] > -1 && q[2] < 1, `depth ${q[2]} of t=${t} is clipped`);
        close(q.slice(0, 2), want, 1e-4, `ortho=${ortho} pixel ${px},${py} t=${t}`);
      }
    }
  }
});

test('orthographic rays are parallel to the view, start behind the eye and are spread by the zoom', () => {
  const c = cam({ ortho: true }), { dir, right } = camBasis(c);
  const a = rayThrough(c, 110, 170, rect), b = rayThrough(c, 310, 170, rect);
  close(a.d, dir, 1e-12, 'a'); close(b.d, dir, 1e-12, 'b');
  // 200 of 400 pixels across: half the view's width, 2 * orthoHalf * aspect * 0.5.
  const across = [0, 1, 2].map((i) => b.o[i] - a.o[i]);
  close(across, right.map((v) => v * orthoHalf(c) * (400 / 300)), 1e-9, 'spread');
  // The target (the middle of the view) is in front of the origin of the middle ray.
  const m = rayThrough(c, 210, 170, rect), back = c.target.map((v, i) => v - m.o[i]);
  assert.ok(back[0] * dir[0] + back[1] * dir[1] + back[2] * dir[2] > c.dist);
  // Zooming in (a smaller distance) narrows the view.
  assert.ok(orthoHalf(cam({ dist: 10 })) < orthoHalf(c));
});

test('the preset views: top is a map (X right, Z down), front looks along -Z, side along -X', () => {
  const c = cam();
  presetView(c, 'top');
  let b = camBasis(c);
  close(b.dir, [0, -1, 0], 1e-3, 'top dir'); close(b.right, [1, 0, 0], 1e-9, 'top right'); close(b.up, [0, 0, -1], 1e-3, 'top up');
  presetView(c, 'front'); b = camBasis(c);
  close(b.dir, [0, 0, -1], 1e-12, 'front dir'); close(b.right, [1, 0, 0], 1e-12, 'front right');
  presetView(c, 'side'); b = camBasis(c);
  close(b.dir, [-1, 0, 0], 1e-12, 'side dir'); close(b.up, [0, 1, 0], 1e-12, 'side up');
  assert.throws(() => presetView(c, 'back'));
  assert.deepEqual(c.target, [20, 5, 30], 'a preset keeps the target');
  frameBox(c, [0, 0, 0], [100, 10, 40]);
  assert.deepEqual(c.target, [50, 5, 20]);
  assert.ok(c.dist > 100);
});

test('PageUp/PageDown move the top of a selection, kept between its bottom and the world top', () => {
  const sel = { a: [1, 4, 1], b: [5, 2, 6] };
  assert.deepEqual(raiseTop(sel, 3, 99), { a: [1, 7, 1], b: [5, 2, 6] });
  assert.deepEqual(raiseTop(sel, -10, 99), { a: [1, 2, 1], b: [5, 2, 6] }, 'not under the bottom');
  assert.deepEqual(raiseTop(sel, 200, 9), { a: [1, 9, 1], b: [5, 2, 6] }, 'not over the world');
  assert.deepEqual(raiseTop({ a: [0, 3, 0], b: [2, 3, 2] }, 2, 9), { a: [0, 5, 0], b: [2, 3, 2] }, 'a flat selection grows');
  assert.deepEqual(sel, { a: [1, 4, 1], b: [5, 2, 6] }, 'the old selection is left as it was');
});

test('a paste footprint turns with the rotation (90 and 270 swap X and Z)', () => {
  const clip = { a: [5, 1, 2], b: [1, 3, 9] };
  assert.deepEqual(pasteSize(clip, '0'), [5, 3, 8]);
  assert.deepEqual(pasteSize(clip, '180'), [5, 3, 8]);
  assert.deepEqual(pasteSize(clip, '90'), [8, 3, 5]);
  assert.deepEqual(pasteSize(clip, '270'), [8, 3, 5]);
});

test('a picked block keeps its metadata in the script word; names replace numbers in labels', () => {
  assert.equal(blockWord((35 << 4) | 2), '35:2');
  assert.equal(blockWord(35 << 4), 35);
  assert.equal(blockTypeOf('35:2'), 35);
  assert.equal(blockTypeOf(35), 35);
  state.blockInfo.set(3, { type: 3, name: 'stone' }).set(35, { type: 35, name: 'cloth' });
  assert.equal(typeName(35, 2), 'cloth:2');
  assert.equal(typeName(99, 0), 'tile99');
  assert.equal(namedBlocks('place 3:0 at (1, 2, 3)'), 'place stone at (1, 2, 3)');
  assert.equal(namedBlocks('box (0, 0, 0)..(4, 1, 4) 35:2'), 'box (0, 0, 0)..(4, 1, 4) cloth:2');
  assert.equal(namedBlocks('replace 3:0 by 35:15 + 1 more'), 'replace stone by cloth:15 + 1 more');
  // Unknown types, metadata out of range and longer words stay as they are.
  assert.equal(namedBlocks('place 999:0; block "35:16"; 35:2x; 12:30'), 'place 999:0; block "35:16"; 35:2x; 12:30');
});

test('the guides: a grid line per cell (per chunk on large worlds), a box of 12 triangles, RGB axes', () => {
  const g = [];
  gridLines(g, [20, 8, 30], 3);
  assert.equal(g.length / 14, 21 + 31, 'lines');
  assert.ok(g.every((v, i) => i % 7 !== 1 || Math.abs(v - 3) < 0.01), 'on level 3');
  assert.equal(gridStep([1000, 100, 1000]), 10);
  const t = [];
  boxTris(t, [1, 1, 1], [2, 3, 4], [1, 0, 0, 0.5], 0);
  assert.equal(t.length / 7, 36);
  const xs = t.filter((_, i) => i % 7 === 0), ys = t.filter((_, i) => i % 7 === 1);
  assert.deepEqual([Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)], [1, 3, 1, 4]);
  const a = [];
  gizmoLines(a, 5);
  const ends = [0, 1, 2].map((k) => a.slice(k * 14 + 7, k * 14 + 10).map((v) => Math.round(v) + 0));
  assert.deepEqual(ends, [[5, 0, 0], [0, 5, 0], [0, 0, 5]]);
  assert.deepEqual([0, 1, 2].map((k) => a.slice(k * 14 + 3, k * 14 + 6).indexOf(Math.max(...a.slice(k * 14 + 3, k * 14 + 6)))), [0, 1, 2], 'X red, Y green, Z blue');
});

test('the ghost: the cell a place or erase would change, the box being dragged; none in a play test', () => {
  Object.assign(state, { world: { block_dims: [10, 10, 10] }, block: '35:2', hover: { cell: [1, 1, 1], place: [1, 2, 1] }, drag: null, play: null });
  state.blockInfo.set(35, { type: 35, name: 'cloth', color: [255, 0, 51, 255] });
  state.tool = 'place';
  assert.deepEqual(ghostBox(), { a: [1, 2, 1], b: [1, 2, 1], col: [1, 0, 0.2] });
  state.tool = 'erase';
  assert.deepEqual(ghostBox(), { a: [1, 1, 1], b: [1, 1, 1], col: [1, 0.2, 0.2] });
  state.tool = 'place'; state.hover = { cell: null, place: [1, 10, 1] };
  assert.equal(ghostBox(), null, 'no place outside the world');
  state.tool = 'select'; state.drag = { a: [0, 0, 0], b: [3, 1, 2] };
  assert.deepEqual(ghostBox(), { a: [0, 0, 0], b: [3, 1, 2], col: [0.3, 0.7, 1] });
  state.drag = null; state.play = { state: null };
  state.tool = 'erase'; state.hover = { cell: [1, 1, 1], place: [1, 2, 1] };
  assert.equal(ghostBox(), null);
  Object.assign(state, { world: null, hover: null, play: null, tool: 'place', block: 35 });
});

const page = fs.readFileSync(new URL('../../assets/index.html', import.meta.url), 'utf8');
const tools = [...page.matchAll(/data-tool="(\w+)"/g)].map((m) => m[1]);

test('every tool and Play has a key; no key does two things', () => {
  assert.ok(tools.length >= 12, tools.join());
  for (const t of tools) assert.ok(KEYS.some((k) => k.act === 'tool:' + t), 'no key for tool ' + t);
  assert.equal(keyAction('l'), 'play');
  assert.equal(keyAction('pageup'), 'raise');
  assert.equal(keyAction('pagedown'), 'lower');
  assert.equal(keyAction('q'), null);
  const matches = KEYS.filter((k) => k.match).map((k) => k.match);
  assert.equal(new Set(matches).size, matches.length, matches.join());
  // The toolbar's tooltips name the same keys.
  for (const k of KEYS.filter((x) => x.act && x.act.startsWith('tool:'))) {
    const title = page.match(new RegExp(`data-tool="${k.act.slice(5)}" title="[^"]*\\((\\w)\\)"`));
    assert.equal(title && title[1], k.keys, 'tooltip of ' + k.act);
  }
});

test("the README's keys table is the help overlay's table", () => {
  const readme = fs.readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
  const rows = readme.split('\n').filter((l) => l.startsWith('| `'));
  const want = KEYS.map((k) => `| \`${k.keys}\` | ${k.what} |`);
  const got = rows.filter((r) => want.includes(r) || /^\| `[^`]+` \| [^|]+ \|$/.test(r) && KEYS.some((k) => r.startsWith(`| \`${k.keys}\` |`)));
  assert.deepEqual(got, want);
});
