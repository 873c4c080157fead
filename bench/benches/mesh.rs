//! Our meshers against `block-mesh` and `binary-greedy-meshing`, on the same voxels.
//!
//! Every mesher gets all non-empty 10³ chunks of a world with a one-voxel padding from the
//! neighbouring chunks, each in its own layout, prepared outside the timed region (ours: a
//! gathered `Neighborhood`; block-mesh: a 12³ array of voxels in x-fastest order; bgm: a 12³
//! array in its z-fastest ZXY order plus its opaque/transparent column masks, `Mesher::<10>`).
//! Opaque voxels only (our registry: `Registry::all_opaque`), since neither peer does our
//! transparency rules.
//!
//! Our rows come twice: "pre-gathered" (the mesher alone, like the peers) and "from world"
//! (end to end: gather each chunk's neighbourhood from the `World`, classify, mesh, as a user
//! meshes a world), plus "gather only". The peers' rows never include their own gathering.
//! The group `parallel hilly` times parallel whole-world meshing (the calling thread and
//! rayon's pool) against the serial path, new meshes and into the previous mesh, each new mesh
//! freed outside the timed region on both sides (glibc takes about 0.1 ms to free a hilly
//! exposed mesh that the pool's threads allocated, against a few µs for one the calling thread
//! allocated). The other goals of the performance issue have their groups here too, so that
//! one run prints every ratio: `random access 8-bit world` (2²⁰ random `get_block` calls, and a full
//! scan through `Chunk::read_into`, on `vwr::samples::full_8bit`) and `mip chain 2048` (the
//! linear-light chain builders against the box filter on a 2048² RGBA8 texture).
//!
//! After the criterion groups, a summary table prints the issue's ratios three ways: from
//! paired rounds run right then (every job of a group timed warm for about 10 ms in turn,
//! 41 rounds, each job's time taken relative to the group's first job in the same round and
//! the median kept: a slow spell of a shared machine slows both sides of a ratio alike), and
//! from criterion's own median and mean estimates of this run
//! (`<target>/criterion/**/new/estimates.json`, only files written by this process), which
//! time one job for seconds after another. Then the quad count of every mesher.
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::collections::BTreeSet;

use binary_greedy_meshing as bgm;
use block_mesh::ndshape::{ConstShape, ConstShape3u32};
use block_mesh::{
    greedy_quads, visible_block_faces, GreedyQuadsBuffer, MergeVoxel, UnitQuadBuffer, Voxel,
    VoxelVisibility, RIGHT_HANDED_Y_UP_CONFIG,
};
use criterion::{black_box, criterion_group, Criterion};
use vwr::World;
use vwr_blocks::Registry;
use vwr_mesh::{
    mesh_world, mesh_world_into, mesh_world_serial, mesh_world_serial_into, ChunkMesh, MeshOptions,
    Mesher, Neighborhood, WorldMesh,
};

type Shape12 = ConstShape3u32<12, 12, 12>;
const P: usize = 12;

#[derive(Clone, Copy, PartialEq, Eq)]
struct V(u16);
impl Voxel for V {
    fn get_visibility(&self) -> VoxelVisibility {
        if self.0 == 0 {
            VoxelVisibility::Empty
        } else {
            VoxelVisibility::Opaque
        }
    }
}
impl MergeVoxel for V {
    type MergeValue = u16;
    fn merge_value(&self) -> u16 {
        self.0
    }
}

struct Data {
    name: &'static str,
    world: World,
    positions: Vec<[u32; 3]>,
    ours: Vec<([i32; 3], Neighborhood)>,
    bm: Vec<Vec<V>>,
    bgm: Vec<(Vec<u16>, Vec<u64>, Vec<u64>)>,
}

