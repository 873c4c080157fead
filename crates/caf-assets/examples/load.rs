//! Loads a texture through the runtime asset manager (on its worker pool), waits for it, reads
//! the typed view and prints the cache statistics.
//!
//! `cargo run -p caf-assets --example load [DIR]` (a temporary folder with one generated
//! texture when no folder is given; otherwise every `.caf` file directly in DIR is loaded raw).

use std::time::Duration;

use caf::texture::TextureMetadata;
use caf::{AssetType, AssetWriter};
use caf_assets::{AssetManager, Raw, Status, Texture};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = match std::env::args_os().nth(1) {
        Some(d) => std::path::PathBuf::from(d),
        None => {
            let d = std::env::temp_dir().join("caf-assets-example");
            std::fs::create_dir_all(&d)?;
            let meta = TextureMetadata {
                width: 4,
                height: 4,
                format: 0,
                mip_levels: 1,
                reserved: 0,
            };
            AssetWriter::new(AssetType::TEXTURE)
                .metadata(&meta.to_bytes())
                .payload(&[128u8; 64])
                .write_file(d.join("hero.caf"))?;
            d
        }
    };
    let assets = AssetManager::builder(&dir).budget(64 << 20).build()?;
    if dir.join("hero.caf").is_file() {
        let hero = assets.load::<Texture>("hero.caf");
        if matches!(assets.wait(&hero, Duration::from_secs(5)), Status::Loaded) {
            if let Some(tex) = assets.get(&hero) {
                let v = tex.view();
                println!(
                    "hero.caf: {}x{} texture, {} level(s)",
                    v.meta.width,
                    v.meta.height,
                    v.level_count()
                );
            }
        }
    }
    let mut handles = Vec::new();
    for e in std::fs::read_dir(&dir)? {
        let p = e?.path();
        if p.extension().is_some_and(|x| x == "caf") {
            if let Some(name) = p.file_name() {
                handles.push((name.to_owned(), assets.load::<Raw>(name)));
            }
        }
    }
    for (name, h) in &handles {
        let status = assets.wait(h, Duration::from_secs(5));
        println!("{}: {status:?}", name.to_string_lossy());
    }
    println!("{:?}", assets.stats());
    Ok(())
}
