//! A real BuildGrid server for tests: `bgd server start` with the committed cache-only
//! configuration (`cache.yml`: CAS, ByteStream and action cache in memory, Capabilities; no
//! execution), on a free loopback port in a temporary directory, killed on drop. Or, with
//! [`BuildGrid::start_execution`], one that also executes (`execution.yml`: Execution,
//! Operations and the Remote Workers API Bots service, for an outside bot), whose scheduler
//! keeps its state in a test PostgreSQL server (`voxcaf-pg-test`) started with it.
//!
//! `bgd` is taken from the virtual environment `VOXCAF_BUILDGRID_VENV` names, else from `PATH`,
//! else installed once (`pip install 'buildgrid[database]==0.4.4'`) into a cached virtual
//! environment (`$CARGO_TARGET_DIR/buildgrid-venv-0.4.4`, or one in the temporary directory)
//! under a file lock, so that parallel tests install it once; a cached environment made
//! without the `database` extra (psycopg2, which the execution server needs) gets it. Without
//! Python (or when the install fails), or for the execution server without psycopg2 or
//! PostgreSQL, [`BuildGrid::start`] and [`BuildGrid::start_execution`] return `None` (the test
//! skips), unless `VOXCAF_REQUIRE_BUILDGRID=1`, when they panic saying why.
//!
//! The server runs in its own process group, killed when the [`Server`] is dropped (also while
//! a panicking test unwinds). A test process killed outright cannot do that: each server's
//! directory records its owner's process id, and the next [`BuildGrid::start`] kills and
//! removes the servers whose owner is gone.
#![deny(clippy::unwrap_used)]

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod execution;
pub use execution::ExecutionServer;

/// The BuildGrid release the tests run.
pub const VERSION: &str = "0.4.4";

/// Starts test servers.
#[derive(Debug)]
pub struct BuildGrid;

/// A running BuildGrid server.
#[derive(Debug)]
pub struct Server {
    port: u16,
    bgd: PathBuf,
    child: Child,
    startup: Duration,
    // Removed on drop, after the server was killed.
    dir: tempfile::TempDir,
}

/// Whether a missing BuildGrid must fail the tests (`VOXCAF_REQUIRE_BUILDGRID=1`).
pub fn required() -> bool {
    std::env::var("VOXCAF_REQUIRE_BUILDGRID").is_ok_and(|v| v == "1")
}

/// The server configuration the tests use (`crates/bgd-test/cache.yml`); its port comes from
/// the environment variable `BGD_TEST_PORT`.
pub fn config_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cache.yml")
}

/// Skips (`None`) or, when required, panics, saying why.
fn unavailable<T>(why: &str) -> Option<T> {
    if required() {
        panic!("BuildGrid unavailable and VOXCAF_REQUIRE_BUILDGRID=1: {why}");
    }
    eprintln!("note: BuildGrid unavailable ({why}); skipping");
    None
}

/// The `bgd` program: `$VOXCAF_BUILDGRID_VENV/bin/bgd`, `bgd` in `PATH`, or the cached virtual
/// environment's (installed first when missing). `None` when none can be had and BuildGrid is
/// not required.
pub fn find_bgd() -> Option<PathBuf> {
    if let Some(venv) = std::env::var_os("VOXCAF_BUILDGRID_VENV") {
        let bgd = Path::new(&venv).join("bin/bgd");
        if bgd.is_file() {
            return Some(bgd);
        }
        return unavailable(&format!(
            "{} not found (VOXCAF_BUILDGRID_VENV)",
            bgd.display()
        ));
    }
    if let Some(path) = std::env::var_os("PATH") {
        if let Some(bgd) = std::env::split_paths(&path)
            .map(|d| d.join("bgd"))
            .find(|b| b.is_file())
        {
            return Some(bgd);
        }
    }
    match install(&cache_dir()) {
        Ok(bgd) => Some(bgd),
        Err(why) => unavailable(&why),
    }
}

