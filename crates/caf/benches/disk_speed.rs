//! "Loads at disk speed" (issue 16, item 6), each against a baseline measured in the same run:
//!
//! 1. `check_vs_dd`: the whole process `voxcaf asset check big.caf` of a 256 MiB texture whose
//!    payload is *not* aligned in the file (24-byte metadata, as the original writes it), against
//!    `dd if=big.caf of=/dev/null bs=1M` of the same file, warm page cache. Goal: dd time /
//!    check time >= 0.8. Needs a built `voxcaf` binary: `VOXCAF_BIN`, else
//!    `$CARGO_TARGET_DIR/release/voxcaf` (or `target/release/voxcaf`); `cargo build --release -p
//!    voxcaf` first. Skipped with a note when there is none.
//! 2. `texture_2048_mips`: loading a 2048x2048 RGBA texture with its 12 mip levels
//!    (`LoadedAsset::open` + `TextureView`) against decoding the same image's PNG with `image`.
//!    Goal: >= 20x. Also printed: the floor, the `.caf` file mapped and its bytes CRC-32ed
//!    once (what any verifying loader does at least), and the ratio that floor itself reaches.
//!
//! `cargo bench -p caf --bench disk_speed` (`CAF_BENCH_MIB` changes the big file's size;
//! `-- --quick` is enough for the ratios, which are printed after each group from the medians
//! of alternating runs).

// The floor row of `texture_2048_mips` maps the benchmark's own file, as `LoadMode::Map` does.
#![allow(unsafe_code)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use caf::texture::{TextureMetadata, TextureView};
use caf::{AssetType, AssetWriter, CafFlags, LoadMode, LoadedAsset};
use criterion::{Criterion, Throughput};

mod common;
use common::{bench_mib, texture_like};

/// Median wall time of `runs` runs of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[t.len() / 2]
}

fn voxcaf_bin() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("VOXCAF_BIN") {
        return Some(PathBuf::from(p));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let p = target.join("release").join("voxcaf");
    p.is_file().then_some(p)
}

fn run_ok(cmd: &mut Command) {
    let st = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn");
    assert!(st.success(), "{cmd:?} failed");
}

fn check_vs_dd(c: &mut Criterion, dir: &Path) {
    let Some(bin) = voxcaf_bin() else {
        eprintln!(
            "check_vs_dd skipped: no voxcaf binary (set VOXCAF_BIN or `cargo build --release -p voxcaf`)"
        );
        return;
    };
    let mib = bench_mib(256);
    // 256 MiB of RGBA8 level 0 (one level), written unaligned (no metadata padding).
    let side = (((mib << 20) / 4) as f64).sqrt() as u32;
    let payload = texture_like(side as usize, side as usize);
    let meta = TextureMetadata::rgba8(side, side, 1);
    let big = dir.join("big.caf");
    AssetWriter::new(AssetType::TEXTURE)
        .metadata(&meta.to_bytes())
        .payload(&payload)
        .write_file(&big)
        .expect("write");
    drop(payload);
    let len = std::fs::metadata(&big).expect("stat").len();
    let dd = || {
        run_ok(
            Command::new("dd")
                .arg(format!("if={}", big.display()))
                .args(["of=/dev/null", "bs=1M"]),
        )
    };
    let check = || run_ok(Command::new(&bin).args(["asset", "check"]).arg(&big));
    dd(); // warm the page cache
    check();

    let mut g = c.benchmark_group("check_vs_dd");
    g.throughput(Throughput::Bytes(len));
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    g.bench_function("baseline: dd bs=1M (whole process)", |b| b.iter(dd));
    g.bench_function("voxcaf asset check (whole process)", |b| b.iter(check));
    g.finish();

    // Alternating runs so that both see the same machine load.
    let (mut t_dd, mut t_check) = (Vec::new(), Vec::new());
    for _ in 0..7 {
        t_dd.push(median(1, dd));
        t_check.push(median(1, check));
    }
    t_dd.sort();
    t_check.sort();
    let (d, k) = (t_dd[3], t_check[3]);
    println!(
        "check_vs_dd: {len} bytes; dd {:.1} ms ({:.2} GB/s), check {:.1} ms ({:.2} GB/s); \
         ratio dd/check = {:.2} (goal >= 0.8)",
        d.as_secs_f64() * 1e3,
        len as f64 / d.as_secs_f64() / 1e9,
        k.as_secs_f64() * 1e3,
        len as f64 / k.as_secs_f64() / 1e9,
        d.as_secs_f64() / k.as_secs_f64()
    );
}

