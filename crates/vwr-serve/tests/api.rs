//! The HTTP API over real sockets: every operation, undo/redo back to byte-identical files,
//! save with backup, the journal and its recovery, token/Origin/Host checks and size limits.

mod common;

use std::path::{Path, PathBuf};

use common::{request, serve, serve_new};
use vwr::World;
use vwr_edit::script::{apply_ops, parse_text};
use vwr_edit::Editor;
use vwr_serve::{backup_path, journal_path, start, ServerOptions};

/// A small level (floor, walls, an object) saved in a fresh folder.
fn level(dir: &Path) -> PathBuf {
    let mut ed = Editor::new(World::new());
    let ops = parse_text(
        "setup",
        "box 0 0 0 39 0 39 stone\nwalls 5 1 5 15 4 15 brickwall\nobject add lift 20 1 20 end=20,6,20\nspawn 2 1 2",
    )
    .unwrap();
    apply_ops(&mut ed, &ops, 1_000_000).unwrap();
    let p = dir.join("level.vwr");
    ed.world().save(&p).unwrap();
    p
}

/// What `voxcaf world edit` computes for a script: the library path it uses.
fn edited_like_cli(original: &[u8], script: &str) -> Vec<u8> {
    let mut ed = Editor::new(World::from_bytes(original).unwrap());
    let ops = parse_text("cli", script).unwrap();
    apply_ops(&mut ed, &ops, 1_000_000).unwrap();
    ed.world().to_bytes()
}

/// One line of every operation of the edit language.
const EVERY_OP: &[&str] = &[
    "box 20 1 20 25 3 25 rockpile",
    "hollow 26 1 26 30 5 30 glass",
    "walls 0 1 30 8 3 38 brickwall",
    "fill 10 1 10 water 6 1 6 14 2 14 limit 500",
    "brush sphere 30 8 10 3 lava",
    "brush cube 10 8 30 2 grass",
    "replace stone 35:1 0 0 0 4 0 4",
    "place 1 1 1 35",
    "erase 5 1 5",
    "copy 5 1 5 15 4 15\npaste 22 1 5 rot 90 mirror x",
    "cut 26 1 26 30 5 30\npaste 31 1 31 noair",
    "object add exit 35 1 35 speed=2 advance=30 recede=20 stop-start=10 stop-end=5 icon=3",
    "object move 20 1 20 21 1 21",
    "object remove 35 1 35",
    "decor 3 1 3 12",
    "decor remove 3 1 3",
    "plate 2 0 2 on",
    "spawn 4 1 4",
    "sky 7",
    "mission 3",
];

#[test]
fn every_operation_matches_world_edit_and_undoes_to_the_original_bytes() {
    let (_dir, file, s, c) = serve_new(level);
    let original = std::fs::read(&file).unwrap();
    for op in EVERY_OP {
        let v = c.ok("/api/ops", op);
        assert_eq!(v["ok"], true);
        assert!(!v["ops"].as_array().unwrap().is_empty(), "{op}: {v}");
    }
    let all = EVERY_OP.join("\n");
    let expected = edited_like_cli(&original, &all);
    let saved = c.ok("/api/save", "");
    assert_eq!(saved["written"], true);
    assert_eq!(
        std::fs::read(&file).unwrap(),
        expected,
        "API edits differ from world edit"
    );
    assert_eq!(std::fs::read(backup_path(&file)).unwrap(), original);
    assert!(!journal_path(&file).exists());

    // Undo everything: byte-identical to the original; redo everything: to the edited world.
    let depth = c.get("/api/world").json()["undo_depth"].as_u64().unwrap();
    assert!(depth >= EVERY_OP.len() as u64);
    for _ in 0..depth {
        assert!(!c.ok("/api/undo", "")["change"].is_null());
    }
    assert!(c.ok("/api/undo", "")["change"].is_null(), "nothing left");
    assert_eq!(s.with_session(|s| s.world().to_bytes()), original);
    c.ok("/api/save", "");
    assert_eq!(std::fs::read(&file).unwrap(), original);
    for _ in 0..depth {
        assert!(!c.ok("/api/redo", "")["change"].is_null());
    }
    assert!(c.ok("/api/redo", "")["change"].is_null());
    assert_eq!(s.with_session(|s| s.world().to_bytes()), expected);
    s.shutdown().unwrap();
}

