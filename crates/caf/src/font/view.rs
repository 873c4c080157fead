//! The font view: checked glyph and kerning tables and the atlas.

use std::borrow::Cow;

use crate::container::header::AssetType;
use crate::container::load::Asset;
use crate::container::view::{expect_type, payload_size};
use crate::error::CafError;
use crate::font::{FontFormat, FontMetadata, GlyphRecord, KerningRecord};

/// Largest atlas side a font asset may declare (`docs/format/caf-font.md` section 3).
pub const MAX_FONT_ATLAS_SIDE: u32 = 16384;
/// Most glyphs a font asset may hold.
pub const MAX_FONT_GLYPHS: u32 = 65536;
/// Most kerning pairs a font asset may hold.
pub const MAX_FONT_KERNING: u32 = 1 << 20;

/// The checked tables of a font asset: metadata, glyphs sorted by codepoint and kerning pairs
/// sorted by pair (`docs/format/caf-font.md`). Owned, so a runtime can keep them next to the
/// file buffer; lookups are binary searches.
#[derive(Clone, Debug, PartialEq)]
pub struct FontTables {
    /// The metadata.
    pub meta: FontMetadata,
    glyphs: Vec<GlyphRecord>,
    kerning: Vec<KerningRecord>,
    atlas_offset: usize,
}

/// A font: its [`FontTables`] (reached through `Deref`) and the distance-field atlas borrowed
/// from the payload. Every table is checked on construction.
#[derive(Clone, Debug)]
pub struct FontView<'a> {
    tables: Cow<'a, FontTables>,
    atlas: &'a [u8],
}

impl std::ops::Deref for FontView<'_> {
    type Target = FontTables;
    fn deref(&self) -> &FontTables {
        &self.tables
    }
}

impl<'a> FontView<'a> {
    /// Check a font asset: metadata fields, payload length, glyph and kerning order, atlas
    /// rectangles inside the atlas, kerning codepoints present, finite floats.
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let tables = FontTables::from_asset(a)?;
        let atlas = &a.payload[tables.atlas_offset..];
        Ok(FontView {
            tables: Cow::Owned(tables),
            atlas,
        })
    }

    /// The view of `payload` with tables already checked against it by
    /// [`FontTables::from_asset`] (nothing is checked again; a payload shorter than the tables
    /// say gives an empty atlas).
    pub fn from_tables(tables: &'a FontTables, payload: &'a [u8]) -> Self {
        FontView {
            tables: Cow::Borrowed(tables),
            atlas: payload.get(tables.atlas_offset..).unwrap_or_default(),
        }
    }

    /// The checked tables.
    pub fn tables(&self) -> &FontTables {
        &self.tables
    }

    /// The atlas pixels, rows top to bottom, [`FontTables::channels`] bytes per pixel.
    pub fn atlas(&self) -> &'a [u8] {
        self.atlas
    }

    /// The atlas pixel at (x, y) (`channels` bytes), or `None` outside the atlas.
    pub fn atlas_pixel(&self, x: u32, y: u32) -> Option<&'a [u8]> {
        if x >= self.meta.atlas_width || y >= self.meta.atlas_height {
            return None;
        }
        let c = self.channels() as usize;
        let i = (y as usize * self.meta.atlas_width as usize + x as usize) * c;
        self.atlas.get(i..i + c)
    }
}

impl FontTables {
    /// Check a font asset (see [`FontView::from_asset`]) and keep its tables.
    pub fn from_asset(a: &Asset<'_>) -> Result<Self, CafError> {
        let ty = AssetType::FONT;
        expect_type(a, ty)?;
        let meta = FontMetadata::from_bytes(a.metadata)?;
        let channels = check_metadata(&meta)?;
        // All factors are bounded above, so this cannot overflow a u64.
        let glyph_bytes = u64::from(meta.glyph_count) * GlyphRecord::SIZE as u64;
        let kern_bytes = u64::from(meta.kerning_count) * KerningRecord::SIZE as u64;
        let atlas_bytes =
            u64::from(meta.atlas_width) * u64::from(meta.atlas_height) * u64::from(channels);
        payload_size(
            ty,
            Some(glyph_bytes + kern_bytes + atlas_bytes),
            a.payload.len(),
        )?;
        let (gb, rest) = a.payload.split_at(glyph_bytes as usize);
        let kb = &rest[..kern_bytes as usize];
        let glyphs = check_glyphs(&meta, gb)?;
        let kerning = check_kerning(&meta, kb, glyph_bytes, &glyphs)?;
        Ok(FontTables {
            meta,
            glyphs,
            kerning,
            atlas_offset: (glyph_bytes + kern_bytes) as usize,
        })
    }

