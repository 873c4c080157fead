//! `Editor::group`: several tool calls as one undoable command, rolled back exactly on failure.

use vwr::{Block, World};
use vwr_edit::Editor;

fn base() -> Editor {
    let mut ed = Editor::new(World::with_chunk_dims([4, 2, 4]).unwrap());
    ed.fill_box([0, 0, 0], [39, 0, 39], Block(35 << 4)).unwrap();
    ed
}

fn label(changes: &[&vwr_edit::Change]) -> String {
    format!("{} commands", changes.len())
}

#[test]
fn a_group_is_one_undo_step_and_undo_redo_stay_exact() {
    let mut ed = base();
    let before = ed.world().to_bytes();
    let depth = ed.history().undo_depth();
    let (_, change) = ed
        .group(label, |ed| -> vwr_edit::Result<()> {
            ed.place([1, 1, 1], Block(7 << 4))?;
            ed.fill_box([10, 1, 10], [25, 3, 12], Block(9 << 4))?;
            ed.erase([5, 0, 5])?;
            Ok(())
        })
        .unwrap();
    let change = change.unwrap();
    assert_eq!(change.label, "3 commands");
    assert_eq!(change.cells, 1 + 16 * 3 * 3 + 1);
    assert_eq!(ed.history().undo_depth(), depth + 1);
    let after = ed.world().to_bytes();
    ed.undo().unwrap();
    assert_eq!(ed.world().to_bytes(), before);
    ed.redo().unwrap();
    assert_eq!(ed.world().to_bytes(), after);
    ed.undo().unwrap();
    assert_eq!(ed.world().to_bytes(), before);
}

#[test]
fn a_failed_group_is_rolled_back_and_keeps_the_redo_branch() {
    let mut ed = base();
    ed.place([2, 1, 2], Block(3 << 4)).unwrap();
    ed.undo().unwrap(); // a redo branch to keep
    let before = ed.world().to_bytes();
    let r = ed.group(label, |ed| -> vwr_edit::Result<()> {
        ed.place([1, 1, 1], Block(7 << 4))?;
        ed.place([1, 2, 1], Block(8 << 4))?;
        ed.place([999, 1, 1], Block(8 << 4))?; // outside: fails
        Ok(())
    });
    assert!(r.is_err());
    assert_eq!(ed.world().to_bytes(), before);
    assert_eq!(ed.history().redo_depth(), 1);
    ed.redo().unwrap();
    assert_eq!(ed.world().get_block([2, 1, 2]), Block(3 << 4));
}
