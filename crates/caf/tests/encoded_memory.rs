//! Memory bounds of encoded payloads, measured with a tracking allocator: bombs are refused
//! without large allocations, and streaming holds a few blocks whatever the payload's size.
// `unsafe` here: a counting global allocator (`GlobalAlloc` is an unsafe trait).
#![allow(unsafe_code)]
// Every test here encodes or decodes with the default codecs and ciphers.
#![cfg(all(feature = "zstd", feature = "lz4", feature = "crypto"))]

mod common;
use common::encode_audio;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use caf::encoded::{
    decode_payload, encode_asset, BlockEntry, BlockIndexHeader, Codec, DecodeOptions, Encoding,
    Key, StreamReader, BLOCK_MAGIC, BLOCK_VERSION, ENTRY_SIZE, INDEX_HEADER_SIZE,
};
use caf::{Asset, AssetType, CafError, CafFlags};

/// Tracks live bytes and their peak.
struct Tracking;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
// SAFETY: every method forwards to the system allocator with the caller's arguments
// unchanged; the counters are only statistics.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: forwarding the caller's layout unchanged to the system allocator.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: `p` was returned by `System.alloc` with this layout.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let now = LIVE.fetch_add(new, Ordering::Relaxed) + new;
        PEAK.fetch_max(now, Ordering::Relaxed);
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: same contract as `GlobalAlloc::realloc`, forwarded.
        unsafe { System.realloc(p, l, new) }
    }
}
#[global_allocator]
static GLOBAL: Tracking = Tracking;

/// The tests measure a process-wide counter: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Peak bytes allocated above what was live when `f` started.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let r = f();
    (r, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

/// A COMPRESSED (zstd) file built by hand around the given stored blocks, with every CRC right.
/// Decodes `file` whole, which must fail at its first block: the peak of live bytes meanwhile.
fn failing_decode_peak(file: &[u8]) -> usize {
    let a = Asset::parse(file).unwrap();
    let (r, peak) = peak_during(|| decode_payload(&a, &DecodeOptions::default()));
    assert!(
        matches!(r, Err(CafError::BlockDecode { block: 0, .. })),
        "{r:?}"
    );
    peak
}

fn hand_built(block_size: u32, plain_size: u64, blocks: &[Vec<u8>], plain_crc: u32) -> Vec<u8> {
    let count = blocks.len();
    let data_offset = INDEX_HEADER_SIZE + count * ENTRY_SIZE;
    let mut entries = Vec::new();
    let mut at = data_offset as u64;
    for b in blocks {
        entries.push(BlockEntry {
            offset: at,
            stored_size: b.len() as u32,
            stored_crc32: caf::crc32(b),
        });
        at += b.len() as u64;
    }
    let mut h = BlockIndexHeader {
        magic: BLOCK_MAGIC,
        version: BLOCK_VERSION,
        codec: Codec::Zstd.code(),
        cipher: 0,
        block_size,
        block_count: count as u32,
        plain_size,
        plain_crc32: plain_crc,
        data_offset: data_offset as u32,
        salt: [0; 16],
        key_check: [0; 16],
        index_tag: [0; 16],
        reserved: 0,
        index_crc32: 0,
    };
    let entry_bytes: Vec<u8> = entries.iter().flat_map(|e| e.to_bytes()).collect();
    h.index_crc32 = caf::crc32_continue(caf::crc32(&h.to_bytes()[..84]), &entry_bytes);
    let mut payload = h.to_bytes().to_vec();
    payload.extend_from_slice(&entry_bytes);
    for b in blocks {
        payload.extend_from_slice(b);
    }
    caf::AssetWriter::new(AssetType::AUDIO)
        .flags(CafFlags::COMPRESSED)
        .payload(&payload)
        .to_vec()
}

#[test]
fn bombs_are_refused_without_large_allocations() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // A 64 KiB block whose zstd frame expands to 256 MiB of zeros.
    let bomb_frame = zstd::bulk::compress(&vec![0u8; 256 << 20], 19).unwrap();
    assert!(bomb_frame.len() < 64 << 10);
    let file = hand_built(64 << 10, 64 << 10, std::slice::from_ref(&bomb_frame), 0);
    let peak = failing_decode_peak(&file);
    assert!(peak < 4 << 20, "peak {peak} bytes");
    let (r, peak) = peak_during(|| {
        StreamReader::new(&file[..], None).and_then(|r| r.for_each_block(|_| Ok(())))
    });
    assert!(matches!(r, Err(CafError::BlockDecode { block: 0, .. })));
    assert!(peak < 4 << 20, "stream peak {peak} bytes");

    // An index that declares 4 GiB - 1 of plain data in 16 MiB blocks of tiny frames: the
    // first block falls short long before the buffer grows to the declared size.
    let tiny = zstd::bulk::compress(&[1u8; 10], 1).unwrap();
    let blocks = vec![tiny; 256];
    let file = hand_built(16 << 20, (4u64 << 30) - 1, &blocks, 0);
    let peak = failing_decode_peak(&file);
    assert!(peak < 24 << 20, "peak {peak} bytes");

    // A genuine but huge payload beyond the caller's limit is refused before allocating.
    let zeros = vec![0u8; 64 << 20];
    let file = encode_audio(&zeros);
    drop(zeros);
    let a = Asset::parse(&file).unwrap();
    let opts = DecodeOptions {
        max_plain_size: 16 << 20,
        ..DecodeOptions::default()
    };
    let (r, peak) = peak_during(|| decode_payload(&a, &opts));
    assert!(
        matches!(r, Err(CafError::PlainTooLarge { size, limit }) if size == 64 << 20 && limit == 16 << 20)
    );
    assert!(peak < 1 << 20, "peak {peak} bytes");
}

