//! glTF 2.0 writing shared by voxcaf's two mesh exporters: `vwr-mesh` (voxel worlds) and
//! `caf-import`'s `asset export` (`.caf` Mesh assets). Neither depends on the other; both
//! build their documents with the `gltf` crate's [`json`] types and use this crate for what
//! they have in common:
//!
//! - [`BinBuilder`]: the one binary buffer, grown one 4-byte-aligned buffer view at a time,
//!   and its [`json::Buffer`] entry ([`BinBuilder::finish`]);
//! - [`accessor`] and [`f32_bytes`]: an accessor over a whole view, and `f32` data as bytes;
//! - [`triangles`] and [`default_scene`]: a triangle-list primitive, and the scene a viewer
//!   opens;
//! - [`glb`]: a document and its buffer framed as one binary glTF (`.glb`) through
//!   `gltf::binary::Glb`, with the 4 GiB limit of the GLB header checked instead of wrapped.
//!
//! ```
//! use voxcaf_gltf::{accessor, f32_bytes, glb, json, triangles, BinBuilder};
//! use json::accessor::{ComponentType, Type};
//! use json::validation::Checked::Valid;
//!
//! let mut root = json::Root::default();
//! let mut bin = BinBuilder::new();
//! let positions = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
//! let view = bin.view(&mut root, &f32_bytes(&positions), Some(json::buffer::Target::ArrayBuffer));
//! let min = Some(json::Value::from(vec![0.0, 0.0, 0.0]));
//! let max = Some(json::Value::from(vec![1.0, 1.0, 0.0]));
//! let pos = accessor(&mut root, view, 3, Type::Vec3, ComponentType::F32, min, max);
//! let attributes = [(Valid(json::mesh::Semantic::Positions), pos)].into();
//! let primitive = triangles(attributes, None, None);
//! root.push(json::Mesh {
//!     extensions: None,
//!     extras: Default::default(),
//!     name: None,
//!     primitives: vec![primitive],
//!     weights: None,
//! });
//! let bin = bin.finish(&mut root, None);
//! let bytes = glb(&root, bin)?;
//!
//! let back = gltf::Gltf::from_slice(&bytes)?;
//! assert_eq!(back.meshes().count(), 1);
//! assert_eq!(back.blob.as_ref().map(Vec::len), Some(36));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(clippy::unwrap_used)]

use std::borrow::Cow;

pub use gltf::json;
use json::validation::Checked::Valid;
use json::validation::USize64;

/// What can go wrong writing glTF.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum GltfError {
    /// The JSON document could not be serialised.
    #[error("cannot serialise the glTF JSON: {0}")]
    Json(#[from] json::Error),
    /// The GLB would be larger than its 32-bit length field can say.
    #[error("a GLB holds at most 4 GiB, this one would be {bytes} bytes")]
    TooLarge {
        /// The size the GLB would have.
        bytes: u64,
    },
    /// The `gltf` crate's GLB writer failed.
    #[error("cannot frame the GLB: {0}")]
    Glb(#[from] gltf::Error),
}

/// The binary buffer of a document under construction: each [`BinBuilder::view`] appends
/// bytes at a 4-byte-aligned offset (every component type stays aligned) and records a
/// buffer view of buffer 0.
#[derive(Clone, Debug, Default)]
pub struct BinBuilder {
    bin: Vec<u8>,
}

impl BinBuilder {
    /// An empty buffer.
    pub fn new() -> BinBuilder {
        BinBuilder::default()
    }

    /// Append `bytes` as a new buffer view of buffer 0 (which [`BinBuilder::finish`] adds).
    pub fn view(
        &mut self,
        root: &mut json::Root,
        bytes: &[u8],
        target: Option<json::buffer::Target>,
    ) -> json::Index<json::buffer::View> {
        self.pad();
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        root.push(json::buffer::View {
            buffer: json::Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            extensions: Default::default(),
            extras: Default::default(),
            name: None,
            target: target.map(Valid),
        })
    }

    /// Bytes appended so far (with alignment padding).
    pub fn len(&self) -> usize {
        self.bin.len()
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.bin.is_empty()
    }

    /// The buffer, padded to a multiple of 4, after adding its [`json::Buffer`] to `root`
    /// (none for an empty buffer). `uri` names the external file of a `.gltf`; `None` for a
    /// `.glb`, where the buffer is the BIN chunk.
    pub fn finish(mut self, root: &mut json::Root, uri: Option<&str>) -> Vec<u8> {
        self.pad();
        if !self.bin.is_empty() {
            root.push(json::Buffer {
                byte_length: USize64::from(self.bin.len()),
                extensions: Default::default(),
                extras: Default::default(),
                name: None,
                uri: uri.map(str::to_string),
            });
        }
        self.bin
    }

    fn pad(&mut self) {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
    }
}

/// An accessor over the whole of `view`: `count` elements of type `ty` with components
/// `comp`, and the `min` / `max` glTF asks for on POSITION.
pub fn accessor(
    root: &mut json::Root,
    view: json::Index<json::buffer::View>,
    count: usize,
    ty: json::accessor::Type,
    comp: json::accessor::ComponentType,
    min: Option<json::Value>,
    max: Option<json::Value>,
) -> json::Index<json::Accessor> {
    root.push(json::Accessor {
        buffer_view: Some(view),
        byte_offset: Some(USize64(0)),
        count: USize64::from(count),
        component_type: Valid(json::accessor::GenericComponentType(comp)),
        extensions: Default::default(),
        extras: Default::default(),
        type_: Valid(ty),
        min,
        max,
        name: None,
        normalized: false,
        sparse: None,
    })
}

/// A triangle-list primitive over `attributes`, indexed by `indices` (`None`: the vertices in
/// order) and drawn with `material` (`None`: glTF's default material).
pub fn triangles(
    attributes: std::collections::BTreeMap<
        json::validation::Checked<json::mesh::Semantic>,
        json::Index<json::Accessor>,
    >,
    indices: Option<json::Index<json::Accessor>>,
    material: Option<json::Index<json::Material>>,
) -> json::mesh::Primitive {
    json::mesh::Primitive {
        attributes,
        extensions: None,
        extras: Default::default(),
        indices,
        material,
        mode: Valid(json::mesh::Mode::Triangles),
        targets: None,
    }
}

/// Adds a scene of `nodes` named `name` to `root` and makes it the scene a viewer shows first.
pub fn default_scene(
    root: &mut json::Root,
    name: Option<String>,
    nodes: Vec<json::Index<json::Node>>,
) -> json::Index<json::Scene> {
    let scene = root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name,
        nodes,
    });
    root.scene = Some(scene);
    scene
}

