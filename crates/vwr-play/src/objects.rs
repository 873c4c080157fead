//! Moving and interactive objects: MoveObject records and BigDecor, their patrol cycle, boxes
//! and queries.
//!
//! # The patrol cycle (20 ticks per second)
//!
//! An object whose `pos_end` differs from `pos_start` patrols between them forever. With
//! `distance = |pos_end − pos_start|` (Euclidean, in blocks), the cycle has four phases:
//!
//! 1. **wait at the start** for `time_stop_start_ticks` ticks;
//! 2. **advance** from start to end in `distance / speed × step_advance_ticks` ticks: the path
//!    is made of steps of `speed` blocks, each taking `step_advance_ticks` ticks, at constant
//!    velocity (`speed / step_advance_ticks` blocks per tick);
//! 3. **wait at the end** for `time_stop_end_ticks` ticks;
//! 4. **go back** from end to start in `distance / speed × step_recede_ticks` ticks.
//!
//! The defaults (speed 1.5, steps of 60 ticks, waits of 40) make a 3-block lift take 120 ticks
//! (6 s) each way and a full cycle of 320 ticks. At tick `T` the object is at phase
//! `T mod period` (all in `f64`, the same on every machine); the position is continuous at
//! every phase boundary (at the end of phase 2 it is exactly `pos_end`). Waits that are
//! negative or not finite count as 0. An object with a non-positive or non-finite `speed` or
//! step time, a zero distance, or a cycle of zero length does not move.
//!
//! # Boxes
//!
//! An object occupies the unit box whose minimum corner is its position (`[p, p + 1]` on each
//! axis); a BigDecor occupies its cell.

use vwr::{MoveObject, World};

use crate::Aabb;

/// What an object does in the level loop, from its type code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// A platform that carries a box standing on it (types 1, 47, 48).
    Lift,
    /// Kills the player on contact (patrol enemies 2, 3, 96, 97, bulldozer 4, walkers 16,
    /// 17, 18, 20, 32, 33, 44, 54).
    Enemy,
    /// Collected on contact (treasure 5, extra-life egg 6, keys 49–51).
    Collectible,
    /// Completes the level on contact (level exit 7, secret exit 21).
    Exit,
    /// Anything else: inert.
    Other,
}

impl ObjectKind {
    /// The kind of a MoveObject type code.
    pub fn of(object_type: u8) -> ObjectKind {
        match object_type {
            1 | 47 | 48 => ObjectKind::Lift,
            2 | 3 | 96 | 97 | 4 | 16 | 17 | 18 | 20 | 32 | 33 | 44 | 54 => ObjectKind::Enemy,
            5 | 6 | 49..=51 => ObjectKind::Collectible,
            7 | 21 => ObjectKind::Exit,
            _ => ObjectKind::Other,
        }
    }

    /// `"lift"`, `"enemy"`, `"collectible"`, `"exit"`, `"other"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ObjectKind::Lift => "lift",
            ObjectKind::Enemy => "enemy",
            ObjectKind::Collectible => "collectible",
            ObjectKind::Exit => "exit",
            ObjectKind::Other => "other",
        }
    }
}

/// The patrol timing of one object, in ticks (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Patrol {
    /// Start position.
    pub start: [f64; 3],
    /// End position.
    pub end: [f64; 3],
    /// Ticks waiting at the start.
    pub wait_start: f64,
    /// Ticks travelling from start to end.
    pub advance: f64,
    /// Ticks waiting at the end.
    pub wait_end: f64,
    /// Ticks travelling back.
    pub recede: f64,
}

fn wait(v: f32) -> f64 {
    if v.is_finite() && v > 0.0 {
        v as f64
    } else {
        0.0
    }
}

