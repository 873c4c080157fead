//! Which cells a script can read or write: what a lazily opened world must load before the
//! script runs ([`vwr::WorldSession::load_box`]).

use super::{Located, Op};

/// The cells a script touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Footprint {
    /// Only these boxes (inclusive corners, not yet clamped to the world).
    Boxes(Vec<([i32; 3], [i32; 3])>),
    /// Anything: a flood fill or a replace without bounds.
    Whole,
}

fn around(p: [i32; 3], r: i32) -> ([i32; 3], [i32; 3]) {
    (
        p.map(|v| v.saturating_sub(r)),
        p.map(|v| v.saturating_add(r)),
    )
}

fn cell(p: [f32; 3]) -> [i32; 3] {
    p.map(|v| v.floor() as i32)
}

/// The footprint of `ops`, applied in order (a paste covers the size of the last copy or cut
/// before it, in any rotation).
pub fn footprint(ops: &[Located]) -> Footprint {
    let mut boxes = Vec::new();
    let mut clip: Option<[i32; 3]> = None;
    for l in ops {
        let b = match &l.op {
            Op::Box(a, b, _) | Op::Hollow(a, b, _) | Op::Walls(a, b, _) => (*a, *b),
            Op::Copy(a, b) | Op::Cut(a, b) => {
                clip = Some([0, 1, 2].map(|k| a[k].abs_diff(b[k]).min(i32::MAX as u32) as i32));
                (*a, *b)
            }
            Op::Fill {
                seed,
                bounds: Some((a, b)),
                ..
            } => {
                boxes.push((*seed, *seed));
                (*a, *b)
            }
            Op::Fill { bounds: None, .. } | Op::Replace(_, _, None) => return Footprint::Whole,
            Op::Replace(_, _, Some((a, b))) => (*a, *b),
            Op::Brush(brush, c, _) => around(*c, brush.radius.min(i32::MAX as u32) as i32),
            Op::Place(p, _)
            | Op::Erase(p)
            | Op::ObjectRemove(p)
            | Op::Decor(p, _)
            | Op::DecorRemove(p)
            | Op::Plate(p, _) => (*p, *p),
            Op::ObjectAdd(o) => around(cell(o.pos_start), 1),
            Op::ObjectMove(from, to) => {
                boxes.push(around(*from, 1));
                around(cell(*to), 1)
            }
            Op::Paste(p, _) => match clip {
                Some(d) => {
                    let m = d[0].max(d[2]);
                    let lo = [p[0].saturating_sub(m), p[1], p[2].saturating_sub(m)];
                    let hi = [
                        p[0].saturating_add(m),
                        p[1].saturating_add(d[1]),
                        p[2].saturating_add(m),
                    ];
                    (lo, hi)
                }
                None => (*p, *p),
            },
            Op::Spawn(_) | Op::Sky(_) | Op::Mission(_) | Op::Undo | Op::Redo => continue,
        };
        boxes.push(b);
    }
    Footprint::Boxes(boxes)
}

/// Bytes an edit holds per chunk it changes at its peak, the world's own chunk, the undo
/// record and the page share included. Measured on a dry-run box over a million empty chunks
/// of a 655350×10×655350-block world: 650 bytes a chunk above the opened world.
pub const EDIT_BYTES_PER_CHUNK: u64 = 700;

impl Footprint {
    /// Every chunk position of `world` the boxes reach (clamped), in file order, each once;
    /// `None` for [`Footprint::Whole`].
    pub fn chunks_in(&self, world: &vwr::World) -> Option<Vec<[u32; 3]>> {
        let Footprint::Boxes(boxes) = self else {
            return None;
        };
        let c = vwr::CHUNK_SIZE as u32;
        let mut out = Vec::new();
        for &(a, b) in boxes {
            let Some((lo, hi)) = world.clamp_box(a, b) else {
                continue;
            };
            for z in lo[2] / c..=hi[2] / c {
                for y in lo[1] / c..=hi[1] / c {
                    for x in lo[0] / c..=hi[0] / c {
                        out.push([x, y, z]);
                    }
                }
            }
        }
        out.sort_unstable_by_key(|p| (p[2], p[1], p[0]));
        out.dedup();
        Some(out)
    }

    /// The chunks of a world of `chunk_dims` chunks the boxes reach, at most (boxes clamped to
    /// the world, overlaps counted twice); `None` for [`Footprint::Whole`].
    pub fn chunks_within(&self, chunk_dims: [u32; 3]) -> Option<u64> {
        let Footprint::Boxes(boxes) = self else {
            return None;
        };
        let s = vwr::CHUNK_SIZE as i64;
        let per_box = |(a, b): &([i32; 3], [i32; 3])| -> u64 {
            (0..3)
                .map(|k| {
                    let top = chunk_dims[k] as i64 * s - 1;
                    let lo = (a[k].min(b[k]) as i64).clamp(0, top.max(0));
                    let hi = (a[k].max(b[k]) as i64).clamp(0, top.max(0));
                    if a[k].max(b[k]) < 0 || a[k].min(b[k]) as i64 > top {
                        0
                    } else {
                        (hi / s - lo / s + 1) as u64
                    }
                })
                .product()
        };
        Some(boxes.iter().map(per_box).fold(0u64, u64::saturating_add))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::parse_text;

    fn fp(s: &str) -> Footprint {
        footprint(&parse_text("t", s).unwrap())
    }

    #[test]
    fn bounded_operations_name_their_boxes_and_unbounded_ones_the_whole_world() {
        assert_eq!(
            fp("place 1 2 3 35\nsky 4\nundo"),
            Footprint::Boxes(vec![([1, 2, 3], [1, 2, 3])])
        );
        assert_eq!(fp("fill 1 1 1 water"), Footprint::Whole);
        assert_eq!(fp("replace 35 36"), Footprint::Whole);
        assert_eq!(
            fp("brush sphere 10 10 10 2 35"),
            Footprint::Boxes(vec![([8, 8, 8], [12, 12, 12])])
        );
        let Footprint::Boxes(b) = fp("copy 0 0 0 3 1 7\npaste 20 5 20 rot 90") else {
            panic!()
        };
        assert_eq!(b[1], ([13, 5, 13], [27, 6, 27]));
    }

    #[test]
    fn chunks_within_counts_the_chunks_boxes_reach_clamped_to_the_world() {
        let boxes = |b: Vec<([i32; 3], [i32; 3])>| Footprint::Boxes(b);
        let d = [65535, 1, 65535];
        // The whole floor of the largest world.
        let floor = boxes(vec![([0, 0, 0], [655_349, 0, 655_349])]);
        assert_eq!(floor.chunks_within(d), Some(65535 * 65535));
        // Corners in any order, clamped; one cell is one chunk; outside is nothing.
        let b = boxes(vec![
            ([19, 5, 19], [-100, 0, 0]),
            ([3, 3, 3], [3, 3, 3]),
            ([-9, 0, 0], [-1, 0, 0]),
            ([700_000, 0, 0], [800_000, 0, 0]),
        ]);
        assert_eq!(b.chunks_within(d), Some(2 * 2 + 1));
        assert_eq!(Footprint::Whole.chunks_within(d), None);
    }
}
