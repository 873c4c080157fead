//! `voxcaf demo`: the main job for a new user. Builds a Blupi-style showcase level with the
//! library, saves it, loads it back, verifies the round trip, then exercises the other layers
//! (assets, meshes, previews) and prints a short report (nothing with `-q`: the files are
//! still written and verified, and a failure is still an error).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use vwr::{stats::WorldStats, MoveObject, World};

use crate::global::say;
use crate::world_args::OutPath;

/// The demo's folder when none is named.
const DEFAULT_DIR: &str = "voxcaf-demo";

#[derive(Args)]
#[command(mut_arg("output", |a| a
    .required_unless_present(clap::builder::Resettable::<clap::Id>::Reset)
    .value_name("DIR")
    .help("Output folder (created if missing, with its parents; default voxcaf-demo), or \
           give it with -o")))]
#[command(mut_arg("out", |a| a.value_name("DIR")))]
pub struct DemoArgs {
    #[command(flatten)]
    pub dir: OutPath,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

pub fn run(a: DemoArgs) -> Result<u8> {
    let dir = match a.dir.as_os_str().is_empty() {
        true => PathBuf::from(DEFAULT_DIR),
        false => a.dir.to_path_buf(),
    };
    crate::output::no_dash(&dir, "the demo's output folder")?;
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    say!("voxcaf demo -> {}/", dir.display());
    // Each part runs whatever `-q` says; only its report is left out (`say!` does not
    // evaluate what it would not print).
    let world = world_section(&dir)?;
    let mesh = crate::world_mesh::demo_mesh(&world, &dir, "showcase")?;
    say!("{}", mesh.trim_end());
    let play = crate::world_play::demo_play(&world)?;
    say!("{play}\n");
    edit_section(&dir)?;
    say!();
    let assets = voxcaf_demo::assets::roundtrip(&dir)?;
    say!("{assets}\n");
    let build = crate::asset_import::demo_build(&dir.join("assets-src"), &dir.join("assets"))?;
    say!("{build}");
    Ok(0)
}

/// Runs the README's example edit script on an empty world with the undo history checked.
fn edit_section(dir: &Path) -> Result<()> {
    let (pool, report) = vwr_edit::script::demo_pool(World::new())?;
    let path = dir.join("pool.vwr");
    pool.save(&path)?;
    say!(
        "edit   {} (the README's edit script on an empty world)",
        path.display()
    );
    say!("{}", report.to_string().trim_end());
    let v3 = dir.join("pool-v3.vwr");
    let d = voxcaf_demo::world::session_round_trip(&pool, &v3)?;
    say!(
        "  {} ({} bytes, v3): one block edited through a world session ({} chunk loaded, {} bytes committed), then reverted; {} commits in its history (`voxcaf world history {}`)",
        v3.display(),
        d.file_bytes,
        d.chunks_loaded,
        d.commit_bytes,
        d.commits,
        v3.display()
    );
    Ok(())
}

fn world_section(dir: &Path) -> Result<World> {
    let t = Instant::now();
    let world = vwr::samples::showcase()?;
    let built = ms(t);
    let path = dir.join("showcase.vwr");
    let rt = vwr::samples::round_trip(&world, &path)?;
    let (saved, loaded) = (
        rt.save_time.as_secs_f64() * 1e3,
        rt.load_time.as_secs_f64() * 1e3,
    );
    let back = rt.reloaded;
    let s = WorldStats::of(&back);
    let objects = back.move_objects()?;
    say!("world  {}", path.display());
    say!("  built in {built:.2} ms, saved in {saved:.2} ms, loaded in {loaded:.2} ms; round trip verified (blocks, records, bytes)");
    say!(
        "  {} bytes, {} of {} chunks stored ({} uniform), {} non-air blocks",
        rt.bytes,
        s.non_empty_chunks,
        s.chunk_count,
        s.uniform_chunks,
        s.non_air_blocks
    );
    let bits: Vec<String> = s
        .bits_histogram
        .iter()
        .map(|(b, c)| format!("{b}:{c}"))
        .collect();
    say!("  bits per block (chunks) {}", bits.join(" "));
    let names: Vec<String> = objects
        .iter()
        .map(|(_, m)| {
            MoveObject::type_name(m.object_type)
                .unwrap_or("object")
                .to_string()
        })
        .collect();
    say!("  {} objects: {}", objects.len(), names.join(", "));
    let [x, y, z] = back.spawn().unwrap_or([0; 3]);
    say!(
        "  spawn ({x}, {y}, {z}), sky region {}, mission {}",
        back.sky_region(),
        back.mission_number()
    );
    say!(
        "  edit it in the browser: voxcaf world serve {}",
        path.display()
    );
    Ok(back)
}
