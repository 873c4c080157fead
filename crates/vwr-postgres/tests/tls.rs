//! TLS connections (the `tls` feature), against a real server with a certificate signed by a
//! test CA: `sslmode=require` with that CA as `sslrootcert` connects and works; with another
//! CA it is refused (the certificate is verified); against a server without TLS it is refused,
//! and `sslmode=prefer` connects in clear.
#![cfg(feature = "tls")]

use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
use vwr::ChunkStore;
use vwr_postgres::{PgLocation, PgStore};

/// A CA's certificate (PEM), and a certificate for 127.0.0.1 it signed with its key.
fn ca_and_server() -> (String, String, String) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca.self_signed(&ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let server = CertificateParams::new(vec!["127.0.0.1".to_string()])
        .unwrap()
        .signed_by(&key, &ca, &ca_key)
        .unwrap();
    (ca.pem(), server.pem(), key.serialize_pem())
}

fn open(url: &str) -> vwr::Result<PgStore> {
    let loc = PgLocation::parse(url).unwrap();
    let head = vwr::StoreHead {
        chunk_dims: [2, 2, 2],
        fields: vwr::WorldFields::default(),
        head: 0,
        fields_version: 0,
        format_version: 2,
    };
    PgStore::create(&loc, &head, true)
}

#[test]
fn sslmode_require_connects_with_a_verified_certificate_and_refuses_otherwise() {
    let (ca, cert, key) = ca_and_server();
    let Some(pg) = voxcaf_pg_test::TestServer::start_tls(&cert, &key) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let (good, other) = (d.path().join("ca.pem"), d.path().join("other.pem"));
    std::fs::write(&good, &ca).unwrap();
    std::fs::write(&other, ca_and_server().0).unwrap();
    let with = |root: &std::path::Path| {
        format!(
            "{}&sslmode=require&sslrootcert={}",
            pg.url("w"),
            root.display()
        )
    };
    let mut store = open(&with(&good)).unwrap();
    assert_eq!(store.head().unwrap().chunk_dims, [2, 2, 2]);
    let e = open(&with(&other)).err().unwrap().to_string();
    assert!(
        e.contains("certificate") || e.contains("Certificate"),
        "{e}"
    );
    // prefer takes TLS when the server offers it, and verifies it too: with a root that
    // signed the server's certificate it connects; with none (the Mozilla roots) it is refused
    // with the reason, never silently in clear.
    assert!(open(&format!(
        "{}&sslmode=prefer&sslrootcert={}",
        pg.url("w"),
        good.display()
    ))
    .is_ok());
    let e = open(&format!("{}&sslmode=prefer", pg.url("w")))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("UnknownIssuer"), "{e}");

    // The Unix socket of the same server is local: no TLS over it, whatever the mode.
    let socket = format!(
        "postgres://postgres@:{}/postgres?host={}&world=w&sslmode=require",
        pg.port(),
        pg.socket_dir().display()
    );
    assert!(open(&socket).is_ok());

    // A server without TLS: require is refused, prefer connects in clear.
    let Some(plain) = voxcaf_pg_test::TestServer::start() else {
        return;
    };
    let e = open(&format!(
        "{}&sslmode=require&sslrootcert={}",
        plain.url("w"),
        good.display()
    ))
    .err()
    .unwrap()
    .to_string();
    assert!(e.to_lowercase().contains("tls") || e.contains("SSL"), "{e}");
    assert!(open(&format!("{}&sslmode=prefer", plain.url("w"))).is_ok());
}
