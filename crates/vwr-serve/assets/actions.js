// What the page asks of the server: edits, undo/redo, saving (and its conflict dialog), the
// layer and chunk views, recovery of an autosave journal, and, for a world in a database,
// other editors' commits (polled).
import { state, stats } from './state.js';
import { $, hideToast, namedBlocks, toast } from './dom.js';
import { api, post } from './api.js';
import { applyChunks, drawn } from './render.js';
import { objectList, updateStatus } from './ui.js';

/** Fetches the meshes that changed since the newest epoch held. */
export async function refreshChunks() {
  applyChunks(await api('/api/chunks?since=' + state.epoch, { binary: true }));
}

/** Sends an edit script; the answer lists what changed; the new meshes are then fetched and
 * drawn. Resolves with the answer when the change is on screen. */
export async function edit(script) {
  notLookingBack();
  const t0 = performance.now();
  const r = await post('/api/ops', script);
  const t1 = performance.now();
  await afterChange(r);
  const t2 = performance.now();
  const shown = await drawn();
  stats.edits.push({ script, ms: shown - t0, api_ms: t1 - t0, meshes_ms: t2 - t1, draw_ms: shown - t2, chunks: r.changed_chunks.length });
  $('stPerf').textContent = `${r.ops.map((o) => namedBlocks(o.label)).join(', ')}: ${(shown - t0).toFixed(0)} ms, ${r.changed_chunks.length} chunks`;
  return r;
}

/** Takes in the answer of an edit (or undo, redo, reload, recover). */
export async function afterChange(r) {
  // A reload starts a new history on the server, counted from 0 again.
  if (r.history_dropped < state.historyDropped) state.historyDropped = r.history_dropped;
  if (r.history_dropped > state.historyDropped) {
    toast(`undo history full: the ${r.history_dropped - state.historyDropped} oldest step(s) can no longer be undone (voxcaf world serve --history N keeps more)`, 5000);
    state.historyDropped = r.history_dropped;
  }
  // The server's push (team.js) may have brought these meshes already.
  if (r.changed_chunks && r.changed_chunks.length && r.epoch > state.epoch) await refreshChunks();
  state.world = r.world || await api('/api/world');
  const sel = state.selectedObj;
  if (sel && !state.world.objects.some((o) => o.pos.join() === sel.join())) state.selectedObj = null;
  objectList(); updateStatus();
  $('stSaved').textContent = savedLabel();
  if (r.synced) toast(r.synced, 4000);
  if (state.layerOn) await loadLayer();
  if (state.chunksOn) await loadChunkStats();
  state.dirty = true;
}

/** Edits are refused while the timeline shows the past. */
function notLookingBack() {
  if (state.scrub === null) return;
  toast('you are looking back in the timeline: press "Back to now" to edit', 4000);
  throw new Error('looking back in the timeline');
}

export async function undo() { notLookingBack(); const r = await post('/api/undo'); await afterChange(r); toast(r.change ? 'undone: ' + r.change.label : 'nothing to undo'); }
export async function redo() { notLookingBack(); const r = await post('/api/redo'); await afterChange(r); toast(r.change ? 'redone: ' + r.change.label : 'nothing to redo'); }

/** The save state shown after a change: a database world commits every edit at once. */
export const savedLabel = () => (isDb() ? `committed (commit ${state.world.head})` : 'unsaved changes');

/** Whether the world is in a database (every edit committed; other editors' commits polled). */
export const isDb = () => !!state.world && state.world.store === 'database';

/** Database mode: pulls other editors' commits and shows them (chunks, objects, summary). */
export async function poll() {
  if (!isDb() || state.polling) return;
  state.polling = true;
  try {
    const r = await api('/api/sync');
    if (r.pulled || r.synced || r.epoch > state.epoch) { await afterChange(r); stats.pulls.push({ head: r.head, chunks: r.pulled }); }
    else if (r.world) state.world = r.world;
  } finally { state.polling = false; }
}

