//! GPU formats: block encoding of RGBA8 levels (BC1/BC3/BC5/BC7 through `intel_tex_2`'s
//! ISPC kernels, ASTC 4×4 through ARM's astc-encoder by `astcenc-rs`) and KTX2 pass-through
//! (`ktx2`, BCn, ASTC and plain formats), following `docs/format/caf-textures.md`.
//!
//! ASTC settings (caf-textures.md §4.1): the `medium` preset, astcenc's own default. Measured
//! once while choosing it (256×256 sRGB, one thread, SSE2 build, PSNR of the RGBA decode
//! against the source; times on a busy 2-core machine, so only their ratios mean much):
//!
//! | preset | `voxcaf_samples::noisy_rgba` | `voxcaf_samples::gradient_rgba` | `voxcaf_samples::checker_rgba` |
//! |---|---|---|---|
//! | fastest | 34.4 dB, 175 ms | 48.7 dB, 20 ms | 50.6 dB, 27 ms |
//! | fast | 34.7 dB, 265 ms | 48.8 dB, 18 ms | 46.0 dB, 81 ms |
//! | medium | 35.3 dB, 390 ms | 49.4 dB, 160 ms | 59.9 dB, 38 ms |
//! | thorough | 35.9 dB, 672 ms | 49.7 dB, 311 ms | 59.9 dB, 191 ms |
//!
//! `thorough` gains about half a dB for 1.7–5 times the time; `fast` loses up to 14 dB on
//! hard edges (the checker).

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use caf::texture::TextureFormat;

use crate::error::{ImportError, Result};
use crate::settings::GpuFormat;
use crate::texture_data::{level_sizes, TextureData, MAX_DECODED_BYTES, MAX_DIMENSION};

/// The 12 bytes every KTX2 file starts with.
pub const KTX2_IDENTIFIER: &[u8; 12] = b"\xABKTX 20\xBB\r\n\x1A\n";

/// A `w × h` RGBA8 level copied into a buffer whose sides are rounded up to whole 4×4 blocks,
/// the extra texels repeating the last column and row.
fn pad_to_blocks(w: usize, h: usize, level: &[u8]) -> (usize, usize, Vec<u8>) {
    let (pw, ph) = (w.div_ceil(4) * 4, h.div_ceil(4) * 4);
    let mut out = Vec::with_capacity(pw * ph * 4);
    for y in 0..ph {
        let row = &level[y.min(h - 1) * w * 4..][..w * 4];
        out.extend_from_slice(row);
        let last = &row[(w - 1) * 4..];
        for _ in w..pw {
            out.extend_from_slice(last);
        }
    }
    (pw, ph, out)
}

fn astc_error(what: &str, e: astcenc_rs::Error) -> ImportError {
    ImportError::Encode {
        format: "ASTC 4x4",
        message: format!("astc-encoder could not {what}: {e:?}"),
    }
}

/// The ASTC 4×4 encoder with the settings of docs/format/caf-textures.md §4.1: the LDR sRGB
/// or LDR profile, the medium preset, no flags, one thread (strips of a level are encoded on
/// rayon's threads, each with a context of its own).
fn astc_context(srgb: bool) -> Result<astcenc_rs::Context> {
    let profile = if srgb {
        astcenc_rs::Profile::LdrSrgb
    } else {
        astcenc_rs::Profile::LdrRgba
    };
    let config = astcenc_rs::ConfigBuilder::new()
        .with_profile(profile)
        .with_preset(astcenc_rs::PRESET_MEDIUM)
        .with_block_size(astcenc_rs::Extents::new(4, 4))
        .with_flags(astcenc_rs::Flags::empty())
        .build()
        .map_err(|e| astc_error("accept its configuration", e))?;
    astcenc_rs::Context::with_threads(1, config).map_err(|e| astc_error("start", e))
}

/// ASTC contexts for the strips being encoded at once: one is taken for a strip (made when
/// none is free) and given back after it, so each thread makes at most one.
struct AstcPool {
    srgb: bool,
    free: Mutex<Vec<astcenc_rs::Context>>,
}

