//! GPU textures (docs/format/caf-textures.md): block encoders checked against an independent
//! decoder (PSNR thresholds per format), KTX2 pass-through with container bytes written here,
//! 16-bit and float sources kept at their precision, and EXIF orientation.

use std::path::Path;

use caf::texture::{TextureFormat, TextureView};
use caf::{Asset, CafFlags};
use caf_import::texture_decode::decode_level;
use caf_import::{convert, GpuFormat, ImportError, Settings};

/// A `w × h` RGBA8 image with smooth gradients, a hard edge, fine detail and varying alpha:
/// content where block encoders differ in quality.
fn test_image(w: u32, h: u32) -> Vec<u8> {
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let fx = x as f32 / w as f32;
            let fy = y as f32 / h as f32;
            let r = (255.0 * fx) as u8;
            let g = (255.0 * fy) as u8;
            let b = if x > w / 2 { 200 } else { 40 } + ((x * 7 + y * 3) % 16) as u8;
            let a = (128.0 + 127.0 * (fx * 6.0).sin() * (fy * 4.0).cos()) as u8;
            px.extend_from_slice(&[r, g, b, a]);
        }
    }
    px
}

fn png(w: u32, h: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    image::RgbaImage::from_raw(w, h, rgba.to_vec())
        .unwrap()
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// PSNR in dB over the selected channels of two RGBA8 buffers.
fn psnr(a: &[u8], b: &[u8], channels: &[usize]) -> f64 {
    assert_eq!(a.len(), b.len());
    let mut se = 0f64;
    let mut n = 0f64;
    for (p, q) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for &c in channels {
            let d = p[c] as f64 - q[c] as f64;
            se += d * d;
            n += 1.0;
        }
    }
    if se == 0.0 {
        return f64::INFINITY;
    }
    10.0 * (255.0f64 * 255.0 / (se / n)).log10()
}

/// `base` with the GPU format `f`.
fn gpu(base: Settings, f: GpuFormat) -> Settings {
    Settings {
        gpu_format: Some(f),
        ..base
    }
}

fn convert_with(src: &[u8], name: &str, gpu: Option<GpuFormat>, srgb: Option<bool>) -> Vec<u8> {
    let settings = Settings {
        mips: true,
        gpu_format: gpu,
        srgb,
        ..Settings::default()
    };
    convert(src, Path::new(name), &settings)
        .unwrap()
        .to_caf_bytes()
}

/// The documented minimum PSNR (dB) of each encoder on `test_image` (70x45, mips), measured
/// against the RGBA8 chain of the same settings after decoding with texture2ddecoder (an
/// independent decoder): (format, channels compared, levels at least 16 texels on each side,
/// smaller levels). Small levels hold a few texels of very different colours per block, where
/// every 2-endpoint block format loses more. README "Textures" lists the same numbers.
/// Measured (cargo test -p caf-import --test gpu_textures): BC7 40.2/39.5 dB on levels 0/1,
/// 23.8 dB worst small level; BC3 37.3/34.6, 17.7; BC1 36.2/33.6, 16.1; BC5 50.7/48.3, 35.6;
/// ASTC 4x4 39.9/38.0, 23.0.
const THRESHOLDS: [(GpuFormat, &[usize], f64, f64); 5] = [
    (GpuFormat::Bc7, &[0, 1, 2, 3], 39.0, 22.0),
    (GpuFormat::Astc4x4, &[0, 1, 2, 3], 37.0, 22.0),
    (GpuFormat::Bc3, &[0, 1, 2, 3], 33.0, 16.0),
    (GpuFormat::Bc1, &[0, 1, 2], 32.0, 15.0),
    (GpuFormat::Bc5, &[0, 1], 45.0, 33.0),
];