/** Database mode: polls every `ms` milliseconds for other editors' commits. */
export function startPolling(ms = 1000) {
  if (!isDb() || state.pollTimer) return;
  state.pollTimer = setInterval(() => { poll().catch(() => {}); }, ms);
}

// `as`: the answer of a Save as, which names the new file the page now edits.
function savedToast(r, as = false) {
  if (r.committed !== undefined) { $('stSaved').textContent = `committed (commit ${r.committed})`; return toast(`nothing to save: every edit is committed (commit ${r.committed})`); }
  $('stSaved').textContent = r.written ? 'saved' : 'saved (no changes)';
  if (as) return toast(`saved as ${r.file.split(/[\\/]/).pop()} (${r.bytes} bytes); editing it now`, 4000);
  if (!r.written) return toast('no changes to save');
  if (r.commit) return toast(`saved as commit ${r.commit} (${r.bytes_written} bytes written)`);
  toast(`saved ${r.bytes} bytes` + (r.backup ? `; previous version kept as ${r.backup}` : ''));
}

// A file changed on disk since it was opened is never overwritten silently: the user chooses.
async function conflictPrompt(message) {
  // The server's message ends without a full stop ("...; nothing was written").
  $('conflictText').textContent = message.replace(/[.\s]*$/, '. ') + 'Reload it (your unsaved edits are dropped), overwrite it with your version, or save your version as a new file?';
  $('conflict').hidden = false;
  const choice = await new Promise((res) => {
    for (const k of ['reload', 'overwrite', 'saveas', 'cancel']) $('c_' + k).onclick = () => res(k);
  });
  $('conflict').hidden = true;
  if (choice === 'reload') { const a = await post('/api/reload'); await afterChange(a); $('stSaved').textContent = 'saved'; toast('reloaded from disk'); }
  else if (choice === 'overwrite') savedToast(await post('/api/save?mode=overwrite'));
  else if (choice === 'saveas') {
    const name = window.prompt('Save as (a new .vwr file beside this one):', 'copy.vwr');
    if (name) { const r = await post('/api/save?as=' + encodeURIComponent(name)); $('file').textContent = r.file; savedToast(r, true); state.world = await api('/api/world'); }
  }
}

/** Saves; a file changed on disk opens the conflict dialog. */
export async function save() {
  try { savedToast(await post('/api/save')); }
  catch (e) {
    if (e.kind !== 'conflict') throw e;
    // The dialog says it all: not also an error toast under it.
    hideToast();
    await conflictPrompt(e.message);
  }
}

/** Cells per side the layer map shows (its size on the page): a wider level is shown as a
 * window of this many cells around the camera's target. */
export const MAP_CELLS = 200;

/** The rectangle of the level the layer map shows: null (the whole level) when the world
 * fits the map, else MAP_CELLS² cells around the camera's target, inside the world. */
export function layerWindow() {
  const [w, , d] = state.world.block_dims;
  if (w <= MAP_CELLS && d <= MAP_CELLS) return null;
  const from = (c, n) => (n <= MAP_CELLS ? 0 : Math.max(0, Math.min(n - MAP_CELLS, Math.round(c - MAP_CELLS / 2))));
  const x0 = from(state.cam.target[0], w), z0 = from(state.cam.target[2], d);
  return { x0, z0, x1: Math.min(w, x0 + MAP_CELLS) - 1, z1: Math.min(d, z0 + MAP_CELLS) - 1 };
}

