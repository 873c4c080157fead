//! A real PostgreSQL server for tests: `initdb` and `pg_ctl` in a temporary directory, on a
//! free loopback port, stopped and removed on drop.
//!
//! Without the server binaries [`TestServer::start`] returns `None` (the test skips), unless
//! `VOXCAF_REQUIRE_POSTGRES=1`, when it panics. As root (CI), the server runs as the
//! `postgres` user the Debian package creates (`initdb` refuses root).

/// A running server.
#[derive(Debug)]
pub struct TestServer {
    _p: (),
}

impl TestServer {
    /// Starts a server, or `None` when PostgreSQL is not installed and not required.
    pub fn start() -> Option<TestServer> {
        todo!()
    }

    /// A location of world `name` on this server: `postgres://postgres@127.0.0.1:PORT/postgres?world=NAME`.
    pub fn url(&self, world: &str) -> String {
        let _ = world;
        todo!()
    }
}
