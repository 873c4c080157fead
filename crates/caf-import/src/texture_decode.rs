//! Stored texture levels back to pixels, for export and quality checks: every format voxcaf
//! writes or passes through (`docs/format/caf-textures.md`) becomes an [`image::DynamicImage`].
//!
//! | stored | image | to write |
//! |---|---|---|
//! | 0 (1–4 × 8 bits), R8G8B8A8 (4, 52), B8G8R8A8 (12, 53), R8 (2), R8G8 (3) | `Rgba8` | 8-bit PNG |
//! | BC1, BC2, BC3, BC4, BC5, BC7, ASTC (UNORM and SRGB, every block size) | `Rgba8` (texture2ddecoder) | 8-bit PNG |
//! | R16G16B16A16_UNORM (7), R16_UNORM (5), R16G16_UNORM (6) | `Rgba16` | 16-bit PNG |
//! | R16G16B16A16_FLOAT (29), R32_FLOAT (30), R32G32B32A32_FLOAT (32) | `Rgba32F` | OpenEXR (no tone mapping) |
//!
//! Other codes (BC6H, ASTC HDR, integer, snorm and packed formats) are refused by name.

use caf::texture::{FormatClass, TextureFormat};
use image::DynamicImage;

use crate::error::{ImportError, Result};

fn unsupported(format: TextureFormat) -> ImportError {
    ImportError::unsupported(
        "texture",
        format!("cannot decode format {format} to an image"),
    )
}

/// Whether [`decode_level`] decodes `format` (the table above). The others (BC6H, ASTC HDR,
/// integer, snorm and packed formats) can be exported only as stored, to KTX2.
pub fn is_decodable(format: TextureFormat) -> bool {
    let Ok(info) = format.info() else {
        return false;
    };
    match (info.class, format.0) {
        (FormatClass::Legacy8, _) | (_, 2..=7 | 12 | 29 | 30 | 32 | 52 | 53) => true,
        (FormatClass::Bc | FormatClass::Astc, c) => !(19..=20).contains(&c) && c < 91,
        _ => false,
    }
}

/// Decode one stored level of `width × height` texels in `format` to an image. `channels`
/// is the texel size for format 0 (the view's inferred channel count) and ignored otherwise.
/// `data` must be exactly the level's bytes (`caf::texture::TextureView::level`).
pub fn decode_level(
    format: TextureFormat,
    channels: u32,
    width: u32,
    height: u32,
    data: &[u8],
) -> Result<DynamicImage> {
    let info = format.info().map_err(|_| unsupported(format))?;
    let expected = format.level_bytes(width, height, channels);
    if expected != Some(data.len() as u64) {
        return Err(ImportError::InvalidArgument(format!(
            "{} bytes for a {width}x{height} level of {format}, expected {expected:?}",
            data.len()
        )));
    }
    let (w, h) = (width as usize, height as usize);
    let rgba8 = |data: Vec<u8>| {
        image::RgbaImage::from_raw(width, height, data)
            .map(DynamicImage::ImageRgba8)
            .ok_or_else(|| ImportError::malformed("texture", "level size mismatch"))
    };
    let rgba16 = |data: Vec<u16>| {
        image::ImageBuffer::from_raw(width, height, data)
            .map(DynamicImage::ImageRgba16)
            .ok_or_else(|| ImportError::malformed("texture", "level size mismatch"))
    };
    let rgba32f = |data: Vec<f32>| {
        image::Rgba32FImage::from_raw(width, height, data)
            .map(DynamicImage::ImageRgba32F)
            .ok_or_else(|| ImportError::malformed("texture", "level size mismatch"))
    };
    let u16s = || {
        data.chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    match (info.class, format.0) {
        (FormatClass::Legacy8, _) => rgba8(
            data.chunks_exact(channels as usize)
                .flat_map(|p| match p {
                    [g] => [*g, *g, *g, 255],
                    [g, a] => [*g, *g, *g, *a],
                    [r, g, b] => [*r, *g, *b, 255],
                    _ => [p[0], p[1], p[2], p[3]],
                })
                .collect(),
        ),
        (_, 4 | 52) => rgba8(data.to_vec()),
        (_, 12 | 53) => rgba8(
            data.chunks_exact(4)
                .flat_map(|p| [p[2], p[1], p[0], p[3]])
                .collect(),
        ),
        (_, 2) => rgba8(data.iter().flat_map(|&r| [r, 0, 0, 255]).collect()),
        (_, 3) => rgba8(
            data.chunks_exact(2)
                .flat_map(|p| [p[0], p[1], 0, 255])
                .collect(),
        ),
        (_, 7) => rgba16(u16s().collect()),
        (_, 5) => rgba16(u16s().flat_map(|r| [r, 0, 0, u16::MAX]).collect()),
        (_, 6) => {
            let v: Vec<u16> = u16s().collect();
            rgba16(
                v.chunks_exact(2)
                    .flat_map(|p| [p[0], p[1], 0, u16::MAX])
                    .collect(),
            )
        }
        (_, 29) => rgba32f(u16s().map(|b| half::f16::from_bits(b).to_f32()).collect()),
        (_, 30 | 32) => {
            let v: Vec<f32> = data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            rgba32f(if format.0 == 30 {
                v.iter().flat_map(|&r| [r, 0.0, 0.0, 1.0]).collect()
            } else {
                v
            })
        }
        (FormatClass::Bc, c) | (FormatClass::Astc, c) if is_decodable(format) => {
            let mut px = vec![0u32; w * h];
            let (bw, bh) = (info.block_width as usize, info.block_height as usize);
            let r = voxcaf_guard::catch(|| match c {
                13 | 54 => texture2ddecoder::decode_bc1a(data, w, h, &mut px),
                14 | 55 => texture2ddecoder::decode_bc2(data, w, h, &mut px),
                15 | 56 => texture2ddecoder::decode_bc3(data, w, h, &mut px),
                16 => texture2ddecoder::decode_bc4(data, w, h, &mut px),
                17 => texture2ddecoder::decode_bc5(data, w, h, &mut px),
                18 | 57 => texture2ddecoder::decode_bc7(data, w, h, &mut px),
                _ => texture2ddecoder::decode_astc(data, w, h, bw, bh, &mut px),
            });
            match r {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    return Err(ImportError::malformed("texture", format!("{format}: {e}")))
                }
                Err(panic) => {
                    return Err(ImportError::malformed(
                        "texture",
                        format!("{format}: a block the decoder cannot read ({panic})"),
                    ))
                }
            }
            // texture2ddecoder packs texels as little-endian B, G, R, A.
            rgba8(
                px.iter()
                    .flat_map(|v| {
                        let [b, g, r, a] = v.to_le_bytes();
                        [r, g, b, a]
                    })
                    .collect(),
            )
        }
        _ => Err(unsupported(format)),
    }
}

/// Decode every level of a texture view, largest first.
pub fn decode_view(view: &caf::texture::TextureView<'_>) -> Result<Vec<DynamicImage>> {
    (0..view.level_count())
        .map(|i| {
            let (w, h) = view.level_dims(i).unwrap_or((0, 0));
            decode_level(
                view.format_code(),
                view.channels,
                w,
                h,
                view.level(i).unwrap_or(&[]),
            )
        })
        .collect()
}
