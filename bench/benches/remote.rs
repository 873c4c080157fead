//! The warm remote-cache build (issue 41's goal): `asset build` of N unchanged small sources
//! into an empty output folder, every asset fetched from a Remote Execution API server's
//! action cache and CAS on loopback. Goal: under 5 s for 10,000 assets on a 2-core machine,
//! or, when the server itself cannot answer that fast, within 1.5× of the server's own floor,
//! measured in the same run.
//!
//! Run it with
//!
//! ```text
//! VOXCAF_BUILDGRID_VENV=/path/to/buildgrid-venv cargo bench -p voxcaf-bench --bench remote
//! ```
//!
//! (`VOXCAF_BENCH_ASSETS=N` for another count than 10,000; `VOXCAF_BENCH_PAIRED=R` for R
//! paired rounds after criterion, default 3, 0 for none). It skips with a message when
//! BuildGrid cannot be started (`voxcaf_bgd_test::BuildGrid::start`).
//!
//! Setup (not timed): a cache-only BuildGrid; N tiny OBJ triangles, each of its own size (so
//! every asset has its own bytes), in sub-folders of 100; one build with the remote cache to
//! populate it.
//! Timed, each iteration into a fresh empty folder made outside the timed region:
//!
//! - "warm build from the remote cache": `caf_import::batch::build` with a
//!   `voxcaf_remote::cache::RemoteCache` (what `voxcaf asset build --remote-cache` does),
//!   checked to take every asset from the cache (hits == N);
//! - "floor: minimal client": the same lookups and reads with `voxcaf_remote::Remote` alone:
//!   the N action digests (computed beforehand with `action::conversion_action`),
//!   `get_action_results` for all of them at once (concurrent), then one batched `download`
//!   of every output blob; no conversion, no file writes;
//! - "local build (no cache)", for context.
//!
//! Printed afterwards: the machine, a summary (medians of the criterion samples, the ratio
//! warm / floor against the goal), the floor split into lookups and reads, diagnostics (the
//! warm build's per-source calls alone and its file writes alone, on 2 and 16 threads; the
//! warm build with 16 and 64 threads), the CLI once when a release `voxcaf` binary
//! is found, and paired rounds (the three jobs in turn, so that drift hits them alike).
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use caf_import::batch::{build, BuildOptions};
use caf_import::shared::Origin;
use caf_import::Settings;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use voxcaf_remote::action::conversion_action;
use voxcaf_remote::cache::{RemoteCache, RemoteStats};
use voxcaf_remote::{Digest, Remote};

/// Sources per sub-folder.
const PER_FOLDER: usize = 100;
/// The goal: seconds for 10,000 assets, and the allowed ratio to the server's floor.
const GOAL_SECS: f64 = 5.0;
const GOAL_RATIO: f64 = 1.5;

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Writes `n` tiny OBJ triangles under `root` (`dNNN/aNNNNN.obj`, 100 per folder), each of its
/// own size, so that every asset has its own bytes (sources differing only in a comment would
/// give one shared blob, which the build reads once); their relative paths.
fn write_sources(root: &Path, n: usize) -> Vec<String> {
    let mut rels = Vec::with_capacity(n);
    for i in 0..n {
        let rel = format!("d{:03}/a{i:05}.obj", i / PER_FOLDER);
        let path = root.join(&rel);
        if i % PER_FOLDER == 0 {
            std::fs::create_dir_all(path.parent().expect("parent")).expect("source folder");
        }
        let text = format!(
            "# voxcaf remote bench asset {i}\nv 0 0 0\nv {} 0 0\nv 0 1 0\nvn 0 0 1\n\
             f 1//1 2//1 3//1\n",
            i + 1
        );
        std::fs::write(&path, text).expect("source");
        rels.push(rel);
    }
    rels
}

/// A remote cache on `url` whose warnings go to stderr.
fn cache(url: &str, read_only: bool) -> Arc<RemoteCache> {
    let warn: voxcaf_remote::cache::Warn = Box::new(|m: &str| eprintln!("warning: {m}"));
    Arc::new(RemoteCache::connect(url, "", read_only, None, warn).expect("remote cache"))
}

