//! Loading the demo's showcase level through the plugin (asset server, loader, chunk meshes
//! as Bevy `Mesh` sub-assets) against `vwr-mesh` doing the same work directly: read the file's
//! bytes, parse them, mesh every chunk greedy with AO and build its vertex buffers
//! (issue 42's goal: at most 1.5× the direct time).
//!
//! ```text
//! cargo bench -p bevy_voxcaf --bench load
//! ```

// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetApp, AssetLoader, Assets, LoadContext};
use bevy::reflect::TypePath;
use bevy_voxcaf::{headless_app, load_now, VoxWorld};
use criterion::{criterion_group, criterion_main, Criterion};
use vwr_blocks::Registry;
use vwr_mesh::{mesh_world, MeshBuffers, MeshOptions};

criterion_group!(benches, load);
criterion_main!(benches);

const GOAL: f64 = 1.5;

/// A load done in this thread: (objects, chunks).
type Work<'a> = dyn Fn() -> (usize, usize) + 'a;

/// The floor: a file of the same bytes loaded through the same asset server by a loader that
/// only reads it (what any asset costs: tasks, the file's read, the asset's events).
#[derive(Asset, TypePath)]
struct Bytes(#[allow(dead_code)] Vec<u8>);

#[derive(TypePath)]
struct BytesLoader;

impl AssetLoader for BytesLoader {
    type Asset = Bytes;
    type Settings = ();
    type Error = std::io::Error;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        _: &mut LoadContext<'_>,
    ) -> Result<Bytes, std::io::Error> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        Ok(Bytes(bytes))
    }

    fn extensions(&self) -> &[&str] {
        &["bytes"]
    }
}

/// The time `load_now` takes to load `name` as an `A` (its handle dropped afterwards).
fn timed_load<A: Asset>(app: &mut bevy::app::App, name: &str) -> Duration {
    let t = Instant::now();
    let h = load_now::<A>(app, name, Duration::from_secs(60)).expect("load");
    let took = t.elapsed();
    assert!(app.world().resource::<Assets<A>>().contains(&h));
    took
}

fn load(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp");
    let world = vwr::samples::showcase().expect("showcase");
    std::fs::write(dir.path().join("showcase.vwr"), world.to_bytes()).expect("write");
    let registry = Registry::default();
    let direct = || {
        let bytes = std::fs::read(dir.path().join("showcase.vwr")).expect("read");
        let w = vwr::World::from_bytes(&bytes).expect("world");
        let mesh = mesh_world(&w, &registry, MeshOptions::GREEDY_AO);
        let buffers: Vec<MeshBuffers> = mesh
            .chunks
            .iter()
            .map(|c| MeshBuffers::from_chunk(c, &registry))
            .collect();
        (w.move_objects().expect("objects").len(), buffers.len())
    };
    // The same, with the chunks made into Bevy meshes as the loader makes them (no asset
    // server): what the plugin adds to the mesher's work, before the asset server's share.
    let converted = || {
        let bytes = std::fs::read(dir.path().join("showcase.vwr")).expect("read");
        let w = vwr::World::from_bytes(&bytes).expect("world");
        let mesh = mesh_world(&w, &registry, MeshOptions::GREEDY_AO);
        let meshes = bevy_voxcaf::chunk_meshes(&mesh, &registry, true);
        (w.move_objects().expect("objects").len(), meshes.len())
    };
    let mut app = headless_app(dir.path());
    app.init_asset::<Bytes>().register_asset_loader(BytesLoader);
    // One load through the asset server (`ext`: `vwr` for the plugin, `bytes` for the floor):
    // a fresh path each time (the asset server keeps a loaded path), the asset and its meshes
    // freed outside the timed part.
    let mut round = 0u64;
    let mut through_server = |ext: &str| {
        round += 1;
        let name = format!("showcase{round}.{ext}");
        std::fs::copy(dir.path().join("showcase.vwr"), dir.path().join(&name)).expect("copy");
        let took = if ext == "vwr" {
            timed_load::<VoxWorld>(&mut app, &name)
        } else {
            timed_load::<Bytes>(&mut app, &name)
        };
        app.update();
        let _ = std::fs::remove_file(dir.path().join(&name));
        took
    };
    let mut g = c.benchmark_group("showcase level");
    let (mut direct_t, mut plugin_t, mut converted_t) = (Vec::new(), Vec::new(), Vec::new());
    let in_process: [(&str, &Work, &mut Vec<f64>); 2] = [
        ("vwr-mesh directly", &direct, &mut direct_t),
        ("vwr-mesh + Bevy meshes", &converted, &mut converted_t),
    ];
    for (name, work, log) in in_process {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    std::hint::black_box(work());
                }
                let took = t.elapsed();
                log.push(took.as_secs_f64() / iters as f64);
                took
            })
        });
    }
    let mut floor_t = Vec::new();
    for (name, ext, log) in [
        ("the same bytes as an asset (floor)", "bytes", &mut floor_t),
        ("through the plugin", "vwr", &mut plugin_t),
    ] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let total: Duration = (0..iters).map(|_| through_server(ext)).sum();
                log.push(total.as_secs_f64() / iters as f64);
                total
            })
        });
    }
    g.finish();
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (d, p) = (median(&mut direct_t), median(&mut plugin_t));
    let m = median(&mut converted_t);
    let f = median(&mut floor_t);
    println!(
        "\nmachine: {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "showcase: directly {:.3} ms, through the plugin {:.3} ms: {:.2}x; goal <= {GOAL}x => {}",
        d * 1e3,
        p * 1e3,
        p / d,
        if p / d <= GOAL {
            "goal met"
        } else {
            "GOAL MISSED"
        }
    );
    println!(
        "  of which Bevy meshes: {:.3} ms ({:.2}x directly); the asset server: {:.3} ms",
        m * 1e3,
        m / d,
        (p - m) * 1e3
    );
    println!(
        "  floor: the same bytes loaded as a plain asset take {:.3} ms; the plugin takes \
         {:.2}x directly + that floor",
        f * 1e3,
        p / (d + f)
    );
}
