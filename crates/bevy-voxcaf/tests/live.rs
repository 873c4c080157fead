//! The live link against a real editor (`vwr_serve::start`, as `voxcaf world serve` runs it):
//! a headless game loads the level, links to the editor, and every edit made through the
//! editor's HTTP API reaches the game's world, re-meshed, with its chunk entities spawned or
//! despawned. Prints the latency from the edit's request to the re-meshed chunk.

#![cfg(feature = "live")]

use std::path::Path;
use std::time::{Duration, Instant};

use bevy::app::App;
use bevy::asset::{Assets, Handle};
use bevy::ecs::message::Messages;
use bevy::prelude::Entity;
use bevy_voxcaf::{
    headless_app, load_now, ChunksRemeshed, LinkState, LiveLink, LiveLinkError, SpawnedChunks,
    VoxWorld, VoxWorldRoot,
};
use vwr::{Block, World};

const WAIT: Duration = Duration::from_secs(30);

/// A v3 world of 4×3×4 chunks with a floor three blocks thick, as `level.vwr` in `dir`.
fn level(dir: &Path) {
    let mut w = World::with_chunk_dims([4, 3, 4]).unwrap();
    w.fill_box([0, 0, 0], [39, 2, 39], Block(35 << 4)).unwrap();
    w.save_with(
        dir.join("level.vwr"),
        &vwr::SaveOptions::v3(vwr::Codec::Auto),
    )
    .unwrap();
}

/// POSTs an edit script to the editor.
fn edit(server: &vwr_serve::RunningServer, script: &str) {
    let r = ureq::post(format!("http://{}/api/ops", server.addr()))
        .header("X-Voxcaf-Token", server.token())
        .send(script)
        .unwrap();
    assert_eq!(r.status(), 200, "{script}");
}

