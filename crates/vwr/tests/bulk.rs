//! The bulk readers (`Chunk::indices_into`, `Chunk::read_into`, `World::read_box`) read exactly
//! what `get_block` reads, on random non-cubic worlds with palettes of every width.

use proptest::prelude::*;
use vwr::{Block, World};

/// A world of `dims` chunks with random boxes and cells; `values` distinct values (up to 300,
/// so some chunks reach 8 bits and the 257th value triggers compaction).
fn world(dims: [u32; 3], edits: &[([i32; 3], [i32; 3], u16)], cells: &[([i32; 3], u16)]) -> World {
    let mut w = World::with_chunk_dims(dims).unwrap();
    for &(a, b, v) in edits {
        w.fill_box(a, b, Block(v * 16 + 1)).unwrap();
    }
    for &(p, v) in cells {
        if w.contains(p) {
            let _ = w.set_block(p, Block(v * 16 + (v % 3)));
        }
    }
    w
}

fn dims() -> impl Strategy<Value = [u32; 3]> {
    prop::array::uniform3(1u32..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn read_into_equals_get_block(
        d in dims(),
        edits in prop::collection::vec((prop::array::uniform3(-2i32..40), prop::array::uniform3(-2i32..40), 0u16..20), 0..6),
        cells in prop::collection::vec((prop::array::uniform3(0i32..40), 0u16..300), 0..1500),
    ) {
        let w = world(d, &edits, &cells);
        let mut out = [Block::AIR; 1000];
        let mut idx = [0u8; 1000];
        for (pos, ch) in w.chunks() {
            ch.read_into(&mut out);
            ch.indices_into(&mut idx);
            for (i, b) in out.iter().enumerate() {
                let [x, y, z] = vwr::local_position(i);
                let p = [pos[0] as i32 * 10 + x as i32, pos[1] as i32 * 10 + y as i32, pos[2] as i32 * 10 + z as i32];
                prop_assert_eq!(*b, w.get_block(p));
                prop_assert_eq!(ch.palette()[idx[i] as usize], *b);
            }
        }
    }

    #[test]
    fn read_box_equals_get_block(
        d in dims(),
        edits in prop::collection::vec((prop::array::uniform3(-2i32..40), prop::array::uniform3(-2i32..40), 0u16..20), 0..6),
        cells in prop::collection::vec((prop::array::uniform3(0i32..40), 0u16..300), 0..800),
        lo in prop::array::uniform3(-12i32..40),
        size in prop::array::uniform3(1i32..25),
    ) {
        let w = world(d, &edits, &cells);
        let hi = [lo[0] + size[0] - 1, lo[1] + size[1] - 1, lo[2] + size[2] - 1];
        let mut out = vec![Block(7); (size[0] * size[1] * size[2]) as usize];
        w.read_box(lo, hi, &mut out).unwrap();
        let mut k = 0;
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                for x in lo[0]..=hi[0] {
                    prop_assert_eq!(out[k], w.get_block([x, y, z]), "cell {:?}", [x, y, z]);
                    k += 1;
                }
            }
        }
    }
}
