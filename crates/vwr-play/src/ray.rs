//! Raycasts: Amanatides–Woo voxel traversal.
//!
//! A ray `origin + t · dir / |dir|` visits the cells its interior passes through, in order of
//! the distance `t` at which it enters them. Where the ray crosses a cell boundary exactly at an
//! edge or a corner (two or three axes at the same `t`), it steps to the diagonal cell at once:
//! cells the ray only touches along an edge or at a corner (a set of zero length) are not
//! visited. The reported face of such a diagonal entry is the one of the first crossing axis in
//! the order Y, X, Z.

use vwr_blocks::Trigger;

use crate::collider::{CellFlags, Collider};
use crate::PlayError;

/// A face of a cell, named by its outward normal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Face {
    /// `+x`.
    PosX,
    /// `-x`.
    NegX,
    /// `+y` (the top).
    PosY,
    /// `-y` (the bottom).
    NegY,
    /// `+z`.
    PosZ,
    /// `-z`.
    NegZ,
}

impl Face {
    /// `"+x"`, `"-x"`, `"+y"`, `"-y"`, `"+z"`, `"-z"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Face::PosX => "+x",
            Face::NegX => "-x",
            Face::PosY => "+y",
            Face::NegY => "-y",
            Face::PosZ => "+z",
            Face::NegZ => "-z",
        }
    }

    /// The face through which a ray travelling along `axis` with sign `positive` enters a
    /// cell (travelling `+x` enters through the `-x` face).
    pub fn entered(axis: usize, positive: bool) -> Face {
        match (axis, positive) {
            (0, true) => Face::NegX,
            (0, false) => Face::PosX,
            (1, true) => Face::NegY,
            (1, false) => Face::PosY,
            (_, true) => Face::NegZ,
            (_, false) => Face::PosZ,
        }
    }

    /// The axis (0 = x, 1 = y, 2 = z).
    pub fn axis(self) -> usize {
        match self {
            Face::PosX | Face::NegX => 0,
            Face::PosY | Face::NegY => 1,
            Face::PosZ | Face::NegZ => 2,
        }
    }
}

/// One cell visited by a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayCell {
    /// The cell.
    pub cell: [i32; 3],
    /// Distance along the ray at which it enters the cell (0 for the start cell).
    pub distance: f64,
    /// The face it enters through; `None` for the cell the ray starts in.
    pub face: Option<Face>,
    /// The cell's collision flags.
    pub flags: CellFlags,
}

/// The first solid cell on a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The solid cell.
    pub cell: [i32; 3],
    /// The face entered; `None` when the ray starts inside the solid cell.
    pub face: Option<Face>,
    /// Where the ray meets the cell.
    pub point: [f64; 3],
    /// Distance from the origin along the normalised direction (0 when starting inside).
    pub distance: f64,
    /// The cell's trigger.
    pub trigger: Trigger,
}

const ORDER: [usize; 3] = [1, 0, 2];

/// The direction scaled by a power of two (exactly, so that boundary crossings that are exact
/// rationals stay exact and exact ties stay ties) to components of at most 2 in magnitude, and
/// its length. Ray parameters `s` are in units of this vector; distances are `s · len`.
pub(crate) fn scaled(dir: [f64; 3]) -> Result<([f64; 3], f64), PlayError> {
    let m = dir.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 {
        return Err(PlayError::ZeroDirection);
    }
    // 2^floor(log2 m): m with its mantissa cleared (the smallest normal for subnormal m).
    let e = f64::from_bits(m.to_bits() & 0x7FF0_0000_0000_0000).max(f64::MIN_POSITIVE);
    let v = dir.map(|x| x / e);
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    Ok((v, len))
}

