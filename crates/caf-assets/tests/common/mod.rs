//! Helpers shared by the integration tests: writing small `.caf` files.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use caf::audio::AudioMetadata;
use caf::encoded::Encoding;
use caf::{AssetType, AssetWriter, CafError, CafFlags};
use caf_assets::{AssetError, AssetKind, AssetManager, Handle, Kind, Status};

/// Upper bound for every wait in the tests. Waits end as soon as their condition holds; this
/// only limits how long a broken build hangs.
pub const WAIT: Duration = Duration::from_secs(10);

#[path = "../../src/test_files.rs"]
mod test_files;
pub use test_files::texture_file;

/// Bytes of a `width` x 1 RGBA8 texture whose pixels are all `fill`.
pub fn texture_bytes(width: u32, fill: u8) -> Vec<u8> {
    let pixels = vec![fill; width as usize * 4];
    texture_file(width, 1, 1, CafFlags::NONE, &pixels)
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
    asset_bytes(AssetType::AUDIO, &meta.to_bytes(), &pcm)
}

/// Bytes of a plain `.caf` file of type `asset_type` with `metadata` and `payload`.
pub fn asset_bytes(asset_type: AssetType, metadata: &[u8], payload: &[u8]) -> Vec<u8> {
    AssetWriter::new(asset_type)
        .metadata(metadata)
        .payload(payload)
        .to_vec()
}

/// The `.caf` file `plain` written again with `flags` and its payload encoded by `enc`
/// (compressed, encrypted).
pub fn encoded(plain: &[u8], flags: CafFlags, enc: &Encoding) -> Vec<u8> {
    let a = caf::Asset::parse(plain).unwrap();
    caf::encoded::encode_asset(a.header.asset_type, flags, a.metadata, a.payload, enc).unwrap()
}

/// A manager over `dir` with `workers` loader threads and the other settings at their defaults.
pub fn manager(dir: &Path, workers: usize) -> AssetManager {
    AssetManager::builder(dir).workers(workers).build().unwrap()
}

/// Waits for a settled status and returns the error of a failure.
pub fn failure<T: AssetKind>(m: &AssetManager, h: &Handle<T>) -> Arc<AssetError> {
    match m.wait(h, WAIT) {
        Status::Failed(e) => e,
        other => panic!("{}: expected a failure, got {other}", h.path()),
    }
}

/// Waits for `h` to fail and checks that its typed view refused the file as a `kind` asset.
pub fn assert_bad_content<T: AssetKind>(m: &AssetManager, h: &Handle<T>, kind: Kind) {
    let e = failure(m, h);
    assert!(
        matches!(&*e, AssetError::BadContent { kind: k, .. } if *k == kind),
        "{e}"
    );
}

/// What the `caf` loader found, when `e` is a load failure ([`AssetError::Load`]).
pub fn load_error(e: &AssetError) -> Option<&CafError> {
    match e {
        AssetError::Load { source, .. } => Some(source),
        _ => None,
    }
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
