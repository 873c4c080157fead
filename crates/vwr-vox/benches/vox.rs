//! `.vox` export and import of the demo level, against saving and loading the same world as
//! `.vwr` (the baseline, measured in the same run): what a `.vox` round trip costs relative to
//! the native format.
//!
//! `cargo bench -p vwr-vox`

use std::hint::black_box;

use criterion::Criterion;
use vwr_vox::{export, import, ExportOptions, ImportOptions};

fn main() {
    let world = vwr::samples::showcase().expect("the showcase builds");
    let vox = export(&world, &ExportOptions::default())
        .expect("the showcase fits a palette")
        .bytes;
    let vwr_bytes = world.to_bytes();
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("showcase");
    g.bench_function("vwr save (baseline)", |b| {
        b.iter(|| black_box(&world).to_bytes())
    });
    g.bench_function("vox export", |b| {
        b.iter(|| export(black_box(&world), &ExportOptions::default()).unwrap())
    });
    g.bench_function("vwr load (baseline)", |b| {
        b.iter(|| vwr::World::from_bytes(black_box(&vwr_bytes)).unwrap())
    });
    g.bench_function("vox import", |b| {
        b.iter(|| import(black_box(&vox), &ImportOptions::default()).unwrap())
    });
    g.finish();
    c.final_summary();
}
