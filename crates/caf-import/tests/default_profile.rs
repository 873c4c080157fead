//! Properties of the default profile's outputs, on inputs generated here.

use std::io::Cursor;
use std::path::Path;

use caf::audio::AudioView;
use caf::mesh::MeshView;
use caf::shader::ShaderView;
use caf::texture::TextureView;
use caf::{Asset, CafFlags};
use caf_import::{
    convert, encode_raw_texture, shader, texture, AudioBits, ImportError, MipFilter, Settings,
    Stage,
};
use voxcaf_samples as samples;

fn conv(bytes: &[u8], name: &str, s: &Settings) -> Vec<u8> {
    convert(bytes, Path::new(name), s)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .to_caf_bytes()
}

fn encode(img: &image::RgbaImage, f: image::ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, f).unwrap();
    out.into_inner()
}

#[test]
fn textures_decode_back_to_the_source_pixels() {
    let (w, h) = (37, 20);
    let rgba = samples::gradient_rgba(w, h);
    let img = image::RgbaImage::from_raw(w, h, rgba.clone()).unwrap();
    let opaque = image::RgbaImage::from_fn(w, h, |x, y| {
        let p = img.get_pixel(x, y);
        image::Rgba([p[0], p[1], p[2], 255])
    });
    // (file name, the image encoded, the pixels expected back).
    let case =
        |name, img: &image::RgbaImage, format| (name, encode(img, format), img.as_raw().clone());
    let cases = [
        case("t.png", &img, image::ImageFormat::Png),
        case("t.tga", &img, image::ImageFormat::Tga),
        case("t.webp", &img, image::ImageFormat::WebP),
        case("t.bmp", &opaque, image::ImageFormat::Bmp),
    ];
    for (name, bytes, expect) in cases {
        let file = conv(&bytes, name, &Settings::default());
        let asset = Asset::parse(&file).unwrap();
        let tex = TextureView::from_asset(&asset).unwrap();
        assert_eq!(
            (tex.meta.width, tex.meta.height, tex.level_count()),
            (w, h, 1),
            "{name}"
        );
        assert_eq!(tex.level(0).unwrap(), expect.as_slice(), "{name}");
        assert_eq!(asset.header.flags, CafFlags::SRGB, "{name}");
    }
    // JPEG is lossy: check shape only.
    let rgb = image::DynamicImage::ImageRgba8(opaque).into_rgb8();
    let mut jpg = Cursor::new(Vec::new());
    rgb.write_to(&mut jpg, image::ImageFormat::Jpeg).unwrap();
    let file = conv(jpg.get_ref(), "t.jpg", &Settings::default());
    let asset = Asset::parse(&file).unwrap();
    assert_eq!(TextureView::from_asset(&asset).unwrap().meta.width, w);
}

#[test]
fn mip_levels_have_the_right_sizes_and_flags() {
    let (w, h) = (37, 20);
    let png = samples::gradient_png(w, h);
    let expected = texture::level_sizes(w, h);
    assert_eq!(expected.last(), Some(&(1, 1)));
    for (filter, linear) in [
        (MipFilter::Linear, false),
        (MipFilter::Box, false),
        (MipFilter::Linear, true),
    ] {
        let s = Settings {
            mips: true,
            mip_filter: filter,
            srgb: linear.then_some(false),
            ..Settings::default()
        };
        let file = conv(&png, "m.png", &s);
        let asset = Asset::parse(&file).unwrap();
        let tex = TextureView::from_asset(&asset).unwrap();
        assert_eq!(tex.level_count(), expected.len());
        for (i, &(lw, lh)) in expected.iter().enumerate() {
            assert_eq!(tex.level_dims(i), Some((lw, lh)));
            assert_eq!(tex.level(i).unwrap().len(), (lw * lh * 4) as usize);
        }
        let want = if linear {
            CafFlags::MIPCHAIN
        } else {
            CafFlags::SRGB | CafFlags::MIPCHAIN
        };
        assert_eq!(asset.header.flags, want, "{filter} linear={linear}");
        assert_eq!(
            tex.level(0).unwrap(),
            samples::gradient_rgba(w, h).as_slice()
        );
    }
    // The box filter in the default profile is exactly the original raw encoder's chain.
    let s = Settings {
        mips: true,
        mip_filter: MipFilter::Box,
        ..Settings::default()
    };
    let ours = convert(&png, Path::new("m.png"), &s).unwrap();
    let raw = encode_raw_texture(w, h, 4, &samples::gradient_rgba(w, h), true).unwrap();
    assert_eq!(ours.payload, raw.payload);
    // A 1x1 image has no further level: one level, no MIPCHAIN even when asked.
    let file = conv(
        &samples::gradient_png(1, 1),
        "one.png",
        &Settings {
            mips: true,
            ..Settings::default()
        },
    );
    let asset = Asset::parse(&file).unwrap();
    assert_eq!(asset.header.flags, CafFlags::SRGB);
    assert_eq!(TextureView::from_asset(&asset).unwrap().level_count(), 1);
}

