//! Decoding throughput of COMPRESSED / ENCRYPTED payloads, one core, against a plain `memcpy`
//! of the same plain bytes measured in the same run (the copy limit), and the streaming reader.
//!
//! `cargo bench -p caf --bench encoded` (`CAF_BENCH_MIB` sets the payload size, default 64).
//! Also: opening a `.cafpack` of 10 000 assets and looking one up (goal: open under 5 ms).
//! Every row reports the *plain* bytes produced per second, so rows compare directly: the
//! issue's goals are zstd >= 1.5 GB/s, lz4 >= 3 GB/s and decryption >= 1 GB/s per core.
//! Decryption is measured with both ciphers: XChaCha20-Poly1305 (the default) and AES-256-GCM
//! (`--cipher aes-256-gcm`, fast where the CPU has AES instructions).
//! `decode_payload` rows are the one-shot call (a fresh buffer each time: allocation and page
//! faults included, like the memcpy baseline beside them); `decode_reused` rows are the block
//! decode itself (a reused `PayloadDecoder` and buffer), against the codecs alone and against
//! the codecs with the two CRC-32s the format requires (the floors), and after them a paired
//! summary gives each case's ratio to its floors from alternating rounds.
//!
//! The payload is texture-like: smooth gradients with noise in the low bits (about 2-3x
//! compressible), built from the project's deterministic `Rng`.

use std::hint::black_box;
use std::time::Duration;

use caf::encoded::{
    block_index, decode_payload, encode_asset, Cipher, Codec, DecodeOptions, Encoding, Key,
    PayloadDecoder, StreamReader,
};
use caf::{Asset, AssetType, CafFlags};
use chacha20poly1305::aead::{AeadInPlace, Nonce};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};

mod common;
use common::bench_mib;

/// `n` bytes of texture-like RGBA, rows 2048 pixels wide.
fn texture_like(n: usize) -> Vec<u8> {
    let mut v = common::texture_like(2048, (n / 4).div_ceil(2048));
    v.truncate(n);
    v
}

/// The encoded files of every case: name, file and key.
type Files = Vec<(&'static str, Vec<u8>, Option<Key>)>;

fn bench(c: &mut Criterion) {
    let mib = bench_mib(64);
    let plain = texture_like(mib << 20);
    let key = Key::from_bytes([0x42; 32]);
    let files = encoded_files(&plain, &key);
    decode_payload_group(c, &plain, &files);
    decode_reused_group(c, &plain, &files, &key);
    stream_verify_group(c, &plain, &files);
}

/// `plain` encoded with each codec and cipher the benches compare.
fn encoded_files(plain: &[u8], key: &Key) -> Files {
    let (x, aes) = (Cipher::XChaCha20Poly1305, Cipher::Aes256Gcm);
    let cases = [
        ("zstd", Codec::Zstd, None, x),
        ("lz4", Codec::Lz4, None, x),
        ("decrypt", Codec::None, Some(key.clone()), x),
        ("zstd+decrypt", Codec::Zstd, Some(key.clone()), x),
        ("lz4+decrypt", Codec::Lz4, Some(key.clone()), x),
        ("decrypt aes-256-gcm", Codec::None, Some(key.clone()), aes),
        (
            "lz4+decrypt aes-256-gcm",
            Codec::Lz4,
            Some(key.clone()),
            aes,
        ),
    ];
    cases
        .into_iter()
        .map(|(name, codec, key, cipher)| {
            let enc = Encoding {
                codec,
                key: key.clone(),
                cipher,
                ..Encoding::default()
            };
            let f =
                encode_asset(AssetType::TEXTURE, CafFlags::NONE, &[], plain, &enc).expect("encode");
            eprintln!(
                "{name}: {} plain bytes stored in {} ({:.2}x)",
                plain.len(),
                f.len(),
                plain.len() as f64 / f.len() as f64
            );
            (name, f, key)
        })
        .collect()
}

/// A benchmark group `name` of 10 samples over 4 s, reporting `plain`'s bytes per second.
fn group<'a>(c: &'a mut Criterion, name: &str, plain: &[u8]) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(plain.len() as u64));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(4));
    g
}

