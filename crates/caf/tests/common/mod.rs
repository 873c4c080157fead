//! Shared helpers for the integration tests.
#![allow(dead_code, unused_imports)]

use std::path::PathBuf;

/// The golden `caf` folder (`$VOXCAF_GOLDEN/caf`, default `../shared/golden/caf` beside the
/// repository), or `None` when missing and `VOXCAF_REQUIRE_GOLDEN` is not 1 (tests then skip).
pub fn golden_caf() -> Option<PathBuf> {
    voxcaf_golden::caf()
}

/// One row of `manifest.tsv`.
#[derive(Debug, Clone)]
pub struct Row {
    pub path: String,
    pub bytes: u64,
    pub loader_valid: bool,
    pub validate_header: bool,
    pub ty: Option<u16>,
    pub flags: Option<u16>,
    pub metadata_size: Option<u64>,
    pub data_size: Option<u64>,
    pub crc32: Option<u32>,
    pub footer: Option<u32>,
    pub input: String,
}

fn hex(s: &str) -> Option<u32> {
    u32::from_str_radix(s.strip_prefix("0x")?, 16).ok()
}

pub fn manifest(dir: &std::path::Path) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).expect("manifest.tsv");
    let mut rows = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let c: Vec<&str> = line.split('\t').collect();
        let get = |i: usize| c.get(i).copied().unwrap_or("");
        rows.push(Row {
            path: get(0).to_string(),
            bytes: get(1).parse().expect("bytes column"),
            loader_valid: get(3) == "valid",
            validate_header: get(4) == "true",
            ty: get(5).parse().ok(),
            flags: hex(get(6)).map(|v| v as u16),
            metadata_size: get(7).parse().ok(),
            data_size: get(8).parse().ok(),
            crc32: hex(get(9)),
            footer: hex(get(10)),
            input: get(11).to_string(),
        });
    }
    assert!(rows.len() > 100, "manifest has {} rows", rows.len());
    rows
}

pub use voxcaf_golden::{lcg_bytes, lcg_i16};

pub use voxcaf_golden::Rng;
