//! Shared by the CLI test files: run the built `voxcaf` binary.

use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `voxcaf ARGS` in `dir` with no stdin and no `VOXCAF_KEY` from the environment:
/// (exit code, stdout, stderr).
pub fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_voxcaf"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .env_remove("VOXCAF_KEY")
        .output()
        .expect("run voxcaf");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
