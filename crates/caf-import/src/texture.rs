//! Textures: decoding (image crate, or stb-compatible for the original profile) to RGBA8 and
//! mip chains (`box`, `linear`).
//!
//! Level sizes halve with floor and never go below 1; the chain ends at 1×1. Levels are stored
//! largest first, back to back, without padding (CAF.md §4).

use std::io::Cursor;

use crate::error::{ImportError, Result};
use crate::settings::{MipFilter, Profile, Settings};

/// Largest width or height accepted for a texture.
pub const MAX_DIMENSION: u32 = 32_768;
/// Largest decoded image accepted, in bytes of RGBA8 (1 GiB).
pub const MAX_DECODED_BYTES: u64 = 1 << 30;

const PNG_SIGNATURE: &[u8; 8] = b"\x89PNG\r\n\x1a\n";

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

/// A texture ready to be written: all levels and what they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureData {
    /// Base level width.
    pub width: u32,
    /// Base level height.
    pub height: u32,
    /// Number of levels stored (1 = no mip chain).
    pub levels: u32,
    /// Whether the SRGB flag is set.
    pub srgb: bool,
    /// Every level back to back, largest first.
    pub payload: Vec<u8>,
}

/// The size of the level after `(w, h)`: halved with floor, at least 1.
pub fn next_level(w: u32, h: u32) -> (u32, u32) {
    ((w / 2).max(1), (h / 2).max(1))
}

/// The sizes of every level of a full chain starting at `(w, h)` and ending at 1×1.
pub fn level_sizes(w: u32, h: u32) -> Vec<(u32, u32)> {
    let mut out = vec![(w, h)];
    let (mut w, mut h) = (w, h);
    while w > 1 || h > 1 {
        (w, h) = next_level(w, h);
        out.push((w, h));
    }
    out
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
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|_| {
        ImportError::malformed("image", "inconsistent image data (the decoder gave up)")
    })
}

/// Decode an image with the `image` crate (PNG, JPEG, TGA, BMP, GIF, WebP) to RGBA8. The
/// format is recognised from the contents; `ext` (a file extension) is the fallback for
/// formats without a signature such as TGA. 16-bit samples are rounded to 8 bits.
pub fn decode_image(bytes: &[u8], ext: Option<&str>) -> Result<Pixels> {
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
                "unknown image type (not PNG, JPEG, TGA, BMP, GIF or WebP)",
            ));
        }
    }
    reader.limits(image_limits());
    let img = png_guard(|| reader.decode())?.map_err(image_error)?;
    let rgba = img.into_rgba8();
    let (width, height) = rgba.dimensions();
    check_dimensions(width, height, 4)?;
    Ok(Pixels {
        width,
        height,
        channels: 4,
        data: rgba.into_raw(),
    })
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

/// The original's mip chain: every next level is `floor(w/2) × floor(h/2)` (at least 1), each
/// texel the floor of the mean of the 2×2 (or smaller, at an edge) block of the previous level;
/// an odd last row or column is dropped. Returns every level including the base, and the count.
pub fn box_chain(width: u32, height: u32, channels: u8, base: &[u8]) -> Result<(Vec<u8>, u32)> {
    let expected = check_dimensions(width, height, channels)?;
    if !(1..=4).contains(&channels) || base.len() != expected {
        return Err(ImportError::InvalidArgument(format!(
            "{} bytes of pixels for {width}x{height} with {channels} channel(s), expected {expected}",
            base.len()
        )));
    }
    let c = channels as usize;
    let sizes = level_sizes(width, height);
    let total: usize = sizes
        .iter()
        .map(|&(w, h)| w as usize * h as usize * c)
        .sum();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(base);
    let mut prev_start = 0;
    for pair in sizes.windows(2) {
        let (w, h) = (pair[0].0 as usize, pair[0].1 as usize);
        let (dw, dh) = (pair[1].0 as usize, pair[1].1 as usize);
        let start = out.len();
        for y in 0..dh {
            for x in 0..dw {
                for ch in 0..c {
                    let mut sum = 0u32;
                    let mut count = 0u32;
                    for sy in [2 * y, 2 * y + 1] {
                        for sx in [2 * x, 2 * x + 1] {
                            if sx < w && sy < h {
                                sum += out[prev_start + (sy * w + sx) * c + ch] as u32;
                                count += 1;
                            }
                        }
                    }
                    out.push((sum / count.max(1)) as u8);
                }
            }
        }
        prev_start = start;
    }
    Ok((out, sizes.len() as u32))
}