fn prepare(name: &'static str, w: &World) -> Data {
    let reg = Registry::all_opaque();
    let mut ours = Vec::new();
    let mut bm = Vec::new();
    let mut bgmv = Vec::new();
    let mut positions = Vec::new();
    for (pos, c) in w.chunks() {
        if c.count_non_air() == 0 {
            continue;
        }
        positions.push(pos);
        let mut nb = Neighborhood::new();
        nb.gather(w, pos, &reg);
        let origin = [pos[0] as i32 * 10, pos[1] as i32 * 10, pos[2] as i32 * 10];
        // block-mesh: x fastest (ndshape linearize = x + 12 (y + 12 z)).
        let mut a = vec![V(0); Shape12::USIZE];
        // bgm: z fastest, then x, then y.
        let mut b = vec![0u16; P * P * P];
        for z in 0..P {
            for y in 0..P {
                for x in 0..P {
                    let v = nb.get(x as i32 - 1, y as i32 - 1, z as i32 - 1).raw();
                    a[Shape12::linearize([x as u32, y as u32, z as u32]) as usize] = V(v);
                    b[z + x * P + y * P * P] = v;
                }
            }
        }
        let none = BTreeSet::new();
        let om = bgm::compute_opaque_mask::<10>(&b, &none).into_vec();
        let tm = bgm::compute_transparent_mask::<10>(&b, &none).into_vec();
        ours.push((origin, nb));
        bm.push(a);
        bgmv.push((b, om, tm));
    }
    Data {
        name,
        world: w.clone(),
        positions,
        ours,
        bm,
        bgm: bgmv,
    }
}

fn run_ours(d: &Data, m: &mut Mesher, out: &mut ChunkMesh, o: MeshOptions) -> usize {
    let mut n = 0;
    for (origin, nb) in &d.ours {
        m.mesh(nb, *origin, o, out);
        n += out.quad_count();
    }
    n
}

/// End to end, as a user meshes a world: the whole world through `mesh_world_serial` (each
/// chunk classified once, every neighbourhood gathered, every chunk meshed), one thread.
fn run_ours_world(d: &Data, reg: &Registry, o: MeshOptions) -> usize {
    mesh_world_serial(&d.world, reg, o).quad_count()
}

/// End to end as an application re-meshing a world meshes it: `mesh_world_serial_into` the
/// mesh the previous call left in `keep` (each chunk refilled in its own buffers, as the peers
/// refill theirs).
fn run_ours_world_into(d: &Data, reg: &Registry, o: MeshOptions, keep: &mut WorldMesh) -> usize {
    mesh_world_serial_into(&d.world, reg, o, keep);
    keep.quad_count()
}

/// Gather alone: what `mesh_world_serial` does before meshing.
fn run_gather(d: &Data, reg: &Registry) -> usize {
    vwr_mesh::gather_world(&d.world, reg)
}

fn run_bm_visible(d: &Data, buf: &mut UnitQuadBuffer) -> usize {
    let mut n = 0;
    for a in &d.bm {
        buf.reset();
        visible_block_faces(
            a,
            &Shape12 {},
            [0; 3],
            [11; 3],
            &RIGHT_HANDED_Y_UP_CONFIG.faces,
            buf,
        );
        n += buf.num_quads();
    }
    n
}

fn run_bm_greedy(d: &Data, buf: &mut GreedyQuadsBuffer) -> usize {
    let mut n = 0;
    for a in &d.bm {
        buf.reset(Shape12::USIZE);
        greedy_quads(
            a,
            &Shape12 {},
            [0; 3],
            [11; 3],
            &RIGHT_HANDED_Y_UP_CONFIG.faces,
            buf,
        );
        n += buf.quads.num_quads();
    }
    n
}

fn run_bgm(d: &Data, m: &mut bgm::Mesher<10>, fast: bool) -> usize {
    let none = BTreeSet::new();
    let mut n = 0;
    for (v, om, tm) in &d.bgm {
        m.clear();
        if fast {
            m.fast_mesh(v, om, tm);
        } else {
            m.mesh(v, &none);
        }
        n += m.quads.iter().map(|q| q.len()).sum::<usize>();
    }
    n
}

fn datasets() -> Vec<Data> {
    let mut v = Vec::new();
    if let Some(w) = voxcaf_bench::world999() {
        v.push(prepare("world999", &w));
    } else {
        eprintln!("note: golden world999 not found; skipping it");
    }
    v.push(prepare(
        "hilly terrain 100³",
        &voxcaf_bench::hilly_terrain(),
    ));
    v.push(prepare("sphere 32³", &voxcaf_bench::sphere32()));
    v
}

