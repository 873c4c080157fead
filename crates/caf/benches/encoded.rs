//! Decoding throughput of COMPRESSED / ENCRYPTED payloads, one core, against a plain `memcpy`
//! of the same plain bytes measured in the same run (the copy limit), and the streaming reader.
//!
//! `cargo bench -p caf --bench encoded` (`CAF_BENCH_MIB` sets the payload size, default 64).
//! Also: opening a `.cafpack` of 10 000 assets and looking one up (goal: open under 5 ms).
//! Every row reports the *plain* bytes produced per second, so rows compare directly: the
//! issue's goals are zstd >= 1.5 GB/s, lz4 >= 3 GB/s and decryption >= 1 GB/s per core.
//!
//! The payload is texture-like: smooth gradients with noise in the low bits (about 2-3x
//! compressible), built from the project's deterministic `Rng`.

use std::hint::black_box;
use std::time::Duration;

use caf::{
    decode_payload, encode_asset, Asset, AssetType, CafFlags, Codec, DecodeOptions, Encoding, Key,
    StreamReader,
};
use criterion::{Criterion, Throughput};

fn texture_like(n: usize) -> Vec<u8> {
    let mut rng = voxcaf_golden::Rng::new(0x5EED);
    let mut v = Vec::with_capacity(n);
    let w = 2048usize;
    while v.len() < n {
        let i = v.len() / 4;
        let (x, y) = (i % w, i / w);
        let noise = (rng.next_u64() & 0x7) as usize;
        v.extend_from_slice(&[
            ((x / 8 + noise) & 0xFF) as u8,
            ((y / 8 + noise) & 0xFF) as u8,
            (((x + y) / 16) & 0xFF) as u8,
            255,
        ]);
    }
    v.truncate(n);
    v
}

fn bench(c: &mut Criterion) {
    let mib: usize = std::env::var("CAF_BENCH_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let plain = texture_like(mib << 20);
    let key = Key::from_bytes([0x42; 32]);
    let cases = [
        ("zstd", Codec::Zstd, None),
        ("lz4", Codec::Lz4, None),
        ("decrypt", Codec::None, Some(key.clone())),
        ("zstd+decrypt", Codec::Zstd, Some(key.clone())),
        ("lz4+decrypt", Codec::Lz4, Some(key.clone())),
    ];
    let files: Vec<(&str, Vec<u8>, Option<Key>)> = cases
        .into_iter()
        .map(|(name, codec, key)| {
            let enc = Encoding {
                codec,
                key: key.clone(),
                ..Encoding::default()
            };
            let f = encode_asset(AssetType::TEXTURE, CafFlags::NONE, &[], &plain, &enc)
                .expect("encode");
            eprintln!(
                "{name}: {} plain bytes stored in {} ({:.2}x)",
                plain.len(),
                f.len(),
                plain.len() as f64 / f.len() as f64
            );
            (name, f, key)
        })
        .collect();

    let mut g = c.benchmark_group("decode_payload");
    g.throughput(Throughput::Bytes(plain.len() as u64));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(4));
    g.bench_function("baseline: memcpy of the plain payload", |b| {
        b.iter(|| black_box(plain.to_vec()))
    });
    for (name, f, key) in &files {
        let asset = Asset::parse(f).expect("parse");
        let opts = DecodeOptions::with_key(key.as_ref());
        g.bench_function(*name, |b| {
            b.iter(|| black_box(decode_payload(&asset, &opts).expect("decode")))
        });
    }
    g.finish();

    // Streaming (verification of everything, two blocks of memory) from memory.
    let mut g = c.benchmark_group("stream_verify");
    g.throughput(Throughput::Bytes(plain.len() as u64));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(4));
    g.bench_function("baseline: crc32 of the plain payload", |b| {
        b.iter(|| black_box(caf::crc32(&plain)))
    });
    for (name, f, key) in &files {
        g.bench_function(*name, |b| {
            b.iter(|| {
                StreamReader::new(&f[..], key.as_ref())
                    .and_then(|r| {
                        r.for_each_block(|blk| {
                            black_box(blk);
                            Ok(())
                        })
                    })
                    .expect("stream")
            })
        });
    }
    g.finish();
}

/// Opening a pack of 10 000 assets (header + index, checked) and one lookup, against reading
/// the 48-byte header alone (the floor of any open) in the same run.
fn pack(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.cafpack");
    let items: Vec<(String, Vec<u8>)> = (0..10_000u32)
        .map(|i| {
            let f = caf::AssetWriter::new(AssetType::TEXTURE)
                .payload(&i.to_le_bytes())
                .to_vec();
            (format!("textures/set{}/tex{i}.caf", i % 50), f)
        })
        .collect();
    caf::pack::write_pack_file(&path, items).expect("pack");
    let mut g = c.benchmark_group("pack_10000");
    g.bench_function("baseline: open + read 48 bytes", |b| {
        b.iter(|| {
            use std::io::Read;
            let mut f = std::fs::File::open(&path).expect("open");
            let mut h = [0u8; 48];
            f.read_exact(&mut h).expect("read");
            black_box(h)
        })
    });
    g.bench_function("Pack::open (header + checked index)", |b| {
        b.iter(|| black_box(caf::pack::Pack::open(&path).expect("open")))
    });
    let p = caf::pack::Pack::open(&path).expect("open");
    g.bench_function("find (hit)", |b| {
        b.iter(|| black_box(p.find("textures/set7/tex5007.caf").is_some()))
    });
    g.bench_function("find (miss)", |b| {
        b.iter(|| black_box(p.find("textures/set7/nope.caf").is_none()))
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    pack(&mut c);
    bench(&mut c);
    c.final_summary();
}
