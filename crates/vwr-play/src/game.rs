//! The level loop: a kinematic player, objects and triggers, stepped at a fixed tick rate.

use vwr::World;
use vwr_blocks::{Registry, Trigger};

use crate::objects::{carry, ObjectKind, Objects};
use crate::query::{cells_overlapping, TOUCH};
use crate::{sweep, Aabb, Collider, PlayError};

/// Ticks per second of the level loop (the MoveObject timings are in these ticks too).
pub const TICKS_PER_SECOND: u32 = 20;

/// The buttons held during one tick. Directions are world axes: `right` = +x, `left` = −x,
/// `forward` = +z, `back` = −z.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Input {
    /// Walk towards −x.
    pub left: bool,
    /// Walk towards +x.
    pub right: bool,
    /// Walk towards +z.
    pub forward: bool,
    /// Walk towards −z.
    pub back: bool,
    /// Jump (when on the ground).
    pub jump: bool,
}

impl Input {
    /// No button.
    pub const NONE: Input = Input {
        left: false,
        right: false,
        forward: false,
        back: false,
        jump: false,
    };

    /// Parses `-` / `idle` (nothing) or buttons joined by `+`: `right`, `left`, `forward`,
    /// `back`, `jump` (also `r`, `l`, `f`, `b`, `j`).
    pub fn parse(s: &str) -> Option<Input> {
        let mut i = Input::NONE;
        if matches!(s, "-" | "idle" | "none") {
            return Some(i);
        }
        for part in s.split('+') {
            match part.trim().to_ascii_lowercase().as_str() {
                "left" | "l" => i.left = true,
                "right" | "r" => i.right = true,
                "forward" | "f" => i.forward = true,
                "back" | "b" => i.back = true,
                "jump" | "j" => i.jump = true,
                _ => return None,
            }
        }
        Some(i)
    }
}

/// Longest run of one line of an input script (about 14 hours of play).
pub const MAX_SCRIPT_TICKS: u64 = 1_000_000;

/// A sequence of inputs, each held for a number of ticks.
///
/// Text form, one step per line, `#` starts a comment:
///
/// ```text
/// # ticks  buttons
/// 20 forward          # hold forward for 20 ticks (1 s)
/// 5  right+jump
/// 10 -                # nothing pressed
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputScript {
    steps: Vec<(u64, Input)>,
}

impl InputScript {
    /// Parses the text form. Errors name the line.
    pub fn parse(text: &str) -> Result<InputScript, PlayError> {
        let mut steps = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let err = |msg: String| PlayError::Script { line: n + 1, msg };
            let mut words = line.split_whitespace();
            let (Some(count), Some(keys), None) = (words.next(), words.next(), words.next()) else {
                return Err(err(format!(
                    "expected `TICKS BUTTONS` (like `20 forward+jump`), got {line:?}"
                )));
            };
            let ticks: u64 = count
                .parse()
                .ok()
                .filter(|&t| t <= MAX_SCRIPT_TICKS)
                .ok_or_else(|| {
                    err(format!(
                        "tick count {count:?} is not a number from 0 to {MAX_SCRIPT_TICKS}"
                    ))
                })?;
            let input = Input::parse(keys).ok_or_else(|| {
                err(format!(
                    "unknown buttons {keys:?} (left, right, forward, back, jump joined by `+`, or `-`)"
                ))
            })?;
            steps.push((ticks, input));
        }
        Ok(InputScript { steps })
    }

    /// A script from steps.
    pub fn from_steps(steps: Vec<(u64, Input)>) -> InputScript {
        InputScript { steps }
    }

    /// The steps.
    pub fn steps(&self) -> &[(u64, Input)] {
        &self.steps
    }

    /// Total ticks.
    pub fn ticks(&self) -> u64 {
        self.steps.iter().map(|s| s.0).sum()
    }

    /// The inputs tick by tick.
    pub fn inputs(&self) -> impl Iterator<Item = Input> + '_ {
        self.steps
            .iter()
            .flat_map(|&(n, i)| std::iter::repeat_n(i, n as usize))
    }
}

