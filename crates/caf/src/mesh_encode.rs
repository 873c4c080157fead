//! The one mesh payload encoder: the inverse of [`MeshView`](crate::MeshView).
//!
//! A Mesh payload (CAF.md section 4) is `vertex_count` 48-byte [`Vertex`] records followed by
//! `index_count` u32 indices, all little-endian. Every writer of mesh assets (the importer, the
//! voxel mesh export, the demo) goes through [`encode_mesh`], so the layout is written in one
//! place and never as a host-order cast of the in-memory structs.

use std::borrow::Borrow;

use crate::meta::{MeshMetadata, Vertex};

/// Why a mesh cannot be encoded as a `.caf` Mesh payload.
#[non_exhaustive]
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MeshEncodeError {
    /// More vertices than the u32 `vertex_count` field can hold.
    #[error(
        "mesh has {count} vertices, but a .caf mesh holds at most {} (vertex_count is a u32)",
        u32::MAX
    )]
    TooManyVertices {
        /// Vertices given.
        count: u64,
    },
    /// More indices than the u32 `index_count` field can hold.
    #[error(
        "mesh has {count} indices, but a .caf mesh holds at most {} (index_count is a u32)",
        u32::MAX
    )]
    TooManyIndices {
        /// Indices given.
        count: u64,
    },
    /// An index names a vertex that does not exist; readers reject such files, so the encoder
    /// refuses to write them.
    #[error("index {position} is {index}, but there are only {vertex_count} vertices")]
    IndexOutOfRange {
        /// Position of the index in the index list.
        position: usize,
        /// Its value.
        index: u32,
        /// Number of vertices.
        vertex_count: u32,
    },
}

/// Encode a mesh as `.caf` Mesh metadata and payload: the vertices (48 little-endian bytes
/// each, via [`Vertex::to_bytes`]), then the indices as little-endian u32s.
///
/// `vertices` may yield `Vertex` or `&Vertex`; the counts in the metadata are the numbers of
/// items actually written. `sub_mesh_count` is stored as given (the format keeps no sub-mesh
/// table). Every index must be below the vertex count, as [`MeshView`](crate::MeshView)
/// requires.
///
/// ```
/// use caf::{encode_mesh, Asset, AssetType, CafFlags, MeshView, Vertex};
///
/// let verts = [Vertex::default(); 3];
/// let (meta, payload) = encode_mesh(&verts, &[0, 1, 2], 1)?;
/// assert_eq!(payload.len(), 3 * 48 + 3 * 4);
/// let file = caf::AssetWriter::new(AssetType::MESH)
///     .metadata(&meta.to_bytes())
///     .payload(&payload)
///     .to_vec();
/// let view = MeshView::from_asset(&Asset::parse(&file)?)?;
/// assert_eq!(&view.indices[..], &[0, 1, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_mesh<I>(
    vertices: I,
    indices: &[u32],
    sub_mesh_count: u32,
) -> Result<(MeshMetadata, Vec<u8>), MeshEncodeError>
where
    I: IntoIterator,
    I::Item: Borrow<Vertex>,
{
    let index_count =
        u32::try_from(indices.len()).map_err(|_| MeshEncodeError::TooManyIndices {
            count: indices.len() as u64,
        })?;
    let vertices = vertices.into_iter();
    // The lower size hint is only a capacity guess; the real count is taken while writing.
    let guess = vertices.size_hint().0.min(u32::MAX as usize);
    let mut payload = Vec::with_capacity(
        guess
            .saturating_mul(Vertex::SIZE)
            .saturating_add(indices.len().saturating_mul(4)),
    );
    let mut count = 0u64;
    for v in vertices {
        payload.extend_from_slice(&v.borrow().to_bytes());
        count += 1;
    }
    let vertex_count =
        u32::try_from(count).map_err(|_| MeshEncodeError::TooManyVertices { count })?;
    if let Some(position) = indices.iter().position(|&i| i >= vertex_count) {
        return Err(MeshEncodeError::IndexOutOfRange {
            position,
            index: indices[position],
            vertex_count,
        });
    }
    payload.reserve_exact(indices.len().saturating_mul(4));
    for i in indices {
        payload.extend_from_slice(&i.to_le_bytes());
    }
    let meta = MeshMetadata {
        vertex_count,
        index_count,
        sub_mesh_count,
        reserved: 0,
    };
    Ok((meta, payload))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Asset, AssetType, MeshView};

    fn sample() -> (Vec<Vertex>, Vec<u32>) {
        let verts: Vec<Vertex> = (0..5)
            .map(|i| {
                let f = i as f32;
                Vertex {
                    position: [f, -f, 0.5 * f],
                    normal: [0.0, 1.0, 0.0],
                    uv: [f / 4.0, 1.0 - f / 4.0],
                    tangent: [1.0, 0.0, 0.0, if i % 2 == 0 { 1.0 } else { -1.0 }],
                }
            })
            .collect();
        (verts, vec![0, 1, 2, 2, 3, 4, 4, 3, 0])
    }

    #[test]
    fn round_trips_through_mesh_view() {
        let (verts, idx) = sample();
        let (meta, payload) = encode_mesh(&verts, &idx, 2).unwrap();
        assert_eq!(
            meta,
            MeshMetadata {
                vertex_count: 5,
                index_count: 9,
                sub_mesh_count: 2,
                reserved: 0
            }
        );
        let file = crate::AssetWriter::new(AssetType::MESH)
            .metadata(&meta.to_bytes())
            .payload(&payload)
            .to_vec();
        let asset = Asset::parse(&file).unwrap();
        let view = MeshView::from_asset(&asset).unwrap();
        assert_eq!(view.meta, meta);
        assert_eq!(view.vertices.as_ref(), &verts[..]);
        assert_eq!(view.indices.as_ref(), &idx[..]);
        // Owned vertices encode the same bytes as borrowed ones.
        assert_eq!(encode_mesh(verts.clone(), &idx, 2).unwrap().1, payload);
    }

    #[test]
    fn bytes_are_little_endian_on_every_host() {
        let v = Vertex {
            position: [1.0, 0.0, 0.0],
            ..Vertex::default()
        };
        let (_, payload) = encode_mesh([v], &[0], 1).unwrap();
        assert_eq!(&payload[..4], &1.0f32.to_le_bytes());
        assert_eq!(&payload[48..], &[0, 0, 0, 0]);
        let (_, payload) = encode_mesh([v, v], &[1], 1).unwrap();
        assert_eq!(&payload[96..], &[1, 0, 0, 0]);
    }

    #[test]
    fn empty_mesh_and_bad_index() {
        let (meta, payload) = encode_mesh(Vec::<Vertex>::new(), &[], 0).unwrap();
        assert_eq!(meta, MeshMetadata::default());
        assert!(payload.is_empty());
        let (verts, _) = sample();
        let err = encode_mesh(&verts, &[0, 1, 5], 1).unwrap_err();
        assert_eq!(
            err,
            MeshEncodeError::IndexOutOfRange {
                position: 2,
                index: 5,
                vertex_count: 5
            }
        );
        assert_eq!(
            err.to_string(),
            "index 2 is 5, but there are only 5 vertices"
        );
    }
}
