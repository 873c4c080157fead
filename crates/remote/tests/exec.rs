//! Remote execution against a real BuildGrid that executes (crates/bgd-test, on PostgreSQL):
//! builds whose misses are converted by `voxcaf_remote::worker` bots, byte for byte as locally
//! (skips when BuildGrid or PostgreSQL cannot be had, unless VOXCAF_REQUIRE_BUILDGRID=1).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use caf_import::batch::{build, BuildOptions, BuildReport};
use caf_import::shared::{Origin, SharedCache};
use voxcaf_bgd_test::BuildGrid;
use voxcaf_remote::cache::{RemoteCache, RemoteStats};
use voxcaf_remote::worker::WorkerOptions;
use voxcaf_remote::Remote;

fn write_sources(root: &Path, n: usize) {
    for i in 0..n {
        let path = root.join(format!("d{}/a{i:03}.obj", i % 3));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text = format!("# asset {i}\nv 0 0 0\nv 1 0 0\nv 0 1 {i}\nf 1 2 3\n");
        std::fs::write(path, text).unwrap();
    }
    // One that fails to convert, remotely as locally.
    std::fs::write(root.join("broken.obj"), "f 1 2 3\n").unwrap();
}

/// A build of `src` into `out`, misses executed remotely within `timeout`; its report, the
/// cache's counts and its warnings.
fn build_exec(
    url: &str,
    src: &Path,
    out: &Path,
    timeout: Duration,
) -> (BuildReport, RemoteStats, Vec<String>) {
    let warnings = Arc::new(std::sync::Mutex::new(Vec::new()));
    let w = warnings.clone();
    let warn: voxcaf_remote::cache::Warn =
        Box::new(move |m: &str| w.lock().unwrap().push(m.into()));
    let cache = RemoteCache::connect(url, "", false, None, warn)
        .unwrap()
        .with_execution(timeout);
    let cache = Arc::new(cache);
    let opts = BuildOptions {
        shared: Some(cache.clone() as Arc<dyn SharedCache>),
        ..BuildOptions::default()
    };
    let report = build(src, out, &opts, &|_| {}).unwrap();
    let warnings = warnings.lock().unwrap().clone();
    (report, cache.stats(), warnings)
}

fn local(src: &Path, out: &Path) -> BuildReport {
    build(src, out, &BuildOptions::default(), &|_| {}).unwrap()
}

fn same_outputs(a: &Path, b: &Path, report: &BuildReport) {
    for e in &report.manifest.assets {
        let x = std::fs::read(a.join(&e.output)).unwrap();
        let y = std::fs::read(b.join(&e.output)).unwrap();
        assert_eq!(x, y, "{}", e.output);
    }
}

#[test]
fn two_workers_convert_every_miss_byte_for_byte_and_the_server_caches_it() {
    let Some(server) = BuildGrid::start_execution() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let n = 24;
    write_sources(&src, n);
    let reference = local(&src, &dir.path().join("local"));
    assert_eq!(reference.manifest.assets.len(), n);
    assert_eq!(reference.manifest.failures.len(), 1);

    let stop = Arc::new(AtomicBool::new(false));
    let ran: Vec<_> = (0..2)
        .map(|k| {
            let (url, stop) = (server.url(), stop.clone());
            std::thread::spawn(move || {
                let remote = Remote::connect(&url, "").unwrap();
                let opts = WorkerOptions {
                    bot_id: format!("test-worker-{k}"),
                    glsl_tool: None,
                    threads: 1,
                };
                remote.run_worker(&opts, &stop, &|_| {})
            })
        })
        .collect();

    let out = dir.path().join("one");
    let (report, stats, warnings) = build_exec(&server.url(), &src, &out, Duration::from_secs(120));
    assert!(warnings.is_empty(), "{warnings:?}\n{}", server.log_tail());
    let n = n as u64;
    // Every source converted by a worker; the broken one fails there and then here.
    assert_eq!(
        (stats.executed, stats.hits, stats.misses),
        (n, 0, 1),
        "{stats:?}"
    );
    assert_eq!(report.manifest.failures.len(), 1);
    assert!(report
        .manifest
        .assets
        .iter()
        .all(|e| e.origin == Origin::Remote));
    same_outputs(&out, &dir.path().join("local"), &reference);

    // The server keeps what its workers made: a second checkout's build only fetches.
    let out2 = dir.path().join("two");
    let (_, stats, _) = build_exec(&server.url(), &src, &out2, Duration::from_secs(120));
    assert_eq!(
        (stats.executed, stats.hits, stats.misses),
        (0, n, 1),
        "{stats:?}"
    );
    same_outputs(&out2, &dir.path().join("local"), &reference);

    stop.store(true, Ordering::SeqCst);
    let done: u64 = ran.into_iter().map(|h| h.join().unwrap().unwrap()).sum();
    // Each source once, however the two workers shared them, and the broken one in each
    // build (a failure is not kept).
    assert_eq!(done, n + 2);
}

/// A build of 3 sources and a broken one through `url` with remote execution (`timeout`) in
/// which nothing is executed: each miss converted locally, byte for byte, its result uploaded.
/// The warnings it gave.
fn nothing_executed(url: &str, timeout: Duration) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    write_sources(&src, 3);
    let reference = local(&src, &dir.path().join("local"));
    let out = dir.path().join("out");
    let (report, stats, warnings) = build_exec(url, &src, &out, timeout);
    // Only the local conversions' results went up: no inputs were sent for execution.
    assert_eq!(
        (stats.executed, stats.misses, stats.uploaded),
        (0, 4, 3),
        "{stats:?}"
    );
    assert!(report
        .manifest
        .assets
        .iter()
        .all(|e| e.origin == Origin::Local));
    same_outputs(&out, &dir.path().join("local"), &reference);
    warnings
}

#[test]
fn without_workers_the_build_converts_locally_after_the_timeout() {
    let Some(server) = BuildGrid::start_execution() else {
        return;
    };
    let warnings = nothing_executed(&server.url(), Duration::from_secs(2));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("no result within 2 s (is a worker running?); converting the rest"),
        "{warnings:?}"
    );
}

#[test]
fn a_server_that_does_not_execute_is_said_once_and_nothing_is_sent() {
    let Some(server) = BuildGrid::start() else {
        return;
    };
    let warnings = nothing_executed(&server.url(), Duration::from_secs(60));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("does not execute"), "{warnings:?}");
}
