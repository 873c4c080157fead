//! The gameplay layer as a plugin: `vwr-play`'s kinematic player and level loop on a loaded
//! [`VoxWorld`]. Spawn an entity with [`VoxPlayer`]; once its world has loaded it gets a
//! [`PlayState`] (the [`Game`]: collision from the block registry, MoveObjects, triggers), is
//! stepped at [`TICKS_PER_SECOND`] with the buttons of [`PlayInput`], its [`Transform`] set to
//! the player's feet each tick, and what happens (collected, died, checkpoint, exit) is sent
//! as [`PlayEvent`] messages. When the world changes (a game's edit, a [`crate::LiveLink`]),
//! the collision view follows.

use bevy::app::{App, Plugin, Update};
use bevy::asset::{AssetId, Assets, Handle};
use bevy::ecs::message::{Message, MessageReader, MessageWriter};
use bevy::ecs::schedule::IntoScheduleConfigs;
use bevy::math::Vec3;
use bevy::prelude::{
    Commands, Component, Entity, Query, Res, ResMut, Resource, Transform, Without,
};
use bevy::time::Time;
use vwr_play::{Event, Game, Input, Level, TICKS_PER_SECOND};

use crate::remesh::{remesh_changed, ChunksRemeshed, VoxRegistry};
use crate::world::VoxWorld;

/// At most this many ticks are played in one update; a longer stall is dropped, not caught up.
const MAX_TICKS_PER_UPDATE: u32 = 5;

/// Adds the level loop (after [`crate::VoxcafPlugin`]).
#[derive(Clone, Copy, Default, Debug)]
pub struct VoxPlayPlugin;

impl Plugin for VoxPlayPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PlayInput>()
            .init_resource::<PlayClock>()
            .add_message::<PlayEvent>()
            .add_systems(
                Update,
                (start_players, step_players).chain().after(remesh_changed),
            );
    }
}

/// A player on a world: its [`Transform`] is the player's feet (bottom centre, blocks as
/// units, in the world's frame).
#[derive(Component, Clone, Debug)]
#[require(Transform)]
pub struct VoxPlayer {
    /// The world played.
    pub world: Handle<VoxWorld>,
}

/// The running level of a [`VoxPlayer`], once its world has loaded.
#[derive(Component, Debug)]
pub struct PlayState {
    /// The level loop: position, collected objects, deaths, whether the exit was reached.
    pub game: Game,
}

/// A [`VoxPlayer`] whose world is not a level (the reason); it is not played.
#[derive(Component, Debug, Clone)]
pub struct PlayRefused(pub String);

/// The buttons held now: set it from the keyboard, a gamepad or a script.
#[derive(Resource, Default, Debug, Clone, Copy)]
pub struct PlayInput(pub Input);

/// Time not yet played (less than a tick).
#[derive(Resource, Default, Debug)]
struct PlayClock {
    carry: f64,
}

/// Something that happened to a player during a tick.
#[derive(Message, Debug, Clone)]
pub struct PlayEvent {
    /// The [`VoxPlayer`] entity.
    pub player: Entity,
    /// What happened.
    pub event: Event,
}

fn feet(game: &Game) -> Vec3 {
    let [x, y, z] = game.player().feet();
    Vec3::new(x as f32, y as f32, z as f32)
}

/// Players not started yet (nor refused).
type Waiting = (Without<PlayState>, Without<PlayRefused>);

/// Gives each [`VoxPlayer`] whose world has loaded its [`PlayState`].
fn start_players(
    mut commands: Commands,
    players: Query<(Entity, &VoxPlayer), Waiting>,
    worlds: Res<Assets<VoxWorld>>,
    registry: Res<VoxRegistry>,
) {
    for (e, p) in &players {
        let Some(w) = worlds.get(&p.world) else {
            continue;
        };
        match Level::new(w.world(), &registry.0) {
            Ok(level) => {
                let game = Game::new(level);
                let at = Transform::from_translation(feet(&game));
                commands.entity(e).insert((PlayState { game }, at));
            }
            Err(err) => {
                tracing::error!("player {e}: the world is not a level: {err}");
                commands.entity(e).insert(PlayRefused(err.to_string()));
            }
        }
    }
}

/// Plays the ticks that the time since the last update holds, for every player.
fn step_players(
    time: Res<Time>,
    mut clock: ResMut<PlayClock>,
    input: Res<PlayInput>,
    worlds: Res<Assets<VoxWorld>>,
    mut remeshed: MessageReader<ChunksRemeshed>,
    mut players: Query<(Entity, &VoxPlayer, &mut PlayState, &mut Transform)>,
    mut out: MessageWriter<PlayEvent>,
) {
    let changed: Vec<AssetId<VoxWorld>> = remeshed.read().map(|m| m.world).collect();
    let tick = 1.0 / f64::from(TICKS_PER_SECOND);
    clock.carry += time.delta_secs_f64();
    let mut ticks = 0;
    while clock.carry >= tick && ticks < MAX_TICKS_PER_UPDATE {
        clock.carry -= tick;
        ticks += 1;
    }
    clock.carry = clock.carry.min(tick);
    for (e, p, mut st, mut at) in &mut players {
        if changed.contains(&p.world.id()) {
            if let Some(w) = worlds.get(&p.world) {
                st.game.refresh(w.world());
            }
        }
        for _ in 0..ticks {
            for event in st.game.step(input.0) {
                out.write(PlayEvent {
                    player: e,
                    event: *event,
                });
            }
        }
        if ticks > 0 {
            at.translation = feet(&st.game);
        }
    }
}
