//! `voxcaf world ray|sweep|objects|play`: the gameplay layer (`vwr-play`) on a world file.
//!
//! The computing is `vwr_play`'s; this module parses, prints and sets exit codes. The JSON keys
//! of `ray` and `sweep` are a contract (issue 14).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Subcommand;
use serde_json::{json, Value};
use vwr::{Block, MoveObject, World};
use vwr_blocks::Registry;
use vwr_play::{
    raycast, sweep, Aabb, Collider, Death, Event, Game, InputScript, Level, Objects, PlayError,
    RayHit, Sweep,
};

/// Longest run `world play --ticks` accepts (about 6 days of game time at 20 ticks/s).
const MAX_TICKS: u64 = 10_000_000;

#[derive(Subcommand)]
pub enum PlayCmd {
    /// Cast a ray and print the first solid cell it hits (the face entered, the hit point and
    /// the distance along the normalised direction).
    ///
    /// A ray starting inside a solid block hits it at distance 0 with no face. Solidity comes
    /// from the block registry (`--registry` overrides it: `solid = true|false`).
    ///
    /// Examples:
    ///   voxcaf world ray level.vwr --from 50.5,20,50.5 --dir 0,-1,0
    ///   voxcaf world ray level.vwr --from 10,5,10 --dir=-1,0.2,1 --max 30 --json
    #[command(verbatim_doc_comment)]
    Ray {
        /// The .vwr file (`-` reads standard input).
        file: PathBuf,
        /// Ray origin X,Y,Z in blocks.
        #[arg(long, value_name = "X,Y,Z", value_parser = vec3, allow_hyphen_values = true)]
        from: [f64; 3],
        /// Ray direction DX,DY,DZ (any non-zero length).
        #[arg(long, value_name = "DX,DY,DZ", value_parser = vec3, allow_hyphen_values = true)]
        dir: [f64; 3],
        /// Maximum distance (default: to the world's edge).
        #[arg(long, value_name = "D")]
        max: Option<f64>,
        /// Block registry overrides (TOML, see the vwr-blocks docs).
        #[arg(long, value_name = "FILE")]
        registry: Option<PathBuf>,
        /// Print JSON: {"hit": true, "cell", "face", "point", "distance", "block"} or
        /// {"hit": false}.
        #[arg(long)]
        json: bool,
    },
    /// Move a box against the solid cells (move-and-slide in the order Y, X, Z) and print
    /// where it stops, which axes were blocked, and whether it rests on the ground.
    ///
    /// A box that starts overlapping solid cells is reported and not moved.
    ///
    /// Examples:
    ///   voxcaf world sweep level.vwr --box 50.2,5,50.2,50.8,6.8,50.8 --move 0,-10,0
    ///   voxcaf world sweep level.vwr --box 1.2,1,1.2,1.8,2.8,1.8 --move 1000,0,0 --json
    #[command(verbatim_doc_comment)]
    Sweep {
        /// The .vwr file (`-` reads standard input).
        file: PathBuf,
        /// The box X0,Y0,Z0,X1,Y1,Z1 (minimum corner, then maximum corner).
        #[arg(long = "box", value_name = "X0,Y0,Z0,X1,Y1,Z1", value_parser = vec6, allow_hyphen_values = true)]
        aabb: [f64; 6],
        /// The displacement DX,DY,DZ.
        #[arg(long = "move", value_name = "DX,DY,DZ", value_parser = vec3, allow_hyphen_values = true)]
        displacement: [f64; 3],
        /// Block registry overrides (TOML).
        #[arg(long, value_name = "FILE")]
        registry: Option<PathBuf>,
        /// Print JSON: {"box", "blocked", "on_ground", "start_overlaps"}.
        #[arg(long)]
        json: bool,
    },
    /// List the MoveObjects (with their positions at a tick of the 20 Hz patrol cycle) and the
    /// BigDecor records.
    ///
    /// Examples:
    ///   voxcaf world objects level.vwr
    ///   voxcaf world objects level.vwr --tick 200 --json
    #[command(verbatim_doc_comment)]
    Objects {
        /// The .vwr file (`-` reads standard input).
        file: PathBuf,
        /// The tick (20 per second) at which to give the positions.
        #[arg(long, default_value_t = 0)]
        tick: u64,
        /// Block registry overrides (TOML; accepted for symmetry, objects do not use it).
        #[arg(long, value_name = "FILE")]
        registry: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Play the level headless with an input script and print the events (collected, died,
    /// checkpoint, exit) and the final state. Exit code 0 whether or not the exit is reached
    /// (see "complete").
    ///
    /// The player starts at the world's spawn point or, without one, at the default spawn (on
    /// the highest solid cell of the column nearest the world's centre that has one). Script
    /// lines are `TICKS BUTTONS` with buttons left (-x), right (+x), forward (+z), back (-z),
    /// jump joined by `+`, or `-`:
    ///
    ///   # ticks buttons
    ///   100 forward
    ///   20  right+jump
    ///   10  -
    ///
    /// Examples:
    ///   voxcaf world play level.vwr --input run.txt
    ///   voxcaf world play level.vwr --input run.txt --ticks 2000 --json
    #[command(verbatim_doc_comment)]
    Play {
        /// The .vwr file (`-` reads standard input).
        file: PathBuf,
        /// The input script (`-` reads standard input).
        #[arg(long, value_name = "SCRIPT")]
        input: PathBuf,
        /// Ticks to play (default: the script's length; idle after the script ends).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=MAX_TICKS))]
        ticks: Option<u64>,
        /// Block registry overrides (TOML).
        #[arg(long, value_name = "FILE")]
        registry: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

impl PlayCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            PlayCmd::Ray { json, .. }
            | PlayCmd::Sweep { json, .. }
            | PlayCmd::Objects { json, .. }
            | PlayCmd::Play { json, .. } => *json,
        }
    }
}

/// `N` finite numbers separated by commas (`shape` names them).
fn numbers<const N: usize>(s: &str, shape: &str) -> Result<[f64; N], String> {
    let v: [f64; N] = crate::lists::numbers(s, &[','], shape)?;
    match v.iter().position(|x| !x.is_finite()) {
        Some(k) => {
            let part = s.split(',').nth(k).unwrap_or_default().trim();
            Err(format!("{part:?} in {s:?} is not a finite number"))
        }
        None => Ok(v),
    }
}

fn vec3(s: &str) -> Result<[f64; 3], String> {
    numbers::<3>(s, "X,Y,Z")
}

fn vec6(s: &str) -> Result<[f64; 6], String> {
    numbers::<6>(s, "X0,Y0,Z0,X1,Y1,Z1")
}

fn registry(path: Option<&Path>) -> Result<Registry> {
    match path {
        Some(p) => Registry::load_toml(p)
            .with_context(|| format!("reading block registry {}", p.display())),
        None => Ok(Registry::default()),
    }
}

/// A `vwr-play` refusal of a command-line argument is a usage error (exit 2).
fn arg_error(flag: &str, e: PlayError) -> anyhow::Error {
    crate::output::usage(None, format!("{flag}: {e}"))
}

fn load(path: &Path) -> Result<World> {
    crate::world::load(path)
}

fn face_name(f: Option<vwr_play::Face>) -> Value {
    f.map_or(Value::Null, |f| json!(f.as_str()))
}

/// Run one gameplay command; returns the process exit code.
pub fn run(cmd: PlayCmd) -> Result<u8> {
    match cmd {
        PlayCmd::Ray {
            file,
            from,
            dir,
            max,
            registry: reg,
            json,
        } => run_ray(&file, from, dir, max, reg.as_deref(), json),
        PlayCmd::Sweep {
            file,
            aabb,
            displacement,
            registry: reg,
            json,
        } => run_sweep(&file, aabb, displacement, reg.as_deref(), json),
        PlayCmd::Objects {
            file,
            tick,
            registry: reg,
            json,
        } => run_objects(&file, tick, reg.as_deref(), json),
        PlayCmd::Play {
            file,
            input,
            ticks,
            registry: reg,
            json,
        } => run_play(&file, &input, ticks, reg.as_deref(), json),
    }
}

/// `world ray`: checks the direction and the distance, casts the ray and prints the hit.
fn run_ray(
    file: &Path,
    from: [f64; 3],
    dir: [f64; 3],
    max: Option<f64>,
    reg: Option<&Path>,
    json: bool,
) -> Result<u8> {
    let max = ray_max(dir, max)?;
    let reg = registry(reg)?;
    let world = load(file)?;
    let c = Collider::new(&world, &reg);
    let hit = raycast(&c, from, dir, max).map_err(|e| arg_error("--from/--dir", e))?;
    match hit {
        Some(h) => print_hit(&h, world.get_block(h.cell), &reg, json),
        None if json => println!("{}", json!({ "hit": false })),
        None => println!("no hit"),
    }
    Ok(0)
}

/// `--dir` and `--max` checked (usage errors); the distance to cast to (`--max`, else no
/// limit).
fn ray_max(dir: [f64; 3], max: Option<f64>) -> Result<f64> {
    if dir == [0.0; 3] {
        return Err(arg_error("--dir", PlayError::ZeroDirection));
    }
    let max = max.unwrap_or(f64::INFINITY);
    if max.is_nan() || max < 0.0 {
        return Err(crate::output::usage(
            None,
            format!("--max {max}: must be a distance of 0 or more"),
        ));
    }
    Ok(max)
}

/// `world ray`'s report of a hit on `block`, as JSON or as a line of text.
fn print_hit(h: &RayHit, block: Block, reg: &Registry, json: bool) {
    if json {
        println!(
            "{}",
            json!({
                "hit": true,
                "cell": h.cell,
                "face": face_name(h.face),
                "point": h.point,
                "distance": h.distance,
                "block": block.raw(),
            })
        );
    } else {
        let [x, y, z] = h.cell;
        let [px, py, pz] = h.point;
        println!(
            "hit ({x}, {y}, {z}) {} (raw {}) face {} at ({px}, {py}, {pz}), distance {}",
            reg.name(block.block_type()),
            block.raw(),
            h.face.map_or("none (starts inside)", |f| f.as_str()),
            h.distance
        );
    }
}

/// `world sweep`: checks the box, moves it and prints where it stopped.
fn run_sweep(
    file: &Path,
    aabb: [f64; 6],
    displacement: [f64; 3],
    reg: Option<&Path>,
    json: bool,
) -> Result<u8> {
    let b = Aabb::new([aabb[0], aabb[1], aabb[2]], [aabb[3], aabb[4], aabb[5]])
        .map_err(|e| arg_error("--box", e))?;
    let reg = registry(reg)?;
    let world = load(file)?;
    let c = Collider::new(&world, &reg);
    let s = sweep(&c, &b, displacement).map_err(|e| arg_error("--move", e))?;
    print_sweep(&s, json);
    Ok(0)
}

/// `world sweep`'s report, as JSON or as text.
fn print_sweep(s: &Sweep, json: bool) {
    let blocked: Vec<&str> = [(1, "y"), (0, "x"), (2, "z")]
        .iter()
        .filter(|(k, _)| s.blocked[*k])
        .map(|&(_, n)| n)
        .collect();
    let out = [
        s.aabb.min[0],
        s.aabb.min[1],
        s.aabb.min[2],
        s.aabb.max[0],
        s.aabb.max[1],
        s.aabb.max[2],
    ];
    if json {
        println!(
            "{}",
            json!({
                "box": out,
                "blocked": blocked,
                "on_ground": s.on_ground,
                "start_overlaps": s.start_overlaps,
            })
        );
        return;
    }
    if s.start_overlaps {
        println!("the box overlaps solid cells at its start: not moved");
    }
    println!(
        "box {},{},{},{},{},{}",
        out[0], out[1], out[2], out[3], out[4], out[5]
    );
    println!(
        "blocked {}; {}",
        if blocked.is_empty() {
            "none".to_string()
        } else {
            blocked.join(", ")
        },
        if s.on_ground {
            "on the ground"
        } else {
            "not on the ground"
        }
    );
}

/// `world objects`: lists the objects and decor of a world at `tick`.
fn run_objects(file: &Path, tick: u64, reg: Option<&Path>, json: bool) -> Result<u8> {
    registry(reg)?;
    let world = load(file)?;
    let objects = Objects::of(&world).map_err(|e| crate::output::failed(file, e))?;
    if json {
        print_objects_json(&objects, tick);
    } else {
        print_objects_text(&objects, tick);
    }
    Ok(0)
}

/// `world objects --json`: one JSON object.
fn print_objects_json(objects: &Objects, tick: u64) {
    let list: Vec<Value> = objects
        .list()
        .iter()
        .map(|o| {
            json!({
                "index": o.index,
                "type": o.record.object_type,
                "name": MoveObject::type_name(o.record.object_type),
                "kind": o.kind.as_str(),
                "cell": o.cell,
                "position": o.position(tick),
                "start": o.patrol.start,
                "end": o.patrol.end,
                "moving": o.patrol.moves(),
                "period_ticks": o.patrol.period(),
            })
        })
        .collect();
    let decors: Vec<Value> = objects
        .decors()
        .iter()
        .map(|d| json!({"cell": d.cell, "icon": d.icon}))
        .collect();
    println!(
        "{}",
        json!({"tick": tick, "objects": list, "decors": decors})
    );
}

/// `world objects` as text: a count line, then a line per object and per decor.
fn print_objects_text(objects: &Objects, tick: u64) {
    println!(
        "{}, {} decor at tick {tick}",
        crate::global::count(objects.list().len() as u64, "object"),
        objects.decors().len()
    );
    for o in objects.list() {
        let [x, y, z] = o.position(tick);
        let name = MoveObject::type_name(o.record.object_type).unwrap_or("object");
        let moving = if o.patrol.moves() {
            format!(", patrols every {} ticks", o.patrol.period())
        } else {
            String::new()
        };
        println!(
            "  #{} type {} ({name}, {}) at ({x:.3}, {y:.3}, {z:.3}){moving}",
            o.index,
            o.record.object_type,
            o.kind.as_str()
        );
    }
    for d in objects.decors() {
        let [x, y, z] = d.cell;
        println!("  decor icon {} at ({x}, {y}, {z})", d.icon);
    }
}

/// `world play`: reads the script and the level, plays it and prints the run.
fn run_play(
    file: &Path,
    input: &Path,
    ticks: Option<u64>,
    reg: Option<&Path>,
    json: bool,
) -> Result<u8> {
    use crate::output as o;
    if o::is_dash(file) && o::is_dash(input) {
        return Err(o::usage(
            None,
            "the world and the input script cannot both come from standard input",
        ));
    }
    let reg = registry(reg)?;
    let script = read_script(input)?;
    let world = load(file)?;
    let level = Level::new(&world, &reg).map_err(|e| o::failed(file, e))?;
    let mut game = Game::new(level);
    let run = game.run(&script, ticks);
    print_run(&game, &run.events, json);
    Ok(0)
}

/// The input script of `world play --input` (`-` reads standard input).
fn read_script(input: &Path) -> Result<InputScript> {
    use crate::output as o;
    let text = o::read_input(input)?;
    let text = String::from_utf8(text)
        .map_err(|_| o::failed(input, "the input script is not UTF-8 text"))?;
    InputScript::parse(&text).map_err(|e| o::failed(input, e))
}

fn event_json(e: &Event) -> Value {
    match *e {
        Event::Collected {
            tick,
            object,
            object_type,
        } => json!({"tick": tick, "event": "collected", "object": object, "type": object_type}),
        Event::Died { tick, cause } => {
            let (name, cell, object) = death(cause);
            json!({"tick": tick, "event": "died", "cause": name, "cell": cell, "object": object})
        }
        Event::Checkpoint { tick, cell } => {
            json!({"tick": tick, "event": "checkpoint", "cell": cell})
        }
        Event::ReachedExit { tick, object } => {
            json!({"tick": tick, "event": "exit", "object": object})
        }
    }
}

fn death(cause: Death) -> (&'static str, Option<[i32; 3]>, Option<usize>) {
    match cause {
        Death::Hazard { cell } => ("hazard", Some(cell), None),
        Death::Enemy { object } => ("enemy", None, Some(object)),
        Death::Fell => ("fell", None, None),
    }
}

fn print_run(game: &Game, events: &[Event], json: bool) {
    let p = game.player();
    let feet = p.feet();
    if json {
        let ev: Vec<Value> = events.iter().map(event_json).collect();
        let objects: Vec<Value> = game
            .object_positions()
            .iter()
            .enumerate()
            .map(|(i, pos)| json!({"index": i, "position": pos, "collected": game.is_collected(i)}))
            .collect();
        println!(
            "{}",
            json!({
                "complete": game.is_complete(),
                "ticks": game.tick(),
                "deaths": game.deaths(),
                "collected": game.collected_count(),
                "events": ev,
                "player": {
                    "box": [p.min[0], p.min[1], p.min[2], p.max[0], p.max[1], p.max[2]],
                    "feet": feet,
                    "on_ground": game.on_ground(),
                },
                "objects": objects,
            })
        );
        return;
    }
    for e in events {
        match *e {
            Event::Collected {
                tick,
                object,
                object_type,
            } => println!(
                "tick {tick:6}  collected object #{object} ({})",
                MoveObject::type_name(object_type).unwrap_or("object")
            ),
            Event::Died { tick, cause } => {
                let what = match cause {
                    Death::Hazard { cell: [x, y, z] } => {
                        format!("on the hazard at ({x}, {y}, {z})")
                    }
                    Death::Enemy { object } => format!("touched enemy #{object}"),
                    Death::Fell => "fell out of the world".into(),
                };
                println!("tick {tick:6}  died: {what}; back to the spawn point");
            }
            Event::Checkpoint {
                tick,
                cell: [x, y, z],
            } => println!("tick {tick:6}  checkpoint ({x}, {y}, {z})"),
            Event::ReachedExit { tick, .. } => println!("tick {tick:6}  reached the exit"),
        }
    }
    println!(
        "{} after {} ticks ({:.2} s): feet ({:.3}, {:.3}, {:.3}), {} collected, {} deaths",
        if game.is_complete() {
            "level complete"
        } else {
            "level not complete"
        },
        game.tick(),
        game.tick() as f64 / vwr_play::TICKS_PER_SECOND as f64,
        feet[0],
        feet[1],
        feet[2],
        game.collected_count(),
        game.deaths()
    );
}

/// The demo's play-through: the showcase level played to its exit by
/// [`vwr_play::SHOWCASE_SCRIPT`]; a short report, or an error when the exit is not reached.
pub fn demo_play(world: &World) -> Result<String> {
    let level = Level::new(world, &Registry::default())?;
    let script = InputScript::parse(vwr_play::SHOWCASE_SCRIPT)?;
    let mut game = Game::new(level);
    let t = std::time::Instant::now();
    let run = game.run(&script, None);
    let ms = t.elapsed().as_secs_f64() * 1e3;
    if !run.complete {
        anyhow::bail!(
            "the scripted play-through of the showcase did not reach the exit ({} ticks)",
            run.ticks
        );
    }
    let names: Vec<&str> = run.events.iter().map(Event::name).collect();
    Ok(format!(
        "play   the showcase played through by its input script: exit reached at tick {} ({:.1} s of game time, simulated in {ms:.2} ms)\n  events: {}; {} deaths",
        run.ticks,
        run.ticks as f64 / vwr_play::TICKS_PER_SECOND as f64,
        names.join(", "),
        game.deaths()
    ))
}