/// One-shot `decode_payload` per case, against a memcpy into a fresh buffer.
fn decode_payload_group(c: &mut Criterion, plain: &[u8], files: &Files) {
    let mut g = group(c, "decode_payload", plain);
    g.bench_function("baseline: memcpy of the plain payload", |b| {
        b.iter(|| black_box(plain.to_vec()))
    });
    for (name, f, key) in files {
        let asset = Asset::parse(f).expect("parse");
        let opts = DecodeOptions::with_key(key.as_ref());
        g.bench_function(*name, |b| {
            b.iter(|| black_box(decode_payload(&asset, &opts).expect("decode")))
        });
    }
    g.finish();
}

/// A timed job: a row name and the work of one iteration.
type Job<'a> = (String, Box<dyn FnMut() + 'a>);

/// The block decode itself, as a game streaming many assets runs it: one PayloadDecoder
/// and one output buffer reused, so no allocation, page faults or zero-fill are measured.
/// The floor rows are the same blocks through zstd / lz4_flex / the AEAD alone, without the
/// container's checks, and then with the two CRC-32s the format requires (each stored
/// block's and the plain payload's), which no decoder of this format can skip. After the
/// group, [`paired`] prints each case's ratio to its floors from alternating rounds.
fn decode_reused_group(c: &mut Criterion, plain: &[u8], files: &Files, key: &Key) {
    let mut g = group(c, "decode_reused", plain);
    let mut jobs: Vec<Job<'_>> = Vec::new();
    let mut copy = vec![0u8; plain.len()];
    jobs.push((
        "baseline: memcpy into a reused buffer".into(),
        Box::new(move || {
            copy.copy_from_slice(plain);
            black_box(&copy);
        }),
    ));
    for (name, f, key) in files {
        let asset = Asset::parse(f).expect("parse");
        let opts = DecodeOptions::with_key(key.as_ref());
        let (mut dec, mut out) = (PayloadDecoder::new(), Vec::new());
        jobs.push((
            format!("{name}: PayloadDecoder::decode_into"),
            Box::new(move || {
                dec.decode_into(&asset, &opts, &mut out).expect("decode");
                black_box(&out);
            }),
        ));
    }
    for (name, f, _) in files.iter().filter(|(n, ..)| matches!(*n, "zstd" | "lz4")) {
        for crcs in [false, true] {
            jobs.push(codec_floor(name, f, plain.len(), crcs));
        }
    }
    {
        use chacha20poly1305::aead::KeyInit;
        let cipher = chacha20poly1305::XChaCha20Poly1305::new(chacha20poly1305::Key::from_slice(
            key.as_bytes(),
        ));
        let aes = aes_gcm::Aes256Gcm::new(key.as_bytes().into());
        for crcs in [false, true] {
            jobs.push(aead_floor(
                "XChaCha20-Poly1305",
                plain,
                cipher.clone(),
                crcs,
            ));
            jobs.push(aead_floor("AES-256-GCM", plain, aes.clone(), crcs));
        }
    }
    jobs.push((
        "floor: crc32fast of the plain payload".into(),
        Box::new(move || {
            black_box(caf::crc32(plain));
        }),
    ));
    for (name, job) in &mut jobs {
        g.bench_function(name.as_str(), |b| b.iter(&mut *job));
    }
    g.finish();
    paired(
        &mut jobs,
        &[
            ("zstd", "floor: zstd blocks"),
            ("lz4", "floor: lz4 blocks"),
            ("decrypt", "floor: XChaCha20-Poly1305"),
            ("decrypt aes-256-gcm", "floor: AES-256-GCM"),
        ],
        plain.len(),
    );
}

