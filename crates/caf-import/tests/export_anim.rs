//! Skin and animation export to glTF (`caf_import::export::gltf`, docs/format/caf-assets-ext.md
//! section 4): a skinned glTF -> mesh `.caf` + Animation `.caf` -> one `.glb`, read back with
//! the `gltf` crate (an independent reader) and compared with the stored skin, streams and
//! frames; then the export converted again and its skin and curves compared with the first
//! assets'.

use std::path::Path;

use caf::animation::{AnimationView, ChannelValue};
use caf::mesh::MeshView;
use caf::Asset;
use caf_import::export::{export, ExportError, ExportOptions};
use caf_import::{convert, AssetKind, Settings};
use voxcaf_samples::{self as samples, AnimatedOptions};

type Res = Result<(), Box<dyn std::error::Error>>;

fn convert_as(src: &[u8], kind: Option<AssetKind>) -> Vec<u8> {
    let settings = Settings {
        kind,
        ..Settings::default()
    };
    convert(src, Path::new("hero.glb"), &settings)
        .unwrap()
        .to_caf_bytes()
}

/// The mesh and Animation assets of the generated skinned, animated scene.
fn assets() -> (Vec<u8>, Vec<u8>) {
    let glb = samples::animated_glb(&AnimatedOptions::default());
    (
        convert_as(&glb, None),
        convert_as(&glb, Some(AssetKind::Animation)),
    )
}

fn export_glb(mesh: &[u8], anim: Option<&[u8]>) -> Result<Vec<u8>, ExportError> {
    let opts = ExportOptions {
        animation: anim,
        ..ExportOptions::default()
    };
    let files = export(mesh.to_vec(), Path::new("out/hero.glb"), &opts)?;
    assert_eq!(files.len(), 1);
    Ok(files.into_iter().next().unwrap().bytes)
}

fn values(v: ChannelValue) -> Vec<f32> {
    match v {
        ChannelValue::Translation(x) | ChannelValue::Scale(x) => x.to_vec(),
        ChannelValue::Rotation(q) => q.to_vec(),
    }
}

