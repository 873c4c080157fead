//! Raycasts against exact and sampled brute-force references on random non-cubic worlds,
//! with rays aimed exactly at edges and corners.

mod common;

use common::{collider, random_world, solid_ref};
use proptest::prelude::*;
use vwr::{Block, World};
use vwr_play::{ray_cells, raycast, Collider, Face, PlayError, RayHit};

/// The exact reference: every cell of the world, with the set of ray parameters `t >= 0` at
/// which `floor(origin + t·u)` is that cell (half-open cells, as `floor` assigns points on a
/// boundary to the cell above). A cell is on the ray when that set has positive length, or it
/// holds the origin. The first solid cell is the one entered first. Returns (cell, entry
/// distance, entry axis or None for the origin cell).
fn reference(
    w: &World,
    o: [f64; 3],
    d: [f64; 3],
    max: f64,
) -> Option<([i32; 3], f64, Option<usize>)> {
    let (u, len) = scaled(d);
    let max = max / len;
    let dims = w.block_dims();
    let start = o.map(|v| v.floor() as i64);
    let mut best: Option<([i32; 3], f64, Option<usize>)> = None;
    for z in 0..dims[2] as i64 {
        for y in 0..dims[1] as i64 {
            for x in 0..dims[0] as i64 {
                let c = [x, y, z];
                if !solid_ref(w, c) {
                    continue;
                }
                if c == start {
                    return Some((c.map(|v| v as i32), 0.0, None));
                }
                let (mut lo, mut hi, mut axis) = (0.0f64, f64::INFINITY, None);
                let mut ok = true;
                for k in [1, 0, 2] {
                    if u[k] == 0.0 {
                        ok &= c[k] as f64 <= o[k] && o[k] < c[k] as f64 + 1.0;
                        continue;
                    }
                    // Same formula as the traversal: (boundary - o) / u.
                    let (a, b) = if u[k] > 0.0 {
                        (
                            (c[k] as f64 - o[k]) / u[k],
                            (c[k] as f64 + 1.0 - o[k]) / u[k],
                        )
                    } else {
                        (
                            (c[k] as f64 + 1.0 - o[k]) / u[k],
                            (c[k] as f64 - o[k]) / u[k],
                        )
                    };
                    if a > lo || (axis.is_none() && a == lo && lo > 0.0) {
                        lo = a;
                        axis = Some(k);
                    }
                    hi = hi.min(b);
                }
                if !ok || lo >= hi || lo > max {
                    continue;
                }
                if best.is_none_or(|b| lo < b.1) {
                    best = Some((c.map(|v| v as i32), lo, axis));
                }
            }
        }
    }
    best.map(|(c, s, a)| (c, s * len + 0.0, a))
}

/// The direction scaled by a power of two and its length, like the traversal does, so that
/// exact ties are ties in both (ray parameters `s` in units of it; distances `s · len`).
fn scaled(d: [f64; 3]) -> ([f64; 3], f64) {
    let m = d.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let e = f64::from_bits(m.to_bits() & 0x7FF0_0000_0000_0000).max(f64::MIN_POSITIVE);
    let v = d.map(|x| x / e);
    (v, (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt())
}

fn face_axis(f: Option<Face>) -> Option<usize> {
    f.map(Face::axis)
}

fn check(w: &World, o: [f64; 3], d: [f64; 3], max: f64) -> Result<(), TestCaseError> {
    let c = collider(w);
    let hit = raycast(&c, o, d, max).unwrap();
    let want = reference(w, o, d, max);
    match (hit, want) {
        (None, None) => {}
        (Some(h), Some((cell, dist, axis))) => {
            prop_assert_eq!(h.cell, cell, "origin {:?} dir {:?}", o, d);
            prop_assert_eq!(h.distance, dist);
            if dist > 0.0 {
                prop_assert_eq!(face_axis(h.face), axis, "origin {:?} dir {:?}", o, d);
            } else if h.face.is_none() {
                prop_assert_eq!(h.point, o);
            }
            // The hit point lies on the cell's surface (or inside it, for a start inside).
            for (&v, &c) in h.point.iter().zip(&cell) {
                prop_assert!(v >= c as f64 - 1e-9 && v <= c as f64 + 1.0 + 1e-9);
            }
        }
        (h, r) => prop_assert!(
            false,
            "origin {:?} dir {:?}: got {:?}, reference {:?}",
            o,
            d,
            h,
            r
        ),
    }
    // Sampled reference: no point sampled finely before the hit is in a solid cell.
    let (v, len) = scaled(d);
    let u = v.map(|x| x / len);
    let end = hit.map_or(max.min(80.0), |h| h.distance);
    let mut t = 0.0;
    while t < end - 1e-6 {
        let q = [0, 1, 2].map(|k| o[k] + u[k] * t);
        // A sample on a cell boundary (rays aimed at exact edges and corners pass through
        // them) belongs to no single cell; rounding would put it in an arbitrary neighbour.
        if q.iter().any(|v| (v - v.round()).abs() < 1e-9) {
            t += 4e-3;
            continue;
        }
        let p = q.map(|v| v.floor() as i64);
        prop_assert!(
            !solid_ref(w, p),
            "sample t={} in solid {:?} before the hit",
            t,
            p
        );
        t += 4e-3;
    }
    Ok(())
}

/// The hit of a valid ray that must hit something.
fn hit(c: &Collider, o: [f64; 3], d: [f64; 3], max: f64) -> RayHit {
    raycast(c, o, d, max).unwrap().unwrap()
}

/// Whether a valid ray hits nothing within `max`.
fn miss(c: &Collider, o: [f64; 3], d: [f64; 3], max: f64) -> bool {
    raycast(c, o, d, max).unwrap().is_none()
}

fn coord() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-4i32..28).prop_map(f64::from),          // exact cell corners
        (-8i32..56).prop_map(|v| v as f64 / 2.0), // corners and cell centres
        -4.0f64..28.0,
    ]
}

