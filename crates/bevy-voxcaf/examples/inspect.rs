//! Loads a `.vwr` world through the plugin, headless (no window, no GPU), and prints one JSON
//! line: `{"chunks": N, "quads": N, "objects": N, ...}`, the chunk and quad counts that
//! `voxcaf world mesh --greedy --ao --json` gives for the same file.
//!
//! ```text
//! cargo run --release -p bevy_voxcaf --example inspect -- level.vwr
//! ```

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use bevy::asset::Assets;
use bevy_voxcaf::{headless_app, load_now, VoxWorld};

fn main() -> ExitCode {
    let Some(file) = std::env::args_os().nth(1) else {
        eprintln!("usage: inspect FILE.vwr");
        return ExitCode::from(2);
    };
    let file = Path::new(&file);
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        eprintln!("{}: not a file name", file.display());
        return ExitCode::from(2);
    };
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut app = headless_app(&dir);
    let name = name.to_string_lossy();
    let handle = match load_now::<VoxWorld>(&mut app, &name, Duration::from_secs(600)) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let worlds = app.world().resource::<Assets<VoxWorld>>();
    let Some(w) = worlds.get(&handle) else {
        eprintln!("error: {}: loaded but gone", file.display());
        return ExitCode::from(1);
    };
    let special: usize = w.chunks.iter().map(|c| c.special_cells).sum();
    let line = serde_json::json!({
        "file": file.display().to_string(),
        "chunks": w.chunks.len(),
        "quads": w.quad_count(),
        "special_cells": special,
        "objects": w.objects.len(),
        "spawn": w.spawn,
        "sky_region": w.sky_region,
    });
    println!("{line}");
    ExitCode::SUCCESS
}
