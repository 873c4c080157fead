// Several people on one world: the server pushes every committed change (Server-Sent Events,
// GET /api/events) with the changed chunks' meshes, so a page never acts on a stale world;
// each user's cursor cell and selection (POST /api/presence) are shown to the others in the
// user's colour; the owner invites others (POST /api/invite).
import { state, stats } from './state.js';
import { $, namedBlocks, toast } from './dom.js';
import { api } from './api.js';
import { applyChunks } from './render.js';
import { viewProj } from './camera.js';
import { objectList, updateStatus } from './ui.js';
import { loadChunkStats, loadLayer, savedLabel } from './actions.js';

const TOKEN = new URLSearchParams(location.search).get('token') || '';

/** base64 -> ArrayBuffer. */
function bytesOf(b64) {
  const s = atob(b64), out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out.buffer;
}

/** Takes in a pushed change: its chunks when they follow the epoch held, else a fetch of
 * everything newer than it. */
async function onChange(d) {
  const t0 = performance.now();
  // Looking back in the timeline: the change waits for Back to now.
  if (state.scrub !== null) { refreshTimeline().catch(() => {}); return; }
  if (d.epoch > state.epoch) {
    if (d.from === state.epoch) applyChunks(bytesOf(d.chunks));
    else applyChunks(await api('/api/chunks?since=' + state.epoch, { binary: true }));
  }
  // The summary's objects, decor, spawn and sky are everyone's; the undo fields are the
  // caller's own, so they are kept.
  if (state.world && d.world) {
    const keep = { undo: state.world.undo, redo: state.world.redo, undo_depth: state.world.undo_depth, redo_depth: state.world.redo_depth, modified: state.world.modified };
    state.world = Object.assign({}, d.world, keep);
    objectList(); updateStatus();
  }
  if (state.me && d.user !== state.me.name && d.label) {
    $('stSaved').textContent = savedLabel();
    toast(`${d.user}: ${namedBlocks(d.label)}`, 2500);
  }
  // Database mode: other servers' commits, pulled by this page's server.
  if (d.note) { $('stSaved').textContent = savedLabel(); toast(d.note, 4000); }
  // Someone else's change (or other servers' commits) shows on the layer map and in the
  // chunk debug view too; this page's own edits reload them when their answer comes.
  if (d.note || (d.user && (!state.me || d.user !== state.me.name))) {
    if (state.layerOn) loadLayer().catch(() => {});
    if (state.chunksOn) loadChunkStats().catch(() => {});
  }
  refreshTimeline().catch(() => {});
  if (d.user) stats.pushes.push({ user: d.user, seq: d.seq, epoch: d.epoch, at: t0 });
  state.dirty = true;
}

function showPeople() {
  const el = $('people');
  if (!el) return;
  el.replaceChildren();
  const me = state.me;
  const list = [...state.presence.values()].filter((p) => !me || p.user !== me.name);
  for (const p of [me, ...list].filter(Boolean)) {
    const li = document.createElement('li');
    li.textContent = p === me ? `${p.name} (you, ${p.role})` : `${p.user} (${p.role})`;
    li.style.borderLeft = `6px solid ${p.colour}`;
    el.appendChild(li);
  }
  $('inviteBox').hidden = !me || me.role !== 'owner';
}

/** Follows the server's events; reconnects (and catches up) by itself. */
export function startEvents() {
  requestAnimationFrame(placeLabels);
  const es = new EventSource('/api/events?token=' + encodeURIComponent(TOKEN));
  state.events = es;
  es.addEventListener('hello', (e) => {
    const d = JSON.parse(e.data);
    state.me = d.me;
    // Reconnected: whatever was pushed meanwhile is fetched.
    state.presence.clear();
    for (const p of d.presence) state.presence.set(p.user, p);
    showPeople();
    refreshTimeline().catch(() => {});
    if (state.world) onChange({ epoch: Infinity, from: -1, world: null }).catch(() => {});
  });
  es.addEventListener('change', (e) => { onChange(JSON.parse(e.data)).catch(() => {}); });
  es.addEventListener('revoked', () => {
    es.close(); state.events = null;
    toast('your invitation was revoked: this page can no longer read or change the world', 100000);
  });
  es.addEventListener('lagged', () => { onChange({ epoch: Infinity, from: -1, world: null }).catch(() => {}); });
  es.addEventListener('presence', (e) => {
    const p = JSON.parse(e.data);
    if (p.gone) state.presence.delete(p.user); else state.presence.set(p.user, p);
    showPeople(); state.dirty = true;
  });
}

/** Sends the cursor cell and selection (at most every 100 ms). */
export function sendPresence() {
  if (!state.me || state.presenceTimer) return;
  state.presenceTimer = setTimeout(() => {
    state.presenceTimer = 0;
    const h = state.hover, sel = state.selection;
    const body = { cell: h ? (h.cell || h.place) : null, selection: sel ? [sel.a, sel.b] : null };
    api('/api/presence', { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }).catch(() => {});
  }, 100);
}

