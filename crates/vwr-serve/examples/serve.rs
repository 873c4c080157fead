//! Starts the editor on a fresh level, edits it through the session API like a script would,
//! saves, and prints the URL a browser would open.
//!
//! `cargo run -p vwr-serve --example serve [-- --wait]` (`--wait` keeps serving until Enter).

use vwr_serve::{start, ServerOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("vwr-serve-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("level.vwr");
    vwr::World::new().save(&file)?;

    let server = start(&file, ServerOptions::default())?;
    println!("editor: {}", server.url());
    let answer = server.with_session(|s| {
        s.apply_script("box 0 0 0 39 0 39 rockpile\nwalls 10 1 10 20 4 20 brickwall\nobject add lift 15 1 15 end=15,6,15")
    })?;
    println!(
        "applied {} operations; {} chunks changed",
        answer.ops.len(),
        answer.state.changed_chunks.len()
    );
    let saved = server.with_session(|s| s.save())?;
    println!("saved: {}", serde_json::to_string(&saved)?);
    if std::env::args().any(|a| a == "--wait") {
        println!("serving; press Enter to stop");
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
    }
    server.shutdown()?;
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
