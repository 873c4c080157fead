//! History, revert and compaction of a world in a database (vwr-postgres.md §7), and the
//! upgrade of a schema version 1 database (§4, step 2).

mod common;

use common::*;
use vwr::{load_store, ChunkStore, VwrError, World};
use vwr_postgres::{CommitKind, PgLocation, PgStore};

/// Three edits of a small world: chunks written, overwritten, removed, fields changed.
const EDITS: [&str; 3] = [
    "box 0 0 0 25 5 25 35\nsky 3\nspawn 1 2 1\n",
    "box 10 0 10 29 9 29 36\nbox 0 0 0 15 19 15 air\n",
    "place 21 11 21 37\nsky 9\nbox 20 0 0 29 3 9 38\n",
];

/// The world as the store holds it now.
fn snapshot(store: &mut PgStore) -> World {
    load_store(store).unwrap().0
}

/// A new world `name` with [`EDITS`] committed as seqs 1, 2, 3, and the world after each
/// (index 0: before any).
fn three_commits(l: &PgLocation) -> (PgStore, Vec<World>) {
    let mut store = create_empty(l, [3, 2, 3]);
    let mut states = vec![snapshot(&mut store)];
    for e in EDITS {
        edit(&mut store, e);
        states.push(snapshot(&mut store));
    }
    assert_eq!(store.head().unwrap().head, 3);
    (store, states)
}

/// One number the server answers to `query`.
fn count(l: &PgLocation, query: &str) -> i64 {
    let (config, _) = l.config().unwrap();
    let mut c = config.connect(postgres::NoTls).unwrap();
    c.query_one(query, &[]).unwrap().get(0)
}

fn history_rows(l: &PgLocation) -> i64 {
    count(l, "SELECT count(*) FROM voxcaf.chunk_history")
}

#[test]
fn revert_restores_the_previous_and_an_older_state_exactly() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "w");
    let (mut store, states) = three_commits(&l);
    assert!(states[1] != states[2] && states[2] != states[3]);
    // To the previous commit.
    let c = store.revert(None, "test").unwrap();
    assert_eq!(c.seq, 4);
    assert!(snapshot(&mut store) == states[2], "revert to 2 differs");
    let log = store.commits(1).unwrap();
    assert_eq!(log[0].kind, CommitKind::Revert);
    assert_eq!(log[0].reverted_to, Some(2));
    assert_eq!(log[0].summary, "revert to 2");
    // To an older one, fields included (sky 3, spawn).
    store.revert(Some(1), "test").unwrap();
    let now = snapshot(&mut store);
    assert!(now == states[1], "revert to 1 differs");
    assert_eq!(now.fields().sky_region, 3);
    // A fresh store reads the same.
    let mut other = PgStore::open(&l).unwrap();
    assert!(snapshot(&mut other) == states[1]);
    // The earlier commits are kinds save.
    let log = store.commits(10).unwrap();
    let kinds: Vec<CommitKind> = log.iter().map(|c| c.kind).collect();
    use CommitKind::{Revert, Save};
    assert_eq!(kinds, [Revert, Revert, Save, Save, Save]);
    assert!(log[2..].iter().all(|c| c.reverted_to.is_none()));
}

#[test]
fn a_revert_can_itself_be_reverted_and_edited_after() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "w");
    let (mut store, states) = three_commits(&l);
    store.revert(Some(1), "test").unwrap(); // 4: state 1
    assert!(snapshot(&mut store) == states[1]);
    store.revert(None, "test").unwrap(); // 5: state 4's predecessor, 3
    assert!(
        snapshot(&mut store) == states[3],
        "the revert was not undone"
    );
    store.revert(None, "test").unwrap(); // 6: state 4 = state 1
    assert!(snapshot(&mut store) == states[1]);
    // Edits go on from a reverted state, with chunk versions that check.
    edit(&mut store, EDITS[2]);
    let mut expect = create_empty(&loc(&srv, "x"), [3, 2, 3]);
    edit(&mut expect, EDITS[0]);
    edit(&mut expect, EDITS[2]);
    assert!(snapshot(&mut store) == snapshot(&mut expect));
    assert_eq!(store.head().unwrap().head, 7);
}

