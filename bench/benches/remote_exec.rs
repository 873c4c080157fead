//! Remote execution with one and two workers (issue 41's goal: two workers on two cores at
//! least 1.8× one worker on a CPU-bound tree).
//!
//! ```text
//! VOXCAF_BUILDGRID_VENV=/path/to/venv cargo bench -p voxcaf-bench --bench remote_exec
//! ```
//!
//! The venv needs BuildGrid with its `database` extra (`pip install 'buildgrid[database]==0.4.4'`)
//! and PostgreSQL's server binaries must be installed (crates/bgd-test starts both); it skips
//! with a message otherwise. `VOXCAF_BENCH_TEXTURES=N` for another count than 24 (fewer make
//! the build's fixed costs weigh more: the last texture keeps one worker busy while the other
//! waits).
//!
//! The tree: N textures of 512×512 noise (uncompressed TGA) built with mips into BC7, a third
//! to half a second of one core each. Every timed build converts fresh sources (new noise, so new
//! actions: nothing comes from the cache) into an empty folder through
//! `caf_import::batch::build` with a remote cache that executes its misses
//! (`asset build --remote-cache URL --remote-exec`); the workers are `voxcaf_remote::worker`
//! bots in this process, one thread per conversion each (`asset worker`'s default), started
//! before the timed builds. For context: the same build locally with 1 and 2 threads.

// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::cell::{Cell, RefCell};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use caf_import::batch::{build, BuildOptions};
use caf_import::shared::{Origin, SharedCache};
use caf_import::{GpuFormat, Settings};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use voxcaf_remote::cache::RemoteCache;
use voxcaf_remote::worker::WorkerOptions;
use voxcaf_remote::Remote;

criterion_group!(benches, remote_exec);
criterion_main!(benches);

/// The goal: two workers' build at least this many times faster than one worker's.
const GOAL: f64 = 1.8;
const SIDE: u16 = 512;

