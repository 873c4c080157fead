//! The README's pool script, run with an exact-undo check (`voxcaf demo`, `examples/pool.rs`).

use std::fmt;
use std::time::{Duration, Instant};

use vwr::World;

use super::{apply_ops, parse_text, Applied, DemoError};
use crate::Editor;

/// The example script of the README: a walled pool with a lava fountain, copied rotated next
/// to it. Run by [`demo_pool`], the `voxcaf demo` and `examples/pool.rs`.
pub const POOL_SCRIPT: &str = "\
# a walled pool with a lava fountain, copied rotated next to it
box 0 0 0 99 0 99 rockpile
walls 10 1 10 20 4 20 brickwall
fill 15 1 15 water 11 1 11 19 3 19
brush sphere 15 8 15 2 lava
object add exit 15 5 15
decor 12 1 12 66
copy 10 0 10 20 10 20
paste 30 0 10 rot 90
spawn 12 1 25
sky 3
";

/// What [`demo_pool`] did. Displays as one indented line per operation and a summary line.
#[derive(Clone, Debug)]
pub struct DemoReport {
    /// Each operation of [`POOL_SCRIPT`] and what it did.
    pub applied: Vec<Applied>,
    /// Commands on the undo history after the script.
    pub commands: usize,
    /// Bytes the undo history holds.
    pub history_bytes: usize,
    /// Time taken to apply the script.
    pub elapsed: Duration,
}

impl fmt::Display for DemoReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for a in &self.applied {
            writeln!(f, "  {}", a.change)?;
        }
        writeln!(
            f,
            "  {} commands in {:.2} ms; history holds {} bytes; undo of all restores the \
             original bytes exactly, redo reproduces the edit",
            self.commands,
            self.elapsed.as_secs_f64() * 1e3,
            self.history_bytes
        )
    }
}

/// Runs [`POOL_SCRIPT`] on `world`, checks that undoing every command restores the original
/// bytes exactly and that redoing them reproduces the edit, and returns the edited world with
/// a report.
pub fn demo_pool(world: World) -> Result<(World, DemoReport), DemoError> {
    let ops = parse_text("demo", POOL_SCRIPT).map_err(DemoError::Parse)?;
    let original = world.to_bytes();
    let mut ed = Editor::new(world);
    let start = Instant::now();
    let applied = apply_ops(&mut ed, &ops, 1_000_000).map_err(DemoError::Apply)?;
    let elapsed = start.elapsed();
    let edited = ed.world().to_bytes();
    let commands = ed.history().undo_depth();
    let history_bytes = ed.history().memory_bytes();
    while ed.undo().is_some() {}
    if ed.world().to_bytes() != original {
        return Err(DemoError::UndoMismatch);
    }
    while ed.redo().is_some() {}
    if ed.world().to_bytes() != edited {
        return Err(DemoError::RedoMismatch);
    }
    let report = DemoReport {
        applied,
        commands,
        history_bytes,
        elapsed,
    };
    Ok((ed.into_world(), report))
}
