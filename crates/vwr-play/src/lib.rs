//! # vwr-play — the gameplay layer of `.vwr` worlds
//!
//! Collision, raycasts, swept boxes, triggers, moving objects and a deterministic level loop
//! over [`vwr`] worlds, with the block behaviour ([`vwr_blocks::Collision`]: solid, liquid,
//! trigger) taken from the one block registry of [`vwr_blocks`]. No rendering, no engine:
//! usable headless, from a game, or from an editor's play-test mode.
//!
//! - [`Collider`]: a world's collision flags, one byte per cell, refreshed after edits.
//! - [`raycast`] / [`ray_cells`]: Amanatides–Woo traversal (first solid cell with face, hit
//!   point and distance; or every cell, for line of sight and picking).
//! - [`sweep`]: move-and-slide of an axis-aligned box (Y, X, Z), flush stops, no tunnelling.
//! - [`touching_triggers`], [`TriggerTracker`], [`cells_overlapping`],
//!   [`Objects::overlapping`], [`Objects::in_region`]: queries.
//! - [`Patrol`]: where a MoveObject is at tick T (the cycle is documented in [`objects`]);
//!   [`carry`]: lifts carrying a box.
//! - [`Level`], [`Game`], [`Input`], [`InputScript`]: the kinematic player and the level loop
//!   at [`TICKS_PER_SECOND`].
//!
//! ```
//! use vwr_play::{Game, InputScript, Level};
//!
//! let world = vwr::samples::showcase()?;
//! let level = Level::new(&world, &vwr_blocks::Registry::default())?;
//! let mut game = Game::new(level);
//! let script = InputScript::parse(vwr_play::SHOWCASE_SCRIPT)?;
//! let run = game.run(&script, None);
//! assert!(run.complete, "the showcase is played through to its exit");
//! assert_eq!(game.deaths(), 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Coordinates are `f64` blocks: cell `[x, y, z]` is the unit box from `(x, y, z)` to
//! `(x+1, y+1, z+1)`; cells outside the world are empty.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used)]

mod aabb;
mod collider;
mod error;
mod game;
pub mod objects;
mod query;
mod ray;
mod sweep;

pub use aabb::Aabb;
pub use collider::{CellFlags, Collider, LIQUID, SOLID};
pub use error::PlayError;
pub use game::{
    Death, Event, Game, Input, InputScript, Level, PlayerConfig, RunSummary, MAX_SCRIPT_TICKS,
    TICKS_PER_SECOND,
};
pub use objects::{carry, Decor, Found, Object, ObjectKind, Objects, Patrol};
pub use query::{
    cells_overlapping, touching_triggers, TriggerEvent, TriggerSet, TriggerTracker, TOUCH,
};
pub use ray::{ray_cells, raycast, Face, RayCell, RayHit};
pub use sweep::{on_ground, sweep, Sweep};

/// The input script that plays the showcase level ([`vwr::samples::showcase`]) from its spawn
/// point to the exit on the hilltop, picking up the egg there (used by `voxcaf demo` and the
/// tests).
pub const SHOWCASE_SCRIPT: &str = include_str!("showcase.input");

pub(crate) fn check_finite(what: &'static str, v: [f64; 3]) -> Result<(), PlayError> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(PlayError::NotFinite { what, value: v })
    }
}
