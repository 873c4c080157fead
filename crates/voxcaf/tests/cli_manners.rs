//! The command line's manners (issue 43): errors name their file once, in text and in JSON.

mod common;

use std::path::Path;

use common::{cli_ok, run};

/// A v2 world `ro/w.vwr` made read-only, and a file `bad.vwr` that is a PNG, in `dir`.
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
}

/// The failing commands of the tests: a read-only world edit, a bad-magic file read, a missing
/// file read.
const FAILING: [(&[&str], &str); 4] = [
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
