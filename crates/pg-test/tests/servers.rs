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