#[test]
fn a_revert_racing_a_commit_conflicts_and_writes_nothing() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "w");
    let (mut a, _) = three_commits(&l);
    let seen = a.head().unwrap().head;
    let mut b = PgStore::open(&l).unwrap();
    edit(&mut b, "place 1 1 1 39\n");
    let after = snapshot(&mut b);
    let rows = history_rows(&l);
    match a.revert_from(seen, None, "test") {
        Err(VwrError::Conflict { what, .. }) => assert_eq!(what, "the world"),
        r => panic!("expected a conflict, got {r:?}"),
    }
    assert_eq!(a.head().unwrap().head, seen + 1);
    assert!(snapshot(&mut a) == after, "the failed revert wrote");
    assert_eq!(history_rows(&l), rows);
    assert_eq!(a.commits(1).unwrap()[0].kind, CommitKind::Save);
    // Racing for real: reverts and edits from two threads, every revert either conflicting or
    // committed, the log without gaps.
    let l2 = l.clone();
    let editor = std::thread::spawn(move || {
        let mut s = PgStore::open(&l2).unwrap();
        (0..20u64)
            .filter(|i| {
                let e = edit(&mut s, &format!("place {i} 3 3 {}\n", 33 + i % 5));
                e.committed.is_some()
            })
            .count() as u64
    });
    let mut reverted = 0;
    for _ in 0..20 {
        let seen = a.head().unwrap().head;
        match a.revert_from(seen, None, "test") {
            Ok(_) => reverted += 1,
            Err(VwrError::Conflict { .. }) => {}
            Err(e) => panic!("{e}"),
        }
    }
    let edited = editor.join().unwrap();
    let head = a.head().unwrap().head;
    assert_eq!(head, 4 + edited + reverted);
    assert_eq!(a.commits(usize::MAX).unwrap().len() as u64, head);
}

#[test]
fn compact_drops_history_and_a_revert_past_it_is_refused() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "w");
    let (mut store, states) = three_commits(&l);
    assert_eq!(store.kept().unwrap(), 1..=3);
    let before = history_rows(&l);
    let dropped = store.compact(2).unwrap();
    assert!(dropped > 0);
    assert_eq!(history_rows(&l), before - dropped as i64);
    assert_eq!(store.kept().unwrap(), 2..=3);
    match store.revert(Some(1), "test") {
        Err(VwrError::NoSuchCommit {
            generation, kept, ..
        }) => {
            assert_eq!(generation, 1);
            assert_eq!(kept, "2..=3");
        }
        r => panic!("expected NoSuchCommit, got {r:?}"),
    }
    assert_eq!(store.head().unwrap().head, 3, "a refused revert wrote");
    // What is kept still reverts exactly.
    store.revert(Some(2), "test").unwrap();
    assert!(snapshot(&mut store) == states[2]);
    // Keeping one commit drops every row; the head is all a revert can go to.
    store.compact(1).unwrap();
    assert_eq!(history_rows(&l), 0);
    assert_eq!(store.kept().unwrap(), 4..=4);
    assert!(matches!(
        store.revert(None, "test"),
        Err(VwrError::NoSuchCommit { .. })
    ));
}

#[test]
fn commits_keep_the_last_eight_by_default() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "w");
    let mut store = create_empty(&l, [2, 1, 2]);
    for i in 0..12 {
        edit(&mut store, &format!("place {i} 1 {i} {}\n", 33 + i % 4));
    }
    assert_eq!(store.kept().unwrap(), 5..=12);
    let oldest = count(&l, "SELECT min(replaced_by) FROM voxcaf.chunk_history");
    assert!(oldest > 5, "{oldest}");
    store.set_keep(3);
    edit(&mut store, "place 0 0 0 40\n");
    assert_eq!(store.kept().unwrap(), 11..=13);
}