#[test]
fn broken_images_are_errors_not_panics() {
    let png = samples::gradient_png(16, 16);
    for cut in [0, 8, 20, 33, png.len() / 2, png.len() - 20] {
        assert!(
            convert(&png[..cut], Path::new("t.png"), &Settings::default()).is_err(),
            "cut {cut}"
        );
        assert!(
            convert(&png[..cut], Path::new("t.png"), &Settings::original()).is_err(),
            "cut {cut}"
        );
    }
    assert!(matches!(
        convert(b"hello", Path::new("x.unknown"), &Settings::default()),
        Err(ImportError::UnknownType { .. })
    ));
}

fn wav(
    spec: hound::WavSpec,
    write: impl FnOnce(&mut hound::WavWriter<&mut Cursor<Vec<u8>>>),
) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    {
        let mut w = hound::WavWriter::new(&mut out, spec).unwrap();
        write(&mut w);
        w.finalize().unwrap();
    }
    out.into_inner()
}

/// The default settings with the audio sample size `b`.
fn bits(b: AudioBits) -> Settings {
    Settings {
        bits: b,
        ..Settings::default()
    }
}

fn audio(file: &[u8]) -> (caf::audio::AudioMetadata, Vec<u8>) {
    let asset = Asset::parse(file).unwrap();
    let v = AudioView::from_asset(&asset).unwrap();
    (v.meta, v.data.to_vec())
}

/// (sample rate, channels, bits per sample, sample count) of an audio asset.
fn audio_format(meta: &caf::audio::AudioMetadata) -> (u32, u16, u16, u32) {
    (
        meta.sample_rate,
        meta.channels,
        meta.bits_per_sample,
        meta.sample_count,
    )
}

