use vwr::World;

use super::*;
use crate::script::parse_text;

fn log_and_editor() -> (OpLog, Editor) {
    let w = World::with_chunk_dims([3, 2, 3]).expect("small world");
    let limits = HistoryLimits::default();
    (
        OpLog::new(1, limits),
        Editor::with_limits(w, editor_limits(limits)),
    )
}

fn edit(log: &mut OpLog, ed: &mut Editor, user: &str, text: &str) -> u64 {
    let ops = parse_text("t", text).expect("script");
    let (_, e) = log.edit(ed, user, text, &ops, 1_000_000, 0).expect("edit");
    e.expect("a change").seq
}

fn at(ed: &Editor, p: [i32; 3]) -> u16 {
    ed.world().get_block(p).raw() >> 4
}

#[test]
fn undo_reverts_only_the_cells_nobody_changed_since() {
    let (mut log, mut ed) = log_and_editor();
    edit(&mut log, &mut ed, "ana", "box 0 0 0 9 0 9 1");
    edit(&mut log, &mut ed, "ana", "box 0 1 0 4 1 4 35");
    // Bo paints over part of Ana's box.
    edit(&mut log, &mut ed, "bo", "place 1 1 1 2\nplace 8 1 8 3");
    let e = log
        .undo(&mut ed, "ana", 0)
        .expect("undo")
        .expect("something");
    assert_eq!(e.action, Action::Undo { of: 2 });
    assert_eq!(e.change.cells, 24, "25 cells of Ana's box minus Bo's one");
    assert_eq!(at(&ed, [1, 1, 1]), 2, "Bo's cell is left as it is");
    assert_eq!(at(&ed, [2, 1, 2]), 0, "Ana's other cells went back");
    assert_eq!(at(&ed, [8, 1, 8]), 3, "Bo's cell outside Ana's box stays");
    // Redo puts Ana's cells back where they still hold what the undo wrote.
    let r = log
        .redo(&mut ed, "ana", 0)
        .expect("redo")
        .expect("something");
    assert_eq!(r.action, Action::Redo { of: 4 });
    assert_eq!(at(&ed, [2, 1, 2]), 35);
    assert_eq!(at(&ed, [1, 1, 1]), 2);
    // Bo's undo is his own: it takes his two cells back and nothing of Ana's.
    log.undo(&mut ed, "bo", 0)
        .expect("undo")
        .expect("something");
    assert_eq!(
        at(&ed, [1, 1, 1]),
        35,
        "Bo's cell goes back to what he saw: Ana's block"
    );
    assert_eq!(at(&ed, [2, 1, 2]), 35);
    assert_eq!(
        log.depth("ana"),
        UserDepth {
            undo: 2,
            redo: 0,
            dropped: 0
        }
    );
    assert_eq!(
        log.depth("bo"),
        UserDepth {
            undo: 0,
            redo: 1,
            dropped: 0
        }
    );
}

#[test]
fn a_single_users_undo_and_redo_are_exact_to_the_byte() {
    let (mut log, mut ed) = log_and_editor();
    edit(
        &mut log,
        &mut ed,
        "ana",
        "box 0 0 0 29 3 29 1\nspawn 2 5 2\nsky 4",
    );
    let before = ed.world().to_bytes();
    edit(
        &mut log,
        &mut ed,
        "ana",
        "brush sphere 12 3 12 6 35\nobject add 1 5 5 5\nsky 9",
    );
    let after = ed.world().to_bytes();
    log.undo(&mut ed, "ana", 0)
        .expect("undo")
        .expect("something");
    assert_eq!(ed.world().to_bytes(), before);
    log.redo(&mut ed, "ana", 0)
        .expect("redo")
        .expect("something");
    assert_eq!(ed.world().to_bytes(), after);
}

#[test]
fn fields_and_records_follow_the_rule_each_on_its_own() {
    let (mut log, mut ed) = log_and_editor();
    edit(
        &mut log,
        &mut ed,
        "ana",
        "sky 3\nmission 7\nobject add 1 5 5 5",
    );
    edit(&mut log, &mut ed, "bo", "sky 8");
    log.undo(&mut ed, "ana", 0)
        .expect("undo")
        .expect("something");
    let f = ed.world().fields();
    assert_eq!(f.sky_region, 8, "Bo's sky stays");
    assert_eq!(f.mission_number, 0, "Ana's mission goes");
    assert!(
        ed.world().move_objects().expect("objects").is_empty(),
        "Ana's object goes"
    );
}

