// Far regions drawn from the server's levels of detail (GET /api/lod, vwr-serve's
// src/session/lod.rs): level k of the world has cells 2^k blocks wide, its chunks meshed
// closed (every chunk's surface closed by itself, so no crack shows where two levels meet,
// and a coarse level's solid contains the fine one's). A level is fetched whole the first time
// a region needs it, then again with `since` after each change of the world (only the level
// chunks that changed come back). No GL here: render.js merges and draws.
import { state, stats } from './state.js';
import { api } from './api.js';
import { chunkKey, decodeChunks } from './wire.js';

/** Chunks are drawn merged per region of R×R×R level-0 chunks (a level-3 chunk covers one). */
export const R = 8;
/** The key of the region holding level-0 chunk `p`. */
export const regionKey = (p) => `${Math.floor(p[0] / R)},${Math.floor(p[1] / R)},${Math.floor(p[2] / R)}`;

/** The coarsest level the page uses (the server's LOD_MAX_LEVEL). */
const TOP = 3;
/** Regions nearer than FAR blocks are drawn in full. */
const FAR = 300;

/**
 * The level a region is drawn from when its centre is `d` blocks from the eye: 0 (full) up to
 * FAR, then 1 beyond FAR, 2 beyond 2·FAR and 3 beyond 4·FAR: a level-k cell (2^k blocks)
 * stays about as wide on screen as a 2-block cell at FAR (about 5 pixels in the editor's
 * view), chosen by distance rather than by projected size so that a region keeps its level
 * while the camera only turns.
 */
export function levelFor(d) {
  if (!(d > FAR)) return 0;
  return Math.min(TOP, 1 + Math.floor(Math.log2(d / FAR)));
}

// The levels asked for so far: k -> {chunks: key -> decoded passes, regions: region key -> Set
// of chunk keys, epoch, ready, busy, again, failed}; and the 'k|region' merges to redo.
const lod = { levels: new Map(), dirty: new Set() };

/** Level `k` when it has arrived (`{chunks, regions}`), else null: the first call fetches it;
 * a level the server refused stays null and is not asked for again. */
export function level(k) {
  let l = lod.levels.get(k);
  if (!l) {
    l = { chunks: new Map(), regions: new Map(), epoch: 0, ready: false, busy: false, again: false, failed: false };
    lod.levels.set(k, l);
    fetchLevel(k, l);
  }
  return l.ready ? l : null;
}

/** Whether level `k` is on its way (asked for, not arrived, not refused). */
export const pending = (k) => { const l = lod.levels.get(k); return !!l && !l.ready && !l.failed; };

// Takes one answer of level k into `l` (fetched in `ms`), marking the regions it touches.
function take(k, l, buf, ms) {
  const answer = decodeChunks(buf);
  for (const c of answer.chunks) {
    const key = chunkKey(c.pos), rk = regionKey(c.pos.map((v) => v * 2 ** k));
    if (!l.regions.has(rk)) l.regions.set(rk, new Set());
    const members = l.regions.get(rk);
    if (!c.parts[0] && !c.parts[1]) { l.chunks.delete(key); members.delete(key); }
    else { l.chunks.set(key, c.parts); members.add(key); }
    lod.dirty.add(`${k}|${rk}`);
  }
  l.epoch = Math.max(l.epoch, answer.epoch);
  // For the browser tests: answers taken, chunks in all of them, the last one's level, chunks,
  // bytes and time (request to decoded), and the first one of each level.
  const last = { level: k, chunks: answer.chunks.length, bytes: buf.byteLength, ms: Math.round(ms) };
  const was = stats.lod || { answers: 0, chunksTotal: 0, first: {} };
  stats.lod = {
    ...last,
    answers: was.answers + 1,
    chunksTotal: was.chunksTotal + answer.chunks.length,
    first: { [k]: last, ...was.first },
  };
}

// Fetches what changed in level k since its epoch; once more when asked again meanwhile.
async function fetchLevel(k, l) {
  if (l.busy || l.failed) { l.again = true; return; }
  l.busy = true;
  try {
    do {
      l.again = false;
      const t0 = performance.now();
      const buf = await api(`/api/lod?level=${k}&since=${l.epoch}`, { binary: true });
      take(k, l, buf, performance.now() - t0);
      l.ready = true;
      state.dirty = true;
    } while (l.again);
  } catch (e) {
    // api() showed the error; the regions stay drawn in full.
    l.failed = true;
    state.dirty = true;
  } finally {
    l.busy = false;
  }
}

/** After the world changed: the levels held are brought up to date. */
export function lodChanged() {
  for (const [k, l] of lod.levels) fetchLevel(k, l);
}

/** The 'k|region' merges made stale since the last call. */
export function takeStale() {
  const out = [...lod.dirty];
  lod.dirty.clear();
  return out;
}
