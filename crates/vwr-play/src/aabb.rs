//! Axis-aligned boxes in world units (one unit = one block).

use crate::PlayError;

/// An axis-aligned box, `min <= max` on every axis, in blocks (cell `[x, y, z]` spans
/// `[x, x+1] × [y, y+1] × [z, z+1]`).
///
/// Two boxes *overlap* when their interiors intersect: boxes that only touch along a face, an
/// edge or a corner do not overlap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Minimum corner.
    pub min: [f64; 3],
    /// Maximum corner.
    pub max: [f64; 3],
}

impl Aabb {
    /// A box from its corners, checked: finite, `min <= max`.
    pub fn new(min: [f64; 3], max: [f64; 3]) -> Result<Aabb, PlayError> {
        crate::check_finite("box min", min)?;
        crate::check_finite("box max", max)?;
        if (0..3).any(|k| min[k] > max[k]) {
            return Err(PlayError::InvertedBox { min, max });
        }
        Ok(Aabb { min, max })
    }

    /// A box of `size` standing with its bottom centre at `feet`.
    pub fn from_feet(feet: [f64; 3], size: [f64; 3]) -> Aabb {
        Aabb {
            min: [feet[0] - size[0] / 2.0, feet[1], feet[2] - size[2] / 2.0],
            max: [
                feet[0] + size[0] / 2.0,
                feet[1] + size[1],
                feet[2] + size[2] / 2.0,
            ],
        }
    }

    /// The unit box of a cell.
    pub fn cell(c: [i32; 3]) -> Aabb {
        let f = c.map(f64::from);
        Aabb {
            min: f,
            max: [f[0] + 1.0, f[1] + 1.0, f[2] + 1.0],
        }
    }

    /// Size per axis.
    pub fn size(&self) -> [f64; 3] {
        [0, 1, 2].map(|k| self.max[k] - self.min[k])
    }

    /// The bottom centre.
    pub fn feet(&self) -> [f64; 3] {
        [
            (self.min[0] + self.max[0]) / 2.0,
            self.min[1],
            (self.min[2] + self.max[2]) / 2.0,
        ]
    }

    /// The box moved by `d`.
    pub fn translated(&self, d: [f64; 3]) -> Aabb {
        Aabb {
            min: [0, 1, 2].map(|k| self.min[k] + d[k]),
            max: [0, 1, 2].map(|k| self.max[k] + d[k]),
        }
    }

    /// The box grown by `e` on every side.
    pub fn inflated(&self, e: f64) -> Aabb {
        Aabb {
            min: self.min.map(|v| v - e),
            max: self.max.map(|v| v + e),
        }
    }

    /// Whether the interiors intersect (touching is not overlapping).
    pub fn overlaps(&self, o: &Aabb) -> bool {
        (0..3).all(|k| self.min[k] < o.max[k] && o.min[k] < self.max[k])
    }

    /// The cells whose interiors the box's interior intersects, as an inclusive range
    /// `(lo, hi)`; empty (`lo > hi` on some axis) for a flat box. Not clamped to a world.
    pub fn cell_range(&self) -> ([i64; 3], [i64; 3]) {
        let mut lo = [0i64; 3];
        let mut hi = [0i64; 3];
        for k in 0..3 {
            lo[k] = sat(self.min[k].floor());
            // A cell c overlaps when c < max, i.e. c <= ceil(max) - 1.
            hi[k] = sat(self.max[k].ceil()) - 1;
        }
        (lo, hi)
    }
}

/// f64 -> i64 saturating (also for values far outside any world).
pub(crate) fn sat(v: f64) -> i64 {
    v.clamp(-(1i64 << 52) as f64, (1i64 << 52) as f64) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touching_is_not_overlapping() {
        let a = Aabb::cell([0, 0, 0]);
        assert!(!a.overlaps(&Aabb::cell([1, 0, 0])));
        assert!(!a.overlaps(&Aabb::cell([1, 1, 1])));
        assert!(a.overlaps(&a.translated([0.5, 0.0, 0.0])));
        assert_eq!(a.cell_range(), ([0, 0, 0], [0, 0, 0]));
        let b = Aabb::new([0.2, 1.0, 0.2], [0.8, 2.8, 0.8]).unwrap();
        assert_eq!(b.cell_range(), ([0, 1, 0], [0, 2, 0]));
        assert!(Aabb::new([1.0, 0.0, 0.0], [0.0, 1.0, 1.0]).is_err());
        assert!(Aabb::new([f64::NAN, 0.0, 0.0], [0.0, 1.0, 1.0]).is_err());
    }
}
