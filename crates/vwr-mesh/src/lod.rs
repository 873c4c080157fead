//! Meshing levels of detail: chunks with closed borders, and distant views mixing levels.
//!
//! A level of detail k of a world (`vwr::lod`) is itself a [`World`] whose cell covers
//! 2^k × 2^k × 2^k blocks; a cell is air only when all the blocks it covers are, so a level's
//! solid volume **contains** every finer level's. Its chunks are meshed like any other, in
//! cell units, and [`MeshBuffers`](crate::MeshBuffers) scales them by 2^k
//! ([`ChunkMesh::level`]). A level's cells on the world's far faces are whole cells, so its
//! mesh may reach up to 2^k − 1 blocks past the world's box there.
//!
//! # Closed borders (skirts)
//!
//! A chunk meshed **closed** ([`mesh_chunk_closed`]) treats every cell across the chunk's
//! border planes as air: its opaque pass is then the boundary of the chunk's own opaque
//! cells, a closed surface by itself (with [`MeshOptions::watertight`], without T-junctions
//! too). Greedy merging turns the extra border faces into a few large quads per side.
//!
//! Where regions of two levels meet ([`plan_view`]), both sides are closed: every chunk of a
//! level above 0, and a level-0 chunk on the sides where its neighbour belongs to a coarser
//! region. **No crack shows at such a seam.** The two meshes' edges along the seam do not
//! match (vertices every block on one side, every 2^k on the other), so a rasteriser may
//! leave a pixel there covered by neither top; but each side is closed, its top and its
//! border face sharing their edges exactly, and whichever side the camera is on, the border
//! face of the other side looks at it: the ray through that pixel meets it, a front face,
//! instead of passing into the solid and showing what lies behind. Away from seams, open
//! level-0 sides face level-0 chunks, whose meshes match as in a plain world mesh; the opaque
//! pass of a whole watertight view is one closed surface (every edge matched: `tests/lod.rs`).
//! Closing adds faces only where the drawn solid ends anyway: a border face stands in front
//! of a solid cell of its own chunk, and across the seam lies either a solid cell (the face
//! is then inside the drawn solid) or an air one (the face is then drawn surface, as in a
//! mesh of one level). "Solid" is "not air": a coarse cell is solid when any block it covers
//! is, so nothing solid at the fine level disappears from the coarse one; the coarse one is
//! at most a cell larger, which [`plan_view`] keeps to about a pixel.
//!
//! # Distant views
//!
//! [`plan_view`] cuts the world's non-empty chunks into regions, each a chunk of one level,
//! choosing for each the coarsest level whose cell, seen from the camera at the region's
//! nearest point, spans at most `max_cell_px` pixels (about one: [`plan_view`] uses 1.0,
//! [`plan_view_px`] takes it):
//! a cell of 2^k blocks at distance d spans about 2^k · `px_per_radian` / d pixels. Regions
//! are found from the coarsest level's non-empty chunks down, a chunk of level k being split
//! into the non-empty ones of the (up to) eight chunks of level k − 1 it covers until the rule
//! holds or level 0 is reached, so level-0 chunks lie near the camera, the regions cover every
//! non-empty chunk of the world once, and empty space costs nothing.
//! [`mesh_view`] meshes the chosen chunks in parallel from the levels given.

use std::borrow::Borrow;

use rayon::prelude::*;
use vwr::{World, CHUNK_SIZE};
use vwr_blocks::Registry;

use crate::mesher::{chunk_has_visible, file_key, mesh_chunks_par, rotate_plates};
use crate::{ChunkMesh, Face, MeshError, MeshOptions, Mesher, Neighborhood, WorldMesh};

/// Per border plane of a chunk, in [`Face::ALL`] order, whether it is closed (cells across
/// it count as air).
pub type Sides = [bool; 6];

/// Every border plane closed.
pub const CLOSED: Sides = [true; 6];

/// Scratch buffers of closed meshing.
#[derive(Default)]
struct Scratch {
    mesher: Mesher,
    nb: Neighborhood,
}

