//! Software-rendered previews: a shaded 3D view of the meshed world, a one-layer tile map,
//! and a chunk debug heat map.
//!
//! The 3D view is an orthographic rasteriser with a depth buffer, back-face culling, one
//! directional light plus ambient, per-vertex AO, a faint block grid (from the tiling UVs, so
//! it shows on greedy-merged quads too), depth-discontinuity outlines, and the transparent
//! pass drawn last, back to front, blended. Output is deterministic for fixed inputs.

use std::path::Path;

use image::{Rgba, RgbaImage};
use vwr::{Chunk, World, CHUNK_SIZE};

use crate::buffers::{MeshBuffers, MeshPart};
use crate::error::MeshError;
use crate::export::AO_FACTORS;
use crate::font::{draw_text, text_height, text_width};
use crate::mesher::{mesh_world, MeshOptions};
use vwr_blocks::{Registry, RenderKind};

/// Camera direction of the 3D preview.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum View {
    /// From above the south-east (+X, +Y, +Z) corner, classic isometric angles.
    #[default]
    Iso,
    /// From the south (+Z), looking north.
    Front,
    /// From above, north up.
    Top,
}

impl View {
    /// Parses `iso`, `front` or `top`.
    pub fn parse(s: &str) -> Option<View> {
        match s.to_ascii_lowercase().as_str() {
            "iso" | "isometric" => Some(View::Iso),
            "front" => Some(View::Front),
            "top" => Some(View::Top),
            _ => None,
        }
    }

    /// (right, up, forward) unit vectors of the camera; forward points into the scene.
    fn basis(self) -> ([f32; 3], [f32; 3], [f32; 3]) {
        match self {
            View::Iso => {
                let (a, b, c) = (1.0 / 2f32.sqrt(), 1.0 / 6f32.sqrt(), 1.0 / 3f32.sqrt());
                ([a, 0.0, -a], [-b, 2.0 * b, -b], [-c, -c, -c])
            }
            View::Front => ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
            View::Top => ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, -1.0, 0.0]),
        }
    }
}

/// Settings of the 3D preview.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderOptions {
    /// Camera direction.
    pub view: View,
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Shade with ambient occlusion.
    pub ao: bool,
    /// Draw MoveObjects and BigDecor as markers.
    pub markers: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            view: View::Iso,
            width: 1024,
            height: 768,
            ao: true,
            markers: true,
        }
    }
}

/// A rendered image and what it shows.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// The picture (RGBA8, opaque).
    pub image: RgbaImage,
    /// Pixels covered by geometry or markers.
    pub covered: u64,
    /// Triangles drawn (after back-face culling).
    pub triangles: u64,
    /// Markers drawn.
    pub markers: usize,
}

impl Rendered {
    /// Fraction of pixels that are not background.
    pub fn coverage(&self) -> f64 {
        self.covered as f64 / (self.image.width() as f64 * self.image.height() as f64).max(1.0)
    }
}

const LIGHT: [f32; 3] = [0.4, 1.0, 0.6];

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn background(y: u32, h: u32) -> [f32; 3] {
    let t = y as f32 / h.max(1) as f32;
    let top = [176.0, 198.0, 226.0];
    let bot = [232.0, 238.0, 244.0];
    [
        top[0] + (bot[0] - top[0]) * t,
        top[1] + (bot[1] - top[1]) * t,
        top[2] + (bot[2] - top[2]) * t,
    ]
}

/// A marker to draw: world position, fill colour, diamond (BigDecor) or disc.
#[derive(Clone, Copy, Debug)]
pub struct Marker {
    /// World position of the marker's centre.
    pub pos: [f32; 3],
    /// Fill colour.
    pub color: [u8; 3],
    /// Diamond instead of a disc.
    pub diamond: bool,
}

