//! Typed views: every golden texture / audio / mesh / shader / scene / prefab file decodes to
//! the contents the golden README describes, and views reject inconsistent metadata.

mod common;

use std::borrow::Cow;
use std::path::Path;

use caf::audio::{AudioMetadata, AudioView};
use caf::describe::Decoded;
use caf::mesh::{MeshMetadata, MeshView, Vertex};
use caf::prefab::{prefab_component, PrefabView};
use caf::scene::{ArchetypeDesc, SceneMetadata, SceneView};
use caf::shader::{ShaderMetadata, ShaderStage, ShaderView};
use caf::texture::{TextureMetadata, TextureView};
use caf::*;
use common::{golden_caf, lcg_bytes, lcg_i16};

fn files(dir: &Path, sub: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir.join(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "caf"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "{sub}/ is empty");
    v
}

/// The original's mip filter: floor of the mean of the 2x2 block (smaller at a 1-wide edge),
/// dropping an odd last row/column.
fn box_down(src: &[u8], w: u32, h: u32, c: u32) -> Vec<u8> {
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let mut out = Vec::new();
    for y in 0..nh {
        for x in 0..nw {
            for ch in 0..c {
                let (mut sum, mut n) = (0u32, 0u32);
                for sy in 2 * y..(2 * y + 2).min(h) {
                    for sx in 2 * x..(2 * x + 2).min(w) {
                        sum += u32::from(src[((sy * w + sx) * c + ch) as usize]);
                        n += 1;
                    }
                }
                out.push((sum / n) as u8);
            }
        }
    }
    out
}

/// "raw_7x3_c1_mips.caf" -> (7, 3, 1)
fn dims_from_name(name: &str) -> (u32, u32, u32) {
    let parts: Vec<&str> = name.split('_').collect();
    let (w, h) = parts[1].split_once('x').unwrap();
    (
        w.parse().unwrap(),
        h.parse().unwrap(),
        parts[2][1..].parse().unwrap(),
    )
}

