// Drawing with plain WebGL2: the chunk meshes (uploaded from the decoded chunk answer), the
// outlines (chunks, objects, selection, hover, play test) and the frame loop.
import { CS, state } from './state.js';
import { viewProj } from './camera.js';
import { chunkKey, decodeChunks } from './wire.js';
import { presenceLines } from './team.js';
import { ghostBox } from './tools.js';
import { boxLines, ghostGeometry, guideLines } from './overlay.js';

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

// Uploads one decoded pass.
function uploadPart(p) {
  if (!p) return null;
  const gl = g.gl;
  const vao = gl.createVertexArray(); gl.bindVertexArray(vao);
  const bufs = [];
  const attr = (data, loc, size, type, normalized) => {
    const b = gl.createBuffer(); bufs.push(b); gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    gl.enableVertexAttribArray(loc); gl.vertexAttribPointer(loc, size, type, normalized, 0, 0);
  };
  attr(p.positions, 0, 3, gl.FLOAT, false); attr(p.normals, 1, 4, gl.BYTE, true); attr(p.colors, 2, 4, gl.UNSIGNED_BYTE, true);
  const ib = gl.createBuffer(); bufs.push(ib); gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib);
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, p.indices, gl.STATIC_DRAW);
  gl.bindVertexArray(null);
  return { vao, bufs, count: p.indices.length };
}
function freeChunk(c) {
  for (const p of c.parts) if (p) { g.gl.deleteVertexArray(p.vao); p.bufs.forEach((b) => g.gl.deleteBuffer(b)); }
}

/** Takes a chunk answer (ArrayBuffer) into state.chunks, replacing or dropping chunks. */
export function applyChunks(buf) {
  const answer = decodeChunks(buf);
  for (const c of answer.chunks) {
    const parts = c.parts.map(uploadPart);
    const key = chunkKey(c.pos);
    const old = state.chunks.get(key); if (old) freeChunk(old);
    if (!c.blocks && !parts[0] && !parts[1]) state.chunks.delete(key);
    else state.chunks.set(key, { pos: c.pos, blocks: c.blocks, parts });
  }
  state.epoch = Math.max(state.epoch, answer.epoch);
  state.dirty = true;
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
  for (const c of s.chunks.values()) if (c.parts[0]) { gl.bindVertexArray(c.parts[0].vao); gl.drawElements(gl.TRIANGLES, c.parts[0].count, gl.UNSIGNED_INT, 0); }
  gl.uniform1f(g.uCaps, 0); gl.disable(gl.CULL_FACE); gl.enable(gl.BLEND); gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA); gl.depthMask(false);
  for (const c of s.chunks.values()) if (c.parts[1]) { gl.bindVertexArray(c.parts[1].vao); gl.drawElements(gl.TRIANGLES, c.parts[1].count, gl.UNSIGNED_INT, 0); }
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
