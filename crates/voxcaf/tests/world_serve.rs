//! `voxcaf world serve` run as a user runs it: the printed URL, the API against `voxcaf world
//! edit` (byte-identical files), a killed server's journal recovered on the next start, and
//! the unhappy paths of the command line.

mod common;
use common::{assert_help_example, voxcaf};

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use vwr::{Block, World};

fn setup(dir: &Path, name: &str) -> PathBuf {
    let file = dir.join(name);
    let mut w = World::new();
    w.fill_box([0, 0, 0], [39, 0, 39], Block::make(35, 0).unwrap())
        .unwrap();
    w.save(&file).unwrap();
    file
}

/// A running `voxcaf world serve`, killed when dropped.
struct Serve {
    child: Child,
    host: String,
    token: String,
    first_lines: Vec<String>,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(file: &Path) -> Serve {
    let mut child = voxcaf()
        .args(["world", "serve"])
        .arg(file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first_lines = Vec::new();
    let url = loop {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "serve ended early");
        first_lines.push(line.clone());
        if let Some(u) = line.trim().strip_prefix("open ") {
            break u.to_string();
        }
    };
    // Keep reading (and dropping) the rest so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = String::new();
        let _ = out.read_to_string(&mut sink);
    });
    let rest = url.strip_prefix("http://").unwrap();
    let (host, query) = rest.split_once("/?token=").unwrap();
    Serve {
        child,
        host: host.to_string(),
        token: query.to_string(),
        first_lines,
    }
}

impl Serve {
    fn post(&self, path: &str, body: &str) -> (u16, serde_json::Value) {
        let mut s = TcpStream::connect(&self.host).unwrap();
        write!(
            s,
            "POST {path} HTTP/1.1\r\nHost: {}\r\nX-Voxcaf-Token: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.host,
            self.token,
            body.len()
        )
        .unwrap();
        let mut raw = String::new();
        s.read_to_string(&mut raw).unwrap();
        let status: u16 = raw[9..12].parse().unwrap();
        let body = raw.split_once("\r\n\r\n").unwrap().1;
        (status, serde_json::from_str(body).unwrap_or_default())
    }
    fn ok(&self, path: &str, body: &str) -> serde_json::Value {
        let (st, v) = self.post(path, body);
        assert_eq!(st, 200, "{path}: {v}");
        v
    }
}

const SCRIPT: &str = "box 2 1 2 12 4 12 brickwall\nhollow 20 1 20 30 6 30 glass\nbrush sphere 25 10 5 3 lava\nplace 1 1 1 35\nobject add lift 15 1 15 end=15,6,15 speed=2\nspawn 3 1 3\nsky 4";

#[test]
fn api_edits_save_byte_identical_to_world_edit() {
    let dir = tempfile::tempdir().unwrap();
    let served = setup(dir.path(), "served.vwr");
    let edited = setup(dir.path(), "edited.vwr");
    let s = serve(&served);
    assert!(s.first_lines[0].contains("served.vwr"));
    let v = s.ok("/api/ops", SCRIPT);
    assert_eq!(v["ops"].as_array().unwrap().len(), 7);
    s.ok("/api/save", "");
    let script = dir.path().join("s.txt");
    std::fs::write(&script, SCRIPT).unwrap();
    let st = voxcaf()
        .args(["world", "edit"])
        .arg(&edited)
        .arg("--script")
        .arg(&script)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(
        std::fs::read(&served).unwrap(),
        std::fs::read(&edited).unwrap()
    );
    let mut bak = served.as_os_str().to_owned();
    bak.push(".bak");
    assert!(Path::new(&bak).exists());
}

