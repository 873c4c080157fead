//! Skins of extended meshes (docs/format/caf-assets-ext.md section 2): the skeleton stored in
//! the metadata after the sub-mesh table, and the checks every reader and the encoder share.

use crate::container::header::AssetType;
use crate::container::metadata::ext_header;
use crate::error::CafError;
use crate::mesh::{JointEntry, SkinHeader};

/// One joint of a [`Skin`], decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    /// Parent joint index, [`JointEntry::ROOT`] for a root joint.
    pub parent: u32,
    /// The joint's glTF node index ([`crate::mesh::SubMeshEntry::NONE`] when not from glTF).
    pub node: u32,
    /// The joint's name ("" for none).
    pub name: String,
    /// Rest translation, relative to the parent joint (a root: to the skin's root matrix).
    pub translation: [f32; 3],
    /// Rest rotation, unit quaternion x, y, z, w.
    pub rotation: [f32; 4],
    /// Rest scale.
    pub scale: [f32; 3],
    /// Inverse bind matrix, column-major.
    pub inverse_bind: [f32; 16],
}

/// The skeleton of a skinned mesh: the root joints' parent transform and the joints, in the
/// order JOINTS_0 indexes them.
#[derive(Clone, Debug, PartialEq)]
pub struct Skin {
    /// World transform of the root joints' parent node, column-major.
    pub root_matrix: [f32; 16],
    /// The joints.
    pub joints: Vec<Joint>,
}

/// The identity matrix, column-major.
pub const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// Largest difference of a vertex's weight sum from 1.
pub const WEIGHT_SUM_TOLERANCE: f32 = 1e-3;

fn bad(field: &'static str, value: u64, reason: &'static str) -> CafError {
    CafError::BadMetadata {
        ty: AssetType::MESH,
        field,
        value,
        reason,
    }
}

impl Skin {
    /// Bytes this skin takes in the metadata: header, joint table and name block.
    pub fn encoded_len(&self) -> usize {
        SkinHeader::SIZE
            + self.joints.len() * JointEntry::SIZE
            + self.joints.iter().map(|j| j.name.len()).sum::<usize>()
    }

    /// Check the skeleton: joint count and name sizes within the limits, parents in range and
    /// acyclic, every float finite.
    pub fn check(&self) -> Result<(), CafError> {
        let n = self.joints.len();
        if n == 0 || n > SkinHeader::MAX_JOINTS as usize {
            return Err(bad(
                "skin.joint_count",
                n as u64,
                "must be between 1 and 1024",
            ));
        }
        let names: usize = self.joints.iter().map(|j| j.name.len()).sum();
        if names > SkinHeader::MAX_NAMES as usize {
            return Err(bad(
                "skin.names_size",
                names as u64,
                "the joint names exceed 65536 bytes",
            ));
        }
        if !self.root_matrix.iter().all(|v| v.is_finite()) {
            return Err(bad("skin.root_matrix", 0, "must be finite"));
        }
        for (i, j) in self.joints.iter().enumerate() {
            if j.parent != JointEntry::ROOT && j.parent as usize >= n {
                return Err(bad(
                    "joint.parent",
                    j.parent.into(),
                    "names no joint of the skin",
                ));
            }
            let finite = j
                .translation
                .iter()
                .chain(&j.rotation)
                .chain(&j.scale)
                .chain(&j.inverse_bind)
                .all(|v| v.is_finite());
            if !finite {
                return Err(bad(
                    "joint",
                    i as u64,
                    "a rest pose or bind value is not finite",
                ));
            }
        }
        // Every parent chain must reach a root within n steps: 0 unknown, 1 on the current
        // walk, 2 known to reach a root.
        let mut state = vec![0u8; n];
        for start in 0..n {
            let mut walk = Vec::new();
            let mut j = start;
            loop {
                match state[j] {
                    2 => break,
                    1 => {
                        return Err(bad(
                            "joint.parent",
                            j as u64,
                            "the parent links form a cycle",
                        ))
                    }
                    _ => {}
                }
                state[j] = 1;
                walk.push(j);
                let p = self.joints[j].parent;
                if p == JointEntry::ROOT {
                    break;
                }
                j = p as usize;
            }
            for w in walk {
                state[w] = 2;
            }
        }
        Ok(())
    }

