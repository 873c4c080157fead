//! Real files nobody here wrote (`../shared/realworld/`, see its SOURCES.md) that were refused or
//! misread before issue 43: each test is named after the item it checks.

use std::path::{Path, PathBuf};

use caf::animation::{AnimationView, ChannelEntry};
use caf::audio::AudioView;
use caf::Asset;
use caf_import::{convert, AssetKind, ImportError, Settings};
use serde_json::json;

/// `../shared/realworld/REL`, or `None` (the test skips) unless the golden data is required.
fn realworld(rel: &str) -> Option<PathBuf> {
    let path = voxcaf_golden::root().join("../realworld").join(rel);
    if path.exists() {
        Some(path)
    } else if voxcaf_golden::required() {
        panic!("{} not found", path.display());
    } else {
        eprintln!("note: {} not found; skipping", path.display());
        None
    }
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// 16-bit little-endian samples.
fn pcm16(bytes: &[u8]) -> Vec<i16> {
    bytes
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

/// minimp3's `l3-nonstandard-id3v2` vector: a 1,846-byte ID3v2 tag, then one Layer III frame
/// (48 kHz mono). It must decode to the reference PCM beside it, and so must the same file
/// with an ID3v1 tag appended.
#[test]
fn an_mp3_with_an_id3v2_tag_followed_by_one_frame_imports() {
    let (Some(mp3), Some(reference)) = (
        realworld("corpus/audio/mp3/minimp3-l3-nonstandard-id3v2.mp3"),
        realworld("corpus/audio/mp3/ref/minimp3-l3-nonstandard-id3v2.pcm"),
    ) else {
        return;
    };
    let reference = pcm16(&read(&reference));
    let mut with_v1 = read(&mp3);
    let mut v1 = b"TAGtitle".to_vec();
    v1.resize(128, 0);
    with_v1.extend_from_slice(&v1);
    for bytes in [read(&mp3), with_v1] {
        let c = convert(&bytes, &mp3, &Settings::default()).unwrap();
        let bytes = c.to_caf_bytes();
        let asset = Asset::parse(&bytes).unwrap();
        let v = AudioView::from_asset(&asset).unwrap();
        assert_eq!((v.meta.sample_rate, v.meta.channels), (48000, 1));
        let pcm = pcm16(v.data);
        assert_eq!(pcm.len(), 1152);
        assert_eq!(pcm.len(), reference.len());
        let worst = pcm
            .iter()
            .zip(&reference)
            .map(|(&a, &b)| (i32::from(a) - i32::from(b)).abs())
            .max()
            .unwrap();
        assert!(worst <= 1, "differs from the reference by {worst}");
    }
}

/// tinyobjloader's test models whose faces name normals (`f 1//1 ...`) while their `vn` lines
/// are commented out or absent: the normals are generated, with a warning that names the first
/// such corner's line, instead of refusing the file.
#[test]
fn obj_faces_naming_undefined_normals_import_with_generated_normals_and_a_warning() {
    for (rel, line, triangles) in [
        ("tinyobj-smoothing-group-two-squares.obj", 21, 3),
        ("tinyobj-catmark_torus_creases0.obj", 62, 64),
    ] {
        let Some(path) = realworld(&format!("corpus/mesh/obj/{rel}")) else {
            return;
        };
        let bytes = read(&path);
        let m = caf_import::mesh::obj_default(&bytes).unwrap();
        assert_eq!(m.indices.len(), 3 * triangles, "{rel}");
        assert_eq!(m.warnings.len(), 1, "{rel}: {:?}", m.warnings);
        let needle = format!("first at line {line}: normal index 1 with 0 defined");
        assert!(m.warnings[0].contains(&needle), "{rel}: {}", m.warnings[0]);
        for v in &m.vertices {
            let len = (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]).sqrt();
            assert!((len - 1.0).abs() < 1e-4, "{rel}: normal {:?}", &v[3..6]);
        }
        if triangles == 3 {
            // The first square lies in z = 0, wound counter-clockwise seen from +z.
            let corner = m.vertices.iter().find(|v| v[..3] == [0.0, 2.0, 0.0]);
            let n = &corner.unwrap()[3..6];
            assert!(n[2] > 0.999, "{n:?}");
        }
        convert(&bytes, &path, &Settings::default()).unwrap();
    }
}

/// AnimatedMorphCube with a translation channel added next to its morph-weights channel (same
/// key times, the node rising by 0.01 per key), as a GLB.
fn morph_cube_with_a_translation(cube: &[u8]) -> Vec<u8> {
    let glb = gltf::Glb::from_slice(cube).unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(&glb.json).unwrap();
    let mut bin = glb.bin.unwrap().into_owned();
    let input = json["animations"][0]["samplers"][0]["input"].clone();
    let keys = json["accessors"][input.as_u64().unwrap() as usize]["count"]
        .as_u64()
        .unwrap();
    bin.resize(bin.len().next_multiple_of(4), 0);
    let offset = bin.len();
    for k in 0..keys {
        for v in [0.0, k as f32 * 0.01, 0.0f32] {
            bin.extend_from_slice(&v.to_le_bytes());
        }
    }
    let push = |j: &mut serde_json::Value, key: &str, item: serde_json::Value| {
        let list = j[key].as_array_mut().unwrap();
        list.push(item);
        list.len() - 1
    };
    let view = push(
        &mut json,
        "bufferViews",
        json!({"buffer": 0, "byteOffset": offset, "byteLength": bin.len() - offset}),
    );
    let output = push(
        &mut json,
        "accessors",
        json!({"bufferView": view, "componentType": 5126, "count": keys, "type": "VEC3"}),
    );
    let anim = &mut json["animations"][0];
    let sampler = push(
        anim,
        "samplers",
        json!({"input": input, "output": output, "interpolation": "LINEAR"}),
    );
    push(
        anim,
        "channels",
        json!({"sampler": sampler, "target": {"node": 0, "path": "translation"}}),
    );
    json["buffers"][0]["byteLength"] = json!(bin.len());
    voxcaf_samples::glb(&json, &bin)
}

/// Khronos AnimatedMorphCube and three.js' Parrot animate morph target weights (one output
/// value per key and target: 254 values for 127 keys is right, not malformed). The weights are
/// left out with a warning; a file whose animations hold nothing else is refused as empty,
/// saying so, and still imports as a mesh.
#[test]
fn gltf_morph_target_animations_import_with_the_weights_left_out_and_a_warning() {
    let (Some(cube), Some(parrot)) = (
        realworld("corpus2/gltf/AnimatedMorphCube.glb"),
        realworld("corpus/mesh/gltf/Parrot.glb"),
    ) else {
        return;
    };
    let anim = Settings {
        kind: Some(AssetKind::Animation),
        ..Settings::default()
    };
    for path in [&cube, &parrot] {
        let bytes = read(path);
        match convert(&bytes, path, &anim) {
            Err(e @ ImportError::Empty { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains("only morph target weights"), "{msg}");
            }
            other => panic!("{}: {:?}", path.display(), other.map(|c| c.summary)),
        }
        convert(&bytes, path, &Settings::default()).unwrap();
        let mesh = caf_import::mesh::gltf_default(&bytes, None, Default::default()).unwrap();
        assert_eq!(mesh.warnings.len(), 1, "{:?}", mesh.warnings);
        assert!(mesh.warnings[0].contains("morph target(s) left out"));
    }
    let glb = morph_cube_with_a_translation(&read(&cube));
    let c = convert(&glb, Path::new("cube.glb"), &anim).unwrap();
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    assert!(
        c.warnings[0].contains("channel 0: morph target weights of node 0 are not stored"),
        "{}",
        c.warnings[0]
    );
    let file = c.to_caf_bytes();
    let asset = Asset::parse(&file).unwrap();
    let view = AnimationView::from_asset(&asset).unwrap();
    assert_eq!(view.clip_name(0), Some("Square"));
    let channels = view.channels(0);
    assert_eq!(channels.len(), 1);
    assert_eq!(
        (channels[0].node, channels[0].path),
        (0, ChannelEntry::TRANSLATION)
    );
}

/// The entry points of a stored shader module, with their execution models.
fn entry_names(spirv: &[u8]) -> Vec<String> {
    let words: Vec<u32> = spirv
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let module = rspirv::dr::load_words(words).unwrap();
    module
        .entry_points
        .iter()
        .map(|ep| match &ep.operands[2] {
            rspirv::dr::Operand::LiteralString(s) => s.clone(),
            other => panic!("{other:?}"),
        })
        .collect()
}

/// wgpu's shadow example: two vertex (`vs_bake`, `vs_main`) and two fragment entry points.
/// Without `entry`, a stage with several gives one asset per entry point, each module holding
/// that entry point alone (no stage: all four); `entry` chooses one; a stage with one entry
/// point stays one asset as before.
#[test]
fn a_wgsl_module_gives_one_asset_per_entry_point_or_the_entry_asked() {
    let Some(path) = realworld("corpus/shader/wgsl/wgpu-shadow.wgsl") else {
        return;
    };
    let bytes = read(&path);
    let with_stage = |stage| Settings {
        stage,
        ..Settings::default()
    };
    let split = |stage, entry| {
        caf_import::shader::convert_entries(&bytes, &path, &with_stage(stage), entry).unwrap()
    };
    let listed = |assets: Vec<caf_import::shader::EntryAsset>| -> Vec<(String, Vec<String>)> {
        assets
            .into_iter()
            .map(|a| {
                caf_import::shader::validate_spirv(&a.converted.payload).unwrap();
                (a.entry, entry_names(&a.converted.payload))
            })
            .collect()
    };
    let one = |name: &str| (name.to_string(), vec![name.to_string()]);
    let vertex = listed(split(Some(caf_import::Stage::Vertex), None).unwrap());
    assert_eq!(vertex, [one("vs_bake"), one("vs_main")]);
    let all = listed(split(None, None).unwrap());
    let names: Vec<&str> = all.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(
        names,
        ["vs_bake", "vs_main", "fs_main", "fs_main_without_storage"]
    );
    assert!(all.iter().all(|(e, eps)| eps == std::slice::from_ref(e)));
    let chosen = listed(split(None, Some("fs_main")).unwrap());
    assert_eq!(chosen, [one("fs_main")]);
    // A name the module lacks, or of another stage than the one asked.
    let e = caf_import::shader::convert_entries(&bytes, &path, &Settings::default(), Some("nope"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no entry point \"nope\""), "{e}");
    let e = caf_import::shader::convert_entries(
        &bytes,
        &path,
        &with_stage(Some(caf_import::Stage::Vertex)),
        Some("fs_main"),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("is a fragment entry point, not vertex"), "{e}");
    // The library's single-asset conversion still refuses a stage with several entry points.
    let e = convert(&bytes, &path, &with_stage(Some(caf_import::Stage::Vertex)))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("2 vertex entry points (vs_bake, vs_main)"),
        "{e}"
    );
}
