//! The mesh view: vertices, indices and the extended mesh's sub-meshes, extra streams and skin.

use std::borrow::Cow;

use crate::container::header::AssetType;
use crate::container::load::Asset;
use crate::container::metadata::ext_header;
use crate::container::view::{cast_or_copy, expect_type, payload_size};
use crate::error::CafError;
use crate::mesh::{weights_fault, Skin};
use crate::mesh::{MeshExtHeader, MeshMetadata, SkinHeader, SubMeshEntry, Vertex};
use crate::strip_alignment_padding;

/// The parts of an extended mesh's metadata after the original 16 bytes
/// (docs/format/caf-assets-ext.md section 1).
#[derive(Clone, Debug, PartialEq)]
pub struct MeshExt {
    /// The extension header.
    pub header: MeshExtHeader,
    /// One entry per sub-mesh, as stored.
    pub sub_meshes: Vec<SubMeshEntry>,
    /// The skeleton, when the SKIN stream bit is set (section 2).
    pub skin: Option<Skin>,
}

impl MeshExt {
    /// Decode and check the metadata of a mesh: the original 16 bytes alone, or followed by
    /// the extension header and sub-mesh table. Ranges are checked against `index_count`.
    pub fn decode(b: &[u8]) -> Result<(MeshMetadata, Option<MeshExt>), CafError> {
        let ty = AssetType::MESH;
        // A plain mesh's metadata may be followed by alignment padding (caf-extensions.md §8).
        let plain = strip_alignment_padding(ty, b, MeshMetadata::SIZE);
        if plain.len() == MeshMetadata::SIZE {
            return Ok((MeshMetadata::from_bytes(plain)?, None));
        }
        let base = MeshMetadata::SIZE + MeshExtHeader::SIZE;
        let (meta, header) = match (b.get(..MeshMetadata::SIZE), b.get(MeshMetadata::SIZE..base)) {
            (Some(m), Some(h)) => (
                MeshMetadata::from_bytes(m)?,
                ext_header::<MeshExtHeader>(h)?,
            ),
            _ => {
                return Err(CafError::MetadataSize {
                    ty,
                    expected: MeshMetadata::SIZE as u64,
                    actual: b.len() as u64,
                })
            }
        };
        let bad = |field: &'static str, value: u64, reason: &'static str| CafError::BadMetadata {
            ty,
            field,
            value,
            reason,
        };
        let table_end = base as u64 + u64::from(meta.sub_mesh_count) * SubMeshEntry::SIZE as u64;
        let has_skin = header.streams & MeshExtHeader::SKIN != 0;
        let expected = if has_skin {
            let at = usize::try_from(table_end).ok().and_then(|t| b.get(t..));
            match at {
                Some(rest) => table_end + Skin::size_at(rest)?,
                None => {
                    return Err(CafError::MetadataSize {
                        ty,
                        expected: table_end + SkinHeader::SIZE as u64,
                        actual: b.len() as u64,
                    })
                }
            }
        } else {
            table_end
        };
        // So may an extended mesh's sub-mesh table (and skin).
        let b = match usize::try_from(expected) {
            Ok(n) => strip_alignment_padding(ty, b, n),
            Err(_) => b,
        };
        if b.len() as u64 != expected {
            return Err(CafError::MetadataSize {
                ty,
                expected,
                actual: b.len() as u64,
            });
        }
        // Both sizes are at most the metadata length now.
        let (table, skin_bytes) = b.split_at(table_end as usize);
        let skin = if has_skin {
            Some(Skin::decode(skin_bytes)?)
        } else {
            None
        };
        let mut sub_meshes = Vec::with_capacity(meta.sub_mesh_count as usize);
        for e in table[base..].chunks_exact(SubMeshEntry::SIZE) {
            let e = SubMeshEntry::from_bytes(e)?;
            if u64::from(e.first_index) + u64::from(e.index_count) > u64::from(meta.index_count) {
                return Err(bad(
                    "sub_mesh.index_count",
                    u64::from(e.first_index) + u64::from(e.index_count),
                    "the sub-mesh ends past the index list",
                ));
            }
            if e.index_count % 3 != 0 {
                return Err(bad(
                    "sub_mesh.index_count",
                    e.index_count.into(),
                    "not a multiple of 3",
                ));
            }
            let finite = e
                .bounds_min
                .iter()
                .chain(&e.bounds_max)
                .all(|v| v.is_finite());
            if !finite || (0..3).any(|k| e.bounds_min[k] > e.bounds_max[k]) {
                return Err(bad(
                    "sub_mesh.bounds",
                    sub_meshes.len() as u64,
                    "bounds must be finite with min <= max",
                ));
            }
            sub_meshes.push(e);
        }
        Ok((
            meta,
            Some(MeshExt {
                header,
                sub_meshes,
                skin,
            }),
        ))
    }

