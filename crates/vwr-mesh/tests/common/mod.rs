#![allow(dead_code, unused_imports)]

pub mod edges;

use std::collections::BTreeSet;
use std::path::PathBuf;

use vwr::{Block, World};
use vwr_mesh::{Face, WorldMesh};

pub fn golden_dir() -> Option<PathBuf> {
    voxcaf_golden::with_worlds()
}

pub fn golden_worlds() -> Vec<(String, World)> {
    let Some(dir) = golden_dir() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for sub in ["worlds3d", "random", "edge"] {
        let mut paths: Vec<_> = std::fs::read_dir(dir.join("vwr").join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "vwr"))
            .collect();
        paths.sort();
        for p in paths {
            let w = World::load(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            out.push((p.file_name().unwrap().to_string_lossy().into_owned(), w));
        }
    }
    out
}

pub fn world999() -> Option<World> {
    let dir = golden_dir()?;
    Some(World::load(dir.join("vwr/worlds3d/world999.vwr")).unwrap())
}

pub use voxcaf_golden::Rng;

pub fn b(t: u16) -> Block {
    Block::make(t, 0).unwrap()
}

/// A random world of `n` chunks per axis mixing opaque, transparent, special and unknown
/// types, dense in a region so that many faces touch.
pub fn random_world(seed: u64, n: u32, count: usize) -> World {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut w = World::with_chunks_per_axis(n).unwrap();
    let types = [35u16, 261, 92, 96, 30, 378, 200, 53, 4000, 3, 68];
    let size = n as u64 * 10;
    for _ in 0..count {
        let t = types[rng.below(types.len() as u64) as usize];
        let meta = if rng.below(4) == 0 { 1 } else { 0 };
        let (x, y, z) = (rng.below(size), rng.below(size), rng.below(size));
        w.set_block(
            [x as i32, y as i32, z as i32],
            Block::make(t, meta).unwrap(),
        )
        .unwrap();
    }
    w
}

/// Every unit face of a mesh's cube passes, with its block and pass (0 opaque, 1 transparent).
pub fn face_set(m: &WorldMesh) -> BTreeSet<([i32; 3], Face, u16, u8)> {
    let mut s = BTreeSet::new();
    for c in &m.chunks {
        for (pass, quads) in [(0u8, &c.opaque), (1u8, &c.transparent)] {
            for q in quads {
                for (cell, f) in q.unit_faces() {
                    assert!(
                        s.insert((cell, f, q.block.raw(), pass)),
                        "face covered twice: {cell:?} {f:?}"
                    );
                }
            }
        }
    }
    s
}
