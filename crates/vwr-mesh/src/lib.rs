//! # vwr-mesh — meshes, exports and previews of `.vwr` voxel worlds
//!
//! Turns the palette-compressed chunks of a [`vwr::World`] into render meshes, exports them
//! (glTF / GLB, OBJ, `.caf` Mesh assets) and draws preview pictures with a small software
//! rasteriser — no GPU needed.
//!
//! ```
//! use vwr::{Block, World};
//! use vwr_blocks::Registry;
//! use vwr_mesh::{mesh_world, MeshBuffers, MeshOptions};
//!
//! let mut world = World::with_chunks_per_axis(2)?;
//! world.fill_box([0, 0, 0], [9, 9, 9], Block::make(261, 0)?)?; // one solid chunk of bricks
//! world.set_block([10, 0, 0], Block::make(92, 0)?)?; // water in the next chunk
//!
//! let registry = Registry::default(); // Galaxy Eggbert's block types
//! let exposed = mesh_world(&world, &registry, MeshOptions::EXPOSED);
//! let greedy = mesh_world(&world, &registry, MeshOptions::GREEDY_AO);
//! assert_eq!(exposed.chunks[0].opaque.len(), 600); // 6 × 10 × 10 unit faces …
//! assert_eq!(greedy.chunks[0].opaque.len(), 6); // … merge into 6 quads
//! assert_eq!(greedy.chunks[1].transparent.len(), 5); // water hides its face towards bricks
//!
//! let buffers = MeshBuffers::from_world(&greedy, &registry); // positions, normals, UVs, …
//! assert_eq!(buffers.opaque.triangle_count(), 12);
//! # Ok::<(), vwr::VwrError>(())
//! ```
//!
//! ## Pieces
//!
//! - The block registry lives in the `vwr-blocks` crate ([`vwr_blocks::Registry`]): per block
//!   type a [`vwr_blocks::RenderKind`] (opaque cube, transparent cube, special geometry,
//!   invisible), a preview colour and a name; TOML overrides. Every meshing, export and
//!   rendering call takes one, so callers can pass their own.
//! - [`mesh_chunk`] / [`mesh_world`] / [`Mesher`]: per-chunk meshing from a padded
//!   [`Neighborhood`] (the chunk plus one cell from each neighbour), so faces on chunk
//!   borders are emitted exactly when the cell across the border is not an occluder; cells
//!   outside the world are air. Exposed faces, or greedy rectangles of equal block and equal
//!   AO, with per-corner ambient occlusion. [`mesh_world`] meshes chunks in parallel, the
//!   calling thread and the other threads of rayon's pool sharing the work
//!   ([`mesh_world_serial`] on the calling thread alone; both give the same meshes in
//!   the same order) and classifies every chunk once for the whole world instead of decoding
//!   each chunk again for each of its 26 neighbours. [`mesh_world_into`] (and
//!   [`mesh_world_serial_into`]) re-mesh into the previous call's [`WorldMesh`], each chunk in
//!   its own buffers: an application that re-meshes every frame or every edit then allocates,
//!   copies and frees next to nothing.
//! - [`MeshCache`]: rebuilds only chunks whose padded neighbourhood an edit changed.
//! - [`MeshBuffers`]: vertex data (positions, normals, tiling UVs, colours, block ids, AO,
//!   indices), opaque and transparent passes separately.
//! - [`export`]: `.glb`, `.gltf` + `.bin`, `.obj`, `.caf`; [`render`]: PNG previews.
//!
//! ## Rules
//!
//! - An **opaque** cube shows a face when the neighbour across it is not opaque.
//! - A **transparent** cube shows a face when the neighbour is neither opaque nor the very
//!   same block (water next to water: no face; water next to glass: both faces).
//! - **Special** geometry (plates, pillars, bars, billboards, grates) hides nothing and is
//!   emitted per cell; a plate-rotation record turns plates 90° (X ↔ Z).
//! - **Invisible** types (air, and type 0 with any metadata) neither draw nor hide.
//! - Only opaque cubes cast ambient occlusion.
//!
//! ## Conventions
//!
//! - **Axes**: right-handed, **Y up** (as glTF): +X east, +Y up, +Z south (towards a default
//!   glTF viewer). One unit = one block; block `(x, y, z)` spans `[x, x+1] × [y, y+1] ×
//!   [z, z+1]` in world coordinates. Chunk `(cx, cy, cz)` starts at `10·(cx, cy, cz)`.
//! - **Face order** ([`Face::ALL`]): +X, −X, +Y, −Y, +Z, −Z (index 0..6).
//! - **Quad axes**: a [`Quad`] spans `size[0]` cells along U and `size[1]` along V, with
//!   (U, V) = (Y, Z) on X faces, (X, Z) on Y faces, (X, Y) on Z faces. Corners 0..4 are
//!   (0,0), (1,0), (1,1), (0,1) in (U, V); [`Quad::ao`] follows that order.
//! - **Winding**: triangles are counter-clockwise seen from outside (front faces, glTF's
//!   default). A quad is split along the 0–2 diagonal, or along 1–3 when
//!   `ao[0] + ao[2] > ao[1] + ao[3]`, so that the darker pair of corners shares the diagonal
//!   (the classic fix for AO interpolation anisotropy).
//! - **AO**: per corner `0..=3` (3 = open) from the two side cells and the corner cell in
//!   the layer in front of the face: `0` if both sides are solid, else `3 − (side1 + side2
//!   + corner)`. Greedy merging only joins faces with identical AO, so AO stays exact.
//! - **UVs**: in block units, tiling across merged quads (one texture repeat per block): top
//!   faces (x, z), bottom (x, −z), side faces (horizontal, −y) so that V grows downwards.
//!
//! ## Watertight buffers
//!
//! Greedy quads of different sizes meet in T-junctions (a corner of one quad in the middle of
//! another's edge); a GPU rounds the long edge and the two short ones differently, and single
//! pixels of the sky show through floors (in the browser editor, on five views each: 165 on
//! world999, 291 on the 100³ hilly terrain, 1905 on a 300×60×300 terraced one). With
//! [`MeshOptions::watertight`] ([`MeshOptions::GREEDY_AO_WATERTIGHT`], what the editor uses)
//! the quads stay the same, but [`MeshBuffers`] draws each quad as the polygon of its corners
//! and of every point on its edges where a corner of another quad of the chunk lies, and
//! splits edges lying on the chunk's border planes at every block (where any corner of the
//! neighbouring chunk's quads can lie: the buffers of a chunk depend on its own quads alone,
//! so [`MeshCache`] needs nothing more). The polygon is cut into triangles as a strip between
//! the two corners off the diagonal the plain quad uses (no degenerate triangles); points on
//! an edge take the AO of its corners, which greedy merging makes equal on edges longer than
//! a block. The opaque pass then is a closed surface (every edge shared by a pair of opposite
//! triangles; `tests/watertight.rs`), and the editor shows no cracks (`vwr-serve`'s browser
//! test `floors_show_no_cracks_between_quads`). Cost against plain greedy + AO buffers
//! (`cargo bench -p voxcaf-bench --bench watertight`): 1.11x the triangles on the 32³ sphere,
//! 1.21x on the hilly terrain, 1.58x on the 1000×100×1000 terrain, 1.80x on world999 (most
//! of it from the chunk-border splits), and 1.2–3x the time to build the buffers (the quads
//! cost the same).
//!
//! ## Levels of detail
//!
//! A level of detail k of a world (`vwr::lod`: a cell per 2 × 2 × 2 cells of level k − 1,
//! air only when all 8 are air) is itself a [`vwr::World`], meshed like any other in its
//! own cells; [`ChunkMesh::level`] records k and [`MeshBuffers`] scales positions (and the
//! tiling UVs) by 2^k where it makes the vertices, so exports and previews need nothing else.
//! [`lod`] meshes a level's chunks **closed** (cells across the chunk's border planes count
//! as air): each chunk's opaque pass is then a closed surface by itself, and greedy merging
//! makes the extra border faces a few large quads. [`lod::plan_view`] picks, per region of
//! the world, the coarsest level whose cell projects to at most about one pixel from the
//! camera (`max_cell_px` in [`lod::plan_view_px`]), level 0 near the camera, the regions
//! covering the world's non-empty chunks (empty space costs nothing); [`lod::mesh_view`]
//! meshes them in parallel, closing level-0 chunks on the sides that face a coarser region. **No crack at a seam between levels**: both sides
//! of a seam are closed, so a pixel that slips between the two meshes' unmatched edges meets
//! the border face of the side across, a front face, not what lies behind; and since a
//! coarse level's solid contains the fine one's, closing hides nothing the fine level shows
//! (the argument in [`lod`]; the watertight opaque pass of a view mixing levels has every
//! edge matched: `tests/lod.rs`). Watertight buffers do not split edges on closed planes (no
//! neighbour's surface continues there). [`lod::mesh_level`] meshes a whole level, e.g. for
//! export.
//!
//! `cargo bench -p voxcaf-bench --bench distant`: the 1000×100×1000 terrain seen from
//! 300 blocks off a corner, in a 1920-pixel view of 90°. Its farthest block spans 0.7 pixel,
//! a level-1 cell there 1.4, so with cells of at most one pixel the view is all level 0
//! (2.56 M watertight triangles, 1.62 M plain); with 2 pixels 2.14 M (0.84x), with 4
//! pixels 0.84 M (0.33x, 9,936 level-0, 8,606 level-1 and 396 level-2 regions). Planning
//! and meshing the 4-pixel view took 36–51 ms over four runs on the 2-core VM (busy with
//! other work: load about 3), meshing all of level 0 44–133 ms in the same runs; building
//! levels 1..=8 in memory 67–104 ms.
//!
//! ## Speed
//!
//! Visibility is computed with whole-row bit operations (one `u16` per 12-cell padded row);
//! greedy merging works on 10-bit row masks. Whole-world meshing reads each chunk's packed
//! words once (into opaque rows) and block values only for faces that show. `cargo bench -p
//! voxcaf-bench --bench mesh` compares it, end to end from a `World`, with `block-mesh` and
//! `binary-greedy-meshing` (their gathering excluded) and prints the ratios, with the machine
//! and its load. Issue 40's goals, greedy ≥ 2× and greedy + AO ≥ 1.5× `fast_mesh` (no AO) from
//! a `World`, are not met: on a 2-core AMD EPYC VM (load 2.6–3.5), 1.19× / 0.91× on world999,
//! 1.24× / 1.04× on the hilly terrain, 1.17× / 0.88× on the sphere (paired rounds; runs differ
//! by about 0.05). The greedy pass visits only the rows of a slice that hold a face, and the
//! X-face scatter only the rows that hold an opaque cell (each set found with one test of all
//! ten rows). Two bit-parallel variants measured slower on these worlds, where about 2 % of a
//! chunk's 6000 face slots show (hilly terrain: 121 faces, 55 quads a chunk): Y and Z slices
//! merged column-first on their untransposed rows with whole-row key compares (hilly greedy
//! 1.12× → 1.00×), and merging with fixed ten-row loops instead of loops that stop (1.18× →
//! 0.87× on world999); copying each new list out of a reused one changed nothing.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod buffers;
pub mod cache;
mod error;
pub mod estimate;
pub mod export;
mod font;
pub mod lod;
pub mod mesher;
pub mod render;
mod units;

pub use buffers::{MeshBuffers, MeshPart};
pub use cache::MeshCache;
pub use error::MeshError;
pub use estimate::MeshEstimate;
pub use export::{write_mesh, ExportFormat, ExportOptions, ExportStats};
pub use mesher::{
    gather_world, mesh_chunk, mesh_chunk_with, mesh_world, mesh_world_into, mesh_world_serial,
    mesh_world_serial_into, ChunkMesh, Face, MeshOptions, Mesher, Neighborhood, Quad, SpecialCell,
    WorldMesh,
};
pub use render::{render_chunks, render_layer, render_world, RenderOptions, Rendered, View};
pub use units::human_bytes;