/// Marker colour of a MoveObject type, by family.
pub fn object_color(t: u8) -> [u8; 3] {
    match t {
        1 | 47 | 48 => [60, 120, 230],                      // lifts
        2 | 3 | 4 | 96 | 97 => [220, 40, 40],               // enemies
        5 => [250, 200, 30],                                // treasure
        6 => [250, 250, 250],                               // extra-life egg
        7 | 21 => [40, 200, 70],                            // exits
        49..=51 => [250, 230, 60],                          // keys
        12 => [150, 100, 50],                               // crate
        16..=18 | 20 | 32 | 33 | 44 | 54 => [240, 140, 30], // walkers
        200..=203 => [40, 220, 230],                        // avatars
        13 | 19 | 24..=31 | 40 | 46 | 55 => [170, 80, 220], // vehicles, power-ups
        _ => [150, 150, 150],
    }
}

/// The markers of a world's MoveObjects and BigDecor records (records that fail to decode
/// are skipped).
pub fn world_markers(world: &World) -> Vec<Marker> {
    let mut out = Vec::new();
    if let Ok(objs) = world.move_objects() {
        for (_, o) in objs {
            let p = o.pos_start;
            if p.iter().all(|c| c.is_finite()) {
                out.push(Marker {
                    pos: [p[0] + 0.5, p[1] + 0.5, p[2] + 0.5],
                    color: object_color(o.object_type),
                    diamond: false,
                });
            }
        }
    }
    if let Ok(decors) = world.big_decors() {
        for (c, _) in decors {
            out.push(Marker {
                pos: [c[0] as f32 + 0.5, c[1] as f32 + 0.5, c[2] as f32 + 0.5],
                color: [230, 60, 200],
                diamond: true,
            });
        }
    }
    out
}

struct Target {
    w: usize,
    h: usize,
    color: Vec<[f32; 3]>,
    depth: Vec<f32>,
    covered: Vec<bool>,
}

struct Cam {
    right: [f32; 3],
    up: [f32; 3],
    fwd: [f32; 3],
    scale: f32,
    off: [f32; 2],
}

impl Cam {
    fn project(&self, p: [f32; 3]) -> [f32; 3] {
        [
            dot(p, self.right) * self.scale + self.off[0],
            -dot(p, self.up) * self.scale + self.off[1],
            dot(p, self.fwd),
        ]
    }
}

/// Renders the world meshed with greedy quads (AO as `opts.ao` says).
pub fn render_world(
    world: &World,
    registry: &Registry,
    opts: &RenderOptions,
) -> Result<Rendered, MeshError> {
    let mesh = mesh_world(
        world,
        registry,
        MeshOptions {
            greedy: true,
            ao: opts.ao,
            watertight: false,
        },
    );
    let buffers = MeshBuffers::from_world(&mesh, registry);
    let markers = if opts.markers {
        world_markers(world)
    } else {
        Vec::new()
    };
    render_buffers(&buffers, &markers, opts)
}

