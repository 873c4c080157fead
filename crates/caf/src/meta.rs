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

/// The metadata struct's bytes of a file's metadata block `b`: `b` itself, or its first `size`
/// bytes when the rest is alignment padding (`docs/format/caf-extensions.md` section 8): fewer
/// than `payload_alignment()` zero bytes that end exactly where the payload becomes aligned
/// (32 + `b.len()` a multiple of it). Anything else is returned whole, so the size check
/// reports it.
pub fn strip_alignment_padding(ty: AssetType, b: &[u8], size: usize) -> &[u8] {
    let align = ty.payload_alignment();
    match b.split_at_checked(size) {
        Some((head, pad))
            if !pad.is_empty()
                && pad.len() < align
                && (crate::header::HEADER_SIZE + b.len()).is_multiple_of(align)
                && pad.iter().all(|&x| x == 0) =>
        {
            head
        }
        _ => b,
    }
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

            /// Decode a file's metadata block: exactly [`Self::SIZE`] bytes, or those followed
            /// by alignment padding (see [`strip_alignment_padding`]).
            pub fn from_metadata(b: &[u8]) -> Result<Self, CafError> {
                Self::from_bytes(strip_alignment_padding($ty, b, Self::SIZE))
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
    /// Animation metadata header (32 bytes, docs/format/caf-assets-ext.md section 3),
    /// followed by the clip table, the channel table and the name block.
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct AnimationMetadata (RawAnimationMetadata, 32 bytes) {
        /// Bytes "ANIM".
        pub magic: [u8; 4],
        /// 1.
        pub version: u16,
        /// 0.
        pub flags: u16,
        /// Number of [`ClipEntry`]s.
        pub clip_count: u32,
        /// Number of [`ChannelEntry`]s over all clips.
        pub channel_count: u32,
        /// Frames per second the clips were resampled at (a floor, see the spec).
        pub sample_rate: f32,
        /// Bytes of the name block at the end of the metadata.
        pub names_size: u32,
        /// Reserved, 0.
        pub reserved: [u32; 2],
    }
}
codec!(
    AnimationMetadata,
    RawAnimationMetadata,
    AssetType::ANIMATION
);

impl AnimationMetadata {
    /// The magic bytes.
    pub const MAGIC: [u8; 4] = *b"ANIM";
    /// The only version defined.
    pub const VERSION: u16 = 1;
    /// Most clips in one asset.
    pub const MAX_CLIPS: u32 = 4096;
    /// Most channels in one asset.
    pub const MAX_CHANNELS: u32 = 65536;
    /// Most frames in one clip.
    pub const MAX_FRAMES: u32 = 1 << 20;
    /// Largest name block.
    pub const MAX_NAMES: u32 = 1 << 20;
    /// Highest sample rate, frames per second.
    pub const MAX_RATE: f32 = 1000.0;

    /// Frames of a clip of `duration` seconds at `rate` frames per second: 1 for a zero
    /// duration, else `ceil(duration x rate) + 1` (in f64); `None` when not finite, negative
    /// or over [`Self::MAX_FRAMES`].
    pub fn frames(duration: f32, rate: f32) -> Option<u32> {
        if !(duration.is_finite() && duration >= 0.0 && rate.is_finite() && rate > 0.0) {
            return None;
        }
        if duration == 0.0 {
            return Some(1);
        }
        let n = (f64::from(duration) * f64::from(rate)).ceil() + 1.0;
        (n <= f64::from(Self::MAX_FRAMES)).then_some(n as u32)
    }
}

layout! {
    /// One clip (24 bytes): its channel range, frame count, duration and name.
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct ClipEntry (RawClipEntry, 24 bytes) {
        /// First entry of the clip in the channel table.
        pub first_channel: u32,
        /// Number of channels.
        pub channel_count: u32,
        /// Frames per (non-constant) channel: [`AnimationMetadata::frames`].
        pub frame_count: u32,
        /// Seconds.
        pub duration: f32,
        /// Start of the name in the name block.
        pub name_offset: u32,
        /// Length of the name in bytes (0 = none).
        pub name_length: u32,
    }
}
codec!(ClipEntry, RawClipEntry, AssetType::ANIMATION);

layout! {
    /// One animated property of one node (48 bytes).
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct ChannelEntry (RawChannelEntry, 48 bytes) {
        /// The glTF node animated.
        pub node: u32,
        /// The node's index in the skin's joint list, [`SubMeshEntry::NONE`] when no joint.
        pub joint: u32,
        /// [`ChannelEntry::TRANSLATION`], [`ChannelEntry::ROTATION`] or [`ChannelEntry::SCALE`].
        pub path: u8,
        /// [`ChannelEntry::LINEAR`] or [`ChannelEntry::STEP`].
        pub interpolation: u8,
        /// Reserved, 0.
        pub reserved: u16,
        /// The clip's frame count, or 1 for a constant channel.
        pub frame_count: u32,
        /// Byte offset of the values in the payload.
        pub data_offset: u32,
        /// Smallest value per component (T / S; 0 for R).
        pub min: [f32; 3],
        /// Largest value per component (T / S; 0 for R).
        pub max: [f32; 3],
        /// Largest deviation from the source curve (T / S: per component; R: radians).
        pub error_bound: f32,
    }
}
codec!(ChannelEntry, RawChannelEntry, AssetType::ANIMATION);

impl ChannelEntry {
    /// Path: translation.
    pub const TRANSLATION: u8 = 0;
    /// Path: rotation.
    pub const ROTATION: u8 = 1;
    /// Path: scale.
    pub const SCALE: u8 = 2;
    /// Interpolation between frames: linear (nlerp for rotations).
    pub const LINEAR: u8 = 0;
    /// Interpolation between frames: hold the previous frame.
    pub const STEP: u8 = 1;

    /// 16-bit values per frame: 4 for rotations, 3 otherwise.
    pub fn components(&self) -> usize {
        if self.path == Self::ROTATION {
            4
        } else {
            3
        }
    }

    /// "translation", "rotation", "scale", or `None`.
    pub fn path_name(&self) -> Option<&'static str> {
        match self.path {
            Self::TRANSLATION => Some("translation"),
            Self::ROTATION => Some("rotation"),
            Self::SCALE => Some("scale"),
            _ => None,
        }
    }
}

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

