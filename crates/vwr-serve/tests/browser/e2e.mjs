// End-to-end test of the voxcaf level editor in headless Chromium (playwright-core, Debian's
// chromium). Run by crates/vwr-serve/tests/browser.rs, which starts the servers, passes their
// URLs, and checks the saved files and the screenshots with the Rust libraries.
//
//   node e2e.mjs SCENARIO URL SHOT_DIR        SCENARIO: golden | showcase | terrain | conflict | history | shared | team | model | holes | big
//
// `shared` opens two pages on two servers of one database world: URL is "URL_A URL_B".
// `team` opens three pages on one server as three people (owner, editor, viewer): URL is
// "URL_OWNER URL_EDITOR URL_VIEWER".
//
// Prints one JSON line: {"ok": true, "scripts": [...], "figures": {...}} (or ok:false, error).
// A scenario that needs the test to act meanwhile (change the file on disk) prints a line
// `step NAME ...` and waits for the test to answer a line on stdin.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const [scenario, urls, shots] = process.argv.slice(2);
const [url, secondUrl, thirdUrl] = urls.split(' ');
fs.mkdirSync(shots, { recursive: true });
for (const f of fs.readdirSync(shots)) if (f.startsWith(scenario + '-') && f.endsWith('.png')) fs.rmSync(path.join(shots, f));
const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vwr-serve-chromium-'));
const out = { ok: false, scenario, scripts: [], figures: {}, shots: [] };
// Asks the test to do something: prints `step ...`, resolves with its answer line.
let stdinRl = null, stdinLines = null;
const step = async (what) => {
  if (!stdinRl) {
    stdinRl = readline.createInterface({ input: process.stdin });
    stdinLines = stdinRl[Symbol.asyncIterator]();
  }
  console.log('step ' + what);
  const { value, done } = await stdinLines.next();
  if (done || value.trim() !== 'ok') throw new Error(`the test did not do step ${what}: ${done ? 'stdin closed' : value}`);
};