#[test]
fn a_refused_script_changes_nothing() {
    let (_dir, _file, s, c) = serve_new(level);
    c.ok("/api/ops", "place 1 1 1 35");
    let before = s.with_session(|s| s.world().to_bytes());
    // The second line is outside the world: the first must not stay applied.
    let r = c.post("/api/ops", "box 0 1 0 9 9 9 lava\nplace 500 1 1 35");
    assert_eq!(r.status, 400);
    let e = r.json();
    assert_eq!(e["ok"], false);
    assert_eq!(e["error"]["lines"][0]["line"], 2, "{e}");
    assert_eq!(s.with_session(|s| s.world().to_bytes()), before);
    let w = c.get("/api/world").json();
    assert_eq!(w["undo_depth"], 1);
    // Malformed lines are all reported, nothing applied.
    let r = c.post("/api/ops", "plaice 1 1 1 35\nbox 1 2\nplace 2 2 2 35");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["lines"].as_array().unwrap().len(), 2);
    assert_eq!(s.with_session(|s| s.world().to_bytes()), before);
    assert_eq!(c.post("/api/ops", "  # only a comment").status, 400);
    s.shutdown().unwrap();
}

#[test]
fn edits_answer_the_changed_chunks_including_neighbours_across_borders() {
    let (_dir, _file, s, c) = serve_new(level);
    let all = c.get("/api/chunks?since=0");
    assert_eq!(all.status, 200);
    assert_eq!(&all.body[..4], vwr_serve::wire::MAGIC);
    let epoch = u32::from_le_bytes(all.body[4..8].try_into().unwrap());
    let count = u32::from_le_bytes(all.body[8..12].try_into().unwrap());
    assert!(count >= 16, "the 40x40 floor spans 16 chunks, got {count}");
    // A block on the floor at x = 9 (the last column of chunk 0): its shadow (AO) reaches the
    // floor of chunk 1.
    let v = c.ok("/api/ops", "place 9 1 25 35");
    let changed: Vec<[u32; 3]> = serde_json::from_value(v["changed_chunks"].clone()).unwrap();
    assert!(changed.contains(&[0, 0, 2]), "{changed:?}");
    assert!(changed.contains(&[1, 0, 2]), "{changed:?}");
    assert!(changed.len() <= 8, "only the neighbourhood: {changed:?}");
    // Only those come back since the previous epoch.
    let since = c.get(&format!("/api/chunks?since={epoch}"));
    let n = u32::from_le_bytes(since.body[8..12].try_into().unwrap());
    assert_eq!(n as usize, changed.len());
    // A metadata-only edit changes no mesh.
    let v = c.ok("/api/ops", "sky 3");
    assert_eq!(v["changed_chunks"].as_array().unwrap().len(), 0);
    s.shutdown().unwrap();
}

