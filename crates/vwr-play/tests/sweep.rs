//! Swept boxes against a brute-force reference on random non-cubic worlds (including
//! displacements longer than the world), no tunnelling up to 1000 blocks per tick, and seams.

mod common;

use common::{collider, random_world, solid_ref};
use proptest::prelude::*;
use vwr::{Block, World};
use vwr_play::{sweep, Aabb, PlayError};

/// Every solid cell of the world, from the world itself.
fn solids(w: &World) -> Vec<[i64; 3]> {
    let mut v = Vec::new();
    let d = w.block_dims();
    for z in 0..d[2] as i64 {
        for y in 0..d[1] as i64 {
            for x in 0..d[0] as i64 {
                if solid_ref(w, [x, y, z]) {
                    v.push([x, y, z]);
                }
            }
        }
    }
    v
}

fn overlaps_any(b: &Aabb, cells: &[[i64; 3]]) -> bool {
    cells
        .iter()
        .any(|c| b.overlaps(&Aabb::cell(c.map(|v| v as i32))))
}

/// The largest safe displacement along axis `k` (signed, at most `d`): for every solid cell,
/// bisection finds the first distance at which the moving box reaches it (a monotone
/// predicate: the leading face has passed the cell's near face while the cross-sections
/// overlap); the smallest such distance wins.
fn safe_move(b: &Aabb, k: usize, d: f64, cells: &[[i64; 3]]) -> (f64, bool) {
    let mut best = d.abs();
    let mut blocked = false;
    let s = d.signum();
    for c in cells {
        let cell = Aabb::cell(c.map(|v| v as i32));
        let cross = (0..3)
            .filter(|&j| j != k)
            .all(|j| b.min[j] < cell.max[j] && cell.min[j] < b.max[j]);
        if !cross {
            continue;
        }
        let ahead = if s > 0.0 {
            cell.min[k] >= b.max[k]
        } else {
            cell.max[k] <= b.min[k]
        };
        if !ahead {
            continue;
        }
        let reached = |t: f64| {
            if s > 0.0 {
                b.max[k] + t > cell.min[k]
            } else {
                b.min[k] - t < cell.max[k]
            }
        };
        if !reached(d.abs()) {
            continue;
        }
        let (mut lo, mut hi) = (0.0f64, d.abs());
        for _ in 0..200 {
            let mid = lo + (hi - lo) / 2.0;
            if mid <= lo || mid >= hi {
                break;
            }
            if reached(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        if lo < best {
            best = lo;
            blocked = true;
        }
    }
    (best * s, blocked)
}

fn check(w: &World, b: Aabb, d: [f64; 3]) -> Result<(), TestCaseError> {
    let c = collider(w);
    let cells = solids(w);
    let got = sweep(&c, &b, d).unwrap();
    if overlaps_any(&b, &cells) {
        prop_assert!(got.start_overlaps);
        prop_assert_eq!(got.aabb, b);
        return Ok(());
    }
    prop_assert!(!got.start_overlaps);
    let mut r = b;
    for k in [1, 0, 2] {
        if d[k] == 0.0 {
            continue;
        }
        let (m, blocked) = safe_move(&r, k, d[k], &cells);
        prop_assert!(
            (got.moved[k] - m).abs() <= 1e-9 * (1.0 + m.abs()),
            "axis {} moved {} reference {} box {:?} d {:?}",
            k,
            got.moved[k],
            m,
            b,
            d
        );
        prop_assert_eq!(got.blocked[k], blocked, "axis {}", k);
        r = r.translated([0, 1, 2].map(|j| if j == k { got.moved[k] } else { 0.0 }));
        if blocked {
            // The contract: a blocked box ends flush on the cell face, exactly (min + moved
            // may round 1 ulp past it, which would overlap the cell).
            if d[k] > 0.0 {
                r.max[k] = r.max[k].round();
            } else {
                r.min[k] = r.min[k].round();
            }
        }
    }
    prop_assert_eq!(got.aabb, r);
    prop_assert!(
        !overlaps_any(&got.aabb, &cells),
        "ends overlapping: {:?}",
        got.aabb
    );
    for k in 0..3 {
        // The size is kept, up to the rounding of coordinates far out (moves of 1e9).
        let size = b.max[k] - b.min[k];
        let ulps = 4.0 * f64::EPSILON * got.aabb.max[k].abs().max(got.aabb.min[k].abs());
        prop_assert!((got.aabb.max[k] - got.aabb.min[k] - size).abs() < 1e-9 + ulps);
    }
    Ok(())
}

fn component() -> impl Strategy<Value = f64> {
    prop_oneof![
        -3.0f64..3.0,
        -60.0f64..60.0, // longer than the world
        (-40i32..40).prop_map(f64::from),
        Just(0.0),
        prop_oneof![Just(-1e4), Just(1e4), Just(-1e9)],
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn sweep_matches_the_bisection_reference(
        seed in 1u64..1000,
        min in [-3.0f64..22.0, -3.0f64..12.0, -3.0f64..22.0],
        size in [0.1f64..2.5, 0.1f64..2.5, 0.1f64..2.5],
        snap in any::<bool>(),
        d in [component(), component(), component()],
    ) {
        let w = random_world(seed, [2, 1, 2], 0.06);
        let min = if snap { min.map(|v| (v * 2.0).round() / 2.0) } else { min };
        let b = Aabb::new(min, [0, 1, 2].map(|k| min[k] + size[k])).unwrap();
        check(&w, b, d)?;
    }
}

#[test]
fn no_tunnelling_up_to_1000_blocks_per_tick() {
    // A long non-cubic world with one-block walls, one on a chunk border.
    let mut w = World::with_chunk_dims([12, 1, 1]).unwrap();
    let rock = Block::make(35, 0).unwrap();
    for x in [30, 60, 100] {
        w.fill_box([x, 0, 0], [x, 9, 9], rock).unwrap();
    }
    let c = collider(&w);
    let start = Aabb::new([1.2, 2.0, 2.2], [1.8, 3.8, 2.8]).unwrap();
    for speed in [0.3, 1.0, 7.5, 28.8, 100.0, 999.0, 1000.0] {
        let s = sweep(&c, &start, [speed, 0.0, 0.0]).unwrap();
        let expect = if speed < 28.2 { 1.8 + speed } else { 30.0 };
        assert_eq!(s.aabb.max[0], expect, "speed {speed}");
        assert_eq!(s.blocked[0], speed >= 28.2);
        // And back from beyond the last wall.
        let far = start.translated([110.0, 0.0, 0.0]);
        let s = sweep(&c, &far, [-speed, 0.0, 0.0]).unwrap();
        let expect = if speed < 10.2 { 111.2 - speed } else { 101.0 };
        assert!(
            (s.aabb.min[0] - expect).abs() < 1e-9,
            "speed {speed}: {}",
            s.aabb.min[0]
        );
    }
    // Vertically through a one-block floor at any speed.
    let mut w = World::with_chunk_dims([1, 3, 1]).unwrap();
    w.fill_box([0, 10, 0], [9, 10, 9], rock).unwrap();
    let c = collider(&w);
    let b = Aabb::from_feet([5.5, 25.0, 5.5], [0.6, 1.8, 0.6]);
    for speed in [1.0, 14.0, 15.0, 500.0, 1000.0] {
        let s = sweep(&c, &b, [0.0, -speed, 0.0]).unwrap();
        assert_eq!(s.aabb.min[1], (25.0 - speed).max(11.0), "speed {speed}");
        assert_eq!(s.on_ground, speed >= 14.0);
    }
}

#[test]
fn sliding_along_seams_never_stops() {
    // A floor of alternating block types across chunk borders, and a wall along x = 10.
    let mut w = World::with_chunk_dims([3, 1, 3]).unwrap();
    for x in 0..30 {
        for z in 0..30 {
            let t = if (x + z) % 2 == 0 { 35 } else { 261 };
            w.set_block([x, 0, z], Block::make(t, 0).unwrap()).unwrap();
        }
    }
    w.fill_box([10, 1, 0], [10, 4, 29], Block::make(3, 0).unwrap())
        .unwrap();
    let c = collider(&w);
    // Along the floor with gravity, diagonally, crossing many seams and chunk borders.
    let mut b = Aabb::from_feet([11.5, 1.0, 0.5], [0.6, 1.8, 0.6]);
    for _ in 0..60 {
        let s = sweep(&c, &b, [0.27, -0.5, 0.43]).unwrap();
        assert_eq!(s.blocked, [false, true, false], "{:?}", s.aabb);
        assert!(s.on_ground);
        b = s.aabb;
    }
    assert_eq!(b.min[1], 1.0);
    // Along the wall (touching x = 10 from the +x side), pushing into it.
    let mut b = Aabb::new([11.0, 1.0, 0.2], [11.6, 2.8, 0.8]).unwrap();
    for _ in 0..55 {
        let s = sweep(&c, &b, [-0.3, -0.1, 0.5]).unwrap();
        assert!(s.blocked[0] && !s.blocked[2], "{:?}", s);
        assert_eq!(s.moved[2], 0.5);
        b = s.aabb;
    }
    assert_eq!(b.min[0], 11.0);
}

#[test]
fn start_overlap_is_reported_and_the_box_stays() {
    let mut w = World::with_chunk_dims([1, 1, 1]).unwrap();
    w.set_block([5, 5, 5], Block::make(35, 0).unwrap()).unwrap();
    let c = collider(&w);
    let b = Aabb::new([4.5, 4.5, 4.5], [5.5, 5.5, 5.5]).unwrap();
    let s = sweep(&c, &b, [3.0, 3.0, 3.0]).unwrap();
    assert!(s.start_overlaps);
    assert_eq!(s.aabb, b);
    assert_eq!(s.moved, [0.0; 3]);
    // Touching is not overlapping.
    let t = Aabb::new([4.0, 5.0, 5.0], [5.0, 6.0, 6.0]).unwrap();
    assert!(!sweep(&c, &t, [0.0, 0.0, 0.0]).unwrap().start_overlaps);
    assert!(matches!(
        sweep(&c, &b, [f64::NAN, 0.0, 0.0]),
        Err(PlayError::NotFinite { .. })
    ));
    let inverted = Aabb {
        min: [1.0; 3],
        max: [0.0; 3],
    };
    assert!(matches!(
        sweep(&c, &inverted, [1.0, 0.0, 0.0]),
        Err(PlayError::InvertedBox { .. })
    ));
}
