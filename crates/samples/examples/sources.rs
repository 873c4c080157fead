//! Writes the generated sample source tree (the input of `voxcaf demo`'s asset build: a PNG
//! texture with its sidecar, a WAV sound, an OBJ mesh, two GLSL shaders) and a few more
//! generated files, and lists them with their sizes.
//!
//! `cargo run -p voxcaf-samples --example sources [DIR]` (default: a folder in the system's
//! temporary directory).

use voxcaf_samples::{animated_glb, two_cubes_glb, write_source_tree, AnimatedOptions};

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("voxcaf-samples-example"));
    let mut written: Vec<String> = write_source_tree(&dir)?
        .into_iter()
        .map(str::to_owned)
        .collect();
    for (rel, bytes) in [
        ("meshes/two_cubes.glb", two_cubes_glb()),
        (
            "animations/hero.glb",
            animated_glb(&AnimatedOptions::default()),
        ),
    ] {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
        written.push(rel.to_owned());
    }
    println!("{}:", dir.display());
    for rel in &written {
        let len = std::fs::metadata(dir.join(rel))?.len();
        println!("  {rel:<28} {len:>7} bytes");
    }
    Ok(())
}
