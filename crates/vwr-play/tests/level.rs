//! The level loop: scripted runs on the showcase and on golden levels, determinism, hazards,
//! collectibles, lifts, triggers and object queries, on cubic and non-cubic worlds.

mod common;

use vwr::{Block, MoveObject, World};
use vwr_blocks::{Registry, Trigger};
use vwr_play::{
    touching_triggers, Aabb, Death, Event, Found, Game, Input, InputScript, Level, Objects,
    SHOWCASE_SCRIPT,
};

fn level(w: &World) -> Level {
    Level::new(w, &Registry::default()).unwrap()
}

fn run(w: &World, script: &str, max: Option<u64>) -> Game {
    let mut g = Game::new(level(w));
    g.run(&InputScript::parse(script).unwrap(), max);
    g
}

#[test]
fn the_showcase_is_played_to_its_exit_the_same_way_every_time() {
    let w = vwr::samples::showcase().unwrap();
    let a = run(&w, SHOWCASE_SCRIPT, None);
    assert!(a.is_complete());
    assert_eq!(a.deaths(), 0);
    assert_eq!(a.collected_count(), 1);
    let names: Vec<&str> = a.events().iter().map(Event::name).collect();
    assert_eq!(names, ["collected", "exit"]);
    // Same input, same run: every event and the final box bit for bit.
    let b = run(&w, SHOWCASE_SCRIPT, None);
    assert_eq!(a.events(), b.events());
    assert_eq!(a.player(), b.player());
    assert_eq!(a.tick(), b.tick());
    // Stopping early leaves the level incomplete.
    let c = run(&w, SHOWCASE_SCRIPT, Some(300));
    assert!(!c.is_complete());
    assert_eq!(c.tick(), 300);
}

/// Golden levels with an exit object and no spawn point (the player starts at the
/// documented default spawn, the centre column (50, 1, 50)): world001, the global hub
/// (exit at (56, 1, 56) behind the plaza's markers), and the 65 minimal sublevels
/// (world011 .. world125 and world199: an 11 × 11 floor and an exit at (52, 1, 50)).
#[test]
fn scripted_runs_reach_the_exit_on_golden_levels() {
    let Some(root) = voxcaf_golden::with_worlds() else {
        return;
    };
    let dir = root.join("vwr/worlds3d");
    let hub = World::load(dir.join("world001.vwr")).unwrap();
    let l = level(&hub);
    assert_eq!(l.spawn, [50.5, 1.0, 50.5]);
    let g = run(&hub, "30 right\n40 forward\n", None);
    assert!(g.is_complete(), "world001: {:?}", g.player());
    assert_eq!(g.deaths(), 0);
    let mut sublevels = 0;
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "vwr"))
        .collect();
    names.sort();
    for path in names {
        let w = World::load(&path).unwrap();
        let objects = w.move_objects().unwrap();
        if objects.len() != 1 || objects[0].0 != [52, 1, 50] || objects[0].1.object_type != 7 {
            continue;
        }
        sublevels += 1;
        let g = run(&w, "20 right\n", None);
        assert!(g.is_complete(), "{}", path.display());
        assert_eq!(g.events().len(), 1);
        // Walking the other way never gets there (and falls off the floor's edge: died).
        let g = run(&w, "60 left\n", None);
        assert!(!g.is_complete(), "{}", path.display());
    }
    assert_eq!(sublevels, 65);
}

fn floor_world(chunks: [u32; 3]) -> World {
    let mut w = World::with_chunk_dims(chunks).unwrap();
    let d = w.block_dims().map(|v| v as i32);
    w.fill_box(
        [0, 0, 0],
        [d[0] - 1, 0, d[2] - 1],
        Block::make(35, 0).unwrap(),
    )
    .unwrap();
    w
}

#[test]
fn hazards_send_the_player_back_to_spawn_and_collectibles_stay_collected() {
    // A non-cubic world: 40 × 10 × 10.
    let mut w = floor_world([4, 1, 1]);
    w.set_spawn([2, 1, 5]).unwrap();
    w.place_move_object(&MoveObject::new(6, [6.0, 1.0, 5.0]))
        .unwrap(); // egg
    w.set_block([12, 0, 5], Block::make(68, 0).unwrap())
        .unwrap(); // lava in the floor
    let mut g = Game::new(level(&w));
    let right = Input {
        right: true,
        ..Input::NONE
    };
    let mut died = None;
    for _ in 0..200 {
        for e in g.step(right).to_vec() {
            if let Event::Died { cause, .. } = e {
                died.get_or_insert(cause);
            }
        }
    }
    assert_eq!(died, Some(Death::Hazard { cell: [12, 0, 5] }));
    assert!(
        g.deaths() >= 2,
        "walks into the lava again after each respawn"
    );
    assert_eq!(g.collected_count(), 1);
    let collected = g
        .events()
        .iter()
        .filter(|e| e.name() == "collected")
        .count();
    assert_eq!(collected, 1, "collected once only");
}

