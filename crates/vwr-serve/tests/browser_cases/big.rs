//! The big-world scenario of the browser tests (a module of `browser.rs`): frame budgets,
//! far views from levels of detail without cracks, a click to screen, and the layer map of a
//! level wider than the map.

use std::path::{Path, PathBuf};

use vwr::World;
use vwr_serve::ServerOptions;

use super::{browser_tmp, common, cracks_in, ms_list, run_page, shot_dir};

/// The big-world scenario on the world `make` writes into a folder: at most 1,000 draw calls
/// and 2 M triangles per frame from every camera position tried; figures printed.
fn big_world_scenario(make: impl FnOnce(&Path) -> PathBuf) {
    let Some(tmp) = browser_tmp() else {
        return;
    };
    let file = make(tmp.path());
    let v = run_page(&file, ServerOptions::default(), "big");
    let f = &v["figures"];
    let d = World::load(&file).unwrap().block_dims();
    for (name, frame) in f["frames"].as_object().unwrap() {
        let calls = frame["calls"].as_u64().unwrap();
        let triangles = frame["triangles"].as_u64().unwrap();
        println!("{d:?} {name}: {calls} draw calls, {triangles} triangles");
        assert!(calls > 0, "{name}: nothing drawn");
        assert!(calls <= 1000, "{name}: {calls} draw calls");
        assert!(triangles <= 2_000_000, "{name}: {triangles} triangles");
    }
    // Figures, not assertions (timing depends on the machine).
    println!(
        "{d:?} world: payload {:.2} MB, open+show {:.0} ms, far pick at {:.0} blocks, click to screen {} ms",
        f["payload_bytes"].as_f64().unwrap() / 1e6,
        f["open_ms"].as_f64().unwrap(),
        f["far_pick_distance"].as_f64().unwrap(),
        ms_list(&f["click_to_screen_ms"]),
    );
    check_layer_map(&f["layer"], d);
    std::fs::write(
        shot_dir().join(format!("big-{}x{}x{}-figures.json", d[0], d[1], d[2])),
        serde_json::to_string_pretty(f).unwrap(),
    )
    .unwrap();
    // Far views: far regions from levels of detail (no budget) against the full meshes, and
    // no crack where levels meet.
    let shots = v["shots"].as_array().unwrap();
    for (name, fig) in f["far"].as_object().unwrap() {
        let end = format!("-{name}.png");
        let shot = shots
            .iter()
            .find(|s| s["file"].as_str().unwrap().ends_with(&end));
        let (cracks, drawn) = cracks_in(shot.unwrap());
        let (full, lod) = (&fig["full"], &fig["lod"]);
        println!("{d:?} {name}: full {full}; levels of detail {lod}; {cracks} crack pixels");
        assert!(lod["coarse"] == true, "{name}: {lod}");
        assert!(
            lod["triangles"].as_u64() < full["triangles"].as_u64(),
            "{name}: {fig}"
        );
        assert!(
            drawn > 0.05,
            "{name}: the world fills {:.0}% of the view",
            drawn * 100.0
        );
        assert_eq!(cracks, 0, "{name}: cracks where levels of detail meet");
    }
    // A lava column edited meanwhile: the levels held came back with only what changed (the
    // level chunks in every answer since the edit).
    let after = &f["lod_after_edit"];
    println!("{d:?} after an edit, the level-of-detail answers: {after}");
    println!("{d:?} first answer of each level: {}", after["first"]);
    assert!(
        (1..=12).contains(&after["since_edit"].as_u64().unwrap()),
        "{after}"
    );
    // With no triangle budget, far regions are drawn from levels of detail: fewer triangles.
    let (full, coarse) = (&f["frames"]["far_corner"], &f["far_corner_coarse"]);
    println!("{d:?} far_corner, far regions from levels of detail: {coarse}");
    assert!(coarse["calls"].as_u64().unwrap() > 0);
    // Fewer triangles, unless the full meshes in view were over the budget already (then that
    // frame went coarse too).
    if full["coarse"] == true {
        assert_eq!(
            coarse["triangles"], full["triangles"],
            "coarse {coarse} full {full}"
        );
    } else {
        assert!(
            coarse["triangles"].as_u64() < full["triangles"].as_u64(),
            "coarse {coarse} full {full}"
        );
    }
}

/// A hilly terrain of `chunk_dims` chunks saved in `dir`.
fn sized_terrain(dir: &Path, chunk_dims: [u32; 3]) -> PathBuf {
    let file = dir.join("terrain.vwr");
    common::hilly_terrain_sized(chunk_dims).save(&file).unwrap();
    file
}

#[test]
fn a_300_wide_terrain_draws_within_the_frame_budget_from_every_view() {
    big_world_scenario(|dir| sized_terrain(dir, [30, 10, 30]));
}

/// The 1000×100×1000 figures of issue 39 (slow: run by hand with `--ignored`), on the world
/// file in `VOXCAF_BIG_WORLD` (copied) when set, else on a generated hilly terrain.
#[test]
#[ignore]
fn a_1000_wide_terrain_draws_within_the_frame_budget_from_every_view() {
    big_world_scenario(|dir| match std::env::var_os("VOXCAF_BIG_WORLD") {
        Some(src) => {
            let file = dir.join("big.vwr");
            std::fs::copy(src, &file).unwrap();
            file
        }
        None => sized_terrain(dir, [100, 10, 100]),
    });
}

/// The layer map of a world wider than the map: a 200×200 window around the camera, said in
/// the info line; after a click on the map the camera looks at the cell clicked and the window
/// moved with it.
fn check_layer_map(layer: &serde_json::Value, d: [u32; 3]) {
    println!("{d:?} layer map: {layer}");
    let (before, after) = (&layer["before"], &layer["after"]);
    for map in [&before["map"], &after["map"]] {
        assert_eq!(map["windowed"], true, "{layer}");
        assert_eq!(
            (map["width"].as_u64(), map["depth"].as_u64()),
            (Some(200), Some(200))
        );
    }
    let info = before["info"].as_str().unwrap();
    assert!(info.starts_with("y=20, x "), "{info}");
    assert!(info.contains(&format!(" of {}×{}: ", d[0], d[2])), "{info}");
    // The click was at 90 % across and 10 % down the map (its border makes a cell or two of
    // difference), on level 20.
    let at = |k: &str, f: f64| before["map"][k].as_f64().unwrap() + 200.0 * f;
    let target: Vec<f64> = serde_json::from_value(after["target"].clone()).unwrap();
    assert_eq!(target[1], 20.5, "{layer}");
    for (t, want) in [(target[0], at("x0", 0.9)), (target[2], at("z0", 0.1))] {
        assert!((t - want).abs() <= 2.0, "{t} against {want}: {layer}");
    }
    let x0 = after["map"]["x0"].as_f64().unwrap();
    assert!(x0 <= target[0] && target[0] < x0 + 200.0, "{layer}");
    assert!(after["info"]
        .as_str()
        .unwrap()
        .contains(&format!("x {x0}..")));
}