    /// Whether the COLOR_0 stream is present.
    pub fn has_colors(&self) -> bool {
        self.header.streams & MeshExtHeader::COLOR0 != 0
    }

    /// Whether the TEXCOORD_1 stream is present.
    pub fn has_uv1(&self) -> bool {
        self.header.streams & MeshExtHeader::UV1 != 0
    }

    /// Whether the mesh is skinned (skeleton, JOINTS_0 and WEIGHTS_0 present).
    pub fn has_skin(&self) -> bool {
        self.header.streams & MeshExtHeader::SKIN != 0
    }
}

/// A mesh: vertices then u32 indices, and for an extended mesh its sub-mesh table and optional
/// vertex colours and second UV set. Borrowed when the payload is aligned (always for owned
/// loads), copied otherwise.
#[derive(Clone, Debug)]
pub struct MeshView<'a> {
    /// The metadata.
    pub meta: MeshMetadata,
    /// `vertex_count` vertices.
    pub vertices: Cow<'a, [Vertex]>,
    /// `index_count` indices, each checked to be `< vertex_count`.
    pub indices: Cow<'a, [u32]>,
    /// The extension (sub-mesh table, stream bits) of an extended mesh; `None` for an
    /// original 16-byte metadata.
    pub ext: Option<MeshExt>,
    /// COLOR_0, one linear RGBA per vertex, when stored.
    pub colors: Option<Cow<'a, [[f32; 4]]>>,
    /// TEXCOORD_1, one per vertex, when stored.
    pub uv1: Option<Cow<'a, [[f32; 2]]>>,
    /// JOINTS_0 of a skinned mesh, one per vertex, each checked to name a joint.
    pub joints: Option<Cow<'a, [[u16; 4]]>>,
    /// WEIGHTS_0 of a skinned mesh, one per vertex, each checked to be in [0, 1] and to sum
    /// to 1 within [`crate::mesh::WEIGHT_SUM_TOLERANCE`].
    pub weights: Option<Cow<'a, [[f32; 4]]>>,
}

