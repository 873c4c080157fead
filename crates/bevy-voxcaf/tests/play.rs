//! The gameplay plugin headless: the showcase level played through the plugin, one tick per
//! update, gives the events, position and ending the library's own level loop gives for the
//! same buttons; an edit under the player is felt at once (the collision view follows the
//! world).

use std::time::Duration;

use bevy::app::App;
use bevy::asset::{Assets, Handle};
use bevy::ecs::message::Messages;
use bevy::prelude::{Entity, Transform};
use bevy::time::TimeUpdateStrategy;
use bevy_voxcaf::vwr_play::{Event, Game, Input, InputScript, Level};
use bevy_voxcaf::{headless_app, load_now, PlayEvent, PlayInput, PlayState, VoxPlayer, VoxWorld};

const WAIT: Duration = Duration::from_secs(60);

/// A headless app with the play plugin, one tick (50 ms) per update, and the showcase level
/// loaded with a player on it; the player's entity once its game has started.
fn showcase_app(dir: &std::path::Path) -> (App, Handle<VoxWorld>, Entity) {
    let world = vwr::samples::showcase().unwrap();
    std::fs::write(dir.join("showcase.vwr"), world.to_bytes()).unwrap();
    let mut app = headless_app(dir);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        50,
    )));
    let h = load_now::<VoxWorld>(&mut app, "showcase.vwr", WAIT).unwrap();
    let player = app.world_mut().spawn(VoxPlayer { world: h.clone() }).id();
    for _ in 0..10 {
        if app.world().get::<PlayState>(player).is_some() {
            break;
        }
        app.update();
    }
    assert!(app.world().get::<PlayState>(player).is_some(), "no game");
    (app, h, player)
}

fn game(app: &App, player: Entity) -> &Game {
    &app.world().get::<PlayState>(player).unwrap().game
}

#[test]
fn the_showcase_plays_through_the_plugin_as_through_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _, player) = showcase_app(dir.path());
    // The ticks the plugin played while the game started, with no button held.
    let before = game(&app, player).tick();
    let script = InputScript::parse(bevy_voxcaf::vwr_play::SHOWCASE_SCRIPT).unwrap();
    let mut cursor = app
        .world()
        .resource::<Messages<PlayEvent>>()
        .get_cursor_current();
    let mut seen: Vec<Event> = Vec::new();
    for input in script.inputs() {
        app.world_mut().resource_mut::<PlayInput>().0 = input;
        app.update();
        let msgs = app.world().resource::<Messages<PlayEvent>>();
        seen.extend(cursor.read(msgs).map(|m| {
            assert_eq!(m.player, player);
            m.event
        }));
    }

    // The library, with the same buttons.
    let world = vwr::samples::showcase().unwrap();
    let level = Level::new(&world, &vwr_blocks::Registry::default()).unwrap();
    let mut lib = Game::new(level);
    for _ in 0..before {
        lib.step(Input::NONE);
    }
    let mut want = Vec::new();
    for input in script.inputs() {
        want.extend_from_slice(lib.step(input));
    }
    let g = game(&app, player);
    assert_eq!(g.tick(), lib.tick());
    assert_eq!(seen, want);
    assert!(g.is_complete(), "the exit is reached through the plugin");
    assert!(seen.iter().any(|e| matches!(e, Event::ReachedExit { .. })));
    assert_eq!(g.player(), lib.player());
    let at = app.world().get::<Transform>(player).unwrap().translation;
    let [x, y, z] = lib.player().feet();
    assert_eq!(at.to_array(), [x as f32, y as f32, z as f32]);
}

#[test]
fn an_edit_under_the_player_is_felt_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, h, player) = showcase_app(dir.path());
    for _ in 0..20 {
        app.update();
    }
    let g = game(&app, player);
    assert!(g.on_ground());
    let [x, y, z] = g.player().feet();
    let (x, y, z) = (x.floor() as i32, y.round() as i32, z.floor() as i32);
    // Dig out everything under the player.
    let mut worlds = app.world_mut().resource_mut::<Assets<VoxWorld>>();
    worlds.get_mut(&h).unwrap().edit(|w| {
        w.fill_box([x - 2, 0, z - 2], [x + 2, y - 1, z + 2], vwr::Block::AIR)
            .unwrap();
    });
    for _ in 0..5 {
        app.update();
    }
    let g = game(&app, player);
    assert!(!g.on_ground());
    assert!(
        g.player().feet()[1] < f64::from(y) - 0.1,
        "{:?}",
        g.player().feet()
    );
}
