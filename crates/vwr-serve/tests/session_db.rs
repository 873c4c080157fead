//! The editor's database mode against a real PostgreSQL the test starts (`voxcaf_pg_test`;
//! skipped without PostgreSQL unless `VOXCAF_REQUIRE_POSTGRES=1`): two sessions on one
//! database world see each other's commits after a sync, concurrent edits of one chunk both
//! end in the world, an undo leaves another editor's change in place, and saving writes
//! nothing.

mod common;

use common::db_world as new_world;
use voxcaf_pg_test::TestServer;
use vwr::{Block, ChunkStore, World};
use vwr_postgres::{PgLocation, PgStore};
use vwr_serve::{Session, SessionOptions};

fn block(name: &str) -> Block {
    vwr_edit::script::parse_block(name).unwrap()
}

fn open(loc: &PgLocation) -> Session {
    Session::open_db(loc, SessionOptions::default()).unwrap()
}

/// The world as the database holds it now.
fn stored(loc: &PgLocation) -> World {
    open(loc).world().clone()
}

/// The chunk positions of a binary chunk answer (see `vwr_serve::wire`).
fn chunk_count(answer: &[u8]) -> u32 {
    assert_eq!(&answer[..4], vwr_serve::wire::MAGIC);
    u32::from_le_bytes(answer[8..12].try_into().unwrap())
}

#[test]
fn an_edit_in_one_session_reaches_the_other_after_a_sync() {
    let Some(pg) = TestServer::start() else {
        return;
    };
    let loc = new_world(&pg, "w1");
    let mut a = open(&loc);
    let mut b = open(&loc);
    assert!(a.is_db());
    assert_eq!(a.summary().store, "database");
    b.chunks_since(0);
    let since = b.epoch();
    let r = a.apply_script("place 15 3 5 lava").unwrap();
    assert!(!r.state.changed_chunks.is_empty());
    assert_eq!(a.head(), Some(2), "committed at once");
    // B sees it only after a sync.
    assert_eq!(b.world().get_block([15, 3, 5]), Block::AIR);
    let s = b.sync().unwrap();
    assert_eq!(s.head, Some(2));
    assert_eq!(s.pulled, 1);
    let note = s.state.synced.expect("the sync says what it brought");
    assert!(note.contains("another editor committed"), "{note}");
    assert_eq!(b.world().get_block([15, 3, 5]), block("lava"));
    assert!(s.state.changed_chunks.contains(&[1, 0, 0]));
    assert!(chunk_count(&b.chunks_since(since)) >= 1);
    // A second sync brings nothing; A's own commit is not someone else's.
    let again = b.sync().unwrap();
    assert_eq!(again.pulled, 0);
    assert!(again.state.synced.is_none());
    assert_eq!(a.sync().unwrap().pulled, 0);
    // World-wide fields, objects and decor travel too.
    a.apply_script("sky 7\nspawn 2 1 2\nobject add lift 20 1 20 end=20,6,20\ndecor 3 1 3 12")
        .unwrap();
    let s = b.sync().unwrap();
    assert_eq!(b.world().sky_region(), 7);
    assert_eq!(b.world().spawn(), Some([2, 1, 2]));
    assert_eq!(s.state.world.objects.len(), 1);
    assert_eq!(s.state.world.decors.len(), 1);
    assert_eq!(stored(&loc), *b.world());
    // A flood fill (reach not bounded) is checked against the whole world's head.
    a.apply_script("fill 0 1 0 water limit 20").unwrap_err();
    b.apply_script("replace lava glass").unwrap();
    a.apply_script("place 39 1 39 lava").unwrap();
    assert_eq!(a.world().get_block([15, 3, 5]), block("glass"));
    b.sync().unwrap();
    assert_eq!(stored(&loc), *a.world());
    assert_eq!(stored(&loc), *b.world());
}