/// Renders prepared buffers and markers.
pub fn render_buffers(
    b: &MeshBuffers,
    markers: &[Marker],
    opts: &RenderOptions,
) -> Result<Rendered, MeshError> {
    if opts.width == 0 || opts.height == 0 || opts.width > 16384 || opts.height > 16384 {
        return Err(MeshError::Invalid(format!(
            "image size {}x{} must be between 1x1 and 16384x16384",
            opts.width, opts.height
        )));
    }
    let (w, h) = (opts.width as usize, opts.height as usize);
    let (right, up, fwd) = opts.view.basis();
    // Fit the projected geometry (and markers) into the image with a margin.
    let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
    let mut fit = |p: [f32; 3]| {
        let s = [dot(p, right), -dot(p, up)];
        for a in 0..2 {
            lo[a] = lo[a].min(s[a]);
            hi[a] = hi[a].max(s[a]);
        }
    };
    for p in b.opaque.positions.iter().chain(&b.transparent.positions) {
        fit(*p);
    }
    for m in markers {
        fit(m.pos);
    }
    let mut t = Target {
        w,
        h,
        color: (0..w * h)
            .map(|i| background((i / w) as u32, h as u32))
            .collect(),
        depth: vec![f32::INFINITY; w * h],
        covered: vec![false; w * h],
    };
    let mut rendered = Rendered {
        image: RgbaImage::new(opts.width, opts.height),
        covered: 0,
        triangles: 0,
        markers: 0,
    };
    if lo[0] <= hi[0] {
        let margin = 0.04 * w.min(h) as f32;
        let sx = (w as f32 - 2.0 * margin) / (hi[0] - lo[0]).max(1e-3);
        let sy = (h as f32 - 2.0 * margin) / (hi[1] - lo[1]).max(1e-3);
        let scale = sx.min(sy);
        let off = [
            w as f32 / 2.0 - (lo[0] + hi[0]) / 2.0 * scale,
            h as f32 / 2.0 - (lo[1] + hi[1]) / 2.0 * scale,
        ];
        let cam = Cam {
            right,
            up,
            fwd,
            scale,
            off,
        };
        rendered.triangles += draw_part(&mut t, &cam, &b.opaque, opts.ao, false);
        rendered.triangles += draw_part(&mut t, &cam, &b.transparent, opts.ao, true);
        outline(&mut t);
        rendered.markers = draw_markers(&mut t, &cam, markers);
    }
    for (i, c) in t.color.iter().enumerate() {
        let px = Rgba([
            c[0].round().clamp(0.0, 255.0) as u8,
            c[1].round().clamp(0.0, 255.0) as u8,
            c[2].round().clamp(0.0, 255.0) as u8,
            255,
        ]);
        rendered.image.put_pixel((i % w) as u32, (i / w) as u32, px);
    }
    rendered.covered = t.covered.iter().filter(|&&c| c).count() as u64;
    Ok(rendered)
}

