// Drawing with plain WebGL2: the chunk meshes (uploaded from the decoded chunk answer), the
// outlines (chunks, objects, selection, hover, play test) and the frame loop.
import { CS, state, stats } from './state.js';
import { camBasis, viewProj } from './camera.js';
import { chunkKey, decodeChunks } from './wire.js';
import { presenceLines } from './team.js';
import { ghostBox } from './tools.js';
import { boxLines, ghostGeometry, guideLines } from './overlay.js';
import { level, levelFor, lodChanged, pending, regionKey, takeStale } from './lod.js';

// The GL objects, made once by initGL.
const g = {};

function shader(gl, type, src) {
  const s = gl.createShader(type); gl.shaderSource(s, src); gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
  return s;
}
function program(gl, vs, fs) {
  const p = gl.createProgram();
  gl.attachShader(p, shader(gl, gl.VERTEX_SHADER, vs)); gl.attachShader(p, shader(gl, gl.FRAGMENT_SHADER, fs));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
  return p;
}

/** Sets up WebGL2 on `canvas`; false when the browser has none. */
export function initGL(canvas) {
  const gl = canvas.getContext('webgl2', { antialias: false, preserveDrawingBuffer: true });
  if (!gl) return false;
  g.canvas = canvas; g.gl = gl;
  g.meshProg = program(gl, `#version 300 es
layout(location=0) in vec3 aPos; layout(location=1) in vec4 aNormal; layout(location=2) in vec4 aColor;
uniform mat4 uVP; out vec4 vColor; out float vY; out vec3 vN;
void main(){ gl_Position = uVP * vec4(aPos,1.0); vColor = aColor; vY = aPos.y; vN = aNormal.xyz; }`,
  `#version 300 es
precision mediump float; in vec4 vColor; in float vY; in vec3 vN; uniform float uClipY; uniform float uCaps; out vec4 o;
void main(){ if (vY > uClipY + 0.001) discard;
  // Seen from behind: the inside of a solid cut open by the layer view, drawn as a cap.
  if (uCaps > 0.5 && !gl_FrontFacing) { o = vec4(0.22, 0.2, 0.19, 1.0); return; }
  vec3 L = normalize(vec3(0.35, 1.0, 0.55)); float d = max(dot(normalize(vN), L), 0.0);
  o = vec4(vColor.rgb * (0.55 + 0.45 * d), vColor.a); }`);
  g.lineProg = program(gl, `#version 300 es
layout(location=0) in vec3 aPos; layout(location=1) in vec4 aColor; uniform mat4 uVP; out vec4 vColor;
void main(){ gl_Position = uVP * vec4(aPos,1.0); vColor = aColor; }`,
  `#version 300 es
precision mediump float; in vec4 vColor; out vec4 o; void main(){ o = vColor; }`);
  g.uVP = gl.getUniformLocation(g.meshProg, 'uVP'); g.uClip = gl.getUniformLocation(g.meshProg, 'uClipY');
  g.uCaps = gl.getUniformLocation(g.meshProg, 'uCaps');
  g.uVPl = gl.getUniformLocation(g.lineProg, 'uVP');
  g.lineVao = gl.createVertexArray(); g.lineBuf = gl.createBuffer();
  gl.bindVertexArray(g.lineVao); gl.bindBuffer(gl.ARRAY_BUFFER, g.lineBuf);
  gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 28, 0);
  gl.enableVertexAttribArray(1); gl.vertexAttribPointer(1, 4, gl.FLOAT, false, 28, 12);
  gl.bindVertexArray(null);
  return true;
}

// Chunks are drawn merged per region of R×R×R chunks (lod.js): one buffer and one draw call
// per region and pass, rebuilt (from the decoded chunks it holds) when a chunk inside changes,
// and skipped when its box is outside the view.

