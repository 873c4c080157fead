//! `batch::build` end to end on a generated tree.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use caf_import::batch::{build, BuildEvent, BuildOptions, Manifest, MANIFEST_NAME};
use caf_import::AssetKind;
use voxcaf_samples as samples;

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

fn make_tree(root: &Path) {
    write(root, "textures/hero.png", &samples::gradient_png(32, 16));
    write(root, "textures/normal.png", &samples::gradient_png(8, 8));
    write(
        root,
        "textures/normal.png.toml",
        b"srgb = false\nmips = true\n",
    );
    write(root, "sounds/jump.wav", &samples::wav_i16(22050, 1, 1000));
    write(root, "sounds/music.wav", &samples::wav_i16(44100, 2, 2000));
    write(root, "meshes/cube.obj", samples::CUBE_OBJ.as_bytes());
    write(root, "meshes/tri.glb", &samples::triangle_glb());
    write(
        root,
        "shaders/sprite.frag",
        samples::FRAGMENT_GLSL.as_bytes(),
    );
    write(root, "shaders/sprite.vert", samples::VERTEX_GLSL.as_bytes());
    write(root, "shaders/blur.wgsl", samples::COMPUTE_WGSL.as_bytes());
    write(
        root,
        "broken/bad.png",
        b"\x89PNG\r\n\x1a\nthis is not a png",
    );
    write(root, "README.txt", b"not an asset");
    write(root, ".hidden/skip.png", &samples::gradient_png(2, 2));
}

/// Every file under `dir` (relative path -> bytes).
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

fn opts(jobs: usize) -> BuildOptions {
    BuildOptions {
        jobs,
        ..BuildOptions::default()
    }
}

/// The sources the build failed on, in the manifest's order.
fn failed_sources(m: &Manifest) -> Vec<&str> {
    m.failures.iter().map(|f| f.source.as_str()).collect()
}

