//! The one world session through the command line: `world edit` keeps a v3 world v3 and
//! writes one small commit, `world history` / `world revert` round trip, a second writer is
//! refused naming the first, and a file changed on disk is not overwritten.

mod common;
use common::{run, run_err, voxcaf};

use std::path::Path;

fn ok(args: &[&str], dir: &Path) -> String {
    let (code, out, err) = run(dir, args);
    assert_eq!(code, 0, "{args:?}\nstdout: {out}\nstderr: {err}");
    out
}

/// A 300×30×300 terrain (v3, not cubic) built through the CLI.
fn terrain(dir: &Path) {
    ok(&["world", "new", "t.vwr", "--size", "300x30x300"], dir);
    ok(
        &[
            "world",
            "edit",
            "t.vwr",
            "box 0 0 0 299 5 299 rockpile",
            "box 0 6 0 299 6 299 grass",
        ],
        dir,
    );
}

#[test]
fn editing_a_v3_world_leaves_v3_and_writes_only_the_change() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // The case the issue found: a small cubic v3 world was rewritten as v2.
    ok(
        &["world", "new", "c.vwr", "--chunks", "3", "--format", "v3"],
        dir,
    );
    ok(&["world", "edit", "c.vwr", "place 1 1 1 35"], dir);
    assert_eq!(std::fs::read(dir.join("c.vwr")).unwrap()[4], 3);
    assert!(
        !dir.join("c.vwr.bak").exists(),
        "v3 keeps its history instead of a .bak"
    );

    terrain(dir);
    let before = std::fs::metadata(dir.join("t.vwr")).unwrap().len();
    let ops: Vec<String> = (0..10)
        .map(|k| format!("place {} 20 {} glass", k * 29 + 3, k * 31 + 2))
        .collect();
    let mut args = vec!["world", "edit", "t.vwr", "--json"];
    args.extend(ops.iter().map(String::as_str));
    let out = ok(&args, dir);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["incremental"], true, "{j}");
    let written = j["bytes_written"].as_u64().unwrap();
    assert!(written < 64 * 1024, "{written}");
    let after = std::fs::metadata(dir.join("t.vwr")).unwrap().len();
    assert_eq!(
        after - before + 20,
        written,
        "appended bytes plus the 20-byte commit slot"
    );
    assert_eq!(std::fs::read(dir.join("t.vwr")).unwrap()[4], 3);
    assert!(!dir.join("t.vwr.bak").exists());
    // The resave keeps the format too.
    ok(&["world", "resave", "t.vwr", "t.vwr"], dir);
    assert_eq!(std::fs::read(dir.join("t.vwr")).unwrap()[4], 3);
}

#[test]
fn history_and_revert_round_trip() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    terrain(dir);
    ok(&["world", "edit", "t.vwr", "place 10 10 10 glass"], dir);
    let before_second = ok(&["world", "dump", "t.vwr"], dir);
    ok(
        &["world", "edit", "t.vwr", "box 100 10 100 120 12 120 lava"],
        dir,
    );
    assert_ne!(ok(&["world", "dump", "t.vwr"], dir), before_second);
    let h = ok(&["world", "history", "t.vwr"], dir);
    assert!(h.contains("voxcaf world edit"), "{h}");
    assert!(h.contains("voxcaf world new"), "{h}");
    let j: serde_json::Value =
        serde_json::from_str(&ok(&["world", "history", "t.vwr", "--json"], dir)).unwrap();
    let seqs: Vec<u64> = j["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [4, 3, 2, 1]);
    let out = ok(&["world", "revert", "t.vwr"], dir);
    assert!(
        out.contains("commit 5 makes commit 3 current again"),
        "{out}"
    );
    assert_eq!(ok(&["world", "dump", "t.vwr"], dir), before_second);
    ok(&["world", "revert", "t.vwr", "--to", "4"], dir);
    assert_ne!(ok(&["world", "dump", "t.vwr"], dir), before_second);
    run_err(
        dir,
        &["world", "revert", "t.vwr", "--to", "77"],
        1,
        "commit 77 is not in the kept history",
    );
    // A v2 world has no history, and says so.
    ok(&["world", "new", "v2.vwr", "--chunks", "2"], dir);
    run_err(
        dir,
        &["world", "history", "v2.vwr"],
        1,
        "no commit history (a v2 file)",
    );
}

#[test]
fn a_second_writer_is_refused_and_readers_are_not() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    terrain(dir);
    let opts = vwr::SessionOptions {
        command: "voxcaf world serve t.vwr".into(),
        ..vwr::SessionOptions::tool("test")
    };
    let held = vwr::WorldSession::open(dir.join("t.vwr"), opts).unwrap();
    let err = run_err(
        dir,
        &["world", "edit", "t.vwr", "place 1 10 1 35"],
        1,
        "open for writing by process",
    );
    assert!(err.contains("voxcaf world serve t.vwr"), "{err}");
    assert_eq!(
        err.matches("t.vwr:").count(),
        1,
        "the file is named once: {err}"
    );
    ok(&["world", "get", "t.vwr", "1", "10", "1"], dir);
    ok(&["world", "info", "t.vwr"], dir);
    drop(held);
    ok(&["world", "edit", "t.vwr", "place 1 10 1 35"], dir);
}

#[test]
fn an_edit_killed_before_its_commit_leaves_the_previous_commit() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    terrain(dir);
    let before = ok(&["world", "dump", "t.vwr"], dir);
    // The save stops (abort, as a kill -9 would) after appending, before the commit slot.
    let out = voxcaf()
        .args(["world", "edit", "t.vwr", "place 7 20 7 glass"])
        .current_dir(dir)
        .env("VOXCAF_VWR_FAIL_AT", "before-commit")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(ok(&["world", "dump", "t.vwr"], dir), before);
    ok(&["world", "check", "t.vwr"], dir);
    // The lock died with the process; the next edit commits over the torn tail.
    ok(&["world", "edit", "t.vwr", "place 7 20 7 glass"], dir);
    assert_ne!(ok(&["world", "dump", "t.vwr"], dir), before);
    ok(&["world", "check", "t.vwr"], dir);
}

#[test]
fn world_new_format_vox_is_a_usage_error_not_a_vwr() {
    let d = tempfile::tempdir().unwrap();
    run_err(
        d.path(),
        &["world", "new", "w.vwr", "--format", "vox"],
        2,
        "world convert",
    );
    assert!(!d.path().join("w.vwr").exists());
}

#[test]
fn convert_codec_to_a_v2_output_is_refused_not_ignored() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    ok(&["world", "new", "w.vwr", "--chunks", "2"], dir);
    run_err(
        dir,
        &["world", "convert", "w.vwr", "z.vwr", "--codec", "zstd"],
        2,
        "--format v3",
    );
    assert!(!dir.join("z.vwr").exists());
    ok(
        &[
            "world", "convert", "w.vwr", "z.vwr", "--codec", "zstd", "--format", "v3",
        ],
        dir,
    );
    assert_eq!(std::fs::read(dir.join("z.vwr")).unwrap()[4], 3);
}