fn dir() -> impl Strategy<Value = [f64; 3]> {
    prop_oneof![
        // Integer directions: through exact edges and corners from grid-aligned origins.
        [-2i32..=2, -2i32..=2, -2i32..=2].prop_map(|v| v.map(f64::from)),
        [-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0],
    ]
    .prop_filter("non-zero", |d| d.iter().any(|&v| v != 0.0))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn raycast_matches_the_brute_force_reference(
        seed in 1u64..1000,
        o in [coord(), coord(), coord()],
        d in dir(),
        max in prop_oneof![Just(f64::INFINITY), 0.0f64..40.0, (0i32..30).prop_map(f64::from)],
    ) {
        let w = random_world(seed, [2, 1, 2], 0.04);
        check(&w, o, d, max)?;
    }
}

#[test]
fn edges_and_corners_step_diagonally() {
    let mut w = World::with_chunk_dims([1, 1, 1]).unwrap();
    let rock = Block::make(35, 0).unwrap();
    // Two blocks touching the diagonal only at an edge, and one on the diagonal behind them.
    w.set_block([1, 0, 0], rock).unwrap();
    w.set_block([0, 1, 0], rock).unwrap();
    w.set_block([3, 3, 0], rock).unwrap();
    let c = collider(&w);
    let h = hit(&c, [0.5, 0.5, 0.5], [1.0, 1.0, 0.0], 100.0);
    assert_eq!(h.cell, [3, 3, 0]);
    assert_eq!(h.face, Some(Face::NegY)); // diagonal entry: Y first
    let s2 = 2f64.sqrt();
    assert!((h.distance - 2.5 * s2).abs() < 1e-12);
    // Exactly through a corner of three axes.
    w.set_block([4, 4, 4], rock).unwrap();
    let c = collider(&w);
    let h = hit(&c, [2.0, 2.0, 2.0], [1.0, 1.0, 1.0], 100.0);
    assert_eq!(h.cell, [4, 4, 4]);
    check(&w, [0.5, 0.5, 0.5], [1.0, 1.0, 0.0], 100.0).unwrap();
    check(&w, [2.0, 2.0, 2.0], [1.0, 1.0, 1.0], 100.0).unwrap();
}

#[test]
fn start_inside_axis_parallel_max_distance_and_world_edges() {
    let mut w = World::with_chunk_dims([3, 1, 2]).unwrap();
    let rock = Block::make(35, 0).unwrap();
    w.set_block([12, 4, 5], rock).unwrap();
    w.set_block([29, 4, 5], rock).unwrap(); // at the world's +x edge
    let c = collider(&w);
    // Starting inside a solid cell: distance 0, no face.
    let h = hit(&c, [12.5, 4.5, 5.5], [1.0, 0.0, 0.0], 10.0);
    assert_eq!((h.cell, h.face, h.distance), ([12, 4, 5], None, 0.0));
    // Axis-parallel across the chunk border at x = 10 and 20.
    let h = hit(&c, [0.5, 4.5, 5.5], [1.0, 0.0, 0.0], 100.0);
    assert_eq!(
        (h.cell, h.face, h.distance, h.point),
        ([12, 4, 5], Some(Face::NegX), 11.5, [12.0, 4.5, 5.5])
    );
    // Maximum distance: just short, exactly at the face, beyond.
    assert!(miss(&c, [0.5, 4.5, 5.5], [2.0, 0.0, 0.0], 11.49));
    assert!(!miss(&c, [0.5, 4.5, 5.5], [2.0, 0.0, 0.0], 11.5));
    // From outside the world, entering through its face.
    let h = hit(&c, [-50.0, 4.5, 5.5], [1.0, 0.0, 0.0], f64::INFINITY);
    assert_eq!((h.cell, h.distance), ([12, 4, 5], 62.0));
    let h = hit(&c, [80.0, 4.5, 5.5], [-1.0, 0.0, 0.0], f64::INFINITY);
    assert_eq!(
        (h.cell, h.face, h.distance),
        ([29, 4, 5], Some(Face::PosX), 50.0)
    );
    // Along the world's top face from outside: nothing.
    assert!(miss(&c, [-5.0, 10.0, 5.5], [1.0, 0.0, 0.0], f64::INFINITY));
    // Pointing away from the world.
    assert!(miss(&c, [-5.0, 4.5, 5.5], [-1.0, 0.0, 0.0], f64::INFINITY));
}

