//! TrueType/OpenType fonts to distance-field glyph atlases (`docs/format/caf-font.md`).
//!
//! Outlines and metrics come from `ttf-parser` (through `fdsm-ttf-parser`), the distance fields
//! from `fdsm` (single-channel SDF, MSDF or MTSDF, sign corrected with the non-zero fill rule),
//! kerning from the `kern` table and the GPOS `kern` feature's pair adjustments. Glyph
//! rectangles are packed by a small deterministic shelf packer; every step is ordered by
//! codepoint, so the same font and settings always give the same bytes.
//!
//! ```no_run
//! use caf_import::{convert, Settings};
//! use std::path::Path;
//!
//! let ttf = std::fs::read("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")?;
//! let settings = Settings { charset: Some("32-126".into()), ..Settings::default() };
//! let font = convert(&ttf, Path::new("DejaVuSans.ttf"), &settings)?;
//! let file = font.to_caf_bytes();
//! let asset = caf::Asset::parse(&file)?;
//! let view = caf::font::FontView::from_asset(&asset)?;
//! assert!(view.kerning('A', 'V') < 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use fdsm::bezier::scanline::FillRule;
use fdsm::generate::{generate_msdf, generate_mtsdf, generate_sdf};
use fdsm::render::{correct_sign_msdf, correct_sign_mtsdf, correct_sign_sdf};
use fdsm::shape::Shape;
use fdsm::transform::Transform;
use fdsm_ttf_parser::ttf_parser::{self, Face, GlyphId};
use image::{ImageBuffer, Pixel};
use nalgebra::{Affine2, Matrix3};
use rayon::prelude::*;

use crate::error::{ImportError, Result};
use crate::settings::{FontFormat, Settings};

/// The default character set: printable ASCII and printable Latin-1.
pub const DEFAULT_CHARSET: &str = "32-126,160-255";
/// Default atlas pixels per em.
pub const DEFAULT_FONT_SIZE: u32 = 32;
/// Default total distance range in pixels.
pub const DEFAULT_SDF_RANGE: u32 = 4;
/// Accepted em sizes in pixels.
pub const FONT_SIZE_RANGE: std::ops::RangeInclusive<u32> = 4..=512;
/// Accepted distance ranges in pixels.
pub const SDF_RANGE_RANGE: std::ops::RangeInclusive<u32> = 1..=64;
/// Most codepoints a character set may name (the format's glyph limit).
pub const MAX_CHARSET: u64 = caf::font::MAX_FONT_GLYPHS as u64;
/// Kerning is looked up for every ordered pair of glyphs up to this many glyphs; a larger
/// set is converted without kerning (and says so in a warning).
pub const MAX_KERNED_GLYPHS: usize = 4096;
/// Pixels left empty between packed rectangles.
const GAP: u32 = 1;
/// Seed of fdsm's edge colouring (fixed: the output must not vary between runs).
const EDGE_SEED: u64 = 0x766f_7863_6166;
/// fdsm's corner threshold for edge colouring (sine of the angle), as in its examples.
const CORNER_SIN: f64 = 0.03;

/// A set of Unicode scalar values: sorted, merged, inclusive ranges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Charset {
    ranges: Vec<(u32, u32)>,
}

