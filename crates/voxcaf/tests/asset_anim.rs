//! Issue 17 (skins and Animation assets) from the command line: `asset convert --type
//! animation --anim-rate`, a skinned mesh, `asset info` describing both, a sidecar, refusals.

mod common;
use common::{cli, cli_err, cli_json, cli_ok};

use voxcaf_samples::{animated_glb, AnimatedOptions};

/// A temporary folder holding `hero.glb`, the default animated sample.
fn hero_dir() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join("hero.glb"),
        animated_glb(&AnimatedOptions::default()),
    )
    .unwrap();
    t
}

#[test]
fn animation_and_skin_convert_and_describe() {
    let t = hero_dir();
    let d = t.path();

    let o = cli_ok(
        d,
        "asset convert hero.glb hero.anim.caf --type animation --anim-rate 60",
    );
    assert!(o.contains("animation 2 clips, 5 channels, 60 Hz"), "{o}");
    let o = cli_ok(d, "asset info hero.anim.caf");
    assert!(o.contains("2 clip(s) at 60 Hz"), "{o}");
    assert!(o.contains("\"wave\" 2.000 s, 121 frames"), "{o}");
    let v = cli_json(d, "asset info --json hero.anim.caf");
    assert_eq!(v["metadata"]["clip_count"], 2, "{o}");

    let o = cli_ok(d, "asset convert hero.glb hero.caf");
    assert!(o.contains("skin of 2 joint(s)"), "{o}");
    let o = cli_ok(d, "asset info hero.caf");
    assert!(o.contains("skin 2 joint(s)"), "{o}");

    // A rate out of range is refused (exit 1, the file named), nothing written.
    cli_err(
        d,
        "asset convert hero.glb bad.caf --type animation --anim-rate 0",
        1,
        "animation rate 0 Hz",
    );
    assert!(!d.join("bad.caf").exists());
    // An unknown type lists the known ones.
    cli_err(
        d,
        "asset convert hero.glb x.caf --type anim",
        2,
        "animation",
    );
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
    cli_ok(t.path(), "asset build src out");
    let o = cli_ok(t.path(), "asset info out/walk.caf");
    assert!(o.contains("2 clip(s) at 24 Hz"), "{o}");
    let o = cli_ok(t.path(), "asset info out/hero.caf");
    assert!(o.contains("skin 2 joint(s)"), "{o}");
}

#[test]
fn skinned_mesh_and_animation_export_to_gltf() {
    let t = hero_dir();
    let d = t.path();
    cli_ok(d, "asset convert hero.glb hero.caf");
    cli_ok(d, "asset convert hero.glb hero.anim.caf --type animation");

    // Mesh with its skin and the clips on its joints.
    let o = cli_ok(d, "asset export hero.caf out.glb --anim hero.anim.caf");
    assert!(o.contains("skin of 2 joint(s)"), "{o}");
    assert!(o.contains("2 animation(s) of 5 channel(s)"), "{o}");
    assert!(o.contains("JOINTS_0/WEIGHTS_0"), "{o}");
    let (doc, _, _) = gltf::import(d.join("out.glb")).unwrap();
    assert_eq!(doc.skins().count(), 1);
    assert_eq!(doc.animations().count(), 2);
    // Every channel lands on a joint node: no extra nodes beyond mesh and joints.
    assert_eq!(doc.nodes().count(), 3, "mesh node and two joints");

    // The animation alone: one empty node per animated node.
    cli_ok(d, "asset export hero.anim.caf anim.gltf");
    assert!(d.join("anim.bin").exists());
    let (doc, _, _) = gltf::import(d.join("anim.gltf")).unwrap();
    assert_eq!(doc.animations().count(), 2);
    assert_eq!(doc.nodes().count(), 2);
    assert!(doc.nodes().all(|n| n.mesh().is_none()));

    // --anim with anything but a mesh is a usage error; a non-animation or missing --anim is
    // named.
    for (line, code, needle) in [
        (
            "asset export hero.anim.caf x.glb --anim hero.anim.caf",
            2,
            "--anim does not apply",
        ),
        (
            "asset export hero.caf y.glb --anim hero.caf",
            1,
            "the animation to export with the mesh",
        ),
        (
            "asset export hero.caf z.glb --anim missing.caf",
            1,
            "missing.caf",
        ),
    ] {
        cli_err(d, line, code, needle);
    }
    // The error names the --anim file, not the mesh.
    let (c, _, e) = cli(d, "asset export hero.caf w.glb --anim anim.gltf");
    assert_eq!(c, 1, "{e}");
    assert!(e.starts_with("error: anim.gltf: "), "{e}");
    assert!(!d.join("y.glb").exists());
}
