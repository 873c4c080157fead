//! Decoding source images: the image crate's decoders (8-bit, 16-bit and float sources) under
//! size limits, and the stb-compatible PNG decoder of the original profile.

use std::io::Cursor;

use super::{check_dimensions, linear_to_srgb, to_u8, Pixels, MAX_DECODED_BYTES, MAX_DIMENSION};
use crate::error::{ImportError, Result};

const PNG_SIGNATURE: &[u8; 8] = b"\x89PNG\r\n\x1a\n";

fn image_limits() -> image::Limits {
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DIMENSION);
    limits.max_image_height = Some(MAX_DIMENSION);
    limits.max_alloc = Some(MAX_DECODED_BYTES * 2);
    limits
}

fn image_error(e: image::ImageError) -> ImportError {
    use image::ImageError as E;
    match e {
        E::Limits(l) => ImportError::unsupported("image", format!("resource limit: {l}")),
        E::Unsupported(u) => ImportError::unsupported("image", u.to_string()),
        other => ImportError::malformed("image", other.to_string()),
    }
}

/// Runs a decoder call, turning a panic into a malformed-image error.
///
/// Why: png 0.18.1 slices a short palette (`PLTE` of 2 bytes) as if it held whole RGB entries
/// and panics while expanding it; that is bad input, not a reason to take the process down.
fn png_guard<T>(f: impl FnOnce() -> T) -> Result<T> {
    voxcaf_guard::catch(f).map_err(|panic| {
        ImportError::malformed(
            "image",
            format!("inconsistent image data (the decoder gave up: {panic})"),
        )
    })
}

/// A decoded source image at its own precision.
#[derive(Clone, Debug, PartialEq)]
pub enum SourceImage {
    /// 8-bit samples (RGBA8).
    Rgba8(Pixels),
    /// 16-bit samples (16-bit PNG, any colour type), RGBA, row-major.
    Rgba16 {
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// `width * height * 4` samples.
        data: Vec<u16>,
    },
    /// Float samples (Radiance HDR, OpenEXR), linear light, RGBA, row-major.
    RgbaF32 {
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// `width * height * 4` samples.
        data: Vec<f32>,
    },
}

impl SourceImage {
    /// Reduce to RGBA8: 16-bit samples rounded (`(v * 255 + 32767) / 65535`); float samples
    /// clamped to 0..=1 (NaN to 0, see [`super::SampleRange::UNIT8`]) and, when `srgb`, encoded with the sRGB curve, else scaled linearly.
    pub fn into_rgba8(self, srgb: bool) -> Pixels {
        let (width, height) = self.size();
        let data = match self {
            SourceImage::Rgba8(p) => return p,
            SourceImage::Rgba16 { data, .. } => data
                .iter()
                .map(|&v| ((v as u32 * 255 + 32_767) / 65_535) as u8)
                .collect(),
            SourceImage::RgbaF32 { data, .. } => data
                .chunks_exact(4)
                .flat_map(|p| {
                    let c = |v: f32| {
                        let v = super::SampleRange::UNIT8.map(v);
                        if srgb {
                            to_u8(linear_to_srgb(v))
                        } else {
                            to_u8(v)
                        }
                    };
                    [
                        c(p[0]),
                        c(p[1]),
                        c(p[2]),
                        to_u8(super::SampleRange::UNIT8.map(p[3])),
                    ]
                })
                .collect(),
        };
        Pixels {
            width,
            height,
            channels: 4,
            data,
        }
    }

    /// Width and height in texels.
    fn size(&self) -> (u32, u32) {
        match self {
            SourceImage::Rgba8(p) => (p.width, p.height),
            SourceImage::Rgba16 { width, height, .. }
            | SourceImage::RgbaF32 { width, height, .. } => (*width, *height),
        }
    }
}

