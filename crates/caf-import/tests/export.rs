//! `caf_import::export` round trips: source -> .caf -> export, read back with independent
//! decoders (`image` for PNG, `hound` for WAV, the Khronos validator for SPIR-V) and compared
//! with what went in.

use std::path::{Path, PathBuf};

use caf_import::export::{export, write_files, ExportError, ExportOptions};
use caf_import::{convert, encode_raw_texture, shader, AudioBits, Settings};
use voxcaf_samples as samples;

type Res = Result<(), Box<dyn std::error::Error>>;

fn opts() -> ExportOptions<'static> {
    ExportOptions::default()
}

/// An RGBA texture with its mip chain: every level comes back as a PNG whose pixels are the
/// stored level; level 0 is the source image.
#[test]
fn texture_every_level_round_trips_through_png() -> Res {
    let src = samples::gradient_png(13, 6);
    let settings = Settings {
        mips: true,
        ..Settings::default()
    };
    let caf = convert(&src, Path::new("g.png"), &settings)?.to_caf_bytes();
    let asset = caf::Asset::parse(&caf)?;
    let view = caf::texture::TextureView::from_asset(&asset)?;
    let files = export(caf.clone(), Path::new("out/g.png"), &opts())?;
    assert_eq!(files.len(), view.level_count());
    assert_eq!(view.level_count(), 4);
    for (i, f) in files.iter().enumerate() {
        assert_eq!(f.path, PathBuf::from(format!("out/g-mip{i}.png")));
        let img = image::load_from_memory_with_format(&f.bytes, image::ImageFormat::Png)?;
        assert_eq!((img.width(), img.height()), view.level_dims(i).unwrap());
        assert_eq!(img.color(), image::ColorType::Rgba8);
        assert_eq!(img.as_bytes(), view.level(i).unwrap(), "level {i}");
    }
    let original = image::load_from_memory(&src)?.to_rgba8();
    let level0 = image::load_from_memory(&files[0].bytes)?.to_rgba8();
    assert_eq!(original, level0);
    Ok(())
}

/// `level` exports one level to OUT itself; a level the texture lacks is a typed error.
#[test]
fn texture_one_level() -> Res {
    let caf = convert(
        &samples::gradient_png(8, 8),
        Path::new("g.png"),
        &Settings {
            mips: true,
            ..Settings::default()
        },
    )?
    .to_caf_bytes();
    let one = ExportOptions {
        level: Some(2),
        ..opts()
    };
    let files = export(caf.clone(), Path::new("small.png"), &one)?;
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path, PathBuf::from("small.png"));
    let img = image::load_from_memory(&files[0].bytes)?;
    assert_eq!((img.width(), img.height()), (2, 2));
    let none = ExportOptions {
        level: Some(4),
        ..opts()
    };
    match export(caf, Path::new("x.png"), &none) {
        Err(ExportError::NoSuchLevel { level: 4, count: 4 }) => {}
        other => panic!("expected NoSuchLevel, got {other:?}"),
    }
    Ok(())
}

/// R8 comes back as a grey PNG, RG8 as RGB with blue 0, RGB8 as RGB.
#[test]
fn texture_r8_rg8_rgb8() -> Res {
    let px: Vec<u8> = (0..4 * 3 * 3).map(|i| (i * 7) as u8).collect();
    for ch in 1..=3u8 {
        let n = 4 * 3 * ch as usize;
        let caf = encode_raw_texture(4, 3, ch, &px[..n], false)?.to_caf_bytes();
        let files = export(caf, Path::new("t.png"), &opts())?;
        let img = image::load_from_memory(&files[0].bytes)?;
        let want: Vec<u8> = match ch {
            2 => px[..n].chunks(2).flat_map(|p| [p[0], p[1], 0]).collect(),
            _ => px[..n].to_vec(),
        };
        let color = [
            image::ColorType::L8,
            image::ColorType::Rgb8,
            image::ColorType::Rgb8,
        ][ch as usize - 1];
        assert_eq!(img.color(), color, "{ch} channels");
        assert_eq!(img.as_bytes(), &want[..], "{ch} channels");
    }
    Ok(())
}

