//! Queries: the cells a box overlaps or touches, and trigger enter/exit events.

use std::collections::BTreeMap;

use vwr_blocks::Trigger;

use crate::collider::CellFlags;
use crate::{Aabb, Collider};

/// How far around a box a cell counts as *touched* by [`touching_triggers`] and
/// [`TriggerTracker`]: a box standing on a solid hazard (spikes) touches it.
pub const TOUCH: f64 = 1e-3;

/// Calls `f` for every cell inside the world whose interior the box's interior intersects,
/// z outer, then y, x fastest.
pub fn cells_overlapping(collider: &Collider, aabb: &Aabb, mut f: impl FnMut([i32; 3], CellFlags)) {
    let (lo, hi) = aabb.cell_range();
    let Some((lo, hi)) = collider.clamp(lo, hi) else {
        return;
    };
    for z in lo[2]..=hi[2] {
        for y in lo[1]..=hi[1] {
            for x in lo[0]..=hi[0] {
                f(
                    [x as i32, y as i32, z as i32],
                    CellFlags(collider.flags_in(x, y, z)),
                )
            }
        }
    }
}

/// A set of [`Trigger`]s (bit `code` set for each trigger present).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TriggerSet(pub u8);

impl TriggerSet {
    /// Whether the set holds `t`.
    pub fn contains(self, t: Trigger) -> bool {
        self.0 & (1 << t.code()) != 0
    }
    /// Whether no trigger (other than [`Trigger::None`]) is present.
    pub fn is_empty(self) -> bool {
        self.0 & !1 == 0
    }
}

/// The triggers of the cells a box touches (its interior grown by [`TOUCH`]): one call per
/// box per frame. Cells without a trigger count as [`Trigger::None`].
pub fn touching_triggers(collider: &Collider, aabb: &Aabb) -> TriggerSet {
    let (lo, hi) = aabb.inflated(TOUCH).cell_range();
    TriggerSet(collider.trigger_mask(lo, hi))
}

/// Whether a trigger cell was entered or left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriggerEvent {
    /// The box started touching a trigger cell.
    Enter {
        /// The cell.
        cell: [i32; 3],
        /// Its trigger.
        trigger: Trigger,
    },
    /// The box stopped touching a trigger cell.
    Exit {
        /// The cell.
        cell: [i32; 3],
        /// Its trigger.
        trigger: Trigger,
    },
}

/// Follows a moving box and reports the trigger cells it starts and stops touching.
///
/// ```
/// use vwr::{Block, World};
/// use vwr_play::{Aabb, Collider, TriggerEvent, TriggerTracker};
/// use vwr_blocks::Trigger;
///
/// let mut world = World::with_chunk_dims([1, 1, 1])?;
/// world.set_block([5, 0, 5], Block::make(378, 0)?)?; // a saw: a passable hazard
/// let c = Collider::new(&world, &vwr_blocks::Registry::default());
/// let mut t = TriggerTracker::default();
/// let far = Aabb::from_feet([2.5, 0.0, 2.5], [0.6, 1.8, 0.6]);
/// assert!(t.update(&c, &far).is_empty());
/// let on = Aabb::from_feet([5.5, 0.0, 5.5], [0.6, 1.8, 0.6]);
/// let hazard = Trigger::Hazard;
/// assert_eq!(t.update(&c, &on), [TriggerEvent::Enter { cell: [5, 0, 5], trigger: hazard }]);
/// assert_eq!(t.update(&c, &far), [TriggerEvent::Exit { cell: [5, 0, 5], trigger: hazard }]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct TriggerTracker {
    inside: BTreeMap<[i32; 3], Trigger>,
}

impl TriggerTracker {
    /// The trigger cells touched now.
    pub fn touching(&self) -> impl Iterator<Item = ([i32; 3], Trigger)> + '_ {
        self.inside.iter().map(|(&c, &t)| (c, t))
    }

    /// Moves the box to `aabb`: exits (cell order) then enters (cell order).
    pub fn update(&mut self, collider: &Collider, aabb: &Aabb) -> Vec<TriggerEvent> {
        let mut now = BTreeMap::new();
        cells_overlapping(collider, &aabb.inflated(TOUCH), |cell, f| {
            if f.trigger() != Trigger::None {
                now.insert(cell, f.trigger());
            }
        });
        let mut ev = Vec::new();
        for (&cell, &trigger) in &self.inside {
            if now.get(&cell) != Some(&trigger) {
                ev.push(TriggerEvent::Exit { cell, trigger });
            }
        }
        for (&cell, &trigger) in &now {
            if self.inside.get(&cell) != Some(&trigger) {
                ev.push(TriggerEvent::Enter { cell, trigger });
            }
        }
        self.inside = now;
        ev
    }
}