/// Draws one pass; returns the triangles drawn.
fn draw_part(t: &mut Target, cam: &Cam, part: &MeshPart, ao: bool, blend: bool) -> u64 {
    let l = {
        let n = dot(LIGHT, LIGHT).sqrt();
        [LIGHT[0] / n, LIGHT[1] / n, LIGHT[2] / n]
    };
    let proj: Vec<[f32; 3]> = part.positions.iter().map(|&p| cam.project(p)).collect();
    let mut tris: Vec<[usize; 3]> = part
        .indices
        .chunks_exact(3)
        .map(|c| [c[0] as usize, c[1] as usize, c[2] as usize])
        .filter(|c| c.iter().all(|&i| i < proj.len()) && dot(part.normals[c[0]], cam.fwd) < 0.0)
        .collect();
    if blend {
        // Back to front; ties broken by index for determinism.
        let depth = |c: &[usize; 3]| proj[c[0]][2] + proj[c[1]][2] + proj[c[2]][2];
        tris.sort_by(|a, b| depth(b).total_cmp(&depth(a)).then(a.cmp(b)));
    }
    // Grid line half-width in UV units: about 0.6 px, shown only when blocks are big enough.
    let grid = if cam.scale >= 5.0 {
        0.6 / cam.scale
    } else {
        0.0
    };
    for tri in &tris {
        let [a, b, c] = *tri;
        let (pa, pb, pc) = (proj[a], proj[b], proj[c]);
        let area = (pb[0] - pa[0]) * (pc[1] - pa[1]) - (pb[1] - pa[1]) * (pc[0] - pa[0]);
        if area.abs() < 1e-9 {
            continue;
        }
        let n = part.normals[a];
        let shade = 0.48 + 0.52 * dot(n, l).max(0.0);
        let col = part.colors[a];
        let alpha = if blend { col[3] as f32 / 255.0 } else { 1.0 };
        let base = [
            col[0] as f32 * shade,
            col[1] as f32 * shade,
            col[2] as f32 * shade,
        ];
        let aos = [part.ao[a], part.ao[b], part.ao[c]].map(|v| {
            if ao {
                AO_FACTORS[v.min(3) as usize]
            } else {
                1.0
            }
        });
        let uvs = [part.uvs[a], part.uvs[b], part.uvs[c]];
        let minx = pa[0].min(pb[0]).min(pc[0]).floor().max(0.0) as usize;
        let maxx = (pa[0].max(pb[0]).max(pc[0]).ceil() as isize).min(t.w as isize - 1);
        let miny = pa[1].min(pb[1]).min(pc[1]).floor().max(0.0) as usize;
        let maxy = (pa[1].max(pb[1]).max(pc[1]).ceil() as isize).min(t.h as isize - 1);
        if maxx < 0 || maxy < 0 {
            continue;
        }
        let inv = 1.0 / area;
        for y in miny..=maxy as usize {
            let py = y as f32 + 0.5;
            for x in minx..=maxx as usize {
                let px = x as f32 + 0.5;
                let w0 = ((pb[0] - px) * (pc[1] - py) - (pb[1] - py) * (pc[0] - px)) * inv;
                let w1 = ((pc[0] - px) * (pa[1] - py) - (pc[1] - py) * (pa[0] - px)) * inv;
                let w2 = 1.0 - w0 - w1;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let z = w0 * pa[2] + w1 * pb[2] + w2 * pc[2];
                let i = y * t.w + x;
                if z >= t.depth[i] - 1e-4 {
                    continue;
                }
                let mut f = w0 * aos[0] + w1 * aos[1] + w2 * aos[2];
                if grid > 0.0 {
                    let u = w0 * uvs[0][0] + w1 * uvs[1][0] + w2 * uvs[2][0];
                    let v = w0 * uvs[0][1] + w1 * uvs[1][1] + w2 * uvs[2][1];
                    let du = (u - u.round()).abs();
                    let dv = (v - v.round()).abs();
                    if du < grid || dv < grid {
                        f *= 0.86;
                    }
                }
                let c = [base[0] * f, base[1] * f, base[2] * f];
                let dst = &mut t.color[i];
                if blend {
                    for k in 0..3 {
                        dst[k] = dst[k] * (1.0 - alpha) + c[k] * alpha;
                    }
                } else {
                    *dst = c;
                    t.depth[i] = z;
                }
                t.covered[i] = true;
            }
        }
    }
    tris.len() as u64
}

/// Darkens pixels at depth discontinuities so silhouettes and steps read clearly.
fn outline(t: &mut Target) {
    let (w, h) = (t.w, t.h);
    let mut edge = vec![false; w * h];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let d = t.depth[i];
            let mut e = false;
            for (nx, ny) in [
                (x.wrapping_sub(1), y),
                (x + 1, y),
                (x, y.wrapping_sub(1)),
                (x, y + 1),
            ] {
                if nx < w && ny < h {
                    let nd = t.depth[ny * w + nx];
                    // Only the nearer side of a step is darkened.
                    if d.is_finite() && (nd - d > 0.9 || nd.is_infinite()) {
                        e = true;
                    }
                }
            }
            edge[i] = e;
        }
    }
    for (c, e) in t.color.iter_mut().zip(edge) {
        if e {
            for v in c.iter_mut() {
                *v *= 0.62;
            }
        }
    }
}