/// Meshes chunk `pos` of `world`, a world of level of detail `level` (0: blocks), with the
/// border planes in `closed` closed: cells across them count as air (the others are read
/// from the neighbouring chunks as [`crate::mesh_chunk`] does). The quads are in the level's
/// cells; the mesh's [`ChunkMesh::level`] is `level`.
pub fn mesh_chunk_closed(
    world: &World,
    registry: &Registry,
    pos: [u32; 3],
    level: u8,
    closed: Sides,
    opts: MeshOptions,
) -> ChunkMesh {
    let mut out = ChunkMesh::default();
    mesh_closed_with(
        world,
        registry,
        (pos, level, closed),
        opts,
        &mut Scratch::default(),
        &mut out,
    );
    out
}

/// [`mesh_chunk_closed`] of chunk `(pos, level, closed)` into `out`, with `s`'s buffers.
fn mesh_closed_with(
    world: &World,
    registry: &Registry,
    (pos, level, closed): ([u32; 3], u8, Sides),
    opts: MeshOptions,
    s: &mut Scratch,
    out: &mut ChunkMesh,
) {
    *out = ChunkMesh {
        chunk: pos,
        watertight: opts.watertight,
        level,
        closed,
        ..ChunkMesh::default()
    };
    let Some(chunk) = world.chunk(pos) else {
        return;
    };
    if !chunk_has_visible(chunk, registry) {
        return;
    }
    s.nb.gather_closed(world, pos, registry, closed);
    let origin = pos.map(|v| v as i32 * CHUNK_SIZE as i32);
    s.mesher.mesh(&s.nb, origin, opts, out);
    out.chunk = pos;
    out.level = level;
    out.closed = closed;
    rotate_plates(chunk, origin, &mut out.special);
}

/// Meshes every chunk of `level_world`, the level of detail `level` of a world, closed (see
/// the module doc), in parallel: what `voxcaf world mesh --lod K` exports. Empty meshes are
/// left out; the rest are in file order, each with [`ChunkMesh::level`] `level`, so
/// [`crate::MeshBuffers`] and the exports place them in world units.
pub fn mesh_level(
    level_world: &World,
    level: u8,
    registry: &Registry,
    opts: MeshOptions,
) -> WorldMesh {
    let list: Vec<_> = level_world
        .chunks()
        .map(|(pos, _)| (pos, level, CLOSED))
        .collect();
    WorldMesh {
        chunks: mesh_closed_par(&[(level, level_world)], &list, registry, opts),
    }
}

/// Meshes the given regions of a view closed on their [`ViewChunk::closed`] sides, in
/// parallel: `levels[k]` is level k of the world (`levels[0]` the world itself). What an
/// application that keeps the meshes of earlier views meshes when the view changes (the Bevy
/// plugin's distant views); [`mesh_view`] meshes a whole plan. Empty meshes are left out; the
/// others come in the order given, each telling its region by `chunk`, `level` and `closed`.
pub fn mesh_regions(
    levels: &[&World],
    regions: &[ViewChunk],
    registry: &Registry,
    opts: MeshOptions,
) -> Result<Vec<ChunkMesh>, MeshError> {
    if let Some(c) = regions.iter().find(|c| c.level as usize >= levels.len()) {
        return Err(MeshError::Invalid(format!(
            "region {:?} of level {} but {} levels were given",
            c.chunk,
            c.level,
            levels.len()
        )));
    }
    let worlds: Vec<(u8, &World)> = (0..).zip(levels.iter().copied()).collect();
    let list: Vec<_> = regions
        .iter()
        .map(|c| (c.chunk, c.level, c.closed))
        .collect();
    Ok(mesh_closed_par(&worlds, &list, registry, opts))
}

/// The non-empty closed meshes of `list` (chunk, level, closed sides), in the order given, on
/// rayon's pool; `worlds` gives each level's world.
fn mesh_closed_par(
    worlds: &[(u8, &World)],
    list: &[([u32; 3], u8, Sides)],
    registry: &Registry,
    opts: MeshOptions,
) -> Vec<ChunkMesh> {
    let mut meshes: Vec<ChunkMesh> = list
        .par_iter()
        .map_init(Scratch::default, |s, &item| {
            let mut out = ChunkMesh::default();
            if let Some(&(_, w)) = worlds.iter().find(|(k, _)| *k == item.1) {
                mesh_closed_with(w, registry, item, opts, s, &mut out);
            }
            out
        })
        .collect();
    meshes.retain(|m| !m.is_empty());
    meshes
}

