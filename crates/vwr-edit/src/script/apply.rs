//! Applying parsed operations through an [`Editor`], reporting what each did.

use super::{Located, Location, Op, ScriptError, ScriptErrorKind};
use crate::{Change, Clipboard, Editor, FloodLimits};

/// What kind of thing applying an operation did; the numbers are in [`Applied::change`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Effect {
    /// An editing command ran (its change may be empty).
    Edited,
    /// `copy` filled the clipboard; the world is unchanged.
    Copied {
        /// Width, height, depth of the copied region.
        size: [u32; 3],
        /// Metadata records copied with it.
        records: usize,
    },
    /// `undo` undid the command described by the change.
    Undone,
    /// `redo` redid the command described by the change.
    Redone,
}

/// What applying one operation did.
#[derive(Clone, Debug)]
pub struct Applied {
    /// Where the operation came from.
    pub at: Location,
    /// What changed (for undo/redo: the command undone/redone; for copy: nothing, labelled
    /// `copy`).
    pub change: Change,
    /// What kind of thing happened.
    pub effect: Effect,
}

/// Applies operations in order, each as one undoable command of `ed`, and reports what each
/// did. `fill_limit` is the cell limit of `fill` operations that give none.
///
/// Stops at the first refused operation, naming it; the operations before it stay applied to
/// `ed`, so a caller that wants all-or-nothing discards the editor (or the world) on error —
/// which is why scripts are applied in memory before anything is saved.
pub fn apply_ops(
    ed: &mut Editor,
    ops: &[Located],
    fill_limit: u64,
) -> Result<Vec<Applied>, ScriptError> {
    let mut clip: Option<Clipboard> = None;
    let mut out = Vec::new();
    for l in ops {
        let fail = |kind: ScriptErrorKind| ScriptError::new(l.at.clone(), l.text.clone(), kind);
        let mut effect = Effect::Edited;
        let change = match &l.op {
            Op::Box(a, b, blk) => ed.fill_box(*a, *b, *blk),
            Op::Hollow(a, b, blk) => ed.hollow_box(*a, *b, *blk),
            Op::Walls(a, b, blk) => ed.walls(*a, *b, *blk),
            Op::Fill {
                seed,
                block,
                bounds,
                limit,
            } => ed.flood_fill(
                *seed,
                *block,
                FloodLimits {
                    bounds: *bounds,
                    max_cells: limit.unwrap_or(fill_limit),
                },
            ),
            Op::Brush(br, c, blk) => ed.brush(*br, *c, *blk),
            Op::Replace(a, b, r) => ed.replace(*a, *b, *r),
            Op::Place(p, blk) => ed.place(*p, *blk),
            Op::Erase(p) => ed.erase(*p),
            Op::Copy(a, b) => ed.copy(*a, *b).map(|c| {
                effect = Effect::Copied {
                    size: c.size,
                    records: c.records.len(),
                };
                clip = Some(c);
                Change {
                    label: "copy".into(),
                    ..Change::default()
                }
            }),
            Op::Cut(a, b) => ed.cut(*a, *b).map(|(c, change)| {
                clip = Some(c);
                change
            }),
            Op::Paste(p, o) => match &clip {
                Some(c) => ed.paste(c, *p, *o),
                None => return Err(fail(ScriptErrorKind::PasteWithoutCopy)),
            },
            Op::ObjectAdd(m) => ed.place_move_object(m).map(|(_, c)| c),
            Op::ObjectRemove(p) => ed.remove_move_object(*p),
            Op::ObjectMove(p, to) => ed.move_move_object(*p, *to).map(|(_, c)| c),
            Op::Decor(p, i) => ed.place_big_decor(*p, *i),
            Op::DecorRemove(p) => ed.remove_big_decor(*p),
            Op::Plate(p, on) => ed.set_plate_rotation(*p, *on),
            Op::Spawn(s) => ed.set_spawn(*s),
            Op::Sky(n) => ed.set_sky_region(*n),
            Op::Mission(n) => ed.set_mission_number(*n),
            Op::Undo => {
                effect = Effect::Undone;
                Ok(ed
                    .undo()
                    .ok_or_else(|| fail(ScriptErrorKind::NothingToUndo))?)
            }
            Op::Redo => {
                effect = Effect::Redone;
                Ok(ed
                    .redo()
                    .ok_or_else(|| fail(ScriptErrorKind::NothingToRedo))?)
            }
        }
        .map_err(|e| fail(e.into()))?;
        out.push(Applied {
            at: l.at.clone(),
            change,
            effect,
        });
    }
    Ok(out)
}