#[test]
fn a_schema_1_database_is_upgraded_on_connect() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "old");
    // A database as version 1 wrote it: step 1 only, one world with one chunk and a commit.
    let step1 = vwr_postgres::schema::STEPS[0];
    sql(&l, step1);
    sql(
        &l,
        "UPDATE voxcaf.meta SET value = '1' WHERE key = 'schema_version';
         INSERT INTO voxcaf.worlds (name, dims_x, dims_y, dims_z, sky_region, mission_number,
             fields_version, head, format_version, created_ms)
             VALUES ('old', 2, 2, 2, 5, 0, 1, 1, 3, 0);
         INSERT INTO voxcaf.chunks (world, x, y, z, version, encoding, storage, value, crc, data)
             SELECT id, 1, 0, 1, 1, 0, 0, 560, 0, '' FROM voxcaf.worlds;
         INSERT INTO voxcaf.commits (world, seq, time_ms, tool, summary, chunks)
             SELECT id, 1, 0, 'old voxcaf', 'migrate from old.vwr', 1 FROM voxcaf.worlds;",
    );
    let mut store = PgStore::open(&l).unwrap();
    let version = count(
        &l,
        "SELECT value::int8 FROM voxcaf.meta WHERE key = 'schema_version'",
    );
    assert_eq!(version, i64::from(vwr_postgres::schema::SCHEMA_VERSION));
    // Readable as before.
    let (world, head, _) = load_store(&mut store).unwrap();
    assert_eq!((head.head, head.fields.sky_region), (1, 5));
    assert_eq!(world.get_block([15, 3, 15]), vwr::Block(35 << 4));
    assert_eq!(world.non_empty_chunks().count(), 1);
    let log = store.commits(5).unwrap();
    assert_eq!((log[0].kind, log[0].reverted_to), (CommitKind::Save, None));
    // No older history: the head is all that is kept.
    assert_eq!(store.kept().unwrap(), 1..=1);
    assert!(matches!(
        store.revert(None, "test"),
        Err(VwrError::NoSuchCommit { .. })
    ));
    // Committable, and the new commit can be reverted to the upgraded state.
    edit(&mut store, "box 0 0 0 19 19 19 36\nsky 6\n");
    assert_eq!(store.head().unwrap().head, 2);
    store.revert(None, "test").unwrap();
    assert!(snapshot(&mut store) == world);
    // A second client finds version 2 and does nothing.
    let mut again = PgStore::open(&l).unwrap();
    assert!(snapshot(&mut again) == world);
}

/// What an editor holding the world at commit N reads to catch up: the positions later
/// commits wrote or removed, or `None` once the kept history no longer reaches N.
#[test]
fn changed_since_names_written_and_removed_chunks_while_history_reaches() {
    let Some(pg) = voxcaf_pg_test::TestServer::start() else {
        return;
    };
    let loc = PgLocation::parse(&pg.url("w")).unwrap();
    let (mut store, _) = three_commits(&loc);
    // Commit 4: one chunk written where none was, one removed.
    let filled = vwr::Chunk::uniform(vwr::Block(35 << 4));
    let gone = store.list().unwrap()[0];
    let commit = vwr::StoreCommit {
        expect: vwr::Expect::Head(3),
        changes: vec![([2, 1, 2], Some(&filled)), (gone, None)],
        fields: None,
        tool: "t",
        summary: "s",
    };
    store.commit(&commit).unwrap();
    let mut changed = store.changed_since(3).unwrap().unwrap();
    changed.sort();
    let mut want = vec![[2, 1, 2], gone];
    want.sort();
    assert_eq!(changed, want);
    assert_eq!(store.changed_since(4).unwrap(), Some(Vec::new()));
    // Past the kept history: read whole.
    store.compact(1).unwrap();
    assert_eq!(store.changed_since(3).unwrap(), None);
}
