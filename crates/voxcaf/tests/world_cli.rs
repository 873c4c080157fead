//! `voxcaf world ...` and `voxcaf demo` run as a user would run them.

mod common;
use common::{output, voxcaf};

use std::path::PathBuf;

fn golden() -> Option<PathBuf> {
    voxcaf_golden::with_worlds()
}

#[test]
fn dump_equals_golden_dump_for_every_world() {
    let Some(g) = golden() else { return };
    for sub in ["worlds3d", "random", "edge"] {
        for e in std::fs::read_dir(g.join("vwr").join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "vwr") {
                let (code, out, _) = output(voxcaf().args(["world", "dump"]).arg(&p));
                assert_eq!(code, 0, "{}", p.display());
                assert_eq!(
                    out,
                    std::fs::read_to_string(p.with_extension("dump.txt")).unwrap(),
                    "{}",
                    p.display()
                );
            }
        }
    }
}

#[test]
fn dump_of_a_bad_file_prints_error_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.vwr");
    std::fs::write(&bad, b"VWR1\x01 not really").unwrap();
    let (code, out, _) = output(voxcaf().args(["world", "dump"]).arg(&bad));
    assert_eq!(code, 1);
    assert!(out.starts_with("ERROR: "), "{out}");
    assert_eq!(out.lines().count(), 1);
}

#[test]
fn info_json_has_the_documented_fields() {
    let Some(g) = golden() else { return };
    let (code, out, _) = output(
        voxcaf()
            .args(["world", "info", "--json"])
            .arg(g.join("vwr/edge/edge-spawn.vwr")),
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["chunks_per_axis"], 10);
    assert_eq!(v["sky_region"], 7);
    assert_eq!(v["mission_number"], 11);
    assert_eq!(v["spawn"], serde_json::json!([12, 34, 56]));
    assert_eq!(v["non_empty_chunks"], 1);
    assert_eq!(v["non_air_blocks"], 1);
    assert_eq!(v["metadata_records"], 0);
    assert_eq!(v["file_size"], 20196);
    let (_, out, _) = output(
        voxcaf()
            .args(["world", "info", "--json"])
            .arg(g.join("vwr/edge/edge-empty-1.vwr")),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["spawn"].is_null());
}

#[test]
fn check_reports_each_file_and_fails_on_any_bad_one() {
    let Some(g) = golden() else { return };
    let dir = tempfile::tempdir().unwrap();
    let good = g.join("vwr/edge/edge-spawn.vwr");
    let mut bytes = std::fs::read(&good).unwrap();
    bytes[4] = 1; // v1 world header
    let bad = dir.path().join("v1.vwr");
    std::fs::write(&bad, &bytes).unwrap();
    let (code, out, _) = output(voxcaf().args(["world", "check"]).arg(&good));
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = output(voxcaf().args(["world", "check"]).arg(&good).arg(&bad));
    assert_eq!(code, 1);
    assert!(out.contains("OK"), "{out}");
    assert!(out.contains("FAIL") && out.contains("version 1"), "{out}");
    // --strict flags what the original tolerates: unused palette entries.
    let odd = g.join("vwr/edge/edge-overwritten-to-air.vwr");
    assert_eq!(output(voxcaf().args(["world", "check"]).arg(&odd)).0, 0);
    let (code, out, _) = output(voxcaf().args(["world", "check", "--strict"]).arg(&odd));
    assert_eq!(code, 1);
    assert!(out.contains("unused palette"), "{out}");
    let (_, out, _) = output(voxcaf().args(["world", "check", "--json"]).arg(&bad));
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["ok"], false);
}