fn bench(c: &mut Criterion) {
    let reg = Registry::all_opaque();
    for d in datasets() {
        let mut g = c.benchmark_group(d.name);
        g.sample_size(20);
        let mut m = Mesher::new();
        let mut out = ChunkMesh::default();
        for (name, o) in [
            ("ours exposed, from world", MeshOptions::EXPOSED),
            ("ours greedy, from world", MeshOptions::GREEDY),
            ("ours greedy+ao, from world", MeshOptions::GREEDY_AO),
        ] {
            g.bench_function(name, |b| b.iter(|| black_box(run_ours_world(&d, &reg, o))));
        }
        for (name, o) in [
            ("ours exposed, into previous mesh", MeshOptions::EXPOSED),
            ("ours greedy, into previous mesh", MeshOptions::GREEDY),
            ("ours greedy+ao, into previous mesh", MeshOptions::GREEDY_AO),
        ] {
            let mut keep = WorldMesh::default();
            g.bench_function(name, |b| {
                b.iter(|| black_box(run_ours_world_into(&d, &reg, o, &mut keep)))
            });
        }
        g.bench_function("ours gather only", |b| {
            b.iter(|| black_box(run_gather(&d, &reg)))
        });
        for (name, o) in [
            ("ours exposed, pre-gathered", MeshOptions::EXPOSED),
            ("ours greedy, pre-gathered", MeshOptions::GREEDY),
            ("ours greedy+ao, pre-gathered", MeshOptions::GREEDY_AO),
        ] {
            g.bench_function(name, |b| {
                b.iter(|| black_box(run_ours(&d, &mut m, &mut out, o)))
            });
        }
        let mut ub = UnitQuadBuffer::new();
        g.bench_function("block-mesh visible_block_faces", |b| {
            b.iter(|| black_box(run_bm_visible(&d, &mut ub)))
        });
        let mut gb = GreedyQuadsBuffer::new(Shape12::USIZE);
        g.bench_function("block-mesh greedy_quads", |b| {
            b.iter(|| black_box(run_bm_greedy(&d, &mut gb)))
        });
        let mut bm = bgm::Mesher::<10>::new();
        g.bench_function("bgm mesh", |b| {
            b.iter(|| black_box(run_bgm(&d, &mut bm, false)))
        });
        g.bench_function("bgm fast_mesh", |b| {
            b.iter(|| black_box(run_bgm(&d, &mut bm, true)))
        });
        g.finish();
    }
    // Whole-world meshing: rayon's pool (all cores) against the serial path, same output.
    let hilly = voxcaf_bench::hilly_terrain();
    assert_eq!(
        mesh_world(&hilly, &reg, MeshOptions::GREEDY),
        mesh_world_serial(&hilly, &reg, MeshOptions::GREEDY)
    );
    let mut g = c.benchmark_group(PARALLEL_GROUP);
    g.sample_size(20);
    for (name, o) in [
        ("greedy", MeshOptions::GREEDY),
        ("exposed", MeshOptions::EXPOSED),
    ] {
        // Each mesh is freed after its time is taken (see `kept`).
        g.bench_function(format!("{name} serial"), |b| {
            b.iter_custom(|n| timed_apart(n, || mesh_world_serial(&hilly, &reg, o)))
        });
        g.bench_function(format!("{name} parallel"), |b| {
            b.iter_custom(|n| timed_apart(n, || mesh_world(&hilly, &reg, o)))
        });
        // Re-meshing into the previous mesh: nothing allocated or freed in steady state.
        let mut keep = WorldMesh::default();
        g.bench_function(format!("{name} serial, into previous mesh"), |b| {
            b.iter(|| mesh_world_serial_into(&hilly, &reg, o, &mut keep))
        });
        let mut keep = WorldMesh::default();
        g.bench_function(format!("{name} parallel, into previous mesh"), |b| {
            b.iter(|| mesh_world_into(&hilly, &reg, o, &mut keep))
        });
    }
    g.finish();
}

/// The time of `n` calls of `f`, each result freed outside the timed region.
fn timed_apart<T>(n: u64, mut f: impl FnMut() -> T) -> std::time::Duration {
    let mut total = std::time::Duration::ZERO;
    for _ in 0..n {
        let t = std::time::Instant::now();
        let out = black_box(f());
        total += t.elapsed();
        drop(out);
    }
    total
}

