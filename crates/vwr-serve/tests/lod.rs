//! `GET /api/lod`: the levels of detail of the world as edited, meshed closed, in the binary
//! chunk answer; after an edit, `since` answers only the level chunks that changed.

mod common;

use common::{serve_new, Client};
use vwr::World;
use vwr_mesh::lod::{mesh_chunk_closed, CLOSED};
use vwr_serve::wire;

/// The epoch of an answer.
fn epoch_of(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[4..8].try_into().unwrap())
}

/// What `/api/lod?level=k` must answer for `world` at `epoch`: every non-empty closed mesh
/// of level k as `vwr::lod::build_levels` and `vwr_mesh::lod::mesh_chunk_closed` make it, or
/// (with `only`) just those chunks, empty ones included.
fn expected(world: &World, k: u8, epoch: u32, only: Option<&[[u32; 3]]>) -> Vec<u8> {
    let reg = vwr_blocks::default_registry();
    let levels = vwr::lod::build_levels(world, k).unwrap();
    let level = &levels[usize::from(k) - 1];
    let opts = vwr_mesh::MeshOptions::GREEDY_AO;
    let mut list: Vec<[u32; 3]> = match only {
        Some(l) => l.to_vec(),
        None => level.chunks().map(|(p, _)| p).collect(),
    };
    list.sort_by_key(|p| [p[2], p[1], p[0]]);
    let meshes: Vec<_> = list
        .iter()
        .map(|p| (*p, mesh_chunk_closed(level, reg, *p, k, CLOSED, opts)))
        .filter(|(_, m)| only.is_some() || !m.is_empty())
        .collect();
    let chunks: Vec<_> = meshes
        .iter()
        .map(|(p, m)| (*p, (!m.is_empty()).then_some(m)))
        .collect();
    wire::lod_answer(epoch, k, &chunks, reg)
}

/// The chunks of an answer: position and flags (none carries block values).
fn headers(bytes: &[u8]) -> Vec<([u32; 3], u32)> {
    wire::decode_chunks(bytes)
        .unwrap()
        .into_iter()
        .map(|(p, flags, b)| {
            assert!(b.is_none(), "a level chunk carries no block values");
            (p, flags)
        })
        .collect()
}

fn lod(c: &Client, level: &str, since: u32) -> Vec<u8> {
    let r = c.get(&format!("/api/lod?level={level}&since={since}"));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("content-type"), Some("application/octet-stream"));
    r.body
}

#[test]
fn levels_of_detail_are_served_closed_and_follow_edits() {
    let (_dir, _file, server, owner) = serve_new(|d| {
        let p = d.join("hills.vwr");
        common::hilly_terrain_sized([8, 5, 8]).save(&p).unwrap();
        p
    });
    let world = server.with_session(|s| s.world().clone());
    for k in 1..=vwr_serve::LOD_MAX_LEVEL {
        let got = lod(&owner, &k.to_string(), 0);
        let epoch = epoch_of(&got);
        assert_eq!(got, expected(&world, k, epoch, None), "level {k}");
        let heads = headers(&got);
        assert!(!heads.is_empty(), "level {k} draws something");
        for (p, flags) in &heads {
            assert_eq!((flags >> 8) & 15, u32::from(k), "chunk {p:?}: its level");
            assert_ne!(flags & 4, 0, "chunk {p:?}: an opaque pass");
        }
        println!(
            "level {k}: {} chunks, {} bytes (level 0: 320 chunks)",
            heads.len(),
            got.len()
        );
    }
    // A one-block edit: only the level chunks holding it come back, at most one per level.
    let before = epoch_of(&lod(&owner, "2", 0));
    let r = owner.ok("/api/ops", "box 41 0 41 41 45 41 brickwall");
    assert!(r["epoch"].as_u64().unwrap() > u64::from(before));
    let world = server.with_session(|s| s.world().clone());
    for k in 1..=3u8 {
        let got = lod(&owner, &k.to_string(), before);
        let mut ys: Vec<[u32; 3]> = headers(&got).iter().map(|(p, _)| *p).collect();
        ys.sort();
        // The column spans 46 blocks: the level chunks it crosses, each at most once.
        let side = 10u32 << k;
        let expect: Vec<[u32; 3]> = (0..=45 / side).map(|y| [41 / side, y, 41 / side]).collect();
        assert!(
            ys.iter().all(|p| expect.contains(p)),
            "level {k}: {ys:?} not within {expect:?}"
        );
        assert!(!ys.is_empty(), "level {k}: the edit shows");
        assert_eq!(
            got,
            expected(&world, k, epoch_of(&got), Some(&ys)),
            "level {k} after the edit"
        );
        // Asked again since then: nothing.
        let again = lod(&owner, &k.to_string(), epoch_of(&got));
        assert!(headers(&again).is_empty(), "level {k}: nothing new");
    }
    // Undo: the same chunks again, back as they were.
    owner.ok("/api/undo", "");
    let at = epoch_of(&lod(&owner, "1", 0));
    let got = lod(&owner, "1", at - 1);
    let ys: Vec<[u32; 3]> = headers(&got).iter().map(|(p, _)| *p).collect();
    let world = server.with_session(|s| s.world().clone());
    assert_eq!(got, expected(&world, 1, epoch_of(&got), Some(&ys)));
    server.shutdown().unwrap();
}