/// 16-bit little-endian PCM bytes as samples.
fn pcm16(data: &[u8]) -> Vec<i16> {
    data.chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

#[test]
fn audio_round_trips_from_16_bit_exactly_and_others_within_precision() {
    // 16-bit stereo: exact.
    let src: Vec<i16> = samples::lcg_i16(7, 2 * 500);
    let file = conv(
        &samples::wav_from_i16(44100, 2, &src),
        "a.wav",
        &Settings::default(),
    );
    let (meta, data) = audio(&file);
    assert_eq!(audio_format(&meta), (44100, 2, 16, 500));
    let back = pcm16(&data);
    assert_eq!(back, src);

    // 24-bit (hound writes WAVE_FORMAT_EXTENSIBLE): 16-bit output within half an LSB,
    // 32-bit output exact.
    let s24: Vec<i32> = samples::lcg_i16(9, 300)
        .iter()
        .map(|&s| (s as i32) * 256 + 77)
        .collect();
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 48000,
        bits_per_sample: 24,
        sample_format: hound::SampleFormat::Int,
    };
    let w24 = wav(spec, |w| {
        s24.iter().for_each(|&s| w.write_sample(s).unwrap())
    });
    let (meta, data) = audio(&conv(&w24, "b.WAV", &Settings::default()));
    assert_eq!(meta.bits_per_sample, 16);
    for (b, &s) in data.chunks_exact(2).zip(&s24) {
        let v = i16::from_le_bytes([b[0], b[1]]) as i32;
        assert!((v * 256 - s).abs() <= 128, "{v} vs {s}");
    }
    let (meta, data) = audio(&conv(&w24, "b.wav", &bits(AudioBits::Source)));
    assert_eq!(meta.bits_per_sample, 32);
    for (b, &s) in data.chunks_exact(4).zip(&s24) {
        assert_eq!(i32::from_le_bytes([b[0], b[1], b[2], b[3]]), s << 8);
    }

    // 8-bit: kept as signed 8-bit on request, exact.
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 8000,
        bits_per_sample: 8,
        sample_format: hound::SampleFormat::Int,
    };
    let s8: Vec<i8> = (0..200).map(|i| (i * 37 % 256 - 128) as i8).collect();
    let w8 = wav(spec, |w| {
        s8.iter().for_each(|&s| w.write_sample(s).unwrap())
    });
    let (meta, data) = audio(&conv(&w8, "c.wav", &bits(AudioBits::B8)));
    assert_eq!(meta.bits_per_sample, 8);
    assert_eq!(data.iter().map(|&b| b as i8).collect::<Vec<_>>(), s8);

    // 32-bit float: within 16-bit precision.
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 8000,
        bits_per_sample: 32,
        sample_format: hound::SampleFormat::Float,
    };
    let sf: Vec<f32> = (0..100).map(|i| ((i as f32) * 0.37).sin() * 0.9).collect();
    let wf = wav(spec, |w| {
        sf.iter().for_each(|&s| w.write_sample(s).unwrap())
    });
    let (_, data) = audio(&conv(&wf, "d.wav", &Settings::default()));
    for (b, &s) in data.chunks_exact(2).zip(&sf) {
        let v = i16::from_le_bytes([b[0], b[1]]) as f32 / 32768.0;
        assert!((v - s).abs() <= 1.0 / 32768.0, "{v} vs {s}");
    }
}

#[test]
fn wav_with_chunks_before_and_after_data_and_a_partial_frame() {
    let src: Vec<i16> = (0..20).map(|i| i * 100 - 1000).collect();
    let plain = samples::wav_from_i16(16000, 2, &src);
    // Rebuild: RIFF, fmt, LIST, data (+1 stray byte = partial frame), trailing junk chunk.
    let fmt = &plain[12..12 + 8 + 16];
    let data = &plain[36 + 8..];
    let mut body = Vec::new();
    body.extend_from_slice(b"WAVE");
    body.extend_from_slice(fmt);
    body.extend_from_slice(b"LIST\x06\x00\x00\x00INFOab");
    body.extend_from_slice(b"data");
    body.extend_from_slice(&((data.len() + 1) as u32).to_le_bytes());
    body.extend_from_slice(data);
    body.push(0x55);
    body.push(0); // pad byte for the odd-sized chunk
    body.extend_from_slice(b"junk\x02\x00\x00\x00zz");
    let mut file = b"RIFF".to_vec();
    file.extend_from_slice(&(body.len() as u32).to_le_bytes());
    file.extend_from_slice(&body);
    let (meta, out) = audio(&conv(&file, "x.wav", &Settings::default()));
    assert_eq!(meta.sample_count, 10);
    let back = pcm16(&out);
    assert_eq!(back, src);
}

#[test]
fn compressed_audio_garbage_is_rejected() {
    for name in ["x.ogg", "x.flac", "x.mp3"] {
        assert!(convert(
            b"definitely not audio data at all",
            Path::new(name),
            &Settings::default()
        )
        .is_err());
        assert!(convert(b"", Path::new(name), &Settings::default()).is_err());
    }
}

/// The mesh source `src` (named `name`) converted with the default settings: its metadata,
/// vertices and indices.
fn mesh(src: &[u8], name: &str) -> (caf::mesh::MeshMetadata, Vec<caf::mesh::Vertex>, Vec<u32>) {
    let file = conv(src, name, &Settings::default());
    let asset = Asset::parse(&file).unwrap();
    let m = MeshView::from_asset(&asset).unwrap();
    (m.meta, m.vertices.to_vec(), m.indices.to_vec())
}

fn len(v: [f32; 3]) -> f32 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