#[test]
fn streaming_holds_a_few_blocks_whatever_the_payload_size() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let n = 48usize << 20; // larger than the 4 MiB cap below
    let plain: Vec<u8> = (0..n).map(|i| (i / 3 % 251) as u8).collect();
    let want_crc = caf::crc32(&plain);
    let key = Key::from_bytes([7; 32]);
    for (name, enc) in [
        ("zstd.caf", Encoding::default()),
        (
            "lz4-enc.caf",
            Encoding {
                codec: Codec::Lz4,
                key: Some(key.clone()),
                ..Encoding::default()
            },
        ),
    ] {
        let path = dir.path().join(name);
        let file = encode_asset(AssetType::AUDIO, CafFlags::STREAMED, &[], &plain, &enc).unwrap();
        std::fs::write(&path, &file).unwrap();
        drop(file);
        let (r, peak) = peak_during(|| {
            let f = std::fs::File::open(&path).unwrap();
            let r = StreamReader::new(std::io::BufReader::new(f), enc.key.as_ref())?;
            let mut crc = crc32fast::Hasher::new();
            let mut total = 0usize;
            r.for_each_block(|b| {
                crc.update(b);
                total += b.len();
                Ok(())
            })?;
            Ok::<_, CafError>((total, crc.finalize()))
        });
        assert_eq!(r.unwrap(), (n, want_crc), "{name}");
        assert!(
            peak < 4 << 20,
            "{name}: streaming peak {peak} bytes for {n}"
        );
    }
}

#[test]
fn fuzz_regression_stream_index_sized_by_the_header() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // A stream that claims 2^32 - 1 blocks of 16 MiB (a 64 GiB index) but ends after its
    // index header: the reader allocates what arrived, not what was claimed.
    let count = u32::MAX;
    let h = BlockIndexHeader {
        magic: BLOCK_MAGIC,
        version: BLOCK_VERSION,
        codec: Codec::Zstd.code(),
        cipher: 0,
        block_size: 16 << 20,
        block_count: count,
        plain_size: u64::from(count) << 24,
        plain_crc32: 0,
        data_offset: 0,
        salt: [0; 16],
        key_check: [0; 16],
        index_tag: [0; 16],
        reserved: 0,
        index_crc32: 0,
    };
    let index_len = INDEX_HEADER_SIZE as u64 + u64::from(count) * ENTRY_SIZE as u64;
    // data_offset is a u32: the largest index it can describe is refused as a bad index, so
    // use the largest count whose index fits.
    let count = ((u64::from(u32::MAX) - INDEX_HEADER_SIZE as u64) / ENTRY_SIZE as u64) as u32;
    let h = BlockIndexHeader {
        block_count: count,
        plain_size: u64::from(count) << 24,
        data_offset: (INDEX_HEADER_SIZE + count as usize * ENTRY_SIZE) as u32,
        ..h
    };
    assert!(index_len > 1 << 32);
    let container = caf::CafHeader::new(AssetType::AUDIO, CafFlags::COMPRESSED, 0, 0, 1 << 40);
    let mut stream = container.to_bytes().to_vec();
    stream.extend_from_slice(&h.to_bytes());
    let (r, peak) = peak_during(|| StreamReader::new(&stream[..], None).map(|_| ()));
    assert!(matches!(r, Err(CafError::Truncated { .. })), "{r:?}");
    assert!(peak < 1 << 20, "peak {peak} bytes");
}