impl AstcPool {
    /// Encodes `data`, a `width × height` RGBA8 image of whole blocks, to ASTC 4×4 blocks.
    fn compress(&self, width: usize, height: usize, data: &[u8]) -> Result<Vec<u8>> {
        let taken = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut ctx = match taken {
            Some(c) => c,
            None => astc_context(self.srgb)?,
        };
        let image = astcenc_rs::Image {
            extents: astcenc_rs::Extents::new(width as u32, height as u32),
            data: &[data][..],
        };
        let blocks = ctx
            .compress(&image, astcenc_rs::Swizzle::rgba())
            .map_err(|e| astc_error(&format!("encode {width}x{height} texels"), e))?;
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(ctx);
        Ok(blocks)
    }
}

/// Called by the block encoders as they go: `(blocks just encoded, blocks of the whole
/// texture)`. Calls come from rayon's threads, in any order; their first arguments add up to
/// the total.
pub type EncodeProgress = Arc<dyn Fn(u64, u64) + Send + Sync>;

thread_local! {
    static PROGRESS: RefCell<Option<EncodeProgress>> = const { RefCell::new(None) };
}

/// Runs `f` with `progress` told about the block encoding (BC1, BC3, BC5, BC7, ASTC) of every
/// texture that `f` converts on this thread ([`crate::convert`] and [`encode_levels`]), so a
/// command line can show a progress bar: an 8192² BC7 texture takes about a minute per core.
/// The previous observer (if any) is restored afterwards, also when `f` panics.
pub fn with_encode_progress<R>(progress: EncodeProgress, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<EncodeProgress>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            PROGRESS.with(|p| *p.borrow_mut() = prev);
        }
    }
    let _restore = Restore(PROGRESS.with(|p| p.borrow_mut().replace(progress)));
    f()
}

/// Texel rows of the strips a level is cut into for the block encoders: whole block rows, so a
/// strip's blocks are exactly the level's (each 4×4 block is encoded from its own texels
/// only), and the strips' blocks back to back are the level's, whatever the thread count.
const STRIP_ROWS: usize = 16;

/// Encode every RGBA8 level of `payload` (a chain of `levels` starting at `width × height`,
/// largest first) to `format`; each level becomes whole blocks (docs/format/caf-textures.md
/// §2). `srgb` says the colour channels are sRGB-encoded (ASTC encodes against the sRGB
/// decode then; the BC encoders ignore it). Levels are cut into strips of block rows encoded
/// on rayon's threads: the bytes are those of encoding each level whole on one thread. An
/// observer set with [`with_encode_progress`] hears of every strip.
pub fn encode_levels(
    format: GpuFormat,
    width: u32,
    height: u32,
    levels: u32,
    payload: &[u8],
    srgb: bool,
) -> Result<Vec<u8>> {
    let encoder = Strips {
        format,
        srgb,
        rows: STRIP_ROWS,
    };
    encoder.encode(width, height, levels, payload)
}

/// The block encoding of [`encode_levels`], with strips of `rows` texel rows (a multiple of
/// 4; `usize::MAX` encodes each level whole, in one call, as the tests' reference).
struct Strips {
    format: GpuFormat,
    srgb: bool,
    rows: usize,
}

