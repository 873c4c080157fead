//! Undo/redo exactness: random tool sequences, undo of everything, redo, bounds.

mod common;

use common::{b, golden_dir, random_world};
use proptest::prelude::*;
use vwr::{Block, MoveObject, World};
use vwr_edit::{
    Brush, BrushShape, Change, Clipboard, EditError, Editor, FloodLimits, HistoryLimits, Mirror,
    PasteOptions, Rotation,
};

#[derive(Clone, Debug)]
enum Op {
    Place([i32; 3], u16),
    Erase([i32; 3]),
    Box([i32; 3], [i32; 3], u16),
    Hollow([i32; 3], [i32; 3], u16),
    Walls([i32; 3], [i32; 3], u16),
    Brush(bool, [i32; 3], u32, u16),
    Flood([i32; 3], u16, u64),
    Replace(u16, u16, Option<([i32; 3], [i32; 3])>),
    CopyPaste([i32; 3], [i32; 3], [i32; 3], u8, u8, bool),
    Cut([i32; 3], [i32; 3]),
    PasteClip([i32; 3], u8, u8),
    Object([f32; 3], u8),
    MoveObjectTo(usize, [f32; 3]),
    RemoveObject(usize),
    Decor([i32; 3], u16),
    Plate([i32; 3], bool),
    Meta([i32; 3], u16, Vec<u8>),
    Sky(u32),
    Mission(u32),
    Spawn(Option<[i32; 3]>),
    Undo,
    Redo,
}

/// Block values: mostly a few common ones (palettes reused), sometimes new ones (palettes grow).
fn value() -> impl Strategy<Value = u16> {
    prop_oneof![
        4 => 0u16..6,
        1 => 0u16..4096,
    ]
}

fn cell(size: i32) -> impl Strategy<Value = [i32; 3]> {
    let r = -3..size + 3;
    [r.clone(), r.clone(), r]
}

fn fpos(size: i32) -> impl Strategy<Value = [f32; 3]> {
    let r = (-4i32..(size * 4 + 4)).prop_map(|v| v as f32 / 4.0);
    [r.clone(), r.clone(), r]
}

fn op(size: i32) -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (cell(size), value()).prop_map(|(p, v)| Op::Place(p, v)),
        1 => cell(size).prop_map(Op::Erase),
        3 => (cell(size), cell(size), value()).prop_map(|(a, c, v)| Op::Box(a, c, v)),
        1 => (cell(size), cell(size), value()).prop_map(|(a, c, v)| Op::Hollow(a, c, v)),
        1 => (cell(size), cell(size), value()).prop_map(|(a, c, v)| Op::Walls(a, c, v)),
        2 => (any::<bool>(), cell(size), 0u32..9, value()).prop_map(|(s, c, r, v)| Op::Brush(s, c, r, v)),
        2 => (cell(size), value(), prop_oneof![Just(50u64), Just(1_000_000u64)]).prop_map(|(c, v, m)| Op::Flood(c, v, m)),
        2 => (0u16..6, value(), proptest::option::of((cell(size), cell(size))))
            .prop_map(|(a, v, r)| Op::Replace(a, v, r)),
        2 => (cell(size), cell(size), cell(size), 0u8..4, 0u8..3, any::<bool>())
            .prop_map(|(a, c, o, r, m, s)| Op::CopyPaste(a, c, o, r, m, s)),
        1 => (cell(size), cell(size)).prop_map(|(a, c)| Op::Cut(a, c)),
        1 => (cell(size), 0u8..4, 0u8..3).prop_map(|(o, r, m)| Op::PasteClip(o, r, m)),
        2 => (fpos(size), 0u8..60).prop_map(|(p, t)| Op::Object(p, t)),
        1 => (0usize..8, fpos(size)).prop_map(|(i, p)| Op::MoveObjectTo(i, p)),
        1 => (0usize..8).prop_map(Op::RemoveObject),
        1 => (cell(size), 0u16..600).prop_map(|(p, i)| Op::Decor(p, i)),
        1 => (cell(size), any::<bool>()).prop_map(|(p, r)| Op::Plate(p, r)),
        1 => (cell(size), prop_oneof![Just(0u16), Just(7), Just(42), Just(65535)], proptest::collection::vec(any::<u8>(), 0..6))
            .prop_map(|(p, t, v)| Op::Meta(p, t, v)),
        1 => (0u32..40).prop_map(Op::Sky),
        1 => (0u32..200).prop_map(Op::Mission),
        1 => proptest::option::of(cell(size)).prop_map(Op::Spawn),
        2 => Just(Op::Undo),
        1 => Just(Op::Redo),
    ]
}

