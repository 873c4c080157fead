//! `voxcaf world lod` and the levels of detail `world info`, `world edit`, `resave` and
//! `convert` keep (docs/format/vwr-v3.md §13), run as a user would run them.

mod common;
use common::{cli_err, cli_json, cli_ok, run};

fn edit(dir: &std::path::Path, ops: &[&str]) {
    let mut args = vec!["world", "edit", "w.vwr"];
    args.extend_from_slice(ops);
    let (code, out, err) = run(dir, &args);
    assert_eq!(code, 0, "{ops:?}: {out}{err}");
}

fn levels(dir: &std::path::Path, file: &str) -> Vec<(u64, u64)> {
    let j = cli_json(dir, &format!("world info {file} --json"));
    j["lod"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["level"].as_u64().unwrap(), l["chunks"].as_u64().unwrap()))
        .collect()
}

#[test]
fn lod_builds_reports_follows_edits_and_drops() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    cli_ok(dir, "world new w.vwr --size 160x40x160");
    edit(
        dir,
        &[
            "box 0 0 0 159 5 159 stone",
            "brush sphere 80 10 80 8 brickwall",
        ],
    );
    // Default: as many levels as it takes for one chunk to cover the world (16 chunks -> 4).
    let out = cli_ok(dir, "world lod w.vwr");
    assert!(out.contains("4 levels of detail"), "{out}");
    assert!(out.contains("% of level 0's"), "{out}");
    let before = levels(dir, "w.vwr");
    assert_eq!(
        before.iter().map(|l| l.0).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    assert_eq!(before[4].1, 1);
    let info = cli_ok(dir, "world info w.vwr");
    assert!(info.contains("level 4: 1 chunk,"), "{info}");
    // An edit's commit rewrites the ancestors it changes, and only them.
    edit(dir, &["box 150 6 150 159 39 159 glass"]);
    let after = levels(dir, "w.vwr");
    assert!(after[1].1 > before[1].1, "{before:?} -> {after:?}");
    // resave and convert to another v3 file keep the levels; convert to v2 cannot.
    cli_ok(dir, "world resave w.vwr -o r.vwr");
    assert_eq!(levels(dir, "r.vwr"), after);
    cli_ok(dir, "world convert w.vwr c.vwr --codec rle");
    assert_eq!(levels(dir, "c.vwr"), after);
    // world mesh --lod K exports a level, each chunk closed; fewer triangles than level 0.
    let m0 = cli_json(dir, "world mesh w.vwr -o m0.glb --greedy --json");
    let m1 = cli_json(dir, "world mesh w.vwr -o m1.glb --greedy --lod 1 --json");
    let m3 = cli_json(
        dir,
        "world mesh c.vwr -o m3.obj --greedy --lod 3 --per-chunk --json",
    );
    assert!(m1["chunks"].as_u64().unwrap() <= after[1].1, "{m1}");
    let tris = |m: &serde_json::Value| m["triangles"].as_u64().unwrap();
    assert!(
        tris(&m3) < tris(&m1) && tris(&m1) < tris(&m0),
        "{m0} {m1} {m3}"
    );
    let obj = std::fs::read_to_string(dir.join("m3.obj")).unwrap();
    assert!(obj.contains("lod3_chunk_0_0_0"), "{}", &obj[..200]);
    cli_err(dir, "world mesh w.vwr -o m9.glb --lod 9", 2, "9");
    // --levels 0 drops them; history stays.
    let j = cli_json(dir, "world lod w.vwr --levels 0 --json");
    assert_eq!(j["levels"], 0);
    assert_eq!(levels(dir, "w.vwr").len(), 1);
    let h = cli_json(dir, "world history w.vwr --json");
    assert!(h["commits"].as_array().unwrap().len() >= 3, "{h}");
}

#[test]
fn lod_refuses_what_it_cannot_do_with_a_clear_message() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    cli_ok(dir, "world new v2.vwr");
    cli_err(dir, "world lod v2.vwr --levels 2", 1, "need a v3 file");
    cli_err(dir, "world lod v2.vwr --levels 9", 2, "9");
    cli_err(dir, "world lod missing.vwr", 1, "missing.vwr");
    // The largest world has no chunk indices left for any level: asked for levels, it says
    // so and how many fit; by default it builds the most that fit (none) and says why.
    cli_ok(dir, "world new huge.vwr --size 655350x10x655350");
    cli_err(dir, "world lod huge.vwr --levels 2", 1, "has room for none");
    let (code, out, err) = run(dir, &["world", "lod", "huge.vwr"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("no levels of detail (a world this size has no room"),
        "{out}"
    );
    // Half as deep has room for all eight, even empty (no share of level 0's 0 bytes).
    cli_ok(dir, "world new half.vwr --size 655350x10x327680");
    let (code, out, err) = run(dir, &["world", "lod", "half.vwr"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("8 levels of detail, 0 bytes (") && !out.contains('%'),
        "{out}"
    );
}
