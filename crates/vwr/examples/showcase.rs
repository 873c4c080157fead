//! Builds the showcase level, saves it atomically, loads it back and checks the round trip,
//! then prints what the file holds.
//!
//! `cargo run -p vwr --example showcase [OUT.vwr]` (default: `showcase.vwr` in the system's
//! temporary folder).

use vwr::{stats::WorldStats, MoveObject};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("showcase.vwr"));
    let world = vwr::samples::showcase()?;
    let rt = vwr::samples::round_trip(&world, &path)?;
    let s = WorldStats::of(&rt.reloaded);
    println!(
        "{}: {} bytes, {} of {} chunks stored, {} non-air blocks; round trip verified",
        path.display(),
        rt.bytes,
        s.non_empty_chunks,
        s.chunk_count,
        s.non_air_blocks
    );
    for (cell, m) in rt.reloaded.move_objects()? {
        let name = MoveObject::type_name(m.object_type).unwrap_or("object");
        println!("  {name:<16} at {cell:?}");
    }
    Ok(())
}
