//! Sample worlds and the round-trip check the demo and the examples use (the demo's edit
//! session round trip is in the `voxcaf-demo` crate).
//!
//! ```
//! let world = vwr::samples::showcase()?;
//! let dir = tempfile::tempdir().unwrap();
//! let report = vwr::samples::round_trip(&world, &dir.path().join("showcase.vwr"))?;
//! assert!(report.bytes > 0);
//! # Ok::<(), vwr::samples::RoundTripError>(())
//! ```

use std::path::Path;
use std::time::{Duration, Instant};

use crate::{Block, MoveObject, Result, VwrError, World};

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
    // Every type used here is a constant below 4096 and the metadata is 0: always in range.
    Block::make(t, 0).expect("constant block types are in range")
}

/// A 100³ world where every one of the 1000 chunks uses 256 distinct values (8 bits per
/// block): the worst case for random access, used by the benchmarks.
pub fn full_8bit() -> World {
    let mut w = World::new();
    let mut blocks = [Block::AIR; crate::CHUNK_VOLUME];
    for (cx, cy, cz) in
        (0..10).flat_map(|z| (0..10).flat_map(move |y| (0..10).map(move |x| (x, y, z))))
    {
        for (i, b) in blocks.iter_mut().enumerate() {
            *b = Block(
                ((i * 37 + cx as usize * 11 + cy as usize * 7 + cz as usize) % 256) as u16 * 16 + 1,
            );
        }
        let chunk = crate::Chunk::from_blocks(&blocks).expect("256 values fit one palette");
        w.set_chunk([cx, cy, cz], chunk)
            .expect("inside a 10³-chunk world");
    }
    w
}

/// The showcase level: floor, stairs, a raised walled platform, a terraced hill, a tunnel with
/// water, lava, lifts, enemies, eggs, treasure and an exit, a spawn point and a sky region.
pub fn showcase() -> Result<World> {
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
    w.set_block([50, 9, 22], b(SAW))?;
    w.set_plate_rotation([50, 9, 22], true)?;
    w.place_big_decor([40, 9, 27], 66)?;
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
    w.set_spawn([15, 1, 15])?;
    Ok(w)
}

/// What [`round_trip`] measured and checked.
#[derive(Debug)]
pub struct RoundTrip {
    /// The world as loaded back from the file.
    pub reloaded: World,
    /// Size of the saved file.
    pub bytes: usize,
    /// Time taken by the atomic save.
    pub save_time: Duration,
    /// Time taken by the load.
    pub load_time: Duration,
}

/// A round trip that did not give back what was saved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RoundTripError {
    /// Saving or loading failed.
    #[error(transparent)]
    Vwr(#[from] VwrError),
    /// The reloaded world is not the one saved.
    #[error("round trip of {path}: {what}")]
    Mismatch {
        /// The file.
        path: String,
        /// Which check failed.
        what: &'static str,
    },
}

/// Saves `world` to `path` atomically, loads it back and checks that nothing changed: the
/// worlds compare equal, re-saving reproduces the file byte for byte, and the canonical dumps
/// agree.
pub fn round_trip(world: &World, path: &Path) -> std::result::Result<RoundTrip, RoundTripError> {
    let mismatch = |what| RoundTripError::Mismatch {
        path: path.display().to_string(),
        what,
    };
    let t = Instant::now();
    world.save(path)?;
    let save_time = t.elapsed();
    let t = Instant::now();
    let reloaded = World::load(path)?;
    let load_time = t.elapsed();
    if &reloaded != world {
        return Err(mismatch("the reloaded world differs from the saved one"));
    }
    let bytes = std::fs::read(path).map_err(|source| VwrError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if reloaded.to_bytes() != bytes {
        return Err(mismatch("re-saving the reloaded world changed its bytes"));
    }
    if crate::dump::dump(&reloaded) != crate::dump::dump(world) {
        return Err(mismatch("the dumps differ after the round trip"));
    }
    Ok(RoundTrip {
        reloaded,
        bytes: bytes.len(),
        save_time,
        load_time,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn showcase_round_trips_and_has_its_objects() {
        let w = showcase().unwrap();
        assert_eq!(w.move_objects().unwrap().len(), 8);
        assert_eq!(w.spawn(), Some([15, 1, 15]));
        let dir = tempfile::tempdir().unwrap();
        let r = round_trip(&w, &dir.path().join("s.vwr")).unwrap();
        assert_eq!(r.reloaded, w);
        assert_eq!(r.bytes, w.to_bytes().len());
    }

    #[test]
    fn a_failed_save_is_an_error_not_a_panic() {
        let w = showcase().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let e = round_trip(&w, &dir.path().join("missing/dir/s.vwr")).unwrap_err();
        assert!(matches!(e, RoundTripError::Vwr(VwrError::Io { .. })), "{e}");
    }
}
