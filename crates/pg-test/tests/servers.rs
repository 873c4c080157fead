//! Servers start side by side and are gone after drop.

use std::net::TcpStream;

use voxcaf_pg_test::TestServer;

#[test]
fn two_servers_run_at_once_and_stop_on_drop() {
    let Some(a) = TestServer::start() else { return };
    let b = TestServer::start().expect("a second server");
    assert_ne!(a.port(), b.port());
    assert_ne!(a.url("w"), b.url("w"));
    assert!(a.url("w").ends_with("/postgres?world=w"));
    for s in [&a, &b] {
        TcpStream::connect(("127.0.0.1", s.port())).expect("the server listens");
        assert!(s
            .socket_dir()
            .join(format!(".s.PGSQL.{}", s.port()))
            .exists());
    }
    let (port, dir) = (a.port(), a.socket_dir().to_path_buf());
    drop(a);
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "still listening"
    );
    assert!(!dir.exists(), "directory left behind");
    TcpStream::connect(("127.0.0.1", b.port())).expect("the other server still runs");
}

const ORPHAN_ENV: &str = "VOXCAF_PG_TEST_ORPHAN";

/// A test process killed outright leaves its server running: the next start stops it.
#[test]
fn a_killed_test_processes_server_is_reaped() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    if std::env::var_os(ORPHAN_ENV).is_some() {
        // The child: start a server, say where, and wait to be killed.
        let s = TestServer::start().expect("a server");
        println!("{} {}", s.port(), s.socket_dir().display());
        std::thread::sleep(std::time::Duration::from_secs(600));
        unreachable!();
    }
    if voxcaf_pg_test::find_bin().is_none() {
        return;
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_killed_test_processes_server_is_reaped",
            "--nocapture",
        ])
        .env(ORPHAN_ENV, "1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    // (The harness prints its own lines first.)
    while !line.starts_with(|c: char| c.is_ascii_digit()) {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the child said nothing"
        );
    }
    let (port, dir) = line.trim().split_once(' ').unwrap();
    let port: u16 = port.parse().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    TcpStream::connect(("127.0.0.1", port)).expect("the orphan still runs");
    let next = TestServer::start().unwrap();
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the orphan was not stopped"
    );
    assert!(
        !std::path::Path::new(dir).exists(),
        "the orphan's directory is left"
    );
    drop(next);
}