#[test]
fn world_summary_layer_map_blocks_and_chunk_stats() {
    let (_dir, _file, s, c) = serve_new(level);
    let w = c.get("/api/world").json();
    assert_eq!(w["block_dims"], serde_json::json!([100, 100, 100]));
    assert_eq!(w["spawn"], serde_json::json!([2, 1, 2]));
    assert_eq!(w["objects"][0]["type"], 1);
    assert_eq!(w["objects"][0]["end"], serde_json::json!([20.0, 6.0, 20.0]));
    assert!(w["recovery"].is_null());
    let l = c.get("/api/layer?y=1").json();
    assert_eq!(l["width"], 100);
    let rows = l["rows"].as_array().unwrap();
    let brick = vwr_blocks::default_registry()
        .id_by_name("brickwall")
        .unwrap();
    assert_eq!(rows[5][5], brick << 4);
    assert_eq!(rows[10][10], 0);
    assert_eq!(c.get("/api/layer?y=100").status, 400);
    assert_eq!(c.get("/api/layer?y=abc").status, 400);
    // A region, corners in any order and clamped to the world: the same cells.
    let r = c.get("/api/layer?y=1&x0=7&z0=95&x1=3&z1=120").json();
    assert_eq!(
        [&r["x0"], &r["z0"], &r["width"], &r["depth"]],
        [3, 95, 5, 5].map(serde_json::Value::from).each_ref()
    );
    for (dz, row) in r["rows"].as_array().unwrap().iter().enumerate() {
        let row = row.as_array().unwrap();
        assert_eq!(row.len(), 5);
        for (dx, v) in row.iter().enumerate() {
            assert_eq!(*v, rows[95 + dz][3 + dx], "cell ({}, {})", 3 + dx, 95 + dz);
        }
    }
    // A region outside the world, or given by half its corners, is refused and says why.
    for (q, says) in [
        (
            "x0=100&z0=0&x1=120&z1=5",
            "outside the world's 100×100 columns",
        ),
        (
            "x0=-9&z0=-9&x1=-1&z1=50",
            "outside the world's 100×100 columns",
        ),
        ("x0=1&z0=1", "needs all of x0, z0, x1 and z1"),
    ] {
        let r = c.get(&format!("/api/layer?y=1&{q}"));
        assert_eq!(r.status, 400, "{q}");
        let e = r.json();
        assert_eq!(e["error"]["kind"], "range", "{q}: {e}");
        let message = e["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{q}: {message}");
    }
    let b = c.get("/api/blocks").json();
    assert!(b["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["type"] == brick && x["used"] == true));
    assert!(b["object_types"].as_array().unwrap().len() > 5);
    let st = c.get("/api/chunk-stats").json();
    let list = st["chunks"].as_array().unwrap();
    assert!(list
        .iter()
        .any(|x| x["pos"] == serde_json::json!([0, 0, 0]) && x["uniform"] == false));
    s.shutdown().unwrap();
}

#[test]
fn the_page_is_es_modules_served_under_the_token_with_a_strict_csp() {
    let (_dir, _file, s, c) = serve_new(level);
    let page = c.get("/");
    assert_eq!(page.status, 200);
    let csp = page.header("content-security-policy").unwrap().to_string();
    assert!(csp.contains("script-src 'self';"), "{csp}");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    let html = String::from_utf8(page.body).unwrap();
    let base = format!("/page/{}/", c.token);
    let entry = format!(r#"<script type="module" src="{base}main.js"></script>"#);
    assert!(html.contains(&entry), "{html}");
    assert!(!html.contains("/*BASE*/") && !html.contains("<script>"));
    // Every file of assets/ is served as it is, with its type; the browser fetches them (and
    // the modules' relative imports) without a header: the token is in the path.
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mut modules = 0;
    for e in std::fs::read_dir(&assets).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name == "index.html" {
            continue;
        }
        let r = request(c.addr, "GET", &format!("{base}{name}"), &[], b"");
        assert_eq!(r.status, 200, "{name}");
        assert_eq!(r.body, std::fs::read(assets.join(&name)).unwrap(), "{name}");
        let ty = r.header("content-type").unwrap();
        if name.ends_with(".js") {
            assert_eq!(ty, "text/javascript; charset=utf-8", "{name}");
            modules += 1;
            // Its imports are files of the page.
            let text = String::from_utf8(r.body).unwrap();
            for import in text.split("from './").skip(1) {
                let target = &import[..import.find('\'').unwrap()];
                assert!(assets.join(target).is_file(), "{name} imports {target}");
            }
        } else {
            assert!(ty.starts_with("text/css"), "{name}: {ty}");
        }
    }
    assert!(modules >= 8, "the page is split into modules: {modules}");
    let get = |path: &str| request(c.addr, "GET", path, &[], b"").status;
    assert_eq!(get("/page/0123/main.js"), 401, "a wrong token in the path");
    assert_eq!(get(&format!("{base}nothing.js")), 404);
    assert_eq!(get(&format!("{base}..%2Fsrc%2Flib.rs")), 404);
    s.shutdown().unwrap();
}

#[test]
fn token_origin_and_host_are_checked() {
    let (_dir, _file, s, c) = serve_new(level);
    let a = c.addr;
    let tok = c.token.clone();
    let get = |path: &str, h: &[(&str, &str)]| request(a, "GET", path, h, b"").status;
    assert_eq!(get("/api/world", &[]), 401, "no token");
    assert_eq!(get("/api/world?token=nope", &[]), 401, "wrong token");
    assert_eq!(get("/api/world", &[("X-Voxcaf-Token", "x")]), 401);
    assert_eq!(get(&format!("/api/world?token={tok}"), &[]), 200);
    assert_eq!(get("/api/world", &[("X-Voxcaf-Token", &tok)]), 200);
    assert_eq!(get("/", &[]), 401, "the page needs the token too");
    assert_eq!(get(&format!("/?token={tok}"), &[]), 200);
    // DNS rebinding: a foreign Host is refused even with the token.
    let t = [("X-Voxcaf-Token", tok.as_str())];
    let with = |extra: (&str, &str)| {
        let h = [t[0], extra];
        request(a, "POST", "/api/ops", &h, b"place 1 1 1 35").status
    };
    assert_eq!(with(("Host", "evil.example:80")), 403);
    assert_eq!(with(("Host", &format!("evil.example:{}", a.port()))), 403);
    assert_eq!(with(("Origin", "http://evil.example")), 403);
    assert_eq!(
        with(("Origin", &format!("https://127.0.0.1:{}", a.port()))),
        403
    );
    assert_eq!(with(("Origin", "null")), 403);
    assert_eq!(
        with(("Host", &format!("localhost:{}", a.port()))),
        200,
        "localhost names the same server"
    );
    assert_eq!(with(("Origin", &format!("http://{a}"))), 200);
    // Nothing of the refused requests was applied: two accepted places of the same block.
    assert_eq!(c.get("/api/world").json()["undo_depth"], 1);
    s.shutdown().unwrap();
}

#[test]
fn oversized_requests_and_fills_are_refused() {
    let (_dir, _file, s, c) = serve_new(level);
    let big = "place 1 1 1 35\n".repeat(30_000); // 450 KB > 256 KiB
    let r = c.post("/api/ops", &big);
    assert_eq!(r.status, 413);
    let r = c.post("/api/ops", "fill 50 50 50 water limit 999999999");
    assert_eq!(r.status, 413);
    assert_eq!(r.json()["error"]["kind"], "limit");
    // The default limit stops a flood of the open air (1 M cells minus the level) cleanly.
    let r = c.post("/api/ops", "fill 50 50 50 water limit 1000");
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(s.with_session(|s| s.editor().history().undo_depth()), 0);
    s.shutdown().unwrap();
}

#[test]
fn the_journal_keeps_unsaved_edits_and_is_offered_on_the_next_start() {
    let (_dir, file, s, c) = serve_new(level);
    let original = std::fs::read(&file).unwrap();
    c.ok("/api/ops", "box 0 1 0 3 3 3 lava");
    let edited = s.with_session(|s| s.world().to_bytes());
    // Shutting down brings the journal up to date; the file itself is untouched.
    s.shutdown().unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), original);
    assert_eq!(std::fs::read(journal_path(&file)).unwrap(), edited);

    // Next start: offered; discarding keeps the file as saved.
    let (s, c) = serve(&file);
    let w = c.get("/api/world").json();
    assert!(!w["recovery"].is_null(), "{w}");
    assert_eq!(c.post("/api/recover", "").status, 200);
    assert_eq!(s.with_session(|s| s.world().to_bytes()), edited);
    assert_eq!(c.post("/api/recover", "").status, 409, "only once");
    c.ok("/api/save", "");
    assert_eq!(std::fs::read(&file).unwrap(), edited);
    assert!(!journal_path(&file).exists());
    s.shutdown().unwrap();

    // Discarding.
    std::fs::write(journal_path(&file), &original).unwrap();
    let (s, c) = serve(&file);
    assert!(!c.get("/api/world").json()["recovery"].is_null());
    c.ok("/api/discard-journal", "");
    assert!(!journal_path(&file).exists());
    assert_eq!(s.with_session(|s| s.world().to_bytes()), edited);
    s.shutdown().unwrap();

    // A journal equal to the file is simply removed; a broken one can be discarded.
    std::fs::write(journal_path(&file), &edited).unwrap();
    let (s, c) = serve(&file);
    assert!(c.get("/api/world").json()["recovery"].is_null());
    assert!(!journal_path(&file).exists());
    s.shutdown().unwrap();
    std::fs::write(journal_path(&file), b"not a world").unwrap();
    let (s, c) = serve(&file);
    assert_eq!(c.post("/api/recover", "").status, 400);
    c.ok("/api/discard-journal", "");
    s.shutdown().unwrap();
}

