//! Loading through the manager vs plain reads, from a warm page cache.
//!
//! Data: 1000 small textures (4-64 KiB, sizes from a fixed pseudo-random sequence) and 4 large
//! ones (64 MiB each), written once to a temporary directory and read once before measuring so
//! the page cache is warm. Each group compares, on the same files in the same run:
//!
//! - `fs_read`: `std::fs::read` of every file in a loop (the baseline; no checks at all),
//! - `caf_open`: `caf::LoadedAsset::open` in a loop (one read + both CRCs, no manager),
//! - `manager_1_worker` / `manager_N_workers`: a fresh `AssetManager` (cold cache) loading
//!   every file as a `Texture` (read, CRCs, type and view checks) and waiting for all.
//!
//! Run with `cargo bench -p caf-assets`.
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use caf::texture::TextureMetadata;
use caf::{AssetType, AssetWriter, LoadedAsset};
use caf_assets::{AssetManager, Texture};
use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};

const SMALL: usize = 1000;
const LARGE: usize = 4;
const LARGE_SIZE: usize = 64 << 20;

fn texture(payload: usize, seed: u8) -> Vec<u8> {
    let meta = TextureMetadata {
        width: (payload / 4) as u32,
        height: 1,
        format: 0,
        mip_levels: 1,
        reserved: 0,
    };
    let pixels: Vec<u8> = (0..payload)
        .map(|i| (i as u8).wrapping_mul(31) ^ seed)
        .collect();
    AssetWriter::new(AssetType::TEXTURE)
        .metadata(&meta.to_bytes())
        .payload(&pixels)
        .to_vec()
}

struct Data {
    _dir: tempfile::TempDir,
    base: PathBuf,
    small: Vec<String>,
    large: Vec<String>,
}

fn data() -> Data {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = dir.path().to_path_buf();
    std::fs::create_dir_all(base.join("small")).unwrap();
    let mut rng = voxcaf_golden::Rng::new(0x1234_5678);
    let small: Vec<String> = (0..SMALL)
        .map(|i| {
            // Sizes 4..=64 KiB in 4-byte steps.
            let size = 4096 + rng.below(60 * 1024 / 4) as usize * 4;
            let name = format!("small/{i:04}.caf");
            std::fs::write(base.join(&name), texture(size, i as u8)).unwrap();
            name
        })
        .collect();
    let large: Vec<String> = (0..LARGE)
        .map(|i| {
            let name = format!("large{i}.caf");
            std::fs::write(base.join(&name), texture(LARGE_SIZE, i as u8)).unwrap();
            name
        })
        .collect();
    // Warm the page cache.
    for n in small.iter().chain(&large) {
        LoadedAsset::open(&base.join(n)).expect("valid bench file");
    }
    Data {
        _dir: dir,
        base,
        small,
        large,
    }
}

fn total_bytes(base: &Path, names: &[String]) -> u64 {
    names
        .iter()
        .map(|n| std::fs::metadata(base.join(n)).unwrap().len())
        .sum()
}

fn bench_set(c: &mut Criterion, group: &str, base: &Path, names: &[String]) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let paths: Vec<PathBuf> = names.iter().map(|n| base.join(n)).collect();
    let mut g = c.benchmark_group(group);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(total_bytes(base, names)));

    // Every variant keeps what it loaded until the timed section ends and frees it outside,
    // as the manager's cache does.
    g.bench_function("fs_read", |b| {
        b.iter_batched(
            || (),
            |()| {
                paths
                    .iter()
                    .map(|p| std::fs::read(p).unwrap())
                    .collect::<Vec<_>>()
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("caf_open", |b| {
        b.iter_batched(
            || (),
            |()| {
                paths
                    .iter()
                    .map(|p| LoadedAsset::open(p).unwrap())
                    .collect::<Vec<_>>()
            },
            BatchSize::PerIteration,
        )
    });
    let mut worker_counts = vec![1];
    if cores > 1 {
        worker_counts.push(cores);
    }
    for workers in worker_counts {
        let id = if workers == 1 {
            "manager_1_worker".to_string()
        } else {
            format!("manager_{workers}_workers")
        };
        g.bench_function(id, |b| {
            b.iter_batched(
                || {
                    AssetManager::builder(base)
                        .workers(workers)
                        .build()
                        .unwrap()
                },
                |m| {
                    let handles: Vec<_> = names.iter().map(|n| m.load::<Texture>(n)).collect();
                    for h in &handles {
                        assert!(m.wait(h, Duration::from_secs(60)).is_loaded());
                    }
                    black_box(&handles);
                    (m, handles)
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let d = data();
    bench_set(c, "small_1000", &d.base, &d.small);
    bench_set(c, "large_4x64MiB", &d.base, &d.large);
}

criterion_group!(manager, benches);
criterion_main!(manager);
