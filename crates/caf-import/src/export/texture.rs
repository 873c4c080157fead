//! Texture export: each mip level as a PNG (or OpenEXR for float formats).
//!
//! Format 0 (the original's 8-bit texels): R8 is written as a grey PNG, RGB8 and RGBA8 as
//! themselves, and RG8 as an RGB PNG whose blue channel is 0 (PNG has no two-channel colour
//! type; grey-with-alpha would misname the second channel). Every other stored format is
//! decoded by [`crate::texture_decode`]: 8-bit and block-compressed (BCn, ASTC) levels become
//! RGBA8 PNGs, 16-bit levels 16-bit PNGs, and float levels OpenEXR files (`.exr`, values kept
//! as stored, no tone mapping).

use std::path::Path;

use image::ImageEncoder;

use super::{sibling, ExportError, ExportFile, Result};

/// The PNG files of a texture: every level as `OUT-mipN.png`, or `level` alone as `OUT`.
pub fn export(asset: &caf::Asset<'_>, out: &Path, level: Option<u32>) -> Result<Vec<ExportFile>> {
    let view = caf::texture::TextureView::from_asset(asset)?;
    let count = view.level_count();
    let levels: Vec<usize> = match level {
        Some(l) if (l as usize) < count => vec![l as usize],
        Some(l) => return Err(ExportError::NoSuchLevel { level: l, count }),
        None => (0..count).collect(),
    };
    levels
        .into_iter()
        .map(|i| {
            let (w, h) = view.level_dims(i).unwrap_or((0, 0));
            let pixels = view.level(i).unwrap_or_default();
            let format = view.format_code();
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
