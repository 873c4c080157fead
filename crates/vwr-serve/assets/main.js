// voxcaf level editor: plain WebGL2, ES modules, no build step. Everything goes through the
// HTTP API (the same one scripts use): edits are `voxcaf world edit` script lines sent to
// /api/ops. This module wires the events and opens the world.
import { state, stats } from './state.js';
import { $, toast } from './dom.js';
import { api } from './api.js';
import { camBasis, rayThrough } from './camera.js';
import { applyChunks, drawn, frame, initGL } from './render.js';
import { blockName, blockWord, buildPalette, cellBlock, frameAll, objectList, pickRay, selectObject, setTool, updateStatus, viewAction } from './ui.js';
import { clickScript, dragEnd, objectAddLine, raiseTop } from './tools.js';
import { buildHelp, keyAction } from './help.js';
import { guides } from './overlay.js';
import { centreOnMap, edit, followLayer, loadChunkStats, loadLayer, recoveryPrompt, redo, save, savedLabel, startPolling, undo } from './actions.js';
import { startPlay, stopPlay } from './playtest.js';
import { sendPresence, startEvents, wireInvite, wireTimeline } from './team.js';

window.voxcafStats = stats;
const canvas = $('gl');

/** The ray through page point (px, py) of the 3D view. */
const rayAt = (px, py) => rayThrough(state.cam, px, py, canvas.getBoundingClientRect());

function onMouseDown(e) {
  canvas.focus();
  state.mouse = { x: e.clientX, y: e.clientY, button: e.button, shift: e.shiftKey };
  if (e.button === 0 && state.world && (state.tool === 'box' || state.tool === 'select')) {
    const h = pickRay(rayAt(e.clientX, e.clientY));
    if (h) state.drag = { a: state.tool === 'box' ? h.place : (h.cell || h.place), b: null };
  }
}

function onMouseMove(e) {
  if (!state.world) return;
  const m = state.mouse, cam = state.cam;
  if (m && (m.button === 2 || m.button === 1)) {
    const dx = e.clientX - m.x, dy = e.clientY - m.y; m.x = e.clientX; m.y = e.clientY;
    if (m.button === 1 || m.shift) {
      const { right, up } = camBasis(cam), s = cam.dist * 0.0015;
      for (let i = 0; i < 3; i++) cam.target[i] += (-right[i] * dx + up[i] * dy) * s;
    } else {
      cam.yaw += dx * 0.008; cam.pitch = Math.max(-1.5, Math.min(1.5, cam.pitch + dy * 0.008));
    }
    state.dirty = true; return;
  }
  if (e.target !== canvas && !state.drag) return;
  const hover = (state.hover = pickRay(rayAt(e.clientX, e.clientY)));
  if (state.drag && hover) state.drag.b = state.tool === 'box' ? hover.place : (hover.cell || hover.place);
  updateStatus(); sendPresence(); state.dirty = true;
}

async function onMouseUp(e) {
  const m = state.mouse; state.mouse = null;
  if (!m || m.button !== 0 || !state.world || state.play) return;
  try {
    if (state.drag) {
      const a = state.drag.a, b = dragEnd(); state.drag = null; state.dirty = true;
      if (state.tool === 'box') await edit(`box ${a.join(' ')} ${b.join(' ')} ${state.block}`);
      else { state.selection = { a, b }; toast(`selected ${a.join(' ')} .. ${b.join(' ')}`); }
      return;
    }
    if (Math.abs(e.clientX - m.x) > 4 || Math.abs(e.clientY - m.y) > 4) return;
    const h = pickRay(rayAt(e.clientX, e.clientY));
    if (!h) return;
    if (e.altKey && h.cell) {
      const raw = cellBlock(...h.cell);
      state.block = blockWord(raw); buildPalette(); toast('block: ' + blockName(raw)); return;
    }
    const s = clickScript(h, e);
    if (s) toast((await edit(s)).ops.map((o) => o.label).join(', '));
  } catch (err) { /* already shown */ }
}

// The help overlay: shown or hidden.
function showHelp(on) { $('help').hidden = !on; state.dirty = true; }