/// 16-bit and 8-bit audio come back as WAV files with the same samples.
#[test]
fn audio_round_trips_through_wav() -> Res {
    let src = samples::wav_i16(22050, 2, 1000);
    let want: Vec<i16> = hound::WavReader::new(&src[..])?
        .samples::<i16>()
        .collect::<Result<_, _>>()?;
    let caf = convert(&src, Path::new("a.wav"), &Settings::default())?.to_caf_bytes();
    let files = export(caf, Path::new("a.wav"), &opts())?;
    let mut r = hound::WavReader::new(&files[0].bytes[..])?;
    let spec = r.spec();
    assert_eq!(
        (spec.sample_rate, spec.channels, spec.bits_per_sample),
        (22050, 2, 16)
    );
    let got: Vec<i16> = r.samples::<i16>().collect::<Result<_, _>>()?;
    assert_eq!(got, want);

    let eight = Settings {
        bits: AudioBits::B8,
        ..Settings::default()
    };
    let c = convert(&src, Path::new("a.wav"), &eight)?;
    let files = export(c.to_caf_bytes(), Path::new("a8.wav"), &opts())?;
    let mut r = hound::WavReader::new(&files[0].bytes[..])?;
    assert_eq!(r.spec().bits_per_sample, 8);
    let got: Vec<i8> = r.samples::<i8>().collect::<Result<_, _>>()?;
    let stored: Vec<i8> = c.payload.iter().map(|&b| b as i8).collect();
    assert_eq!(got, stored);
    Ok(())
}

/// A shader's SPIR-V comes back byte for byte, validates, and its disassembly names its entry
/// point.
#[test]
fn shader_round_trips_with_disassembly() -> Res {
    let c = convert(
        samples::FRAGMENT_GLSL.as_bytes(),
        Path::new("s.frag"),
        &Settings::default(),
    )?;
    let files = export(c.to_caf_bytes(), Path::new("out/s.spv"), &opts())?;
    assert_eq!(files.len(), 2);
    assert_eq!(files[0].path, PathBuf::from("out/s.spv"));
    assert_eq!(files[0].bytes, c.payload);
    shader::validate_spirv(&files[0].bytes)?;
    assert_eq!(files[1].path, PathBuf::from("out/s.spvasm"));
    let text = String::from_utf8(files[1].bytes.clone())?;
    assert!(text.contains("OpEntryPoint Fragment"), "{text}");
    // OUT.spvasm would be overwritten by its own disassembly; it is not a SPIR-V name anyway.
    let bad = export(c.to_caf_bytes(), Path::new("s.spvasm"), &opts());
    assert!(
        matches!(&bad, Err(ExportError::WrongExtension { extension, .. }) if extension == "spvasm"),
        "{bad:?}"
    );
    Ok(())
}

/// The corpus SPIR-V: input -> .caf -> export gives the input's bytes.
#[test]
fn corpus_spirv_export_equals_the_input() -> Res {
    let path = voxcaf_golden::root().join("../corpus/shader/sw-texture-texture.frag.spv");
    if !path.is_file() {
        assert!(
            !voxcaf_golden::required(),
            "corpus not found at {}",
            path.display()
        );
        eprintln!("note: corpus not found; skipping");
        return Ok(());
    }
    let input = std::fs::read(&path)?;
    let c = caf_import::convert_file(&path, &Settings::default())?;
    let files = export(c.to_caf_bytes(), Path::new("t.spv"), &opts())?;
    assert_eq!(files[0].bytes, input);
    shader::validate_spirv(&files[0].bytes)?;
    Ok(())
}

/// An encrypted asset needs its key; with it, the export is the plain one.
#[test]
fn encrypted_asset_needs_the_key() -> Res {
    let key = caf::encoded::Key::from_bytes([7; 32]);
    let c = convert(
        &samples::wav_i16(8000, 1, 100),
        Path::new("a.wav"),
        &Settings::default(),
    )?;
    let settings = Settings::default();
    let enc = c.to_caf_bytes_encoded(&settings.encoding(Some(&key)))?;
    let plain = export(c.to_caf_bytes(), Path::new("a.wav"), &opts())?;
    assert!(matches!(
        export(enc.clone(), Path::new("a.wav"), &opts()),
        Err(ExportError::Caf(_))
    ));
    let with_key = ExportOptions {
        key: Some(&key),
        ..opts()
    };
    assert_eq!(export(enc, Path::new("a.wav"), &with_key)?, plain);
    Ok(())
}

