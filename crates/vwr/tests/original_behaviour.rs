//! The original library's behaviours listed in VWR.md, one named test each, plus golden files
//! rebuilt through this crate's API from the recipes in the golden README (same edits -> same
//! bytes as the original).

mod common;

use std::mem::size_of;

use vwr::layout::{ChunkHeaderV1, ChunkHeaderV2, ChunkTableEntry, WorldHeader};
use vwr::{Block, Chunk, MoveObject, VwrError, World, META_BIG_DECOR, META_MOVE_OBJECT};
use zerocopy::FromBytes;

fn golden_bytes(rel: &str) -> Option<Vec<u8>> {
    let dir = common::golden_dir()?;
    Some(std::fs::read(dir.join("vwr").join(rel)).unwrap())
}

/// The cell that value `k` of the palette tests goes to: ten cells of chunk (3, 3, 3), each
/// written again every ten values.
fn palette_cell(k: u16) -> [i32; 3] {
    [30 + (k % 10) as i32, 30, 30]
}

/// A world with the values `16·k` (variant `variant(k)`), k = 1..=255, written in turn to the
/// [`palette_cell`]s: all of them enter the chunk's palette, only the last ten stay live.
fn world_of_255_values(variant: impl Fn(u16) -> u8) -> World {
    let mut w = World::new();
    for k in 1..=255u16 {
        w.set_block(palette_cell(k), Block::make(16 * k, variant(k)).unwrap())
            .unwrap();
    }
    w
}

fn b(raw: u16) -> Block {
    Block(raw)
}

#[test]
fn palette_growth_repacks_at_each_width_1_to_8() {
    let mut c = Chunk::new();
    assert_eq!(c.bits_per_block(), 1);
    let mut expected_bits = 1;
    // Cell i gets value i+1: palette [air, 1, 2, ...]; widths grow 1 -> 8 as entries are added.
    for v in 1..=255u16 {
        c.set(v as usize, b(v)).unwrap();
        let len = v as usize + 1;
        let want = vwr::bits_for(len);
        assert_eq!(c.palette().len(), len);
        assert_eq!(c.bits_per_block(), want, "palette of {len}");
        assert_eq!(c.words().len(), vwr::word_count(want));
        if want != expected_bits {
            assert_eq!(want, expected_bits + 1, "widths grow one at a time");
            expected_bits = want;
        }
        // Every value written so far survives the re-packs.
        for k in 1..=v {
            assert_eq!(c.get(k as usize), b(k));
        }
    }
    assert_eq!(expected_bits, 8);
}

#[test]
fn straddling_values_cross_word_boundaries() {
    // At 3 bits, index 21 occupies bits 63..66: one bit in word 0, two in word 1.
    let mut c = Chunk::new();
    for v in 1..=7u16 {
        c.set(100 + v as usize, b(v * 16)).unwrap();
    }
    assert_eq!(c.bits_per_block(), 3);
    c.set(21, b(7 * 16)).unwrap(); // palette index 7 = 0b111
    assert_eq!(c.palette_index(21), 7);
    assert_eq!(c.words()[0] >> 63, 1, "low bit at the top of word 0");
    assert_eq!(
        c.words()[1] & 0b11,
        0b11,
        "high bits at the bottom of word 1"
    );
    assert_eq!(c.get(20), Block::AIR);
    assert_eq!(c.get(22), Block::AIR);
    // Widths 5, 6, 7 straddle too.
    for bits in [5u8, 6, 7] {
        let mut c = Chunk::new();
        let n = 1usize << bits;
        for v in 1..n {
            c.set(v, b(v as u16)).unwrap();
        }
        assert_eq!(c.bits_per_block(), bits);
        let straddler = (1..1000)
            .find(|i| (i * bits as usize) % 64 > 64 - bits as usize)
            .unwrap();
        c.set(straddler, b((n - 1) as u16)).unwrap();
        assert_eq!(c.get(straddler), b((n - 1) as u16));
        assert_eq!(
            c.get(straddler - 1),
            if straddler - 1 < n {
                b((straddler - 1) as u16)
            } else {
                Block::AIR
            }
        );
    }
}

