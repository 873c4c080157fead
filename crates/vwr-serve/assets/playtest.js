// Play-test mode: the server steps vwr-play's level loop at 20 ticks/s with the keys held.
import { state } from './state.js';
import { $, toast } from './dom.js';
import { post } from './api.js';
import { camBasis } from './camera.js';

// WASD / arrows are relative to the camera, mapped to the nearest world axis.
function playButtons() {
  const { dir } = camBasis(state.cam);
  const fwd = Math.abs(dir[0]) > Math.abs(dir[2]) ? (dir[0] > 0 ? 'right' : 'left') : (dir[2] > 0 ? 'forward' : 'back');
  const opp = { right: 'left', left: 'right', forward: 'back', back: 'forward' };
  const rightOf = { forward: 'left', left: 'back', back: 'right', right: 'forward' };
  const b = new Set();
  const k = state.play.keys;
  if (k.has('w') || k.has('arrowup')) b.add(fwd);
  if (k.has('s') || k.has('arrowdown')) b.add(opp[fwd]);
  if (k.has('d') || k.has('arrowright')) b.add(rightOf[fwd]);
  if (k.has('a') || k.has('arrowleft')) b.add(opp[rightOf[fwd]]);
  if (k.has(' ')) b.add('jump');
  return b.size ? [...b].join('+') : '-';
}

async function playTick() {
  const play = state.play;
  if (!play || play.busy) return;
  play.busy = true;
  try {
    play.inflight = post('/api/play/step?ticks=1&keys=' + encodeURIComponent(playButtons()));
    const st = await play.inflight;
    if (!state.play) return;
    play.state = st;
    const p = st.player;
    state.cam.target = [(p.min[0] + p.max[0]) / 2, (p.min[1] + p.max[1]) / 2, (p.min[2] + p.max[2]) / 2];
    for (const e of st.events) toast(e.name === 'exit' ? 'level complete!' : e.name, 2000);
    $('stPerf').textContent = `play: tick ${st.tick}, deaths ${st.deaths}, collected ${st.collected}${st.complete ? ', complete' : ''}`;
    state.dirty = true;
  } catch (e) { stopPlay(); } finally { play.busy = false; }
}

/** Starts a play test from the spawn point, the camera following the player. */
export async function startPlay() {
  const st = await post('/api/play/start');
  const cam = state.cam;
  state.play = { state: st, keys: new Set(), busy: false, saved: { ...cam, target: cam.target.slice() } };
  cam.dist = 14; cam.pitch = 0.45;
  state.play.timer = setInterval(playTick, 50);
  $('play').classList.add('on'); $('play').textContent = 'Stop';
  toast('play test: WASD walk, Space jump, Esc stops', 3000);
  $('gl').focus(); state.dirty = true;
}

/** Ends the play test and gives the camera back. */
export function stopPlay() {
  const play = state.play;
  if (!play) return;
  clearInterval(play.timer);
  Object.assign(state.cam, play.saved);
  state.play = null;
  // After the step in flight, if any: stopped first, the server would refuse that step.
  const inflight = play.inflight || Promise.resolve();
  inflight.catch(() => {}).then(() => post('/api/play/stop')).catch(() => {});
  $('play').classList.remove('on'); $('play').textContent = 'Play';
  state.dirty = true;
}
