//! Eight people editing one world at once, at random: every page's world (followed only
//! through the pushed changes) equals the server's, and the log replays to the saved file
//! byte for byte.

mod common;

use std::collections::HashMap;

use proptest::prelude::*;
use vwr::{Block, World};
use vwr_serve::{Session, SessionOptions};

/// A small deterministic generator (the seed comes from proptest).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn cell(&mut self, dims: [u32; 3]) -> [u64; 3] {
        [0, 1, 2].map(|i| self.below(u64::from(dims[i])))
    }
}

const BLOCKS: [&str; 6] = ["stone", "dirt", "lava", "water", "35:2", "air"];

/// One random operation's script.
fn script(r: &mut Rng, dims: [u32; 3]) -> String {
    let b = BLOCKS[r.below(BLOCKS.len() as u64) as usize];
    let [x, y, z] = r.cell(dims);
    match r.below(8) {
        0 | 1 => format!("place {x} {y} {z} {b}"),
        2 => {
            let [a, c, d] = r.cell(dims);
            format!("box {x} {y} {z} {a} {c} {d} {b}")
        }
        3 => format!("erase {x} {y} {z}"),
        4 => format!("brush sphere {x} {y} {z} {} {b}", 1 + r.below(3)),
        5 => format!("replace {} {b}", BLOCKS[r.below(5) as usize]),
        6 => format!("sky {}", r.below(32)),
        _ => format!("object add 1 {x} {y} {z}"),
    }
}

/// What a page holds: the block values of each chunk, as the pushes brought them.
type Page = HashMap<[u32; 3], Vec<u16>>;

fn world_blocks(w: &World) -> Page {
    let mut out = Page::new();
    let d = w.chunk_dims();
    for cz in 0..d[2] {
        for cy in 0..d[1] {
            for cx in 0..d[0] {
                if let Some(c) = w.chunk([cx, cy, cz]) {
                    let v: Vec<u16> = c.to_blocks().iter().map(|b| b.raw()).collect();
                    if v.iter().any(|x| *x != 0) {
                        out.insert([cx, cy, cz], v);
                    }
                }
            }
        }
    }
    out
}

/// Takes a push (the binary chunk answer) into a page.
fn follow(page: &mut Page, bytes: &[u8]) {
    for c in vwr_serve::wire::decode_blocks(bytes).expect("a valid chunk answer") {
        let pos = c.pos;
        match c.blocks {
            Some(b) if b.iter().any(|x| *x != 0) => {
                page.insert(pos, b);
            }
            _ => {
                page.remove(&pos);
            }
        }
    }
}

fn run(seed: u64, ops: usize) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shared.vwr");
    let mut w = World::with_chunk_dims([4, 2, 4]).unwrap();
    w.fill_box([0, 0, 0], [39, 1, 39], Block(35 << 4)).unwrap();
    w.save_with(&file, &vwr::SaveOptions::v3(vwr::Codec::Auto))
        .unwrap();
    let base = dir.path().join("base.vwr");
    std::fs::copy(&file, &base).unwrap();
    let mut s = Session::open(&file, SessionOptions::default()).unwrap();
    let dims = s.world().block_dims();
    let users: Vec<String> = (0..8).map(|i| format!("user{i}")).collect();
    // Every page opens the world (everything up to the current epoch), then follows pushes.
    let mut first = Page::new();
    follow(&mut first, &s.chunks_since(0));
    let mut pages: Vec<Page> = vec![first; users.len()];
    let mut r = Rng(seed | 1);
    let (mut edits, mut undos, mut redos) = (0, 0, 0);
    for i in 0..ops {
        let u = &users[r.below(users.len() as u64) as usize];
        let from = s.epoch();
        match r.below(10) {
            0..=5 => {
                if s.apply_script_as(u, &script(&mut r, dims)).is_ok() {
                    edits += 1;
                }
            }
            6 | 7 => {
                if s.undo_as(u).unwrap().change.is_some() {
                    undos += 1;
                }
            }
            _ => {
                if s.redo_as(u).unwrap().change.is_some() {
                    redos += 1;
                }
            }
        }
        if let Some((_, bytes, _)) = s.take_push(from) {
            for p in &mut pages {
                follow(p, &bytes);
            }
        }
        if i % 997 == 996 {
            s.save_by(u, vwr_serve::SaveMode::Normal).unwrap();
        }
    }
    let truth = world_blocks(s.world());
    for (i, p) in pages.iter().enumerate() {
        assert!(*p == truth, "page {i} differs from the server's world");
    }
    s.save().unwrap();
    drop(s);
    assert!(
        edits > ops / 3 && undos > ops / 20 && redos > ops / 40,
        "{edits} {undos} {redos}"
    );
    let out = dir.path().join("replayed.vwr");
    let report = vwr_edit::oplog::replay(&vwr_serve::oplog_path(&file), &base, &out).unwrap();
    assert_eq!(report.unsaved_ops, 0);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&file).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2, ..ProptestConfig::default() })]

    #[test]
    fn eight_people_ten_thousand_operations_pages_follow_and_the_log_replays(seed in any::<u64>()) {
        run(seed, 10_000);
    }
}
