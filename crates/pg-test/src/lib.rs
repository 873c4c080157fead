//! A real PostgreSQL server for tests: `initdb` and `pg_ctl` in a temporary directory, on a
//! free loopback port, stopped and removed on drop.
//!
//! Without the server binaries [`TestServer::start`] returns `None` (the test skips), unless
//! `VOXCAF_REQUIRE_POSTGRES=1`, when it panics. As root (CI), the server runs as the
//! `postgres` user the Debian package creates (`initdb` refuses root).
//!
//! Several servers may run at once (each its own directory and port). The server stops when
//! the [`TestServer`] is dropped, which also happens while a panicking test unwinds. A test
//! process killed outright (a CI timeout) cannot stop its servers: each directory records its
//! owner's process id, and the next [`TestServer::start`] stops and removes the servers whose
//! owner is gone.
#![deny(clippy::unwrap_used)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A running server.
#[derive(Debug)]
pub struct TestServer {
    port: u16,
    bin: PathBuf,
    data: PathBuf,
    as_postgres: bool,
    // Removed on drop, after the server stopped.
    dir: tempfile::TempDir,
}

/// Whether a missing PostgreSQL must fail the tests (`VOXCAF_REQUIRE_POSTGRES=1`).
pub fn required() -> bool {
    std::env::var("VOXCAF_REQUIRE_POSTGRES").is_ok_and(|v| v == "1")
}

/// The folder holding `initdb` and `pg_ctl`: `PATH` first, then `/usr/lib/postgresql/*/bin`
/// (the newest version).
pub fn find_bin() -> Option<PathBuf> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("pg_ctl").is_file();
    if let Some(path) = std::env::var_os("PATH") {
        if let Some(d) = std::env::split_paths(&path).find(|d| has(d)) {
            return Some(d);
        }
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|d| has(d))
        .collect();
    versions.sort_by_key(|d| {
        let v = d.parent().and_then(|p| p.file_name());
        v.and_then(|v| v.to_str()?.parse::<u32>().ok()).unwrap_or(0)
    });
    versions.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

impl TestServer {
    /// Starts a server, or `None` when PostgreSQL is not installed and not required.
    ///
    /// # Panics
    /// When the binaries are found but the server does not start, or when they are missing
    /// and `VOXCAF_REQUIRE_POSTGRES=1`.
    pub fn start() -> Option<TestServer> {
        TestServer::start_with(None)
    }

    /// [`TestServer::start`] with TLS on (`ssl=on`), serving the PEM certificate chain
    /// `cert` with its private key `key`; clients may still connect in clear.
    pub fn start_tls(cert: &str, key: &str) -> Option<TestServer> {
        TestServer::start_with(Some((cert, key)))
    }

    fn start_with(tls: Option<(&str, &str)>) -> Option<TestServer> {
        let Some(bin) = find_bin() else {
            let what = "PostgreSQL's initdb and pg_ctl (not in PATH nor /usr/lib/postgresql/*/bin)";
            if required() {
                panic!("{what} not found and VOXCAF_REQUIRE_POSTGRES=1");
            }
            eprintln!("note: {what} not found; skipping");
            return None;
        };
        let as_postgres = is_root();
        reap_orphans(&bin, as_postgres);
        let dir = tempfile::Builder::new()
            .prefix(PREFIX)
            .tempdir()
            .unwrap_or_else(|e| panic!("temporary directory: {e}"));
        std::fs::write(dir.path().join(OWNER), std::process::id().to_string())
            .unwrap_or_else(|e| panic!("{}: {e}", dir.path().display()));
        if as_postgres {
            let out = Command::new("chown")
                .args(["postgres:"])
                .arg(dir.path())
                .output()
                .unwrap_or_else(|e| panic!("chown: {e}"));
            check("chown postgres", &out);
        }
        let data = dir.path().join("data");
        let mut server = TestServer {
            port: 0,
            bin,
            data,
            as_postgres,
            dir,
        };
        server.init_and_start(tls);
        Some(server)
    }