// Uploads one merged pass of `parts` (decoded passes): null when it draws nothing.
function uploadMerged(parts) {
  let nv = 0, ni = 0;
  for (const p of parts) { nv += p.positions.length / 3; ni += p.indices.length; }
  if (ni === 0) return null;
  const pos = new Float32Array(nv * 3), nrm = new Int8Array(nv * 4), col = new Uint8Array(nv * 4), idx = new Uint32Array(ni);
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  let v = 0, i = 0;
  for (const p of parts) {
    pos.set(p.positions, v * 3); nrm.set(p.normals, v * 4); col.set(p.colors, v * 4);
    for (let k = 0; k < p.indices.length; k++) idx[i + k] = p.indices[k] + v;
    for (let k = 0; k < p.positions.length; k++) {
      const x = p.positions[k], a = k % 3;
      if (x < lo[a]) lo[a] = x; if (x > hi[a]) hi[a] = x;
    }
    v += p.positions.length / 3; i += p.indices.length;
  }
  const gl = g.gl;
  const vao = gl.createVertexArray(); gl.bindVertexArray(vao);
  const bufs = [];
  const attr = (data, loc, size, type, normalized) => {
    const b = gl.createBuffer(); bufs.push(b); gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    gl.enableVertexAttribArray(loc); gl.vertexAttribPointer(loc, size, type, normalized, 0, 0);
  };
  attr(pos, 0, 3, gl.FLOAT, false); attr(nrm, 1, 4, gl.BYTE, true); attr(col, 2, 4, gl.UNSIGNED_BYTE, true);
  const ib = gl.createBuffer(); bufs.push(ib); gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib);
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, idx, gl.STATIC_DRAW);
  gl.bindVertexArray(null);
  return { vao, bufs, count: ni, lo, hi };
}
// Frees the GL objects of merged passes.
function free(parts) {
  for (const p of parts) if (p) { g.gl.deleteVertexArray(p.vao); p.bufs.forEach((b) => g.gl.deleteBuffer(b)); }
}
// The two merged passes of decoded chunks (each a pair of passes).
const mergedPasses = (chunks) => [0, 1].map((k) => uploadMerged(chunks.map((c) => c[k]).filter(Boolean)));

// Far regions are drawn from the server's levels of detail (lod.js) when the full meshes in
// view exceed state.triangleBudget: a region farther than FAR blocks from the eye uses the
// level levelFor gives, merged per level and region here ('k|region' -> [opaque, transparent]),
// once that level has arrived (the full mesh meanwhile).
const lodMerged = new Map();
// The merged passes of level `k` in region `key`; undefined while the level is not here.
function lodOf(key, k) {
  const l = level(k);
  if (!l) return undefined;
  const id = `${k}|${key}`;
  if (!lodMerged.has(id)) {
    const members = [...(l.regions.get(key) || [])];
    lodMerged.set(id, mergedPasses(members.map((c) => l.chunks.get(c)).filter(Boolean)));
  }
  return lodMerged.get(id);
}
// Rebuilds the regions whose chunks changed.
function rebuildRegions() {
  for (const key of state.dirtyRegions) {
    const old = state.regions.get(key); if (old) free(old.parts);
    const chunks = [...(state.regionChunks.get(key) || [])].map((k) => state.chunks.get(k)).filter(Boolean);
    const parts = mergedPasses(chunks.map((c) => c.parts));
    if (parts[0] || parts[1]) state.regions.set(key, { parts }); else state.regions.delete(key);
  }
  state.dirtyRegions.clear();
  for (const id of takeStale()) {
    const old = lodMerged.get(id); if (old) free(old);
    lodMerged.delete(id);
  }
}

/** Takes a chunk answer (ArrayBuffer) into state.chunks, replacing or dropping chunks; the
 * regions holding them are re-merged before the next frame. */
export function applyChunks(buf) {
  const answer = decodeChunks(buf);
  for (const c of answer.chunks) {
    const key = chunkKey(c.pos), rk = regionKey(c.pos);
    if (!state.regionChunks.has(rk)) state.regionChunks.set(rk, new Set());
    const members = state.regionChunks.get(rk);
    if (!c.blocks && !c.parts[0] && !c.parts[1]) { state.chunks.delete(key); members.delete(key); }
    else { state.chunks.set(key, { pos: c.pos, blocks: c.blocks, parts: c.parts }); members.add(key); }
    state.dirtyRegions.add(rk);
  }
  state.epoch = Math.max(state.epoch, answer.epoch);
  state.dirty = true;
  // The levels of detail held follow the world (not the past world the timeline shows: far
  // regions are drawn in full while it looks back).
  if (answer.chunks.length) lodChanged();
}