/// One region of a distant view: a chunk of one level, and which of its border planes are
/// meshed closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ViewChunk {
    /// The level of detail (0: blocks).
    pub level: u8,
    /// The chunk's position in that level's world.
    pub chunk: [u32; 3],
    /// Closed border planes: all of them above level 0; at level 0 those facing a region
    /// of a coarser level.
    pub closed: Sides,
}

impl ViewChunk {
    /// The blocks the region covers, `[lo, hi)` per axis, in a world of `world_dims` level-0
    /// chunks.
    pub fn block_box(&self, world_dims: [u32; 3]) -> ([u32; 3], [u32; 3]) {
        let side = (CHUNK_SIZE as u32) << self.level;
        let lo = self.chunk.map(|v| v * side);
        let hi =
            [0, 1, 2].map(|a| ((self.chunk[a] + 1) * side).min(world_dims[a] * CHUNK_SIZE as u32));
        (lo, hi)
    }
}

/// The regions of a distant view ([`plan_view`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewPlan {
    /// The regions: level-0 chunks first (file order), then each coarser level's in turn.
    pub chunks: Vec<ViewChunk>,
}

impl ViewPlan {
    /// How many regions each level has, from level 0 up to the coarsest used.
    pub fn level_counts(&self) -> Vec<usize> {
        let top = self.chunks.iter().map(|c| c.level as usize).max();
        let mut n = vec![0; top.map_or(0, |t| t + 1)];
        for c in &self.chunks {
            n[c.level as usize] += 1;
        }
        n
    }
}

/// [`plan_view_px`] with cells of at most one pixel: `px_per_radian` is the view's width in
/// pixels over its horizontal field of view in radians (a 1920-pixel view of 90°: 1222); to
/// accept cells of n pixels, pass `px_per_radian / n`.
pub fn plan_view<W: Borrow<World>>(
    camera_pos: [f32; 3],
    levels: &[W],
    px_per_radian: f32,
) -> ViewPlan {
    plan_view_px(camera_pos, levels, px_per_radian, 1.0)
}

/// Cuts the non-empty chunks of a world into regions for a camera at `camera_pos` (world
/// units): `levels[k]` is level k of the world (`levels[0]` the world itself; at most
/// [`vwr::lod::MAX_LOD_LEVELS`] levels above it are used). Each region is a chunk of the
/// coarsest level whose cell, at the region's nearest point, projects to at most
/// `max_cell_px` pixels (see the module doc). The regions cover every non-empty level-0 chunk
/// exactly once, and each holds a non-empty chunk of its level: the plan is found from the
/// coarsest level's chunks down, so its cost follows the chunks the levels hold, not the
/// world's size (two chunks of the largest world make a plan of a few regions).
pub fn plan_view_px<W: Borrow<World>>(
    camera_pos: [f32; 3],
    levels: &[W],
    px_per_radian: f32,
    max_cell_px: f32,
) -> ViewPlan {
    let Some(world) = levels.first().map(Borrow::borrow) else {
        return ViewPlan::default();
    };
    let world_dims = world.chunk_dims();
    let top = (levels.len() - 1).min(vwr::lod::MAX_LOD_LEVELS as usize) as u8;
    let dims_at = |k: u8| vwr::lod::level_dims(world_dims, k);
    let occupied = |k: u8, p: [u32; 3]| {
        let level: &World = levels[k as usize].borrow();
        level.chunk_dims() == dims_at(k) && level.chunk(p).is_some_and(|c| !c.is_empty())
    };
    let cam = camera_pos.map(f64::from);
    let fits = |c: &ViewChunk| {
        let (lo, hi) = c.block_box(world_dims);
        let d2: f64 = (0..3)
            .map(|a| {
                let v = cam[a].clamp(lo[a] as f64, hi[a] as f64) - cam[a];
                v * v
            })
            .sum();
        let cell_px = f64::from(1u32 << c.level) * f64::from(px_per_radian);
        cell_px <= f64::from(max_cell_px) * d2.sqrt()
    };
    let region = |level: u8, chunk: [u32; 3]| ViewChunk {
        level,
        chunk,
        closed: CLOSED,
    };
    let mut stack: Vec<ViewChunk> = match levels[top as usize].borrow() {
        w if w.chunk_dims() == dims_at(top) => {
            w.non_empty_chunks().map(|(p, _)| region(top, p)).collect()
        }
        _ => Vec::new(),
    };
    let mut chunks = Vec::new();
    while let Some(c) = stack.pop() {
        if c.level == 0 || fits(&c) {
            chunks.push(c);
            continue;
        }
        let (k, dims) = (c.level - 1, dims_at(c.level - 1));
        let children = vwr::lod::children_of(c.chunk, dims).into_iter().flatten();
        stack.extend(children.filter(|&p| occupied(k, p)).map(|p| region(k, p)));
    }
    chunks.sort_by_key(|c| (c.level, file_key(c.chunk)));
    close_level0_seams(&mut chunks, |p| occupied(0, p));
    ViewPlan { chunks }
}