#[test]
fn block_encoders_meet_their_psnr_thresholds_on_every_level() {
    // 70x45: not a multiple of 4, so every level has padded blocks.
    let (w, h) = (70, 45);
    let mut rgba = test_image(w, h);
    let src_png = png(w, h, &rgba);
    for (gpu, channels, min_large, min_small) in THRESHOLDS {
        let linear = gpu == GpuFormat::Bc5;
        let srgb = if linear { Some(false) } else { None };
        if gpu == GpuFormat::Bc1 {
            // BC1 has 1-bit alpha: measure it on opaque data.
            rgba.chunks_exact_mut(4).for_each(|p| p[3] = 255);
        }
        let src = if gpu == GpuFormat::Bc1 {
            png(w, h, &rgba)
        } else {
            src_png.clone()
        };
        let reference = convert_with(&src, "t.png", Some(GpuFormat::Rgba8), srgb);
        let reference = Asset::parse(&reference).unwrap();
        let reference = TextureView::from_asset(&reference).unwrap();
        let file = convert_with(&src, "t.png", Some(gpu), srgb);
        let asset = Asset::parse(&file).unwrap();
        let view = TextureView::from_asset(&asset).unwrap();
        let expected = gpu.code().with_srgb(!linear);
        assert_eq!(view.format_code(), expected, "{gpu}");
        assert_eq!(view.srgb, !linear, "{gpu}");
        assert_eq!(asset.header.flags.contains(CafFlags::SRGB), !linear);
        assert_eq!(view.level_count(), reference.level_count());
        for i in 0..view.level_count() {
            let (lw, lh) = view.level_dims(i).unwrap();
            let blocks = lw.div_ceil(4) as usize * lh.div_ceil(4) as usize;
            let block_bytes = if gpu == GpuFormat::Bc1 { 8 } else { 16 };
            assert_eq!(
                view.level(i).unwrap().len(),
                blocks * block_bytes,
                "{gpu} level {i}"
            );
            let decoded = decode_level(view.format_code(), 0, lw, lh, view.level(i).unwrap())
                .unwrap()
                .into_rgba8()
                .into_raw();
            let db = psnr(&decoded, reference.level(i).unwrap(), channels);
            let min_db = if lw.min(lh) >= 16 {
                min_large
            } else {
                min_small
            };
            eprintln!("PSNR {gpu} level {i} ({lw}x{lh}): {db:.2} dB (minimum {min_db})");
            assert!(
                db >= min_db,
                "{gpu} level {i} ({lw}x{lh}): {db:.2} dB < {min_db}"
            );
        }
    }
}

// ---- ASTC 4x4 ----

/// Convert raw RGBA8 pixels (as a PNG) with mips to ASTC 4x4, sRGB or linear.
fn astc_file(w: u32, h: u32, rgba: &[u8], srgb: bool) -> Vec<u8> {
    convert_with(
        &png(w, h, rgba),
        "t.png",
        Some(GpuFormat::Astc4x4),
        Some(srgb),
    )
}

/// The documented minimum PSNR (dB, RGBA) of ASTC 4x4 (astc-encoder, medium preset) against
/// the source, decoded by texture2ddecoder: (sample, sRGB, level 0 against the source pixels,
/// every other level of at least 16 texels a side against the RGBA8 chain of the same
/// settings, smaller levels). README "Textures" and caf-textures.md §4.1 list the same
/// numbers. "photo" is `samples::noisy_rgba` (gradients with 4 bits of noise in every
/// channel, which no 8-bit-per-texel format keeps), "gradient" is `samples::gradient_rgba`.
/// Measured (150x90, levels 0 / larger levels' worst / smaller levels' worst): photo sRGB
/// 37.5 / 33.3 / 25.8 dB, photo linear 37.5 / 33.2 / 25.8, gradient sRGB 47.4 / 37.1 / 28.0.
const ASTC_THRESHOLDS: [(&str, bool, f64, f64, f64); 3] = [
    ("photo", true, 36.5, 32.0, 24.5),
    ("photo", false, 36.5, 32.0, 24.5),
    ("gradient", true, 46.0, 36.0, 27.0),
];