#[test]
fn concurrent_edits_of_one_chunk_both_end_in_the_world() {
    let Some(pg) = TestServer::start() else {
        return;
    };
    let loc = new_world(&pg, "w2");
    let mut a = open(&loc);
    let mut b = open(&loc);
    // B has not seen A's edit when it edits the same chunk: its commit conflicts, it pulls
    // and applies again.
    a.apply_script("place 1 1 1 lava").unwrap();
    b.apply_script("place 2 1 1 glass").unwrap();
    assert_eq!(b.world().get_block([1, 1, 1]), block("lava"));
    assert_eq!(b.world().get_block([2, 1, 1]), block("glass"));
    // Two threads editing the same chunk at once lose nothing either.
    let run = |mut s: Session, y: i32| {
        std::thread::spawn(move || {
            for x in 0..10 {
                s.apply_script(&format!("place {x} {y} 4 brickwall"))
                    .unwrap();
            }
            s
        })
    };
    let (ta, tb) = (run(a, 2), run(b, 3));
    let (mut a, _b) = (ta.join().unwrap(), tb.join().unwrap());
    let w = stored(&loc);
    for x in 0..10 {
        for y in [2, 3] {
            assert_eq!(w.get_block([x, y, 4]), block("brickwall"), "{x} {y}");
        }
    }
    assert_eq!(w.get_block([1, 1, 1]), block("lava"));
    assert_eq!(w.get_block([2, 1, 1]), block("glass"));
    a.sync().unwrap();
    assert_eq!(*a.world(), w);
}

#[test]
fn an_undo_leaves_another_editors_change_in_place() {
    let Some(pg) = TestServer::start() else {
        return;
    };
    let loc = new_world(&pg, "w3");
    let mut a = open(&loc);
    let mut b = open(&loc);
    a.apply_script("box 3 1 3 5 1 5 glass").unwrap();
    b.apply_script("place 3 1 3 lava").unwrap();
    // A's undo (on another server, which has not pulled B's commit yet) takes back A's box,
    // not the cell B changed since.
    let u = a.try_undo().unwrap();
    assert_eq!(u.change.as_ref().map(|c| c.cells), Some(8));
    assert_eq!(a.world().get_block([3, 1, 3]), block("lava"));
    assert_eq!(a.world().get_block([4, 1, 4]), Block::AIR);
    assert_eq!(stored(&loc).get_block([3, 1, 3]), block("lava"));
    assert_eq!(stored(&loc).get_block([4, 1, 4]), Block::AIR);
    // And B's own undo still takes back B's cell: to what B saw, A's glass.
    assert!(b.try_undo().unwrap().change.is_some());
    assert_eq!(stored(&loc).get_block([3, 1, 3]), block("glass"));
    // An undo of a change nobody touched since goes through and is committed.
    a.apply_script("place 30 1 30 glass").unwrap();
    let u = a.try_undo().unwrap();
    assert!(u.change.is_some());
    assert_eq!(stored(&loc).get_block([30, 1, 30]), Block::AIR);
    let r = a.try_redo().unwrap();
    assert!(r.change.is_some());
    assert_eq!(stored(&loc).get_block([30, 1, 30]), block("glass"));
    assert_eq!(stored(&loc), *a.world());
}

#[test]
fn saving_a_database_world_writes_nothing_and_says_committed() {
    let Some(pg) = TestServer::start() else {
        return;
    };
    let loc = new_world(&pg, "w4");
    let mut a = open(&loc);
    a.apply_script("place 5 1 5 lava").unwrap();
    assert!(!a.modified());
    let mut store = PgStore::open(&loc).unwrap();
    let before = store.head().unwrap().head;
    let r = a.save().unwrap();
    assert!(!r.written);
    assert_eq!(r.committed, Some(before));
    assert_eq!(store.head().unwrap().head, before, "no commit");
    assert!(!a.autosave().unwrap(), "no journal");
    assert!(a.recovery().is_none());
    let e = a
        .save_with(vwr_serve::SaveMode::As("copy.vwr".into()))
        .unwrap_err();
    assert_eq!(e.kind(), "refused");
    let j = serde_json::to_value(&r).unwrap();
    assert_eq!(j["committed"], before);
}

/// A server of the database world `loc`, and a client of it.
fn server(loc: &PgLocation) -> (vwr_serve::RunningServer, common::Client) {
    let s = vwr_serve::start_db(loc, vwr_serve::ServerOptions::default()).unwrap();
    let c = common::Client {
        addr: s.addr(),
        token: s.token().to_string(),
    };
    (s, c)
}