#[test]
fn golden_textures_decode_levels_and_channels() {
    let Some(dir) = golden_caf() else { return };
    let mut n = 0;
    for p in files(&dir, "texture") {
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        let l = LoadedAsset::open(&p).unwrap();
        let t = TextureView::from_asset(&l.asset()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (w, h, c) = dims_from_name(&name);
        assert_eq!(
            (t.meta.width, t.meta.height, t.channels),
            (w, h, c),
            "{name}"
        );
        assert_eq!(t.level_count(), t.meta.mip_levels as usize);
        // Base level = the LCG input; the README's seeds follow (w + 1) * 1000 + h * 10 + c.
        let seed = (w + 1) * 1000 + h * 10 + c;
        assert_eq!(
            t.level(0).unwrap(),
            &lcg_bytes(seed, (w * h * c) as usize)[..],
            "{name}: level 0"
        );
        for i in 1..t.level_count() {
            let (pw, ph) = t.level_dims(i - 1).unwrap();
            assert_eq!(
                t.level(i).unwrap(),
                &box_down(t.level(i - 1).unwrap(), pw, ph, c)[..],
                "{name}: level {i}"
            );
        }
        assert_eq!(
            l.header().flags.contains(CafFlags::MIPCHAIN),
            t.level_count() > 1
        );
        n += 1;
    }
    for p in files(&dir, "png") {
        let l = LoadedAsset::open(&p).unwrap();
        let t =
            TextureView::from_asset(&l.asset()).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!((t.channels, t.level_count()), (4, 1), "{}", p.display());
        assert_eq!(
            t.level(0).unwrap().len() as u32,
            t.meta.width * t.meta.height * 4
        );
        n += 1;
    }
    let l = LoadedAsset::open(&dir.join("png/rgba16_1x1.caf")).unwrap();
    assert_eq!(
        TextureView::from_asset(&l.asset())
            .unwrap()
            .level(0)
            .unwrap(),
        &[0x00, 0x10, 0xFF, 0x7F]
    );
    eprintln!("{n} golden textures decoded");
}

#[test]
fn golden_audio_decodes_samples() {
    let Some(dir) = golden_caf() else { return };
    for p in files(&dir, "audio") {
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        let l = LoadedAsset::open(&p).unwrap();
        let a = AudioView::from_asset(&l.asset()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(a.meta.bits_per_sample, 16);
        let s = a
            .samples_i16()
            .expect("owned loads are aligned, so 16-bit samples cast in place");
        assert_eq!(
            s.len(),
            a.meta.sample_count as usize * a.meta.channels as usize
        );
        if let Some(rest) = name.strip_prefix("raw_") {
            // seed = rate + channels, e.g. raw_44100_stereo -> 44102
            let rate: u32 = rest.split('_').next().unwrap().parse().unwrap();
            let seed = rate + u32::from(a.meta.channels);
            assert_eq!(s, &lcg_i16(seed, s.len())[..], "{name}");
            assert_eq!(a.meta.sample_count, 441);
        } else {
            let wav_name = name.strip_prefix("wav_").unwrap().replace(".caf", ".wav");
            let wav = std::fs::read(dir.join("inputs/wav").join(wav_name)).unwrap();
            assert_eq!(
                a.data,
                &wav[44..44 + a.data.len()],
                "{name}: samples are the WAV data"
            );
        }
    }
}

#[test]
fn golden_meshes_decode_vertices_and_indices() {
    let Some(dir) = golden_caf() else { return };
    for p in files(&dir, "mesh") {
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        let l = LoadedAsset::open(&p).unwrap();
        let m = MeshView::from_asset(&l.asset()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            matches!(m.vertices, Cow::Borrowed(_)),
            "{name}: aligned payload is cast in place"
        );
        assert!(matches!(m.indices, Cow::Borrowed(_)));
        assert_eq!(m.vertices.len(), m.meta.vertex_count as usize);
        assert_eq!(m.indices.len(), m.meta.index_count as usize);
        if name.starts_with("obj_") {
            // OBJ: one vertex per face corner, indices 0..n-1, zero tangents.
            assert!(
                m.indices.iter().enumerate().all(|(i, &x)| x as usize == i),
                "{name}"
            );
            assert!(m.vertices.iter().all(|v| v.tangent == [0.0; 4]), "{name}");
        } else {
            assert!(
                m.vertices.iter().all(|v| v.tangent == [1.0, 0.0, 0.0, 1.0]),
                "{name}"
            );
        }
        // Same result through the copying path (a misaligned slice).
        let mut shifted = vec![0u8; l.bytes().len() + 1];
        shifted[1..].copy_from_slice(l.bytes());
        let a = Asset::parse(&shifted[1..]).unwrap();
        let m2 = MeshView::from_asset(&a).unwrap();
        assert_eq!(m2.vertices, m.vertices);
        assert_eq!(m2.indices, m.indices);
    }
    let l = LoadedAsset::open(&dir.join("mesh/obj_cube.caf")).unwrap();
    let m = MeshView::from_asset(&l.asset()).unwrap();
    assert_eq!((m.vertices.len(), m.triangles().count()), (36, 12));
    let l = LoadedAsset::open(&dir.join("mesh/gltf_two_meshes.caf")).unwrap();
    assert_eq!(
        MeshView::from_asset(&l.asset())
            .unwrap()
            .meta
            .sub_mesh_count,
        2
    );
}

#[test]
fn golden_shaders_decode() {
    let Some(dir) = golden_caf() else { return };
    for (file, stage, seed, n) in [
        ("shader/stage0_n64.caf", 0, 400, 64),
        ("shader/stage1_n100.caf", 1, 401, 100),
        ("shader/stage2_n4096.caf", 2, 402, 4096),
        ("shader/stage0_n0.caf", 0, 403, 0),
        ("generic/edge_minor7.caf", 1, 106, 64),
    ] {
        let l = LoadedAsset::open(&dir.join(file)).unwrap();
        let s = ShaderView::from_asset(&l.asset()).unwrap();
        assert_eq!(s.stage(), ShaderStage(stage));
        assert_eq!(s.bytecode, &lcg_bytes(seed, n)[..]);
        assert_eq!(
            s.words().map(|w| w.len()),
            Some(n / 4),
            "{file}: payload is 32-byte aligned"
        );
    }
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn golden_scenes_decode_sections() {
    let Some(dir) = golden_caf() else { return };
    let l = LoadedAsset::open(&dir.join("scene/scene_basic.caf")).unwrap();
    let s = SceneView::from_asset(&l.asset()).unwrap();
    assert_eq!((s.meta.entity_count, s.meta.archetype_count), (5, 4));
    let secs: Vec<_> = s.sections().collect();
    assert_eq!(
        secs.iter()
            .map(|x| (x.type_id, x.count))
            .collect::<Vec<_>>(),
        [(0, 2), (1, 2), (2, 2), (3, 1)]
    );
    let tr: Vec<_> = secs[0].entries().collect();
    assert_eq!(tr[0].entity, 0);
    assert_eq!(
        f32s(tr[0].component),
        [1.0, 2.0, 3.0, 0.0, 0.5, 0.0, 1.0, 1.0, 1.0]
    );
    assert_eq!(tr[1].entity, 1);
    assert_eq!(
        f32s(tr[1].component),
        [-4.0, 5.5, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0]
    );
    let acc: Vec<_> = secs[1]
        .entries()
        .map(|e| (e.entity, f32s(e.component)))
        .collect();
    assert_eq!(acc, [(1, vec![0.25, -9.81]), (4, vec![1.0, 0.0])]);
    let par: Vec<_> = secs[2]
        .entries()
        .map(|e| (e.entity, e.component.to_vec()))
        .collect();
    assert_eq!(
        par,
        [
            (1, vec![0, 0, 0, 0, 1]),
            (2, vec![0xFF, 0xFF, 0xFF, 0xFF, 0])
        ]
    );
    let wt: Vec<_> = secs[3].entries().collect();
    assert_eq!(wt[0].entity, 2);
    assert_eq!(
        f32s(wt[0].component),
        [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 7., 8., 9., 1.]
    );

    for file in ["scene/scene_empty.caf", "generic/type5_scene.caf"] {
        let l = LoadedAsset::open(&dir.join(file)).unwrap();
        assert_eq!(
            SceneView::from_asset(&l.asset()).unwrap().section_count(),
            0
        );
    }
}

#[test]
fn golden_prefabs_decode_entities() {
    let Some(dir) = golden_caf() else { return };
    let l = LoadedAsset::open(&dir.join("prefab/prefab_crate.caf")).unwrap();
    let p = PrefabView::from_asset(&l.asset()).unwrap();
    let e: Vec<_> = p.entities().collect();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].name_str(), Some("Crate"));
    let comps: Vec<_> = e[0]
        .components
        .iter()
        .map(|c| (c.type_id, f32s(c.data)))
        .collect();
    assert_eq!(
        comps,
        [
            (prefab_component::POSITION_3D, vec![1.5, -2.0, 3.25]),
            (
                prefab_component::ROTATION_3D,
                vec![0.0, 0.707_106_77, 0.0, 0.707_106_77]
            ),
            (prefab_component::SCALE_3D, vec![2.0, 2.0, 2.0]),
        ]
    );
    assert!(e[0].children.is_empty());
    for (file, name) in [
        ("prefab/prefab_nameonly.caf", "Empty Marker"),
        ("prefab/prefab_bare.caf", ""),
    ] {
        let l = LoadedAsset::open(&dir.join(file)).unwrap();
        let p = PrefabView::from_asset(&l.asset()).unwrap();
        let e: Vec<_> = p.entities().collect();
        assert_eq!(
            (e.len(), e[0].name_str(), e[0].components.len()),
            (1, Some(name), 0),
            "{file}"
        );
    }
}

/// A typed view's verdict on an asset, its view dropped.
type ViewCheck = for<'a, 'b> fn(&'b Asset<'a>) -> Result<(), CafError>;

/// A golden file a typed view refuses: (file, the view, a test of its error).
type Refusal = (&'static str, ViewCheck, fn(&CafError) -> bool);

/// (expected, actual) of a metadata size error.
fn metadata_size(e: &CafError) -> Option<(u64, u64)> {
    match e {
        CafError::MetadataSize {
            expected, actual, ..
        } => Some((*expected, *actual)),
        _ => None,
    }
}

#[test]
fn golden_generic_files_that_typed_views_refuse() {
    let Some(dir) = golden_caf() else { return };
    let open = |f: &str| LoadedAsset::open(&dir.join(f)).unwrap();
    let texture: ViewCheck = |a| TextureView::from_asset(a).map(drop);
    let audio: ViewCheck = |a| AudioView::from_asset(a).map(drop);
    let prefab: ViewCheck = |a| PrefabView::from_asset(a).map(drop);
    let mesh: ViewCheck = |a| MeshView::from_asset(a).map(drop);
    let shader: ViewCheck = |a| ShaderView::from_asset(a).map(drop);
    // (file, view, what its refusal must be)
    let refusals: [Refusal; 8] = [
        ("generic/texture_short_meta.caf", texture, |e| {
            metadata_size(e) == Some((24, 8))
        }),
        ("generic/empty_payload_texture_meta.caf", texture, |e| {
            matches!(e, CafError::BadMetadata { .. })
        }),
        ("generic/type4_prefab.caf", prefab, |e| {
            matches!(e, CafError::Malformed { .. })
        }),
        // LCG "indices" point nowhere
        ("generic/type3_mesh.caf", mesh, |e| {
            matches!(e, CafError::Malformed { .. })
        }),
        ("generic/empty_shader.caf", shader, |e| {
            metadata_size(e) == Some((8, 0))
        }),
        ("generic/flags_0001.caf", texture, |e| {
            matches!(e, CafError::UnsupportedFlags { .. }) && e.kind() == ErrorKind::Unsupported
        }),
        ("generic/odd_sizes.caf", audio, |e| {
            metadata_size(e).is_some()
        }),
        ("generic/type1_texture.caf", audio, |e| {
            matches!(
                e,
                CafError::WrongType {
                    expected: AssetType::AUDIO,
                    found: AssetType::TEXTURE
                }
            ) && e.kind() == ErrorKind::Misuse
        }),
    ];
    for (file, view, refusal) in refusals {
        let e = view(&open(file).asset()).unwrap_err();
        assert!(refusal(&e), "{file}: {e:?}");
    }
    let l = open("generic/flags_0004.caf");
    assert!(TextureView::from_asset(&l.asset()).unwrap().srgb);
    let l = open("generic/type2_audio.caf");
    assert_eq!(
        AudioView::from_asset(&l.asset())
            .unwrap()
            .samples_i16()
            .unwrap()
            .len(),
        8
    );
}

// ---- rejections of inconsistent metadata, built with the writer ----

fn with<'a>(buf: &'a mut Vec<u8>, ty: AssetType, meta: &[u8], payload: &[u8]) -> Asset<'a> {
    *buf = AssetWriter::new(ty)
        .metadata(meta)
        .payload(payload)
        .to_vec();
    Asset::parse(buf).unwrap()
}

