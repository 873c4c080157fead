// voxcaf level editor: plain WebGL2, no build step. Everything goes through the HTTP API
// (the same one scripts use): edits are `voxcaf world edit` script lines sent to /api/ops.
'use strict';
(function () {
const TOKEN = new URLSearchParams(location.search).get('token') || '';
const CS = 10; // chunk size
const $ = (id) => document.getElementById(id);
const stats = (window.voxcafStats = { openMs: null, edits: [], errors: [] });

// ---------- API ----------
async function api(path, opts = {}) {
  const headers = Object.assign({ 'X-Voxcaf-Token': TOKEN }, opts.headers || {});
  const r = await fetch(path, Object.assign({}, opts, { headers }));
  if (opts.binary && r.ok) return r.arrayBuffer();
  const j = await r.json().catch(() => ({ ok: false, error: { message: r.status + ' ' + r.statusText } }));
  if (!r.ok || j.ok === false) {
    const msg = (j.error && j.error.message) || r.statusText;
    stats.errors.push(msg);
    toast('error: ' + msg, 5000);
    const err = new Error(msg); err.kind = j.error && j.error.kind;
    throw err;
  }
  return j;
}
const post = (path, body) => api(path, { method: 'POST', body: body || '' });

// ---------- state ----------
let world = null;          // summary of /api/world
let blockInfo = new Map(); // type -> {name, color, kind}
let block = 35;            // current block type
let tool = 'place';
let epoch = 0;
const chunks = new Map();  // key -> {pos, blocks: Uint16Array|null, parts: [..]}
let selection = null;      // {a, b}
let clip = null;           // {a, b, cut}
let selectedObj = null;    // [x,y,z] anchor
let movingObj = false;
let hover = null;          // pick result
let drag = null;           // {a, b} while box/select dragging
let layerOn = false, layerY = 1, chunksOn = false, chunkStats = [];
let dirty = true;

function toast(t, ms = 1500) {
  const el = $('toast'); el.textContent = t; el.style.display = 'block';
  clearTimeout(toast.t); toast.t = setTimeout(() => (el.style.display = 'none'), ms);
}

// ---------- GL ----------
const canvas = $('gl');
const gl = canvas.getContext('webgl2', { antialias: false, preserveDrawingBuffer: true });
if (!gl) { document.body.innerHTML = '<p style="padding:2em">This editor needs WebGL2.</p>'; return; }
function shader(type, src) {
  const s = gl.createShader(type); gl.shaderSource(s, src); gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
  return s;
}
function program(vs, fs) {
  const p = gl.createProgram();
  gl.attachShader(p, shader(gl.VERTEX_SHADER, vs)); gl.attachShader(p, shader(gl.FRAGMENT_SHADER, fs));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
  return p;
}
const meshProg = program(`#version 300 es
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
const lineProg = program(`#version 300 es
layout(location=0) in vec3 aPos; layout(location=1) in vec4 aColor; uniform mat4 uVP; out vec4 vColor;
void main(){ gl_Position = uVP * vec4(aPos,1.0); vColor = aColor; }`,
`#version 300 es
precision mediump float; in vec4 vColor; out vec4 o; void main(){ o = vColor; }`);
const uVP = gl.getUniformLocation(meshProg, 'uVP'), uClip = gl.getUniformLocation(meshProg, 'uClipY');
const uCaps = gl.getUniformLocation(meshProg, 'uCaps');
const uVPl = gl.getUniformLocation(lineProg, 'uVP');
const lineVao = gl.createVertexArray(), lineBuf = gl.createBuffer();
gl.bindVertexArray(lineVao); gl.bindBuffer(gl.ARRAY_BUFFER, lineBuf);
gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 28, 0);
gl.enableVertexAttribArray(1); gl.vertexAttribPointer(1, 4, gl.FLOAT, false, 28, 12);
gl.bindVertexArray(null);

function makePart(buf, off, nv, ni) {
  if (nv === 0 || ni === 0) return { off: off + nv * 20 + ni * 4, part: null };
  const pos = new Float32Array(buf, off, nv * 3); off += nv * 12;
  const nor = new Int8Array(buf, off, nv * 4); off += nv * 4;
  const col = new Uint8Array(buf, off, nv * 4); off += nv * 4;
  const idx = new Uint32Array(buf, off, ni); off += ni * 4;
  const vao = gl.createVertexArray(); gl.bindVertexArray(vao);
  const bufs = [];
  const attr = (data, loc, size, type, norm) => {
    const b = gl.createBuffer(); bufs.push(b); gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    gl.enableVertexAttribArray(loc); gl.vertexAttribPointer(loc, size, type, norm, 0, 0);
  };
  attr(pos, 0, 3, gl.FLOAT, false); attr(nor, 1, 4, gl.BYTE, true); attr(col, 2, 4, gl.UNSIGNED_BYTE, true);
  const ib = gl.createBuffer(); bufs.push(ib); gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib);
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, idx, gl.STATIC_DRAW);
  gl.bindVertexArray(null);
  return { off, part: { vao, bufs, count: ni } };
}
function freeChunk(c) {
  for (const p of c.parts) if (p) { gl.deleteVertexArray(p.vao); p.bufs.forEach((b) => gl.deleteBuffer(b)); }
}
// Reads the binary answer of /api/chunks (layout in vwr-serve's wire.rs).
function applyChunks(buf) {
  const dv = new DataView(buf);
  if (dv.getUint32(0, true) !== 0x314d5856) throw new Error('bad chunk answer');
  const ep = dv.getUint32(4, true), count = dv.getUint32(8, true);
  let off = 12;
  for (let i = 0; i < count; i++) {
    const pos = [dv.getUint32(off, true), dv.getUint32(off + 4, true), dv.getUint32(off + 8, true)];
    const flags = dv.getUint32(off + 12, true); off += 16;
    let blocks = null;
    if (flags & 1) { blocks = new Uint16Array(buf.slice(off, off + 2000)); off += 2000; }
    const parts = [];
    for (let k = 0; k < 2; k++) {
      const nv = dv.getUint32(off, true), ni = dv.getUint32(off + 4, true); off += 8;
      const r = makePart(buf, off, nv, ni); off = r.off; parts.push(r.part);
    }
    const key = pos.join(',');
    const old = chunks.get(key); if (old) freeChunk(old);
    if (!blocks && !parts[0] && !parts[1]) chunks.delete(key); else chunks.set(key, { pos, blocks, parts });
  }
  epoch = Math.max(epoch, ep);
  dirty = true;
}
async function refreshChunks() {
  const buf = await api('/api/chunks?since=' + epoch, { binary: true });
  applyChunks(buf);
}

// ---------- camera ----------
const cam = { target: [50, 10, 50], yaw: 0.8, pitch: 0.6, dist: 150, fov: 0.9 };
function camBasis() {
  const cp = Math.cos(cam.pitch), sp = Math.sin(cam.pitch);
  const dir = [-Math.cos(cam.yaw) * cp, -sp, -Math.sin(cam.yaw) * cp]; // eye -> target
  const eye = [cam.target[0] - dir[0] * cam.dist, cam.target[1] - dir[1] * cam.dist, cam.target[2] - dir[2] * cam.dist];
  const right = norm(cross(dir, [0, 1, 0])), up = cross(right, dir);
  return { eye, dir, right, up };
}
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
function norm(a) { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; }
function viewProj() {
  const { eye, dir, right, up } = camBasis();
  const aspect = canvas.width / canvas.height, f = 1 / Math.tan(cam.fov / 2);
  const near = 0.1, far = cam.dist * 4 + 500;
  // column-major: P * V where V rows are right, up, -dir
  const V = [right[0], up[0], -dir[0], 0, right[1], up[1], -dir[1], 0, right[2], up[2], -dir[2], 0,
    -dot(right, eye), -dot(up, eye), dot(dir, eye), 1];
  const P = [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, 2 * far * near / (near - far), 0];
  const M = new Float32Array(16);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) {
    let s = 0; for (let k = 0; k < 4; k++) s += P[k * 4 + r] * V[c * 4 + k]; M[c * 4 + r] = s;
  }
  return M;
}
function rayAt(px, py) {
  const { eye, dir, right, up } = camBasis();
  const rect = canvas.getBoundingClientRect();
  const x = ((px - rect.left) / rect.width) * 2 - 1, y = 1 - ((py - rect.top) / rect.height) * 2;
  const t = Math.tan(cam.fov / 2), aspect = rect.width / rect.height;
  const d = norm([0, 1, 2].map((i) => dir[i] + right[i] * x * t * aspect + up[i] * y * t));
  return { o: eye, d };
}

// ---------- voxel access and raycast ----------
function blockAt(x, y, z) {
  if (x < 0 || y < 0 || z < 0) return 0;
  const c = chunks.get(`${Math.floor(x / CS)},${Math.floor(y / CS)},${Math.floor(z / CS)}`);
  if (!c || !c.blocks) return 0;
  return c.blocks[(x % CS) + (y % CS) * CS + (z % CS) * CS * CS];
}
const inWorld = (p) => world && p.every((v, i) => v >= 0 && v < world.block_dims[i]);
// Amanatides-Woo voxel traversal: the first non-air cell (under the layer cut) and the cell
// in front of the face the ray entered through.
function pick(ray) {
  const dims = world.block_dims, o = ray.o.slice(), d = ray.d;
  // Move the origin to the world's bounding box first.
  let tmin = 0, tmax = 1e9;
  for (let i = 0; i < 3; i++) {
    if (Math.abs(d[i]) < 1e-9) { if (o[i] < 0 || o[i] > dims[i]) return groundPick(ray); continue; }
    let t0 = (0 - o[i]) / d[i], t1 = (dims[i] - o[i]) / d[i]; if (t0 > t1) [t0, t1] = [t1, t0];
    tmin = Math.max(tmin, t0); tmax = Math.min(tmax, t1);
  }
  if (tmin > tmax) return groundPick(ray);
  const p = [0, 1, 2].map((i) => o[i] + d[i] * (tmin + 1e-4));
  const cell = p.map((v, i) => Math.min(dims[i] - 1, Math.max(0, Math.floor(v))));
  const step = d.map((v) => (v > 0 ? 1 : -1));
  const tDelta = d.map((v) => Math.abs(1 / (v || 1e-12)));
  const tMax = [0, 1, 2].map((i) => {
    const b = d[i] > 0 ? cell[i] + 1 : cell[i];
    return tmin + Math.abs((b - p[i]) / (d[i] || 1e-12));
  });
  let face = null;
  const top = layerOn ? layerY : dims[1] - 1;
  for (let n = 0; n < 1000; n++) {
    if (cell[1] <= top && blockAt(cell[0], cell[1], cell[2]) !== 0) {
      const place = face ? cell.map((v, i) => v - face[i]) : cell.slice();
      return { cell: cell.slice(), place, face };
    }
    let a = tMax[0] < tMax[1] ? (tMax[0] < tMax[2] ? 0 : 2) : (tMax[1] < tMax[2] ? 1 : 2);
    cell[a] += step[a]; tMax[a] += tDelta[a];
    face = [0, 0, 0]; face[a] = step[a];
    if (cell[a] < 0 || cell[a] >= dims[a]) break;
  }
  return groundPick(ray);
}
// No block hit: the ground plane (y = 0, or the layer's level) stands in.
function groundPick(ray) {
  const y0 = layerOn ? layerY : 0;
  if (Math.abs(ray.d[1]) < 1e-9) return null;
  const t = (y0 - ray.o[1]) / ray.d[1]; if (t < 0) return null;
  const c = [Math.floor(ray.o[0] + ray.d[0] * t), y0, Math.floor(ray.o[2] + ray.d[2] * t)];
  if (!inWorld(c)) return null;
  return { cell: null, place: c, face: [0, -1, 0] };
}

// ---------- drawing ----------
function boxLines(out, a, b, col, pad = 0.01) {
  const lo = [0, 1, 2].map((i) => Math.min(a[i], b[i]) - pad), hi = [0, 1, 2].map((i) => Math.max(a[i], b[i]) + 1 + pad);
  const c = (x, y, z) => [x ? hi[0] : lo[0], y ? hi[1] : lo[1], z ? hi[2] : lo[2]];
  const e = [[0,0,0,1,0,0],[0,1,0,1,1,0],[0,0,1,1,0,1],[0,1,1,1,1,1],[0,0,0,0,1,0],[1,0,0,1,1,0],[0,0,1,0,1,1],[1,0,1,1,1,1],[0,0,0,0,0,1],[1,0,0,1,0,1],[0,1,0,0,1,1],[1,1,0,1,1,1]];
  for (const s of e) { out.push(...c(s[0], s[1], s[2]), ...col, ...c(s[3], s[4], s[5]), ...col); }
}
// A box between two float corners.
function boxLinesF(out, lo, hi, col) {
  boxLines(out, lo, hi.map((v) => v - 1), col, 0);
}
function lines() {
  const out = [];
  if (chunksOn) for (const s of chunkStats) {
    const a = s.pos.map((v) => v * CS), b = a.map((v) => v + CS - 1);
    const col = s.empty ? [0.4, 0.4, 0.4, 1] : s.uniform ? [0.2, 0.8, 1, 1] : s.bits >= 4 ? [1, 0.4, 0.2, 1] : [1, 0.9, 0.2, 1];
    boxLines(out, a, b, col, 0.02);
  }
  if (world) {
    for (const o of world.objects) {
      const col = selectedObj && o.pos.join() === selectedObj.join() ? [1, 1, 1, 1] : [1, 0.85, 0.1, 1];
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
  if (play && play.state) {
    const st = play.state;
    for (const o of st.objects) if (!o.collected) boxLinesF(out, o.min, o.max, o.kind === 'lift' ? [0.2, 1, 1, 1] : [1, 0.5, 0.1, 1]);
    boxLinesF(out, st.player.min, st.player.max, [1, 0.1, 0.6, 1]);
  }
  if (selection) boxLines(out, selection.a, selection.b, [1, 1, 1, 1], 0.03);
  if (drag) boxLines(out, drag.a, dragEnd(), [0.3, 0.7, 1, 1], 0.04);
  if (hover) {
    const c = hover.cell && ['erase', 'fill', 'replace', 'select'].includes(tool) ? hover.cell : hover.place;
    boxLines(out, c, c, [0, 0, 0, 1], 0.02);
  }
  if (layerOn && world) {
    const d = world.block_dims, y = layerY + 1;
    out.push(0, y, 0, 0.5, 0.8, 1, 1, d[0], y, 0, 0.5, 0.8, 1, 1, d[0], y, 0, 0.5, 0.8, 1, 1, d[0], y, d[2], 0.5, 0.8, 1, 1,
      d[0], y, d[2], 0.5, 0.8, 1, 1, 0, y, d[2], 0.5, 0.8, 1, 1, 0, y, d[2], 0.5, 0.8, 1, 1, 0, y, 0, 0.5, 0.8, 1, 1);
  }
  return new Float32Array(out);
}
function resize() {
  const r = canvas.getBoundingClientRect();
  const w = Math.max(1, Math.round(r.width)), h = Math.max(1, Math.round(r.height));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; dirty = true; }
}
const frameWaiters = [];
function frame() {
  resize();
  if (dirty) {
    dirty = false;
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(0.53, 0.70, 0.86, 1); gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    const vp = viewProj();
    gl.enable(gl.DEPTH_TEST); gl.useProgram(meshProg);
    gl.uniformMatrix4fv(uVP, false, vp); gl.uniform1f(uClip, layerOn ? layerY + 1 : 1e9);
    if (layerOn) gl.disable(gl.CULL_FACE); else gl.enable(gl.CULL_FACE);
    gl.uniform1f(uCaps, layerOn ? 1 : 0);
    gl.disable(gl.BLEND); gl.depthMask(true);
    for (const c of chunks.values()) if (c.parts[0]) { gl.bindVertexArray(c.parts[0].vao); gl.drawElements(gl.TRIANGLES, c.parts[0].count, gl.UNSIGNED_INT, 0); }
    gl.uniform1f(uCaps, 0); gl.disable(gl.CULL_FACE); gl.enable(gl.BLEND); gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA); gl.depthMask(false);
    for (const c of chunks.values()) if (c.parts[1]) { gl.bindVertexArray(c.parts[1].vao); gl.drawElements(gl.TRIANGLES, c.parts[1].count, gl.UNSIGNED_INT, 0); }
    gl.depthMask(true); gl.disable(gl.BLEND);
    const l = lines();
    if (l.length) {
      gl.useProgram(lineProg); gl.uniformMatrix4fv(uVPl, false, vp);
      gl.bindVertexArray(lineVao); gl.bindBuffer(gl.ARRAY_BUFFER, lineBuf);
      gl.bufferData(gl.ARRAY_BUFFER, l, gl.DYNAMIC_DRAW); gl.drawArrays(gl.LINES, 0, l.length / 7);
    }
    gl.bindVertexArray(null);
    gl.finish();
    const now = performance.now();
    while (frameWaiters.length) frameWaiters.shift()(now);
  }
  requestAnimationFrame(frame);
}
// Resolves with the time of the next drawn frame.
const drawn = () => new Promise((res) => { frameWaiters.push(res); dirty = true; });

// ---------- UI ----------
function blockName(raw) {
  const t = raw >> 4, m = raw & 15; // raw = (type << 4) | metadata
  const i = blockInfo.get(t);
  return (i ? i.name : 'tile' + t) + (m ? ':' + m : '');
}
function setTool(t) {
  tool = t; movingObj = false;
  document.querySelectorAll('#tools button').forEach((b) => b.classList.toggle('on', b.dataset.tool === t));
  $('stTool').textContent = 'tool: ' + t; dirty = true;
}
function updateStatus() {
  if (!world) return;
  const h = hover;
  if (h) {
    const c = h.cell || h.place;
    $('stCell').textContent = `cell ${c.join(' ')}`;
    $('stBlock').textContent = h.cell ? blockName(blockAt(...h.cell)) : 'air';
    if (chunksOn) {
      const cp = c.map((v) => Math.floor(v / CS));
      const s = chunkStats.find((x) => x.pos.join() === cp.join());
      $('chunkInfo').textContent = s ? `chunk ${s.pos.join(' ')}\n${s.empty ? 'empty' : s.uniform ? 'uniform' : s.bits + ' bits/block'}\npalette ${s.palette} (${s.live_palette} live)\nnon-air ${s.non_air}\nrecords ${s.records}\nbytes ${s.bytes}` : `chunk ${cp.join(' ')}\nnot allocated (air)`;
    }
  } else { $('stCell').textContent = '-'; $('stBlock').textContent = ''; }
  $('stHist').textContent = `undo ${world.undo_depth} / redo ${world.redo_depth}`;
  $('undo').disabled = !world.undo_depth; $('redo').disabled = !world.redo_depth;
}
function buildPalette(list) {
  const el = $('palette'); el.innerHTML = '';
  const f = $('blockFilter').value.toLowerCase();
  for (const b of list) {
    if (f && !b.name.toLowerCase().includes(f) && String(b.type) !== f) continue;
    const d = document.createElement('div'); d.className = 'sw' + (b.type === block ? ' on' : '');
    d.dataset.type = b.type; d.title = `${b.name} (${b.type}, ${b.kind})`;
    d.innerHTML = `<i style="background:rgba(${b.color[0]},${b.color[1]},${b.color[2]},${b.color[3] / 255})"></i>${b.name}`;
    d.onclick = () => { block = b.type; buildPalette(list); };
    el.appendChild(d);
  }
}
function objectList() {
  const el = $('objList'); el.innerHTML = '';
  for (const o of world.objects) {
    const d = document.createElement('div');
    d.textContent = `${o.name || 'type ' + o.type} @ ${o.pos.join(' ')}`;
    if (selectedObj && o.pos.join() === selectedObj.join()) d.className = 'on';
    d.onclick = () => selectObject(o.pos);
    el.appendChild(d);
  }
  for (const o of world.decors) { const d = document.createElement('div'); d.textContent = `decor ${o.icon} @ ${o.pos.join(' ')}`; el.appendChild(d); }
  if (world.spawn) { const d = document.createElement('div'); d.textContent = `spawn @ ${world.spawn.join(' ')}`; el.appendChild(d); }
}
function selectObject(pos) {
  selectedObj = pos;
  const o = pos && world.objects.find((x) => x.pos.join() === pos.join());
  ['objApply', 'objMove', 'objDelete'].forEach((id) => ($(id).disabled = !o));
  if (o) {
    $('objType').value = o.type; $('objSpeed').value = o.speed; $('objAdvance').value = o.advance;
    $('objRecede').value = o.recede; $('objStopStart').value = o.stop_start; $('objStopEnd').value = o.stop_end;
    $('objIcon').value = o.icon; $('objEnd').value = [0, 1, 2].map((i) => +(o.end[i] - o.start[i]).toFixed(3)).join(',');
    $('objSel').textContent = `selected: ${o.name || o.type} at ${o.pos.join(' ')}`;
  } else $('objSel').textContent = 'click an object marker to select it';
  objectList(); dirty = true;
}
function objectAddLine(p) {
  const e = $('objEnd').value.split(',').map(Number);
  const end = [0, 1, 2].map((i) => p[i] + (e[i] || 0));
  return `object add ${$('objType').value} ${p.join(' ')} end=${end.join(',')} speed=${+$('objSpeed').value}` +
    ` advance=${+$('objAdvance').value} recede=${+$('objRecede').value} stop-start=${+$('objStopStart').value}` +
    ` stop-end=${+$('objStopEnd').value} icon=${+$('objIcon').value}`;
}

// Sends an edit script; the answer lists what changed; the new meshes are then fetched and
// drawn. Resolves when the change is on screen.
async function edit(script) {
  const t0 = performance.now();
  const r = await post('/api/ops', script);
  const t1 = performance.now();
  await afterChange(r);
  const t2 = performance.now();
  const shown = await drawn();
  stats.edits.push({ script, ms: shown - t0, api_ms: t1 - t0, meshes_ms: t2 - t1, draw_ms: shown - t2, chunks: r.changed_chunks.length });
  $('stPerf').textContent = `${r.ops.map((o) => o.label).join(', ')}: ${(shown - t0).toFixed(0)} ms, ${r.changed_chunks.length} chunks`;
  return r;
}
let historyDropped = 0;      // undo steps the server dropped from the oldest end so far
async function afterChange(r) {
  // A reload starts a new history on the server, counted from 0 again.
  if (r.history_dropped < historyDropped) historyDropped = r.history_dropped;
  if (r.history_dropped > historyDropped) {
    toast(`undo history full: the ${r.history_dropped - historyDropped} oldest step(s) can no longer be undone (voxcaf world serve --history N keeps more)`, 5000);
    historyDropped = r.history_dropped;
  }
  if (r.changed_chunks && r.changed_chunks.length) await refreshChunks();
  world = r.world || await api('/api/world');
  if (selectedObj && !world.objects.some((o) => o.pos.join() === selectedObj.join())) selectedObj = null;
  objectList(); updateStatus();
  $('stSaved').textContent = 'unsaved changes';
  if (layerOn) await loadLayer();
  if (chunksOn) await loadChunkStats();
  dirty = true;
}
async function undo() { const r = await post('/api/undo'); await afterChange(r); toast(r.change ? 'undone: ' + r.change.label : 'nothing to undo'); }
async function redo() { const r = await post('/api/redo'); await afterChange(r); toast(r.change ? 'redone: ' + r.change.label : 'nothing to redo'); }
// `as`: the answer of a Save as, which names the new file the page now edits.
function savedToast(r, as = false) {
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
    if (name) { const r = await post('/api/save?as=' + encodeURIComponent(name)); $('file').textContent = r.file; savedToast(r, true); world = await api('/api/world'); }
  }
}
async function save() {
  try { savedToast(await post('/api/save')); }
  catch (e) {
    if (e.kind !== 'conflict') throw e;
    // The dialog says it all: not also an error toast under it.
    clearTimeout(toast.t); $('toast').style.display = 'none';
    await conflictPrompt(e.message);
  }
}
async function loadLayer() {
  const l = await api('/api/layer?y=' + layerY);
  const c = $('layerMap'); c.width = l.width; c.height = l.depth;
  const ctx = c.getContext('2d'); const img = ctx.createImageData(l.width, l.depth);
  for (let z = 0; z < l.depth; z++) for (let x = 0; x < l.width; x++) {
    const raw = l.rows[z][x], i = (z * l.width + x) * 4;
    const info = blockInfo.get(raw >> 4);
    const col = raw === 0 ? [24, 26, 32, 255] : info ? info.color : [200, 0, 200, 255];
    img.data[i] = col[0]; img.data[i + 1] = col[1]; img.data[i + 2] = col[2]; img.data[i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  const mark = (p, col) => { ctx.fillStyle = col; ctx.fillRect(p[0] - l.x0, p[1] - l.z0, 1, 1); };
  l.objects.forEach((p) => mark(p, '#ffd000')); l.decors.forEach((p) => mark(p, '#ff40ff'));
  if (l.spawn) mark(l.spawn, '#30ff50');
  const n = l.rows.flat().filter((v) => v !== 0).length;
  $('layerInfo').textContent = `y=${l.y}: ${n} blocks, ${l.objects.length} objects`;
}
async function loadChunkStats() { chunkStats = (await api('/api/chunk-stats')).chunks; dirty = true; }

// The script line of a click with the current tool (null: the tool acts otherwise).
function clickScript(h, ev) {
  const p = h.place, c = h.cell, b = block;
  switch (tool) {
    case 'place': return inWorld(p) ? `place ${p.join(' ')} ${b}` : null;
    case 'erase': return c ? `erase ${c.join(' ')}` : null;
    case 'fill': return c ? `fill ${c.join(' ')} ${b} limit ${+$('fillLimit').value}` : null;
    case 'sphere': case 'cube': return `brush ${tool} ${(ev.shiftKey && c ? c : p).join(' ')} ${+$('radius').value} ${ev.shiftKey ? 'air' : b}`;
    case 'replace': {
      if (!c) return null;
      const from = blockAt(...c);
      const box = selection ? ' ' + [...selection.a, ...selection.b].join(' ') : '';
      return `replace raw:${from} ${b}${box}`;
    }
    case 'paste': {
      if (!clip) { toast('select a region and press Copy or Cut first'); return null; }
      const rot = $('rot').value, m = $('mirror').value;
      const line = `paste ${p.join(' ')}` + (rot !== '0' ? ` rot ${rot}` : '') + (m ? ` mirror ${m}` : '');
      const src = `${clip.cut ? 'cut' : 'copy'} ${[...clip.a, ...clip.b].join(' ')}`;
      if (clip.cut) clip = null; // a cut is pasted once
      return `${src}\n${line}`;
    }
    case 'object': {
      const hit = world.objects.find((o) => (c && o.pos.join() === c.join()) || o.pos.join() === p.join());
      if (movingObj && selectedObj) { movingObj = false; return `object move ${selectedObj.join(' ')} ${p.join(' ')}`; }
      if (hit) { selectObject(hit.pos); return null; }
      return objectAddLine(p);
    }
    case 'decor': {
      if (ev.shiftKey) {
        const d = world.decors.find((o) => (c && o.pos.join() === c.join()) || o.pos.join() === p.join());
        return d ? `decor remove ${d.pos.join(' ')}` : null;
      }
      return `decor ${p.join(' ')} ${+$('decorIcon').value}`;
    }
    case 'spawn': return `spawn ${p.join(' ')}`;
  }
  return null;
}
function dragEnd() {
  const a = drag.a, b = drag.b || a;
  if (tool === 'box') return [b[0], a[1] + Math.max(1, +$('boxHeight').value) - 1, b[2]];
  return b;
}

let mouse = null;
canvas.addEventListener('contextmenu', (e) => e.preventDefault());
canvas.addEventListener('mousedown', (e) => {
  canvas.focus();
  mouse = { x: e.clientX, y: e.clientY, button: e.button, shift: e.shiftKey };
  if (e.button === 0 && world && (tool === 'box' || tool === 'select')) {
    const h = pick(rayAt(e.clientX, e.clientY));
    if (h) drag = { a: tool === 'box' ? h.place : (h.cell || h.place), b: null };
  }
});
window.addEventListener('mousemove', (e) => {
  if (!world) return;
  if (mouse && (mouse.button === 2 || mouse.button === 1)) {
    const dx = e.clientX - mouse.x, dy = e.clientY - mouse.y; mouse.x = e.clientX; mouse.y = e.clientY;
    if (mouse.button === 1 || mouse.shift) {
      const { right, up } = camBasis(), s = cam.dist * 0.0015;
      for (let i = 0; i < 3; i++) cam.target[i] += (-right[i] * dx + up[i] * dy) * s;
    } else {
      cam.yaw += dx * 0.008; cam.pitch = Math.max(-1.5, Math.min(1.5, cam.pitch + dy * 0.008));
    }
    dirty = true; return;
  }
  if (e.target !== canvas && !drag) return;
  hover = pick(rayAt(e.clientX, e.clientY));
  if (drag && hover) drag.b = tool === 'box' ? hover.place : (hover.cell || hover.place);
  updateStatus(); dirty = true;
});
window.addEventListener('mouseup', async (e) => {
  const m = mouse; mouse = null;
  if (!m || m.button !== 0 || !world || play) return;
  try {
    if (drag) {
      const a = drag.a, b = dragEnd(); drag = null; dirty = true;
      if (tool === 'box') await edit(`box ${a.join(' ')} ${b.join(' ')} ${block}`);
      else { selection = { a, b }; toast(`selected ${a.join(' ')} .. ${b.join(' ')}`); }
      return;
    }
    if (Math.abs(e.clientX - m.x) > 4 || Math.abs(e.clientY - m.y) > 4) return;
    const h = pick(rayAt(e.clientX, e.clientY));
    if (!h) return;
    if (e.altKey && h.cell) { block = blockAt(...h.cell) >> 4; buildPalette(paletteList); return; }
    const s = clickScript(h, e);
    if (s) await edit(s);
  } catch (err) { /* already shown */ }
});
canvas.addEventListener('wheel', (e) => {
  e.preventDefault(); cam.dist = Math.max(3, Math.min(2000, cam.dist * Math.exp(e.deltaY * 0.001))); dirty = true;
}, { passive: false });
window.addEventListener('keydown', async (e) => {
  const k = e.key.toLowerCase();
  // A dialog waiting for a decision takes no shortcuts (Ctrl+Z, tools) behind its back.
  if (!$('modal').hidden || !$('conflict').hidden) return;
  if (play) {
    if (k === 'escape') stopPlay(); else { play.keys.add(k); e.preventDefault(); }
    return;
  }
  // Text fields keep their own keys (Ctrl+Z edits the text); Ctrl+S saves from anywhere.
  const typing = (e.target.tagName === 'INPUT' && e.target.type !== 'checkbox') || e.target.tagName === 'SELECT';
  if (typing && !((e.ctrlKey || e.metaKey) && k === 's')) return;
  try {
    if ((e.ctrlKey || e.metaKey) && k === 'z') { e.preventDefault(); await (e.shiftKey ? redo() : undo()); }
    else if ((e.ctrlKey || e.metaKey) && k === 'y') { e.preventDefault(); await redo(); }
    else if ((e.ctrlKey || e.metaKey) && k === 's') { e.preventDefault(); await save(); }
    else if (!e.ctrlKey && !e.metaKey && !e.altKey) {
      const t = { p: 'place', e: 'erase', b: 'box', f: 'fill', s: 'sphere', c: 'cube' }[k];
      if (t) setTool(t);
      if (k === 'escape') { selection = null; drag = null; dirty = true; }
    }
  } catch (err) { /* already shown */ }
});
document.querySelectorAll('#tools button').forEach((b) => (b.onclick = () => setTool(b.dataset.tool)));
$('undo').onclick = () => undo().catch(() => {});
$('redo').onclick = () => redo().catch(() => {});
$('save').onclick = () => save().catch(() => {});
$('layerOn').onchange = async () => { layerOn = $('layerOn').checked; dirty = true; if (layerOn) await loadLayer(); };
$('layerY').onchange = async () => {
  layerY = Math.max(0, Math.min(world.block_dims[1] - 1, Math.floor(+$('layerY').value)));
  $('layerY').value = layerY; dirty = true; if (layerOn) await loadLayer();
};
$('chunksOn').onchange = async () => { chunksOn = $('chunksOn').checked; if (chunksOn) await loadChunkStats(); dirty = true; };
$('copyBtn').onclick = () => { if (selection) { clip = { a: selection.a, b: selection.b, cut: false }; setTool('paste'); toast('copied: click to paste'); } else toast('select a region first'); };
$('cutBtn').onclick = () => { if (selection) { clip = { a: selection.a, b: selection.b, cut: true }; setTool('paste'); toast('cut: click to paste (moves the region)'); } else toast('select a region first'); };
$('clearSel').onclick = () => { selection = null; dirty = true; };
$('skyBtn').onclick = () => edit(`sky ${Math.floor(+$('sky').value)}`).catch(() => {});
$('objApply').onclick = () => {
  if (!selectedObj) return;
  const p = selectedObj;
  edit(`object remove ${p.join(' ')}\n${objectAddLine(p)}`).then(() => selectObject(p)).catch(() => {});
};
$('objMove').onclick = () => { if (selectedObj) { setTool('object'); movingObj = true; toast('click where the object goes'); } };
$('objDelete').onclick = () => { if (selectedObj) edit(`object remove ${selectedObj.join(' ')}`).then(() => selectObject(null)).catch(() => {}); };
// ---------- play-test mode (the server steps vwr-play's level loop at 20 ticks/s) ----------
let play = null; // {state, keys:Set, timer, busy}
function playButtons() {
  // WASD / arrows are relative to the camera, mapped to the nearest world axis.
  const { dir } = camBasis();
  const fwd = Math.abs(dir[0]) > Math.abs(dir[2]) ? (dir[0] > 0 ? 'right' : 'left') : (dir[2] > 0 ? 'forward' : 'back');
  const opp = { right: 'left', left: 'right', forward: 'back', back: 'forward' };
  const rightOf = { forward: 'left', left: 'back', back: 'right', right: 'forward' };
  const b = new Set();
  const k = play.keys;
  if (k.has('w') || k.has('arrowup')) b.add(fwd);
  if (k.has('s') || k.has('arrowdown')) b.add(opp[fwd]);
  if (k.has('d') || k.has('arrowright')) b.add(rightOf[fwd]);
  if (k.has('a') || k.has('arrowleft')) b.add(opp[rightOf[fwd]]);
  if (k.has(' ')) b.add('jump');
  return b.size ? [...b].join('+') : '-';
}
async function playTick() {
  if (!play || play.busy) return;
  play.busy = true;
  try {
    const st = await post('/api/play/step?ticks=1&keys=' + encodeURIComponent(playButtons()));
    if (!play) return;
    play.state = st;
    const p = st.player;
    cam.target = [(p.min[0] + p.max[0]) / 2, (p.min[1] + p.max[1]) / 2, (p.min[2] + p.max[2]) / 2];
    for (const e of st.events) toast(e.name === 'exit' ? 'level complete!' : e.name, 2000);
    $('stPerf').textContent = `play: tick ${st.tick}, deaths ${st.deaths}, collected ${st.collected}${st.complete ? ', complete' : ''}`;
    dirty = true;
  } catch (e) { stopPlay(); } finally { if (play) play.busy = false; }
}
async function startPlay() {
  const st = await post('/api/play/start');
  play = { state: st, keys: new Set(), busy: false, saved: { ...cam, target: cam.target.slice() } };
  cam.dist = 14; cam.pitch = 0.45;
  play.timer = setInterval(playTick, 50);
  $('play').classList.add('on'); $('play').textContent = 'Stop';
  toast('play test: WASD walk, Space jump, Esc stops', 3000);
  canvas.focus(); dirty = true;
}
function stopPlay() {
  if (!play) return;
  clearInterval(play.timer);
  Object.assign(cam, play.saved);
  play = null;
  post('/api/play/stop').catch(() => {});
  $('play').classList.remove('on'); $('play').textContent = 'Play';
  dirty = true;
}
$('play').onclick = () => (play ? stopPlay() : startPlay().catch(() => {}));
window.addEventListener('keyup', (e) => { if (play) play.keys.delete(e.key.toLowerCase()); });
let paletteList = [];
$('blockFilter').oninput = () => buildPalette(paletteList);

async function recoveryPrompt() {
  const r = world.recovery; if (!r) return;
  const when = r.modified_unix ? new Date(r.modified_unix * 1000).toLocaleString() : 'an earlier session';
  $('modalText').textContent = `${r.journal} holds unsaved edits from ${when} (${r.bytes} bytes). Recover them, or discard the journal and edit the file as saved?`;
  $('modal').hidden = false;
  await new Promise((res) => {
    $('recoverBtn').onclick = async () => { const a = await post('/api/recover'); $('modal').hidden = true; await afterChange(a); toast('recovered unsaved edits'); res(); };
    $('discardBtn').onclick = async () => { await post('/api/discard-journal'); $('modal').hidden = true; world = await api('/api/world'); res(); };
  });
}

async function main() {
  const tFetch = performance.now();
  const [w, b, buf] = await Promise.all([api('/api/world'), api('/api/blocks'), api('/api/chunks?since=0', { binary: true })]);
  const tGot = performance.now();
  world = w;
  for (const x of b.blocks) blockInfo.set(x.type, x);
  paletteList = b.blocks.filter((x) => x.type !== 0).sort((p, q) => (q.used - p.used) || (p.type - q.type));
  if (!blockInfo.has(block) && paletteList.length) block = paletteList[0].type;
  const sel = $('objType');
  for (const [name, t] of b.object_types) { const o = document.createElement('option'); o.value = t; o.textContent = `${name} (${t})`; sel.appendChild(o); }
  buildPalette(paletteList);
  applyChunks(buf);
  const tUp = performance.now();
  // Frame what is drawn (the chunks with meshes), or the whole world when it is empty.
  const d = world.block_dims;
  let lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (const c of chunks.values()) if (c.parts[0] || c.parts[1]) for (let i = 0; i < 3; i++) {
    lo[i] = Math.min(lo[i], c.pos[i] * CS); hi[i] = Math.max(hi[i], c.pos[i] * CS + CS);
  }
  if (lo[0] === Infinity) { lo = [0, 0, 0]; hi = [d[0], 1, d[2]]; }
  cam.target = [0, 1, 2].map((i) => (lo[i] + hi[i]) / 2);
  cam.dist = Math.max(12, Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) * 1.1);
  $('file').textContent = world.file; $('layerY').max = d[1] - 1;
  setTool('place'); objectList(); updateStatus();
  $('stSaved').textContent = 'saved';
  stats.openMs = await drawn();
  stats.open = { before_fetch_ms: tFetch, fetch_ms: tGot - tFetch, upload_ms: tUp - tGot, draw_ms: stats.openMs - tUp, bytes: buf.byteLength };
  $('stPerf').textContent = `opened in ${stats.openMs.toFixed(0)} ms, ${chunks.size} chunks`;
  document.body.dataset.ready = '1';
  await recoveryPrompt();
}
// The page's own functions, for scripts and tests that drive it.
window.voxcaf = { edit, undo, redo, save, setTool, get play() { return play && play.state; }, pick, rayAt, blockAt, get world() { return world; }, cam, drawn,
  setLayer: async (on, y) => { $('layerOn').checked = on; if (y !== undefined) $('layerY').value = y; await $('layerY').onchange(); await $('layerOn').onchange(); } };
requestAnimationFrame(frame);
main().catch((e) => { stats.errors.push(String(e)); toast('cannot load the world: ' + e.message, 100000); });
})();
