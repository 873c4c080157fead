//! Font assets (`docs/format/caf-font.md`): the metadata, glyph and kerning records, and the
//! checked view over the tables and the distance-field atlas.

use crate::container::header::AssetType;
use crate::container::layout::layout;
use crate::container::metadata::codec;

mod view;

pub use view::{FontTables, FontView, MAX_FONT_ATLAS_SIDE, MAX_FONT_GLYPHS, MAX_FONT_KERNING};

layout! {
    /// Font metadata (48 bytes, `docs/format/caf-font.md` section 1). Metrics are in ems (font
    /// units over `units_per_em`), y up from the baseline.
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct FontMetadata (RawFontMetadata, 48 bytes) {
        /// Layout version; 1 is the only defined value.
        pub version: u16,
        /// A [`FontFormat`] code: 1 SDF (R8), 2 MSDF (RGB8), 3 MTSDF (RGBA8).
        pub format: u16,
        /// Atlas width in pixels.
        pub atlas_width: u32,
        /// Atlas height in pixels.
        pub atlas_height: u32,
        /// Number of [`GlyphRecord`]s at the start of the payload.
        pub glyph_count: u32,
        /// Number of [`KerningRecord`]s after the glyph records.
        pub kerning_count: u32,
        /// Atlas pixels per em.
        pub em_size: f32,
        /// Total range of the distance field in atlas pixels.
        pub distance_range: f32,
        /// Ascent in ems (positive).
        pub ascent: f32,
        /// Descent in ems (negative).
        pub descent: f32,
        /// Line gap in ems.
        pub line_gap: f32,
        /// `unitsPerEm` of the source font.
        pub units_per_em: u32,
        /// Reserved, 0.
        pub reserved: u32,
    }
}
codec!(FontMetadata, RawFontMetadata, AssetType::FONT);

impl FontMetadata {
    /// The only defined layout version.
    pub const VERSION: u16 = 1;
}

voxcaf_names::names! {
    /// Pixel formats of a font atlas ([`FontMetadata::format`]).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
    pub struct FontFormat(pub u16) as "font format", unknown "format" {
        /// Single-channel signed distance field, 1 byte per pixel.
        SDF = 1 => "sdf",
        /// Multi-channel signed distance field, RGB, 3 bytes per pixel.
        MSDF = 2 => "msdf",
        /// MSDF in RGB plus the true distance in alpha, 4 bytes per pixel.
        MTSDF = 3 => "mtsdf",
    }
}

impl FontFormat {
    /// Bytes per atlas pixel, or `None` for an undefined code.
    pub fn channels(self) -> Option<u32> {
        match self {
            FontFormat::SDF => Some(1),
            FontFormat::MSDF => Some(3),
            FontFormat::MTSDF => Some(4),
            _ => None,
        }
    }
}

layout! {
    /// One glyph of a font asset (32 bytes); the table is sorted by codepoint.
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct GlyphRecord (RawGlyphRecord, 32 bytes) {
        /// Unicode scalar value.
        pub codepoint: u32,
        /// Left column of the glyph's atlas rectangle.
        pub atlas_x: u16,
        /// Top row of the glyph's atlas rectangle.
        pub atlas_y: u16,
        /// Width of the atlas rectangle (0 for a glyph without outline).
        pub atlas_width: u16,
        /// Height of the atlas rectangle (0 for a glyph without outline).
        pub atlas_height: u16,
        /// Left edge of the quad in ems, relative to the pen position.
        pub plane_left: f32,
        /// Bottom edge of the quad in ems (y up from the baseline).
        pub plane_bottom: f32,
        /// Right edge of the quad in ems.
        pub plane_right: f32,
        /// Top edge of the quad in ems.
        pub plane_top: f32,
        /// Horizontal advance in ems.
        pub advance: f32,
    }
}
codec!(GlyphRecord, RawGlyphRecord, AssetType::FONT);

layout! {
    /// One kerning pair of a font asset (12 bytes); the table is sorted by (left, right).
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct KerningRecord (RawKerningRecord, 12 bytes) {
        /// Codepoint of the first glyph.
        pub left: u32,
        /// Codepoint of the second glyph.
        pub right: u32,
        /// Added to the left glyph's advance, in ems.
        pub adjust: f32,
    }
}
codec!(KerningRecord, RawKerningRecord, AssetType::FONT);
