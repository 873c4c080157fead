//! Swept axis-aligned boxes against the solid cells: move-and-slide.

use crate::aabb::sat;
use crate::{Aabb, Collider, PlayError};

/// The result of [`sweep`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep {
    /// The box after the move.
    pub aabb: Aabb,
    /// How far it moved on each axis.
    pub moved: [f64; 3],
    /// Axes on which the move was cut short by a solid cell (x, y, z).
    pub blocked: [bool; 3],
    /// Whether the box ends resting on a solid cell (its bottom flush on a solid top face,
    /// overlapping it horizontally).
    pub on_ground: bool,
    /// The box overlapped solid cells before moving; it was not moved.
    pub start_overlaps: bool,
}

/// Moves `aabb` by `displacement` against the solid cells of `collider`, one axis at a time in
/// the order Y, X, Z (move-and-slide: a blocked axis stops, the others go on).
///
/// On each axis the box travels through every cell layer between its start and its target, so
/// it never tunnels, whatever the speed; it stops flush against the first solid cell whose
/// cross-section its interior overlaps (touching is not overlapping, so a box resting on a
/// floor or against a wall slides along it without catching on the seams between blocks).
/// Cells outside the world are empty. A box that already overlaps a solid cell is reported
/// (`start_overlaps`) and not moved.
///
/// ```
/// use vwr::{Block, World};
/// use vwr_play::{sweep, Aabb, Collider};
///
/// let mut world = World::with_chunk_dims([3, 1, 2])?;
/// world.fill_box([0, 0, 0], [29, 0, 19], Block::make(35, 0)?)?; // floor
/// world.fill_box([20, 1, 0], [20, 5, 19], Block::make(261, 0)?)?; // wall at x = 20
/// let c = Collider::new(&world, &vwr_blocks::Registry::default());
/// let player = Aabb::from_feet([5.5, 3.0, 5.5], [0.6, 1.8, 0.6]);
/// let s = sweep(&c, &player, [1000.0, -10.0, 2.0])?;
/// assert_eq!(s.aabb.max[0], 20.0); // flush against the wall, no tunnelling
/// assert_eq!(s.aabb.min[1], 1.0); // standing on the floor
/// assert_eq!(s.blocked, [true, true, false]);
/// assert!(s.on_ground && !s.start_overlaps);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sweep(collider: &Collider, aabb: &Aabb, displacement: [f64; 3]) -> Result<Sweep, PlayError> {
    crate::check_finite("displacement", displacement)?;
    let aabb = Aabb::new(aabb.min, aabb.max)?;
    let (lo, hi) = aabb.cell_range();
    if collider.any_solid(lo, hi) {
        return Ok(Sweep {
            aabb,
            moved: [0.0; 3],
            blocked: [false; 3],
            on_ground: on_ground(collider, &aabb),
            start_overlaps: true,
        });
    }
    let mut b = aabb;
    let mut moved = [0.0; 3];
    let mut blocked = [false; 3];
    for k in [1, 0, 2] {
        let (m, bl) = move_axis(collider, &mut b, k, displacement[k]);
        moved[k] = m;
        blocked[k] = bl;
    }
    Ok(Sweep {
        aabb: b,
        moved,
        blocked,
        on_ground: on_ground(collider, &b),
        start_overlaps: false,
    })
}

/// Whether the box rests on a solid cell: its bottom lies exactly on a cell boundary and a
/// solid cell just below overlaps it horizontally.
pub fn on_ground(collider: &Collider, aabb: &Aabb) -> bool {
    let y = aabb.min[1];
    if y.fract() != 0.0 {
        return false;
    }
    let (lo, hi) = aabb.cell_range();
    let below = sat(y) - 1;
    collider.any_solid([lo[0], below, lo[2]], [hi[0], below, hi[2]])
}

/// Moves the box along axis `k` by `d`; returns (distance moved, blocked).
fn move_axis(c: &Collider, b: &mut Aabb, k: usize, d: f64) -> (f64, bool) {
    if d == 0.0 {
        return (0.0, false);
    }
    let (lo, hi) = b.cell_range();
    let dims = c.block_dims();
    let others: [usize; 2] = match k {
        0 => [1, 2],
        1 => [0, 2],
        _ => [0, 1],
    };
    // Cross-section of the box on the other two axes, clamped to the world.
    let mut cs_lo = [0i64; 2];
    let mut cs_hi = [0i64; 2];
    let mut empty = false;
    for (i, &o) in others.iter().enumerate() {
        cs_lo[i] = lo[o].max(0);
        cs_hi[i] = hi[o].min(dims[o] as i64 - 1);
        empty |= cs_lo[i] > cs_hi[i];
    }
    let layer_solid = |layer: i64| -> bool {
        let mut a = [0i64; 3];
        let mut z = [0i64; 3];
        a[k] = layer;
        z[k] = layer;
        for i in 0..2 {
            a[others[i]] = cs_lo[i];
            z[others[i]] = cs_hi[i];
        }
        c.any_solid(a, z)
    };
    let last = dims[k] as i64 - 1;
    let mut stop = None;
    if !empty && d > 0.0 {
        let lead = b.max[k];
        let first = sat(lead.ceil()).max(0);
        let end = (sat((lead + d).ceil()) - 1).min(last);
        let mut layer = first;
        while layer <= end {
            if layer_solid(layer) {
                stop = Some(layer as f64 - lead);
                break;
            }
            layer += 1;
        }
    } else if !empty {
        let lead = b.min[k];
        let first = (sat(lead.floor()) - 1).min(last);
        let end = sat((lead + d).floor()).max(0);
        let mut layer = first;
        while layer >= end {
            if layer_solid(layer) {
                stop = Some(layer as f64 + 1.0 - lead);
                break;
            }
            layer -= 1;
        }
    }
    let (delta, blocked) = match stop {
        // A stop further than the displacement cannot happen (layers end at the target),
        // but keep the smaller magnitude to be safe against rounding.
        Some(s) if s.abs() < d.abs() => (s, true),
        _ => (d, false),
    };
    let (min0, max0) = (b.min[k], b.max[k]);
    b.min[k] = min0 + delta;
    b.max[k] = max0 + delta;
    if blocked {
        // Flush exactly on the blocking face.
        if d > 0.0 {
            b.max[k] = (max0 + delta).round();
        } else {
            b.min[k] = (min0 + delta).round();
        }
    }
    (delta, blocked)
}