#[test]
fn astc4x4_meets_its_psnr_thresholds_against_the_source_on_every_level() {
    use voxcaf_samples::{gradient_rgba, noisy_rgba};
    // Not a multiple of 4: every level has padded blocks.
    let (w, h) = (150, 90);
    for (sample, srgb, min_base, min_large, min_small) in ASTC_THRESHOLDS {
        let rgba = match sample {
            "photo" => noisy_rgba(w, h),
            _ => gradient_rgba(w, h),
        };
        let reference = convert_with(
            &png(w, h, &rgba),
            "t.png",
            Some(GpuFormat::Rgba8),
            Some(srgb),
        );
        let reference = Asset::parse(&reference).unwrap();
        let reference = TextureView::from_asset(&reference).unwrap();
        assert_eq!(
            reference.level(0).unwrap(),
            &rgba[..],
            "level 0 is the source"
        );
        let file = astc_file(w, h, &rgba, srgb);
        let asset = Asset::parse(&file).unwrap();
        let view = TextureView::from_asset(&asset).unwrap();
        let code = if srgb {
            TextureFormat::ASTC_4X4_UNORM_SRGB
        } else {
            TextureFormat::ASTC_4X4_UNORM
        };
        assert_eq!(view.format_code(), code);
        assert_eq!(view.srgb, srgb);
        assert_eq!(asset.header.flags.contains(CafFlags::SRGB), srgb);
        // 150x90 down to 1x1: 8 levels, each whole 16-byte blocks, back to back.
        assert_eq!(view.level_count(), 8);
        let mut start = 0;
        for i in 0..view.level_count() {
            let (lw, lh) = view.level_dims(i).unwrap();
            assert_eq!((lw, lh), ((w >> i).max(1), (h >> i).max(1)));
            let len = (lw.div_ceil(4) * lh.div_ceil(4) * 16) as usize;
            assert_eq!(view.level_range(i), Some(start..start + len), "level {i}");
            start += len;
            let decoded = decode_level(view.format_code(), 0, lw, lh, view.level(i).unwrap())
                .unwrap()
                .into_rgba8()
                .into_raw();
            let db = psnr(&decoded, reference.level(i).unwrap(), &[0, 1, 2, 3]);
            let min_db = match i {
                0 => min_base,
                _ if lw.min(lh) >= 16 => min_large,
                _ => min_small,
            };
            eprintln!("PSNR astc4x4 {sample} srgb={srgb} level {i} ({lw}x{lh}): {db:.2} dB (minimum {min_db})");
            assert!(
                db >= min_db,
                "{sample} srgb={srgb} level {i} ({lw}x{lh}): {db:.2} dB < {min_db}"
            );
        }
        assert_eq!(asset.payload.len(), start);
    }
}

#[test]
fn astc4x4_output_is_deterministic_and_follows_the_colour_space() {
    let (w, h) = (37, 23);
    let rgba = voxcaf_samples::noisy_rgba(w, h);
    let a = astc_file(w, h, &rgba, true);
    let b = astc_file(w, h, &rgba, true);
    assert_eq!(a, b, "same input, same bytes");
    // The linear encoding is a different one (the encoder measures error in another space),
    // not the same blocks under another code.
    let lin = astc_file(w, h, &rgba, false);
    let payload = |f: &[u8]| Asset::parse(f).unwrap().payload.to_vec();
    assert_eq!(payload(&a).len(), payload(&lin).len());
    assert_ne!(payload(&a), payload(&lin));
    // Converting in parallel (as batch builds do) gives the same bytes as one at a time.
    let parallel: Vec<Vec<u8>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|_| s.spawn(|| astc_file(w, h, &rgba, true)))
            .collect();
        handles.into_iter().map(|t| t.join().unwrap()).collect()
    });
    assert!(parallel.iter().all(|p| *p == a));
}