impl Patrol {
    /// The cycle of a record.
    pub fn of(m: &MoveObject) -> Patrol {
        let start = m.pos_start.map(f64::from);
        let end = m.pos_end.map(f64::from);
        let dist = (0..3)
            .map(|k| (end[k] - start[k]).powi(2))
            .sum::<f64>()
            .sqrt();
        let travel = |step: f32| -> Option<f64> {
            let (speed, step) = (m.speed as f64, step as f64);
            (speed.is_finite() && speed > 0.0 && step.is_finite() && step > 0.0 && dist.is_finite())
                .then(|| dist / speed * step)
                .filter(|t| t.is_finite())
        };
        let p = Patrol {
            start,
            end,
            wait_start: wait(m.time_stop_start_ticks),
            advance: travel(m.step_advance_ticks).unwrap_or(0.0),
            wait_end: wait(m.time_stop_end_ticks),
            recede: travel(m.step_recede_ticks).unwrap_or(0.0),
        };
        let moving = dist > 0.0 && p.advance > 0.0 && p.recede > 0.0 && p.period().is_finite();
        if moving {
            p
        } else {
            Patrol {
                end: start,
                advance: 0.0,
                recede: 0.0,
                ..p
            }
        }
    }

    /// Whether the object moves at all.
    pub fn moves(&self) -> bool {
        self.period() > 0.0 && self.start != self.end
    }

    /// Length of the whole cycle in ticks.
    pub fn period(&self) -> f64 {
        self.wait_start + self.advance + self.wait_end + self.recede
    }

    /// The position at a (fractional) tick.
    pub fn position_at(&self, tick: f64) -> [f64; 3] {
        if !self.moves() {
            return self.start;
        }
        let lerp = |a: [f64; 3], b: [f64; 3], f: f64| [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * f);
        let mut t = tick.rem_euclid(self.period());
        if t < self.wait_start {
            return self.start;
        }
        t -= self.wait_start;
        if t < self.advance {
            return lerp(self.start, self.end, t / self.advance);
        }
        t -= self.advance;
        if t < self.wait_end {
            return self.end;
        }
        t -= self.wait_end;
        lerp(self.end, self.start, (t / self.recede).min(1.0))
    }

    /// The position at tick `tick`.
    pub fn position(&self, tick: u64) -> [f64; 3] {
        self.position_at(tick as f64)
    }
}

/// One MoveObject of a level.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// Index in [`Objects::list`] (world record order).
    pub index: usize,
    /// The anchor cell of the record.
    pub cell: [i32; 3],
    /// The record.
    pub record: MoveObject,
    /// What it does.
    pub kind: ObjectKind,
    /// Its cycle.
    pub patrol: Patrol,
}

impl Object {
    /// The position at tick `tick`.
    pub fn position(&self, tick: u64) -> [f64; 3] {
        self.patrol.position(tick)
    }

    /// The box at tick `tick`.
    pub fn aabb(&self, tick: u64) -> Aabb {
        let p = self.position(tick);
        Aabb {
            min: p,
            max: [p[0] + 1.0, p[1] + 1.0, p[2] + 1.0],
        }
    }
}

/// A BigDecor record: a decoration anchored at a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decor {
    /// The cell.
    pub cell: [i32; 3],
    /// Its icon.
    pub icon: u16,
}

/// Something found by [`Objects::overlapping`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// A MoveObject (index into [`Objects::list`]).
    Object(usize),
    /// A BigDecor (index into [`Objects::decors`]).
    Decor(usize),
}

/// The MoveObjects and BigDecor of a level.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Objects {
    list: Vec<Object>,
    decors: Vec<Decor>,
}

impl Objects {
    /// The objects of a world, in record order. Fails on a malformed record.
    pub fn of(world: &World) -> Result<Objects, vwr::VwrError> {
        let list = world
            .move_objects()?
            .into_iter()
            .enumerate()
            .map(|(index, (cell, record))| Object {
                index,
                cell,
                kind: ObjectKind::of(record.object_type),
                patrol: Patrol::of(&record),
                record,
            })
            .collect();
        let decors = world
            .big_decors()?
            .into_iter()
            .map(|(cell, icon)| Decor { cell, icon })
            .collect();
        Ok(Objects { list, decors })
    }