/// Movement constants of the player, per tick (blocks and blocks per tick).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayerConfig {
    /// Box size (x, y, z).
    pub size: [f64; 3],
    /// Walking speed (blocks per tick; diagonal walking is as fast).
    pub walk_speed: f64,
    /// Gravity (blocks per tick²).
    pub gravity: f64,
    /// Upward speed given by a jump.
    pub jump_speed: f64,
    /// Largest falling speed.
    pub max_fall: f64,
    /// Highest ledge climbed without jumping.
    pub step_height: f64,
    /// The player dies when its feet fall this far below the world's floor (y = 0).
    pub fall_limit: f64,
}

impl Default for PlayerConfig {
    /// A 0.6 × 1.8 × 0.6 box walking 4 blocks/s, jumping 1.44 blocks high and 3.6 blocks far,
    /// climbing
    /// steps of one block.
    fn default() -> PlayerConfig {
        PlayerConfig {
            size: [0.6, 1.8, 0.6],
            walk_speed: 0.2,
            gravity: 0.04,
            jump_speed: 0.36,
            max_fall: 1.5,
            step_height: 1.0,
            fall_limit: 16.0,
        }
    }
}

/// Why the player died.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Death {
    /// Touched a hazard cell.
    Hazard {
        /// The cell.
        cell: [i32; 3],
    },
    /// Touched an enemy object.
    Enemy {
        /// Index in [`Objects::list`].
        object: usize,
    },
    /// Fell out of the world.
    Fell,
}

/// Something that happened during a tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// A collectible object was picked up.
    Collected {
        /// The tick (after the step) at which it happened.
        tick: u64,
        /// Index in [`Objects::list`].
        object: usize,
        /// Its MoveObject type.
        object_type: u8,
    },
    /// The player died and is back at the spawn point.
    Died {
        /// The tick.
        tick: u64,
        /// Why.
        cause: Death,
    },
    /// The player reached a checkpoint cell: the spawn point moves there.
    Checkpoint {
        /// The tick.
        tick: u64,
        /// The cell.
        cell: [i32; 3],
    },
    /// The player reached the exit: the level is complete.
    ReachedExit {
        /// The tick.
        tick: u64,
        /// The exit object, `None` for a goal cell.
        object: Option<usize>,
    },
}

impl Event {
    /// `"collected"`, `"died"`, `"checkpoint"`, `"exit"`.
    pub fn name(&self) -> &'static str {
        match self {
            Event::Collected { .. } => "collected",
            Event::Died { .. } => "died",
            Event::Checkpoint { .. } => "checkpoint",
            Event::ReachedExit { .. } => "exit",
        }
    }

    /// The tick of the event.
    pub fn tick(&self) -> u64 {
        match *self {
            Event::Collected { tick, .. }
            | Event::Died { tick, .. }
            | Event::Checkpoint { tick, .. }
            | Event::ReachedExit { tick, .. } => tick,
        }
    }
}

/// The static part of a level: collision, objects and spawn point. Cheap to clone; a
/// [`Game`] runs on it.
#[derive(Clone, Debug)]
pub struct Level {
    /// The collision view.
    pub collider: Collider,
    /// The objects.
    pub objects: Objects,
    /// Where the player's feet (bottom centre) start: see [`Level::new`].
    pub spawn: [f64; 3],
}

impl Level {
    /// The level of a world. The spawn point is the world's spawn cell (feet at the centre of
    /// its floor); a world without one uses the **default spawn**: the column nearest to the
    /// centre of the world (rings around `block_dims / 2`, nearest ring first, then x, then z)
    /// that has a solid cell, feet on its highest solid cell; in a world without solid cells,
    /// the centre of the world's top.
    pub fn new(world: &World, registry: &Registry) -> Result<Level, PlayError> {
        let collider = Collider::new(world, registry);
        let objects = Objects::of(world)?;
        let spawn = match world.spawn() {
            Some([x, y, z]) => [x as f64 + 0.5, y as f64, z as f64 + 0.5],
            None => default_spawn(&collider),
        };
        Ok(Level {
            collider,
            objects,
            spawn,
        })
    }
}

