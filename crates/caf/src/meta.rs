//! Fixed metadata structs (CAF.md section 4): little-endian, natural C layout, no padding.
//!
//! Each struct is declared once with [`layout!`](crate::layout): the public struct, its raw
//! zerocopy image and `SIZE`. `from_bytes` is a checked cast of exactly `SIZE` bytes, then
//! conversion; `to_bytes` is conversion, then the raw image's bytes.

use std::mem::size_of;

use zerocopy::FromBytes;

use crate::error::CafError;
use crate::header::AssetType;
use crate::layout::layout;

/// Checked cast of exactly `size_of::<R>()` bytes; the wrong length is a metadata size error
/// for `ty` (the raw images have alignment 1, so length is the only thing that can fail).
fn decode<R: FromBytes, T: From<R>>(ty: AssetType, b: &[u8]) -> Result<T, CafError> {
    R::read_from_bytes(b)
        .map(T::from)
        .map_err(|_| CafError::MetadataSize {
            ty,
            expected: size_of::<R>() as u64,
            actual: b.len() as u64,
        })
}

/// `from_bytes` and `to_bytes` for a struct declared with `layout!`; `$ty` is the asset type
/// named in size errors.
macro_rules! codec {
    ($name:ident, $raw:ident, $ty:expr) => {
        impl $name {
            /// Decode; the slice must be exactly [`Self::SIZE`] bytes (any alignment).
            pub fn from_bytes(b: &[u8]) -> Result<Self, CafError> {
                decode::<$raw, $name>($ty, b)
            }

            /// Encode to the little-endian on-disk bytes.
            pub fn to_bytes(&self) -> [u8; Self::SIZE] {
                zerocopy::transmute!($raw::from(self))
            }
        }
    };
}

layout! {
    /// Texture metadata (24 bytes).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct TextureMetadata (RawTextureMetadata, 24 bytes) {
        /// Width of level 0 in pixels.
        pub width: u32,
        /// Height of level 0 in pixels.
        pub height: u32,
        /// Pixel format: 0 = the original's 8-bit channels (count inferred), otherwise an
        /// `SDL_GPUTextureFormat` code ([`TextureFormat`](crate::TextureFormat)).
        pub format: u32,
        /// Number of stored levels (1 = no mip chain).
        pub mip_levels: u32,
        /// Reserved, 0.
        pub reserved: u64,
    }
}
codec!(TextureMetadata, RawTextureMetadata, AssetType::TEXTURE);

impl TextureMetadata {
    /// The only format value the original writes: 8 bits per channel (count inferred).
    pub const FORMAT_RGBA8: u32 = 0;
}

layout! {
    /// Audio metadata (16 bytes).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct AudioMetadata (RawAudioMetadata, 16 bytes) {
        /// Frames per second.
        pub sample_rate: u32,
        /// Interleaved channels.
        pub channels: u16,
        /// 8, 16 or 32.
        pub bits_per_sample: u16,
        /// Frames (samples per channel).
        pub sample_count: u32,
        /// Reserved, 0.
        pub reserved: u32,
    }
}
codec!(AudioMetadata, RawAudioMetadata, AssetType::AUDIO);

layout! {
    /// Mesh metadata (16 bytes, from the original's pipeline code).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct MeshMetadata (RawMeshMetadata, 16 bytes) {
        /// Number of 48-byte [`Vertex`](crate::Vertex) records.
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

/// Shader stage codes for [`ShaderMetadata::stage`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ShaderStage(pub u32);

impl ShaderStage {
    /// Vertex shader (0).
    pub const VERTEX: ShaderStage = ShaderStage(0);
    /// Fragment shader (1).
    pub const FRAGMENT: ShaderStage = ShaderStage(1);
    /// Compute shader (2).
    pub const COMPUTE: ShaderStage = ShaderStage(2);

    /// `"vertex"`, `"fragment"`, `"compute"`, or `None`.
    pub fn name(self) -> Option<&'static str> {
        match self {
            ShaderStage::VERTEX => Some("vertex"),
            ShaderStage::FRAGMENT => Some("fragment"),
            ShaderStage::COMPUTE => Some("compute"),
            _ => None,
        }
    }
}