#[test]
fn autosave_writes_only_the_journal_and_removes_it_when_edits_are_undone() {
    let dir = tempfile::tempdir().unwrap();
    let file = level(dir.path());
    let original = std::fs::read(&file).unwrap();
    // No timer: this test calls autosave itself.
    let opts = ServerOptions {
        autosave_every: std::time::Duration::from_secs(3600),
        ..Default::default()
    };
    let (s, c) = common::options_serve(&file, opts);
    c.ok("/api/ops", "place 1 1 1 lava");
    assert!(s.with_session(|s| s.autosave()).unwrap());
    assert!(journal_path(&file).exists());
    assert!(!backup_path(&file).exists());
    c.ok("/api/undo", "");
    assert!(s.with_session(|s| s.autosave()).unwrap());
    assert!(!journal_path(&file).exists(), "back to the saved world");
    assert!(!s.with_session(|s| s.autosave()).unwrap(), "nothing new");
    s.shutdown().unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), original);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["level.vwr"], "nothing else written");
}

#[test]
fn opening_a_missing_or_broken_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let e = start(&dir.path().join("none.vwr"), ServerOptions::default()).unwrap_err();
    assert_eq!(e.kind(), "io");
    let bad = dir.path().join("bad.vwr");
    std::fs::write(&bad, b"VWR?garbage").unwrap();
    let e = start(&bad, ServerOptions::default()).unwrap_err();
    assert_eq!(e.kind(), "world");
    assert!(e.to_string().contains("bad.vwr"), "{e}");
}