// A fresh --user-data-dir (Playwright passes it itself for a persistent context). WebGL2 with
// --disable-gpu needs SwiftShader, ANGLE's software renderer.
const browser = await chromium.launchPersistentContext(userDir, {
  executablePath: process.env.VOXCAF_CHROMIUM || '/usr/bin/chromium',
  viewport: { width: 1100, height: 700 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run',
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
try {
  const page = await browser.newPage();
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  page.on('pageerror', (e) => logs.push('pageerror: ' + e.message));
  const shot = async (name, on = page) => {
    const file = path.join(shots, `${scenario}-${String(out.shots.length + 1).padStart(2, '0')}-${name}.png`);
    await on.screenshot({ path: file });
    // Where the 3D view is in the picture, so the test judges the view, not the panels.
    const b = await on.locator('#gl').boundingBox();
    out.shots.push({ file, x: Math.round(b.x), y: Math.round(b.y), w: Math.round(b.width), h: Math.round(b.height) });
  };
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 30000 });
  out.figures.open_ms = await page.evaluate(() => window.voxcafStats.openMs);
  out.figures.open = await page.evaluate(() => window.voxcafStats.open);
  await shot('open');

  // Canvas point (page coordinates) of the centre of a cell's face, by projecting it.
  const canvasBox = await page.locator('#gl').boundingBox();
  // Scans the canvas for a pixel whose pick hits a block: returns page coordinates and the pick.
  const findHit = (fx, fy) => page.evaluate(([fx, fy]) => {
    const r = document.getElementById('gl').getBoundingClientRect();
    const x = r.left + r.width * fx, y = r.top + r.height * fy;
    const h = window.voxcaf.pick(window.voxcaf.rayAt(x, y));
    return h && h.cell ? { x, y, cell: h.cell, place: h.place } : null;
  }, [fx, fy]);
  // Cracks between triangles: the canvas is cleared to magenta (no block has that colour),
  // then views are shot; the test counts magenta pixels with geometry all around them.
  const holesSetup = async () => {
    await page.evaluate(() => {
      const gl = document.getElementById('gl').getContext('webgl2');
      const clear = gl.clearColor.bind(gl);
      gl.clearColor = () => clear(1, 0, 1, 1);
    });
    // The guides (grid, bounds, gizmo: G, W, X) are switched off: a grid line cuts the open
    // sky into patches as small as cracks.
    await page.click('#gl', { position: { x: 5, y: 5 }, button: 'right' });
    for (const k of ['g', 'w', 'x']) await page.keyboard.press(k);
    // Outlines (objects, decor, spawn) are left out: only the meshes are judged.
    await page.evaluate(() => { const s = window.voxcaf.state; s.world = { ...s.world, objects: [], decors: [], spawn: null }; });
  };
  const lastEdit = () => page.evaluate(() => window.voxcafStats.edits[window.voxcafStats.edits.length - 1]);
  const editCount = () => page.evaluate(() => window.voxcafStats.edits.length);
  const waitEdits = (n) => page.waitForFunction((n) => window.voxcafStats.edits.length >= n, n, { timeout: 30000 });
  const waitHistory = (u, r) => page.waitForFunction(([u, r]) => window.voxcaf.world.undo_depth === u && window.voxcaf.world.redo_depth === r, [u, r], { timeout: 30000 });
  const selectBlock = (t) => page.click(`.sw[data-type="${t}"]`);
  // Waits for the toast to show text matching `re` (a function: the page's CSP forbids eval).
  const waitToast = (re) => page.waitForFunction((src) => {
    const t = document.getElementById('toast');
    return t.style.display === 'block' && new RegExp(src).test(t.textContent);
  }, re.source, { timeout: 10000 });

  // Places block `type` with the place tool by a real click on the face under the canvas
  // centre; returns the hit (cell, place, screen point).
  const placeByClick = async (type) => {
    await selectBlock(type);
    await page.click('button[data-tool="place"]');
    const a = await findHit(0.5, 0.55);
    if (!a) throw new Error('no block under the canvas centre');
    await page.mouse.move(a.x, a.y);
    await page.mouse.click(a.x, a.y);
    await waitEdits(1);
    return a;
  };

  if (scenario === 'golden') {
    // 1. place a block by clicking a face
    const a = await placeByClick(35);
    const placed = await page.evaluate((p) => window.voxcaf.blockAt(...p) >> 4, a.place);
    if (placed !== 35) throw new Error(`clicked face ${a.cell} -> place ${a.place} shows block ${placed}, not 35`);
    out.placed = a.place;
    await shot('place');
    // 2. box fill by dragging
    await page.click('button[data-tool="box"]');
    await page.fill('#boxHeight', '2');
    const b0 = await findHit(0.42, 0.6), b1 = await findHit(0.58, 0.7);
    if (!b0 || !b1) throw new Error('box corners do not hit the world');
    await page.mouse.move(b0.x, b0.y);
    await page.mouse.down();
    await page.mouse.move((b0.x + b1.x) / 2, (b0.y + b1.y) / 2, { steps: 4 });
    await page.mouse.move(b1.x, b1.y, { steps: 4 });
    await page.mouse.up();
    await waitEdits(2);
    out.box = (await lastEdit()).script;
    await shot('box');
    // 3. undo, 4. redo (keyboard)
    await page.locator('#gl').focus();
    await page.keyboard.press('Control+z');
    await waitHistory(1, 1);
    await shot('undo');
    await page.keyboard.press('Control+Shift+z');
    await waitHistory(2, 0);
    await shot('redo');
    // 5. add a lift with the object tool
    await page.click('button[data-tool="object"]');
    await page.selectOption('#objType', '1');
    await page.fill('#objEnd', '0,5,0');
    await page.fill('#objSpeed', '2');
    const l = await findHit(0.35, 0.45) || await findHit(0.5, 0.4);
    await page.mouse.click(l.x, l.y);
    await waitEdits(3);
    await page.waitForFunction(() => window.voxcaf.world.objects.some((o) => o.type === 1), null, { timeout: 10000 });
    out.lift = (await lastEdit()).script;
    await shot('lift');
    // 6. layer view
    await page.check('#layerOn');
    await page.fill('#layerY', String(Math.max(1, out.placed[1])));
    await page.dispatchEvent('#layerY', 'change');
    await page.waitForFunction(() => /blocks?,/.test(document.getElementById('layerInfo').textContent), null, { timeout: 10000 });
    await page.check('#chunksOn');
    await page.mouse.move(a.x, a.y);
    await shot('layer');
    await page.uncheck('#layerOn');
    await page.uncheck('#chunksOn');
    // 7. save
    await page.keyboard.press('Control+s');
    await page.waitForFunction(() => /^saved/.test(document.getElementById('stSaved').textContent), null, { timeout: 10000 });
    await shot('saved');
  } else if (scenario === 'showcase') {
    // A journal of an earlier session waits: the page asks; recover it.
    await page.waitForSelector('#modal:not([hidden])', { timeout: 10000 });
    out.prompt = await page.textContent('#modalText');
    await shot('recovery-prompt');
    await page.click('#recoverBtn');
    await page.waitForSelector('#modal', { state: 'hidden', timeout: 10000 });
    await page.waitForFunction(() => window.voxcaf.blockAt(50, 30, 50) !== 0, null, { timeout: 10000 });
    // The views: an object selected, the chunk debug view, then the layer view.
    await page.click('#objList div');
    await page.check('#chunksOn');
    const h = await findHit(0.5, 0.5);
    if (h) await page.mouse.move(h.x, h.y);
    await page.waitForFunction(() => /chunk/.test(document.getElementById('chunkInfo').textContent), null, { timeout: 10000 });
    out.chunk_info = await page.evaluate(() => document.getElementById('chunkInfo').textContent);
    await shot('chunks');
    await page.uncheck('#chunksOn');
    await page.check('#layerOn');
    await page.fill('#layerY', '3');
    await page.dispatchEvent('#layerY', 'change');
    await page.waitForFunction(() => /^y=3/.test(document.getElementById('layerInfo').textContent), null, { timeout: 10000 });
    out.layer_info = await page.evaluate(() => document.getElementById('layerInfo').textContent);
    await shot('layer');
    await page.uncheck('#layerOn');
    // Play test: walk forward for a second, jump, stop.
    await page.click('#play');
    await page.waitForFunction(() => window.voxcaf.play !== null, null, { timeout: 10000 });
    const p0 = await page.evaluate(() => window.voxcaf.play.player.min);
    await page.keyboard.down('w');
    await page.waitForFunction(() => window.voxcaf.play.tick >= 20, null, { timeout: 20000 });
    await page.keyboard.up('w');
    await page.keyboard.press(' ');
    const p1 = await page.evaluate(() => window.voxcaf.play.player.min);
    out.play = { from: p0, to: p1, tick: await page.evaluate(() => window.voxcaf.play.tick) };
    await shot('play');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => window.voxcaf.play === null, null, { timeout: 10000 });
  } else if (scenario === 'conflict') {
    // 1. place a glass block with a real click
    const a = await placeByClick(30);
    out.placed = a.place;
    // 2. meanwhile another program changes the file on disk
    await step('change-on-disk ' + JSON.stringify(a.place));
    // 3. Ctrl+S: the page must not overwrite it and asks instead
    await page.locator('#gl').focus();
    await page.keyboard.press('Control+s');
    await page.waitForSelector('#conflict:not([hidden])', { timeout: 10000 });
    out.conflict_text = await page.textContent('#conflictText');
    if (!/changed on disk/.test(out.conflict_text)) throw new Error('conflict dialog says: ' + out.conflict_text);
    await shot('dialog');
    // 4. Save as… a new file: answer the name prompt
    page.once('dialog', (d) => { out.prompt = d.message(); d.accept('mine.vwr'); });
    await page.click('#c_saveas');
    await page.waitForSelector('#conflict', { state: 'hidden', timeout: 10000 });
    await waitToast(/mine\.vwr/);
    out.toast = await page.textContent('#toast');
    out.file = await page.textContent('#file');
    out.status = await page.textContent('#stSaved');
    await shot('saved-as');
  } else if (scenario === 'shared') {
    // Page B on the second server of the same database world; A edits, B shows it without a
    // reload (it polls), and the other way round.
    const pageB = await browser.newPage();
    pageB.on('pageerror', (e) => logs.push('pageerror: ' + e.message));
    await pageB.goto(secondUrl);
    await pageB.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 30000 });
    // Both pages look from the same camera.
    const look = () => Object.assign(window.voxcaf.cam, { target: [20, 4, 20], yaw: 0.8, pitch: 0.6, dist: 70 });
    await page.evaluate(look); await pageB.evaluate(look);
    await pageB.evaluate(() => window.voxcaf.drawn());
    await shot('b-before', pageB);
    const t0 = Date.now();
    await page.evaluate(() => window.voxcaf.edit('box 12 1 12 27 12 27 lava'));
    const lava = await page.evaluate(() => window.voxcaf.blockAt(20, 6, 20));
    await pageB.waitForFunction((v) => window.voxcaf.blockAt(20, 6, 20) === v, lava, { timeout: 10000 });
    out.figures.seen_by_b_ms = Date.now() - t0;
    await pageB.evaluate(() => window.voxcaf.drawn());
    out.b_toast = await pageB.textContent('#toast');
    out.b_status = await pageB.textContent('#stSaved');
    await shot('b-after', pageB);
    await pageB.evaluate(() => window.voxcaf.edit('box 2 1 2 7 20 7 glass'));
    const glass = await pageB.evaluate(() => window.voxcaf.blockAt(4, 10, 4));
    await page.waitForFunction((v) => window.voxcaf.blockAt(4, 10, 4) === v, glass, { timeout: 10000 });
    await page.evaluate(() => window.voxcaf.drawn());
    await shot('a-after');
    out.b_errors = await pageB.evaluate(() => window.voxcafStats.errors);
    out.a_pulls = await page.evaluate(() => window.voxcafStats.pulls);
  } else if (scenario === 'team') {
    // Three people on one server: edits appear on the others' pages by push (no reload, no
    // polling), undo is each person's own, a viewer cannot edit, cursors show.
    const open = async (u) => {
      const p = await browser.newPage();
      p.on('pageerror', (e) => logs.push('pageerror: ' + e.message));
      await p.goto(u);
      await p.waitForFunction(() => document.body.dataset.ready === '1' && window.voxcaf.state.me, null, { timeout: 30000 });
      return p;
    };
    const [pageB, pageC] = [await open(secondUrl), await open(thirdUrl)];
    await page.waitForFunction(() => window.voxcaf.state.me, null, { timeout: 30000 });
    const pages = [page, pageB, pageC];
    const look = () => Object.assign(window.voxcaf.cam, { target: [20, 4, 20], yaw: 0.8, pitch: 0.6, dist: 70 });
    for (const p of pages) { await p.evaluate(look); await p.evaluate(() => window.voxcaf.drawn()); }
    // Seen on the others: the time from the edit request to the page holding the new block.
    const seen = async (p, x, y, z, v) => {
      await p.waitForFunction(([x, y, z, v]) => window.voxcaf.blockAt(x, y, z) === v, [x, y, z, v], { timeout: 10000, polling: 5 });
      return Date.now();
    };
    // Each page's tab is in the background but one (Chromium draws background tabs about once
    // a second), so what is measured is the change arriving in the page's world.
    const raw = (p, name) => p.evaluate((n) => [...window.voxcaf.state.blockInfo.values()].find((b) => b.name === n).type << 4, name);
    const [lavaV, glassV] = [await raw(page, 'Lava'), await raw(page, 'Glass')];
    const t0 = Date.now();
    const seenOwners = Promise.all([seen(pageB, 20, 6, 20, lavaV), seen(pageC, 20, 6, 20, lavaV)]);
    await page.evaluate(() => window.voxcaf.edit('box 12 1 12 27 12 27 lava'));
    const [tb, tc] = await seenOwners;
    out.figures.seen_ms = [tb - t0, tc - t0];
    out.figures.owner_edit = await page.evaluate(() => window.voxcafStats.edits[0]);
    // The editor paints over part of the owner's box; the owner sees it.
    const t1 = Date.now();
    const seenEds = Promise.all([seen(page, 16, 6, 16, glassV), seen(pageC, 16, 6, 16, glassV)]);
    await pageB.evaluate(() => window.voxcaf.edit('box 15 1 15 17 12 17 glass'));
    const [ta, tc2] = await seenEds;
    out.figures.seen_ms.push(ta - t1, tc2 - t1);
    // Presence: the editor's cursor over the view shows on the owner's page.
    const box = await pageB.locator('#gl').boundingBox();
    await pageB.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await pageB.mouse.move(box.x + box.width / 2 + 3, box.y + box.height / 2 + 3);
    await page.waitForFunction(() => { const p = window.voxcaf.state.presence.get('Ed'); return p && p.cell; }, null, { timeout: 10000 });
    await page.waitForSelector('.who[data-user="Ed"]', { timeout: 10000 });
    out.label = await page.textContent('.who[data-user="Ed"]');
    await page.evaluate(() => window.voxcaf.drawn());
    await shot('owner-sees-ed', page);
    await shot('viewer', pageC);
    // The owner's Ctrl+Z takes back the owner's box, not the editor's glass, on every page.
    await page.click('#gl', { position: { x: 5, y: 5 }, button: 'right' });
    await page.keyboard.press('Control+z');
    for (const p of pages) {
      await p.waitForFunction(([g]) => window.voxcaf.blockAt(20, 6, 20) === 0 && window.voxcaf.blockAt(16, 6, 16) === g, [glassV], { timeout: 10000 });
      await p.evaluate(() => window.voxcaf.drawn());
    }
    await shot('owner-undone', page);
    // The owner scrubs the timeline: before everything, after the box, after the glass, now.
    const scrub = (n) => page.evaluate((n) => { const t = document.getElementById('tl'); t.value = n; t.dispatchEvent(new Event('input')); }, n);
    const at = (x, y, z) => page.evaluate(([x, y, z]) => window.voxcaf.blockAt(x, y, z), [x, y, z]);
    const waitAt = (want) => page.waitForFunction((w) => w.every(([x, y, z, v]) => window.voxcaf.blockAt(x, y, z) === v), want, { timeout: 10000 });
    out.timeline_max = await page.evaluate(() => +document.getElementById('tl').max);
    await scrub(0); await waitAt([[20, 6, 20, 0], [16, 6, 16, 0]]);
    await scrub(1); await waitAt([[20, 6, 20, lavaV], [16, 6, 16, lavaV]]);
    await page.evaluate(() => window.voxcaf.drawn());
    await shot('timeline-after-1', page);
    out.timeline_info = await page.textContent('#tlInfo');
    out.scrub_edit = await page.evaluate(() => window.voxcaf.edit('place 1 3 1 lava').then(() => 'applied', (e) => e.message));
    await scrub(2); await waitAt([[20, 6, 20, lavaV], [16, 6, 16, glassV]]);
    await page.click('#tlNow');
    await waitAt([[20, 6, 20, 0], [16, 6, 16, glassV]]);
    out.timeline_now = [await at(20, 6, 20), await at(16, 6, 16), await page.textContent('#tlInfo')];
    out.owner_undo = await page.evaluate(() => [window.voxcaf.world.undo_depth, window.voxcaf.world.redo_depth]);
    out.editor_undo = await pageB.evaluate(() => [window.voxcaf.world.undo_depth, window.voxcaf.world.redo_depth]);
    // The viewer's edit is refused, and says why.
    await pageC.evaluate(() => window.voxcaf.edit('place 1 1 1 lava').catch(() => {}));
    out.viewer_errors = await pageC.evaluate(() => window.voxcafStats.errors);
    out.people = await page.textContent('#people');
    out.b_pushes = await pageB.evaluate(() => window.voxcafStats.pushes.map((p) => p.user));
    out.b_errors = await pageB.evaluate(() => window.voxcafStats.errors);
    // An object and a spawn point set by the owner change no block; the others' lists show
    // them all the same (a timeout here fails the scenario).
    await page.evaluate(() => window.voxcaf.edit('object add 1 5 3 5\nspawn 6 3 6'));
    for (const p of [pageB, pageC]) {
      await p.waitForFunction(() => window.voxcaf.world.objects.length === 1 && String(window.voxcaf.world.spawn) === '6,3,6', null, { timeout: 10000 });
    }
    await shot('viewer-sees-object', pageC);
    // The viewer's layer map follows the others' edits (a pushed change reloads it).
    await pageC.evaluate(() => window.voxcaf.setLayer(true, 3));
    const layerCount = () => { const m = /: (\d+) blocks?,/.exec(document.getElementById('layerInfo').textContent); return m ? +m[1] : -1; };
    const before = await pageC.evaluate(layerCount);
    await pageB.evaluate(() => window.voxcaf.edit('place 30 3 30 lava'));
    await pageC.waitForFunction((n) => { const m = /: (\d+) blocks?,/.exec(document.getElementById('layerInfo').textContent); return m && +m[1] === n + 1; }, before, { timeout: 10000 });
    out.viewer_layer = [before, await pageC.textContent('#layerInfo')];
    // And its chunk debug view: a block in an empty chunk adds one.
    await pageC.check('#chunksOn');
    await pageC.waitForFunction(() => window.voxcaf.state.chunkStats.length > 0, null, { timeout: 10000 });
    const chunksBefore = await pageC.evaluate(() => window.voxcaf.state.chunkStats.length);
    await pageB.evaluate(() => window.voxcaf.edit('place 55 25 55 lava'));
    await pageC.waitForFunction((n) => window.voxcaf.state.chunkStats.length === n + 1, chunksBefore, { timeout: 10000 });
    out.viewer_chunks = [chunksBefore, await pageC.evaluate(() => window.voxcaf.state.chunkStats.length)];
  } else if (scenario === 'model') {
    const keysDown = async (...keys) => { await page.locator('#gl').focus(); for (const k of keys) await page.keyboard.press(k); await page.evaluate(() => window.voxcaf.drawn()); };
    const toastText = () => page.textContent('#toast');
    // 1. The help overlay: `?` opens it, it lists a key for every tool and Play, Esc closes it;
    // the ? button and the ? key likewise.
    await keysDown('?');
    await page.waitForSelector('#help:not([hidden])', { timeout: 5000 });
    out.help = await page.evaluate(() => {
      const kbds = [...document.querySelectorAll('#helpTable kbd')].map((k) => k.textContent);
      const tools = [...document.querySelectorAll('#tools button'), document.getElementById('play')].map((b) => {
        const m = b.title.match(/\((\w)\)/);
        return { tool: b.textContent, key: m && m[1], listed: !!m && kbds.includes(m[1]) };
      });
      return { rows: kbds.length, tools, text: document.getElementById('helpTable').textContent };
    });
    await shot('help');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#help', { state: 'hidden', timeout: 5000 });
    await page.click('#helpBtn');
    await page.waitForSelector('#help:not([hidden])', { timeout: 5000 });
    await page.keyboard.press('?');
    await page.waitForSelector('#help', { state: 'hidden', timeout: 5000 });
    // 2. The guides (grid, bounds, gizmo; on by default) with the ghost of a place under the
    // mouse, then without the guides.
    await keysDown('p');
    // Turned half round by a right-drag (the world's origin in front) and zoomed out a little:
    // the grid and the bounds behind the drawn world.
    const cx = canvasBox.x + canvasBox.width / 2, cy = canvasBox.y + canvasBox.height / 2;
    await page.mouse.move(cx - 200, cy);
    await page.mouse.down({ button: 'right' });
    await page.mouse.move(cx + 193, cy - 15, { steps: 8 });
    await page.mouse.up({ button: 'right' });
    await page.mouse.wheel(0, 400);
    const g = await findHit(0.5, 0.5);
    if (!g) throw new Error('no block under the canvas centre');
    await page.mouse.move(g.x, g.y);
    await page.evaluate(() => window.voxcaf.drawn());
    await shot('grid-gizmo');
    await keysDown('g', 'w', 'x');
    await shot('no-guides');
    await keysDown('g', 'w', 'x');
    // 3. Top view, orthographic, framed: a map; its rays are parallel.
    await keysDown('1', '5', 'a');
    await page.mouse.move(canvasBox.x + 5, canvasBox.y + 5);
    out.ortho = await page.evaluate(() => {
      const r = document.getElementById('gl').getBoundingClientRect();
      const a = window.voxcaf.rayAt(r.left + 10, r.top + 10), b = window.voxcaf.rayAt(r.right - 10, r.bottom - 10);
      return { ortho: window.voxcaf.cam.ortho, pitch: window.voxcaf.cam.pitch, da: a.d, db: b.d };
    });
    await shot('ortho-top');
    // 4. A 35:2 block, picked with Alt+click (in the top view) and placed elsewhere by a click.
    const t = await findHit(0.5, 0.5);
    if (!t) throw new Error('nothing under the centre of the top view');
    await page.evaluate((p) => window.voxcaf.edit(`place ${p.join(' ')} 35:2`), t.place);
    const again = await findHit(0.5, 0.5);
    if (!again || again.cell.join() !== t.place.join()) throw new Error(`the top view does not see the placed 35:2 at ${t.place}: ${JSON.stringify(again)}`);
    await page.keyboard.down('Alt');
    await page.mouse.click(again.x, again.y);
    await page.keyboard.up('Alt');
    out.picked = await page.evaluate(() => window.voxcaf.state.block);
    out.pick_toast = await toastText();
    let m = null;
    for (const [fx, fy] of [[0.3, 0.5], [0.7, 0.5], [0.5, 0.3], [0.5, 0.7], [0.3, 0.3]]) {
      m = await findHit(fx, fy);
      if (m && m.place.join() !== t.place.join()) break;
    }
    const n = await editCount();
    await page.mouse.move(m.x, m.y);
    await page.mouse.click(m.x, m.y);
    await waitEdits(n + 1);
    out.meta_placed = m.place;
    out.meta_script = (await lastEdit()).script;
    out.meta_raw = await page.evaluate((p) => window.voxcaf.blockAt(...p), m.place);
    await waitToast(/^place /);
    out.place_toast = await toastText();
    out.undo_title = await page.getAttribute('#undo', 'title');
    await keysDown('Control+z');
    await waitToast(/^undone/);
    out.undo_toast = await toastText();
    await keysDown('Control+Shift+z');
    await waitToast(/^redone/);
    // 5. A 3D selection: a flat drag, then PageUp three times and Shift+wheel up once.
    await page.evaluate(() => Object.assign(window.voxcaf.cam, { yaw: 0.8, pitch: 0.6, ortho: false }));
    await keysDown('a');
    await keysDown('m');
    const s0 = await findHit(0.4, 0.5), s1 = await findHit(0.6, 0.6);
    if (!s0 || !s1) throw new Error('selection corners do not hit the world');
    await page.mouse.move(s0.x, s0.y);
    await page.mouse.down();
    await page.mouse.move(s1.x, s1.y, { steps: 4 });
    await page.mouse.up();
    out.sel_flat = await page.evaluate(() => window.voxcaf.state.selection);
    await keysDown('PageUp', 'PageUp', 'PageUp');
    out.sel_raised = await page.evaluate(() => window.voxcaf.state.selection);
    await page.keyboard.down('Shift');
    await page.mouse.wheel(0, -100);
    await page.keyboard.up('Shift');
    await page.evaluate(() => window.voxcaf.drawn());
    out.sel_wheel = await page.evaluate(() => window.voxcaf.state.selection);
    out.sel_toast = await toastText();
    await shot('selection');
    // 6. Copy it: the paste footprint follows the mouse before any click.
    await page.click('#copyBtn');
    const pp = await findHit(0.45, 0.45);
    if (pp) await page.mouse.move(pp.x, pp.y);
    await page.evaluate(() => window.voxcaf.drawn());
    await shot('paste-ghost');
    await keysDown('Escape');
    // 7. Save: the test reads the file.
    await keysDown('Control+s');
    await page.waitForFunction(() => /^saved/.test(document.getElementById('stSaved').textContent), null, { timeout: 10000 });
  } else if (scenario === 'history') {
    // Three edits (three requests, three undo steps) with a history of two: the page says so.
    for (let i = 0; i < 3; i++) {
      await page.evaluate((i) => window.voxcaf.edit(`place ${10 + i} 3 10 30`), i);
      await waitEdits(i + 1);
    }
    await waitToast(/^undo history full/);
    out.toast = await page.textContent('#toast');
    out.undo_depth = await page.evaluate(() => window.voxcaf.world.undo_depth);
    await shot('history-full');
  } else if (scenario === 'holes') {
    await holesSetup();
    const framed = await page.evaluate(() => ({ target: [...window.voxcaf.cam.target], dist: window.voxcaf.cam.dist }));
    // [yaw, pitch, distance (share of the framing distance), target height (share of the framed)]
    const views = [[0.8, 1.25, 0.45, 0.5], [2.4, 1.0, 0.3, 0.7], [4.1, 1.4, 0.6, 0.3], [5.5, 0.85, 0.2, 0.8], [1.6, 1.1, 0.8, 0.5]];
    for (const [i, [yaw, pitch, f, h]] of views.entries()) {
      await page.evaluate(([t, c]) => Object.assign(window.voxcaf.cam, { target: t, ...c }),
        [[framed.target[0], framed.target[1] * h, framed.target[2]], { yaw, pitch, dist: Math.max(12, framed.dist * f) }]);
      await page.evaluate(() => window.voxcaf.drawn());
      await shot(`view${i + 1}`);
    }
    out.figures.chunks = await page.evaluate(() => window.voxcaf.state.chunks.size);
  } else if (scenario === 'big') {
    // A big terrain: draw calls and triangles per frame from a few camera positions, a click
    // on distant terrain, and a placed block from the click to the frame that shows it.
    const d = await page.evaluate(() => window.voxcaf.world.block_dims);
    out.figures.payload_bytes = out.figures.open.bytes;
    const views = {
      top: { target: [d[0] / 2, 0, d[2] / 2], yaw: 0.8, pitch: 1.5, dist: Math.max(d[0], d[2]) * 1.2 },
      far_corner: { target: [d[0] * 0.6, 20, d[2] * 0.6], yaw: 0.8, pitch: 0.15, dist: Math.hypot(d[0], d[2]) * 0.6 },
      close: { target: [d[0] / 2, 30, d[2] / 2], yaw: 2.2, pitch: 0.7, dist: 40 },
      low_across: { target: [d[0] / 2, 30, d[2] / 2], yaw: 0.8, pitch: 0.05, dist: Math.hypot(d[0], d[2]) / 2 },
    };
    out.figures.frames = {};
    for (const [name, v] of Object.entries(views)) {
      await page.evaluate(async (v) => {
        Object.assign(window.voxcaf.cam, v);
        // Until every far region is drawn from its coarse mesh (a few are built per frame).
        do await window.voxcaf.drawn(); while (window.voxcafStats.frame.coarsePending > 0);
      }, v);
      out.figures.frames[name] = await page.evaluate(() => ({ ...window.voxcafStats.frame }));
      await shot(name);
    }
    // The far-corner view with no triangle budget: far regions drawn from their coarse mesh.
    await page.evaluate(async (v) => {
      window.voxcaf.state.triangleBudget = 0;
      Object.assign(window.voxcaf.cam, v);
      do await window.voxcaf.drawn(); while (window.voxcafStats.frame.coarsePending > 0);
    }, views.far_corner);
    out.figures.far_corner_coarse = await page.evaluate(() => ({ ...window.voxcafStats.frame }));
    await shot('far_corner_coarse');
    await page.evaluate(() => { window.voxcaf.state.triangleBudget = 1500000; });
    // Distant terrain near the horizon of the far-corner view: the pick reaches it.
    await page.evaluate((v) => { Object.assign(window.voxcaf.cam, v); return window.voxcaf.drawn(); }, views.far_corner);
    const far = await findHit(0.5, 0.45);
    if (!far) throw new Error('no terrain picked near the horizon');
    const eye = await page.evaluate((p) => window.voxcaf.rayAt(p.x, p.y).o, far);
    out.figures.far_pick_distance = Math.hypot(...far.cell.map((c, i) => c + 0.5 - eye[i]));
    // Click to screen: a real mouse click with the place tool.
    await page.evaluate((v) => { Object.assign(window.voxcaf.cam, v); return window.voxcaf.drawn(); }, views.close);
    const a = await findHit(0.5, 0.5);
    if (!a) throw new Error('no terrain under the canvas centre');
    const clicks = [];
    for (let i = 0; i < 3; i++) {
      const n = await editCount();
      const h = await findHit(0.5, 0.5 + i * 0.05);
      await page.mouse.click(h.x, h.y);
      await waitEdits(n + 1);
      const e = await lastEdit();
      clicks.push(e.ms);
      if (e.chunks === 0) throw new Error(`the click at ${h.place} changed nothing`);
      if (await page.evaluate((p) => window.voxcaf.blockAt(...p), h.place) === 0) throw new Error(`no block at ${h.place} after the click`);
    }
    out.figures.click_to_screen_ms = clicks;
    out.figures.click_parts = await page.evaluate(() => window.voxcafStats.edits.slice(-3));
    await shot('placed');
    // The layer map of a level wider than the map: a window around the camera's target; a
    // real click on the map sends the camera there and the window follows.
    await page.evaluate(() => window.voxcaf.setLayer(true, 20));
    const layer = { before: await page.evaluate(() => ({ info: document.getElementById('layerInfo').textContent, map: window.voxcaf.state.layerMap })) };
    const box = await page.locator('#layerMap').boundingBox();
    await page.mouse.click(box.x + box.width * 0.9, box.y + box.height * 0.1);
    await page.waitForFunction((x0) => window.voxcaf.state.layerMap.x0 !== x0 && !window.voxcaf.state.layerLoading, layer.before.map.x0, { timeout: 10000 });
    layer.after = await page.evaluate(() => ({ info: document.getElementById('layerInfo').textContent, map: window.voxcaf.state.layerMap, target: window.voxcaf.cam.target }));
    out.figures.layer = layer;
    await page.evaluate(() => window.voxcaf.drawn());
    await shot('layer');
    await page.evaluate(() => window.voxcaf.setLayer(false));
    // Far views (levels of detail, GET /api/lod): triangles and draw calls in full and with far
    // regions from levels of detail (no triangle budget); the latter shot over a magenta clear
    // colour with guides and outlines off, for the test to count cracks.
    await holesSetup();
    out.figures.far = {};
    const w = Math.max(d[0], d[2]);
    const farViews = [[0.8, 0.6, 1.8], [2.4, 0.35, 1.5], [4.1, 0.9, 2.3], [5.5, 0.3, 1.3]];
    for (const [i, [yaw, pitch, f]] of farViews.entries()) {
      const v = { target: [d[0] / 2, 20, d[2] / 2], yaw, pitch, dist: w * f };
      const fig = {};
      for (const [name, budget] of [['full', 1e12], ['lod', 0]]) {
        fig[name] = await page.evaluate(async ([v, budget]) => {
          window.voxcaf.state.triangleBudget = budget;
          Object.assign(window.voxcaf.cam, v);
          do await window.voxcaf.drawn(); while (window.voxcafStats.frame.coarsePending > 0);
          return { ...window.voxcafStats.frame };
        }, [v, budget]);
      }
      out.figures.far[`far${i + 1}`] = fig;
      await shot(`far${i + 1}`);
    }
    // An edit while far regions are drawn from levels of detail: the levels held are fetched
    // again with `since`, and only the level chunks that changed come back.
    // Counted over every answer since the edit: a level asked again while its answer was on
    // the way is fetched once more, and that last answer holds nothing new.
    const lodBefore = await page.evaluate(() => window.voxcafStats.lod.chunksTotal);
    await page.evaluate((d) => window.voxcaf.edit(`box 2 0 2 5 ${d[1] - 1} 5 lava`), d);
    await page.waitForFunction((n) => window.voxcafStats.lod.chunksTotal > n, lodBefore, { timeout: 30000 });
    out.figures.lod_after_edit = await page.evaluate(async (n) => {
      do await window.voxcaf.drawn(); while (window.voxcafStats.frame.coarsePending > 0);
      return { ...window.voxcafStats.lod, since_edit: window.voxcafStats.lod.chunksTotal - n };
    }, lodBefore);
    await shot('far_edited');
    await page.evaluate(() => { window.voxcaf.state.triangleBudget = 1500000; });
  } else {
    // Performance on a 100³ hilly terrain: a single-block edit and a 50³ box fill, from the
    // request to the frame that shows the new meshes.
    const a = await findHit(0.5, 0.5);
    if (!a) throw new Error('no terrain under the canvas centre');
    const single = [];
    for (let i = 0; i < 5; i++) {
      const n = await editCount();
      await page.evaluate((p) => window.voxcaf.edit(`place ${p.join(' ')} 35`), [a.place[0] + i, a.place[1], a.place[2]]);
      await waitEdits(n + 1);
      single.push((await lastEdit()).ms);
    }
    out.figures.single_edit_ms = single;
    out.figures.single_edit_parts = await page.evaluate(() => window.voxcafStats.edits.slice(-5));
    const n = await editCount();
    await page.evaluate(() => window.voxcaf.edit('box 25 20 25 74 69 74 rockpile'));
    await waitEdits(n + 1);
    out.figures.box_fill_50_ms = (await lastEdit()).ms;
    out.figures.box_fill_50_parts = await lastEdit();
    await shot('box50');
    await page.evaluate(() => window.voxcaf.undo());
    await page.evaluate(() => window.voxcaf.drawn());
    await shot('undone');
  }
  out.scripts = await page.evaluate(() => window.voxcafStats.edits.map((e) => e.script));
  out.errors = await page.evaluate(() => window.voxcafStats.errors);
  // The refused save is expected here: the page reports it, then asks.
  if (scenario === 'conflict') out.errors = out.errors.filter((e) => !/changed on disk/.test(e));
  out.logs = logs.slice(-20);
  // An uncaught exception in the page (a module that fails to load, a broken handler) fails too.
  out.errors.push(...logs.filter((l) => l.startsWith('pageerror: ')));
  out.ok = out.errors.length === 0;
} catch (e) {
  out.error = String(e && e.stack || e);
  try {
    const page = browser.pages()[browser.pages().length - 1];
    out.errors = await page.evaluate(() => window.voxcafStats.errors);
    out.status = await page.evaluate(() => document.querySelector('footer').textContent);
  } catch (e2) { /* the page is gone */ }
} finally {
  await browser.close();
  fs.rmSync(userDir, { recursive: true, force: true });
  stdinRl?.close();
}
console.log(JSON.stringify(out));