// PageUp / PageDown (Shift+wheel): the top of the selection up or down by `delta`.
function raiseSelection(delta) {
  const sel = state.selection;
  if (!sel) return toast('select a region first (M, then drag)');
  state.selection = raiseTop(sel, delta, state.world.block_dims[1] - 1);
  const lo = Math.min(sel.a[1], sel.b[1]), hi = Math.max(state.selection.a[1], state.selection.b[1]);
  toast(`selection y ${lo}..${hi} (${hi - lo + 1} high)`); state.dirty = true;
}

// The action `act` of a key of help.js's table.
async function keyAct(act) {
  if (act.startsWith('tool:')) setTool(act.slice(5));
  else if (act.startsWith('guide:')) { const g = act.slice(6); guides[g] = !guides[g]; toast(`${g} ${guides[g] ? 'on' : 'off'}`); }
  else if (act === 'raise' || act === 'lower') raiseSelection(act === 'raise' ? 1 : -1);
  else if (act === 'help') showHelp(true);
  else if (act === 'play') await startPlay();
  else viewAction(act);
  state.dirty = true;
}

async function onKeyDown(e) {
  const k = e.key.toLowerCase();
  // A dialog waiting for a decision takes no shortcuts (Ctrl+Z, tools) behind its back.
  if (!$('modal').hidden || !$('conflict').hidden) return;
  if (state.play) {
    if (k === 'escape') stopPlay(); else { state.play.keys.add(k); e.preventDefault(); }
    return;
  }
  // The help overlay takes the keys until Esc or ? closes it.
  if (!$('help').hidden) { if (k === 'escape' || k === '?') showHelp(false); e.preventDefault(); return; }
  // Text fields keep their own keys (Ctrl+Z edits the text); Ctrl+S saves from anywhere.
  const typing = (e.target.tagName === 'INPUT' && e.target.type !== 'checkbox') || e.target.tagName === 'SELECT';
  const ctrl = e.ctrlKey || e.metaKey;
  if (typing && !(ctrl && k === 's')) return;
  try {
    if (ctrl && k === 'z') { e.preventDefault(); await (e.shiftKey ? redo() : undo()); }
    else if (ctrl && k === 'y') { e.preventDefault(); await redo(); }
    else if (ctrl && k === 's') { e.preventDefault(); await save(); }
    else if (!ctrl && !e.altKey) {
      const act = state.world && keyAction(k);
      if (act) { e.preventDefault(); await keyAct(act); }
      if (k === 'escape') { state.selection = null; state.drag = null; state.dirty = true; }
    }
  } catch (err) { /* already shown */ }
}

function copyOrCut(cut) {
  const sel = state.selection;
  if (!sel) return toast('select a region first');
  state.clip = { a: sel.a, b: sel.b, cut };
  setTool('paste');
  toast(cut ? 'cut: click to paste (moves the region)' : 'copied: click to paste');
}

