//! Locates the golden data written by the original C++ implementations, for the test suites of
//! every crate (a dev-dependency only).
//!
//! The folder is `$VOXCAF_GOLDEN`, by default `shared/golden` beside the repository. When it is
//! missing, the helpers print a note and return `None` so the test skips — unless
//! `VOXCAF_REQUIRE_GOLDEN=1` (as CI sets it), in which case they panic and the test fails.

use std::path::{Path, PathBuf};

/// The golden root folder, whether or not it exists.
pub fn root() -> PathBuf {
    match std::env::var_os("VOXCAF_GOLDEN") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/golden"),
    }
}

/// Whether missing golden data must fail the tests.
pub fn required() -> bool {
    std::env::var("VOXCAF_REQUIRE_GOLDEN").is_ok_and(|v| v == "1")
}

fn missing<T>(what: &Path) -> Option<T> {
    if required() {
        panic!(
            "golden data not found at {} and VOXCAF_REQUIRE_GOLDEN=1",
            what.display()
        );
    }
    eprintln!(
        "note: golden data not found at {}; skipping",
        what.display()
    );
    None
}

/// The golden root, when it holds the `.vwr` set (`root/vwr`).
pub fn with_worlds() -> Option<PathBuf> {
    let dir = root();
    if dir.join("vwr").is_dir() {
        Some(dir)
    } else {
        missing(&dir.join("vwr"))
    }
}

/// The golden `caf` folder, when it holds its `manifest.tsv`.
pub fn caf() -> Option<PathBuf> {
    let caf = root().join("caf");
    if caf.join("manifest.tsv").is_file() {
        Some(caf)
    } else {
        missing(&caf)
    }
}
