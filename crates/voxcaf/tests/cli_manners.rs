//! The command line's manners (issue 43): errors name their file once, in text and in JSON.

mod common;

use std::path::Path;

use common::{cli_ok, run};

/// A v2 world `ro/w.vwr` made read-only, a file `bad.vwr` that is a PNG and an empty folder
/// `empty`, in `dir`.
fn read_only_world_and_bad_magic_file(dir: &Path) {
    cli_ok(dir, "world new w.vwr --chunks 2");
    std::fs::create_dir_all(dir.join("ro")).unwrap();
    std::fs::rename(dir.join("w.vwr"), dir.join("ro/w.vwr")).unwrap();
    let mut perm = std::fs::metadata(dir.join("ro/w.vwr"))
        .unwrap()
        .permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(dir.join("ro/w.vwr"), perm).unwrap();
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.resize(96, 0);
    std::fs::write(dir.join("bad.vwr"), png).unwrap();
    std::fs::create_dir_all(dir.join("empty")).unwrap();
}

/// The failing commands of the tests: a read-only world edit, a bad-magic file read, a missing
/// file read, a folder without worlds.
const FAILING: [(&[&str], &str); 5] = [
    (
        &["world", "edit", "ro/w.vwr", "place 1 1 1 stone"],
        "ro/w.vwr",
    ),
    (
        &[
            "world",
            "edit",
            "ro/w.vwr",
            "place 1 1 1 stone",
            "-o",
            "ro/w.vwr",
        ],
        "ro/w.vwr",
    ),
    (&["world", "info", "bad.vwr"], "bad.vwr"),
    (&["world", "info", "missing.vwr"], "missing.vwr"),
    (&["world", "check", "empty"], "empty"),
];

fn json_error(out: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect(out);
    assert_eq!(v["ok"], false, "{out}");
    v["error"].clone()
}

#[test]
fn json_errors_carry_the_file() {
    let d = tempfile::tempdir().unwrap();
    read_only_world_and_bad_magic_file(d.path());
    for (args, file) in FAILING {
        let mut with_json = args.to_vec();
        with_json.push("--json");
        let (code, out, err) = run(d.path(), &with_json);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        let e = json_error(&out);
        assert_eq!(e["file"], file, "{args:?}: {out}");
        assert_eq!(e["kind"], "input", "{args:?}: {out}");
        let message = e["message"].as_str().unwrap();
        assert!(
            !message.starts_with(&format!("{file}:")),
            "{args:?}: the message repeats the file: {out}"
        );
    }
    let (_, out, _) = run(d.path(), &["world", "info", "bad.vwr", "--json"]);
    assert!(json_error(&out)["message"]
        .as_str()
        .unwrap()
        .contains("bad magic"));
}

#[test]
fn messages_do_not_repeat_the_path() {
    let d = tempfile::tempdir().unwrap();
    read_only_world_and_bad_magic_file(d.path());
    for (args, file) in FAILING {
        let (code, out, err) = run(d.path(), args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        let line = err.lines().find(|l| l.starts_with("error: ")).expect(&err);
        assert_eq!(line.matches(file).count(), 1, "{args:?}: {err}");
        let mut with_json = args.to_vec();
        with_json.push("--json");
        let (_, out, _) = run(d.path(), &with_json);
        let message = json_error(&out)["message"].as_str().unwrap().to_string();
        assert!(message.matches(file).count() <= 1, "{args:?}: {out}");
    }
    let (_, _, err) = run(
        d.path(),
        &["world", "edit", "ro/w.vwr", "place 1 1 1 stone"],
    );
    assert!(err.contains("ro/w.vwr is read-only"), "{err}");
    // The file was left alone, and so was its backup (there was none).
    assert!(!d.path().join("ro/w.vwr.bak").exists());
}

#[test]
fn quiet_prints_only_errors() {
    let d = tempfile::tempdir().unwrap();
    for args in [
        &["-q", "world", "new", "a.vwr"][..],
        &["world", "new", "b.vwr", "--quiet"],
        &["world", "resave", "a.vwr", "c.vwr", "-q"],
        &["-q", "world", "check", "a.vwr", "b.vwr"],
    ] {
        let (code, out, err) = run(d.path(), args);
        assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""), "{args:?}");
    }
    assert!(d.path().join("c.vwr").is_file());
    // What was asked for is still printed, and so are errors.
    let (code, out, _) = run(d.path(), &["-q", "world", "get", "a.vwr", "1,1,1"]);
    assert_eq!(code, 0);
    assert!(out.contains("type 0"), "{out}");
    let (code, out, err) = run(d.path(), &["-q", "world", "info", "missing.vwr"]);
    assert_eq!(code, 1);
    assert!(
        out.is_empty() && err.starts_with("error: missing.vwr"),
        "{err}"
    );
    std::fs::write(d.path().join("bad.vwr"), b"not a world").unwrap();
    let (code, out, _) = run(d.path(), &["world", "check", "-q", "a.vwr", "bad.vwr"]);
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with("FAIL bad.vwr"), "{out}");
    // -q and -v together are a usage error.
    let (code, _, _) = run(d.path(), &["-q", "-v", "world", "new", "x.vwr"]);
    assert_eq!(code, 2);
}

