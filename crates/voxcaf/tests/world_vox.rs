//! `voxcaf world convert` between .vox and .vwr, run as a user would run it: the happy paths,
//! the round trip, and the unhappy paths (usage errors exit 2, bad input exits 1).

mod common;
use common::{assert_help_example, output, voxcaf};

use std::path::{Path, PathBuf};
use std::process::Stdio;

/// `../shared/corpus/vox/NAME`, or `None` (skip) unless the golden data is required.
fn corpus(name: &str) -> Option<PathBuf> {
    voxcaf_golden::corpus(&format!("vox/{name}"))
}

fn convert(args: &[&Path]) -> (i32, String, String) {
    output(voxcaf().args(["world", "convert"]).args(args))
}

fn blocks(p: &Path) -> Vec<([i32; 3], vwr::Block)> {
    let w = vwr::World::load(p).unwrap();
    let mut v = Vec::new();
    w.for_each_non_air(|p, b| v.push((p, b)));
    v
}

#[test]
fn vox_to_vwr_to_vox_to_vwr_keeps_the_blocks() {
    let Some(model) = corpus("chr_sol.vox") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a.vwr"),
        dir.path().join("b.vox"),
        dir.path().join("c.vwr"),
    );
    let (code, out, err) = convert(&[&model, &a]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("294 voxels"), "{out}");
    let (code, _, err) = convert(&[&a, &b]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read(&b).unwrap().starts_with(b"VOX "));
    let (code, _, err) = convert(&[&b, &c]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(blocks(&a), blocks(&c));
    assert_eq!(blocks(&a).len(), 294);
}

#[test]
fn json_origin_palette_and_stdin() {
    let Some(model) = corpus("chr_sol.vox") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pal = dir.path().join("p.toml");
    std::fs::write(&pal, "[palette]\n").unwrap();
    let out = dir.path().join("o.vwr");
    let (code, text, err) = output(
        voxcaf()
            .args([
                "world",
                "convert",
                "--json",
                "--origin",
                "3,0,4",
                "--palette",
            ])
            .arg(&pal)
            .arg(&model)
            .arg(&out),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["voxels"], 294);
    assert_eq!(v["direction"], "vox-to-vwr");
    // An empty mapping names no index: every index is reported as unmapped.
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .contains("not in the mapping"),
        "{v}"
    );
    let min_x = blocks(&out).iter().map(|(p, _)| p[0]).min().unwrap();
    let min_z = blocks(&out).iter().map(|(p, _)| p[2]).min().unwrap();
    assert_eq!((min_x, min_z), (3, 4));

    // `-` as input: the kind is told by the magic.
    let piped = dir.path().join("piped.vwr");
    let st = voxcaf()
        .args(["world", "convert", "-"])
        .arg(&piped)
        .stdin(std::fs::File::open(&model).unwrap())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    // `-` as output: .vwr -> .vox bytes on stdout (`--format vox`; a .vwr by default).
    let o = voxcaf()
        .args(["world", "convert", "--format", "vox"])
        .arg(&piped)
        .arg("-")
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(o.stdout.starts_with(b"VOX "));
}

