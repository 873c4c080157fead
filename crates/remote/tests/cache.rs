//! `asset build`'s remote cache through the library against a real BuildGrid: sources taken in
//! groups, each group looked up ahead (skips when BuildGrid cannot be had, unless
//! VOXCAF_REQUIRE_BUILDGRID=1).

use std::path::Path;
use std::sync::Arc;

use caf_import::batch::{build, BuildOptions, BuildReport};
use caf_import::shared::{Origin, SharedCache};
use voxcaf_bgd_test::BuildGrid;
use voxcaf_remote::cache::{RemoteCache, RemoteStats};

/// More sources than one group of the build's look-ahead (1,024), so that two groups run.
const SOURCES: usize = 1100;

/// The sources differ only in a comment, so their assets have the same bytes: one blob in the
/// CAS, which the build reads once per group, not once per source.
fn write_sources(root: &Path) {
    // A strip of 32 triangles: an asset much larger than its result description.
    let mut mesh = String::new();
    for x in 0..=16 {
        mesh += &format!("v {x} 0 0\nv {x} 1 0\n");
    }
    for q in 0..16 {
        let (a, b, c, d) = (2 * q + 1, 2 * q + 2, 2 * q + 3, 2 * q + 4);
        mesh += &format!("f {a} {c} {b}\nf {b} {c} {d}\n");
    }
    for i in 0..SOURCES {
        let path = root.join(format!("d{:02}/a{i:04}.obj", i / 100));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("# asset {i}\n{mesh}")).unwrap();
    }
}

/// A build of `src` into `out` through a fresh cache on `url`; its report and the cache's
/// counts, with no warning given.
fn build_with(url: &str, src: &Path, out: &Path) -> (BuildReport, RemoteStats) {
    let warn: voxcaf_remote::cache::Warn = Box::new(|m: &str| panic!("warning: {m}"));
    let cache = Arc::new(RemoteCache::connect(url, "", false, None, warn).unwrap());
    let opts = BuildOptions {
        shared: Some(cache.clone() as Arc<dyn SharedCache>),
        ..BuildOptions::default()
    };
    let report = build(src, out, &opts, &|_| {}).unwrap();
    assert!(report.manifest.failures.is_empty());
    assert_eq!(report.manifest.assets.len(), SOURCES);
    (report, cache.stats())
}

#[test]
fn every_group_is_looked_up_ahead_and_fetched_byte_for_byte() {
    let Some(server) = BuildGrid::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    write_sources(&src);
    let n = SOURCES as u64;

    // An empty cache: every source missed (answered ahead), converted and uploaded.
    let (first, stats) = build_with(&server.url(), &src, &dir.path().join("one"));
    assert_eq!(
        (stats.hits, stats.misses, stats.uploaded, stats.ahead),
        (0, n, n, n),
        "{stats:?}"
    );
    assert!(first
        .manifest
        .assets
        .iter()
        .all(|e| e.origin == Origin::Local));

    // A second checkout's build: every source a hit found ahead, its bytes read in batches.
    let (second, stats) = build_with(&server.url(), &src, &dir.path().join("two"));
    assert_eq!(
        (stats.hits, stats.misses, stats.fallbacks, stats.ahead),
        (n, 0, 0, n),
        "{stats:?}"
    );
    assert!(second
        .manifest
        .assets
        .iter()
        .all(|e| e.origin == Origin::Cache));
    // Every source's result description was read, but the one asset blob they share only once
    // per group: far fewer bytes than the build wrote.
    assert!(
        stats.bytes_down < second.bytes_written / 2,
        "{} bytes read for {} written",
        stats.bytes_down,
        second.bytes_written
    );
    for e in &second.manifest.assets {
        let one = std::fs::read(dir.path().join("one").join(&e.output)).unwrap();
        let two = std::fs::read(dir.path().join("two").join(&e.output)).unwrap();
        assert_eq!(one, two, "{}", e.output);
    }

    // Up to date: nothing planned for the cache, nothing asked.
    let (third, stats) = build_with(&server.url(), &src, &dir.path().join("two"));
    assert_eq!(third.skipped, SOURCES);
    assert_eq!(stats, RemoteStats::default());
}
