//! Font assets out: the atlas as a PNG (gray for SDF, RGB for MSDF, RGBA for MTSDF) and a JSON
//! file of metrics, glyphs and kerning in the layout of msdf-atlas-gen's JSON (`atlas`,
//! `metrics`, `glyphs` with `planeBounds` / `atlasBounds`, `kerning`), so existing text
//! renderers can read it. Metrics are in ems; `atlasBounds` are pixels with `yOrigin` "top".
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ttf = std::fs::read("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")?;
//! use caf_import::{convert, export, Settings};
//! let s = Settings { charset: Some("65-90".into()), ..Settings::default() };
//! let file = convert(&ttf, std::path::Path::new("f.ttf"), &s)?.to_caf_bytes();
//! let asset = caf::Asset::parse(&file)?;
//! let view = caf::font::FontView::from_asset(&asset)?;
//! let (png, json) = export::font::export_font(&view)?;
//! assert!(png.starts_with(b"\x89PNG"));
//! assert_eq!(json["glyphs"].as_array().map(Vec::len), Some(26));
//! # Ok(()) }
//! ```

use std::io::Cursor;
use std::path::Path;

use serde_json::{json, Value};

use super::{ExportError, ExportFile};
use crate::error::{ImportError, Result};

/// The atlas as PNG bytes and the metrics as a JSON value.
pub fn export_font(view: &caf::font::FontView<'_>) -> Result<(Vec<u8>, Value)> {
    let m = &view.meta;
    let color = match view.channels() {
        1 => image::ExtendedColorType::L8,
        3 => image::ExtendedColorType::Rgb8,
        _ => image::ExtendedColorType::Rgba8,
    };
    let mut png = Vec::new();
    let enc = image::codecs::png::PngEncoder::new(Cursor::new(&mut png));
    image::ImageEncoder::write_image(enc, view.atlas(), m.atlas_width, m.atlas_height, color)
        .map_err(|e| ImportError::malformed("font", format!("atlas PNG: {e}")))?;
    let glyphs: Vec<Value> = view
        .glyphs()
        .iter()
        .map(|g| {
            let mut j = json!({"unicode": g.codepoint, "advance": g.advance});
            if g.atlas_width > 0 {
                j["planeBounds"] = json!({
                    "left": g.plane_left, "bottom": g.plane_bottom,
                    "right": g.plane_right, "top": g.plane_top,
                });
                j["atlasBounds"] = json!({
                    "left": g.atlas_x,
                    "top": g.atlas_y,
                    "right": u32::from(g.atlas_x) + u32::from(g.atlas_width),
                    "bottom": u32::from(g.atlas_y) + u32::from(g.atlas_height),
                });
            }
            j
        })
        .collect();
    let kerning: Vec<Value> = view
        .kerning_pairs()
        .iter()
        .map(|k| json!({"unicode1": k.left, "unicode2": k.right, "advance": k.adjust}))
        .collect();
    let doc = json!({
        "atlas": {
            "type": view.format().name().unwrap_or("sdf"),
            "distanceRange": m.distance_range,
            "size": m.em_size,
            "width": m.atlas_width,
            "height": m.atlas_height,
            "yOrigin": "top",
        },
        "metrics": {
            "emSize": 1,
            "lineHeight": view.line_height(),
            "ascender": m.ascent,
            "descender": m.descent,
            "lineGap": m.line_gap,
            "unitsPerEm": m.units_per_em,
        },
        "glyphs": glyphs,
        "kerning": kerning,
    });
    Ok((png, doc))
}

/// The export of a font asset: the atlas PNG at `out` and the JSON beside it (`out` with
/// extension `.json`).
pub fn export(asset: &caf::Asset<'_>, out: &Path) -> super::Result<Vec<ExportFile>> {
    let view = caf::font::FontView::from_asset(asset)?;
    let (png, doc) = export_font(&view).map_err(|e| ExportError::Encode {
        format: "PNG",
        message: e.to_string(),
    })?;
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    let m = &view.meta;
    Ok(vec![
        ExportFile {
            path: out.to_path_buf(),
            bytes: png,
            what: format!("PNG {}x{} font atlas", m.atlas_width, m.atlas_height),
        },
        ExportFile {
            path: out.with_extension("json"),
            bytes: text.into_bytes(),
            what: format!(
                "JSON of {} glyphs, {} kerning pairs",
                m.glyph_count, m.kerning_count
            ),
        },
    ])
}