#[test]
fn astc4x4_is_refused_where_it_cannot_apply() {
    let src = png(4, 4, &test_image(4, 4));
    let original = gpu(Settings::original(), GpuFormat::Astc4x4);
    let e = convert(&src, Path::new("t.png"), &original).unwrap_err();
    assert!(e.to_string().contains("original profile"), "{e}");
    let exr = exr_bytes(2, 2, &[0.5; 16]);
    let astc = gpu(Settings::default(), GpuFormat::Astc4x4);
    let e = convert(&exr, Path::new("sky.exr"), &astc).unwrap_err();
    assert!(matches!(e, ImportError::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("astc4x4"), "{e}");
    // The text form round-trips and unknown names list it.
    assert_eq!("ASTC4x4".parse::<GpuFormat>(), Ok(GpuFormat::Astc4x4));
    assert!("astc6x6"
        .parse::<GpuFormat>()
        .unwrap_err()
        .contains("astc4x4"));
    // The sidecar key takes the same name.
    let o = caf_import::SettingsOverride::from_toml(
        "gpu_format = \"astc4x4\"",
        Path::new("t.png.toml"),
    )
    .unwrap();
    assert_eq!(o.gpu_format, Some(GpuFormat::Astc4x4));
    assert!(caf_import::SettingsOverride::from_toml(
        "gpu_format = \"astc\"",
        Path::new("t.png.toml")
    )
    .is_err());
}

#[test]
fn gpu_format_is_refused_where_it_cannot_apply() {
    let src = png(4, 4, &test_image(4, 4));
    let original = gpu(Settings::original(), GpuFormat::Bc7);
    let e = convert(&src, Path::new("t.png"), &original).unwrap_err();
    assert!(matches!(e, ImportError::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("original profile"), "{e}");
    // Float sources have no block encoder here.
    let exr = exr_bytes(2, 2, &[0.5; 16]);
    let bc7 = gpu(Settings::default(), GpuFormat::Bc7);
    let e = convert(&exr, Path::new("sky.exr"), &bc7).unwrap_err();
    assert!(e.to_string().contains("float"), "{e}");
}

// ---- KTX2 ----

const KTX2_ID: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

/// A KTX2 file (KTX 2.0 spec §3): header, level index, an empty data format descriptor
/// (total size 4), then the levels, smallest last in the index but stored smallest first.
/// `levels` are the stored (possibly supercompressed) bytes, level 0 first; `plain_len`
/// their uncompressed lengths.
fn ktx2_file(
    vk_format: u32,
    width: u32,
    height: u32,
    faces: u32,
    supercompression: u32,
    levels: &[Vec<u8>],
    plain_len: &[u64],
) -> Vec<u8> {
    let index_len = 24 * levels.len();
    let dfd_offset = 80 + index_len;
    let mut data_at = dfd_offset + 4;
    let mut offsets = vec![0usize; levels.len()];
    for i in (0..levels.len()).rev() {
        data_at = data_at.div_ceil(16) * 16;
        offsets[i] = data_at;
        data_at += levels[i].len();
    }
    let mut f = Vec::new();
    f.extend_from_slice(&KTX2_ID);
    for v in [
        vk_format,
        1, // typeSize
        width,
        height,
        0, // depth
        0, // layers
        faces,
        levels.len() as u32,
        supercompression,
        dfd_offset as u32,
        4, // dfdByteLength
        0, // kvd offset
        0, // kvd length
    ] {
        f.extend_from_slice(&v.to_le_bytes());
    }
    f.extend_from_slice(&0u64.to_le_bytes()); // sgd offset
    f.extend_from_slice(&0u64.to_le_bytes()); // sgd length
    for (i, l) in levels.iter().enumerate() {
        f.extend_from_slice(&(offsets[i] as u64).to_le_bytes());
        f.extend_from_slice(&(l.len() as u64).to_le_bytes());
        f.extend_from_slice(&plain_len[i].to_le_bytes());
    }
    f.extend_from_slice(&4u32.to_le_bytes()); // dfdTotalSize
    for i in (0..levels.len()).rev() {
        f.resize(offsets[i], 0);
        f.extend_from_slice(&levels[i]);
    }
    f
}

/// Two BC7 levels of an 8x8 image (made by the encoder, so they are real blocks), and their
/// lengths.
fn bc7_levels() -> (Vec<Vec<u8>>, Vec<u64>) {
    let rgba = test_image(8, 8);
    let file = convert_with(&png(8, 8, &rgba), "t.png", Some(GpuFormat::Bc7), None);
    let asset = Asset::parse(&file).unwrap();
    let view = TextureView::from_asset(&asset).unwrap();
    let levels: Vec<Vec<u8>> = (0..2).map(|i| view.level(i).unwrap().to_vec()).collect();
    let lens = levels.iter().map(|l| l.len() as u64).collect();
    (levels, lens)
}

/// The KTX2 file `file` converted with the default settings, as `.caf` bytes.
fn ktx2_caf(file: &[u8]) -> Vec<u8> {
    convert(file, Path::new("rock.ktx2"), &Settings::default())
        .unwrap()
        .to_caf_bytes()
}

#[test]
fn ktx2_bc7_levels_pass_through_unchanged() {
    let (levels, lens) = bc7_levels();
    // VK_FORMAT_BC7_SRGB_BLOCK = 146.
    let file = ktx2_file(146, 8, 8, 1, 0, &levels, &lens);
    let bytes = ktx2_caf(&file);
    let asset = Asset::parse(&bytes).unwrap();
    let view = TextureView::from_asset(&asset).unwrap();
    assert_eq!(view.format_code(), TextureFormat::BC7_RGBA_UNORM_SRGB);
    assert!(asset
        .header
        .flags
        .contains(CafFlags::SRGB | CafFlags::MIPCHAIN));
    assert_eq!(view.level_count(), 2);
    assert_eq!(view.level(0).unwrap(), &levels[0][..]);
    assert_eq!(view.level(1).unwrap(), &levels[1][..]);
    assert_eq!(view.level_range(1), Some(64..80));
}

#[test]
fn ktx2_zstd_levels_are_decompressed_and_basislz_is_refused_by_name() {
    let (levels, lens) = bc7_levels();
    let packed: Vec<Vec<u8>> = levels
        .iter()
        .map(|l| zstd::bulk::compress(l, 3).unwrap())
        .collect();
    // VK_FORMAT_BC7_UNORM_BLOCK = 145, supercompression 2 = zstd.
    let file = ktx2_file(145, 8, 8, 1, 2, &packed, &lens);
    let bytes = ktx2_caf(&file);
    let asset = Asset::parse(&bytes).unwrap();
    let view = TextureView::from_asset(&asset).unwrap();
    assert_eq!(view.format_code(), TextureFormat::BC7_RGBA_UNORM);
    assert!(!view.srgb);
    assert_eq!(view.level(0).unwrap(), &levels[0][..]);
    assert_eq!(view.level(1).unwrap(), &levels[1][..]);

    let basis = ktx2_file(145, 8, 8, 1, 1, &levels, &[0, 0]);
    let e = convert(&basis, Path::new("rock.ktx2"), &Settings::default()).unwrap_err();
    assert!(e.to_string().contains("BasisLZ"), "{e}");
    let zlib = ktx2_file(145, 8, 8, 1, 3, &levels, &lens);
    let e = convert(&zlib, Path::new("rock.ktx2"), &Settings::default()).unwrap_err();
    assert!(e.to_string().contains("ZLIB"), "{e}");
}

#[test]
fn ktx2_unhappy_paths_are_typed_errors() {
    let (levels, lens) = bc7_levels();
    let d = Settings::default();
    // A cube map.
    let cube = ktx2_file(145, 8, 8, 6, 0, &levels, &lens);
    let e = convert(&cube, Path::new("c.ktx2"), &d).unwrap_err();
    assert!(e.to_string().contains("faces 6"), "{e}");
    // A level one block short.
    let mut short = levels.clone();
    short[0].truncate(48);
    let lens_short: Vec<u64> = short.iter().map(|l| l.len() as u64).collect();
    let file = ktx2_file(145, 8, 8, 1, 0, &short, &lens_short);
    let e = convert(&file, Path::new("s.ktx2"), &d).unwrap_err();
    assert!(matches!(e, ImportError::Malformed { .. }), "{e}");
    assert!(e.to_string().contains("level 0"), "{e}");
    // A format not passed through (VK_FORMAT_R5G6B5_UNORM_PACK16 = 4).
    let file = ktx2_file(4, 8, 8, 1, 0, &levels, &lens);
    let e = convert(&file, Path::new("f.ktx2"), &d).unwrap_err();
    assert!(matches!(e, ImportError::Unsupported { .. }), "{e}");
    // No VkFormat: Basis Universal.
    let file = ktx2_file(0, 8, 8, 1, 0, &levels, &lens);
    let e = convert(&file, Path::new("u.ktx2"), &d).unwrap_err();
    assert!(e.to_string().contains("Basis Universal"), "{e}");
    // Re-encoding is refused; truncated containers are malformed.
    let good = ktx2_file(145, 8, 8, 1, 0, &levels, &lens);
    let bc1 = gpu(Settings::default(), GpuFormat::Bc1);
    assert!(convert(&good, Path::new("g.ktx2"), &bc1).is_err());
    for cut in [10, 80, 100, good.len() - 1] {
        let e = convert(&good[..cut], Path::new("g.ktx2"), &d).unwrap_err();
        assert!(matches!(e, ImportError::Malformed { .. }), "cut {cut}: {e}");
    }
}

// ---- 16-bit and float sources ----

fn png16(w: u32, h: u32, samples: &[u16]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Sixteen);
        let mut wr = enc.write_header().unwrap();
        let be: Vec<u8> = samples.iter().flat_map(|v| v.to_be_bytes()).collect();
        wr.write_image_data(&be).unwrap();
    }
    out
}