#[test]
fn levels_of_detail_are_for_any_token_and_bad_levels_are_refused_clearly() {
    let (_dir, _file, server, owner) = serve_new(common::v3_level);
    let r = owner.ok("/api/invite", r#"{"role": "view", "name": "Vera"}"#);
    let viewer = Client {
        addr: owner.addr,
        token: r["token"].as_str().unwrap().to_string(),
    };
    assert!(!headers(&lod(&viewer, "1", 0)).is_empty());
    for (q, says) in [
        ("level=0", "there is no level of detail 0"),
        ("level=4", "there is no level of detail 4"),
        (
            "level=99999999999",
            "there is no level of detail 99999999999",
        ),
        ("level=x", "level \"x\" is not a number"),
        ("since=3", "no level given"),
    ] {
        let r = viewer.get(&format!("/api/lod?{q}"));
        assert_eq!(r.status, 400, "{q}");
        let j = r.json();
        let msg = j["error"]["message"].as_str().unwrap();
        assert!(msg.contains(says), "{q}: {msg}");
        assert!(msg.contains("from 1 to 3"), "{q}: {msg}");
        assert_eq!(j["error"]["kind"], "range");
    }
    // No token: refused as everywhere.
    let r = common::request(owner.addr, "GET", "/api/lod?level=1", &[], b"");
    assert_eq!(r.status, 401);
    server.shutdown().unwrap();
}

/// Figures, not assertions: the first request of each level (built and meshed) and a request
/// after a one-block edit, on the 300×100×300 hilly terrain, through the session.
#[test]
fn level_of_detail_figures_on_a_300_wide_terrain() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.vwr");
    common::hilly_terrain_sized([30, 10, 30])
        .save(&file)
        .unwrap();
    let mut s = vwr_serve::Session::open(&file, vwr_serve::SessionOptions::default()).unwrap();
    for k in 1..=vwr_serve::LOD_MAX_LEVEL {
        let t = std::time::Instant::now();
        let a = s.lod_since(k, 0).unwrap();
        let n = headers(&a).len();
        println!(
            "level {k}: {n} chunks, {} bytes, built, meshed and encoded in {:.0} ms",
            a.len(),
            t.elapsed().as_secs_f64() * 1e3
        );
        assert!(n > 0);
    }
    let since = s.epoch();
    s.apply_script("place 150 60 150 brickwall").unwrap();
    let t = std::time::Instant::now();
    let n: Vec<usize> = (1..=3)
        .map(|k| headers(&s.lod_since(k, since).unwrap()).len())
        .collect();
    println!(
        "after a one-block edit: {n:?} level chunks (levels 1–3) in {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    assert!(n.iter().all(|&c| c <= 1), "{n:?}");
}
