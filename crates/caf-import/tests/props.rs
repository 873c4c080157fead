//! Property tests (round trips) and a corruption sweep over every kind of input.

use std::path::Path;

use caf_import::{convert, texture, Profile, Settings};
use proptest::prelude::*;
use voxcaf_samples as samples;

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn png_round_trips_exactly(w in 1u32..24, h in 1u32..24, seed in any::<u32>()) {
        let px = samples::lcg_bytes(seed, (w * h * 4) as usize);
        let png = samples::png_rgba(w, h, &px);
        for profile in [Profile::Default, Profile::Original] {
            let s = Settings { profile, ..Settings::default() };
            let c = convert(&png, Path::new("p.png"), &s).unwrap();
            prop_assert_eq!(&c.payload, &px);
        }
    }

    #[test]
    fn mip_chains_have_every_level(w in 1u32..70, h in 1u32..70, c in 1u8..=4, seed in any::<u32>()) {
        let px = samples::lcg_bytes(seed, (w * h * c as u32) as usize);
        let (out, n) = texture::box_chain(w, h, c, &px).unwrap();
        let sizes = texture::level_sizes(w, h);
        prop_assert_eq!(n as usize, sizes.len());
        let total: usize = sizes.iter().map(|&(a, b)| (a * b) as usize * c as usize).sum();
        prop_assert_eq!(out.len(), total);
        prop_assert_eq!(&out[..px.len()], &px[..]);
        if c == 4 {
            for srgb in [false, true] {
                let (lin, m) = texture::linear_chain(w, h, &px, srgb).unwrap();
                prop_assert_eq!(m, n);
                prop_assert_eq!(lin.len(), total);
                prop_assert_eq!(&lin[..px.len()], &px[..]);
            }
        }
    }

    #[test]
    fn wav_16_bit_round_trips_exactly(channels in 1u16..=6, frames in 1usize..400, seed in any::<u32>(), rate in 8000u32..96000) {
        let s = samples::lcg_i16(seed, frames * channels as usize);
        let wav = samples::wav_from_i16(rate, channels, &s);
        for profile in [Profile::Default, Profile::Original] {
            let c = convert(&wav, Path::new("a.wav"), &Settings { profile, ..Settings::default() }).unwrap();
            let back: Vec<i16> = c.payload.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect();
            prop_assert_eq!(&back, &s);
            let meta = caf::audio::AudioMetadata::from_bytes(&c.metadata).unwrap();
            prop_assert_eq!((meta.sample_rate, meta.channels, meta.sample_count), (rate, channels, frames as u32));
        }
    }

    #[test]
    fn obj_grids_dedupe_to_one_vertex_per_grid_point(n in 1usize..8) {
        let mut obj = String::new();
        for y in 0..=n {
            for x in 0..=n {
                obj.push_str(&format!("v {x} {y} 0\nvt {x} {y}\nvn 0 0 1\n"));
            }
        }
        for y in 0..n {
            for x in 0..n {
                let a = y * (n + 1) + x + 1;
                let (b, c, d) = (a + 1, a + n + 2, a + n + 1);
                obj.push_str(&format!("f {a}/{a}/1 {b}/{b}/1 {c}/{c}/1 {d}/{d}/1\n"));
            }
        }
        let c = convert(obj.as_bytes(), Path::new("g.obj"), &Settings::default()).unwrap();
        let meta = caf::mesh::MeshMetadata::from_bytes(&c.metadata).unwrap();
        prop_assert_eq!(meta.vertex_count as usize, (n + 1) * (n + 1));
        prop_assert_eq!(meta.index_count as usize, n * n * 6);
        let o = convert(obj.as_bytes(), Path::new("g.obj"), &Settings::original()).unwrap();
        let om = caf::mesh::MeshMetadata::from_bytes(&o.metadata).unwrap();
        prop_assert_eq!(om.vertex_count as usize, n * n * 6);
    }
}

/// Truncate and bit-flip every kind of input at many positions: conversions must return
/// (`Ok` or `Err`), never panic.
#[test]
fn corruption_sweep_never_panics() {
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("a.png", samples::gradient_png(9, 7)),
        ("a.wav", samples::wav_i16(8000, 2, 50)),
        ("a.obj", samples::CUBE_OBJ.as_bytes().to_vec()),
        ("a.glb", samples::triangle_glb()),
        ("a.frag", samples::FRAGMENT_GLSL.as_bytes().to_vec()),
        ("a.wgsl", samples::COMPUTE_WGSL.as_bytes().to_vec()),
        (
            "a.ogg",
            b"OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00".to_vec(),
        ),
        ("a.flac", b"fLaC\x00\x00\x00\x22\x10\x00\x10\x00".to_vec()),
        ("a.mp3", b"\xff\xfb\x90\x64\x00\x00\x00\x00\x00".to_vec()),
    ];
    let spirv = convert(
        samples::FRAGMENT_GLSL.as_bytes(),
        Path::new("a.frag"),
        &Settings::default(),
    )
    .unwrap()
    .payload;
    let mut inputs = inputs;
    inputs.push(("a.spv", spirv));
    let profiles = [Settings::default(), Settings::original()];
    for (name, bytes) in &inputs {
        let path = Path::new(name);
        let step = (bytes.len() / 40).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            for s in &profiles {
                let _ = convert(&bytes[..cut], path, s);
            }
        }
        for pos in (0..bytes.len()).step_by(step) {
            for bit in [0x01u8, 0x80] {
                let mut b = bytes.clone();
                b[pos] ^= bit;
                for s in &profiles {
                    let _ = convert(&b, path, s);
                }
            }
        }
    }
}