/// Visits every cell inside the world that the ray passes through, nearest first, up to
/// `max_distance` (a cell entered exactly at `max_distance` is visited; `f64::INFINITY` runs
/// to the world's edge), until `f` returns `false`. Rays starting outside the world are
/// clipped to it first. For line of sight and picking.
///
/// Errors: non-finite origin or direction, a zero direction, a negative or NaN maximum.
pub fn ray_cells(
    collider: &Collider,
    origin: [f64; 3],
    dir: [f64; 3],
    max_distance: f64,
    mut f: impl FnMut(RayCell) -> bool,
) -> Result<(), PlayError> {
    crate::check_finite("ray origin", origin)?;
    crate::check_finite("ray direction", dir)?;
    if max_distance.is_nan() || max_distance < 0.0 {
        return Err(PlayError::BadMaxDistance(max_distance));
    }
    let (u, len) = scaled(dir)?;
    let max_s = max_distance / len;
    let dims = collider.block_dims().map(f64::from);

    // Clip to the world box [0, dims].
    let (mut t_in, mut t_out) = (0.0f64, max_s);
    let mut entry_axis = None;
    for k in 0..3 {
        if u[k] == 0.0 {
            if origin[k] < 0.0 || origin[k] >= dims[k] {
                return Ok(());
            }
            continue;
        }
        let (a, b) = ((0.0 - origin[k]) / u[k], (dims[k] - origin[k]) / u[k]);
        let (near, far) = if a < b { (a, b) } else { (b, a) };
        if near > t_in {
            t_in = near;
            entry_axis = Some(k);
        }
        t_out = t_out.min(far);
    }
    if t_in > t_out || (t_in == t_out && t_in > 0.0) {
        return Ok(());
    }
    let mut cell = [0i64; 3];
    for k in 0..3 {
        let p = if t_in == 0.0 {
            origin[k]
        } else {
            origin[k] + u[k] * t_in
        };
        let mut c = p.floor() as i64;
        if Some(k) == entry_axis {
            // Exactly on the world face: the cell just inside.
            c = if u[k] > 0.0 { 0 } else { dims[k] as i64 - 1 };
        }
        cell[k] = c.clamp(0, dims[k] as i64 - 1);
    }
    let mut face = entry_axis.map(|k| Face::entered(k, u[k] > 0.0));
    let step = u.map(|v| if v > 0.0 { 1i64 } else { -1 });
    let boundary = |c: i64, k: usize| -> f64 {
        if u[k] == 0.0 {
            f64::INFINITY
        } else {
            let b = if u[k] > 0.0 { c + 1 } else { c } as f64;
            (b - origin[k]) / u[k]
        }
    };
    let mut t_max = [0, 1, 2].map(|k| boundary(cell[k], k));
    let mut t = t_in;
    let limit = collider
        .block_dims()
        .iter()
        .map(|&d| d as u64 + 2)
        .sum::<u64>();
    for _ in 0..limit {
        let flags = CellFlags(collider.flags_in(cell[0] as u32, cell[1] as u32, cell[2] as u32));
        let visit = RayCell {
            cell: cell.map(|c| c as i32),
            // +0.0 turns a -0.0 (a boundary crossed at the origin) into 0.
            distance: t * len + 0.0,
            face,
            flags,
        };
        if !f(visit) {
            return Ok(());
        }
        let t_next = t_max[0].min(t_max[1]).min(t_max[2]);
        if t_next > t_out {
            return Ok(());
        }
        face = None;
        for k in ORDER {
            if t_max[k] == t_next {
                cell[k] += step[k];
                if face.is_none() {
                    face = Some(Face::entered(k, u[k] > 0.0));
                }
                t_max[k] = boundary(cell[k], k);
            }
        }
        t = t_next;
        if !collider.contains(cell) {
            return Ok(());
        }
    }
    Ok(())
}

/// The first solid cell on a ray within `max_distance`, with the face entered, the hit point
/// and the distance; a ray starting inside a solid cell hits it at distance 0 with no face.
/// `Ok(None)` when nothing solid is met.
///
/// ```
/// use vwr::{Block, World};
/// use vwr_play::{raycast, Collider, Face};
///
/// let mut world = World::with_chunk_dims([2, 1, 1])?;
/// world.fill_box([0, 0, 0], [19, 0, 9], Block::make(35, 0)?)?;
/// let c = Collider::new(&world, &vwr_blocks::Registry::default());
/// let hit = raycast(&c, [3.5, 5.0, 2.5], [0.0, -1.0, 0.0], 100.0)?.unwrap();
/// assert_eq!((hit.cell, hit.face, hit.distance), ([3, 0, 2], Some(Face::PosY), 4.0));
/// assert_eq!(hit.point, [3.5, 1.0, 2.5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn raycast(
    collider: &Collider,
    origin: [f64; 3],
    dir: [f64; 3],
    max_distance: f64,
) -> Result<Option<RayHit>, PlayError> {
    let mut hit = None;
    ray_cells(collider, origin, dir, max_distance, |c| {
        if c.flags.solid() {
            hit = Some(c);
            false
        } else {
            true
        }
    })?;
    let Some(c) = hit else { return Ok(None) };
    let (v, len) = scaled(dir)?;
    let s = c.distance / len;
    let mut point = [0, 1, 2].map(|k| origin[k] + v[k] * s);
    if let Some(f) = c.face {
        // Exactly on the entered face.
        let k = f.axis();
        point[k] = f64::from(c.cell[k]) + if dir[k] > 0.0 { 0.0 } else { 1.0 };
    }
    if c.distance == 0.0 {
        point = origin;
    }
    Ok(Some(RayHit {
        cell: c.cell,
        face: c.face,
        point,
        distance: c.distance,
        trigger: c.flags.trigger(),
    }))
}