/// One build of `src` into the empty folder `out`; its time, the assets it wrote and how many
/// of them came from the shared cache.
fn timed_build(
    src: &Path,
    out: &Path,
    shared: Option<Arc<RemoteCache>>,
    jobs: usize,
) -> (Duration, usize, usize) {
    let opts = BuildOptions {
        jobs,
        shared: shared.map(|c| c as Arc<dyn caf_import::shared::SharedCache>),
        ..BuildOptions::default()
    };
    let t = Instant::now();
    let report = build(src, out, &opts, &|_| {}).expect("build");
    let elapsed = t.elapsed();
    assert!(
        report.manifest.failures.is_empty(),
        "failures: {:?}",
        &report.manifest.failures[..report.manifest.failures.len().min(3)]
    );
    let cached = report
        .manifest
        .assets
        .iter()
        .filter(|e| e.origin == Origin::Cache)
        .count();
    (elapsed, report.manifest.assets.len(), cached)
}

/// The bench's fixed state: the server, the sources, the action digests.
struct Setup {
    // Kept alive: the server stops on drop.
    _server: voxcaf_bgd_test::Server,
    url: String,
    dir: tempfile::TempDir,
    src: PathBuf,
    n: usize,
    actions: Vec<Digest>,
    remote: Remote,
    populate: Duration,
    populate_stats: RemoteStats,
}

impl Setup {
    fn new() -> Option<Setup> {
        let server = voxcaf_bgd_test::BuildGrid::start()?;
        let url = server.url();
        let n = env_count("VOXCAF_BENCH_ASSETS", 10_000);
        let dir = tempfile::Builder::new()
            .prefix("voxcaf-remote-bench")
            .tempdir()
            .expect("temporary directory");
        let src = dir.path().join("src");
        let rels = write_sources(&src, n);
        let settings = Settings::default();
        let actions: Vec<Digest> = rels
            .iter()
            .map(|rel| {
                conversion_action(&src, rel, &settings, None)
                    .expect("action")
                    .digest
            })
            .collect();
        let populate_cache = cache(&url, false);
        let out = dir.path().join("populate");
        let (populate, assets, _) = timed_build(&src, &out, Some(populate_cache.clone()), 0);
        assert_eq!(assets, n, "every source converted");
        let populate_stats = populate_cache.stats();
        assert_eq!(populate_stats.uploaded, n as u64, "{populate_stats:?}");
        let remote = Remote::connect(&url, "").expect("connect");
        Some(Setup {
            _server: server,
            url,
            dir,
            src,
            n,
            actions,
            remote,
            populate,
            populate_stats,
        })
    }