#[test]
fn skin_and_clips_read_back_as_stored() -> Res {
    let (mesh_caf, anim_caf) = assets();
    let mesh = MeshView::from_asset(&Asset::parse(&mesh_caf)?)?;
    let anim = AnimationView::from_asset(&Asset::parse(&anim_caf)?)?;
    let skin = mesh.skin().expect("the sample is skinned");
    let glb = export_glb(&mesh_caf, Some(&anim_caf))?;
    let (doc, buffers, _) = gltf::import_slice(&glb)?;
    let get = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(|d| &d.0[..]);

    // The skin: joints in stored order, with their names, rest TRS, parents and inverse binds.
    let skins: Vec<_> = doc.skins().collect();
    assert_eq!(skins.len(), 1);
    let joints: Vec<gltf::Node<'_>> = skins[0].joints().collect();
    assert_eq!(joints.len(), skin.joints.len());
    let ibm: Vec<[[f32; 4]; 4]> = skins[0]
        .reader(get)
        .read_inverse_bind_matrices()
        .expect("inverse binds written")
        .collect();
    for (i, (node, j)) in joints.iter().zip(&skin.joints).enumerate() {
        assert_eq!(node.name(), Some(j.name.as_str()));
        let (t, r, s) = node.transform().decomposed();
        assert_eq!((t, r, s), (j.translation, j.rotation, j.scale), "joint {i}");
        let flat: Vec<f32> = ibm[i].iter().flatten().copied().collect();
        assert_eq!(flat, j.inverse_bind.to_vec(), "joint {i}");
        let parent = doc
            .nodes()
            .find(|p| p.children().any(|c| c.index() == node.index()));
        match j.parent {
            caf::mesh::JointEntry::ROOT => assert!(parent.is_none(), "root joint {i} in the scene"),
            p => assert_eq!(parent.map(|p| p.index()), Some(joints[p as usize].index())),
        }
    }
    // The skinned mesh node uses the skin; JOINTS_0 / WEIGHTS_0 are the stored streams.
    let mesh_nodes: Vec<_> = doc.nodes().filter(|n| n.mesh().is_some()).collect();
    assert!(!mesh_nodes.is_empty());
    assert!(mesh_nodes.iter().all(|n| n.skin().is_some()));
    for prim in doc.meshes().flat_map(|m| m.primitives()) {
        let r = prim.reader(get);
        let js: Vec<[u16; 4]> = r.read_joints(0).expect("JOINTS_0").into_u16().collect();
        assert_eq!(&js[..], mesh.joints.as_deref().unwrap());
        let ws: Vec<[f32; 4]> = r.read_weights(0).expect("WEIGHTS_0").into_f32().collect();
        assert_eq!(&ws[..], mesh.weights.as_deref().unwrap());
    }

    // The clips: one animation per clip, one sampler per channel with the stored frames, on
    // the channel's joint node.
    let anims: Vec<_> = doc.animations().collect();
    assert_eq!(anims.len(), anim.clip_count());
    let mut checked = 0;
    for (c, a) in anims.iter().enumerate() {
        assert_eq!(a.name(), anim.clip_name(c));
        let channels: Vec<_> = a.channels().collect();
        assert_eq!(channels.len(), anim.channels(c).len());
        for (i, (gc, ch)) in channels.iter().zip(anim.channels(c)).enumerate() {
            assert_eq!(
                gc.target().node().index(),
                joints[ch.joint as usize].index()
            );
            let want_step = ch.interpolation == caf::animation::ChannelEntry::STEP;
            assert_eq!(
                gc.sampler().interpolation() == gltf::animation::Interpolation::Step,
                want_step
            );
            let r = gc.reader(get);
            let times: Vec<f32> = r.read_inputs().unwrap().collect();
            let frames = ch.frame_count as usize;
            assert_eq!(times.len(), frames);
            for (k, t) in times.iter().enumerate() {
                if frames > 1 {
                    assert_eq!(Some(*t), anim.frame_time(c, k));
                }
            }
            let got: Vec<f32> = match r.read_outputs().unwrap() {
                gltf::animation::util::ReadOutputs::Translations(v)
                | gltf::animation::util::ReadOutputs::Scales(v) => v.flatten().collect(),
                gltf::animation::util::ReadOutputs::Rotations(v) => {
                    v.into_f32().flatten().collect()
                }
                gltf::animation::util::ReadOutputs::MorphTargetWeights(_) => {
                    panic!("no morph weights are written")
                }
            };
            let want: Vec<f32> = (0..frames)
                .flat_map(|k| values(anim.frame_value(c, i, k).unwrap()))
                .collect();
            assert_eq!(got, want, "clip {c} channel {i}");
            checked += 1;
        }
    }
    assert_eq!(checked, anim.all_channels().len());
    Ok(())
}

/// The angle between two unit quaternions, in radians.
fn angle(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    2.0 * dot.abs().min(1.0).acos()
}

#[test]
fn export_converts_back_to_the_same_skin_and_curves() -> Res {
    let (mesh_caf, anim_caf) = assets();
    let glb = export_glb(&mesh_caf, Some(&anim_caf))?;
    let (mesh2_caf, anim2_caf) = (
        convert_as(&glb, None),
        convert_as(&glb, Some(AssetKind::Animation)),
    );
    let (m1, m2) = (
        MeshView::from_asset(&Asset::parse(&mesh_caf)?)?,
        MeshView::from_asset(&Asset::parse(&mesh2_caf)?)?,
    );
    assert_eq!(m1.vertices, m2.vertices);
    assert_eq!(m1.indices, m2.indices);
    assert_eq!(m1.joints, m2.joints);
    assert_eq!(m1.weights, m2.weights);
    let (s1, s2) = (m1.skin().unwrap(), m2.skin().unwrap());
    assert_eq!(s1.root_matrix, s2.root_matrix);
    assert_eq!(s1.joints.len(), s2.joints.len());
    for (a, b) in s1.joints.iter().zip(&s2.joints) {
        // Node numbers are the export's; everything else is the first asset's.
        assert_eq!(
            (a.parent, &a.name, a.translation, a.rotation, a.scale),
            (b.parent, &b.name, b.translation, b.rotation, b.scale)
        );
        assert_eq!(a.inverse_bind, b.inverse_bind);
    }

    let a1 = AnimationView::from_asset(&Asset::parse(&anim_caf)?)?;
    let a2 = AnimationView::from_asset(&Asset::parse(&anim2_caf)?)?;
    assert_eq!(a1.clip_count(), a2.clip_count());
    for c in 0..a1.clip_count() {
        assert_eq!(a1.clip_name(c), a2.clip_name(c));
        let (e1, e2) = (a1.clip(c).unwrap(), a2.clip(c).unwrap());
        assert_eq!((e1.duration, e1.frame_count), (e2.duration, e2.frame_count));
        assert_eq!(a1.channels(c).len(), a2.channels(c).len());
        for (i, ch1) in a1.channels(c).iter().enumerate() {
            let j = a2
                .channels(c)
                .iter()
                .position(|ch2| ch2.joint == ch1.joint && ch2.path == ch1.path)
                .expect("the same joint and path");
            let ch2 = a2.channel(c, j).unwrap();
            // The second conversion's bound covers the exported curve (glTF's lerp / slerp
            // through the first asset's frames) against its resampling; the first asset's own
            // sampling (nlerp for rotations) differs from slerp through the same frames by
            // far less than 1e-4 rad at these frame steps.
            let tol = f64::from(ch1.error_bound) + f64::from(ch2.error_bound) + 1e-4;
            for s in 0..=997 {
                let t = e1.duration * s as f32 / 997.0;
                let (v1, v2) = (
                    values(a1.sample(c, i, t).unwrap()),
                    values(a2.sample(c, j, t).unwrap()),
                );
                let err = if ch1.path == caf::animation::ChannelEntry::ROTATION {
                    angle(&v1, &v2)
                } else {
                    v1.iter()
                        .zip(&v2)
                        .map(|(x, y)| f64::from((x - y).abs()))
                        .fold(0.0, f64::max)
                };
                assert!(
                    err <= tol,
                    "clip {c} channel {i} at {t}: {v1:?} vs {v2:?} ({err} > {tol})"
                );
            }
        }
    }
    Ok(())
}