    /// The atlas pixel format.
    pub fn format(&self) -> FontFormat {
        FontFormat(self.meta.format)
    }

    /// Bytes per atlas pixel (1, 3 or 4).
    pub fn channels(&self) -> u32 {
        self.format().channels().unwrap_or(1)
    }

    /// The glyph of `c`, in O(log n).
    pub fn glyph(&self, c: char) -> Option<&GlyphRecord> {
        let cp = u32::from(c);
        self.glyphs
            .binary_search_by_key(&cp, |g| g.codepoint)
            .ok()
            .map(|i| &self.glyphs[i])
    }

    /// All glyphs, sorted by codepoint.
    pub fn glyphs(&self) -> &[GlyphRecord] {
        &self.glyphs
    }

    /// All kerning pairs, sorted by (left, right).
    pub fn kerning_pairs(&self) -> &[KerningRecord] {
        &self.kerning
    }

    /// The advance adjustment (ems) between `left` and a following `right`; 0 when the pair is
    /// not kerned. O(log n).
    pub fn kerning(&self, left: char, right: char) -> f32 {
        let key = (u32::from(left), u32::from(right));
        self.kerning
            .binary_search_by_key(&key, |k| (k.left, k.right))
            .map_or(0.0, |i| self.kerning[i].adjust)
    }

    /// Line height in ems: ascent - descent + line gap.
    pub fn line_height(&self) -> f32 {
        self.meta.ascent - self.meta.descent + self.meta.line_gap
    }
}

fn bad(field: &'static str, value: u64, reason: &'static str) -> CafError {
    CafError::BadMetadata {
        ty: AssetType::FONT,
        field,
        value,
        reason,
    }
}

fn malformed(offset: u64, what: String) -> CafError {
    CafError::Malformed {
        ty: AssetType::FONT,
        offset,
        what,
    }
}

/// The font metadata's version, format, sizes, counts and metrics; returns the bytes per atlas
/// pixel.
fn check_metadata(meta: &FontMetadata) -> Result<u32, CafError> {
    if meta.version != FontMetadata::VERSION {
        return Err(bad(
            "version",
            meta.version.into(),
            "only font layout version 1 is defined",
        ));
    }
    let channels = FontFormat(meta.format).channels().ok_or_else(|| {
        bad(
            "format",
            meta.format.into(),
            "must be 1 (SDF), 2 (MSDF) or 3 (MTSDF)",
        )
    })?;
    for (field, v) in [
        ("atlas_width", meta.atlas_width),
        ("atlas_height", meta.atlas_height),
    ] {
        if !(1..=MAX_FONT_ATLAS_SIDE).contains(&v) {
            return Err(bad(field, v.into(), "must be between 1 and 16384"));
        }
    }
    if !(1..=MAX_FONT_GLYPHS).contains(&meta.glyph_count) {
        return Err(bad(
            "glyph_count",
            meta.glyph_count.into(),
            "must be between 1 and 65536",
        ));
    }
    if meta.kerning_count > MAX_FONT_KERNING {
        return Err(bad(
            "kerning_count",
            meta.kerning_count.into(),
            "must be at most 1048576",
        ));
    }
    for (field, v) in [
        ("em_size", meta.em_size),
        ("distance_range", meta.distance_range),
    ] {
        if !(v.is_finite() && v > 0.0) {
            return Err(bad(
                field,
                v.to_bits().into(),
                "must be finite and positive",
            ));
        }
    }
    for (field, v) in [
        ("ascent", meta.ascent),
        ("descent", meta.descent),
        ("line_gap", meta.line_gap),
    ] {
        if !v.is_finite() {
            return Err(bad(field, v.to_bits().into(), "must be finite"));
        }
    }
    if meta.reserved != 0 {
        return Err(bad("reserved", meta.reserved.into(), "must be 0"));
    }
    Ok(channels)
}

