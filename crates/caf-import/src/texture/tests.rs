use super::mips::{
    linear_chain_with, streamable_levels, SrgbEncoder, BAND_LEVELS, ENCODER_BUCKETS,
};
use super::*;

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
                            next[(y * dw + x) * nc + c] += cur[(sy * w + sx) * nc + c] * wx * wy;
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
        let mut px = voxcaf_golden::lcg_bytes(k as u32 * 7 + 1, w * h * 4);
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
        let mut px = voxcaf_golden::lcg_bytes(k as u32 + 40, (w * h * 4) as usize);
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
    let bytes = crate::test_util::hex_bytes(&hex);
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
        0x00, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x58, 0x54, 0x9A, 0x5B, 0x09,
        0x78, 0x20, 0x00, 0x00, 0x80, 0x00, 0x8C, 0x2B, 0x00, 0x00, 0x0D, 0x00, 0x07, 0x00, 0x20,
        0x28, 0x80, 0x00, 0x00, 0x00, 0xFF, 0x5B, 0x01, 0x00, 0x15, 0xFE, 0x02, 0x00, 0x2A, 0xFD,
        0x03,
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
