//! Shared helpers for the integration tests.
#![allow(dead_code, unused_imports)]

use std::path::PathBuf;

use vwr::{Block, World};

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

/// A fresh temporary folder and the path `name` in it (the folder lives as long as the guard).
pub fn temp(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join(name);
    (d, p)
}

/// Hilly terrain in every chunk column of a 1000×100×1000 world (columns of 2×2 cells share a
/// height to keep the debug-build test quick).
pub fn terrain_1000() -> World {
    let mut w = World::with_chunk_dims([100, 10, 100]).unwrap();
    for x in (0..1000).step_by(2) {
        for z in (0..1000).step_by(2) {
            let h = 20 + ((x as f32 * 0.05).sin() * 8.0 + (z as f32 * 0.04).cos() * 8.0) as i32;
            w.fill_box([x, 0, z], [x + 1, h - 3, z + 1], Block(35 << 4))
                .unwrap();
            w.fill_box([x, h - 2, z], [x + 1, h, z + 1], Block(2 << 4))
                .unwrap();
        }
    }
    w
}