fn rot(r: u8) -> Rotation {
    [Rotation::R0, Rotation::R90, Rotation::R180, Rotation::R270][r as usize % 4]
}

/// Applies one tool call (not undo/redo); `clip` is the clipboard of cut / paste.
fn apply(ed: &mut Editor, op: &Op, clip: &mut Option<Clipboard>) -> Result<Change, EditError> {
    let bl = |v: u16| Block::from_raw(v);
    match op {
        Op::Place(p, v) => ed.place(*p, bl(*v)),
        Op::Erase(p) => ed.erase(*p),
        Op::Box(a, c, v) => ed.fill_box(*a, *c, bl(*v)),
        Op::Hollow(a, c, v) => ed.hollow_box(*a, *c, bl(*v)),
        Op::Walls(a, c, v) => ed.walls(*a, *c, bl(*v)),
        Op::Brush(sphere, c, r, v) => {
            let shape = if *sphere {
                BrushShape::Sphere
            } else {
                BrushShape::Cube
            };
            ed.brush(Brush { shape, radius: *r }, *c, bl(*v))
        }
        Op::Flood(c, v, m) => ed.flood_fill(
            *c,
            bl(*v),
            FloodLimits {
                bounds: None,
                max_cells: *m,
            },
        ),
        Op::Replace(a, v, r) => ed.replace(bl(*a), bl(*v), *r),
        Op::CopyPaste(a, c, o, r, m, s) => {
            let clip = ed.copy(*a, *c)?;
            let mirror = [Mirror::None, Mirror::X, Mirror::Z][*m as usize % 3];
            let opts = PasteOptions {
                rotation: rot(*r),
                mirror,
                skip_air: *s,
                with_metadata: true,
            };
            ed.paste(&clip, *o, opts)
        }
        Op::Cut(a, c) => {
            let (cb, change) = ed.cut(*a, *c)?;
            *clip = Some(cb);
            Ok(change)
        }
        Op::PasteClip(o, r, m) => match clip {
            Some(cb) => {
                let mirror = [Mirror::None, Mirror::X, Mirror::Z][*m as usize % 3];
                let opts = PasteOptions {
                    rotation: rot(*r),
                    mirror,
                    ..Default::default()
                };
                ed.paste(cb, *o, opts)
            }
            None => Ok(Change::default()),
        },
        Op::Object(p, t) => ed.place_move_object(&MoveObject::new(*t, *p)).map(|x| x.1),
        Op::MoveObjectTo(i, p) => {
            let objs = ed.world().move_objects()?;
            match objs.get(*i % objs.len().max(1)) {
                Some((c, _)) => ed.move_move_object(*c, *p).map(|x| x.1),
                None => ed.move_move_object([0, 0, 0], *p).map(|x| x.1),
            }
        }
        Op::RemoveObject(i) => {
            let objs = ed.world().move_objects()?;
            match objs.get(*i % objs.len().max(1)) {
                Some((c, _)) => ed.remove_move_object(*c),
                None => ed.remove_move_object([0, 0, 0]),
            }
        }
        Op::Decor(p, i) => ed.place_big_decor(*p, *i),
        Op::Plate(p, r) => ed.set_plate_rotation(*p, *r),
        Op::Meta(p, t, v) => ed.set_metadata(*p, *t, v),
        Op::Sky(s) => ed.set_sky_region(*s),
        Op::Mission(m) => ed.set_mission_number(*m),
        Op::Spawn(s) => ed.set_spawn(*s),
        Op::Undo | Op::Redo => unreachable!("handled by the caller"),
    }
}

