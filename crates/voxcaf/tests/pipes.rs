//! `voxcaf ... | head -1`: a reader that stops early ends voxcaf quietly, never with a panic or
//! an error message (as `cat`, ripgrep and cargo behave).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Runs voxcaf with `args`, reads one line of its output, closes the pipe and returns the
/// process's exit status and standard error.
fn head_1(args: &[String]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_voxcaf"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run voxcaf");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("piped stdout"))
        .read_line(&mut first)
        .expect("read the first line");
    assert!(!first.is_empty(), "{args:?} printed nothing");
    // The reader is dropped here: the pipe is closed with most of the output unread.
    let out = child.wait_with_output().expect("wait for voxcaf");
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn golden_worlds() -> Option<Vec<String>> {
    let g = voxcaf_golden::with_worlds()?;
    let mut v: Vec<String> = ["worlds3d", "random", "edge"]
        .iter()
        .flat_map(|sub| std::fs::read_dir(g.join("vwr").join(sub)).expect("golden folder"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "vwr"))
        .map(|p: PathBuf| p.display().to_string())
        .collect();
    v.sort();
    Some(v)
}

#[cfg(unix)]
fn killed_by_sigpipe(s: &std::process::ExitStatus) -> bool {
    use std::os::unix::process::ExitStatusExt;
    s.signal() == Some(libc::SIGPIPE)
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_voxcaf_quietly() {
    let Some(worlds) = golden_worlds() else {
        return;
    };
    let world999 = worlds
        .iter()
        .find(|p| p.ends_with("world999.vwr"))
        .expect("world999 in the golden set")
        .clone();
    // Regression: `world dump` printed "error: Broken pipe" and exited 1; `println!` based
    // commands panicked (exit 101).
    let (status, err) = head_1(&["world".into(), "dump".into(), world999.clone()]);
    assert!(
        killed_by_sigpipe(&status),
        "dump: {status:?}, stderr {err:?}"
    );
    assert!(err.is_empty(), "dump wrote to stderr: {err}");

    // Shorter outputs may fit in the pipe before it closes: success or SIGPIPE, never a panic
    // or a message.
    let mut check = vec!["world".into(), "check".into(), "--strict".into()];
    check.extend(worlds.iter().cloned());
    let mut json_check = check.clone();
    json_check.push("--json".into());
    let caf_dir = voxcaf_golden::caf()
        .expect("golden caf folder")
        .display()
        .to_string();
    let cases: Vec<Vec<String>> = vec![
        check,
        json_check,
        vec!["world".into(), "info".into(), world999.clone()],
        vec![
            "world".into(),
            "info".into(),
            "--json".into(),
            world999.clone(),
        ],
        vec!["world".into(), "layer".into(), world999.clone(), "1".into()],
        vec![
            "world".into(),
            "edit".into(),
            world999,
            "--dry-run".into(),
            "box 0 0 0 9 0 9 35; place 1 1 1 35; erase 1 1 1; undo; redo".into(),
        ],
        vec!["asset".into(), "check".into(), caf_dir.clone()],
        vec![
            "asset".into(),
            "check".into(),
            "--json".into(),
            caf_dir.clone(),
        ],
        vec!["asset".into(), "info".into(), caf_dir],
    ];
    for args in cases {
        let (status, err) = head_1(&args);
        assert!(
            killed_by_sigpipe(&status) || status.code().is_some_and(|c| c == 0 || c == 1),
            "{args:?}: {status:?}"
        );
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
    }
}
