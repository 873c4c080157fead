//! `.caf` files for the tests: used by the unit tests and included by the integration tests'
//! `tests/common` (by path), so that both build their textures one way.

use caf::texture::TextureMetadata;
use caf::{AssetType, AssetWriter, CafFlags};

/// Bytes of a `width` x `height` texture (format 0) of `mip_levels` levels with `flags`, whose
/// payload is `texels`.
pub fn texture_file(
    width: u32,
    height: u32,
    mip_levels: u32,
    flags: CafFlags,
    texels: &[u8],
) -> Vec<u8> {
    let meta = TextureMetadata {
        width,
        height,
        format: 0,
        mip_levels,
        reserved: 0,
    };
    AssetWriter::new(AssetType::TEXTURE)
        .flags(flags)
        .metadata(&meta.to_bytes())
        .payload(texels)
        .to_vec()
}
