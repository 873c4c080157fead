//! Shared helpers for the integration tests.
#![allow(dead_code, unused_imports)]

use std::path::PathBuf;

/// The golden folder (`VOXCAF_GOLDEN`, default `../shared/golden` beside the repository), or
/// `None` when it is missing and `VOXCAF_REQUIRE_GOLDEN` is not set (the test then skips).
pub fn golden_dir() -> Option<PathBuf> {
    voxcaf_golden::with_worlds()
}

/// Every golden `.vwr` file, sorted.
pub fn golden_worlds() -> Vec<PathBuf> {
    let Some(dir) = golden_dir() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for sub in ["worlds3d", "random", "edge"] {
        let d = dir.join("vwr").join(sub);
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "vwr") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

pub use voxcaf_golden::Rng;
