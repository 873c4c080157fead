//! Real files nobody here wrote (`../shared/realworld/`, see its SOURCES.md) that were refused or
//! misread before issue 43: each test is named after the item it checks.

use std::path::{Path, PathBuf};

use caf::audio::AudioView;
use caf::Asset;
use caf_import::{convert, Settings};

/// `../shared/realworld/REL`, or `None` (the test skips) unless the golden data is required.
fn realworld(rel: &str) -> Option<PathBuf> {
    let path = voxcaf_golden::root().join("../realworld").join(rel);
    if path.exists() {
        Some(path)
    } else if voxcaf_golden::required() {
        panic!("{} not found", path.display());
    } else {
        eprintln!("note: {} not found; skipping", path.display());
        None
    }
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// 16-bit little-endian samples.
fn pcm16(bytes: &[u8]) -> Vec<i16> {
    bytes
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

/// minimp3's `l3-nonstandard-id3v2` vector: a 1,846-byte ID3v2 tag, then one Layer III frame
/// (48 kHz mono). It must decode to the reference PCM beside it, and so must the same file
/// with an ID3v1 tag appended.
#[test]
fn an_mp3_with_an_id3v2_tag_followed_by_one_frame_imports() {
    let (Some(mp3), Some(reference)) = (
        realworld("corpus/audio/mp3/minimp3-l3-nonstandard-id3v2.mp3"),
        realworld("corpus/audio/mp3/ref/minimp3-l3-nonstandard-id3v2.pcm"),
    ) else {
        return;
    };
    let reference = pcm16(&read(&reference));
    let mut with_v1 = read(&mp3);
    let mut v1 = b"TAGtitle".to_vec();
    v1.resize(128, 0);
    with_v1.extend_from_slice(&v1);
    for bytes in [read(&mp3), with_v1] {
        let c = convert(&bytes, &mp3, &Settings::default()).unwrap();
        let bytes = c.to_caf_bytes();
        let asset = Asset::parse(&bytes).unwrap();
        let v = AudioView::from_asset(&asset).unwrap();
        assert_eq!((v.meta.sample_rate, v.meta.channels), (48000, 1));
        let pcm = pcm16(v.data);
        assert_eq!(pcm.len(), 1152);
        assert_eq!(pcm.len(), reference.len());
        let worst = pcm
            .iter()
            .zip(&reference)
            .map(|(&a, &b)| (i32::from(a) - i32::from(b)).abs())
            .max()
            .unwrap();
        assert!(worst <= 1, "differs from the reference by {worst}");
    }
}
