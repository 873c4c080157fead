//! The collider of a large sparse world (past the size where it keeps an entry per chunk
//! position) answers like the world and the registry, and follows edits and removed chunks.

mod common;
use common::{collider, random_world, solid_ref};

use vwr::Block;

#[test]
fn a_large_sparse_world_collides_like_its_blocks_and_follows_edits() {
    // 600 × 1 × 500 chunks: 300,000 positions, past the dense table's 2^18.
    let mut w = random_world(11, [600, 1, 500], 0.000_02);
    let mut c = collider(&w);
    let dims = w.block_dims().map(i64::from);
    let mut rng = voxcaf_golden::Rng::new(5);
    let check = |w: &vwr::World, c: &vwr_play::Collider, rng: &mut voxcaf_golden::Rng| {
        let mut solid = 0;
        // Every solid cell of the world is solid in the collider, and random cells agree.
        for (pos, chunk) in w.chunks() {
            chunk.for_each(|i, _| {
                let l = vwr::local_position(i);
                let p = [0, 1, 2].map(|k| (pos[k] as i64) * 10 + l[k] as i64);
                assert_eq!(c.solid(p), solid_ref(w, p), "{p:?}");
                solid += c.solid(p) as usize;
            });
        }
        for _ in 0..20_000 {
            let p = [0, 1, 2].map(|k| rng.below(dims[k] as u64 + 4) as i64 - 2);
            assert_eq!(c.solid(p), solid_ref(w, p), "{p:?}");
        }
        solid
    };
    assert!(check(&w, &c, &mut rng) > 0);
    // An edit, a new chunk and a chunk taken out.
    let first = w.chunks().next().map(|(p, _)| p).unwrap();
    w.take_chunk(first);
    w.set_block([5995, 3, 4995], Block::make(35, 0).unwrap())
        .unwrap();
    c.refresh(&w);
    assert!(c.solid([5995, 3, 4995]));
    check(&w, &c, &mut rng);
}
