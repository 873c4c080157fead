//! Texture assets: the metadata, the texture formats (`docs/format/caf-textures.md`) and the
//! view over every stored mip level.

use crate::container::header::AssetType;
use crate::container::layout::layout;
use crate::container::metadata::codec;

mod format;
mod view;

pub use format::{FormatClass, FormatInfo, FormatRefusal, TextureFormat};
pub use view::TextureView;

layout! {
    /// Texture metadata (24 bytes).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct TextureMetadata (RawTextureMetadata, 24 bytes) {
        /// Width of level 0 in pixels.
        pub width: u32,
        /// Height of level 0 in pixels.
        pub height: u32,
        /// Pixel format: 0 = the original's 8-bit channels (count inferred), otherwise an
        /// `SDL_GPUTextureFormat` code ([`TextureFormat`]).
        pub format: u32,
        /// Number of stored levels (1 = no mip chain).
        pub mip_levels: u32,
        /// Reserved, 0.
        pub reserved: u64,
    }
}
codec!(TextureMetadata, RawTextureMetadata, AssetType::TEXTURE);

impl TextureMetadata {
    /// The only format value the original writes: 8 bits per channel (count inferred).
    pub const FORMAT_RGBA8: u32 = 0;

    /// Metadata of a [`Self::FORMAT_RGBA8`] texture of `width` x `height` pixels at level 0
    /// with `mip_levels` stored levels (1 = no mip chain).
    pub const fn rgba8(width: u32, height: u32, mip_levels: u32) -> Self {
        TextureMetadata {
            width,
            height,
            format: Self::FORMAT_RGBA8,
            mip_levels,
            reserved: 0,
        }
    }
}
