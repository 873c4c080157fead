//! World locations and password files (vwr-postgres.md §1): no server needed.

use std::path::PathBuf;

use vwr::VwrError;
use vwr_postgres::{pgpass_lookup, PgLocation, PgStore, SslMode};

fn message(r: vwr::Result<PgLocation>) -> String {
    match r {
        Err(VwrError::Store { message, .. }) => message,
        r => panic!("expected an error, got {r:?}"),
    }
}

#[test]
fn a_full_url_parses() {
    let l = PgLocation::parse(
        "postgresql://ann@db.example:6543/maps?world=level-1.b&sslmode=disable\
         &connect_timeout=3&application_name=ed",
    )
    .unwrap();
    assert_eq!(l.user, "ann");
    assert_eq!(l.host.as_deref(), Some("db.example"));
    assert_eq!(l.port, 6543);
    assert_eq!(l.dbname, "maps");
    assert_eq!(l.world.as_deref(), Some("level-1.b"));
    assert_eq!(l.sslmode, SslMode::Disable);
    assert_eq!(l.connect_timeout.as_secs(), 3);
    assert_eq!(l.application_name, "ed");
    assert_eq!(
        l.display(),
        "postgres://ann@db.example:6543/maps?world=level-1.b"
    );
    assert_eq!(l.world_name().unwrap(), "level-1.b");
}

#[test]
fn a_socket_url_parses() {
    let l = PgLocation::parse("postgres://bob@/maps?host=/tmp/pg%20sock&world=w").unwrap();
    assert_eq!(l.host, None);
    assert_eq!(l.socket_dir, Some(PathBuf::from("/tmp/pg sock")));
    assert_eq!(l.port, 5432);
    assert_eq!(
        l.display(),
        "postgres://bob@/maps?host=/tmp/pg sock&world=w"
    );
    let l = PgLocation::parse("postgres://bob@/maps").unwrap();
    assert_eq!(
        l.socket_dir.as_deref(),
        Some(std::path::Path::new("/var/run/postgresql"))
    );
    assert!(l.world_name().is_err());
    let l = PgLocation::parse("postgres://bob@[::1]:7000/maps").unwrap();
    assert_eq!((l.host.as_deref(), l.port), (Some("::1"), 7000));
}

#[test]
fn is_url_tells_locations_from_paths() {
    assert!(PgLocation::is_url("postgres://a@b/c"));
    assert!(PgLocation::is_url("postgresql://a@b/c"));
    assert!(!PgLocation::is_url("worlds/postgres.vwr"));
    assert!(!PgLocation::is_url("http://x"));
}

#[test]
fn a_password_in_the_url_is_refused_and_not_repeated() {
    let e = PgLocation::parse("postgres://ann:hunter2@db/maps?world=w").unwrap_err();
    let s = e.to_string();
    assert!(s.contains("password"), "{s}");
    assert!(s.contains("PGPASSWORD"), "{s}");
    assert!(!s.contains("hunter2"), "{s}");
}

#[test]
fn unhappy_urls_say_what_is_wrong() {
    let cases = [
        ("postgres://a@h/d?wrold=x", "unknown key \"wrold\""),
        ("postgres://a@h/d?wrold=x", "world, host, sslmode"),
        ("postgres://a@h/d?world=", "bad world name"),
        ("postgres://a@h/d?world=a/b", "bad world name"),
        ("postgres://a@h/d?world=a%20b", "bad world name"),
        ("postgres://a@h:0/d", "bad port"),
        ("postgres://a@h:99999/d", "bad port"),
        ("postgres://a@h:x/d", "bad port"),
        (
            "postgres://a@h/d?sslmode=verify-full",
            "disable, prefer or require",
        ),
        ("postgres://a@h/d?connect_timeout=soon", "connect_timeout"),
        ("postgres://a@[::1/d", "unclosed"),
        ("postgres://a@h/d%zz", "%-escape"),
        ("mysql://a@h/d", "postgres://"),
    ];
    for (url, want) in cases {
        let m = message(PgLocation::parse(url));
        assert!(m.contains(want), "{url}: {m}");
    }
    let long = format!("postgres://a@h/d?world={}", "w".repeat(65));
    assert!(message(PgLocation::parse(&long)).contains("1 to 64"));
    let ok = format!("postgres://a@h/d?world={}", "w".repeat(64));
    assert!(PgLocation::parse(&ok).is_ok());
}

#[test]
fn sslmode_require_without_tls_is_a_clear_error() {
    let l = PgLocation::parse("postgres://a@127.0.0.1/d?world=w&sslmode=require").unwrap();
    let e = PgStore::open(&l).unwrap_err().to_string();
    assert!(e.contains("without TLS support"), "{e}");
}

#[test]
fn a_server_not_running_is_named_in_the_error() {
    // A port nobody listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let l = PgLocation::parse(&format!("postgres://a@127.0.0.1:{port}/d?world=w")).unwrap();
    let e = PgStore::open(&l).unwrap_err().to_string();
    assert!(e.contains(&format!("127.0.0.1:{port}")), "{e}");
    assert!(e.contains("must be running"), "{e}");
}

const PGPASS: &str = "# comment\n\
    db.example:5432:maps:ann:first\n\
    *:*:maps:ann:second\n\
    localhost:5433:*:*:sock\\:et\n\
    we\\:ird:*:*:*:esc\\\\aped\n\
    *:*:*:bob:pw:with:colons\n\
    short:line\n";

#[test]
fn pgpass_lines_match_as_libpq_matches_them() {
    let cases = [
        (["db.example", "5432", "maps", "ann"], Some("first")),
        (["other", "5432", "maps", "ann"], Some("second")),
        (["db.example", "5433", "maps", "ann"], Some("second")),
        (["localhost", "5433", "x", "y"], Some("sock:et")),
        (["we:ird", "1", "x", "y"], Some("esc\\aped")),
        (["h", "1", "d", "bob"], Some("pw:with:colons")),
        (["h", "1", "d", "carl"], None),
        (["short", "line", "d", "u"], None),
    ];
    for (key, want) in cases {
        assert_eq!(pgpass_lookup(PGPASS, key).as_deref(), want, "{key:?}");
    }
}

#[test]
fn password_comes_from_the_environment_or_a_private_pgpass() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pgpass");
    std::fs::write(&file, "127.0.0.1:5432:d:a:secret\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    // The only test of this binary touching the environment.
    std::env::remove_var("PGPASSWORD");
    std::env::set_var("PGPASSFILE", &file);
    let l = PgLocation::parse("postgres://a@127.0.0.1/d?world=w").unwrap();
    assert_eq!(l.password(), (Some("secret".into()), None));
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (pw, note) = l.password();
    assert_eq!(pw, None);
    assert!(note.unwrap().contains("group or world access"));
    std::env::set_var("PGPASSWORD", "env");
    assert_eq!(l.password().0.as_deref(), Some("env"));
    std::env::remove_var("PGPASSWORD");
    std::env::remove_var("PGPASSFILE");
}
