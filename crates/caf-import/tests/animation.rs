//! Skins and Animation assets from generated glTF documents, checked against an independent
//! evaluation of the glTF curves read with the `gltf` crate (docs/format/caf-assets-ext.md
//! sections 2 and 3).

use std::path::Path;

use caf::animation::{AnimationView, ChannelEntry, ChannelValue};
use caf::mesh::MeshView;
use caf::Asset;
use caf_import::{convert, AssetKind, ImportError, Settings};
use glam::DQuat;
use voxcaf_golden::Rng;
use voxcaf_samples::{self as samples, AnimatedOptions};

fn anim_settings(rate: Option<u32>) -> Settings {
    Settings {
        kind: Some(AssetKind::Animation),
        anim_rate: rate,
        ..Settings::default()
    }
}

fn convert_anim(glb: &[u8], rate: Option<u32>) -> Result<Vec<u8>, ImportError> {
    convert(glb, Path::new("hero.glb"), &anim_settings(rate)).map(|c| c.to_caf_bytes())
}

fn convert_mesh(glb: &[u8]) -> Result<Vec<u8>, ImportError> {
    convert(glb, Path::new("hero.glb"), &Settings::default()).map(|c| c.to_caf_bytes())
}

/// A glTF curve as the spec of glTF 2.0 defines it, evaluated in f64 (written apart from the
/// converter: slerp through the axis-angle form, Hermite from the glTF appendix).
struct RefCurve {
    times: Vec<f64>,
    /// Per key: (in-tangent, value, out-tangent); tangents zero unless CUBICSPLINE.
    keys: Vec<([f64; 4], [f64; 4], [f64; 4])>,
    interp: gltf::animation::Interpolation,
    rotation: bool,
}

fn quat(v: [f64; 4]) -> DQuat {
    DQuat::from_xyzw(v[0], v[1], v[2], v[3]).normalize()
}

impl RefCurve {
    fn eval(&self, t: f64) -> [f64; 4] {
        use gltf::animation::Interpolation::*;
        let n = self.times.len();
        let fin = |v: [f64; 4]| {
            if self.rotation {
                let q = quat(v);
                [q.x, q.y, q.z, q.w]
            } else {
                v
            }
        };
        if t <= self.times[0] {
            return fin(self.keys[0].1);
        }
        if t >= self.times[n - 1] {
            return fin(self.keys[n - 1].1);
        }
        let mut k = 0;
        while self.times[k + 1] <= t {
            k += 1;
        }
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let td = t1 - t0;
        let s = (t - t0) / td;
        let (v0, v1) = (self.keys[k].1, self.keys[k + 1].1);
        match self.interp {
            Step => fin(v0),
            Linear if self.rotation => {
                let (a, mut b) = (quat(v0), quat(v1));
                if a.dot(b) < 0.0 {
                    b = -b;
                }
                let rel = a.inverse() * b;
                let (axis, angle) = rel.to_axis_angle();
                let q = if angle.abs() < 1e-12 {
                    a
                } else {
                    a * DQuat::from_axis_angle(axis, angle * s)
                };
                [q.x, q.y, q.z, q.w]
            }
            Linear => [0, 1, 2, 3].map(|i| v0[i] * (1.0 - s) + v1[i] * s),
            CubicSpline => {
                let b0 = self.keys[k].2;
                let a1 = self.keys[k + 1].0;
                let r = [0, 1, 2, 3].map(|i| {
                    (2.0 * s.powi(3) - 3.0 * s.powi(2) + 1.0) * v0[i]
                        + td * (s.powi(3) - 2.0 * s.powi(2) + s) * b0[i]
                        + (-2.0 * s.powi(3) + 3.0 * s.powi(2)) * v1[i]
                        + td * (s.powi(3) - s.powi(2)) * a1[i]
                });
                fin(r)
            }
        }
    }
}