layout! {
    /// Font metadata (48 bytes, `docs/format/caf-font.md` section 1). Metrics are in ems (font
    /// units over `units_per_em`), y up from the baseline.
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct FontMetadata (RawFontMetadata, 48 bytes) {
        /// Layout version; 1 is the only defined value.
        pub version: u16,
        /// A [`FontFormat`] code: 1 SDF (R8), 2 MSDF (RGB8), 3 MTSDF (RGBA8).
        pub format: u16,
        /// Atlas width in pixels.
        pub atlas_width: u32,
        /// Atlas height in pixels.
        pub atlas_height: u32,
        /// Number of [`GlyphRecord`]s at the start of the payload.
        pub glyph_count: u32,
        /// Number of [`KerningRecord`]s after the glyph records.
        pub kerning_count: u32,
        /// Atlas pixels per em.
        pub em_size: f32,
        /// Total range of the distance field in atlas pixels.
        pub distance_range: f32,
        /// Ascent in ems (positive).
        pub ascent: f32,
        /// Descent in ems (negative).
        pub descent: f32,
        /// Line gap in ems.
        pub line_gap: f32,
        /// `unitsPerEm` of the source font.
        pub units_per_em: u32,
        /// Reserved, 0.
        pub reserved: u32,
    }
}
codec!(FontMetadata, RawFontMetadata, AssetType::FONT);

impl FontMetadata {
    /// The only defined layout version.
    pub const VERSION: u16 = 1;
}

/// Pixel formats of a font atlas ([`FontMetadata::format`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct FontFormat(pub u16);

