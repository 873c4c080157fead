//! Issue 11, items 1, 2, 4 and 7, run as a user would: the output policy, `-`, exit codes with
//! the JSON error shape, and folders for `info`. Each test checks the file system afterwards.

mod common;
use common::voxcaf;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Runs `voxcaf ARGS` in `dir` with `stdin` fed in; returns (status, stdout bytes, stderr).
fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let mut child = voxcaf()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run voxcaf");
    // A command that does not read stdin may close it early; that is fine.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let (c, o, e) = run_in(dir, args, b"");
    (c, String::from_utf8_lossy(&o).into_owned(), e)
}

/// Every file below `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = walk(dir)
        .iter()
        .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
        .collect();
    v.sort();
    v
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() && !p.is_symlink() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn new_world(dir: &Path, name: &str) -> Vec<u8> {
    let (c, _, e) = run(dir, &["world", "new", name, "--chunks", "2"]);
    assert_eq!(c, 0, "{e}");
    std::fs::read(dir.join(name)).unwrap()
}

#[test]
fn item1_outputs_never_replace_inputs_sources_or_foreign_files() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let w = new_world(p, "w.vwr");

    // The input as output, also through a symbolic link.
    let (c, _, e) = run(p, &["world", "render", "w.vwr", "-o", "w.vwr"]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains(".png"), "{e}");
    let (c, _, e) = run(p, &["asset", "pack", "--type", "mesh", "a.caf"]);
    assert_eq!(c, 0, "{e}");
    let a = std::fs::read(p.join("a.caf")).unwrap();
    let (c, _, e) = run(p, &["asset", "extract", "a.caf", "--payload", "a.caf"]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("also the input"), "{e}");
    std::os::unix::fs::symlink("a.caf", p.join("link.caf")).unwrap();
    let (c, _, e) = run(
        p,
        &[
            "asset",
            "pack",
            "--type",
            "mesh",
            "--payload",
            "a.caf",
            "link.caf",
        ],
    );
    assert_eq!(c, 2, "{e}");
    assert_eq!(std::fs::read(p.join("a.caf")).unwrap(), a);
    assert!(p.join("link.caf").is_symlink());

    // A foreign file needs --force; the message names the file once and says what to do.
    std::fs::write(p.join("notes.vwr"), b"my notes").unwrap();
    let (c, _, e) = run(p, &["world", "resave", "w.vwr", "notes.vwr"]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("--force") && e.matches("notes.vwr").count() == 1,
        "{e}"
    );
    assert_eq!(std::fs::read(p.join("notes.vwr")).unwrap(), b"my notes");
    let (c, _, e) = run(p, &["world", "resave", "w.vwr", "notes.vwr", "--force"]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(std::fs::read(p.join("notes.vwr")).unwrap(), w);

    // `-o FILE` naming the input is an in-place edit and keeps FILE.bak.
    let (c, _, e) = run(
        p,
        &["world", "edit", "w.vwr", "place 1 1 1 35", "-o", "w.vwr"],
    );
    assert_eq!(c, 0, "{e}");
    assert_eq!(std::fs::read(p.join("w.vwr.bak")).unwrap(), w);
    assert_ne!(std::fs::read(p.join("w.vwr")).unwrap(), w);
    // Also through a link, which stays a link.
    let edited = std::fs::read(p.join("w.vwr")).unwrap();
    std::os::unix::fs::symlink("w.vwr", p.join("wl.vwr")).unwrap();
    let (c, _, e) = run(
        p,
        &["world", "edit", "w.vwr", "place 2 2 2 35", "-o", "wl.vwr"],
    );
    assert_eq!(c, 0, "{e}");
    assert!(p.join("wl.vwr").is_symlink());
    assert_eq!(std::fs::read(p.join("w.vwr.bak")).unwrap(), edited);
    assert_ne!(std::fs::read(p.join("w.vwr")).unwrap(), edited);

    // Sources: the output folder may not be or lie in the source folder.
    let src = p.join("src");
    voxcaf_samples::write_source_tree(&src).unwrap();
    let before = tree(&src);
    for out in ["src", "src/out", "src/shaders/../out"] {
        let (c, _, e) = run(p, &["asset", "build", "src", out]);
        assert_eq!(c, 2, "{out}: {e}");
    }
    assert_eq!(tree(&src), before, "nothing written into the sources");

    // Single-file convert names shaders as build does; missing parents are created.
    for s in ["src/shaders/sprite.vert", "src/shaders/sprite.frag"] {
        std::fs::create_dir_all(p.join("shaders-out")).unwrap();
        let (c, _, e) = run(p, &["asset", "convert", s, "shaders-out"]);
        assert_eq!(c, 0, "{e}");
    }
    assert_eq!(
        tree(&p.join("shaders-out")),
        ["sprite.frag.caf", "sprite.vert.caf"]
    );
    let (c, _, e) = run(p, &["world", "resave", "w.vwr", "new/deep/x.vwr"]);
    assert_eq!(c, 0, "{e}");
    assert!(p.join("new/deep/x.vwr").is_file());

    // A parent that is a file is refused up front.
    let (c, _, e) = run(p, &["world", "render", "w.vwr", "-o", "a.caf/x.png"]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("is a file"), "{e}");
    // The extension is checked before any work, and nothing stray is left.
    let (c, _, e) = run(p, &["world", "mesh", "w.vwr", "-o", "w.stl"]);
    assert_eq!(c, 2, "{e}");
    assert!(!p.join("w.stl").exists());
    let top: Vec<String> = std::fs::read_dir(p)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || n.contains("tmp"))
        .collect();
    assert!(top.is_empty(), "stray files: {top:?}");
}

