//! Issue 17 (skins and Animation assets) from the command line: `asset convert --type
//! animation --anim-rate`, a skinned mesh, `asset info` describing both, a sidecar, refusals.

mod common;
use common::cli;

use caf_import::samples::{animated_glb, AnimatedOptions};

#[test]
fn animation_and_skin_convert_and_describe() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(
        d.join("hero.glb"),
        animated_glb(&AnimatedOptions::default()),
    )
    .unwrap();

    let (c, o, e) = cli(
        d,
        "asset convert hero.glb hero.anim.caf --type animation --anim-rate 60",
    );
    assert_eq!(c, 0, "{o}{e}");
    assert!(o.contains("animation 2 clips, 5 channels, 60 Hz"), "{o}");
    let (c, o, e) = cli(d, "asset info hero.anim.caf");
    assert_eq!(c, 0, "{e}");
    assert!(o.contains("2 clip(s) at 60 Hz"), "{o}");
    assert!(o.contains("\"wave\" 2.000 s, 121 frames"), "{o}");
    let (c, o, _) = cli(d, "asset info --json hero.anim.caf");
    assert_eq!(c, 0);
    let v: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(v["metadata"]["clip_count"], 2, "{o}");

    let (c, o, e) = cli(d, "asset convert hero.glb hero.caf");
    assert_eq!(c, 0, "{o}{e}");
    assert!(o.contains("skin of 2 joint(s)"), "{o}");
    let (c, o, _) = cli(d, "asset info hero.caf");
    assert_eq!(c, 0);
    assert!(o.contains("skin 2 joint(s)"), "{o}");

    // A rate out of range is refused (exit 1, the file named), nothing written.
    let (c, _, e) = cli(
        d,
        "asset convert hero.glb bad.caf --type animation --anim-rate 0",
    );
    assert_eq!(c, 1, "{e}");
    assert!(e.contains("animation rate 0 Hz"), "{e}");
    assert!(!d.join("bad.caf").exists());
    // An unknown type lists the known ones.
    let (c, _, e) = cli(d, "asset convert hero.glb x.caf --type anim");
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("animation"), "{e}");
}

#[test]
fn build_with_an_animation_sidecar() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    let glb = animated_glb(&AnimatedOptions::default());
    std::fs::write(src.join("hero.glb"), &glb).unwrap();
    std::fs::write(src.join("walk.glb"), &glb).unwrap();
    std::fs::write(
        src.join("walk.glb.toml"),
        "type = \"animation\"\nanim_rate = 24\n",
    )
    .unwrap();
    let (c, o, e) = cli(t.path(), "asset build src out");
    assert_eq!(c, 0, "{o}{e}");
    let (c, o, _) = cli(t.path(), "asset info out/walk.caf");
    assert_eq!(c, 0);
    assert!(o.contains("2 clip(s) at 24 Hz"), "{o}");
    let (c, o, _) = cli(t.path(), "asset info out/hero.caf");
    assert_eq!(c, 0);
    assert!(o.contains("skin 2 joint(s)"), "{o}");
}

#[test]
fn skinned_mesh_and_animation_export_to_gltf() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(
        d.join("hero.glb"),
        animated_glb(&AnimatedOptions::default()),
    )
    .unwrap();
    let (c, o, e) = cli(d, "asset convert hero.glb hero.caf");
    assert_eq!(c, 0, "{o}{e}");
    let (c, o, e) = cli(d, "asset convert hero.glb hero.anim.caf --type animation");
    assert_eq!(c, 0, "{o}{e}");

    // Mesh with its skin and the clips on its joints.
    let (c, o, e) = cli(d, "asset export hero.caf out.glb --anim hero.anim.caf");
    assert_eq!(c, 0, "{o}{e}");
    assert!(o.contains("skin of 2 joint(s)"), "{o}");
    assert!(o.contains("2 animation(s) of 5 channel(s)"), "{o}");
    assert!(o.contains("JOINTS_0/WEIGHTS_0"), "{o}");
    let (doc, _, _) = gltf::import(d.join("out.glb")).unwrap();
    assert_eq!(doc.skins().count(), 1);
    assert_eq!(doc.animations().count(), 2);
    // Every channel lands on a joint node: no extra nodes beyond mesh and joints.
    assert_eq!(doc.nodes().count(), 3, "mesh node and two joints");

    // The animation alone: one empty node per animated node.
    let (c, o, e) = cli(d, "asset export hero.anim.caf anim.gltf");
    assert_eq!(c, 0, "{o}{e}");
    assert!(d.join("anim.bin").exists());
    let (doc, _, _) = gltf::import(d.join("anim.gltf")).unwrap();
    assert_eq!(doc.animations().count(), 2);
    assert_eq!(doc.nodes().count(), 2);
    assert!(doc.nodes().all(|n| n.mesh().is_none()));

    // --anim with anything but a mesh is a usage error; a non-animation --anim is named.
    let (c, _, e) = cli(d, "asset export hero.anim.caf x.glb --anim hero.anim.caf");
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("--anim does not apply"), "{e}");
    let (c, _, e) = cli(d, "asset export hero.caf y.glb --anim hero.caf");
    assert_eq!(c, 1, "{e}");
    assert!(e.contains("the animation to export with the mesh"), "{e}");
    // The error names the --anim file, not the mesh.
    let (c, _, e) = cli(d, "asset export hero.caf w.glb --anim anim.gltf");
    assert_eq!(c, 1, "{e}");
    assert!(e.starts_with("error: anim.gltf: "), "{e}");
    assert!(!d.join("y.glb").exists());
    let (c, _, e) = cli(d, "asset export hero.caf z.glb --anim missing.caf");
    assert_eq!(c, 1, "{e}");
    assert!(e.contains("missing.caf"), "{e}");
}