impl Charset {
    /// Parse ranges such as `32-126,160-255`, `0x20-0x7E`, `U+00C0-U+00FF,8364`. Values must
    /// be Unicode scalar values; surrogates inside a range are skipped. An empty set, a
    /// reversed range or more than [`MAX_CHARSET`] codepoints is an error.
    pub fn parse(spec: &str) -> Result<Charset> {
        let bad = |m: String| ImportError::InvalidArgument(format!("character set: {m}"));
        let num = |t: &str| -> Result<u32> {
            let t = t.trim();
            let hex = t
                .strip_prefix("0x")
                .or_else(|| t.strip_prefix("0X"))
                .or_else(|| t.strip_prefix("U+"))
                .or_else(|| t.strip_prefix("u+"));
            let v = match hex {
                Some(h) => u32::from_str_radix(h, 16),
                None => t.parse::<u32>(),
            };
            v.map_err(|_| bad(format!("{t:?} is not a number (decimal, 0x.. or U+..)")))
                .and_then(|v| {
                    if v > 0x10FFFF {
                        Err(bad(format!("{t} is above U+10FFFF")))
                    } else {
                        Ok(v)
                    }
                })
        };
        let mut ranges = Vec::new();
        for item in spec.split(',') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (a, b) = match item.split_once('-') {
                Some((a, b)) => (num(a)?, num(b)?),
                None => {
                    let v = num(item)?;
                    (v, v)
                }
            };
            if a > b {
                return Err(bad(format!("range {item:?} ends before it starts")));
            }
            ranges.push((a, b));
        }
        Charset::from_ranges(ranges)
    }

    /// Every character of `text` except control characters (a file of the characters a game
    /// shows). An empty result is an error.
    pub fn from_text(text: &str) -> Result<Charset> {
        let ranges = text
            .chars()
            .filter(|c| !c.is_control())
            .map(|c| (c as u32, c as u32))
            .collect();
        Charset::from_ranges(ranges)
    }

    fn from_ranges(mut ranges: Vec<(u32, u32)>) -> Result<Charset> {
        ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        let set = Charset { ranges: merged };
        let n = set.len();
        if n == 0 {
            return Err(ImportError::empty(
                "font",
                "the character set is empty: name at least one character",
            ));
        }
        if n > MAX_CHARSET {
            return Err(ImportError::LimitExceeded {
                what: "character set size",
                value: n,
                limit: MAX_CHARSET,
            });
        }
        Ok(set)
    }

    /// Number of scalar values in the set (surrogates excluded).
    pub fn len(&self) -> u64 {
        self.ranges
            .iter()
            .map(|&(a, b)| {
                let all = u64::from(b - a) + 1;
                let lo = a.max(0xD800);
                let hi = b.min(0xDFFF);
                all - if lo <= hi { u64::from(hi - lo) + 1 } else { 0 }
            })
            .sum()
    }

    /// True when the set holds no scalar value (never true for a parsed set).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The characters in increasing order.
    pub fn chars(&self) -> impl Iterator<Item = char> + '_ {
        self.ranges
            .iter()
            .flat_map(|&(a, b)| (a..=b).filter_map(char::from_u32))
    }

    /// The canonical range text (`32-126,160-255`): what [`Charset::parse`] reads back.
    pub fn to_spec(&self) -> String {
        self.to_string()
    }
}

impl Default for Charset {
    /// Printable ASCII and Latin-1 ([`DEFAULT_CHARSET`]).
    fn default() -> Charset {
        Charset {
            ranges: vec![(32, 126), (160, 255)],
        }
    }
}

impl fmt::Display for Charset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &(a, b)) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if a == b {
                write!(f, "{a}")?;
            } else {
                write!(f, "{a}-{b}")?;
            }
        }
        Ok(())
    }
}

/// One glyph of a converted font.
#[derive(Clone, Debug)]
struct Glyph {
    cp: u32,
    advance: f32,
    /// Pixel box in the em grid, y up: left, bottom, right, top (margin included).
    bounds: Option<[i64; 4]>,
    pixels: Vec<u8>,
    pos: (u32, u32),
}

impl Glyph {
    fn size(&self) -> (u32, u32) {
        match self.bounds {
            // Checked against the atlas limit before the pixels were made.
            Some([l, b, r, t]) => ((r - l) as u32, (t - b) as u32),
            None => (0, 0),
        }
    }
}

/// A converted font: the metadata and payload of `docs/format/caf-font.md`.
#[derive(Clone, Debug)]
pub struct FontData {
    /// The metadata.
    pub meta: caf::font::FontMetadata,
    /// Glyph table, kerning table and atlas pixels.
    pub payload: Vec<u8>,
    /// Requested characters the font has no glyph for, in order.
    pub missing: Vec<char>,
    /// Things the conversion left out or changed (missing glyphs, skipped kerning).
    pub warnings: Vec<String>,
}

fn malformed(m: impl Into<String>) -> ImportError {
    ImportError::malformed("font", m)
}

