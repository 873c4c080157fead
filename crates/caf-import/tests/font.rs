//! Font assets (issue 17 item 4) with Debian's DejaVu fonts (`fonts-dejavu-core`, installed by
//! `.ci/run`): coverage, metrics against ttf-parser, kerning, the sign of the distance field,
//! determinism, the typed view's refusals, export, and the unhappy paths.

use std::path::Path;

use caf::font::FontView;
use caf::Asset;
use caf_import::font::Charset;
use caf_import::{convert, FontFormat, ImportError, Settings, SettingsOverride};
use fdsm_ttf_parser::ttf_parser::Face;

const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// The DejaVu Sans bytes; a missing font fails the test (CI installs the package).
fn dejavu() -> Vec<u8> {
    std::fs::read(DEJAVU).unwrap_or_else(|e| {
        panic!("{DEJAVU}: {e}; install the Debian package fonts-dejavu-core (as .ci/run does)")
    })
}

fn font(bytes: &[u8], settings: &Settings) -> Vec<u8> {
    let c = convert(bytes, Path::new("DejaVuSans.ttf"), settings).unwrap();
    assert_eq!(c.asset_type(), caf::AssetType::FONT);
    c.to_caf_bytes()
}

fn with(charset: &str) -> Settings {
    Settings {
        charset: Some(charset.into()),
        ..Settings::default()
    }
}

#[test]
fn default_charset_is_covered_and_metrics_match_ttf_parser() {
    let ttf = dejavu();
    let c = convert(&ttf, Path::new("DejaVuSans.ttf"), &Settings::default()).unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let file = c.to_caf_bytes();
    let asset = Asset::parse(&file).unwrap();
    let view = FontView::from_asset(&asset).unwrap();
    let face = Face::parse(&ttf, 0).unwrap();
    let upm = f32::from(face.units_per_em());
    // Every requested character is in the table (DejaVu Sans covers all of Latin-1).
    let requested: Vec<char> = Charset::default().chars().collect();
    assert_eq!(requested.len(), 95 + 96);
    assert_eq!(view.glyphs().len(), requested.len());
    for ch in &requested {
        assert!(view.glyph(*ch).is_some(), "U+{:04X} missing", *ch as u32);
    }
    assert!(view.glyph('\u{100}').is_none());
    let m = view.meta;
    assert_eq!((m.version, m.format), (1, 1));
    assert_eq!((m.em_size, m.distance_range), (32.0, 4.0));
    assert_eq!(m.units_per_em, u32::from(face.units_per_em()));
    assert_eq!(m.ascent, f32::from(face.ascender()) / upm);
    assert_eq!(m.descent, f32::from(face.descender()) / upm);
    assert_eq!(m.line_gap, f32::from(face.line_gap()) / upm);
    let margin = 2.0 / m.em_size; // ceil(range / 2) pixels
    for ch in requested {
        let g = view.glyph(ch).unwrap();
        let gid = face.glyph_index(ch).unwrap();
        let adv = f32::from(face.glyph_hor_advance(gid).unwrap()) / upm;
        assert!((g.advance - adv).abs() < 1e-6, "{ch:?} advance");
        match face.glyph_bounding_box(gid) {
            Some(b) if b.x_max > b.x_min => {
                let s = m.em_size / upm; // pixels per font unit
                let px = |v: i16, up: bool| {
                    let p = f32::from(v) * s;
                    (if up { p.ceil() } else { p.floor() }) / m.em_size
                };
                let eps = 1e-5;
                for (plane, outline) in [
                    (g.plane_left + margin, px(b.x_min, false)),
                    (g.plane_right - margin, px(b.x_max, true)),
                    (g.plane_bottom + margin, px(b.y_min, false)),
                    (g.plane_top - margin, px(b.y_max, true)),
                ] {
                    assert!((plane - outline).abs() < eps, "{ch:?}");
                }
                let w = (g.plane_right - g.plane_left) * m.em_size;
                let h = (g.plane_top - g.plane_bottom) * m.em_size;
                assert!((w - f32::from(g.atlas_width)).abs() < 1e-3, "{ch:?}");
                assert!((h - f32::from(g.atlas_height)).abs() < 1e-3, "{ch:?}");
            }
            _ => assert_eq!((g.atlas_width, g.atlas_height), (0, 0), "{ch:?}"),
        }
    }
    // Space has no outline, an advance and no rectangle.
    let space = view.glyph(' ').unwrap();
    assert_eq!(space.atlas_width, 0);
    assert!(space.advance > 0.2);
}

