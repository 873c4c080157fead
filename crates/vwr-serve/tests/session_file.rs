//! The editor server on the one world session: a v3 world stays v3 and is saved by small
//! commits, a second writer is refused, and a change on disk is never overwritten silently
//! (the answer is 409 with the choice of reload, overwrite, or save as). The largest world
//! is served, with a layer map too large to show refused as such and shown by region.

mod common;

use common::{serve, serve_new, v3_level};
use vwr::{Block, Codec, SaveOptions, World, WorldFile};
use vwr_serve::{start, ServerOptions};

fn block(name: &str) -> Block {
    vwr_edit::script::parse_block(name).unwrap()
}

#[test]
fn saving_a_v3_world_keeps_v3_and_appends_one_small_commit() {
    let d = tempfile::tempdir().unwrap();
    let p = v3_level(d.path());
    let before = std::fs::metadata(&p).unwrap().len();
    let (_s, c) = serve(&p);
    c.ok("/api/ops", "place 3 5 3 water\nplace 50 5 50 lava");
    let r = c.ok("/api/save", "");
    assert_eq!(r["written"], true);
    assert_eq!(r["incremental"], true);
    assert_eq!(r["commit"], 2);
    assert!(r["backup"].is_null());
    let f = WorldFile::open(&p).unwrap();
    assert_eq!(f.version(), 3);
    assert!(std::fs::metadata(&p).unwrap().len() - before < 16 * 1024);
    let (h, _) = f.history(10);
    assert_eq!(h[0].tool, "voxcaf world serve");
    assert_eq!(
        World::load(&p).unwrap().get_block([50, 5, 50]),
        block("lava")
    );
}

#[test]
fn a_second_editor_on_the_same_file_is_refused_naming_the_first() {
    let (_d, p, _s, _c) = serve_new(v3_level);
    let e = start(&p, ServerOptions::default()).expect_err("second server refused");
    let m = e.to_string();
    assert!(m.contains("open for writing by process"), "{m}");
    assert_eq!(e.kind(), "locked");
}

#[test]
fn a_change_on_disk_is_a_conflict_then_overwrite_save_as_or_reload() {
    let (d, p, _s, c) = serve_new(v3_level);
    c.ok("/api/ops", "place 1 5 1 glass");
    // Someone else changes the file on disk.
    let mut other = World::load(&p).unwrap();
    other.set_block([40, 5, 40], Block(7 << 4)).unwrap();
    other.save_with(&p, &SaveOptions::v3(Codec::Auto)).unwrap();
    let r = c.post("/api/save", "");
    assert_eq!(r.status, 409);
    let j = r.json();
    assert_eq!(j["error"]["kind"], "conflict");
    assert_eq!(World::load(&p).unwrap(), other, "the other change is kept");

    // Save as a new file beside it: the other change stays, ours goes to the new file.
    let r = c.ok("/api/save?as=mine.vwr", "");
    assert_eq!(r["written"], true);
    let mine = World::load(d.path().join("mine.vwr")).unwrap();
    assert_eq!(mine.get_block([1, 5, 1]), block("glass"));
    assert_eq!(World::load(&p).unwrap(), other);
    let bad = c.post("/api/save?as=../x.vwr", "");
    assert_eq!(bad.status, 400);

    // Back on the first file: reload takes the disk's version, then overwrite wins.
    let (_s2, c2) = serve(&p);
    c2.ok("/api/ops", "place 2 5 2 glass");
    let mut third = World::load(&p).unwrap();
    third.set_block([30, 5, 30], Block(8 << 4)).unwrap();
    third.save_with(&p, &SaveOptions::v3(Codec::Auto)).unwrap();
    assert_eq!(c2.post("/api/save", "").status, 409);
    let r = c2.ok("/api/save?mode=overwrite", "");
    assert_eq!(r["written"], true);
    let now = World::load(&p).unwrap();
    assert_eq!(now.get_block([2, 5, 2]), block("glass"));
    assert_eq!(
        now.get_block([30, 5, 30]),
        Block::AIR,
        "overwritten as asked"
    );
    let r = c2.ok("/api/reload", "");
    assert!(r["reloaded"].is_string(), "{r}");
}