/// Kinds without an exporter, and options that do not apply, are typed errors.
#[test]
fn unsupported_kinds_and_options() -> Res {
    let scene = caf::AssetWriter::new(caf::AssetType::SCENE)
        .metadata(&[0; 20])
        .to_vec();
    match export(scene, Path::new("s.glb"), &opts()) {
        Err(e @ ExportError::UnsupportedType { .. }) => {
            assert!(e.to_string().contains("cannot export scene"), "{e}");
            assert!(e.to_string().contains("mesh"), "{e}");
        }
        other => panic!("expected UnsupportedType, got {other:?}"),
    }
    let mesh = convert(
        samples::CUBE_OBJ.as_bytes(),
        Path::new("c.obj"),
        &Settings::default(),
    )?;
    let level0 = ExportOptions {
        level: Some(0),
        ..opts()
    };
    assert!(matches!(
        export(mesh.to_caf_bytes(), Path::new("c.glb"), &level0),
        Err(ExportError::OptionNotApplicable { .. })
    ));
    let audio = convert(
        &samples::wav_i16(8000, 1, 10),
        Path::new("a.wav"),
        &Settings::default(),
    )?;
    assert!(matches!(
        export(audio.to_caf_bytes(), Path::new("a.wav"), &level0),
        Err(ExportError::OptionNotApplicable { .. })
    ));
    // A damaged file is refused by the loader.
    let mut bad = audio.to_caf_bytes();
    let n = bad.len();
    bad[n - 10] ^= 1;
    assert!(matches!(
        export(bad, Path::new("a.wav"), &opts()),
        Err(ExportError::Caf(_))
    ));
    Ok(())
}

/// `write_files` writes every file, creating folders.
#[test]
fn write_files_creates_folders() -> Res {
    let dir = tempfile::tempdir()?;
    let caf = convert(
        &samples::gradient_png(2, 2),
        Path::new("g.png"),
        &Settings::default(),
    )?
    .to_caf_bytes();
    let files = export(caf, &dir.path().join("a/b/g.png"), &opts())?;
    write_files(&files)?;
    let back = std::fs::read(dir.path().join("a/b/g-mip0.png"))?;
    assert_eq!(back, files[0].bytes);
    Ok(())
}

/// GPU formats go back out decoded: a BC7 texture's levels as RGBA8 PNGs close to the source
/// (the block encoder's loss only), a 16-bit texture's as 16-bit PNGs equal to the source.
#[test]
fn texture_gpu_and_16_bit_formats_export_decoded() -> Res {
    let src = samples::gradient_png(32, 16);
    let settings = Settings {
        mips: true,
        gpu_format: Some(caf_import::GpuFormat::Bc7),
        ..Settings::default()
    };
    let caf = convert(&src, Path::new("g.png"), &settings)?.to_caf_bytes();
    let files = export(caf, Path::new("out/g.png"), &opts())?;
    assert_eq!(files.len(), 6);
    let original = image::load_from_memory(&src)?.to_rgba8();
    let level0 = image::load_from_memory_with_format(&files[0].bytes, image::ImageFormat::Png)?;
    assert_eq!(level0.color(), image::ColorType::Rgba8);
    let level0 = level0.to_rgba8();
    assert_eq!(level0.dimensions(), original.dimensions());
    let worst = original
        .as_raw()
        .iter()
        .zip(level0.as_raw())
        .map(|(a, b)| a.abs_diff(*b))
        .max()
        .unwrap_or(0);
    assert!(worst <= 24, "BC7 level 0 differs by up to {worst}");

    let (w, h) = (5u32, 3u32);
    let px: Vec<u16> = (0..w * h * 4).map(|i| (i * 4099 % 65536) as u16).collect();
    let img = image::ImageBuffer::<image::Rgba<u16>, _>::from_raw(w, h, px.clone()).unwrap();
    let mut png = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgba16(img).write_to(&mut png, image::ImageFormat::Png)?;
    let caf = convert(png.get_ref(), Path::new("h.png"), &Settings::default())?.to_caf_bytes();
    let files = export(caf, Path::new("out/h.png"), &opts())?;
    assert_eq!(files.len(), 1);
    let back = image::load_from_memory_with_format(&files[0].bytes, image::ImageFormat::Png)?;
    assert_eq!(back.color(), image::ColorType::Rgba16);
    assert_eq!(back.to_rgba16().into_raw(), px);
    Ok(())
}