#[test]
fn kerning_av_is_negative_and_sorted() {
    let file = font(&dejavu(), &with("32-126"));
    let asset = Asset::parse(&file).unwrap();
    let view = FontView::from_asset(&asset).unwrap();
    let av = view.kerning('A', 'V');
    assert!(av < 0.0, "A V kerning {av}");
    assert!(view.kerning('T', 'o') < 0.0);
    assert_eq!(view.kerning('H', 'H'), 0.0);
    assert!(view.kerning_pairs().len() > 100);
    let pairs: Vec<(u32, u32)> = view
        .kerning_pairs()
        .iter()
        .map(|k| (k.left, k.right))
        .collect();
    assert!(pairs.windows(2).all(|w| w[0] < w[1]));
}

/// The atlas value at the centre of a glyph's rectangle, offset by (dx, dy) pixels.
fn centre(view: &FontView<'_>, ch: char, dx: i32, dy: i32) -> Vec<u8> {
    let g = view.glyph(ch).unwrap();
    let x = i32::from(g.atlas_x) + i32::from(g.atlas_width) / 2 + dx;
    let y = i32::from(g.atlas_y) + i32::from(g.atlas_height) / 2 + dy;
    view.atlas_pixel(x as u32, y as u32).unwrap().to_vec()
}

fn median(p: &[u8]) -> u8 {
    let mut v = [p[0], p[1], p[2]];
    v.sort_unstable();
    v[1]
}

#[test]
fn distance_field_is_positive_inside() {
    for format in [FontFormat::Sdf, FontFormat::Msdf, FontFormat::Mtsdf] {
        let s = Settings {
            charset: Some("73,79,32".into()), // I, O, space
            font_format: format,
            font_size: Some(48),
            sdf_range: Some(6),
            ..Settings::default()
        };
        let file = font(&dejavu(), &s);
        let asset = Asset::parse(&file).unwrap();
        let view = FontView::from_asset(&asset).unwrap();
        assert_eq!(view.format(), format.code());
        let value = |p: Vec<u8>| if p.len() == 1 { p[0] } else { median(&p) };
        // The stem of 'I' is inside; the hole of 'O' is outside.
        assert!(value(centre(&view, 'I', 0, 0)) > 128, "{format}: I stem");
        assert!(value(centre(&view, 'O', 0, 0)) < 127, "{format}: O hole");
        // The rectangle's corners are in the margin, outside the outline.
        let g = view.glyph('I').unwrap();
        let corner = view
            .atlas_pixel(u32::from(g.atlas_x), u32::from(g.atlas_y))
            .unwrap();
        assert!(value(corner.to_vec()) < 100, "{format}: corner");
        // Along the 'I' stem's row, inside then outside: values fall moving right.
        let inside = value(centre(&view, 'I', 0, 0));
        let edge = value(centre(&view, 'I', i32::from(g.atlas_width) / 2 - 1, 0));
        assert!(inside > edge, "{format}: {inside} > {edge}");
        if format == FontFormat::Mtsdf {
            assert!(centre(&view, 'I', 0, 0)[3] > 128, "true SDF in alpha");
        }
    }
}

