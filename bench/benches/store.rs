//! Worlds in PostgreSQL as a user runs them (issue 38), against a real server the bench starts
//! (`voxcaf_pg_test`) on loopback:
//!
//! - `migrate`: `voxcaf world migrate` of the 1000×100×1000 terrain (about 41,000 stored
//!   chunks) file -> database and database -> file, whole process, against `voxcaf world
//!   convert` of the same file to a file (the baseline: the same chunks read and written
//!   without a server). Goal: under 10 s each way.
//! - `read one chunk`: a random single-chunk read through `PgStore::read`, against the same
//!   read from the v3 file through `WorldFile::chunk` (cache off). Goal: p50 under 0.3 ms,
//!   p99 under 2 ms; the percentiles over 5,000 reads are printed before criterion's means.
//!
//! Needs the release binary (`cargo build --release -p voxcaf`) and PostgreSQL's server
//! binaries; without them it says so and measures nothing.
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use vwr::{ChunkStore, SaveOptions, WorldFile};
use vwr_postgres::{PgLocation, PgStore};

fn voxcaf() -> Option<PathBuf> {
    // target/release/deps/store-… -> target/release/voxcaf
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?.parent()?.join("voxcaf");
    bin.is_file().then_some(bin)
}

fn run(bin: &Path, args: &[&str]) {
    let out = Command::new(bin).args(args).output().expect("run voxcaf");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Random chunk positions of the stored chunks (a fixed LCG, so runs compare).
fn sample(list: &[[u32; 3]], n: usize) -> Vec<[u32; 3]> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            list[(x >> 33) as usize % list.len()]
        })
        .collect()
}

fn percentiles(name: &str, mut t: Vec<Duration>) {
    t.sort();
    let at = |q: f64| t[((t.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
    eprintln!(
        "{name}: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms over {} reads",
        at(0.5),
        at(0.99),
        at(1.0),
        t.len()
    );
}

fn store(c: &mut Criterion) {
    let Some(bin) = voxcaf() else {
        eprintln!("store bench: build the release binary first: cargo build --release -p voxcaf");
        return;
    };
    let Some(pg) = voxcaf_pg_test::TestServer::start() else {
        eprintln!("store bench: PostgreSQL's server binaries (initdb, pg_ctl) are not installed");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("terrain.vwr");
    voxcaf_bench::terrain_1000()
        .save_with(&file, &SaveOptions::of_version(3))
        .expect("save");
    let (f, url) = (file.to_str().expect("utf-8"), pg.url("terrain"));
    let back = dir.path().join("back.vwr");
    let copy = dir.path().join("copy.vwr");
    let (b, cp) = (back.to_str().expect("utf-8"), copy.to_str().expect("utf-8"));

    let mut g = c.benchmark_group("migrate");
    g.sample_size(10).measurement_time(Duration::from_secs(60));
    g.bench_function("file to file (world convert, baseline)", |bn| {
        bn.iter(|| run(&bin, &["world", "convert", f, cp, "--force"]))
    });
    g.bench_function("file to database", |bn| {
        bn.iter(|| run(&bin, &["world", "migrate", f, &url, "--replace"]))
    });
    g.bench_function("database to file", |bn| {
        bn.iter(|| run(&bin, &["world", "migrate", &url, b, "--replace"]))
    });
    g.finish();

    let loc = PgLocation::parse(&url).expect("location");
    let mut db = PgStore::open(&loc).expect("open");
    let list = db.list().expect("list");
    let picks = sample(&list, 5000);
    let disk = WorldFile::open(&file).expect("open").with_cache_chunks(0);
    let timed = |read: &mut dyn FnMut([u32; 3])| -> Vec<Duration> {
        picks
            .iter()
            .map(|&p| {
                let t = Instant::now();
                read(p);
                t.elapsed()
            })
            .collect()
    };
    percentiles(
        "read one chunk, database",
        timed(&mut |p| drop(db.read(&[p]).expect("read"))),
    );
    percentiles(
        "read one chunk, v3 file (baseline)",
        timed(&mut |p| drop(disk.chunk(p).expect("read"))),
    );
    let mut g = c.benchmark_group("read one chunk");
    let mut i = 0;
    g.bench_function("v3 file (baseline)", |bn| {
        bn.iter(|| {
            i = (i + 1) % picks.len();
            disk.chunk(picks[i]).expect("read")
        })
    });
    g.bench_function("database", |bn| {
        bn.iter(|| {
            i = (i + 1) % picks.len();
            db.read(&[picks[i]]).expect("read")
        })
    });
    g.finish();
}

criterion_group!(benches, store);
criterion_main!(benches);