#[test]
fn play_test_walks_the_edited_level() {
    let (_dir, _file, s, c) = serve_new(level);
    assert_eq!(c.post("/api/play/step", "").status, 400, "not started");
    // A wall in front of the spawn (2, 1, 2), added before playing: the walk stops at it.
    c.ok("/api/ops", "box 0 1 6 10 3 6 brickwall");
    let st = c.ok("/api/play/start", "");
    assert_eq!(st["tick"], 0);
    let z0 = st["player"]["min"][2].as_f64().unwrap();
    let st = c.ok("/api/play/step?keys=forward&ticks=60", "");
    assert_eq!(st["tick"], 60);
    let z1 = st["player"]["max"][2].as_f64().unwrap();
    assert!(z1 > z0 + 1.0, "walked: {z0} -> {z1}");
    assert!(z1 <= 6.0 + 1e-9, "stopped by the wall at z = 6: {z1}");
    assert!(st["on_ground"].as_bool().unwrap());
    // Jumping lifts the player off the ground.
    let st = c.ok("/api/play/step?keys=jump%2Bback&ticks=3", "");
    assert!(!st["on_ground"].as_bool().unwrap());
    assert_eq!(st["objects"][0]["kind"], "lift");
    assert_eq!(c.post("/api/play/step?keys=fly", "").status, 400);
    assert_eq!(c.post("/api/play/step?ticks=100000", "").status, 400);
    assert_eq!(c.ok("/api/play/stop", "")["stopped"], true);
    // Playing never edits the world.
    assert_eq!(c.get("/api/world").json()["undo_depth"], 1);
    s.shutdown().unwrap();
}

