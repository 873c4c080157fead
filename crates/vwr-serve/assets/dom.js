// Element lookup and the toast.
import { state } from './state.js';

/** The element with id `id`. */
export const $ = (id) => document.getElementById(id);

/** Shows `t` in the toast for `ms` milliseconds. */
export function toast(t, ms = 1500) {
  const el = $('toast'); el.textContent = t; el.style.display = 'block';
  clearTimeout(state.toastTimer);
  state.toastTimer = setTimeout(() => (el.style.display = 'none'), ms);
}

/** Hides the toast now. */
export function hideToast() {
  clearTimeout(state.toastTimer); $('toast').style.display = 'none';
}
