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
