//! `voxcaf world new --size`, `convert`, `get`, and `info`/`dump`/`check` on v3 files, run as a
//! user would run them.

mod common;
use common::{output, voxcaf};

use std::path::{Path, PathBuf};
use std::process::Command;

fn golden_world(name: &str) -> Option<PathBuf> {
    voxcaf_golden::with_worlds().map(|g| g.join("vwr/worlds3d").join(name))
}

fn ok(cmd: &mut Command) -> String {
    let (code, out, err) = output(cmd);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    out
}

#[test]
fn convert_round_trips_a_golden_level_through_every_codec() {
    let Some(src) = golden_world("world999.vwr") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let dump = ok(voxcaf().args(["world", "dump"]).arg(&src));
    for codec in ["auto", "packed", "rle", "zstd"] {
        let v3 = d.path().join(format!("w-{codec}.vwr"));
        let back = d.path().join(format!("w-{codec}-v2.vwr"));
        let out = ok(voxcaf()
            .args(["world", "convert"])
            .arg(&src)
            .arg(&v3)
            .args(["--format", "v3", "--codec", codec]));
        assert!(out.contains("(v3, "), "{out}");
        assert_eq!(ok(voxcaf().args(["world", "dump"]).arg(&v3)), dump);
        ok(voxcaf()
            .args(["world", "convert"])
            .arg(&v3)
            .arg(&back)
            .args(["--format", "v2"]));
        assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&src).unwrap());
    }
    // info names the format and the codecs.
    let v3 = d.path().join("w-auto.vwr");
    let info = ok(voxcaf().args(["world", "info"]).arg(&v3));
    assert!(info.contains("format          v3"), "{info}");
    assert!(info.contains("smaller than v2"), "{info}");
    let j: serde_json::Value =
        serde_json::from_str(&ok(voxcaf().args(["world", "info", "--json"]).arg(&v3))).unwrap();
    assert_eq!(j["version"], 3);
    assert!(j["codec"]["ratio"].as_f64().unwrap() > 1.0);
    assert!(ok(voxcaf().args(["world", "check", "--strict"]).arg(&v3)).starts_with("OK"));
}

#[test]
fn new_with_a_size_writes_v3_and_get_reads_one_block() {
    let d = tempfile::tempdir().unwrap();
    let big = d.path().join("big.vwr");
    let out = ok(voxcaf()
        .args(["world", "new"])
        .arg(&big)
        .args(["--size", "1000x100x1000"]));
    assert!(out.contains("1000x100x1000 blocks"), "{out}");
    assert!(out.contains("v3"), "{out}");
    let dump = ok(voxcaf().args(["world", "dump"]).arg(&big));
    assert_eq!(
        dump,
        "header chunks=100x10x100 skyRegion=0 missionNumber=0 spawn=none\n"
    );
    let j: serde_json::Value = serde_json::from_str(&ok(voxcaf()
        .args(["world", "get", "--json"])
        .arg(&big)
        .args(["999", "99", "999"])))
    .unwrap();
    assert_eq!(j["raw"], 0);
    assert_eq!(j["inside"], true);
    let out = ok(voxcaf()
        .args(["world", "get"])
        .arg(&big)
        .args(["-5", "0", "0"]));
    assert!(out.contains("outside the world"), "{out}");
    // A cubic size that fits v2 stays v2 unless --format says otherwise.
    let small = d.path().join("small.vwr");
    ok(voxcaf()
        .args(["world", "new"])
        .arg(&small)
        .args(["--size", "50x50x50"]));
    assert_eq!(&std::fs::read(&small).unwrap()[..5], b"VWR1\x02");
    ok(voxcaf()
        .args(["world", "new", "--force"])
        .arg(&small)
        .args(["--size", "50x50x50", "--format", "v3"]));
    assert_eq!(&std::fs::read(&small).unwrap()[..5], b"VWR1\x03");
}

#[test]
fn get_reads_v2_files_and_the_edited_golden_block() {
    let Some(src) = golden_world("world999.vwr") else {
        return;
    };
    let world = vwr::World::load(&src).unwrap();
    let mut cell = None;
    world.for_each_non_air(|p, b| {
        if cell.is_none() {
            cell = Some((p, b));
        }
    });
    let ([x, y, z], b) = cell.unwrap();
    let j: serde_json::Value = serde_json::from_str(&ok(voxcaf()
        .args(["world", "get", "--json"])
        .arg(&src)
        .args([x, y, z].map(|v| v.to_string()))))
    .unwrap();
    assert_eq!(j["raw"], b.raw());
    assert_eq!(j["type"], b.block_type());
    // One X,Y,Z argument (as `world ray --from` takes it) reads the same block.
    let three = ok(voxcaf()
        .args(["world", "get"])
        .arg(&src)
        .args([x, y, z].map(|v| v.to_string())));
    let one = ok(voxcaf()
        .args(["world", "get"])
        .arg(&src)
        .arg(format!("{x},{y},{z}")));
    assert_eq!(one, three);
    assert!(one.contains(&b.raw().to_string()), "{one}");
    // A flag after the one-argument form is still a flag.
    let j: serde_json::Value = serde_json::from_str(&ok(voxcaf()
        .args(["world", "get"])
        .arg(&src)
        .arg(format!("{x},{y},{z}"))
        .arg("--json")))
    .unwrap();
    assert_eq!(j["raw"], b.raw());
}

