//! Writes a small source tree (texture with a sidecar, sound, mesh, two shaders), builds it into
//! `.caf` files with a manifest, then builds again to show the content-hash skip.
//!
//! `cargo run -p caf-import --example build [WORK_DIR]` (default: a folder in the system's
//! temporary directory).

use caf_import::batch::{build, BuildOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let work = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("caf-import-example"));
    let (src, out) = (work.join("src"), work.join("build"));
    voxcaf_samples::write_source_tree(&src)?;
    let opts = BuildOptions::default();
    let first = build(&src, &out, &opts, &|_| {})?;
    for e in &first.manifest.assets {
        println!("{} -> {}: {}", e.source, e.output, e.summary);
    }
    for f in &first.manifest.failures {
        println!("FAILED {}: {}", f.source, f.error);
    }
    let again = build(&src, &out, &opts, &|_| {})?;
    println!(
        "{} assets in {}; the second build skipped {} (sources unchanged)",
        first.manifest.assets.len(),
        out.display(),
        again.skipped
    );
    Ok(())
}