impl Strips {
    /// Every level of the chain `payload` of `levels` from `width × height`, encoded.
    fn encode(&self, width: u32, height: u32, levels: u32, payload: &[u8]) -> Result<Vec<u8>> {
        use rayon::prelude::*;
        let (format, srgb, strip_rows) = (self.format, self.srgb, self.rows);
        let sizes: Vec<(usize, usize)> = level_sizes(width, height)
            .into_iter()
            .take(levels as usize)
            .map(|(w, h)| (w as usize, h as usize))
            .collect();
        let total_blocks: u64 = sizes
            .iter()
            .map(|&(w, h)| (w.div_ceil(4) * h.div_ceil(4)) as u64)
            .sum();
        let progress = PROGRESS.with(|p| p.borrow().clone());
        let pool = AstcPool {
            srgb,
            free: Mutex::new(Vec::new()),
        };
        let mut out = Vec::new();
        let mut off = 0usize;
        for &(w, h) in &sizes {
            let n = w * h * 4;
            let level = payload.get(off..off + n).ok_or_else(|| {
                ImportError::InvalidArgument(format!(
                    "{} bytes of RGBA8 levels, too short for level {w}x{h} at byte {off}",
                    payload.len()
                ))
            })?;
            off += n;
            if format == GpuFormat::Rgba8 {
                out.extend_from_slice(level);
                continue;
            }
            let (pw, _, padded) = pad_to_blocks(w, h, level);
            let strip_bytes = strip_rows.saturating_mul(pw * 4);
            let strips: Vec<Vec<u8>> = padded
                .par_chunks(strip_bytes)
                .map(|strip| {
                    let blocks = encode_strip(format, pw, strip, &pool)?;
                    if let Some(p) = &progress {
                        // 16 texels of 4 bytes a block.
                        p(strip.len() as u64 / 64, total_blocks);
                    }
                    Ok(blocks)
                })
                .collect::<Result<_>>()?;
            let start = out.len();
            strips.iter().for_each(|s| out.extend_from_slice(s));
            // The encoders' output is whole blocks of the padded level: the layout's size.
            debug_assert_eq!(
                Some((out.len() - start) as u64),
                format.code().level_bytes(w as u32, h as u32, 4)
            );
        }
        Ok(out)
    }
}

/// One strip (`pw` texels wide, whole block rows) of a padded level encoded to `format`.
fn encode_strip(format: GpuFormat, pw: usize, strip: &[u8], astc: &AstcPool) -> Result<Vec<u8>> {
    let ph = strip.len() / (pw * 4);
    let surface = intel_tex_2::RgbaSurface {
        data: strip,
        width: pw as u32,
        height: ph as u32,
        stride: pw as u32 * 4,
    };
    Ok(match format {
        GpuFormat::Rgba8 => strip.to_vec(),
        GpuFormat::Bc1 => intel_tex_2::bc1::compress_blocks(&surface),
        GpuFormat::Bc3 => intel_tex_2::bc3::compress_blocks(&surface),
        GpuFormat::Bc7 => {
            intel_tex_2::bc7::compress_blocks(&intel_tex_2::bc7::alpha_basic_settings(), &surface)
        }
        GpuFormat::Bc5 => {
            let rg: Vec<u8> = strip.chunks_exact(4).flat_map(|p| [p[0], p[1]]).collect();
            intel_tex_2::bc5::compress_blocks(&intel_tex_2::RgSurface {
                data: &rg,
                width: pw as u32,
                height: ph as u32,
                stride: pw as u32 * 2,
            })
        }
        GpuFormat::Astc4x4 => astc.compress(pw, ph, strip)?,
    })
}

/// `(VkFormat, format code)` of the plain and BCn formats passed through; where several
/// `VkFormat`s give one code, the first is the one written back.
const VK_CODES: [(u32, u32); 26] = [
    (9, 2),    // R8_UNORM
    (16, 3),   // R8G8_UNORM
    (37, 4),   // R8G8B8A8_UNORM
    (43, 52),  // R8G8B8A8_SRGB
    (44, 12),  // B8G8R8A8_UNORM
    (50, 53),  // B8G8R8A8_SRGB
    (70, 5),   // R16_UNORM
    (77, 6),   // R16G16_UNORM
    (91, 7),   // R16G16B16A16_UNORM
    (97, 29),  // R16G16B16A16_SFLOAT
    (100, 30), // R32_SFLOAT
    (109, 32), // R32G32B32A32_SFLOAT
    (133, 13), // BC1_RGBA_UNORM_BLOCK
    (131, 13), // BC1_RGB_UNORM_BLOCK
    (134, 54), // BC1_RGBA_SRGB_BLOCK
    (132, 54), // BC1_RGB_SRGB_BLOCK
    (135, 14), // BC2_UNORM_BLOCK
    (136, 55), // BC2_SRGB_BLOCK
    (137, 15), // BC3_UNORM_BLOCK
    (138, 56), // BC3_SRGB_BLOCK
    (139, 16), // BC4_UNORM_BLOCK
    (141, 17), // BC5_UNORM_BLOCK
    (143, 20), // BC6H_UFLOAT_BLOCK
    (144, 19), // BC6H_SFLOAT_BLOCK
    (145, 18), // BC7_UNORM_BLOCK
    (146, 57), // BC7_SRGB_BLOCK
];