/// Per destination texel: the first source index and the normalised weights of the source
/// texels its footprint covers (area weighting, so an odd last row/column is not lost).
fn taps(src: usize, dst: usize) -> Vec<(usize, Vec<f32>)> {
    let scale = src as f64 / dst as f64;
    (0..dst)
        .map(|i| {
            let start = i as f64 * scale;
            let end = (i + 1) as f64 * scale;
            let first = start.floor() as usize;
            let last = (end.ceil() as usize).min(src);
            let mut weights: Vec<f32> = (first..last)
                .map(|j| ((end.min(j as f64 + 1.0) - start.max(j as f64)) / scale) as f32)
                .collect();
            let sum: f32 = weights.iter().sum();
            weights.iter_mut().for_each(|w| *w /= sum);
            (first, weights)
        })
        .collect()
}

fn resample(src: &[f32], w: usize, h: usize, nc: usize, dw: usize, dh: usize) -> Vec<f32> {
    // Horizontal pass (w -> dw), then vertical (h -> dh).
    let tx = taps(w, dw);
    let mut tmp = vec![0f32; dw * h * nc];
    for y in 0..h {
        let row = &src[y * w * nc..(y + 1) * w * nc];
        let out = &mut tmp[y * dw * nc..(y + 1) * dw * nc];
        for (x, (first, weights)) in tx.iter().enumerate() {
            let o = &mut out[x * nc..(x + 1) * nc];
            for (k, &wt) in weights.iter().enumerate() {
                let s = &row[(first + k) * nc..(first + k + 1) * nc];
                for ch in 0..nc {
                    o[ch] += s[ch] * wt;
                }
            }
        }
    }
    let ty = taps(h, dh);
    let mut dst = vec![0f32; dw * dh * nc];
    for (y, (first, weights)) in ty.iter().enumerate() {
        let out = &mut dst[y * dw * nc..(y + 1) * dw * nc];
        for (k, &wt) in weights.iter().enumerate() {
            let row = &tmp[(first + k) * dw * nc..(first + k + 1) * dw * nc];
            for (o, s) in out.iter_mut().zip(row) {
                *o += s * wt;
            }
        }
    }
    dst
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear-light value -> nearest sRGB code, through the midpoints between codes (exact
/// round-to-nearest in sRGB space without a `powf` per sample).
struct SrgbEncoder {
    thresholds: Vec<f32>,
}

impl SrgbEncoder {
    fn new() -> Self {
        let thresholds = (1..256)
            .map(|k| srgb_to_linear((k as f32 - 0.5) / 255.0))
            .collect();
        SrgbEncoder { thresholds }
    }
    fn encode(&self, v: f32) -> u8 {
        self.thresholds.partition_point(|&t| t <= v) as u8
    }
}

fn to_u8(v: f32) -> u8 {
    (v * 255.0).round().clamp(0.0, 255.0) as u8
}

/// The default mip chain for RGBA8 data. For sRGB data each level averages in linear light,
/// colour weighted by alpha (so transparent texels do not darken edges), and is re-encoded
/// with rounding; linear data (normal maps, masks) is averaged per channel. Footprints are
/// area-weighted, so odd sizes keep every source texel. Levels are computed from full-precision
/// previous levels, not from the rounded bytes. Returns every level including the base.
pub fn linear_chain(width: u32, height: u32, base: &[u8], srgb: bool) -> Result<(Vec<u8>, u32)> {
    let expected = check_dimensions(width, height, 4)?;
    if base.len() != expected {
        return Err(ImportError::InvalidArgument(format!(
            "{} bytes of RGBA8 for {width}x{height}, expected {expected}",
            base.len()
        )));
    }
    let sizes = level_sizes(width, height);
    let total: usize = sizes
        .iter()
        .map(|&(w, h)| w as usize * h as usize * 4)
        .sum();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(base);
    if sizes.len() == 1 {
        return Ok((out, 1));
    }
    let encoder = SrgbEncoder::new();
    let lut: Vec<f32> = (0..256).map(|v| srgb_to_linear(v as f32 / 255.0)).collect();
    // Working layout: sRGB -> [r*a, g*a, b*a, a, r, g, b] in linear light; linear -> [r, g, b, a].
    let nc = if srgb { 7 } else { 4 };
    let mut cur: Vec<f32> = Vec::with_capacity(base.len() / 4 * nc);
    for p in base.chunks_exact(4) {
        if srgb {
            let a = p[3] as f32 / 255.0;
            let (r, g, b) = (lut[p[0] as usize], lut[p[1] as usize], lut[p[2] as usize]);
            cur.extend_from_slice(&[r * a, g * a, b * a, a, r, g, b]);
        } else {
            cur.extend(p.iter().map(|&v| v as f32 / 255.0));
        }
    }
    for pair in sizes.windows(2) {
        let (w, h) = (pair[0].0 as usize, pair[0].1 as usize);
        let (dw, dh) = (pair[1].0 as usize, pair[1].1 as usize);
        let next = resample(&cur, w, h, nc, dw, dh);
        for t in next.chunks_exact(nc) {
            if srgb {
                let a = t[3];
                let rgb = if a > 1.0 / 1024.0 {
                    [t[0] / a, t[1] / a, t[2] / a]
                } else {
                    [t[4], t[5], t[6]]
                };
                out.extend_from_slice(&[
                    encoder.encode(rgb[0]),
                    encoder.encode(rgb[1]),
                    encoder.encode(rgb[2]),
                    to_u8(a),
                ]);
            } else {
                out.extend(t.iter().map(|&v| to_u8(v)));
            }
        }
        cur = next;
    }
    Ok((out, sizes.len() as u32))
}

/// Turn decoded RGBA8 pixels into a texture following `settings` (mips, filter, sRGB, profile).
pub fn build_texture(px: Pixels, settings: &Settings) -> Result<TextureData> {
    let original = settings.profile == Profile::Original;
    let srgb = !original && settings.is_srgb();
    let (payload, levels) = if !settings.mips {
        check_dimensions(px.width, px.height, px.channels)?;
        (px.data, 1)
    } else if original || settings.mip_filter == MipFilter::Box || px.channels != 4 {
        box_chain(px.width, px.height, px.channels, &px.data)?
    } else {
        linear_chain(px.width, px.height, &px.data, srgb)?
    };
    Ok(TextureData {
        width: px.width,
        height: px.height,
        levels,
        srgb,
        payload,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `import_png` fuzz target: a 3×5 palette PNG whose tRNS/PLTE chunks were
    /// mangled made png 0.18.1 slice past its palette and panic while expanding it. Both
    /// decoders now answer with an error (or an image) instead.
    #[test]
    fn fuzz_regression_png_short_palette() {
        let hex: String = [
            "89504e470d0a1a0a0000000d4948445200000003000000050403000000725f4b910000002f504c5445ff0000",
            "00ff000000ffffffff0a141ef2c3d2cc0000000374524e530080ffecf7b31800000017490374524e530080ff",
            "ecf7b318000000174944415478da636054601032605076603061607010000008cf014b1e988a4d0044415478",
            "da636054601032605076603061607010000008cf014b00000000000000ff49454e44ae426082",
        ]
        .concat();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        for r in [
            decode_image(&bytes, Some("png")),
            decode_image_original(&bytes),
        ] {
            if let Err(e) = r {
                assert!(e.to_string().contains("image") || e.to_string().contains("PNG"));
            }
        }
    }

    #[test]
    fn level_sizes_follow_floor_halving() {
        assert_eq!(level_sizes(1, 1), vec![(1, 1)]);
        assert_eq!(level_sizes(5, 1), vec![(5, 1), (2, 1), (1, 1)]);
        assert_eq!(level_sizes(1, 9), vec![(1, 9), (1, 4), (1, 2), (1, 1)]);
        assert_eq!(level_sizes(257, 129).len(), 9);
    }

    #[test]
    fn box_drops_odd_column_and_floors() {
        // 3x1 grey: [10, 21, 200] -> 1x1 = floor((10+21)/2) = 15, 200 dropped.
        let (out, n) = box_chain(3, 1, 1, &[10, 21, 200]).unwrap();
        assert_eq!(n, 2);
        assert_eq!(out, vec![10, 21, 200, 15]);
    }

    #[test]
    fn box_rejects_wrong_length() {
        assert!(matches!(
            box_chain(2, 2, 4, &[0; 15]),
            Err(ImportError::InvalidArgument(_))
        ));
        assert!(box_chain(0, 2, 4, &[]).is_err());
    }

    #[test]
    fn linear_filter_uniform_stays_uniform_and_weights_alpha() {
        let base: Vec<u8> = [200u8, 100, 50, 255].repeat(5 * 3);
        let (out, n) = linear_chain(5, 3, &base, true).unwrap();
        assert_eq!(n, 3);
        assert!(out.chunks_exact(4).all(|p| p == [200, 100, 50, 255]));
        // A transparent black texel next to an opaque red one: colour stays red.
        let base = [255u8, 0, 0, 255, 0, 0, 0, 0];
        let (out, _) = linear_chain(2, 1, &base, true).unwrap();
        assert_eq!(&out[8..], &[255, 0, 0, 128]);
        // Linear light: mean of black and white is ~188 in sRGB, not 128.
        let base = [0u8, 0, 0, 255, 255, 255, 255, 255];
        let (out, _) = linear_chain(2, 1, &base, true).unwrap();
        assert_eq!(&out[8..], &[188, 188, 188, 255]);
        let (out, _) = linear_chain(2, 1, &base, false).unwrap();
        assert_eq!(&out[8..], &[128, 128, 128, 255]);
    }

    #[test]
    fn srgb_encoder_round_trips_every_code() {
        let e = SrgbEncoder::new();
        for v in 0..=255u8 {
            assert_eq!(e.encode(srgb_to_linear(v as f32 / 255.0)), v);
        }
    }
}