/// A passed-through ASTC HDR KTX2 (magnum-plugins' `rgbaf.ktx2`: ASTC_4x4_SFLOAT, zstd
/// supercompressed, format 91 in the asset): a PNG export is refused with a message naming the
/// format and KTX2 as the alternative, and `OUT.ktx2` gets the blocks back unchanged in a KTX2
/// file that the pass-through (and the `ktx2` crate) read again.
#[test]
fn astc_hdr_texture_exports_as_ktx2_and_png_is_refused_by_name() -> Res {
    let Some(path) = voxcaf_golden::corpus("../realworld/corpus2/ktx2/magnum-basis-rgbaf.ktx2")
    else {
        return Ok(());
    };
    let src = std::fs::read(&path)?;
    let converted = convert(&src, &path, &Settings::default())?;
    let caf = converted.to_caf_bytes();
    let asset = caf::Asset::parse(&caf)?;
    let view = caf::texture::TextureView::from_asset(&asset)?;
    assert_eq!(view.format_code().0, 91);
    let err = export(caf.clone(), Path::new("out/sky.png"), &opts()).unwrap_err();
    assert!(
        matches!(err, ExportError::NotDecodable { code: 91, .. }),
        "{err}"
    );
    let text = err.to_string();
    assert!(text.contains("ASTC") && text.contains("KTX2"), "{text}");
    let files = export(caf.clone(), Path::new("out/sky.ktx2"), &opts())?;
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path, PathBuf::from("out/sky.ktx2"));
    let ktx = &files[0].bytes;
    let reader = ktx2::Reader::new(&ktx[..])?;
    assert_eq!(
        reader.header().format.map(|f| f.value()),
        Some(1_000_066_000)
    );
    assert_eq!(
        (reader.header().pixel_width, reader.header().pixel_height),
        (63, 27)
    );
    // The original's level, zstd-decoded, is what the export wrote.
    let original = ktx2::Reader::new(&src[..])?;
    let level = original.levels().next().unwrap();
    let expected = zstd::bulk::decompress(level.data, level.uncompressed_byte_length as usize)?;
    assert_eq!(reader.levels().next().unwrap().data, &expected[..]);
    // Read back through the pass-through: the same asset.
    let again = convert(ktx, Path::new("sky.ktx2"), &Settings::default())?;
    assert_eq!(again.to_caf_bytes(), caf);
    Ok(())
}

/// Every level of a BC7 texture with mips goes to one KTX2 file as stored (`--level` to one
/// level), and comes back through the pass-through unchanged.
#[test]
fn encoded_texture_levels_export_to_ktx2_unchanged() -> Res {
    let settings = Settings {
        mips: true,
        gpu_format: Some(caf_import::GpuFormat::Bc7),
        ..Settings::default()
    };
    let caf = convert(
        &samples::gradient_png(20, 12),
        Path::new("g.png"),
        &settings,
    )?
    .to_caf_bytes();
    let files = export(caf.clone(), Path::new("g.KTX2"), &opts())?;
    let back = convert(&files[0].bytes, Path::new("g.ktx2"), &Settings::default())?;
    assert_eq!(back.to_caf_bytes(), caf);
    let one = ExportOptions {
        level: Some(1),
        ..opts()
    };
    let files = export(caf.clone(), Path::new("g1.ktx2"), &one)?;
    let reader = ktx2::Reader::new(&files[0].bytes[..])?;
    assert_eq!(reader.header().level_count, 1);
    let asset = caf::Asset::parse(&caf)?;
    let view = caf::texture::TextureView::from_asset(&asset)?;
    assert_eq!(reader.levels().next().unwrap().data, view.level(1).unwrap());
    Ok(())
}
