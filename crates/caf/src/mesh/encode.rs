//! The one mesh payload encoder: the inverse of [`MeshView`](crate::mesh::MeshView).
//!
//! A Mesh payload (CAF.md section 4) is `vertex_count` 48-byte [`Vertex`] records followed by
//! `index_count` u32 indices, all little-endian. Every writer of mesh assets (the importer, the
//! voxel mesh export, the demo) goes through [`encode_mesh`], so the layout is written in one
//! place and never as a host-order cast of the in-memory structs.

use std::borrow::Borrow;

use crate::mesh::{weights_fault, Skin};
use crate::mesh::{MeshExtHeader, MeshMetadata, SubMeshEntry, Vertex};

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
    /// A per-vertex stream (colours, second UV set) does not have one entry per vertex.
    #[error("the {stream} stream has {len} entries, but there are {vertex_count} vertices")]
    StreamLength {
        /// "COLOR_0" or "TEXCOORD_1".
        stream: &'static str,
        /// Entries given.
        len: usize,
        /// Number of vertices.
        vertex_count: u32,
    },
    /// A sub-mesh's index range is not within the index list or not whole triangles.
    #[error("sub-mesh {sub_mesh} covers indices {first}..{end}, but there are {index_count} indices (ranges must be whole triangles)")]
    SubMeshRange {
        /// Which sub-mesh.
        sub_mesh: usize,
        /// Its first index.
        first: u64,
        /// One past its last index.
        end: u64,
        /// Number of indices.
        index_count: u32,
    },
    /// The skeleton is refused by [`Skin::check`].
    #[error("skin: {what}")]
    BadSkin {
        /// What the check said.
        what: String,
    },
    /// A JOINTS_0 index names no joint of the skin.
    #[error("vertex {vertex}: joint index {joint}, but the skin has {joint_count} joints")]
    JointOutOfRange {
        /// Which vertex.
        vertex: usize,
        /// The index.
        joint: u16,
        /// Joints in the skin.
        joint_count: usize,
    },
    /// A vertex's WEIGHTS_0 are not valid (docs/format/caf-assets-ext.md section 2).
    #[error("vertex {vertex}: {reason}")]
    BadWeights {
        /// Which vertex.
        vertex: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// More sub-meshes than the u32 count holds.
    #[error("{count} sub-meshes do not fit the u32 sub_mesh_count")]
    TooManySubMeshes {
        /// Sub-meshes given.
        count: u64,
    },
}

/// Smallest and largest of `positions` per axis; zeros when there are none.
pub(crate) fn bounds(positions: impl Iterator<Item = [f32; 3]>) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in positions {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    if lo[0] > hi[0] {
        ([0.0; 3], [0.0; 3])
    } else {
        (lo, hi)
    }
}

/// Encode a mesh as `.caf` Mesh metadata and payload: the vertices (48 little-endian bytes
/// each, via [`Vertex::to_bytes`]), then the indices as little-endian u32s.
///
/// `vertices` may yield `Vertex` or `&Vertex`; the counts in the metadata are the numbers of
/// items actually written. `sub_mesh_count` is stored as given (the format keeps no sub-mesh
/// table). Every index must be below the vertex count, as [`MeshView`](crate::mesh::MeshView)
/// requires.
///
/// ```
/// use caf::mesh::{encode_mesh, MeshView, Vertex};
/// use caf::{Asset, AssetType, CafFlags};
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

/// What an extended mesh stores besides vertices and indices
/// (docs/format/caf-assets-ext.md section 1).
#[derive(Clone, Copy, Debug, Default)]
pub struct MeshExtras<'a> {
    /// Sub-meshes: first index, index count, material, node. The bounds are computed by
    /// [`encode_mesh_ext`] from the vertices each range names.
    pub sub_meshes: &'a [SubMeshEntry],
    /// COLOR_0, one per vertex.
    pub colors: Option<&'a [[f32; 4]]>,
    /// TEXCOORD_1, one per vertex.
    pub uv1: Option<&'a [[f32; 2]]>,
    /// A skin: the skeleton and JOINTS_0 / WEIGHTS_0 per vertex (section 2).
    pub skin: Option<SkinStreams<'a>>,
}