fn texture_2048(c: &mut Criterion, dir: &Path) {
    let side = 2048u32;
    let base = texture_like(side as usize, side as usize);
    // The mip chain: 2x2 box averages down to 1x1 (12 levels), as the pipeline stores it.
    let mut payload = base.clone();
    let mut level = base.clone();
    let (mut w, mut h) = (side as usize, side as usize);
    let mut levels = 1;
    while w > 1 || h > 1 {
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let mut next = vec![0u8; nw * nh * 4];
        for y in 0..nh {
            for x in 0..nw {
                for ch in 0..4 {
                    let at = |xx: usize, yy: usize| {
                        u32::from(level[((yy.min(h - 1)) * w + xx.min(w - 1)) * 4 + ch])
                    };
                    let s = at(2 * x, 2 * y)
                        + at(2 * x + 1, 2 * y)
                        + at(2 * x, 2 * y + 1)
                        + at(2 * x + 1, 2 * y + 1);
                    next[(y * nw + x) * 4 + ch] = (s / 4) as u8;
                }
            }
        }
        payload.extend_from_slice(&next);
        level = next;
        (w, h) = (nw, nh);
        levels += 1;
    }
    let meta = TextureMetadata::rgba8(side, side, levels);
    let caf_path = dir.join("tex2048.caf");
    AssetWriter::new(AssetType::TEXTURE)
        .flags(CafFlags::MIPCHAIN)
        .metadata(&meta.to_bytes())
        .align_payload() // the default pipeline profile's layout
        .payload(&payload)
        .write_file(&caf_path)
        .expect("write caf");
    let png_path = dir.join("tex2048.png");
    image::RgbaImage::from_raw(side, side, base)
        .expect("image")
        .save(&png_path)
        .expect("write png");
    let load_with = |mode: LoadMode| {
        let l = LoadedAsset::open_with(&caf_path, mode).expect("load");
        let v = TextureView::from_asset(&l.asset()).expect("view");
        black_box(v.level_count());
        black_box(l)
    };
    let load_caf = || load_with(LoadMode::Auto);
    let decode_png = || black_box(image::open(&png_path).expect("png").into_rgba8());
    load_caf();
    decode_png();

    let mut g = c.benchmark_group("texture_2048_mips");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g.bench_function("baseline: decode the PNG (image)", |b| b.iter(decode_png));
    g.bench_function("LoadedAsset::open + TextureView (12 levels)", |b| {
        b.iter(load_caf)
    });
    g.bench_function("LoadedAsset::open_with(Map) + TextureView", |b| {
        b.iter(|| load_with(LoadMode::Map))
    });
    g.bench_function("LoadedAsset::open_with(Read) + TextureView", |b| {
        b.iter(|| load_with(LoadMode::Read))
    });
    g.finish();
    let png = median(5, || {
        decode_png();
    });
    let caf = median(21, || {
        load_caf();
    });
    let mapped = median(21, || {
        load_with(LoadMode::Map);
    });
    // The floor of any loader that verifies what it loads: the file mapped and its bytes
    // read once by crc32fast (the format's whole-file check), nothing else. PNG / floor is the
    // most this machine allows.
    let floor = median(21, || {
        let f = std::fs::File::open(&caf_path).expect("open");
        // SAFETY: the file is this benchmark's own and nothing writes it while mapped.
        let m = unsafe { memmap2::MmapOptions::new().populate().map(&f) }.expect("map");
        black_box(crc32fast::hash(&m));
    });
    let png_len = std::fs::metadata(&png_path).expect("png").len();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let x = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "texture_2048_mips: PNG ({png_len} bytes, {:.2}x smaller than RGBA8) decode {:.2} ms, \
         .caf load + view {:.3} ms (mapped: {:.3} ms); ratio {:.1}x, mapped {:.1}x (goal >= 20x)",
        (side as f64 * side as f64 * 4.0) / png_len as f64,
        ms(png),
        ms(caf),
        ms(mapped),
        x(png, caf),
        x(png, mapped)
    );
    println!(
        "texture_2048_mips: floor: the .caf file mapped and CRC-32ed {:.3} ms, so at most {:.1}x \
         on this machine; load + view takes {:.2}x the floor's time",
        ms(floor),
        x(png, floor),
        x(caf, floor)
    );
}

/// Where mapping starts to beat reading (`LoadMode::Map` against `LoadMode::Read`, aligned
/// textures of growing size, warm page cache): the evidence for [`caf::MAP_THRESHOLD`].
fn map_vs_read_sizes(dir: &Path) {
    for kib in [16usize, 64, 256, 1024, 4096, 16384] {
        let side = (((kib << 10) / 4) as f64).sqrt() as u32;
        let meta = TextureMetadata::rgba8(side, side, 1);
        let path = dir.join(format!("tex{kib}.caf"));
        AssetWriter::new(AssetType::TEXTURE)
            .metadata(&meta.to_bytes())
            .align_payload()
            .payload(&texture_like(side as usize, side as usize))
            .write_file(&path)
            .expect("write");
        let load = |mode| {
            black_box(LoadedAsset::open_with(&path, mode).expect("load"));
        };
        let runs = (64 << 20) / (kib << 10) + 5;
        let (mut read, mut map) = (Vec::new(), Vec::new());
        for _ in 0..7 {
            read.push(median(runs.min(201), || load(LoadMode::Read)));
            map.push(median(runs.min(201), || load(LoadMode::Map)));
        }
        read.sort();
        map.sort();
        println!(
            "map_vs_read: {kib} KiB texture: read {:.1} us, map {:.1} us ({:.2}x)",
            read[3].as_secs_f64() * 1e6,
            map[3].as_secs_f64() * 1e6,
            read[3].as_secs_f64() / map[3].as_secs_f64()
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let dir = tempfile::tempdir().expect("temp dir");
    map_vs_read_sizes(dir.path());
    texture_2048(&mut c, dir.path());
    check_vs_dd(&mut c, dir.path());
    c.final_summary();
}
