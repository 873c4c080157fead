//! World format benchmark: a bench binary that reports times and ratios against a baseline
//! measured in the same run (copying the same bytes into a fresh buffer).
//!
//! Run: `cargo bench -p vwr --bench world` (golden data from `VOXCAF_GOLDEN` or
//! `../shared/golden`; the world999 rows are skipped without it).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use vwr::{Block, Chunk, World};

/// Median wall time of `f` over enough runs to fill about `budget`.
fn time<R>(budget: Duration, mut f: impl FnMut() -> R) -> Duration {
    let start = Instant::now();
    black_box(f());
    let once = start.elapsed().max(Duration::from_nanos(50));
    let runs = ((budget.as_secs_f64() / once.as_secs_f64()) as usize).clamp(5, 10_000);
    let mut v: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed()
        })
        .collect();
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// Every one of the 1000 chunks uses 256 distinct values: 8 bits per block.
fn full_8bit_world() -> World {
    let mut w = World::new();
    let mut blocks = [Block::AIR; 1000];
    for (cx, cy, cz) in
        (0..10).flat_map(|z| (0..10).flat_map(move |y| (0..10).map(move |x| (x, y, z))))
    {
        for (i, b) in blocks.iter_mut().enumerate() {
            *b = Block(
                ((i * 37 + cx as usize * 11 + cy as usize * 7 + cz as usize) % 256) as u16 * 16 + 1,
            );
        }
        w.set_chunk(cx, cy, cz, Chunk::from_blocks(&blocks).unwrap())
            .unwrap();
    }
    w
}

fn bench_file(name: &str, bytes: &[u8]) {
    let budget = Duration::from_millis(600);
    let copy = time(budget, || bytes.to_vec());
    let load = time(budget, || World::from_bytes(bytes).unwrap());
    let world = World::from_bytes(bytes).unwrap();
    let save = time(budget, || world.to_bytes());
    assert_eq!(world.to_bytes(), bytes);
    println!(
        "{name:<22} {:>9} bytes | memcpy {:>10} | load {:>10} ({:>5.1}x memcpy) | save {:>10} ({:>5.1}x memcpy)",
        bytes.len(),
        ms(copy),
        ms(load),
        load.as_secs_f64() / copy.as_secs_f64(),
        ms(save),
        save.as_secs_f64() / copy.as_secs_f64()
    );
}

fn main() {
    // `cargo bench` passes `--bench`; ignore arguments.
    println!(
        "vwr world benchmark (median of repeated runs; ratios against memcpy of the same bytes)"
    );
    let golden = std::env::var_os("VOXCAF_GOLDEN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/golden")
        });
    match std::fs::read(golden.join("vwr/worlds3d/world999.vwr")) {
        Ok(b) => bench_file("world999.vwr", &b),
        Err(e) => println!("world999.vwr skipped: {e}"),
    }
    let full = full_8bit_world();
    let full_bytes = full.to_bytes();
    bench_file("full 8-bit world", &full_bytes);

    // Random access over the full world, coordinates precomputed outside the timed region.
    let mut s = 0x1234_5678_9abc_def0u64;
    let coords: Vec<[i32; 3]> = (0..1 << 20)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            [
                (s % 100) as i32,
                ((s >> 20) % 100) as i32,
                ((s >> 40) % 100) as i32,
            ]
        })
        .collect();
    let budget = Duration::from_millis(800);
    let get = time(budget, || {
        let mut acc = 0u32;
        for &[x, y, z] in &coords {
            acc = acc.wrapping_add(full.get_block(x, y, z).raw() as u32);
        }
        acc
    });
    let mut w = full.clone();
    let values: Vec<Block> = (0..256).map(|k| Block(k * 16 + 1)).collect();
    let set = time(budget, || {
        for (k, &[x, y, z]) in coords.iter().enumerate() {
            w.set_block(x, y, z, values[k & 255]).unwrap();
        }
    });
    let n = coords.len() as f64;
    // The same access pattern inside one 8-bit chunk (cache-resident): the per-call cost.
    let local: Vec<[i32; 3]> = coords.iter().map(|c| c.map(|v| v % 10)).collect();
    let get_local = time(budget, || {
        let mut acc = 0u32;
        for &[x, y, z] in &local {
            acc = acc.wrapping_add(full.get_block(x, y, z).raw() as u32);
        }
        acc
    });
    println!(
        "random get_block, 1 chunk {:>5.1} M/s   (cache-resident: the cost of the call itself)",
        n / get_local.as_secs_f64() / 1e6
    );
    let mut wl = full.clone();
    let set_local = time(budget, || {
        for (k, &[x, y, z]) in local.iter().enumerate() {
            wl.set_block(x, y, z, values[k & 255]).unwrap();
        }
    });
    println!(
        "random set_block, 1 chunk {:>5.1} M/s   (cache-resident)",
        n / set_local.as_secs_f64() / 1e6
    );
    let scan = time(budget, || {
        let mut acc = 0u32;
        for z in 0..100 {
            for y in 0..100 {
                for x in 0..100 {
                    acc = acc.wrapping_add(full.get_block(x, y, z).raw() as u32);
                }
            }
        }
        acc
    });
    println!(
        "scan get_block (x fastest) {:>5.1} M/s",
        1e6 / scan.as_secs_f64() / 1e6
    );
    println!(
        "random get_block       {:>8.1} M/s   (original C++: 13.8 M/s)",
        n / get.as_secs_f64() / 1e6
    );
    println!(
        "random set_block       {:>8.1} M/s   (original C++: 11.4 M/s; existing palette values)",
        n / set.as_secs_f64() / 1e6
    );

    let stone = Block(560);
    let fill = time(budget, || {
        let mut w = World::new();
        w.fill_box([0, 0, 0], [99, 99, 99], stone).unwrap();
        w
    });
    let one_by_one = time(Duration::from_millis(1500), || {
        let mut w = World::new();
        for z in 0..100 {
            for y in 0..100 {
                for x in 0..100 {
                    w.set_block(x, y, z, stone).unwrap();
                }
            }
        }
        w
    });
    println!(
        "box fill 100^3         {:>10} (set_block one at a time: {}, {:.0}x; original C++ per-block: ~1430 ms)",
        ms(fill),
        ms(one_by_one),
        one_by_one.as_secs_f64() / fill.as_secs_f64()
    );
}
