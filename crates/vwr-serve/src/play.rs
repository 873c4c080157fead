//! Play-test mode: the `vwr-play` level loop run by the server on the edited world, stepped
//! by the page (`POST /api/play/step`), so a designer walks the level between edits.

use vwr_play::{Event, Game, Input, Level};

use crate::answer::{BoxInfo, PlayEvent, PlayObject, PlayState, Success};

/// Most ticks one step request may play (10 s at 20 ticks per second).
pub const MAX_STEP_TICKS: u32 = 200;

/// A running play test.
#[derive(Debug)]
pub struct PlayTest {
    game: Game,
}

impl PlayTest {
    /// A play test of `world` from its spawn point.
    pub fn new(world: &vwr::World, registry: &vwr_blocks::Registry) -> Result<PlayTest, String> {
        let level = Level::new(world, registry).map_err(|e| e.to_string())?;
        Ok(PlayTest {
            game: Game::new(level),
        })
    }

    /// Plays `ticks` ticks holding `keys` (`-`, or buttons joined by `+`: `left`, `right`,
    /// `forward`, `back`, `jump`, or `l r f b j`); returns the state and the events.
    pub fn step(&mut self, keys: &str, ticks: u32) -> Result<PlayState, String> {
        let input = Input::parse(keys).ok_or_else(|| {
            format!(
                "unknown buttons {keys:?}: use - or left, right, forward, back, jump joined by +"
            )
        })?;
        if ticks > MAX_STEP_TICKS {
            return Err(format!(
                "{ticks} ticks in one step; at most {MAX_STEP_TICKS}"
            ));
        }
        let mut events = Vec::new();
        for _ in 0..ticks {
            events.extend(self.game.step(input).iter().map(event));
        }
        Ok(self.state(events))
    }

    /// The state: tick, player box, velocity, objects, and `events` (those of the last step).
    pub fn state(&self, events: Vec<PlayEvent>) -> PlayState {
        let g = &self.game;
        let p = g.player();
        let tick = g.tick();
        let objects = g
            .level()
            .objects
            .list()
            .iter()
            .map(|o| {
                let b = o.aabb(tick);
                PlayObject {
                    kind: o.kind.as_str(),
                    min: b.min,
                    max: b.max,
                    collected: g.is_collected(o.index),
                }
            })
            .collect();
        PlayState {
            ok: Success,
            tick,
            player: BoxInfo {
                min: p.min,
                max: p.max,
            },
            velocity: g.velocity(),
            on_ground: g.on_ground(),
            complete: g.is_complete(),
            deaths: g.deaths(),
            collected: g.collected_count(),
            objects,
            events,
        }
    }
}

fn event(e: &Event) -> PlayEvent {
    PlayEvent {
        name: e.name(),
        tick: e.tick(),
    }
}