#[test]
fn overwritten_to_air_chunk_keeps_palette_and_is_saved() {
    let mut w = World::new();
    for z in 0..10 {
        for x in 0..10 {
            w.set_block([x, 0, z], Block::make(35, 0).unwrap()).unwrap();
        }
    }
    for z in 0..10 {
        for x in 0..10 {
            w.set_block([x, 0, z], Block::AIR).unwrap();
        }
    }
    let c = w.chunk([0, 0, 0]).unwrap();
    assert_eq!(c.palette(), &[Block::AIR, Block::make(35, 0).unwrap()]);
    assert!(!c.is_empty());
    if let Some(g) = golden_bytes("edge/edge-overwritten-to-air.vwr") {
        assert_eq!(w.to_bytes(), g);
    }
}

#[test]
fn empty_chunk_rule_counts_metadata() {
    let mut w = World::new();
    w.set_extra_metadata([55, 55, 55], 7, &[1, 2, 3]).unwrap();
    let c = w.chunk([5, 5, 5]).unwrap();
    assert_eq!(c.palette(), &[Block::AIR]);
    assert!(!c.is_empty(), "all air but carries metadata");
    let back = World::from_bytes(&w.to_bytes()).unwrap();
    assert_eq!(back.extra_metadata([55, 55, 55], 7), Some(&[1u8, 2, 3][..]));
    w.remove_extra_metadata([55, 55, 55], 7);
    assert!(w.chunk([5, 5, 5]).unwrap().is_empty());
    assert_eq!(
        w.to_bytes(),
        World::new().to_bytes(),
        "an empty chunk is not stored"
    );
}

#[test]
fn meta_on_air_chunk_matches_golden() {
    let mut w = World::new();
    w.set_extra_metadata([55, 55, 55], 7, &[1, 2, 3]).unwrap();
    w.set_extra_metadata([55, 55, 55], 0, &[]).unwrap();
    w.set_extra_metadata([59, 50, 50], 65535, &[0xff]).unwrap();
    assert_eq!(
        w.place_move_object(&MoveObject::new(6, [52.5, 57.0, 51.25]))
            .unwrap(),
        [52, 57, 51]
    );
    if let Some(g) = golden_bytes("edge/edge-meta-on-air-chunk.vwr") {
        assert_eq!(w.to_bytes(), g);
    }
}

/// Builds a v1 chunk payload by hand: 20-byte header, no metadata.
fn v1_world_bytes() -> Vec<u8> {
    let mut w = World::with_chunks_per_axis(1).unwrap();
    w.set_block([3, 4, 5], Block(560)).unwrap();
    let v2 = w.to_bytes();
    let payload_at = payload_start(1);
    let mut chunk = v2[payload_at..].to_vec();
    ChunkHeaderV1::mut_from_prefix(&mut chunk)
        .unwrap()
        .0
        .version = 1;
    // No extraMetaSizeBytes.
    chunk.drain(size_of::<ChunkHeaderV1>()..size_of::<ChunkHeaderV2>());
    let mut out = v2[..payload_at].to_vec();
    table_entry(&mut out, 0).size.set(chunk.len() as u32);
    out.extend_from_slice(&chunk);
    out
}

/// Where the first payload starts in a world of `n³` chunks (right after the table).
fn payload_start(n: usize) -> usize {
    size_of::<WorldHeader>() + n * n * n * size_of::<ChunkTableEntry>()
}

/// The world header of a file, for editing.
fn header(bytes: &mut [u8]) -> &mut WorldHeader {
    WorldHeader::mut_from_prefix(bytes).unwrap().0
}

