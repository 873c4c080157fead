// The keys and mouse controls: one table, from which the `?` help overlay is built and by which
// the keyboard handler finds what a key does (the README's table lists the same keys; a test
// holds them together).

/** Every key and mouse control: `keys` as shown, `what` it does, `group`; keys the handler
 * looks up have `match` (KeyboardEvent.key, lower case, no modifier) and `act` (`tool:NAME`, a
 * view action of ui.js's viewAction, or a guide, selection or overlay action of main.js). */
export const KEYS = [
  { group: 'Tools', keys: 'P', match: 'p', act: 'tool:place', what: 'Place: a block on the clicked face' },
  { group: 'Tools', keys: 'E', match: 'e', act: 'tool:erase', what: 'Erase the clicked block' },
  { group: 'Tools', keys: 'B', match: 'b', act: 'tool:box', what: 'Box fill: drag from corner to corner (Box height)' },
  { group: 'Tools', keys: 'F', match: 'f', act: 'tool:fill', what: 'Flood fill the clicked block\'s region' },
  { group: 'Tools', keys: 'S', match: 's', act: 'tool:sphere', what: 'Sphere brush (Shift+click carves)' },
  { group: 'Tools', keys: 'C', match: 'c', act: 'tool:cube', what: 'Cube brush (Shift+click carves)' },
  { group: 'Tools', keys: 'R', match: 'r', act: 'tool:replace', what: 'Replace every block like the clicked one (in the selection)' },
  { group: 'Tools', keys: 'M', match: 'm', act: 'tool:select', what: 'Select a region by dragging (for copy, cut, replace)' },
  { group: 'Tools', keys: 'V', match: 'v', act: 'tool:paste', what: 'Paste the copied region at the clicked cell' },
  { group: 'Tools', keys: 'O', match: 'o', act: 'tool:object', what: 'Object: add or select MoveObjects' },
  { group: 'Tools', keys: 'D', match: 'd', act: 'tool:decor', what: 'Decor: place BigDecor (Shift+click removes)' },
  { group: 'Tools', keys: 'N', match: 'n', act: 'tool:spawn', what: 'Spawn: set the spawn point' },
  { group: 'Tools', keys: 'L', match: 'l', act: 'play', what: 'Play test (WASD or arrows walk, Space jumps, Esc stops)' },
  { group: 'View', keys: 'G', match: 'g', act: 'guide:grid', what: 'Grid on the ground (or at the layer height)' },
  { group: 'View', keys: 'W', match: 'w', act: 'guide:bounds', what: 'World bounds box' },
  { group: 'View', keys: 'X', match: 'x', act: 'guide:gizmo', what: 'Axis gizmo at the origin (X red, Y green, Z blue)' },
  { group: 'View', keys: '1', match: '1', act: 'top', what: 'Top view (X right, Z down: a map)' },
  { group: 'View', keys: '2', match: '2', act: 'front', what: 'Front view (looking along -Z)' },
  { group: 'View', keys: '3', match: '3', act: 'side', what: 'Side view (looking along -X)' },
  { group: 'View', keys: '5', match: '5', act: 'ortho', what: 'Orthographic / perspective view' },
  { group: 'View', keys: 'A', match: 'a', act: 'frame', what: 'Frame all (the selection, if there is one)' },
  { group: 'Selection', keys: 'PageUp / PageDown', match: 'pageup', act: 'raise', what: 'Raise / lower the top of the selection (also Shift+wheel)' },
  { group: 'Selection', keys: 'Esc', what: 'Clear the selection (closes this help; stops a play test)' },
  { group: 'Edit', keys: 'Ctrl+Z', what: 'Undo' },
  { group: 'Edit', keys: 'Ctrl+Shift+Z / Ctrl+Y', what: 'Redo' },
  { group: 'Edit', keys: 'Ctrl+S', what: 'Save' },
  { group: 'Edit', keys: '?', match: '?', act: 'help', what: 'This help' },
  { group: 'Mouse', keys: 'Left click / drag', what: 'Use the tool (drag: box and select)' },
  { group: 'Mouse', keys: 'Alt+click', what: 'Pick the clicked block (with its metadata) for the palette' },
  { group: 'Mouse', keys: 'Right drag', what: 'Orbit' },
  { group: 'Mouse', keys: 'Shift+right drag / middle drag', what: 'Pan' },
  { group: 'Mouse', keys: 'Wheel', what: 'Zoom' },
];

/** What key `k` (KeyboardEvent.key in lower case, no Ctrl or Alt) does: an `act` of KEYS
 * (PageDown: 'lower'), or null. */
export function keyAction(k) {
  if (k === 'pagedown') return 'lower';
  const e = KEYS.find((x) => x.match === k);
  return e ? e.act : null;
}

/** Fills the help element `el` from KEYS: a heading and a table per group. */
export function buildHelp(el) {
  el.replaceChildren();
  let table = null, group = null;
  for (const k of KEYS) {
    if (k.group !== group) {
      group = k.group;
      const sec = document.createElement('section'), h = document.createElement('h4');
      h.textContent = group; table = document.createElement('table');
      sec.append(h, table); el.appendChild(sec);
    }
    const tr = table.insertRow();
    const kd = document.createElement('kbd'); kd.textContent = k.keys;
    tr.insertCell().appendChild(kd); tr.insertCell().textContent = k.what;
  }
}