#[test]
fn same_input_same_bytes() {
    let ttf = dejavu();
    for format in [FontFormat::Sdf, FontFormat::Msdf] {
        let s = Settings {
            charset: Some("32-126".into()),
            font_format: format,
            ..Settings::default()
        };
        let a = font(&ttf, &s);
        let b = font(&ttf, &s);
        assert!(a == b, "{format}: two conversions differ");
        // Written the other way round, the same set gives the same file.
        let s2 = Settings {
            charset: Some("80-126, 32-79".into()),
            ..s
        };
        assert!(font(&ttf, &s2) == a);
    }
}

#[test]
fn missing_glyphs_are_reported() {
    let ttf = dejavu();
    // U+10FFFD (private use, plane 16) is in no DejaVu font.
    let c = convert(&ttf, Path::new("f.ttf"), &with("65,0x10FFFD")).unwrap();
    assert_eq!(c.warnings.len(), 1);
    assert!(c.warnings[0].contains("U+10FFFD"), "{}", c.warnings[0]);
    let file = c.to_caf_bytes();
    let asset = Asset::parse(&file).unwrap();
    assert_eq!(FontView::from_asset(&asset).unwrap().glyphs().len(), 1);
    // Nothing at all found is an error, not an empty font.
    let e = convert(&ttf, Path::new("f.ttf"), &with("0x10FFFD")).unwrap_err();
    assert!(matches!(e, ImportError::Empty { .. }), "{e}");
}

#[test]
fn unhappy_paths_are_typed_errors() {
    let ttf = dejavu();
    let p = Path::new("f.ttf");
    for n in [0, 12, 100, 4096] {
        let e = convert(&ttf[..n], p, &Settings::default()).unwrap_err();
        assert!(matches!(e, ImportError::Malformed { .. }), "{n} bytes: {e}");
    }
    let e = convert(b"not a font at all", p, &Settings::default()).unwrap_err();
    assert!(matches!(e, ImportError::Malformed { .. }), "{e}");
    let e = convert(&ttf, p, &with("")).unwrap_err();
    assert!(matches!(e, ImportError::Empty { .. }), "{e}");
    let e = convert(&ttf, p, &with("90-65")).unwrap_err();
    assert!(matches!(e, ImportError::InvalidArgument(_)), "{e}");
    for (size, range) in [(Some(2), None), (Some(100_000), None), (None, Some(0))] {
        let s = Settings {
            font_size: size,
            sdf_range: range,
            ..Settings::default()
        };
        let e = convert(&ttf, p, &s).unwrap_err();
        assert!(matches!(e, ImportError::InvalidArgument(_)), "{e}");
    }
    let e = convert(&ttf, p, &Settings::original()).unwrap_err();
    assert!(matches!(e, ImportError::Unsupported { .. }), "{e}");
    // A cut font that still parses its header tables must not panic either: every length.
    for n in (0..ttf.len()).step_by(ttf.len() / 97) {
        let _ = convert(&ttf[..n], p, &with("65-70"));
    }
}

/// Offsets into a converted file: metadata at 32, payload at 32 + 48.
const PAYLOAD: usize = 32 + 48;

fn reparse(mut file: Vec<u8>, edit: impl FnOnce(&mut [u8])) -> Result<(), caf::CafError> {
    edit(&mut file);
    // Recompute both CRCs so only the typed view can object.
    let n = file.len();
    let meta_len = u64::from_le_bytes(file[16..24].try_into().unwrap()) as usize;
    let payload_crc = caf::crc32(&file[32 + meta_len..n - 4]);
    file[12..16].copy_from_slice(&payload_crc.to_le_bytes());
    let footer = caf::crc32(&file[..n - 4]);
    file[n - 4..].copy_from_slice(&footer.to_le_bytes());
    let asset = Asset::parse(&file)?;
    FontView::from_asset(&asset).map(|_| ())
}