/** Draws the layer map of the layer view's level (the window of it that `layerWindow` says). */
export async function loadLayer() {
  const win = layerWindow();
  const q = win ? `&x0=${win.x0}&z0=${win.z0}&x1=${win.x1}&z1=${win.z1}` : '';
  state.layerLoading = true;
  // A refused layer (too large for the map) was shown by api(); the map stays as it was, and
  // an edit that reloads the layer still completes.
  const l = await api(`/api/layer?y=${state.layerY}${q}`).catch(() => null).finally(() => { state.layerLoading = false; });
  if (!l) return;
  state.layerMap = { x0: l.x0, z0: l.z0, width: l.width, depth: l.depth, windowed: !!win };
  const c = $('layerMap'); c.width = l.width; c.height = l.depth;
  const ctx = c.getContext('2d'); const img = ctx.createImageData(l.width, l.depth);
  for (let z = 0; z < l.depth; z++) for (let x = 0; x < l.width; x++) {
    const raw = l.rows[z][x], i = (z * l.width + x) * 4;
    const info = state.blockInfo.get(raw >> 4);
    const col = raw === 0 ? [24, 26, 32, 255] : info ? info.color : [200, 0, 200, 255];
    img.data[i] = col[0]; img.data[i + 1] = col[1]; img.data[i + 2] = col[2]; img.data[i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  const mark = (p, col) => { ctx.fillStyle = col; ctx.fillRect(p[0] - l.x0, p[1] - l.z0, 1, 1); };
  l.objects.forEach((p) => mark(p, '#ffd000')); l.decors.forEach((p) => mark(p, '#ff40ff'));
  if (l.spawn) mark(l.spawn, '#30ff50');
  const n = l.rows.reduce((sum, r) => sum + r.reduce((k, v) => k + (v !== 0), 0), 0);
  const [w, , d] = state.world.block_dims;
  const where = win ? `, x ${l.x0}..${l.x0 + l.width - 1}, z ${l.z0}..${l.z0 + l.depth - 1} of ${w}×${d}` : '';
  const count = (k, what) => `${k} ${what}${k === 1 ? '' : 's'}`;
  $('layerInfo').textContent = `y=${l.y}${where}: ${count(n, 'block')}, ${count(l.objects.length, 'object')}` + (win ? ' (click the map to go there)' : '');
}

/** Keeps a windowed layer map around the camera's target: loads the window again once the
 * target has moved a quarter of the map from where it was (one request at a time). */
export function followLayer() {
  const m = state.layerMap;
  if (!state.layerOn || !m || !m.windowed || state.layerLoading) return;
  const win = layerWindow();
  if (!win || (Math.abs(win.x0 - m.x0) < MAP_CELLS / 4 && Math.abs(win.z0 - m.z0) < MAP_CELLS / 4)) return;
  loadLayer().catch(() => {});
}

/** A click on the layer map: the camera looks at the cell clicked (on the layer's level), and
 * a windowed map follows. */
export async function centreOnMap(e) {
  const m = state.layerMap, c = $('layerMap');
  if (!m || !c.clientWidth || !c.clientHeight) return;
  const x = m.x0 + Math.min(m.width - 1, Math.floor((e.offsetX / c.clientWidth) * m.width));
  const z = m.z0 + Math.min(m.depth - 1, Math.floor((e.offsetY / c.clientHeight) * m.depth));
  state.cam.target = [x + 0.5, state.layerY + 0.5, z + 0.5];
  state.dirty = true;
  if (m.windowed) await loadLayer();
}

/** The chunk debug view's figures. */
export async function loadChunkStats() { state.chunkStats = (await api('/api/chunk-stats')).chunks; state.dirty = true; }

/** Asks what to do with the autosave journal of an earlier session, if one waits. */
export async function recoveryPrompt() {
  const r = state.world.recovery; if (!r) return;
  const when = r.modified_unix ? new Date(r.modified_unix * 1000).toLocaleString() : 'an earlier session';
  $('modalText').textContent = `${r.journal} holds unsaved edits from ${when} (${r.bytes} bytes). Recover them, or discard the journal and edit the file as saved?`;
  $('modal').hidden = false;
  await new Promise((res) => {
    $('recoverBtn').onclick = async () => { const a = await post('/api/recover'); $('modal').hidden = true; await afterChange(a); toast('recovered unsaved edits'); res(); };
    $('discardBtn').onclick = async () => { await post('/api/discard-journal'); $('modal').hidden = true; state.world = await api('/api/world'); res(); };
  });
}
