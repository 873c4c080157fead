//! `asset convert` of a WGSL module with several entry points: one asset per entry point
//! (`NAME.ENTRY.caf`) into a folder, `--entry NAME` to choose one, coherent with `--stage`.

mod common;
use common::{cli, cli_err, cli_json, cli_ok};

const TWO_VERTEX: &str =
    "@vertex fn vs_a() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n\
     @vertex fn vs_b() -> @builtin(position) vec4<f32> { return vec4<f32>(1.0); }\n\
     @fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n";

#[test]
fn a_wgsl_stage_with_several_entry_points_gives_one_asset_each_or_the_entry_asked() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(d.join("lit.wgsl"), TWO_VERTEX).unwrap();
    std::fs::create_dir(d.join("out")).unwrap();
    // --stage vertex: the two vertex entry points, each alone in its asset.
    let out = cli_ok(d, "asset convert lit.wgsl out --stage vertex");
    assert!(out.contains("out/lit.vs_a.caf"), "{out}");
    assert!(out.contains("entry point vs_b"), "{out}");
    let a = std::fs::read(d.join("out/lit.vs_a.caf")).unwrap();
    let b = std::fs::read(d.join("out/lit.vs_b.caf")).unwrap();
    assert_ne!(a, b);
    assert!(!d.join("out/lit.vertex.caf").exists());
    // --stage fragment has one entry point: one asset named after the stage, as before.
    cli_ok(d, "asset convert lit.wgsl out --stage fragment");
    assert!(d.join("out/lit.fragment.caf").is_file());
    // No stage: every entry point.
    std::fs::create_dir(d.join("all")).unwrap();
    cli_ok(d, "asset convert lit.wgsl all");
    for e in ["vs_a", "vs_b", "fs"] {
        assert!(d.join(format!("all/lit.{e}.caf")).is_file(), "{e}");
    }
    // --entry chooses one, into a file or a folder; the JSON names it.
    let j = cli_json(d, "asset convert lit.wgsl b.caf --entry vs_b --json");
    assert_eq!(j["entry"], "vs_b");
    assert_eq!(std::fs::read(d.join("b.caf")).unwrap(), b);
    cli_ok(d, "asset convert lit.wgsl all --entry vs_b --force");
    // Several assets and one output file: refused before anything is written.
    cli_err(
        d,
        "asset convert lit.wgsl x.caf --stage vertex",
        2,
        "2 vertex entry points (vs_a, vs_b), one asset each: give an output folder",
    );
    assert!(!d.join("x.caf").exists());
    // An entry point the module lacks, or of another stage.
    cli_err(
        d,
        "asset convert lit.wgsl y.caf --entry nope",
        1,
        "no entry point \"nope\"",
    );
    cli_err(
        d,
        "asset convert lit.wgsl y.caf --entry fs --stage vertex",
        1,
        "is a fragment entry point, not vertex",
    );
    // --entry on another kind of input does nothing, and says so.
    common::write_wav(&d.join("a.wav"), 100, |i| i as i16);
    let (c, _, e) = cli(d, "asset convert a.wav a.caf --entry vs_a");
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("--entry is for shader inputs; ignored"), "{e}");
}
