// The HTTP API (the same one scripts use), with the session token of the page's URL.
import { stats } from './state.js';
import { toast } from './dom.js';

const TOKEN = new URLSearchParams(location.search).get('token') || '';

/** Requests `path`; resolves with its JSON (or an ArrayBuffer with `binary`); an error answer
 * is shown and thrown (with the server's `kind`). */
export async function api(path, opts = {}) {
  const headers = Object.assign({ 'X-Voxcaf-Token': TOKEN }, opts.headers || {});
  let r;
  try {
    r = await fetch(path, Object.assign({}, opts, { headers }));
  } catch (e) {
    // No answer at all: say so, and that nothing was applied (never a silent no-op).
    const msg = 'the server is unreachable: nothing was applied or saved (is voxcaf world serve still running?)';
    stats.errors.push(msg);
    toast(msg, 10000);
    const err = new Error(msg); err.kind = 'unreachable';
    throw err;
  }
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

/** POSTs `body` (an edit script, or nothing) to `path`. */
export const post = (path, body) => api(path, { method: 'POST', body: body || '' });