#[test]
fn a_killed_server_loses_nothing_past_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let file = setup(dir.path(), "level.vwr");
    let original = std::fs::read(&file).unwrap();
    let journal = dir.path().join("level.vwr.journal");
    let s = serve(&file);
    s.ok("/api/ops", SCRIPT);
    // The journal is written within about a second of the edit.
    let t = Instant::now();
    while !journal.exists() {
        assert!(t.elapsed() < Duration::from_secs(20), "no journal written");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(s); // SIGKILL: no chance to clean up
    assert_eq!(
        std::fs::read(&file).unwrap(),
        original,
        "the file is untouched"
    );

    let s = serve(&file);
    assert!(
        s.first_lines
            .iter()
            .any(|l| l.contains("level.vwr.journal")),
        "the start says a journal waits: {:?}",
        s.first_lines
    );
    s.ok("/api/recover", "");
    s.ok("/api/save", "");
    assert!(!journal.exists());
    let mut expected = World::from_bytes(&original).unwrap();
    let mut ed = vwr_edit::Editor::new(expected.clone());
    let ops = vwr_edit::script::parse_text("t", SCRIPT).unwrap();
    vwr_edit::script::apply_ops(&mut ed, &ops, 1_000_000).unwrap();
    expected = ed.into_world();
    assert_eq!(std::fs::read(&file).unwrap(), expected.to_bytes());
}

#[test]
fn serve_refuses_bad_command_lines() {
    let dir = tempfile::tempdir().unwrap();
    let out = voxcaf()
        .args(["world", "serve"])
        .arg(dir.path().join("missing.vwr"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("missing.vwr") && err.contains("no such world"),
        "{err}"
    );

    let out = voxcaf().args(["world", "serve", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));

    let file = setup(dir.path(), "level.vwr");
    let out = voxcaf()
        .args(["world", "serve"])
        .arg(&file)
        .args(["--addr", "nonsense"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));

    let bad = dir.path().join("bad.vwr");
    std::fs::write(&bad, b"not a world").unwrap();
    let out = voxcaf()
        .args(["world", "serve"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.vwr"));

    // A port in use: an error naming the address, not a panic.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = voxcaf()
        .args(["world", "serve"])
        .arg(&file)
        .args(["--addr", &addr])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&addr));

    assert_help_example(&["world", "serve"], "voxcaf world serve level.vwr");
}

#[test]
fn ctrl_c_writes_the_journal_before_exiting() {
    let dir = tempfile::tempdir().unwrap();
    let file = setup(dir.path(), "level.vwr");
    let mut s = serve(&file);
    s.ok("/api/ops", "place 5 1 5 lava");
    // At once, before the one-second autosave: the signal handler brings the journal up to date.
    let pid = s.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let status = s.child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let journal = dir.path().join("level.vwr.journal");
    let w = World::from_bytes(&std::fs::read(journal).unwrap()).unwrap();
    assert_eq!(w.get_block([5, 1, 5]).block_type(), 68);
}

#[test]
fn world_replay_rebuilds_the_served_file_from_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let served = setup(dir.path(), "served.vwr");
    let base = dir.path().join("base.vwr");
    std::fs::copy(&served, &base).unwrap();
    let s = serve(&served);
    s.ok("/api/ops", SCRIPT);
    s.ok("/api/undo", "");
    s.ok("/api/redo", "");
    s.ok("/api/save", "");
    s.ok("/api/ops", "box 0 1 0 9 3 9 lava");
    s.ok("/api/save", "");
    drop(s);
    let log = vwr_serve::oplog_path(&served);
    let out = dir.path().join("rebuilt.vwr");
    let (code, stdout, err) =
        common::output(voxcaf().args(["world", "replay"]).args([&log, &base, &out]));
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("4 operations replayed in 1 editing session, 2 saves written"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&served).unwrap()
    );
    // The wrong base, a damaged log and a missing log are refused, naming what and where.
    let (code, _, err) = common::output(
        voxcaf()
            .args(["world", "replay"])
            .args([&log, &served, &out]),
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("served.vwr.oplog:1: this segment starts from the world"),
        "{err}"
    );
    let bad = dir.path().join("bad.oplog");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text = text.replacen("\"kind\":\"undo\"", "\"kind\":\"undo\",\"extra\":1", 1);
    std::fs::write(&bad, text).unwrap();
    let (code, _, err) =
        common::output(voxcaf().args(["world", "replay"]).args([&bad, &base, &out]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad.oplog:3: not a log line"), "{err}");
    let (code, _, err) = common::output(
        voxcaf()
            .args(["world", "replay", "nope.oplog"])
            .args([&base, &out]),
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("nope.oplog"), "{err}");
    assert_help_example(&["world", "replay"], "voxcaf world replay level.vwr.oplog");
}