#[test]
fn view_refuses_damaged_tables() {
    let file = font(&dejavu(), &with("65-90"));
    assert!(reparse(file.clone(), |_| {}).is_ok());
    let bad_meta = |r: Result<(), caf::CafError>, field: &str| match r {
        Err(caf::CafError::BadMetadata { field: f, .. }) => assert_eq!(f, field),
        other => panic!("{field}: {other:?}"),
    };
    bad_meta(reparse(file.clone(), |f| f[32] = 2), "version");
    bad_meta(reparse(file.clone(), |f| f[34] = 9), "format");
    bad_meta(
        reparse(file.clone(), |f| {
            f[52..56].copy_from_slice(&f32::NAN.to_le_bytes())
        }),
        "em_size",
    );
    bad_meta(reparse(file.clone(), |f| f[76] = 1), "reserved");
    // Glyph count one larger: the payload no longer matches.
    let r = reparse(file.clone(), |f| f[44] += 1);
    assert!(matches!(r, Err(caf::CafError::PayloadSize { .. })), "{r:?}");
    // Second glyph's codepoint made equal to the first: not sorted.
    let r = reparse(file.clone(), |f| f[PAYLOAD + 32] = b'A');
    assert!(matches!(r, Err(caf::CafError::Malformed { .. })), "{r:?}");
    // First glyph's rectangle pushed past the atlas.
    let r = reparse(file.clone(), |f| {
        f[PAYLOAD + 4..PAYLOAD + 6].copy_from_slice(&u16::MAX.to_le_bytes())
    });
    assert!(matches!(r, Err(caf::CafError::Malformed { .. })), "{r:?}");
    // First kerning pair names a codepoint without a glyph.
    let kern = PAYLOAD + 26 * 32;
    let r = reparse(file.clone(), |f| f[kern] = b'a');
    assert!(matches!(r, Err(caf::CafError::Malformed { .. })), "{r:?}");
}

#[test]
fn export_writes_a_png_and_msdf_atlas_gen_json() {
    let s = Settings {
        charset: Some("65-90".into()),
        font_format: FontFormat::Msdf,
        ..Settings::default()
    };
    let file = font(&dejavu(), &s);
    let asset = Asset::parse(&file).unwrap();
    let view = FontView::from_asset(&asset).unwrap();
    let t = tempfile::tempdir().unwrap();
    let (png, json) = (t.path().join("a.png"), t.path().join("a.json"));
    let files = caf_import::export::export(file.clone(), &png, &Default::default()).unwrap();
    let paths: Vec<_> = files.iter().map(|f| f.path.clone()).collect();
    assert_eq!(paths, [png.clone(), json.clone()]);
    caf_import::export::write_files(&files).unwrap();
    let img = image::open(&png).unwrap().into_rgb8();
    assert_eq!(
        (img.width(), img.height()),
        (view.meta.atlas_width, view.meta.atlas_height)
    );
    assert_eq!(img.as_raw().as_slice(), view.atlas());
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["atlas"]["type"], "msdf");
    assert_eq!(doc["glyphs"].as_array().unwrap().len(), 26);
    let a = &doc["glyphs"][0];
    let g = view.glyph('A').unwrap();
    assert_eq!(a["unicode"], 65);
    assert_eq!(a["atlasBounds"]["left"], g.atlas_x);
    assert_eq!(
        a["planeBounds"]["top"].as_f64().unwrap() as f32,
        g.plane_top
    );
    let kern = doc["kerning"].as_array().unwrap();
    assert_eq!(kern.len(), view.kerning_pairs().len());
}

#[test]
fn sidecar_keys_set_font_options() {
    let o = SettingsOverride::from_toml(
        "charset = \"48-57\"\nfont_size = 20\nsdf_range = 3\nfont_format = \"mtsdf\"\n",
        Path::new("f.ttf.toml"),
    )
    .unwrap();
    let s = Settings::default().with_override(&o);
    let file = font(&dejavu(), &s);
    let asset = Asset::parse(&file).unwrap();
    let view = FontView::from_asset(&asset).unwrap();
    assert_eq!(view.glyphs().len(), 10);
    assert_eq!((view.meta.em_size, view.meta.distance_range), (20.0, 3.0));
    assert_eq!(view.channels(), 4);
    assert!(SettingsOverride::from_toml("font_format = \"psdf\"\n", Path::new("x")).is_err());
}

