//! Editing benchmarks: box fills (whole 100³ world, an unaligned 37×23×41 box), sphere brush
//! r = 8, flood fill of a 50 000-cell region, the undo of each, history memory, and box fill
//! against the same fill done one `set_block` at a time (the original editor's only path).
//!
//! `cargo bench -p vwr-edit` runs the criterion groups (each tool, its undo, and the per-cell
//! `set_block` baseline for the same boxes, measured in the same run), then prints the undo
//! history's memory per command.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion};
use vwr::{Block, World};
use vwr_edit::{Brush, BrushShape, Editor, FloodLimits};

fn blk(t: u16) -> Block {
    Block::make(t, 0).unwrap()
}

/// A level-like world: a floor, some walls and scattered blocks of 12 values.
fn level() -> World {
    let mut w = World::new();
    w.fill_box([0, 0, 0], [99, 0, 99], blk(35)).unwrap();
    let mut rng = voxcaf_golden::Rng::new(7);
    for _ in 0..20_000 {
        let s = rng.next_u64();
        let (x, y, z) = (
            (s % 100) as i32,
            ((s >> 8) % 30) as i32,
            ((s >> 16) % 100) as i32,
        );
        w.set_block([x, y, z], blk(1 + ((s >> 24) % 12) as u16))
            .unwrap();
    }
    w
}

/// A closed stone box whose air interior is exactly 50 × 40 × 25 = 50 000 cells.
fn cavern() -> World {
    let mut w = World::new();
    w.fill_box([0, 0, 0], [51, 41, 26], blk(3)).unwrap();
    w.fill_box([1, 1, 1], [50, 40, 25], Block::AIR).unwrap();
    w
}

const WHOLE: ([i32; 3], [i32; 3]) = ([0, 0, 0], [99, 99, 99]);
const UNALIGNED: ([i32; 3], [i32; 3]) = ([13, 7, 29], [13 + 36, 7 + 22, 29 + 40]);
const SPHERE: Brush = Brush {
    shape: BrushShape::Sphere,
    radius: 8,
};

type Tool = fn(&mut Editor);
type Case = (&'static str, fn() -> World, Tool);

fn tools() -> Vec<Case> {
    vec![
        (
            "box fill whole 100³ world",
            World::new as fn() -> World,
            |e: &mut Editor| {
                e.fill_box(WHOLE.0, WHOLE.1, blk(35)).unwrap();
            },
        ),
        (
            "clear whole 100³ world",
            || {
                let mut w = World::new();
                w.fill_box(WHOLE.0, WHOLE.1, blk(35)).unwrap();
                w
            },
            |e: &mut Editor| {
                e.fill_box(WHOLE.0, WHOLE.1, Block::AIR).unwrap();
            },
        ),
        ("box fill 37×23×41 unaligned", level, |e: &mut Editor| {
            e.fill_box(UNALIGNED.0, UNALIGNED.1, blk(261)).unwrap();
        }),
        ("sphere brush r=8", level, |e: &mut Editor| {
            e.brush(SPHERE, [50, 15, 50], blk(68)).unwrap();
        }),
        ("flood fill 50 000 cells", cavern, |e: &mut Editor| {
            let c = e
                .flood_fill([20, 20, 10], blk(92), FloodLimits::default())
                .unwrap();
            assert_eq!(c.cells, 50_000);
        }),
    ]
}

fn per_cell_fill(w: &mut World, a: [i32; 3], b: [i32; 3], block: Block) {
    for z in a[2]..=b[2] {
        for y in a[1]..=b[1] {
            for x in a[0]..=b[0] {
                w.set_block([x, y, z], block).unwrap();
            }
        }
    }
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("tool");
    g.sample_size(10).measurement_time(Duration::from_secs(2));
    for (name, make, tool) in tools() {
        let base = Editor::new(make());
        g.bench_function(name, |b| {
            b.iter_batched(
                || base.clone(),
                |mut e| {
                    tool(&mut e);
                    e
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();

    let mut g = c.benchmark_group("undo");
    g.sample_size(10).measurement_time(Duration::from_secs(2));
    for (name, make, tool) in tools() {
        let mut done = Editor::new(make());
        tool(&mut done);
        g.bench_function(name, |b| {
            b.iter_batched(
                || done.clone(),
                |mut e| {
                    black_box(e.undo());
                    e
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();

    let mut g = c.benchmark_group("baseline set_block per cell");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.bench_function("whole 100³ world", |b| {
        b.iter_batched(
            World::new,
            |mut w| {
                per_cell_fill(&mut w, WHOLE.0, WHOLE.1, blk(35));
                w
            },
            BatchSize::LargeInput,
        )
    });
    let lv = level();
    g.bench_function("37×23×41 unaligned", |b| {
        b.iter_batched(
            || lv.clone(),
            |mut w| {
                per_cell_fill(&mut w, UNALIGNED.0, UNALIGNED.1, blk(261));
                w
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

/// History memory per tool (a size, not a time: the times are criterion's groups above).
fn history_sizes() {
    println!("\nvwr-edit undo history size per command");
    for (name, make, tool) in tools() {
        let mut done = Editor::new(make());
        tool(&mut done);
        println!("{name:<32} {:>14} bytes", done.history().memory_bytes());
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
    history_sizes();
}
