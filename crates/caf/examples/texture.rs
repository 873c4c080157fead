//! Writes a 2×2 RGBA texture asset atomically, loads it back (both CRCs verified, zero copy),
//! reads it through the typed view and prints what `voxcaf asset info` would show.
//!
//! `cargo run -p caf --example texture [OUT.caf]`

use caf::texture::{TextureMetadata, TextureView};
use caf::{AssetType, AssetWriter, CafFlags, Description, LoadedAsset};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("white.caf"));
    let meta = TextureMetadata::rgba8(2, 2, 1);
    let pixels = [255u8; 16];
    AssetWriter::new(AssetType::TEXTURE)
        .flags(CafFlags::SRGB)
        .metadata(&meta.to_bytes())
        .payload(&pixels)
        .write_file(&path)?;

    let loaded = LoadedAsset::open(&path)?;
    let view = TextureView::from_asset(&loaded.asset())?;
    assert_eq!(view.level(0), Some(&pixels[..]));
    println!(
        "{}: {}",
        path.display(),
        Description::from_bytes(&std::fs::read(&path)?)
    );
    Ok(())
}
