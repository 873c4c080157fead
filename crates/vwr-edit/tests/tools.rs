//! Each tool on constructed worlds, checked cell by cell, including chunk borders and
//! clamping at the world edge.

mod common;

use common::{assert_cells, b, random_world};
use vwr::{Block, MoveObject, World, META_MOVE_OBJECT, META_PLATE_ROTATION};
use vwr_edit::{
    inverse_cell, transform_cell, Brush, BrushShape, Clipboard, EditError, Editor, FloodLimits,
    Mirror, PasteOptions, Rotation,
};

fn inside(p: [i32; 3], a: [i32; 3], c: [i32; 3]) -> bool {
    (0..3).all(|k| p[k] >= a[k].min(c[k]) && p[k] <= a[k].max(c[k]))
}

#[test]
fn place_and_erase_at_chunk_borders() {
    let before = random_world(3, 1, 5);
    let mut ed = Editor::new(before.clone());
    let cells = [
        [9, 9, 9],
        [10, 10, 10],
        [0, 0, 0],
        [29, 29, 29],
        [19, 20, 9],
    ];
    for p in cells {
        let c = ed.place(p, b(261)).unwrap();
        assert!(c.cells <= 1);
    }
    assert_cells(&before, ed.world(), |x, y, z| {
        cells.contains(&[x, y, z]).then(|| b(261))
    });
    let mid = ed.world().clone();
    ed.erase([10, 10, 10]).unwrap();
    assert_cells(&mid, ed.world(), |x, y, z| {
        ([x, y, z] == [10, 10, 10]).then_some(Block::AIR)
    });
}

#[test]
fn place_outside_the_world_fails_and_changes_nothing() {
    let before = random_world(3, 2, 5);
    let mut ed = Editor::new(before.clone());
    for p in [[30, 0, 0], [-1, 5, 5], [0, 0, i32::MAX], [i32::MIN, 0, 0]] {
        let e = ed.place(p, b(3)).unwrap_err();
        assert!(
            matches!(e, EditError::World(vwr::VwrError::OutOfBounds { .. })),
            "{e}"
        );
        assert!(ed.erase(p).is_err());
    }
    assert_eq!(ed.world().to_bytes(), before.to_bytes());
    assert_eq!(ed.history().undo_depth(), 0);
}

#[test]
fn box_fill_cell_by_cell_with_clamping() {
    let before = random_world(3, 3, 6);
    let boxes = [
        ([3, 4, 5], [17, 12, 21]),    // crosses chunk borders
        ([17, 12, 21], [3, 4, 5]),    // corners in the other order
        ([-5, -5, -5], [12, 3, 40]),  // clamped at both edges
        ([10, 10, 10], [19, 19, 19]), // exactly one chunk (fast path)
        ([0, 0, 0], [29, 29, 29]),    // the whole world
        ([9, 9, 9], [10, 10, 10]),    // eight chunks, one cell each
    ];
    for (a, c) in boxes {
        for block in [b(261), Block::AIR, b(1)] {
            let mut ed = Editor::new(before.clone());
            ed.fill_box(a, c, block).unwrap();
            assert_cells(&before, ed.world(), |x, y, z| {
                inside([x, y, z], a, c).then_some(block)
            });
        }
    }
    // Entirely outside: nothing changes, nothing is recorded.
    let mut ed = Editor::new(before.clone());
    let ch = ed.fill_box([30, 0, 0], [40, 5, 5], b(2)).unwrap();
    assert!(ch.is_empty());
    assert_eq!(ed.history().undo_depth(), 0);
    assert_eq!(ed.world().to_bytes(), before.to_bytes());
}

#[test]
fn box_fill_counts_changed_cells_and_clearing_frees_chunks() {
    let mut ed = Editor::new(World::new());
    let c = ed.fill_box([0, 0, 0], [99, 99, 99], b(35)).unwrap();
    assert_eq!(c.cells, 1_000_000);
    assert_eq!(c.chunks, 1000);
    let again = ed.fill_box([0, 0, 0], [99, 99, 99], b(35)).unwrap();
    assert!(
        again.is_empty(),
        "refilling with the same value changes nothing"
    );
    let c = ed.fill_box([99, 99, 99], [0, 0, 0], Block::AIR).unwrap();
    assert_eq!(c.cells, 1_000_000);
    assert_eq!(ed.world().to_bytes(), World::new().to_bytes());
    let c = ed.fill_box([5, 5, 5], [14, 5, 5], b(3)).unwrap();
    assert_eq!((c.cells, c.chunks), (10, 2));
}