#[test]
fn cube_obj_is_indexed_with_unit_normals_and_orthogonal_tangents() {
    let (meta, verts, idx) = mesh(samples::CUBE_OBJ.as_bytes(), "cube.obj");
    assert_eq!(
        (meta.vertex_count, meta.index_count, meta.sub_mesh_count),
        (24, 36, 1)
    );
    assert_eq!(idx.len(), 36);
    for v in &verts {
        assert!((len(v.normal) - 1.0).abs() < 1e-5);
        let t = [v.tangent[0], v.tangent[1], v.tangent[2]];
        assert!((len(t) - 1.0).abs() < 1e-4, "{t:?}");
        let d: f32 = (0..3).map(|i| t[i] * v.normal[i]).sum();
        assert!(
            d.abs() < 1e-4,
            "tangent {t:?} not orthogonal to {:?}",
            v.normal
        );
        assert!(v.tangent[3] == 1.0 || v.tangent[3] == -1.0);
    }
    // Each triangle's winding agrees with its normal.
    for t in idx.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| verts[i as usize].position);
        let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let vn = verts[t[0] as usize].normal;
        assert!(n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2] > 0.0);
    }
}

#[test]
fn missing_normals_are_generated_and_objects_are_sub_meshes() {
    let (meta, verts, _) = mesh(samples::QUAD_OBJ.as_bytes(), "q.obj");
    assert_eq!((meta.vertex_count, meta.index_count), (4, 6));
    for v in &verts {
        assert_eq!(v.normal, [0.0, 0.0, 1.0]);
        assert!(
            (v.tangent[0] - 1.0).abs() < 1e-5,
            "tangent follows +u: {:?}",
            v.tangent
        );
    }
    let two = format!(
        "o A\n{}o B\nv 5 0 0\nv 6 0 0\nv 5 1 0\nf 5 6 7\n",
        samples::QUAD_OBJ
    );
    let (meta, _, _) = mesh(two.as_bytes(), "two.obj");
    assert_eq!((meta.sub_mesh_count, meta.index_count), (2, 9));
    // glTF: generated normals, no UVs -> a perpendicular tangent.
    let (meta, verts, idx) = mesh(&samples::triangle_glb(), "t.glb");
    assert_eq!(
        (meta.vertex_count, meta.index_count, meta.sub_mesh_count),
        (3, 3, 1)
    );
    assert_eq!(idx, vec![0, 1, 2]);
    for v in &verts {
        assert_eq!(v.normal, [0.0, 0.0, 1.0]);
        let d: f32 = (0..3).map(|i| v.tangent[i] * v.normal[i]).sum();
        assert!(d.abs() < 1e-6);
    }
}

#[test]
fn broken_meshes_are_errors() {
    for (name, text) in [
        ("a.obj", "v 0 0 0\n"),
        ("b.obj", "v 0 0 0\nf 1 2 3\n"),
        ("c.gltf", "{\"asset\":{\"version\":\"2.0\"}}"),
        ("d.gltf", "{not json"),
        ("e.glb", "glTF\x02\x00\x00\x00"),
    ] {
        assert!(
            convert(text.as_bytes(), Path::new(name), &Settings::default()).is_err(),
            "{name}"
        );
    }
    let glb = samples::triangle_glb();
    for cut in [12, 20, glb.len() - 8] {
        assert!(convert(&glb[..cut], Path::new("t.glb"), &Settings::default()).is_err());
    }
}

