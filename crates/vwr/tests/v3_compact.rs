//! Compact entry pages (docs/format/vwr-v3.md §4.2) and the byte accounting of `world info`:
//! sizes measured against the plain form, round trips, incremental commits in both forms,
//! damage, and every byte of a file in exactly one part.

mod common;

use vwr::dump::dump;
use vwr::{
    Block, Codec, FileBytes, PageForm, SaveOptions, SessionOptions, World, WorldFile, WorldSession,
};

const CODECS: [Codec; 4] = [Codec::Auto, Codec::Packed, Codec::Rle, Codec::Zstd];
const FORMS: [PageForm; 2] = [PageForm::Compact, PageForm::Plain];

fn opts(codec: Codec, form: PageForm) -> SaveOptions {
    SaveOptions {
        pages: form,
        ..SaveOptions::v3(codec)
    }
}

/// A world's bytes with plain and with compact entry pages (codec `auto`).
fn both_forms(w: &World) -> (Vec<u8>, Vec<u8>) {
    let [plain, compact] = [PageForm::Plain, PageForm::Compact]
        .map(|form| w.to_bytes_with(&opts(Codec::Auto, form)).unwrap());
    (plain, compact)
}

fn compact_flag(bytes: &[u8]) -> bool {
    u16::from_le_bytes([bytes[6], bytes[7]]) & 2 != 0
}

/// The byte accounting of `bytes`, checked to sum to the file size.
fn accounted(bytes: &[u8]) -> FileBytes {
    let b = vwr::file_bytes(bytes).unwrap().unwrap();
    let sum: u64 = b.parts().iter().map(|p| p.1).sum();
    assert_eq!(sum, bytes.len() as u64, "{b:?}");
    assert_eq!(b.file, bytes.len() as u64);
    assert_eq!(b.header, 64);
    b
}

#[test]
fn a_million_uniform_chunks_fit_in_a_megabyte_and_commit_incrementally() {
    let stone = Block(3 << 4);
    let mut w = World::with_chunk_dims([100, 100, 100]).unwrap();
    w.fill_box([0, 0, 0], [999, 999, 999], stone).unwrap();
    assert_eq!(w.non_empty_chunks().count(), 1_000_000);
    let (plain, compact) = both_forms(&w);
    eprintln!(
        "a million stone chunks: plain pages {} bytes, compact pages {} bytes",
        plain.len(),
        compact.len()
    );
    assert!(compact.len() <= 1 << 20, "{} bytes", compact.len());
    assert!(plain.len() >= 28_000_000, "{} bytes", plain.len());
    let b = accounted(&compact);
    assert_eq!(b.payload, 0, "{b:?}");
    assert_eq!((b.history, b.dead, b.tail), (0, 0, 0), "{b:?}");
    let back = World::from_bytes(&compact).unwrap();
    assert!(back == w);
    drop(back);

    let (_d, path) = common::temp("stone.vwr");
    std::fs::write(&path, &compact).unwrap();
    let (mut s, mut edited) = WorldSession::open(&path, SessionOptions::tool("test")).unwrap();
    let edits: Vec<[i32; 3]> = (0..12)
        .map(|k| [k * 83 + 1, k * 71 + 2, k * 79 + 3])
        .collect();
    for &p in &edits {
        s.load_box(&mut edited, p, p).unwrap();
        edited.set_block(p, Block::AIR).unwrap();
        w.set_block(p, Block::AIR).unwrap();
    }
    let r = s.save(&edited).unwrap();
    assert!(r.incremental, "{r:?}");
    // A commit writes its root index (with the page table: 24 bytes a page) and the pages and
    // payloads it changed: a few kilobytes besides the root.
    let root = b.root_index + b.commit_record + b.group_table + b.page_table;
    assert!(r.bytes_written < root + 16 * 1024, "{r:?}, root {root}");
    let bytes = std::fs::read(&path).unwrap();
    assert!(compact_flag(&bytes));
    let b = accounted(&bytes);
    assert!(b.history > 0 && b.dead == 0, "{b:?}");
    let lazy = WorldFile::open(&path).unwrap();
    for &p in &edits {
        assert_eq!(lazy.get_block(p).unwrap(), Block::AIR);
        assert_eq!(lazy.get_block([p[0] + 1, p[1], p[2]]).unwrap(), stone);
    }
    assert!(World::from_bytes(&bytes).unwrap() == w);
}