impl<'a> MeshView<'a> {
    /// Check a mesh asset, including that every index names a vertex.
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::MESH;
        expect_type(a, ty)?;
        let (meta, ext) = MeshExt::decode(a.metadata)?;
        let vc = u64::from(meta.vertex_count);
        let vbytes = vc * Vertex::SIZE as u64;
        let ibytes = u64::from(meta.index_count) * 4;
        let cbytes = if ext.as_ref().is_some_and(MeshExt::has_colors) {
            vc * 16
        } else {
            0
        };
        let ubytes = if ext.as_ref().is_some_and(MeshExt::has_uv1) {
            vc * 8
        } else {
            0
        };
        let skin = ext.as_ref().and_then(|e| e.skin.as_ref());
        let (jbytes, wbytes) = if skin.is_some() {
            (vc * 8, vc * 16)
        } else {
            (0, 0)
        };
        let expected = vbytes + ibytes + cbytes + ubytes + jbytes + wbytes;
        payload_size(ty, Some(expected), a.payload.len())?;
        let (vb, rest) = a.payload.split_at(vbytes as usize);
        let (ib, rest) = rest.split_at(ibytes as usize);
        let (cb, rest) = rest.split_at(cbytes as usize);
        let (ub, rest) = rest.split_at(ubytes as usize);
        let (jb, wb) = rest.split_at(jbytes as usize);
        let vertices = cast_or_copy::<Vertex>(vb);
        let indices = cast_or_copy::<u32>(ib);
        if let Some(i) = indices.iter().position(|&i| i >= meta.vertex_count) {
            return Err(CafError::Malformed {
                ty,
                offset: vbytes + i as u64 * 4,
                what: format!(
                    "index {i} is {}, but there are {} vertices",
                    indices[i], meta.vertex_count
                ),
            });
        }
        let (joints, weights) = match skin {
            Some(skin) => {
                let joint_off = vbytes + ibytes + cbytes + ubytes;
                let (j, w) = check_skin_streams(skin, jb, wb, joint_off)?;
                (Some(j), Some(w))
            }
            None => (None, None),
        };
        Ok(MeshView {
            meta,
            vertices,
            indices,
            colors: (cbytes > 0).then(|| cast_or_copy::<[f32; 4]>(cb)),
            uv1: (ubytes > 0).then(|| cast_or_copy::<[f32; 2]>(ub)),
            joints,
            weights,
            ext,
        })
    }

    /// The skeleton of a skinned mesh.
    pub fn skin(&self) -> Option<&Skin> {
        self.ext.as_ref().and_then(|e| e.skin.as_ref())
    }

    /// The sub-mesh table: the stored one of an extended mesh, otherwise one entry covering
    /// every index (no material, no node, bounds of the indexed vertices).
    pub fn sub_meshes(&self) -> Vec<SubMeshEntry> {
        match &self.ext {
            Some(e) => e.sub_meshes.clone(),
            None => {
                let (bounds_min, bounds_max) = crate::mesh::bounds(
                    self.indices
                        .iter()
                        .map(|&i| self.vertices[i as usize].position),
                );
                vec![SubMeshEntry {
                    first_index: 0,
                    index_count: self.meta.index_count,
                    material: SubMeshEntry::NONE,
                    node: SubMeshEntry::NONE,
                    bounds_min,
                    bounds_max,
                }]
            }
        }
    }

    /// Triangles as index triples (a trailing partial triangle is ignored).
    pub fn triangles(&self) -> impl Iterator<Item = [u32; 3]> + '_ {
        self.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]])
    }
}

/// JOINTS_0 (`jb`) and WEIGHTS_0 (`wb`) of a skinned mesh, checked against `skin`; `offset`
/// is where `jb` starts in the payload.
type SkinStreamsOwned<'a> = (Cow<'a, [[u16; 4]]>, Cow<'a, [[f32; 4]]>);
fn check_skin_streams<'a>(
    skin: &Skin,
    jb: &[u8],
    wb: &'a [u8],
    offset: u64,
) -> Result<SkinStreamsOwned<'a>, CafError> {
    let ty = AssetType::MESH;
    let joints: Vec<[u16; 4]> = jb
        .chunks_exact(8)
        .map(|c| [0, 2, 4, 6].map(|k| u16::from_le_bytes([c[k], c[k + 1]])))
        .collect();
    let n = skin.joints.len();
    if let Some(v) = joints
        .iter()
        .position(|j| j.iter().any(|&x| usize::from(x) >= n))
    {
        return Err(CafError::Malformed {
            ty,
            offset: offset + v as u64 * 8,
            what: format!(
                "vertex {v}: JOINTS_0 {:?} names a joint past the skin's {n}",
                joints[v]
            ),
        });
    }
    let weights = cast_or_copy::<[f32; 4]>(wb);
    if let Some((v, reason)) = weights
        .iter()
        .enumerate()
        .find_map(|(v, w)| weights_fault(w).map(|r| (v, r)))
    {
        return Err(CafError::Malformed {
            ty,
            offset: offset + jb.len() as u64 + v as u64 * 16,
            what: format!("vertex {v}: WEIGHTS_0 {:?}: {reason}", weights[v]),
        });
    }
    Ok((Cow::Owned(joints), weights))
}
