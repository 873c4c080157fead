//! The greedy mesher against a brute-force reference read straight from the `World`: on random
//! worlds of boxes and scattered cells mixing opaque, transparent, special, unknown and air
//! across chunk borders, every unit face the greedy quads cover is a face the rules show, each
//! is covered once, none is missing, and the AO its quad gives it is the AO of the rule computed
//! from the cells in front of it.

mod common;

use std::collections::BTreeMap;

use common::b;
use proptest::prelude::*;
use vwr::World;
use vwr_blocks::{Registry, RenderKind};
use vwr_mesh::{mesh_world, mesh_world_serial, Face, MeshOptions, WorldMesh};

/// (cell, face) → (block, pass: 0 opaque 1 transparent, AO of corners 0..4).
type Faces = BTreeMap<([i32; 3], Face), (u16, u8, [u8; 4])>;

/// The faces the rules show, with their AO, one cell at a time.
fn reference(w: &World, r: &Registry, ao: bool) -> Faces {
    let opaque = |p: [i32; 3]| r.kind(w.get_block(p).block_type()) == RenderKind::Opaque;
    let mut out = Faces::new();
    w.for_each_non_air(|c, blk| {
        let kind = r.kind(blk.block_type());
        let pass = match kind {
            RenderKind::Opaque => 0,
            RenderKind::Transparent => 1,
            _ => return,
        };
        for f in Face::ALL {
            let n = f.normal();
            let front = [0, 1, 2].map(|a| c[a] + n[a]);
            let nb = w.get_block(front);
            let shows = !opaque(front) && (pass == 0 || nb != blk);
            if !shows {
                continue;
            }
            let (u, v) = f.tangent_axes();
            let at = |du: i32, dv: i32| {
                let mut p = front;
                p[u] += du;
                p[v] += dv;
                opaque(p) as u8
            };
            let corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)].map(|(du, dv)| {
                let (s1, s2, k) = (at(du, 0), at(0, dv), at(du, dv));
                match (ao, s1 == 1 && s2 == 1) {
                    (false, _) => 3,
                    (true, true) => 0,
                    (true, false) => 3 - s1 - s2 - k,
                }
            });
            out.insert((c, f), (blk.raw(), pass, corners));
        }
    });
    out
}

/// The unit faces a mesh's quads cover, each with its quad's block, pass and AO (a face covered
/// twice fails).
fn covered(m: &WorldMesh) -> Faces {
    let mut out = Faces::new();
    for c in &m.chunks {
        for (pass, quads) in [(0u8, &c.opaque), (1u8, &c.transparent)] {
            for q in quads {
                for (cell, f) in q.unit_faces() {
                    let old = out.insert((cell, f), (q.block.raw(), pass, q.ao));
                    assert!(old.is_none(), "face covered twice: {cell:?} {f:?}");
                }
            }
        }
    }
    out
}

/// Opaque (35, 261, 3), transparent (92 water, 30), special (96, 378, 200, 53, 68), unknown
/// (4000) and air.
const TYPES: [u16; 12] = [35, 261, 3, 92, 30, 96, 378, 200, 53, 68, 4000, 0];

fn world_of(boxes: &[([i32; 3], [i32; 3], usize)], cells: &[([i32; 3], usize)]) -> World {
    let mut w = World::with_chunks_per_axis(2).expect("world");
    for &(lo, size, t) in boxes {
        let hi = [0, 1, 2].map(|a| (lo[a] + size[a]).min(19));
        w.fill_box(lo, hi, b(TYPES[t])).expect("box");
    }
    for &(p, t) in cells {
        w.set_block(p, b(TYPES[t])).expect("cell");
    }
    w
}

fn check(w: &World, r: &Registry) -> Result<(), TestCaseError> {
    for ao in [false, true] {
        let want = reference(w, r, ao);
        for greedy in [true, false] {
            let opts = MeshOptions {
                greedy,
                ao,
                watertight: false,
            };
            let got = covered(&mesh_world(w, r, opts));
            prop_assert!(got == want, "greedy={} ao={}", greedy, ao);
            let serial = covered(&mesh_world_serial(w, r, opts));
            prop_assert!(serial == want, "serial greedy={} ao={}", greedy, ao);
        }
    }
    Ok(())
}

fn p3(max: i32) -> impl Strategy<Value = [i32; 3]> {
    [0..max, 0..max, 0..max]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Greedy (and exposed) meshing with and without AO equal the brute-force reference, with
    /// the default registry (every class) and with every type opaque.
    #[test]
    fn greedy_faces_and_ao_equal_brute_force(
        boxes in proptest::collection::vec((p3(20), p3(12), 0..TYPES.len()), 0..7),
        cells in proptest::collection::vec((p3(20), 0..TYPES.len()), 0..300),
    ) {
        let w = world_of(&boxes, &cells);
        check(&w, &Registry::default())?;
        check(&w, &Registry::all_opaque())?;
    }
}
