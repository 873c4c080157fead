//! `voxcaf asset build` stopped by Ctrl-C, SIGTERM or a closed output pipe: the process ends
//! with the conventional status, the manifest lists exactly the assets finished, and no
//! temporary file is left.
#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};

use caf_import::batch::{Manifest, MANIFEST_NAME};

const SOURCES: usize = 300;

fn make_sources(src: &Path) {
    std::fs::create_dir_all(src).unwrap();
    for i in 0..SOURCES {
        std::fs::write(
            src.join(format!("s{i:03}.wav")),
            voxcaf_samples::wav_i16(22050, 2, 20_000 + i as u32),
        )
        .unwrap();
    }
}

fn start_build(src: &Path, out: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_voxcaf"))
        .args(["asset", "build", "--jobs", "1"])
        .arg(src)
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Reads lines until the first converted asset, so the build is certainly under way.
fn wait_first_asset(child: &mut Child) -> BufReader<std::process::ChildStdout> {
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while out.read_line(&mut line).unwrap() > 0 {
        if line.starts_with("converted") {
            return out;
        }
        line.clear();
    }
    panic!("the build printed no converted asset");
}

/// The manifest lists exactly the `.caf` files on disk, and there is no temporary file.
fn check_out_dir(out: &Path) -> usize {
    let m = Manifest::read(&out.join(MANIFEST_NAME)).expect("manifest written");
    let mut listed: Vec<String> = m.assets.iter().map(|e| e.output.clone()).collect();
    listed.sort();
    let mut on_disk: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != MANIFEST_NAME)
        .collect();
    on_disk.sort();
    assert_eq!(
        listed, on_disk,
        "manifest and folder disagree (or a stray file)"
    );
    listed.len()
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

fn interrupted_build(sig: &str) -> (ExitStatus, String, usize) {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
    make_sources(&src);
    let mut child = start_build(&src, &out);
    let mut stdout = wait_first_asset(&mut child);
    signal(&child, sig);
    // Keep reading so the pipe stays open until the build ends.
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let done = child.wait_with_output().unwrap();
    let finished = check_out_dir(&out);
    assert!(
        (1..SOURCES).contains(&finished),
        "{finished} of {SOURCES} finished: the signal came too late to test anything"
    );
    (
        done.status,
        String::from_utf8_lossy(&done.stderr).into_owned(),
        finished,
    )
}

#[test]
fn ctrl_c_stops_the_build_writes_the_manifest_and_exits_130() {
    let (status, stderr, finished) = interrupted_build("-INT");
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(stderr.contains(&format!("{finished} assets")), "{stderr}");
}

#[test]
fn sigterm_stops_the_build_writes_the_manifest_and_exits_143() {
    let (status, stderr, _) = interrupted_build("-TERM");
    assert_eq!(status.code(), Some(143), "{stderr}");
}

#[test]
fn a_closed_output_pipe_stops_the_build_quietly_with_the_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
    make_sources(&src);
    let mut child = start_build(&src, &out);
    // `| head -1`: one line read, then the pipe is closed.
    drop(wait_first_asset(&mut child));
    let done = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(141), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let finished = check_out_dir(&out);
    assert!((1..SOURCES).contains(&finished), "{finished}");
}

/// Ctrl-C at any moment, from the start (before the first asset, while the folder is being
/// made) to well into the build: the folder left behind is either empty or a build output
/// with its manifest, and the next build accepts it and finishes.
#[test]
fn an_interrupted_build_at_any_moment_leaves_a_folder_the_next_build_finishes() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    make_sources(&src);
    for (k, delay_ms) in [0u64, 1, 3, 7, 15, 30, 60, 120].into_iter().enumerate() {
        let out = tmp.path().join(format!("out{k}"));
        let child = start_build(&src, &out);
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        signal(&child, "-INT");
        let done = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&done.stderr);
        // Interrupted (130; or ended by the signal itself when it lands before the handler
        // is installed, as a shell reports 130 too), or done before the signal landed (0).
        use std::os::unix::process::ExitStatusExt;
        assert!(
            matches!(done.status.code(), Some(0 | 130)) || done.status.signal() == Some(2),
            "after {delay_ms} ms: {:?}\n{stderr}",
            done.status
        );
        let empty = !out.exists() || std::fs::read_dir(&out).unwrap().next().is_none();
        if !empty {
            check_out_dir(&out);
        }
        let next = start_build(&src, &out).wait_with_output().unwrap();
        assert_eq!(
            next.status.code(),
            Some(0),
            "the build after an interruption at {delay_ms} ms: {}",
            String::from_utf8_lossy(&next.stderr)
        );
        assert_eq!(check_out_dir(&out), SOURCES);
    }
}

/// `asset build --watch` builds, then builds again what changes under the source folder
/// (a new source here) until Ctrl-C, which ends it with 130 and the last build's manifest.
#[test]
fn asset_build_watch_rebuilds_what_changes_until_ctrl_c() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
    std::fs::create_dir_all(&src).unwrap();
    let wav = |name: &str, frames: u32| {
        std::fs::write(src.join(name), voxcaf_samples::wav_i16(22050, 1, frames)).unwrap();
    };
    wav("a.wav", 1000);
    wav("b.wav", 2000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_voxcaf"))
        .args(["asset", "build", "--watch"])
        .arg(&src)
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A watchdog: a build that never prints its second summary fails the test, not hangs it.
    let pid = child.id().to_string();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(120));
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    });
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut summary = || loop {
        let line = lines.next().expect("the build ended early").unwrap();
        if line.contains(" assets in ") {
            return line;
        }
    };
    assert!(summary().contains("2 converted"));
    // A new source: built, the others up to date.
    wav("c.wav", 3000);
    let second = summary();
    assert!(
        second.contains("3 assets") && second.contains("1 converted"),
        "{second}"
    );
    signal(&child, "-INT");
    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(130));
    assert_eq!(check_out_dir(&out), 3);
}