/// The skin of an extended mesh as given to [`encode_mesh_ext`].
#[derive(Clone, Copy, Debug)]
pub struct SkinStreams<'a> {
    /// The skeleton.
    pub skin: &'a Skin,
    /// JOINTS_0, one per vertex, each index below the joint count.
    pub joints: &'a [[u16; 4]],
    /// WEIGHTS_0, one per vertex, each in [0, 1], summing to 1.
    pub weights: &'a [[f32; 4]],
}

/// Encode an extended mesh: metadata = [`MeshMetadata`] | [`MeshExtHeader`] | one
/// [`SubMeshEntry`] per sub-mesh (bounds filled in), payload = vertices | indices | colours |
/// second UV set. Returns the metadata bytes and the payload.
///
/// ```
/// use caf::mesh::{encode_mesh_ext, MeshExtras, MeshView, SubMeshEntry, Vertex};
/// use caf::{Asset, AssetType};
///
/// let verts = [Vertex::default(); 3];
/// let subs = [SubMeshEntry { first_index: 0, index_count: 3, material: 2, ..Default::default() }];
/// let colors = [[1.0, 0.0, 0.0, 1.0]; 3];
/// let extras = MeshExtras { sub_meshes: &subs, colors: Some(&colors), uv1: None, skin: None };
/// let (meta, payload) = encode_mesh_ext(&verts, &[0, 1, 2], &extras)?;
/// let file = caf::AssetWriter::new(AssetType::MESH).metadata(&meta).payload(&payload).to_vec();
/// let view = MeshView::from_asset(&Asset::parse(&file)?)?;
/// assert_eq!(view.sub_meshes()[0].material, 2);
/// assert_eq!(view.colors.as_deref(), Some(&colors[..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_mesh_ext(
    vertices: &[Vertex],
    indices: &[u32],
    extras: &MeshExtras<'_>,
) -> Result<(Vec<u8>, Vec<u8>), MeshEncodeError> {
    let count = extras.sub_meshes.len();
    let sub_mesh_count = u32::try_from(count).map_err(|_| MeshEncodeError::TooManySubMeshes {
        count: count as u64,
    })?;
    let (meta, mut payload) = encode_mesh(vertices, indices, sub_mesh_count)?;
    let mut streams = 0;
    if let Some(c) = extras.colors {
        check_stream("COLOR_0", c.len(), meta.vertex_count)?;
        streams |= MeshExtHeader::COLOR0;
    }
    if let Some(u) = extras.uv1 {
        check_stream("TEXCOORD_1", u.len(), meta.vertex_count)?;
        streams |= MeshExtHeader::UV1;
    }
    if let Some(sk) = &extras.skin {
        check_stream("JOINTS_0", sk.joints.len(), meta.vertex_count)?;
        check_stream("WEIGHTS_0", sk.weights.len(), meta.vertex_count)?;
        sk.skin.check().map_err(|e| MeshEncodeError::BadSkin {
            what: e.to_string(),
        })?;
        let joint_count = sk.skin.joints.len();
        for (vertex, (j, w)) in sk.joints.iter().zip(sk.weights).enumerate() {
            if let Some(&joint) = j.iter().find(|&&j| usize::from(j) >= joint_count) {
                return Err(MeshEncodeError::JointOutOfRange {
                    vertex,
                    joint,
                    joint_count,
                });
            }
            if let Some(reason) = weights_fault(w) {
                return Err(MeshEncodeError::BadWeights { vertex, reason });
            }
        }
        streams |= MeshExtHeader::SKIN;
    }
    let mut metadata = Vec::with_capacity(
        MeshMetadata::SIZE
            + MeshExtHeader::SIZE
            + count.saturating_mul(SubMeshEntry::SIZE)
            + extras.skin.map_or(0, |s| s.skin.encoded_len()),
    );
    metadata.extend_from_slice(&meta.to_bytes());
    metadata.extend_from_slice(&MeshExtHeader::new(streams).to_bytes());
    for (i, s) in extras.sub_meshes.iter().enumerate() {
        let first = u64::from(s.first_index);
        let end = first + u64::from(s.index_count);
        if end > indices.len() as u64 || s.index_count % 3 != 0 {
            return Err(MeshEncodeError::SubMeshRange {
                sub_mesh: i,
                first,
                end,
                index_count: meta.index_count,
            });
        }
        let (bounds_min, bounds_max) = bounds(
            indices[first as usize..end as usize]
                .iter()
                .map(|&i| vertices[i as usize].position),
        );
        let entry = SubMeshEntry {
            bounds_min,
            bounds_max,
            ..*s
        };
        metadata.extend_from_slice(&entry.to_bytes());
    }
    if let Some(sk) = &extras.skin {
        sk.skin.encode(&mut metadata);
    }
    if let Some(c) = extras.colors {
        payload.reserve_exact(c.len() * 16);
        payload.extend(c.iter().flatten().flat_map(|v| v.to_le_bytes()));
    }
    if let Some(u) = extras.uv1 {
        payload.reserve_exact(u.len() * 8);
        payload.extend(u.iter().flatten().flat_map(|v| v.to_le_bytes()));
    }
    if let Some(sk) = &extras.skin {
        payload.reserve_exact(sk.joints.len() * 24);
        payload.extend(sk.joints.iter().flatten().flat_map(|v| v.to_le_bytes()));
        payload.extend(sk.weights.iter().flatten().flat_map(|v| v.to_le_bytes()));
    }
    Ok((metadata, payload))
}