/// The pixel box of an outline's bounding box at `scale` pixels per font unit, grown by
/// `margin` pixels on each side: left, bottom, right, top (y up).
fn pixel_box(r: ttf_parser::Rect, scale: f64, margin: i64) -> [i64; 4] {
    [
        (f64::from(r.x_min) * scale).floor() as i64 - margin,
        (f64::from(r.y_min) * scale).floor() as i64 - margin,
        (f64::from(r.x_max) * scale).ceil() as i64 + margin,
        (f64::from(r.y_max) * scale).ceil() as i64 + margin,
    ]
}

/// The distance field of one glyph, rows top to bottom, `channels` bytes per pixel.
fn render_glyph(
    face: &Face<'_>,
    gid: GlyphId,
    [left, _, right, top]: [i64; 4],
    height: u32,
    scale: f64,
    range: f64,
    format: FontFormat,
) -> Option<Vec<u8>> {
    let mut shape = fdsm_ttf_parser::load_shape_from_face(face, gid)?;
    // A lone `move_to` leaves an empty contour: it draws nothing.
    shape.contours.retain(|c| !c.segments.is_empty());
    if shape.contours.is_empty() {
        return None;
    }
    // Font units (y up) to glyph pixels (y down, origin at the box's top-left corner).
    let m = Matrix3::new(
        scale,
        0.0,
        -(left as f64),
        0.0,
        -scale,
        top as f64,
        0.0,
        0.0,
        1.0,
    );
    shape.transform(&Affine2::from_matrix_unchecked(m));
    let width = (right - left) as u32;
    let field = FieldSize {
        width,
        height,
        range,
    };
    // MSDF and MTSDF spread the edges over the channels by colour.
    let coloured = |shape| Shape::edge_coloring_simple(shape, CORNER_SIN, EDGE_SEED).prepare();
    Some(match format {
        FontFormat::Sdf => field.render(&shape.prepare(), generate_sdf, correct_sign_sdf),
        FontFormat::Msdf => field.render(&coloured(shape), generate_msdf, correct_sign_msdf),
        FontFormat::Mtsdf => field.render(&coloured(shape), generate_mtsdf, correct_sign_mtsdf),
    })
}

/// The size of one glyph's distance field and the range of distances it covers, in pixels.
struct FieldSize {
    width: u32,
    height: u32,
    range: f64,
}

impl FieldSize {
    /// The distance field of the prepared shape `shape` in pixels `P`: `generate` writes the
    /// distances, `correct` fixes their signs with the non-zero fill rule. Returns the
    /// samples, row by row.
    fn render<S, P: Pixel<Subpixel = u8>>(
        &self,
        shape: &S,
        generate: fn(&S, f64, &mut ImageBuffer<P, Vec<u8>>),
        correct: fn(&mut ImageBuffer<P, Vec<u8>>, &S, FillRule),
    ) -> Vec<u8> {
        let mut img = ImageBuffer::new(self.width, self.height);
        generate(shape, self.range, &mut img);
        correct(&mut img, shape, FillRule::Nonzero);
        img.into_raw()
    }
}

/// Shelf packing: rectangles sorted by height (descending), then codepoint, placed left to
/// right in rows of a power-of-two width; returns the atlas size. Positions are written
/// into the glyphs.
fn pack(glyphs: &mut [Glyph]) -> Result<(u32, u32)> {
    let max = u64::from(caf::font::MAX_FONT_ATLAS_SIDE);
    let area: u64 = glyphs
        .iter()
        .map(|g| {
            let (w, h) = g.size();
            u64::from(w + GAP) * u64::from(h + GAP)
        })
        .sum();
    let widest = glyphs.iter().map(|g| g.size().0 + GAP).max().unwrap_or(1);
    let side = (area as f64).sqrt().ceil() as u64;
    let width = side
        .max(u64::from(widest))
        .max(64)
        .next_power_of_two()
        .min(max);
    if u64::from(widest) > width {
        return Err(ImportError::LimitExceeded {
            what: "font atlas width (pixels)",
            value: widest.into(),
            limit: max,
        });
    }
    let mut order: Vec<usize> = (0..glyphs.len())
        .filter(|&i| glyphs[i].size().0 > 0)
        .collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(glyphs[i].size().1), glyphs[i].cp));
    let (mut x, mut y, mut shelf) = (0u64, 0u64, 0u64);
    for i in order {
        let (w, h) = glyphs[i].size();
        if x + u64::from(w) > width {
            x = 0;
            y += shelf + u64::from(GAP);
            shelf = 0;
        }
        if y + u64::from(h) > max {
            return Err(ImportError::LimitExceeded {
                what: "font atlas height (pixels)",
                value: y + u64::from(h),
                limit: max,
            });
        }
        // Both are below the 16384 atlas limit.
        glyphs[i].pos = (x as u32, y as u32);
        x += u64::from(w + GAP);
        shelf = shelf.max(u64::from(h));
    }
    let height = (y + shelf).max(1).div_ceil(4) * 4;
    Ok((width as u32, height.min(max) as u32))
}

