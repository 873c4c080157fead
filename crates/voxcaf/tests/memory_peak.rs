//! Peak memory of the world commands that read a world as they go: on a 255³-chunk world with
//! 40,000 scattered edits, `info`, `check`, `get`, `layer` and `ray` each stay under 128 MiB
//! resident (issue 37's goal). Its own test binary, so that the peak a child inherits from
//! this process (`ru_maxrss` keeps the spawning process's high-water mark across `exec`) is
//! this small process's, not that of tests capturing large outputs. The largest world the
//! format allows, nearly empty, costs what it holds, not its 4.3 G chunk positions.

// A child's peak memory comes from `wait4` (libc): the one unsafe call of these tests.
#![allow(unsafe_code)]

mod common;
use common::{commands, goal_worlds, voxcaf};

use std::path::Path;

/// Runs `voxcaf ARGS` in `dir` and returns its exit code and its peak resident memory in
/// KiB (the child's own `ru_maxrss`, through `wait4`).
// The child is reaped by `wait4` itself, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn peak_kib(dir: &Path, args: &[String]) -> (i32, i64) {
    let child = voxcaf()
        .current_dir(dir)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into the two locals above; `child` is not
    // waited for again (its drop does not wait).
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4 failed");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    (code, usage.ru_maxrss)
}

#[test]
fn reading_commands_peak_under_128_mib_on_the_255_cubed_chunk_world() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    goal_worlds(d);
    for args in commands("w255.vwr").into_iter().take(5) {
        assert_peak_under(d, &args, 128);
    }
}

/// Runs `voxcaf ARGS` in `dir`: it succeeds, and peaks under `mib` MiB.
fn assert_peak_under(dir: &Path, args: &[String], mib: i64) {
    let (code, kib) = peak_kib(dir, args);
    assert_eq!(code, 0, "{args:?}");
    assert!(
        kib < mib * 1024,
        "`voxcaf {}` peaked at {kib} KiB",
        args.join(" ")
    );
}

/// The largest world (655,350 × 10 × 655,350 blocks, 65535 × 1 × 65535 chunks) holding two
/// blocks at opposite corners: every reading command (and a mesh of it) stays under 32 MiB.
/// Its page table alone took 134 MB when it had an entry for every page the world could have.
#[test]
fn the_largest_world_nearly_empty_is_read_in_a_few_mib() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let run = |args: &[&str]| {
        let out = voxcaf().current_dir(d).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
    };
    run(&["world", "new", "huge.vwr", "--size", "655350x10x655350"]);
    run(&[
        "world",
        "edit",
        "huge.vwr",
        "place 5 5 5 35",
        "place 655340 5 655340 35",
    ]);
    let picked = [
        "info", "check", "get", "ray", "objects", "mesh", "history", "stats",
    ];
    for args in commands("huge.vwr") {
        if !picked.contains(&args[1].as_str()) {
            continue;
        }
        assert_peak_under(d, &args, 32);
    }
}