/// Updates `app` until `done` says yes.
fn until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    let start = Instant::now();
    while !done(app) {
        assert!(start.elapsed() < WAIT, "{what}: not within {WAIT:?}");
        app.update();
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn state(app: &App) -> LinkState {
    app.world().resource::<LiveLink>().state().clone()
}

fn block(app: &App, h: &Handle<VoxWorld>, p: [i32; 3]) -> Block {
    let worlds = app.world().resource::<Assets<VoxWorld>>();
    worlds.get(h).unwrap().world().get_block(p)
}

fn spawned(app: &mut App, root: Entity) -> usize {
    app.world().get::<SpawnedChunks>(root).unwrap().len()
}

/// Updates until a [`ChunksRemeshed`] names `chunk` as changed; how long that took.
fn remeshed(app: &mut App, chunk: [u32; 3], since: Instant) -> Duration {
    let mut cursor = app
        .world()
        .resource::<Messages<ChunksRemeshed>>()
        .get_cursor_current();
    let mut took = None;
    until(app, "the edited chunk re-meshed", |app| {
        let msgs = app.world().resource::<Messages<ChunksRemeshed>>();
        if cursor.read(msgs).any(|m| m.changed.contains(&chunk)) {
            took = Some(since.elapsed());
        }
        took.is_some()
    });
    took.unwrap()
}

#[test]
fn edits_in_the_editor_are_remeshed_in_the_running_game() {
    let dir = tempfile::tempdir().unwrap();
    level(dir.path());
    let server = vwr_serve::start(&dir.path().join("level.vwr"), Default::default()).unwrap();
    // An edit made before the game links (not saved): the link brings it in on connecting.
    edit(&server, "place 1 3 1 lava");
    let mut app = headless_app(dir.path());
    let h = load_now::<VoxWorld>(&mut app, "level.vwr", WAIT).unwrap();
    assert_eq!(block(&app, &h, [1, 3, 1]), Block::AIR, "the file as saved");
    let root = app.world_mut().spawn(VoxWorldRoot(h.clone())).id();
    let link = LiveLink::connect(&server.url(), h.clone()).unwrap();
    app.insert_resource(link);
    until(&mut app, "linked", |app| state(app) == LinkState::Connected);
    until(&mut app, "the unsaved edit", |app| {
        block(app, &h, [1, 3, 1]) != Block::AIR
    });
    app.update();
    let floor_parts = spawned(&mut app, root);
    assert!(floor_parts >= 16, "{floor_parts} chunk passes of the floor");

    // An edit in a chunk that shows something: its mesh asset is replaced in place.
    let quads = |app: &App| {
        let worlds = app.world().resource::<Assets<VoxWorld>>();
        worlds.get(&h).unwrap().quad_count()
    };
    let before = quads(&app);
    let mut latencies = Vec::new();
    for (i, x) in [5, 15, 25, 35].into_iter().enumerate() {
        let t0 = Instant::now();
        edit(&server, &format!("place {x} 3 {} stone", 5 + i));
        latencies.push(remeshed(&mut app, [x as u32 / 10, 0, 0], t0));
        assert_ne!(block(&app, &h, [x, 3, 5 + i as i32]), Block::AIR);
    }
    assert!(quads(&app) > before);
    app.update();
    assert_eq!(
        spawned(&mut app, root),
        floor_parts,
        "same chunks, meshes replaced"
    );

    // A block in an empty chunk: a new chunk with its entity.
    let t0 = Instant::now();
    edit(&server, "place 12 15 12 stone");
    latencies.push(remeshed(&mut app, [1, 1, 1], t0));
    until(&mut app, "the new chunk's entity", |app| {
        spawned(app, root) == floor_parts + 1
    });
    // Removed again: the chunk empties and its entity goes.
    edit(&server, "erase 12 15 12");
    until(&mut app, "the emptied chunk's entity gone", |app| {
        spawned(app, root) == floor_parts
    });
    assert_eq!(block(&app, &h, [12, 15, 12]), Block::AIR);

    // Objects, spawn and sky: records and fields, no chunk of blocks changes.
    let fields = |app: &App| {
        let w = app.world().resource::<Assets<VoxWorld>>().get(&h).unwrap();
        let stored = w.world().move_objects().unwrap();
        assert_eq!(stored, w.objects, "the records and VoxWorld::objects agree");
        (w.objects.clone(), w.spawn, w.sky_region)
    };
    assert!(fields(&app).0.is_empty());
    edit(
        &server,
        "object add 1 12.5 3 14 end=12.5,9,14 speed=0.25\nspawn 7 3 7\nsky 5",
    );
    until(&mut app, "the object, spawn and sky", |app| {
        let (objects, spawn, sky) = fields(app);
        !objects.is_empty() && spawn == Some([7, 3, 7]) && sky == 5
    });
    let (objects, ..) = fields(&app);
    assert_eq!(objects.len(), 1);
    let (at, m) = &objects[0];
    assert_eq!(
        (*at, m.object_type, m.pos_end, m.speed),
        ([12, 3, 14], 1, [12.5, 9.0, 14.0], 0.25)
    );
    // Moved in the editor: the game's one object moves too.
    edit(&server, "object move 12 3 14 20 3 20");
    until(&mut app, "the object moved", |app| {
        fields(app).0.first().map(|o| o.0) == Some([20, 3, 20])
    });
    assert_eq!(fields(&app).0.len(), 1);
    // Big decorations and the mission number: records and fields too.
    let decor = |app: &App| {
        let w = app.world().resource::<Assets<VoxWorld>>().get(&h).unwrap();
        assert_eq!(w.world().big_decors().unwrap(), w.decors);
        (w.decors.clone(), w.mission)
    };
    edit(&server, "decor 4 3 4 9\nmission 12");
    until(&mut app, "the decoration and the mission", |app| {
        decor(app) == (vec![([4, 3, 4], 9)], 12)
    });
    edit(&server, "decor remove 4 3 4");
    until(&mut app, "the decoration removed", |app| {
        decor(app).0.is_empty()
    });

    // A plate rotation (a record that changes how plates are meshed) reaches the game's
    // world, and its chunk is re-meshed.
    let plate = |app: &App| {
        let w = app.world().resource::<Assets<VoxWorld>>().get(&h).unwrap();
        w.world().plate_rotation([5, 3, 5])
    };
    let t0 = Instant::now();
    edit(&server, "plate 5 3 5 on");
    remeshed(&mut app, [0, 0, 0], t0);
    assert_eq!(plate(&app), Some(true));
    edit(&server, "plate 5 3 5 off");
    until(&mut app, "the plate turned back", |app| {
        plate(app) == Some(false)
    });
    eprintln!("live link: edit request to re-meshed chunk {latencies:?}");
    server.shutdown().unwrap();
    until(&mut app, "the link lost", |app| {
        matches!(state(app), LinkState::Lost(_))
    });
}

#[test]
fn a_wrong_token_is_refused_and_a_bad_url_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    level(dir.path());
    let server = vwr_serve::start(&dir.path().join("level.vwr"), Default::default()).unwrap();
    let mut app = headless_app(dir.path());
    let h = load_now::<VoxWorld>(&mut app, "level.vwr", WAIT).unwrap();
    let url = format!("http://{}/?token=not-the-token", server.addr());
    app.insert_resource(LiveLink::connect(&url, h.clone()).unwrap());
    until(&mut app, "refused", |app| {
        matches!(state(app), LinkState::Refused(_))
    });
    let LinkState::Refused(why) = state(&app) else {
        unreachable!()
    };
    assert!(why.contains("401") || why.contains("403"), "{why}");
    for (url, says) in [
        ("127.0.0.1:80/?token=x", "http://"),
        ("http://127.0.0.1:80/", "token"),
        ("http:///?token=x", "HOST:PORT"),
    ] {
        let e: LiveLinkError = LiveLink::connect(url, h.clone()).err().unwrap();
        assert!(e.to_string().contains(says), "{url}: {e}");
    }
    server.shutdown().unwrap();
}
