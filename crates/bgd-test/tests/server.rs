//! The test server starts, listens on its port, and is gone after its drop.

use std::net::TcpStream;
use voxcaf_bgd_test::BuildGrid;

#[test]
fn a_server_listens_until_dropped() {
    let Some(server) = BuildGrid::start() else {
        return;
    };
    let port = server.port();
    assert!(server.url().starts_with("grpc://127.0.0.1:"));
    assert!(TcpStream::connect(("127.0.0.1", port)).is_ok());
    eprintln!("BuildGrid started in {:?}", server.startup());
    drop(server);
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
fn two_servers_run_at_once() {
    let (Some(a), Some(b)) = (BuildGrid::start(), BuildGrid::start()) else {
        return;
    };
    assert_ne!(a.port(), b.port());
    assert!(TcpStream::connect(("127.0.0.1", a.port())).is_ok());
    assert!(TcpStream::connect(("127.0.0.1", b.port())).is_ok());
}
