//! Several people on one server: invitations and roles, per-user undo, the log, the push of
//! changes (Server-Sent Events) and `FILE.oplog` with its replay.

mod common;

use common::{events, next_event, serve_new, v3_level, Client};

fn invite(owner: &Client, role: &str, name: &str) -> Client {
    let body = format!(r#"{{"role": "{role}", "name": "{name}"}}"#);
    let r = owner.ok("/api/invite", &body);
    assert_eq!(r["ok"], true);
    let url = r["url"].as_str().unwrap();
    let token = r["token"].as_str().unwrap();
    assert!(url.ends_with(&format!("?token={token}")), "{url}");
    Client {
        addr: owner.addr,
        token: token.to_string(),
    }
}

fn block_at(c: &Client, p: [i32; 3]) -> u64 {
    let l = c.get(&format!("/api/layer?y={}", p[1])).json();
    l["rows"][p[2] as usize][p[0] as usize].as_u64().unwrap() >> 4
}

#[test]
fn invitations_give_roles_and_are_revocable() {
    let (_d, _f, server, owner) = serve_new(v3_level);
    let viewer = invite(&owner, "view", "Vera");
    let editor = invite(&owner, "edit", "Ed");
    // A viewer reads and follows, and changes nothing.
    assert_eq!(viewer.get("/api/world").status, 200);
    for path in ["/api/ops", "/api/undo", "/api/redo", "/api/save"] {
        let r = viewer.post(path, "place 1 3 1 stone");
        assert_eq!(r.status, 403, "{path}");
        assert_eq!(r.json()["error"]["kind"], "forbidden");
    }
    // Only the owner invites.
    assert_eq!(editor.post("/api/invite", r#"{"role":"edit"}"#).status, 403);
    assert_eq!(viewer.post("/api/invite", r#"{"role":"edit"}"#).status, 403);
    assert_eq!(owner.post("/api/invite", r#"{"role":"owner"}"#).status, 400);
    editor.ok("/api/ops", "place 1 3 1 stone");
    let log = owner.get("/api/log?since=1").json();
    assert_eq!(log["ops"][0]["user"], "Ed");
    assert_eq!(log["ops"][0]["text"], "place 1 3 1 stone");
    // A name given twice is told apart.
    let again = owner.ok("/api/invite", r#"{"role": "edit", "name": "Ed"}"#);
    assert_eq!(again["name"], "Ed (2)");
    // Revoked: refused from then on, and its open event stream ends.
    let mut stream = events(&editor);
    next_event(&mut stream, "hello");
    let r = owner.ok(
        "/api/revoke",
        &format!(r#"{{"token": "{}"}}"#, editor.token),
    );
    assert_eq!(r["revoked"], "Ed");
    next_event(&mut stream, "revoked");
    let mut rest = String::new();
    use std::io::Read as _;
    stream.read_to_string(&mut rest).unwrap();
    assert!(!rest.contains("event: change"), "{rest}");
    assert_eq!(editor.post("/api/ops", "place 2 3 2 stone").status, 401);
    assert_eq!(editor.get("/api/world").status, 401);
    assert_eq!(
        owner.post("/api/revoke", r#"{"token": "nope"}"#).status,
        404
    );
    server.shutdown().unwrap();
}

#[test]
fn undo_acts_on_the_callers_own_operations_and_leaves_the_others() {
    let (_d, _f, server, owner) = serve_new(v3_level);
    let ed = invite(&owner, "edit", "Ed");
    owner.ok("/api/ops", "box 0 3 0 4 3 4 dirt");
    ed.ok("/api/ops", "place 2 3 2 lava\nplace 9 3 9 lava");
    let lava = block_at(&owner, [2, 3, 2]);
    let u = owner.ok("/api/undo", "");
    assert_eq!(u["change"]["cells"], 24, "{u}");
    assert_eq!(block_at(&owner, [2, 3, 2]), lava, "Ed's cell stays");
    assert_eq!(block_at(&owner, [1, 3, 1]), 0, "the owner's box went");
    assert_eq!(block_at(&owner, [9, 3, 9]), lava);
    assert_eq!(u["undo_depth"], 0);
    assert_eq!(u["redo_depth"], 1);
    // Ed's own history is his: one step to undo, none to redo.
    let w = ed.get("/api/world").json();
    assert_eq!(
        (&w["undo_depth"], &w["redo_depth"]),
        (&1.into(), &0.into()),
        "{w}"
    );
    assert!(w["undo"].as_str().unwrap().contains("place"), "{w}");
    let e = ed.ok("/api/undo", "");
    assert_eq!(e["change"]["cells"], 2);
    assert_eq!(e["undo_depth"], 0);
    assert_eq!(block_at(&owner, [9, 3, 9]), 0);
    // The log says who did what, undos naming what they undid.
    let log = owner.get("/api/log").json();
    let ops = log["ops"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = ops
        .iter()
        .map(|o| (o["user"].as_str().unwrap(), o["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("owner", "edit"),
            ("Ed", "edit"),
            ("owner", "undo"),
            ("Ed", "undo")
        ]
    );
    assert_eq!(ops[2]["of"], 1);
    assert_eq!(ops[3]["of"], 2);
    assert_eq!(log["next"], 5);
    // Undo lines inside a script are refused in a shared session.
    let r = owner.post("/api/ops", "place 1 3 1 dirt\nundo");
    assert_eq!(r.status, 409, "{}", String::from_utf8_lossy(&r.body));
    server.shutdown().unwrap();
}

#[test]
fn changes_and_presence_are_pushed_to_every_page() {
    let (_d, _f, server, owner) = serve_new(v3_level);
    let viewer = invite(&owner, "view", "Vera");
    let mut stream = events(&viewer);
    let hello = next_event(&mut stream, "hello");
    assert_eq!(hello["me"]["name"], "Vera");
    assert_eq!(hello["me"]["role"], "view");
    // The page would have loaded the chunks first: epoch 1.
    assert!(!owner.get("/api/chunks?since=0").body.is_empty());
    owner.ok("/api/ops", "place 5 3 5 lava");
    let ch = next_event(&mut stream, "change");
    assert_eq!(ch["user"], "owner");
    assert_eq!(ch["seq"], 1);
    assert!(ch["label"].as_str().unwrap().contains("place"), "{ch}");
    assert_eq!(ch["from"], 1);
    assert_eq!(ch["epoch"], 2);
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(ch["chunks"].as_str().unwrap())
        .unwrap();
    // The binary chunk answer names its epoch and its one changed chunk.
    assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 2);
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 1);
    // Edits of fields or records alone change no chunk, and reach every page all the same,
    // with the world's summary (the spawn, the objects).
    owner.ok("/api/ops", "spawn 7 3 7");
    let ch = next_event(&mut stream, "change");
    assert_eq!(
        (&ch["epoch"], &ch["world"]["spawn"]),
        (&2.into(), &serde_json::json!([7, 3, 7]))
    );
    owner.ok("/api/ops", "object add 1 12 4 12 end=12,9,12");
    let ch = next_event(&mut stream, "change");
    assert_eq!(
        ch["label"].as_str().map(|l| l.contains("object")),
        Some(true),
        "{ch}"
    );
    let objects = ch["world"]["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 1, "{ch}");
    assert_eq!(objects[0]["end"], serde_json::json!([12.0, 9.0, 12.0]));
    // Presence: a viewer may say where it looks; everyone hears it.
    let r = viewer.post("/api/presence", r#"{"cell": [3, 4, 5], "selection": null}"#);
    assert_eq!(r.status, 200);
    let p = next_event(&mut stream, "presence");
    assert_eq!(p["user"], "Vera");
    assert_eq!(p["cell"], serde_json::json!([3, 4, 5]));
    // Another page that opens and closes again comes and goes in the others' lists.
    let other = events(&owner);
    let came = next_event(&mut stream, "presence");
    assert_eq!(came["user"], "owner");
    drop(other);
    let gone = next_event(&mut stream, "presence");
    assert_eq!(
        (&gone["user"], &gone["gone"]),
        (&"owner".into(), &true.into())
    );
    server.shutdown().unwrap();
}

#[test]
fn every_save_appends_the_log_and_replay_rebuilds_the_saved_file() {
    let (dir, file, server, owner) = serve_new(v3_level);
    let base = dir.path().join("base.vwr");
    std::fs::copy(&file, &base).unwrap();
    let ed = invite(&owner, "edit", "Ed");
    owner.ok("/api/ops", "box 0 3 0 9 5 9 dirt\nobject add 1 20 3 20");
    ed.ok("/api/ops", "brush sphere 5 5 5 3 lava\nsky 4");
    owner.ok("/api/save", "");
    owner.ok("/api/undo", "");
    ed.ok("/api/ops", "replace lava water");
    ed.ok("/api/undo", "");
    ed.ok("/api/redo", "");
    owner.ok("/api/save", "");
    owner.ok("/api/ops", "place 30 3 30 lava");
    server.shutdown().unwrap();
    let log = vwr_serve::oplog_path(&file);
    let text = std::fs::read_to_string(&log).unwrap();
    let kinds: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["kind"].to_string())
        .collect();
    assert_eq!(
        kinds.join(" "),
        r#""begin" "edit" "edit" "save" "undo" "edit" "undo" "redo" "save""#
    );
    let out = dir.path().join("replayed.vwr");
    let r = vwr_edit::oplog::replay(&log, &base, &out).unwrap();
    assert_eq!((r.ops, r.saves, r.unsaved_ops, r.segments), (6, 2, 0, 1));
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&file).unwrap());
    // A wrong base is refused, naming the line.
    let e = vwr_edit::oplog::replay(&log, &file, &dir.path().join("x.vwr")).unwrap_err();
    assert!(
        e.to_string().contains(":1: this segment starts from"),
        "{e}"
    );
    // A second session on the saved file continues the log; replay still ends equal.
    let (server, owner) = common::serve(&file);
    owner.ok("/api/ops", "place 31 3 31 dirt");
    owner.ok("/api/save", "");
    server.shutdown().unwrap();
    let r = vwr_edit::oplog::replay(&log, &base, &out).unwrap();
    assert_eq!(r.segments, 2);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&file).unwrap());
}

#[test]
fn the_timeline_shows_the_world_after_any_kept_operation() {
    let (_d, _f, server, owner) = serve_new(v3_level);
    owner.ok("/api/ops", "box 12 3 12 27 12 27 lava");
    owner.ok("/api/ops", "box 15 3 15 17 12 17 glass");
    let at = |n: u64, m: u64| {
        let r = owner.get(&format!("/api/timeline?seq={n}&shown={m}"));
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        vwr_serve::wire::decode_blocks(&r.body).unwrap()
    };
    let cell = |chunks: &[vwr_serve::wire::DecodedChunk], p: [u32; 3]| {
        let c = [p[0] / 10, p[1] / 10, p[2] / 10];
        let i = (p[0] % 10 + 10 * (p[1] % 10 + 10 * (p[2] % 10))) as usize;
        chunks
            .iter()
            .find(|d| d.pos == c)
            .map(|d| d.blocks.as_ref().map_or(0, |b| b[i] >> 4))
    };
    let lava = vwr_edit::script::parse_block("lava").unwrap().raw() >> 4;
    let glass = vwr_edit::script::parse_block("glass").unwrap().raw() >> 4;
    let back = at(0, 2);
    assert_eq!(cell(&back, [20, 6, 20]), Some(0));
    assert_eq!(cell(&back, [16, 6, 16]), Some(0));
    let one = at(1, 0);
    assert_eq!(cell(&one, [16, 6, 16]), Some(lava));
    let now = at(2, 1);
    assert_eq!(cell(&now, [16, 6, 16]), Some(glass));
    assert_eq!(
        cell(&now, [20, 6, 20]),
        None,
        "a chunk the glass did not touch is not sent"
    );
    assert_eq!(owner.get("/api/log").json()["timeline_from"], 0);
    server.shutdown().unwrap();
}
