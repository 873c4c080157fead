//! Asset pipeline benchmarks. Baselines are measured in the same run:
//! - `texture_2048/png_decode_only` (the `image` crate alone) for the conversions and the load;
//! - `build_200/jobs_1` for `build_200/jobs_all`.
//!
//! The mip-chain builders alone (linear light against the box filter) are timed with the other
//! performance goals in `bench/benches/mesh.rs`.
//!
//! `cargo bench -p caf-import --bench pipeline`
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::path::Path;
use std::time::Duration;

use caf_import::batch::{build, BuildOptions};
use caf_import::{convert, MipFilter, Settings};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use voxcaf_samples as samples;

/// A 2048x2048 RGBA image that compresses like a real texture (gradient plus fine noise).
fn texture_png() -> Vec<u8> {
    samples::png_rgba(2048, 2048, &samples::noisy_rgba(2048, 2048))
}

fn texture(c: &mut Criterion) {
    let png = texture_png();
    let mut g = c.benchmark_group("texture_2048");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.bench_function("png_decode_only", |b| {
        b.iter(|| black_box(image::load_from_memory(&png).unwrap().into_rgba8()))
    });
    let name = Path::new("big.png");
    g.bench_function("png_to_caf_no_mips", |b| {
        b.iter(|| {
            black_box(
                convert(&png, name, &Settings::default())
                    .unwrap()
                    .to_caf_bytes(),
            )
        })
    });
    let mips = Settings {
        mips: true,
        ..Settings::default()
    };
    g.bench_function("png_to_caf_mips_linear", |b| {
        b.iter(|| black_box(convert(&png, name, &mips).unwrap().to_caf_bytes()))
    });
    let boxed = Settings {
        mips: true,
        mip_filter: MipFilter::Box,
        ..Settings::default()
    };
    g.bench_function("png_to_caf_mips_box", |b| {
        b.iter(|| black_box(convert(&png, name, &boxed).unwrap().to_caf_bytes()))
    });
    let dir = tempfile::tempdir().unwrap();
    let caf_path = dir.path().join("big.caf");
    convert(&png, name, &mips)
        .unwrap()
        .write(&caf_path)
        .unwrap();
    g.bench_function("load_caf_verified", |b| {
        b.iter(|| {
            let a = caf::LoadedAsset::open(&caf_path).unwrap();
            let asset = a.asset();
            let view = caf::texture::TextureView::from_asset(&asset).unwrap();
            black_box(view.level_count());
        })
    });
    g.finish();
}

/// 200 mixed sources: 80 textures, 50 sounds, 50 meshes, 20 shaders.
fn make_tree(root: &Path) {
    let w = |rel: String, bytes: &[u8]| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    };
    for i in 0..80u32 {
        w(
            format!("textures/t{i:03}.png"),
            &samples::gradient_png(128 + i, 128),
        );
    }
    for i in 0..50u32 {
        w(
            format!("sounds/s{i:03}.wav"),
            &samples::wav_i16(22050, 1 + (i % 2) as u16, 11025 + i),
        );
    }
    for i in 0..50u32 {
        let mut obj = String::new();
        let n = 20 + i as usize;
        for y in 0..=n {
            for x in 0..=n {
                obj.push_str(&format!(
                    "v {x} {y} {}\nvt {} {}\n",
                    ((x * y) % 7) as f32 * 0.1,
                    x as f32 / n as f32,
                    y as f32 / n as f32
                ));
            }
        }
        for y in 0..n {
            for x in 0..n {
                let a = y * (n + 1) + x + 1;
                let (b, c, d) = (a + 1, a + n + 2, a + n + 1);
                obj.push_str(&format!("f {a}/{a} {b}/{b} {c}/{c} {d}/{d}\n"));
            }
        }
        w(format!("meshes/m{i:03}.obj"), obj.as_bytes());
    }
    for i in 0..20u32 {
        let (ext, src) = match i % 3 {
            0 => ("vert", samples::VERTEX_GLSL),
            1 => ("frag", samples::FRAGMENT_GLSL),
            _ => ("wgsl", samples::COMPUTE_WGSL),
        };
        w(format!("shaders/k{i:03}.{ext}"), src.as_bytes());
    }
}

fn batch(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    make_tree(&src);
    let mut g = c.benchmark_group("build_200");
    g.sample_size(10).measurement_time(Duration::from_secs(15));
    for (label, jobs) in [("jobs_1", 1), ("jobs_all", 0)] {
        let out = dir.path().join(label);
        let opts = BuildOptions {
            jobs,
            force: true,
            ..BuildOptions::default()
        };
        g.bench_function(label, |b| {
            b.iter(|| {
                let r = build(&src, &out, &opts, &|_| {}).unwrap();
                assert_eq!(r.converted, 200);
            })
        });
    }
    let out = dir.path().join("noop");
    let opts = BuildOptions::default();
    build(&src, &out, &opts, &|_| {}).unwrap();
    g.bench_function("up_to_date", |b| {
        b.iter(|| assert_eq!(build(&src, &out, &opts, &|_| {}).unwrap().skipped, 200))
    });
    g.finish();
}

criterion_group!(benches, texture, batch);
criterion_main!(benches);