impl FontFormat {
    /// Single-channel signed distance field, 1 byte per pixel.
    pub const SDF: FontFormat = FontFormat(1);
    /// Multi-channel signed distance field, RGB, 3 bytes per pixel.
    pub const MSDF: FontFormat = FontFormat(2);
    /// MSDF in RGB plus the true distance in alpha, 4 bytes per pixel.
    pub const MTSDF: FontFormat = FontFormat(3);

    /// Bytes per atlas pixel, or `None` for an undefined code.
    pub fn channels(self) -> Option<u32> {
        match self {
            FontFormat::SDF => Some(1),
            FontFormat::MSDF => Some(3),
            FontFormat::MTSDF => Some(4),
            _ => None,
        }
    }

    /// `"sdf"`, `"msdf"`, `"mtsdf"`, or `None`.
    pub fn name(self) -> Option<&'static str> {
        match self {
            FontFormat::SDF => Some("sdf"),
            FontFormat::MSDF => Some("msdf"),
            FontFormat::MTSDF => Some("mtsdf"),
            _ => None,
        }
    }
}

layout! {
    /// One glyph of a font asset (32 bytes); the table is sorted by codepoint.
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct GlyphRecord (RawGlyphRecord, 32 bytes) {
        /// Unicode scalar value.
        pub codepoint: u32,
        /// Left column of the glyph's atlas rectangle.
        pub atlas_x: u16,
        /// Top row of the glyph's atlas rectangle.
        pub atlas_y: u16,
        /// Width of the atlas rectangle (0 for a glyph without outline).
        pub atlas_width: u16,
        /// Height of the atlas rectangle (0 for a glyph without outline).
        pub atlas_height: u16,
        /// Left edge of the quad in ems, relative to the pen position.
        pub plane_left: f32,
        /// Bottom edge of the quad in ems (y up from the baseline).
        pub plane_bottom: f32,
        /// Right edge of the quad in ems.
        pub plane_right: f32,
        /// Top edge of the quad in ems.
        pub plane_top: f32,
        /// Horizontal advance in ems.
        pub advance: f32,
    }
}
codec!(GlyphRecord, RawGlyphRecord, AssetType::FONT);

layout! {
    /// One kerning pair of a font asset (12 bytes); the table is sorted by (left, right).
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct KerningRecord (RawKerningRecord, 12 bytes) {
        /// Codepoint of the first glyph.
        pub left: u32,
        /// Codepoint of the second glyph.
        pub right: u32,
        /// Added to the left glyph's advance, in ems.
        pub adjust: f32,
    }
}
codec!(KerningRecord, RawKerningRecord, AssetType::FONT);

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

    #[test]
    fn alignment_padding_is_accepted_only_where_it_aligns_the_payload() {
        let t = TextureMetadata {
            width: 3,
            height: 2,
            format: 0,
            mip_levels: 1,
            reserved: 0,
        };
        let mut b = t.to_bytes().to_vec();
        b.resize(32, 0); // 32 + 32: payload 16-aligned
        assert_eq!(TextureMetadata::from_metadata(&b).unwrap(), t);
        assert!(
            TextureMetadata::from_bytes(&b).is_err(),
            "from_bytes stays exact"
        );
        b.resize(48, 0); // a whole alignment unit more: not padding
        assert!(TextureMetadata::from_metadata(&b).is_err());
        b.resize(30, 0); // ends unaligned
        assert!(TextureMetadata::from_metadata(&b).is_err());
        let mut b = t.to_bytes().to_vec();
        b.resize(32, 0);
        b[31] = 1; // padding must be zero
        assert!(TextureMetadata::from_metadata(&b).is_err());
        // Meshes and shaders align to 32: 8-byte shader metadata pads to 32 (payload at 64).
        let s = ShaderMetadata::default();
        let mut b = s.to_bytes().to_vec();
        b.resize(32, 0);
        assert_eq!(ShaderMetadata::from_metadata(&b).unwrap(), s);
        b.resize(16, 0); // 32 + 16 is 16-aligned but not 32-aligned
        assert!(ShaderMetadata::from_metadata(&b).is_err());
    }
}
