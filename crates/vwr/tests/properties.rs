//! Property tests: random edit sequences round-trip through save/load, the packed stream always
//! decodes to what was set, and compaction never changes a block.

mod common;

use proptest::prelude::*;
use vwr::{Block, Chunk, MoveObject, World};

#[derive(Clone, Debug)]
enum Edit {
    Set(i32, i32, i32, u16),
    Fill([i32; 3], [i32; 3], u16),
    Meta(i32, i32, i32, u16, Vec<u8>),
    RemoveMeta(i32, i32, i32, u16),
    Object(u8, [f32; 3]),
    Spawn(i32, i32, i32),
    Sky(u32),
}

fn edit(limit: i32, values: u16) -> impl Strategy<Value = Edit> {
    let c = 0..limit;
    prop_oneof![
        8 => (c.clone(), c.clone(), c.clone(), 0..values).prop_map(|(x, y, z, v)| Edit::Set(x, y, z, v * 17)),
        1 => (prop::array::uniform3(-3..limit + 3), prop::array::uniform3(-3..limit + 3), 0..values)
            .prop_map(|(a, b, v)| Edit::Fill(a, b, v * 17)),
        2 => (c.clone(), c.clone(), c.clone(), 0..6u16, prop::collection::vec(any::<u8>(), 0..12))
            .prop_map(|(x, y, z, t, p)| Edit::Meta(x, y, z, t, p)),
        1 => (c.clone(), c.clone(), c.clone(), 0..6u16).prop_map(|(x, y, z, t)| Edit::RemoveMeta(x, y, z, t)),
        1 => (any::<u8>(), prop::array::uniform3(0.0f32..(limit as f32))).prop_map(|(t, p)| Edit::Object(t, p)),
        1 => (c.clone(), c.clone(), c).prop_map(|(x, y, z)| Edit::Spawn(x, y, z)),
        1 => any::<u32>().prop_map(Edit::Sky),
    ]
}

