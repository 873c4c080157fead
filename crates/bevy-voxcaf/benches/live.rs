//! The live link's latency (issue 42's goal: an edit made in the editor is re-meshed in the
//! running game within 100 ms on loopback): a real editor (`vwr_serve::start`, as `voxcaf
//! world serve` runs it) on the demo's showcase level, a headless game linked to it, and edits
//! posted to the editor's HTTP API as its page posts them. Measured: the editor's own answer
//! to the edit (the floor: the game cannot know sooner), and the time until the game has
//! re-meshed the edited chunk.
//!
//! ```text
//! cargo bench -p bevy_voxcaf --bench live
//! ```

// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use bevy::app::App;
use bevy::ecs::message::Messages;
use bevy_voxcaf::{headless_app, load_now, ChunksRemeshed, LinkState, LiveLink, VoxWorld};
use criterion::{criterion_group, criterion_main, Criterion};

criterion_group!(benches, live);
criterion_main!(benches);

const GOAL_MS: f64 = 100.0;

/// Posts an edit script to the editor; returns when it has answered.
fn post(server: &vwr_serve::RunningServer, script: &str) {
    let r = ureq::post(format!("http://{}/api/ops", server.addr()))
        .header("X-Voxcaf-Token", server.token())
        .send(script)
        .expect("edit");
    assert_eq!(r.status(), 200, "{script}");
}

/// Updates `app` until a [`ChunksRemeshed`] names `chunk` as changed.
fn until_remeshed(app: &mut App, chunk: [u32; 3]) {
    let mut cursor = app
        .world()
        .resource::<Messages<ChunksRemeshed>>()
        .get_cursor_current();
    let start = Instant::now();
    loop {
        app.update();
        let msgs = app.world().resource::<Messages<ChunksRemeshed>>();
        if cursor.read(msgs).any(|m| m.changed.contains(&chunk)) {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "not re-meshed");
        std::thread::yield_now();
    }
}

fn live(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp");
    let world = vwr::samples::showcase().expect("showcase");
    let file = dir.path().join("showcase.vwr");
    std::fs::write(&file, world.to_bytes()).expect("write");
    let server = vwr_serve::start(&file, Default::default()).expect("editor");
    let mut app = headless_app(dir.path());
    let h = load_now::<VoxWorld>(&mut app, "showcase.vwr", Duration::from_secs(60)).expect("load");
    app.insert_resource(LiveLink::connect(&server.url(), h).expect("link"));
    let start = Instant::now();
    while app.world().resource::<LiveLink>().state() != &LinkState::Connected {
        assert!(start.elapsed() < Duration::from_secs(30), "not linked");
        app.update();
    }
    // One cell placed and erased in turn (the world stays as it was).
    let mut placed = false;
    let mut next_edit = move || {
        placed = !placed;
        if placed {
            "place 5 12 5 35"
        } else {
            "erase 5 12 5"
        }
    };
    let chunk = [0, 1, 0];
    let (mut answer_t, mut linked_t) = (Vec::new(), Vec::new());
    let mut g = c.benchmark_group("live link");
    g.bench_function("the editor's answer to an edit (floor)", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                post(&server, next_edit());
                total += t.elapsed();
                until_remeshed(&mut app, chunk);
            }
            answer_t.push(total.as_secs_f64() / iters as f64);
            total
        })
    });
    g.bench_function("edit to re-meshed chunk in the game", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                post(&server, next_edit());
                until_remeshed(&mut app, chunk);
                total += t.elapsed();
            }
            linked_t.push(total.as_secs_f64() / iters as f64);
            total
        })
    });
    g.finish();
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2] * 1e3
    };
    let (a, l) = (median(&mut answer_t), median(&mut linked_t));
    println!(
        "\nlive link on the showcase: edit to re-meshed chunk {l:.3} ms (goal <= {GOAL_MS} ms => {}); \
         the editor's answer alone {a:.3} ms: {:.2}x that floor",
        if l <= GOAL_MS { "goal met" } else { "GOAL MISSED" },
        l / a
    );
    server.shutdown().expect("shutdown");
}