/// Chunk-table entry `e` of a file written by this crate (table right after the header).
fn table_entry(bytes: &mut [u8], e: usize) -> &mut ChunkTableEntry {
    let table = &mut bytes[size_of::<WorldHeader>()..];
    <[ChunkTableEntry]>::mut_from_prefix_with_elems(table, e + 1)
        .unwrap()
        .0
        .get_mut(e)
        .unwrap()
}

/// The header of the chunk payload at `at`, for editing.
fn chunk_header(bytes: &mut [u8], at: usize) -> &mut ChunkHeaderV1 {
    ChunkHeaderV1::mut_from_prefix(&mut bytes[at..]).unwrap().0
}

#[test]
fn v1_chunk_payload_is_read_and_saved_as_v2() {
    let bytes = v1_world_bytes();
    let (w, odd) = vwr::read_world_checked(&bytes).unwrap();
    assert_eq!(w.get_block([3, 4, 5]), Block(560));
    assert_eq!(w.count_non_air(), 1);
    assert!(odd
        .iter()
        .any(|o| matches!(o, vwr::Oddity::LegacyChunkVersion { .. })));
    let mut resaved = w.to_bytes();
    assert_eq!(
        chunk_header(&mut resaved, payload_start(1)).version,
        2,
        "written as v2"
    );
    // v1 with flags must be rejected.
    let mut bad = bytes.clone();
    chunk_header(&mut bad, payload_start(1)).flags = 1;
    assert!(matches!(
        World::from_bytes(&bad),
        Err(VwrError::BadChunk { .. })
    ));
}

#[test]
fn v1_world_header_is_rejected() {
    let mut bytes = World::new().to_bytes();
    header(&mut bytes).version = 1;
    match World::from_bytes(&bytes) {
        Err(VwrError::UnsupportedVersion {
            offset: 4,
            found: 1,
            ..
        }) => {}
        other => panic!("expected UnsupportedVersion, got {other:?}"),
    }
}

#[test]
fn spawn_encoding_and_rejections() {
    let mut w = World::new();
    w.set_spawn([12, 34, 56]).unwrap();
    let mut bytes = w.to_bytes();
    assert_eq!(
        header(&mut bytes).spawn.map(|v| v.get()),
        [13, 35, 57],
        "stored as cell + 1"
    );
    assert_eq!(
        World::from_bytes(&bytes).unwrap().spawn(),
        Some([12, 34, 56])
    );
    assert!(w.set_spawn([100, 0, 0]).is_err());
    assert!(w.set_spawn([-1, 0, 0]).is_err());
    w.set_spawn([99, 99, 99]).unwrap();
    assert_eq!(
        World::from_bytes(&w.to_bytes()).unwrap().spawn(),
        Some([99, 99, 99])
    );
    w.clear_spawn();
    assert_eq!(header(&mut w.to_bytes()).spawn[0].get(), 0);

    // One coordinate zero (the others not), and one past the world, are refused at their offset.
    for (axis, value, offset) in [(1, 0, 32), (2, 101, 36)] {
        let mut bad = bytes.clone();
        header(&mut bad).spawn[axis].set(value);
        let r = World::from_bytes(&bad);
        assert!(
            matches!(r, Err(VwrError::InvalidField { offset: o, field: "spawn", .. }) if o == offset),
            "spawn[{axis}] = {value}: {r:?}"
        );
    }
    let mut at_limit = bytes;
    header(&mut at_limit).spawn[2].set(100);
    assert_eq!(
        World::from_bytes(&at_limit).unwrap().spawn(),
        Some([12, 34, 99])
    );
}

#[test]
fn spawn_golden_files_match() {
    let mut w = World::new();
    w.set_spawn([12, 34, 56]).unwrap();
    w.set_sky_region(7);
    w.set_mission_number(11);
    w.set_block([12, 33, 56], Block::make(35, 0).unwrap())
        .unwrap();
    let mut max = World::new();
    max.set_spawn([99, 99, 99]).unwrap();
    let mut one = World::with_chunks_per_axis(1).unwrap();
    one.set_spawn([0, 0, 0]).unwrap();
    one.set_block([9, 9, 9], Block::make(4095, 15).unwrap())
        .unwrap();
    for (world, file) in [
        (w, "edge/edge-spawn.vwr"),
        (max, "edge/edge-spawn-max.vwr"),
        (one, "edge/edge-spawn-origin-world1.vwr"),
    ] {
        if let Some(g) = golden_bytes(file) {
            assert_eq!(world.to_bytes(), g, "{file}");
        }
    }
}