/// Where a level without a spawn record starts: on the column nearest the world's centre that
/// has a solid cell (nearest in rings: the Chebyshev distance, then the smallest x, then the
/// smallest z), one cell above its top solid cell; above the centre when nothing is solid.
/// Only the chunk columns holding a solid cell are looked at, nearest first, so an empty
/// 655350×10×655350 world answers at once.
fn default_spawn(c: &Collider) -> [f64; 3] {
    let [dx, dy, dz] = c.block_dims().map(i64::from);
    let (cx, cz) = (dx / 2, dz / 2);
    let s = vwr::CHUNK_SIZE as i64;
    let stand = |x: i64, z: i64| -> Option<i64> {
        (0..dy).rev().find(|&y| c.solid([x, y, z])).map(|y| y + 1)
    };
    let key = |x: i64, z: i64| ((x - cx).abs().max((z - cz).abs()), x, z);
    // Distance from the centre's coordinate `c0` to the nearest of `lo..lo + s`.
    let near = |c0: i64, lo: i64| (lo - c0).max(c0 - (lo + s - 1)).max(0);
    let mut columns: Vec<(i64, i64, i64)> = c
        .solid_columns()
        .into_iter()
        .map(|[a, b]| {
            let (x0, z0) = (a as i64 * s, b as i64 * s);
            (near(cx, x0).max(near(cz, z0)), x0, z0)
        })
        .collect();
    columns.sort_unstable();
    let mut best: Option<((i64, i64, i64), i64)> = None;
    for (r_min, x0, z0) in columns {
        if best.is_some_and(|(k, _)| k.0 < r_min) {
            break;
        }
        for x in x0..(x0 + s).min(dx) {
            for z in z0..(z0 + s).min(dz) {
                let k = key(x, z);
                if best.is_some_and(|(b, _)| b <= k) {
                    continue;
                }
                if let Some(y) = stand(x, z) {
                    best = Some((k, y));
                }
            }
        }
    }
    match best {
        Some(((_, x, z), y)) => [x as f64 + 0.5, y as f64, z as f64 + 0.5],
        None => [cx as f64 + 0.5, dy as f64, cz as f64 + 0.5],
    }
}

/// A running level: step it tick by tick with an [`Input`].
///
/// Each [`Game::step`] does, in order: lifts carry the player standing on them; walking
/// (with step-up of one block), jumping and gravity move the player with [`sweep`] (lift tops
/// are also floors); then, at the new tick, the player picks up the collectibles it overlaps,
/// dies on hazard cells it touches, enemies it overlaps, or falling out of the world (back to
/// the spawn point with zero velocity; collected objects stay collected), reaches checkpoint
/// cells (the spawn point moves there) and completes the level on an exit object or a goal
/// cell. A completed game ignores further steps. Everything is `f64` arithmetic in a fixed
/// order: the same inputs give the same run on every machine.
///
/// Limits of this first version: lift tops are one-way floors (a lift rising into the player
/// from below, or moving sideways into it, passes through it; only a player standing on a lift
/// is carried); enemies and other objects do not collide, they only trigger on overlap; the
/// player is a box without rotation (directions are world axes).
///
/// ```
/// use vwr_play::{Game, Input, Level};
///
/// let world = vwr::samples::showcase()?;
/// let mut game = Game::new(Level::new(&world, &vwr_blocks::Registry::default())?);
/// let start = game.player();
/// for _ in 0..20 {
///     game.step(Input { right: true, ..Input::NONE });
/// }
/// assert_eq!(game.tick(), 20);
/// assert!(game.player().min[0] > start.min[0] + 3.0);
/// assert!(game.on_ground());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    level: Level,
    config: PlayerConfig,
    spawn: [f64; 3],
    player: Aabb,
    velocity: [f64; 3],
    on_ground: bool,
    tick: u64,
    collected: Vec<bool>,
    deaths: u32,
    complete: bool,
    events: Vec<Event>,
}

/// What a finished run did.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    /// Ticks played.
    pub ticks: u64,
    /// Whether the exit was reached.
    pub complete: bool,
    /// All events, in order.
    pub events: Vec<Event>,
}

impl Game {
    /// A game at tick 0 with the default [`PlayerConfig`].
    pub fn new(level: Level) -> Game {
        Game::with_config(level, PlayerConfig::default())
    }