const ACCESS_GROUP: &str = "random access 8-bit world";
const MIP_GROUP: &str = "mip chain 2048";

/// Random `get_block` and the bulk scan over the full 8-bit world.
fn access(c: &mut Criterion) {
    let world = vwr::samples::full_8bit();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let coords: Vec<[i32; 3]> = (0..1 << 20)
        .map(|_| {
            [0; 3].map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                (rng % 100) as i32
            })
        })
        .collect();
    let mut g = c.benchmark_group(ACCESS_GROUP);
    g.bench_function("get_block random", |b| {
        b.iter(|| {
            coords.iter().fold(0u32, |acc, &p| {
                acc.wrapping_add(world.get_block(p).raw() as u32)
            })
        })
    });
    let mut buf = [vwr::Block::AIR; vwr::CHUNK_VOLUME];
    g.bench_function("scan Chunk::read_into", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for (_, ch) in world.chunks() {
                ch.read_into(&mut buf);
                acc = buf
                    .iter()
                    .fold(acc, |a, blk| a.wrapping_add(blk.raw() as u32));
            }
            acc
        })
    });
    g.finish();
}

/// The mip-chain builders alone on a decoded 2048² texture.
fn mips(c: &mut Criterion) {
    use caf_import::texture::{box_chain, linear_chain};
    let px = voxcaf_samples::noisy_rgba(2048, 2048);
    let mut g = c.benchmark_group(MIP_GROUP);
    g.sample_size(10);
    g.bench_function("box (baseline)", |b| {
        b.iter(|| black_box(box_chain(2048, 2048, 4, &px).unwrap()))
    });
    g.bench_function("linear sRGB", |b| {
        b.iter(|| black_box(linear_chain(2048, 2048, &px, true).unwrap()))
    });
    g.bench_function("linear (linear data)", |b| {
        b.iter(|| black_box(linear_chain(2048, 2048, &px, false).unwrap()))
    });
    g.finish();
}

const PARALLEL_GROUP: &str = "parallel hilly terrain 100³";

/// Times (ns) of the benchmarks this process measured, by (group, function): criterion's
/// estimate of `stat` ("median" or "mean").
fn estimates(
    since: std::time::SystemTime,
    stat: &str,
) -> std::collections::HashMap<(String, String), f64> {
    let root = std::env::var_os("CRITERION_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR")
                .map(|t| std::path::PathBuf::from(t).join("criterion"))
        })
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/criterion")
        });
    let mut out = std::collections::HashMap::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.file_name() != Some("benchmark.json".as_ref())
                || p.parent().and_then(|q| q.file_name()) != Some("new".as_ref())
            {
                continue;
            }
            let fresh = std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t >= since);
            let est = p.with_file_name("estimates.json");
            let (Ok(b), Ok(e)) = (std::fs::read(&p), std::fs::read(&est)) else {
                continue;
            };
            let (Ok(b), Ok(e)) = (
                serde_json::from_slice::<serde_json::Value>(&b),
                serde_json::from_slice::<serde_json::Value>(&e),
            ) else {
                continue;
            };
            let (Some(g), Some(f), Some(v)) = (
                b["group_id"].as_str(),
                b["function_id"].as_str(),
                e[stat]["point_estimate"].as_f64(),
            ) else {
                continue;
            };
            if fresh {
                out.insert((g.to_string(), f.to_string()), v);
            }
        }
    }
    out
}

/// One timed job of a paired group: its function name (as in the criterion group) and the
/// closure, which returns the whole-world mesh it built when that is to be freed outside the
/// timed region (see [`kept`]).
type Job<'a> = (&'static str, Box<dyn FnMut() -> Option<WorldMesh> + 'a>);

/// A job whose result is a count, computed and dropped inside the timed region.
fn count<'a>(mut f: impl FnMut() -> usize + 'a) -> Box<dyn FnMut() -> Option<WorldMesh> + 'a> {
    Box::new(move || {
        black_box(f());
        None
    })
}