#[test]
fn record_set_replaces_first_match_and_remove_deletes_all() {
    let mut c = Chunk::new();
    c.set_metadata(5, 9, &[1]).unwrap();
    c.set_metadata(5, 10, &[2]).unwrap(); // different type on the same cell: allowed
    c.set_metadata(6, 9, &[3]).unwrap();
    c.set_metadata(5, 9, &[4, 4]).unwrap(); // replaces in place, keeps the order
    let recs: Vec<_> = c
        .records()
        .iter()
        .map(|r| (r.index, r.record_type, r.payload.clone()))
        .collect();
    assert_eq!(
        recs,
        vec![(5, 9, vec![4, 4]), (5, 10, vec![2]), (6, 9, vec![3])]
    );
    // A file may hold duplicates; set replaces only the first, remove deletes every match.
    let mut recs = c.records().to_vec();
    recs.push(vwr::MetaRecord {
        index: 5,
        record_type: 9,
        payload: vec![7],
    });
    c.set_records(recs);
    c.set_metadata(5, 9, &[8]).unwrap();
    assert_eq!(c.records()[0].payload, vec![8]);
    assert_eq!(c.records()[3].payload, vec![7]);
    assert_eq!(c.metadata(5, 9), Some(&[8u8][..]));
    assert_eq!(c.remove_metadata(5, 9), 2);
    assert_eq!(c.records().len(), 2);
    assert_eq!(c.remove_metadata(5, 9), 0);
}

#[test]
fn move_object_47_byte_and_legacy_45_byte() {
    let mut w = World::new();
    let mut m = MoveObject::new(1, [10.5, 2.0, 3.75]);
    m.pos_end = [10.5, 8.0, 3.75];
    m.visual_icon = 77;
    let cell = w.place_move_object(&m).unwrap();
    assert_eq!(cell, [10, 2, 3]);
    assert_eq!(
        w.extra_metadata([10, 2, 3], META_MOVE_OBJECT)
            .unwrap()
            .len(),
        47
    );
    assert_eq!(w.move_object_at([10, 2, 3]).unwrap(), Some(m));
    // Legacy 45-byte payload reads with visual_icon 0.
    w.set_extra_metadata([20, 2, 3], META_MOVE_OBJECT, &m.encode()[..45])
        .unwrap();
    let legacy = w.move_object_at([20, 2, 3]).unwrap().unwrap();
    assert_eq!(legacy.visual_icon, 0);
    assert_eq!(legacy.pos_end, m.pos_end);
    // Any other size is an error naming the cell.
    w.set_extra_metadata([30, 2, 3], META_MOVE_OBJECT, &[0; 46])
        .unwrap();
    assert!(matches!(
        w.move_object_at([30, 2, 3]),
        Err(VwrError::BadPayload { x: 30, .. })
    ));
    assert!(w.move_objects().is_err());
    // One per cell: placing a second replaces the first.
    w.remove_extra_metadata([30, 2, 3], META_MOVE_OBJECT);
    w.place_move_object(&MoveObject::new(7, [10.9, 2.1, 3.0]))
        .unwrap();
    let all = w.move_objects().unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].1.object_type, 7);
    // Placement validation.
    for p in [
        [f32::NAN, 0.0, 0.0],
        [f32::INFINITY, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [100.0, 0.0, 0.0],
    ] {
        assert!(
            matches!(
                w.place_move_object(&MoveObject::new(1, p)),
                Err(VwrError::InvalidRecord { .. })
            ),
            "{p:?}"
        );
    }
}