/// Sum of the `kern` table's horizontal pair values for two glyphs, in font units.
fn kern_table(face: &Face<'_>, l: GlyphId, r: GlyphId) -> Option<i32> {
    let kern = face.tables().kern?;
    let mut sum = None;
    for st in kern.subtables {
        if !st.horizontal || st.variable || st.has_cross_stream {
            continue;
        }
        if let Some(v) = st.glyphs_kerning(l, r) {
            *sum.get_or_insert(0) += i32::from(v);
        }
    }
    sum
}

/// The GPOS pair-adjustment lookups of the `kern` feature (deduplicated, in index order).
fn gpos_kern_lookups<'a>(face: &Face<'a>) -> Vec<ttf_parser::opentype_layout::Lookup<'a>> {
    let Some(gpos) = face.tables().gpos else {
        return Vec::new();
    };
    let mut idx: Vec<u16> = gpos
        .features
        .into_iter()
        .filter(|f| f.tag == ttf_parser::Tag::from_bytes(b"kern"))
        .flat_map(|f| f.lookup_indices.into_iter())
        .collect();
    idx.sort_unstable();
    idx.dedup();
    idx.into_iter()
        .filter_map(|i| gpos.lookups.get(i))
        .collect()
}

/// The first glyph's x-advance adjustment from GPOS pair lookups (font units): per lookup, the
/// first pair subtable that covers the pair; summed over lookups.
fn gpos_pair(
    lookups: &[ttf_parser::opentype_layout::Lookup<'_>],
    l: GlyphId,
    r: GlyphId,
) -> Option<i32> {
    use ttf_parser::gpos::{PairAdjustment, PositioningSubtable};
    let mut sum = None;
    for lookup in lookups {
        for st in lookup.subtables.into_iter::<PositioningSubtable>() {
            let PositioningSubtable::Pair(pair) = st else {
                continue;
            };
            let Some(ci) = pair.coverage().get(l) else {
                continue;
            };
            let v = match pair {
                PairAdjustment::Format1 { sets, .. } => sets
                    .get(ci)
                    .and_then(|s| s.get(r))
                    .map(|(a, _)| a.x_advance),
                PairAdjustment::Format2 {
                    classes, matrix, ..
                } => matrix
                    .get((classes.0.get(l), classes.1.get(r)))
                    .map(|(a, _)| a.x_advance),
            };
            if let Some(v) = v {
                *sum.get_or_insert(0) += i32::from(v);
                break;
            }
        }
    }
    sum
}

/// The face `settings.font_face` (default 0) of a font file or TrueType / OpenType collection
/// (`.ttc`, `.otc`), and a warning when a collection of several faces was given no face
/// index. A face index beyond the collection, or other than 0 for a single font, is refused.
fn open_face<'a>(bytes: &'a [u8], settings: &Settings) -> Result<(Face<'a>, Option<String>)> {
    let faces = ttf_parser::fonts_in_collection(bytes);
    let index = settings.font_face.unwrap_or(0);
    let count = faces.unwrap_or(1);
    if count == 0 {
        return Err(malformed("the collection lists no fonts"));
    }
    if index >= count {
        return Err(ImportError::InvalidArgument(match faces {
            Some(n) => format!(
                "font face {index} asked, the collection has {n} (0..={})",
                n - 1
            ),
            None => format!("font face {index} asked, the file is a single font (face 0)"),
        }));
    }
    let face = Face::parse(bytes, index).map_err(|e| match faces {
        Some(n) => malformed(format!("face {index} of the collection of {n}: {e}")),
        None => malformed(format!("{e}")),
    })?;
    let note = match faces {
        Some(n) if n > 1 && settings.font_face.is_none() => Some(format!(
            "the collection has {n} faces: face 0 converted (the font_face setting, \
             `--font-face N`, chooses another)"
        )),
        _ => None,
    };
    Ok((face, note))
}