    /// A fresh empty output folder, left in place until the bench's folder is removed at the
    /// end: removing thousands of files right before a timed build makes ext4 skip every
    /// recently freed inode while creating the next files (`recently_deleted`, seconds of
    /// kernel time), a state no user's build starts from.
    fn out(&self) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("out")
            .disable_cleanup(true)
            .tempdir_in(self.dir.path())
            .expect("output folder")
    }

    /// The warm build into a fresh folder with `jobs` threads (0: one per core), checked to
    /// take every asset from the cache; its time.
    fn warm(&self, jobs: usize) -> Duration {
        let out = self.out();
        let c = cache(&self.url, true);
        let (t, assets, cached) = timed_build(&self.src, out.path(), Some(c.clone()), jobs);
        let stats = c.stats();
        assert_eq!(stats.hits, self.n as u64, "{stats:?}");
        assert_eq!((assets, cached), (self.n, self.n));
        drop(out);
        t
    }

    /// The minimal client: every lookup (concurrent), then every output blob (batched);
    /// the time of each half and the bytes read.
    fn floor(&self) -> (Duration, Duration, usize) {
        let t = Instant::now();
        let results = self
            .remote
            .get_action_results(&self.actions)
            .expect("lookups");
        let lookups = t.elapsed();
        let digests: Vec<Digest> = results
            .iter()
            .flat_map(|r| {
                r.as_ref()
                    .expect("every action cached")
                    .output_files
                    .iter()
                    .filter_map(|f| f.digest.clone())
            })
            .collect();
        let t = Instant::now();
        let blobs = self.remote.download(&digests).expect("reads");
        let reads = t.elapsed();
        (lookups, reads, blobs.iter().map(Vec::len).sum())
    }

    /// What the warm build does per source, without conversion or files: one lookup then one
    /// read of that source's blobs, source after source on `jobs` threads (as `batch::build`
    /// asks the cache); its time and the sizes of the assets read.
    fn per_source(&self, jobs: usize) -> (Duration, Vec<usize>) {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .expect("pool");
        let t = Instant::now();
        let sizes: Vec<usize> = pool.install(|| {
            self.actions
                .par_iter()
                .flat_map_iter(|a| {
                    let result = self.remote.get_action_result(a).expect("lookup");
                    let files = result.expect("cached").output_files;
                    let digests: Vec<Digest> =
                        files.iter().filter_map(|f| f.digest.clone()).collect();
                    let blobs = self.remote.download(&digests).expect("read");
                    // The build writes the assets, not the result description.
                    let caf = files.into_iter().map(|f| f.path.ends_with(".caf"));
                    blobs
                        .into_iter()
                        .zip(caf)
                        .filter(|(_, c)| *c)
                        .map(|(b, _)| b.len())
                })
                .collect()
        });
        (t.elapsed(), sizes)
    }

    /// Writes files of `sizes` bytes into a fresh folder (100 per sub-folder) with
    /// `batch::write_atomic` (temporary file, fsync, rename) on `jobs` threads; its time.
    fn writes(&self, sizes: &[usize], jobs: usize) -> Duration {
        use rayon::prelude::*;
        let out = self.out();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .expect("pool");
        let t = Instant::now();
        pool.install(|| {
            sizes.par_iter().enumerate().for_each(|(i, &n)| {
                let path = out
                    .path()
                    .join(format!("d{:03}/f{i:06}.caf", i / PER_FOLDER));
                caf_import::batch::write_atomic(&path, &vec![7u8; n]).expect("write");
            })
        });
        t.elapsed()
    }

    /// The local build (no cache) into a fresh folder; its time.
    fn local(&self) -> Duration {
        let out = self.out();
        let (t, assets, cached) = timed_build(&self.src, out.path(), None, 0);
        assert_eq!((assets, cached), (self.n, 0));
        t
    }

    /// `voxcaf asset build SRC OUT --remote-cache URL` once through the release binary, when
    /// one is found; its time.
    fn cli(&self) -> Option<(PathBuf, Duration)> {
        let bin = voxcaf_binary()?;
        let out = self.out();
        let t = Instant::now();
        let status = std::process::Command::new(&bin)
            .args(["asset", "build"])
            .arg(&self.src)
            .arg(out.path())
            .args(["--remote-cache", &self.url, "-q"])
            .status()
            .expect("voxcaf");
        let t = t.elapsed();
        assert!(status.success(), "{} failed: {status}", bin.display());
        Some((bin, t))
    }
}

/// The release `voxcaf` binary: `$CARGO_TARGET_DIR/release/voxcaf`, else beside the bench
/// executable's folders (`target/release/deps/remote-…` → `target/release/voxcaf`).
fn voxcaf_binary() -> Option<PathBuf> {
    let from_env = std::env::var_os("CARGO_TARGET_DIR")
        .map(|d| PathBuf::from(d).join("release").join("voxcaf"));
    let exe = std::env::current_exe().ok();
    let beside = exe
        .as_deref()
        .into_iter()
        .flat_map(Path::ancestors)
        .skip(1)
        .map(|d| d.join("voxcaf"));
    from_env.into_iter().chain(beside).find(|p| p.is_file())
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Per-iteration times (seconds) each job took under criterion, warm-up included.
#[derive(Default)]
struct Times {
    warm: Vec<f64>,
    floor: Vec<f64>,
    local: Vec<f64>,
}

/// Times `iters` runs of `f` (each returning its own timed region) and records the mean.
fn run(iters: u64, log: &RefCell<Vec<f64>>, mut f: impl FnMut() -> Duration) -> Duration {
    let total: Duration = (0..iters).map(|_| f()).sum();
    log.borrow_mut().push(secs(total) / iters.max(1) as f64);
    total
}

fn remote(c: &mut Criterion) {
    println!("{}", voxcaf_bench::machine());
    let Some(s) = Setup::new() else {
        println!("BuildGrid unavailable (set VOXCAF_BUILDGRID_VENV): remote bench skipped");
        return;
    };
    println!(
        "{} sources; cache populated by one build in {:.2} s ({} uploaded, {} bytes up)",
        s.n,
        secs(s.populate),
        s.populate_stats.uploaded,
        s.populate_stats.bytes_up
    );
    let (warm, floor, local) = (
        RefCell::new(Vec::new()),
        RefCell::new(Vec::new()),
        RefCell::new(Vec::new()),
    );
    let mut g = c.benchmark_group(format!("{} assets, remote cache on loopback", s.n));
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1));
    g.bench_function("warm build from the remote cache", |b| {
        b.iter_custom(|iters| run(iters, &warm, || s.warm(0)))
    });
    g.bench_function("floor: minimal client", |b| {
        b.iter_custom(|iters| {
            run(iters, &floor, || {
                let (l, r, _) = s.floor();
                l + r
            })
        })
    });
    g.bench_function("local build (no cache)", |b| {
        b.iter_custom(|iters| run(iters, &local, || s.local()))
    });
    g.finish();
    let times = Times {
        warm: warm.into_inner(),
        floor: floor.into_inner(),
        local: local.into_inner(),
    };
    summary(&s, &times);
}