#[test]
fn hollow_box_and_walls() {
    let before = random_world(3, 4, 4);
    let (a, c) = ([8, 2, 25], [21, 11, 12]);
    let lo = [8, 2, 12];
    let hi = [21, 11, 25];
    let on_face = |p: [i32; 3], axes: &[usize]| {
        inside(p, a, c) && axes.iter().any(|&k| p[k] == lo[k] || p[k] == hi[k])
    };
    let mut ed = Editor::new(before.clone());
    ed.hollow_box(a, c, b(9)).unwrap();
    assert_cells(&before, ed.world(), |x, y, z| {
        on_face([x, y, z], &[0, 1, 2]).then(|| b(9))
    });
    let mut ed = Editor::new(before.clone());
    ed.walls(a, c, b(9)).unwrap();
    assert_cells(&before, ed.world(), |x, y, z| {
        on_face([x, y, z], &[0, 2]).then(|| b(9))
    });
    // A box sticking out of the world: the faces outside are not drawn, the rest are.
    let (a, c) = ([20, -3, 20], [35, 5, 27]);
    let mut ed = Editor::new(before.clone());
    ed.hollow_box(a, c, b(9)).unwrap();
    assert_cells(&before, ed.world(), |x, y, z| {
        let p = [x, y, z];
        let f = inside(p, a, c) && (p[0] == 20 || p[2] == 20 || p[2] == 27 || p[1] == 5);
        f.then(|| b(9))
    });
}

#[test]
fn brushes_cell_by_cell_and_clamped() {
    let before = random_world(3, 5, 4);
    for (center, r) in [
        ([15, 15, 15], 4u32),
        ([10, 9, 10], 3),
        ([0, 0, 0], 5),
        ([-3, 2, 31], 6),
        ([5, 5, 5], 0),
    ] {
        let mut ed = Editor::new(before.clone());
        ed.brush(
            Brush {
                shape: BrushShape::Sphere,
                radius: r,
            },
            center,
            b(77),
        )
        .unwrap();
        let r = r as i64;
        assert_cells(&before, ed.world(), |x, y, z| {
            let d = [x - center[0], y - center[1], z - center[2]].map(|v| v as i64);
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r * r).then(|| b(77))
        });
        let mut ed = Editor::new(before.clone());
        ed.brush(
            Brush {
                shape: BrushShape::Cube,
                radius: r as u32,
            },
            center,
            b(77),
        )
        .unwrap();
        assert_cells(&before, ed.world(), |x, y, z| {
            let d = [x - center[0], y - center[1], z - center[2]].map(|v| v as i64);
            d.iter().all(|v| v.abs() <= r).then(|| b(77))
        });
    }
    // A huge radius covers the whole world without looping over the radius.
    let mut ed = Editor::new(before.clone());
    ed.brush(
        Brush {
            shape: BrushShape::Sphere,
            radius: u32::MAX,
        },
        [15, 15, 15],
        b(2),
    )
    .unwrap();
    assert_cells(&before, ed.world(), |_, _, _| Some(b(2)));
}

/// A closed room of brick in an air world: the interior is 8 x 5 x 6 cells.
fn room() -> World {
    let mut w = World::with_chunks_per_axis(3).unwrap();
    w.fill_box([5, 5, 5], [14, 11, 12], b(261)).unwrap();
    w.fill_box([6, 6, 6], [13, 10, 11], Block::AIR).unwrap();
    w
}

#[test]
fn flood_fill_fills_a_closed_region_across_chunks() {
    let before = room();
    let mut ed = Editor::new(before.clone());
    let c = ed
        .flood_fill([9, 8, 9], b(92), FloodLimits::default())
        .unwrap();
    assert_eq!(c.cells, 8 * 5 * 6);
    assert_cells(&before, ed.world(), |x, y, z| {
        inside([x, y, z], [6, 6, 6], [13, 10, 11]).then(|| b(92))
    });
    // Filling the walls replaces the connected brick only.
    let mid = ed.world().clone();
    let c = ed
        .flood_fill([5, 5, 5], b(3), FloodLimits::default())
        .unwrap();
    assert_cells(&mid, ed.world(), |x, y, z| {
        (mid.get_block([x, y, z]) == b(261)).then(|| b(3))
    });
    assert_eq!(c.cells, 10 * 7 * 8 - 8 * 5 * 6);
}

