//! `--profile original` against the golden files written by the original C++ converters, and
//! the inputs the original refused.

use std::path::{Path, PathBuf};

use caf_import::{convert, encode_raw_audio, encode_raw_texture, ImportError, Settings};
use voxcaf_samples as samples;

/// `$VOXCAF_GOLDEN/caf`, or `None` (skip) when missing unless `VOXCAF_REQUIRE_GOLDEN=1`.
fn golden() -> Option<PathBuf> {
    voxcaf_golden::caf()
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Rows of manifest.tsv: (golden path, input path) for every conversion with an input.
fn conversions(g: &Path) -> Vec<(String, String)> {
    let text = String::from_utf8(read(&g.join("manifest.tsv"))).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            let input = cols.get(11).copied().unwrap_or("").trim();
            (!input.is_empty()).then(|| (cols[0].to_string(), input.to_string()))
        })
        .collect()
}

#[test]
fn every_golden_conversion_with_an_input_is_byte_identical() {
    let Some(g) = golden() else { return };
    let rows = conversions(&g);
    assert_eq!(
        rows.len(),
        35,
        "expected 19 PNG, 10 WAV, 4 OBJ and 2 glTF conversions"
    );
    let mut failures = Vec::new();
    for (golden_file, input) in &rows {
        let input_path = g.join(input);
        let bytes = read(&input_path);
        match convert(&bytes, &input_path, &Settings::original()) {
            Ok(c) => {
                let ours = c.to_caf_bytes();
                let theirs = read(&g.join(golden_file));
                if ours != theirs {
                    let at = ours.iter().zip(&theirs).position(|(a, b)| a != b);
                    failures.push(format!(
                        "{golden_file} from {input}: differs (ours {} bytes, golden {}, first difference at {at:?})",
                        ours.len(),
                        theirs.len()
                    ));
                }
            }
            Err(e) => failures.push(format!("{golden_file} from {input}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
    eprintln!("{} golden conversions byte-identical", rows.len());
}

#[test]
fn raw_texture_encoder_matches_golden() {
    let Some(g) = golden() else { return };
    // (width, height, channels, LCG seed) from the golden README.
    let cases = [
        (1, 1, 4, 2014),
        (2, 2, 4, 3024),
        (3, 3, 3, 4033),
        (5, 1, 4, 6014),
        (64, 64, 4, 65644),
        (257, 129, 4, 259294),
        (7, 3, 1, 8031),
        (1, 9, 2, 2092),
    ];
    for (w, h, c, seed) in cases {
        let pixels = samples::lcg_bytes(seed, (w * h * c) as usize);
        for mips in [false, true] {
            let name = format!(
                "texture/raw_{w}x{h}_c{c}_{}.caf",
                if mips { "mips" } else { "nomips" }
            );
            let ours = encode_raw_texture(w, h, c as u8, &pixels, mips)
                .unwrap()
                .to_caf_bytes();
            assert!(ours == read(&g.join(&name)), "{name} differs");
        }
    }
}

#[test]
fn raw_audio_encoder_matches_golden() {
    let Some(g) = golden() else { return };
    for rate in [22050u32, 44100, 48000] {
        for (channels, label) in [(1u16, "mono"), (2, "stereo")] {
            let seed = rate + channels as u32;
            let s = samples::lcg_i16(seed, 441 * channels as usize);
            let ours = encode_raw_audio(rate, channels, &s).unwrap().to_caf_bytes();
            let name = format!("audio/raw_{rate}_{label}.caf");
            assert!(ours == read(&g.join(&name)), "{name} differs");
        }
    }
}

fn orig(g: &Path, input: &str) -> Result<Vec<u8>, ImportError> {
    let p = g.join("inputs").join(input);
    convert(&read(&p), &p, &Settings::original()).map(|c| c.to_caf_bytes())
}

fn default(g: &Path, input: &str) -> Result<caf_import::Converted, ImportError> {
    let p = g.join("inputs").join(input);
    convert(&read(&p), &p, &Settings::default())
}

#[test]
fn inputs_the_original_rejects_are_rejected_by_both_profiles() {
    let Some(g) = golden() else { return };
    // Broken or empty files: no profile converts them.
    for input in [
        "png/truncated_idat.png",
        "png/not_an_image.png",
        "png/empty.png",
        "obj/no_faces.obj",
        "wav/pcm16_data_size_too_big.wav",
        "wav/pcm16_zero_frames.wav",
        "wav/pcm16_too_short.wav",
    ] {
        assert!(
            orig(&g, input).is_err(),
            "original profile accepted {input}"
        );
        assert!(
            default(&g, input).is_err(),
            "default profile accepted {input}"
        );
    }
    assert!(matches!(
        orig(&g, "wav/pcm16_zero_frames.wav"),
        Err(ImportError::Empty { .. })
    ));
    assert!(matches!(
        orig(&g, "obj/no_faces.obj"),
        Err(ImportError::Empty { .. })
    ));
}

#[test]
fn original_profile_keeps_the_originals_sample_format_limits() {
    let Some(g) = golden() else { return };
    // The original converts only 16-bit integer PCM; so does the original profile.
    for input in [
        "wav/pcm8_mono.wav",
        "wav/pcm24_mono.wav",
        "wav/float32_mono.wav",
    ] {
        assert!(
            matches!(orig(&g, input), Err(ImportError::Unsupported { .. })),
            "{input} should be unsupported in the original profile"
        );
    }
}

#[test]
fn we_accept_more_than_the_original() {
    let Some(g) = golden() else { return };
    // ACCEPTING MORE: the original rejected these WAV layouts ("missing data chunk",
    // "only PCM supported", "only .wav supported"); they hold ordinary 16-bit PCM, which both
    // profiles convert. The payload must be exactly the samples in the data chunk.
    for input in [
        "wav/pcm16_list_before_data.wav",
        "wav/pcm16_fact_chunk.wav",
        "wav/pcm16_fmt18.wav",
        "wav/extensible_pcm16.wav",
        "wav/PCM16_UPPER.WAV",
    ] {
        let bytes = orig(&g, input).unwrap_or_else(|e| panic!("{input}: {e}"));
        let asset = caf::Asset::parse(&bytes).unwrap();
        let view = caf::audio::AudioView::from_asset(&asset).unwrap();
        assert_eq!(view.meta.bits_per_sample, 16);
        let src = read(&g.join("inputs").join(input));
        let mut reader = hound::WavReader::new(std::io::Cursor::new(&src)).unwrap();
        let expect: Vec<i16> = reader.samples::<i16>().map(|s| s.unwrap()).collect();
        assert_eq!(
            view.samples_i16_cow().unwrap().as_ref(),
            expect.as_slice(),
            "{input}"
        );
        assert_eq!(
            default(&g, input).unwrap().to_caf_bytes(),
            bytes,
            "{input}: profiles differ"
        );
    }
    // The upper-case copy is byte-identical to pcm16_44100_mono.wav, so its output is the golden.
    assert_eq!(
        orig(&g, "wav/PCM16_UPPER.WAV").unwrap(),
        read(&g.join("audio/wav_pcm16_44100_mono.caf"))
    );
    // ACCEPTING MORE: 8/24-bit and float WAVs convert in the default profile (to 16-bit).
    for (input, frames) in [
        ("wav/pcm8_mono.wav", Some(64)),
        ("wav/pcm24_mono.wav", None),
        ("wav/float32_mono.wav", None),
    ] {
        let c = default(&g, input).unwrap_or_else(|e| panic!("{input}: {e}"));
        let bytes = c.to_caf_bytes();
        let asset = caf::Asset::parse(&bytes).unwrap();
        let view = caf::audio::AudioView::from_asset(&asset).unwrap();
        assert_eq!(view.meta.bits_per_sample, 16, "{input}");
        if let Some(frames) = frames {
            assert_eq!(view.meta.sample_count, frames, "{input}");
        }
    }
}

#[test]
fn default_profile_differs_where_it_should() {
    let Some(g) = golden() else { return };
    // A PNG with a corrupted IDAT CRC: the original (stb_image) does not check CRCs and
    // converted it; the default profile treats it as damaged data and refuses it.
    assert!(orig(&g, "png/rgba8_badcrc_3x5.png").is_ok());
    assert!(matches!(
        default(&g, "png/rgba8_badcrc_3x5.png"),
        Err(ImportError::Malformed { .. })
    ));
    // 16-bit PNG: the default profile keeps all 16 bits (R16G16B16A16_UNORM, little-endian
    // samples 0x00FF, 0x10A0, 0xFF00, 0x7FFF), the original truncates them (v >> 8).
    let d = default(&g, "png/rgba16_1x1.png").unwrap();
    assert_eq!(
        d.payload,
        vec![0xFF, 0x00, 0xA0, 0x10, 0x00, 0xFF, 0xFF, 0x7F]
    );
    let bytes = d.to_caf_bytes();
    let asset = caf::Asset::parse(&bytes).unwrap();
    let view = caf::texture::TextureView::from_asset(&asset).unwrap();
    assert_eq!(
        view.format_code(),
        caf::texture::TextureFormat::R16G16B16A16_UNORM
    );
    let o = orig(&g, "png/rgba16_1x1.png").unwrap();
    assert_eq!(&o[56..60], &[0x00, 0x10, 0xFF, 0x7F]);
    // The default profile marks colour textures sRGB; the original never does.
    let d = default(&g, "png/rgb8_64x64.png").unwrap();
    assert!(d.flags.contains(caf::CafFlags::SRGB));
    // The BMP named .png is recognised by its contents in both profiles.
    let d = default(&g, "png/bmp_named_as.png").unwrap();
    let golden_payload = &read(&g.join("png/bmp_named_as_png.caf"))[56..80];
    assert_eq!(d.payload, golden_payload);
    // OBJ with out-of-range references: the original zero-fills, the default profile refuses.
    assert!(matches!(
        default(&g, "obj/outofrange.obj"),
        Err(ImportError::Malformed { .. })
    ));
    // The original cube is de-indexed (36 vertices); ours is indexed (24) with tangents.
    let d = default(&g, "obj/cube.obj").unwrap();
    let bytes = d.to_caf_bytes();
    let asset = caf::Asset::parse(&bytes).unwrap();
    let mesh = caf::mesh::MeshView::from_asset(&asset).unwrap();
    assert_eq!((mesh.meta.vertex_count, mesh.meta.index_count), (24, 36));
}
