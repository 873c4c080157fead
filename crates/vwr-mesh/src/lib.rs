//! # vwr-mesh — meshes, exports and previews of `.vwr` voxel worlds
//!
//! Work in progress.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
pub mod mesher;
pub mod buffers;
pub mod cache;
pub mod export;
mod font;
pub mod registry;
pub mod render;

pub use error::MeshError;
pub use mesher::{
    mesh_chunk, mesh_chunk_with, mesh_world, ChunkMesh, Face, MeshOptions, Mesher, Neighborhood,
    Quad, SpecialCell, WorldMesh,
};
pub use registry::{hashed_color, BlockInfo, Registry, RenderKind, Shape};
pub use buffers::{MeshBuffers, MeshPart};
pub use cache::MeshCache;
pub use export::{write_mesh, ExportFormat, ExportOptions, ExportStats};
pub use render::{render_chunks, render_layer, render_world, RenderOptions, Rendered, View};