    /// `initdb`, then `pg_ctl start` on a free port (with TLS when `tls` gives a certificate
    /// and its key).
    fn init_and_start(&mut self, tls: Option<(&str, &str)>) {
        let initdb = self.bin.join("initdb");
        let out = self
            .run(&initdb)
            .args([
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
                "-D",
            ])
            .arg(&self.data)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", initdb.display()));
        check("initdb", &out);
        let tls_opts = tls.map_or(String::new(), |(cert, key)| self.write_tls(cert, key));
        // A free port can be taken by another server between the probe and the start: retry.
        let mut last = String::new();
        for _ in 0..5 {
            self.port = free_port();
            let opts = format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=on{tls_opts}",
                self.port,
                self.dir.path().display()
            );
            let out = self
                .pg_ctl()
                .args(["start", "-w", "-t", "60", "-l"])
                .arg(self.dir.path().join("log"))
                .arg("-o")
                .arg(opts)
                .output()
                .unwrap_or_else(|e| panic!("pg_ctl start: {e}"));
            if out.status.success() {
                return;
            }
            last = describe(&out) + &self.log();
        }
        panic!("pg_ctl start failed: {last}");
    }

    /// Writes the server's certificate and key into its data folder (the key readable by
    /// the server's user only, as the server requires); the `-o` options naming them.
    fn write_tls(&self, cert: &str, key: &str) -> String {
        let (c, k) = (self.data.join("server.crt"), self.data.join("server.key"));
        for (path, text) in [(&c, cert), (&k, key)] {
            std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        let out = Command::new("chmod")
            .arg("600")
            .arg(&k)
            .output()
            .unwrap_or_else(|e| panic!("chmod: {e}"));
        check("chmod 600 server.key", &out);
        if self.as_postgres {
            let out = Command::new("chown")
                .arg("postgres:")
                .args([&c, &k])
                .output()
                .unwrap_or_else(|e| panic!("chown: {e}"));
            check("chown postgres server.crt server.key", &out);
        }
        format!(
            " -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
            c.display(),
            k.display()
        )
    }

    /// A location of world `name` on this server: `postgres://postgres@127.0.0.1:PORT/postgres?world=NAME`.
    pub fn url(&self, world: &str) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{}/postgres?world={world}",
            self.port
        )
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The folder holding the server's Unix socket (`host=` of a URL).
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    /// A command running `program` as the server's user.
    fn run(&self, program: &Path) -> Command {
        as_user(program, self.as_postgres)
    }

    fn pg_ctl(&self) -> Command {
        pg_ctl(&self.bin, self.as_postgres, &self.data)
    }
}

/// Temporary directories of test servers start with this.
const PREFIX: &str = "voxcaf-pg";

/// The file of a server's directory holding its owner's process id.
const OWNER: &str = "owner.pid";

/// `pg_ctl -D data`, as the server's user.
fn pg_ctl(bin: &Path, as_postgres: bool, data: &Path) -> Command {
    let mut c = as_user(&bin.join("pg_ctl"), as_postgres);
    c.arg("-D").arg(data);
    c
}

/// A command running `program`, as the `postgres` user when `as_postgres`.
fn as_user(program: &Path, as_postgres: bool) -> Command {
    if as_postgres {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

/// Stops and removes the servers of test processes that were killed before their drop.
fn reap_orphans(bin: &Path, as_postgres: bool) {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for dir in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        let ours = dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(PREFIX));
        let Some(pid) = ours
            .then(|| std::fs::read_to_string(dir.join(OWNER)).ok())
            .flatten()
            .and_then(|s| s.trim().parse::<u32>().ok())
        else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let data = dir.join("data");
        if data.join("postmaster.pid").exists() {
            let _ = pg_ctl(bin, as_postgres, &data)
                .args(["stop", "-m", "immediate", "-w"])
                .output();
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if self.port != 0 {
            let _ = self
                .pg_ctl()
                .args(["stop", "-m", "immediate", "-w"])
                .output();
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("no free port: {e}"))
}

fn describe(out: &Output) -> String {
    format!(
        "{}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn check(what: &str, out: &Output) {
    assert!(out.status.success(), "{what} failed: {}", describe(out));
}
