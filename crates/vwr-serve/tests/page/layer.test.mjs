// The layer map of a level wider than the map (assets/actions.js): which window of the level it
// asks for, when it follows the camera, and where a click on it sends the camera.
import test from 'node:test';
import assert from 'node:assert/strict';

// A page of fakes: the map's canvas and info line, the session token, and a server that
// answers /api/layer with the rectangle asked for (one stone at the rectangle's corner).
const el = {
  layerMap: {
    width: 0, height: 0, clientWidth: 200, clientHeight: 200,
    getContext: () => ({ createImageData: (w, h) => ({ data: new Uint8ClampedArray(w * h * 4) }), putImageData() {}, fillRect() {} }),
  },
  layerInfo: { textContent: '' },
  toast: { style: {}, textContent: '' },
};
globalThis.document = { getElementById: (id) => el[id] };
globalThis.location = { search: '?token=t' };
const asked = [];
globalThis.fetch = async (url) => {
  asked.push(url);
  const q = new URL(url, 'http://page').searchParams;
  const [x0, z0, x1, z1] = ['x0', 'z0', 'x1', 'z1'].map((k) => +q.get(k));
  const width = x1 - x0 + 1, depth = z1 - z0 + 1;
  const rows = Array.from({ length: depth }, (_, z) => Array.from({ length: width }, (_, x) => (x + z === 0 ? 35 << 4 : 0)));
  const body = { ok: true, y: +q.get('y'), x0, z0, width, depth, rows, objects: [], decors: [], spawn: null };
  return { ok: true, json: async () => body };
};

const { state } = await import('../../assets/state.js');
const { MAP_CELLS, centreOnMap, followLayer, layerWindow, loadLayer } = await import('../../assets/actions.js');

test('a level that fits the map is shown whole', () => {
  state.world = { block_dims: [MAP_CELLS, 20, 80] };
  assert.equal(layerWindow(), null);
});

test('a wider level is shown as a window around the camera, inside the world', () => {
  state.world = { block_dims: [1000, 60, 1000] };
  state.cam.target = [500, 5, 500];
  assert.deepEqual(layerWindow(), { x0: 400, z0: 400, x1: 599, z1: 599 });
  state.cam.target = [10, 5, 990];
  assert.deepEqual(layerWindow(), { x0: 0, z0: 800, x1: 199, z1: 999 });
  state.cam.target = [-3000, 5, 1e9];
  assert.deepEqual(layerWindow(), { x0: 0, z0: 800, x1: 199, z1: 999 });
  // Wide along x only: every row along z is shown.
  state.world = { block_dims: [1000, 60, 150] };
  state.cam.target = [700, 5, 75];
  assert.deepEqual(layerWindow(), { x0: 600, z0: 0, x1: 799, z1: 149 });
});

test('the window asked for is what the map shows, and the info line says where it is', async () => {
  state.world = { block_dims: [1000, 60, 1000] };
  state.cam.target = [500, 5, 500];
  state.layerY = 7;
  asked.length = 0;
  await loadLayer();
  assert.equal(asked.length, 1);
  assert.match(asked[0], /^\/api\/layer\?y=7&x0=400&z0=400&x1=599&z1=599$/);
  assert.deepEqual(state.layerMap, { x0: 400, z0: 400, width: 200, depth: 200, windowed: true });
  assert.equal(el.layerMap.width, 200);
  assert.match(el.layerInfo.textContent, /^y=7, x 400\.\.599, z 400\.\.599 of 1000×1000: 1 block, 0 objects/);
});

test('the map follows the camera once it has moved a quarter of the map, one request at a time', async () => {
  state.world = { block_dims: [1000, 60, 1000] };
  state.layerOn = true;
  state.cam.target = [500, 5, 500];
  await loadLayer();
  asked.length = 0;
  state.cam.target = [540, 5, 460];
  followLayer();
  assert.equal(asked.length, 0, 'moved less than a quarter of the map');
  state.cam.target = [560, 5, 500];
  followLayer();
  followLayer(); // the first request is still in flight
  assert.equal(asked.length, 1);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(state.layerMap.x0, 460);
  // At the world's edge the window stays where it is.
  state.cam.target = [2, 5, 500];
  followLayer();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(state.layerMap.x0, 0);
  asked.length = 0;
  state.cam.target = [-400, 5, 500];
  followLayer();
  assert.equal(asked.length, 0, 'the clamped window has not moved');
  state.layerOn = false;
});

test('a click on the map sends the camera to that cell of the level', async () => {
  state.world = { block_dims: [1000, 60, 1000] };
  state.cam.target = [500, 5, 500];
  state.layerY = 7;
  await loadLayer();
  await centreOnMap({ offsetX: 150, offsetY: 20 });
  assert.deepEqual(state.cam.target, [550.5, 7.5, 420.5]);
  // The window moved with it.
  assert.deepEqual([state.layerMap.x0, state.layerMap.z0], [451, 321]);
});