/// The glyph table (`gb`): Unicode codepoints, sorted without repeats, atlas rectangles inside
/// the atlas, finite metrics.
fn check_glyphs(meta: &FontMetadata, gb: &[u8]) -> Result<Vec<GlyphRecord>, CafError> {
    let mut glyphs = Vec::with_capacity(meta.glyph_count as usize);
    for (i, b) in gb.chunks_exact(GlyphRecord::SIZE).enumerate() {
        let g = GlyphRecord::from_bytes(b)?;
        let off = (i * GlyphRecord::SIZE) as u64;
        if char::from_u32(g.codepoint).is_none() {
            return Err(malformed(
                off,
                format!(
                    "glyph {i}: codepoint {:#x} is not a Unicode scalar value",
                    g.codepoint
                ),
            ));
        }
        if let Some(prev) = glyphs.last().map(|p: &GlyphRecord| p.codepoint) {
            if g.codepoint <= prev {
                return Err(malformed(
                    off,
                    format!(
                        "glyph {i}: codepoint U+{:04X} does not follow U+{prev:04X} (the table must be sorted, without repeats)",
                        g.codepoint
                    ),
                ));
            }
        }
        let (x, y, w, h) = (
            u32::from(g.atlas_x),
            u32::from(g.atlas_y),
            u32::from(g.atlas_width),
            u32::from(g.atlas_height),
        );
        if (w == 0) != (h == 0) || x + w > meta.atlas_width || y + h > meta.atlas_height {
            return Err(malformed(
                off,
                format!(
                    "glyph U+{:04X}: atlas rectangle {w}x{h} at ({x}, {y}) does not fit the {}x{} atlas",
                    g.codepoint, meta.atlas_width, meta.atlas_height
                ),
            ));
        }
        let floats = [
            g.plane_left,
            g.plane_bottom,
            g.plane_right,
            g.plane_top,
            g.advance,
        ];
        if floats.iter().any(|f| !f.is_finite()) {
            return Err(malformed(
                off,
                format!("glyph U+{:04X}: a metric is not finite", g.codepoint),
            ));
        }
        glyphs.push(g);
    }
    Ok(glyphs)
}

/// The kerning table (`kb`, at payload offset `glyph_bytes`): pairs sorted without repeats, of
/// codepoints that have glyphs, with finite adjustments.
fn check_kerning(
    meta: &FontMetadata,
    kb: &[u8],
    glyph_bytes: u64,
    glyphs: &[GlyphRecord],
) -> Result<Vec<KerningRecord>, CafError> {
    let mut kerning = Vec::with_capacity(meta.kerning_count as usize);
    for (i, b) in kb.chunks_exact(KerningRecord::SIZE).enumerate() {
        let k = KerningRecord::from_bytes(b)?;
        let off = glyph_bytes + (i * KerningRecord::SIZE) as u64;
        if let Some(p) = kerning.last().map(|p: &KerningRecord| (p.left, p.right)) {
            if (k.left, k.right) <= p {
                return Err(malformed(
                    off,
                    format!(
                        "kerning pair {i} (U+{:04X}, U+{:04X}) is not after the previous pair (the table must be sorted, without repeats)",
                        k.left, k.right
                    ),
                ));
            }
        }
        let known = |c: u32| glyphs.binary_search_by_key(&c, |g| g.codepoint).is_ok();
        if !known(k.left) || !known(k.right) {
            return Err(malformed(
                off,
                format!(
                    "kerning pair {i} (U+{:04X}, U+{:04X}) names a codepoint without a glyph",
                    k.left, k.right
                ),
            ));
        }
        if !k.adjust.is_finite() {
            return Err(malformed(
                off,
                format!("kerning pair {i}: adjustment is not finite"),
            ));
        }
        kerning.push(k);
    }
    Ok(kerning)
}
