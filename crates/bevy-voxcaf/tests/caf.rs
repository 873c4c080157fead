//! `.caf` assets through the plugin, headless: every golden texture and mesh loads as the
//! library's own views read it (or is refused with their message), textures built in every
//! GPU format the pipeline writes come out in the matching GPU format with all their levels,
//! compressed payloads are decoded, encrypted ones refused, and meshes keep their attributes,
//! sub-meshes and skin.

use std::path::Path;
use std::time::Duration;

use bevy::asset::{Assets, Handle};
use bevy::image::Image;
use bevy::mesh::skinning::SkinnedMeshInverseBindposes;
use bevy::mesh::{Mesh, VertexAttributeValues};
use bevy_voxcaf::{headless_app, load_now, CafAsset, LoadFailure};
use caf::mesh::MeshView;
use caf::texture::TextureView;
use caf::LoadedAsset;
use caf_import::{GpuFormat, Settings};
use wgpu_types::{AstcBlock, AstcChannel, TextureFormat};

const WAIT: Duration = Duration::from_secs(60);

fn positions(m: &Mesh) -> &[[f32; 3]] {
    match m.attribute(Mesh::ATTRIBUTE_POSITION) {
        Some(VertexAttributeValues::Float32x3(p)) => p,
        other => panic!("positions: {other:?}"),
    }
}

fn indices(m: &Mesh) -> Vec<u32> {
    m.indices()
        .map(|i| i.iter().map(|i| i as u32).collect())
        .unwrap_or_default()
}

#[test]
fn golden_textures_and_meshes_load_as_the_library_reads_them() {
    let Some(root) = voxcaf_golden::caf() else {
        return;
    };
    let mut app = headless_app(&root);
    let (mut images, mut meshes, mut refused) = (0, 0, 0);
    for dir in ["texture", "mesh", "generic", "invalid"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .flatten()
            .collect();
        files.sort_by_key(|e| e.file_name());
        for e in files {
            let name = format!("{dir}/{}", e.file_name().to_string_lossy());
            if !name.ends_with(".caf") {
                continue;
            }
            let bytes = std::fs::read(e.path()).unwrap();
            let lib = LoadedAsset::from_vec(bytes.clone());
            let ty = lib.as_ref().ok().map(|l| l.header().asset_type);
            if ty == Some(caf::AssetType::TEXTURE) {
                let lib = lib.unwrap();
                let view = TextureView::from_asset(&lib.asset());
                match (view, load_now::<Image>(&mut app, &name, WAIT)) {
                    (Ok(v), Ok(h)) => {
                        let img = app.world().resource::<Assets<Image>>().get(&h).unwrap();
                        assert_eq!(img.width(), v.meta.width, "{name}");
                        assert_eq!(img.height(), v.meta.height, "{name}");
                        let d = &img.texture_descriptor;
                        assert_eq!(d.mip_level_count as usize, v.level_count(), "{name}");
                        if v.channels != 3 {
                            assert_eq!(
                                img.data.as_deref(),
                                Some(&v.levels().concat()[..]),
                                "{name}"
                            );
                        } else {
                            let n = v.levels().iter().map(|l| l.len() / 3 * 4).sum::<usize>();
                            assert_eq!(img.data.as_ref().map(Vec::len), Some(n), "{name}");
                        }
                        images += 1;
                    }
                    (Err(e), Err(LoadFailure::Failed { message, .. })) => {
                        assert_eq!(message, refusal(&bytes, e), "{name}");
                        refused += 1;
                    }
                    (v, got) => panic!("{name}: library {:?}, plugin {got:?}", v.map(|_| ())),
                }
            } else if ty == Some(caf::AssetType::MESH) {
                let lib = lib.unwrap();
                let view = MeshView::from_asset(&lib.asset());
                match (view, load_now::<Mesh>(&mut app, &name, WAIT)) {
                    (Ok(v), Ok(h)) => {
                        let m = app.world().resource::<Assets<Mesh>>().get(&h).unwrap();
                        let want: Vec<[f32; 3]> = v.vertices.iter().map(|v| v.position).collect();
                        assert_eq!(positions(m), &want[..], "{name}");
                        assert_eq!(indices(m), &v.indices[..], "{name}");
                        meshes += 1;
                    }
                    (Err(e), Err(LoadFailure::Failed { message, .. })) => {
                        assert_eq!(message, refusal(&bytes, e), "{name}");
                        refused += 1;
                    }
                    (v, got) => panic!("{name}: library {:?}, plugin {got:?}", v.map(|_| ())),
                }
            } else {
                // Anything else asked for as an image: refused, with the library's reason
                // when the library refuses it too.
                let got = load_now::<Image>(&mut app, &name, WAIT);
                let Err(LoadFailure::Failed { message, .. }) = got else {
                    panic!("{name}: loaded as an image");
                };
                match lib {
                    Err(e) => assert_eq!(message, e.to_string(), "{name}"),
                    Ok(l) => assert!(
                        message.contains(&format!("{} asset where", l.header().asset_type)),
                        "{name}: {message}"
                    ),
                }
                refused += 1;
            }
        }
    }
    eprintln!("golden caf: {images} images, {meshes} meshes, {refused} refused");
    assert!(
        images >= 10 && meshes >= 3 && refused >= 40,
        "{images} {meshes} {refused}"
    );
}