#[test]
fn item2_dash_is_stdin_or_stdout_or_a_usage_error() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let (c, world, e) = run_in(p, &["world", "new", "-", "--chunks", "1"], b"");
    assert_eq!(c, 0, "{e}");
    assert_eq!(&world[..4], b"VWR1");
    let (c, out, e) = run_in(p, &["world", "info", "--json", "-"], &world);
    assert_eq!(c, 0, "{e}");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["chunks_per_axis"], 1);
    let (c, out, e) = run_in(p, &["world", "resave", "-", "-"], &world);
    assert_eq!((c, &out), (0, &world), "{e}");
    let (c, caf, e) = run_in(
        p,
        &["asset", "pack", "--type", "mesh", "--payload", "-", "-"],
        b"xyz",
    );
    assert_eq!(c, 0, "{e}");
    let (c, out, e) = run_in(p, &["asset", "extract", "-", "--payload", "-"], &caf);
    assert_eq!((c, out.as_slice()), (0, &b"xyz"[..]), "{e}");
    let (c, _, e) = run_in(p, &["asset", "check", "-"], &caf);
    assert_eq!(c, 0, "{e}");

    std::fs::write(p.join("w.vwr"), &world).unwrap();
    for args in [
        &["world", "render", "w.vwr", "-o", "-"][..],
        &["world", "mesh", "w.vwr", "-o", "-"],
        &["world", "edit", "-", "place 1 1 1 35"],
        &["asset", "build", "-", "out"],
        &["asset", "build", "w.vwr", "-"],
        &["asset", "convert", "-", "x.caf"],
        &["demo", "-"],
    ] {
        let (c, _, e) = run(p, args);
        assert_eq!(c, 2, "{args:?}: {e}");
    }
    assert_eq!(tree(p), ["w.vwr"], "no file named -");
}