#[test]
fn bigdecor_icon_zero_is_rejected() {
    let mut w = World::new();
    assert!(matches!(
        w.place_big_decor([1, 2, 3], 0),
        Err(VwrError::InvalidRecord {
            what: "BigDecor",
            ..
        })
    ));
    assert!(w.chunk([0, 0, 0]).is_none_or(|c| c.records().is_empty()));
    w.place_big_decor([1, 2, 3], 5).unwrap();
    w.place_big_decor([1, 2, 3], 9).unwrap(); // replaces
    assert_eq!(w.big_decors().unwrap(), vec![([1, 2, 3], 9)]);
    // A stored zero icon is reported as a bad payload, not returned.
    w.set_extra_metadata([4, 5, 6], META_BIG_DECOR, &[0, 0])
        .unwrap();
    assert!(w.big_decor_at([4, 5, 6]).is_err());
}

#[test]
fn bigdecor_and_plate_rotation_golden_file() {
    let mut w = World::new();
    w.set_block([70, 0, 67], Block::make(379, 0).unwrap())
        .unwrap();
    w.set_plate_rotation([70, 0, 67], true).unwrap();
    w.set_plate_rotation([71, 0, 67], false).unwrap();
    w.place_big_decor([99, 8, 1], 66).unwrap();
    w.place_big_decor([12, 3, 45], 20).unwrap();
    w.place_big_decor([12, 3, 45], 87).unwrap();
    w.place_big_decor([70, 0, 67], 513).unwrap();
    assert_eq!(
        w.plate_rotation([71, 0, 67]),
        Some(false),
        "not rotated is stored as {{0}}"
    );
    assert_eq!(w.plate_rotation([70, 0, 67]), Some(true));
    if let Some(g) = golden_bytes("edge/edge-bigdecor-plate.vwr") {
        assert_eq!(w.to_bytes(), g);
    }
}

#[test]
fn palette_256_golden_file_from_255_writes() {
    let w = world_of_255_values(|k| (k % 16) as u8);
    let c = w.chunk([3, 3, 3]).unwrap();
    assert_eq!(c.palette().len(), 256);
    assert_eq!(c.bits_per_block(), 8);
    if let Some(g) = golden_bytes("edge/edge-palette-256.vwr") {
        assert_eq!(w.to_bytes(), g);
    }
}

#[test]
fn full_palette_compacts_before_overflowing() {
    let mut w = world_of_255_values(|_| 0);
    // The original throws here; we drop the 245 unused entries first.
    w.set_block([31, 31, 31], Block::make(4000, 1).unwrap())
        .unwrap();
    let c = w.chunk([3, 3, 3]).unwrap();
    assert_eq!(c.palette().len(), 12, "air + 10 live values + the new one");
    assert_eq!(w.get_block([31, 31, 31]), Block::make(4000, 1).unwrap());
    for k in 246..=255u16 {
        assert_eq!(
            w.get_block(palette_cell(k)),
            Block::make(16 * k, 0).unwrap()
        );
    }
    // 256 live values: a 257th is an error naming the chunk, and nothing changes.
    // Cells 0..256 hold 256 distinct values; the rest repeat the value of cell 0.
    let mut cells = [Block(1000); 1000];
    for (i, cell) in cells.iter_mut().enumerate().take(256) {
        *cell = Block(1000 + i as u16);
    }
    let mut c = Chunk::from_blocks(&cells).unwrap();
    let before = c.clone();
    assert!(matches!(
        c.set(999, Block(1)),
        Err(VwrError::PaletteFull { .. })
    ));
    assert_eq!(c, before);
    // ...but overwriting the only cell of a value frees its entry.
    c.set(5, Block(1)).unwrap();
    assert_eq!(c.get(5), Block(1));
    assert_eq!(c.palette().len(), 256);
    for i in (0..1000).filter(|&i| i != 5) {
        assert_eq!(c.get(i), cells[i]);
    }
    let mut w = World::new();
    w.set_chunk([0, 0, 0], before).unwrap();
    assert!(matches!(
        w.set_block([9, 9, 9], Block(2)),
        Err(VwrError::PaletteFull {
            pos: Some([0, 0, 0])
        })
    ));
}

