//! The edit-script language: parsing every form, error locations and messages, and the pool
//! demo with its exact-undo check.

use vwr::{Block, World};
use vwr_edit::script::{
    apply_ops, argument_lines, demo_pool, parse_block, parse_op, parse_script, parse_text, Effect,
    Location, Op, ScriptErrorKind,
};
use vwr_edit::{Editor, Mirror, PasteOptions, Rotation};

#[test]
fn demo_hook_runs_and_verifies_undo() {
    let (w, report) = demo_pool(World::new()).unwrap();
    assert_eq!(w.get_block([15, 2, 15]).block_type(), 92);
    assert_eq!(
        w.move_objects().unwrap().len(),
        2,
        "the exit was copied too"
    );
    let report = report.to_string();
    assert!(report.contains("undo of all restores"), "{report}");
}

#[test]
fn blocks_parse_in_every_form() {
    let b = |t, m| Block::make(t, m).unwrap();
    assert_eq!(parse_block("35").unwrap(), b(35, 0));
    assert_eq!(parse_block("35:2").unwrap(), b(35, 2));
    assert_eq!(parse_block("0x0230").unwrap(), Block::from_raw(0x230));
    assert_eq!(parse_block("raw:560").unwrap(), b(35, 0));
    assert_eq!(parse_block("raw:0xffff").unwrap(), Block::from_raw(0xffff));
    assert_eq!(parse_block("RockPile").unwrap(), b(35, 0));
    assert_eq!(parse_block("brick_wall:3").unwrap(), b(261, 3));
    assert_eq!(parse_block("water").unwrap(), b(92, 0));
    assert_eq!(parse_block("tile999").unwrap(), b(999, 0));
    assert_eq!(parse_block("Gold-Pillar:1").unwrap(), b(183, 1));
    assert_eq!(parse_block("grate").unwrap(), b(200, 0));
    assert_eq!(parse_block("lava").unwrap(), b(68, 0));
    assert_eq!(parse_block("air").unwrap(), Block::AIR);
    for bad in ["4096", "35:16", "raw:65536", "0xZZ", "nosuch", "35:x", ""] {
        assert!(parse_block(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn operations_parse() {
    assert_eq!(
        parse_op("box 0 0 0 99 0 99 rockpile").unwrap(),
        Op::Box([0, 0, 0], [99, 0, 99], Block::make(35, 0).unwrap())
    );
    assert!(matches!(
        parse_op("fill 1 2 3 water 0 0 0 9 9 9 limit 50").unwrap(),
        Op::Fill {
            bounds: Some(_),
            limit: Some(50),
            ..
        }
    ));
    assert!(matches!(
        parse_op("paste 1 2 3 rot 270 mirror z noair").unwrap(),
        Op::Paste(
            _,
            PasteOptions {
                rotation: Rotation::R270,
                mirror: Mirror::Z,
                skip_air: true,
                ..
            }
        )
    ));
    match parse_op("object add exit 52 1 50.5 end=52,4,50.5 speed=2 icon=0x10").unwrap() {
        Op::ObjectAdd(m) => {
            assert_eq!(m.object_type, 7);
            assert_eq!(m.pos_start, [52.0, 1.0, 50.5]);
            assert_eq!(m.pos_end, [52.0, 4.0, 50.5]);
            assert_eq!((m.speed, m.visual_icon), (2.0, 16));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(parse_op("spawn none").unwrap(), Op::Spawn(None));
    assert_eq!(parse_op("UNDO").unwrap(), Op::Undo);
    for bad in [
        "box 0 0 0 99 0 rockpile",
        "box 0 0 0 99 0 99",
        "box a 0 0 99 0 99 35",
        "brush star 1 1 1 2 35",
        "brush sphere 1 1 1 -2 35",
        "paste 1 2 3 rot 45",
        "paste 1 2 3 mirror y",
        "object add 1 nan 0 0",
        "object add dragon 1 1 1",
        "object add 1 1 1 1 end=1,2",
        "decor 1 1 1 0",
        "plate 1 1 1 sideways",
        "sky -1",
        "undo 3",
        "teleport 1 2 3",
    ] {
        assert!(parse_op(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn script_errors_name_every_bad_line_and_orphan_pastes() {
    let lines = [
        "# a comment",
        "box 0 0 0 9 9 9 35  # trailing comment",
        "paste 1 1 1",
        "box 1",
        "",
        "copy 0 0 0 1 1 1",
        "paste 5 5 5",
    ]
    .join("\n");
    let errors = parse_text("s", &lines).unwrap_err();
    assert_eq!(errors.len(), 2);
    let (e0, e1) = (errors[0].to_string(), errors[1].to_string());
    assert!(
        e0.starts_with("s:3:") && e0.contains("paste without"),
        "{e0}"
    );
    assert!(e1.starts_with("s:4:"), "{e1}");
    // The typed form says the same.
    assert_eq!((errors[0].line(), errors[1].line()), (Some(3), Some(4)));
    assert!(matches!(
        errors[0].kind(),
        ScriptErrorKind::PasteWithoutCopy
    ));
    assert!(matches!(
        errors[1].kind(),
        ScriptErrorKind::ArgumentCount {
            expected: 7,
            got: 1,
            ..
        }
    ));
}

/// The messages users see, word for word (the command line prints them as they are).
#[test]
fn messages_are_exact() {
    let msg = |line: &str| parse_op(line).unwrap_err().to_string();
    assert_eq!(
        msg("box 0 0 0 99 0 rockpile"),
        "expected `box x0 y0 z0 x1 y1 z1 BLOCK` (7 values after the keyword, got 6)"
    );
    assert_eq!(
        msg("box a 0 0 99 0 99 35"),
        "expected an integer coordinate, got \"a\""
    );
    assert_eq!(
        msg("place 1 1 1 nosuchblock"),
        "unknown block \"nosuchblock\" (use type[:meta] like 35 or 35:2, a raw value like \
         0x0230 or raw:560, or a name like rockpile)"
    );
    assert_eq!(
        msg("place 1 1 1 35:x"),
        "bad metadata \"x\" in block \"35:x\" (0..=15)"
    );
    assert!(msg("place 1 1 1 35:16").starts_with("block \"35:16\": "));
    assert_eq!(
        msg("brush Star 1 1 1 2 35"),
        "unknown brush shape \"star\" (sphere or cube)"
    );
    assert_eq!(
        msg("brush sphere 1 1 1 -2 35"),
        "bad radius \"-2\" (a whole number >= 0)"
    );
    assert_eq!(
        msg("paste 1 2 3 rot"),
        "`rot` needs 90, 180 or 270 (paste x y z [rot 90|180|270] [mirror x|z] [noair] [nometa])"
    );
    assert_eq!(
        msg("paste 1 2 3 rot 45"),
        "bad rotation \"45\" (0, 90, 180 or 270)"
    );
    assert_eq!(
        msg("paste 1 2 3 mirror Y"),
        "bad mirror axis \"Y\" (x or z)"
    );
    assert_eq!(
        msg("fill 1 2 3"),
        "expected `fill x y z BLOCK [x0 y0 z0 x1 y1 z1] [limit N]`"
    );
    assert_eq!(
        msg("fill 1 2 3 35 limit x"),
        "bad limit \"x\" (a cell count)"
    );
    assert_eq!(
        msg("object add 1 nan 0 0"),
        "expected a finite number, got \"nan\""
    );
    assert!(msg("object add dragon 1 1 1")
        .starts_with("unknown object type \"dragon\" (a number 0-255 or one of: none, lift,"));
    assert_eq!(
        msg("object add 1 1 1 1 end=1,2"),
        "end needs X,Y,Z, got \"1,2\""
    );
    assert_eq!(
        msg("object spin"),
        "expected `object add ...`, `object remove x y z` or `object move x y z NX NY NZ`"
    );
    assert_eq!(msg("decor 1 1 1 0"), "bad icon \"0\" (1..=65535)");
    assert_eq!(
        msg("plate 1 1 1 Sideways"),
        "bad plate rotation \"sideways\" (on or off)"
    );
    assert_eq!(msg("sky -1"), "bad sky value \"-1\" (a sky region 0-31)");
    assert_eq!(
        msg("undo 3"),
        "expected `undo` (0 values after the keyword, got 1)"
    );
    assert!(msg("Teleport 1 2 3").starts_with("unknown operation \"teleport\" (box, hollow,"));
}

#[test]
fn apply_reports_each_operation_and_names_the_refused_one() {
    let ops = parse_script(argument_lines(&[
        "box 0 0 0 9 0 9 35; copy 0 0 0 1 0 1",
        "undo",
        "redo",
    ]))
    .unwrap();
    let mut ed = Editor::new(World::new());
    let applied = apply_ops(&mut ed, &ops, 1_000_000).unwrap();
    assert_eq!(applied[0].at.to_string(), "argument 1.1");
    assert_eq!(applied[0].change.cells, 100);
    assert_eq!(applied[0].effect, Effect::Edited);
    assert_eq!(
        applied[1].effect,
        Effect::Copied {
            size: [2, 1, 2],
            records: 0
        }
    );
    assert_eq!(applied[1].change.label, "copy");
    assert_eq!(applied[2].at.to_string(), "argument 2");
    assert_eq!(applied[2].effect, Effect::Undone);
    assert_eq!(applied[2].change.cells, 100);
    assert_eq!(applied[3].effect, Effect::Redone);

    let ops = parse_text("t.txt", "place 1 1 1 35\n\nplace 100 0 0 35\n").unwrap();
    let mut ed = Editor::new(World::new());
    let e = apply_ops(&mut ed, &ops, 1_000_000).unwrap_err();
    assert_eq!(
        e.at,
        Location::Line {
            source_name: "t.txt".into(),
            line: 3
        }
    );
    assert!(matches!(e.kind(), ScriptErrorKind::Edit(_)));
    let text = e.to_string();
    assert!(
        text.starts_with("t.txt:3: `place 100 0 0 35`: ") && text.contains("outside the world"),
        "{text}"
    );
    let ops = parse_text("u", "undo").unwrap();
    let e = apply_ops(&mut Editor::new(World::new()), &ops, 1).unwrap_err();
    assert_eq!(e.to_string(), "u:1: `undo`: nothing to undo");
}

#[test]
fn sky_above_31_is_refused_like_world_new_refuses_it() {
    assert_eq!(parse_op("sky 31").unwrap(), Op::Sky(31));
    let e = parse_text("t", "sky 40").unwrap_err();
    assert_eq!(
        e[0].to_string(),
        "t:1: `sky 40`: bad sky value \"40\" (a sky region 0-31)"
    );
}

#[test]
fn a_utf8_byte_order_mark_is_not_an_operation() {
    let ops = parse_text("bom.txt", "\u{feff}place 1 1 1 35\nsky 3\n").unwrap();
    assert_eq!(ops.len(), 2);
    assert_eq!(ops[0].op, Op::Place([1, 1, 1], Block::make(35, 0).unwrap()));
}

#[test]
fn a_misspelt_block_name_gets_a_did_you_mean() {
    let e = parse_block("rockpil").unwrap_err().to_string();
    assert!(e.contains("did you mean RockPile?"), "{e}");
    let e = parse_block("brickwal:2").unwrap_err().to_string();
    assert!(e.contains("did you mean BrickWall?"), "{e}");
    // Nothing near: no guess.
    let e = parse_block("qqqqqqqq").unwrap_err().to_string();
    assert!(!e.contains("did you mean"), "{e}");
    // The whole operation's message carries it too.
    let e = parse_op("box 0 0 0 1 1 1 rockpil").unwrap_err().to_string();
    assert!(e.contains("did you mean RockPile?"), "{e}");
}