fn exr_bytes(w: u32, h: u32, samples: &[f32]) -> Vec<u8> {
    let mut out = Vec::new();
    image::DynamicImage::ImageRgba32F(
        image::Rgba32FImage::from_raw(w, h, samples.to_vec()).unwrap(),
    )
    .write_to(
        &mut std::io::Cursor::new(&mut out),
        image::ImageFormat::OpenExr,
    )
    .unwrap();
    out
}

#[test]
fn sixteen_bit_png_is_stored_as_r16g16b16a16_unorm_with_mips() {
    let (w, h) = (5, 3);
    // Values that 8 bits cannot hold (odd low bytes).
    let samples: Vec<u16> = (0..w * h * 4).map(|i| (i * 4099 + 257) as u16).collect();
    let src = png16(w, h, &samples);
    let file = convert_with(&src, "deep.png", None, Some(false));
    let asset = Asset::parse(&file).unwrap();
    let view = TextureView::from_asset(&asset).unwrap();
    assert_eq!(view.format_code(), TextureFormat::R16G16B16A16_UNORM);
    assert_eq!(view.level_count(), 3);
    assert_eq!(view.level_range(1), Some(120..136));
    let base = decode_level(view.format_code(), 0, w, h, view.level(0).unwrap()).unwrap();
    assert_eq!(base.as_rgba16().unwrap().as_raw(), &samples);
    // Level 1 (2x1) texel 0, linear data: the area-weighted mean of source columns 0..2.5
    // over all 3 rows.
    let lvl1 = decode_level(view.format_code(), 0, 2, 1, view.level(1).unwrap()).unwrap();
    let lvl1 = lvl1.as_rgba16().unwrap();
    let mut expect = 0f64;
    for y in 0..3 {
        for (x, wgt) in [(0, 1.0), (1, 1.0), (2, 0.5)] {
            expect += samples[((y * w + x) * 4) as usize] as f64 * wgt;
        }
    }
    expect /= 7.5;
    let got = lvl1.get_pixel(0, 0)[0] as f64;
    assert!((got - expect).abs() <= 1.0, "{got} vs {expect}");
    // With a GPU format the source is reduced to 8 bits.
    let file = convert_with(&src, "deep.png", Some(GpuFormat::Rgba8), Some(false));
    let asset = Asset::parse(&file).unwrap();
    let view = TextureView::from_asset(&asset).unwrap();
    assert_eq!((view.format_code().0, view.channels), (0, 4));
    assert_eq!(
        view.level(0).unwrap()[0],
        ((samples[0] as u32 * 255 + 32_767) / 65_535) as u8
    );
}

