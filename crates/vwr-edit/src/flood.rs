//! Flood fill: 6-connected region of one block value, scanline by scanline along X.

use vwr::Block;

use crate::error::{EditError, Result};
use crate::history::Tx;

/// Bounds of a flood fill, so that a fill into open air cannot run away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloodLimits {
    /// The fill never leaves this box (inclusive corners, any order, clamped to the world).
    /// `None` = the whole world.
    pub bounds: Option<([i32; 3], [i32; 3])>,
    /// Most cells the fill may change. A region with more cells is refused with
    /// [`EditError::FloodLimit`] and nothing is changed.
    pub max_cells: u64,
}

impl Default for FloodLimits {
    /// The whole world, at most 1 000 000 cells (a whole default 100³ world).
    fn default() -> Self {
        FloodLimits {
            bounds: None,
            max_cells: 1_000_000,
        }
    }
}

/// Replaces the 6-connected region of cells equal to the seed's value by `block`.
/// Returns the number of cells filled (0 when the seed already holds `block`).
pub(crate) fn flood_fill(
    tx: &mut Tx<'_>,
    seed: [i32; 3],
    block: Block,
    limits: FloodLimits,
) -> Result<u64> {
    let limit = tx.world().block_dims();
    let world_box = ([0, 0, 0], limit.map(|v| v as i32 - 1));
    let (a, b) = limits.bounds.unwrap_or(world_box);
    let inside = |p: [i32; 3]| (0..3).all(|k| p[k] >= 0 && (p[k] as u32) < limit[k]);
    if !inside(seed) {
        return Err(EditError::OutsideWorld {
            what: "flood fill seed",
            pos: seed,
            limit,
        });
    }
    let Some((lo, hi)) = tx.world().clamp_box(a, b) else {
        return Ok(0);
    };
    let lo = lo.map(|v| v as i32);
    let hi = hi.map(|v| v as i32);
    if (0..3).any(|k| seed[k] < lo[k] || seed[k] > hi[k]) {
        return Ok(0);
    }
    let target = tx.world().get_block([seed[0], seed[1], seed[2]]);
    if target == block {
        return Ok(0);
    }
    // Filled cells no longer hold `target`, so the world itself marks what was visited.
    let mut stack: Vec<[i32; 3]> = vec![seed];
    let mut filled = 0u64;
    while let Some([x, y, z]) = stack.pop() {
        let w = tx.world();
        if w.get_block([x, y, z]) != target {
            continue;
        }
        let mut x0 = x;
        while x0 > lo[0] && w.get_block([x0 - 1, y, z]) == target {
            x0 -= 1;
        }
        let mut x1 = x;
        while x1 < hi[0] && w.get_block([x1 + 1, y, z]) == target {
            x1 += 1;
        }
        let run = (x1 - x0 + 1) as u64;
        if filled + run > limits.max_cells {
            return Err(EditError::FloodLimit {
                seed,
                limit: limits.max_cells,
            });
        }
        // Push one seed per run of target cells on the four neighbouring rows.
        for (dy, dz) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            let (ny, nz) = (y + dy, z + dz);
            if ny < lo[1] || ny > hi[1] || nz < lo[2] || nz > hi[2] {
                continue;
            }
            let mut in_run = false;
            for nx in x0..=x1 {
                let t = w.get_block([nx, ny, nz]) == target;
                if t && !in_run {
                    stack.push([nx, ny, nz]);
                }
                in_run = t;
            }
        }
        if run == 1 {
            tx.set_block([x, y, z], block)?;
        } else {
            tx.fill_box([x0, y, z], [x1, y, z], block)?;
        }
        filled += run;
    }
    Ok(filled)
}