/// The check (`CafError::check_name`) the typed view of `ty` fails on the asset written from
/// `meta` and `payload` ([`Decoded::from_asset`] picks the view by type).
fn failed_check(ty: AssetType, meta: &[u8], payload: &[u8]) -> &'static str {
    let mut b = Vec::new();
    let a = with(&mut b, ty, meta, payload);
    let view = Decoded::from_asset(&a).expect("a typed asset type");
    view.unwrap_err().check_name()
}

#[test]
fn texture_rejections() {
    let mut b = Vec::new();
    let t = |w, h, f, m| {
        TextureMetadata {
            width: w,
            height: h,
            format: f,
            mip_levels: m,
            reserved: 0,
        }
        .to_bytes()
    };
    let ok = with(&mut b, AssetType::TEXTURE, &t(4, 2, 0, 3), &[0; 8 + 2 + 1]);
    assert_eq!(TextureView::from_asset(&ok).unwrap().channels, 1);
    let cases: Vec<(Vec<u8>, usize, &str)> = vec![
        (t(4, 4, 0, 1).to_vec(), 63, "payload size"), // one byte short of 4 channels
        (t(4, 4, 0, 1).to_vec(), 16 * 5, "payload size"), // 5 channels
        (t(4, 4, 0, 1).to_vec(), 0, "payload size"),
        (t(4, 4, 0, 4).to_vec(), 64, "bad metadata"), // more levels than the chain has
        (t(4, 4, 0, 0).to_vec(), 64, "bad metadata"),
        (t(4, 4, 105, 1).to_vec(), 64, "bad metadata"), // unknown format
        (t(4, 4, 60, 1).to_vec(), 64, "bad metadata"),  // depth format
        (t(4, 4, 1, 1).to_vec(), 64, "payload size"),   // A8_UNORM holds 16 bytes
        (t(4, 4, 18, 2).to_vec(), 16, "payload size"),  // BC7: 16 + 16 bytes
        (t(0, 4, 0, 1).to_vec(), 0, "bad metadata"),
        (t(4, 4, 0, 1)[..23].to_vec(), 64, "metadata size"),
        (vec![0; 25], 64, "metadata size"),
        (t(u32::MAX, u32::MAX, 0, 32).to_vec(), 4, "payload size"),
    ];
    for (meta, n, want) in cases {
        let a = with(&mut b, AssetType::TEXTURE, &meta, &vec![0; n]);
        let e = TextureView::from_asset(&a).unwrap_err();
        assert_eq!(e.check_name(), want, "{e}");
        assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
    }
}

