//! What exporting a mesh will take, known from the meshed quads and special cells before any
//! vertex buffer is built, so that a command can refuse an output that cannot fit (`.glb`'s
//! 4 GiB, a memory budget) before spending the time and memory to build it.

use crate::export::ExportFormat;
use crate::mesher::WorldMesh;
use crate::units::human_bytes;
use crate::MeshError;

/// Vertices a special cell makes at most (a grate: four double-sided walls of 8 vertices; a
/// box 24; a billboard 24).
const SPECIAL_VERTICES: u64 = 32;

/// Bytes a vertex costs in each output, indices included (6 indices of 4 bytes per 4
/// vertices): glTF and `.caf` 48 bytes of attributes (measured: a 10.6-million-vertex terrain
/// is a 570 MB `.glb`, 54.0 bytes a vertex); OBJ as text, about twice that.
fn file_bytes_per_vertex(format: ExportFormat) -> u64 {
    match format {
        ExportFormat::Glb | ExportFormat::Gltf | ExportFormat::Caf => 54,
        ExportFormat::Obj => 110,
    }
}

/// Bytes of memory an export takes per vertex at its peak: the vertex buffers (45), the
/// encoded buffer (54) and the output file's bytes (54). Measured: 131 per vertex for the
/// terrain above, world and quads included.
const MEMORY_BYTES_PER_VERTEX: u64 = 153;

/// The size of an export, estimated from the mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshEstimate {
    /// Vertices, at most (special cells counted at their largest shape).
    pub vertices: u64,
    /// Bytes of the output file(s), about.
    pub file_bytes: u64,
    /// Bytes of memory the export takes at its peak, about.
    pub memory_bytes: u64,
}

/// `.glb`'s limit: its chunk lengths are 32-bit.
pub const GLB_MAX_BYTES: u64 = u32::MAX as u64;

impl WorldMesh {
    /// The size of exporting this mesh as `format`.
    pub fn estimate(&self, format: ExportFormat) -> MeshEstimate {
        let vertices =
            4 * self.quad_count() as u64 + SPECIAL_VERTICES * self.special_count() as u64;
        MeshEstimate {
            vertices,
            file_bytes: vertices * file_bytes_per_vertex(format),
            memory_bytes: vertices * MEMORY_BYTES_PER_VERTEX,
        }
    }
}

impl MeshEstimate {
    /// Refuses, with the estimate, an export that cannot fit: a `.glb` past 4 GiB, or one
    /// whose memory would pass `max_memory` bytes.
    pub fn check(&self, format: ExportFormat, max_memory: Option<u64>) -> Result<(), MeshError> {
        if format == ExportFormat::Glb && self.file_bytes > GLB_MAX_BYTES {
            return Err(MeshError::too_large(
                "glb",
                format!(
                    "about {} for {} vertices, past .glb's 4 GiB",
                    human_bytes(self.file_bytes),
                    self.vertices
                ),
            ));
        }
        if let Some(limit) = max_memory.filter(|&l| self.memory_bytes > l) {
            return Err(MeshError::OverMemory {
                need: self.memory_bytes,
                limit,
                what: format!("{} vertices", self.vertices),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesher::{mesh_world, MeshOptions};

    /// A floor, and on it one cell of every block type (special shapes included).
    fn floor(n: u32) -> vwr::World {
        let mut w = vwr::World::with_chunk_dims([n, 2, n]).unwrap();
        let b = n as i32 * 10 - 1;
        w.fill_box([0, 0, 0], [b, 0, b], vwr::Block::make(35, 0).unwrap())
            .unwrap();
        for t in 1..400 {
            let at = [(t % 20) * 2, 2, (t / 20) * 2 + 1];
            if let Ok(block) = vwr::Block::make(t as u16, 0) {
                w.set_block(at, block).unwrap();
            }
        }
        w
    }

    #[test]
    fn the_estimate_bounds_the_vertices_written_and_the_file_size() {
        let reg = vwr_blocks::Registry::default();
        let w = floor(4);
        let mesh = mesh_world(&w, &reg, MeshOptions::default());
        let e = mesh.estimate(ExportFormat::Glb);
        let (bytes, stats) = crate::export::glb_bytes(&mesh, &reg, Default::default()).unwrap();
        assert!(mesh.special_count() > 10);
        assert!(
            e.vertices >= stats.vertices as u64,
            "{e:?} {}",
            stats.vertices
        );
        // Within a fifth of the real size, JSON header aside.
        let real = bytes.len() as u64;
        assert!(
            e.file_bytes * 5 >= real * 4 && e.file_bytes <= real * 6 / 5,
            "{e:?} vs {real}"
        );
        assert!(e.check(ExportFormat::Glb, None).is_ok());
        let err = e.check(ExportFormat::Glb, Some(1000)).unwrap_err();
        assert!(err.to_string().contains("vertices"), "{err}");
    }

    #[test]
    fn a_glb_past_four_gib_is_refused_before_it_is_built() {
        let e = MeshEstimate {
            vertices: 100_000_000,
            file_bytes: 5_400_000_000,
            memory_bytes: 15_300_000_000,
        };
        let err = e.check(ExportFormat::Glb, None).unwrap_err().to_string();
        assert!(err.contains("5.4 GB") && err.contains("4 GiB"), "{err}");
        assert!(e.check(ExportFormat::Gltf, None).is_ok());
    }
}
