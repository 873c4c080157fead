//! GPU textures from the command line: `asset convert --gpu-format`, `asset info` naming the
//! format and the level byte ranges, and the refusals.

mod common;
use common::run;

use std::path::Path;

fn write_png(path: &Path, w: u32, h: u32) {
    std::fs::write(path, caf_import::samples::gradient_png(w, h)).unwrap();
}

#[test]
fn convert_gpu_format_bc7_and_info_shows_levels() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write_png(&d.join("hero.png"), 8, 8);
    let (code, out, err) = run(
        d,
        &[
            "asset",
            "convert",
            "hero.png",
            "hero.caf",
            "--mips",
            "--gpu-format",
            "bc7",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("BC7_RGBA_UNORM_SRGB"), "{out}");
    let (code, out, err) = run(d, &["asset", "info", "hero.caf"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "BC7_RGBA_UNORM_SRGB, 4 level(s): 8x8 bytes [0, 64) + 4x4 bytes [64, 80) + 2x2 bytes [80, 96) + 1x1 bytes [96, 112)"
        ),
        "{out}"
    );
    let (code, out, _) = run(d, &["asset", "info", "--json", "hero.caf"]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["decoded"]["format"], 57);
    assert_eq!(j["decoded"]["level_ranges"][1], serde_json::json!([64, 80]));
}

#[test]
fn gpu_format_unhappy_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write_png(&d.join("hero.png"), 4, 4);
    let (code, _, err) = run(
        d,
        &[
            "asset",
            "convert",
            "hero.png",
            "a.caf",
            "--gpu-format",
            "bc9",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown GPU format"), "{err}");
    let (code, _, err) = run(
        d,
        &[
            "asset",
            "convert",
            "hero.png",
            "b.caf",
            "--gpu-format",
            "bc7",
            "--profile",
            "original",
        ],
    );
    assert_ne!(code, 0);
    assert!(err.contains("original profile"), "{err}");
    assert!(!d.join("b.caf").exists());
    let (code, out, _) = run(d, &["asset", "convert", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--gpu-format"), "{out}");
}