#[test]
fn exr_is_stored_as_half_floats_keeping_values_above_one() {
    let (w, h) = (4, 2);
    let samples: Vec<f32> = (0..w * h * 4).map(|i| i as f32 * 0.37).collect();
    let src = exr_bytes(w, h, &samples);
    let file = convert_with(&src, "sky.exr", None, None);
    let asset = Asset::parse(&file).unwrap();
    let view = TextureView::from_asset(&asset).unwrap();
    assert_eq!(view.format_code(), TextureFormat::R16G16B16A16_FLOAT);
    assert!(!view.srgb, "float data is linear");
    assert_eq!(view.level_count(), 3);
    let base = decode_level(view.format_code(), 0, w, h, view.level(0).unwrap()).unwrap();
    let base = base.as_rgba32f().unwrap().as_raw().clone();
    for (a, b) in base.iter().zip(&samples) {
        assert!((a - b).abs() <= b.abs() / 1024.0 + 1e-3, "{a} vs {b}");
    }
    assert!(base.iter().any(|&v| v > 10.0));
    // Level 2 (1x1) is the mean of everything, channel by channel.
    let top = decode_level(view.format_code(), 0, 1, 1, view.level(2).unwrap()).unwrap();
    let top = top.as_rgba32f().unwrap().get_pixel(0, 0).0;
    for (c, got) in top.iter().enumerate() {
        let mean: f32 = samples.iter().skip(c).step_by(4).sum::<f32>() / (w * h) as f32;
        assert!((got - mean).abs() <= mean / 512.0, "{c}: {got} vs {mean}");
    }
}