/// Sets the closed sides of the level-0 regions: those whose neighbour is a non-empty chunk
/// (`occupied`) that is not a level-0 region, so a coarser region covers it. (Across an empty
/// neighbour the open side reads air, as a closed one would.)
fn close_level0_seams(chunks: &mut [ViewChunk], occupied: impl Fn([u32; 3]) -> bool) {
    // The level-0 regions come first, in file order: each neighbour is found by a binary
    // search among them (a table of the world's chunk positions would be sized by the world,
    // 4.3 G entries for the largest).
    let n0 = chunks.partition_point(|c| c.level == 0);
    let keys: Vec<[u32; 3]> = chunks[..n0].iter().map(|c| file_key(c.chunk)).collect();
    for c in &mut chunks[..n0] {
        for f in Face::ALL {
            let n = f.normal();
            let q = [0, 1, 2].map(|a| c.chunk[a].wrapping_add_signed(n[a]));
            c.closed[f.index()] = keys.binary_search(&file_key(q)).is_err() && occupied(q);
        }
    }
}

/// Meshes the regions of `plan` in parallel: `levels[k]` is level k of the world (`levels[0]`
/// the world itself). Level-0 regions with no closed side are meshed as
/// [`crate::mesh_world`] would (first, in file order), the others closed
/// ([`mesh_chunk_closed`]); empty meshes are left out. [`crate::MeshBuffers::from_world`]
/// turns the result into buffers in world units.
pub fn mesh_view(
    plan: &ViewPlan,
    levels: &[World],
    registry: &Registry,
    opts: MeshOptions,
) -> Result<WorldMesh, MeshError> {
    if let Some(c) = plan
        .chunks
        .iter()
        .find(|c| c.level as usize >= levels.len())
    {
        return Err(MeshError::Invalid(format!(
            "the view uses level {} but {} levels were given",
            c.level,
            levels.len()
        )));
    }
    let (open, closed): (Vec<&ViewChunk>, Vec<&ViewChunk>) = plan
        .chunks
        .iter()
        .partition(|c| c.level == 0 && c.closed == [false; 6]);
    let open: Vec<[u32; 3]> = open.iter().map(|c| c.chunk).collect();
    let mut chunks = match levels.first() {
        Some(w) if !open.is_empty() => mesh_chunks_par(w, registry, &open, opts, &mut []),
        _ => Vec::new(),
    };
    chunks.retain(|m| !m.is_empty());
    let worlds: Vec<(u8, &World)> = (0..).zip(levels).collect();
    let list: Vec<_> = closed
        .iter()
        .map(|c| (c.chunk, c.level, c.closed))
        .collect();
    chunks.extend(mesh_closed_par(&worlds, &list, registry, opts));
    Ok(WorldMesh { chunks })
}
