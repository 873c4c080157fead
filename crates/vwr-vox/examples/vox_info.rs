//! Imports a `.vox` file and prints what landed in the world.
//!
//! `cargo run -p vwr-vox --example vox_info -- model.vox`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: vox_info FILE.vox");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path)?;
    let out = vwr_vox::import(&bytes, &vwr_vox::ImportOptions::default())?;
    println!(
        "{path}: {} model(s), {} voxels -> world of {:?} chunks, {} blocks",
        out.models,
        out.voxels,
        out.world.chunk_dims(),
        out.world.count_non_air()
    );
    for w in &out.warnings {
        println!("warning: {w}");
    }
    Ok(())
}