fn apply(w: &mut World, e: &Edit) {
    match e {
        Edit::Set(x, y, z, v) => w.set_block([*x, *y, *z], Block(*v)).unwrap(),
        Edit::Fill(a, b, v) => {
            w.fill_box(*a, *b, Block(*v)).unwrap();
        }
        Edit::Meta(x, y, z, t, p) => w.set_extra_metadata([*x, *y, *z], *t, p).unwrap(),
        Edit::RemoveMeta(x, y, z, t) => {
            w.remove_extra_metadata([*x, *y, *z], *t);
        }
        Edit::Object(t, p) => {
            w.place_move_object(&MoveObject::new(*t, *p)).unwrap();
        }
        Edit::Spawn(x, y, z) => w.set_spawn([*x, *y, *z]).unwrap(),
        Edit::Sky(s) => w.set_sky_region(*s),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_round_trip_through_save_and_load(edits in prop::collection::vec(edit(20, 40), 1..200)) {
        let mut w = World::with_chunks_per_axis(2).unwrap();
        // A reference model of every cell, independent of the packed storage.
        let mut model = vec![0u16; 20 * 20 * 20];
        for e in &edits {
            apply(&mut w, e);
            match e {
                Edit::Set(x, y, z, v) => model[(x + 20 * (y + 20 * z)) as usize] = *v,
                Edit::Fill(a, b, v) => {
                    for z in a[2].min(b[2]).max(0)..=a[2].max(b[2]).min(19) {
                        for y in a[1].min(b[1]).max(0)..=a[1].max(b[1]).min(19) {
                            for x in a[0].min(b[0]).max(0)..=a[0].max(b[0]).min(19) {
                                model[(x + 20 * (y + 20 * z)) as usize] = *v;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        for z in 0..20 { for y in 0..20 { for x in 0..20 {
            prop_assert_eq!(w.get_block([x, y, z]).raw(), model[(x + 20 * (y + 20 * z)) as usize]);
        }}}
        let bytes = w.to_bytes();
        let back = World::from_bytes(&bytes).unwrap();
        prop_assert!(back == w);
        prop_assert_eq!(back.to_bytes(), bytes);
        prop_assert_eq!(vwr::dump::dump(&back), vwr::dump::dump(&w));
    }

    #[test]
    fn every_content_change_changes_the_revision(edits in prop::collection::vec(edit(20, 40), 1..200)) {
        let mut w = World::with_chunks_per_axis(2).unwrap();
        for e in &edits {
            let before: Vec<Option<(Chunk, u64, u64)>> = (0..8u32)
                .map(|i| w.chunk([i % 2, (i / 2) % 2, i / 4]).map(|c| (c.clone(), c.revision(), c.blocks_revision())))
                .collect();
            apply(&mut w, e);
            for (i, b) in before.iter().enumerate() {
                let i = i as u32;
                let now = w.chunk([i % 2, (i / 2) % 2, i / 4]);
                prop_assert_eq!(w.chunk_revision([i % 2, (i / 2) % 2, i / 4]), now.map(Chunk::revision));
                if let (Some((old, rev, brev)), Some(now)) = (b, now) {
                    if *old != *now {
                        prop_assert_ne!(*rev, now.revision(), "{:?}", e);
                    }
                    if old.palette() != now.palette() || old.words() != now.words() {
                        prop_assert_ne!(*brev, now.blocks_revision(), "{:?}", e);
                    }
                    if *rev == now.revision() {
                        prop_assert!(*old == *now);
                    }
                }
            }
        }
    }

    #[test]
    fn packed_stream_decodes_to_what_was_set(sets in prop::collection::vec((0usize..1000, 0u16..300), 0..3000)) {
        let mut c = Chunk::new();
        let mut model = [Block::AIR; 1000];
        for (i, v) in sets {
            let b = Block(v);
            match c.set(i, b) {
                Ok(()) => model[i] = b,
                Err(_) => prop_assert!(c.palette().len() == 256),
            }
        }
        for (i, want) in model.iter().enumerate() {
            prop_assert_eq!(c.get(i), *want);
        }
        prop_assert_eq!(&*c.to_blocks(), &model);
        prop_assert_eq!(c.bits_per_block(), vwr::bits_for(c.palette().len()));
        let rebuilt = Chunk::from_blocks(&model).unwrap();
        prop_assert_eq!(&*rebuilt.to_blocks(), &model);
    }

    #[test]
    fn compaction_never_changes_any_block(sets in prop::collection::vec((0usize..1000, 0u16..64), 0..2000)) {
        let mut c = Chunk::new();
        for (i, v) in sets {
            c.set(i, Block(v)).unwrap();
        }
        let before = c.to_blocks();
        let len = c.palette().len();
        c.compact();
        prop_assert_eq!(&*c.to_blocks(), &*before);
        prop_assert!(c.palette().len() <= len);
        let uses = c.palette_usage();
        prop_assert!(uses.iter().all(|&u| u > 0), "no unused entry after compaction");
        let mut sorted = c.palette().to_vec();
        sorted.sort();
        sorted.dedup();
        prop_assert_eq!(sorted.len(), c.palette().len(), "no duplicate entry after compaction");
    }
}

/// A change to a world through any of its mutable entry points (each keeps the world's fast
/// read table in step differently: at once, at the next mutable call, or by a rebuild).
#[derive(Clone, Debug)]
enum Change {
    Set([i32; 3], u16),
    Fill([i32; 3], [i32; 3], u16),
    /// A whole chunk: uniform, 8-bit (256 values: a direct copy) or a few values (packed).
    Put([u32; 3], u8, u16),
    Take([u32; 3]),
    /// Through `chunk_mut`, then read before any other mutable call.
    ChunkMut([u32; 3], usize, u16),
    /// Through `chunks_mut`, one cell of every chunk.
    AllChunks(usize, u16),
    Compact,
    /// A record on a cell, then every record and every dirty flag cleared (chunk changes that
    /// keep the blocks).
    Records([i32; 3]),
    /// The world is replaced by a clone of itself and the original dropped.
    Clone,
}

const READ_DIMS: [u32; 3] = [2, 1, 2];

// Values stay below 256 so that no chunk ever needs a 257th palette entry.

fn change() -> impl Strategy<Value = Change> {
    let p = (0..20i32, 0..10i32, 0..20i32).prop_map(|(x, y, z)| [x, y, z]);
    let p2 = p.clone();
    let c = (0..2u32, 0..1u32, 0..2u32).prop_map(|(x, y, z)| [x, y, z]);
    prop_oneof![
        4 => (p.clone(), 0..256u16).prop_map(|(p, v)| Change::Set(p, v)),
        1 => (p.clone(), p2, 0..3u16).prop_map(|(a, b, v)| Change::Fill(a, b, v)),
        3 => (c.clone(), 0..3u8, 0..256u16).prop_map(|(c, k, v)| Change::Put(c, k, v)),
        1 => c.clone().prop_map(Change::Take),
        3 => (c, 0..1000usize, 0..256u16).prop_map(|(c, i, v)| Change::ChunkMut(c, i, v)),
        1 => (0..1000usize, 0..256u16).prop_map(|(i, v)| Change::AllChunks(i, v)),
        1 => Just(Change::Compact),
        1 => p.prop_map(Change::Records),
        1 => Just(Change::Clone),
    ]
}

fn cell_of(c: [u32; 3], i: usize) -> [i32; 3] {
    let local = vwr::local_position(i);
    [0, 1, 2].map(|k| (c[k] as usize * vwr::CHUNK_SIZE + local[k]) as i32)
}

/// Index of a world cell in the model (x fastest).
fn model_index(p: [i32; 3]) -> usize {
    let [x, y, z] = p.map(|v| v as usize);
    x + 20 * (y + 10 * z)
}

fn check_reads(w: &World, model: &[u16], step: usize) -> Result<(), TestCaseError> {
    for z in -1..21 {
        for y in -1..11 {
            for x in -1..21 {
                let inside = (0..20).contains(&x) && (0..10).contains(&y) && (0..20).contains(&z);
                let want = if inside {
                    model[model_index([x, y, z])]
                } else {
                    0
                };
                prop_assert_eq!(
                    w.get_block([x, y, z]).raw(),
                    want,
                    "{:?} after change {}",
                    [x, y, z],
                    step
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `get_block` answers what a plain model of the cells says after every change, whichever
    /// entry point made it: the fast read table never serves a stale or dangling answer.
    #[test]
    fn reads_follow_every_kind_of_change(changes in prop::collection::vec(change(), 1..24)) {
        let mut w = World::with_chunk_dims(READ_DIMS).unwrap();
        let mut model = vec![0u16; 20 * 10 * 20];
        for (step, ch) in changes.iter().enumerate() {
            match *ch {
                Change::Set(p, v) => {
                    w.set_block(p, Block(v)).unwrap();
                    model[model_index(p)] = v;
                }
                Change::Fill(a, b, v) => {
                    w.fill_box(a, b, Block(v)).unwrap();
                    for z in a[2].min(b[2])..=a[2].max(b[2]) {
                        for y in a[1].min(b[1])..=a[1].max(b[1]) {
                            for x in a[0].min(b[0])..=a[0].max(b[0]) {
                                model[model_index([x, y, z])] = v;
                            }
                        }
                    }
                }
                Change::Put(c, kind, v) => {
                    let blocks: [Block; 1000] = std::array::from_fn(|i| Block(match kind {
                        0 => v,
                        1 => (i as u16 + v) % 256,
                        _ => (v + (i % 3) as u16) % 256,
                    }));
                    w.set_chunk(c, Chunk::from_blocks(&blocks).unwrap()).unwrap();
                    for (i, b) in blocks.iter().enumerate() {
                        model[model_index(cell_of(c, i))] = b.raw();
                    }
                }
                Change::Take(c) => {
                    w.take_chunk(c);
                    for i in 0..1000 {
                        model[model_index(cell_of(c, i))] = 0;
                    }
                }
                Change::ChunkMut(c, i, v) => {
                    w.chunk_mut(c).unwrap().set(i, Block(v)).unwrap();
                    model[model_index(cell_of(c, i))] = v;
                }
                Change::AllChunks(i, v) => {
                    let mut touched = Vec::new();
                    for (c, chunk) in w.chunks_mut() {
                        chunk.set(i, Block(v)).unwrap();
                        touched.push(c);
                    }
                    for c in touched {
                        model[model_index(cell_of(c, i))] = v;
                    }
                }
                Change::Compact => w.compact(),
                Change::Records(p) => {
                    w.set_extra_metadata(p, 7, &[1, 2, 3]).unwrap();
                    prop_assert_eq!(w.remove_extra_metadata(p, 7), 1);
                    w.set_extra_metadata(p, 7, &[4]).unwrap();
                    w.clear_extra_metadata();
                    w.clear_dirty();
                }
                Change::Clone => {
                    let copy = w.clone();
                    drop(std::mem::replace(&mut w, copy));
                }
            }
            check_reads(&w, &model, step)?;
        }
    }
}