#[test]
fn resave_is_byte_identical_and_new_writes_an_empty_world() {
    let Some(g) = golden() else { return };
    let dir = tempfile::tempdir().unwrap();
    let src = g.join("vwr/random/random-3.vwr");
    let out = dir.path().join("copy.vwr");
    assert_eq!(
        output(voxcaf().args(["world", "resave"]).arg(&src).arg(&out)).0,
        0
    );
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&src).unwrap());
    let empty = dir.path().join("empty.vwr");
    assert_eq!(
        output(voxcaf().args(["world", "new", "--chunks", "2"]).arg(&empty)).0,
        0
    );
    assert_eq!(
        std::fs::read(&empty).unwrap(),
        std::fs::read(g.join("vwr/edge/edge-empty-2.vwr")).unwrap()
    );
    let (code, _, err) = output(voxcaf().args(["world", "new"]).arg(&empty));
    // Issue 11 item 4: a refused output is a usage error (was 1).
    assert_eq!(code, 2, "refuses to overwrite");
    assert!(err.contains("--force"), "{err}");
    let (code, _, _) = output(
        voxcaf()
            .args(["world", "new", "--chunks", "0"])
            .arg(dir.path().join("x.vwr")),
    );
    assert_eq!(
        code, 2,
        "a bad --chunks is a usage error (issue 11 item 4; was 1)"
    );
    let (code, _, _) = output(voxcaf().args(["world", "frobnicate"]));
    assert_eq!(code, 2, "usage error");
}

#[test]
fn demo_runs_and_leaves_verified_files() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = output(voxcaf().arg("demo").arg(dir.path()));
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("round trip verified"), "{out}");
    assert!(out.contains("voxcaf world serve "), "{out}");
    assert!(
        out.contains("played through by its input script: exit reached"),
        "{out}"
    );
    let world = vwr::World::load(dir.path().join("showcase.vwr")).unwrap();
    assert!(world.count_non_air() > 10_000);
    assert!(world.move_objects().unwrap().len() >= 8);
    assert_eq!(world.spawn(), Some([15, 1, 15]));
    for f in [
        "showcase.glb",
        "showcase-iso.png",
        "pool.vwr",
        "demo_texture.caf",
        "assets/manifest.json",
    ] {
        assert!(dir.path().join(f).is_file(), "demo did not write {f}");
    }
    let png = std::fs::read(dir.path().join("showcase-iso.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // A second run into the same folder works too (the asset build skips unchanged sources).
    let (code, out, err) = output(voxcaf().arg("demo").arg(dir.path()));
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
}

#[test]
fn check_walks_folders() {
    let Some(g) = golden() else { return };
    // Every golden world below the folder is checked, as if named one by one.
    let (code, out, err) = output(
        voxcaf()
            .args(["world", "check"])
            .arg(g.join("vwr/worlds3d")),
    );
    let files = std::fs::read_dir(g.join("vwr/worlds3d"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "vwr")
        })
        .count();
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().filter(|l| l.starts_with("OK ")).count(), files);
    assert!(
        out.contains(&format!("{files} of {files} files passed")),
        "{out}"
    );
    // A build output checked as a folder: valid assets pass, a damaged one fails the run.
    let dir = tempfile::tempdir().unwrap();
    let good = caf::AssetWriter::new(caf::AssetType::UNKNOWN)
        .payload(b"abc")
        .to_vec();
    std::fs::create_dir_all(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("a.caf"), &good).unwrap();
    std::fs::write(dir.path().join("sub/b.caf"), &good).unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"not an asset").unwrap();
    let (code, out, _) = output(voxcaf().args(["asset", "check"]).arg(dir.path()));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("2 of 2 files valid"), "{out}");
    std::fs::write(dir.path().join("sub/c.caf"), &good[..good.len() - 1]).unwrap();
    let (code, out, _) = output(voxcaf().args(["asset", "check"]).arg(dir.path()));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("2 of 3 files valid"), "{out}");
    // An empty folder is an error, not a silent success.
    let empty = tempfile::tempdir().unwrap();
    let (code, _, err) = output(voxcaf().args(["world", "check"]).arg(empty.path()));
    assert_eq!(code, 1);
    assert!(err.contains("holds no .vwr file"), "{err}");
}
