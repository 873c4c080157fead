//! Benchmark data for the voxcaf crates: the worlds the mesher benchmarks run on.
//!
//! Benchmarks live in `benches/`; peers (`block-mesh`, `binary-greedy-meshing`) are
//! dev-dependencies of this crate only.

use vwr::{Block, World};

/// The machine the figures come from, as a line for a benchmark's output: the CPU model and
/// core count (from `/proc/cpuinfo`) and the load average when it ran.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpu
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .unwrap_or(": unknown")
        .trim_start_matches([' ', '\t', ':']);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    format!("machine: {model}, {cores} cores; load average {load}")
}

/// The machine's busy CPU time so far, over all cores and every process (user, nice, system,
/// irq and softirq from `/proc/stat`; idle, iowait and time stolen by the hypervisor are not
/// counted), or `None` where `/proc/stat` cannot be read. The difference of two readings is
/// the work the whole machine did in between: a bench's own threads, servers it talks to, the
/// kernel's share of their I/O.
pub fn busy_cpu() -> Option<std::time::Duration> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // user nice system idle iowait irq softirq steal ...: jiffies of USER_HZ (100 on Linux).
    let busy: u64 = [0, 1, 2, 5, 6].iter().filter_map(|&i| fields.get(i)).sum();
    Some(std::time::Duration::from_millis(busy * 10))
}

/// A dense hilly terrain filling a 100³ world (10³ chunks): stone below, dirt, a grass top,
/// heights from overlapping sine waves between about 8 and 60.
pub fn hilly_terrain() -> World {
    let mut w = World::new();
    let stone = Block::make(3, 0).unwrap();
    let dirt = Block::make(2, 0).unwrap();
    let grass = Block::make(1, 0).unwrap();
    for z in 0..100i32 {
        for x in 0..100i32 {
            let (fx, fz) = (x as f32, z as f32);
            let h = 32.0
                + 14.0 * (fx / 13.0).sin() * (fz / 17.0).cos()
                + 7.0 * ((fx + 2.0 * fz) / 9.0).sin()
                + 3.0 * ((3.0 * fx - fz) / 5.0).cos();
            let h = h.clamp(1.0, 99.0) as i32;
            w.fill_box([x, 0, z], [x, h - 4, z], stone).unwrap();
            w.fill_box([x, (h - 3).max(0), z], [x, h - 1, z], dirt)
                .unwrap();
            w.set_block([x, h, z], grass).unwrap();
        }
    }
    w
}

/// A solid sphere of diameter 32 (radius 16) in a 4³-chunk world, two block types in
/// concentric shells.
pub fn sphere32() -> World {
    let mut w = World::with_chunks_per_axis(4).unwrap();
    let a = Block::make(35, 0).unwrap();
    let b = Block::make(261, 0).unwrap();
    let c = 20.0f32;
    for z in 4..36 {
        for y in 4..36 {
            for x in 4..36 {
                let d = ((x as f32 + 0.5 - c).powi(2)
                    + (y as f32 + 0.5 - c).powi(2)
                    + (z as f32 + 0.5 - c).powi(2))
                .sqrt();
                if d <= 16.0 {
                    let blk = if d > 13.0 { a } else { b };
                    w.set_block([x, y, z], blk).unwrap();
                }
            }
        }
    }
    w
}

/// The golden world999 (the original's showcase), if the golden folder is present.
pub fn world999() -> Option<World> {
    let dir = std::env::var_os("VOXCAF_GOLDEN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/golden")
        });
    World::load(dir.join("vwr/worlds3d/world999.vwr")).ok()
}

/// The session and store benchmarks' world: hilly terrain in 2×2 columns over 1000×100×1000 blocks, rock under a grass top.
pub fn terrain_1000() -> World {
    let mut w = World::with_chunk_dims([100, 10, 100]).expect("size");
    for x in (0..1000).step_by(2) {
        for z in (0..1000).step_by(2) {
            let h = 20 + ((x as f32 * 0.05).sin() * 8.0 + (z as f32 * 0.04).cos() * 8.0) as i32;
            let rock = Block::make(35, 0).expect("block");
            let grass = Block::make(1, 0).expect("block");
            w.fill_box([x, 0, z], [x + 1, h - 3, z + 1], rock)
                .expect("fill");
            w.fill_box([x, h - 2, z], [x + 1, h, z + 1], grass)
                .expect("fill");
        }
    }
    w
}
