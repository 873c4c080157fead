//! `voxcaf world edit` and `voxcaf world layer` run as a user would run them.

mod common;
use common::{output, output_with_stdin, voxcaf};

use std::path::{Path, PathBuf};

use vwr::{Block, World};

/// A directory with an empty default world `level.vwr` and a floor in it.
fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("level.vwr");
    let mut w = World::new();
    w.fill_box([0, 0, 0], [99, 0, 99], Block::make(35, 0).unwrap())
        .unwrap();
    w.save(&file).unwrap();
    (dir, file)
}

/// Runs `voxcaf world SUB FILE ARGS…`: (exit code, stdout, stderr).
fn world(sub: &str, file: &Path, args: &[&str]) -> (i32, String, String) {
    output(voxcaf().args(["world", sub]).arg(file).args(args))
}

/// A temporary path as an argument (temporary folders have UTF-8 names).
fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn write_script(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("script.txt");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_script_edits_in_place_and_keeps_a_backup() {
    let (dir, file) = setup();
    let before = std::fs::read(&file).unwrap();
    let script = write_script(
        dir.path(),
        "# a room with water\n\
         walls 10 1 10 20 4 20 brickwall\n\
         fill 15 1 15 water 11 1 11 19 3 19   # bounded flood fill\n\
         brush sphere 50 6 50 3 lava\n\
         replace 35 3 0 0 0 9 0 9\n\
         object add exit 52 1 50 end=52,3,50\n\
         decor 60 1 60 66\n\
         plate 61 1 60 on\n\
         spawn 12 1 12\n\
         sky 7\n\
         mission 11\n\
         copy 10 0 10 20 4 20\n\
         paste 60 0 10 rot 90 mirror x\n\
         place 1 1 1 0x0231\n\
         erase 1 1 1\n\
         undo\n\
         redo\n",
    );
    let (code, out, err) = world("edit", &file, &["--script", path_str(&script)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("script.txt:2: walls"), "{out}");
    assert!(
        out.contains("script.txt:3: flood fill from (15, 1, 15) with 92:0: 243 cells"),
        "{out}"
    );
    assert!(out.contains("script.txt:16: undone erase"), "{out}");
    assert!(out.contains("previous version kept as"), "{out}");
    let bak = dir.path().join("level.vwr.bak");
    assert_eq!(
        std::fs::read(&bak).unwrap(),
        before,
        "the backup is the previous file"
    );
    let w = World::load(&file).unwrap();
    assert_eq!(w.get_block([10, 1, 10]).block_type(), 261);
    assert_eq!(w.get_block([15, 2, 15]).block_type(), 92);
    assert_eq!(w.get_block([50, 6, 50]).block_type(), 68);
    assert_eq!(w.get_block([5, 0, 5]).block_type(), 3);
    assert_eq!(w.get_block([15, 0, 15]).block_type(), 35);
    assert_eq!(w.get_block([1, 1, 1]), Block::AIR, "erase was redone");
    assert_eq!(w.move_objects().unwrap().len(), 1);
    assert_eq!(w.big_decors().unwrap(), vec![([60, 1, 60], 66)]);
    assert_eq!(w.plate_rotation([61, 1, 60]), Some(true));
    assert_eq!(
        (w.sky_region(), w.mission_number(), w.spawn()),
        (7, 11, Some([12, 1, 12]))
    );
    // The pasted copy of the walls (rotated 90, mirrored along x) is 11 x 5 x 11 at (60, 0, 10).
    assert_eq!(w.get_block([60, 1, 10]).block_type(), 261);
    assert_eq!(w.get_block([65, 2, 15]).block_type(), 92);
}

#[test]
fn operations_as_arguments_and_output_file() {
    let (dir, file) = setup();
    let before = std::fs::read(&file).unwrap();
    let out_file = dir.path().join("out.vwr");
    let (code, out, err) = world(
        "edit",
        &file,
        &[
            "box 0 1 0 9 1 9 brickwall; place 3 2 3 35:2",
            "brush cube 50 50 50 1 raw:560",
            "-o",
            path_str(&out_file),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("argument 1.1: box")
            && out.contains("argument 1.2: place")
            && out.contains("argument 2: brush"),
        "{out}"
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "-o leaves FILE untouched"
    );
    assert!(!dir.path().join("level.vwr.bak").exists());
    let w = World::load(&out_file).unwrap();
    assert_eq!(w.get_block([9, 1, 9]).block_type(), 261);
    assert_eq!(w.get_block([3, 2, 3]), Block::make(35, 2).unwrap());
    assert_eq!(w.get_block([51, 51, 51]).block_type(), 35);
}

#[test]
fn a_script_with_a_bad_line_changes_nothing_on_disk() {
    let (dir, file) = setup();
    let before = std::fs::read(&file).unwrap();
    let script = write_script(
        dir.path(),
        "box 0 1 0 99 1 99 brickwall\nbox 0 0 0 5 5 rockpile\nplace 1 1 1 nosuchblock\nsky 3\n",
    );
    let (code, out, err) = world("edit", &file, &["-s", path_str(&script)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("script.txt:2:"), "{err}");
    assert!(
        err.contains("script.txt:3:") && err.contains("nosuchblock"),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert!(
        !err.contains("script.txt:1:") && !err.contains("script.txt:4:"),
        "{err}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert!(!dir.path().join("level.vwr.bak").exists());
    // The same with -o: no output file appears.
    let out_file = dir.path().join("out.vwr");
    let (code, _, _) = world(
        "edit",
        &file,
        &["-s", path_str(&script), "-o", path_str(&out_file)],
    );
    assert_eq!(code, 1);
    assert!(!out_file.exists());
}

#[test]
fn an_operation_refused_at_apply_time_changes_nothing_on_disk() {
    let (dir, file) = setup();
    let before = std::fs::read(&file).unwrap();
    for (script, why) in [
        (
            "box 0 1 0 9 9 9 brickwall\nplace 100 0 0 35\n",
            "outside the world",
        ),
        (
            "box 0 1 0 9 9 9 brickwall\nfill 50 50 50 water limit 1000\n",
            "flood fill",
        ),
        ("undo\n", "nothing to undo"),
        ("object remove 5 5 5\n", "no MoveObject"),
        ("spawn 0 100 0\n", "outside the world"),
    ] {
        let s = write_script(dir.path(), script);
        let (code, out, err) = world("edit", &file, &["-s", path_str(&s)]);
        assert_eq!(code, 1, "{script}: {out}{err}");
        assert!(err.contains(why), "{script}: {err}");
        assert!(err.contains("nothing was written"), "{err}");
        assert_eq!(std::fs::read(&file).unwrap(), before, "{script}");
    }
}

#[test]
fn script_from_stdin_dry_run_and_json() {
    let (_dir, file) = setup();
    let before = std::fs::read(&file).unwrap();
    let (code, out, err) = output_with_stdin(
        voxcaf()
            .args(["world", "edit"])
            .arg(&file)
            .args(["--script", "-", "--dry-run", "--json"]),
        b"box 0 1 0 9 1 9 35\n",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ops"][0]["cells"], 100);
    assert_eq!(v["ops"][0]["at"], "stdin:1");
    assert_eq!(v["changed"], true);
    assert!(v["written"].is_null());
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn no_change_writes_nothing() {
    let (dir, file) = setup();
    let (code, out, _) = world("edit", &file, &["box 0 0 0 99 0 99 rockpile"]);
    assert_eq!(code, 0);
    assert!(out.contains("no change"), "{out}");
    assert!(!dir.path().join("level.vwr.bak").exists());
    let (code, _, err) = world("edit", &file, &[]);
    // Issue 11 item 4: a command line without operations is a usage error (was 1).
    assert_eq!(code, 2, "no operations is a usage error: {err}");
}

#[test]
fn layer_view() {
    let (_dir, file) = setup();
    let (code, _, _) = world(
        "edit",
        &file,
        &[
            "place 2 0 1 brickwall",
            "object add 5 4.5 0 1",
            "spawn 1 0 1",
        ],
    );
    assert_eq!(code, 0);
    let (code, out, err) = world("layer", &file, &["0", "--region", "0,0,11,2", "--grid"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "layer y=0  x 0..11  z 0..2");
    assert_eq!(lines[4], "   1  A+BA@AAAAA|AA");
    assert!(
        lines[6].contains("A 35:0 RockPile") && lines[6].contains("B 261:0 BrickWall"),
        "{out}"
    );
    let (code, out, _) = world(
        "layer",
        &file,
        &["0", "--json", "--chunks", "--region", "0,0,3,3"],
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["rows"][1][2], 261 << 4);
    assert_eq!(v["width"], 4);
    assert_eq!(v["chunks"][0]["pos"], serde_json::json!([0, 0, 0]));
    let (code, _, err) = world("layer", &file, &["100"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("outside the world"), "{err}");
}

#[test]
fn edits_leave_no_unused_palette_entries_for_check_strict_to_report() {
    let d = tempfile::tempdir().unwrap();
    for (file, format) in [("a.vwr", "v2"), ("b.vwr", "v3")] {
        common::cli_ok(d.path(), &format!("world new {file} --format {format}"));
        // Stone over a chunk, rock over the stone, one cell placed and erased: the stone and
        // the placed value end up used by no cell.
        let ops = [
            "box 0 0 0 9 9 9 35",
            "box 0 0 0 9 9 9 36",
            "place 1 1 1 37",
            "erase 1 1 1",
        ];
        let mut args = vec!["world", "edit", file];
        args.extend(ops);
        let (code, _, err) = common::run(d.path(), &args);
        assert_eq!(code, 0, "{err}");
        let (code, out, err) = common::run(d.path(), &["world", "check", "--strict", file]);
        assert_eq!(code, 0, "{file}: {out}{err}");
        assert!(out.starts_with("OK"), "{file}: {out}");
    }
}