const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).concat([1]);

/** Keeps a name label beside each other person's cursor (HTML over the canvas, placed by
 * projecting the cursor cell every frame while anyone is shown). */
function placeLabels() {
  const view = $('view'), canvas = $('gl');
  const shown = new Set();
  const r = canvas.getBoundingClientRect();
  const vp = viewProj(state.cam, r.width / Math.max(1, r.height));
  for (const p of state.presence.values()) {
    if ((state.me && p.user === state.me.name) || !p.cell) continue;
    const [x, y, z] = p.cell.map((v, i) => v + (i === 1 ? 1.2 : 0.5));
    const cx = vp[0] * x + vp[4] * y + vp[8] * z + vp[12], cy = vp[1] * x + vp[5] * y + vp[9] * z + vp[13];
    const cw = vp[3] * x + vp[7] * y + vp[11] * z + vp[15];
    let el = view.querySelector(`.who[data-user="${CSS.escape(p.user)}"]`);
    if (cw <= 0) { if (el) el.remove(); continue; }
    if (!el) {
      el = document.createElement('div'); el.className = 'who'; el.dataset.user = p.user;
      el.textContent = p.user; el.style.background = p.colour; view.appendChild(el);
    }
    el.style.left = `${((cx / cw) * 0.5 + 0.5) * r.width}px`;
    el.style.top = `${(0.5 - (cy / cw) * 0.5) * r.height}px`;
    shown.add(p.user);
  }
  for (const el of view.querySelectorAll('.who')) if (!shown.has(el.dataset.user)) el.remove();
  requestAnimationFrame(placeLabels);
}

/** The others' cursors and selections, as outline boxes in their colours. */
export function presenceLines(out, boxLines) {
  for (const p of state.presence.values()) {
    if (state.me && p.user === state.me.name) continue;
    const col = rgb(p.colour);
    if (p.cell) boxLines(out, p.cell, p.cell, col, 0.06);
    if (p.selection) boxLines(out, p.selection[0], p.selection[1], col, 0.05);
  }
}

/** Brings the log and the timeline slider up to date (new operations only). */
export async function refreshTimeline() {
  const r = await api('/api/log?since=' + (state.logOps.length ? state.logOps[state.logOps.length - 1].seq + 1 : 0));
  state.logOps.push(...r.ops);
  const tl = $('tl');
  tl.min = r.timeline_from; tl.max = r.next - 1;
  if (state.scrub === null) { tl.value = tl.max; state.shownSeq = r.next - 1; }
  showTimelineInfo();
}

function showTimelineInfo() {
  const n = +$('tl').value, op = state.logOps.find((o) => o.seq === n);
  const what = op ? `after ${op.seq}: ${op.user}: ${namedBlocks(op.label)}` : (n === 0 ? 'before the first operation' : `after operation ${n}`);
  $('tlInfo').textContent = state.scrub === null ? `now (${what})` : `looking back, ${what}; editing is off`;
  $('tlNow').hidden = state.scrub === null;
}

/** Shows the world after operation `n` (the newest: now, editable again). */
async function scrubTo(n) {
  const max = +$('tl').max;
  const buf = await api(`/api/timeline?seq=${n}&shown=${state.shownSeq}`, { binary: true });
  applyChunks(buf);
  state.shownSeq = n;
  state.scrub = n >= max ? null : n;
  $('tl').value = n;
  showTimelineInfo();
  state.dirty = true;
}

/** The timeline's slider and its Back to now button. */
export function wireTimeline() {
  const tl = $('tl');
  tl.oninput = () => { state.scrubWanted = +tl.value; if (!state.scrubbing) scrubLoop(); };
  $('tlNow').onclick = () => { state.scrubWanted = +tl.max; if (!state.scrubbing) scrubLoop(); };
}

// One timeline request at a time; the slider's last position wins.
async function scrubLoop() {
  state.scrubbing = true;
  try {
    while (state.scrubWanted !== null && state.scrubWanted !== state.shownSeq) {
      const n = state.scrubWanted; state.scrubWanted = null;
      await scrubTo(n);
    }
  } catch (e) { /* shown by api() */ } finally { state.scrubbing = false; state.scrubWanted = null; }
}

/** The owner's invitation form. */
export function wireInvite() {
  const b = $('inviteBtn');
  if (!b) return;
  b.onclick = async () => {
    const body = { role: $('inviteRole').value, name: $('inviteName').value };
    const r = await api('/api/invite', { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
    $('inviteUrl').value = r.url;
    toast(`invited ${r.name} (${r.role}): give them the address below`, 5000);
  };
}