fn draw_markers(t: &mut Target, cam: &Cam, markers: &[Marker]) -> usize {
    let r = (cam.scale * 0.42).clamp(2.5, 14.0);
    let mut n = 0;
    for m in markers {
        let p = cam.project(m.pos);
        let (cx, cy) = (p[0], p[1]);
        if cx < -r || cy < -r || cx > t.w as f32 + r || cy > t.h as f32 + r {
            continue;
        }
        n += 1;
        let x0 = (cx - r - 1.0).floor().max(0.0) as usize;
        let y0 = (cy - r - 1.0).floor().max(0.0) as usize;
        let x1 = ((cx + r + 1.0).ceil() as usize).min(t.w.saturating_sub(1));
        let y1 = ((cy + r + 1.0).ceil() as usize).min(t.h.saturating_sub(1));
        for y in y0..=y1 {
            for x in x0..=x1 {
                let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
                let d = if m.diamond {
                    dx.abs() + dy.abs()
                } else {
                    (dx * dx + dy * dy).sqrt()
                };
                if d > r {
                    continue;
                }
                let i = y * t.w + x;
                t.color[i] = if d > r - 1.3 {
                    [25.0, 25.0, 30.0]
                } else {
                    [m.color[0] as f32, m.color[1] as f32, m.color[2] as f32]
                };
                t.covered[i] = true;
            }
        }
    }
    n
}

/// Renders one horizontal layer `y` as a top-down tile map: each cell its block colour; air
/// cells show the nearest block below, dimmed by distance (up to 8 cells); chunk borders
/// drawn; MoveObjects and BigDecor anchored in the layer as markers; a title line.
///
/// The map is at most `max_size` pixels on its larger side (plus the 20-pixel title line
/// when `max_size` leaves no room for it): cells grow up to 32 pixels when there is room, and
/// when the world has more blocks per axis than pixels are available, every `k`-th block is
/// drawn (k the smallest step that fits).
pub fn render_layer(
    world: &World,
    registry: &Registry,
    y: i32,
    max_size: u32,
) -> Result<Rendered, MeshError> {
    let [nx, ny, nz] = world.block_dims().map(|v| v as i32);
    if y < 0 || y >= ny {
        return Err(MeshError::Invalid(format!(
            "layer {y} is outside the world (0..{ny})"
        )));
    }
    let header = 20u32;
    let avail = max_size.saturating_sub(header).max(1);
    // Blocks per cell along each axis: 1 unless the world has more blocks than pixels.
    let stride = (nx.max(nz) as u32).div_ceil(avail).max(1) as i32;
    let (cells_x, cells_z) = (
        (nx as u32).div_ceil(stride as u32),
        (nz as u32).div_ceil(stride as u32),
    );
    let cell = (avail / cells_x.max(cells_z)).clamp(1, 32);
    let size = cell * cells_x;
    // Chunk borders only where they are at least a few cells apart.
    let chunk_lines = stride <= CHUNK_SIZE as i32 / 3;
    let mut img = RgbaImage::from_pixel(size, cell * cells_z + header, Rgba([30, 32, 38, 255]));
    let mut covered = 0u64;
    for (cz, z) in (0..nz).step_by(stride as usize).enumerate() {
        for (cx, x) in (0..nx).step_by(stride as usize).enumerate() {
            let b = world.get_block([x, y, z]);
            let mut rgb = [58.0f32, 62.0, 70.0];
            let info = registry.info(b.block_type());
            if !b.is_air() && info.kind != RenderKind::Invisible {
                let c = info.color;
                rgb = [c[0] as f32, c[1] as f32, c[2] as f32];
                covered += (cell * cell) as u64;
            } else {
                for d in 1..=8 {
                    let below = world.get_block([x, y - d, z]);
                    let bi = registry.info(below.block_type());
                    if !below.is_air() && bi.kind != RenderKind::Invisible {
                        let f = 0.55 - 0.05 * d as f32;
                        let c = bi.color;
                        rgb = [
                            58.0 * (1.0 - f) + c[0] as f32 * f,
                            62.0 * (1.0 - f) + c[1] as f32 * f,
                            70.0 * (1.0 - f) + c[2] as f32 * f,
                        ];
                        break;
                    }
                }
            }
            for py in 0..cell {
                for px in 0..cell {
                    let mut c = rgb;
                    let edge = cell >= 6 && (px == 0 || py == 0);
                    let chunk_edge = chunk_lines
                        && ((x % CHUNK_SIZE as i32) < stride && px == 0
                            || (z % CHUNK_SIZE as i32) < stride && py == 0);
                    if chunk_edge {
                        c = [20.0, 20.0, 24.0];
                    } else if edge {
                        c = c.map(|v| v * 0.85);
                    }
                    img.put_pixel(
                        cx as u32 * cell + px,
                        header + cz as u32 * cell + py,
                        Rgba([c[0] as u8, c[1] as u8, c[2] as u8, 255]),
                    );
                }
            }
        }
    }
    let mut markers = 0;
    let r = (cell as f32 * 0.4).max(1.5);
    for m in world_markers(world) {
        if m.pos[1].floor() as i32 != y {
            continue;
        }
        markers += 1;
        let scale = cell as f32 / stride as f32;
        let (cx, cy) = (m.pos[0] * scale, header as f32 + m.pos[2] * scale);
        for py in (cy - r - 1.0).max(0.0) as u32..((cy + r + 1.0) as u32).min(img.height()) {
            for px in (cx - r - 1.0).max(0.0) as u32..((cx + r + 1.0) as u32).min(img.width()) {
                let (dx, dy) = (px as f32 + 0.5 - cx, py as f32 + 0.5 - cy);
                let d = if m.diamond {
                    dx.abs() + dy.abs()
                } else {
                    (dx * dx + dy * dy).sqrt()
                };
                if d <= r {
                    let c = if d > r - 1.2 && r > 3.0 {
                        [20, 20, 20]
                    } else {
                        m.color
                    };
                    img.put_pixel(px, py, Rgba([c[0], c[1], c[2], 255]));
                }
            }
        }
    }
    let title = format!("LAYER Y={y}   X RIGHT, Z DOWN   {markers} OBJECTS");
    let scale = if text_width(&title, 2) + 8 <= size {
        2
    } else {
        1
    };
    draw_text(
        &mut img,
        4,
        (header as i32 - text_height(scale) as i32) / 2,
        &title,
        scale,
        [235, 235, 235, 255],
    );
    Ok(Rendered {
        image: img,
        covered,
        triangles: 0,
        markers,
    })
}

