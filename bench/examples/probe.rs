use binary_greedy_meshing as bgm;
use std::collections::BTreeSet;
use std::time::Instant;
use vwr_mesh::*;
fn main() {
    let w = voxcaf_bench::hilly_terrain();
    let reg = Registry::all_opaque();
    let mut m = Mesher::new();
    let mut out = ChunkMesh::default();
    let mut nbs = Vec::new();
    let mut bg = Vec::new();
    for (pos, _) in w.chunks() {
        let mut nb = Neighborhood::new();
        nb.gather(&w, pos, &reg);
        let origin = [pos[0] as i32 * 10, pos[1] as i32 * 10, pos[2] as i32 * 10];
        let mut b = vec![0u16; 1728];
        for z in 0..12 {
            for y in 0..12 {
                for x in 0..12 {
                    b[z + x * 12 + y * 144] =
                        nb.get(x as i32 - 1, y as i32 - 1, z as i32 - 1).raw();
                }
            }
        }
        let none = BTreeSet::new();
        let om = bgm::compute_opaque_mask::<10>(&b, &none).into_vec();
        let tm = bgm::compute_transparent_mask::<10>(&b, &none).into_vec();
        bg.push((b, om, tm));
        nbs.push((origin, nb));
    }
    for round in 0..3 {
        for o in [
            MeshOptions {
                greedy: false,
                ao: false,
            },
            MeshOptions {
                greedy: true,
                ao: false,
            },
            MeshOptions {
                greedy: true,
                ao: true,
            },
        ] {
            let t = Instant::now();
            let mut q = 0;
            for _ in 0..20 {
                q = 0;
                for (origin, nb) in &nbs {
                    m.mesh(nb, *origin, o, &mut out);
                    q += out.quad_count();
                }
            }
            println!(
                "{round} {:?} {:.3} ms/world {q}",
                o,
                t.elapsed().as_secs_f64() * 1e3 / 20.0
            );
        }
        let mut bm = bgm::Mesher::<10>::new();
        let t = Instant::now();
        let mut q = 0;
        for _ in 0..20 {
            q = 0;
            for (v, om, tm) in &bg {
                bm.clear();
                bm.fast_mesh(v, om, tm);
                q += bm.quads.iter().map(|x| x.len()).sum::<usize>();
            }
        }
        println!(
            "{round} bgm fast {:.3} ms/world {q}",
            t.elapsed().as_secs_f64() * 1e3 / 20.0
        );
    }
}