    /// The MoveObjects.
    pub fn list(&self) -> &[Object] {
        &self.list
    }

    /// The BigDecor records.
    pub fn decors(&self) -> &[Decor] {
        &self.decors
    }

    /// The MoveObjects and BigDecor whose boxes at tick `tick` overlap `aabb` (interiors
    /// intersect), MoveObjects first, each in record order.
    pub fn overlapping(&self, aabb: &Aabb, tick: u64) -> Vec<Found> {
        let mut out: Vec<Found> = self
            .list
            .iter()
            .filter(|o| o.aabb(tick).overlaps(aabb))
            .map(|o| Found::Object(o.index))
            .collect();
        out.extend(
            self.decors
                .iter()
                .enumerate()
                .filter(|(_, d)| Aabb::cell(d.cell).overlaps(aabb))
                .map(|(i, _)| Found::Decor(i)),
        );
        out
    }

    /// The MoveObjects whose position at tick `tick` lies inside `region` (bounds included).
    pub fn in_region(&self, region: &Aabb, tick: u64) -> Vec<&Object> {
        self.list
            .iter()
            .filter(|o| {
                let p = o.position(tick);
                (0..3).all(|k| p[k] >= region.min[k] && p[k] <= region.max[k])
            })
            .collect()
    }
}

/// Where a box standing on a lift goes when the lift moves from `before` to `after`: the lift's
/// displacement when the box's bottom lies on the lift's top (within 1e-6) and they overlap
/// horizontally, otherwise `None`. Apply it with [`crate::sweep`] so walls still stop the box.
pub fn carry(aabb: &Aabb, before: &Aabb, after: &Aabb) -> Option<[f64; 3]> {
    let on_top = (aabb.min[1] - before.max[1]).abs() <= 1e-6
        && [0, 2]
            .iter()
            .all(|&k| aabb.min[k] < before.max[k] && before.min[k] < aabb.max[k]);
    on_top.then(|| [0, 1, 2].map(|k| after.min[k] - before.min[k]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patrol_phase_boundaries() {
        let mut m = MoveObject::new(1, [10.0, 1.0, 10.0]);
        m.pos_end = [10.0, 4.0, 10.0]; // 3 blocks
        let p = Patrol::of(&m);
        // Defaults: wait 40, advance 3/1.5*60 = 120, wait 40, back 120.
        assert_eq!(
            (p.wait_start, p.advance, p.wait_end, p.recede),
            (40.0, 120.0, 40.0, 120.0)
        );
        assert_eq!(p.period(), 320.0);
        let y = |t: u64| p.position(t)[1];
        assert_eq!(y(0), 1.0);
        assert_eq!(y(40), 1.0);
        assert_eq!(y(41), 1.025);
        assert_eq!(y(100), 2.5);
        assert_eq!(y(160), 4.0);
        assert_eq!(y(200), 4.0);
        assert_eq!(y(260), 2.5);
        assert_eq!(y(320), 1.0);
        assert_eq!(y(320 + 100), 2.5);
    }

    #[test]
    fn bad_timings_do_not_move_or_panic() {
        for speed in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let mut m = MoveObject::new(2, [1.0, 1.0, 1.0]);
            m.pos_end = [5.0, 1.0, 1.0];
            m.speed = speed;
            let p = Patrol::of(&m);
            assert!(!p.moves());
            assert_eq!(p.position(12345), [1.0, 1.0, 1.0]);
        }
        let mut m = MoveObject::new(2, [1.0, 1.0, 1.0]);
        m.pos_end = [5.0, 1.0, 1.0];
        m.time_stop_start_ticks = f32::NAN;
        m.time_stop_end_ticks = -5.0;
        let p = Patrol::of(&m);
        assert_eq!((p.wait_start, p.wait_end), (0.0, 0.0));
        assert_eq!(p.position(u64::MAX)[1], 1.0);
    }
}
