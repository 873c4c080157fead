// The page's HTTP helper (assets/api.js) when the server does not answer: the user is told,
// nothing is silently dropped.
import test from 'node:test';
import assert from 'node:assert/strict';

const toastEl = { style: {}, textContent: '' };
globalThis.document = { getElementById: () => toastEl };
globalThis.location = { search: '?token=t' };

test('an unreachable server is said, and the request fails with its kind', async () => {
  globalThis.fetch = async () => { throw new TypeError('Failed to fetch'); };
  const { api } = await import('../../assets/api.js');
  await assert.rejects(api('/api/ops', { method: 'POST', body: 'place 1 1 1 35' }), (e) => {
    assert.equal(e.kind, 'unreachable');
    return true;
  });
  assert.match(toastEl.textContent, /server is unreachable: nothing was applied/);
  assert.equal(toastEl.style.display, 'block');
});

test('a JSON refusal is shown with its message and kind', async () => {
  globalThis.fetch = async () => ({
    ok: false, status: 404, statusText: 'Not Found',
    json: async () => ({ ok: false, error: { kind: 'not-found', message: 'no such page or API' } }),
  });
  const { api } = await import('../../assets/api.js');
  await assert.rejects(api('/api/nope'), (e) => e.kind === 'not-found');
  assert.match(toastEl.textContent, /no such page or API/);
});
