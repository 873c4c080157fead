//! Crash safety and interrupts, with real processes: the test binary re-runs itself as a child
//! that saves in a loop (or holds a save open), and the parent kills or signals it.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the child's environment: which role to play and on which file.
const ROLE: &str = "VOXCAF_FS_TEST_CHILD";
const TARGET: &str = "VOXCAF_FS_TEST_TARGET";

/// Deterministic bytes (an LCG), so old and new versions differ everywhere.
fn version(seed: u32, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 24) as u8
        })
        .collect()
}

fn old_version() -> Vec<u8> {
    version(1, 700_000)
}
fn new_version() -> Vec<u8> {
    version(2, 500_000)
}

fn spawn_child(role: &str, target: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["child_role", "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .env(TARGET, target)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits for the child's "ready" line.
fn wait_ready(child: &mut Child) {
    let mut line = String::new();
    let mut out = BufReader::new(child.stdout.as_mut().unwrap());
    while out.read_line(&mut line).unwrap() > 0 {
        if line.contains("ready") {
            return;
        }
        line.clear();
    }
    panic!("child ended before it was ready");
}

fn temp_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .collect()
}

/// The child side: does nothing in a normal test run.
#[test]
fn child_role() {
    let (Ok(role), Ok(target)) = (std::env::var(ROLE), std::env::var(TARGET)) else {
        return;
    };
    let target = PathBuf::from(target);
    match role.as_str() {
        // Save the two versions alternately, forever (until killed).
        "save-loop" => {
            let (old, new) = (old_version(), new_version());
            println!("ready");
            std::io::stdout().flush().unwrap();
            loop {
                voxcaf_fs::write_atomic(&target, &new).unwrap();
                voxcaf_fs::write_atomic(&target, &old).unwrap();
            }
        }
        // Hold a save half written until a signal arrives.
        "hold-save" => {
            voxcaf_fs::signals::install().unwrap();
            let mut f = voxcaf_fs::AtomicFile::create(&target).unwrap();
            f.write_all(&new_version()[..1000]).unwrap();
            println!("ready {}", f.temp_path().display());
            std::io::stdout().flush().unwrap();
            std::thread::sleep(Duration::from_secs(30));
            // Not reached when the signal handler works: the save would complete.
            f.write_all(&new_version()[1000..]).unwrap();
            f.commit().unwrap();
        }
        other => panic!("unknown role {other}"),
    }
}

/// SIGKILL at random points of a save loop: the target is always exactly the old or the new
/// version, and the next save works and leaves no temporary file of its own.
#[test]
fn sigkill_at_any_point_leaves_the_old_or_the_new_version() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("world.vwr");
    let (old, new) = (old_version(), new_version());
    voxcaf_fs::write_atomic(&target, &old).unwrap();
    let start = Instant::now();
    let mut rng = 0x9e37_79b9u32;
    let (mut kills, mut mid_save) = (0, 0);
    // A few hundred kills, bounded in time for slow machines.
    while kills < 300 && start.elapsed() < Duration::from_secs(20) {
        let mut child = spawn_child("save-loop", &target);
        wait_ready(&mut child);
        rng = rng.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        std::thread::sleep(Duration::from_micros(u64::from(rng >> 20) % 20_000));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        kills += 1;
        let now = std::fs::read(&target).unwrap();
        assert!(
            now == old || now == new,
            "after kill {kills}: target is {} bytes, neither version",
            now.len()
        );
        // SIGKILL cannot clean up: a leftover means the kill landed inside a save.
        let stale = temp_files(dir.path());
        if !stale.is_empty() {
            mid_save += 1;
            for p in stale {
                std::fs::remove_file(p).unwrap();
            }
        }
    }
    eprintln!(
        "{kills} kills ({mid_save} inside a save) in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(kills >= 20, "only {kills} kills in the time bound");
    assert!(mid_save > 0, "no kill landed inside a save");
    // A stale temporary file of a killed process does not disturb the next save.
    let mut child = spawn_child("save-loop", &target);
    wait_ready(&mut child);
    std::thread::sleep(Duration::from_millis(5));
    child.kill().unwrap();
    child.wait().unwrap();
    let stale = temp_files(dir.path());
    voxcaf_fs::write_atomic(&target, b"final").unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"final");
    assert_eq!(
        temp_files(dir.path()),
        stale,
        "the save left its own temporary file"
    );
}

fn signal_removes_the_temporary_file(sig: i32) {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("level.caf");
    std::fs::write(&target, b"old").unwrap();
    let mut child = spawn_child("hold-save", &target);
    wait_ready(&mut child);
    assert_eq!(temp_files(dir.path()).len(), 1, "the save is in progress");
    let status = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + sig));
    assert!(temp_files(dir.path()).is_empty(), "temporary file left");
    assert_eq!(std::fs::read(&target).unwrap(), b"old");
}

#[test]
fn sigint_removes_the_temporary_file_and_exits_130() {
    signal_removes_the_temporary_file(2);
}

#[test]
fn sigterm_removes_the_temporary_file_and_exits_143() {
    signal_removes_the_temporary_file(15);
}
