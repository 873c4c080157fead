//! Meshing one chunk into buffers the caller reads.

use vwr_mesh::{mesh_chunk, MeshBuffers, MeshOptions, MeshPart};

use crate::error::*;
use crate::ptr;
use crate::world::VoxcafWorld;

/// A chunk mesh: an opaque and a transparent part. Opaque; created by `voxcaf_mesh_chunk`,
/// freed by `voxcaf_mesh_free`.
pub struct VoxcafMesh(MeshBuffers);

/// Merge coplanar faces of the same block into rectangles.
pub const VOXCAF_MESH_GREEDY: u32 = 1;
/// Compute per-corner ambient occlusion (the parts' `ao` array).
pub const VOXCAF_MESH_AO: u32 = 2;

/// The opaque part (solid cubes).
pub const VOXCAF_MESH_PART_OPAQUE: u32 = 0;
/// The transparent part (water, glass, see-through specials), drawn blended after the opaque.
pub const VOXCAF_MESH_PART_TRANSPARENT: u32 = 1;

/// One part of a chunk mesh: parallel per-vertex arrays and a triangle index list. Positions
/// are in world block units.
#[repr(C)]
pub struct VoxcafMeshPart {
    /// `vertex_count` × 3 floats.
    pub positions: *const f32,
    /// `vertex_count` × 3 floats.
    pub normals: *const f32,
    /// `vertex_count` × 2 floats, in block units (one texture repeat per block).
    pub uvs: *const f32,
    /// `vertex_count` × 4 bytes, sRGB RGBA from the block registry (as linear floats, with the
    /// AO shade baked in: `voxcaf_mesh_linear_colors`).
    pub colors: *const u8,
    /// `vertex_count` raw block values.
    pub blocks: *const u16,
    /// `vertex_count` ambient-occlusion levels, 0 (darkest) ..= 3 (open).
    pub ao: *const u8,
    /// Vertices.
    pub vertex_count: usize,
    /// `index_count` indices, three per triangle.
    pub indices: *const u32,
    /// Indices.
    pub index_count: usize,
}

/// Meshes chunk `(cx, cy, cz)` of a world (`flags`: `VOXCAF_MESH_GREEDY | VOXCAF_MESH_AO`),
/// with the default block registry; faces hidden by the neighbouring chunks are culled.
///
/// Ownership: borrows `world`; on success `*out` receives a new mesh owned by the caller
/// (free it with `voxcaf_mesh_free`).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_mesh_chunk(
    world: *const VoxcafWorld,
    cx: u32,
    cy: u32,
    cz: u32,
    flags: u32,
    out: *mut *mut VoxcafMesh,
) -> i32 {
    guard(|| {
        ptr::check_out(out, "out")?;
        let w = &ptr::handle(world, "world")?.0;
        if !w.contains_chunk([cx, cy, cz]) {
            return Err(Fail::new(
                VOXCAF_ERR_OUT_OF_BOUNDS,
                format!(
                    "chunk ({cx}, {cy}, {cz}) is outside the world of {:?} chunks",
                    w.chunk_dims()
                ),
            ));
        }
        if flags & !(VOXCAF_MESH_GREEDY | VOXCAF_MESH_AO) != 0 {
            return Err(Fail::new(
                VOXCAF_ERR_INVALID_ARGUMENT,
                format!("unknown mesh flags {flags:#x}"),
            ));
        }
        let registry = vwr_blocks::default_registry();
        let opts = MeshOptions {
            greedy: flags & VOXCAF_MESH_GREEDY != 0,
            ao: flags & VOXCAF_MESH_AO != 0,
            watertight: false,
        };
        let chunk = mesh_chunk(w, registry, [cx, cy, cz], opts);
        let buffers = MeshBuffers::from_chunk(&chunk, registry);
        ptr::out(out, ptr::give(VoxcafMesh(buffers)), "out")
    })
}

fn part_view(p: &MeshPart) -> VoxcafMeshPart {
    VoxcafMeshPart {
        positions: p.positions.as_ptr().cast(),
        normals: p.normals.as_ptr().cast(),
        uvs: p.uvs.as_ptr().cast(),
        colors: p.colors.as_ptr().cast(),
        blocks: p.blocks.as_ptr(),
        ao: p.ao.as_ptr(),
        vertex_count: p.vertex_count(),
        indices: p.indices.as_ptr(),
        index_count: p.indices.len(),
    }
}

/// The part `which` of a mesh (`VOXCAF_MESH_PART_OPAQUE` or `_TRANSPARENT`).
fn part(m: &MeshBuffers, which: u32) -> Result<&MeshPart, Fail> {
    match which {
        VOXCAF_MESH_PART_OPAQUE => Ok(&m.opaque),
        VOXCAF_MESH_PART_TRANSPARENT => Ok(&m.transparent),
        other => Err(Fail::new(
            VOXCAF_ERR_INVALID_ARGUMENT,
            format!("unknown mesh part {other}"),
        )),
    }
}

/// One part of a mesh (`VOXCAF_MESH_PART_OPAQUE` or `_TRANSPARENT`).
///
/// Ownership: the arrays are borrowed from `mesh`: valid until `voxcaf_mesh_free(mesh)`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_mesh_part(
    mesh: *const VoxcafMesh,
    which: u32,
    out: *mut VoxcafMeshPart,
) -> i32 {
    guard(|| {
        let m = &ptr::handle(mesh, "mesh")?.0;
        ptr::out(out, part_view(part(m, which)?), "out")
    })
}

/// The vertex colours of a mesh part as linear RGBA floats, 4 per vertex in vertex order: the
/// part's sRGB `colors` decoded to linear (alpha divided by 255), and with `bake_ao` the RGB
/// multiplied by each vertex's ambient-occlusion shade (from the part's `ao` levels; all 3,
/// no shade, unless the mesh was made with `VOXCAF_MESH_AO`). What a vertex colour attribute
/// of a game engine takes, and what the Bevy plugin and the glTF export use
/// (`vwr_mesh::MeshPart::linear_colors`). `capacity` is the size of `out` in floats and must
/// be at least `4 * vertex_count` (the part's `vertex_count`), else
/// `VOXCAF_ERR_INVALID_ARGUMENT` and nothing is written; `*written` receives the number of
/// floats written (`out` may be NULL when the part has no vertices).
///
/// Ownership: borrows `mesh`; writes the caller's `out` and `written`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_mesh_linear_colors(
    mesh: *const VoxcafMesh,
    which: u32,
    bake_ao: bool,
    out: *mut f32,
    capacity: usize,
    written: *mut usize,
) -> i32 {
    guard(|| {
        ptr::check_out(written, "written")?;
        let p = part(&ptr::handle(mesh, "mesh")?.0, which)?;
        let need = 4 * p.vertex_count();
        if capacity < need {
            return Err(Fail::new(
                VOXCAF_ERR_INVALID_ARGUMENT,
                format!(
                    "out holds {capacity} floats but the part's {} vertices need {need} \
                     (4 per vertex)",
                    p.vertex_count()
                ),
            ));
        }
        let dst = ptr::slice_mut(out, need, "out")?;
        dst.copy_from_slice(p.linear_colors(bake_ao).as_flattened());
        ptr::out(written, need, "written")
    })
}

/// Frees a mesh. Accepts NULL.
/// Leaves `voxcaf_last_error()` as it was.
///
/// Ownership: takes back `mesh`; its arrays must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_mesh_free(mesh: *mut VoxcafMesh) {
    ptr::free(mesh);
}
