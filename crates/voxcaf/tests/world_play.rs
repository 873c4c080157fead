//! `voxcaf world ray|sweep|objects|play` run as a user would run them: the JSON contract of
//! issue 14, the text output, and the unhappy paths (usage errors exit 2, bad input exits 1).

mod common;
use common::{assert_help_example, output, output_with_stdin, voxcaf};

use std::path::{Path, PathBuf};

use serde_json::Value;
use vwr::{Block, MoveObject, World};

fn run(args: &[&str]) -> (i32, String, String) {
    output(voxcaf().args(args))
}

/// Runs `voxcaf world SUB FILE REST…`, with REST split at whitespace (FILE stays one
/// argument, whatever it holds).
fn world(sub: &str, file: &str, rest: &str) -> (i32, String, String) {
    run(&world_args(sub, file, rest))
}

/// The arguments `world SUB FILE REST…`, REST split at whitespace.
fn world_args<'a>(sub: &'a str, file: &'a str, rest: &'a str) -> Vec<&'a str> {
    let mut args = vec!["world", sub, file];
    args.extend(rest.split_whitespace());
    args
}

/// [`world`] that must exit 0 with every one of `needles` in its text.
fn world_says(sub: &str, file: &str, rest: &str, needles: &[&str]) {
    let (code, out, err) = world(sub, file, rest);
    assert_eq!(code, 0, "{sub} {rest}: {out}{err}");
    for n in needles {
        assert!(out.contains(n), "{sub} {rest}: no {n:?} in {out}");
    }
}

