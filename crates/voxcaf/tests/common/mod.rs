//! Shared by the CLI test files: run the built `voxcaf` binary.
// Each test file is its own crate and uses a part of this module.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};

/// The built `voxcaf` binary, not yet started.
pub fn voxcaf() -> Command {
    Command::new(env!("CARGO_BIN_EXE_voxcaf"))
}

/// Runs `cmd` to its end: (exit code, stdout, stderr); -1 for a death by signal.
pub fn output(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("run voxcaf");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `voxcaf ARGS` in `dir` with no stdin and `VOXCAF_KEY` set to `key_env` (unset for
/// `None`, whatever the test's own environment holds).
pub fn run_env(dir: &Path, args: &[&str], key_env: Option<&str>) -> (i32, String, String) {
    let mut cmd = voxcaf();
    cmd.current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .env_remove("VOXCAF_KEY");
    if let Some(key) = key_env {
        cmd.env("VOXCAF_KEY", key);
    }
    output(&mut cmd)
}

/// Runs `voxcaf ARGS` in `dir` with no stdin and no `VOXCAF_KEY` from the environment:
/// (exit code, stdout, stderr).
pub fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    run_env(dir, args, None)
}

/// [`run`] with the arguments written as one command line, split at whitespace (for
/// arguments without spaces).
pub fn cli(dir: &Path, line: &str) -> (i32, String, String) {
    run(dir, &line.split_whitespace().collect::<Vec<_>>())
}
