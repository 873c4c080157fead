//! The conformance suite of the chunk stores (vwr-postgres.md §6): the same properties on a
//! file and on a PostgreSQL world, one test per property. Each test starts its own server and
//! skips when PostgreSQL is not installed (fails with `VOXCAF_REQUIRE_POSTGRES=1`).

mod common;

use common::*;
use vwr::{Block, Chunk, ChunkStore, Expect, StoreCommit, VwrError, World, WorldFields};
use vwr_postgres::{list_worlds, PgStore};

#[test]
fn golden_worlds_read_back_equal_on_both_backends() {
    let Some(srv) = server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let worlds = golden_worlds();
    for (i, path) in worlds.iter().enumerate() {
        let world = World::load(path).unwrap();
        let name = format!("g{i}");
        let l = loc(&srv, &name);
        let report = import_world(&l, &world);
        assert_eq!(report.seq, 1);
        let mut pg = PgStore::open(&l).unwrap();
        assert_eq!(pg.head().unwrap().chunk_dims, world.chunk_dims());
        assert!(
            load(&mut pg) == world,
            "{}: database copy differs",
            path.display()
        );
        let mut file = file_store(dir.path(), &name, &world);
        assert!(
            load(&mut file) == world,
            "{}: file copy differs",
            path.display()
        );
    }
    let listed = list_worlds(&loc(&srv, "x")).unwrap();
    assert_eq!(listed.len(), worlds.len());
}

const SCRIPT: &str = "box 0 0 0 25 3 25 35\nplace 5 5 5 36:2\nbox 12 0 12 14 9 14 air\n\
                      fill 30 0 30 40 28 0 28 35 2 35\nreplace 35 41 0 0 0 9 9 9\n\
                      sky 7\nspawn 1 4 1\n";

#[test]
fn edit_script_gives_the_same_world_on_both_backends() {
    let Some(srv) = server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let start = World::with_chunk_dims([4, 2, 4]).unwrap();
    let mut file = file_store(dir.path(), "w", &start);
    let l = loc(&srv, "w");
    let mut pg = create_empty(&l, [4, 2, 4]);
    let a = edit(&mut file, SCRIPT);
    let b = edit(&mut pg, SCRIPT);
    assert_eq!(a.chunks_changed, b.chunks_changed);
    assert!(b.fields_changed);
    let from_file = load(&mut file);
    let from_pg = load(&mut pg);
    assert!(from_file == from_pg, "the two backends differ");
    assert_eq!(from_pg.fields().sky_region, 7);
    // And a second script on top (reads what the first wrote, deletes chunks).
    let more = "box 0 0 0 39 19 39 air\nplace 0 0 0 35\n";
    edit(&mut file, more);
    edit(&mut pg, more);
    assert!(load(&mut file) == load(&mut pg));
    assert_eq!(pg.list().unwrap(), vec![[0, 0, 0]]);
    let log = pg.commits(10).unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(log[0].summary, more);
    assert_eq!(log[1].seq, 1);
}

/// Two stores on one new world; the first read `[0, 0, 0]` at version 0, the second then
/// committed there.
fn moved_underneath(srv: &voxcaf_pg_test::TestServer) -> (PgStore, PgStore) {
    let l = loc(srv, "w");
    let a = create_empty(&l, [2, 2, 2]);
    let mut b = PgStore::open(&l).unwrap();
    edit(&mut b, "place 1 1 1 35\nsky 3\n");
    (a, b)
}

fn assert_conflict(r: vwr::Result<vwr::Committed>, what: &str) {
    match r {
        Err(VwrError::Conflict { what: w, location }) => {
            assert_eq!(w, what);
            assert!(location.contains("world=w"), "{location}");
        }
        r => panic!("expected a conflict on {what}, got {r:?}"),
    }
}

