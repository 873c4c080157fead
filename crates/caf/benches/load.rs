//! Load + full verification throughput of a 256 MiB asset (warm page cache) against two
//! baselines measured in the same run: `std::fs::read` of the file (no checks) and `crc32fast`
//! over the same bytes in memory; plus the latency of loading a 16 KiB texture.
//!
//! `cargo bench -p caf --bench load` (set `CAF_BENCH_MIB` to change the large file size).
//! Criterion reports MB/s for every row; the ratios are between rows of the same group.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use caf::texture::{TextureMetadata, TextureView};
use caf::{AssetType, AssetWriter, LoadMode, LoadedAsset};
use criterion::{Criterion, Throughput};

mod common;
use common::bench_mib;

struct Files {
    _dir: tempfile::TempDir,
    large: PathBuf,
    large_len: u64,
    small: PathBuf,
}

fn pseudo_random(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = voxcaf_golden::Rng::new(seed);
    let mut v = Vec::with_capacity(n + 8);
    while v.len() < n {
        v.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    v.truncate(n);
    v
}

fn setup() -> Files {
    let mib = bench_mib(256);
    let dir = tempfile::tempdir().expect("temp dir");
    let large = dir.path().join("large.caf");
    let payload = pseudo_random(mib << 20, 0x9E37_79B9_7F4A_7C15);
    AssetWriter::new(AssetType::UNKNOWN)
        .metadata(&[7u8; 16])
        .payload(&payload)
        .write_file(&large)
        .expect("write large");
    drop(payload);
    let small = dir.path().join("small.caf");
    let meta = TextureMetadata::rgba8(64, 64, 1);
    AssetWriter::new(AssetType::TEXTURE)
        .metadata(&meta.to_bytes())
        .payload(&pseudo_random(16384, 7))
        .write_file(&small)
        .expect("write small");
    // Warm the page cache.
    let large_len = std::fs::read(&large).expect("read").len() as u64;
    Files {
        _dir: dir,
        large,
        large_len,
        small,
    }
}

fn load(path: &Path, mode: LoadMode) -> LoadedAsset {
    LoadedAsset::open_with(path, mode).expect("valid file")
}

fn bench_large(c: &mut Criterion, f: &Files) {
    let mut g = c.benchmark_group("large_asset");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Bytes(f.large_len));
    g.bench_function("baseline std::fs::read", |b| {
        b.iter(|| black_box(std::fs::read(&f.large).unwrap()))
    });
    let bytes = std::fs::read(&f.large).unwrap();
    g.bench_function("baseline crc32fast (in memory)", |b| {
        b.iter(|| black_box(crc32fast::hash(&bytes)))
    });
    g.bench_function("Asset::parse (in memory)", |b| {
        b.iter(|| black_box(caf::Asset::parse(&bytes).unwrap().header))
    });
    drop(bytes);
    g.bench_function("LoadedAsset::open (read)", |b| {
        b.iter(|| black_box(load(&f.large, LoadMode::Read)))
    });
    g.bench_function("LoadedAsset::open (map)", |b| {
        b.iter(|| black_box(load(&f.large, LoadMode::Map)))
    });
    g.finish();
}

fn bench_small(c: &mut Criterion, f: &Files) {
    let mut g = c.benchmark_group("texture_16KiB");
    g.sample_size(50)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("baseline std::fs::read", |b| {
        b.iter(|| black_box(std::fs::read(&f.small).unwrap()))
    });
    g.bench_function("LoadedAsset::open + TextureView", |b| {
        b.iter(|| {
            let l = load(&f.small, LoadMode::Auto);
            let n = TextureView::from_asset(&l.asset())
                .unwrap()
                .level(0)
                .unwrap()
                .len();
            black_box(n)
        })
    });
    g.finish();
}

fn main() {
    let f = setup();
    let mut c = Criterion::default().configure_from_args();
    bench_large(&mut c, &f);
    bench_small(&mut c, &f);
    c.final_summary();
}
