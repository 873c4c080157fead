//! The BuildGrid that executes: `execution.yml` on a test PostgreSQL server.

use crate::{find_bgd, python_of, run, unavailable, BuildGrid, Server};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::Command;
use voxcaf_pg_test::TestServer;

/// A running BuildGrid that executes (see [`BuildGrid::start_execution`]) with the PostgreSQL
/// server holding its scheduler's state; dropping it stops both. It dereferences to its
/// [`Server`] (port, URL, log).
#[derive(Debug)]
pub struct ExecutionServer {
    // Dropped in this order: BuildGrid before its database.
    server: Server,
    postgres: TestServer,
    sql: String,
}

/// The configuration of the BuildGrid that executes (`crates/bgd-test/execution.yml`): its port
/// comes from `BGD_TEST_PORT`, its scheduler's database from `BGD_TEST_SQL`.
pub fn execution_config_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("execution.yml")
}

/// The SQLAlchemy URL of database `postgres` on `postgres`. The driver is named: SQLAlchemy 2.1
/// takes `postgresql://` for psycopg 3, whose connections lack the `poll` BuildGrid's job and
/// bot notifiers (LISTEN/NOTIFY) call, and they then fail on every wait, leaving Execute streams
/// and bots' long polls to their timeouts.
fn sql_url(postgres: &TestServer) -> String {
    format!(
        "postgresql+psycopg2://postgres@127.0.0.1:{}/postgres",
        postgres.port()
    )
}

/// Whether `python` imports psycopg2 (BuildGrid's `database` extra).
fn has_psycopg2(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", "import psycopg2"])
        .output()
        .is_ok_and(|o| o.status.success())
}

impl BuildGrid {
    /// Starts a BuildGrid that executes (`execution.yml`: CAS, ByteStream and action cache in
    /// memory as [`BuildGrid::start`]'s, plus Execution, Operations and the Bots service, for
    /// instance `""`), its scheduler on a new PostgreSQL server whose schema `bgd migrate
    /// apply` made. Jobs run only when a bot (a Remote Workers API client) takes them; a bot
    /// silent for 5 s is dead and its jobs are requeued.
    ///
    /// `None` when BuildGrid, its `database` extra (psycopg2) or PostgreSQL is missing and
    /// BuildGrid is not required.
    ///
    /// # Panics
    /// When the servers are there but do not start, or when something is missing and
    /// `VOXCAF_REQUIRE_BUILDGRID=1`.
    pub fn start_execution() -> Option<ExecutionServer> {
        let bgd = find_bgd()?;
        let python = python_of(&bgd);
        if !has_psycopg2(&python) {
            return unavailable(&format!(
                "{} cannot import psycopg2 (pip install 'buildgrid[database]=={}')",
                python.display(),
                crate::VERSION
            ));
        }
        if voxcaf_pg_test::find_bin().is_none() {
            return unavailable(
                "PostgreSQL's initdb and pg_ctl (not in PATH nor /usr/lib/postgresql/*/bin)",
            );
        }
        let postgres = TestServer::start()?;
        let sql = sql_url(&postgres);
        if let Err(why) = run(Command::new(&bgd)
            .args(["migrate", "apply"])
            .arg(&sql)
            .current_dir(std::env::temp_dir()))
        {
            panic!("bgd migrate apply failed: {why}");
        }
        let server = Server::start(&bgd, &execution_config_path(), &[("BGD_TEST_SQL", &sql)]);
        Some(ExecutionServer {
            server,
            postgres,
            sql,
        })
    }
}

impl ExecutionServer {
    /// The BuildGrid server.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The PostgreSQL server holding the scheduler's state.
    pub fn postgres(&self) -> &TestServer {
        &self.postgres
    }

    /// The scheduler's database URL (SQLAlchemy's form, as `BGD_TEST_SQL`).
    pub fn sql_url(&self) -> &str {
        &self.sql
    }
}

impl Deref for ExecutionServer {
    type Target = Server;

    fn deref(&self) -> &Server {
        &self.server
    }
}
