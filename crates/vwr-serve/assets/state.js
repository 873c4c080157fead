// The page's state, in one object shared by the modules (they keep no mutable variables of
// their own), and the figures the browser tests read.

/** Blocks along each side of a chunk. */
export const CS = 10;

/** Everything the page remembers between events. */
export const state = {
  world: null,          // the summary of /api/world (or of the last edit answer)
  blockInfo: new Map(), // type -> {type, name, color, kind, used}
  paletteList: [],      // the palette's blocks, used ones first
  block: 35,            // the current block type
  tool: 'place',
  epoch: 0,             // the newest mesh epoch received
  chunks: new Map(),    // 'x,y,z' -> {pos, blocks: Uint16Array|null, parts: decoded [opaque, transparent]}
  selection: null,      // {a, b}
  clip: null,           // {a, b, cut}
  selectedObj: null,    // [x, y, z] anchor of the selected MoveObject
  movingObj: false,     // the next click with the object tool moves the selected one
  hover: null,          // the pick under the mouse
  drag: null,           // {a, b} while box/select dragging
  mouse: null,          // the button held and where it went down
  layerOn: false,
  layerY: 1,
  layerMap: null,       // what the layer map shows: {x0, z0, width, depth, windowed}
  layerLoading: false,  // a layer map request is in flight
  chunksOn: false,
  chunkStats: [],
  historyDropped: 0,    // undo steps the server dropped from the oldest end so far
  play: null,           // {state, keys: Set, timer, busy, saved} while play-testing
  pollTimer: 0,         // database mode: the timer polling /api/sync
  polling: false,       // a poll is in flight
  me: null,             // who this page is: {name, role, colour} (from /api/events)
  presence: new Map(),  // user -> {user, colour, role, cell, selection}
  presenceTimer: 0,
  events: null,         // the EventSource of /api/events
  logOps: [],           // the operations log as fetched (/api/log)
  scrub: null,          // the operation the timeline shows the world after, when not now
  shownSeq: 0,          // the operation the view shows the world after
  scrubWanted: null,    // where the slider asks to go
  scrubbing: false,     // a timeline request is in flight
  dirty: true,          // the view needs drawing
  toastTimer: 0,
  frameWaiters: [],     // resolved with the time of the next drawn frame
  // The orbit camera: looks at `target` from `dist` away.
  cam: { target: [50, 10, 50], yaw: 0.8, pitch: 0.6, dist: 150, fov: 0.9 },
  regions: new Map(),      // region key -> {parts: [opaque, transparent]}: merged GL buffers
  regionChunks: new Map(), // region key -> Set of the chunk keys in it
  dirtyRegions: new Set(), // regions to re-merge before the next frame
  triangleBudget: 1500000, // beyond it (full meshes in view), far regions are drawn from levels of detail (lod.js)
};

/** Timings and errors, for the browser tests (window.voxcafStats). */
export const stats = { openMs: null, edits: [], errors: [], pulls: [], pushes: [], frame: { calls: 0, triangles: 0 } };