#[test]
fn build_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let out = tmp.path().join("out");
    make_tree(&src);

    let events = Mutex::new(Vec::new());
    let on_event = |e: &BuildEvent<'_>| {
        let line = match e {
            BuildEvent::Started { total } => format!("start {total}"),
            BuildEvent::Converted { entries } => format!("converted {}", entries[0].source),
            BuildEvent::Skipped { entries } => format!("skipped {}", entries[0].source),
            BuildEvent::Failed { failure } => format!("failed {}", failure.source),
        };
        events.lock().unwrap().push(line);
    };
    let r1 = build(&src, &out, &opts(2), &on_event).unwrap();
    assert!(!r1.ok());
    assert_eq!(r1.converted, 9);
    assert_eq!(r1.manifest.failures.len(), 1);
    assert_eq!(r1.manifest.failures[0].source, "broken/bad.png");
    assert!(
        r1.manifest.failures[0].error.contains("PNG")
            || r1.manifest.failures[0].error.contains("image")
    );
    let ev = events.lock().unwrap().clone();
    assert_eq!(ev[0], "start 10");
    assert!(ev.contains(&"failed broken/bad.png".to_string()));

    // Manifest contents.
    let manifest = Manifest::read(&out.join(MANIFEST_NAME)).unwrap();
    assert_eq!(manifest, r1.manifest);
    let sources: Vec<&str> = manifest.assets.iter().map(|e| e.source.as_str()).collect();
    assert_eq!(
        sources,
        [
            "meshes/cube.obj",
            "meshes/tri.glb",
            "shaders/blur.wgsl",
            "shaders/sprite.frag",
            "shaders/sprite.vert",
            "sounds/jump.wav",
            "sounds/music.wav",
            "textures/hero.png",
            "textures/normal.png",
        ]
    );
    // Regression: `file_crc32` was the CRC of the whole file, one constant for every asset.
    let crcs: std::collections::BTreeSet<u32> =
        manifest.assets.iter().map(|e| e.file_crc32).collect();
    assert_eq!(crcs.len(), manifest.assets.len());
    for e in &manifest.assets {
        let bytes = std::fs::read(out.join(&e.output)).unwrap();
        let asset = caf::Asset::parse(&bytes).unwrap();
        assert_eq!(e.file_size, bytes.len() as u64);
        // The CRC of the bytes before the footer, which is the footer itself (a whole-file CRC
        // would be one constant for every asset).
        let (content, footer) = bytes.split_at(bytes.len() - caf::FOOTER_SIZE);
        assert_eq!(e.file_crc32, caf::crc32(content));
        assert_eq!(e.file_crc32.to_le_bytes(), footer);
        assert_eq!(e.payload_crc32, asset.header.crc32);
        assert_eq!(e.payload_crc32, caf::crc32(asset.payload));
        assert_eq!(e.payload_size, asset.payload.len() as u64);
        assert_eq!(e.metadata_size, asset.metadata.len() as u64);
        assert_eq!(
            e.source_size,
            std::fs::metadata(src.join(&e.source)).unwrap().len()
        );
        assert_eq!(asset.header.asset_type, e.kind.asset_type());
        assert_eq!(e.source_hash.len(), 64);
        assert_eq!(e.settings_hash.len(), 64);
        assert_eq!(e.output, format!("{}.caf", e.id));
    }
    let by = |s: &str| manifest.assets.iter().find(|e| e.source == s).unwrap();
    assert_eq!(by("textures/hero.png").id, "textures/hero");
    assert_eq!(by("textures/hero.png").kind, AssetKind::Texture);
    assert_eq!(by("meshes/tri.glb").kind, AssetKind::Mesh);
    assert_eq!(by("shaders/sprite.vert").output, "shaders/sprite.vert.caf");
    // The sidecar is honoured and recorded.
    let normal = by("textures/normal.png");
    assert_eq!(normal.sidecar.as_deref(), Some("textures/normal.png.toml"));
    assert_eq!(normal.settings.srgb, Some(false));
    assert!(normal.settings.mips);
    let nb = std::fs::read(out.join(&normal.output)).unwrap();
    let na = caf::Asset::parse(&nb).unwrap();
    assert_eq!(na.header.flags, caf::CafFlags::MIPCHAIN);
    assert_eq!(
        caf::texture::TextureView::from_asset(&na)
            .unwrap()
            .level_count(),
        4
    );
    let hb = std::fs::read(out.join("textures/hero.caf")).unwrap();
    assert_eq!(
        caf::Asset::parse(&hb).unwrap().header.flags,
        caf::CafFlags::SRGB
    );
    assert_ne!(by("textures/hero.png").settings_hash, normal.settings_hash);
    assert!(!out.join("README.caf").exists() && !out.join(".hidden").exists());
    let first = snapshot(&out);

    // Second run: everything up to date, identical bytes (manifest included).
    let r2 = build(&src, &out, &opts(2), &|_| {}).unwrap();
    assert_eq!((r2.converted, r2.skipped), (0, 9));
    assert_eq!(snapshot(&out), first);

    // One source changes: only it is rebuilt.
    write(&src, "textures/hero.png", &samples::gradient_png(16, 16));
    let r3 = build(&src, &out, &opts(2), &|_| {}).unwrap();
    assert_eq!((r3.converted, r3.skipped), (1, 8));
    let hero = r3
        .manifest
        .assets
        .iter()
        .find(|e| e.source == "textures/hero.png")
        .unwrap();
    assert_ne!(hero.source_hash, by("textures/hero.png").source_hash);
    // Same bytes, different mtime: nothing to do (content hash, not timestamps).
    write(&src, "sounds/jump.wav", &samples::wav_i16(22050, 1, 1000));
    let r4 = build(&src, &out, &opts(1), &|_| {}).unwrap();
    assert_eq!((r4.converted, r4.skipped), (0, 9));
    // A sidecar change rebuilds its asset.
    write(&src, "textures/normal.png.toml", b"srgb = false\n");
    let r5 = build(&src, &out, &opts(1), &|_| {}).unwrap();
    assert_eq!((r5.converted, r5.skipped), (1, 8));
    // A damaged output is rebuilt.
    std::fs::write(out.join("meshes/cube.caf"), b"garbage").unwrap();
    let r6 = build(&src, &out, &opts(1), &|_| {}).unwrap();
    assert_eq!((r6.converted, r6.skipped), (1, 8));
    // Fixing the broken file makes the build succeed; removing a source removes its output.
    std::fs::remove_file(src.join("broken/bad.png")).unwrap();
    std::fs::remove_file(src.join("sounds/music.wav")).unwrap();
    let r7 = build(&src, &out, &opts(0), &|_| {}).unwrap();
    assert!(r7.ok());
    assert_eq!(r7.removed, 1);
    assert!(!out.join("sounds/music.caf").exists());
    assert_eq!(r7.manifest.assets.len(), 8);
}

