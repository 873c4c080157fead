//! What every fixed metadata struct (CAF.md section 4: little-endian, natural C layout, no
//! padding) shares. Each struct is declared once, in its asset type's module, with
//! [`layout!`](crate::container::layout) and [`codec!`]: the public struct, its raw zerocopy
//! image and `SIZE`. `from_bytes` is a checked cast of exactly `SIZE` bytes, then conversion;
//! `to_bytes` is conversion, then the raw image's bytes.

use std::mem::size_of;

use zerocopy::FromBytes;

use crate::container::header::AssetType;
use crate::error::CafError;

/// Checked cast of exactly `size_of::<R>()` bytes; the wrong length is a metadata size error
/// for `ty` (the raw images have alignment 1, so length is the only thing that can fail).
pub(crate) fn decode<R: FromBytes, T: From<R>>(ty: AssetType, b: &[u8]) -> Result<T, CafError> {
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
                && (crate::container::header::HEADER_SIZE + b.len()).is_multiple_of(align)
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
            pub fn from_bytes(b: &[u8]) -> Result<Self, $crate::CafError> {
                $crate::container::metadata::decode::<$raw, $name>($ty, b)
            }

            /// Decode a file's metadata block: exactly [`Self::SIZE`] bytes, or those followed
            /// by alignment padding (see [`strip_alignment_padding`](crate::strip_alignment_padding)).
            pub fn from_metadata(b: &[u8]) -> Result<Self, $crate::CafError> {
                Self::from_bytes($crate::strip_alignment_padding($ty, b, Self::SIZE))
            }

            /// Encode to the little-endian on-disk bytes.
            pub fn to_bytes(&self) -> [u8; Self::SIZE] {
                zerocopy::transmute!($raw::from(self))
            }
        }
    };
}

pub(crate) use codec;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audio::AudioMetadata;
    use crate::mesh::{MeshMetadata, Vertex};
    use crate::scene::{ArchetypeDesc, SceneMetadata};
    use crate::shader::ShaderMetadata;
    use crate::texture::TextureMetadata;

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