/// Runs `voxcaf LINE` (split at whitespace) in `dir`: it must exit with `code` and say `needle`
/// on stdout or stderr.
fn fails(dir: &Path, line: &str, code: i32, needle: &str) {
    let (c, out, err) = output(voxcaf().current_dir(dir).args(line.split_whitespace()));
    assert_eq!(c, code, "{line}\nstdout: {out}\nstderr: {err}");
    assert!(
        err.contains(needle) || out.contains(needle),
        "{line}: {needle:?} not in\nstdout: {out}\nstderr: {err}"
    );
}

#[test]
fn unhappy_paths_say_what_is_wrong() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // A block position that is neither X Y Z nor X,Y,Z: a usage error naming the form.
    ok(voxcaf().current_dir(dir).args(["world", "new", "e.vwr"]));
    for bad in ["1,2", "1 2", "1,2,3,4"] {
        fails(dir, &format!("world get e.vwr {bad}"), 2, "X Y Z or X,Y,Z");
    }
    let not_whole = "\"x\" in \"1,2,x\" is not a whole number";
    fails(dir, "world get e.vwr 1,2,x", 2, not_whole);
    ok(voxcaf()
        .current_dir(dir)
        .args(["world", "new", "flat.vwr", "--size", "30x10x20"]));
    // A damaged v3 file: a clear error naming the file, for get, check and info.
    let mut bytes = std::fs::read(dir.join("flat.vwr")).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x40; // inside the index CRC
    std::fs::write(dir.join("bad.vwr"), &bytes).unwrap();
    for (line, code, needle) in [
        (
            "world new a.vwr --size 1005x10x10",
            2,
            "not a positive multiple of 10",
        ),
        ("world new a.vwr --size 10x10", 2, "expected XxYxZ"),
        (
            "world new a.vwr --size 655360x10x10",
            2,
            "each axis must be 1..=65535",
        ),
        (
            "world new a.vwr --size 100x10x100 --format v2",
            2,
            "does not fit v2",
        ),
        (
            "world convert flat.vwr flat2.vwr --format v2",
            2,
            "does not fit v2",
        ),
        ("world convert missing.vwr x.vwr", 1, "missing.vwr"),
        ("world convert flat.vwr x.vwr --level 40", 2, "--level"),
        ("world get bad.vwr 0 0 0", 1, "bad.vwr"),
        ("world check bad.vwr", 1, "CRC"),
        ("world info bad.vwr", 1, "bad.vwr"),
    ] {
        fails(dir, line, code, needle);
    }
    assert!(dir.join("bad.vwr").exists());
}

#[test]
fn a_tight_vox_import_saves_a_non_cubic_world_as_v3() {
    let model = voxcaf_golden::root().join("../corpus/vox/chr_sol.vox");
    if !model.exists() {
        assert!(!voxcaf_golden::required(), "{} missing", model.display());
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("statue.vwr");
    ok(voxcaf()
        .args(["world", "convert"])
        .arg(&model)
        .arg(&out)
        .arg("--tight"));
    let w = vwr::World::load(&out).unwrap();
    let bytes = std::fs::read(&out).unwrap();
    let [x, y, z] = w.chunk_dims();
    if !(x == y && y == z) {
        assert_eq!(vwr::world_version(&bytes), Some(3));
    }
    assert!(w.count_non_air() > 0);
}

#[test]
fn info_accounts_for_every_byte_of_a_v3_file() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path().join("w.vwr");
    ok(voxcaf()
        .args(["world", "new"])
        .arg(&w)
        .args(["--size", "200x40x100"]));
    ok(voxcaf()
        .args(["world", "edit"])
        .arg(&w)
        .arg("place 1 10 1 35"));
    ok(voxcaf()
        .args(["world", "edit"])
        .arg(&w)
        .arg("place 150 20 90 36"));
    let size = std::fs::metadata(&w).unwrap().len();
    let j: serde_json::Value =
        serde_json::from_str(&ok(voxcaf().args(["world", "info", "--json"]).arg(&w))).unwrap();
    let parts = j["file_bytes"].as_object().unwrap();
    let sum: u64 = parts.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(sum, size, "{parts:?}");
    assert_eq!(j["file_size"].as_u64(), Some(size));
    assert_eq!(parts["header"], 64);
    assert!(parts["entry_pages"].as_u64().unwrap() > 0, "{parts:?}");
    assert!(parts["history"].as_u64().unwrap() > 0, "{parts:?}");
    let text = ok(voxcaf().args(["world", "info"]).arg(&w));
    let line = text.lines().find(|l| l.contains("file bytes")).unwrap();
    let listed: u64 = line
        .split(", ")
        .map(|p| p.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(listed, size, "{line}");
    // v2 files have no v3 parts.
    let v2 = d.path().join("v2.vwr");
    ok(voxcaf()
        .args(["world", "new"])
        .arg(&v2)
        .args(["--size", "50x50x50"]));
    let j: serde_json::Value =
        serde_json::from_str(&ok(voxcaf().args(["world", "info", "--json"]).arg(&v2))).unwrap();
    assert!(j["file_bytes"].is_null());
}