#[test]
fn undo_and_redo_lines_are_refused_in_a_shared_script() {
    let (mut log, mut ed) = log_and_editor();
    let ops = parse_text("t", "place 1 1 1 2\nundo").expect("script");
    let e = log
        .edit(&mut ed, "ana", "", &ops, 100, 0)
        .expect_err("refused");
    assert!(e.to_string().contains("t:2"), "{e}");
    assert_eq!(at(&ed, [1, 1, 1]), 0, "nothing applied");
}

#[test]
fn the_oldest_steps_are_dropped_past_the_depth() {
    let w = World::with_chunk_dims([1, 1, 1]).expect("world");
    let limits = HistoryLimits {
        max_depth: 2,
        max_bytes: 1 << 30,
    };
    let mut log = OpLog::new(1, limits);
    let mut ed = Editor::with_limits(w, editor_limits(limits));
    for i in 0..5 {
        edit(&mut log, &mut ed, "ana", &format!("place {i} 0 0 2"));
    }
    assert_eq!(
        log.depth("ana"),
        UserDepth {
            undo: 2,
            redo: 0,
            dropped: 3
        }
    );
    assert!(log.undo(&mut ed, "ana", 0).expect("undo").is_some());
    assert!(log.undo(&mut ed, "ana", 0).expect("undo").is_some());
    assert!(log.undo(&mut ed, "ana", 0).expect("undo").is_none());
    assert_eq!(at(&ed, [2, 0, 0]), 2, "the dropped steps stay done");
}

#[test]
fn the_timeline_turns_any_kept_state_into_any_other() {
    let (mut log, mut ed) = log_and_editor();
    let mut worlds = vec![ed.world().clone()];
    let scripts = [
        ("ana", "box 0 0 0 29 1 29 1"),
        ("bo", "brush sphere 10 3 10 4 35"),
        ("ana", "object add 1 5 5 5\nplace 20 2 20 3"),
        ("bo", "replace 35 2"),
    ];
    for (u, text) in scripts {
        edit(&mut log, &mut ed, u, text);
        worlds.push(ed.world().clone());
    }
    log.undo(&mut ed, "ana", 0).expect("undo").expect("a step");
    worlds.push(ed.world().clone());
    log.redo(&mut ed, "ana", 0).expect("redo").expect("a step");
    worlds.push(ed.world().clone());
    assert_eq!(log.timeline_start(), 0);
    for n in 0..worlds.len() as u64 {
        for m in 0..worlds.len() as u64 {
            let mut w = worlds[m as usize].clone();
            for (pos, c) in log.states_between(n, m).expect("kept") {
                w.take_chunk(pos);
                if let Some(c) = c {
                    w.set_chunk(pos, c).expect("inside");
                }
            }
            let want = &worlds[n as usize];
            for (pos, c) in want.chunks() {
                assert!(
                    w.chunk(pos) == Some(c),
                    "state after {n} from {m}: chunk {pos:?}"
                );
            }
            for (pos, c) in w.chunks() {
                assert!(
                    want.chunk(pos) == Some(c),
                    "state after {n} from {m}: extra {pos:?}"
                );
            }
        }
    }
}

#[test]
fn a_retracted_step_leaves_the_log_and_the_stacks_as_before_it() {
    let (mut log, mut ed) = log_and_editor();
    edit(&mut log, &mut ed, "ana", "place 1 1 1 2");
    let before = (log.next_seq(), log.depth("ana"));
    // An undo whose commit lost a race: the world is put back by the caller, the log here.
    log.undo(&mut ed, "ana", 0).expect("undo").expect("a step");
    ed.undo();
    log.retract_last("ana");
    assert_eq!((log.next_seq(), log.depth("ana")), before);
    assert_eq!(at(&ed, [1, 1, 1]), 2);
    // The step can be undone again, and an edit retracted likewise.
    assert!(log.undo(&mut ed, "ana", 0).expect("undo").is_some());
    edit(&mut log, &mut ed, "bo", "place 2 2 2 3");
    ed.undo();
    log.retract_last("bo");
    assert_eq!(log.depth("bo"), UserDepth::default());
    assert_eq!(log.entries().len(), 2);
    // Another user's newest step is not theirs to retract.
    log.retract_last("bo");
    assert_eq!(log.entries().len(), 2);
}