/// Every (node, path) curve of every animation of `glb`, read with the `gltf` crate.
fn reference_curves(glb: &[u8]) -> Vec<Vec<(usize, u8, RefCurve)>> {
    use gltf::animation::util::ReadOutputs;
    let (doc, buffers, _) = gltf::import_slice(glb).expect("the generated file is valid glTF");
    doc.animations()
        .map(|anim| {
            anim.channels()
                .map(|ch| {
                    let r = ch.reader(|b| Some(&buffers[b.index()].0[..]));
                    let times: Vec<f64> = r.read_inputs().unwrap().map(f64::from).collect();
                    let (path, vals): (u8, Vec<[f64; 4]>) = match r.read_outputs().unwrap() {
                        ReadOutputs::Translations(it) => (
                            ChannelEntry::TRANSLATION,
                            it.map(|v| [v[0].into(), v[1].into(), v[2].into(), 0.0])
                                .collect(),
                        ),
                        ReadOutputs::Scales(it) => (
                            ChannelEntry::SCALE,
                            it.map(|v| [v[0].into(), v[1].into(), v[2].into(), 0.0])
                                .collect(),
                        ),
                        ReadOutputs::Rotations(it) => (
                            ChannelEntry::ROTATION,
                            it.into_f32().map(|v| v.map(f64::from)).collect(),
                        ),
                        ReadOutputs::MorphTargetWeights(_) => unreachable!("not generated"),
                    };
                    let interp = ch.sampler().interpolation();
                    let keys = if interp == gltf::animation::Interpolation::CubicSpline {
                        vals.chunks_exact(3).map(|c| (c[0], c[1], c[2])).collect()
                    } else {
                        vals.iter().map(|&v| ([0.0; 4], v, [0.0; 4])).collect()
                    };
                    (
                        ch.target().node().index(),
                        path,
                        RefCurve {
                            times,
                            keys,
                            interp,
                            rotation: path == ChannelEntry::ROTATION,
                        },
                    )
                })
                .collect()
        })
        .collect()
}

/// Rotation angle between two unit quaternions, through the relative rotation.
fn angle_between(a: [f64; 4], b: [f64; 4]) -> f64 {
    let rel = quat(a).inverse() * quat(b);
    let v = (rel.x * rel.x + rel.y * rel.y + rel.z * rel.z).sqrt();
    2.0 * v.atan2(rel.w.abs())
}

/// Checks every channel of `file` against the glTF curves of `glb` at key times, frame times
/// and `random` random times; returns the largest deviation seen relative to the bound.
fn check_bounds(glb: &[u8], file: &[u8], random: usize) -> f64 {
    let asset = Asset::parse(file).unwrap();
    let view = AnimationView::from_asset(&asset).unwrap();
    let curves = reference_curves(glb);
    assert_eq!(view.clip_count(), curves.len());
    let mut rng = Rng::new(17);
    let mut worst: f64 = 0.0;
    for (ci, clip_curves) in curves.iter().enumerate() {
        let clip = *view.clip(ci).unwrap();
        let d = f64::from(clip.duration);
        let n = clip.frame_count as usize;
        let h = if n > 1 { d / (n - 1) as f64 } else { 0.0 };
        assert_eq!(view.channels(ci).len(), clip_curves.len());
        for (k, ch) in view.channels(ci).iter().enumerate() {
            let (_, _, curve) = clip_curves
                .iter()
                .find(|(node, path, _)| *node as u32 == ch.node && *path == ch.path)
                .expect("every stored channel comes from a glTF channel");
            let mut times: Vec<f64> = curve.times.clone();
            times.extend((0..n).map(|i| i as f64 * h));
            times.extend((0..random).map(|_| rng.next_u64() as f64 / u64::MAX as f64 * d));
            for t in times {
                let t32 = t as f32;
                let t = f64::from(t32);
                if ch.interpolation == ChannelEntry::STEP && h > 0.0 {
                    // The spec's exactness holds outside [key, next frame time).
                    let frame_t = (t / h).floor() * h;
                    if curve
                        .times
                        .iter()
                        .any(|&kt| kt > frame_t - 1e-9 && kt <= t + 1e-9)
                    {
                        continue;
                    }
                }
                let want = curve.eval(t.min(d));
                let dev = match view.sample(ci, k, t32).unwrap() {
                    ChannelValue::Rotation(q) => angle_between(want, q.map(f64::from)),
                    ChannelValue::Translation(v) | ChannelValue::Scale(v) => (0..3)
                        .map(|i| (f64::from(v[i]) - want[i]).abs())
                        .fold(0.0, f64::max),
                };
                let bound = f64::from(ch.error_bound);
                assert!(
                    dev <= bound,
                    "clip {ci} channel {k} (node {}, path {}) at t = {t}: deviation {dev} > bound {bound}",
                    ch.node,
                    ch.path
                );
                worst = worst.max(dev / bound.max(1e-30));
            }
        }
    }
    worst
}

