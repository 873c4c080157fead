//! The editor's server-side work per edit on a 100³ hilly terrain: applying a script and
//! building the binary answer of the changed chunks, against the baseline of re-meshing and
//! sending the whole world (what a server without the revision-based cache would do).
//!
//! `cargo bench -p vwr-serve` (criterion; baseline and subject measured in the same run).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion};
use vwr_serve::{Session, SessionOptions};

#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("terrain.vwr");
    common::hilly_terrain().save(&file).unwrap();
    let open = || {
        let mut s = Session::open(&file, SessionOptions::default()).unwrap();
        let all = s.chunks_since(0);
        (s, all.len())
    };
    let (_, full_bytes) = open();
    let mut c = Criterion::default()
        .configure_from_args()
        .measurement_time(Duration::from_secs(4));
    let mut g = c.benchmark_group("edit to chunk answer (100³ terrain)");
    g.sample_size(20);
    // Baseline: the whole world meshed and encoded, as on opening.
    g.bench_function("baseline: whole world", |b| {
        b.iter(|| {
            let mut s = Session::open(&file, SessionOptions::default()).unwrap();
            black_box(s.chunks_since(0).len())
        })
    });
    for (name, script) in [
        ("place one block", "place 50 45 50 35"),
        ("box fill 50³", "box 25 20 25 74 69 74 rockpile"),
        ("sphere brush r=6", "brush sphere 40 30 40 6 air"),
    ] {
        g.bench_function(name, |b| {
            b.iter_batched(
                open,
                |(mut s, _)| {
                    let since = s.epoch();
                    s.apply_script(script).unwrap();
                    black_box(s.chunks_since(since).len())
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
    c.final_summary();
    println!("\nwhole-world chunk answer: {full_bytes} bytes");
}