/// Where BuildGrid gets installed: next to the build's `target/` when known, else in the
/// temporary directory.
fn cache_dir() -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    base.join(format!("buildgrid-venv-{VERSION}"))
}

/// The pip requirement of the cached install (as `.ci/run`'s): BuildGrid with its `database`
/// extra (psycopg2, for the execution server's PostgreSQL). The install's marker file holds it.
fn requirement() -> String {
    format!("buildgrid[database]=={VERSION}")
}

/// Installs BuildGrid into the virtual environment `venv` unless it is there: one process at
/// a time (a lock file beside it); a marker file says the install completed. An environment
/// an older version of this function completed (its marker holds only the version) gets the
/// `database` extra installed into it.
fn install(venv: &Path) -> Result<PathBuf, String> {
    let bgd = venv.join("bin/bgd");
    let done = venv.join("voxcaf-installed");
    let complete =
        || bgd.is_file() && std::fs::read_to_string(&done).is_ok_and(|m| m.trim() == requirement());
    if complete() {
        return Ok(bgd);
    }
    let parent = venv.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let mut lock_name = venv.file_name().unwrap_or_default().to_os_string();
    lock_name.push(".lock");
    let lock_path = venv.with_file_name(lock_name);
    let lock = File::create(&lock_path).map_err(|e| format!("{}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("lock {}: {e}", lock_path.display()))?;
    if complete() {
        return Ok(bgd);
    }
    // A completed install without the extra keeps its environment; anything else starts over.
    if !(done.is_file() && bgd.is_file()) {
        let _ = std::fs::remove_dir_all(venv);
        run(Command::new("python3").args(["-m", "venv"]).arg(venv))?;
    }
    eprintln!("note: installing {} into {}", requirement(), venv.display());
    run(Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .arg(requirement()))?;
    if !bgd.is_file() {
        return Err(format!("{} missing after the install", bgd.display()));
    }
    std::fs::write(&done, requirement()).map_err(|e| format!("{}: {e}", done.display()))?;
    Ok(bgd)
}

/// Runs a command to its end: its output when it failed.
fn run(command: &mut Command) -> Result<(), String> {
    let out = command
        .output()
        .map_err(|e| format!("{:?}: {e}", command.get_program()))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{command:?}: {}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// Temporary directories of test servers start with this.
const PREFIX: &str = "voxcaf-bgd";
/// The file of a server's directory holding its owner's process id.
const OWNER: &str = "owner.pid";
/// The file of a server's directory holding the server's process id (its process group).
const SERVER: &str = "server.pid";
/// The server's output.
const LOG: &str = "bgd.log";
/// How long a server may take to listen.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

impl BuildGrid {
    /// Starts a server, or `None` when BuildGrid cannot be had and is not required.
    ///
    /// # Panics
    /// When `bgd` is there but the server does not start (the message ends with its log), or
    /// when BuildGrid is unavailable and `VOXCAF_REQUIRE_BUILDGRID=1`.
    pub fn start() -> Option<Server> {
        let bgd = find_bgd()?;
        Some(Server::start(&bgd, &config_path(), &[]))
    }
}

impl Server {
    /// Starts `bgd` with configuration `config` and the environment variables `env` (besides
    /// `BGD_TEST_PORT`).
    ///
    /// # Panics
    /// When the server does not start (the message ends with its log).
    fn start(bgd: &Path, config: &Path, env: &[(&str, &str)]) -> Server {
        reap_orphans();
        // A free port can be taken by another server between the probe and the bind: retry.
        let mut last = String::new();
        for _ in 0..3 {
            match Server::spawn(bgd, config, env) {
                Ok(server) => return server,
                Err(log) => last = log,
            }
        }
        panic!("BuildGrid did not start: {last}");
    }

    /// Starts `bgd` on a free port in a new directory and waits until it listens; the log's
    /// tail when it exited or timed out first.
    fn spawn(bgd: &Path, config: &Path, env: &[(&str, &str)]) -> Result<Server, String> {
        let dir = tempfile::Builder::new()
            .prefix(PREFIX)
            .tempdir()
            .unwrap_or_else(|e| panic!("temporary directory: {e}"));
        let path = |name: &str| dir.path().join(name);
        std::fs::write(path(OWNER), std::process::id().to_string())
            .unwrap_or_else(|e| panic!("{}: {e}", dir.path().display()));
        let log = File::create(path(LOG)).unwrap_or_else(|e| panic!("{}: {e}", LOG));
        let log2 = log.try_clone().unwrap_or_else(|e| panic!("{LOG}: {e}"));
        let port = free_port();
        let begun = Instant::now();
        let child = {
            use std::os::unix::process::CommandExt;
            Command::new(bgd)
                .args(["server", "start"])
                .arg(config)
                .env("BGD_TEST_PORT", port.to_string())
                .envs(env.iter().copied())
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(log)
                .stderr(log2)
                .process_group(0)
                .spawn()
                .unwrap_or_else(|e| panic!("{}: {e}", bgd.display()))
        };
        std::fs::write(path(SERVER), child.id().to_string())
            .unwrap_or_else(|e| panic!("{}: {e}", dir.path().display()));
        let mut server = Server {
            port,
            bgd: bgd.to_path_buf(),
            child,
            startup: Duration::ZERO,
            dir,
        };
        while begun.elapsed() < READY_TIMEOUT {
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!(
                    "bgd exited ({status}); log:\n{}",
                    server.log_tail()
                ));
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                server.startup = begun.elapsed();
                return Ok(server);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!(
            "bgd not listening after {READY_TIMEOUT:?}; log:\n{}",
            server.log_tail()
        ))
    }

    /// The server's address: `grpc://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("grpc://127.0.0.1:{}", self.port)
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The `bgd` program the server runs.
    pub fn bgd(&self) -> &Path {
        &self.bgd
    }

    /// The Python of `bgd`'s virtual environment (`python` beside `bgd`, else `python3`): it
    /// has grpc and BuildGrid's generated protocol modules (`buildgrid._protos...`).
    pub fn python(&self) -> PathBuf {
        python_of(&self.bgd)
    }

    /// How long the server took from spawn to listening.
    pub fn startup(&self) -> Duration {
        self.startup
    }

    /// The last 8 KiB of the server's output.
    pub fn log_tail(&self) -> String {
        let Ok(mut f) = File::open(self.dir.path().join(LOG)) else {
            return String::new();
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let _ = f.seek(SeekFrom::Start(len.saturating_sub(8192)));
        let mut tail = Vec::new();
        let _ = f.read_to_end(&mut tail);
        String::from_utf8_lossy(&tail).into_owned()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        kill_group(self.child.id());
        let _ = self.child.wait();
    }
}

/// The Python beside `bgd` (its virtual environment's), else `python3`.
fn python_of(bgd: &Path) -> PathBuf {
    let python = bgd.with_file_name("python");
    if python.is_file() {
        python
    } else {
        PathBuf::from("python3")
    }
}

/// Kills process group `pgid` (the server and anything it started).
fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

/// Kills and removes the servers of test processes that were killed before their drop.
fn reap_orphans() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    let pid_in = |dir: &Path, name: &str| {
        std::fs::read_to_string(dir.join(name))
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
    };
    for dir in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        let ours = dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(PREFIX));
        let Some(owner) = ours.then(|| pid_in(&dir, OWNER)).flatten() else {
            continue;
        };
        if Path::new(&format!("/proc/{owner}")).exists() {
            continue;
        }
        if let Some(server) = pid_in(&dir, SERVER) {
            // Only a process that is still a bgd (a process id can be reused).
            let cmdline = std::fs::read(format!("/proc/{server}/cmdline")).unwrap_or_default();
            if String::from_utf8_lossy(&cmdline).contains("bgd") {
                kill_group(server);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("no free port: {e}"))
}