#[test]
fn audio_rejections() {
    let mut b = Vec::new();
    let m = |ch, bits, n| {
        AudioMetadata {
            sample_rate: 8000,
            channels: ch,
            bits_per_sample: bits,
            sample_count: n,
            reserved: 0,
        }
        .to_bytes()
    };
    for (meta, n, want) in [
        (m(2, 16, 10), 39, "payload size"),
        (m(2, 16, 10), 41, "payload size"),
        (m(2, 24, 10), 60, "bad metadata"),
        (m(0, 16, 10), 0, "bad metadata"),
        (m(u16::MAX, 32, u32::MAX), 8, "payload size"),
    ] {
        assert_eq!(failed_check(AssetType::AUDIO, &meta, &vec![0; n]), want);
    }
    let a = with(&mut b, AssetType::AUDIO, &m(1, 8, 3), &[1, 2, 3]);
    let v = AudioView::from_asset(&a).unwrap();
    assert!(v.samples_i16().is_none() && v.samples_i16_cow().is_none());
    // Misaligned 16-bit data: no zero-copy view, but the copying accessor works.
    let bytes = AssetWriter::new(AssetType::AUDIO)
        .metadata(&m(1, 16, 2)[..])
        .payload(&[1, 0, 2, 0])
        .to_vec();
    let mut shifted = vec![0u8; bytes.len() + 1];
    shifted[1..].copy_from_slice(&bytes);
    let a = Asset::parse(&shifted[1..]).unwrap();
    let v = AudioView::from_asset(&a).unwrap();
    assert!(v.samples_i16().is_none());
    assert_eq!(v.samples_i16_cow().unwrap().as_ref(), &[1, 2]);
}