function wireControls() {
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener('mousedown', onMouseDown);
  window.addEventListener('mousemove', onMouseMove);
  window.addEventListener('mouseup', onMouseUp);
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    // Shift+wheel with a selection: its top up (wheel up) or down.
    if (e.shiftKey && state.selection) return raiseSelection(e.deltaY < 0 ? 1 : -1);
    state.cam.dist = Math.max(3, Math.min(2000, state.cam.dist * Math.exp(e.deltaY * 0.001))); state.dirty = true;
  }, { passive: false });
  window.addEventListener('keydown', onKeyDown);
  window.addEventListener('keyup', (e) => { if (state.play) state.play.keys.delete(e.key.toLowerCase()); });
  document.querySelectorAll('#tools button').forEach((b) => (b.onclick = () => setTool(b.dataset.tool)));
  $('undo').onclick = () => undo().catch(() => {});
  $('redo').onclick = () => redo().catch(() => {});
  $('save').onclick = () => save().catch(() => {});
  $('layerOn').onchange = async () => { state.layerOn = $('layerOn').checked; state.dirty = true; if (state.layerOn) await loadLayer(); };
  $('layerY').onchange = async () => {
    state.layerY = Math.max(0, Math.min(state.world.block_dims[1] - 1, Math.floor(+$('layerY').value)));
    $('layerY').value = state.layerY; state.dirty = true; if (state.layerOn) await loadLayer();
  };
  $('layerMap').onclick = (e) => centreOnMap(e).catch(() => {});
  setInterval(followLayer, 250);
  $('chunksOn').onchange = async () => { state.chunksOn = $('chunksOn').checked; if (state.chunksOn) await loadChunkStats(); state.dirty = true; };
  $('copyBtn').onclick = () => copyOrCut(false);
  $('cutBtn').onclick = () => copyOrCut(true);
  $('clearSel').onclick = () => { state.selection = null; state.dirty = true; };
  $('skyBtn').onclick = () => edit(`sky ${Math.floor(+$('sky').value)}`).catch(() => {});
  $('objApply').onclick = () => {
    const p = state.selectedObj;
    if (!p) return;
    edit(`object remove ${p.join(' ')}\n${objectAddLine(p)}`).then(() => selectObject(p)).catch(() => {});
  };
  $('objMove').onclick = () => { if (state.selectedObj) { setTool('object'); state.movingObj = true; toast('click where the object goes'); } };
  $('objDelete').onclick = () => { if (state.selectedObj) edit(`object remove ${state.selectedObj.join(' ')}`).then(() => selectObject(null)).catch(() => {}); };
  $('play').onclick = () => (state.play ? stopPlay() : startPlay().catch(() => {}));
  $('blockFilter').oninput = () => buildPalette();
  wireInvite();
  wireTimeline();
  buildHelp($('helpTable'));
  $('helpBtn').onclick = () => showHelp($('help').hidden);
  $('helpClose').onclick = () => showHelp(false);
}

async function main() {
  const tFetch = performance.now();
  const [w, b, buf] = await Promise.all([api('/api/world'), api('/api/blocks'), api('/api/chunks?since=0', { binary: true })]);
  const tGot = performance.now();
  state.world = w;
  for (const x of b.blocks) state.blockInfo.set(x.type, x);
  state.paletteList = b.blocks.filter((x) => x.type !== 0).sort((p, q) => (q.used - p.used) || (p.type - q.type));
  if (!state.blockInfo.has(state.block) && state.paletteList.length) state.block = state.paletteList[0].type;
  const sel = $('objType');
  for (const [name, t] of b.object_types) { const o = document.createElement('option'); o.value = t; o.textContent = `${name} (${t})`; sel.appendChild(o); }
  buildPalette();
  applyChunks(buf);
  const tUp = performance.now();
  frameAll();
  $('file').textContent = w.file; $('layerY').max = w.block_dims[1] - 1;
  setTool('place'); objectList(); updateStatus();
  // The session's true state: a reloaded page may find edits not saved yet.
  $('stSaved').textContent = w.store === 'database' || w.modified ? savedLabel() : 'saved';
  stats.openMs = await drawn();
  stats.open = { before_fetch_ms: tFetch, fetch_ms: tGot - tFetch, upload_ms: tUp - tGot, draw_ms: stats.openMs - tUp, bytes: buf.byteLength };
  $('stPerf').textContent = `opened in ${stats.openMs.toFixed(0)} ms, ${state.chunks.size} chunks`;
  document.body.dataset.ready = '1';
  startPolling();
  startEvents();
  await recoveryPrompt();
}

if (!initGL(canvas)) {
  const p = document.createElement('p');
  p.style.padding = '2em'; p.textContent = 'This editor needs WebGL2.';
  document.body.replaceChildren(p);
} else {
  wireControls();
  // The page's own functions, for scripts and tests that drive it.
  window.voxcaf = {
    edit, undo, redo, save, setTool, rayAt, drawn,
    pick: pickRay,
    blockAt: cellBlock,
    get play() { return state.play && state.play.state; },
    get world() { return state.world; },
    cam: state.cam,
    state,
    setLayer: async (on, y) => { $('layerOn').checked = on; if (y !== undefined) $('layerY').value = y; await $('layerY').onchange(); await $('layerOn').onchange(); },
  };
  requestAnimationFrame(frame);
  main().catch((e) => { stats.errors.push(String(e)); toast('cannot load the world: ' + e.message, 100000); });
}