/// Heat colour for t in 0..=1 (green → yellow → red).
fn heat(t: f32) -> [u8; 3] {
    let t = t.clamp(0.0, 1.0);
    let (r, g) = if t < 0.5 {
        (t * 2.0, 1.0)
    } else {
        (1.0, 2.0 - 2.0 * t)
    };
    [(60.0 + 190.0 * r) as u8, (70.0 + 160.0 * g) as u8, 60]
}

/// The largest side [`render_chunks`] draws (the same cap as [`render_world`]'s image size).
pub const MAX_IMAGE_SIDE: u32 = 16384;

/// The chunk debug view within the default bounds of 4096 × 4096 pixels (see
/// [`render_chunks_within`]).
pub fn render_chunks(world: &World) -> Rendered {
    render_chunks_within(world, 4096, 4096)
}

/// A chunk view tile's colour and labels (see [`render_chunks_within`]).
fn tile_look(chunk: Option<&Chunk>) -> ([u8; 3], Vec<String>) {
    let Some(c) = chunk else {
        return ([70, 72, 78], vec![]);
    };
    let m = c.records().len();
    if c.is_empty() {
        ([40, 50, 90], vec!["E".into()])
    } else if c.is_uniform() {
        ([70, 110, 200], vec!["U".into(), format!("M{m}")])
    } else {
        let b = c.bits_per_block();
        (
            heat((b as f32 - 1.0) / 7.0),
            vec![
                format!("B{b}"),
                format!("P{}", c.palette().len()),
                format!("M{m}"),
            ],
        )
    }
}