#[test]
fn every_cell_variant_visits_contiguous_cells() {
    let w = random_world(7, [2, 2, 1], 0.0);
    let c = collider(&w);
    let mut cells = Vec::new();
    ray_cells(
        &c,
        [0.5, 0.5, 0.5],
        [19.0, 13.0, 7.0],
        f64::INFINITY,
        |rc| {
            cells.push(rc);
            true
        },
    )
    .unwrap();
    assert_eq!(cells[0].cell, [0, 0, 0]);
    assert_eq!(cells[0].face, None);
    let mut diagonal = 0;
    for pair in cells.windows(2) {
        let steps: Vec<i32> = (0..3)
            .map(|k| (pair[1].cell[k] - pair[0].cell[k]).abs())
            .collect();
        assert!(steps.iter().all(|&s| s <= 1), "{:?}", pair);
        let n: i32 = steps.iter().sum();
        assert!(n >= 1);
        diagonal += (n > 1) as i32;
        assert!(pair[1].distance > pair[0].distance);
    }
    // (19, 13, 7) from a cell centre crosses the corner (10, 7, 4) exactly.
    assert_eq!(diagonal, 1);
    let last = cells.last().unwrap().cell;
    assert!(last[0] == 19 || last[1] == 19 || last[2] == 9, "{last:?}");
    // Stopping early.
    let mut n = 0;
    ray_cells(&c, [0.5, 0.5, 0.5], [1.0, 0.0, 0.0], 100.0, |_| {
        n += 1;
        n < 3
    })
    .unwrap();
    assert_eq!(n, 3);
}

#[test]
fn bad_rays_are_errors() {
    let w = random_world(3, [1, 1, 1], 0.1);
    let c = collider(&w);
    assert!(matches!(
        raycast(&c, [0.0; 3], [0.0; 3], 1.0),
        Err(PlayError::ZeroDirection)
    ));
    assert!(matches!(
        raycast(&c, [f64::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], 1.0),
        Err(PlayError::NotFinite { .. })
    ));
    assert!(matches!(
        raycast(&c, [0.0; 3], [f64::INFINITY, 0.0, 0.0], 1.0),
        Err(PlayError::NotFinite { .. })
    ));
    assert!(matches!(
        raycast(&c, [0.0; 3], [1.0, 0.0, 0.0], -1.0),
        Err(PlayError::BadMaxDistance(_))
    ));
    assert!(matches!(
        raycast(&c, [0.0; 3], [1.0, 0.0, 0.0], f64::NAN),
        Err(PlayError::BadMaxDistance(_))
    ));
    // Huge but finite values do not hang.
    let _ = raycast(&c, [-1e300, 5.0, 5.0], [1.0, 1e-300, 0.0], f64::INFINITY).unwrap();
    let _ = raycast(&c, [5.0, 5.0, 5.0], [1e300, 1e300, 1e300], f64::INFINITY).unwrap();
}

/// Found by the property test: a ray entering the world through y = 0 exactly on the x = 15
/// cell boundary while moving towards -x starts in cell 14, not 15.
#[test]
fn entering_on_a_boundary_while_moving_down_that_axis_starts_in_the_lower_cell() {
    let mut w = vwr::World::with_chunk_dims([3, 1, 2]).unwrap();
    w.fill_box([0, 0, 0], [29, 9, 19], vwr::Block::AIR).unwrap();
    let registry = vwr_blocks::default_registry();
    let collider = vwr_play::Collider::new(&w, registry);
    let mut first = None;
    let (origin, dir) = ([18.0, -1.5, 8.405736320538104], [-2.0, 1.0, -1.0]);
    vwr_play::ray_cells(&collider, origin, dir, f64::INFINITY, |c| {
        first.get_or_insert(c.cell);
        false
    })
    .unwrap();
    assert_eq!(first, Some([14, 0, 6]));
}

/// Found by the property test: a ray starting on the world's top face (y = 10 of a 10-high
/// world, outside the half-open world) moving down and towards -z along the z = 8 boundary
/// enters cell z = 7, so a solid cell at z = 8 is not hit.
#[test]
fn a_ray_starting_on_the_far_face_enters_like_any_other() {
    let mut w = World::with_chunk_dims([1, 1, 1]).unwrap();
    w.set_block([6, 9, 8], Block::make(35, 0).unwrap()).unwrap();
    let c = collider(&w);
    assert!(miss(&c, [6.0, 10.0, 8.0], [0.0, -1.0, -1.0], f64::INFINITY));
    // Straight down at z = 8.5 it is hit on its top face.
    let hit = hit(&c, [6.5, 10.0, 8.5], [0.0, -1.0, 0.0], f64::INFINITY);
    assert_eq!((hit.cell, hit.face), ([6, 9, 8], Some(Face::PosY)));
}
