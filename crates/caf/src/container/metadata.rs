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

/// A header that opens an extension's metadata (the extended mesh's `MSHX`, the skin's `SKIN`,
/// the animation's `ANIM`): magic bytes, an optional version, then fields of its own. Checked
/// by [`ext_header`], the one check all three share; implemented with [`ext_header_impl!`].
pub(crate) trait ExtHeader: Sized {
    /// The asset type named in errors.
    const TYPE: AssetType;
    /// Encoded size in bytes.
    const SIZE: usize;
    /// The magic bytes the header starts with.
    const MAGIC: [u8; 4];
    /// The field named when the magic is wrong (`"ext.magic"`, ...).
    const MAGIC_FIELD: &'static str;
    /// Why a wrong magic is refused (`"a skin starts with \"SKIN\""`, ...).
    const MAGIC_REASON: &'static str;

    /// Decode exactly [`Self::SIZE`] bytes.
    fn decode(b: &[u8]) -> Result<Self, CafError>;
    /// The magic bytes read.
    fn magic(&self) -> [u8; 4];
    /// The field named when the version is wrong, the version read and the only one defined;
    /// `None` (the default) for a header without a version.
    fn version(&self) -> Option<(&'static str, u64, u64)> {
        None
    }
    /// The first of the header's own field checks (stream bits, flags, reserved fields) that
    /// fails, as (field, value, reason).
    fn fields_fault(&self) -> Option<(&'static str, u64, &'static str)>;
}

/// `impl ExtHeader` for a struct declared with `layout!` and `codec!` that has a `magic` field
/// and inherent `MAGIC` (and, with `version`, a `version` field and `VERSION`) constants:
/// `ext_header_impl!(Name: asset_type, magic "field" ("reason"), version "field"; fn fields_fault ...)`.
/// The items after `;` (at least `fields_fault`) go into the impl as they are.
macro_rules! ext_header_impl {
    ($name:ident: $ty:expr, magic $magic_field:literal ($magic_reason:literal), version $version_field:literal; $($items:tt)*) => {
        $crate::container::metadata::ext_header_impl!($name: $ty, magic $magic_field ($magic_reason);
            fn version(&self) -> Option<(&'static str, u64, u64)> {
                Some(($version_field, self.version.into(), Self::VERSION.into()))
            }
            $($items)*
        );
    };
    ($name:ident: $ty:expr, magic $magic_field:literal ($magic_reason:literal); $($items:tt)*) => {
        impl $crate::container::metadata::ExtHeader for $name {
            const TYPE: $crate::AssetType = $ty;
            const SIZE: usize = Self::SIZE;
            const MAGIC: [u8; 4] = Self::MAGIC;
            const MAGIC_FIELD: &'static str = $magic_field;
            const MAGIC_REASON: &'static str = $magic_reason;

            fn decode(b: &[u8]) -> Result<Self, $crate::CafError> {
                Self::from_bytes(b)
            }
            fn magic(&self) -> [u8; 4] {
                self.magic
            }
            $($items)*
        }
    };
}

pub(crate) use ext_header_impl;