/// What the plugin says of an asset the library's view refuses with `e`: a payload flagged as
/// encoded is decoded first, so a flag on a plain payload is the decoder's refusal (an
/// encrypted one is refused before: the plugin has no key).
fn refusal(bytes: &[u8], e: caf::CafError) -> String {
    let l = LoadedAsset::from_bytes(bytes).unwrap();
    if l.header().flags.contains(caf::CafFlags::ENCRYPTED) {
        return bevy_voxcaf::CafLoadError::Encrypted.to_string();
    }
    if caf::encoded::is_encoded(l.header().flags) {
        let opts = caf::encoded::DecodeOptions::default();
        if let Err(d) = caf::encoded::decode_asset(&l.asset(), &opts) {
            return d.to_string();
        }
    }
    e.to_string()
}

/// `bytes` written as `name` in `dir`.
fn put(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

fn texture(format: GpuFormat, srgb: bool, mips: bool, size: u32) -> caf_import::Converted {
    let png = voxcaf_samples::gradient_png(size, size);
    let settings = Settings {
        gpu_format: Some(format),
        srgb: Some(srgb),
        mips,
        ..Settings::default()
    };
    caf_import::convert(&png, Path::new("t.png"), &settings).unwrap()
}

#[test]
fn built_textures_keep_their_gpu_format_levels_and_srgb() {
    use TextureFormat as T;
    let dir = tempfile::tempdir().unwrap();
    let astc = |channel| T::Astc {
        block: AstcBlock::B4x4,
        channel,
    };
    let cases = [
        (GpuFormat::Rgba8, false, T::Rgba8Unorm),
        (GpuFormat::Rgba8, true, T::Rgba8UnormSrgb),
        (GpuFormat::Bc1, true, T::Bc1RgbaUnormSrgb),
        (GpuFormat::Bc3, false, T::Bc3RgbaUnorm),
        (GpuFormat::Bc5, false, T::Bc5RgUnorm),
        (GpuFormat::Bc7, true, T::Bc7RgbaUnormSrgb),
        (GpuFormat::Bc7, false, T::Bc7RgbaUnorm),
        (GpuFormat::Astc4x4, true, astc(AstcChannel::UnormSrgb)),
        (GpuFormat::Astc4x4, false, astc(AstcChannel::Unorm)),
    ];
    let mut files = Vec::new();
    for (i, (format, srgb, _)) in cases.iter().enumerate() {
        let c = texture(*format, *srgb, true, 64);
        let name = format!("t{i}.caf");
        put(dir.path(), &name, &c.to_caf_bytes());
        // The same texture compressed (zstd blocks): decoded on load.
        let enc = caf::encoded::Encoding::default();
        put(
            dir.path(),
            &format!("z{i}.caf"),
            &c.to_caf_bytes_encoded(&enc).unwrap(),
        );
        files.push((name, c));
    }
    let mut app = headless_app(dir.path());
    for (i, (_, _, want)) in cases.iter().enumerate() {
        let (name, c) = &files[i];
        let plain = c.to_caf_bytes();
        let lib = LoadedAsset::from_vec(plain).unwrap();
        let view = TextureView::from_asset(&lib.asset()).unwrap();
        for file in [name.clone(), format!("z{i}.caf")] {
            let h: Handle<Image> = load_now(&mut app, &file, WAIT).unwrap();
            let img = app.world().resource::<Assets<Image>>().get(&h).unwrap();
            assert_eq!(img.texture_descriptor.format, *want, "{file}");
            assert_eq!(img.texture_descriptor.mip_level_count, 7, "{file}");
            assert_eq!(
                img.data.as_deref(),
                Some(&view.levels().concat()[..]),
                "{file}"
            );
        }
    }
    // A block-compressed texture that is not whole blocks: refused before the GPU would.
    put(
        dir.path(),
        "odd.caf",
        &texture(GpuFormat::Bc7, true, false, 30).to_caf_bytes(),
    );
    let got = load_now::<Image>(&mut app, "odd.caf", WAIT);
    let Err(LoadFailure::Failed { message, .. }) = got else {
        panic!("a 30x30 BC7 texture loaded");
    };
    assert!(
        message.contains("30x30") && message.contains("whole 4x4 blocks"),
        "{message}"
    );
    // Encrypted: refused (the key stays with the game).
    let enc = caf::encoded::Encoding {
        key: Some(caf::encoded::Key::from_bytes([7; 32])),
        ..Default::default()
    };
    let c = &files[0].1;
    put(
        dir.path(),
        "secret.caf",
        &c.to_caf_bytes_encoded(&enc).unwrap(),
    );
    let got = load_now::<Image>(&mut app, "secret.caf", WAIT);
    let Err(LoadFailure::Failed { message, .. }) = got else {
        panic!("an encrypted texture loaded");
    };
    assert!(message.contains("encrypted"), "{message}");
}

#[test]
fn meshes_keep_sub_meshes_colours_and_skins() {
    let dir = tempfile::tempdir().unwrap();
    let two = caf_import::convert(
        &voxcaf_samples::two_cubes_glb(),
        Path::new("two.glb"),
        &Settings::default(),
    )
    .unwrap();
    put(dir.path(), "two.caf", &two.to_caf_bytes());
    let opts = voxcaf_samples::AnimatedOptions::default();
    let skinned = caf_import::convert(
        &voxcaf_samples::animated_glb(&opts),
        Path::new("walk.glb"),
        &Settings::default(),
    )
    .unwrap();
    put(dir.path(), "walk.caf", &skinned.to_caf_bytes());
    let mut app = headless_app(dir.path());

    let lib = LoadedAsset::from_vec(two.to_caf_bytes()).unwrap();
    let view = MeshView::from_asset(&lib.asset()).unwrap();
    let subs = view.sub_meshes();
    assert!(subs.len() >= 2, "{} sub-meshes", subs.len());
    let whole: Handle<Mesh> = load_now(&mut app, "two.caf", WAIT).unwrap();
    let mut index_total = 0;
    for (i, s) in subs.iter().enumerate() {
        let h: Handle<Mesh> = load_now(&mut app, &format!("two.caf#part/{i}"), WAIT).unwrap();
        let meshes = app.world().resource::<Assets<Mesh>>();
        let part = meshes.get(&h).unwrap();
        let ix = indices(part);
        assert_eq!(ix.len(), s.index_count as usize);
        // The part's triangles are the whole mesh's, vertex for vertex.
        let p = positions(part);
        let first = s.first_index as usize;
        for (k, i) in ix.iter().enumerate() {
            let orig = view.indices[first + k] as usize;
            assert_eq!(p[*i as usize], view.vertices[orig].position);
        }
        index_total += ix.len();
    }
    let meshes = app.world().resource::<Assets<Mesh>>();
    assert_eq!(indices(meshes.get(&whole).unwrap()).len(), index_total);
    let has_colors = view.colors.is_some();
    assert_eq!(
        meshes
            .get(&whole)
            .unwrap()
            .attribute(Mesh::ATTRIBUTE_COLOR)
            .is_some(),
        has_colors
    );

    // The whole file as a `CafAsset`: its type and its parts' handles.
    let any: Handle<CafAsset> = load_now(&mut app, "two.caf", WAIT).unwrap();
    let any = app
        .world()
        .resource::<Assets<CafAsset>>()
        .get(&any)
        .unwrap();
    assert_eq!(any.asset_type, caf::AssetType::MESH);
    assert_eq!(any.parts.len(), subs.len());
    assert!(any.mesh.is_some() && any.image.is_none() && any.skin.is_none());

    let lib = LoadedAsset::from_vec(skinned.to_caf_bytes()).unwrap();
    let view = MeshView::from_asset(&lib.asset()).unwrap();
    let skin = view.skin().expect("a skinned mesh");
    let h: Handle<Mesh> = load_now(&mut app, "walk.caf", WAIT).unwrap();
    let m = app.world().resource::<Assets<Mesh>>().get(&h).unwrap();
    let Some(VertexAttributeValues::Uint16x4(j)) = m.attribute(Mesh::ATTRIBUTE_JOINT_INDEX) else {
        panic!("no joints");
    };
    assert_eq!(&j[..], view.joints.as_deref().unwrap());
    assert!(m.attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT).is_some());
    let b: Handle<SkinnedMeshInverseBindposes> = load_now(&mut app, "walk.caf#skin", WAIT).unwrap();
    let binds = app
        .world()
        .resource::<Assets<SkinnedMeshInverseBindposes>>()
        .get(&b)
        .unwrap();
    assert_eq!(binds.len(), skin.joints.len());
    assert_eq!(binds[0].to_cols_array(), skin.joints[0].inverse_bind);
}