layout! {
    /// Shader metadata (8 bytes).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct ShaderMetadata (RawShaderMetadata, 8 bytes) {
        /// A [`ShaderStage`] code.
        pub stage: u32,
        /// Reserved, 0.
        pub reserved: u32,
    }
}
codec!(ShaderMetadata, RawShaderMetadata, AssetType::SHADER);

layout! {
    /// Scene metadata (20 bytes; in the design followed by `archetype_count` [`ArchetypeDesc`]s,
    /// which the original's runtime writer never emits).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct SceneMetadata (RawSceneMetadata, 20 bytes) {
        /// Entities in the saved world.
        pub entity_count: u32,
        /// The original writes the number of payload sections here.
        pub archetype_count: u32,
        /// Relative to the metadata start; 0 = none.
        pub string_table_offset: u32,
        /// Relative to the metadata start; 0 = none.
        pub asset_ref_table_offset: u32,
        /// Reserved, 0.
        pub reserved: u32,
    }
}
codec!(SceneMetadata, RawSceneMetadata, AssetType::SCENE);

layout! {
    /// One archetype descriptor of the scene design (12 bytes).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct ArchetypeDesc (RawArchetypeDesc, 12 bytes) {
        /// Bit set of component types.
        pub component_mask: u32,
        /// Entities in this archetype.
        pub entity_count: u32,
        /// Offset into the payload.
        pub data_offset: u32,
    }
}
codec!(ArchetypeDesc, RawArchetypeDesc, AssetType::SCENE);

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_round_trips() {
        let t = TextureMetadata {
            width: 64,
            height: 32,
            format: 0,
            mip_levels: 7,
            reserved: 0,
        };
        assert_eq!(TextureMetadata::from_bytes(&t.to_bytes()).unwrap(), t);
        let a = AudioMetadata {
            sample_rate: 44100,
            channels: 2,
            bits_per_sample: 16,
            sample_count: 9,
            reserved: 0,
        };
        assert_eq!(AudioMetadata::from_bytes(&a.to_bytes()).unwrap(), a);
        let m = MeshMetadata {
            vertex_count: 3,
            index_count: 3,
            sub_mesh_count: 1,
            reserved: 0,
        };
        assert_eq!(MeshMetadata::from_bytes(&m.to_bytes()).unwrap(), m);
        let s = ShaderMetadata {
            stage: 2,
            reserved: 0,
        };
        assert_eq!(ShaderMetadata::from_bytes(&s.to_bytes()).unwrap(), s);
        let sc = SceneMetadata {
            entity_count: 5,
            archetype_count: 4,
            ..Default::default()
        };
        assert_eq!(SceneMetadata::from_bytes(&sc.to_bytes()).unwrap(), sc);
        let d = ArchetypeDesc {
            component_mask: 3,
            entity_count: 2,
            data_offset: 40,
        };
        assert_eq!(ArchetypeDesc::from_bytes(&d.to_bytes()).unwrap(), d);
        let v = Vertex {
            position: [1.0, 2.0, 3.0],
            tangent: [1.0, 0.0, 0.0, 1.0],
            ..Default::default()
        };
        assert_eq!(Vertex::from_bytes(&v.to_bytes()).unwrap(), v);
        assert_eq!(&v.to_bytes()[..], zerocopy::IntoBytes::as_bytes(&v));
        assert!(matches!(
            TextureMetadata::from_bytes(&[0; 8]),
            Err(CafError::MetadataSize {
                expected: 24,
                actual: 8,
                ..
            })
        ));
        assert!(AudioMetadata::from_bytes(&[0; 17]).is_err());
    }
}