/// Decode an image with the `image` crate (PNG, JPEG, TGA, BMP, GIF, WebP, Radiance HDR,
/// OpenEXR) at its own precision: 16-bit sources stay 16-bit, float sources stay float,
/// everything else becomes RGBA8. The EXIF orientation (JPEG, PNG `eXIf`, WebP) is applied, so
/// the result is upright. The format is recognised from the contents; `ext` (a file extension)
/// is the fallback for formats without a signature such as TGA.
pub fn decode_source(bytes: &[u8], ext: Option<&str>) -> Result<SourceImage> {
    use image::ImageDecoder;
    if bytes.is_empty() {
        return Err(ImportError::empty("image", "the file is empty"));
    }
    let mut reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| ImportError::malformed("image", e.to_string()))?;
    if reader.format().is_none() {
        if let Some(f) = ext.and_then(image::ImageFormat::from_extension) {
            reader.set_format(f);
        } else {
            return Err(ImportError::unsupported(
                "image",
                "unknown image type (not PNG, JPEG, TGA, BMP, GIF, WebP, HDR or EXR)",
            ));
        }
    }
    reader.limits(image_limits());
    let img = png_guard(
        || -> std::result::Result<image::DynamicImage, image::ImageError> {
            let mut decoder = reader.into_decoder()?;
            // A missing or unreadable orientation tag means "as stored".
            let orientation = decoder
                .orientation()
                .unwrap_or(image::metadata::Orientation::NoTransforms);
            // `from_decoder` does not charge the decoded buffer against the reader's
            // `max_alloc`, so the size the header announces is checked here, before it is
            // allocated.
            if decoder.total_bytes() > MAX_DECODED_BYTES * 2 {
                return Err(image::ImageError::Limits(
                    image::error::LimitError::from_kind(
                        image::error::LimitErrorKind::InsufficientMemory,
                    ),
                ));
            }
            let mut img = image::DynamicImage::from_decoder(decoder)?;
            img.apply_orientation(orientation);
            Ok(img)
        },
    )?
    .map_err(image_error)?;
    let (width, height) = (img.width(), img.height());
    use image::DynamicImage as D;
    Ok(match img {
        D::ImageLuma16(_) | D::ImageLumaA16(_) | D::ImageRgb16(_) | D::ImageRgba16(_) => {
            check_dimensions(width, height, 8)?;
            SourceImage::Rgba16 {
                width,
                height,
                data: img.into_rgba16().into_raw(),
            }
        }
        D::ImageRgb32F(_) | D::ImageRgba32F(_) => {
            check_dimensions(width, height, 16)?;
            SourceImage::RgbaF32 {
                width,
                height,
                data: img.into_rgba32f().into_raw(),
            }
        }
        other => {
            let rgba = other.into_rgba8();
            check_dimensions(width, height, 4)?;
            SourceImage::Rgba8(Pixels {
                width,
                height,
                channels: 4,
                data: rgba.into_raw(),
            })
        }
    })
}

/// Decode an image with the `image` crate to RGBA8 ([`decode_source`], then 16-bit samples
/// rounded to 8 bits and float samples clamped and sRGB-encoded).
pub fn decode_image(bytes: &[u8], ext: Option<&str>) -> Result<Pixels> {
    Ok(decode_source(bytes, ext)?.into_rgba8(true))
}

/// Decode like the original's stb_image-based compiler: the format comes from the contents
/// only, the result is always RGBA8, 16-bit samples keep their high byte (`v >> 8`), 1/2/4-bit
/// grey is scaled to 0..255, palettes and tRNS are expanded, and PNG chunk CRCs and the zlib
/// checksum are not checked.
pub fn decode_image_original(bytes: &[u8]) -> Result<Pixels> {
    if !bytes.starts_with(PNG_SIGNATURE) {
        if bytes.is_empty() || image::guess_format(bytes).is_err() {
            return Err(ImportError::unsupported("image", "unknown image type"));
        }
        return decode_image(bytes, None);
    }
    let limits = png::Limits {
        bytes: (MAX_DECODED_BYTES * 2) as usize,
    };
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
    decoder.ignore_checksums(true);
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let png_err = |e: png::DecodingError| match e {
        png::DecodingError::LimitsExceeded => {
            ImportError::unsupported("PNG", "image exceeds the decoder's memory limit")
        }
        png::DecodingError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            ImportError::malformed("PNG", "truncated file (out of data)")
        }
        other => ImportError::malformed("PNG", other.to_string()),
    };
    let mut reader = decoder.read_info().map_err(png_err)?;
    let (width, height) = {
        let info = reader.info();
        (info.width, info.height)
    };
    check_dimensions(width, height, 4)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| ImportError::unsupported("PNG", "image too large"))?;
    let mut buf = vec![0u8; size];
    let frame = png_guard(|| reader.next_frame(&mut buf))?.map_err(png_err)?;
    buf.truncate(frame.buffer_size());
    if frame.bit_depth != png::BitDepth::Eight {
        return Err(ImportError::malformed(
            "PNG",
            format!("unexpected {:?} output after expansion", frame.bit_depth),
        ));
    }
    let src_channels = frame.color_type.samples();
    let texels = width as usize * height as usize;
    if buf.len() < texels * src_channels {
        return Err(ImportError::malformed(
            "PNG",
            "decoded data shorter than the image",
        ));
    }
    let mut data = Vec::with_capacity(texels * 4);
    let rows = buf.chunks_exact(frame.line_size).take(height as usize);
    for row in rows {
        let row = &row[..width as usize * src_channels];
        match src_channels {
            1 => row
                .iter()
                .for_each(|&g| data.extend_from_slice(&[g, g, g, 255])),
            2 => row
                .chunks_exact(2)
                .for_each(|p| data.extend_from_slice(&[p[0], p[0], p[0], p[1]])),
            3 => row
                .chunks_exact(3)
                .for_each(|p| data.extend_from_slice(&[p[0], p[1], p[2], 255])),
            _ => data.extend_from_slice(row),
        }
    }
    if data.len() != texels * 4 {
        return Err(ImportError::malformed(
            "PNG",
            "decoded data shorter than the image",
        ));
    }
    Ok(Pixels {
        width,
        height,
        channels: 4,
        data,
    })
}
