use super::*;
use crate::container::header::AssetType;
use crate::container::load::Asset;
use crate::error::CafError;
use crate::AssetWriter;

fn clips() -> Vec<ClipData> {
    let n = AnimationMetadata::frames(0.5, 10.0).unwrap() as usize; // 6 frames
    let turn = |a: f32| [0.0, 0.0, (a / 2.0).sin(), (a / 2.0).cos()];
    vec![
        ClipData {
            name: "walk".into(),
            duration: 0.5,
            channels: vec![
                ChannelData {
                    node: 3,
                    joint: 0,
                    path: ChannelPath::Translation,
                    step: false,
                    frames: (0..n)
                        .map(|k| [k as f32, -2.0 * k as f32, 0.5, 0.0])
                        .collect(),
                    resample_error: 0.0,
                },
                ChannelData {
                    node: 3,
                    joint: 0,
                    path: ChannelPath::Rotation,
                    step: false,
                    frames: (0..n).map(|k| turn(k as f32 * 0.3)).collect(),
                    resample_error: 0.0,
                },
                ChannelData {
                    node: 4,
                    joint: crate::mesh::SubMeshEntry::NONE,
                    path: ChannelPath::Scale,
                    step: true,
                    frames: vec![[2.0, 2.0, 2.0, 0.0]],
                    resample_error: 0.0,
                },
            ],
        },
        ClipData {
            name: "idle".into(),
            duration: 0.0,
            channels: vec![ChannelData {
                node: 3,
                joint: 0,
                path: ChannelPath::Rotation,
                step: false,
                frames: vec![turn(1.0)],
                resample_error: 0.25,
            }],
        },
    ]
}

fn file(meta: &[u8], payload: &[u8]) -> Vec<u8> {
    AssetWriter::new(AssetType::ANIMATION)
        .metadata(meta)
        .payload(payload)
        .to_vec()
}

fn view_of(f: &[u8]) -> Result<(), CafError> {
    let a = Asset::parse(f)?;
    let v = AnimationView::from_asset(&a)?;
    // Whatever a damaged file decodes to, sampling stays in bounds and finite.
    for c in 0..v.clip_count() {
        for k in 0..v.channels(c).len() {
            for t in [-1.0, 0.0, 0.13, 0.25, 0.5, 7.0, f32::NAN] {
                let s = v.sample(c, k, t).expect("channel exists");
                let vals: Vec<f32> = match s {
                    ChannelValue::Translation(x) | ChannelValue::Scale(x) => x.to_vec(),
                    ChannelValue::Rotation(q) => q.to_vec(),
                };
                assert!(vals.iter().all(|x| x.is_finite()), "{vals:?}");
            }
        }
    }
    Ok(())
}

#[test]
fn round_trip_and_sampling() {
    let (meta, payload) = encode_animation(10.0, &clips()).unwrap();
    assert_eq!(meta.len(), 32 + 2 * 24 + 4 * 48 + 8);
    // T 6x3, R 6x4, S 1x3, R 1x4 u16 values.
    assert_eq!(payload.len(), 2 * (18 + 24 + 3 + 4));
    let f = file(&meta, &payload);
    let a = Asset::parse(&f).unwrap();
    let v = AnimationView::from_asset(&a).unwrap();
    assert_eq!(v.clip_count(), 2);
    assert_eq!(v.clip_name(0), Some("walk"));
    assert_eq!(v.find_clip("idle"), Some(1));
    assert_eq!(v.clip(0).unwrap().frame_count, 6);
    assert_eq!(v.clip(1).unwrap().frame_count, 1);
    // Translation: x = 10 t, y = -20 t within the bound.
    let ch = *v.channel(0, 0).unwrap();
    for i in 0..=50 {
        let t = i as f32 / 100.0;
        let Some(ChannelValue::Translation(p)) = v.sample(0, 0, t) else {
            panic!("translation expected")
        };
        assert!((p[0] - 10.0 * t).abs() <= ch.error_bound, "{t} {p:?}");
        assert!((p[1] + 20.0 * t).abs() <= ch.error_bound, "{t} {p:?}");
        assert!((p[2] - 0.5).abs() <= ch.error_bound);
    }
    // Half a step of a 5-wide range, plus rounding.
    assert!(ch.error_bound >= 5.0 / 131070.0 && ch.error_bound < 1e-4);
    // Rotation frames: the angle grows 0.3 rad per frame (0.1 s); at a frame the stored
    // rotation is within the quantisation bound.
    let rb = v.channel(0, 1).unwrap().error_bound;
    assert!(rb > 6e-5 && rb < 1e-4, "{rb}");
    let Some(ChannelValue::Rotation(q)) = v.sample(0, 1, 0.3) else {
        panic!("rotation expected")
    };
    let angle = 2.0 * q[2].atan2(q[3]);
    assert!((angle - 0.9).abs() <= rb, "{angle}");
    // Constant STEP scale; clamped times.
    assert_eq!(v.sample(0, 2, 9.0), Some(ChannelValue::Scale([2.0; 3])));
    assert_eq!(v.channel(0, 2).unwrap().frame_count, 1);
    // The stored bound includes the given resampling error.
    assert!(v.channel(1, 0).unwrap().error_bound > 0.25);
    assert_eq!(v.sample(0, 9, 0.0), None);
    assert_eq!(v.sample(5, 0, 0.0), None);
}

