//! Helpers shared by the integration tests.
#![allow(dead_code, unused_imports)]

use std::path::PathBuf;

use vwr::{Block, World};

pub use voxcaf_golden::Rng;

pub fn b(t: u16) -> Block {
    Block::make(t, 0).unwrap()
}

/// A world of one chunk with the blocks `b(t)` set at their cells.
pub fn one_chunk_with(blocks: &[([i32; 3], u16)]) -> World {
    let mut w = World::with_chunks_per_axis(1).unwrap();
    for &(p, t) in blocks {
        w.set_block(p, b(t)).unwrap();
    }
    w
}

/// A world of `n` chunks per axis with a floor, some random blocks of `kinds` values, and a
/// few metadata records and fields.
pub fn random_world(n: u32, seed: u64, kinds: u16) -> World {
    let mut w = World::with_chunks_per_axis(n).unwrap();
    let mut r = Rng(seed | 1);
    let size = (n * 10) as i32;
    w.fill_box([0, 0, 0], [size - 1, 0, size - 1], b(35))
        .unwrap();
    for _ in 0..(size * size) {
        let p = [
            r.range(0, size - 1),
            r.range(0, size - 1),
            r.range(0, size - 1),
        ];
        let v = if r.below(4) == 0 {
            Block::AIR
        } else {
            b(1 + r.below(kinds as u64) as u16)
        };
        w.set_block([p[0], p[1], p[2]], v).unwrap();
    }
    w.place_move_object(&vwr::MoveObject::new(7, [3.0, 1.0, 4.5]))
        .unwrap();
    w.place_big_decor([size - 1, 2, 7], 66).unwrap();
    w.set_plate_rotation([11, 0, 9], true).unwrap();
    w.set_extra_metadata([9, 9, 9], 42, &[1, 2, 3]).unwrap();
    w.set_sky_region(3);
    w.set_mission_number(11);
    w.set_spawn([1, 1, 1]).unwrap();
    w
}

/// Every cell of the world, x fastest (for cell-by-cell comparisons of small worlds).
pub fn cells(w: &World) -> Vec<Block> {
    let s = w.blocks_per_axis() as i32;
    let mut out = Vec::with_capacity((s * s * s) as usize);
    for z in 0..s {
        for y in 0..s {
            for x in 0..s {
                out.push(w.get_block([x, y, z]));
            }
        }
    }
    out
}

/// Asserts that `after` differs from `before` exactly where `expect(x, y, z)` gives a value.
pub fn assert_cells(
    before: &World,
    after: &World,
    expect: impl Fn(i32, i32, i32) -> Option<Block>,
) {
    let s = before.blocks_per_axis() as i32;
    for z in 0..s {
        for y in 0..s {
            for x in 0..s {
                let want = expect(x, y, z).unwrap_or_else(|| before.get_block([x, y, z]));
                let got = after.get_block([x, y, z]);
                assert_eq!(got, want, "cell ({x}, {y}, {z})");
            }
        }
    }
}

/// The golden folder, or `None` (with a note) when it is missing and not required.
pub fn golden_dir() -> Option<PathBuf> {
    voxcaf_golden::with_worlds()
}