#[test]
fn animation_sampling_error_bound() {
    let glb = samples::animated_glb(&AnimatedOptions::default());
    for rate in [None, Some(10), Some(60), Some(240)] {
        let file = convert_anim(&glb, rate).unwrap();
        let worst = check_bounds(&glb, &file, 2500);
        eprintln!("rate {rate:?}: largest deviation {worst:.3} of the bound");
        // The bound is reached closely somewhere, i.e. it is not vacuous.
        assert!(
            worst > 0.05,
            "rate {rate:?}: worst deviation only {worst} of the bound"
        );
    }
}

#[test]
fn clips_channels_and_joints_are_as_in_the_source() {
    let glb = samples::animated_glb(&AnimatedOptions::default());
    let file = convert_anim(&glb, None).unwrap();
    let asset = Asset::parse(&file).unwrap();
    let view = AnimationView::from_asset(&asset).unwrap();
    assert_eq!(view.meta.sample_rate, 30.0);
    assert_eq!(view.clip_name(0), Some("walk"));
    assert_eq!(view.clip_name(1), Some("wave"));
    let walk = view.clip(0).unwrap();
    assert_eq!(walk.duration, 1.6);
    assert_eq!(
        walk.frame_count,
        caf::animation::AnimationMetadata::frames(1.6, 30.0).unwrap()
    );
    assert_eq!(view.clip(1).unwrap().duration, 2.0);
    let described: Vec<(u32, u32, u8, u8)> = view
        .channels(0)
        .iter()
        .map(|c| (c.node, c.joint, c.path, c.interpolation))
        .collect();
    assert_eq!(
        described,
        [
            (0, 0, ChannelEntry::TRANSLATION, ChannelEntry::LINEAR),
            (1, 1, ChannelEntry::ROTATION, ChannelEntry::LINEAR),
            (1, 1, ChannelEntry::SCALE, ChannelEntry::STEP),
        ]
    );
    // Linear translation channels are bounded tightly: the resampling corners at 30 Hz.
    assert!(view.channel(0, 0).unwrap().error_bound < 0.05);
    // A higher rate lowers the bound of a resampled (not exactly representable) curve.
    let fast = convert_anim(&glb, Some(240)).unwrap();
    let fast_asset = Asset::parse(&fast).unwrap();
    let fast_view = AnimationView::from_asset(&fast_asset).unwrap();
    for k in [0, 1] {
        assert!(
            fast_view.channel(1, k).unwrap().error_bound < view.channel(1, k).unwrap().error_bound
        );
    }
    // Without a skin the channels name no joint.
    let plain = samples::animated_glb(&AnimatedOptions {
        skinned: false,
        ..Default::default()
    });
    let file = convert_anim(&plain, None).unwrap();
    let a = Asset::parse(&file).unwrap();
    let v = AnimationView::from_asset(&a).unwrap();
    assert!(v
        .all_channels()
        .iter()
        .all(|c| c.joint == caf::mesh::SubMeshEntry::NONE));
    // `asset info` describes the clips.
    let text = caf::describe::Description::from_bytes(&file).to_string();
    assert!(text.contains("2 clip(s) at 30 Hz"), "{text}");
    assert!(text.contains("\"walk\" 1.600 s"), "{text}");
}

#[test]
fn skinned_mesh_keeps_joints_weights_and_skeleton() {
    let glb = samples::animated_glb(&AnimatedOptions::default());
    let file = convert_mesh(&glb).unwrap();
    let asset = Asset::parse(&file).unwrap();
    let view = MeshView::from_asset(&asset).unwrap();
    let skin = view.skin().expect("skinned");
    let names: Vec<&str> = skin.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["hip", "knee"]);
    assert_eq!(skin.joints[0].parent, caf::mesh::JointEntry::ROOT);
    assert_eq!(skin.joints[1].parent, 0);
    assert_eq!(skin.joints[1].translation, [0.0, 1.0, 0.0]);
    assert_eq!(skin.joints[1].inverse_bind[13], -1.0);
    assert_eq!(skin.root_matrix, caf::mesh::IDENTITY);
    // Independent read of the source: each stored vertex's joints and weights are those of a
    // source vertex at the same position.
    let (doc, buffers, _) = gltf::import_slice(&glb).unwrap();
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let r = prim.reader(|b| Some(&buffers[b.index()].0[..]));
    let pos: Vec<[f32; 3]> = r.read_positions().unwrap().collect();
    let js: Vec<[u16; 4]> = r.read_joints(0).unwrap().into_u16().collect();
    let ws: Vec<[f32; 4]> = r.read_weights(0).unwrap().into_f32().collect();
    let joints = view.joints.as_ref().unwrap();
    let weights = view.weights.as_ref().unwrap();
    assert_eq!(view.vertices.len(), pos.len());
    for (i, v) in view.vertices.iter().enumerate() {
        let src = pos.iter().position(|p| *p == v.position).unwrap();
        assert_eq!(weights[i], ws[src]);
        for k in 0..4 {
            if ws[src][k] > 0.0 {
                assert_eq!(joints[i][k], js[src][k]);
            } else {
                assert_eq!(joints[i][k], 0, "a zero weight's joint is stored as 0");
            }
        }
    }
    let text = caf::describe::Description::from_bytes(&file).to_string();
    assert!(
        text.contains("skin 2 joint(s): \"hip\", \"knee\"<-0"),
        "{text}"
    );
    assert!(text.contains("JOINTS_0 + WEIGHTS_0"), "{text}");
}