#[test]
fn climbing_one_block_steps_stopping_at_walls_and_jumping_over_a_trench() {
    let mut w = floor_world([4, 1, 1]); // 40 × 10 × 10
    w.set_spawn([2, 1, 5]).unwrap();
    let rock = Block::make(35, 0).unwrap();
    w.fill_box([6, 1, 0], [7, 1, 9], rock).unwrap(); // a step of one block: climbed
    w.place_move_object(&MoveObject::new(7, [30.0, 1.0, 5.0]))
        .unwrap();
    let mut walled = w.clone();
    walled.fill_box([20, 1, 0], [20, 2, 9], rock).unwrap(); // two blocks: not climbed
    let g = run(&walled, "150 right\n", None);
    assert!(!g.is_complete());
    assert_eq!(g.player().max[0], 20.0, "stopped flush by the wall");
    assert_eq!(g.deaths(), 0);
    // A lava trench of two cells: walking dies, jumping at its edge crosses it.
    w.fill_box([12, 0, 0], [13, 0, 9], Block::make(68, 0).unwrap())
        .unwrap();
    let g = run(&w, "150 right\n", None);
    assert!(!g.is_complete());
    assert!(g.deaths() > 0);
    let g = run(&w, "43 right\n1 right+jump\n100 right\n", None);
    assert!(g.is_complete(), "{:?}", g.player());
    assert_eq!(g.deaths(), 0);
}

#[test]
fn a_lift_carries_the_player_up() {
    let mut w = floor_world([2, 2, 1]); // 20 × 20 × 10
    w.set_spawn([5, 1, 5]).unwrap();
    let mut lift = MoveObject::new(1, [5.0, 0.0, 5.0]);
    lift.pos_start = [5.0, 1.0, 5.0];
    lift.pos_end = [5.0, 10.0, 5.0];
    lift.time_stop_start_ticks = 20.0;
    w.place_move_object(&lift).unwrap();
    // Start standing on the lift's top.
    w.set_spawn([5, 2, 5]).unwrap();
    let mut g = Game::new(level(&w));
    let p = g.level().objects.list()[0].patrol;
    let top_at = |t: u64| p.position(t)[1] + 1.0;
    for _ in 0..(20 + 360) {
        g.step(Input::NONE);
        assert!(g.on_ground(), "tick {}", g.tick());
        assert!(
            (g.player().min[1] - top_at(g.tick())).abs() < 1e-9,
            "tick {}",
            g.tick()
        );
    }
    assert_eq!(g.player().min[1], 11.0);
}

#[test]
fn enemies_kill_on_contact_and_patrol() {
    let mut w = floor_world([3, 1, 1]);
    w.set_spawn([1, 1, 5]).unwrap();
    let mut enemy = MoveObject::new(2, [10.0, 1.0, 5.0]);
    enemy.pos_end = [10.0, 1.0, 8.0];
    w.place_move_object(&enemy).unwrap();
    let g = run(&w, "100 right\n", None);
    assert!(g.events().iter().any(|e| matches!(
        e,
        Event::Died {
            cause: Death::Enemy { object: 0 },
            ..
        }
    )));
}

#[test]
fn trigger_queries_and_object_queries() {
    let mut w = floor_world([2, 1, 2]);
    w.set_block([3, 0, 3], Block::make(373, 0).unwrap())
        .unwrap(); // spikes: solid hazard
    w.place_move_object(&MoveObject::new(5, [8.0, 1.0, 8.0]))
        .unwrap();
    w.place_big_decor([12, 1, 12], 66).unwrap();
    let l = level(&w);
    let on_spikes = Aabb::from_feet([3.5, 1.0, 3.5], [0.6, 1.8, 0.6]);
    assert!(touching_triggers(&l.collider, &on_spikes).contains(Trigger::Hazard));
    let beside = Aabb::from_feet([5.5, 1.0, 3.5], [0.6, 1.8, 0.6]);
    assert!(touching_triggers(&l.collider, &beside).is_empty());
    let objects = Objects::of(&w).unwrap();
    let b = Aabb::new([7.5, 1.0, 7.5], [12.5, 2.0, 12.5]).unwrap();
    assert_eq!(
        objects.overlapping(&b, 0),
        [Found::Object(0), Found::Decor(0)]
    );
    let region = Aabb::new([0.0, 0.0, 0.0], [8.0, 1.0, 8.0]).unwrap();
    assert_eq!(objects.in_region(&region, 0).len(), 1);
    let small = Aabb::new([0.0, 0.0, 0.0], [7.9, 1.0, 8.0]).unwrap();
    assert!(objects.in_region(&small, 0).is_empty());
}

