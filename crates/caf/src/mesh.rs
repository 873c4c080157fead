//! Mesh assets: the metadata and vertex layouts, the extended mesh's header, sub-mesh table and
//! skin (`docs/format/caf-assets-ext.md` sections 1 and 2), the view and the payload encoder
//! (its inverse).

use std::mem::size_of;

use crate::container::header::AssetType;
use crate::container::layout::layout;
use crate::container::metadata::{codec, ext_header_impl};

mod encode;
mod skin;
mod view;

pub(crate) use encode::bounds;
pub use encode::{encode_mesh, encode_mesh_ext, MeshEncodeError, MeshExtras, SkinStreams};
pub(crate) use skin::weights_fault;
pub use skin::{Joint, Skin, IDENTITY, WEIGHT_SUM_TOLERANCE};
pub use view::{MeshExt, MeshView};

layout! {
    /// Mesh metadata (16 bytes, from the original's pipeline code).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct MeshMetadata (RawMeshMetadata, 16 bytes) {
        /// Number of 48-byte [`Vertex`] records.
        pub vertex_count: u32,
        /// Number of u32 indices after the vertices.
        pub index_count: u32,
        /// Sub-meshes counted by the converter (no table is stored).
        pub sub_mesh_count: u32,
        /// Reserved, 0.
        pub reserved: u32,
    }
}
codec!(MeshMetadata, RawMeshMetadata, AssetType::MESH);

layout! {
    /// Extended mesh header (32 bytes), after the 16-byte [`MeshMetadata`] when the metadata is
    /// longer than 16 bytes (docs/format/caf-assets-ext.md section 1).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct MeshExtHeader (RawMeshExtHeader, 32 bytes) {
        /// Bytes "MSHX".
        pub magic: [u8; 4],
        /// 1.
        pub version: u32,
        /// Stream bits ([`MeshExtHeader::COLOR0`], [`MeshExtHeader::UV1`]).
        pub streams: u32,
        /// Reserved, 0.
        pub reserved0: u32,
        /// Reserved, 0.
        pub reserved: [u32; 4],
    }
}
codec!(MeshExtHeader, RawMeshExtHeader, AssetType::MESH);

impl MeshExtHeader {
    /// The magic bytes.
    pub const MAGIC: [u8; 4] = *b"MSHX";
    /// The only version defined.
    pub const VERSION: u32 = 1;
    /// Stream bit: COLOR_0, f32 x 4 per vertex.
    pub const COLOR0: u32 = 1;
    /// Stream bit: TEXCOORD_1, f32 x 2 per vertex.
    pub const UV1: u32 = 2;
    /// Every stream bit this version knows.
    pub const KNOWN_STREAMS: u32 = Self::COLOR0 | Self::UV1 | Self::SKIN;

    /// A version-1 header with these stream bits.
    pub fn new(streams: u32) -> Self {
        MeshExtHeader {
            magic: Self::MAGIC,
            version: Self::VERSION,
            streams,
            ..Default::default()
        }
    }
}

ext_header_impl!(
    MeshExtHeader: AssetType::MESH,
    magic "ext.magic" ("an extended mesh header starts with \"MSHX\""),
    version "ext.version";
    fn fields_fault(&self) -> Option<(&'static str, u64, &'static str)> {
        if self.streams & !Self::KNOWN_STREAMS != 0 {
            return Some(("ext.streams", self.streams.into(), "unknown stream bits"));
        }
        if self.reserved0 != 0 || self.reserved != [0; 4] {
            return Some(("ext.reserved", 0, "reserved bytes must be zero"));
        }
        None
    }
);

layout! {
    /// One sub-mesh of an extended mesh (40 bytes): an index range, its material and bounds.
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct SubMeshEntry (RawSubMeshEntry, 40 bytes) {
        /// Position of the first index in the index list.
        pub first_index: u32,
        /// Number of indices (a multiple of 3).
        pub index_count: u32,
        /// Source material index, [`SubMeshEntry::NONE`] for none.
        pub material: u32,
        /// Source node index when nodes are kept, [`SubMeshEntry::NONE`] otherwise.
        pub node: u32,
        /// Smallest position named by the range.
        pub bounds_min: [f32; 3],
        /// Largest position named by the range.
        pub bounds_max: [f32; 3],
    }
}
codec!(SubMeshEntry, RawSubMeshEntry, AssetType::MESH);

