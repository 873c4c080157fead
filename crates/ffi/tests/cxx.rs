//! Builds `tests/cpp/voxcaf_test.cpp` with the machine's `g++` against the static library and
//! runs it: the original engines' test scenarios and every golden file, through the C API.
//!
//! Skips (with a note) when `g++` is missing, unless `VOXCAF_REQUIRE_CXX=1` (as CI sets it).

use std::path::{Path, PathBuf};
use std::process::Command;

fn required() -> bool {
    std::env::var("VOXCAF_REQUIRE_CXX").is_ok_and(|v| v == "1")
}

/// `libvoxcaf_ffi.a`, which cargo builds into `target/<profile>/deps/` beside this test (and
/// copies to `target/<profile>/` on `cargo build`).
fn static_lib() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("target/<profile>/deps/<test>");
    [deps, deps.parent().unwrap_or(deps)]
        .iter()
        .map(|d| d.join("libvoxcaf_ffi.a"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| deps.join("libvoxcaf_ffi.a"))
}

#[test]
fn cpp_program_passes_through_the_c_api() {
    let gxx = std::env::var("CXX").unwrap_or_else(|_| "g++".into());
    if Command::new(&gxx).arg("--version").output().is_err() {
        assert!(!required(), "{gxx} not found and VOXCAF_REQUIRE_CXX=1");
        eprintln!("note: {gxx} not found; skipping the C++ test program");
        return;
    }
    let lib = static_lib();
    assert!(lib.is_file(), "{} was not built", lib.display());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("voxcaf_test");
    let out = Command::new(&gxx)
        .args(["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&exe)
        .arg(dir.join("tests/cpp/voxcaf_test.cpp"))
        .arg("-I")
        .arg(dir.join("include"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm"])
        .output()
        .expect("run g++");
    assert!(
        out.status.success(),
        "g++ failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let work = tmp.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let mut run = Command::new(&exe);
    run.arg(&work);
    if let Some(g) = voxcaf_golden::with_worlds() {
        if voxcaf_golden::caf().is_some() {
            run.arg(g);
        }
    }
    let out = run.output().expect("run the C++ test program");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "C++ test program failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("40 scenarios"), "{stdout}");
}
