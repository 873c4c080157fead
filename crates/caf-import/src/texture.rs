//! Textures: decoding (image crate, or stb-compatible for the original profile) to RGBA8 and
//! mip chains (`box`, `linear`).
//!
//! Level sizes halve with floor and never go below 1; the chain ends at 1×1. Levels are stored
//! largest first, back to back, without padding (CAF.md §4).

use crate::error::{ImportError, Result};
use crate::settings::{GpuFormat, MipFilter, Profile, Settings};

mod decode;
mod deep;
mod finite;
mod mips;
#[cfg(test)]
mod tests;

pub use crate::texture_data::{
    level_sizes, next_level, TextureData, MAX_DECODED_BYTES, MAX_DIMENSION,
};
pub use decode::{decode_image, decode_image_original, decode_source, SourceImage};
pub use finite::{NonFiniteSamples, SampleRange, TextureWarning};
pub use mips::{box_chain, linear_chain};

/// A decoded image: tightly packed rows of 8-bit samples, `channels` per texel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pixels {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Samples per texel (1..=4; the decoders always produce 4, RGBA).
    pub channels: u8,
    /// `width * height * channels` bytes, row-major, top row first.
    pub data: Vec<u8>,
}

fn check_dimensions(width: u32, height: u32, channels: u8) -> Result<usize> {
    if width == 0 || height == 0 {
        return Err(ImportError::empty(
            "image",
            format!("{width}x{height} has no texels"),
        ));
    }
    for (what, v) in [("width", width), ("height", height)] {
        if v > MAX_DIMENSION {
            return Err(ImportError::LimitExceeded {
                what,
                value: v as u64,
                limit: MAX_DIMENSION as u64,
            });
        }
    }
    let bytes = width as u64 * height as u64 * channels as u64;
    if bytes > MAX_DECODED_BYTES {
        return Err(ImportError::LimitExceeded {
            what: "decoded image bytes",
            value: bytes,
            limit: MAX_DECODED_BYTES,
        });
    }
    Ok(bytes as usize)
}

/// Turn decoded RGBA8 pixels into a texture following `settings` (mips, filter, sRGB, profile,
/// GPU format: the mip chain is built from the RGBA8 levels, then each level is encoded).
pub fn build_texture(px: Pixels, settings: &Settings) -> Result<TextureData> {
    let original = settings.profile == Profile::Original;
    let gpu = settings.gpu_format.unwrap_or(GpuFormat::Rgba8);
    if original && gpu != GpuFormat::Rgba8 {
        return Err(ImportError::unsupported(
            "image",
            format!("the original profile writes only RGBA8, not {gpu}"),
        ));
    }
    // BC5 holds two linear channels (normal maps): never sRGB.
    let srgb = !original && settings.is_srgb() && gpu != GpuFormat::Bc5;
    let (payload, levels) = if !settings.mips {
        check_dimensions(px.width, px.height, px.channels)?;
        (px.data, 1)
    } else if original || settings.mip_filter == MipFilter::Box || px.channels != 4 {
        box_chain(px.width, px.height, px.channels, &px.data)?
    } else {
        linear_chain(px.width, px.height, &px.data, srgb)?
    };
    let payload = if gpu == GpuFormat::Rgba8 {
        payload
    } else {
        if px.channels != 4 {
            return Err(ImportError::InvalidArgument(format!(
                "{gpu} encodes RGBA8 sources, not {} channel(s)",
                px.channels
            )));
        }
        crate::texture_gpu::encode_levels(gpu, px.width, px.height, levels, &payload, srgb)?
    };
    Ok(TextureData {
        width: px.width,
        height: px.height,
        levels,
        format: gpu.code(),
        srgb,
        payload,
    })
}

/// Turn a decoded source at any precision into a texture ([`build_source_with_warnings`]
/// without its warnings: callers that show warnings use that one).
pub fn build_source(src: SourceImage, settings: &Settings) -> Result<TextureData> {
    build_source_with_warnings(src, settings).map(|(t, _)| t)
}

/// Turn a decoded source at any precision into a texture, with what it did not keep. RGBA8
/// sources go through [`build_texture`]. Without a GPU format, 16-bit sources are stored as
/// R16G16B16A16_UNORM and float sources as R16G16B16A16_FLOAT, with mips filtered in f32
/// (area-weighted; 16-bit sRGB data averaged in linear light with colour weighted by alpha, as
/// the 8-bit chain does). With a GPU format, 16-bit sources are reduced to 8 bits first; float
/// sources accept only `rgba8` (no HDR block encoder is offered). NaN samples of float sources
/// become 0 and ±Inf the largest and lowest values of the stored format (±65504 as half
/// floats, 1 and 0 as 8 bits): [`TextureWarning::NonFinite`] counts them.
pub fn build_source_with_warnings(
    src: SourceImage,
    settings: &Settings,
) -> Result<(TextureData, Vec<TextureWarning>)> {
    let srgb = settings.is_srgb();
    match (&src, settings.gpu_format) {
        (SourceImage::Rgba8(_), _) | (SourceImage::Rgba16 { .. }, Some(_)) => {
            Ok((build_texture(src.into_rgba8(srgb), settings)?, Vec::new()))
        }
        (SourceImage::RgbaF32 { data, .. }, Some(GpuFormat::Rgba8)) => {
            let warning = NonFiniteSamples::count(data, SampleRange::UNIT8);
            let texture = build_texture(src.into_rgba8(srgb), settings)?;
            Ok((texture, warning.map(TextureWarning::NonFinite).into_iter().collect()))
        }
        (SourceImage::RgbaF32 { .. }, Some(g)) => Err(ImportError::unsupported(
            "image",
            format!(
                "float (HDR) sources cannot be encoded to {g}: store them as float (no --gpu-format) or choose rgba8"
            ),
        )),
        (SourceImage::Rgba16 { width, height, data }, None) => Ok((
            deep::build_rgba16(*width, *height, data, srgb, settings.mips),
            Vec::new(),
        )),
        (SourceImage::RgbaF32 { width, height, data }, None) => {
            let (texture, warning) = deep::build_float(*width, *height, data, settings.mips);
            Ok((texture, warning.into_iter().collect()))
        }
    }
}

fn linear_to_srgb(v: f32) -> f32 {
    if v <= 0.003_130_8 {
        v * 12.92
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    }
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// `(v * 255).round().clamp(0, 255)` without a libm call per sample: `x - trunc(x)` is exact
/// for these magnitudes, so this rounds half away from zero exactly as `round` does.
#[inline(always)]
fn to_u8(v: f32) -> u8 {
    let x = (v * 255.0).clamp(0.0, 255.0);
    let i = x as u32;
    (i + (x - i as f32 >= 0.5) as u32) as u8
}