impl SubMeshEntry {
    /// "No material" / "no node".
    pub const NONE: u32 = u32::MAX;
}

impl MeshExtHeader {
    /// Stream bit: a skin (docs/format/caf-assets-ext.md section 2): skeleton in the
    /// metadata, JOINTS_0 (u16 x 4) and WEIGHTS_0 (f32 x 4) per vertex in the payload.
    pub const SKIN: u32 = 4;
}

layout! {
    /// Skin header (80 bytes), after the sub-mesh table of an extended mesh whose `streams`
    /// has [`MeshExtHeader::SKIN`] (docs/format/caf-assets-ext.md section 2).
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct SkinHeader (RawSkinHeader, 80 bytes) {
        /// Bytes "SKIN".
        pub magic: [u8; 4],
        /// Number of [`JointEntry`]s, 1..=[`SkinHeader::MAX_JOINTS`].
        pub joint_count: u32,
        /// Bytes of the joint-name block after the joint table.
        pub names_size: u32,
        /// Reserved, 0.
        pub reserved: u32,
        /// World transform of the root joints' parent node, column-major.
        pub root_matrix: [f32; 16],
    }
}
codec!(SkinHeader, RawSkinHeader, AssetType::MESH);

impl SkinHeader {
    /// The magic bytes.
    pub const MAGIC: [u8; 4] = *b"SKIN";
    /// Most joints a skin may have.
    pub const MAX_JOINTS: u32 = 1024;
    /// Largest joint-name block.
    pub const MAX_NAMES: u32 = 65536;
}

ext_header_impl!(
    SkinHeader: AssetType::MESH,
    magic "skin.magic" ("a skin starts with \"SKIN\"");
    fn fields_fault(&self) -> Option<(&'static str, u64, &'static str)> {
        (self.reserved != 0).then_some(("skin.reserved", self.reserved.into(), "must be 0"))
    }
);

layout! {
    /// One joint of a skin (120 bytes): its parent, glTF node, name, rest pose and inverse
    /// bind matrix.
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct JointEntry (RawJointEntry, 120 bytes) {
        /// Parent joint index, [`JointEntry::ROOT`] for a root joint.
        pub parent: u32,
        /// The joint's glTF node index, [`SubMeshEntry::NONE`] when not from glTF.
        pub node: u32,
        /// Start of the name in the name block.
        pub name_offset: u32,
        /// Length of the name in bytes (0 = none).
        pub name_length: u32,
        /// Rest translation.
        pub translation: [f32; 3],
        /// Rest rotation, unit quaternion x, y, z, w.
        pub rotation: [f32; 4],
        /// Rest scale.
        pub scale: [f32; 3],
        /// Inverse bind matrix, column-major.
        pub inverse_bind: [f32; 16],
    }
}
codec!(JointEntry, RawJointEntry, AssetType::MESH);

impl JointEntry {
    /// "No parent".
    pub const ROOT: u32 = u32::MAX;
}

layout! {
    /// One mesh vertex as stored in the payload (48 bytes, all little-endian f32).
    ///
    /// Also a zerocopy type in its own right (native `f32` fields, `#[repr(C)]`, no padding), so
    /// that on little-endian hosts an aligned payload is viewed as `&[Vertex]` without copying;
    /// other hosts decode through [`Vertex::from_bytes`].
    #[repr(C)]
    #[derive(
        Clone,
        Copy,
        Debug,
        PartialEq,
        Default,
        zerocopy::FromBytes,
        zerocopy::IntoBytes,
        zerocopy::KnownLayout,
        zerocopy::Immutable,
    )]
    pub struct Vertex (RawVertex, 48 bytes) {
        /// Position x, y, z.
        pub position: [f32; 3],
        /// Normal x, y, z.
        pub normal: [f32; 3],
        /// Texture coordinate u, v.
        pub uv: [f32; 2],
        /// Tangent x, y, z, w.
        pub tangent: [f32; 4],
    }
}
codec!(Vertex, RawVertex, AssetType::MESH);

// The native struct must have the on-disk size too, or the zero-copy cast would be wrong.
const _: () = assert!(size_of::<Vertex>() == Vertex::SIZE);