#[test]
fn the_session_answers_typed_values_that_serialize_to_the_http_answers() {
    let (_dir, _file, s, c) = serve_new(level);
    // What the HTTP layer sends is the session's typed answer, serialized.
    let summary = s.with_session(|s| s.summary_with_state());
    assert_eq!(
        serde_json::to_value(&summary).unwrap(),
        c.get("/api/world").json()
    );
    assert_eq!(summary.objects[0].object_type, 1);
    assert_eq!(summary.objects[0].end, [20.0, 6.0, 20.0]);
    let a = s
        .with_session(|s| s.apply_script("place 1 1 1 35\ncopy 0 0 0 1 1 1"))
        .unwrap();
    assert_eq!(a.ops.len(), 2);
    assert_eq!(a.ops[0].change.cells, 1);
    assert!(a.ops[1]
        .note
        .as_deref()
        .unwrap()
        .starts_with("copied 2x2x2"));
    assert_eq!((a.state.undo_depth, a.state.world.undo_depth), (1, 1));
    // The common fields of an edit sit beside the request's own ones, as the page reads them.
    let v = serde_json::to_value(&a).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["ops"][0]["label"], a.ops[0].change.label.as_str());
    assert_eq!(
        v["changed_chunks"],
        serde_json::json!(a.state.changed_chunks)
    );
    let u = s.with_session(|s| s.undo());
    assert!(u.change.is_some());
    assert_eq!((u.state.undo_depth, u.state.redo_depth), (0, 1));
    let none = s.with_session(|s| s.undo());
    assert!(none.change.is_none());
    assert!(serde_json::to_value(&none).unwrap()["change"].is_null());
    s.shutdown().unwrap();
}

/// Nothing may frame the editor; every refusal is the documented JSON shape, also those the
/// HTTP layer makes itself; `allow_hosts` admits a name others reach the machine by.
#[test]
fn frames_are_refused_every_refusal_is_json_and_an_allowed_host_is_admitted() {
    let dir = tempfile::tempdir().unwrap();
    let file = level(dir.path());
    let opts = ServerOptions {
        allow_hosts: vec!["build-pc.lan".into()],
        ..ServerOptions::default()
    };
    let (s, c) = common::options_serve(&file, opts);
    let page = c.get(&format!("/?token={}", c.token));
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    assert!(page
        .header("content-security-policy")
        .is_some_and(|p| p.contains("frame-ancestors 'none'")));
    for (method, path, body) in [
        ("GET", "/api/nope", "".to_string()),
        ("GET", "/api/layer?y=high", "".to_string()),
        ("GET", "/api/ops", "".to_string()),
        ("POST", "/api/ops", "place 1 1 1 35\n".repeat(30_000)),
    ] {
        let t = [("X-Voxcaf-Token", c.token.as_str())];
        let r = request(c.addr, method, path, &t, body.as_bytes());
        assert!(r.status >= 400, "{method} {path}: {}", r.status);
        let j = r.json();
        assert_eq!(j["ok"], false, "{method} {path}");
        assert!(j["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
        assert_eq!(r.header("x-frame-options"), Some("DENY"), "{method} {path}");
    }
    // The allowed name is admitted; another still is not.
    let port = c.addr.port();
    let host = |h: String| {
        let hdr = [("X-Voxcaf-Token", c.token.as_str()), ("Host", h.as_str())];
        request(c.addr, "GET", "/api/world", &hdr, b"").status
    };
    assert_eq!(host(format!("build-pc.lan:{port}")), 200);
    assert_eq!(host(format!("other.lan:{port}")), 403);
    s.shutdown().unwrap();
}

/// What a reloaded page asks first says whether the session holds unsaved edits, so the page
/// never shows "saved" over them.
#[test]
fn the_world_summary_says_when_edits_are_unsaved() {
    let (_dir, _file, s, c) = serve_new(level);
    assert_eq!(c.get("/api/world").json()["modified"], false);
    c.ok("/api/ops", "place 1 1 1 35");
    assert_eq!(c.get("/api/world").json()["modified"], true);
    c.ok("/api/save", "");
    assert_eq!(c.get("/api/world").json()["modified"], false);
    s.shutdown().unwrap();
}