#[test]
fn non_normalised_weights_are_renormalised() {
    let unit = convert_mesh(&samples::animated_glb(&AnimatedOptions::default())).unwrap();
    let doubled = convert_mesh(&samples::animated_glb(&AnimatedOptions {
        weight_scale: 2.0,
        ..Default::default()
    }))
    .unwrap();
    assert_eq!(unit, doubled);
    let zero = convert_mesh(&samples::animated_glb(&AnimatedOptions {
        weight_scale: 0.0,
        ..Default::default()
    }));
    let msg = zero.unwrap_err().to_string();
    assert!(msg.contains("sum to 0"), "{msg}");
    let negative = convert_mesh(&samples::animated_glb(&AnimatedOptions {
        weight_scale: -1.0,
        ..Default::default()
    }));
    assert!(negative
        .unwrap_err()
        .to_string()
        .contains("not finite and >= 0"));
}

fn edited(edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let (mut json, bin) = samples::animated_gltf(&AnimatedOptions::default());
    edit(&mut json);
    samples::glb(&json, &bin)
}

#[test]
fn unhappy_skins_are_refused() {
    // The skin lists one joint; JOINTS_0 names joint 1.
    let glb = edited(|j| {
        j["skins"][0]["joints"] = serde_json::json!([0]);
        let ibm = j["skins"][0]["inverseBindMatrices"].as_u64().unwrap() as usize;
        j["accessors"][ibm]["count"] = serde_json::json!(1);
    });
    let msg = convert_mesh(&glb).unwrap_err().to_string();
    assert!(msg.contains("joint 1, but the skin has 1 joints"), "{msg}");
    // A second skinned node with another skin.
    let glb = edited(|j| {
        j["skins"] = serde_json::json!([j["skins"][0].clone(), j["skins"][0].clone()]);
        j["nodes"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"mesh": 0, "skin": 1}));
        j["scenes"][0]["nodes"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!(3));
    });
    assert!(matches!(
        convert_mesh(&glb),
        Err(ImportError::Unsupported { .. })
    ));
    // A static copy of the mesh next to the skinned one.
    let glb = edited(|j| {
        j["nodes"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"mesh": 0}));
        j["scenes"][0]["nodes"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!(3));
    });
    let msg = convert_mesh(&glb).unwrap_err().to_string();
    assert!(msg.contains("without a skin"), "{msg}");
    // Inverse bind matrices of the wrong count.
    let glb = edited(|j| {
        let ibm = j["skins"][0]["inverseBindMatrices"].as_u64().unwrap() as usize;
        j["accessors"][ibm]["count"] = serde_json::json!(1);
    });
    assert!(convert_mesh(&glb).is_err());
    // No JOINTS_0 on a skinned primitive.
    let glb = edited(|j| {
        j["meshes"][0]["primitives"][0]["attributes"]
            .as_object_mut()
            .unwrap()
            .remove("JOINTS_0");
    });
    assert!(convert_mesh(&glb)
        .unwrap_err()
        .to_string()
        .contains("no JOINTS_0"));
}