/// A job whose whole-world mesh is freed after its time is taken (as the parallel group's
/// criterion rows do): freeing meshes that rayon's worker threads allocated costs glibc about
/// 0.1 ms per hilly exposed mesh on the calling thread, a cost of the allocator that would
/// otherwise land on the parallel side only.
fn kept<'a>(mut f: impl FnMut() -> WorldMesh + 'a) -> Box<dyn FnMut() -> Option<WorldMesh> + 'a> {
    Box::new(move || Some(f()))
}

/// Rounds of a paired group (odd, for a plain median).
const PAIRED_ROUNDS: usize = 41;

/// Times (ns per call) of `jobs` measured in alternation: each round times a short batch
/// (about `batch_ms`, after one untimed call that brings the job's data back into cache and wakes
/// the thread pool, so that each batch is measured warm, as criterion measures) of every job,
/// in an order that rotates from round to round, and each job's time is the median over
/// rounds of its time relative to the first job's in the same round, scaled by the first
/// job's median time. A slow spell of this shared VM (seconds long, whole samples 1.3–1.5×
/// slower) then slows every job of a round alike and cancels out of the ratios, where
/// criterion, timing one job for seconds after another, lets it land on one side of a ratio
/// only.
fn paired_times(
    group: &str,
    batch_ms: f64,
    mut jobs: Vec<Job<'_>>,
) -> std::collections::HashMap<(String, String), f64> {
    use std::time::Instant;
    let time = |f: &mut Box<dyn FnMut() -> Option<WorldMesh> + '_>, n: u32| {
        let mut total = 0.0;
        for _ in 0..n {
            let t = Instant::now();
            let kept = black_box(f());
            total += t.elapsed().as_secs_f64();
            drop(kept);
        }
        total * 1e9 / n as f64
    };
    // Batch sizes from one warm call each.
    let batch: Vec<u32> = jobs
        .iter_mut()
        .map(|(_, f)| {
            time(f, 1);
            let one = time(f, 1).max(1.0);
            ((batch_ms * 1e6 / one) as u32).clamp(1, 100_000)
        })
        .collect();
    let k = jobs.len();
    let mut rel = vec![Vec::with_capacity(PAIRED_ROUNDS); k];
    let mut first = Vec::with_capacity(PAIRED_ROUNDS);
    for r in 0..PAIRED_ROUNDS {
        let mut t = vec![0.0; k];
        for j in (0..k).map(|i| (i + r) % k) {
            drop(black_box(jobs[j].1()));
            t[j] = time(&mut jobs[j].1, batch[j]);
        }
        first.push(t[0]);
        for j in 0..k {
            rel[j].push(t[j] / t[0]);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let base = median(&mut first);
    jobs.iter()
        .zip(rel.iter_mut())
        .map(|((name, _), r)| ((group.to_string(), name.to_string()), median(r) * base))
        .collect()
}

/// The paired times of every ratio the summary prints (the mesh groups, the parallel group and
/// the mip chains; the access group's figures are absolute and come from criterion alone).
fn paired_estimates(datasets: &[Data]) -> std::collections::HashMap<(String, String), f64> {
    let reg = Registry::all_opaque();
    let mut out = std::collections::HashMap::new();
    for d in datasets {
        let (mut m, mut out_mesh) = (Mesher::new(), ChunkMesh::default());
        let (mut ub, mut bm) = (UnitQuadBuffer::new(), bgm::Mesher::<10>::new());
        let reg = &reg;
        let m = std::cell::RefCell::new((&mut m, &mut out_mesh));
        let pre = |o: MeshOptions| {
            let m = &m;
            move || {
                let (m, out) = &mut *m.borrow_mut();
                run_ours(d, m, out, o)
            }
        };
        let into = |o: MeshOptions| {
            let mut keep = WorldMesh::default();
            move || run_ours_world_into(d, reg, o, &mut keep)
        };
        let jobs: Vec<Job<'_>> = vec![
            ("bgm fast_mesh", count(|| run_bgm(d, &mut bm, true))),
            (
                "block-mesh visible_block_faces",
                count(|| run_bm_visible(d, &mut ub)),
            ),
            (
                "ours exposed, from world",
                count(move || run_ours_world(d, reg, MeshOptions::EXPOSED)),
            ),
            (
                "ours greedy, from world",
                count(move || run_ours_world(d, reg, MeshOptions::GREEDY)),
            ),
            (
                "ours greedy+ao, from world",
                count(move || run_ours_world(d, reg, MeshOptions::GREEDY_AO)),
            ),
            (
                "ours exposed, into previous mesh",
                count(into(MeshOptions::EXPOSED)),
            ),
            (
                "ours greedy, into previous mesh",
                count(into(MeshOptions::GREEDY)),
            ),
            (
                "ours greedy+ao, into previous mesh",
                count(into(MeshOptions::GREEDY_AO)),
            ),
            ("ours gather only", count(move || run_gather(d, reg))),
            (
                "ours exposed, pre-gathered",
                count(pre(MeshOptions::EXPOSED)),
            ),
            ("ours greedy, pre-gathered", count(pre(MeshOptions::GREEDY))),
        ];
        out.extend(paired_times(d.name, 10.0, jobs));
    }
    let hilly = voxcaf_bench::hilly_terrain();
    let h = &hilly;
    let reg = &reg;
    let mut jobs: Vec<Job<'_>> = Vec::new();
    // Per option: serial, parallel, and both again into the previous call's mesh.
    type MeshInto = fn(&World, &Registry, MeshOptions, &mut WorldMesh);
    for (o, [serial, parallel, serial_into, parallel_into]) in [
        (
            MeshOptions::GREEDY,
            [
                "greedy serial",
                "greedy parallel",
                "greedy serial, into previous mesh",
                "greedy parallel, into previous mesh",
            ],
        ),
        (
            MeshOptions::EXPOSED,
            [
                "exposed serial",
                "exposed parallel",
                "exposed serial, into previous mesh",
                "exposed parallel, into previous mesh",
            ],
        ),
    ] {
        jobs.push((serial, kept(move || mesh_world_serial(h, reg, o))));
        jobs.push((parallel, kept(move || mesh_world(h, reg, o))));
        let into: [(&'static str, MeshInto); 2] = [
            (serial_into, mesh_world_serial_into),
            (parallel_into, mesh_world_into),
        ];
        for (name, mesh_into) in into {
            let mut keep = WorldMesh::default();
            jobs.push((
                name,
                count(move || {
                    mesh_into(h, reg, o, &mut keep);
                    keep.chunks.len()
                }),
            ));
        }
    }
    // Longer batches: on this VM an idle vCPU is parked by the host, and a pool that has
    // waited through a serial batch pays for waking it again.
    out.extend(paired_times(PARALLEL_GROUP, 100.0, jobs));
    {
        use caf_import::texture::{box_chain, linear_chain};
        let px = voxcaf_samples::noisy_rgba(2048, 2048);
        let px = &px;
        let jobs: Vec<Job<'_>> = vec![
            (
                "box (baseline)",
                count(move || box_chain(2048, 2048, 4, px).map_or(0, |v| v.0.len())),
            ),
            (
                "linear sRGB",
                count(move || linear_chain(2048, 2048, px, true).map_or(0, |v| v.0.len())),
            ),
            (
                "linear (linear data)",
                count(move || linear_chain(2048, 2048, px, false).map_or(0, |v| v.0.len())),
            ),
        ];
        out.extend(paired_times(MIP_GROUP, 10.0, jobs));
    }
    out
}