/// Convert a TTF/OTF font, or one face of a collection (`font_face`, the first by default),
/// with the font settings of `settings` (`charset`, `font_size`, `sdf_range`, `font_format`).
pub fn convert_font(bytes: &[u8], settings: &Settings) -> Result<FontData> {
    let charset = match &settings.charset {
        Some(spec) => Charset::parse(spec)?,
        None => Charset::default(),
    };
    let em = settings.font_size.unwrap_or(DEFAULT_FONT_SIZE);
    if !FONT_SIZE_RANGE.contains(&em) {
        return Err(ImportError::InvalidArgument(format!(
            "font size {em} px per em is outside {}..={}",
            FONT_SIZE_RANGE.start(),
            FONT_SIZE_RANGE.end()
        )));
    }
    let range = settings.sdf_range.unwrap_or(DEFAULT_SDF_RANGE);
    if !SDF_RANGE_RANGE.contains(&range) {
        return Err(ImportError::InvalidArgument(format!(
            "distance range {range} px is outside {}..={}",
            SDF_RANGE_RANGE.start(),
            SDF_RANGE_RANGE.end()
        )));
    }
    let format = settings.font_format;
    let (face, note) = open_face(bytes, settings)?;
    let upm = face.units_per_em();
    if !(16..=16384).contains(&upm) {
        return Err(malformed(format!(
            "unitsPerEm is {upm}; the OpenType range is 16 to 16384"
        )));
    }
    let upm_f = f64::from(upm);
    let scale = f64::from(em) / upm_f;
    let margin = i64::from(range.div_ceil(2));

    let mut missing = Vec::new();
    let mut found = Vec::new();
    for c in charset.chars() {
        match face.glyph_index(c) {
            Some(gid) => found.push((c, gid)),
            None => missing.push(c),
        }
    }
    if found.is_empty() {
        return Err(ImportError::empty(
            "font",
            format!(
                "the font has none of the {} requested characters",
                charset.len()
            ),
        ));
    }
    let plans = plan_glyphs(&face, &found, scale, margin)?;
    let range_f = f64::from(range);
    let mut glyphs: Vec<Glyph> = plans
        .par_iter()
        .map(|&(c, gid, bounds)| {
            let advance = face.glyph_hor_advance(gid).unwrap_or(0);
            let pixels = bounds
                .and_then(|b| {
                    render_glyph(&face, gid, b, (b[3] - b[1]) as u32, scale, range_f, format)
                })
                .unwrap_or_default();
            // A bounding box without an outline (never in a sane font) draws nothing.
            let bounds = bounds.filter(|_| !pixels.is_empty());
            Glyph {
                cp: c as u32,
                advance: (f64::from(advance) / upm_f) as f32,
                bounds,
                pixels,
                pos: (0, 0),
            }
        })
        .collect();
    let (aw, ah) = pack(&mut glyphs)?;
    let channels = format.code().channels().unwrap_or(1) as usize;

    let mut warnings: Vec<String> = note.into_iter().collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing
            .iter()
            .take(16)
            .map(|c| format!("U+{:04X}", *c as u32))
            .collect();
        warnings.push(format!(
            "{} of {} requested characters have no glyph in the font: {}{}",
            missing.len(),
            charset.len(),
            shown.join(" "),
            if missing.len() > 16 { " ..." } else { "" }
        ));
    }

    let kerning = if found.len() <= MAX_KERNED_GLYPHS {
        kerning_pairs(&face, &found, upm_f)
    } else {
        warnings.push(format!(
            "kerning left out: {} glyphs (pairs are looked up for at most {MAX_KERNED_GLYPHS})",
            found.len()
        ));
        Vec::new()
    };

    if kerning.len() as u64 > u64::from(caf::font::MAX_FONT_KERNING) {
        return Err(ImportError::LimitExceeded {
            what: "kerning pairs",
            value: kerning.len() as u64,
            limit: caf::font::MAX_FONT_KERNING.into(),
        });
    }
    let payload = font_payload(&glyphs, &kerning, (aw, ah), channels, em);
    let meta = caf::font::FontMetadata {
        version: caf::font::FontMetadata::VERSION,
        format: format.code().0,
        atlas_width: aw,
        atlas_height: ah,
        glyph_count: glyphs.len() as u32,
        kerning_count: kerning.len() as u32,
        em_size: em as f32,
        distance_range: range as f32,
        ascent: (f64::from(face.ascender()) / upm_f) as f32,
        descent: (f64::from(face.descender()) / upm_f) as f32,
        line_gap: (f64::from(face.line_gap()) / upm_f) as f32,
        units_per_em: upm.into(),
        reserved: 0,
    };
    Ok(FontData {
        meta,
        payload,
        missing,
        warnings,
    })
}