#[test]
fn item4_exit_codes_and_one_json_error_shape() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    new_world(p, "w.vwr");
    let (c, _, _) = run(p, &["world", "new", "sky.vwr", "--sky", "99"]);
    assert_eq!(c, 2);
    assert!(!p.join("sky.vwr").exists());
    let (c, _, e) = run(p, &["world", "new", "w.vwr"]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("--force"), "{e}");
    let (c, _, e) = run(p, &["world", "info", "missing.vwr"]);
    assert_eq!(c, 1);
    assert_eq!(e.matches("missing.vwr").count(), 1, "{e}");
    let (c, _, e) = run(p, &["world", "edit", "w.vwr", "place", "1", "1", "1", "35"]);
    assert_eq!(c, 1);
    assert!(e.contains("quote each operation"), "{e}");

    std::fs::write(p.join("bad.png"), b"not a png").unwrap();
    std::fs::write(p.join("bad.vwr"), b"VWR1 nope").unwrap();
    // Commands that fail as a whole answer {"ok": false, "error": {kind, message, file}}.
    for (args, kind) in [
        (&["world", "info", "--json", "missing.vwr"][..], "input"),
        (&["world", "layer", "--json", "bad.vwr", "0"], "input"),
        (
            &["world", "mesh", "--json", "bad.vwr", "-o", "m.glb"],
            "input",
        ),
        (
            &["world", "mesh", "--json", "w.vwr", "-o", "m.stl"],
            "usage",
        ),
        (&["world", "edit", "--json", "w.vwr", "frobnicate"], "input"),
        (
            &["world", "edit", "--json", "bad.vwr", "place 1 1 1 35"],
            "input",
        ),
        (&["asset", "info", "--json", "missing.caf"], "input"),
        (&["asset", "convert", "--json", "bad.png", "b.caf"], "input"),
        (&["asset", "convert", "--json", "w.vwr", "w.vwr"], "usage"),
        (&["asset", "build", "--json", "nosrc", "out"], "input"),
    ] {
        let (c, out, e) = run(p, args);
        assert_ne!(c, 0, "{args:?}");
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|x| panic!("{args:?}: {x}: {out} {e}"));
        assert_eq!(v["ok"], false, "{args:?}");
        assert_eq!(v["error"]["kind"], kind, "{args:?}: {v}");
        assert!(v["error"]["message"].is_string(), "{args:?}");
        assert_eq!(c, if kind == "usage" { 2 } else { 1 }, "{args:?}: {v}");
    }
    // Per-file verdicts carry the same "ok".
    let (c, out, _) = run(p, &["world", "check", "--json", "bad.vwr"]);
    assert_eq!(c, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["ok"], false);
    let (c, out, _) = run(p, &["asset", "check", "--json", "missing.caf"]);
    assert_eq!(c, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["ok"], false);
    // Successes carry "ok": true.
    let (c, out, e) = run(p, &["world", "mesh", "--json", "w.vwr", "-o", "m.obj"]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["ok"],
        true
    );
    std::fs::remove_file(p.join("m.obj")).unwrap();
    assert!(!p.join("m.glb").exists() && !p.join("b.caf").exists());
    assert!(!p.join("m.stl").exists());
}

#[test]
fn item7_info_walks_folders() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::create_dir_all(p.join("worlds/sub")).unwrap();
    new_world(p, "worlds/a.vwr");
    new_world(p, "worlds/sub/b.vwr");
    let (c, out, e) = run(p, &["world", "info", "--json", "worlds"]);
    assert_eq!(c, 0, "{e}");
    let files: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].to_string())
        .collect();
    assert_eq!(files.len(), 2, "{out}");
    std::fs::create_dir_all(p.join("assets")).unwrap();
    for n in ["x.caf", "y.caf"] {
        let (c, _, e) = run(
            p,
            &["asset", "pack", "--type", "mesh", &format!("assets/{n}")],
        );
        assert_eq!(c, 0, "{e}");
    }
    let (c, out, e) = run(p, &["asset", "info", "assets"]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        out.lines().filter(|l| l.contains(".caf")).count(),
        2,
        "{out}"
    );
    let (c, _, _) = run(p, &["asset", "info", "worlds"]);
    assert_eq!(c, 1, "a folder without .caf files fails");
}

