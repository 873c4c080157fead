//! Typed views over a verified [`Asset`]: each checks the type, the metadata size and the
//! payload size the metadata implies before handing out borrowed data.
//!
//! Views refuse assets whose COMPRESSED or ENCRYPTED flag is set: this crate does not define
//! those encodings yet, and handing out the stored bytes as pixels or samples would misread
//! them.

use std::borrow::Cow;

use zerocopy::little_endian::I16;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use crate::error::CafError;
use crate::header::{AssetType, CafFlags};
use crate::load::Asset;
use crate::meta::{AudioMetadata, ShaderMetadata, ShaderStage};

mod font;

mod mesh;
mod scene;
mod texture;

pub use font::{FontTables, FontView, MAX_FONT_ATLAS_SIDE, MAX_FONT_GLYPHS, MAX_FONT_KERNING};
pub use mesh::{MeshExt, MeshView};
pub use scene::{
    prefab_component, scene_component, PrefabComponent, PrefabEntity, PrefabView, SceneEntry,
    SceneSection, SceneView,
};
pub use texture::TextureView;

/// Refuse an asset of another type than `ty`, or with its payload COMPRESSED or ENCRYPTED.
pub(crate) fn expect_type(a: &Asset<'_>, ty: AssetType) -> Result<(), CafError> {
    if a.header.asset_type != ty {
        return Err(CafError::WrongType {
            expected: ty,
            found: a.header.asset_type,
        });
    }
    let encoded = CafFlags::COMPRESSED | CafFlags::ENCRYPTED;
    if a.header.flags.0 & encoded.0 != 0 {
        return Err(CafError::UnsupportedFlags {
            ty,
            flags: a.header.flags,
        });
    }
    Ok(())
}

fn payload_size(ty: AssetType, expected: Option<u64>, actual: usize) -> Result<(), CafError> {
    let actual = actual as u64;
    match expected {
        Some(e) if e == actual => Ok(()),
        e => Err(CafError::PayloadSize {
            ty,
            expected: e.unwrap_or(u64::MAX),
            actual,
        }),
    }
}

/// Reinterpret little-endian bytes as `T`s (a payload's vertices, indices or samples): borrowed
/// when aligned (and the host is little-endian), otherwise copied once and byte-swapped on a
/// big-endian host. Every field of `T` must be 4 bytes wide (`u32`, `f32`, `[f32; N]`).
/// Trailing bytes past the last whole `T` are ignored.
pub fn cast_or_copy<T>(bytes: &[u8]) -> Cow<'_, [T]>
where
    T: FromBytes + IntoBytes + KnownLayout + Immutable + Copy,
{
    if cfg!(target_endian = "little") {
        if let Ok(s) = <[T]>::ref_from_bytes(bytes) {
            return Cow::Borrowed(s);
        }
    }
    let mut v = vec![T::new_zeroed(); bytes.len() / std::mem::size_of::<T>()];
    let n = v.as_bytes().len(); // == bytes.len() when the precondition holds
    v.as_mut_bytes().copy_from_slice(&bytes[..n]);
    if cfg!(target_endian = "big") {
        // Every field of the types used here is 4 bytes wide.
        for w in v.as_mut_bytes().chunks_exact_mut(4) {
            w.reverse();
        }
    }
    Cow::Owned(v)
}

/// Interleaved PCM audio.
#[derive(Clone, Copy, Debug)]
pub struct AudioView<'a> {
    /// The metadata.
    pub meta: AudioMetadata,
    /// The interleaved little-endian samples.
    pub data: &'a [u8],
}

impl<'a> AudioView<'a> {
    /// Check an audio asset.
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::AUDIO;
        expect_type(a, ty)?;
        let meta = AudioMetadata::from_metadata(a.metadata)?;
        if !matches!(meta.bits_per_sample, 8 | 16 | 32) {
            return Err(CafError::BadMetadata {
                ty,
                field: "bits_per_sample",
                value: meta.bits_per_sample.into(),
                reason: "must be 8, 16 or 32",
            });
        }
        if meta.channels == 0 {
            return Err(CafError::BadMetadata {
                ty,
                field: "channels",
                value: 0,
                reason: "must be at least 1",
            });
        }
        let expected = u64::from(meta.sample_count)
            * u64::from(meta.channels)
            * u64::from(meta.bits_per_sample / 8);
        payload_size(ty, Some(expected), a.payload.len())?;
        Ok(AudioView {
            meta,
            data: a.payload,
        })
    }

    /// The samples as `i16` without copying, when 16-bit, little-endian host and aligned.
    pub fn samples_i16(&self) -> Option<&'a [i16]> {
        if self.meta.bits_per_sample != 16 || cfg!(target_endian = "big") {
            return None;
        }
        <[i16]>::ref_from_bytes(self.data).ok()
    }

    /// The 16-bit samples, borrowed when possible and copied otherwise; `None` unless 16-bit.
    pub fn samples_i16_cow(&self) -> Option<Cow<'a, [i16]>> {
        if self.meta.bits_per_sample != 16 {
            return None;
        }
        Some(match self.samples_i16() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(
                <[I16]>::ref_from_prefix_with_elems(self.data, self.data.len() / 2)
                    .map(|(v, _)| v.iter().map(|s| s.get()).collect())
                    .unwrap_or_default(),
            ),
        })
    }

    /// Frames (samples per channel).
    pub fn frames(&self) -> u32 {
        self.meta.sample_count
    }

    /// Duration in seconds (0 when the sample rate is 0).
    pub fn duration_secs(&self) -> f64 {
        if self.meta.sample_rate == 0 {
            return 0.0;
        }
        f64::from(self.meta.sample_count) / f64::from(self.meta.sample_rate)
    }
}

/// Shader bytecode.
#[derive(Clone, Copy, Debug)]
pub struct ShaderView<'a> {
    /// The metadata.
    pub meta: ShaderMetadata,
    /// The bytecode (SPIR-V for the original).
    pub bytecode: &'a [u8],
}

impl<'a> ShaderView<'a> {
    /// Check a shader asset (stage must be vertex, fragment or compute).
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::SHADER;
        expect_type(a, ty)?;
        let meta = ShaderMetadata::from_metadata(a.metadata)?;
        if ShaderStage(meta.stage).name().is_none() {
            return Err(CafError::BadMetadata {
                ty,
                field: "stage",
                value: meta.stage.into(),
                reason: "must be 0 (vertex), 1 (fragment) or 2 (compute)",
            });
        }
        Ok(ShaderView {
            meta,
            bytecode: a.payload,
        })
    }

    /// The stage.
    pub fn stage(&self) -> ShaderStage {
        ShaderStage(self.meta.stage)
    }

    /// The bytecode as 32-bit words, when its length is a multiple of 4 and it is aligned.
    pub fn words(&self) -> Option<&'a [u32]> {
        if cfg!(target_endian = "big") {
            return None;
        }
        <[u32]>::ref_from_bytes(self.bytecode).ok()
    }

    /// True when the bytecode starts with the SPIR-V magic number 0x07230203.
    pub fn is_spirv(&self) -> bool {
        self.bytecode.get(..4) == Some(&0x0723_0203u32.to_le_bytes())
    }
}