#[test]
fn shaders_compile_to_spirv_that_validates_again() {
    for (name, src, stage) in [
        ("s.vert", samples::VERTEX_GLSL, 0),
        ("s.frag", samples::FRAGMENT_GLSL, 1),
        ("s.wgsl", samples::COMPUTE_WGSL, 2),
    ] {
        let file = conv(src.as_bytes(), name, &Settings::default());
        let asset = Asset::parse(&file).unwrap();
        let view = ShaderView::from_asset(&asset).unwrap();
        assert_eq!(view.meta.stage, stage, "{name}");
        shader::validate_spirv(asset.payload).unwrap_or_else(|e| panic!("{name}: {e}"));
        // SPIR-V input goes through as validated SPIR-V with the same stage.
        let again = conv(asset.payload, "again.spv", &Settings::default());
        let a2 = Asset::parse(&again).unwrap();
        assert_eq!(ShaderView::from_asset(&a2).unwrap().meta.stage, stage);
    }
    // .glsl needs a stage.
    assert!(convert(
        samples::FRAGMENT_GLSL.as_bytes(),
        Path::new("x.glsl"),
        &Settings::default()
    )
    .is_err());
    let s = Settings {
        stage: Some(Stage::Fragment),
        ..Settings::default()
    };
    assert!(convert(samples::FRAGMENT_GLSL.as_bytes(), Path::new("x.glsl"), &s).is_ok());
    // Errors name file, line and column.
    let e = convert(
        b"@compute @workgroup_size(1)\nfn main() {\n  let x: u32 = 1.5 +;\n}\n",
        Path::new("k.wgsl"),
        &Settings::default(),
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(msg.starts_with("k.wgsl:3:"), "{msg}");
    assert!(convert(
        &[3, 2, 0x23, 7, 0, 0],
        Path::new("x.spv"),
        &Settings::default()
    )
    .is_err());
}

/// A minimal FLAC encoder (VERBATIM subframes, 16-bit, fixed block size) so the symphonia path
/// is tested on real data without shipping binary files.
fn flac_verbatim(sample_rate: u32, channels: u16, samples: &[i16]) -> Vec<u8> {
    fn crc8(data: &[u8]) -> u8 {
        let mut c = 0u8;
        for &b in data {
            c ^= b;
            for _ in 0..8 {
                c = if c & 0x80 != 0 {
                    (c << 1) ^ 0x07
                } else {
                    c << 1
                };
            }
        }
        c
    }
    fn crc16(data: &[u8]) -> u16 {
        let mut c = 0u16;
        for &b in data {
            c ^= (b as u16) << 8;
            for _ in 0..8 {
                c = if c & 0x8000 != 0 {
                    (c << 1) ^ 0x8005
                } else {
                    c << 1
                };
            }
        }
        c
    }
    let ch = channels as usize;
    let frames = samples.len() / ch;
    let block = 256usize;
    let mut out = b"fLaC".to_vec();
    out.extend_from_slice(&[0x80, 0, 0, 34]); // last block, STREAMINFO, 34 bytes
    out.extend_from_slice(&(block as u16).to_be_bytes());
    out.extend_from_slice(&(block as u16).to_be_bytes());
    out.extend_from_slice(&[0; 6]); // frame sizes unknown
    let packed: u64 = ((sample_rate as u64) << 44)
        | (((channels as u64) - 1) << 41)
        | (15u64 << 36)
        | frames as u64;
    out.extend_from_slice(&packed.to_be_bytes());
    out.extend_from_slice(&[0; 16]); // MD5 unknown
    for (n, start) in (0..frames).step_by(block).enumerate() {
        let len = block.min(frames - start);
        let mut f = vec![0xFF, 0xF8, 0x70, (((channels - 1) as u8) << 4) | 0x08];
        assert!(n < 128);
        f.push(n as u8);
        f.extend_from_slice(&((len - 1) as u16).to_be_bytes());
        let c8 = crc8(&f);
        f.push(c8);
        for c in 0..ch {
            f.push(0x02); // VERBATIM, no wasted bits
            for i in start..start + len {
                f.extend_from_slice(&samples[i * ch + c].to_be_bytes());
            }
        }
        let c16 = crc16(&f);
        f.extend_from_slice(&c16.to_be_bytes());
        out.extend_from_slice(&f);
    }
    out
}

#[test]
fn flac_decodes_through_symphonia_sample_exactly() {
    let src = samples::lcg_i16(11, 2 * 700);
    let flac = flac_verbatim(32000, 2, &src);
    let (meta, data) = audio(&conv(&flac, "song.flac", &Settings::default()));
    assert_eq!(audio_format(&meta), (32000, 2, 16, 700));
    let back = pcm16(&data);
    assert_eq!(back, src);
    // The original profile converts only WAV.
    assert!(matches!(
        convert(&flac, Path::new("song.flac"), &Settings::original()),
        Err(ImportError::Unsupported { .. })
    ));
}