fn check_stream(
    stream: &'static str,
    len: usize,
    vertex_count: u32,
) -> Result<(), MeshEncodeError> {
    if len as u64 != u64::from(vertex_count) {
        return Err(MeshEncodeError::StreamLength {
            stream,
            len,
            vertex_count,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::MeshView;
    use crate::{Asset, AssetType};

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
        let file = mesh_file(&meta.to_bytes(), &payload);
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

    #[test]
    fn extended_mesh_round_trips_and_is_checked() {
        let (verts, idx) = sample();
        let subs = [
            SubMeshEntry {
                first_index: 0,
                index_count: 6,
                material: 1,
                node: SubMeshEntry::NONE,
                ..Default::default()
            },
            SubMeshEntry {
                first_index: 6,
                index_count: 3,
                material: SubMeshEntry::NONE,
                node: 4,
                ..Default::default()
            },
        ];
        let colors: Vec<[f32; 4]> = (0..5).map(|i| [i as f32 / 4.0, 0.5, 0.25, 1.0]).collect();
        let uv1: Vec<[f32; 2]> = (0..5).map(|i| [i as f32, -(i as f32)]).collect();
        let extras = MeshExtras {
            sub_meshes: &subs,
            colors: Some(&colors),
            uv1: Some(&uv1),
            skin: None,
        };
        let (meta, payload) = encode_mesh_ext(&verts, &idx, &extras).unwrap();
        assert_eq!(meta.len(), 16 + 32 + 2 * 40);
        assert_eq!(payload.len(), 5 * 48 + 9 * 4 + 5 * 16 + 5 * 8);
        let file = mesh_file(&meta, &payload);
        let asset = Asset::parse(&file).unwrap();
        let view = MeshView::from_asset(&asset).unwrap();
        assert_eq!(view.vertices.as_ref(), &verts[..]);
        assert_eq!(view.indices.as_ref(), &idx[..]);
        assert_eq!(view.colors.as_deref(), Some(&colors[..]));
        assert_eq!(view.uv1.as_deref(), Some(&uv1[..]));
        let table = view.sub_meshes();
        assert_eq!(table.len(), 2);
        assert_eq!(table[0].material, 1);
        assert_eq!(table[1].node, 4);
        // Sub-mesh 0 names vertices 0..=4: x from 0 to 4, y from -4 to 0, z from 0 to 2.
        assert_eq!(table[0].bounds_min, [0.0, -4.0, 0.0]);
        assert_eq!(table[0].bounds_max, [4.0, 0.0, 2.0]);
        // Sub-mesh 1 names 4, 3, 0.
        assert_eq!(table[1].bounds_min, [0.0, -4.0, 0.0]);
        assert_eq!(table[1].bounds_max, [4.0, 0.0, 2.0]);

        // An original (16-byte) reader sees a metadata size error, not a misread mesh.
        assert!(matches!(
            MeshMetadata::from_bytes(asset.metadata),
            Err(crate::CafError::MetadataSize { expected: 16, .. })
        ));

        // Damage: unknown stream bit, wrong version, range past the end, missing entry.
        let mut bad = meta.clone();
        bad[16 + 8] |= 8;
        assert!(matches!(
            parse_mesh(&bad, &payload),
            Err(crate::CafError::BadMetadata {
                field: "ext.streams",
                ..
            })
        ));
        let mut bad = meta.clone();
        bad[16 + 4] = 2;
        assert!(matches!(
            parse_mesh(&bad, &payload),
            Err(crate::CafError::BadMetadata {
                field: "ext.version",
                ..
            })
        ));
        let mut bad = meta.clone();
        bad[48 + 40 + 4] = 9; // sub-mesh 1: 9 indices from 6
        assert!(matches!(
            parse_mesh(&bad, &payload),
            Err(crate::CafError::BadMetadata {
                field: "sub_mesh.index_count",
                ..
            })
        ));
        assert!(matches!(
            parse_mesh(&meta[..meta.len() - 40], &payload),
            Err(crate::CafError::MetadataSize { .. })
        ));
        assert!(matches!(
            parse_mesh(&meta, &payload[..payload.len() - 8]),
            Err(crate::CafError::PayloadSize { .. })
        ));

        // Encoder refusals.
        let short = MeshExtras {
            colors: Some(&colors[..4]),
            ..extras
        };
        assert!(matches!(
            encode_mesh_ext(&verts, &idx, &short),
            Err(MeshEncodeError::StreamLength {
                stream: "COLOR_0",
                ..
            })
        ));
        let over = [SubMeshEntry {
            first_index: 6,
            index_count: 6,
            ..Default::default()
        }];
        let e = encode_mesh_ext(
            &verts,
            &idx,
            &MeshExtras {
                sub_meshes: &over,
                ..Default::default()
            },
        );
        assert!(matches!(e, Err(MeshEncodeError::SubMeshRange { .. })));
    }

    fn two_joint_skin() -> Skin {
        let joint = |parent, name: &str, y: f32| crate::mesh::Joint {
            parent,
            node: if name == "hip" { 0 } else { 1 },
            name: name.into(),
            translation: [0.0, y, 0.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            inverse_bind: crate::mesh::IDENTITY,
        };
        Skin {
            root_matrix: crate::mesh::IDENTITY,
            joints: vec![
                joint(crate::mesh::JointEntry::ROOT, "hip", 0.0),
                joint(0, "knee", 1.0),
            ],
        }
    }

    /// Metadata, payload, JOINTS_0 and WEIGHTS_0 of a skinned test mesh.
    type SkinnedFile = (Vec<u8>, Vec<u8>, Vec<[u16; 4]>, Vec<[f32; 4]>);

    fn skinned_file() -> SkinnedFile {
        let (verts, idx) = sample();
        let skin = two_joint_skin();
        let joints: Vec<[u16; 4]> = (0..5).map(|i| [0, (i % 2) as u16, 0, 0]).collect();
        let weights: Vec<[f32; 4]> = (0..5)
            .map(|i| {
                if i % 2 == 1 {
                    [0.25, 0.75, 0.0, 0.0]
                } else {
                    [1.0, 0.0, 0.0, 0.0]
                }
            })
            .collect();
        let extras = MeshExtras {
            sub_meshes: &[SubMeshEntry {
                first_index: 0,
                index_count: 9,
                material: SubMeshEntry::NONE,
                node: SubMeshEntry::NONE,
                ..Default::default()
            }],
            skin: Some(SkinStreams {
                skin: &skin,
                joints: &joints,
                weights: &weights,
            }),
            ..Default::default()
        };
        let (meta, payload) = encode_mesh_ext(&verts, &idx, &extras).unwrap();
        (meta, payload, joints, weights)
    }

    /// The mesh file of `meta` and `payload`.
    fn mesh_file(meta: &[u8], payload: &[u8]) -> Vec<u8> {
        crate::AssetWriter::new(AssetType::MESH)
            .metadata(meta)
            .payload(payload)
            .to_vec()
    }

    /// What the mesh view says of the file of `meta` and `payload`.
    fn parse_mesh(meta: &[u8], payload: &[u8]) -> Result<(), crate::CafError> {
        MeshView::from_asset(&Asset::parse(&mesh_file(meta, payload))?).map(|_| ())
    }

    #[test]
    fn skinned_mesh_round_trips() {
        let (meta, payload, joints, weights) = skinned_file();
        // 48 + one sub-mesh + skin header + 2 joints + "hip" "knee".
        assert_eq!(meta.len(), 48 + 40 + 80 + 2 * 120 + 7);
        assert_eq!(payload.len(), 5 * 48 + 9 * 4 + 5 * 8 + 5 * 16);
        let f = mesh_file(&meta, &payload);
        let a = Asset::parse(&f).unwrap();
        let v = MeshView::from_asset(&a).unwrap();
        assert_eq!(v.skin(), Some(&two_joint_skin()));
        assert_eq!(v.joints.as_deref(), Some(&joints[..]));
        assert_eq!(v.weights.as_deref(), Some(&weights[..]));
        assert!(v.ext.as_ref().unwrap().has_skin());
    }

    #[test]
    fn skin_damage_is_refused() {
        let (meta, payload, _, _) = skinned_file();
        let skin_at = 48 + 40;
        let joint0 = skin_at + 80;
        // Joint index 2 of a 2-joint skin (vertex 1's second joint).
        let jstart = 5 * 48 + 9 * 4;
        let mut p = payload.clone();
        p[jstart + 8 + 2] = 2;
        assert!(matches!(
            parse_mesh(&meta, &p),
            Err(crate::CafError::Malformed { .. })
        ));
        // `bytes` with the little-endian `v` written at `at`.
        let with_u32 = |bytes: &[u8], at: usize, v: u32| {
            let mut b = bytes.to_vec();
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
            b
        };
        // The field the metadata `m` is refused for (with the good payload).
        let refused_field = |m: &[u8]| match parse_mesh(m, &payload) {
            Err(crate::CafError::BadMetadata { field, .. }) => field,
            _ => "not a BadMetadata refusal",
        };
        // Weights that do not sum to 1 (vertex 0's first weight halved).
        let w0 = jstart + 5 * 8;
        assert!(matches!(
            parse_mesh(&meta, &with_u32(&payload, w0, 0.5f32.to_bits())),
            Err(crate::CafError::Malformed { .. })
        ));
        // Parent cycle: the hip's parent is the knee.
        assert_eq!(refused_field(&with_u32(&meta, joint0, 1)), "joint.parent");
        // Too many joints declared.
        assert_eq!(
            refused_field(&with_u32(&meta, skin_at + 4, 5000)),
            "skin.joint_count"
        );
        // A name outside the block.
        assert!(parse_mesh(&with_u32(&meta, joint0 + 8, 6), &payload).is_err());
        // The skin bit without a skin, and a truncated skin.
        assert!(parse_mesh(&meta[..skin_at], &payload).is_err());
        assert!(parse_mesh(&meta[..meta.len() - 1], &payload).is_err());
        // Missing weights.
        assert!(matches!(
            parse_mesh(&meta, &payload[..payload.len() - 16]),
            Err(crate::CafError::PayloadSize { .. })
        ));
        // Every single-bit flip of the metadata is refused or decodes without panicking.
        for bit in 0..meta.len() * 8 {
            let mut m = meta.clone();
            m[bit / 8] ^= 1 << (bit % 8);
            let _ = parse_mesh(&m, &payload);
        }
    }

    #[test]
    fn skin_encoder_refusals() {
        let (verts, idx) = sample();
        let skin = two_joint_skin();
        let good_j = vec![[0u16; 4]; 5];
        let good_w = vec![[1.0f32, 0.0, 0.0, 0.0]; 5];
        let enc = |j: &[[u16; 4]], w: &[[f32; 4]], s: &Skin| {
            encode_mesh_ext(
                &verts,
                &idx,
                &MeshExtras {
                    skin: Some(SkinStreams {
                        skin: s,
                        joints: j,
                        weights: w,
                    }),
                    ..Default::default()
                },
            )
        };
        assert!(enc(&good_j, &good_w, &skin).is_ok());
        let mut j = good_j.clone();
        j[3] = [0, 7, 0, 0];
        assert!(matches!(
            enc(&j, &good_w, &skin),
            Err(MeshEncodeError::JointOutOfRange {
                vertex: 3,
                joint: 7,
                ..
            })
        ));
        let mut w = good_w.clone();
        w[1] = [0.7, 0.7, 0.0, 0.0];
        assert!(matches!(
            enc(&good_j, &w, &skin),
            Err(MeshEncodeError::BadWeights { vertex: 1, .. })
        ));
        assert!(matches!(
            enc(&good_j[..4], &good_w, &skin),
            Err(MeshEncodeError::StreamLength {
                stream: "JOINTS_0",
                ..
            })
        ));
        let mut bad = skin.clone();
        bad.joints[0].parent = 9;
        assert!(matches!(
            enc(&good_j, &good_w, &bad),
            Err(MeshEncodeError::BadSkin { .. })
        ));
    }
}
