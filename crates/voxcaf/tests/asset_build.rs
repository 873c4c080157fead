//! `voxcaf asset build` never skips silently: files that are not sources are listed with
//! their reason on stdout and in `--json`, and the summary counts them.

mod common;
use common::{cli, cli_out};

#[test]
fn build_lists_every_file_it_skipped_and_why() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let src = d.join("src");
    std::fs::create_dir_all(src.join(".cache")).unwrap();
    std::fs::write(src.join("tri.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    std::fs::write(src.join("notes.txt"), "hello").unwrap();
    std::fs::write(src.join("old.png.toml"), "mips = true\n").unwrap();
    std::fs::write(src.join(".cache/x.png"), "").unwrap();
    std::fs::write(src.join("lines.obj"), "v 0 0 0\nv 1 0 0\nl 1 2\n").unwrap();

    let (c, out, err) = cli(d, "asset build src out");
    assert_eq!(c, 1, "the line-only OBJ fails: {out}{err}");
    for line in [
        "ignored .cache: hidden folder",
        "ignored notes.txt: extension \"txt\" names no asset kind",
        "ignored old.png.toml: a .toml file but no file \"old.png\"",
    ] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
    assert!(out.contains("1 failed, 3 ignored"), "{out}");
    assert!(
        err.contains("lines.obj") && err.contains("no faces"),
        "{err}"
    );

    let out = cli_out(d, "asset build --json src out", 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let ignored: Vec<(String, String)> = v["ignored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["path"].as_str().unwrap().to_string(),
                i["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        ignored,
        [
            (".cache".to_string(), "hidden".to_string()),
            ("notes.txt".to_string(), "unknown_extension".to_string()),
            ("old.png.toml".to_string(), "orphan_sidecar".to_string()),
        ]
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["ignored"], v["ignored"]);
}