/// A TrueType collection of `fonts`: the `ttcf` header, then each font with its table offsets
/// moved to where it lands in the file.
fn collection(fonts: &[&[u8]]) -> Vec<u8> {
    let be32 = |b: &[u8], at: usize| u32::from_be_bytes(b[at..at + 4].try_into().unwrap());
    let mut out = b"ttcf".to_vec();
    out.extend_from_slice(&[0, 1, 0, 0]);
    out.extend_from_slice(&(fonts.len() as u32).to_be_bytes());
    let mut at = 12 + 4 * fonts.len();
    let mut bodies = Vec::new();
    for font in fonts {
        out.extend_from_slice(&(at as u32).to_be_bytes());
        let mut body = font.to_vec();
        let tables = usize::from(u16::from_be_bytes([font[4], font[5]]));
        for t in 0..tables {
            let slot = 12 + 16 * t + 8;
            let moved = be32(font, slot) + at as u32;
            body[slot..slot + 4].copy_from_slice(&moved.to_be_bytes());
        }
        body.resize(body.len().next_multiple_of(4), 0);
        at += body.len();
        bodies.push(body);
    }
    out.extend(bodies.concat());
    out
}

#[test]
fn a_truetype_collection_imports_its_first_face_or_the_one_asked() {
    const BOLD: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
    let bold = std::fs::read(BOLD).unwrap_or_else(|e| panic!("{BOLD}: {e}"));
    let regular = dejavu();
    let ttc = collection(&[&regular, &bold]);
    let path = Path::new("DejaVu.ttc");
    let advance = |c: &caf_import::Converted| {
        let file = c.to_caf_bytes();
        let asset = Asset::parse(&file).unwrap();
        FontView::from_asset(&asset)
            .unwrap()
            .glyph('W')
            .unwrap()
            .advance
    };
    let upm = |font: &[u8]| {
        let face = Face::parse(font, 0).unwrap();
        let w = face.glyph_index('W').unwrap();
        f32::from(face.glyph_hor_advance(w).unwrap()) / f32::from(face.units_per_em())
    };
    // The first face by default, with a warning that there are others.
    let first = convert(&ttc, path, &with("32-126")).unwrap();
    assert_eq!(first.asset_type(), caf::AssetType::FONT);
    assert_eq!(first.warnings.len(), 1, "{:?}", first.warnings);
    assert!(first.warnings[0].contains("2 faces: face 0 converted"));
    assert!((advance(&first) - upm(&regular)).abs() < 1e-6);
    // The one asked for, silently; a sidecar key works the same way.
    let o = SettingsOverride::from_toml("font_face = 1\n", Path::new("DejaVu.ttc.toml")).unwrap();
    let second = convert(&ttc, path, &with("32-126").with_override(&o)).unwrap();
    assert!(second.warnings.is_empty(), "{:?}", second.warnings);
    assert!((advance(&second) - upm(&bold)).abs() < 1e-6);
    assert_ne!(upm(&regular), upm(&bold));
    // A collection of no fonts, and a face the file does not have.
    let empty = collection(&[]);
    match convert(&empty, path, &with("32-126")) {
        Err(e @ ImportError::Malformed { .. }) => assert!(e.to_string().contains("no fonts")),
        other => panic!("{:?}", other.map(|c| c.summary)),
    }
    for (bytes, face, needle) in [
        (&ttc, 2, "font face 2 asked, the collection has 2 (0..=1)"),
        (&regular, 1, "font face 1 asked, the file is a single font"),
    ] {
        let s = Settings {
            font_face: Some(face),
            ..with("32-126")
        };
        match convert(bytes, path, &s) {
            Err(e @ ImportError::InvalidArgument(_)) => {
                assert!(e.to_string().contains(needle), "{e}")
            }
            other => panic!("{:?}", other.map(|c| c.summary)),
        }
    }
}
