//! Texture export: each mip level as a PNG (or OpenEXR for float formats), or every level as
//! stored in one KTX2 file when the output is named `*.ktx2`.
//!
//! Format 0 (the original's 8-bit texels): R8 is written as a grey PNG, RGB8 and RGBA8 as
//! themselves, and RG8 as an RGB PNG whose blue channel is 0 (PNG has no two-channel colour
//! type; grey-with-alpha would misname the second channel). Every other stored format is
//! decoded by [`crate::texture_decode`]: 8-bit and block-compressed (BCn, ASTC) levels become
//! RGBA8 PNGs, 16-bit levels 16-bit PNGs, and float levels OpenEXR files (`.exr`, values kept
//! as stored, no tone mapping). Formats that cannot be decoded (BC6H, ASTC HDR) are refused
//! with [`ExportError::NotDecodable`], which names KTX2 as the way out: a KTX2 export writes the
//! stored bytes back unchanged with their `VkFormat` ([`crate::texture_gpu::write_ktx2`]).

use std::path::Path;

use image::ImageEncoder;

use super::{sibling, ExportError, ExportFile, Result};

/// The files of a texture: every level as `OUT-mipN.png`, or `level` alone as `OUT`; or, when
/// `out` ends in `.ktx2`, one KTX2 file of every level (or of `level` alone) as stored.
pub fn export(asset: &caf::Asset<'_>, out: &Path, level: Option<u32>) -> Result<Vec<ExportFile>> {
    let view = caf::texture::TextureView::from_asset(asset)?;
    let count = view.level_count();
    let levels: Vec<usize> = match level {
        Some(l) if (l as usize) < count => vec![l as usize],
        Some(l) => return Err(ExportError::NoSuchLevel { level: l, count }),
        None => (0..count).collect(),
    };
    let format = view.format_code();
    let ktx2 = out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ktx2"));
    if ktx2 {
        return export_ktx2(&view, out, &levels);
    }
    if !crate::texture_decode::is_decodable(format) {
        return Err(ExportError::NotDecodable {
            format: format.name(),
            code: format.0,
        });
    }
    levels
        .into_iter()
        .map(|i| {
            let (w, h) = view.level_dims(i).unwrap_or((0, 0));
            let pixels = view.level(i).unwrap_or_default();
            let (bytes, name, ext) = if format == caf::texture::TextureFormat::RGBA8_LEGACY {
                let (bytes, name) = encode_png(pixels, w, h, view.channels)?;
                (bytes, name, "png")
            } else {
                encode_decoded(format, view.channels, w, h, pixels)?
            };
            let path = match level {
                Some(_) => out.to_path_buf(),
                None => sibling(out, &format!("-mip{i}"), ext),
            };
            Ok(ExportFile {
                path,
                bytes,
                what: format!("PNG {w}x{h} {name}, level {i}"),
            })
        })
        .collect()
}

/// The KTX2 file of `levels` (consecutive, largest first) of a texture: the stored bytes with
/// the format's `VkFormat`.
fn export_ktx2(
    view: &caf::texture::TextureView<'_>,
    out: &Path,
    levels: &[usize],
) -> Result<Vec<ExportFile>> {
    let format = view.format_code();
    let encode = |message: String| ExportError::Encode {
        format: "KTX2",
        message,
    };
    let vk = crate::texture_gpu::code_to_vk(format, view.channels, view.srgb).ok_or_else(|| {
        encode(format!(
            "{} (format {}) has no Vulkan format to name in a KTX2 file",
            format.name(),
            format.0
        ))
    })?;
    let data: Vec<&[u8]> = levels
        .iter()
        .map(|&i| view.level(i).unwrap_or_default())
        .collect();
    let first = levels.first().copied().unwrap_or(0);
    let (w, h) = view.level_dims(first).unwrap_or((0, 0));
    let bytes =
        crate::texture_gpu::write_ktx2(vk, w, h, &data).map_err(|e| encode(e.to_string()))?;
    Ok(vec![ExportFile {
        path: out.to_path_buf(),
        bytes,
        what: format!(
            "KTX2 {w}x{h} {}, {} level{} as stored",
            format.name(),
            data.len(),
            if data.len() == 1 { "" } else { "s" }
        ),
    }])
}

/// A level of any other format, decoded to an image: PNG bytes (8 or 16 bits) or OpenEXR
/// bytes for float data, with a description and the file extension.
fn encode_decoded(
    format: caf::texture::TextureFormat,
    channels: u32,
    width: u32,
    height: u32,
    pixels: &[u8],
) -> Result<(Vec<u8>, &'static str, &'static str)> {
    let img = crate::texture_decode::decode_level(format, channels, width, height, pixels)
        .map_err(|e| ExportError::Encode {
            format: "an image",
            message: e.to_string(),
        })?;
    let (kind, name, ext) = match img {
        image::DynamicImage::ImageRgba32F(_) => (image::ImageFormat::OpenExr, "RGBA32F", "exr"),
        image::DynamicImage::ImageRgba16(_) => (image::ImageFormat::Png, "RGBA16", "png"),
        _ => (image::ImageFormat::Png, "RGBA8", "png"),
    };
    let mut bytes = std::io::Cursor::new(Vec::new());
    img.write_to(&mut bytes, kind)
        .map_err(|e| ExportError::Encode {
            format: if ext == "exr" { "OpenEXR" } else { "PNG" },
            message: e.to_string(),
        })?;
    Ok((bytes.into_inner(), name, ext))
}

/// One level's pixels (`channels` bytes each) as PNG bytes, with the source format's name.
pub fn encode_png(
    pixels: &[u8],
    width: u32,
    height: u32,
    channels: u32,
) -> Result<(Vec<u8>, &'static str)> {
    use image::ExtendedColorType as C;
    let expanded;
    let (data, color, name) = match channels {
        1 => (pixels, C::L8, "R8"),
        2 => {
            expanded = pixels
                .chunks_exact(2)
                .flat_map(|p| [p[0], p[1], 0])
                .collect::<Vec<u8>>();
            (&expanded[..], C::Rgb8, "RG8")
        }
        3 => (pixels, C::Rgb8, "RGB8"),
        4 => (pixels, C::Rgba8, "RGBA8"),
        n => {
            return Err(ExportError::Encode {
                format: "PNG",
                message: format!("{n} channels per pixel (1 to 4 can be written)"),
            })
        }
    };
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(data, width, height, color)
        .map_err(|e| ExportError::Encode {
            format: "PNG",
            message: e.to_string(),
        })?;
    Ok((png, name))
}
