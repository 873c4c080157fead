//! Looks block types up by name and by number in the built-in registry, optionally with a TOML
//! override file.
//!
//! `cargo run -p vwr-blocks --example blocks [blocks.toml] [NAME_OR_TYPE...]`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let registry = match args.first() {
        Some(p) if p.ends_with(".toml") => {
            let path = args.remove(0);
            vwr_blocks::Registry::load_toml(std::path::Path::new(&path))?
        }
        _ => vwr_blocks::default_registry().clone(),
    };
    if args.is_empty() {
        args = ["rockpile", "water", "lava", "261", "grate"]
            .map(String::from)
            .to_vec();
    }
    for a in &args {
        let id = match a.parse::<u16>() {
            Ok(n) => Some(n),
            Err(_) => registry.id_by_name(a),
        };
        match id {
            Some(t) => {
                let info = registry.info(t);
                println!(
                    "{a:>10} -> type {t}: {} ({:?}, colour {:?})",
                    registry.name(t),
                    info.kind,
                    info.color
                );
            }
            None => println!("{a:>10} -> no such block name"),
        }
    }
    Ok(())
}
