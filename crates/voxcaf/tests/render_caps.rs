//! `voxcaf world render` honours `--size` for every view and refuses sizes above the cap.
#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output};

use vwr::{Block, World};

/// A tall world: 100 chunks per axis, one allocated chunk in every chunk layer.
fn tall_world(path: &Path) {
    let mut w = World::with_chunks_per_axis(100).unwrap();
    for cy in 0..100 {
        w.set_block([(cy % 7) * 10, cy * 10, 0], Block::make(3, 0).unwrap())
            .unwrap();
    }
    std::fs::write(path, vwr::write_world(&w)).unwrap();
}

/// Runs voxcaf with at most 1 GiB of address space, so an image sized by the world instead
/// of `--size` (13072 × 52590 × 4 bytes here) cannot be allocated.
fn voxcaf_bounded(args: &[&str]) -> Output {
    let mut script = format!("ulimit -v 1048576; exec {}", env!("CARGO_BIN_EXE_voxcaf"));
    for a in args {
        script.push_str(&format!(" '{a}'"));
    }
    Command::new("sh").args(["-c", &script]).output().unwrap()
}

fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n");
    let be = |o: usize| u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    (be(16), be(20))
}

#[test]
fn chunk_and_layer_views_of_a_large_world_stay_within_size_and_memory() {
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("tall.vwr");
    tall_world(&world);
    for (view, size) in [
        ("--chunks", "1024x768"),
        ("--chunks", "300x2000"),
        ("--layer=0", "300x300"),
    ] {
        let png = dir.path().join(format!("view-{size}.png"));
        let out = voxcaf_bounded(&[
            "world",
            "render",
            world.to_str().unwrap(),
            view,
            "--size",
            size,
            "-o",
            png.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{size}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (w, h) = png_size(&png);
        let (mw, mh) = size.split_once('x').unwrap();
        assert!(
            w <= mw.parse().unwrap() && h <= mh.parse().unwrap(),
            "{size}: {w}x{h}"
        );
    }
}

#[test]
fn sizes_above_the_cap_are_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("tall.vwr");
    tall_world(&world);
    for size in ["16385x10", "10x100000", "0x10", "99999999999x1"] {
        let png = dir.path().join("x.png");
        let out = voxcaf_bounded(&[
            "world",
            "render",
            world.to_str().unwrap(),
            "--chunks",
            "--size",
            size,
            "-o",
            png.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{size}: {stderr}");
        assert!(
            stderr.contains("16384x16384") || stderr.contains("bad size"),
            "{stderr}"
        );
        assert!(!png.exists());
    }
}
