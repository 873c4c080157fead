//! Shared helpers of the integration tests: random worlds and their collider.
#![allow(dead_code)]

use voxcaf_golden::Rng;
use vwr::{Block, World};
use vwr_blocks::Registry;
use vwr_play::Collider;

/// A non-cubic world of `chunks` with about `density` (0..=1) of its cells solid (RockPile or
/// BrickWall), a few water cells (not solid) and a few plates (not solid).
pub fn random_world(seed: u64, chunks: [u32; 3], density: f64) -> World {
    let mut w = World::with_chunk_dims(chunks).unwrap();
    let mut rng = Rng::new(seed);
    let dims = w.block_dims();
    let n = (dims.iter().map(|&d| d as f64).product::<f64>() * density) as usize;
    for i in 0..n {
        let p = [0, 1, 2].map(|k| rng.below(dims[k] as u64) as i32);
        let t = match i % 10 {
            0 => 92,  // Water: not solid
            1 => 110, // a plate: not solid
            2..=5 => 261,
            _ => 35,
        };
        w.set_block(p, Block::make(t, 0).unwrap()).unwrap();
    }
    w
}

pub fn collider(w: &World) -> Collider {
    Collider::new(w, &Registry::default())
}

/// Whether a cell is solid, straight from the world and the registry (the reference).
pub fn solid_ref(w: &World, c: [i64; 3]) -> bool {
    if !(0..3).all(|k| c[k] >= 0 && c[k] < w.block_dims()[k] as i64) {
        return false;
    }
    let b = w.get_block(c.map(|v| v as i32));
    vwr_blocks::default_registry()
        .collision(b.block_type())
        .solid
}
