use super::*;

#[test]
fn bits_and_word_counts_match_the_spec_table() {
    let expect = [
        (1, 1),
        (2, 1),
        (3, 2),
        (4, 2),
        (5, 3),
        (8, 3),
        (9, 4),
        (16, 4),
        (17, 5),
        (32, 5),
        (33, 6),
        (64, 6),
        (65, 7),
        (128, 7),
        (129, 8),
        (256, 8),
    ];
    for (len, b) in expect {
        assert_eq!(bits_for(len), b, "palette {len}");
    }
    let words: Vec<usize> = (1..=8).map(word_count).collect();
    assert_eq!(words, [16, 32, 47, 63, 79, 94, 110, 125]);
}

/// The direct copy of 8-bit chunks always equals the packed words through the palette,
/// through every kind of change: growing past 128 entries (re-pack), single sets, boxes,
/// a full palette compacted by a 257th value, shrinking by `compact`, and `fill`.
#[test]
fn direct_copy_follows_every_change() {
    fn check(c: &Chunk, step: &str) {
        assert_eq!(c.direct.is_some(), c.bits == DIRECT_BITS, "{step}");
        for i in 0..CHUNK_VOLUME {
            let packed = c.palette[c.palette_index(i)];
            assert_eq!(c.get(i), packed, "{step}: cell {i}");
        }
        let mut out = [Block::AIR; CHUNK_VOLUME];
        c.read_into(&mut out);
        assert!((0..CHUNK_VOLUME).all(|i| out[i] == c.palette[c.palette_index(i)]));
    }
    let b = |t: usize| Block(((t % 4000) as u16 + 1) << 4);
    let mut c = Chunk::new();
    for i in 0..200 {
        c.set(i * 5 % CHUNK_VOLUME, b(i)).unwrap();
    }
    check(&c, "grown to 201 entries");
    for i in 0..CHUNK_VOLUME {
        c.set(i, b(i * 7 % 200)).unwrap();
    }
    check(&c, "values moved");
    c.fill_box([1, 2, 3], [8, 9, 7], b(999)).unwrap();
    check(&c, "box");
    // A full palette (air + 255 values) with unused entries: a new value compacts first.
    c.fill(Block::AIR);
    for i in 0..255 {
        c.set(i, b(1000 + i)).unwrap();
    }
    assert_eq!(c.palette().len(), 256);
    for i in 0..10 {
        c.set(i, b(1000)).unwrap();
    }
    c.set(500, b(2000)).unwrap();
    assert!(c.palette().len() < 256);
    check(&c, "compacted by a new value");
    c.fill_box([0, 0, 0], [9, 9, 4], b(5)).unwrap();
    c.compact();
    check(&c, "compacted");
    let d = Chunk::from_parts(c.palette.clone(), c.words.clone(), Vec::new());
    check(&d, "from parts");
    c.fill(b(3));
    check(&c, "filled");
    let blocks: Box<[Block; CHUNK_VOLUME]> = Box::new(std::array::from_fn(|i| b(i % 256)));
    check(&Chunk::from_blocks(&blocks).unwrap(), "from blocks");
}

#[test]
fn revision_changes_with_content_only() {
    let mut c = Chunk::new();
    let r0 = c.revision();
    assert_eq!(c.revision(), r0, "reading does not change it");
    assert_ne!(Chunk::new().revision(), r0, "unique across chunks");
    let stone = Block::make(35, 0).unwrap();

    c.set(5, stone).unwrap();
    let r1 = c.revision();
    assert_ne!(r1, r0);
    let b1 = c.blocks_revision();
    c.set(5, stone).unwrap(); // same value: no change
    assert_eq!(c.revision(), r1);
    c.set_dirty(false); // the dirty flag is not content
    assert_eq!(c.revision(), r1);

    let copy = c.clone();
    assert_eq!(
        copy.revision(),
        r1,
        "a clone has the same content and number"
    );

    c.set_metadata(5, 2, &[1]).unwrap();
    let r2 = c.revision();
    assert_ne!(r2, r1);
    assert_eq!(
        c.blocks_revision(),
        b1,
        "records do not touch the blocks revision"
    );
    assert_eq!(c.remove_metadata(5, 2), 1);
    assert_ne!(c.revision(), r2);
    c.clear_metadata(); // nothing left: no change
    let r3 = c.revision();
    assert_eq!(c.revision(), r3);
    c.set_records(Vec::new());
    assert_eq!(c.revision(), r3);

    assert_eq!(c.fill_box([0, 0, 0], [0, 0, 0], Block::AIR).unwrap(), 0);
    assert_eq!(c.revision(), r3, "a box fill that changes nothing");
    c.fill_box([0, 0, 0], [1, 0, 0], stone).unwrap();
    let r4 = c.revision();
    assert_ne!(r4, r3);
    c.compact(); // drops nothing: air and stone are both used
    assert_eq!(c.revision(), r4);
    c.fill(stone);
    let r5 = c.revision();
    assert_ne!(r5, r4);
    assert_ne!(c.blocks_revision(), b1);
    c.fill(stone);
    assert_eq!(c.revision(), r5, "filling with the value it holds");

    // Equality ignores revisions.
    let mut a = Chunk::new();
    a.set(0, stone).unwrap();
    let mut b = Chunk::new();
    b.set(0, stone).unwrap();
    assert_ne!(a.revision(), b.revision());
    assert_eq!(a, b);
}

#[test]
fn pack_unpack_round_trip_all_widths() {
    for bits in 1..=8u8 {
        let mut idx = [0u16; CHUNK_VOLUME];
        for (i, v) in idx.iter_mut().enumerate() {
            *v = ((i * 7919 + 13) % (1 << bits)) as u16;
        }
        let words = pack_all(&idx, bits);
        let mut back = [0u16; CHUNK_VOLUME];
        unpack_all(&words, bits, &mut back);
        assert_eq!(idx, back);
        for (i, &v) in idx.iter().enumerate() {
            assert_eq!(read_packed(&words, bits as u32, i), v as usize);
        }
    }
}