/// `VK_FORMAT_ASTC_4x4_UNORM_BLOCK`: ASTC_{4x4..12x12}_{UNORM,SRGB}_BLOCK are 157..=184, UNORM
/// and SRGB alternating (codes 63..=76 and 77..=90).
const VK_ASTC_LDR: u32 = 157;
/// `VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK` (VK_EXT_texture_compression_astc_hdr): 14 block sizes,
/// codes 91..=104.
const VK_ASTC_HDR: u32 = 1_000_066_000;

/// The format code for a KTX2 `VkFormat` value, for the formats passed through.
fn vk_to_code(vk: u32) -> Option<TextureFormat> {
    let c = match vk {
        VK_ASTC_LDR..=184 => {
            let i = (vk - VK_ASTC_LDR) / 2;
            if (vk - VK_ASTC_LDR).is_multiple_of(2) {
                63 + i
            } else {
                77 + i
            }
        }
        VK_ASTC_HDR..=1_000_066_013 => 91 + (vk - VK_ASTC_HDR),
        _ => VK_CODES.iter().find(|p| p.0 == vk)?.1,
    };
    Some(TextureFormat(c))
}

/// The KTX2 `VkFormat` of a stored format code (the inverse of the pass-through's mapping);
/// format 0 by its texel size `channels` (R8, R8G8, R8G8B8, R8G8B8A8) and `srgb`.
pub fn code_to_vk(format: TextureFormat, channels: u32, srgb: bool) -> Option<u32> {
    Some(match (format.0, channels) {
        // R8, R8G8, R8G8B8, R8G8B8A8: UNORM and SRGB.
        (0, 1..=4) => {
            let (unorm, srgb_vk) = [(9, 15), (16, 22), (23, 29), (37, 43)][channels as usize - 1];
            if srgb {
                srgb_vk
            } else {
                unorm
            }
        }
        (c @ 63..=76, _) => VK_ASTC_LDR + 2 * (c - 63),
        (c @ 77..=90, _) => VK_ASTC_LDR + 1 + 2 * (c - 77),
        (c @ 91..=104, _) => VK_ASTC_HDR + (c - 91),
        (c, _) => VK_CODES.iter().find(|p| p.1 == c)?.0,
    })
}

