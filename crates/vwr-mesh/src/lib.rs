//! # vwr-mesh — meshes, exports and previews of `.vwr` voxel worlds
//!
//! Work in progress.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
pub mod mesher;
pub mod buffers;
pub mod cache;
pub mod registry;

pub use error::MeshError;
pub use mesher::{
    mesh_chunk, mesh_chunk_with, mesh_world, ChunkMesh, Face, MeshOptions, Mesher, Neighborhood,
    Quad, SpecialCell, WorldMesh,
};
pub use registry::{hashed_color, BlockInfo, Registry, RenderKind, Shape};