#[test]
fn mesh_rejections() {
    let mut b = Vec::new();
    let m = |v, i| {
        MeshMetadata {
            vertex_count: v,
            index_count: i,
            sub_mesh_count: 1,
            reserved: 0,
        }
        .to_bytes()
    };
    let vert = Vertex {
        position: [1.0, 2.0, 3.0],
        ..Default::default()
    }
    .to_bytes();
    let mut good = vert.repeat(3);
    good.extend([0u32, 1, 2].iter().flat_map(|i| i.to_le_bytes()));
    let a = with(&mut b, AssetType::MESH, &m(3, 3), &good);
    assert_eq!(
        MeshView::from_asset(&a).unwrap().vertices[2].position,
        [1.0, 2.0, 3.0]
    );
    for (meta, payload, want) in [
        (m(3, 3), good[..good.len() - 1].to_vec(), "payload size"),
        (m(3, 4), good.clone(), "payload size"),
        (m(4, 3), good.clone(), "payload size"),
        (m(u32::MAX, u32::MAX), good.clone(), "payload size"),
        (m(2, 3), good[48..].to_vec(), "malformed payload"), // index 2 >= 2 vertices
    ] {
        assert_eq!(failed_check(AssetType::MESH, &meta, &payload), want);
    }
    assert_eq!(
        failed_check(AssetType::MESH, &m(3, 3)[..12], &good),
        "metadata size"
    );
}

#[test]
fn shader_rejections() {
    let mut b = Vec::new();
    assert_eq!(
        failed_check(
            AssetType::SHADER,
            &ShaderMetadata {
                stage: 3,
                reserved: 0,
            }
            .to_bytes(),
            &[0; 4]
        ),
        "bad metadata"
    );
    let spirv = 0x0723_0203u32.to_le_bytes();
    let a = with(
        &mut b,
        AssetType::SHADER,
        &ShaderMetadata {
            stage: 2,
            reserved: 0,
        }
        .to_bytes(),
        &spirv,
    );
    assert!(ShaderView::from_asset(&a).unwrap().is_spirv());
}