#[test]
fn one_request_is_one_undo_step_and_dropped_steps_are_reported() {
    let d = tempfile::tempdir().unwrap();
    let p = v3_level(d.path());
    let opts = ServerOptions {
        session: vwr_serve::SessionOptions {
            history_depth: 2,
            ..Default::default()
        },
        ..Default::default()
    };
    let (s, c) = common::options_serve(&p, opts);
    let before = World::load(&p).unwrap();
    // Cut then paste, sent as one request (what the page's actions send): one undo step.
    let r = c.ok(
        "/api/ops",
        "cut 0 0 0 9 2 9\npaste 20 0 20\nplace 40 5 40 glass",
    );
    assert_eq!(r["undo_depth"], 1, "{r}");
    c.ok("/api/undo", "");
    let now: World = s.with_session(|s| s.world().clone());
    assert_eq!(now, before, "one undo takes back the whole request");
    // A failing request changes nothing and keeps the redo step.
    let r = c.post("/api/ops", "place 1 5 1 glass\nplace 9999 5 1 glass");
    assert_eq!(r.status, 400);
    let r = c.ok("/api/redo", "");
    assert_eq!(r["undo_depth"], 1, "{r}");
    // Past the depth of 2, the oldest steps go and the answer says how many.
    for k in 0..3 {
        let r = c.ok("/api/ops", &format!("place {} 5 2 glass", 10 + k));
        if k == 2 {
            assert_eq!(r["history_dropped"], 2, "{r}");
            assert_eq!(r["undo_depth"], 2);
        }
    }
}

/// The largest world the format allows, served: its chunks, levels of detail and summary come
/// back small; its whole layer map is refused as too large (not as outside the world), and a
/// region of it (what the page asks for) is served.
#[test]
fn the_largest_world_is_served_and_its_layer_map_by_region() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("huge.vwr");
    let max = vwr::MAX_CHUNKS_PER_AXIS;
    let mut w = World::with_chunk_dims([max, 1, max]).unwrap();
    w.set_block([655_340, 5, 655_340], block("lava")).unwrap();
    w.save_with(&p, &SaveOptions::v3(Codec::Auto)).unwrap();
    let (_s, c) = serve(&p);
    assert_eq!(
        c.get("/api/world").json()["chunk_dims"],
        serde_json::json!([max, 1, max])
    );
    let chunks = c.get("/api/chunks?since=0");
    assert_eq!(chunks.status, 200);
    assert!(chunks.body.len() < 4096, "{} bytes", chunks.body.len());
    assert_eq!(c.get("/api/lod?level=3").status, 200);
    let r = c.get("/api/layer?y=5");
    assert_eq!(r.status, 400);
    let e = r.json();
    let message = e["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("more than") && message.contains("layer map"),
        "{e}"
    );
    assert_eq!(e["error"]["kind"], "range");
    // A region is held to 2048 × 2048 cells: one more column is refused, and says the limit.
    let r = c.get("/api/layer?y=5&x0=0&z0=0&x1=2048&z1=2047");
    assert_eq!(r.status, 400);
    let message = r.json()["error"]["message"].as_str().unwrap().to_string();
    let max = vwr_serve::MAX_LAYER_ANSWER_CELLS;
    assert!(
        message.contains(&format!("2049×2048 cells, more than the {max}")),
        "{message}"
    );
    // The window the page shows around the block: 200×200 cells, the lava in its last corner.
    let l = c
        .get("/api/layer?y=5&x0=655141&z0=655141&x1=655340&z1=655340")
        .json();
    assert_eq!(
        (l["width"].as_u64(), l["depth"].as_u64()),
        (Some(200), Some(200))
    );
    let rows = l["rows"].as_array().unwrap();
    let lava = u64::from(block("lava").raw());
    let set: Vec<(usize, usize)> = rows
        .iter()
        .enumerate()
        .flat_map(|(z, r)| {
            let r = r.as_array().unwrap();
            (0..r.len())
                .filter(move |&x| r[x] != 0)
                .map(move |x| (x, z))
        })
        .collect();
    assert_eq!(set, vec![(199, 199)]);
    assert_eq!(rows[199][199], lava);
}
