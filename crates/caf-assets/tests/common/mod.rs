//! Helpers shared by the integration tests: writing small `.caf` files.
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use caf::audio::AudioMetadata;
use caf::texture::TextureMetadata;
use caf::{AssetType, AssetWriter};

/// Upper bound for every wait in the tests. Waits end as soon as their condition holds; this
/// only limits how long a broken build hangs.
pub const WAIT: Duration = Duration::from_secs(10);

/// Bytes of a `width` x 1 RGBA8 texture whose pixels are all `fill`.
pub fn texture_bytes(width: u32, fill: u8) -> Vec<u8> {
    let meta = TextureMetadata {
        width,
        height: 1,
        format: 0,
        mip_levels: 1,
        reserved: 0,
    };
    let pixels = vec![fill; width as usize * 4];
    AssetWriter::new(AssetType::TEXTURE)
        .metadata(&meta.to_bytes())
        .payload(&pixels)
        .to_vec()
}

/// Bytes of a mono 16-bit audio clip of `frames` samples, all `fill`.
pub fn audio_bytes(frames: u32, fill: u8) -> Vec<u8> {
    let meta = AudioMetadata {
        sample_rate: 48_000,
        channels: 1,
        bits_per_sample: 16,
        sample_count: frames,
        reserved: 0,
    };
    let pcm = vec![fill; frames as usize * 2];
    AssetWriter::new(AssetType::AUDIO)
        .metadata(&meta.to_bytes())
        .payload(&pcm)
        .to_vec()
}

/// Writes a file atomically (temporary file + rename), as asset tools do.
pub fn write_atomic(path: &Path, bytes: &[u8]) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    voxcaf_fs::write_atomic(path, bytes).unwrap();
}

/// Writes a file in place (truncate, then write), as many editors do.
pub fn write_in_place(path: &Path, bytes: &[u8]) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
}

/// The same bytes with one payload bit flipped (a payload CRC mismatch).
pub fn corrupted(mut bytes: Vec<u8>) -> Vec<u8> {
    let at = bytes.len() - 5;
    bytes[at] ^= 0x40;
    bytes
}