    /// A game at tick 0.
    pub fn with_config(level: Level, config: PlayerConfig) -> Game {
        let spawn = level.spawn;
        let n = level.objects.list().len();
        let mut g = Game {
            level,
            config,
            spawn,
            player: Aabb::from_feet(spawn, config.size),
            velocity: [0.0; 3],
            on_ground: false,
            tick: 0,
            collected: vec![false; n],
            deaths: 0,
            complete: false,
            events: Vec::new(),
        };
        g.on_ground = g.standing().0;
        g
    }

    /// Brings the level's collision view up to date after its world changed under the running
    /// game (an editor's live changes, the game's own digging): only the chunks whose revision
    /// changed are rebuilt ([`Collider::refresh`]). Objects and the spawn point stay.
    pub fn refresh(&mut self, world: &World) {
        self.level.collider.refresh(world);
    }

    /// The level.
    pub fn level(&self) -> &Level {
        &self.level
    }
    /// The player's box.
    pub fn player(&self) -> Aabb {
        self.player
    }
    /// The player's velocity (blocks per tick).
    pub fn velocity(&self) -> [f64; 3] {
        self.velocity
    }
    /// Whether the player stands on a solid cell or a lift.
    pub fn on_ground(&self) -> bool {
        self.on_ground
    }
    /// Ticks played.
    pub fn tick(&self) -> u64 {
        self.tick
    }
    /// Whether the exit was reached.
    pub fn is_complete(&self) -> bool {
        self.complete
    }
    /// How often the player died.
    pub fn deaths(&self) -> u32 {
        self.deaths
    }
    /// The current spawn point (feet).
    pub fn spawn(&self) -> [f64; 3] {
        self.spawn
    }
    /// Whether object `i` has been collected.
    pub fn is_collected(&self, i: usize) -> bool {
        self.collected.get(i).copied().unwrap_or(false)
    }
    /// How many objects have been collected.
    pub fn collected_count(&self) -> usize {
        self.collected.iter().filter(|&&c| c).count()
    }
    /// All events so far.
    pub fn events(&self) -> &[Event] {
        &self.events
    }
    /// The position of every object at the current tick (collected ones included), in
    /// [`Objects::list`] order.
    pub fn object_positions(&self) -> Vec<[f64; 3]> {
        self.level
            .objects
            .list()
            .iter()
            .map(|o| o.position(self.tick))
            .collect()
    }

    /// Whether the player stands on the ground, and on which lift.
    fn standing(&self) -> (bool, Option<usize>) {
        let lift = self.level.objects.list().iter().find(|o| {
            o.kind == ObjectKind::Lift && {
                let l = o.aabb(self.tick);
                carry(&self.player, &l, &l).is_some()
            }
        });
        let ground = crate::sweep::on_ground(&self.level.collider, &self.player);
        (ground || lift.is_some(), lift.map(|o| o.index))
    }