fn section(type_id: u32, entries: &[(u32, &[u8])]) -> Vec<u8> {
    let mut v = type_id.to_le_bytes().to_vec();
    v.extend((entries.len() as u32).to_le_bytes());
    for (id, c) in entries {
        v.extend(id.to_le_bytes());
        v.extend_from_slice(c);
    }
    v
}

#[test]
fn scene_rejections() {
    let mut b = Vec::new();
    let meta = |arch| {
        SceneMetadata {
            entity_count: 1,
            archetype_count: arch,
            ..Default::default()
        }
        .to_bytes()
    };
    let acc = section(1, &[(0, &[0; 8])]);
    let a = with(&mut b, AssetType::SCENE, &meta(1), &acc);
    assert_eq!(SceneView::from_asset(&a).unwrap().section_count(), 1);
    let mut unknown = acc.clone();
    unknown[0] = 9;
    let mut huge = acc.clone();
    huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    for (m, p, want) in [
        (meta(1), acc[..acc.len() - 1].to_vec(), "malformed payload"), // truncated entry
        (meta(1), acc[..6].to_vec(), "malformed payload"),             // truncated section header
        (meta(2), acc.clone(), "malformed payload"), // section count != archetype_count
        (meta(1), unknown, "malformed payload"),     // unknown component type
        (meta(1), huge, "malformed payload"),        // count far past the end
    ] {
        assert_eq!(failed_check(AssetType::SCENE, &m, &p), want);
    }
    assert_eq!(
        failed_check(AssetType::SCENE, &meta(1)[..19], &acc),
        "metadata size"
    );
    assert_eq!(
        failed_check(AssetType::SCENE, &[&meta(1)[..], &[0; 5]].concat(), &acc),
        "metadata size"
    );
    // Design-style metadata with archetype descriptors.
    let desc = ArchetypeDesc {
        component_mask: 2,
        entity_count: 1,
        data_offset: 0,
    };
    let a = with(
        &mut b,
        AssetType::SCENE,
        &[&meta(1)[..], &desc.to_bytes()[..]].concat(),
        &acc,
    );
    assert_eq!(SceneView::from_asset(&a).unwrap().archetypes, vec![desc]);
    let mut bad_off = SceneMetadata {
        archetype_count: 1,
        ..Default::default()
    };
    bad_off.string_table_offset = 21;
    assert_eq!(
        failed_check(AssetType::SCENE, &bad_off.to_bytes(), &acc),
        "bad metadata"
    );
}

#[test]
fn prefab_rejections() {
    let mut b = Vec::new();
    let mut p = 1u32.to_le_bytes().to_vec();
    p.extend(3u32.to_le_bytes());
    p.extend(b"Box");
    p.extend(1u32.to_le_bytes()); // one component
    p.extend(15u32.to_le_bytes());
    p.extend(12u32.to_le_bytes());
    p.extend([0u8; 12]);
    p.extend(1u32.to_le_bytes()); // one child
    p.extend(7u32.to_le_bytes());
    let a = with(&mut b, AssetType::PREFAB, &[], &p);
    let v = PrefabView::from_asset(&a).unwrap();
    let e = v.entities().next().unwrap();
    assert_eq!(
        (e.name_str(), e.components.len(), e.children.as_slice()),
        (Some("Box"), 1, &[7u32][..])
    );
    for cut in [0, 3, 4, 10, 20, p.len() - 1] {
        assert_eq!(
            failed_check(AssetType::PREFAB, &[], &p[..cut]),
            "malformed payload",
            "cut {cut}"
        );
    }
    let mut trailing = p.clone();
    trailing.push(0);
    assert_eq!(
        failed_check(AssetType::PREFAB, &[], &trailing),
        "malformed payload"
    );
    let mut many = p.clone();
    many[..4].copy_from_slice(&u32::MAX.to_le_bytes()); // claims 4 billion entities
    assert_eq!(
        failed_check(AssetType::PREFAB, &[], &many),
        "malformed payload"
    );
    assert_eq!(failed_check(AssetType::PREFAB, &[1], &p), "metadata size");
}
