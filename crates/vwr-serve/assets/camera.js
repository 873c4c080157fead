// The orbit camera's math: its basis, the view-projection matrix and the ray through a pixel.
// Pure functions of a camera `{target, yaw, pitch, dist, fov, ortho}` (`ortho`: an orthographic
// view as high as the perspective view is at the target, zoomed by `dist` the same way).

export const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
export const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export function norm(a) { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; }

/** The eye, the view direction (eye -> target) and the right and up vectors. */
export function camBasis(cam) {
  const cp = Math.cos(cam.pitch), sp = Math.sin(cam.pitch);
  const dir = [-Math.cos(cam.yaw) * cp, -sp, -Math.sin(cam.yaw) * cp];
  const eye = [cam.target[0] - dir[0] * cam.dist, cam.target[1] - dir[1] * cam.dist, cam.target[2] - dir[2] * cam.dist];
  const right = norm(cross(dir, [0, 1, 0])), up = cross(right, dir);
  return { eye, dir, right, up };
}

// The far plane's distance; an orthographic view also sees as far behind the eye.
const farOf = (cam) => cam.dist * 4 + 500;
/** Half the height of an orthographic view, in blocks. */
export const orthoHalf = (cam) => cam.dist * Math.tan(cam.fov / 2);

/** The view-projection matrix (column-major) for a view of `aspect` = width / height. */
export function viewProj(cam, aspect) {
  const { eye, dir, right, up } = camBasis(cam);
  const far = farOf(cam);
  // column-major: P * V where V rows are right, up, -dir
  const V = [right[0], up[0], -dir[0], 0, right[1], up[1], -dir[1], 0, right[2], up[2], -dir[2], 0,
    -dot(right, eye), -dot(up, eye), dot(dir, eye), 1];
  let P;
  if (cam.ortho) {
    const h = orthoHalf(cam);
    // near = -far: depth from -far to far in front of the eye.
    P = [1 / (h * aspect), 0, 0, 0, 0, 1 / h, 0, 0, 0, 0, -1 / far, 0, 0, 0, 0, 1];
  } else {
    const f = 1 / Math.tan(cam.fov / 2), near = 0.1;
    P = [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, 2 * far * near / (near - far), 0];
  }
  const M = new Float32Array(16);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) {
    let s = 0; for (let k = 0; k < 4; k++) s += P[k * 4 + r] * V[c * 4 + k]; M[c * 4 + r] = s;
  }
  return M;
}

/** The ray `{o, d}` (d of length 1) through page point (px, py) of a view in `rect`. In an
 * orthographic view every ray has the view direction and starts as far behind the eye as the
 * view sees. */
export function rayThrough(cam, px, py, rect) {
  const { eye, dir, right, up } = camBasis(cam);
  const x = ((px - rect.left) / rect.width) * 2 - 1, y = 1 - ((py - rect.top) / rect.height) * 2;
  const aspect = rect.width / rect.height;
  if (cam.ortho) {
    const h = orthoHalf(cam), back = farOf(cam);
    return { o: [0, 1, 2].map((i) => eye[i] + right[i] * x * h * aspect + up[i] * y * h - dir[i] * back), d: dir };
  }
  const t = Math.tan(cam.fov / 2);
  const d = norm([0, 1, 2].map((i) => dir[i] + right[i] * x * t * aspect + up[i] * y * t));
  return { o: eye, d };
}

// Yaw and pitch of the preset views. Top: X to the right and Z down the screen, like the layer
// map (a hair short of straight down, where the basis has no right vector).
const PRESETS = { top: [Math.PI / 2, Math.PI / 2 - 1e-4], front: [Math.PI / 2, 0], side: [0, 0] };

/** Turns `cam` to the preset view `name` (top, front or side), keeping its target and zoom. */
export function presetView(cam, name) {
  const p = PRESETS[name];
  if (!p) throw new Error('no view ' + name);
  cam.yaw = p[0]; cam.pitch = p[1];
}

/** Points `cam` at the box of cells [lo, hi) (float corners) from far enough to see it all. */
export function frameBox(cam, lo, hi) {
  cam.target = [0, 1, 2].map((i) => (lo[i] + hi[i]) / 2);
  cam.dist = Math.max(12, Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) * 1.1);
}
