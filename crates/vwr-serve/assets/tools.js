// The editing tools: the script line a click or a drag sends.
import { state } from './state.js';
import { $, toast } from './dom.js';
import { blockTypeOf, cellBlock, inWorld, selectObject } from './ui.js';

/** The `object add` line for an object at `p` with the form's fields. */
export function objectAddLine(p) {
  const e = $('objEnd').value.split(',').map(Number);
  const end = [0, 1, 2].map((i) => p[i] + (e[i] || 0));
  return `object add ${$('objType').value} ${p.join(' ')} end=${end.join(',')} speed=${+$('objSpeed').value}` +
    ` advance=${+$('objAdvance').value} recede=${+$('objRecede').value} stop-start=${+$('objStopStart').value}` +
    ` stop-end=${+$('objStopEnd').value} icon=${+$('objIcon').value}`;
}

/** The far corner of the box being dragged (a box fill is as high as the form says). */
export function dragEnd() {
  const a = state.drag.a, b = state.drag.b || a;
  if (state.tool === 'box') return [b[0], a[1] + Math.max(1, +$('boxHeight').value) - 1, b[2]];
  return b;
}

/** Selection `sel` with its top level moved by `delta` (PageUp/PageDown), kept within
 * [its bottom, `maxY`]: the corner holding the top moves. */
export function raiseTop(sel, delta, maxY) {
  const a = sel.a.slice(), b = sel.b.slice();
  const top = a[1] >= b[1] ? a : b, bottom = top === a ? b : a;
  top[1] = Math.max(bottom[1], Math.min(maxY, top[1] + delta));
  return { a, b };
}

/** The size a paste of clipboard `clip` ({a, b}) takes, turned by `rot` degrees (90 and 270
 * swap X and Z): vwr-edit's pasted_size. */
export function pasteSize(clip, rot) {
  const s = [0, 1, 2].map((i) => Math.abs(clip.a[i] - clip.b[i]) + 1);
  return rot === '90' || rot === '270' ? [s[2], s[1], s[0]] : s;
}

/** The ghost of what a click with the current tool would change, before the click: `{a, b,
 * col}` (cells a..b, colour rgb), or null. */
export function ghostBox() {
  const s = state, h = s.hover;
  const info = s.blockInfo.get(blockTypeOf(s.block));
  const col = info ? info.color.slice(0, 3).map((v) => v / 255) : [1, 1, 1];
  if (s.drag) return { a: s.drag.a, b: dragEnd(), col: s.tool === 'box' ? col : [0.3, 0.7, 1] };
  if (!h || s.play) return null;
  const p = h.place, c = h.cell;
  switch (s.tool) {
    case 'place': return inWorld(p) ? { a: p, b: p, col } : null;
    case 'erase': return c ? { a: c, b: c, col: [1, 0.2, 0.2] } : null;
    case 'fill': case 'replace': return c ? { a: c, b: c, col } : null;
    case 'box': return { a: p, b: [p[0], p[1] + Math.max(1, +$('boxHeight').value) - 1, p[2]], col };
    case 'sphere': case 'cube': {
      const r = Math.max(0, +$('radius').value);
      return { a: p.map((v) => v - r), b: p.map((v) => v + r), col };
    }
    case 'paste': {
      if (!s.clip) return null;
      const size = pasteSize(s.clip, $('rot').value);
      return { a: p, b: p.map((v, i) => v + size[i] - 1), col: [0.3, 1, 0.5] };
    }
  }
  return null;
}

function pasteScript(p) {
  const clip = state.clip;
  if (!clip) { toast('select a region and press Copy or Cut first'); return null; }
  const rot = $('rot').value, m = $('mirror').value;
  const line = `paste ${p.join(' ')}` + (rot !== '0' ? ` rot ${rot}` : '') + (m ? ` mirror ${m}` : '');
  const src = `${clip.cut ? 'cut' : 'copy'} ${[...clip.a, ...clip.b].join(' ')}`;
  if (clip.cut) state.clip = null; // a cut is pasted once
  return `${src}\n${line}`;
}

function objectScript(p, c) {
  const hit = state.world.objects.find((o) => (c && o.pos.join() === c.join()) || o.pos.join() === p.join());
  if (state.movingObj && state.selectedObj) { state.movingObj = false; return `object move ${state.selectedObj.join(' ')} ${p.join(' ')}`; }
  if (hit) { selectObject(hit.pos); return null; }
  return objectAddLine(p);
}

/** The script line of a click on pick `h` with the current tool (null: the tool acts
 * otherwise). */
export function clickScript(h, ev) {
  const p = h.place, c = h.cell, b = state.block;
  switch (state.tool) {
    case 'place': return inWorld(p) ? `place ${p.join(' ')} ${b}` : null;
    case 'erase': return c ? `erase ${c.join(' ')}` : null;
    case 'fill': return c ? `fill ${c.join(' ')} ${b} limit ${+$('fillLimit').value}` : null;
    case 'sphere': case 'cube': return `brush ${state.tool} ${(ev.shiftKey && c ? c : p).join(' ')} ${+$('radius').value} ${ev.shiftKey ? 'air' : b}`;
    case 'replace': {
      if (!c) return null;
      const from = cellBlock(...c);
      const sel = state.selection;
      const box = sel ? ' ' + [...sel.a, ...sel.b].join(' ') : '';
      return `replace raw:${from} ${b}${box}`;
    }
    case 'paste': return pasteScript(p);
    case 'object': return objectScript(p, c);
    case 'decor': {
      if (ev.shiftKey) {
        const d = state.world.decors.find((o) => (c && o.pos.join() === c.join()) || o.pos.join() === p.join());
        return d ? `decor remove ${d.pos.join(' ')}` : null;
      }
      return `decor ${p.join(' ')} ${+$('decorIcon').value}`;
    }
    case 'spawn': return `spawn ${p.join(' ')}`;
  }
  return null;
}