/// One line of the summary: group, measure, goal, value, unit.
type Line = (String, String, &'static str, Option<f64>, &'static str);

/// The issue's ratios, from this run (faster = larger, "×" of the peer's speed): first from
/// the paired rounds of [`paired_times`], which this shared VM's slow spells cancel out of,
/// then from criterion's medians and means of the same run, which they can move by a third
/// when they fall on one side of a ratio only. The access group's rates are criterion's in
/// every column.
fn summary(since: std::time::SystemTime, datasets: &[Data]) {
    let chunks: Vec<(&'static str, usize)> = datasets
        .iter()
        .map(|d| (d.name, d.positions.len()))
        .collect();
    let chunks = &chunks[..];
    let mut paired_est = paired_estimates(datasets);
    let criterion_median = estimates(since, "median");
    for (key, v) in &criterion_median {
        if key.0 == ACCESS_GROUP {
            paired_est.insert(key.clone(), *v);
        }
    }
    issue40_table(&paired_est, chunks);
    let paired = lines(&paired_est, chunks);
    let median = lines(&criterion_median, chunks);
    let mean = lines(&estimates(since, "mean"), chunks);
    println!(
        "\n| world | measure | goal | measured (paired, median of {PAIRED_ROUNDS} rounds) | \
         (criterion median) | (criterion mean) |"
    );
    println!("|---|---|---|---:|---:|---:|");
    let show = |v: Option<f64>, unit: &str| match v {
        Some(v) => format!("{v:.2}{unit}"),
        None => "not measured in this run".to_string(),
    };
    for (((w, what, goal, p, unit), (.., v, _)), (.., m, _)) in
        paired.into_iter().zip(median).zip(mean)
    {
        println!(
            "| {w} | {what} | {goal} | {} | {} | {} |",
            show(p, unit),
            show(v, unit),
            show(m, unit)
        );
    }
}

/// The machine (CPU model and cores, from /proc/cpuinfo) and the load when the figures were
/// taken, then issue 40's goals: bgm `fast_mesh` (no AO) time over ours, end to end from the
/// `World`, from the paired rounds.
fn issue40_table(est: &std::collections::HashMap<(String, String), f64>, chunks: &[(&str, usize)]) {
    println!("\n{}", voxcaf_bench::machine());
    println!("\n| world (chunks) | greedy / fast_mesh (goal ≥ 2×) | greedy+AO / fast_mesh (goal ≥ 1.5×) |");
    println!("|---|---:|---:|");
    for &(g, n) in chunks {
        let t = |f: &str| est.get(&(g.to_string(), f.to_string())).copied();
        let r = |f: &str| match (t("bgm fast_mesh"), t(f)) {
            (Some(a), Some(b)) => format!("{:.2}×", a / b),
            _ => "not measured".to_string(),
        };
        let (gr, ao) = (
            r("ours greedy, from world"),
            r("ours greedy+ao, from world"),
        );
        println!("| {g} ({n}) | {gr} | {ao} |");
    }
}

/// The summary's lines from one set of estimates.
fn lines(
    est: &std::collections::HashMap<(String, String), f64>,
    chunks: &[(&'static str, usize)],
) -> Vec<Line> {
    let t = |g: &str, f: &str| est.get(&(g.to_string(), f.to_string())).copied();
    let mut out: Vec<Line> = Vec::new();
    let mut row = |w: &str, what: &str, goal: &'static str, v: Option<f64>, unit: &'static str| {
        out.push((w.to_string(), what.to_string(), goal, v, unit));
    };
    let ratio = |a: Option<f64>, b: Option<f64>| Some(a? / b?);
    for &(g, n) in chunks {
        let bm = t(g, "block-mesh visible_block_faces");
        let fm = t(g, "bgm fast_mesh");
        let pre = |k: &str| t(g, &format!("ours {k}, pre-gathered"));
        // The goals, end to end: into a new mesh, then into the previous call's.
        for how in ["from world", "into previous mesh"] {
            let ours = |k: &str| t(g, &format!("ours {k}, {how}"));
            for (k, peer, peer_name, goal) in [
                ("exposed", bm, "block-mesh visible_block_faces", "≥ 1.5×"),
                ("greedy", fm, "bgm fast_mesh", "≥ 2.0×"),
                ("greedy+ao", fm, "bgm fast_mesh", "≥ 1.5×"),
            ] {
                let what = format!("{} {how} vs {peer_name}", k.replace("ao", "AO"));
                row(g, &what, goal, ratio(peer, ours(k)), "×");
            }
        }
        row(
            g,
            "exposed pre-gathered vs block-mesh visible_block_faces",
            "(context)",
            ratio(bm, pre("exposed")),
            "×",
        );
        row(
            g,
            "greedy pre-gathered vs bgm fast_mesh",
            "(context)",
            ratio(fm, pre("greedy")),
            "×",
        );
        let gather = t(g, "ours gather only");
        row(
            g,
            "gather alone per chunk",
            "(memory speed)",
            gather.map(|v| v / n as f64 / 1000.0),
            " µs",
        );
        row(
            g,
            "gather alone / greedy from world",
            "(share)",
            ratio(gather, t(g, "ours greedy, from world")),
            "",
        );
    }
    for k in ["greedy", "exposed"] {
        let s = t(PARALLEL_GROUP, &format!("{k} serial"));
        let p = t(PARALLEL_GROUP, &format!("{k} parallel"));
        let threads = rayon_threads();
        row(
            PARALLEL_GROUP,
            &format!("{k}: parallel ({threads} threads) vs serial"),
            "≥ 1.8× on 2 cores",
            ratio(s, p),
            "×",
        );
        let s = t(PARALLEL_GROUP, &format!("{k} serial, into previous mesh"));
        let p = t(PARALLEL_GROUP, &format!("{k} parallel, into previous mesh"));
        row(
            PARALLEL_GROUP,
            &format!("{k} into previous mesh: parallel ({threads} threads) vs serial"),
            "≥ 1.8× on 2 cores",
            ratio(s, p),
            "×",
        );
    }
    let per_sec = |ns: Option<f64>, n: f64| ns.map(|ns| n / ns * 1e9);
    row(
        ACCESS_GROUP,
        "random get_block",
        "≥ 150 M/s",
        per_sec(t(ACCESS_GROUP, "get_block random"), (1u64 << 20) as f64).map(|v| v / 1e6),
        " M/s",
    );
    row(
        ACCESS_GROUP,
        "full scan through Chunk::read_into",
        "≥ 1 G blocks/s",
        per_sec(t(ACCESS_GROUP, "scan Chunk::read_into"), 1e6).map(|v| v / 1e9),
        " G/s",
    );
    for k in ["linear sRGB", "linear (linear data)"] {
        row(
            MIP_GROUP,
            &format!("{k} time / box filter time"),
            "≤ 1.5×",
            ratio(t(MIP_GROUP, k), t(MIP_GROUP, "box (baseline)")),
            "×",
        );
    }
    out
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Quads per mesher on each world: the output each timed row of the criterion groups produces
/// (a count, not a time; the times and their ratios are criterion's, measured in the same run).
fn quad_counts(datasets: &[Data]) {
    let reg = Registry::all_opaque();
    println!("\n| world (chunks) | mesher | quads |");
    println!("|---|---|---:|");
    for d in datasets {
        let chunks = d.ours.len();
        let mut m = Mesher::new();
        let mut out = ChunkMesh::default();
        let rows: [(&str, usize); 7] = [
            (
                "ours exposed",
                run_ours(d, &mut m, &mut out, MeshOptions::EXPOSED),
            ),
            (
                "ours greedy",
                run_ours(d, &mut m, &mut out, MeshOptions::GREEDY),
            ),
            (
                "ours greedy, gathered from the world",
                run_ours_world(d, &reg, MeshOptions::GREEDY),
            ),
            (
                "block-mesh visible_block_faces",
                run_bm_visible(d, &mut UnitQuadBuffer::new()),
            ),
            (
                "block-mesh greedy_quads",
                run_bm_greedy(d, &mut GreedyQuadsBuffer::new(Shape12::USIZE)),
            ),
            ("bgm mesh", run_bgm(d, &mut bgm::Mesher::<10>::new(), false)),
            (
                "bgm fast_mesh",
                run_bgm(d, &mut bgm::Mesher::<10>::new(), true),
            ),
        ];
        for (name, q) in rows {
            println!("| {} ({chunks}) | {name} | {q} |", d.name);
        }
    }
}

criterion_group!(benches, bench, access, mips);

fn main() {
    // Criterion's files keep their modification time at most this old: a second earlier, to
    // be safe with coarse file-system clocks.
    let since = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
    benches();
    Criterion::default().configure_from_args().final_summary();
    if std::env::var_os("VOXCAF_BENCH_NO_SUMMARY").is_none() {
        // The benchmark worlds and the peers' inputs, prepared once for both tables.
        let datasets = datasets();
        summary(since, &datasets);
        quad_counts(&datasets);
    }
}
