//! Issue 17 (skins and Animation assets) from the command line: `asset convert --type
//! animation --anim-rate`, a skinned mesh, `asset info` describing both, a sidecar, refusals.

mod common;
use common::run;

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

    let (c, o, e) = run(
        d,
        &[
            "asset",
            "convert",
            "hero.glb",
            "hero.anim.caf",
            "--type",
            "animation",
            "--anim-rate",
            "60",
        ],
    );
    assert_eq!(c, 0, "{o}{e}");
    assert!(o.contains("animation 2 clips, 5 channels, 60 Hz"), "{o}");
    let (c, o, e) = run(d, &["asset", "info", "hero.anim.caf"]);
    assert_eq!(c, 0, "{e}");
    assert!(o.contains("2 clip(s) at 60 Hz"), "{o}");
    assert!(o.contains("\"wave\" 2.000 s, 121 frames"), "{o}");
    let (c, o, _) = run(d, &["asset", "info", "--json", "hero.anim.caf"]);
    assert_eq!(c, 0);
    let v: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(v["metadata"]["clip_count"], 2, "{o}");

    let (c, o, e) = run(d, &["asset", "convert", "hero.glb", "hero.caf"]);
    assert_eq!(c, 0, "{o}{e}");
    assert!(o.contains("skin of 2 joint(s)"), "{o}");
    let (c, o, _) = run(d, &["asset", "info", "hero.caf"]);
    assert_eq!(c, 0);
    assert!(o.contains("skin 2 joint(s)"), "{o}");

    // A rate out of range is refused (exit 1, the file named), nothing written.
    let (c, _, e) = run(
        d,
        &[
            "asset",
            "convert",
            "hero.glb",
            "bad.caf",
            "--type",
            "animation",
            "--anim-rate",
            "0",
        ],
    );
    assert_eq!(c, 1, "{e}");
    assert!(e.contains("animation rate 0 Hz"), "{e}");
    assert!(!d.join("bad.caf").exists());
    // An unknown type lists the known ones.
    let (c, _, e) = run(
        d,
        &["asset", "convert", "hero.glb", "x.caf", "--type", "anim"],
    );
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
    let (c, o, e) = run(t.path(), &["asset", "build", "src", "out"]);
    assert_eq!(c, 0, "{o}{e}");
    let (c, o, _) = run(t.path(), &["asset", "info", "out/walk.caf"]);
    assert_eq!(c, 0);
    assert!(o.contains("2 clip(s) at 24 Hz"), "{o}");
    let (c, o, _) = run(t.path(), &["asset", "info", "out/hero.caf"]);
    assert_eq!(c, 0);
    assert!(o.contains("skin 2 joint(s)"), "{o}");
}