    /// Plays one tick; returns the events of this tick.
    pub fn step(&mut self, input: Input) -> &[Event] {
        let first = self.events.len();
        if self.complete {
            return &self.events[first..];
        }
        let c = &self.level.collider;
        let cfg = self.config;
        let (t0, t1) = (self.tick, self.tick + 1);
        // 1. Lifts carry the player standing on them.
        let (_, on_lift) = self.standing();
        if let Some(i) = on_lift {
            let o = &self.level.objects.list()[i];
            if let Some(d) = carry(&self.player, &o.aabb(t0), &o.aabb(t1)) {
                if let Ok(s) = sweep(c, &self.player, d) {
                    self.player = s.aabb;
                }
            }
        }
        // 2. Controls.
        let dx = input.right as i32 - input.left as i32;
        let dz = input.forward as i32 - input.back as i32;
        let (mut vx, mut vz) = (dx as f64, dz as f64);
        let len = (vx * vx + vz * vz).sqrt();
        if len > 0.0 {
            vx = vx / len * cfg.walk_speed;
            vz = vz / len * cfg.walk_speed;
        }
        let mut vy = self.velocity[1];
        if input.jump && self.on_ground {
            vy = cfg.jump_speed;
        }
        vy = (vy - cfg.gravity).max(-cfg.max_fall);
        // 3. Vertical move, against the voxels and the lift tops.
        let was_on_ground = self.on_ground;
        let mut landed = false;
        if let Ok(s) = sweep(c, &self.player, [0.0, vy, 0.0]) {
            let before = self.player;
            self.player = s.aabb;
            if s.blocked[1] {
                landed = vy < 0.0;
                vy = 0.0;
            }
            if vy < 0.0 {
                for o in self.level.objects.list() {
                    if o.kind != ObjectKind::Lift {
                        continue;
                    }
                    let top = o.aabb(t1).max[1];
                    let l = o.aabb(t1);
                    let horiz = [0, 2]
                        .iter()
                        .all(|&k| before.min[k] < l.max[k] && l.min[k] < before.max[k]);
                    if horiz && before.min[1] >= top - 1e-6 && self.player.min[1] < top {
                        let d = top - self.player.min[1];
                        self.player = self.player.translated([0.0, d, 0.0]);
                        self.player.min[1] = top;
                        vy = 0.0;
                        landed = true;
                    }
                }
            }
        }
        // 4. Horizontal move with step-up.
        if vx != 0.0 || vz != 0.0 {
            if let Ok(plain) = sweep(c, &self.player, [vx, 0.0, vz]) {
                let mut best = plain.aabb;
                let blocked = plain.blocked[0] || plain.blocked[2];
                if blocked && (was_on_ground || landed) && cfg.step_height > 0.0 {
                    if let Some(stepped) = self.step_up(vx, vz) {
                        let gain = |b: &Aabb| {
                            (b.min[0] - self.player.min[0]).abs()
                                + (b.min[2] - self.player.min[2]).abs()
                        };
                        if gain(&stepped) > gain(&plain.aabb) + 1e-9 {
                            best = stepped;
                        }
                    }
                }
                self.player = best;
            }
        }
        self.velocity = [vx, vy, vz];
        self.tick = t1;
        let (ground, _) = self.standing();
        self.on_ground = ground;
        if ground && self.velocity[1] < 0.0 {
            self.velocity[1] = 0.0;
        }
        // 5. Interactions at the new tick.
        self.interact();
        &self.events[first..]
    }

    /// Raise by up to one step, move, and settle back down; `None` if raising is impossible.
    fn step_up(&self, vx: f64, vz: f64) -> Option<Aabb> {
        let c = &self.level.collider;
        let up = sweep(c, &self.player, [0.0, self.config.step_height, 0.0]).ok()?;
        if up.moved[1] <= 0.0 {
            return None;
        }
        let across = sweep(c, &up.aabb, [vx, 0.0, vz]).ok()?;
        let down = sweep(c, &across.aabb, [0.0, -up.moved[1], 0.0]).ok()?;
        down.on_ground.then_some(down.aabb)
    }

    fn interact(&mut self) {
        let tick = self.tick;
        let player = self.player;
        let mut death = None;
        let mut exit = None;
        for o in self.level.objects.list() {
            if !o.aabb(tick).overlaps(&player) {
                continue;
            }
            match o.kind {
                ObjectKind::Collectible if !self.collected[o.index] => {
                    self.collected[o.index] = true;
                    self.events.push(Event::Collected {
                        tick,
                        object: o.index,
                        object_type: o.record.object_type,
                    });
                }
                ObjectKind::Enemy if death.is_none() => {
                    death = Some(Death::Enemy { object: o.index })
                }
                ObjectKind::Exit if exit.is_none() => exit = Some(Some(o.index)),
                _ => {}
            }
        }
        let mut checkpoint = None;
        cells_overlapping(
            &self.level.collider,
            &player.inflated(TOUCH),
            |cell, f| match f.trigger() {
                Trigger::Hazard if death.is_none() => death = Some(Death::Hazard { cell }),
                Trigger::Goal if exit.is_none() => exit = Some(None),
                Trigger::Checkpoint if checkpoint.is_none() => checkpoint = Some((cell, f.solid())),
                _ => {}
            },
        );
        if death.is_none() && player.min[1] < -self.config.fall_limit {
            death = Some(Death::Fell);
        }
        if let Some(cause) = death {
            self.deaths += 1;
            self.events.push(Event::Died { tick, cause });
            self.player = Aabb::from_feet(self.spawn, self.config.size);
            self.velocity = [0.0; 3];
            self.on_ground = self.standing().0;
            return;
        }
        if let Some((cell, solid)) = checkpoint {
            // Feet on the checkpoint cell's floor (on its top when it is solid).
            let y = cell[1] as f64 + if solid { 1.0 } else { 0.0 };
            let feet = [cell[0] as f64 + 0.5, y, cell[2] as f64 + 0.5];
            if feet != self.spawn {
                self.spawn = feet;
                self.events.push(Event::Checkpoint { tick, cell });
            }
        }
        if let Some(object) = exit {
            self.complete = true;
            self.events.push(Event::ReachedExit { tick, object });
        }
    }