#[test]
fn the_server_serves_a_database_world_and_its_sync_endpoint() {
    let Some(pg) = TestServer::start() else {
        return;
    };
    let loc = new_world(&pg, "w5");
    let ((sa, ca), (sb, cb)) = (server(&loc), server(&loc));
    let w = cb.get("/api/world").json();
    assert_eq!(w["store"], "database");
    let epoch = w["epoch"].as_u64().unwrap();
    ca.ok("/api/ops", "place 8 1 8 lava");
    let s = cb.get("/api/sync").json();
    assert_eq!(s["pulled"], 1);
    assert!(s["epoch"].as_u64().unwrap() > epoch);
    assert!(s["synced"]
        .as_str()
        .unwrap()
        .contains("another editor committed"));
    let chunks = cb.get(&format!("/api/chunks?since={epoch}"));
    assert!(chunk_count(&chunks.body) >= 1);
    let save = cb.ok("/api/save", "");
    assert_eq!(save["committed"], 2);
    // B's undo over A's newer change of the same cell leaves A's change.
    cb.ok("/api/ops", "place 9 1 9 glass");
    ca.ok("/api/ops", "place 9 1 9 lava");
    let r = cb.ok("/api/undo", "");
    assert_eq!(r["change"]["cells"], 0, "{r}");
    assert_eq!(stored(&loc).get_block([9, 1, 9]), block("lava"));
    sa.shutdown().unwrap();
    sb.shutdown().unwrap();
}

/// A database server that someone follows (a page's or a game's event stream) pulls other
/// servers' commits by itself and pushes them: blocks, and fields alone.
#[test]
fn a_database_server_pushes_other_servers_commits_to_its_followers() {
    let Some(pg) = TestServer::start() else {
        return;
    };
    let loc = new_world(&pg, "w7");
    let ((sa, ca), (sb, cb)) = (server(&loc), server(&loc));
    let mut stream = common::events(&cb);
    common::next_event(&mut stream, "hello");
    ca.ok("/api/ops", "place 8 1 8 lava");
    let ch = common::next_event(&mut stream, "change");
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(ch["chunks"].as_str().unwrap())
        .unwrap();
    let chunks = vwr_serve::wire::decode_blocks(&bytes).unwrap();
    let lava = block("lava").raw();
    let at =
        |c: &vwr_serve::wire::DecodedChunk| c.blocks.as_ref().map(|b| b[8 + 10 * (1 + 10 * 8)]);
    assert!(
        chunks
            .iter()
            .any(|c| c.pos == [0, 0, 0] && at(c) == Some(lava)),
        "{ch}"
    );
    ca.ok("/api/ops", "spawn 3 1 3");
    let ch = common::next_event(&mut stream, "change");
    assert_eq!(ch["world"]["spawn"], serde_json::json!([3, 1, 3]), "{ch}");
    sa.shutdown().unwrap();
    sb.shutdown().unwrap();
}

#[test]
fn people_on_one_database_server_undo_their_own_steps() {
    let Some(pg) = TestServer::start() else {
        return;
    };
    let loc = new_world(&pg, "people");
    let mut s = open(&loc);
    s.apply_script_as("ana", "place 1 1 1 lava").unwrap();
    s.apply_script_as("bo", "place 2 1 2 glass").unwrap();
    // Ana's undo is hers, though Bo's step is newer.
    let u = s.undo_as("ana").unwrap();
    assert_eq!(u.change.as_ref().map(|c| c.cells), Some(1));
    assert_eq!(stored(&loc).get_block([1, 1, 1]), Block::AIR);
    assert_eq!(stored(&loc).get_block([2, 1, 2]), block("glass"));
    assert_eq!((u.state.undo_depth, u.state.redo_depth), (0, 1));
    // Bo has nothing to redo; Ana redoes hers.
    assert!(s.redo_as("bo").unwrap().change.is_none());
    assert!(s.redo_as("ana").unwrap().change.is_some());
    assert_eq!(stored(&loc).get_block([1, 1, 1]), block("lava"));
    assert_eq!(*s.world(), stored(&loc));
}
