//! The `inspect` example, run as a user runs it (cargo builds examples with the tests): one JSON
//! line for a world (the chunk and quad counts of vwr-mesh, greedy with AO, as `voxcaf world
//! mesh --greedy --ao --json` prints them), a texture, a mesh and a pack member; an error and
//! exit status 1 for a broken file.

use std::path::{Path, PathBuf};
use std::process::Command;

use vwr_blocks::Registry;
use vwr_mesh::{mesh_world, MeshOptions};

fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(Path::parent).unwrap();
    let path = profile.join("examples").join("inspect");
    assert!(path.is_file(), "{} not built", path.display());
    path
}

fn run(file: &Path) -> (Option<i32>, serde_json::Value, String) {
    let out = Command::new(example()).arg(file).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(text.trim()).unwrap_or(serde_json::Value::Null);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    (out.status.code(), json, err)
}

#[test]
fn inspect_prints_one_line_per_file_kind() {
    let Some(golden) = voxcaf_golden::with_worlds() else {
        return;
    };
    let world = golden.join("vwr/worlds3d/world999.vwr");
    let (code, j, err) = run(&world);
    assert_eq!(code, Some(0), "{err}");
    let w = vwr::World::from_bytes(&std::fs::read(&world).unwrap()).unwrap();
    let opts = MeshOptions {
        greedy: true,
        ao: true,
        watertight: false,
    };
    let m = mesh_world(&w, &Registry::default(), opts);
    assert_eq!(j["chunks"], m.chunks.len());
    assert_eq!(
        j["quads"],
        m.chunks.iter().map(|c| c.quad_count()).sum::<usize>()
    );
    assert_eq!(j["objects"], w.move_objects().unwrap().len());

    let Some(caf_root) = voxcaf_golden::caf() else {
        return;
    };
    let tex = caf_root.join("texture/raw_257x129_c4_mips.caf");
    let (code, j, err) = run(&tex);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        (&j["type"], &j["width"], &j["height"], &j["mips"]),
        (&"texture".into(), &257.into(), &129.into(), &9.into())
    );
    let mesh = caf_root.join("mesh/gltf_triangle.caf");
    let (code, j, err) = run(&mesh);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!((&j["type"], &j["vertices"]), (&"mesh".into(), &3.into()));

    // An animation built from glTF.
    let dir = tempfile::tempdir().unwrap();
    let glb = voxcaf_samples::animated_glb(&voxcaf_samples::AnimatedOptions::default());
    let settings = caf_import::Settings {
        kind: Some(caf_import::AssetKind::Animation),
        ..caf_import::Settings::default()
    };
    let anim = caf_import::convert(&glb, Path::new("hero.glb"), &settings).unwrap();
    let bytes = anim.to_caf_bytes();
    std::fs::write(dir.path().join("hero.caf"), &bytes).unwrap();
    let view =
        caf::animation::AnimationView::from_asset(&caf::Asset::parse(&bytes).unwrap()).unwrap();
    let (code, j, err) = run(&dir.path().join("hero.caf"));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        (&j["type"], &j["clips"]),
        (&"animation".into(), &view.clip_count().into())
    );

    // A pack member: PACK.cafpack/MEMBER.
    let pack = dir.path().join("game.cafpack");
    let items = vec![("tex/a.caf".to_string(), std::fs::read(&tex).unwrap())];
    caf::pack::write_pack_file(&pack, items).unwrap();
    let (code, j, err) = run(&pack.join("tex/a.caf"));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(j["width"], 257);
    let (code, _, err) = run(&pack.join("tex/b.caf"));
    assert_ne!(code, Some(0));
    assert!(err.contains("no such member"), "{err}");

    let (code, j, err) = run(&caf_root.join("invalid/bad_magic.caf"));
    assert_eq!((code, j), (Some(1), serde_json::Value::Null));
    assert!(err.contains("bad magic at offset 0"), "{err}");
}
