//! Big worlds on the wire: what a first edit reports and how small the chunk answer stays.
mod common;

use vwr::{Block, World};
use vwr_serve::{Session, SessionOptions};

/// `world` saved in a fresh folder and a session on it (keep the folder alive).
fn session_on(world: &World) -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("world.vwr");
    world.save(&file).unwrap();
    let s = Session::open(&file, SessionOptions::default()).unwrap();
    (dir, s)
}

/// The chunks an edit answer lists as changed.
fn changed(answer: &impl serde::Serialize) -> Vec<[u32; 3]> {
    let v = serde_json::to_value(answer).unwrap();
    serde_json::from_value(v["changed_chunks"].clone()).unwrap()
}

#[test]
fn the_first_edit_of_a_session_reports_only_the_chunks_it_touched() {
    let world = common::hilly_terrain_sized([20, 10, 20]);
    for fetch_first in [true, false] {
        let (_dir, mut s) = session_on(&world);
        if fetch_first {
            // What the page does on opening.
            s.chunks_since(0);
        }
        let epoch = s.epoch();
        let c = changed(&s.apply_script("place 55 60 55 stone").unwrap());
        assert!(c.contains(&[5, 6, 5]), "{c:?}");
        // The chunk and the neighbours whose ambient occlusion it can change.
        assert!(
            c.len() <= 8,
            "fetched first: {fetch_first}: {} chunks",
            c.len()
        );
        if fetch_first {
            // And what the page then downloads is that, not the whole world.
            let answer = s.chunks_since(epoch);
            let count = u32::from_le_bytes(answer[8..12].try_into().unwrap());
            assert_eq!(count as usize, c.len());
        }
    }
}

#[test]
fn uniform_chunks_cost_a_few_bytes_on_the_wire() {
    // 20×10×20 chunks, the lower half solid stone: 2000 uniform chunks (400 of them with a
    // top face), the upper half air.
    let mut world = World::with_chunk_dims([20, 10, 20]).unwrap();
    world
        .fill_box([0, 0, 0], [199, 49, 199], Block::make(1, 0).unwrap())
        .unwrap();
    let (_dir, mut s) = session_on(&world);
    let answer = s.chunks_since(0);
    let count = u32::from_le_bytes(answer[8..12].try_into().unwrap());
    assert!(count >= 2000, "{count} chunks");
    // Raw block arrays alone would be 2000 bytes a chunk (4 MB).
    assert!(
        answer.len() < 100 * count as usize,
        "{} bytes for {count} chunks",
        answer.len()
    );
}
