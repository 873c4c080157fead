//! The texture view: every stored mip level of any texture format.

use crate::container::header::{AssetType, CafFlags};
use crate::container::load::Asset;
use crate::container::view::{expect_type, payload_size};
use crate::error::CafError;
use crate::texture::TextureMetadata;
use crate::texture::{FormatClass, FormatInfo, FormatRefusal, TextureFormat};
use std::ops::Range;

/// Number of levels in a full chain down to 1x1.
fn full_chain_len(w: u32, h: u32) -> u32 {
    32 - w.max(h).leading_zeros()
}

/// A texture: one slice per mip level, largest first, in any format of
/// `docs/format/caf-textures.md` (the original's code 0, plain, packed, BCn and ASTC).
#[derive(Clone, Debug)]
pub struct TextureView<'a> {
    /// The metadata.
    pub meta: TextureMetadata,
    /// The format code's facts (name, block size, bytes per block).
    pub format: FormatInfo,
    /// For format 0: bytes per pixel (1..=4), inferred from the payload size. For every other
    /// format: 0 (the format says what a texel is).
    pub channels: u32,
    /// Whether the data is sRGB: the SRGB flag is set or the format is an `_SRGB` code.
    pub srgb: bool,
    levels: Vec<&'a [u8]>,
    dims: Vec<(u32, u32)>,
    ranges: Vec<Range<usize>>,
}

impl<'a> TextureView<'a> {
    /// Check and split a texture asset.
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::TEXTURE;
        expect_type(a, ty)?;
        let meta = TextureMetadata::from_metadata(a.metadata)?;
        let bad = |field, value: u64, reason| CafError::BadMetadata {
            ty,
            field,
            value,
            reason,
        };
        let code = TextureFormat(meta.format);
        let format = code.info().map_err(|r| {
            bad(
                "format",
                meta.format.into(),
                match r {
                    FormatRefusal::Depth => "a depth format (58..=62) is not a texture payload",
                    FormatRefusal::Unknown => {
                        "not a format code (0, or an SDL_GPUTextureFormat up to 104)"
                    }
                },
            )
        })?;
        if meta.width == 0 || meta.height == 0 {
            let (f, v) = if meta.width == 0 {
                ("width", meta.width)
            } else {
                ("height", meta.height)
            };
            return Err(bad(f, v.into(), "a texture needs at least one pixel"));
        }
        if meta.mip_levels == 0 || meta.mip_levels > full_chain_len(meta.width, meta.height) {
            return Err(bad(
                "mip_levels",
                meta.mip_levels.into(),
                "must be between 1 and the length of the full chain down to 1x1",
            ));
        }
        let mut dims = Vec::with_capacity(meta.mip_levels as usize);
        let (mut w, mut h) = (meta.width, meta.height);
        for _ in 0..meta.mip_levels {
            dims.push((w, h));
            w = (w / 2).max(1);
            h = (h / 2).max(1);
        }
        let len = a.payload.len() as u64;
        let too_big = || CafError::PayloadSize {
            ty,
            expected: u64::MAX,
            actual: len,
        };
        // Total bytes for a texel (block) size of `unit`, or None on overflow.
        let total = |unit: u32| -> Option<u64> {
            dims.iter().try_fold(0u64, |acc, &(w, h)| {
                acc.checked_add(code.level_bytes(w, h, unit)?)
            })
        };
        let channels = if format.class == FormatClass::Legacy8 {
            let texels = total(1).ok_or_else(too_big)?;
            let channels = if len.is_multiple_of(texels) {
                len / texels
            } else {
                0
            };
            if !(1..=4).contains(&channels) {
                return Err(CafError::PayloadSize {
                    ty,
                    expected: texels.saturating_mul(4),
                    actual: len,
                });
            }
            channels as u32
        } else {
            let expected = total(0).ok_or_else(too_big)?;
            payload_size(ty, Some(expected), a.payload.len())?;
            0
        };
        let mut levels = Vec::with_capacity(dims.len());
        let mut ranges = Vec::with_capacity(dims.len());
        let mut off = 0usize;
        for &(w, h) in &dims {
            // The sum of all level sizes equals the payload length (checked above), so every
            // level size fits in usize and no range runs past the payload.
            let n = code.level_bytes(w, h, channels).ok_or_else(too_big)? as usize;
            levels.push(&a.payload[off..off + n]);
            ranges.push(off..off + n);
            off += n;
        }
        Ok(TextureView {
            meta,
            format,
            channels,
            srgb: a.header.flags.contains(CafFlags::SRGB) || format.srgb,
            levels,
            dims,
            ranges,
        })
    }

    /// The format code.
    pub fn format_code(&self) -> TextureFormat {
        TextureFormat(self.meta.format)
    }

    /// All levels, largest first.
    pub fn levels(&self) -> &[&'a [u8]] {
        &self.levels
    }

    /// Level `i`, if stored.
    pub fn level(&self, i: usize) -> Option<&'a [u8]> {
        self.levels.get(i).copied()
    }

    /// The byte range of level `i` in the payload.
    pub fn level_range(&self, i: usize) -> Option<Range<usize>> {
        self.ranges.get(i).cloned()
    }

    /// Width and height of level `i`.
    pub fn level_dims(&self, i: usize) -> Option<(u32, u32)> {
        self.dims.get(i).copied()
    }

    /// Number of stored levels.
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }
}