/// A 16-bit sRGB RGBA PNG whose left 5 columns are opaque and the rest fully transparent
/// white: every mip texel with any coverage keeps the opaque colour (within 1/255), as the
/// 8-bit chain does; unweighted averaging pulled it up to 104/255 towards white.
#[test]
fn sixteen_bit_png_mips_weight_colour_by_alpha() {
    let (w, h) = (13u32, 9u32);
    let opaque = [50_000u16, 20_000, 9_000, u16::MAX];
    let samples: Vec<u16> = (0..w * h)
        .flat_map(|i| {
            if i % w < 5 {
                opaque
            } else {
                [u16::MAX, u16::MAX, u16::MAX, 0]
            }
        })
        .collect();
    let file = convert_with(&png16(w, h, &samples), "edge.png", None, Some(true));
    let asset = Asset::parse(&file).unwrap();
    let view = TextureView::from_asset(&asset).unwrap();
    assert_eq!(view.format_code(), TextureFormat::R16G16B16A16_UNORM);
    assert!(view.level_count() > 3);
    let mut partial = 0;
    for l in 1..view.level_count() {
        let (lw, lh) = view.level_dims(l).unwrap();
        let img = decode_level(view.format_code(), 0, lw, lh, view.level(l).unwrap()).unwrap();
        for (x, y, p) in img.as_rgba16().unwrap().enumerate_pixels() {
            if p[3] == 0 {
                continue;
            }
            partial += usize::from(p[3] < u16::MAX);
            for c in 0..3 {
                let off = (p[c] as i32 - opaque[c] as i32).abs();
                assert!(off <= 257, "level {l} ({x}, {y}) channel {c}: {p:?}");
            }
        }
    }
    assert!(partial > 0, "the edge falls inside some footprints");
}

