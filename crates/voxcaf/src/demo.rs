//! `voxcaf demo`: the main job for a new user. Builds a Blupi-style showcase level with the
//! library, saves it, loads it back, verifies the round trip, then exercises the other layers
//! (assets, meshes, previews) and prints a short report.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{ensure, Context, Result};
use clap::Args;
use vwr::{stats::WorldStats, Block, MoveObject, World};

#[derive(Args)]
pub struct DemoArgs {
    /// Output folder (created if missing).
    #[arg(default_value = "voxcaf-demo")]
    pub dir: PathBuf,
}

/// Block types of Galaxy Eggbert used by the showcase.
pub mod blocks {
    /// RockPile: the common ground block.
    pub const ROCK: u16 = 35;
    /// BrickWall.
    pub const BRICK: u16 = 261;
    /// Water.
    pub const WATER: u16 = 92;
    /// Lava.
    pub const LAVA: u16 = 68;
    /// Grate.
    pub const GRATE: u16 = 200;
    /// Saw (a plate with a rotation record).
    pub const SAW: u16 = 378;
}

fn b(t: u16) -> Block {
    Block::make(t, 0).expect("constant block types are in range")
}

/// The showcase level: floor, stairs, a raised walled platform, a terraced hill, a tunnel with
/// water, lava, lifts, enemies, eggs, treasure and an exit, a spawn point and a sky region.
pub fn build_showcase() -> Result<World> {
    use blocks::*;
    let mut w = World::new();
    w.set_sky_region(3);
    w.set_mission_number(1);
    // Ground: a 80 × 80 floor of RockPile with a lava pool.
    w.fill_box([10, 0, 10], [89, 0, 89], b(ROCK))?;
    w.fill_box([44, 0, 60], [52, 0, 66], b(LAVA))?;
    // Stairs: eight steps of two cells up to the platform at y = 8.
    for k in 0..8 {
        w.fill_box([20 + 2 * k, 1, 20], [21 + 2 * k, 1 + k, 24], b(ROCK))?;
    }
    // Raised platform with brick walls (a door where the stairs arrive) and a grate window.
    w.fill_box([36, 1, 14], [56, 8, 30], b(ROCK))?;
    for (a, c) in [
        ([36, 9, 14], [56, 11, 14]),
        ([36, 9, 30], [56, 11, 30]),
        ([56, 9, 14], [56, 11, 30]),
    ] {
        w.fill_box(a, c, b(BRICK))?;
    }
    w.fill_box([36, 9, 14], [36, 11, 18], b(BRICK))?;
    w.fill_box([36, 9, 25], [36, 11, 30], b(BRICK))?;
    w.fill_box([44, 10, 30], [48, 10, 30], b(GRATE))?;
    // A saw plate on the platform, rotated.
    w.set_block(50, 9, 22, b(SAW))?;
    w.set_plate_rotation(50, 9, 22, true)?;
    w.place_big_decor(40, 9, 27, 66)?;
    // Terraced hill: six layers shrinking by two cells each.
    for h in 0..6 {
        let r = 14 - 2 * h;
        w.fill_box([70 - r, 1 + h, 68 - r], [70 + r, 1 + h, 68 + r], b(ROCK))?;
    }
    // Tunnel through a brick mass, with a water channel in its floor.
    w.fill_box([14, 1, 44], [32, 7, 80], b(BRICK))?;
    w.fill_box([19, 1, 44], [27, 5, 80], Block::AIR)?;
    w.fill_box([21, 0, 44], [25, 0, 80], b(WATER))?;
    // Objects: lifts, patrolling enemies, eggs, treasure, the exit.
    let mut lift = MoveObject::new(1, [34.0, 1.0, 22.0]);
    lift.pos_end = [34.0, 8.0, 22.0];
    w.place_move_object(&lift)?;
    for (t, start, end) in [
        (2u8, [15.0, 1.0, 40.0], [15.0, 1.0, 85.0]),
        (3, [60.0, 1.0, 40.0], [85.0, 1.0, 40.0]),
    ] {
        let mut m = MoveObject::new(t, start);
        m.pos_end = end;
        m.speed = 2.0;
        w.place_move_object(&m)?;
    }
    for pos in [[46.5, 9.0, 20.5], [70.5, 7.0, 68.5], [23.0, 1.0, 78.0]] {
        w.place_move_object(&MoveObject::new(6, pos))?; // extra-life eggs
    }
    w.place_move_object(&MoveObject::new(5, [54.0, 9.0, 28.0]))?; // treasure
    w.place_move_object(&MoveObject::new(7, [71.0, 7.0, 68.0]))?; // level exit on the hilltop
    w.set_spawn(15, 1, 15)?;
    Ok(w)
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

pub fn run(a: DemoArgs) -> Result<u8> {
    let dir = a.dir;
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    println!("voxcaf demo -> {}/", dir.display());
    let world = world_section(&dir)?;
    println!(
        "{}",
        crate::world_mesh::demo_mesh(&world, &dir, "showcase")?.trim_end()
    );
    println!();
    edit_section(&dir)?;
    println!();
    println!("{}", caf_import::demo::roundtrip(&dir)?);
    println!();
    println!(
        "{}",
        crate::asset_import::demo_build(&dir.join("assets-src"), &dir.join("assets"))?
    );
    Ok(0)
}

/// Runs the README's example edit script on an empty world with the undo history checked.
fn edit_section(dir: &Path) -> Result<()> {
    let (pool, report) = crate::world_edit::demo_edit(World::new())?;
    let path = dir.join("pool.vwr");
    pool.save(&path)?;
    println!(
        "edit   {} (the README's edit script on an empty world)",
        path.display()
    );
    print!("{report}");
    Ok(())
}

fn world_section(dir: &Path) -> Result<World> {
    let t = Instant::now();
    let world = build_showcase()?;
    let built = ms(t);
    let path = dir.join("showcase.vwr");
    let t = Instant::now();
    world.save(&path)?;
    let saved = ms(t);
    let t = Instant::now();
    let back = World::load(&path)?;
    let loaded = ms(t);
    ensure!(
        back == world,
        "the reloaded world differs from the built one"
    );
    let bytes = std::fs::read(&path)?;
    ensure!(
        back.to_bytes() == bytes,
        "re-saving the reloaded world changed its bytes"
    );
    ensure!(
        vwr::dump::dump(&back) == vwr::dump::dump(&world),
        "dumps differ after the round trip"
    );
    let s = WorldStats::of(&back);
    let objects = back.move_objects()?;
    println!("world  {}", path.display());
    println!("  built in {built:.2} ms, saved in {saved:.2} ms, loaded in {loaded:.2} ms; round trip verified (blocks, records, bytes)");
    println!(
        "  {} bytes, {} of {} chunks stored ({} uniform), {} non-air blocks",
        bytes.len(),
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
    println!("  bits per block (chunks) {}", bits.join(" "));
    let names: Vec<String> = objects
        .iter()
        .map(|(_, m)| {
            MoveObject::type_name(m.object_type)
                .unwrap_or("object")
                .to_string()
        })
        .collect();
    println!("  {} objects: {}", objects.len(), names.join(", "));
    let [x, y, z] = back.spawn().unwrap_or([0; 3]);
    println!(
        "  spawn ({x}, {y}, {z}), sky region {}, mission {}",
        back.sky_region(),
        back.mission_number()
    );
    Ok(back)
}