#[test]
fn output_is_deterministic_across_runs_and_job_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    make_tree(&src);
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    build(&src, &a, &opts(1), &|_| {}).unwrap();
    build(&src, &b, &opts(4), &|_| {}).unwrap();
    let (sa, sb) = (snapshot(&a), snapshot(&b));
    assert_eq!(sa.keys().collect::<Vec<_>>(), sb.keys().collect::<Vec<_>>());
    assert!(sa == sb, "outputs differ between runs");
    assert!(sa.contains_key(MANIFEST_NAME));
}

#[test]
fn colliding_outputs_and_bad_sidecars_fail_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let out = src.join("out"); // inside the source tree: must not be walked
    write(&src, "hero.png", &samples::gradient_png(4, 4));
    write(&src, "hero.wav", &samples::wav_i16(8000, 1, 100));
    write(&src, "cube.obj", samples::CUBE_OBJ.as_bytes());
    write(&src, "cube.obj.toml", b"mipz = true\n");
    write(&src, "data.bin", b"\x01\x02");
    write(&src, "data.bin.toml", b"type = \"texture\"\n");
    let r = build(&src, &out, &opts(2), &|_| {}).unwrap();
    let failed = failed_sources(&r.manifest);
    assert_eq!(failed, ["cube.obj", "data.bin", "hero.wav"]);
    assert!(r.manifest.failures[0].error.contains("mipz"));
    assert!(r.manifest.failures[2].error.contains("hero.caf"));
    assert_eq!(r.manifest.assets.len(), 1);
    // Building again does not pick up its own outputs.
    let r2 = build(&src, &out, &opts(2), &|_| {}).unwrap();
    assert_eq!(r2.manifest.assets.len() + r2.manifest.failures.len(), 4);
}

/// Nothing is skipped silently: every file or folder that is not a source is listed with its
/// reason in the report's manifest (and so in `manifest.json`), and a file whose sidecar is
/// broken fails even when its extension names no asset kind.
#[test]
fn every_file_left_alone_is_listed_with_its_reason() {
    use caf_import::batch::SkipReason;
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let out = src.join("build"); // inside the source tree
    make_tree(&src); // README.txt, .hidden/skip.png, broken/bad.png among the sources
    write(&src, "notes", b"no extension");
    write(&src, "gone.png.toml", b"mips = true\n");
    write(&src, "data.bin", b"\x01");
    write(&src, "data.bin.toml", b"not toml at all = = =\n");
    write(&src, ".env", b"SECRET=1\n");
    let r = build(&src, &out, &opts(2), &|_| {}).unwrap();
    let listed: Vec<(&str, SkipReason)> = r
        .manifest
        .ignored
        .iter()
        .map(|i| (i.path.as_str(), i.reason))
        .collect();
    assert_eq!(
        listed,
        [
            (".env", SkipReason::Hidden),
            (".hidden", SkipReason::Hidden),
            ("README.txt", SkipReason::UnknownExtension),
            ("build", SkipReason::OutputFolder),
            ("gone.png.toml", SkipReason::OrphanSidecar),
            ("notes", SkipReason::UnknownExtension),
        ]
    );
    let readme = &r.manifest.ignored[2];
    assert!(readme.message.contains("\"txt\""), "{}", readme.message);
    // The sidecar of a used source (textures/normal.png.toml) is not listed; the broken
    // sidecar of data.bin is a failure naming it, like the broken PNG.
    let failed = failed_sources(&r.manifest);
    assert_eq!(failed, ["broken/bad.png", "data.bin"]);
    assert!(r.manifest.failures[1].error.contains("data.bin.toml"));
    // The manifest on disk carries the list.
    let on_disk = Manifest::read(&out.join(MANIFEST_NAME)).unwrap();
    assert_eq!(on_disk.ignored, r.manifest.ignored);
}