/// The summary after criterion: medians, the ratio against the goal, diagnostics.
fn summary(s: &Setup, t: &Times) {
    let (w, f, l) = (median(&t.warm), median(&t.floor), median(&t.local));
    println!("\n{}", voxcaf_bench::machine());
    println!(
        "summary, {} assets (medians of {}/{}/{} runs):",
        s.n,
        t.warm.len(),
        t.floor.len(),
        t.local.len()
    );
    println!("  warm build from the remote cache  {w:8.3} s");
    println!("  floor: minimal client             {f:8.3} s");
    println!("  local build (no cache)            {l:8.3} s");
    let ratio = w / f;
    let scaled = GOAL_SECS * s.n as f64 / 10_000.0;
    println!(
        "  warm / floor = {ratio:.2}x; goal: < {scaled:.2} s ({}) or <= {GOAL_RATIO}x the floor \
         ({}) => {}",
        if w < scaled { "met" } else { "missed" },
        if ratio <= GOAL_RATIO { "met" } else { "missed" },
        if w < scaled || ratio <= GOAL_RATIO {
            "GOAL MET"
        } else {
            "GOAL MISSED"
        }
    );
    let (lookups, reads, bytes) = s.floor();
    println!(
        "  floor split (one more run): {} lookups in {:.3} s ({:.0}/s), {} bytes of blobs in \
         {:.3} s",
        s.n,
        secs(lookups),
        s.n as f64 / secs(lookups),
        bytes,
        secs(reads)
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for jobs in [cores, 16] {
        let (d, sizes) = s.per_source(jobs);
        let w = s.writes(&sizes, jobs);
        println!(
            "  diagnostic, {jobs} threads: the warm build's calls alone (per source one lookup \
             + one read, {} calls) {:.3} s; its {} file writes alone (write_atomic, fsync) \
             {:.3} s",
            2 * s.n,
            secs(d),
            sizes.len(),
            secs(w)
        );
    }
    for jobs in [16, 64] {
        let d = s.warm(jobs);
        println!(
            "  diagnostic: warm build with {jobs} threads (jobs = {jobs}): {:.3} s ({:.2}x the \
             floor)",
            secs(d),
            secs(d) / f
        );
    }
    match s.cli() {
        Some((bin, d)) => println!(
            "  CLI once: {} asset build SRC OUT --remote-cache {} -q: {:.3} s",
            bin.display(),
            s.url,
            secs(d)
        ),
        None => {
            println!("  CLI not timed: no release voxcaf binary (cargo build --release -p voxcaf)")
        }
    }
    paired(s, env_count("VOXCAF_BENCH_PAIRED", 3));
}

/// `rounds` rounds of the three jobs in turn (rotating who goes first); medians and the
/// median of the per-round ratio warm / floor.
fn paired(s: &Setup, rounds: usize) {
    if rounds == 0 {
        return;
    }
    let mut t = [Vec::new(), Vec::new(), Vec::new()];
    let mut ratio = Vec::new();
    for r in 0..rounds {
        let mut round = [0.0; 3];
        for j in (0..3).map(|i| (i + r) % 3) {
            round[j] = secs(match j {
                0 => s.warm(0),
                1 => {
                    let (lookups, reads, _) = s.floor();
                    lookups + reads
                }
                _ => s.local(),
            });
        }
        for (tj, rj) in t.iter_mut().zip(round) {
            tj.push(rj);
        }
        ratio.push(round[0] / round[1]);
    }
    println!(
        "  paired, {rounds} rounds (medians): warm {:.3} s, floor {:.3} s, local {:.3} s; \
         warm / floor {:.2}x",
        median(&t[0]),
        median(&t[1]),
        median(&t[2]),
        median(&ratio)
    );
}

criterion_group!(benches, remote);
criterion_main!(benches);
