//! `batch::build_until`: a build asked to stop writes a manifest for what it finished.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use caf_import::batch::{build, build_until, BuildEvent, BuildOptions, Manifest, MANIFEST_NAME};
use voxcaf_samples as samples;

fn make_tree(root: &Path, n: usize) {
    std::fs::create_dir_all(root).unwrap();
    for i in 0..n {
        std::fs::write(
            root.join(format!("s{i:02}.wav")),
            samples::wav_i16(22050, 1, 200 + i as u32),
        )
        .unwrap();
    }
}

fn cafs(out: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".caf") || n.ends_with(".tmp"))
        .collect();
    v.sort();
    v
}

fn one_job() -> BuildOptions {
    BuildOptions {
        jobs: 1,
        ..BuildOptions::default()
    }
}

#[test]
fn a_stop_before_the_start_converts_nothing_and_still_writes_the_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
    make_tree(&src, 5);
    let report = build_until(&src, &out, &one_job(), &AtomicBool::new(true), &|_| {}).unwrap();
    assert!(report.interrupted);
    assert_eq!(report.converted, 0);
    let m = Manifest::read(&out.join(MANIFEST_NAME)).unwrap();
    assert!(m.assets.is_empty() && m.failures.is_empty());
    assert!(cafs(&out).is_empty());
}

#[test]
fn a_stop_during_the_build_records_exactly_the_finished_assets() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
    make_tree(&src, 12);
    let stop = AtomicBool::new(false);
    // Ctrl-C after the third asset.
    let on_event = |e: &BuildEvent<'_>| {
        if let BuildEvent::Converted { entries } = e {
            if entries[0].source == "s02.wav" {
                stop.store(true, Ordering::SeqCst);
            }
        }
    };
    let report = build_until(&src, &out, &one_job(), &stop, &on_event).unwrap();
    assert!(report.interrupted);
    assert!(
        report.converted >= 3 && report.converted < 12,
        "{}",
        report.converted
    );
    let m = Manifest::read(&out.join(MANIFEST_NAME)).unwrap();
    let listed: Vec<String> = m.assets.iter().map(|e| e.output.clone()).collect();
    assert_eq!(listed, cafs(&out), "manifest and outputs on disk disagree");

    // The next build completes the rest and skips what the interrupted one finished.
    let again = build(&src, &out, &one_job(), &|_| {}).unwrap();
    assert!(!again.interrupted);
    assert_eq!(again.skipped, report.converted);
    assert_eq!(again.converted, 12 - report.converted);
}

#[test]
fn an_interrupted_rebuild_keeps_intact_outputs_and_removes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
    make_tree(&src, 6);
    build(&src, &out, &one_job(), &|_| {}).unwrap();
    // A source removed: a complete build would delete its output, an interrupted one must not.
    std::fs::remove_file(src.join("s05.wav")).unwrap();
    let report = build_until(&src, &out, &one_job(), &AtomicBool::new(true), &|_| {}).unwrap();
    assert!(report.interrupted);
    assert_eq!(report.removed, 0);
    assert!(out.join("s05.caf").exists());
    let m = Manifest::read(&out.join(MANIFEST_NAME)).unwrap();
    // Sources not reached keep their previous entries (outputs intact).
    assert_eq!(m.assets.len(), 5);
}
