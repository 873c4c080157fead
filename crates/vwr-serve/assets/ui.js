// The panels: palette, status bar, object list and form, and the state's view of the world
// (the block under a cell, what a ray picks).
import { CS, state } from './state.js';
import { $, namedBlocks, toast, typeName } from './dom.js';
import { frameBox, presetView } from './camera.js';
import { blockAt, pick } from './pick.js';

/** The raw block value at a cell of the world as the page holds it. */
export const cellBlock = (x, y, z) => blockAt(state.chunks, x, y, z);

/** The BLOCK word of a raw block value for a script line, metadata kept: 560 -> 35, 562 ->
 * '35:2'. */
export const blockWord = (raw) => (raw & 15 ? `${raw >> 4}:${raw & 15}` : raw >> 4);

/** The block type of a BLOCK word (35 or '35:2' -> 35). */
export const blockTypeOf = (word) => parseInt(word, 10);

/** Whether cell `p` lies in the world. */
export const inWorld = (p) => state.world && p.every((v, i) => v >= 0 && v < state.world.block_dims[i]);

/** What ray `{o, d}` picks, under the layer cut when the layer view is on. */
export function pickRay(ray) {
  const dims = state.world.block_dims;
  const top = state.layerOn ? state.layerY : dims[1] - 1;
  return pick(ray, { dims, chunks: state.chunks, top, ground: state.layerOn ? state.layerY : 0 });
}

/** The name of a raw block value (`name` or `name:meta`). */
export const blockName = (raw) => typeName(raw >> 4, raw & 15); // raw = (type << 4) | metadata

/** Makes `t` the current tool. */
export function setTool(t) {
  state.tool = t; state.movingObj = false;
  document.querySelectorAll('#tools button').forEach((b) => b.classList.toggle('on', b.dataset.tool === t));
  $('stTool').textContent = 'tool: ' + t; state.dirty = true;
}

function chunkText(c) {
  const cp = c.map((v) => Math.floor(v / CS));
  const s = state.chunkStats.find((x) => x.pos.join() === cp.join());
  if (!s) return `chunk ${cp.join(' ')}\nnot allocated (air)`;
  const kind = s.empty ? 'empty' : s.uniform ? 'uniform' : s.bits + ' bits/block';
  return `chunk ${s.pos.join(' ')}\n${kind}\npalette ${s.palette} (${s.live_palette} live)\nnon-air ${s.non_air}\nrecords ${s.records}\nbytes ${s.bytes}`;
}

/** The status bar (and the chunk view) for the hovered cell and the history. */
export function updateStatus() {
  const w = state.world;
  if (!w) return;
  const h = state.hover;
  if (h) {
    const c = h.cell || h.place;
    $('stCell').textContent = `cell ${c.join(' ')}`;
    $('stBlock').textContent = h.cell ? blockName(cellBlock(...h.cell)) : 'air';
    if (state.chunksOn) $('chunkInfo').textContent = chunkText(c);
  } else { $('stCell').textContent = '-'; $('stBlock').textContent = ''; }
  $('stHist').textContent = `undo ${w.undo_depth} / redo ${w.redo_depth}`;
  $('undo').disabled = !w.undo_depth; $('redo').disabled = !w.redo_depth;
  // The steps an undo and a redo would take, blocks by name.
  $('undo').title = (w.undo ? 'Undo ' + namedBlocks(w.undo) : 'Undo') + ' (Ctrl+Z)';
  $('redo').title = (w.redo ? 'Redo ' + namedBlocks(w.redo) : 'Redo') + ' (Ctrl+Shift+Z)';
}

/** The palette, filtered by the filter field. */
export function buildPalette() {
  const el = $('palette'); el.innerHTML = '';
  const f = $('blockFilter').value.toLowerCase();
  for (const b of state.paletteList) {
    if (f && !b.name.toLowerCase().includes(f) && String(b.type) !== f) continue;
    const d = document.createElement('div'); d.className = 'sw' + (b.type === blockTypeOf(state.block) ? ' on' : '');
    d.dataset.type = b.type; d.title = `${b.name} (${b.type}, ${b.kind})`;
    // Styled through the DOM, not markup: the page's CSP allows no inline style attributes.
    const sw = document.createElement('i');
    sw.style.background = `rgba(${b.color[0]},${b.color[1]},${b.color[2]},${b.color[3] / 255})`;
    d.append(sw, b.name);
    d.onclick = () => { state.block = b.type; buildPalette(); };
    el.appendChild(d);
  }
}

/** The list of objects, decors and the spawn point. */
export function objectList() {
  const el = $('objList'); el.innerHTML = '';
  const w = state.world, sel = state.selectedObj;
  const line = (text) => { const d = document.createElement('div'); d.textContent = text; el.appendChild(d); return d; };
  for (const o of w.objects) {
    const d = line(`${o.name || 'type ' + o.type} @ ${o.pos.join(' ')}`);
    if (sel && o.pos.join() === sel.join()) d.className = 'on';
    d.onclick = () => selectObject(o.pos);
  }
  for (const o of w.decors) line(`decor ${o.icon} @ ${o.pos.join(' ')}`);
  if (w.spawn) line(`spawn @ ${w.spawn.join(' ')}`);
}

/** Selects the object anchored at `pos` (null: none) and fills the form with it. */
export function selectObject(pos) {
  state.selectedObj = pos;
  const o = pos && state.world.objects.find((x) => x.pos.join() === pos.join());
  ['objApply', 'objMove', 'objDelete'].forEach((id) => ($(id).disabled = !o));
  if (o) {
    $('objType').value = o.type; $('objSpeed').value = o.speed; $('objAdvance').value = o.advance;
    $('objRecede').value = o.recede; $('objStopStart').value = o.stop_start; $('objStopEnd').value = o.stop_end;
    $('objIcon').value = o.icon; $('objEnd').value = [0, 1, 2].map((i) => +(o.end[i] - o.start[i]).toFixed(3)).join(',');
    $('objSel').textContent = `selected: ${o.name || o.type} at ${o.pos.join(' ')}`;
  } else $('objSel').textContent = 'click an object marker to select it';
  objectList(); state.dirty = true;
}

/** Frames the selection, if there is one, else what is drawn (the chunks with meshes), else
 * the whole world's floor. */
export function frameAll() {
  const sel = state.selection, d = state.world.block_dims;
  let lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  if (sel) {
    lo = [0, 1, 2].map((i) => Math.min(sel.a[i], sel.b[i])); hi = [0, 1, 2].map((i) => Math.max(sel.a[i], sel.b[i]) + 1);
  } else {
    for (const c of state.chunks.values()) if (c.parts[0] || c.parts[1]) for (let i = 0; i < 3; i++) {
      lo[i] = Math.min(lo[i], c.pos[i] * CS); hi[i] = Math.max(hi[i], c.pos[i] * CS + CS);
    }
  }
  if (lo[0] === Infinity) { lo = [0, 0, 0]; hi = [d[0], 1, d[2]]; }
  frameBox(state.cam, lo, hi); state.dirty = true;
}

/** The view keys' actions (see help.js): camera presets, framing, the orthographic view. */
export function viewAction(name) {
  const cam = state.cam;
  if (name === 'frame') frameAll();
  else if (name === 'ortho') { cam.ortho = !cam.ortho; toast(cam.ortho ? 'orthographic view' : 'perspective view'); }
  else { presetView(cam, name); toast(name + ' view'); }
  state.dirty = true;
}