fn stale_commit_writes_nothing(expect: Expect, fields: Option<(WorldFields, u64)>, what: &str) {
    let Some(srv) = server() else { return };
    let (mut a, mut b) = moved_underneath(&srv);
    let before = load(&mut b);
    let chunk = Chunk::uniform(Block(36 << 4));
    let commit = StoreCommit {
        expect,
        changes: vec![([0, 0, 0], Some(&chunk)), ([1, 1, 1], Some(&chunk))],
        fields,
        tool: "test",
        summary: "stale",
    };
    assert_conflict(a.commit(&commit), what);
    assert_eq!(a.head().unwrap().head, 1);
    assert!(load(&mut a) == before, "a failed commit wrote something");
    assert_eq!(a.commits(10).unwrap().len(), 1);
}

#[test]
fn stale_chunk_versions_conflict_and_write_nothing() {
    stale_commit_writes_nothing(
        Expect::Chunks(vec![([0, 0, 0], 0), ([1, 1, 1], 0)]),
        None,
        "chunk (0, 0, 0)",
    );
}

#[test]
fn stale_head_conflicts_and_writes_nothing() {
    stale_commit_writes_nothing(Expect::Head(0), None, "the world");
}

#[test]
fn stale_fields_conflict_and_write_nothing() {
    let fields = WorldFields {
        sky_region: 9,
        ..Default::default()
    };
    // Chunks [1, 1, 1] was not touched by the other commit: only the fields moved.
    stale_commit_writes_nothing(
        Expect::Chunks(vec![([1, 1, 1], 0)]),
        Some((fields, 0)),
        "the world-wide fields",
    );
}

#[test]
fn fresh_versions_commit() {
    let Some(srv) = server() else { return };
    let (mut a, _b) = moved_underneath(&srv);
    let v = a.read(&[[0, 0, 0], [1, 1, 1]]).unwrap();
    assert_eq!((v[0].version, v[1].version), (1, 0));
    let chunk = Chunk::uniform(Block(36 << 4));
    let commit = StoreCommit {
        expect: Expect::Chunks(vec![([0, 0, 0], 1), ([1, 1, 1], 0)]),
        changes: vec![([0, 0, 0], None), ([1, 1, 1], Some(&chunk))],
        fields: Some((WorldFields::default(), 1)),
        tool: "test",
        summary: "fresh",
    };
    let c = a.commit(&commit).unwrap();
    assert_eq!((c.seq, c.chunks), (2, 2));
    let head = a.head().unwrap();
    assert_eq!((head.head, head.fields_version), (2, 2));
    assert_eq!(head.fields, WorldFields::default());
    assert_eq!(a.list().unwrap(), vec![[1, 1, 1]]);
    assert_eq!(a.read(&[[1, 1, 1]]).unwrap()[0].version, 2);
}

#[test]
fn a_row_with_a_wrong_crc_is_a_bad_stored_chunk() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "w");
    let mut pg = create_empty(&l, [3, 3, 3]);
    // Varied blocks, so the chunk is a payload with a CRC (not a uniform inline one).
    edit(
        &mut pg,
        "box 10 10 10 19 19 19 35\nplace 11 11 11 36\nplace 15 12 17 40",
    );
    sql(
        &l,
        "UPDATE voxcaf.chunks SET crc = (crc + 1) % 4294967296 WHERE x = 1 AND y = 1 AND z = 1",
    );
    match pg.read(&[[0, 0, 0], [1, 1, 1]]) {
        Err(VwrError::BadStoredChunk {
            chunk, location, ..
        }) => {
            assert_eq!(chunk, [1, 1, 1]);
            assert!(location.contains("world=w"));
        }
        r => panic!("expected a bad stored chunk, got {r:?}"),
    }
    // Other chunks still read.
    assert!(pg.read(&[[0, 0, 0]]).unwrap()[0].chunk.is_none());
}

#[test]
fn a_missing_world_row_is_a_clear_error() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "w");
    let mut pg = create_empty(&l, [1, 1, 1]);
    sql(&l, "DELETE FROM voxcaf.worlds WHERE name = 'w'");
    let e = pg.head().unwrap_err().to_string();
    assert!(e.contains("gone"), "{e}");
    let chunk = Chunk::uniform(Block(35 << 4));
    let commit = StoreCommit {
        expect: Expect::Head(0),
        changes: vec![([0, 0, 0], Some(&chunk))],
        fields: None,
        tool: "test",
        summary: "x",
    };
    let e = pg.commit(&commit).unwrap_err().to_string();
    assert!(e.contains("gone"), "{e}");
    let e = PgStore::open(&l).unwrap_err().to_string();
    assert!(e.contains("no world \"w\""), "{e}");
}

