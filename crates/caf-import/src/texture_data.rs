//! What the texture modules share, below them all: the texture ready to be written
//! ([`TextureData`]), the size limits, and the sizes of a mip chain. Re-exported by
//! [`crate::texture`].

/// Largest width or height accepted for a texture.
pub const MAX_DIMENSION: u32 = 32_768;
/// Largest decoded image accepted, in bytes of RGBA8 (1 GiB).
pub const MAX_DECODED_BYTES: u64 = 1 << 30;

/// A texture ready to be written: all levels and what they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureData {
    /// Base level width.
    pub width: u32,
    /// Base level height.
    pub height: u32,
    /// Number of levels stored (1 = no mip chain).
    pub levels: u32,
    /// The format code (the `_UNORM` one; [`Converted::from_texture`](crate::Converted::from_texture)
    /// writes the `_SRGB` twin when `srgb` is set).
    pub format: caf::texture::TextureFormat,
    /// Whether the SRGB flag is set.
    pub srgb: bool,
    /// Every level back to back, largest first.
    pub payload: Vec<u8>,
}

/// The size of the level after `(w, h)`: halved with floor, at least 1.
pub fn next_level(w: u32, h: u32) -> (u32, u32) {
    ((w / 2).max(1), (h / 2).max(1))
}

/// The sizes of every level of a full chain starting at `(w, h)` and ending at 1×1.
pub fn level_sizes(w: u32, h: u32) -> Vec<(u32, u32)> {
    let mut out = vec![(w, h)];
    let (mut w, mut h) = (w, h);
    while w > 1 || h > 1 {
        (w, h) = next_level(w, h);
        out.push((w, h));
    }
    out
}