/// A glyph to render: its character, glyph id and pixel box in the atlas (`None` without an
/// outline).
type GlyphPlan = (char, GlyphId, Option<[i64; 4]>);

/// Every found glyph with its pixel box in the atlas, after checking that each glyph and all
/// of them together fit the largest atlas: sizes are checked before any pixel is allocated.
fn plan_glyphs(
    face: &Face<'_>,
    found: &[(char, GlyphId)],
    scale: f64,
    margin: i64,
) -> Result<Vec<GlyphPlan>> {
    let max_side = i64::from(caf::font::MAX_FONT_ATLAS_SIDE);
    let mut plans = Vec::with_capacity(found.len());
    let mut area = 0u64;
    for &(c, gid) in found {
        let bounds = face
            .glyph_bounding_box(gid)
            .filter(|r| r.x_max > r.x_min && r.y_max > r.y_min)
            .map(|r| pixel_box(r, scale, margin));
        if let Some([l, b, r, t]) = bounds {
            if r - l > max_side || t - b > max_side {
                return Err(ImportError::LimitExceeded {
                    what: "glyph size in the atlas (pixels)",
                    value: (r - l).max(t - b) as u64,
                    limit: max_side as u64,
                });
            }
            area += ((r - l) * (t - b)) as u64;
        }
        plans.push((c, gid, bounds));
    }
    let max_area = u64::from(caf::font::MAX_FONT_ATLAS_SIDE).pow(2);
    if area > max_area {
        return Err(ImportError::LimitExceeded {
            what: "glyph area of the atlas (pixels)",
            value: area,
            limit: max_area,
        });
    }
    Ok(plans)
}

/// The kerning pairs of the found glyphs (GPOS pair adjustments, else the `kern` table), in
/// (left, right) order because `found` is in codepoint order; zero adjustments left out.
fn kerning_pairs(
    face: &Face<'_>,
    found: &[(char, GlyphId)],
    upm_f: f64,
) -> Vec<caf::font::KerningRecord> {
    let mut kerning = Vec::new();
    let lookups = gpos_kern_lookups(face);
    let has_kern = face.tables().kern.is_some();
    for &(lc, lg) in found {
        for &(rc, rg) in found {
            let v = gpos_pair(&lookups, lg, rg).or_else(|| {
                if has_kern {
                    kern_table(face, lg, rg)
                } else {
                    None
                }
            });
            if let Some(v) = v.filter(|&v| v != 0) {
                kerning.push(caf::font::KerningRecord {
                    left: lc as u32,
                    right: rc as u32,
                    adjust: (f64::from(v) / upm_f) as f32,
                });
            }
        }
    }
    kerning
}