/// One undo (`from` = the past, `to` = the future) or redo (the other way round) in the
/// model: the editor did a step (`done`) exactly when the model has one to take.
fn model_step(done: bool, from: &mut Vec<Vec<u8>>, to: &mut Vec<Vec<u8>>, cur: &mut Vec<u8>) {
    match from.pop() {
        None => assert!(!done),
        Some(state) => {
            assert!(done);
            to.push(std::mem::replace(cur, state));
        }
    }
}

/// Runs `ops` on `world`, checking after every step against a model of the history made of
/// saved bytes; then undoes everything and checks the original comes back exactly, and redoes
/// everything and checks the edited world comes back exactly.
fn check_sequence(world: World, ops: &[Op]) {
    let original_bytes = world.to_bytes();
    let mut ed = Editor::new(world.clone());
    let mut cur = original_bytes.clone();
    let mut past: Vec<Vec<u8>> = Vec::new();
    let mut future: Vec<Vec<u8>> = Vec::new();
    let mut clip = None;
    for op in ops {
        match op {
            Op::Undo => model_step(ed.undo().is_some(), &mut past, &mut future, &mut cur),
            Op::Redo => model_step(ed.redo().is_some(), &mut future, &mut past, &mut cur),
            _ => match apply(&mut ed, op, &mut clip) {
                Ok(change) if !change.is_empty() => {
                    past.push(std::mem::replace(&mut cur, ed.world().to_bytes()));
                    future.clear();
                    assert_eq!(ed.history().redo_depth(), 0, "a new edit drops redo");
                }
                // A refused or empty edit changes nothing.
                Ok(_) | Err(_) => {}
            },
        }
        assert_eq!(ed.world().to_bytes(), cur, "after {op:?}");
        assert_eq!(ed.history().undo_depth(), past.len());
        assert_eq!(ed.history().redo_depth(), future.len());
    }
    let edited = ed.world().clone();
    let depth = ed.history().undo_depth();
    while ed.undo().is_some() {}
    assert_eq!(ed.world().to_bytes(), original_bytes, "undo of everything");
    assert!(
        *ed.world() == world,
        "undo of everything restores palettes and records"
    );
    for _ in 0..depth {
        assert!(ed.redo().is_some());
    }
    assert_eq!(
        ed.world().to_bytes(),
        edited.to_bytes(),
        "redo reproduces the edited world"
    );
    assert!(
        *ed.world() == edited,
        "redo reproduces palettes and records"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_sequences_undo_exactly(seed in any::<u64>(), ops in proptest::collection::vec(op(30), 1..24)) {
        check_sequence(random_world(3, seed, 8), &ops);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Worlds written by the original library (palettes with unused entries, a full 256-entry
    /// palette, records of every kind) come back byte for byte.
    #[test]
    fn golden_worlds_undo_to_identical_bytes(
        which in 0usize..4,
        ops in proptest::collection::vec(op(100), 1..12),
    ) {
        let Some(dir) = golden_dir() else { return Ok(()); };
        let name = ["random/random-1.vwr", "random/random-6.vwr", "edge/edge-palette-256.vwr", "edge/edge-bits-1-to-8.vwr"][which];
        let bytes = std::fs::read(dir.join("vwr").join(name)).unwrap();
        let world = World::from_bytes(&bytes).unwrap();
        prop_assert_eq!(world.to_bytes(), bytes.clone());
        check_sequence(world, &ops);
    }
}

#[test]
fn undo_restores_a_grown_palette() {
    let mut w = World::with_chunks_per_axis(2).unwrap();
    w.fill_box([0, 0, 0], [9, 0, 9], b(35)).unwrap();
    let before = w.to_bytes();
    let mut ed = Editor::new(w);
    // New values grow the palette [air, 35] to 3 entries (bits 1 -> 2), then 4.
    ed.place([3, 0, 3], b(261)).unwrap();
    ed.place([4, 0, 3], b(262)).unwrap();
    // Setting the cells back by hand would leave the palette grown; undo must not.
    ed.undo().unwrap();
    ed.undo().unwrap();
    assert_eq!(ed.world().to_bytes(), before);
    assert_eq!(
        ed.world().chunk([0, 0, 0]).unwrap().palette(),
        &[Block::AIR, b(35)]
    );
}

#[test]
fn undo_restores_a_full_palette_after_compaction() {
    // Chunk (1, 0, 0): 255 distinct non-air values + air, a full palette, every entry used.
    let mut w = World::with_chunks_per_axis(2).unwrap();
    for i in 0..255 {
        let [x, y, z] = vwr::local_position(i).map(|v| v as i32);
        w.set_block([10 + x, y, z], b(1 + i as u16)).unwrap();
    }
    assert_eq!(w.chunk([1, 0, 0]).unwrap().palette().len(), 256);
    let before = w.to_bytes();
    let mut ed = Editor::new(w);
    // A 257th value on the only cell holding type 1 compacts the palette first.
    ed.place([10, 0, 0], b(999)).unwrap();
    assert_eq!(ed.world().get_block([10, 0, 0]), b(999));
    // A new value on an air cell has no unused entry to drop: refused, nothing changes.
    let mid = ed.world().to_bytes();
    let e = ed.place([10, 6, 2], b(1000)).unwrap_err();
    assert!(
        matches!(e, EditError::World(vwr::VwrError::PaletteFull { .. })),
        "{e}"
    );
    assert_eq!(ed.world().to_bytes(), mid);
    // A box fill that succeeds in chunk (0,0,0), then fails in chunk (1,0,0), is rolled back.
    let e = ed.fill_box([5, 6, 2], [14, 6, 2], b(1000)).unwrap_err();
    assert!(
        matches!(
            e,
            EditError::World(vwr::VwrError::PaletteFull {
                pos: Some([1, 0, 0])
            })
        ),
        "{e}"
    );
    assert_eq!(ed.world().to_bytes(), mid);
    assert_eq!(ed.history().undo_depth(), 1);
    ed.undo().unwrap();
    assert_eq!(ed.world().to_bytes(), before);
}

#[test]
fn undo_is_exact_on_a_palette_with_duplicate_entries() {
    // A file may repeat a palette value (the reader accepts it; lookups use the first).
    let w = common::one_chunk_with(&[([0, 0, 0], 35), ([1, 0, 0], 261), ([2, 0, 0], 261)]);
    let mut bytes = w.to_bytes();
    // World header 40 + one table entry 20, chunk header 24: palette [air, 35, 261] at 84.
    let pal = 84;
    assert_eq!(
        u16::from_le_bytes([bytes[pal + 4], bytes[pal + 5]]),
        b(261).raw()
    );
    bytes[pal + 4..pal + 6].copy_from_slice(&b(35).raw().to_le_bytes());
    let w = World::from_bytes(&bytes).unwrap();
    assert_eq!(w.get_block([1, 0, 0]), b(35));
    assert_eq!(w.to_bytes(), bytes);
    let mut ed = Editor::new(w.clone());
    ed.place([1, 0, 0], Block::AIR).unwrap(); // cell pointing at the duplicate entry
    ed.place([1, 0, 0], b(35)).unwrap(); // now points at the first entry
    ed.replace(b(35), b(7), None).unwrap();
    ed.fill_box([0, 0, 0], [9, 9, 9], b(35)).unwrap();
    while ed.undo().is_some() {}
    assert_eq!(ed.world().to_bytes(), bytes);
    assert!(*ed.world() == w);
}

#[test]
fn new_edit_after_undo_drops_redo() {
    let mut ed = Editor::new(World::with_chunks_per_axis(2).unwrap());
    ed.place([1, 1, 1], b(1)).unwrap();
    ed.place([2, 2, 2], b(2)).unwrap();
    ed.undo().unwrap();
    assert_eq!(ed.history().redo_depth(), 1);
    // An edit that changes nothing keeps the redo branch.
    assert!(ed.place([1, 1, 1], b(1)).unwrap().is_empty());
    assert_eq!(ed.history().redo_depth(), 1);
    ed.place([3, 3, 3], b(3)).unwrap();
    assert_eq!(ed.history().redo_depth(), 0);
    assert!(ed.redo().is_none());
    assert_eq!(ed.world().get_block([2, 2, 2]), Block::AIR);
    assert_eq!(ed.world().get_block([3, 3, 3]), b(3));
}

#[test]
fn undo_and_redo_return_the_command_summary() {
    let mut ed = Editor::new(World::with_chunks_per_axis(2).unwrap());
    let c = ed.fill_box([0, 0, 0], [12, 0, 3], b(35)).unwrap();
    assert_eq!((c.cells, c.chunks), (13 * 4, 2));
    assert!(c.label.starts_with("box"));
    assert_eq!(ed.undo().unwrap(), c);
    assert_eq!(ed.redo().unwrap(), c);
    assert_eq!(ed.history().undo_changes().last(), Some(&c));
}

/// Commands `0..n`, each placing value `i + 1` on its own cell; returns the world bytes after
/// each command (index 0 = before any).
fn numbered_commands(ed: &mut Editor, n: usize) -> Vec<Vec<u8>> {
    let mut states = vec![ed.world().to_bytes()];
    for i in 0..n {
        let p = [(i % 20) as i32, (i / 20) as i32, (i % 7) as i32];
        ed.place(p, b(100 + i as u16)).unwrap();
        states.push(ed.world().to_bytes());
    }
    states
}

#[test]
fn depth_bound_drops_the_oldest_commands_only() {
    let mut ed = Editor::with_limits(
        World::with_chunks_per_axis(2).unwrap(),
        HistoryLimits {
            max_depth: 5,
            ..HistoryLimits::default()
        },
    );
    let states = numbered_commands(&mut ed, 8);
    assert_eq!(ed.history().undo_depth(), 5);
    assert_eq!(ed.history().dropped(), 3);
    for k in (3..8).rev() {
        ed.undo().unwrap();
        assert_eq!(
            ed.world().to_bytes(),
            states[k],
            "undo back to after command {k}"
        );
    }
    assert!(ed.undo().is_none(), "the three oldest commands are gone");
    assert_eq!(ed.world().to_bytes(), states[3]);
    for state in &states[4..=8] {
        ed.redo().unwrap();
        assert_eq!(&ed.world().to_bytes(), state);
    }
    // The default depth is the original's 200.
    let mut ed = Editor::new(World::with_chunks_per_axis(3).unwrap());
    numbered_commands(&mut ed, 210);
    assert_eq!(
        (ed.history().undo_depth(), ed.history().dropped()),
        (200, 10)
    );
    // Depth 0 disables undo.
    let mut ed = Editor::with_limits(
        World::new(),
        HistoryLimits {
            max_depth: 0,
            max_bytes: usize::MAX,
        },
    );
    ed.place([0, 0, 0], b(1)).unwrap();
    assert!(ed.undo().is_none());
}

#[test]
fn memory_bound_drops_the_oldest_commands_only() {
    let mut ed = Editor::new(random_world(3, 99, 8));
    numbered_commands(&mut ed, 1);
    let one = ed.history().memory_bytes();
    assert!(one > 0);
    // Room for about four such commands.
    let budget = one * 4 + one / 2;
    let mut ed = Editor::with_limits(
        random_world(3, 99, 8),
        HistoryLimits {
            max_depth: 200,
            max_bytes: budget,
        },
    );
    let states = numbered_commands(&mut ed, 12);
    let depth = ed.history().undo_depth();
    assert!(ed.history().memory_bytes() <= budget);
    assert!((2..12).contains(&depth), "depth {depth}");
    assert_eq!(ed.history().dropped() as usize, 12 - depth);
    for k in (12 - depth..12).rev() {
        ed.undo().unwrap();
        assert_eq!(ed.world().to_bytes(), states[k]);
    }
    assert!(ed.undo().is_none());
    // The newest command is kept even when it alone exceeds the budget.
    let mut ed = Editor::with_limits(
        World::new(),
        HistoryLimits {
            max_depth: 200,
            max_bytes: 1,
        },
    );
    ed.fill_box([0, 0, 0], [99, 99, 99], b(35)).unwrap();
    ed.fill_box([0, 0, 0], [99, 99, 99], b(36)).unwrap();
    assert_eq!(ed.history().undo_depth(), 1);
    ed.undo().unwrap();
    assert_eq!(ed.world().get_block([50, 50, 50]), b(35));
    // Tightening the limits later drops the oldest too.
    let mut ed = Editor::new(World::with_chunks_per_axis(2).unwrap());
    numbered_commands(&mut ed, 6);
    ed.set_limits(HistoryLimits {
        max_depth: 2,
        max_bytes: usize::MAX,
    });
    assert_eq!(ed.history().undo_depth(), 2);
}

#[test]
fn large_fills_keep_compact_records() {
    let mut ed = Editor::new(World::new());
    ed.fill_box([0, 0, 0], [99, 99, 99], b(35)).unwrap();
    let whole = ed.history().memory_bytes();
    assert!(
        whole < 64 * 1024,
        "whole-world fill of an empty world: {whole} bytes"
    );
    // Refilling a uniform world: 1000 uniform-chunk snapshots, well under 1 MB.
    ed.fill_box([0, 0, 0], [99, 99, 99], b(36)).unwrap();
    let two = ed.history().memory_bytes() - whole;
    assert!(two < 400 * 1024, "{two} bytes");
    // A few cells in a mixed chunk are stored as cells, not as a snapshot.
    let mut ed = Editor::new(random_world(3, 5, 8));
    let c = Clipboard::copy(ed.world(), [0, 0, 0], [0, 0, 0]).unwrap();
    let v = c.blocks[0];
    let target = if v == b(1) { b(2) } else { b(1) };
    ed.place([0, 0, 0], target).unwrap();
    assert!(
        ed.history().memory_bytes() < 400,
        "{}",
        ed.history().memory_bytes()
    );
}

#[test]
fn a_failing_tool_is_rolled_back_and_not_recorded() {
    let before = random_world(2, 3, 4);
    let mut ed = Editor::new(before.clone());
    ed.place([1, 1, 1], b(9)).unwrap();
    let mid = ed.world().to_bytes();
    // A flood that runs away after having filled thousands of cells.
    let e = ed.flood_fill(
        [5, 15, 5],
        b(77),
        FloodLimits {
            bounds: None,
            max_cells: 3000,
        },
    );
    assert!(e.is_err());
    assert_eq!(ed.world().to_bytes(), mid);
    assert_eq!(ed.history().undo_depth(), 1);
    ed.undo().unwrap();
    assert_eq!(ed.world().to_bytes(), before.to_bytes());
}

#[test]
fn untouched_and_rolled_back_chunks_keep_their_revision() {
    let mut w = World::with_chunks_per_axis(2).unwrap();
    w.fill_box([0, 0, 0], [19, 3, 19], b(35)).unwrap();
    let limits = HistoryLimits {
        max_depth: 1000,
        ..HistoryLimits::default()
    };
    let mut ed = Editor::with_limits(w, limits);
    let revisions = |ed: &Editor| -> Vec<_> {
        ed.world()
            .chunks()
            .map(|(p, c)| (p, c.revision()))
            .collect()
    };
    let start = revisions(&ed);
    // Rewriting what is there touches four chunks but changes none: nothing is recorded.
    let c = ed.fill_box([0, 0, 0], [19, 3, 19], b(35)).unwrap();
    assert!(c.is_empty(), "{c}");
    assert_eq!(ed.history().undo_depth(), 0);
    assert_eq!(revisions(&ed), start);
    // A fill that fails in its second chunk leaves the first one's content and revision.
    // Fill the palette of chunk (1, 0, 0): air, stone and 254 more values.
    for i in 0..254u16 {
        ed.place(
            [
                10 + (i % 10) as i32,
                4 + (i / 100) as i32,
                ((i / 10) % 10) as i32,
            ],
            b(100 + i),
        )
        .unwrap();
    }
    let mid = ed.world().to_bytes();
    let mid_revisions = revisions(&ed);
    assert!(ed.fill_box([5, 9, 0], [14, 9, 0], b(1000)).is_err());
    assert_eq!(ed.world().to_bytes(), mid);
    assert_eq!(revisions(&ed), mid_revisions);
    // Undo gives back the very chunk copies taken before the edits, revisions included.
    while ed.undo().is_some() {}
    assert_eq!(revisions(&ed), start);
}