#[test]
fn registry_overrides_change_the_game() {
    // Make RockPile a goal: standing on the floor completes the level at once.
    let w = floor_world([1, 1, 1]);
    let mut reg = Registry::default();
    reg.apply_toml("[[block]]\nid = 35\ntrigger = \"goal\"\n")
        .unwrap();
    let mut g = Game::new(Level::new(&w, &reg).unwrap());
    g.step(Input::NONE);
    assert!(g.is_complete());
    assert!(matches!(
        g.events(),
        [Event::ReachedExit { object: None, .. }]
    ));
    // A non-solid floor: the player falls out of the world and dies.
    let mut reg = Registry::default();
    reg.apply_toml("[[block]]\nid = 35\nsolid = false\n")
        .unwrap();
    let mut g = Game::new(Level::new(&w, &reg).unwrap());
    for _ in 0..200 {
        g.step(Input::NONE);
    }
    assert!(g.events().iter().any(|e| matches!(
        e,
        Event::Died {
            cause: Death::Fell,
            ..
        }
    )));
}

#[test]
fn input_scripts_report_bad_lines() {
    assert_eq!(InputScript::parse("# nothing\n\n").unwrap().ticks(), 0);
    let s = InputScript::parse("3 right+jump # go\n2 -\n").unwrap();
    assert_eq!(s.ticks(), 5);
    assert_eq!(s.inputs().filter(|i| i.jump).count(), 3);
    for (bad, line) in [
        ("3 fly\n", 1),
        ("1 right\nx left\n", 2),
        ("1\n", 1),
        ("1 right left\n", 1),
        ("99999999999 right\n", 1),
        ("-1 right\n", 1),
    ] {
        match InputScript::parse(bad) {
            Err(vwr_play::PlayError::Script { line: l, .. }) => assert_eq!(l, line, "{bad:?}"),
            other => panic!("{bad:?}: {other:?}"),
        }
    }
}

#[test]
fn trigger_queries_match_a_cell_by_cell_reference() {
    // Chunks with no trigger, one trigger kind everywhere, or mixed kinds.
    let mut w = World::with_chunk_dims([3, 2, 2]).unwrap();
    let reg = Registry::default();
    let mut rng = voxcaf_golden::Rng::new(5);
    w.fill_box([0, 0, 0], [9, 9, 9], Block::make(68, 0).unwrap())
        .unwrap(); // all lava
    w.fill_box([10, 0, 0], [19, 9, 9], Block::make(330, 0).unwrap())
        .unwrap(); // teleports
    w.set_block([12, 3, 4], Block::make(35, 0).unwrap())
        .unwrap(); // one plain cell
    for _ in 0..600 {
        let p = [rng.range(0, 29), rng.range(0, 19), rng.range(0, 19)];
        let t = [35, 68, 373, 330, 92, 0][rng.below(6) as usize];
        w.set_block(p, Block::make(t, 0).unwrap()).unwrap();
    }
    let l = Level::new(&w, &reg).unwrap();
    for _ in 0..2000 {
        let min = [0, 1, 2].map(|_| rng.range(-300, 3100) as f64 / 100.0);
        let size = [0, 1, 2].map(|_| rng.range(1, 300) as f64 / 100.0);
        let b = Aabb::new(min, [min[0] + size[0], min[1] + size[1], min[2] + size[2]]).unwrap();
        let mut want = 0u8;
        vwr_play::cells_overlapping(&l.collider, &b.inflated(vwr_play::TOUCH), |c, _| {
            want |= 1 << reg.collision(w.get_block(c).block_type()).trigger.code();
        });
        assert_eq!(touching_triggers(&l.collider, &b).0, want, "{b:?}");
    }
}

#[test]
fn the_default_spawn_is_the_standable_column_nearest_the_centre() {
    let mut w = World::with_chunk_dims([3, 1, 2]).unwrap(); // 30 × 10 × 20, centre (15, 10)
    assert_eq!(
        level(&w).spawn,
        [15.5, 10.0, 10.5],
        "nothing to stand on: the top"
    );
    let rock = Block::make(35, 0).unwrap();
    w.fill_box([2, 0, 2], [2, 3, 2], rock).unwrap(); // far
    w.fill_box([18, 0, 8], [18, 4, 8], rock).unwrap(); // ring 3
    w.fill_box([13, 0, 12], [13, 6, 12], rock).unwrap(); // ring 2: nearest
    w.set_block([14, 0, 10], Block::make(92, 0).unwrap())
        .unwrap(); // ring 1: water only
    assert_eq!(level(&w).spawn, [13.5, 7.0, 12.5]);
}
