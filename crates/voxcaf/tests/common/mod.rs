//! Shared by the CLI test files: run the built `voxcaf` binary.
// Each test file is its own crate and uses a part of this module.
#![allow(dead_code)]

use std::io::Write as _;
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

/// Checks the `--help` of `voxcaf WORDS…`: it exits 0 and shows an `Examples:` section that
/// holds `example`.
pub fn assert_help_example(words: &[&str], example: &str) {
    let (code, out, err) = output(voxcaf().args(words).arg("--help"));
    assert_eq!(code, 0, "{words:?}: {err}");
    assert!(
        out.contains("Examples:") && out.contains(example),
        "{words:?}: {out}"
    );
}

/// Runs `cmd` to its end with `stdin` fed to it: (exit code, stdout, stderr).
pub fn output_with_stdin(cmd: &mut Command, stdin: &[u8]) -> (i32, String, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run voxcaf");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(stdin)
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait for voxcaf");
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

/// Writes a 22050 Hz 16-bit mono WAV of `frames` frames, frame `i` being `sample(i)`, making
/// its folder first.
pub fn write_wav(path: &Path, frames: u32, sample: impl Fn(u32) -> i16) {
    let samples: Vec<i16> = (0..frames).map(sample).collect();
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).unwrap();
    }
    std::fs::write(path, voxcaf_samples::wav_from_i16(22050, 1, &samples)).unwrap();
}

/// [`cli`] that must exit with `code`: its stdout.
pub fn cli_out(dir: &Path, line: &str, code: i32) -> String {
    let (got, out, err) = cli(dir, line);
    assert_eq!(got, code, "{line}: {out}{err}");
    out
}

/// [`cli`] that must exit 0: its stdout.
pub fn cli_ok(dir: &Path, line: &str) -> String {
    cli_out(dir, line, 0)
}

/// [`run`] that must exit with `code` and say `needle` on stderr: its stderr.
pub fn run_err(dir: &Path, args: &[&str], code: i32, needle: &str) -> String {
    let (got, out, err) = run(dir, args);
    assert_eq!(got, code, "{args:?}: {out}{err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    err
}

/// [`run_err`] with the arguments written as one command line (see [`cli`]).
pub fn cli_err(dir: &Path, line: &str, code: i32, needle: &str) -> String {
    run_err(
        dir,
        &line.split_whitespace().collect::<Vec<_>>(),
        code,
        needle,
    )
}

/// [`cli_ok`] of a command printing JSON: the parsed output.
pub fn cli_json(dir: &Path, line: &str) -> serde_json::Value {
    let out = cli_ok(dir, line);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{line}: {e}: {out}"))
}

/// The world commands the goals name, on `file` (`y` a level inside it).
pub fn commands(file: &str) -> Vec<Vec<String>> {
    let all: &[&str] = &[
        "info F",
        "check F",
        "get F 1,1,1",
        "layer F 5",
        "ray F --from 1,5,1 --dir 1,-0.1,1",
        "objects F",
        "render F -o r.png",
        "mesh F -o m.glb",
        "history F",
        "convert F c.vwr",
        "dump F",
        "sweep F --box 1,1,1,2,3,2 --move 5,-3,5",
        "play F --input in.txt --ticks 20",
        "stats F",
        "diff F F",
        "edit F --dry-run -s ops.txt",
        "edit F -o edited.vwr -s ops.txt",
        "resave F resaved.vwr",
        "compact F",
    ];
    all.iter()
        .map(|c| {
            std::iter::once("world")
                .chain(c.split(' ').map(|w| if w == "F" { file } else { w }))
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// A 255³-chunk v3 world (2550³ blocks) with 40,000 single-block edits scattered over it,
/// and a 1000×100×1000 terrain with many special cells, made through the CLI.
pub fn goal_worlds(dir: &std::path::Path) {
    let mut rng = voxcaf_golden::Rng::new(37);
    let mut edits = String::new();
    for _ in 0..40_000 {
        let p = [0; 3].map(|_| rng.below(2550));
        let t = 1 + rng.below(39);
        edits += &format!("place {} {} {} {t}\n", p[0], p[1], p[2]);
    }
    let mut terrain = String::new();
    for x in (0..1000).step_by(10) {
        for z in (0..1000).step_by(10) {
            let h = 20 + ((x as f32 * 0.05).sin() * 8.0 + (z as f32 * 0.04).cos() * 8.0) as i32;
            terrain += &format!("box {x} 0 {z} {} {} {} 35\n", x + 9, h - 1, z + 9);
            terrain += &format!("box {x} {h} {z} {} {h} {} 1\n", x + 9, z + 9);
        }
    }
    for k in 0..20_000 {
        let p = [0; 3].map(|_| rng.below(1000));
        let t = ["Water", "Glass", "Grate", "Lava", "110"][k % 5];
        terrain += &format!("place {} {} {} {t}\n", p[0], 30 + p[1] % 30, p[2]);
    }
    std::fs::write(dir.join("edits.txt"), edits).unwrap();
    std::fs::write(dir.join("in.txt"), "").unwrap();
    std::fs::write(
        dir.join("ops.txt"),
        "box 0 0 0 99 0 99 35\nplace 5 5 5 Water\n",
    )
    .unwrap();
    std::fs::write(dir.join("terrain.txt"), terrain).unwrap();
    for cmd in [
        "world new w255.vwr --size 2550x2550x2550 --format v3",
        "world edit w255.vwr -s edits.txt",
        "world new terrain.vwr --size 1000x100x1000",
        "world edit terrain.vwr -s terrain.txt",
    ] {
        let (code, _, err) = output(voxcaf().current_dir(dir).args(cmd.split(' ')));
        assert_eq!(code, 0, "{cmd}: {err}");
    }
}