#[test]
fn terrain_entry_pages_shrink() {
    let w = common::terrain_1000();
    let (plain, compact) = both_forms(&w);
    let (bp, bc) = (accounted(&plain), accounted(&compact));
    eprintln!("terrain plain {} bytes: {bp:?}", plain.len());
    eprintln!("terrain compact {} bytes: {bc:?}", compact.len());
    assert_eq!(bp.payload, bc.payload);
    assert!(bc.entry_pages * 2 < bp.entry_pages, "{bp:?} {bc:?}");
    assert!(World::from_bytes(&compact).unwrap() == w);
}

#[test]
fn golden_worlds_convert_to_compact_pages_and_back() {
    let (mut plain_total, mut compact_total) = (0usize, 0usize);
    for path in common::golden_worlds() {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(world) = World::from_bytes(&bytes) else {
            continue;
        };
        let (plain, compact) = both_forms(&world);
        assert!(compact.len() <= plain.len(), "{}", path.display());
        assert!(compact_flag(&compact) && !compact_flag(&plain));
        let back = World::from_bytes(&compact).unwrap();
        assert_eq!(dump(&back), dump(&world), "{}", path.display());
        // Back to v2: the original bytes.
        assert_eq!(back.to_bytes(), bytes, "{}", path.display());
        accounted(&compact);
        plain_total += plain.len();
        compact_total += compact.len();
    }
    eprintln!("golden worlds in v3 auto: plain pages {plain_total} bytes, compact {compact_total}");
}

/// A small world with every kind of entry: uniform runs, grouped, raw and framed payloads.
fn mixed_world() -> World {
    let mut w = World::with_chunk_dims([5, 3, 4]).unwrap();
    w.fill_box([0, 0, 0], [49, 9, 39], Block(5)).unwrap();
    w.fill_box([0, 10, 0], [29, 14, 19], Block(17)).unwrap();
    let mut k = 0u16;
    for x in (0..50).step_by(3) {
        for z in (0..40).step_by(4) {
            k = k.wrapping_mul(31).wrapping_add(7);
            w.set_block([x, 16 + (k % 9) as i32, z], Block(k % 50 + 1))
                .unwrap();
        }
    }
    w
}

#[test]
fn saves_keep_the_files_page_form() {
    for form in FORMS {
        let (_d, path) = common::temp("form.vwr");
        let mut w = mixed_world();
        w.save_with(&path, &opts(Codec::Auto, form)).unwrap();
        let want = form == PageForm::Compact;
        assert_eq!(compact_flag(&std::fs::read(&path).unwrap()), want);
        let (mut s, mut edited) = WorldSession::open(&path, SessionOptions::tool("t")).unwrap();
        s.load_all(&mut edited).unwrap();
        for k in 0..4 {
            let p = [k * 11, 12 + k, k * 9];
            edited.set_block(p, Block(99)).unwrap();
            w.set_block(p, Block(99)).unwrap();
            let r = s.save(&edited).unwrap();
            assert!(r.incremental, "{form:?} {r:?}");
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(compact_flag(&bytes), want, "{form:?}");
            assert!(World::from_bytes(&bytes).unwrap() == w);
            let b = accounted(&bytes);
            assert!(b.history > 0, "{b:?}");
        }
        s.compact().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(compact_flag(&bytes), want, "{form:?} after compaction");
        assert!(World::from_bytes(&bytes).unwrap() == w);
        accounted(&bytes);
    }
}

