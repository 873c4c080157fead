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

/// `asset build` splits a WGSL module by entry point as `asset convert` into a folder does:
/// byte-identical `NAME.ENTRY.caf` files, one manifest entry each naming its entry point, all
/// skipped when nothing changed, removed when the module goes; an entry's output that another
/// source produces fails the module alone.
#[test]
fn asset_build_gives_one_asset_per_wgsl_entry_point_like_convert() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::create_dir_all(d.join("src/fx")).unwrap();
    std::fs::write(d.join("src/fx/lit.wgsl"), TWO_VERTEX).unwrap();
    common::write_wav(&d.join("src/fx/boom.wav"), 100, |i| i as i16);
    std::fs::create_dir(d.join("conv")).unwrap();
    cli_ok(d, "asset convert src/fx/lit.wgsl conv");

    let j = cli_json(d, "asset build src build --json");
    assert_eq!(
        (j["converted"].as_u64(), j["assets"].as_u64()),
        (Some(4), Some(4)),
        "{j}"
    );
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("build/manifest.json")).unwrap()).unwrap();
    let mut split: Vec<(String, String, String)> = m["assets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["source"] == "fx/lit.wgsl")
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap().to_string();
            (s("entry"), s("id"), s("output"))
        })
        .collect();
    split.sort();
    let want = |e: &str| (e.into(), format!("fx/lit.{e}"), format!("fx/lit.{e}.caf"));
    assert_eq!(split, [want("fs"), want("vs_a"), want("vs_b")]);
    for e in ["vs_a", "vs_b", "fs"] {
        let built = std::fs::read(d.join(format!("build/fx/lit.{e}.caf"))).unwrap();
        let converted = std::fs::read(d.join(format!("conv/lit.{e}.caf"))).unwrap();
        assert!(built == converted, "{e}: build and convert differ");
    }
    assert!(!d.join("build/fx/lit.caf").exists());

    // Nothing changed: every asset of the module is up to date.
    let j = cli_json(d, "asset build src build --json");
    assert_eq!(
        (j["converted"].as_u64(), j["skipped"].as_u64()),
        (Some(0), Some(4)),
        "{j}"
    );
    // One output lost: the module is converted again, whole.
    std::fs::remove_file(d.join("build/fx/lit.vs_b.caf")).unwrap();
    let j = cli_json(d, "asset build src build --json");
    assert_eq!(
        (j["converted"].as_u64(), j["skipped"].as_u64()),
        (Some(3), Some(1)),
        "{j}"
    );
    assert!(d.join("build/fx/lit.vs_b.caf").is_file());

    // A source whose output is an entry's output: the module fails, the other converts.
    common::write_wav(&d.join("src/fx/lit.vs_a.wav"), 50, |i| -(i as i16));
    let j = cli(d, "asset build src build --json --force");
    assert_eq!(j.0, 1, "{}", j.2);
    let j: serde_json::Value = serde_json::from_str(&j.1).unwrap();
    let failed = &j["failed"][0];
    assert_eq!(failed["source"], "fx/lit.wgsl", "{j}");
    let msg = failed["error"].as_str().unwrap();
    assert!(
        msg.contains("fx/lit.vs_a.caf, which fx/lit.vs_a.wav already produces"),
        "{msg}"
    );
    std::fs::remove_file(d.join("src/fx/lit.vs_a.wav")).unwrap();

    // The module gone: its outputs go with it.
    cli_ok(d, "asset build src build");
    std::fs::remove_file(d.join("src/fx/lit.wgsl")).unwrap();
    let j = cli_json(d, "asset build src build --json");
    assert_eq!(j["removed"].as_u64(), Some(3), "{j}");
    assert!(!d.join("build/fx/lit.fs.caf").exists());
}