/// The chunk debug view: one panel per chunk layer (`cy`) that holds allocated chunks, a
/// tile per chunk (x right, z down). Colour: grey = not allocated, dark blue = empty
/// (palette `[air]`), blue = uniform, green→red = bits per block 1..8. Labels: `B` bits per
/// block, `P` palette size, `M` metadata records (on tiles large enough to hold them).
///
/// The image is never larger than `max_width` × `max_height` (each clamped to
/// 1..=[`MAX_IMAGE_SIDE`]): tiles shrink from 26 down to 1 pixel until every panel fits, and
/// when even 1-pixel tiles do not fit, only the first layers that fit are drawn and the title
/// says how many are shown; a layer wider or deeper than the image is drawn from its first
/// columns and rows at 1 pixel per chunk, and the title says which. Memory and time are
/// therefore bounded by the image size, whatever the world.
pub fn render_chunks_within(world: &World, max_width: u32, max_height: u32) -> Rendered {
    let (max_w, max_h) = (
        max_width.clamp(1, MAX_IMAGE_SIDE),
        max_height.clamp(1, MAX_IMAGE_SIDE),
    );
    let [nx, ny, nz] = world.chunk_dims();
    let mut occupied = vec![false; ny as usize];
    for (p, _) in world.chunks() {
        occupied[p[1] as usize] = true;
    }
    let all_layers: Vec<u32> = (0..ny).filter(|&cy| occupied[cy as usize]).collect();
    let legend_h = 46;
    let title_h = 24;
    let count = (all_layers.len() as u32).max(1);
    // Largest tile whose panels all fit; 5 columns when that fits (the natural layout).
    // Panels are `tile·X` wide and `tile·Z` deep.
    let layout = |tile: u32| -> (u32, u32, u32) {
        let panel = tile.saturating_mul(nx).saturating_add(12);
        let depth = tile.saturating_mul(nz).saturating_add(12);
        let cols_fit = (max_w.saturating_sub(12) / panel).max(1);
        let rows_fit = (max_h.saturating_sub(title_h + legend_h) / (depth + 14)).max(1);
        let cols = count.div_ceil(rows_fit).max(count.min(5)).min(cols_fit);
        (panel, cols, rows_fit)
    };
    let depth_of = |tile: u32| tile.saturating_mul(nz).saturating_add(12);
    // A panel wider or deeper than the image at every tile size shows its first columns
    // and rows only, at 1 pixel per chunk (the title says which).
    let room = (
        max_w.saturating_sub(12),
        max_h.saturating_sub(title_h + legend_h + 14),
    );
    let tile = (1..=26u32)
        .rev()
        .find(|&t| {
            let (panel, cols, rows_fit) = layout(t);
            cols * rows_fit >= count && panel <= room.0 && depth_of(t) <= room.1
        })
        .unwrap_or(1);
    let (panel, cols, rows_fit) = layout(tile);
    let depth = depth_of(tile);
    let shown = (all_layers.len() as u32).min(cols * rows_fit) as usize;
    let layers = &all_layers[..shown];
    let rows = (layers.len() as u32).div_ceil(cols).max(1);
    let w = (cols * panel + 12).max(420).min(max_w);
    let h = (title_h + rows * (depth + 14) + legend_h).min(max_h);
    let mut img = RgbaImage::from_pixel(w, h, Rgba([28, 30, 36, 255]));
    let mut covered = 0u64;
    let mut title = format!(
        "CHUNKS {nx}X{ny}X{nz}: {} ALLOCATED",
        world.chunks().count()
    );
    if shown < all_layers.len() {
        title.push_str(&format!(", {shown} OF {} LAYERS SHOWN", all_layers.len()));
    }
    // The tiles that start inside a panel's part of the image (above the legend).
    let (cx_end, cz_end) = (
        nx.min(w.saturating_sub(8 + 12).div_ceil(tile)),
        nz.min(h.saturating_sub(title_h + 10 + legend_h).div_ceil(tile)),
    );
    if cx_end == 0 || cz_end == 0 {
        title.push_str(", NO ROOM FOR TILES");
    } else if (cx_end, cz_end) != (nx, nz) {
        title.push_str(&format!(", CX 0-{} CZ 0-{} SHOWN", cx_end - 1, cz_end - 1));
    }
    draw_text(&mut img, 8, 6, &title, 2, [235, 235, 235, 255]);
    // A 1-pixel gap between tiles, and labels, only where the tiles are big enough.
    let fill_size = if tile >= 3 { tile - 1 } else { tile };
    let labelled = tile >= 24;
    for (k, &cy) in layers.iter().enumerate() {
        let px0 = 8 + (k as u32 % cols) * panel;
        let py0 = title_h + (k as u32 / cols) * (depth + 14);
        draw_text(
            &mut img,
            px0 as i32,
            py0 as i32 + 2,
            &format!("CY={cy}"),
            1,
            [200, 200, 200, 255],
        );
        // Only the tiles inside the image: a panel wider or deeper than the image (a world
        // of 65535² chunk columns) costs what the image shows, not the world.
        for cz in 0..cz_end {
            for cx in 0..cx_end {
                let x0 = px0 + cx * tile;
                let y0 = py0 + 10 + cz * tile;
                let chunk = world.chunk([cx, cy, cz]);
                if chunk.is_some() {
                    covered += u64::from(tile * tile);
                }
                let (fill, lines) = tile_look(chunk);
                for y in (y0..y0 + fill_size).take_while(|&y| y < h) {
                    for x in (x0..x0 + fill_size).take_while(|&x| x < w) {
                        img.put_pixel(x, y, Rgba([fill[0], fill[1], fill[2], 255]));
                    }
                }
                if labelled {
                    for (li, line) in lines.iter().enumerate() {
                        draw_text(
                            &mut img,
                            x0 as i32 + 2,
                            y0 as i32 + 2 + li as i32 * 7,
                            line,
                            1,
                            [15, 15, 20, 255],
                        );
                    }
                }
            }
        }
    }
    // Legend.
    let ly = h.saturating_sub(legend_h) + 6;
    let mut lx = 8i32;
    let entries: Vec<([u8; 3], String)> = vec![
        ([70, 72, 78], "NOT ALLOCATED".into()),
        ([40, 50, 90], "E EMPTY".into()),
        ([70, 110, 200], "U UNIFORM".into()),
        (heat(0.0), "1 BIT".into()),
        (heat(0.5), "4-5".into()),
        (heat(1.0), "8 BITS".into()),
    ];
    for (c, label) in entries {
        for y in 0..10 {
            for x in 0..10 {
                if let (Ok(px), Ok(py)) = (u32::try_from(lx + x), u32::try_from(ly as i32 + y)) {
                    if px < w && py < h {
                        img.put_pixel(px, py, Rgba([c[0], c[1], c[2], 255]));
                    }
                }
            }
        }
        draw_text(
            &mut img,
            lx + 14,
            ly as i32 + 2,
            &label,
            1,
            [220, 220, 220, 255],
        );
        lx += 14 + text_width(&label, 1) as i32 + 14;
    }
    draw_text(
        &mut img,
        8,
        ly as i32 + 20,
        "B BITS PER BLOCK  P PALETTE SIZE  M METADATA RECORDS",
        1,
        [200, 200, 200, 255],
    );
    Rendered {
        image: img,
        covered,
        triangles: 0,
        markers: 0,
    }
}

/// PNG bytes of an image.
pub fn png_bytes(img: &RgbaImage) -> Result<Vec<u8>, MeshError> {
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .map_err(|e| MeshError::export("png", e))?;
    Ok(out)
}

/// Writes an image as PNG (atomically: temporary file, fsync, rename).
pub fn save_png(img: &RgbaImage, path: &Path) -> Result<(), MeshError> {
    let bytes = png_bytes(img)?;
    voxcaf_fs::write_atomic(path, &bytes).map_err(|source| MeshError::Io {
        path: path.display().to_string(),
        source,
    })
}