/// The extension header `H` at the start of `b`, checked in order: `b` holds it (else
/// [`CafError::MetadataSize`]), its magic, its version (only version 1 is defined) and its own
/// fields ([`CafError::BadMetadata`] naming the field).
pub(crate) fn ext_header<H: ExtHeader>(b: &[u8]) -> Result<H, CafError> {
    let bad = |field: &'static str, value: u64, reason: &'static str| CafError::BadMetadata {
        ty: H::TYPE,
        field,
        value,
        reason,
    };
    let head = b.get(..H::SIZE).ok_or(CafError::MetadataSize {
        ty: H::TYPE,
        expected: H::SIZE as u64,
        actual: b.len() as u64,
    })?;
    let h = H::decode(head)?;
    if h.magic() != H::MAGIC {
        let found = u32::from_le_bytes(h.magic());
        return Err(bad(H::MAGIC_FIELD, found.into(), H::MAGIC_REASON));
    }
    if let Some((field, found, defined)) = h.version() {
        if found != defined {
            return Err(bad(field, found, "only version 1 is defined"));
        }
    }
    match h.fields_fault() {
        Some((field, value, reason)) => Err(bad(field, value, reason)),
        None => Ok(h),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audio::AudioMetadata;
    use crate::mesh::{MeshMetadata, Vertex};
    use crate::scene::{ArchetypeDesc, SceneMetadata};
    use crate::shader::ShaderMetadata;
    use crate::texture::TextureMetadata;

    /// Asserts that each `Type { fields }` value decodes back from its bytes.
    macro_rules! assert_round_trip {
        ($($ty:ident $fields:tt),* $(,)?) => {$({
            let v = $ty $fields;
            assert_eq!($ty::from_bytes(&v.to_bytes()).unwrap(), v);
        })*};
    }

    #[test]
    fn sizes_and_round_trips() {
        let t = TextureMetadata::rgba8(64, 32, 7);
        assert_eq!(TextureMetadata::from_bytes(&t.to_bytes()).unwrap(), t);
        assert_round_trip!(
            AudioMetadata {
                sample_rate: 44100,
                channels: 2,
                bits_per_sample: 16,
                sample_count: 9,
                reserved: 0,
            },
            MeshMetadata {
                vertex_count: 3,
                index_count: 3,
                sub_mesh_count: 1,
                reserved: 0,
            },
            ShaderMetadata {
                stage: 2,
                reserved: 0,
            },
            SceneMetadata {
                entity_count: 5,
                archetype_count: 4,
                ..Default::default()
            },
            ArchetypeDesc {
                component_mask: 3,
                entity_count: 2,
                data_offset: 40,
            },
        );
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
        let t = TextureMetadata::rgba8(3, 2, 1);
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

    /// The field an extension header check refuses `b` for, or `"ok"`.
    fn refused_field<H: ExtHeader>(b: &[u8]) -> &'static str {
        match ext_header::<H>(b) {
            Ok(_) => "ok",
            Err(CafError::BadMetadata { field, .. }) => field,
            Err(CafError::MetadataSize { .. }) => "size",
            Err(_) => "other error",
        }
    }

    /// A closure taking a change `f`: the field [`refused_field`] names for a copy of the
    /// header `$h` (of type `$ty`) that `f` changed.
    macro_rules! refused_after {
        ($ty:ty, $h:expr) => {
            |f: fn(&mut $ty)| {
                let mut h = $h;
                f(&mut h);
                refused_field::<$ty>(&h.to_bytes())
            }
        };
    }

    #[test]
    fn ext_header_checks_size_magic_version_then_own_fields() {
        use crate::animation::AnimationMetadata;
        use crate::mesh::{MeshExtHeader, SkinHeader};

        let mesh = MeshExtHeader::new(MeshExtHeader::COLOR0);
        let mut bytes = mesh.to_bytes().to_vec();
        assert_eq!(refused_field::<MeshExtHeader>(&bytes), "ok");
        bytes.push(9); // what follows the header is not its business
        assert_eq!(refused_field::<MeshExtHeader>(&bytes), "ok");
        assert_eq!(refused_field::<MeshExtHeader>(&bytes[..31]), "size");
        let m = refused_after!(MeshExtHeader, mesh);
        // Each case also breaks every later check: the first failing check is reported.
        assert_eq!(
            m(|h| (h.magic, h.version, h.reserved0) = (*b"MSHY", 2, 1)),
            "ext.magic"
        );
        assert_eq!(m(|h| (h.version, h.streams) = (2, 1 << 31)), "ext.version");
        assert_eq!(
            m(|h| (h.streams, h.reserved0) = (1 << 31, 1)),
            "ext.streams"
        );
        assert_eq!(m(|h| h.reserved = [0, 0, 0, 1]), "ext.reserved");

        let skin = SkinHeader {
            magic: SkinHeader::MAGIC,
            joint_count: 1,
            ..SkinHeader::default()
        };
        let s = refused_after!(SkinHeader, skin);
        assert_eq!(s(|_| ()), "ok");
        assert_eq!(s(|h| (h.magic, h.reserved) = (*b"SKIM", 1)), "skin.magic");
        assert_eq!(s(|h| h.reserved = 1), "skin.reserved");
        assert_eq!(refused_field::<SkinHeader>(&[0; 79]), "size");

        let anim = AnimationMetadata {
            magic: AnimationMetadata::MAGIC,
            version: AnimationMetadata::VERSION,
            ..AnimationMetadata::default()
        };
        let a = refused_after!(AnimationMetadata, anim);
        assert_eq!(a(|_| ()), "ok");
        assert_eq!(a(|h| (h.magic, h.version) = (*b"ANIN", 0)), "magic");
        assert_eq!(a(|h| (h.version, h.flags) = (2, 1)), "version");
        assert_eq!(a(|h| h.flags = 1), "flags");
        assert_eq!(a(|h| h.reserved = [0, 3]), "flags");
    }
}
