//! The README's edit script, step by step: build a world, apply the pool script through an
//! editor, undo everything, and check the saved bytes are identical to the original.
//!
//! Run with `cargo run -p vwr-edit --example pool`.

use std::process::ExitCode;

use vwr::World;
use vwr_edit::script::{apply_ops, demo_pool, parse_text, Effect, POOL_SCRIPT};
use vwr_edit::Editor;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    // An empty default world (100 × 100 × 100 cells).
    let world = World::new();
    let original = world.to_bytes();

    // Parse the whole script first: every malformed line would be reported here.
    let ops = parse_text("pool", POOL_SCRIPT).map_err(|errors| {
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    })?;

    let mut ed = Editor::new(world);
    for a in apply_ops(&mut ed, &ops, 1_000_000)? {
        match a.effect {
            Effect::Copied { size, records } => println!(
                "{}: copied {}x{}x{} cells, {records} metadata records",
                a.at, size[0], size[1], size[2]
            ),
            _ => println!("{}: {}", a.at, a.change),
        }
    }
    let edited = ed.world().to_bytes();
    println!(
        "{} commands on the history ({} bytes); the edited world saves to {} bytes",
        ed.history().undo_depth(),
        ed.history().memory_bytes(),
        edited.len()
    );

    while ed.undo().is_some() {}
    if ed.world().to_bytes() != original {
        return Err("undoing every command did not restore the original bytes".into());
    }
    println!("undo of all: byte-identical to the original");

    // The same in one call, as `voxcaf demo` runs it.
    let (pool, report) = demo_pool(World::new())?;
    if pool.to_bytes() != edited {
        return Err("demo_pool produced a different world".into());
    }
    print!("demo_pool:\n{report}");
    Ok(())
}