/// Writes `n` textures of fresh noise (seeded by `seed`) under `dir` as uncompressed TGA.
fn write_textures(dir: &Path, n: usize, seed: u64) {
    std::fs::create_dir_all(dir).expect("source folder");
    for i in 0..n {
        let mut x = (seed * 1000 + i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut tga = vec![0u8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        tga.extend_from_slice(&SIDE.to_le_bytes());
        tga.extend_from_slice(&SIDE.to_le_bytes());
        tga.extend_from_slice(&[32, 8]);
        for _ in 0..usize::from(SIDE) * usize::from(SIDE) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            tga.extend_from_slice(&[(x >> 8) as u8, (x >> 16) as u8, (x >> 24) as u8, 255]);
        }
        std::fs::write(dir.join(format!("t{i:03}.tga")), tga).expect("texture");
    }
}

fn settings() -> Settings {
    Settings {
        mips: true,
        gpu_format: Some(GpuFormat::Bc7),
        ..Settings::default()
    }
}

/// The state of the bench: the server and the fresh-source counter.
struct Setup {
    server: voxcaf_bgd_test::ExecutionServer,
    dir: tempfile::TempDir,
    n: usize,
    round: Cell<u64>,
}

impl Setup {
    /// Fresh sources for the next build: their folder.
    fn sources(&self) -> std::path::PathBuf {
        let k = self.round.get() + 1;
        self.round.set(k);
        let src = self.dir.path().join(format!("src{k}"));
        write_textures(&src, self.n, k);
        src
    }

    /// One build of fresh sources, remotely executed (`remote`) or local with `jobs`
    /// threads; its time (sources written and folders removed outside it).
    fn build(&self, remote: bool, jobs: usize) -> Duration {
        let src = self.sources();
        let out = tempfile::tempdir_in(self.dir.path()).expect("output folder");
        let shared = remote.then(|| {
            let warn: voxcaf_remote::cache::Warn = Box::new(|m: &str| eprintln!("warning: {m}"));
            let cache = RemoteCache::connect(&self.server.url(), "", false, None, warn)
                .expect("remote cache")
                .with_execution(Duration::from_secs(600));
            Arc::new(cache) as Arc<dyn SharedCache>
        });
        let opts = BuildOptions {
            settings: settings(),
            jobs,
            shared,
            ..BuildOptions::default()
        };
        let t = Instant::now();
        let report = build(&src, out.path(), &opts, &|_| {}).expect("build");
        let elapsed = t.elapsed();
        assert!(
            report.manifest.failures.is_empty(),
            "{:?}",
            report.manifest.failures
        );
        let remote_made = report
            .manifest
            .assets
            .iter()
            .filter(|e| e.origin == Origin::Remote);
        assert_eq!(remote_made.count(), if remote { self.n } else { 0 });
        let _ = std::fs::remove_dir_all(&src);
        elapsed
    }
}

/// `count` worker threads on the server until the returned flag is set.
fn workers(url: &str, count: usize) -> (Arc<AtomicBool>, Vec<std::thread::JoinHandle<u64>>) {
    let stop = Arc::new(AtomicBool::new(false));
    let handles = (0..count)
        .map(|k| {
            let (url, stop) = (url.to_string(), stop.clone());
            std::thread::spawn(move || {
                let remote = Remote::connect(&url, "").expect("worker connects");
                let opts = WorkerOptions {
                    bot_id: format!("bench-worker-{k}"),
                    glsl_tool: None,
                    threads: 1,
                };
                remote.run_worker(&opts, &stop, &|_| {}).expect("worker")
            })
        })
        .collect();
    (stop, handles)
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn remote_exec(c: &mut Criterion) {
    println!("{}", voxcaf_bench::machine());
    let Some(server) = voxcaf_bgd_test::BuildGrid::start_execution() else {
        println!(
            "BuildGrid with execution unavailable (VOXCAF_BUILDGRID_VENV, PostgreSQL): skipped"
        );
        return;
    };
    let n = std::env::var("VOXCAF_BENCH_TEXTURES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let s = Setup {
        server,
        dir: tempfile::tempdir().expect("bench folder"),
        n,
        round: Cell::new(0),
    };
    let times: [RefCell<Vec<f64>>; 4] = Default::default();
    let mut g = c.benchmark_group(format!("{n} BC7 textures, executed remotely"));
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_secs(1));
    let jobs: [(&str, usize, bool); 4] = [
        ("one worker", 1, true),
        ("two workers", 2, true),
        ("local build, 1 thread", 1, false),
        ("local build, 2 threads", 2, false),
    ];
    for ((name, count, remote), log) in jobs.into_iter().zip(&times) {
        let running = remote.then(|| workers(&s.server.url(), count));
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let total: Duration = (0..iters).map(|_| s.build(remote, count)).sum();
                log.borrow_mut()
                    .push(total.as_secs_f64() / iters.max(1) as f64);
                total
            })
        });
        if let Some((stop, handles)) = running {
            stop.store(true, Ordering::SeqCst);
            let ran: u64 = handles.into_iter().map(|h| h.join().unwrap_or(0)).sum();
            println!("  {name}: {ran} leases run");
        }
    }
    g.finish();
    let m: Vec<f64> = times.iter().map(|t| median(&t.borrow())).collect();
    println!("\n{}", voxcaf_bench::machine());
    println!("summary, {n} textures (medians):");
    for ((name, _, _), t) in jobs.iter().zip(&m) {
        println!("  {name:<24} {t:8.3} s");
    }
    let ratio = m[0] / m[1];
    println!(
        "  two workers / one worker = {ratio:.2}x; goal >= {GOAL}x => {}",
        if ratio >= GOAL {
            "goal met"
        } else {
            "GOAL MISSED"
        }
    );
    println!(
        "  two workers against the local 2-thread build: {:.2}x its time",
        m[1] / m[3]
    );
}