/// An untextured material named `name`: white, not metallic, fully rough (vertex colours or
/// the viewer's lighting show the shape), blended when `blend`, else opaque.
pub fn plain_material(
    root: &mut json::Root,
    name: &str,
    blend: bool,
) -> json::Index<json::Material> {
    root.push(json::Material {
        alpha_mode: Valid(if blend {
            json::material::AlphaMode::Blend
        } else {
            json::material::AlphaMode::Opaque
        }),
        name: Some(name.to_string()),
        pbr_metallic_roughness: json::material::PbrMetallicRoughness {
            base_color_factor: json::material::PbrBaseColorFactor([1.0, 1.0, 1.0, 1.0]),
            metallic_factor: json::material::StrengthFactor(0.0),
            roughness_factor: json::material::StrengthFactor(1.0),
            ..Default::default()
        },
        ..Default::default()
    })
}

/// `f32` vectors as little-endian bytes.
pub fn f32_bytes<const K: usize>(v: &[[f32; K]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * K * 4);
    for e in v {
        for c in e {
            out.extend_from_slice(&c.to_le_bytes());
        }
    }
    out
}

/// A binary glTF: `root` as the JSON chunk and `bin` (from [`BinBuilder::finish`] with no
/// `uri`) as the BIN chunk, left out when empty.
pub fn glb(root: &json::Root, bin: Vec<u8>) -> Result<Vec<u8>, GltfError> {
    glb_from_parts(root.to_vec()?, bin)
}

/// A binary glTF from a JSON document's bytes (padded with spaces) and its BIN chunk (padded
/// with zeros; left out when empty), for documents built as text.
pub fn glb_from_parts(json_bytes: Vec<u8>, bin: Vec<u8>) -> Result<Vec<u8>, GltfError> {
    let chunk = |n: usize| 8 + n.div_ceil(4) as u64 * 4;
    let total = 12 + chunk(json_bytes.len()) + if bin.is_empty() { 0 } else { chunk(bin.len()) };
    let length = u32::try_from(total).map_err(|_| GltfError::TooLarge { bytes: total })?;
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length,
        },
        json: Cow::Owned(json_bytes),
        bin: (!bin.is_empty()).then_some(Cow::Owned(bin)),
    };
    Ok(glb.to_vec()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_are_aligned_and_the_buffer_padded() {
        let mut root = json::Root::default();
        let mut b = BinBuilder::new();
        b.view(&mut root, &[1, 2, 3], None);
        let v = b.view(&mut root, &[4; 5], None);
        assert_eq!(root.buffer_views[v.value()].byte_offset, Some(USize64(4)));
        let bin = b.finish(&mut root, Some("x.bin"));
        assert_eq!(bin, [1, 2, 3, 0, 4, 4, 4, 4, 4, 0, 0, 0]);
        assert_eq!(root.buffers[0].byte_length, USize64(12));
        assert_eq!(root.buffers[0].uri.as_deref(), Some("x.bin"));
    }

    #[test]
    fn an_empty_buffer_adds_no_buffer_and_no_bin_chunk() {
        let mut root = json::Root::default();
        let bin = BinBuilder::new().finish(&mut root, None);
        assert!(root.buffers.is_empty());
        let bytes = glb(&root, bin).unwrap();
        let back = gltf::Gltf::from_slice(&bytes).unwrap();
        assert!(back.blob.is_none());
        let length = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
        assert_eq!(length as usize, bytes.len());
    }

    #[test]
    fn glb_header_length_is_the_file_length() {
        let mut root = json::Root::default();
        let mut b = BinBuilder::new();
        b.view(&mut root, &f32_bytes(&[[1.5f32, -2.0, 3.25]]), None);
        let bin = b.finish(&mut root, None);
        let bytes = glb(&root, bin).unwrap();
        assert_eq!(&bytes[..4], b"glTF");
        let length = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
        assert_eq!(length as usize, bytes.len());
        let back = gltf::Gltf::from_slice(&bytes).unwrap();
        let blob = back.blob.unwrap();
        assert_eq!(f32::from_le_bytes(blob[4..8].try_into().unwrap()), -2.0);
    }
}