/// Runs `voxcaf ARGS`: the exit code must be 0, the answer is the parsed output.
fn json(args: &[&str]) -> Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {out}{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

/// [`json`] for `voxcaf world SUB FILE REST… --json`.
fn world_json(sub: &str, file: &str, rest: &str) -> Value {
    let mut args = world_args(sub, file, rest);
    args.push("--json");
    json(&args)
}

/// The JSON error object a failing `--json` command printed on stdout.
fn json_error(out: &str) -> Value {
    let e: Value = serde_json::from_str(out).unwrap();
    e["error"].clone()
}

/// A non-cubic 30 × 10 × 20 world: a floor, a wall at x = 20, lava at (5, 0, 15), an egg, a
/// patrolling enemy and an exit.
fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("level.vwr");
    let mut w = World::with_chunk_dims([3, 1, 2]).unwrap();
    w.fill_box([0, 0, 0], [29, 0, 19], Block::make(35, 0).unwrap())
        .unwrap();
    w.fill_box([20, 1, 0], [20, 5, 19], Block::make(261, 0).unwrap())
        .unwrap();
    w.set_block([5, 0, 15], Block::make(68, 0).unwrap())
        .unwrap();
    w.set_spawn([2, 1, 2]).unwrap();
    w.place_move_object(&MoveObject::new(6, [6.0, 1.0, 2.0]))
        .unwrap();
    let mut enemy = MoveObject::new(2, [10.0, 1.0, 10.0]);
    enemy.pos_end = [13.0, 1.0, 10.0];
    w.place_move_object(&enemy).unwrap();
    w.place_move_object(&MoveObject::new(7, [12.0, 1.0, 2.0]))
        .unwrap();
    w.place_big_decor([3, 1, 8], 66).unwrap();
    w.save(&file).unwrap();
    (dir, file)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn ray_prints_the_contract_keys() {
    let (_d, file) = setup();
    let f = file.to_str().unwrap();
    let v = world_json("ray", f, "--from 3.5,5,3.5 --dir 0,-1,0");
    assert_eq!(v["hit"], true);
    assert_eq!(v["cell"], serde_json::json!([3, 0, 3]));
    assert_eq!(v["face"], "+y");
    assert_eq!(v["point"], serde_json::json!([3.5, 1.0, 3.5]));
    assert_eq!(v["distance"], 4.0);
    assert_eq!(v["block"], 35 << 4);
    // A negative direction given with `--dir=` or directly, into the wall.
    let v = world_json("ray", f, "--from 25.5,2.5,4.5 --dir -2,0,0");
    assert_eq!(v["cell"], serde_json::json!([20, 2, 4]));
    assert_eq!(v["face"], "+x");
    assert_eq!(v["distance"], 4.5);
    // Starting inside a solid block: distance 0, face null.
    let v = world_json("ray", f, "--from 20.5,2.5,4.5 --dir 1,0,0");
    assert_eq!(
        (v["distance"].as_f64(), v["face"].is_null()),
        (Some(0.0), true)
    );
    // Nothing within --max, or nothing at all.
    let v = world_json("ray", f, "--from 3.5,5,3.5 --dir 0,-1,0 --max 3.9");
    assert_eq!(v, serde_json::json!({"hit": false}));
    let v = world_json("ray", f, "--from 3.5,5,3.5 --dir 0,1,0");
    assert_eq!(v, serde_json::json!({"hit": false}));
    // Text.
    world_says(
        "ray",
        f,
        "--from 3.5,5,3.5 --dir 0,-1,0",
        &["hit (3, 0, 3) RockPile", "face +y"],
    );
}

#[test]
fn registry_overrides_reach_the_commands() {
    let (dir, file) = setup();
    let f = file.to_str().unwrap();
    let reg = write(
        dir.path(),
        "reg.toml",
        "[[block]]\nid = 35\nsolid = false\n",
    );
    let r = reg.to_str().unwrap();
    let v = json(&[
        "world",
        "ray",
        f,
        "--from",
        "3.5,5,3.5",
        "--dir",
        "0,-1,0",
        "--registry",
        r,
        "--json",
    ]);
    assert_eq!(v["hit"], false, "RockPile is no longer solid");
    let bad = write(
        dir.path(),
        "bad.toml",
        "[[block]]\nid = 35\ntrigger = \"boom\"\n",
    );
    let (code, out, _) = run(&[
        "world",
        "sweep",
        f,
        "--box",
        "0,1,0,1,2,1",
        "--move",
        "0,-1,0",
        "--registry",
        bad.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 1);
    let e = json_error(&out);
    assert!(e["message"].as_str().unwrap().contains("boom"), "{out}");
}

#[test]
fn sweep_prints_the_contract_keys() {
    let (_d, file) = setup();
    let f = file.to_str().unwrap();
    let v = world_json(
        "sweep",
        f,
        "--box 15.2,3,4.2,15.8,4.8,4.8 --move 1000,-10,0",
    );
    let b: Vec<f64> = v["box"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    for (got, want) in b.iter().zip([19.4, 1.0, 4.2, 20.0, 2.8, 4.8]) {
        assert!((got - want).abs() < 1e-9, "{b:?}");
    }
    assert_eq!((b[1], b[3]), (1.0, 20.0), "flush stops are exact");
    assert_eq!(v["blocked"], serde_json::json!(["y", "x"]));
    assert_eq!(v["on_ground"], true);
    assert_eq!(v["start_overlaps"], false);
    let v = world_json("sweep", f, "--box 19.5,1,4,20.5,2,5 --move -3,0,0");
    assert_eq!(v["start_overlaps"], true);
    assert_eq!(
        v["box"],
        serde_json::json!([19.5, 1.0, 4.0, 20.5, 2.0, 5.0])
    );
    assert_eq!(v["blocked"], serde_json::json!([]));
    world_says(
        "sweep",
        f,
        "--box 15.2,3,4.2,15.8,4.8,4.8 --move 1000,-10,0",
        &["blocked y, x; on the ground"],
    );
}

#[test]
fn objects_lists_positions_at_a_tick() {
    let (_d, file) = setup();
    let f = file.to_str().unwrap();
    let v = world_json("objects", f, "--tick 100");
    assert_eq!(v["tick"], 100);
    let list = v["objects"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    let enemy = list.iter().find(|o| o["kind"] == "enemy").unwrap();
    // Waits 40 ticks, then 1.5 blocks per 60 ticks: at tick 100 it has gone 1.5 blocks.
    assert_eq!(enemy["position"], serde_json::json!([11.5, 1.0, 10.0]));
    assert_eq!(enemy["moving"], true);
    assert_eq!(enemy["period_ticks"], 320.0);
    assert_eq!(v["decors"][0]["icon"], 66);
    world_says(
        "objects",
        f,
        "",
        &["3 objects, 1 decor at tick 0", "level exit"],
    );
}

#[test]
fn play_runs_a_script_to_the_exit() {
    let (dir, file) = setup();
    let f = file.to_str().unwrap();
    let script = write(dir.path(), "run.txt", "# to the exit\n60 right\n");
    let s = script.to_str().unwrap();
    let v = json(&["world", "play", f, "--input", s, "--json"]);
    assert_eq!(v["complete"], true, "{v}");
    assert_eq!(v["deaths"], 0);
    assert_eq!(v["collected"], 1);
    let names: Vec<&str> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["collected", "exit"]);
    assert!(v["ticks"].as_u64().unwrap() < 60);
    assert_eq!(v["player"]["on_ground"], true);
    // Into the lava: dies, back to spawn, not complete; --ticks plays on idle.
    let lava = write(dir.path(), "lava.txt", "15 right\n70 forward\n");
    let lava = lava.to_str().unwrap();
    let v = json(&[
        "world", "play", f, "--input", lava, "--ticks", "100", "--json",
    ]);
    assert_eq!(v["complete"], false);
    assert_eq!(v["ticks"], 100);
    let died = &v["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "died")
        .unwrap()
        .clone();
    assert_eq!(died["cause"], "hazard");
    assert_eq!(died["cell"], serde_json::json!([5, 0, 15]));
    // Text, with the script from standard input.
    let (code, text, err) = output_with_stdin(
        voxcaf().args(["world", "play", f, "--input", "-"]),
        b"60 right\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("reached the exit") && text.contains("level complete"),
        "{text}"
    );
}

#[test]
fn unhappy_paths() {
    let (dir, file) = setup();
    let f = file.to_str().unwrap();
    // Usage errors: exit 2.
    for (sub, file, rest) in [
        ("ray", f, "--from 1,2 --dir 0,-1,0"),
        ("ray", f, "--from 1,2,x --dir 0,-1,0"),
        ("ray", f, "--from 1,2,3 --dir 0,0,0"),
        ("ray", f, "--from 1,2,3 --dir 0,-1,0 --max -1"),
        ("ray", f, "--from 1,2,inf --dir 0,-1,0"),
        ("ray", f, "--dir 0,-1,0"),
        ("sweep", f, "--box 1,1,1,0,2,2 --move 0,-1,0"),
        ("sweep", f, "--box 1,1,1,2,2 --move 0,-1,0"),
        ("sweep", f, "--box 0,1,0,1,2,1 --move 0,nan,0"),
        ("objects", f, "--tick -3"),
        ("play", f, "--input x.txt --ticks 99999999999"),
        ("play", "-", "--input -"),
    ] {
        let (code, out, err) = world(sub, file, rest);
        assert_eq!(code, 2, "{sub} {file} {rest}: {out}{err}");
    }
    // A value that parses but is not finite is named as typed.
    let (_, _, err) = world("ray", f, "--from 1,2,inf --dir 0,-1,0");
    assert!(
        err.contains(r#""inf" in "1,2,inf" is not a finite number"#),
        "{err}"
    );
    // JSON usage error shape; argument errors come before reading the file.
    let (code, out, _) = world("ray", "missing.vwr", "--from 1,2,3 --dir 0,0,0 --json");
    assert_eq!(code, 2);
    let e = json_error(&out);
    assert_eq!(e["kind"], "usage");
    assert!(e["message"].as_str().unwrap().contains("zero"), "{out}");
    // Bad input: exit 1, naming the file (and the line for scripts).
    let junk = write(dir.path(), "junk.vwr", "not a world");
    let (code, _, err) = world("ray", junk.to_str().unwrap(), "--from 1,2,3 --dir 0,-1,0");
    assert_eq!(code, 1);
    assert!(err.contains("junk.vwr"), "{err}");
    let (code, _, err) = world("objects", "missing.vwr", "");
    assert_eq!(code, 1, "{err}");
    let bad = write(dir.path(), "bad.txt", "10 right\n5 fly\n");
    let bad = bad.to_str().unwrap();
    let (code, out, _) = run(&["world", "play", f, "--input", bad, "--json"]);
    assert_eq!(code, 1);
    let e = json_error(&out);
    assert_eq!(e["kind"], "input");
    assert!(e["file"].as_str().unwrap().ends_with("bad.txt"), "{out}");
    let msg = e["message"].as_str().unwrap();
    assert!(msg.contains("line 2") && msg.contains("fly"), "{msg}");
    let (code, _, err) = world("play", f, "--input no-such-script.txt");
    assert_eq!(code, 1, "{err}");
    // --help has examples.
    for cmd in ["ray", "sweep", "objects", "play"] {
        assert_help_example(&["world", cmd], &format!("voxcaf world {cmd}"));
    }
}