/// NaN and ±Inf in an EXR source: a typed warning counts them and says what they became
/// (NaN 0, ±Inf the largest and lowest finite values of the stored format), instead of all
/// silently turning into 0 (+Inf into black).
#[test]
fn nan_and_infinity_in_float_sources_are_counted_in_a_warning() {
    use caf_import::texture::{
        build_source_with_warnings, decode_source, NonFiniteSamples, SampleRange, TextureWarning,
    };
    let (w, h) = (4, 2);
    let mut samples: Vec<f32> = (0..w * h * 4).map(|i| i as f32 * 0.25).collect();
    samples[0] = f32::NAN;
    samples[5] = f32::INFINITY;
    samples[6] = f32::INFINITY;
    samples[9] = f32::NEG_INFINITY;
    samples[13] = 1.0e6;
    let src = exr_bytes(w, h, &samples);
    let build = |gpu_format| {
        let settings = Settings {
            mips: true,
            gpu_format,
            ..Settings::default()
        };
        build_source_with_warnings(decode_source(&src, Some("exr")).unwrap(), &settings).unwrap()
    };
    let (tex, warnings) = build(None);
    let expected = NonFiniteSamples {
        nan: 1,
        positive_infinite: 2,
        negative_infinite: 1,
        out_of_range: 1,
        range: SampleRange::HALF,
    };
    assert_eq!(warnings, [TextureWarning::NonFinite(expected)]);
    let text = warnings[0].to_string();
    assert!(text.contains("1 NaN sample(s) became 0"), "{text}");
    assert!(text.contains("2 +Inf became 65504"), "{text}");
    let base = decode_level(tex.format, 0, w, h, &tex.payload[..(w * h * 8) as usize]).unwrap();
    let base = base.as_rgba32f().unwrap().as_raw().clone();
    assert_eq!(
        [base[0], base[5], base[6], base[9], base[13]],
        [0.0, 65_504.0, 65_504.0, -65_504.0, 65_504.0]
    );
    assert!(tex
        .payload
        .chunks_exact(2)
        .all(|b| { half::f16::from_le_bytes([b[0], b[1]]).is_finite() }));
    // Reduced to RGBA8: +Inf is the brightest value, not black.
    let (tex, warnings) = build(Some(GpuFormat::Rgba8));
    let [TextureWarning::NonFinite(n)] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    assert_eq!(
        (
            n.nan,
            n.positive_infinite,
            n.negative_infinite,
            n.out_of_range
        ),
        (1, 2, 1, 0)
    );
    assert_eq!(n.range, SampleRange::UNIT8);
    assert_eq!(
        (tex.payload[0], tex.payload[5], tex.payload[9]),
        (0, 255, 0)
    );
    // Finite sources give no warning.
    let src = exr_bytes(w, h, &vec![0.5; (w * h * 4) as usize]);
    let settings = Settings::default();
    let (_, warnings) =
        build_source_with_warnings(decode_source(&src, None).unwrap(), &settings).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// OpenEXR's AllHalfValues test image (every half-float bit pattern, NaNs and infinities
/// included) converts, with the non-finite samples counted.
#[test]
fn nan_and_infinity_in_a_real_exr_are_counted_in_a_warning() {
    use caf_import::texture::{build_source_with_warnings, decode_source, TextureWarning};
    let Some(path) =
        voxcaf_golden::corpus("../realworld/corpus2/hdr/exr-TestImages_AllHalfValues.exr")
    else {
        return;
    };
    let src = std::fs::read(path).unwrap();
    let settings = Settings {
        mips: true,
        ..Settings::default()
    };
    let (tex, warnings) =
        build_source_with_warnings(decode_source(&src, Some("exr")).unwrap(), &settings).unwrap();
    let [TextureWarning::NonFinite(n)] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    assert!(
        n.nan > 0 && n.positive_infinite > 0 && n.negative_infinite > 0,
        "{n:?}"
    );
    assert!(tex
        .payload
        .chunks_exact(2)
        .all(|b| { half::f16::from_le_bytes([b[0], b[1]]).is_finite() }));
}

// ---- EXIF orientation ----

/// A JPEG of `w × h` (left half red, right half blue) with an EXIF APP1 segment whose IFD0
/// holds one Orientation (0x0112) entry.
fn jpeg_with_orientation(w: u32, h: u32, orientation: u16) -> Vec<u8> {
    let mut rgb = Vec::new();
    for _y in 0..h {
        for x in 0..w {
            rgb.extend_from_slice(if x < w / 2 {
                &[255, 0, 0]
            } else {
                &[0, 0, 255]
            });
        }
    }
    let mut jpg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpg, 95)
        .encode(&rgb, w, h, image::ExtendedColorType::Rgb8)
        .unwrap();
    // TIFF, little-endian: header, IFD0 with 1 entry (SHORT, count 1, value), next IFD = 0.
    let mut tiff = Vec::new();
    tiff.extend_from_slice(b"II");
    tiff.extend_from_slice(&42u16.to_le_bytes());
    tiff.extend_from_slice(&8u32.to_le_bytes());
    tiff.extend_from_slice(&1u16.to_le_bytes());
    tiff.extend_from_slice(&0x0112u16.to_le_bytes());
    tiff.extend_from_slice(&3u16.to_le_bytes());
    tiff.extend_from_slice(&1u32.to_le_bytes());
    tiff.extend_from_slice(&orientation.to_le_bytes());
    tiff.extend_from_slice(&[0, 0]);
    tiff.extend_from_slice(&0u32.to_le_bytes());
    let mut app1 = b"Exif\0\0".to_vec();
    app1.extend_from_slice(&tiff);
    let mut out = jpg[..2].to_vec(); // SOI
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&((app1.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&app1);
    out.extend_from_slice(&jpg[2..]);
    out
}

#[test]
fn exif_orientation_is_applied() {
    // Orientation 6: the stored image is displayed rotated 90° clockwise, so the stored left
    // (red) half becomes the top half of an 8x16 result.
    let src = jpeg_with_orientation(16, 8, 6);
    let settings = Settings::default();
    let c = convert(&src, Path::new("photo.jpg"), &settings).unwrap();
    let bytes = c.to_caf_bytes();
    let asset = Asset::parse(&bytes).unwrap();
    let view = TextureView::from_asset(&asset).unwrap();
    assert_eq!((view.meta.width, view.meta.height), (8, 16));
    let px = view.level(0).unwrap();
    let at = |x: usize, y: usize| &px[(y * 8 + x) * 4..][..3];
    assert!(
        at(4, 2)[0] > 200 && at(4, 2)[2] < 60,
        "top is red: {:?}",
        at(4, 2)
    );
    assert!(
        at(4, 13)[2] > 200 && at(4, 13)[0] < 60,
        "bottom is blue: {:?}",
        at(4, 13)
    );
    // Orientation 1 (or none) leaves it as stored.
    let c = convert(
        &jpeg_with_orientation(16, 8, 1),
        Path::new("p.jpg"),
        &settings,
    )
    .unwrap();
    let bytes = c.to_caf_bytes();
    let asset = Asset::parse(&bytes).unwrap();
    let view = TextureView::from_asset(&asset).unwrap();
    assert_eq!((view.meta.width, view.meta.height), (16, 8));
}
