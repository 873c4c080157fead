//! Plays the showcase level with its input script and prints the events and the end state.
//!
//! `cargo run -p vwr-play --example play_showcase [SCRIPT]`

use vwr_play::{Game, InputScript, Level};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let world = vwr::samples::showcase()?;
    let level = Level::new(&world, &vwr_blocks::Registry::default())?;
    let text = match std::env::args().nth(1) {
        Some(path) => std::fs::read_to_string(path)?,
        None => vwr_play::SHOWCASE_SCRIPT.to_string(),
    };
    let script = InputScript::parse(&text)?;
    let mut game = Game::new(level);
    let mut start = 0;
    for &(n, input) in script.steps() {
        for _ in 0..n {
            for e in game.step(input) {
                println!("tick {:5}  {e:?}", e.tick());
            }
        }
        let p = game.player();
        start += n;
        println!(
            "after {start:5} ticks ({input:?}): feet ({:.2}, {:.2}, {:.2}) ground {}",
            p.feet()[0],
            p.feet()[1],
            p.feet()[2],
            game.on_ground()
        );
        if game.is_complete() {
            break;
        }
    }
    println!(
        "complete: {}, deaths: {}, collected: {}",
        game.is_complete(),
        game.deaths(),
        game.collected_count()
    );
    Ok(())
}
