//! Corruption sweep: damaged golden files load as `Ok` or a typed `Err`, never panic, and never
//! allocate more than the file could describe.
// `unsafe` here: a counting global allocator (`GlobalAlloc` is an unsafe trait).
#![allow(unsafe_code)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::mem::size_of;
use std::sync::atomic::{AtomicUsize, Ordering};

use vwr::layout::{ChunkTableEntry, MetaSectionHeader, WorldHeader, ENTRY_EMPTY, META_MAGIC};
use vwr::World;
use zerocopy::little_endian::U16;
use zerocopy::FromBytes;

/// Tracks the largest single allocation so the sweep can assert that no size field read from
/// the file drives an allocation larger than the file itself.
struct Tracking;
static LARGEST: AtomicUsize = AtomicUsize::new(0);
// SAFETY: every method forwards to the system allocator with the caller's arguments
// unchanged; the counters are only statistics.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LARGEST.fetch_max(l.size(), Ordering::Relaxed);
        // SAFETY: forwarding the caller's layout unchanged to the system allocator.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` was returned by `System.alloc` with this layout.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LARGEST.fetch_max(new, Ordering::Relaxed);
        // SAFETY: same contract as `GlobalAlloc::realloc`, forwarded.
        unsafe { System.realloc(p, l, new) }
    }
}
#[global_allocator]
static GLOBAL: Tracking = Tracking;

fn load_checked(bytes: &[u8]) -> bool {
    LARGEST.store(0, Ordering::Relaxed);
    let ok = World::from_bytes(bytes).is_ok();
    // The world allocates its chunk pages (512 chunk slots each) only where the file has
    // chunks, so every allocation stays below the file size or one page: a fixed size, never
    // one read from the file.
    let page = 512 * size_of::<vwr::Chunk>();
    let largest = LARGEST.load(Ordering::Relaxed);
    assert!(
        largest <= bytes.len().max(page),
        "allocation of {largest} bytes for a {}-byte file",
        bytes.len()
    );
    ok
}

/// Byte ranges worth damaging exhaustively: the header, the first 64 table entries and every
/// non-empty one, and the first four chunk payloads.
fn interesting_ranges(b: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut r: Vec<std::ops::Range<usize>> = Vec::new();
    let (header, rest) = WorldHeader::ref_from_prefix(b).unwrap();
    r.push(0..size_of::<WorldHeader>());
    let count = header.chunk_count.get() as usize;
    let (table, _) = <[ChunkTableEntry]>::ref_from_prefix_with_elems(rest, count).unwrap();
    let mut payloads = Vec::new();
    for (e, entry) in table.iter().enumerate() {
        let o = size_of::<WorldHeader>() + size_of::<ChunkTableEntry>() * e;
        let empty = entry.flags.get() & ENTRY_EMPTY != 0;
        if e < 64 || !empty {
            r.push(o..o + size_of::<ChunkTableEntry>());
        }
        if !empty {
            let off = entry.offset.get() as usize;
            let size = entry.size.get() as usize;
            payloads.push(off..off + size);
        }
    }
    r.extend(payloads.into_iter().take(4));
    r
}

fn sweep(rel: &str) {
    let Some(dir) = common::golden_dir() else {
        return;
    };
    let original = std::fs::read(dir.join("vwr").join(rel)).unwrap();
    assert!(load_checked(&original));
    let mut bytes = original.clone();
    let mut rejected = 0;
    for range in interesting_ranges(&original) {
        for o in range {
            let keep = bytes[o];
            for v in [keep ^ 0x01, keep ^ 0x80, 0xFF] {
                if v == keep {
                    continue;
                }
                bytes[o] = v;
                if !load_checked(&bytes) {
                    rejected += 1;
                }
            }
            bytes[o] = keep;
        }
    }
    // Random multi-byte damage anywhere, and truncations.
    let mut rng = common::Rng(0x9E37_79B9_7F4A_7C15 ^ original.len() as u64);
    for _ in 0..200 {
        let mut b = original.clone();
        for _ in 0..1 + rng.below(8) {
            let o = rng.below(b.len() as u64) as usize;
            b[o] = rng.next_u64() as u8;
        }
        load_checked(&b);
        let cut = rng.below(original.len() as u64) as usize;
        assert!(
            !load_checked(&original[..cut]),
            "{rel}: truncation to {cut} bytes accepted"
        );
    }
    assert!(rejected > 0, "{rel}: no corruption was ever detected");
}

/// One test so that the allocation tracker sees only this thread's allocations.
#[test]
fn corruption_sweep_over_golden_files() {
    for rel in [
        "edge/edge-meta-on-air-chunk.vwr",
        "edge/edge-spawn-origin-world1.vwr",
        "edge/edge-chunk-factories.vwr",
        "edge/edge-bigdecor-plate.vwr",
        "worlds3d/world999.vwr",
        "random/random-1.vwr",
    ] {
        sweep(rel);
    }
    hostile_headers_are_rejected_cheaply();
}

fn hostile_headers_are_rejected_cheaply() {
    // chunksPerAxis 255 announces 16.5M chunks: the table cannot fit, so nothing is allocated.
    let mut b = World::with_chunks_per_axis(1).unwrap().to_bytes();
    let header = WorldHeader::mut_from_prefix(&mut b).unwrap().0;
    header.chunks_per_axis = 255;
    header.chunk_count.set(255 * 255 * 255);
    assert!(!load_checked(&b));
    // A payload range that overflows u64 arithmetic.
    let mut w = World::with_chunks_per_axis(1).unwrap();
    w.set_block([0, 0, 0], vwr::Block(1)).unwrap();
    let mut b = w.to_bytes();
    table_mut(&mut b)[0].offset.set(u64::MAX);
    assert!(matches!(
        World::from_bytes(&b),
        Err(vwr::VwrError::BadTableEntry { .. })
    ));
    // A metadata record count far beyond the section.
    let mut w = World::with_chunks_per_axis(1).unwrap();
    w.set_extra_metadata([0, 0, 0], 9, &[1]).unwrap();
    let mut b = w.to_bytes();
    let meta = b.windows(4).position(|m| m == META_MAGIC).unwrap();
    let section = MetaSectionHeader::mut_from_prefix(&mut b[meta..])
        .unwrap()
        .0;
    section.record_count.set(u32::MAX);
    assert!(!load_checked(&b));
    // Chunk listed twice.
    let mut w = World::with_chunks_per_axis(2).unwrap();
    w.set_block([0, 0, 0], vwr::Block(1)).unwrap();
    let mut b = w.to_bytes();
    table_mut(&mut b)[1].pos = [U16::ZERO; 3];
    match World::from_bytes(&b) {
        Err(vwr::VwrError::BadTableEntry {
            entry: 1, reason, ..
        }) => {
            assert_eq!(reason, vwr::TableFault::ListedTwice);
            assert!(reason.to_string().contains("twice"));
        }
        other => panic!("{other:?}"),
    }
}

/// The chunk table of a file written by this crate (right after the header), for editing.
fn table_mut(b: &mut [u8]) -> &mut [ChunkTableEntry] {
    let (header, rest) = WorldHeader::mut_from_prefix(b).unwrap();
    let count = header.chunk_count.get() as usize;
    <[ChunkTableEntry]>::mut_from_prefix_with_elems(rest, count)
        .unwrap()
        .0
}