/// `voxcaf -q ARGS` in `dir` that must succeed: its stdout, after checking that it said
/// nothing on stderr.
fn quiet_ok(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["-q"];
    all.extend_from_slice(args);
    let (code, out, err) = run(dir, &all);
    assert_eq!((code, err.as_str()), (0, ""), "{all:?}: {out}");
    out
}

#[test]
fn q_is_honoured_by_every_command() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    common::write_wav(&p.join("src/beep.wav"), 2205, |i| (i % 64) as i16 * 300);
    cli_ok(p, "world new a.vwr --chunks 2");
    cli_ok(p, "world new v3.vwr --chunks 2 --format v3");
    cli_ok(p, "asset keygen k.key");
    // A key file others can read: a warning without -q (keys.rs), none with it.
    let mut perm = std::fs::metadata(p.join("k.key")).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o644);
    std::fs::set_permissions(p.join("k.key"), perm).unwrap();
    // One command (or more) of each module; what they report goes, what they write stays.
    let silent: &[&[&str]] = &[
        // world_edit.rs
        &["world", "edit", "a.vwr", "box 1 1 1 3 3 3 stone"],
        &["world", "edit", "v3.vwr", "place 2 2 2 lava"],
        // world_history.rs
        &["world", "revert", "v3.vwr"],
        // world_mesh.rs
        &["world", "mesh", "a.vwr", "-o", "m.glb"],
        &["world", "render", "a.vwr", "-o", "r.png", "--size", "64x48"],
        // world_vox.rs (and world_args.rs)
        &["world", "convert", "a.vwr", "a.vox"],
        &["world", "convert", "a.vox", "b.vwr"],
        // asset_import.rs, with a note (--mips on audio) and a warning (keys.rs) left out
        &[
            "asset",
            "convert",
            "src/beep.wav",
            "s.caf",
            "--mips",
            "--encrypt",
            "--key-file",
            "k.key",
        ],
        &["asset", "export", "s.caf", "s.wav", "--key-file", "k.key"],
        &["asset", "build", "src", "built"],
    ];
    for args in silent {
        assert_eq!(quiet_ok(p, args), "", "{args:?}");
    }
    for f in [
        "m.glb",
        "r.png",
        "a.vox",
        "b.vwr",
        "s.caf",
        "s.wav",
        "built/beep.caf",
    ] {
        assert!(p.join(f).is_file(), "{f}");
    }
    let (_, _, err) = run(
        p,
        &["asset", "export", "s.caf", "t.wav", "--key-file", "k.key"],
    );
    assert!(err.contains("warning: k.key"), "{err}");
    // world_play.rs answers what it is asked, as `world get` does.
    let out = quiet_ok(
        p,
        &[
            "world", "ray", "a.vwr", "--from", "2,9,2", "--dir", "0,-1,0",
        ],
    );
    assert!(out.starts_with("hit (2, 3, 2) Stone"), "{out}");
    // --json is the answer, not a report: -q leaves it.
    let out = quiet_ok(p, &["world", "convert", "a.vwr", "j.vox", "--json"]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["ok"],
        true
    );
    // world_serve.rs prints only the URL, which holds the session's token.
    let mut child = common::voxcaf()
        .current_dir(p)
        .args(["-q", "world", "serve", "a.vwr"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(line.trim().starts_with("open http://127.0.0.1:"), "{line}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // demo.rs: the files, and no report.
    assert_eq!(quiet_ok(p, &["demo", "demo"]), "");
    for f in [
        "showcase.vwr",
        "showcase.glb",
        "pool-v3.vwr",
        "assets/manifest.json",
    ] {
        assert!(p.join("demo").join(f).is_file(), "{f}");
    }
}

#[test]
fn verbose_prints_the_time_and_exit_status() {
    let d = tempfile::tempdir().unwrap();
    let (code, out, err) = run(d.path(), &["-v", "world", "new", "a.vwr"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("wrote a.vwr"), "{out}");
    assert!(
        err.contains("note: voxcaf world new: exit 0 after"),
        "{err}"
    );
    let (code, _, err) = run(d.path(), &["world", "info", "missing.vwr", "--verbose"]);
    assert_eq!(code, 1);
    assert!(err.contains("error: missing.vwr: cannot read"), "{err}");
    assert!(err.contains("voxcaf world info: exit 1 after"), "{err}");
}

#[test]
fn no_color_is_respected() {
    let d = tempfile::tempdir().unwrap();
    let run_with = |vars: &[(&str, &str)]| {
        let mut cmd = common::voxcaf();
        cmd.current_dir(d.path())
            .args(["world", "info", "missing.vwr"])
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR")
            .env_remove("CLICOLOR_FORCE");
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let (code, _, err) = common::output(&mut cmd);
        assert_eq!(code, 1, "{err}");
        err
    };
    // Not a terminal: no colour.
    assert!(run_with(&[]).starts_with("error: missing.vwr"));
    // Colour when forced, and NO_COLOR wins over that.
    let forced = run_with(&[("CLICOLOR_FORCE", "1")]);
    assert!(forced.starts_with("\x1b[1;31merror\x1b[0m:"), "{forced:?}");
    let none = run_with(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!none.contains('\x1b'), "{none:?}");
    // clap's own usage errors follow the same rules.
    let mut cmd = common::voxcaf();
    cmd.args(["world", "nope"])
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1");
    let (code, _, err) = common::output(&mut cmd);
    assert_eq!(code, 2);
    assert!(!err.contains('\x1b'), "{err:?}");
}

#[test]
fn shell_completions_for_every_shell() {
    let d = tempfile::tempdir().unwrap();
    for (shell, needle) in [
        ("bash", "_voxcaf()"),
        ("zsh", "#compdef voxcaf"),
        ("fish", "complete -c voxcaf"),
        ("elvish", "voxcaf"),
        ("powershell", "voxcaf"),
    ] {
        let (code, out, err) = run(d.path(), &["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.contains(needle), "{shell}");
        // The subcommands and their flags are in it.
        assert!(out.contains("resave") && out.contains("--json"), "{shell}");
    }
    let (code, _, _) = run(d.path(), &["completions", "tcsh"]);
    assert_eq!(code, 2);
}

#[test]
fn a_man_page_in_roff() {
    let d = tempfile::tempdir().unwrap();
    let (code, out, err) = run(d.path(), &["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(".TH voxcaf 1"), "{out}");
    assert!(
        out.contains(".SH SYNOPSIS") && out.contains("world"),
        "{out}"
    );
    assert!(out.contains("quiet") && out.contains("verbose"), "{out}");
    let (code, out, _) = run(d.path(), &["man", "world", "edit"]);
    assert_eq!(code, 0);
    assert!(out.contains(".TH voxcaf\\-world\\-edit 1") || out.contains(".TH voxcaf-world-edit 1"));
    assert!(
        out.contains("dry\\-run") || out.contains("dry-run"),
        "{out}"
    );
    let (code, _, err) = run(d.path(), &["man", "world", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("has no subcommand \"nope\""), "{err}");
}

#[test]
fn world_blocks_lists_the_registry() {
    let d = tempfile::tempdir().unwrap();
    let out = cli_ok(d.path(), "world blocks");
    let water = out.lines().find(|l| l.contains(" Water ")).expect(&out);
    assert!(water.trim_start().starts_with("92"), "{water}");
    assert!(
        water.contains("transparent") && water.contains("liquid") && water.contains("#3474d28c"),
        "{water}"
    );
    let lava = out.lines().find(|l| l.contains(" Lava ")).expect(&out);
    assert!(lava.contains("hazard"), "{lava}");
    // Undescribed `tileN` types only with --all.
    assert!(!out.contains("tile4000"), "{out}");
    assert!(cli_ok(d.path(), "world blocks --all").contains("tile4000"));
    let v: serde_json::Value =
        serde_json::from_str(&cli_ok(d.path(), "world blocks brick_wall 373 --json")).unwrap();
    assert_eq!(v["ok"], true);
    let b = &v["blocks"];
    assert_eq!(b.as_array().unwrap().len(), 2, "{v}");
    assert_eq!(b[0]["type"], 261);
    assert_eq!(b[0]["name"], "BrickWall");
    assert_eq!(b[0]["kind"], "opaque");
    assert_eq!(b[0]["solid"], true);
    assert_eq!(b[1]["name"], "Spike");
    assert_eq!(b[1]["trigger"], "hazard");
    // A misspelt name is a usage error with a suggestion.
    common::cli_err(
        d.path(),
        "world blocks rockpil",
        2,
        "did you mean \"RockPile\"",
    );
}

#[test]
fn world_blocks_takes_registry_overrides() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("reg.toml"),
        "[[block]]\nid = 35\nname = \"Boulders\"\ncolor = \"#102030\"\n\
         [[block]]\nid = 500\nname = \"Finish\"\ntrigger = \"goal\"\nkind = \"transparent\"\n",
    )
    .unwrap();
    let out = cli_ok(d.path(), "world blocks --registry reg.toml");
    let line = out.lines().find(|l| l.contains("Boulders")).expect(&out);
    assert!(line.contains("35*") && line.contains("#102030"), "{line}");
    let line = out.lines().find(|l| l.contains("Finish")).expect(&out);
    assert!(line.contains("500*") && line.contains("goal"), "{line}");
    let v: serde_json::Value = serde_json::from_str(&cli_ok(
        d.path(),
        "world blocks finish --registry reg.toml --json",
    ))
    .unwrap();
    assert_eq!(v["blocks"][0]["overridden"], true);
    assert_eq!(v["blocks"][0]["kind"], "transparent");
    assert_eq!(v["registry"], "reg.toml");
    // A bad registry file is bad input about that file.
    std::fs::write(d.path().join("bad.toml"), "[[block]]\nid = 9999\n").unwrap();
    let (code, out, _) = run(
        d.path(),
        &["world", "blocks", "--registry", "bad.toml", "--json"],
    );
    assert_eq!(code, 1);
    let e = json_error(&out);
    assert_eq!(e["file"], "bad.toml");
    assert!(
        e["message"].as_str().unwrap().contains("above 4095"),
        "{out}"
    );
}

/// `a.vwr` (empty, 3³ chunks), `b.vwr` (a stone box and one water block), `c.vwr` (b with
/// sky 3) and `b3.vwr` (b as v3) in `dir`.
fn worlds_to_compare(dir: &Path) {
    cli_ok(dir, "world new a.vwr --chunks 3");
    let edit = |args: &[&str]| {
        let (code, out, err) = run(dir, args);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
    };
    edit(&[
        "world",
        "edit",
        "a.vwr",
        "box 1 1 1 4 2 4 stone",
        "place 12 3 5 water",
        "-o",
        "b.vwr",
    ]);
    edit(&["world", "edit", "b.vwr", "sky 3", "-o", "c.vwr"]);
    cli_ok(dir, "world convert b.vwr b3.vwr --format v3");
}

#[test]
fn world_diff_lists_the_differences_and_exits_like_diff() {
    let d = tempfile::tempdir().unwrap();
    worlds_to_compare(d.path());
    let out = common::cli_out(d.path(), "world diff a.vwr a.vwr", 0);
    assert!(out.contains("hold the same world"), "{out}");
    // v2 and v3 of the same world are the same.
    common::cli_out(d.path(), "world diff b.vwr b3.vwr", 0);
    let out = common::cli_out(d.path(), "world diff a.vwr b.vwr --max 3", 1);
    assert!(
        out.contains("33 cells differ in 2 chunks, the first 3"),
        "{out}"
    );
    assert!(out.contains("(1, 1, 1)  0:0 Air -> 3:0 Stone"), "{out}");
    assert_eq!(
        out.lines().filter(|l| l.contains(" -> ")).count(),
        3,
        "{out}"
    );
    let out = common::cli_out(d.path(), "world diff b.vwr c.vwr", 1);
    assert!(out.contains("world-wide fields differ"), "{out}");
    // The fields of v3 files are compared too (from their current commits).
    common::cli_out(d.path(), "world convert c.vwr c3.vwr --format v3", 0);
    let out = common::cli_out(d.path(), "world diff b3.vwr c3.vwr", 1);
    assert!(out.contains("world-wide fields differ"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&common::cli_out(
        d.path(),
        "world diff b.vwr a.vwr --json --max 100",
        1,
    ))
    .unwrap();
    assert_eq!(v["same"], false);
    assert_eq!(v["cells"], 33);
    assert_eq!(v["chunks"], 2);
    assert_eq!(v["first"].as_array().unwrap().len(), 33);
    assert_eq!(v["first"][32]["cell"], serde_json::json!([12, 3, 5]));
    assert_eq!(v["first"][32]["a"], 92 << 4);
    // Trouble is exit 2, so that 1 only ever means "different".
    let (code, _, err) = run(d.path(), &["world", "diff", "a.vwr", "missing.vwr"]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.vwr"), "{err}");
}

#[test]
fn world_diff_reads_a_large_sparse_world_chunk_by_chunk() {
    let d = tempfile::tempdir().unwrap();
    cli_ok(d.path(), "world new big.vwr --size 5000x100x5000");
    let (code, out, err) = run(
        d.path(),
        &[
            "world",
            "edit",
            "big.vwr",
            "place 4990 95 4990 lava",
            "-o",
            "big2.vwr",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    // Under a 512 MiB address-space limit, as the other world commands on large worlds.
    let bin = common::voxcaf().get_program().to_owned();
    let (code, out, err) = common::output(
        std::process::Command::new("sh")
            .current_dir(d.path())
            .arg("-c")
            .arg("ulimit -v 524288 && exec \"$0\" \"$@\"")
            .arg(bin)
            .args(["world", "diff", "big.vwr", "big2.vwr"]),
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("(4990, 95, 4990)  0:0 Air -> 68:0 Lava"),
        "{out}"
    );
}

#[test]
fn world_stats_counts_blocks_by_type() {
    let d = tempfile::tempdir().unwrap();
    worlds_to_compare(d.path());
    for file in ["b.vwr", "b3.vwr"] {
        let out = cli_ok(d.path(), &format!("world stats {file}"));
        assert!(out.contains("non-air blocks  33"), "{out}");
        assert!(
            out.contains("bounds          (1, 1, 1) to (12, 3, 5)"),
            "{out}"
        );
        let stone = out.lines().find(|l| l.contains("Stone")).expect(&out);
        assert!(stone.contains(" 32 "), "{stone}");
    }
    let v: serde_json::Value =
        serde_json::from_str(&cli_ok(d.path(), "world stats b.vwr --json")).unwrap();
    assert_eq!(v["non_air_blocks"], 33);
    assert_eq!(v["chunks_stored"], 2);
    assert_eq!(v["types"][0]["name"], "Stone");
    assert_eq!(v["types"][1]["blocks"], 1);
    let (code, out, _) = run(d.path(), &["world", "stats", "missing.vwr", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(json_error(&out)["file"], "missing.vwr");
}

#[test]
fn o_is_an_alias_wherever_an_output_is_positional() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    cli_ok(p, "world new -o a.vwr --chunks 2");
    cli_ok(p, "world resave a.vwr -o sub/b.vwr");
    cli_ok(p, "world resave a.vwr --out c.vwr");
    for f in ["a.vwr", "sub/b.vwr", "c.vwr"] {
        assert!(p.join(f).is_file(), "{f}");
    }
    std::fs::write(p.join("payload.bin"), b"hello").unwrap();
    cli_ok(
        p,
        "asset pack --type unknown --payload payload.bin -o caf/x.caf",
    );
    cli_ok(p, "asset repack caf/x.caf -o caf/y.caf");
    cli_ok(p, "asset pack-dir caf -o game.cafpack");
    cli_ok(p, "asset keygen -o k.key");
    for f in ["caf/x.caf", "caf/y.caf", "game.cafpack", "k.key"] {
        assert!(p.join(f).is_file(), "{f}");
    }
    cli_ok(p, "world convert a.vwr -o vox/a.vox");
    cli_ok(p, "world convert vox/a.vox --out back.vwr");
    common::write_wav(&p.join("src/beep.wav"), 2205, |i| (i % 64) as i16 * 300);
    cli_ok(p, "asset convert src/beep.wav -o caf/beep.caf");
    cli_ok(p, "asset export caf/beep.caf -o beep.wav");
    cli_ok(p, "asset build src -o built");
    cli_ok(p, "demo -o demo");
    for f in [
        "vox/a.vox",
        "back.vwr",
        "caf/beep.caf",
        "beep.wav",
        "built/manifest.json",
        "built/beep.caf",
        "demo/showcase.vwr",
    ] {
        assert!(p.join(f).is_file(), "{f}");
    }
    common::cli_err(p, "asset build src built -o b2", 2, "cannot be used with");
    common::cli_err(p, "demo d1 --out d2", 2, "cannot be used with");
    assert!(!p.join("b2").exists() && !p.join("d1").exists() && !p.join("d2").exists());
    // `-o -` streams as the positional `-` does.
    let (code, out, err) = run(p, &["world", "new", "-o", "-", "--chunks", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("VWR1"));
    // Both, or neither, is a usage error.
    common::cli_err(
        p,
        "world resave a.vwr d.vwr -o e.vwr",
        2,
        "cannot be used with",
    );
    common::cli_err(p, "world resave a.vwr", 2, "required");
    assert!(!p.join("d.vwr").exists() && !p.join("e.vwr").exists());
}