    /// Append the header, joint table and name block to `out` (call [`Skin::check`] first).
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let names_size: usize = self.joints.iter().map(|j| j.name.len()).sum();
        let header = SkinHeader {
            magic: SkinHeader::MAGIC,
            joint_count: self.joints.len() as u32,
            names_size: names_size as u32,
            reserved: 0,
            root_matrix: self.root_matrix,
        };
        out.extend_from_slice(&header.to_bytes());
        let mut offset = 0u32;
        for j in &self.joints {
            let e = JointEntry {
                parent: j.parent,
                node: j.node,
                name_offset: offset,
                name_length: j.name.len() as u32,
                translation: j.translation,
                rotation: j.rotation,
                scale: j.scale,
                inverse_bind: j.inverse_bind,
            };
            offset += j.name.len() as u32;
            out.extend_from_slice(&e.to_bytes());
        }
        for j in &self.joints {
            out.extend_from_slice(j.name.as_bytes());
        }
    }

    /// The size in bytes of the skin starting at `b` (its header's counts), or the error for
    /// a missing or bad header.
    pub(crate) fn size_at(b: &[u8]) -> Result<u64, CafError> {
        let h: SkinHeader = ext_header(b)?;
        if h.joint_count == 0 || h.joint_count > SkinHeader::MAX_JOINTS {
            return Err(bad(
                "skin.joint_count",
                h.joint_count.into(),
                "must be between 1 and 1024",
            ));
        }
        if h.names_size > SkinHeader::MAX_NAMES {
            return Err(bad(
                "skin.names_size",
                h.names_size.into(),
                "must be at most 65536",
            ));
        }
        Ok(SkinHeader::SIZE as u64
            + u64::from(h.joint_count) * JointEntry::SIZE as u64
            + u64::from(h.names_size))
    }

    /// Decode and check a skin that is exactly `b` (its size from [`Skin::size_at`]).
    pub(crate) fn decode(b: &[u8]) -> Result<Skin, CafError> {
        let (h, rest) = b
            .split_at_checked(SkinHeader::SIZE)
            .ok_or(CafError::MetadataSize {
                ty: AssetType::MESH,
                expected: SkinHeader::SIZE as u64,
                actual: b.len() as u64,
            })?;
        let h = SkinHeader::from_bytes(h)?;
        let table = h.joint_count as usize * JointEntry::SIZE;
        let (entries, names) = rest.split_at_checked(table).ok_or(CafError::MetadataSize {
            ty: AssetType::MESH,
            expected: (SkinHeader::SIZE + table) as u64,
            actual: b.len() as u64,
        })?;
        let mut joints = Vec::with_capacity(h.joint_count as usize);
        for e in entries.chunks_exact(JointEntry::SIZE) {
            let e = JointEntry::from_bytes(e)?;
            let start = e.name_offset as usize;
            let name = start
                .checked_add(e.name_length as usize)
                .and_then(|end| names.get(start..end))
                .ok_or_else(|| {
                    bad(
                        "joint.name_offset",
                        e.name_offset.into(),
                        "the name lies outside the name block",
                    )
                })?;
            let name = std::str::from_utf8(name)
                .map_err(|_| bad("joint.name", joints.len() as u64, "not UTF-8"))?;
            joints.push(Joint {
                parent: e.parent,
                node: e.node,
                name: name.to_string(),
                translation: e.translation,
                rotation: e.rotation,
                scale: e.scale,
                inverse_bind: e.inverse_bind,
            });
        }
        let skin = Skin {
            root_matrix: h.root_matrix,
            joints,
        };
        skin.check()?;
        Ok(skin)
    }
}

/// Why a vertex's skin weights are refused, or `None` when they are valid.
pub(crate) fn weights_fault(w: &[f32; 4]) -> Option<&'static str> {
    if !w.iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)) {
        return Some("a weight is not finite or not in [0, 1]");
    }
    if (w.iter().sum::<f32>() - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
        return Some("the weights do not sum to 1");
    }
    None
}