/// A KTX2 file of one 2D image: `levels` (largest first, each exactly its level's bytes in
/// `vk`'s layout) of a `width × height` base, with the Data Format Descriptor the `ktx2`
/// crate derives from the `VkFormat`; no supercompression, level data smallest first and
/// aligned as the KTX2 specification asks (to the least common multiple of the texel block
/// size and 4).
pub fn write_ktx2(vk: u32, width: u32, height: u32, levels: &[&[u8]]) -> Result<Vec<u8>> {
    let refuse = |why: String| ImportError::unsupported("KTX2", why);
    let format = ktx2::Format::new(vk).ok_or_else(|| refuse(format!("no VkFormat {vk}")))?;
    let (dfd, type_size) =
        ktx2::dfd::Basic::from_format(format).map_err(|e| refuse(format!("VkFormat {vk}: {e}")))?;
    let block_bytes = dfd.bytes_planes[0].max(1) as usize;
    let align = block_bytes * 4 / gcd(block_bytes, 4);
    let dfd = ktx2::dfd::Block::Basic(dfd).to_vec();
    let dfd_offset = ktx2::Header::LENGTH + levels.len() * ktx2::LevelIndex::LENGTH;
    let dfd_length = 4 + dfd.len();
    let mut data_start = dfd_offset + dfd_length;
    let mut index = vec![None; levels.len()];
    // Level data smallest first.
    let mut body = Vec::new();
    for (i, level) in levels.iter().enumerate().rev() {
        let pad = (align - (data_start + body.len()) % align) % align;
        body.resize(body.len() + pad, 0);
        index[i] = Some(ktx2::LevelIndex {
            byte_offset: (data_start + body.len()) as u64,
            byte_length: level.len() as u64,
            uncompressed_byte_length: level.len() as u64,
        });
        body.extend_from_slice(level);
    }
    data_start += body.len();
    let header = ktx2::Header {
        format: Some(format),
        type_size,
        pixel_width: width,
        pixel_height: height,
        pixel_depth: 0,
        layer_count: 0,
        face_count: 1,
        level_count: levels.len() as u32,
        supercompression_scheme: None,
        index: ktx2::Index {
            dfd_byte_offset: dfd_offset as u32,
            dfd_byte_length: dfd_length as u32,
            kvd_byte_offset: 0,
            kvd_byte_length: 0,
            sgd_byte_offset: 0,
            sgd_byte_length: 0,
        },
    };
    let mut out = Vec::with_capacity(data_start);
    out.extend_from_slice(&header.as_bytes());
    for entry in index.into_iter().flatten() {
        out.extend_from_slice(&entry.as_bytes());
    }
    out.extend_from_slice(&(dfd_length as u32).to_le_bytes());
    out.extend_from_slice(&dfd);
    out.extend_from_slice(&body);
    Ok(out)
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Pass a KTX2 file through: its levels are stored as they are, with the format code of its
/// `VkFormat`. zstd-supercompressed levels are decompressed (each to exactly the size the
/// format implies); BasisLZ and ZLIB supercompression, Basis Universal (no `VkFormat`),
/// arrays, cube maps and 3D textures are refused by name.
pub fn import_ktx2(bytes: &[u8]) -> Result<TextureData> {
    let reader =
        ktx2::Reader::new(bytes).map_err(|e| ImportError::malformed("KTX2", e.to_string()))?;
    let h = reader.header();
    let vk = h.format.map(|f| f.value()).ok_or_else(|| {
        ImportError::unsupported(
            "KTX2",
            "no VkFormat (Basis Universal / UASTC data must be transcoded to BCn or ASTC first)",
        )
    })?;
    let format = vk_to_code(vk).ok_or_else(|| {
        ImportError::unsupported(
            "KTX2",
            format!(
                "VkFormat {vk} ({:?}) is not one of the formats passed through",
                h.format
            ),
        )
    })?;
    if h.pixel_depth > 1 || h.layer_count > 1 || h.face_count != 1 {
        return Err(ImportError::unsupported(
            "KTX2",
            format!(
                "only single 2D images are passed through (depth {}, layers {}, faces {})",
                h.pixel_depth, h.layer_count, h.face_count
            ),
        ));
    }
    let (width, height) = (h.pixel_width, h.pixel_height.max(1));
    for (what, v) in [("KTX2 width", width), ("KTX2 height", height)] {
        if v > MAX_DIMENSION {
            return Err(ImportError::LimitExceeded {
                what,
                value: v.into(),
                limit: MAX_DIMENSION.into(),
            });
        }
    }
    let levels = h.level_count.max(1);
    let sizes = level_sizes(width, height);
    if levels as usize > sizes.len() {
        return Err(ImportError::malformed(
            "KTX2",
            format!(
                "{levels} levels for {width}x{height} (at most {})",
                sizes.len()
            ),
        ));
    }
    let zstd = match h.supercompression_scheme {
        None => false,
        Some(ktx2::SupercompressionScheme::Zstandard) => true,
        Some(s) => {
            return Err(ImportError::unsupported(
                "KTX2",
                format!("{s:?} supercompression is not supported (only zstd is decoded)"),
            ))
        }
    };
    let mut payload = Vec::new();
    for (i, (level, &(w, lh))) in reader.levels().zip(&sizes).enumerate() {
        // Bounded by MAX_DIMENSION² × 16 bytes per texel, far below u64 overflow.
        let expected = format.level_bytes(w, lh, 0).unwrap_or(u64::MAX);
        if payload.len() as u64 + expected > MAX_DECODED_BYTES {
            return Err(ImportError::LimitExceeded {
                what: "KTX2 level bytes",
                value: payload.len() as u64 + expected,
                limit: MAX_DECODED_BYTES,
            });
        }
        let data = if zstd {
            zstd::bulk::decompress(level.data, expected as usize)
                .map_err(|e| ImportError::malformed("KTX2", format!("level {i}: zstd: {e}")))?
        } else {
            level.data.to_vec()
        };
        if data.len() as u64 != expected {
            return Err(ImportError::malformed(
                "KTX2",
                format!(
                    "level {i} ({w}x{lh} {}) holds {} bytes, the format needs {expected}",
                    format.name(),
                    data.len()
                ),
            ));
        }
        payload.extend_from_slice(&data);
    }
    let srgb = format.info().map(|i| i.srgb).unwrap_or(false);
    Ok(TextureData {
        width,
        height,
        levels,
        format: format.with_srgb(false),
        srgb,
        payload,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Instant;

    use super::*;

    /// The reference: every level encoded whole, in one call, on the calling thread.
    fn whole_levels(format: GpuFormat) -> Strips {
        Strips {
            format,
            srgb: true,
            rows: usize::MAX,
        }
    }

    /// Encodes `(w, h)` noisy RGBA with mips to `format` in strips on a pool of `threads`,
    /// counting the progress reports, and encodes each level whole on this thread.
    fn both_ways(format: GpuFormat, w: u32, h: u32, threads: usize) -> (Vec<u8>, Vec<u8>, u64) {
        let img = voxcaf_samples::noisy_rgba(w, h);
        let (payload, levels) = crate::texture::linear_chain(w, h, &img, true).unwrap();
        let whole = whole_levels(format).encode(w, h, levels, &payload).unwrap();
        let done = Arc::new(AtomicU64::new(0));
        let seen = done.clone();
        let progress: EncodeProgress = Arc::new(move |n, _| {
            seen.fetch_add(n, Ordering::Relaxed);
        });
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let strips = pool
            .install(|| {
                with_encode_progress(progress, || {
                    encode_levels(format, w, h, levels, &payload, true)
                })
            })
            .unwrap();
        (strips, whole, done.load(Ordering::Relaxed))
    }

    /// BC7 and ASTC (and the other block formats) encode strips of block rows on every core:
    /// the bytes are exactly those of encoding each level whole on one thread, and the progress
    /// reports add up to the texture's blocks.
    #[test]
    fn bc7_and_astc_encode_on_every_core_with_the_single_threaded_bytes() {
        for (w, h) in [(70, 45), (33, 130)] {
            let blocks: u64 = level_sizes(w, h)
                .iter()
                .map(|&(w, h)| (w.div_ceil(4) * h.div_ceil(4)) as u64)
                .sum();
            for format in [
                GpuFormat::Bc7,
                GpuFormat::Astc4x4,
                GpuFormat::Bc1,
                GpuFormat::Bc3,
                GpuFormat::Bc5,
            ] {
                let (strips, whole, reported) = both_ways(format, w, h, 4);
                assert!(strips == whole, "{format} {w}x{h}: strips differ");
                assert_eq!(reported, blocks, "{format} {w}x{h}");
            }
        }
        // Without an observer nothing is reported, and the observer is gone afterwards.
        assert!(PROGRESS.with(|p| p.borrow().is_none()));
    }

    /// Times a 2048² BC7 and ASTC 4×4 encode (base level only) whole on one thread and in
    /// strips on every core: `cargo test -p caf-import --lib encode_speed -- --ignored
    /// --nocapture`.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn encode_speed_2048() {
        let (w, h) = (2048, 2048);
        let img = voxcaf_samples::noisy_rgba(w, h);
        // This process's CPU time (user + system) in seconds, from /proc (Linux, 100 Hz).
        let cpu = || {
            let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
            let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split(' ').collect();
            let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok());
            (ticks(12).unwrap_or(0.0) + ticks(13).unwrap_or(0.0)) / 100.0
        };
        for format in [GpuFormat::Bc7, GpuFormat::Astc4x4] {
            let (t, c) = (Instant::now(), cpu());
            let whole = whole_levels(format).encode(w, h, 1, &img).unwrap();
            let (one, one_cpu) = (t.elapsed(), cpu() - c);
            let (t, c) = (Instant::now(), cpu());
            let strips = encode_levels(format, w, h, 1, &img, true).unwrap();
            let (all, all_cpu) = (t.elapsed(), cpu() - c);
            assert!(strips == whole);
            println!(
                "{format} {w}x{h}: whole on one thread {one:.2?} ({one_cpu:.2} s CPU), \
                 strips on {} threads {all:.2?} ({all_cpu:.2} s CPU)",
                rayon::current_num_threads()
            );
        }
    }
}
