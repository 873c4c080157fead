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

/// Encodes `plain` as an audio asset with the default encoding (no metadata, no flags).
pub fn encode_audio(plain: &[u8]) -> Vec<u8> {
    caf::encoded::encode_asset(
        caf::AssetType::AUDIO,
        caf::CafFlags::NONE,
        &[],
        plain,
        &caf::encoded::Encoding::default(),
    )
    .unwrap()
}

/// Rewrites the index CRC, the header payload CRC and the footer after a deliberate change, as
/// an attacker would.
pub fn fix_crcs(b: &mut [u8]) {
    let a = caf::Asset::parse_layout(b).unwrap().0;
    let p0 = a.payload_offset();
    let p_len = a.payload.len();
    let count = u32::from_le_bytes(b[p0 + 12..p0 + 16].try_into().unwrap()) as usize;
    let entries_end = p0 + caf::encoded::INDEX_HEADER_SIZE + count * caf::encoded::ENTRY_SIZE;
    let icrc = caf::crc32_continue(
        caf::crc32(&b[p0..p0 + 84]),
        &b[p0 + caf::encoded::INDEX_HEADER_SIZE..entries_end],
    );
    b[p0 + 84..p0 + 88].copy_from_slice(&icrc.to_le_bytes());
    let pcrc = caf::crc32(&b[p0..p0 + p_len]);
    b[12..16].copy_from_slice(&pcrc.to_le_bytes());
    let n = b.len();
    let fcrc = caf::crc32(&b[..n - 4]);
    b[n - 4..].copy_from_slice(&fcrc.to_le_bytes());
}
