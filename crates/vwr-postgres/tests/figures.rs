//! Measured figures (issue 38's goals): importing a terrain of about 27,000 chunks and reading
//! it back, and random single-chunk reads. Ignored by default (it takes a while):
//! `cargo test -p vwr-postgres --test figures -- --ignored --nocapture`.

mod common;

use std::time::{Duration, Instant};

use common::*;
use voxcaf_golden::Rng;
use vwr::{ChunkStore, Codec, StoredChunk, World};
use vwr_edit::script::apply_ops;
use vwr_edit::Editor;
use vwr_postgres::{import, PgStore};

/// A 1000×100×1000 terrain like the issue's: the edit script `VOXCAF_PG_TERRAIN` names, else
/// columns of 5×5 cells of stone, dirt and grass with a rolling height of 12 to 38 cells.
fn terrain() -> World {
    let mut text = String::new();
    if let Ok(path) = std::env::var("VOXCAF_PG_TERRAIN") {
        text = std::fs::read_to_string(path).unwrap();
    }
    let steps = if text.is_empty() { 0..1000 } else { 0..0 };
    for x in steps.step_by(5) {
        for z in (0..1000).step_by(5) {
            let h = 25.0 + 8.0 * ((x as f64) / 97.0).sin() + 5.0 * ((z as f64) / 61.0).cos();
            let h = h as i32;
            text += &format!("box {x} 0 {z} {} {} {} 35\n", x + 4, h - 4, z + 4);
            text += &format!("box {x} {} {z} {} {} {} 2\n", h - 3, x + 4, h - 1, z + 4);
            text += &format!("box {x} {h} {z} {} {h} {} 1\n", x + 4, z + 4);
        }
    }
    let mut ed = Editor::new(World::with_chunk_dims([100, 10, 100]).unwrap());
    apply_ops(&mut ed, &script(&text), u64::MAX).unwrap();
    ed.into_world()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p) as usize]
}

#[test]
#[ignore = "measures; run with --ignored"]
fn import_and_read_figures() {
    let Some(srv) = server() else { return };
    let world = terrain();
    let l = loc(&srv, "terrain");
    let chunks: Vec<[u32; 3]> = world.non_empty_chunks().map(|(p, _)| p).collect();
    let t = Instant::now();
    // Encoded batch by batch as `migrate` streams them.
    let mut batches = chunks.chunks(512).map(|b| {
        Ok(b.iter()
            .filter_map(|&p| {
                let c = world.chunk(p)?;
                Some((
                    p,
                    StoredChunk::encode(c, Codec::Auto, vwr::DEFAULT_ZSTD_LEVEL)?,
                ))
            })
            .collect())
    });
    let r = import(&l, &head_of(&world), false, "t", "import", &mut batches).unwrap();
    let import_time = t.elapsed();
    let t = Instant::now();
    let mut store = PgStore::open(&l).unwrap();
    let back = load(&mut store);
    let read_time = t.elapsed();
    assert!(back == world);
    let mut rng = Rng::new(7);
    let mut times = Vec::new();
    for _ in 0..5000 {
        let p = chunks[rng.below(chunks.len() as u64) as usize];
        let t = Instant::now();
        let v = store.read(&[p]).unwrap();
        times.push(t.elapsed());
        assert!(v[0].chunk.is_some());
    }
    times.sort();
    eprintln!(
        "import of {} chunks ({} bytes): {:.2?}; read back whole: {:.2?}; single-chunk read \
         p50 {:.3?} p99 {:.3?} (5000 random)",
        r.chunks,
        r.bytes,
        import_time,
        read_time,
        percentile(&times, 0.5),
        percentile(&times, 0.99)
    );
}