#[test]
fn flood_fill_is_six_connected() {
    // Two cells touching only along an edge, and one touching a face.
    let w = common::one_chunk_with(&[([1, 1, 1], 5), ([2, 2, 1], 5), ([1, 1, 2], 5)]);
    let mut ed = Editor::new(w.clone());
    let c = ed
        .flood_fill([1, 1, 1], b(6), FloodLimits::default())
        .unwrap();
    assert_eq!(c.cells, 2);
    assert_eq!(ed.world().get_block([2, 2, 1]), b(5));
    assert_eq!(ed.world().get_block([1, 1, 2]), b(6));
}

#[test]
fn flood_fill_respects_bounds_and_cell_limit() {
    let before = room();
    // Outside the room the air region is huge; bounded by a box it stays inside the box.
    let mut ed = Editor::new(before.clone());
    let bounds = ([0, 0, 0], [3, 29, 29]);
    let limits = FloodLimits {
        bounds: Some(bounds),
        max_cells: u64::MAX,
    };
    let c = ed.flood_fill([0, 0, 0], b(92), limits).unwrap();
    assert_eq!(c.cells, 4 * 30 * 30);
    assert_cells(&before, ed.world(), |x, y, z| {
        inside([x, y, z], bounds.0, bounds.1).then(|| b(92))
    });

    // A runaway fill stops with a clear error and changes nothing.
    let mut ed = Editor::new(before.clone());
    let limits = FloodLimits {
        bounds: None,
        max_cells: 1000,
    };
    let e = ed.flood_fill([0, 0, 0], b(92), limits).unwrap_err();
    assert!(
        matches!(
            e,
            EditError::FloodLimit {
                limit: 1000,
                seed: [0, 0, 0]
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("nothing was changed"));
    assert_eq!(ed.world().to_bytes(), before.to_bytes());
    assert_eq!(ed.history().undo_depth(), 0);

    // Exactly at the limit is fine; one below is refused.
    let inner = 8 * 5 * 6;
    let mut ed = Editor::new(before.clone());
    let lim = |m| FloodLimits {
        bounds: None,
        max_cells: m,
    };
    assert!(ed.flood_fill([9, 8, 9], b(92), lim(inner - 1)).is_err());
    assert_eq!(
        ed.flood_fill([9, 8, 9], b(92), lim(inner)).unwrap().cells,
        inner
    );

    // Seed outside the world, seed outside the bounds, and seed already holding the value.
    let mut ed = Editor::new(before.clone());
    assert!(matches!(
        ed.flood_fill([30, 0, 0], b(1), FloodLimits::default()),
        Err(EditError::OutsideWorld { .. })
    ));
    let lim = FloodLimits {
        bounds: Some(([20, 20, 20], [25, 25, 25])),
        max_cells: 10,
    };
    assert!(ed.flood_fill([0, 0, 0], b(1), lim).unwrap().is_empty());
    assert!(ed
        .flood_fill([5, 5, 5], b(261), FloodLimits::default())
        .unwrap()
        .is_empty());
    assert_eq!(ed.world().to_bytes(), before.to_bytes());
}

#[test]
fn replace_in_a_box_and_everywhere() {
    let before = random_world(3, 6, 4);
    let (a, c) = ([2, 0, 3], [24, 17, 11]);
    let mut ed = Editor::new(before.clone());
    ed.replace(b(2), b(99), Some((a, c))).unwrap();
    assert_cells(&before, ed.world(), |x, y, z| {
        (inside([x, y, z], a, c) && before.get_block([x, y, z]) == b(2)).then(|| b(99))
    });
    let mut ed = Editor::new(before.clone());
    ed.replace(b(35), b(1), None).unwrap();
    assert_cells(&before, ed.world(), |x, y, z| {
        (before.get_block([x, y, z]) == b(35)).then(|| b(1))
    });
    // Air, including never-allocated chunks.
    let mut w = World::with_chunks_per_axis(3).unwrap();
    w.set_block([3, 3, 3], b(8)).unwrap();
    let mut ed = Editor::new(w.clone());
    let ch = ed
        .replace(Block::AIR, b(4), Some(([0, 0, 0], [29, 12, 29])))
        .unwrap();
    assert_eq!(ch.cells, 30 * 13 * 30 - 1);
    assert_cells(&w, ed.world(), |x, y, z| {
        (y <= 12 && [x, y, z] != [3, 3, 3]).then(|| b(4))
    });
    // Replacing a value by itself, or one that is absent, changes nothing.
    let mut ed = Editor::new(before.clone());
    assert!(ed.replace(b(2), b(2), None).unwrap().is_empty());
    assert!(ed.replace(b(4000), b(2), None).unwrap().is_empty());
}

#[test]
fn transforms_are_inverse_and_rotate_as_documented() {
    let size = [4, 2, 7];
    for rotation in [Rotation::R0, Rotation::R90, Rotation::R180, Rotation::R270] {
        for mirror in [Mirror::None, Mirror::X, Mirror::Z] {
            let o = PasteOptions {
                rotation,
                mirror,
                ..Default::default()
            };
            let mut seen = std::collections::HashSet::new();
            for z in 0..7 {
                for y in 0..2 {
                    for x in 0..4 {
                        let q = transform_cell(size, [x, y, z], o);
                        assert_eq!(inverse_cell(size, q, o), [x, y, z]);
                        assert!(seen.insert(q));
                    }
                }
            }
        }
    }
    // R90 turns +X into +Z: the cell one step along X from the origin lands one step along Z
    // from the pasted row's start.
    let o = PasteOptions {
        rotation: Rotation::R90,
        ..Default::default()
    };
    assert_eq!(transform_cell([3, 1, 1], [0, 0, 0], o), [0, 0, 0]);
    assert_eq!(transform_cell([3, 1, 1], [1, 0, 0], o), [0, 0, 1]);
    assert_eq!(Rotation::from_degrees(-90), Some(Rotation::R270));
    assert_eq!(Rotation::from_degrees(45), None);
}

#[test]
fn copy_paste_every_orientation_cell_by_cell() {
    let before = random_world(3, 7, 6);
    let (a, c) = ([3, 1, 8], [13, 6, 12]); // 11 x 6 x 5, crosses borders
    let clip = Clipboard::copy(&before, a, c).unwrap();
    assert_eq!(clip.size, [11, 6, 5]);
    for z in 0..5 {
        for y in 0..6 {
            for x in 0..11 {
                assert_eq!(
                    clip.get([x, y, z]),
                    before.get_block([3 + x as i32, 1 + y as i32, 8 + z as i32])
                );
            }
        }
    }
    for rotation in [Rotation::R0, Rotation::R90, Rotation::R180, Rotation::R270] {
        for mirror in [Mirror::None, Mirror::X, Mirror::Z] {
            for skip_air in [false, true] {
                let o = PasteOptions {
                    rotation,
                    mirror,
                    skip_air,
                    with_metadata: true,
                };
                let origin = [12, 9, 14];
                let ps = clip.pasted_size(rotation);
                let mut ed = Editor::new(before.clone());
                ed.paste(&clip, origin, o).unwrap();
                assert_cells(&before, ed.world(), |x, y, z| {
                    let rel = [x - origin[0], y - origin[1], z - origin[2]];
                    if (0..3).any(|k| rel[k] < 0 || rel[k] >= ps[k] as i32) {
                        return None;
                    }
                    let v = clip.get(inverse_cell(clip.size, rel.map(|v| v as u32), o));
                    (!(skip_air && v.is_air())).then_some(v)
                });
            }
        }
    }
}

#[test]
fn paste_is_clamped_at_the_world_edge() {
    let before = random_world(3, 8, 6);
    let clip = Clipboard::copy(&before, [0, 0, 0], [9, 9, 9]).unwrap();
    let origin = [25, -4, 27];
    let mut ed = Editor::new(before.clone());
    ed.paste(&clip, origin, PasteOptions::default()).unwrap();
    assert_cells(&before, ed.world(), |x, y, z| {
        let rel = [x - origin[0], y - origin[1], z - origin[2]];
        (rel.iter().all(|&v| (0..10).contains(&v))).then(|| clip.get(rel.map(|v| v as u32)))
    });
    // Entirely outside: nothing happens.
    let mut ed = Editor::new(before.clone());
    assert!(ed
        .paste(&clip, [40, 0, 0], PasteOptions::default())
        .unwrap()
        .is_empty());
    // A copy of a box outside the world is refused.
    assert!(matches!(
        Clipboard::copy(&before, [30, 0, 0], [35, 3, 3]),
        Err(EditError::BoxOutsideWorld { .. })
    ));
}

#[test]
fn cut_clears_blocks_and_records_and_paste_moves_metadata() {
    let mut w = World::with_chunks_per_axis(3).unwrap();
    w.fill_box([2, 0, 2], [6, 3, 4], b(261)).unwrap();
    let mut lift = MoveObject::new(1, [3.0, 1.0, 2.5]);
    lift.pos_end = [5.0, 3.0, 2.5]; // travels +2 along X, +2 up
    w.place_move_object(&lift).unwrap();
    w.set_plate_rotation([4, 0, 4], true).unwrap();
    w.place_big_decor([6, 3, 4], 513).unwrap();
    w.set_extra_metadata([2, 2, 2], 42, &[9]).unwrap();
    w.place_big_decor([20, 0, 0], 5).unwrap(); // outside the region: untouched
    let mut ed = Editor::new(w.clone());
    let (clip, change) = ed.cut([2, 0, 2], [6, 3, 4]).unwrap();
    assert_eq!(clip.records.len(), 4);
    assert_eq!(change.records_removed, 4);
    assert_cells(&w, ed.world(), |x, y, z| {
        inside([x, y, z], [2, 0, 2], [6, 3, 4]).then_some(Block::AIR)
    });
    assert_eq!(ed.world().all_extra_metadata().count(), 1);

    // Paste rotated by 90 at (10, 0, 10): size 5x4x3 becomes 3x4x5.
    let o = PasteOptions {
        rotation: Rotation::R90,
        ..Default::default()
    };
    ed.paste(&clip, [10, 0, 10], o).unwrap();
    let cell_of = |src: [i32; 3]| {
        let rel = [src[0] - 2, src[1], src[2] - 2].map(|v| v as u32);
        let q = transform_cell(clip.size, rel, o);
        [10 + q[0] as i32, q[1] as i32, 10 + q[2] as i32]
    };
    // The lift: anchor (3,1,2) moves to its transformed cell, start keeps its in-cell offset
    // (0.5 along source Z becomes 1 - 0.5 along X), the travel (+2, +2, 0) becomes (0, +2, +2).
    let anchor = cell_of([3, 1, 2]);
    let m = ed
        .world()
        .move_object_at([anchor[0], anchor[1], anchor[2]])
        .unwrap()
        .unwrap();
    assert_eq!(m.pos_start, [anchor[0] as f32 + 0.5, 1.0, anchor[2] as f32]);
    assert_eq!(m.pos_end, [m.pos_start[0], 3.0, m.pos_start[2] + 2.0]);
    assert_eq!(m.anchor([30; 3]).unwrap(), anchor.map(|v| v as u32));
    // The plate rotation flips on a quarter turn; BigDecor and opaque records just move.
    let p = cell_of([4, 0, 4]);
    assert_eq!(ed.world().plate_rotation([p[0], p[1], p[2]]), Some(false));
    let d = cell_of([6, 3, 4]);
    assert_eq!(
        ed.world().big_decor_at([d[0], d[1], d[2]]).unwrap(),
        Some(513)
    );
    let q = cell_of([2, 2, 2]);
    assert_eq!(
        ed.world().extra_metadata([q[0], q[1], q[2]], 42),
        Some(&[9u8][..])
    );
    assert_eq!(ed.world().all_extra_metadata().count(), 5);
    // Pasting exactly over the records again replaces rather than duplicates them.
    ed.paste(&clip, [10, 0, 10], o).unwrap();
    assert_eq!(ed.world().all_extra_metadata().count(), 5);
    // Without metadata, only blocks are pasted.
    let o2 = PasteOptions {
        with_metadata: false,
        ..Default::default()
    };
    ed.paste(&clip, [20, 10, 20], o2).unwrap();
    assert_eq!(ed.world().all_extra_metadata().count(), 5);
    assert_eq!(ed.world().get_block([20, 10, 20]), b(261));
}

#[test]
fn metadata_tools() {
    let before = World::with_chunks_per_axis(3).unwrap();
    let mut ed = Editor::new(before.clone());
    let mut m = MoveObject::new(2, [4.25, 1.0, 9.5]);
    m.pos_end = [8.25, 1.0, 9.5];
    let (anchor, c) = ed.place_move_object(&m).unwrap();
    assert_eq!(anchor, [4, 1, 9]);
    assert_eq!(c.records_added, 1);
    // Moving crosses a chunk border; the end moves along.
    let (to, c) = ed.move_move_object([4, 1, 9], [12.25, 2.0, 9.5]).unwrap();
    assert_eq!(to, [12, 2, 9]);
    assert_eq!((c.records_added, c.records_removed, c.chunks), (1, 1, 2));
    let moved = ed.world().move_object_at([12, 2, 9]).unwrap().unwrap();
    assert_eq!(moved.pos_end, [16.25, 2.0, 9.5]);
    assert!(ed.world().move_object_at([4, 1, 9]).unwrap().is_none());
    assert!(matches!(
        ed.remove_move_object([4, 1, 9]),
        Err(EditError::NothingThere { .. })
    ));
    assert!(matches!(
        ed.move_move_object([4, 1, 9], [0.0; 3]),
        Err(EditError::NothingThere { .. })
    ));
    assert!(ed
        .move_move_object([12, 2, 9], [f32::NAN, 0.0, 0.0])
        .is_err());
    assert!(
        ed.world().move_object_at([12, 2, 9]).unwrap().is_some(),
        "a refused move keeps the object"
    );
    ed.remove_move_object([12, 2, 9]).unwrap();
    assert!(ed.world().move_objects().unwrap().is_empty());

    ed.place_big_decor([29, 29, 29], 66).unwrap();
    assert!(ed.place_big_decor([1, 1, 1], 0).is_err());
    assert_eq!(ed.world().big_decors().unwrap(), vec![([29, 29, 29], 66)]);
    ed.remove_big_decor([29, 29, 29]).unwrap();
    assert!(ed.remove_big_decor([29, 29, 29]).is_err());

    ed.set_plate_rotation([3, 0, 3], true).unwrap();
    ed.set_plate_rotation([3, 0, 3], false).unwrap();
    assert_eq!(ed.world().plate_rotation([3, 0, 3]), Some(false));
    ed.remove_plate_rotation([3, 0, 3]).unwrap();
    assert_eq!(
        ed.world().extra_metadata([3, 0, 3], META_PLATE_ROTATION),
        None
    );

    ed.set_metadata([5, 5, 5], 1000, &[1, 2]).unwrap();
    ed.remove_metadata([5, 5, 5], 1000).unwrap();
    assert!(ed.set_metadata([30, 5, 5], 1000, &[1]).is_err());

    ed.set_sky_region(7).unwrap();
    ed.set_mission_number(12).unwrap();
    ed.set_spawn(Some([29, 0, 29])).unwrap();
    assert!(ed.set_spawn(Some([30, 0, 0])).is_err());
    assert_eq!(ed.world().spawn(), Some([29, 0, 29]));
    let c = ed.set_spawn(None).unwrap();
    assert!(c.fields && c.chunks == 0);
    assert_eq!(
        (ed.world().sky_region(), ed.world().mission_number()),
        (7, 12)
    );
    assert_eq!(
        ed.world().extra_metadata([12, 2, 9], META_MOVE_OBJECT),
        None
    );
}

/// Every tool and exact undo on a non-cubic world (v3 sizes), with the result saved and read
/// back.
#[test]
fn tools_and_undo_work_on_a_non_cubic_world() {
    use vwr_edit::{Brush, BrushShape, FloodLimits, PasteOptions};
    let w = World::with_chunk_dims([5, 2, 3]).unwrap(); // 50 × 20 × 30 blocks
    let start = w.clone();
    let mut ed = Editor::new(w);
    let stone = Block::make(35, 0).unwrap();
    let brick = Block::make(261, 0).unwrap();
    ed.fill_box([0, 0, 0], [49, 0, 29], stone).unwrap();
    ed.place([49, 19, 29], brick).unwrap();
    assert!(
        ed.place([49, 20, 29], brick).is_err(),
        "y is only 20 blocks"
    );
    assert!(ed.place([10, 5, 30], brick).is_err(), "z is only 30 blocks");
    ed.brush(
        Brush {
            shape: BrushShape::Sphere,
            radius: 6,
        },
        [45, 10, 25],
        brick,
    )
    .unwrap();
    // The air above the floor, bounded by the world's 50 × 19 × 30 cells above y = 0.
    let air_above = ed.world().block_dims().map(|v| v as u64);
    let change = ed
        .flood_fill([0, 1, 0], brick, FloodLimits::default())
        .unwrap();
    assert!(change.cells > 0 && change.cells < air_above[0] * (air_above[1] - 1) * air_above[2]);
    assert_eq!(ed.world().get_block([0, 19, 0]), brick);
    let clip = ed.copy([40, 0, 20], [49, 19, 29]).unwrap();
    ed.paste(&clip, [0, 0, 0], PasteOptions::default()).unwrap();
    ed.set_spawn(Some([49, 19, 29])).unwrap();
    // The edited world saves (as v3) and reads back equal.
    let bytes = ed.world().to_bytes();
    assert_eq!(vwr::world_version(&bytes), Some(3));
    assert!(World::from_bytes(&bytes).unwrap() == *ed.world());
    while ed.undo().is_some() {}
    assert!(*ed.world() == start);
}
