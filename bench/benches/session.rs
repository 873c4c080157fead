//! The one world session as a user runs it, whole process: `voxcaf world edit` of 10 blocks
//! in a 1000×100×1000 terrain (a v3 file of about 1.1 MB) against `voxcaf world get` of one
//! block in the same file, the baseline the issue measures against (goal: at most 3×).
//!
//! Needs the release binary: `cargo build --release -p voxcaf` first (the bench says so and
//! measures nothing without it). Each edit run alternates two scripts, so that every run writes
//! a commit (an edit that changes nothing writes nothing).
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{criterion_group, criterion_main, Criterion};
use vwr::SaveOptions;

fn voxcaf() -> Option<PathBuf> {
    // target/release/deps/session-… -> target/release/voxcaf
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?.parent()?.join("voxcaf");
    bin.is_file().then_some(bin)
}

fn run(bin: &Path, dir: &Path, args: &[&str]) {
    let out = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run voxcaf");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn session(c: &mut Criterion) {
    let Some(bin) = voxcaf() else {
        eprintln!("session bench: build the release binary first: cargo build --release -p voxcaf");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    voxcaf_bench::terrain_1000()
        .save_with(d.join("t.vwr"), &SaveOptions::v3(vwr::Codec::Auto))
        .expect("save");
    for (name, block) in [("a.txt", "glass"), ("b.txt", "lava")] {
        let script: String = (0..10)
            .map(|k| format!("place {} 60 {} {block}\n", k * 97 + 3, k * 89 + 5))
            .collect();
        std::fs::write(d.join(name), script).expect("script");
    }
    let mut g = c.benchmark_group("world session, whole process (1000x100x1000 v3 terrain)");
    g.sample_size(30);
    g.bench_function("baseline: world get of one block", |b| {
        b.iter(|| run(&bin, d, &["world", "get", "t.vwr", "500", "40", "500"]));
    });
    let mut k = 0u32;
    g.bench_function("world edit of 10 blocks (one commit)", |b| {
        b.iter(|| {
            k += 1;
            let script = if k.is_multiple_of(2) {
                "a.txt"
            } else {
                "b.txt"
            };
            run(&bin, d, &["world", "edit", "t.vwr", "-s", script]);
        });
    });
    g.finish();
}

criterion_group!(benches, session);
criterion_main!(benches);