// The six planes (a, b, c, d: inside when a·x + b·y + c·z + d >= 0) of the view-projection `m`.
function frustum(m) {
  const row = (r) => [m[r], m[4 + r], m[8 + r], m[12 + r]];
  const r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
  return [r0, r1, r2].flatMap((r) => [r3.map((v, i) => v + r[i]), r3.map((v, i) => v - r[i])]);
}
// Whether the box lo..hi is at least partly inside every plane.
function boxVisible(planes, lo, hi) {
  for (const p of planes) {
    const x = p[0] >= 0 ? hi[0] : lo[0], y = p[1] >= 0 ? hi[1] : lo[1], z = p[2] >= 0 ? hi[2] : lo[2];
    if (p[0] * x + p[1] * y + p[2] * z + p[3] < 0) return false;
  }
  return true;
}
// Whether far regions are drawn from levels of detail this frame: the full meshes in view
// exceed the budget (never in the layer view, nor while the timeline shows the past).
function overBudget(planes) {
  if (state.layerOn || state.scrub !== null) return false;
  let n = 0;
  for (const r of state.regions.values()) for (const p of r.parts) if (p && boxVisible(planes, p.lo, p.hi)) n += p.count / 3;
  return n > state.triangleBudget;
}
// Draws pass `k` of the regions in view (far ones from a level of detail when `budget.coarse`);
// counts into the frame's figures.
function drawPass(k, planes, count, eye, budget) {
  const gl = g.gl;
  for (const [key, r] of state.regions) {
    let p = r.parts[k];
    if (budget.coarse) {
      const box = r.parts[0] || r.parts[1];
      const c = [0, 1, 2].map((a) => (box.lo[a] + box.hi[a]) / 2);
      const lvl = levelFor(Math.hypot(c[0] - eye[0], c[1] - eye[1], c[2] - eye[2]));
      const m = lvl > 0 ? lodOf(key, lvl) : undefined;
      if (m) p = m[k];
      else if (lvl > 0 && k === 0 && pending(lvl)) budget.pending++;
    }
    if (!p || !boxVisible(planes, p.lo, p.hi)) continue;
    gl.bindVertexArray(p.vao); gl.drawElements(gl.TRIANGLES, p.count, gl.UNSIGNED_INT, 0);
    count.calls++; count.triangles += p.count / 3;
  }
}
// A box between two float corners.
function boxLinesF(out, lo, hi, col) {
  boxLines(out, lo, hi.map((v) => v - 1), col, 0);
}
function worldLines(out, world) {
  const sel = state.selectedObj;
  for (const o of world.objects) {
    const col = sel && o.pos.join() === sel.join() ? [1, 1, 1, 1] : [1, 0.85, 0.1, 1];
    boxLines(out, o.pos, o.pos, col, 0.15);
    const s = o.start, e = o.end;
    if (e && (e[0] !== s[0] || e[1] !== s[1] || e[2] !== s[2])) {
      out.push(s[0] + 0.5, s[1] + 0.5, s[2] + 0.5, ...col, e[0] + 0.5, e[1] + 0.5, e[2] + 0.5, ...col);
      boxLines(out, e.map(Math.floor), e.map(Math.floor), [1, 0.6, 0.1, 1], 0.05);
    }
  }
  for (const d of world.decors) boxLines(out, d.pos, d.pos, [1, 0.3, 1, 1], 0.1);
  if (world.spawn) boxLines(out, world.spawn, [world.spawn[0], world.spawn[1] + 1, world.spawn[2]], [0.2, 1, 0.3, 1], 0.05);
}
// The line vertices; `more` gets the translucent triangles (the ghost of the next edit) and
// the lines drawn over everything (the axis gizmo).
function lines(more) {
  const out = [];
  const s = state;
  if (s.world) guideLines(out, more.onTop, s.world.block_dims, s.layerOn ? s.layerY : 0);
  ghostGeometry(out, more.tris, ghostBox());
  if (s.chunksOn) for (const c of s.chunkStats) {
    const a = c.pos.map((v) => v * CS), b = a.map((v) => v + CS - 1);
    const col = c.empty ? [0.4, 0.4, 0.4, 1] : c.uniform ? [0.2, 0.8, 1, 1] : c.bits >= 4 ? [1, 0.4, 0.2, 1] : [1, 0.9, 0.2, 1];
    boxLines(out, a, b, col, 0.02);
  }
  if (s.world) worldLines(out, s.world);
  if (s.play && s.play.state) {
    const st = s.play.state;
    for (const o of st.objects) if (!o.collected) boxLinesF(out, o.min, o.max, o.kind === 'lift' ? [0.2, 1, 1, 1] : [1, 0.5, 0.1, 1]);
    boxLinesF(out, st.player.min, st.player.max, [1, 0.1, 0.6, 1]);
  }
  presenceLines(out, boxLines);
  if (s.selection) boxLines(out, s.selection.a, s.selection.b, [1, 1, 1, 1], 0.03);
  if (s.hover) {
    const c = s.hover.cell && ['erase', 'fill', 'replace', 'select'].includes(s.tool) ? s.hover.cell : s.hover.place;
    boxLines(out, c, c, [0, 0, 0, 1], 0.02);
  }
  if (s.layerOn && s.world) {
    const d = s.world.block_dims, y = s.layerY + 1;
    out.push(0, y, 0, 0.5, 0.8, 1, 1, d[0], y, 0, 0.5, 0.8, 1, 1, d[0], y, 0, 0.5, 0.8, 1, 1, d[0], y, d[2], 0.5, 0.8, 1, 1,
      d[0], y, d[2], 0.5, 0.8, 1, 1, 0, y, d[2], 0.5, 0.8, 1, 1, 0, y, d[2], 0.5, 0.8, 1, 1, 0, y, 0, 0.5, 0.8, 1, 1);
  }
  return new Float32Array(out);
}
function resize() {
  const r = g.canvas.getBoundingClientRect();
  const w = Math.max(1, Math.round(r.width)), h = Math.max(1, Math.round(r.height));
  if (g.canvas.width !== w || g.canvas.height !== h) { g.canvas.width = w; g.canvas.height = h; state.dirty = true; }
}
function draw() {
  const { gl, canvas } = g;
  const s = state;
  gl.viewport(0, 0, canvas.width, canvas.height);
  gl.clearColor(0.53, 0.70, 0.86, 1); gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  const vp = viewProj(s.cam, canvas.width / canvas.height);
  gl.enable(gl.DEPTH_TEST); gl.useProgram(g.meshProg);
  gl.uniformMatrix4fv(g.uVP, false, vp); gl.uniform1f(g.uClip, s.layerOn ? s.layerY + 1 : 1e9);
  if (s.layerOn) gl.disable(gl.CULL_FACE); else gl.enable(gl.CULL_FACE);
  gl.uniform1f(g.uCaps, s.layerOn ? 1 : 0);
  gl.disable(gl.BLEND); gl.depthMask(true);
  rebuildRegions();
  const planes = frustum(vp), count = { calls: 0, triangles: 0 }, eye = camBasis(s.cam).eye, budget = { pending: 0, coarse: overBudget(planes) };
  drawPass(0, planes, count, eye, budget);
  gl.uniform1f(g.uCaps, 0); gl.disable(gl.CULL_FACE); gl.enable(gl.BLEND); gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA); gl.depthMask(false);
  drawPass(1, planes, count, eye, budget);
  // Regions drawn in full this frame for want of their level of detail (on its way).
  count.coarsePending = budget.pending;
  // Whether far regions were drawn from levels of detail (the full meshes in view exceeded the budget).
  count.coarse = budget.coarse;
  stats.frame = count;
  gl.depthMask(true); gl.disable(gl.BLEND);
  const more = { tris: [], onTop: [] }, l = lines(more);
  gl.useProgram(g.lineProg); gl.uniformMatrix4fv(g.uVPl, false, vp);
  gl.bindVertexArray(g.lineVao); gl.bindBuffer(gl.ARRAY_BUFFER, g.lineBuf);
  const put = (mode, v) => { if (v.length) { gl.bufferData(gl.ARRAY_BUFFER, v, gl.DYNAMIC_DRAW); gl.drawArrays(mode, 0, v.length / 7); } };
  put(gl.LINES, l);
  gl.enable(gl.BLEND); gl.depthMask(false);
  put(gl.TRIANGLES, new Float32Array(more.tris));
  gl.depthMask(true); gl.disable(gl.BLEND);
  gl.disable(gl.DEPTH_TEST); put(gl.LINES, new Float32Array(more.onTop)); gl.enable(gl.DEPTH_TEST);
  gl.bindVertexArray(null);
  gl.finish();
}

/** The frame loop: draws when the state says the view changed. */
export function frame() {
  resize();
  if (state.dirty) {
    state.dirty = false;
    draw();
    const now = performance.now();
    while (state.frameWaiters.length) state.frameWaiters.shift()(now);
  }
  requestAnimationFrame(frame);
}

/** Resolves with the time of the next drawn frame. */
export const drawn = () => new Promise((res) => { state.frameWaiters.push(res); state.dirty = true; });
