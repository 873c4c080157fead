//! The Bevy plugin's distant view of the 1000×100×1000 terrain (issue 40: "the browser editor
//! and the Bevy plugin draw far regions from levels of detail"): a world loaded **without**
//! chunk meshes (`VwrLoaderSettings::chunk_meshes` off, set by a `.vwr.meta`) and drawn by a
//! `VoxDistantView` with its defaults (cells up to 4 px of a 1920-pixel view of 90°; levels
//! 1–3) from 300 blocks off the world's top corner, against the baseline in the same run: the
//! same file loaded as usual, every chunk of blocks meshed into Bevy meshes. Both are timed
//! end to end in a fresh headless app (asset server, loader, and for the view: levels built,
//! regions planned and meshed, children spawned). Printed after the timings: triangles and
//! mesh assets of each.
// criterion_main! defines an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::path::Path;
use std::time::Duration;

use bevy_voxcaf::bevy::app::App;
use bevy_voxcaf::bevy::asset::{Assets, Handle};
use bevy_voxcaf::bevy::math::Vec3;
use bevy_voxcaf::bevy::mesh::Mesh;
use bevy_voxcaf::{
    headless_app, load_now, spawn_distant_view, DistantRegions, VoxDistantView, VoxWorld,
    VwrLoaderSettings,
};
use criterion::{criterion_group, criterion_main, Criterion};

/// 300 blocks from the top corner (0, 100, 0), along the outward diagonal (as `distant.rs`).
const CAMERA: [f32; 3] = [-173.2, 273.2, -173.2];
const WAIT: Duration = Duration::from_secs(600);

/// Loads `name` in a fresh app; with `view`, draws it from [`CAMERA`] until the view is up.
fn run(dir: &Path, name: &str, view: bool) -> (App, Handle<VoxWorld>) {
    let mut app = headless_app(dir);
    let h = load_now::<VoxWorld>(&mut app, name, WAIT).expect("load");
    if view {
        let at = Vec3::from_array(CAMERA);
        let (_, root) = spawn_distant_view(&mut app, h.clone(), at, VoxDistantView::new);
        while app
            .world()
            .get::<DistantRegions>(root)
            .is_none_or(|r| r.is_empty())
        {
            app.update();
        }
    }
    (app, h)
}

fn triangles(app: &App) -> usize {
    app.world()
        .resource::<Assets<Mesh>>()
        .iter()
        .filter_map(|(_, m)| m.indices())
        .map(|i| i.len() / 3)
        .sum()
}

fn bevy_distant(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp");
    let w = voxcaf_bench::terrain_1000();
    let options = vwr::SaveOptions::v3(vwr::Codec::Auto);
    w.save_with(dir.path().join("all.vwr"), &options)
        .expect("save");
    w.save_with(dir.path().join("view.vwr"), &options)
        .expect("save");
    drop(w);
    let meta = VwrLoaderSettings {
        chunk_meshes: false,
        ..VwrLoaderSettings::default()
    }
    .meta_file();
    std::fs::write(dir.path().join("view.vwr.meta"), meta).expect("meta");
    let mut g = c.benchmark_group("bevy: the 1000x100x1000 terrain");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("baseline: loaded with every chunk meshed", |b| {
        b.iter(|| run(dir.path(), "all.vwr", false))
    });
    g.bench_function("loaded without chunk meshes, distant view drawn", |b| {
        b.iter(|| run(dir.path(), "view.vwr", true))
    });
    g.finish();
    println!("\n{}", voxcaf_bench::machine());
    let (all, _) = run(dir.path(), "all.vwr", false);
    let (view, _) = run(dir.path(), "view.vwr", true);
    let mut q = view.world().try_query::<&DistantRegions>().expect("query");
    let regions = q.iter(view.world()).next().expect("view");
    println!(
        "every chunk meshed: {} triangles in {} meshes; distant view: {} triangles in {} meshes, \
         regions per level {:?}",
        triangles(&all),
        all.world().resource::<Assets<Mesh>>().len(),
        triangles(&view),
        view.world().resource::<Assets<Mesh>>().len(),
        regions.level_counts(),
    );
}

criterion_group!(benches, bevy_distant);
criterion_main!(benches);