/// The font payload: the glyph records (plane bounds in em), the kerning records and the
/// `size` atlas with every glyph's pixels at its packed position.
fn font_payload(
    glyphs: &[Glyph],
    kerning: &[caf::font::KerningRecord],
    (aw, ah): (u32, u32),
    channels: usize,
    em: u32,
) -> Vec<u8> {
    let atlas_len = aw as usize * ah as usize * channels;
    let mut payload = Vec::with_capacity(
        glyphs.len() * caf::font::GlyphRecord::SIZE
            + kerning.len() * caf::font::KerningRecord::SIZE
            + atlas_len,
    );
    let emf = f64::from(em);
    for g in glyphs {
        let (w, h) = g.size();
        let [l, b, r, t] = g.bounds.unwrap_or([0; 4]);
        let rec = caf::font::GlyphRecord {
            codepoint: g.cp,
            atlas_x: g.pos.0 as u16,
            atlas_y: g.pos.1 as u16,
            atlas_width: w as u16,
            atlas_height: h as u16,
            plane_left: (l as f64 / emf) as f32,
            plane_bottom: (b as f64 / emf) as f32,
            plane_right: (r as f64 / emf) as f32,
            plane_top: (t as f64 / emf) as f32,
            advance: g.advance,
        };
        payload.extend_from_slice(&rec.to_bytes());
    }
    for k in kerning {
        payload.extend_from_slice(&k.to_bytes());
    }
    let base = payload.len();
    payload.resize(base + atlas_len, 0);
    let atlas = &mut payload[base..];
    for g in glyphs {
        let (w, h) = g.size();
        let row = w as usize * channels;
        for y in 0..h as usize {
            let dst = ((g.pos.1 as usize + y) * aw as usize + g.pos.0 as usize) * channels;
            atlas[dst..dst + row].copy_from_slice(&g.pixels[y * row..(y + 1) * row]);
        }
    }
    payload
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charset_parses_merges_and_prints() {
        let c = Charset::parse("160-255, 32-126,0x41,U+0100-U+0101").unwrap();
        assert_eq!(c.to_spec(), "32-126,160-257");
        assert_eq!(c.len(), 95 + 98);
        assert_eq!(Charset::parse(&c.to_spec()).unwrap(), c);
        assert_eq!(Charset::default().to_spec(), DEFAULT_CHARSET);
        assert_eq!(
            Charset::parse("0xD7FF-0xE000").unwrap().chars().count(),
            2,
            "surrogates are skipped"
        );
        assert!(matches!(
            Charset::parse(" , "),
            Err(ImportError::Empty { .. })
        ));
        assert!(matches!(
            Charset::parse("90-65"),
            Err(ImportError::InvalidArgument(_))
        ));
        assert!(matches!(
            Charset::parse("abc"),
            Err(ImportError::InvalidArgument(_))
        ));
        assert!(matches!(
            Charset::parse("0x110000"),
            Err(ImportError::InvalidArgument(_))
        ));
        assert!(matches!(
            Charset::parse("0-0x10FFFF"),
            Err(ImportError::LimitExceeded { .. })
        ));
        let t = Charset::from_text("héllo\n").unwrap();
        assert_eq!(t.chars().collect::<String>(), "hlo\u{e9}");
        assert!(Charset::from_text("\n\t").is_err());
    }

    fn glyph(cp: u32, w: i64, h: i64) -> Glyph {
        Glyph {
            cp,
            advance: 0.5,
            bounds: (w > 0).then_some([0, 0, w, h]),
            pixels: Vec::new(),
            pos: (0, 0),
        }
    }

    #[test]
    fn packer_places_without_overlap() {
        let mut gs: Vec<Glyph> = (0..200u32)
            .map(|i| glyph(i, 5 + i64::from(i % 13), 7 + i64::from(i % 17)))
            .chain([glyph(500, 0, 0)])
            .collect();
        let (w, h) = pack(&mut gs).unwrap();
        assert!(w.is_power_of_two() && h % 4 == 0);
        let rects: Vec<(u32, u32, u32, u32)> = gs
            .iter()
            .filter(|g| g.size().0 > 0)
            .map(|g| (g.pos.0, g.pos.1, g.size().0, g.size().1))
            .collect();
        for (i, a) in rects.iter().enumerate() {
            assert!(a.0 + a.2 <= w && a.1 + a.3 <= h);
            for b in &rects[i + 1..] {
                let apart =
                    a.0 + a.2 <= b.0 || b.0 + b.2 <= a.0 || a.1 + a.3 <= b.1 || b.1 + b.3 <= a.1;
                assert!(apart, "{a:?} overlaps {b:?}");
            }
        }
    }
}