    /// Plays a script (then idles) until the level is complete or `max_ticks` ticks have been
    /// played in total (`None`: the script's length).
    pub fn run(&mut self, script: &InputScript, max_ticks: Option<u64>) -> RunSummary {
        let limit = max_ticks.unwrap_or_else(|| script.ticks());
        let mut inputs = script.inputs();
        while self.tick < limit && !self.complete {
            let i = inputs.next().unwrap_or(Input::NONE);
            self.step(i);
        }
        RunSummary {
            ticks: self.tick,
            complete: self.complete,
            events: self.events.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vwr::Block;

    /// The search as first written: rings of columns around the centre, each column looked
    /// at once, nearest ring first (the reference the faster search must agree with).
    fn ring_search(c: &Collider) -> [f64; 3] {
        let [dx, dy, dz] = c.block_dims().map(i64::from);
        let (cx, cz) = (dx / 2, dz / 2);
        for r in 0..=dx.max(dz) {
            let mut ring = Vec::new();
            for x in (cx - r)..=(cx + r) {
                if (x - cx).abs() == r {
                    ring.extend(((cz - r)..=(cz + r)).map(|z| (x, z)));
                } else {
                    ring.push((x, cz - r));
                    ring.push((x, cz + r));
                }
            }
            for (x, z) in ring {
                if x < 0 || z < 0 || x >= dx || z >= dz {
                    continue;
                }
                if let Some(y) = (0..dy).rev().find(|&y| c.solid([x, y, z])) {
                    return [x as f64 + 0.5, (y + 1) as f64, z as f64 + 0.5];
                }
            }
        }
        [cx as f64 + 0.5, dy as f64, cz as f64 + 0.5]
    }

    #[test]
    fn the_default_spawn_is_the_ring_search_s_answer() {
        let reg = Registry::default();
        let mut rng = voxcaf_golden::Rng::new(9);
        for case in 0..40 {
            let dims = [
                1 + rng.below(6) as u32,
                1 + rng.below(3) as u32,
                1 + rng.below(6) as u32,
            ];
            let mut w = World::with_chunk_dims(dims).unwrap();
            let b = w.block_dims();
            for _ in 0..rng.below(6) {
                let p = [0, 1, 2].map(|k| rng.below(b[k] as u64) as i32);
                // Stone is solid; water is not (a column of water alone is no place to stand).
                let t = if rng.below(3) == 0 { 92 } else { 35 };
                w.set_block(p, Block::make(t, 0).unwrap()).unwrap();
            }
            let c = Collider::new(&w, &reg);
            assert_eq!(default_spawn(&c), ring_search(&c), "case {case}, {dims:?}");
        }
    }

    #[test]
    fn the_default_spawn_of_the_largest_world_is_found_at_once() {
        let reg = Registry::default();
        let mut w = World::with_chunk_dims([65535, 1, 65535]).unwrap();
        let c = Collider::new(&w, &reg);
        assert_eq!(default_spawn(&c), [327_675.5, 10.0, 327_675.5]);
        w.set_block([3, 4, 600_000], Block::make(35, 0).unwrap())
            .unwrap();
        let c = Collider::new(&w, &reg);
        assert_eq!(default_spawn(&c), [3.5, 5.0, 600_000.5]);
    }
}
