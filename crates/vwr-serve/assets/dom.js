// Element lookup, block names and the toast.
import { state } from './state.js';

/** The element with id `id`. */
export const $ = (id) => document.getElementById(id);

/** The name of block type `t` with metadata `m` (`name`, or `name:m` when m is not 0), from
 * the registry of /api/blocks. */
export function typeName(t, m) {
  const i = state.blockInfo.get(t);
  return (i ? i.name : 'tile' + t) + (m ? ':' + m : '');
}

/** `text` with the blocks it names as `type:meta` (vwr-edit's change labels: "place 3:0 at
 * (1, 2, 3)") given by name ("place stone at (1, 2, 3)"); numbers of no known block stay. */
export function namedBlocks(text) {
  return String(text).replace(/\b(\d{1,5}):(\d{1,2})\b/g, (w, t, m) =>
    (+m <= 15 && state.blockInfo.has(+t) ? typeName(+t, +m) : w));
}

/** Shows `t` in the toast for `ms` milliseconds (blocks by name, see `namedBlocks`). */
export function toast(t, ms = 1500) {
  const el = $('toast'); el.textContent = namedBlocks(t); el.style.display = 'block';
  clearTimeout(state.toastTimer);
  state.toastTimer = setTimeout(() => (el.style.display = 'none'), ms);
}

/** Hides the toast now. */
export function hideToast() {
  clearTimeout(state.toastTimer); $('toast').style.display = 'none';
}
