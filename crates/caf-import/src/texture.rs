//! Textures: decoding (image crate, or stb-compatible for the original profile) to RGBA8 and
//! mip chains (`box`, `linear`).
//!
//! Level sizes halve with floor and never go below 1; the chain ends at 1×1. Levels are stored
//! largest first, back to back, without padding (CAF.md §4).

use std::io::Cursor;

use crate::error::{ImportError, Result};
use crate::settings::{GpuFormat, MipFilter, Profile, Settings};

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
    /// The format code (the `_UNORM` one; [`Converted::from_texture`](crate::Converted::from_texture)
    /// writes the `_SRGB` twin when `srgb` is set).
    pub format: caf::TextureFormat,
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
    /// clamped to 0..=1 and, when `srgb`, encoded with the sRGB curve, else scaled linearly.
    pub fn into_rgba8(self, srgb: bool) -> Pixels {
        match self {
            SourceImage::Rgba8(p) => p,
            SourceImage::Rgba16 {
                width,
                height,
                data,
            } => Pixels {
                width,
                height,
                channels: 4,
                data: data
                    .iter()
                    .map(|&v| ((v as u32 * 255 + 32_767) / 65_535) as u8)
                    .collect(),
            },
            SourceImage::RgbaF32 {
                width,
                height,
                data,
            } => Pixels {
                width,
                height,
                channels: 4,
                data: data
                    .chunks_exact(4)
                    .flat_map(|p| {
                        let c = |v: f32| {
                            let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
                            if srgb {
                                to_u8(linear_to_srgb(v))
                            } else {
                                to_u8(v)
                            }
                        };
                        [c(p[0]), c(p[1]), c(p[2]), to_u8(p[3].clamp(0.0, 1.0))]
                    })
                    .collect(),
            },
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

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear-light value -> nearest sRGB code, through the midpoints between codes (exact
/// round-to-nearest in sRGB space without a `powf` per sample). A 4096-entry table gives the
/// code at the bottom of the value's bucket; buckets (1/4096 wide) are narrower than the
/// closest two midpoints (1/(255 · 12.92) apart, in the linear segment), so at most one
/// midpoint lies inside a bucket and one branch-free step up (or down, when the float index
/// rounded up into the next bucket) finishes the search: the result is exactly the midpoint
/// search's.
struct SrgbEncoder {
    /// `thresholds[k]`: linear value of the midpoint between codes `k` and `k + 1`; entry 255
    /// is +infinity, so the step up never passes code 255.
    thresholds: [f32; 256],
    coarse: Box<[u8; ENCODER_BUCKETS + 1]>,
}

const ENCODER_BUCKETS: usize = 4096;

impl SrgbEncoder {
    fn new() -> Self {
        let thresholds: [f32; 256] = std::array::from_fn(|k| {
            if k < 255 {
                srgb_to_linear((k as f32 + 0.5) / 255.0)
            } else {
                f32::INFINITY
            }
        });
        let search = |v: f32| thresholds.partition_point(|&t| t <= v) as u8;
        let mut coarse = Box::new([0u8; ENCODER_BUCKETS + 1]);
        for (i, c) in coarse.iter_mut().enumerate() {
            *c = search(i as f32 / ENCODER_BUCKETS as f32);
        }
        SrgbEncoder { thresholds, coarse }
    }

    #[inline(always)]
    fn encode(&self, v: f32) -> u8 {
        // NaN never reaches here (weights and inputs are finite); clamp keeps the index valid.
        let v = v.clamp(0.0, 1.0);
        // The bucket, rounded to nearest by the 2^23 trick (no saturating float-to-int
        // conversion): a bucket one too high is what the step down below is for.
        let i = ((v * ENCODER_BUCKETS as f32 + 8_388_608.0).to_bits() & 0x7f_ffff) as usize;
        let c = self.coarse[i.min(ENCODER_BUCKETS)] as usize;
        // One step up when the bucket's midpoint is at or below v ...
        let c = c + (self.thresholds[c] <= v) as usize;
        // ... or one down when the index rounded up past a midpoint above v.
        let c = c - (c > 0 && self.thresholds[c.saturating_sub(1)] > v) as usize;
        c as u8
    }
}

/// A 16-bit sample to the f32 working value of the 16-bit mip chain.
type Decode16 = fn(u16) -> f32;
/// A working value back to a 16-bit sample.
type Encode16 = fn(f32) -> u16;

/// `(v * 255).round().clamp(0, 255)` without a libm call per sample: `x - trunc(x)` is exact
/// for these magnitudes, so this rounds half away from zero exactly as `round` does.
#[inline(always)]
fn to_u8(v: f32) -> u8 {
    let x = (v * 255.0).clamp(0.0, 255.0);
    let i = x as u32;
    (i + (x - i as f32 >= 0.5) as u32) as u8
}

/// Where the texels of the level being filtered come from: the base level's RGBA8 bytes
/// (decoded to linear light row by row, so the base never gets an f32 copy) or the previous
/// level's full-precision working values.
#[derive(Clone, Copy)]
enum Source<'a> {
    Bytes(&'a [u8]),
    Work(&'a [f32]),
}

/// Working channels per texel: sRGB -> [r*a, g*a, b*a, a, r, g, b, 0] in linear light (colour
/// weighted by alpha, plus the plain colour for fully transparent footprints, padded to eight
/// so that a texel is two whole SIMD vectors); linear data -> [r, g, b, a].
fn working_channels(srgb: bool) -> usize {
    if srgb {
        8
    } else {
        4
    }
}

/// The filter's constant tables, shared by every row of every level.
struct Tables {
    srgb: bool,
    nc: usize,
    /// sRGB code -> linear light.
    lut: [f32; 256],
    /// Code -> code / 255 (alpha, and every channel of linear data).
    unit: [f32; 256],
    encoder: SrgbEncoder,
}

impl Tables {
    /// Working channels of one RGBA8 texel (the first `nc` entries are used).
    #[inline(always)]
    fn texel(&self, p: &[u8]) -> [f32; 8] {
        if self.srgb {
            let a = self.unit[p[3] as usize];
            let (r, g, b) = (
                self.lut[p[0] as usize],
                self.lut[p[1] as usize],
                self.lut[p[2] as usize],
            );
            [r * a, g * a, b * a, a, r, g, b, 0.0]
        } else {
            let u = |v: u8| self.unit[v as usize];
            [u(p[0]), u(p[1]), u(p[2]), u(p[3]), 0.0, 0.0, 0.0, 0.0]
        }
    }

    /// Adds `weight ×` source row `y` (`w` texels) to `acc` (working channels).
    #[inline]
    fn accumulate(&self, src: Source<'_>, w: usize, y: usize, weight: f32, acc: &mut [f32]) {
        let nc = self.nc;
        match src {
            Source::Work(work) => {
                let row = &work[y * w * nc..(y + 1) * w * nc];
                for (a, &v) in acc.iter_mut().zip(row) {
                    *a += v * weight;
                }
            }
            Source::Bytes(bytes) => {
                let row = &bytes[y * w * 4..(y + 1) * w * 4];
                for (a, p) in acc.chunks_exact_mut(nc).zip(row.chunks_exact(4)) {
                    let t = self.texel(p);
                    for (a, t) in a.iter_mut().zip(t) {
                        *a += t * weight;
                    }
                }
            }
        }
    }

    /// Encodes one working texel to RGBA8.
    #[inline(always)]
    fn encode(&self, t: &[f32], out: &mut [u8]) {
        if self.srgb {
            let a = t[3];
            let rgb = if a > 1.0 / 1024.0 {
                // One division: the reciprocal is within an ulp of each quotient, far below
                // the encoder's resolution (the f64 reference test bounds the whole chain).
                let inv = 1.0 / a;
                [t[0] * inv, t[1] * inv, t[2] * inv]
            } else {
                [t[4], t[5], t[6]]
            };
            out[0] = self.encoder.encode(rgb[0]);
            out[1] = self.encoder.encode(rgb[1]);
            out[2] = self.encoder.encode(rgb[2]);
            out[3] = to_u8(a);
        } else {
            for (o, &v) in out.iter_mut().zip(t) {
                *o = to_u8(v);
            }
        }
    }
}

/// Levels with at least this many texels are filtered on rayon's threads, row by row.
const PARALLEL_TEXELS: usize = 128 * 128;

/// One destination row `y` of the level after `(w, h)`: vertical taps into `acc` (a source
/// row's width of working values), then horizontal taps into the working row `work` (if the
/// chain goes on) and the encoded bytes `bytes`.
#[allow(clippy::too_many_arguments)]
fn filter_row(
    t: &Tables,
    src: Source<'_>,
    w: usize,
    ty: &(usize, Vec<f32>),
    tx: &[(usize, Vec<f32>)],
    acc: &mut Vec<f32>,
    work: Option<&mut [f32]>,
    bytes: &mut [u8],
) {
    let nc = t.nc;
    if let Some(y) = even_pair(ty, tx, w) {
        return filter_row_even(t, src, w, y, work, bytes);
    }
    acc.clear();
    acc.resize(w * nc, 0.0);
    let (first, weights) = ty;
    for (k, &wt) in weights.iter().enumerate() {
        t.accumulate(src, w, first + k, wt, acc);
    }
    let mut texel = [0f32; 8];
    let texel = &mut texel[..nc];
    let mut work = work;
    for (x, (first, weights)) in tx.iter().enumerate() {
        texel.fill(0.0);
        for (k, &wt) in weights.iter().enumerate() {
            let s = &acc[(first + k) * nc..(first + k + 1) * nc];
            for (o, &v) in texel.iter_mut().zip(s) {
                *o += v * wt;
            }
        }
        if let Some(work) = work.as_deref_mut() {
            work[x * nc..(x + 1) * nc].copy_from_slice(texel);
        }
        t.encode(texel, &mut bytes[x * 4..(x + 1) * 4]);
    }
}

/// When both footprints of this row are exact halvings (even sizes: two source texels of
/// weight ½ each way), the first of the two source rows.
#[inline]
fn even_pair(ty: &(usize, Vec<f32>), tx: &[(usize, Vec<f32>)], w: usize) -> Option<usize> {
    let half = |t: &(usize, Vec<f32>)| t.1.len() == 2 && t.1[0] == 0.5 && t.1[1] == 0.5;
    (w % 2 == 0 && tx.len() * 2 == w && half(ty) && tx.first().is_some_and(half)).then_some(ty.0)
}

/// One row of working texels to halve: the base level's RGBA8 bytes (decoded as read) or a
/// previous level's working values.
#[derive(Clone, Copy)]
enum Row<'a> {
    Bytes(&'a [u8]),
    Work(&'a [f32]),
}

impl Row<'_> {
    /// The `N` working channels of texel `x` (`N` is `t.nc`).
    #[inline(always)]
    fn texel<const N: usize>(self, t: &Tables, x: usize) -> [f32; N] {
        match self {
            Row::Bytes(b) => {
                let v = t.texel(&b[x * 4..][..4]);
                std::array::from_fn(|k| v[k])
            }
            Row::Work(wk) => {
                let mut v = [0f32; N];
                v.copy_from_slice(&wk[x * N..][..N]);
                v
            }
        }
    }
}

/// [`filter_row`] for an exact 2×2 halving of source rows `top` and `bottom`: each
/// destination texel is `((a + c) + (b + d)) / 4` of its four source texels, the very
/// operations (and so the very bits) of the separable path with weights ½, without the row
/// accumulator. Writes `bytes` (RGBA8) and, when given, the working values `work`.
fn halve_row(
    t: &Tables,
    top: Row<'_>,
    bottom: Row<'_>,
    dw: usize,
    work: Option<&mut [f32]>,
    bytes: &mut [u8],
) {
    // Monomorphised on the channel count, so each texel is whole vector operations.
    if t.nc == 8 {
        halve_row_n::<8>(t, top, bottom, dw, work, bytes)
    } else {
        debug_assert_eq!(t.nc, 4, "working_channels gives 8 (sRGB) or 4");
        halve_row_n::<4>(t, top, bottom, dw, work, bytes)
    }
}

/// [`halve_row`] for `N` working channels.
fn halve_row_n<const N: usize>(
    t: &Tables,
    top: Row<'_>,
    bottom: Row<'_>,
    dw: usize,
    work: Option<&mut [f32]>,
    bytes: &mut [u8],
) {
    let mut work = work;
    for x in 0..dw {
        let (a, b) = (top.texel::<N>(t, 2 * x), top.texel::<N>(t, 2 * x + 1));
        let (c, d) = (bottom.texel::<N>(t, 2 * x), bottom.texel::<N>(t, 2 * x + 1));
        let mut texel = [0f32; N];
        for k in 0..N {
            // Vertical ½-weighted sums first, then horizontal, as in `filter_row`.
            let left = 0.5 * a[k] + 0.5 * c[k];
            let right = 0.5 * b[k] + 0.5 * d[k];
            texel[k] = 0.5 * left + 0.5 * right;
        }
        if let Some(work) = work.as_deref_mut() {
            work[x * N..(x + 1) * N].copy_from_slice(&texel);
        }
        t.encode(&texel, &mut bytes[x * 4..(x + 1) * 4]);
    }
}

/// [`halve_row`] of source rows `y` and `y + 1` of a level `w` texels wide.
fn filter_row_even(
    t: &Tables,
    src: Source<'_>,
    w: usize,
    y: usize,
    work: Option<&mut [f32]>,
    bytes: &mut [u8],
) {
    let row = |y: usize| match src {
        Source::Bytes(b) => Row::Bytes(&b[y * w * 4..(y + 1) * w * 4]),
        Source::Work(wk) => Row::Work(&wk[y * w * t.nc..(y + 1) * w * t.nc]),
    };
    halve_row(t, row(y), row(y + 1), w / 2, work, bytes);
}

/// Levels of a band of the streamed pyramid: a band is `2^BAND_LEVELS` base rows.
const BAND_LEVELS: usize = 5;

/// How many leading levels of the chain `sizes` are exact 2×2 halvings (even width and height,
/// the next level exactly half), at most [`BAND_LEVELS`]: those are built by
/// [`stream_levels`].
fn streamable_levels(sizes: &[(u32, u32)]) -> usize {
    sizes
        .windows(2)
        .take_while(|p| {
            let ((w, h), (dw, dh)) = (p[0], p[1]);
            w % 2 == 0 && h % 2 == 0 && dw * 2 == w && dh * 2 == h
        })
        .count()
        .min(BAND_LEVELS)
}

/// Levels 1..=k of the chain (`k` from [`streamable_levels`]) in bands of `2^k` base rows:
/// each band halves its base rows into level 1, two level-1 rows at a time into level 2, and
/// so on, keeping only two working rows per level, so no level gets a full working copy and
/// the working values stay in cache. `levels[l - 1]` is level `l`'s RGBA8 bytes; `work_k`,
/// when given, receives level `k`'s working values (the source of the smaller levels). Every
/// texel is computed by [`halve_row`], so the result is the row-by-row path's to the bit;
/// bands are independent and run on rayon's threads for large textures.
fn stream_levels(
    t: &Tables,
    base: &[u8],
    sizes: &[(u32, u32)],
    k: usize,
    levels: Vec<&mut [u8]>,
    work_k: Option<&mut [f32]>,
) {
    use rayon::prelude::*;
    let nc = t.nc;
    let widths: Vec<usize> = sizes[..=k].iter().map(|s| s.0 as usize).collect();
    let band_rows = 1usize << k;
    let bands = sizes[0].1 as usize / band_rows;
    // Per band: its rows of every level (level l has band_rows >> l of them).
    let mut per_band: Vec<Vec<&mut [u8]>> = (0..bands).map(|_| Vec::with_capacity(k)).collect();
    for (l, level) in levels.into_iter().enumerate() {
        let len = (band_rows >> (l + 1)) * widths[l + 1] * 4;
        for (band, piece) in per_band.iter_mut().zip(level.chunks_mut(len)) {
            band.push(piece);
        }
    }
    /// One band's outputs: its rows of every level, and its row of level `k`'s working values.
    type Band<'a> = (Vec<&'a mut [u8]>, Option<&'a mut [f32]>);
    let work_pieces: Vec<Option<&mut [f32]>> = match work_k {
        Some(wk) => wk.chunks_mut(widths[k] * nc).map(Some).collect(),
        None => (0..bands).map(|_| None).collect(),
    };
    let run = |scratch: &mut Vec<Vec<f32>>, (band, (mut outs, mut work)): (usize, Band<'_>)| {
        // scratch[m - 1]: two working rows of level m, for levels 1..k-1 (level k's one row
        // of the band goes to `work`).
        scratch.resize_with(k - 1, Vec::new);
        for (l, s) in scratch.iter_mut().enumerate() {
            s.resize(2 * widths[l + 1] * nc, 0.0);
        }
        let w0 = widths[0];
        for r1 in 0..band_rows / 2 {
            let y = band * band_rows + 2 * r1;
            let base_rows = (
                Row::Bytes(&base[y * w0 * 4..(y + 1) * w0 * 4]),
                Row::Bytes(&base[(y + 1) * w0 * 4..(y + 2) * w0 * 4]),
            );
            let mut emit = |m: usize, r: usize, src: Option<(Row<'_>, Row<'_>)>| {
                let dw = widths[m];
                let bytes = &mut outs[m - 1][r * dw * 4..(r + 1) * dw * 4];
                let (lower, upper) = scratch.split_at_mut(m - 1);
                let (top, bottom) = src.unwrap_or_else(|| {
                    let (pair, w) = (&lower[m - 2], widths[m - 1] * nc);
                    (Row::Work(&pair[..w]), Row::Work(&pair[w..2 * w]))
                });
                let dst = if m < k {
                    let h = r % 2;
                    Some(&mut upper[0][h * dw * nc..(h + 1) * dw * nc])
                } else {
                    work.as_deref_mut()
                };
                halve_row(t, top, bottom, dw, dst, bytes);
            };
            emit(1, r1, Some(base_rows));
            // Every second row of level m completes a row of level m + 1.
            let (mut m, mut r) = (1, r1);
            while m < k && r % 2 == 1 {
                (m, r) = (m + 1, r / 2);
                emit(m, r, None);
            }
        }
    };
    let items = per_band.into_iter().zip(work_pieces).enumerate();
    if sizes[1].0 as usize * sizes[1].1 as usize >= PARALLEL_TEXELS {
        items
            .collect::<Vec<_>>()
            .into_par_iter()
            .for_each_init(Vec::new, run);
    } else {
        let mut scratch = Vec::new();
        items.for_each(|item| run(&mut scratch, item));
    }
}

/// The default mip chain for RGBA8 data. For sRGB data each level averages in linear light,
/// colour weighted by alpha (so transparent texels do not darken edges), and is re-encoded
/// with rounding; linear data (normal maps, masks) is averaged per channel. Footprints are
/// area-weighted, so odd sizes keep every source texel. Levels are computed from full-precision
/// previous levels, not from the rounded bytes. Returns every level including the base.
///
/// Speed: sRGB decoding is a 256-entry table and encoding a 4096-entry table plus a step along
/// the exact midpoints; the base level is decoded row by row as it is filtered (only the
/// smaller levels keep f32 working values), and large levels are filtered on rayon's threads,
/// one destination row per task item, so the output does not depend on the thread count.
pub fn linear_chain(width: u32, height: u32, base: &[u8], srgb: bool) -> Result<(Vec<u8>, u32)> {
    linear_chain_with(width, height, base, srgb, true)
}

/// [`linear_chain`], with the banded pyramid (`stream`) or level by level only (the tests
/// compare the two).
fn linear_chain_with(
    width: u32,
    height: u32,
    base: &[u8],
    srgb: bool,
    stream: bool,
) -> Result<(Vec<u8>, u32)> {
    use rayon::prelude::*;
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
    let nc = working_channels(srgb);
    let tables = Tables {
        srgb,
        nc,
        lut: std::array::from_fn(|v| srgb_to_linear(v as f32 / 255.0)),
        unit: std::array::from_fn(|v| v as f32 / 255.0),
        encoder: SrgbEncoder::new(),
    };
    let mut cur: Vec<f32> = Vec::new();
    let levels = sizes.len();
    // The leading exact halvings in cache-sized bands, the rest level by level.
    let k = if stream { streamable_levels(&sizes) } else { 0 };
    if k > 0 {
        let lens: Vec<usize> = sizes[1..=k]
            .iter()
            .map(|&(w, h)| w as usize * h as usize * 4)
            .collect();
        let first = out.len();
        out.resize(first + lens.iter().sum::<usize>(), 0);
        let mut rest: &mut [u8] = &mut out[first..];
        let mut slices = Vec::with_capacity(k);
        for len in lens {
            let (level, tail) = std::mem::take(&mut rest).split_at_mut(len);
            slices.push(level);
            rest = tail;
        }
        // Level k's working values only when smaller levels follow.
        let (kw, kh) = (sizes[k].0 as usize, sizes[k].1 as usize);
        if k + 1 < levels {
            cur = vec![0f32; kw * kh * nc];
        }
        let work_k = (k + 1 < levels).then_some(&mut cur[..]);
        stream_levels(&tables, base, &sizes, k, slices, work_k);
    }
    for (level, pair) in sizes.windows(2).enumerate().skip(k) {
        let (w, h) = (pair[0].0 as usize, pair[0].1 as usize);
        let (dw, dh) = (pair[1].0 as usize, pair[1].1 as usize);
        let (tx, ty) = (taps(w, dw), taps(h, dh));
        // The last level needs no working values: nothing is filtered from it.
        let keep = level + 2 < levels;
        let mut next = vec![0f32; if keep { dw * dh * nc } else { 0 }];
        let start = out.len();
        out.resize(start + dw * dh * 4, 0);
        let src = if level == 0 {
            Source::Bytes(base)
        } else {
            Source::Work(&cur)
        };
        let bytes = &mut out[start..];
        let t = &tables;
        let row = |acc: &mut Vec<f32>, (y, (b, wk)): (usize, (&mut [u8], Option<&mut [f32]>))| {
            filter_row(t, src, w, &ty[y], &tx, acc, wk, b);
        };
        let work_rows: Vec<Option<&mut [f32]>> = if keep {
            next.chunks_mut(dw * nc).map(Some).collect()
        } else {
            (0..dh).map(|_| None).collect()
        };
        if dw * dh >= PARALLEL_TEXELS {
            bytes
                .par_chunks_mut(dw * 4)
                .zip(work_rows)
                .enumerate()
                .for_each_init(Vec::new, row);
        } else {
            let mut acc = Vec::new();
            bytes
                .chunks_mut(dw * 4)
                .zip(work_rows)
                .enumerate()
                .for_each(|item| row(&mut acc, item));
        }
        cur = next;
    }
    Ok((out, sizes.len() as u32))
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

/// Turn a decoded source at any precision into a texture. RGBA8 sources go through
/// [`build_texture`]. Without a GPU format, 16-bit sources are stored as R16G16B16A16_UNORM
/// and float sources as R16G16B16A16_FLOAT, with mips filtered in f32 (area-weighted; 16-bit
/// sRGB data averaged in linear light). With a GPU format, 16-bit sources are reduced to 8 bits
/// first; float sources accept only `rgba8` (no HDR block encoder is offered).
pub fn build_source(src: SourceImage, settings: &Settings) -> Result<TextureData> {
    let srgb = settings.is_srgb();
    match (&src, settings.gpu_format) {
        (SourceImage::Rgba8(_), _) | (SourceImage::Rgba16 { .. }, Some(_)) => {
            build_texture(src.into_rgba8(srgb), settings)
        }
        (SourceImage::RgbaF32 { .. }, Some(GpuFormat::Rgba8)) => {
            build_texture(src.into_rgba8(srgb), settings)
        }
        (SourceImage::RgbaF32 { .. }, Some(g)) => Err(ImportError::unsupported(
            "image",
            format!(
                "float (HDR) sources cannot be encoded to {g}: store them as float (no --gpu-format) or choose rgba8"
            ),
        )),
        (SourceImage::Rgba16 { width, height, data }, None) => {
            let (w, h) = (*width, *height);
            let (dec, enc): (Decode16, Encode16) = if srgb {
                (
                    |v| srgb_to_linear(v as f32 / 65_535.0),
                    |v| (linear_to_srgb(v.clamp(0.0, 1.0)) * 65_535.0).round() as u16,
                )
            } else {
                (
                    |v| v as f32 / 65_535.0,
                    |v| (v.clamp(0.0, 1.0) * 65_535.0).round() as u16,
                )
            };
            let base: Vec<f32> = data
                .chunks_exact(4)
                .flat_map(|p| [dec(p[0]), dec(p[1]), dec(p[2]), p[3] as f32 / 65_535.0])
                .collect();
            let chain = float_chain(w, h, base, settings.mips);
            let mut payload = Vec::with_capacity(chain.iter().map(|l| l.len() * 2).sum());
            let mut first = true;
            for level in &chain {
                if first {
                    // The base level is stored exactly as decoded.
                    data.iter().for_each(|v| payload.extend_from_slice(&v.to_le_bytes()));
                    first = false;
                    continue;
                }
                for p in level.chunks_exact(4) {
                    for v in [enc(p[0]), enc(p[1]), enc(p[2])] {
                        payload.extend_from_slice(&v.to_le_bytes());
                    }
                    let a = (p[3].clamp(0.0, 1.0) * 65_535.0).round() as u16;
                    payload.extend_from_slice(&a.to_le_bytes());
                }
            }
            Ok(TextureData {
                width: w,
                height: h,
                levels: chain.len() as u32,
                format: caf::TextureFormat::R16G16B16A16_UNORM,
                srgb,
                payload,
            })
        }
        (SourceImage::RgbaF32 { width, height, data }, None) => {
            let (w, h) = (*width, *height);
            let base: Vec<f32> = data
                .iter()
                .map(|&v| if v.is_finite() { v } else { 0.0 })
                .collect();
            let chain = float_chain(w, h, base, settings.mips);
            let mut payload = Vec::with_capacity(chain.iter().map(|l| l.len() * 2).sum());
            for v in chain.iter().flatten() {
                payload.extend_from_slice(&half::f16::from_f32(*v).to_le_bytes());
            }
            Ok(TextureData {
                width: w,
                height: h,
                levels: chain.len() as u32,
                format: caf::TextureFormat::R16G16B16A16_FLOAT,
                // Float data is linear light.
                srgb: false,
                payload,
            })
        }
    }
}

/// Every level of an RGBA f32 image (the base first): area-weighted averages of the previous
/// level, down to 1x1 when `mips`, else the base alone.
fn float_chain(width: u32, height: u32, base: Vec<f32>, mips: bool) -> Vec<Vec<f32>> {
    let mut out = vec![base];
    if !mips {
        return out;
    }
    let sizes = level_sizes(width, height);
    for pair in sizes.windows(2) {
        let w = pair[0].0 as usize;
        let (dw, dh) = (pair[1].0 as usize, pair[1].1 as usize);
        let (tx, ty) = (taps(pair[0].0 as usize, dw), taps(pair[0].1 as usize, dh));
        let prev = &out[out.len() - 1];
        let mut next = vec![0f32; dw * dh * 4];
        for (y, (fy, wy)) in ty.iter().enumerate() {
            for (x, (fx, wx)) in tx.iter().enumerate() {
                let d = &mut next[(y * dw + x) * 4..][..4];
                for (j, &wyj) in wy.iter().enumerate() {
                    for (i, &wxi) in wx.iter().enumerate() {
                        let s = &prev[((fy + j) * w + fx + i) * 4..][..4];
                        for (dc, sc) in d.iter_mut().zip(s) {
                            *dc += sc * wyj * wxi;
                        }
                    }
                }
            }
        }
        out.push(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `import_png` fuzz target: a 3×5 palette PNG whose tRNS/PLTE chunks were
    /// mangled made png 0.18.1 slice past its palette and panic while expanding it. Both
    /// decoders now answer with an error (or an image) instead.
    /// The linear chain's definition in f64: area-weighted footprints, chained from the
    /// previous level's full-precision values, alpha-weighted colour in linear light,
    /// round-to-nearest sRGB encoding.
    fn reference_chain(w: usize, h: usize, base: &[u8], srgb: bool) -> Vec<u8> {
        let lin = |c: f64| {
            if c <= 0.040_45 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        let enc = |v: f64| {
            let v = v.clamp(0.0, 1.0);
            let s = if v <= 0.003_130_8 {
                v * 12.92
            } else {
                1.055 * v.powf(1.0 / 2.4) - 0.055
            };
            (s * 255.0).round().clamp(0.0, 255.0) as u8
        };
        let nc = if srgb { 7 } else { 4 };
        let mut cur: Vec<f64> = Vec::new();
        for p in base.chunks_exact(4) {
            let c: [f64; 4] = std::array::from_fn(|i| p[i] as f64 / 255.0);
            if srgb {
                let (r, g, b, a) = (lin(c[0]), lin(c[1]), lin(c[2]), c[3]);
                cur.extend([r * a, g * a, b * a, a, r, g, b]);
            } else {
                cur.extend(c);
            }
        }
        let taps64 = |src: usize, dst: usize| -> Vec<Vec<(usize, f64)>> {
            let scale = src as f64 / dst as f64;
            (0..dst)
                .map(|i| {
                    let (s, e) = (i as f64 * scale, (i + 1) as f64 * scale);
                    (s.floor() as usize..(e.ceil() as usize).min(src))
                        .map(|j| (j, (e.min(j as f64 + 1.0) - s.max(j as f64)) / scale))
                        .collect()
                })
                .collect()
        };
        let mut out = base.to_vec();
        let (mut w, mut h) = (w, h);
        while w > 1 || h > 1 {
            let (dw, dh) = ((w / 2).max(1), (h / 2).max(1));
            let (tx, ty) = (taps64(w, dw), taps64(h, dh));
            let mut next = vec![0f64; dw * dh * nc];
            for (y, ry) in ty.iter().enumerate() {
                for (x, rx) in tx.iter().enumerate() {
                    for &(sy, wy) in ry {
                        for &(sx, wx) in rx {
                            for c in 0..nc {
                                next[(y * dw + x) * nc + c] +=
                                    cur[(sy * w + sx) * nc + c] * wx * wy;
                            }
                        }
                    }
                }
            }
            for t in next.chunks_exact(nc) {
                if srgb {
                    let a = t[3];
                    let rgb = if a > 1.0 / 1024.0 {
                        [t[0] / a, t[1] / a, t[2] / a]
                    } else {
                        [t[4], t[5], t[6]]
                    };
                    out.extend([enc(rgb[0]), enc(rgb[1]), enc(rgb[2])]);
                    out.push((a * 255.0).round().clamp(0.0, 255.0) as u8);
                } else {
                    out.extend(
                        t.iter()
                            .map(|&v| (v * 255.0).round().clamp(0.0, 255.0) as u8),
                    );
                }
            }
            (cur, w, h) = (next, dw, dh);
        }
        out
    }

    #[test]
    fn linear_chain_is_within_one_unit_of_an_f64_reference() {
        // Odd and even sizes, thin strips, and one large enough (level 1 >= 128²) to be
        // filtered on rayon's threads.
        let sizes = [
            (1, 1),
            (2, 1),
            (5, 3),
            (7, 9),
            (33, 17),
            (64, 64),
            (1, 40),
            (300, 1),
            (301, 267),
            (512, 256),
        ];
        for (k, &(w, h)) in sizes.iter().enumerate() {
            let mut px = crate::samples::lcg_bytes(k as u32 * 7 + 1, w * h * 4);
            // Some fully and almost transparent texels, to reach the plain-colour fallback.
            for (i, p) in px.chunks_exact_mut(4).enumerate() {
                match i % 11 {
                    0 => p[3] = 0,
                    1 => p[3] = 1,
                    2 => p[3] = 255,
                    _ => {}
                }
            }
            for srgb in [false, true] {
                let (ours, _) = linear_chain(w as u32, h as u32, &px, srgb).unwrap();
                let reference = reference_chain(w, h, &px, srgb);
                assert_eq!(ours.len(), reference.len());
                for (i, (&a, &b)) in ours.iter().zip(&reference).enumerate() {
                    assert!(
                        a.abs_diff(b) <= 1,
                        "{w}x{h} srgb={srgb} byte {i}: {a} vs reference {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn to_u8_rounds_like_round() {
        let mut v = -0.01f32;
        while v < 1.01 {
            assert_eq!(to_u8(v), (v * 255.0).round().clamp(0.0, 255.0) as u8, "{v}");
            v += 1.0 / 8192.0;
        }
        for k in 0..=255u32 {
            for d in [-0.5f32, 0.5] {
                let v = (k as f32 + d) / 255.0;
                assert_eq!(to_u8(v), (v * 255.0).round().clamp(0.0, 255.0) as u8, "{v}");
            }
        }
        assert_eq!(to_u8(f32::NAN), 0);
    }

    #[test]
    fn banded_pyramid_equals_the_level_by_level_path_to_the_bit() {
        // Power-of-two and other even starts (k = 1..=5 streamed levels), one large enough
        // for rayon's threads, and one that streams nothing (odd width).
        for (k, &(w, h)) in [
            (2u32, 2u32),
            (6, 4),
            (96, 40),
            (64, 64),
            (128, 32),
            (512, 512),
            (1024, 2),
            (7, 8),
        ]
        .iter()
        .enumerate()
        {
            let mut px = crate::samples::lcg_bytes(k as u32 + 40, (w * h * 4) as usize);
            for (i, p) in px.chunks_exact_mut(4).enumerate() {
                if i % 13 == 0 {
                    p[3] = 0;
                }
            }
            for srgb in [false, true] {
                let streamed = linear_chain_with(w, h, &px, srgb, true).unwrap();
                let rows = linear_chain_with(w, h, &px, srgb, false).unwrap();
                assert_eq!(streamed.1, rows.1);
                assert!(streamed.0 == rows.0, "{w}x{h} srgb={srgb}");
            }
        }
        assert_eq!(streamable_levels(&level_sizes(96, 40)), 3);
        assert_eq!(streamable_levels(&level_sizes(2048, 2048)), BAND_LEVELS);
        assert_eq!(streamable_levels(&level_sizes(7, 8)), 0);
    }

    #[test]
    fn srgb_encoder_table_equals_the_midpoint_search() {
        let e = SrgbEncoder::new();
        let midpoints = &e.thresholds[..255];
        let search = |v: f32| midpoints.partition_point(|&t| t <= v) as u8;
        let mut v = 0f32;
        while v <= 1.0 {
            assert_eq!(e.encode(v), search(v), "{v}");
            v += 1.0 / 65536.0;
        }
        for &t in midpoints {
            for x in [
                t,
                f32::from_bits(t.to_bits() - 1),
                f32::from_bits(t.to_bits() + 1),
            ] {
                assert_eq!(e.encode(x), search(x), "{x}");
            }
        }
        assert_eq!(e.encode(-0.5), 0);
        assert_eq!(e.encode(2.0), 255);
        // The single-step claim: no bucket holds two midpoints.
        for pair in midpoints.windows(2) {
            let bucket = |t: f32| (t * ENCODER_BUCKETS as f32) as usize;
            assert!(bucket(pair[1]) > bucket(pair[0]), "{pair:?}");
        }
    }

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

    /// Found by the fuzz smoke (import_tga): a 46-byte TGA announcing 23450×30729 texels made
    /// `DynamicImage::from_decoder` allocate 2.9 GB before reading any pixel. The announced size
    /// is now checked first.
    #[test]
    fn fuzz_regression_tga_announced_size() {
        let tga = [
            0x00, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x58, 0x54, 0x9A, 0x5B,
            0x09, 0x78, 0x20, 0x00, 0x00, 0x80, 0x00, 0x8C, 0x2B, 0x00, 0x00, 0x0D, 0x00, 0x07,
            0x00, 0x20, 0x28, 0x80, 0x00, 0x00, 0x00, 0xFF, 0x5B, 0x01, 0x00, 0x15, 0xFE, 0x02,
            0x00, 0x2A, 0xFD, 0x03,
        ];
        let Err(err) = decode_source(&tga, Some("tga")) else {
            panic!("a 2.9 GB TGA was accepted")
        };
        assert!(err.to_string().contains("limit"), "{err}");
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