/// A `.gltf` export also writes `NAME.bin` beside it: that second file follows the policy too.
#[test]
fn item1_the_buffer_beside_a_gltf_is_not_overwritten_blindly() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    new_world(p, "w.vwr");
    let (c, _, e) = run(p, &["world", "edit", "w.vwr", "box 0 0 0 5 0 5 35"]);
    assert_eq!(c, 0, "{e}");
    std::fs::write(p.join("scene.bin"), b"someone's data").unwrap();
    let (c, _, e) = run(p, &["world", "mesh", "w.vwr", "-o", "scene.gltf"]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("scene.bin") && e.contains("--force"), "{e}");
    assert_eq!(
        std::fs::read(p.join("scene.bin")).unwrap(),
        b"someone's data"
    );
    assert!(!p.join("scene.gltf").exists());
    // With --force it is replaced; re-exporting over our own export needs no --force.
    let (c, _, e) = run(
        p,
        &["world", "mesh", "w.vwr", "-o", "scene.gltf", "--force"],
    );
    assert_eq!(c, 0, "{e}");
    assert_ne!(
        std::fs::read(p.join("scene.bin")).unwrap(),
        b"someone's data"
    );
    let (c, _, e) = run(p, &["world", "mesh", "w.vwr", "-o", "scene.gltf"]);
    assert_eq!(c, 0, "{e}");
}

/// `asset build` into a folder of someone else's files would scatter outputs and a manifest
/// among them: refused unless it is an earlier build output or `--force` is given.
#[test]
fn item1_build_refuses_a_foreign_output_folder() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::create_dir_all(p.join("src")).unwrap();
    let (c, _, e) = run(p, &["asset", "pack", "--type", "mesh", "src/a.caf"]);
    assert_eq!(c, 0, "{e}");
    std::fs::create_dir_all(p.join("docs")).unwrap();
    std::fs::write(p.join("docs/readme.txt"), b"mine").unwrap();
    let before = tree(p);
    let (c, _, e) = run(p, &["asset", "build", "src", "docs"]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("not a build output") && e.contains("--force"),
        "{e}"
    );
    assert_eq!(tree(p), before);
    // A new folder, then rebuilding into the same (now a build output) folder, are fine.
    let (c, _, e) = run(p, &["asset", "build", "src", "out"]);
    assert_eq!(c, 0, "{e}");
    let (c, _, e) = run(p, &["asset", "build", "src", "out"]);
    assert_eq!(c, 0, "{e}");
    let (c, _, e) = run(p, &["asset", "build", "src", "docs", "--force"]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(std::fs::read(p.join("docs/readme.txt")).unwrap(), b"mine");
}

#[test]
fn mesh_and_render_take_the_output_as_an_argument_or_as_out() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    new_world(p, "w.vwr");
    for (args, made) in [
        (&["world", "mesh", "w.vwr", "a.glb"][..], "a.glb"),
        (&["world", "mesh", "w.vwr", "--out", "b.obj"], "b.obj"),
        (
            &["world", "render", "w.vwr", "c.png", "--size", "32x24"],
            "c.png",
        ),
        (
            &["world", "render", "w.vwr", "-o", "d.png", "--size", "32x24"],
            "d.png",
        ),
    ] {
        let (c, _, e) = run(p, args);
        assert_eq!(c, 0, "{args:?}: {e}");
        assert!(p.join(made).is_file(), "{args:?}");
    }
    // Neither, or both: a usage error naming OUT, and nothing written.
    for cmd in ["mesh", "render"] {
        let (c, _, e) = run(p, &["world", cmd, "w.vwr"]);
        assert_eq!(c, 2, "{e}");
        assert!(e.contains("<OUTPUT>"), "{e}");
        let (c, _, e) = run(p, &["world", cmd, "w.vwr", "x.png", "-o", "y.png"]);
        assert_eq!(c, 2, "{e}");
        assert!(e.contains("cannot be used with"), "{e}");
        assert!(!p.join("x.png").exists() && !p.join("y.png").exists());
    }
}