#[test]
fn damaged_pages_in_either_form_are_typed_errors() {
    let w = mixed_world();
    for form in FORMS {
        for codec in CODECS {
            let bytes = w.to_bytes_with(&opts(codec, form)).unwrap();
            for i in 0..bytes.len() {
                for bit in [0x01u8, 0x80] {
                    let mut b = bytes.clone();
                    b[i] ^= bit;
                    if let Ok(got) = World::from_bytes(&b) {
                        assert!(
                            got == w,
                            "{form:?} {codec:?}: flip at {i} changed the world"
                        );
                    }
                    // Accounting a damaged file is an error or sums exactly.
                    if let Ok(Some(f)) = vwr::file_bytes(&b) {
                        assert_eq!(f.parts().iter().map(|p| p.1).sum::<u64>(), b.len() as u64);
                    }
                }
            }
            for cut in 0..bytes.len() {
                assert!(World::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
            }
        }
    }
}

/// Offset of the current root index and of the one its commit record names.
fn roots(bytes: &[u8]) -> (usize, usize) {
    let slot = |k: usize| {
        let s = &bytes[24 + 20 * k..44 + 20 * k];
        let g = u32::from_le_bytes(s[0..4].try_into().unwrap());
        (g, u64::from_le_bytes(s[4..12].try_into().unwrap()) as usize)
    };
    let cur = slot(0).max(slot(1)).1;
    let prev = u64::from_le_bytes(bytes[cur + 56..cur + 64].try_into().unwrap()) as usize;
    (cur, prev)
}

#[test]
fn info_accounts_for_history_dead_bytes_and_a_torn_tail() {
    let (_d, path) = common::temp("acc.vwr");
    let mut w = mixed_world();
    w.save_with(&path, &opts(Codec::Auto, PageForm::Compact))
        .unwrap();
    let fresh = accounted(&std::fs::read(&path).unwrap());
    assert_eq!((fresh.history, fresh.dead, fresh.tail), (0, 0, 0));
    assert!(fresh.entry_pages > 0 && fresh.payload > 0 && fresh.page_table > 0);
    let (mut s, mut edited) = WorldSession::open(&path, SessionOptions::tool("t")).unwrap();
    s.load_all(&mut edited).unwrap();
    for k in 0..2 {
        edited.set_block([k, 20, k], Block(77)).unwrap();
        w.set_block([k, 20, k], Block(77)).unwrap();
        s.save(&edited).unwrap();
    }
    drop(s);
    let mut bytes = std::fs::read(&path).unwrap();
    let two = accounted(&bytes);
    assert!(two.history > 0 && two.dead == 0, "{two:?}");
    // Cut the history after the current commit: what only older commits held is dead now.
    let (_, prev) = roots(&bytes);
    bytes[prev] ^= 0xFF;
    let cut = accounted(&bytes);
    assert_eq!(cut.history, 0, "{cut:?}");
    assert_eq!(cut.dead, two.history, "{cut:?}");
    assert!(World::from_bytes(&bytes).unwrap() == w);
    // A torn tail after the committed end.
    bytes[prev] ^= 0xFF;
    bytes.extend_from_slice(&[0xAB; 100]);
    let torn = accounted(&bytes);
    assert_eq!(torn.tail, 100);
    assert_eq!(torn.history, two.history);
}

fn crc(b: &[u8]) -> [u8; 4] {
    crc32fast::hash(b).to_le_bytes()
}

/// The same world as a v3 file written before commit records (header flag `HISTORY` clear,
/// no record in the root index), from a fresh plain-page file with one commit in slot A.
fn without_history(bytes: &[u8]) -> Vec<u8> {
    let at = u64::from_le_bytes(bytes[28..36].try_into().unwrap()) as usize;
    let mut root = bytes[at..at + 56].to_vec();
    root.extend_from_slice(&bytes[at + 56 + 64..bytes.len() - 4]);
    let end = (at + root.len() + 4) as u64;
    root[40..48].copy_from_slice(&end.to_le_bytes()); // dataEnd
    let mut out = bytes[..at].to_vec();
    out[6] &= !1; // HISTORY
    let h = crc(&out[..16]);
    out[16..20].copy_from_slice(&h);
    let size = (root.len() + 4) as u32;
    out[36..40].copy_from_slice(&size.to_le_bytes()); // slot A's indexSize
    let s = crc(&out[24..40]);
    out[40..44].copy_from_slice(&s);
    let r = crc(&root);
    out.extend_from_slice(&root);
    out.extend_from_slice(&r);
    out
}

#[test]
fn a_file_without_history_is_upgraded_to_compact_pages_on_its_first_save() {
    let mut w = mixed_world();
    let plain = w
        .to_bytes_with(&opts(Codec::Auto, PageForm::Plain))
        .unwrap();
    let old = without_history(&plain);
    assert_eq!(u16::from_le_bytes([old[6], old[7]]), 0);
    assert!(World::from_bytes(&old).unwrap() == w);
    let b = accounted(&old);
    assert_eq!((b.commit_record, b.dead, b.tail), (0, 0, 0), "{b:?}");
    let (_d, path) = common::temp("old.vwr");
    std::fs::write(&path, &old).unwrap();
    let (mut s, mut edited) = WorldSession::open(&path, SessionOptions::tool("t")).unwrap();
    s.load_all(&mut edited).unwrap();
    edited.set_block([3, 25, 3], Block(61)).unwrap();
    w.set_block([3, 25, 3], Block(61)).unwrap();
    let r = s.save(&edited).unwrap();
    assert!(!r.incremental, "{r:?}");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        u16::from_le_bytes([bytes[6], bytes[7]]),
        3,
        "HISTORY and COMPACT"
    );
    assert!(World::from_bytes(&bytes).unwrap() == w);
    accounted(&bytes);
}