/// The floor row of codec `name` (the blocks of the encoded file `f` decoded by the codec
/// alone into a kept buffer of `plain` bytes), with the format's CRC-32s when `crcs`.
fn codec_floor<'a>(name: &'a str, f: &'a [u8], plain: usize, crcs: bool) -> Job<'a> {
    let asset = Asset::parse(f).expect("parse");
    let (h, entries) = block_index(&asset).expect("index");
    let blocks: Vec<(&[u8], usize)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let s = e.offset as usize;
            (
                &asset.payload[s..s + e.stored_size as usize],
                h.plain_len(i as u32),
            )
        })
        .collect();
    let mut z = zstd::bulk::Decompressor::new().expect("zstd");
    let mut out = vec![0u8; plain];
    let row = match crcs {
        false => format!("floor: {name} blocks alone"),
        true => format!("floor: {name} blocks + the format's CRC-32s"),
    };
    let job = move || {
        let mut at = 0;
        let mut plain = crc32fast::Hasher::new();
        for (stored, len) in &blocks {
            if crcs {
                black_box(caf::crc32(stored));
            }
            let o = &mut out[at..at + len];
            let n = if name == "zstd" {
                z.decompress_to_buffer(stored, o).expect("zstd")
            } else {
                lz4_flex::block::decompress_into(stored, o).expect("lz4")
            };
            if crcs {
                plain.update(o);
            }
            at += n;
        }
        black_box(plain.finalize());
        black_box(&out);
    };
    (row, Box::new(job))
}

/// The floor row of the AEAD `cipher` (named `name`): every 64 KiB block of a copy of `plain`
/// sealed in place, default nonce (opening costs the same), with the format's CRC-32s when
/// `crcs`.
fn aead_floor<'a, A: AeadInPlace + 'a>(name: &str, plain: &[u8], cipher: A, crcs: bool) -> Job<'a> {
    let mut buf = plain.to_vec();
    let nonce = Nonce::<A>::default();
    let row = match crcs {
        false => format!("floor: {name} in place, 64 KiB blocks"),
        true => format!("floor: {name} in place + the format's CRC-32s"),
    };
    let job = move || {
        let mut plain = crc32fast::Hasher::new();
        for blk in buf.chunks_mut(64 << 10) {
            if crcs {
                black_box(caf::crc32(blk));
            }
            let t = cipher
                .encrypt_in_place_detached(&nonce, b"aad", blk)
                .expect("aead");
            if crcs {
                plain.update(blk);
            }
            black_box(t);
        }
        black_box(plain.finalize());
    };
    (row, Box::new(job))
}

/// Prints, for each (case, floor prefix) of `pairs`, the case's throughput and its ratio to
/// each floor row whose name starts with the prefix, from 15 rounds in which every job runs
/// once in turn (a slow spell of a shared machine slows a round's jobs alike); the medians
/// of the per-round ratios are kept.
fn paired(jobs: &mut [Job<'_>], pairs: &[(&str, &str)], plain: usize) {
    const ROUNDS: usize = 15;
    let mut times = vec![Vec::new(); jobs.len()];
    for _ in 0..ROUNDS {
        for (t, (_, job)) in times.iter_mut().zip(jobs.iter_mut()) {
            let start = std::time::Instant::now();
            job();
            t.push(start.elapsed().as_secs_f64());
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let find = |row: &str| jobs.iter().position(|(n, _)| n == row);
    println!("decode_reused, paired ({ROUNDS} rounds): plain GB/s, and time of the floor / time");
    for (case, prefix) in pairs {
        let Some(i) = find(&format!("{case}: PayloadDecoder::decode_into")) else {
            continue;
        };
        let gbs = plain as f64 / median(times[i].clone()) / 1e9;
        let mut line = format!("  {case}: {gbs:.2} GB/s");
        for (j, (row, _)) in jobs
            .iter()
            .enumerate()
            .filter(|(_, (n, _))| n.starts_with(prefix))
        {
            let r: Vec<f64> = times[j].iter().zip(&times[i]).map(|(f, o)| f / o).collect();
            line += &format!("; {:.2}x of \"{row}\"", median(r));
        }
        println!("{line}");
    }
}

/// Streaming (verification of everything, two blocks of memory) from memory.
fn stream_verify_group(c: &mut Criterion, plain: &[u8], files: &Files) {
    let mut g = group(c, "stream_verify", plain);
    g.bench_function("baseline: crc32 of the plain payload", |b| {
        b.iter(|| black_box(caf::crc32(plain)))
    });
    for (name, f, key) in files {
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
