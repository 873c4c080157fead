//! Conformance over every golden `.vwr` written by the original C++ library: each loads, its
//! dump equals the `.dump.txt` byte for byte, and load + save reproduces the file exactly.

mod common;

use vwr::{dump::dump, stats::WorldStats, World};

#[test]
fn every_golden_world_loads_dumps_and_resaves_byte_identically() {
    let files = common::golden_worlds();
    if files.is_empty() {
        return;
    }
    assert_eq!(files.len(), 101, "expected the 101 golden worlds");
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let world = match World::from_bytes(&bytes) {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{}: load failed: {e}", path.display()));
                continue;
            }
        };
        let expected_dump = std::fs::read_to_string(path.with_extension("dump.txt")).unwrap();
        if dump(&world) != expected_dump {
            failures.push(format!("{}: dump differs", path.display()));
        }
        if world.to_bytes() != bytes {
            failures.push(format!("{}: re-save differs", path.display()));
        }
        assert_eq!(
            WorldStats::of(&world).saved_size,
            bytes.len() as u64,
            "{}",
            path.display()
        );
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn manifest_numbers_match() {
    let Some(dir) = common::golden_dir() else {
        return;
    };
    let manifest = std::fs::read_to_string(dir.join("vwr/manifest.tsv")).unwrap();
    let mut rows = 0;
    for line in manifest.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let world = World::load(dir.join("vwr").join(f[0])).unwrap();
        let stats = WorldStats::of(&world);
        assert_eq!(stats.non_air_blocks.to_string(), f[3], "{} non-air", f[0]);
        assert_eq!(world.chunks_per_axis().to_string(), f[4], "{}", f[0]);
        assert_eq!(stats.non_empty_chunks.to_string(), f[5], "{} chunks", f[0]);
        assert_eq!(stats.metadata_records.to_string(), f[6], "{} meta", f[0]);
        let bits = if stats.bits_histogram.is_empty() {
            String::new()
        } else {
            stats
                .bits_histogram
                .iter()
                .map(|(b, c)| format!("{b}:{c}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        assert_eq!(bits, f[7], "{} bits", f[0]);
        rows += 1;
    }
    assert_eq!(rows, 101);
}