#[test]
fn unhappy_animations_are_refused() {
    // Output count disagreeing with the input count.
    let glb = edited(|j| {
        let out = j["animations"][0]["samplers"][0]["output"]
            .as_u64()
            .unwrap() as usize;
        j["accessors"][out]["count"] = serde_json::json!(3);
    });
    let e = convert_anim(&glb, None).unwrap_err();
    assert!(matches!(e, ImportError::Malformed { .. }), "{e}");
    // A huge declared input count is refused before anything is read.
    let glb = edited(|j| {
        let inp = j["animations"][0]["samplers"][0]["input"].as_u64().unwrap() as usize;
        j["accessors"][inp]["count"] = serde_json::json!(1u64 << 30);
    });
    assert!(convert_anim(&glb, None).is_err());
    // Two channels on the same node and path.
    let glb = edited(|j| {
        let c = j["animations"][0]["channels"][0].clone();
        j["animations"][0]["channels"]
            .as_array_mut()
            .unwrap()
            .push(c);
    });
    let msg = convert_anim(&glb, None).unwrap_err().to_string();
    assert!(msg.contains("two"), "{msg}");
    // Key times that do not increase, and a clip too long for the frame limit: the last
    // "walk" translation key time is rewritten in the binary chunk.
    let with_last_walk_key = |t: f32| {
        let (json, mut bin) = samples::animated_gltf(&AnimatedOptions::default());
        let inp = json["animations"][0]["samplers"][0]["input"]
            .as_u64()
            .unwrap() as usize;
        let view = json["accessors"][inp]["bufferView"].as_u64().unwrap() as usize;
        let off = json["bufferViews"][view]["byteOffset"].as_u64().unwrap() as usize;
        bin[off + 12..off + 16].copy_from_slice(&t.to_le_bytes());
        samples::glb(&json, &bin)
    };
    let msg = convert_anim(&with_last_walk_key(1.0), None)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("increase strictly"), "{msg}");
    assert!(matches!(
        convert_anim(&with_last_walk_key(1.0e9), None),
        Err(ImportError::LimitExceeded { .. })
    ));
    assert!(convert_anim(&with_last_walk_key(f32::NAN), None).is_err());
    assert!(matches!(
        convert_anim(&samples::animated_glb(&AnimatedOptions::default()), Some(0)),
        Err(ImportError::InvalidArgument(_))
    ));
    assert!(convert_anim(
        &samples::animated_glb(&AnimatedOptions::default()),
        Some(5000)
    )
    .is_err());
    // Outputs of the wrong accessor type for their path (glTF 2.0 §3.11), and key times
    // that are not float scalars: refused by type, not read with the wrong element size.
    for (path, ty) in [
        ("translation", "MAT4"),
        ("rotation", "SCALAR"),
        ("scale", "VEC4"),
    ] {
        let glb = edited(|j| {
            let ch = j["animations"][0]["channels"][0].clone();
            let s = ch["sampler"].as_u64().unwrap() as usize;
            j["animations"][0]["channels"][0]["target"]["path"] = serde_json::json!(path);
            let out = j["animations"][0]["samplers"][s]["output"]
                .as_u64()
                .unwrap() as usize;
            j["accessors"][out]["type"] = serde_json::json!(ty);
        });
        let msg = convert_anim(&glb, None).unwrap_err().to_string();
        assert!(msg.contains("values cannot be a"), "{path} {ty}: {msg}");
    }
    let glb = edited(|j| {
        let inp = j["animations"][0]["samplers"][0]["input"].as_u64().unwrap() as usize;
        j["accessors"][inp]["type"] = serde_json::json!("VEC2");
    });
    let msg = convert_anim(&glb, None).unwrap_err().to_string();
    assert!(msg.contains("key times must be a float SCALAR"), "{msg}");
    // No animations at all.
    let glb = edited(|j| {
        j.as_object_mut().unwrap().remove("animations");
    });
    assert!(matches!(
        convert_anim(&glb, None),
        Err(ImportError::Empty { .. })
    ));
    // Not a glTF.
    let e = convert(b"v 0 0 0\n", Path::new("a.obj"), &anim_settings(None)).unwrap_err();
    assert!(matches!(e, ImportError::Unsupported { .. }), "{e}");
}

#[test]
fn original_profile_refuses_animations_and_ignores_skins() {
    let glb = samples::animated_glb(&AnimatedOptions::default());
    let s = Settings {
        kind: Some(AssetKind::Animation),
        ..Settings::original()
    };
    assert!(convert(&glb, Path::new("a.glb"), &s).is_err());
    // The original mesh encoder keeps its 16-byte metadata.
    let m = convert(&glb, Path::new("a.glb"), &Settings::original()).unwrap();
    assert_eq!(m.metadata.len(), 16);
}