#[test]
fn unhappy_paths_exit_2_for_usage_and_1_for_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let world = d.join("w.vwr");
    assert!(voxcaf()
        .args(["world", "new", "--chunks", "1"])
        .arg(&world)
        .output()
        .unwrap()
        .status
        .success());

    // Usage errors (2).
    for (args, needle) in [
        (vec![d.join("a.txt"), d.join("b.vwr")], "unknown input type"),
        (vec![world.clone(), d.join("b.png")], "must end in .vwr"),
        (
            vec![d.join("a.vox"), d.join("b.vox")],
            "both sides are .vox",
        ),
        (vec![PathBuf::from("-"), PathBuf::from("-")], "both be `-`"),
    ] {
        let (code, _, err) = output(voxcaf().args(["world", "convert"]).args(&args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let (code, _, err) = output(
        voxcaf()
            .args(["world", "convert", "--origin", "1,2"])
            .arg(d.join("a.vox"))
            .arg(d.join("b.vwr")),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("X,Y,Z"), "{err}");
    let (code, _, err) = output(
        voxcaf()
            .args(["world", "convert", "--origin", "1,2,3"])
            .arg(&world)
            .arg(d.join("b.vox")),
    );
    assert_eq!(code, 2, "{err}");
    // A foreign existing output needs --force.
    let foreign = d.join("keep.vox");
    std::fs::write(&foreign, b"not a vox").unwrap();
    let (code, _, err) = convert(&[&world, &foreign]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read(&foreign).unwrap(), b"not a vox");
    // JSON error shape.
    let (code, out, _) = output(
        voxcaf()
            .args(["world", "convert", "--json"])
            .arg(&world)
            .arg(&foreign),
    );
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["error"]["kind"], "usage");

    // Bad input (1), no output left behind.
    let bad = d.join("bad.vox");
    std::fs::write(&bad, b"VOX \x96\0\0\0garbage").unwrap();
    let out = d.join("never.vwr");
    let (code, _, err) = convert(&[&bad, &out]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("bad.vox") && err.contains("not a readable MagicaVoxel"),
        "{err}"
    );
    assert!(!out.exists());
    let pal = d.join("bad.toml");
    std::fs::write(&pal, "[palette]\n1 = \"no such block\"\n").unwrap();
    let (code, _, err) = output(
        voxcaf()
            .args(["world", "convert", "--palette"])
            .arg(&pal)
            .arg(&world)
            .arg(d.join("x.vox")),
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("bad.toml") && err.contains("unknown block"),
        "{err}"
    );
    // More than 255 block values: exported, folded with a warning (no longer refused).
    let mut big = vwr::World::with_chunks_per_axis(3).unwrap();
    for i in 0..256 {
        big.set_block(
            [i % 30, i / 30, 0],
            vwr::Block::make(1 + i as u16, 0).unwrap(),
        )
        .unwrap();
    }
    let bigp = d.join("big.vwr");
    big.save(&bigp).unwrap();
    let (code, _, err) = convert(&[&bigp, &d.join("big.vox")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning:") && err.contains("256 distinct block values"),
        "{err}"
    );
}

#[test]
fn move_objects_are_warned_about_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = vwr::World::with_chunks_per_axis(1).unwrap();
    w.set_block([1, 1, 1], vwr::Block::make(35, 0).unwrap())
        .unwrap();
    w.place_move_object(&vwr::MoveObject::new(7, [2.0, 1.0, 2.0]))
        .unwrap();
    let p = dir.path().join("m.vwr");
    w.save(&p).unwrap();
    let (code, _, err) = convert(&[&p, &dir.path().join("m.vox")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning:") && err.contains("MoveObject"),
        "{err}"
    );
}

#[test]
fn help_has_examples() {
    assert_help_example(&["world", "convert"], "voxcaf world convert castle.vox");
}

#[test]
fn a_vox_with_a_corrupted_voxel_count_is_refused_with_the_chunk_and_offset() {
    let Some(model) = corpus("chr_sol.vox") else {
        return;
    };
    let mut bytes = std::fs::read(model).unwrap();
    let at = bytes.windows(4).position(|w| w == b"XYZI").unwrap();
    bytes[at + 12 + 1] ^= 0x10; // one bit of the voxel count
    let dir = tempfile::tempdir().unwrap();
    let (bad, out) = (dir.path().join("bad.vox"), dir.path().join("out.vwr"));
    std::fs::write(&bad, &bytes).unwrap();
    let (code, _, err) = convert(&[&bad, &out]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("bad.vox") && err.contains(&format!("chunk XYZI at byte {at}")),
        "{err}"
    );
    // Not an empty world with exit 0: nothing written.
    assert!(!out.exists());
}

/// The 1024 bytes of a `.vox` file's `RGBA` chunk.
fn rgba_chunk(vox: &Path) -> Vec<u8> {
    let bytes = std::fs::read(vox).unwrap();
    let at = bytes.windows(4).position(|w| w == b"RGBA").unwrap();
    bytes[at + 12..at + 12 + 1024].to_vec()
}

#[test]
fn the_showcase_world_exports_to_vox_with_a_warning_and_comes_back_exactly() {
    let Some(golden) = voxcaf_golden::with_worlds() else {
        return;
    };
    let world = golden.join("vwr/worlds3d/world999.vwr");
    let dir = tempfile::tempdir().unwrap();
    let (vox, back) = (dir.path().join("w.vox"), dir.path().join("back.vwr"));
    let (code, _, err) = convert(&[&world, &vox]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning:") && err.contains("419 distinct block values"),
        "{err}"
    );
    let (code, _, err) = convert(&[&vox, &back]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(blocks(&back), blocks(&world));
}

#[test]
fn a_magicavoxel_palette_is_kept_through_vox_to_vwr_to_vox() {
    let Some(model) = corpus("dot_vox-placeholder-with-materials.vox") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (vwr, vox) = (dir.path().join("m.vwr"), dir.path().join("m.vox"));
    let (code, _, err) = convert(&[&model, &vwr]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = convert(&[&vwr, &vox]);
    assert_eq!(code, 0, "{err}");
    // The palette record is no warned-about record.
    assert!(!err.contains("warning:"), "{err}");
    assert_eq!(rgba_chunk(&vox), rgba_chunk(&model));
}

#[test]
fn world_commands_read_a_vox_model_directly() {
    let Some(vox) = voxcaf_golden::corpus("vox/chr_sol.vox") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let f = vox.to_str().unwrap();
    let info = common::cli_ok(d.path(), &format!("world info {f}"));
    assert!(
        info.contains("MagicaVoxel .vox (read as a world)"),
        "{info}"
    );
    assert!(info.contains("2³ chunks"), "{info}");
    // The same world `world convert` makes, read by get, check, dump, render, mesh and ray.
    common::cli_ok(d.path(), &format!("world convert {f} m.vwr"));
    let world = vwr::World::load(d.path().join("m.vwr")).unwrap();
    let (x, y, z) = world
        .chunks()
        .flat_map(|(p, c)| {
            let mut first = None;
            c.for_each_non_air(|i, _| {
                if first.is_none() {
                    let l = vwr::local_position(i);
                    first = Some([0, 1, 2].map(|k| p[k] as usize * 10 + l[k]));
                }
            });
            first
        })
        .map(|p| (p[0], p[1], p[2]))
        .next()
        .unwrap();
    let got = common::cli_ok(d.path(), &format!("world get {f} {x},{y},{z}"));
    let want = world.get_block([x as i32, y as i32, z as i32]).raw();
    assert!(got.contains(&format!("raw {want}")), "{got}");
    assert!(common::cli_ok(d.path(), &format!("world check {f}")).starts_with("OK"));
    let dump = common::cli_ok(d.path(), &format!("world dump {f}"));
    assert_eq!(dump, common::cli_ok(d.path(), "world dump m.vwr"));
    common::cli_ok(d.path(), &format!("world render {f} -o v.png"));
    common::cli_ok(d.path(), &format!("world mesh {f} -o v.glb"));
    assert!(d.path().join("v.png").is_file() && d.path().join("v.glb").is_file());
}

/// `world stats` and `world diff` read a `.vox` model as the world `world convert` makes;
/// `world edit` edits it into a `.vwr` (-o) and refuses to rewrite the model in place; the
/// history commands say a model has no history instead of "bad magic".
#[test]
fn stats_diff_and_edit_read_a_vox_model_and_history_says_it_has_none() {
    let Some(vox) = voxcaf_golden::corpus("vox/chr_sol.vox") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::copy(&vox, d.join("m.vox")).unwrap();
    common::cli_ok(d, "world convert m.vox m.vwr");
    let stats = |f: &str| {
        let mut j = common::cli_json(d, &format!("world stats {f} --json"));
        j.as_object_mut()
            .unwrap()
            .retain(|k, _| k != "file" && k != "version" && k != "vox");
        j
    };
    let from_vox = stats("m.vox");
    assert!(
        from_vox["non_air_blocks"].as_u64().unwrap() > 0,
        "{from_vox}"
    );
    assert_eq!(from_vox, stats("m.vwr"));
    assert_eq!(common::cli_json(d, "world stats m.vox --json")["vox"], true);
    // The same world: diff says so (exit 0) both ways.
    let (code, out, err) = common::cli(d, "world diff m.vox m.vwr");
    assert_eq!(code, 0, "{out}{err}");
    // An edit of the model, into a .vwr; diff then finds the one cell.
    let edit = |args: &[&str]| common::run(d, &[&["world", "edit", "m.vox"], args].concat());
    let (code, out, err) = edit(&["-o", "e.vwr", "--json", "place 0 0 0 35:2"]);
    assert_eq!(code, 0, "{err}");
    let ed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(ed["changed"], true, "{ed}");
    let j = common::cli_json(d, "world get e.vwr 0,0,0 --json");
    assert_eq!(
        (j["type"].as_u64(), j["meta"].as_u64()),
        (Some(35), Some(2)),
        "{j}"
    );
    let (code, out, _) = common::cli(d, "world diff m.vox e.vwr --json");
    assert_eq!(code, 1);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["cells"].as_u64(), Some(1), "{j}");
    // A dry run on the model is fine; in place is refused, and the model is untouched.
    let before = std::fs::read(d.join("m.vox")).unwrap();
    assert_eq!(edit(&["--dry-run", "place 0 0 0 35"]).0, 0);
    let (code, _, err) = edit(&["place 0 0 0 35"]);
    assert_eq!(code, 2);
    assert!(err.contains("pass -o OUT.vwr"), "{err}");
    assert_eq!(std::fs::read(d.join("m.vox")).unwrap(), before);
    for cmd in ["history", "revert", "compact"] {
        common::cli_err(
            d,
            &format!("world {cmd} m.vox"),
            1,
            "MagicaVoxel .vox model, which keeps no commit history",
        );
    }
}