#[test]
fn raw_values_and_chunk_factories_golden_files() {
    let mut w = World::new();
    w.set_block([0, 0, 0], Block(0xFFFF)).unwrap();
    w.set_block([1, 0, 0], Block::make(0, 5).unwrap()).unwrap();
    w.set_block([99, 99, 99], Block(1)).unwrap();
    if let Some(g) = golden_bytes("edge/edge-raw-values.vwr") {
        assert_eq!(w.to_bytes(), g);
    }
    let Some(g) = golden_bytes("edge/edge-chunk-factories.vwr") else {
        return;
    };
    let golden = World::from_bytes(&g).unwrap();
    let blocks = golden.chunk([2, 1, 0]).unwrap().to_blocks();
    let mut w = World::with_chunks_per_axis(3).unwrap();
    w.set_chunk([0, 0, 0], Chunk::uniform(Block::make(261, 0).unwrap()))
        .unwrap();
    w.set_chunk([1, 0, 0], Chunk::uniform(Block::AIR)).unwrap();
    w.set_chunk([2, 1, 0], Chunk::from_blocks(&blocks).unwrap())
        .unwrap();
    assert_eq!(w.to_bytes(), g);
}

#[test]
fn world_sizes_and_bounds() {
    assert!(World::with_chunks_per_axis(0).is_err());
    assert!(World::with_chunks_per_axis(256).is_err());
    let w = World::with_chunks_per_axis(1).unwrap();
    assert_eq!(w.to_bytes().len(), 60);
    let mut w = World::with_chunks_per_axis(2).unwrap();
    assert_eq!(w.to_bytes().len(), 200);
    assert!(matches!(
        w.set_block([20, 0, 0], Block(1)),
        Err(VwrError::OutOfBounds { .. })
    ));
    assert!(w.set_block([-1, 0, 0], Block(1)).is_err());
    assert_eq!(w.get_block([-1, 0, 0]), Block::AIR);
    assert_eq!(w.get_block([0, 20, 0]), Block::AIR);
}

#[test]
fn compaction_keeps_blocks_and_shrinks_palettes() {
    let Some(g) = golden_bytes("edge/edge-palette-256.vwr") else {
        return;
    };
    let mut w = World::from_bytes(&g).unwrap();
    let before = vwr::dump::dump(&w);
    w.compact();
    assert_eq!(vwr::dump::dump(&w), before);
    assert_eq!(w.chunk([3, 3, 3]).unwrap().palette().len(), 11);
    assert_eq!(w.chunk([3, 3, 3]).unwrap().bits_per_block(), 4);
}

#[test]
fn fill_box_matches_per_block_sets_and_clamps() {
    let mut a = World::new();
    let mut b2 = World::new();
    let stone = Block(560);
    a.fill_box([-5, 3, 97], [12, 14, 200], stone).unwrap();
    for z in 97..100 {
        for y in 3..=14 {
            for x in 0..=12 {
                b2.set_block([x, y, z], stone).unwrap();
            }
        }
    }
    assert_eq!(vwr::dump::dump(&a), vwr::dump::dump(&b2));
    assert_eq!(
        a.fill_box([200, 0, 0], [300, 5, 5], stone).unwrap(),
        0,
        "box outside the world"
    );
    // Whole-world fill then clear leaves an empty world.
    a.fill_box([0, 0, 0], [99, 99, 99], stone).unwrap();
    assert_eq!(a.count_non_air(), 1_000_000);
    assert!(a.chunks().all(|(_, c)| c.is_uniform()));
    a.fill_box([99, 99, 99], [0, 0, 0], Block::AIR).unwrap();
    assert_eq!(a.to_bytes(), World::new().to_bytes());
}