#[test]
fn frames_are_the_stored_keys() {
    let (meta, payload) = encode_animation(10.0, &clips()).unwrap();
    let f = file(&meta, &payload);
    let a = Asset::parse(&f).unwrap();
    let v = AnimationView::from_asset(&a).unwrap();
    // Clip 0: 0.5 s, 6 frames 0.1 s apart; the last exactly at the duration.
    assert_eq!(v.frame_time(0, 0), Some(0.0));
    assert!((v.frame_time(0, 3).unwrap() - 0.3).abs() < 1e-7);
    for k in 1..5 {
        // Never later than the exact frame time, and at most one ulp earlier.
        let t = v.frame_time(0, k).unwrap();
        let exact = k as f64 * 0.5f64 / 5.0;
        assert!(f64::from(t) <= exact && f64::from(f32::from_bits(t.to_bits() + 1)) > exact);
    }
    assert_eq!(v.frame_time(0, 5), Some(0.5));
    assert_eq!(v.frame_time(0, 6), None);
    assert_eq!(v.frame_time(1, 0), Some(0.0));
    assert_eq!(v.frame_time(9, 0), None);
    for k in 0..6 {
        // A frame value is what sampling gives at the frame's time.
        let t = v.frame_time(0, k).unwrap();
        for c in 0..2 {
            let (Some(a), Some(b)) = (v.frame_value(0, c, k), v.sample(0, c, t)) else {
                panic!("frame {k} of channel {c}")
            };
            let (a, b) = match (a, b) {
                (ChannelValue::Translation(a), ChannelValue::Translation(b)) => {
                    (a.to_vec(), b.to_vec())
                }
                (ChannelValue::Rotation(a), ChannelValue::Rotation(b)) => (a.to_vec(), b.to_vec()),
                other => panic!("{other:?}"),
            };
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() < 1e-5, "frame {k} channel {c}: {a:?} {b:?}");
            }
        }
    }
    let Some(ChannelValue::Translation(p)) = v.frame_value(0, 0, 2) else {
        panic!("translation expected")
    };
    assert!(
        (p[0] - 2.0).abs() < 1e-4 && (p[1] + 4.0).abs() < 1e-4,
        "{p:?}"
    );
    // A constant channel has frame 0 only.
    assert_eq!(v.frame_value(0, 2, 0), Some(ChannelValue::Scale([2.0; 3])));
    assert_eq!(v.frame_value(0, 2, 1), None);
    assert_eq!(v.frame_value(0, 9, 0), None);
}

#[test]
fn encoder_refusals() {
    assert!(matches!(
        encode_animation(0.5, &clips()),
        Err(AnimationEncodeError::SampleRate(_))
    ));
    assert!(matches!(
        encode_animation(10.0, &[]),
        Err(AnimationEncodeError::ClipCount { count: 0 })
    ));
    let mut c = clips();
    c[0].channels[0].frames.pop();
    assert!(matches!(
        encode_animation(10.0, &c),
        Err(AnimationEncodeError::FrameCount {
            frames: 5,
            expected: 6,
            ..
        })
    ));
    let mut c = clips();
    c[0].channels[1].frames[2] = [0.0; 4];
    assert!(matches!(
        encode_animation(10.0, &c),
        Err(AnimationEncodeError::BadValue { frame: 2, .. })
    ));
    let mut c = clips();
    c[0].channels[2].node = 3;
    c[0].channels[2].path = ChannelPath::Rotation;
    assert!(matches!(
        encode_animation(10.0, &c),
        Err(AnimationEncodeError::DuplicateChannel { node: 3, .. })
    ));
    let mut c = clips();
    c[0].duration = f32::INFINITY;
    assert!(matches!(
        encode_animation(10.0, &c),
        Err(AnimationEncodeError::Duration { clip: 0, .. })
    ));
    let mut c = clips();
    c[0].duration = 2.0e6; // more than 2^20 frames at 10 Hz
    assert!(matches!(
        encode_animation(10.0, &c),
        Err(AnimationEncodeError::Duration { clip: 0, .. })
    ));
}

