// The editing tools: the script line a click or a drag sends.
import { state } from './state.js';
import { $, toast } from './dom.js';
import { cellBlock, inWorld, selectObject } from './ui.js';

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