#[test]
fn animation_alone_and_unhappy_paths() -> Res {
    let (mesh_caf, anim_caf) = assets();
    // The Animation asset alone: its clips on empty nodes, one per animated node.
    let files = export(
        anim_caf.clone(),
        Path::new("out/clips.glb"),
        &ExportOptions::default(),
    )?;
    let (doc, _, _) = gltf::import_slice(&files[0].bytes)?;
    let anim = AnimationView::from_asset(&Asset::parse(&anim_caf)?)?;
    let mut animated: Vec<u32> = anim.all_channels().iter().map(|c| c.node).collect();
    animated.sort_unstable();
    animated.dedup();
    let names: Vec<String> = doc
        .nodes()
        .map(|n| n.name().unwrap_or_default().to_string())
        .collect();
    let want: Vec<String> = animated.iter().map(|n| format!("node {n}")).collect();
    assert_eq!(names, want);
    assert!(doc.nodes().all(|n| n.mesh().is_none()));
    assert_eq!(doc.animations().count(), anim.clip_count());

    // A mesh without a skin keeps its clips on empty nodes too.
    let cube = convert(
        samples::two_cubes_glb().as_slice(),
        Path::new("cubes.glb"),
        &Settings::default(),
    )?
    .to_caf_bytes();
    let glb = export_glb(&cube, Some(&anim_caf))?;
    let (doc, _, _) = gltf::import_slice(&glb)?;
    assert_eq!(doc.skins().count(), 0);
    assert_eq!(doc.animations().count(), anim.clip_count());

    // --anim that is not an Animation asset, or is damaged, is named as the animation.
    let e = export_glb(&mesh_caf, Some(&mesh_caf)).unwrap_err();
    assert!(matches!(e, ExportError::AnimationInput(_)), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("the animation to export with the mesh"),
        "{e}"
    );
    let mut bad = anim_caf.clone();
    let last = bad.len() - 20;
    bad[last] ^= 1;
    let e = export_glb(&mesh_caf, Some(&bad)).unwrap_err();
    assert!(matches!(e, ExportError::AnimationInput(_)), "{e:?}");
    // --anim applies to meshes only.
    let opts = ExportOptions {
        animation: Some(&anim_caf),
        ..ExportOptions::default()
    };
    let e = export(anim_caf.clone(), Path::new("x.glb"), &opts).unwrap_err();
    assert!(matches!(
        e,
        ExportError::OptionNotApplicable {
            option: "--anim",
            ..
        }
    ));
    // Any output but .glb / .gltf is refused.
    let e = export(anim_caf, Path::new("x.fbx"), &ExportOptions::default()).unwrap_err();
    assert!(matches!(e, ExportError::BadOutput { .. }), "{e:?}");
    Ok(())
}