#[test]
fn a_newer_schema_version_is_refused_naming_both() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "w");
    create_empty(&l, [1, 1, 1]);
    sql(
        &l,
        "UPDATE voxcaf.meta SET value = '99' WHERE key = 'schema_version'",
    );
    match PgStore::open(&l) {
        Err(VwrError::Store { message, .. }) => {
            assert!(message.contains("version 99"), "{message}");
            let knows = format!("version {}", vwr_postgres::schema::SCHEMA_VERSION);
            assert!(message.contains(&knows), "{message}");
            assert!(message.contains("newer voxcaf"), "{message}");
        }
        r => panic!("expected a schema error, got {r:?}"),
    }
}

#[test]
fn the_schema_is_created_once_by_concurrent_clients() {
    let Some(srv) = server() else { return };
    let url = srv.url("w");
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let l = vwr_postgres::PgLocation::parse(&url).unwrap();
            std::thread::spawn(move || list_worlds(&l).unwrap())
        })
        .collect();
    for t in threads {
        assert!(t.join().unwrap().is_empty());
    }
}

#[test]
fn import_refuses_an_existing_world_unless_replacing() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "w");
    let mut world = World::with_chunk_dims([2, 1, 1]).unwrap();
    world.set_block([3, 3, 3], Block(35 << 4)).unwrap();
    import_world(&l, &world);
    let head = head_of(&world);
    let mut none = std::iter::empty();
    let e = vwr_postgres::import(&l, &head, false, "t", "again", &mut none).unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    let r = vwr_postgres::import(&l, &head, true, "t", "again", &mut none).unwrap();
    assert_eq!(r.chunks, 0);
    let mut pg = PgStore::open(&l).unwrap();
    assert!(pg.list().unwrap().is_empty());
    assert_eq!(pg.commits(5).unwrap()[0].summary, "again");
    assert_eq!(
        pg.commits(5).unwrap()[0].kind,
        vwr_postgres::CommitKind::Migrate
    );
}

#[test]
fn a_position_outside_the_world_is_an_error() {
    let Some(srv) = server() else { return };
    let mut pg = create_empty(&loc(&srv, "w"), [2, 2, 2]);
    let e = pg.read(&[[0, 0, 0], [2, 0, 0]]).unwrap_err().to_string();
    assert!(e.contains("outside"), "{e}");
}

#[test]
fn wait_for_commit_sees_another_writer() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "w");
    let mut a = create_empty(&l, [1, 1, 1]);
    assert_eq!(
        a.wait_for_commit(0, std::time::Duration::from_millis(100))
            .unwrap(),
        None
    );
    let l2 = l.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let mut b = PgStore::open(&l2).unwrap();
        edit(&mut b, "place 0 0 0 35");
    });
    let t0 = std::time::Instant::now();
    let got = a
        .wait_for_commit(0, std::time::Duration::from_secs(20))
        .unwrap();
    assert_eq!(got, Some(1));
    assert!(t0.elapsed() < std::time::Duration::from_secs(10));
    t.join().unwrap();
}

#[test]
fn a_unix_socket_location_connects() {
    let Some(srv) = server() else { return };
    let url = format!(
        "postgres://postgres@:{}/postgres?host={}&world=s",
        srv.port(),
        srv.socket_dir().display()
    );
    let l = vwr_postgres::PgLocation::parse(&url).unwrap();
    assert_eq!(l.host, None);
    let mut pg = create_empty(&l, [1, 1, 1]);
    edit(&mut pg, "place 1 2 3 35");
    assert_eq!(pg.list().unwrap(), vec![[0, 0, 0]]);
    // The same world over TCP.
    assert_eq!(
        PgStore::open(&loc(&srv, "s")).unwrap().head().unwrap().head,
        1
    );
}