#[test]
fn truncated_and_corrupt_assets_are_refused() {
    let (meta, payload) = encode_animation(10.0, &clips()).unwrap();
    assert!(view_of(&file(&meta, &payload)).is_ok());
    for cut in [1, 8, 48, meta.len() - 1] {
        assert!(
            matches!(
                view_of(&file(&meta[..meta.len() - cut], &payload)),
                Err(CafError::MetadataSize { .. } | CafError::BadMetadata { .. })
            ),
            "metadata cut by {cut}"
        );
    }
    for cut in [1, 2, payload.len()] {
        assert!(matches!(
            view_of(&file(&meta, &payload[..payload.len() - cut])),
            Err(CafError::PayloadSize { .. })
        ));
    }
    let mut longer = payload.clone();
    longer.extend_from_slice(&[0, 0]);
    assert!(matches!(
        view_of(&file(&meta, &longer)),
        Err(CafError::PayloadSize { .. })
    ));
    // A zero rotation frame (the first frame of channel 1).
    let mut zero = payload.clone();
    zero[36..44].fill(0);
    assert!(matches!(
        view_of(&file(&meta, &zero)),
        Err(CafError::Malformed { offset: 36, .. })
    ));
    // A huge declared count is refused before anything is allocated.
    let mut huge = meta.clone();
    huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        view_of(&file(&huge, &payload)),
        Err(CafError::BadMetadata {
            field: "channel_count",
            ..
        })
    ));
    // The wrong type, and an encoded payload, are refused.
    let other = AssetWriter::new(AssetType::MESH)
        .metadata(&meta)
        .payload(&payload)
        .to_vec();
    assert!(matches!(view_of(&other), Err(CafError::WrongType { .. })));
}

/// Every single-bit flip of the metadata (written with fresh CRCs, so only the view
/// stands between it and the sampler) is refused or decodes to something that samples
/// without panicking to finite values.
#[test]
fn every_metadata_bit_flip_is_caught_or_harmless() {
    let (meta, payload) = encode_animation(10.0, &clips()).unwrap();
    let mut refused = 0;
    for bit in 0..meta.len() * 8 {
        let mut m = meta.clone();
        m[bit / 8] ^= 1 << (bit % 8);
        if view_of(&file(&m, &payload)).is_err() {
            refused += 1;
        }
    }
    // Structural fields are all checked: most flips are refused.
    assert!(refused > meta.len() * 8 / 2, "{refused}");
    // Every payload bit flip too.
    for bit in 0..payload.len() * 8 {
        let mut p = payload.clone();
        p[bit / 8] ^= 1 << (bit % 8);
        let _ = view_of(&file(&meta, &p));
    }
}

#[test]
fn normalize_quaternion_is_the_identity_for_zero_and_non_finite_lengths() {
    for q in [
        [0.0; 4],
        [-0.0, 0.0, -0.0, 0.0],
        [f64::NAN, 0.0, 0.0, 1.0],
        [0.0, 0.0, 0.0, f64::NAN],
        [f64::INFINITY, 0.0, 0.0, 0.0],
        [1e200, 1e200, 0.0, 0.0], // the squares overflow
    ] {
        assert_eq!(normalize_quaternion(q), IDENTITY_QUATERNION, "{q:?}");
    }
    for q in [
        [1.0, 2.0, -3.0, 4.0],
        [0.0, 0.0, 0.0, -2.0],
        [1e-150, 0.0, 0.0, 0.0],
    ] {
        let u = normalize_quaternion(q);
        let n = u.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!((n - 1.0).abs() < 1e-12, "{q:?} -> {u:?}");
        // Same direction: every component keeps its sign and ratio.
        let k = q[3].abs().max(q[0].abs()) / u[3].abs().max(u[0].abs());
        assert!(
            u.iter().zip(q).all(|(a, b)| (a * k - b).abs() <= 1e-9 * k),
            "{q:?}"
        );
    }
}
