//! Under an address-space limit (`ulimit -v`, 512 MiB), every world command on the largest
//! world the format allows either completes or refuses with a typed error and exit 1: never an
//! abort (exit 134), a panic or a backtrace. Commands that still need memory in proportion to
//! the world end with "out of memory while running `voxcaf world ...`" (the CLI's allocator,
//! `src/oom.rs`); commands that stream simply complete.

mod common;
use common::{commands, goal_worlds, output, voxcaf};

use std::path::Path;
use std::process::Command;

/// 512 MiB of address space, in KiB as `ulimit -v` counts.
const LIMIT_KIB: u64 = 512 * 1024;

/// `voxcaf ARGS` in `dir` under the address-space limit, through `sh -c 'ulimit -v ...'`.
fn limited(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let bin = voxcaf().get_program().to_owned();
    let mut cmd = Command::new("sh");
    cmd.current_dir(dir)
        .arg("-c")
        // A hang is a failure too (exit 124), not a stuck test run.
        .arg(format!(
            "ulimit -v {LIMIT_KIB} && exec timeout 300 \"$0\" \"$@\""
        ))
        .arg(bin)
        .args(args);
    output(&mut cmd)
}

/// A folder holding `big.vwr`, an empty world of the largest size the format allows.
fn largest_world() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let (code, _, err) = output(voxcaf().current_dir(t.path()).args([
        "world",
        "new",
        "big.vwr",
        "--size",
        "655350x10x655350",
    ]));
    assert_eq!(code, 0, "{err}");
    t
}

#[test]
fn every_world_command_completes_or_refuses_under_512_mib_on_the_largest_world() {
    let t = largest_world();
    let d = t.path();
    std::fs::write(d.join("in.txt"), "").unwrap();
    let commands: &[&[&str]] = &[
        &["world", "info", "big.vwr"],
        &["world", "check", "big.vwr"],
        &["world", "get", "big.vwr", "1,1,1"],
        &["world", "layer", "big.vwr", "0"],
        &[
            "world", "ray", "big.vwr", "--from", "1,5,1", "--dir", "0,-1,0",
        ],
        &["world", "objects", "big.vwr"],
        &[
            "world",
            "sweep",
            "big.vwr",
            "--box",
            "1,1,1,2,3,2",
            "--move",
            "5,-3,5",
        ],
        &[
            "world", "play", "big.vwr", "--input", "in.txt", "--ticks", "20",
        ],
        &["world", "render", "big.vwr", "-o", "r.png"],
        &["world", "mesh", "big.vwr", "-o", "m.glb"],
        &["world", "history", "big.vwr"],
        &["world", "convert", "big.vwr", "c.vwr"],
        &["world", "dump", "big.vwr"],
        &[
            "world",
            "edit",
            "big.vwr",
            "--dry-run",
            "box 0 0 0 655349 0 655349 35",
        ],
    ];
    for args in commands {
        let (code, out, err) = limited(d, args);
        let shown = args.join(" ");
        assert!(
            code == 0 || code == 1,
            "`voxcaf {shown}` ended with {code} under the limit\nstdout: {out}\nstderr: {err}"
        );
        for never in [
            "panicked",
            "backtrace",
            "memory allocation of",
            "RUST_BACKTRACE",
        ] {
            assert!(
                !err.contains(never),
                "`voxcaf {shown}` printed {never:?}:\n{err}"
            );
        }
        if code == 1 && err.contains("out of memory") {
            let command = format!("`voxcaf {} {}`", args[0], args[1]);
            assert!(
                err.starts_with("error: ") && err.contains(&command),
                "`voxcaf {shown}` failed without naming itself:\n{err}"
            );
        }
    }
}

#[test]
fn out_of_memory_answers_in_json_for_json_commands() {
    let t = largest_world();
    let d = t.path();
    // Filling the whole floor of the largest world makes 4.3 billion chunks: past any memory.
    // The estimate refuses it up front (tested below); `--max-memory` set past the limit makes
    // the edit try, and run out.
    let args = [
        "world",
        "edit",
        "big.vwr",
        "--dry-run",
        "--json",
        "--max-memory",
        "100T",
        "box 0 0 0 655349 0 655349 35",
    ];
    let (code, out, err) = limited(d, &args);
    let v: serde_json::Value = serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}\nstderr: {err}"));
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["kind"], "out_of_memory", "{v}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("`voxcaf world edit`"), "{v}");
}

#[test]
fn the_goal_worlds_complete_or_refuse_under_512_mib() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    goal_worlds(d);
    for file in ["w255.vwr", "terrain.vwr"] {
        for args in commands(file) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, out, err) = limited(d, &args);
            let shown = args.join(" ");
            assert!(
                code == 0 || (code == 1 && err.starts_with("error: ")),
                "`voxcaf {shown}` ended with {code} under the limit\nstdout: {out}\nstderr: {err}"
            );
            assert!(!err.contains("panicked"), "{shown}: {err}");
            // The terrain's full-detail mesh does not fit: refused with its estimate, before
            // it is built.
            if shown == "world mesh terrain.vwr -o m.glb" {
                assert!(
                    code == 1 && err.contains("vertices would take about"),
                    "{err}"
                );
            }
        }
    }
}

#[test]
fn edits_past_the_memory_budget_are_refused_with_their_estimate_before_work() {
    let t = largest_world();
    let d = t.path();
    let (code, _, err) = limited(
        d,
        &[
            "world",
            "edit",
            "big.vwr",
            "--dry-run",
            "box 0 0 0 9999 0 9999 35",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("reaches up to 1000000 chunks") && err.contains("--max-memory"),
        "{err}"
    );
    // A small box fits, and a budget the user sets is kept.
    let (code, _, err) = limited(
        d,
        &[
            "world",
            "edit",
            "big.vwr",
            "--dry-run",
            "box 0 0 0 99 0 99 35",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = limited(
        d,
        &[
            "world",
            "edit",
            "big.vwr",
            "--dry-run",
            "--max-memory",
            "1M",
            "box 0 0 0 999 0 999 35",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("more than the 1.0 MB it may use"), "{err}");
}
