//! Font assets from the command line: `asset convert` of a TTF (DejaVu Sans from Debian's
//! `fonts-dejavu-core`, installed by `.ci/run`) with `--charset`, `--charset-file` and `--size`,
//! `asset info` describing the result, `asset build` picking up `.ttf`, and the unhappy paths.

mod common;
use common::{cli, cli_err, cli_json, cli_ok, run};

use std::path::Path;

const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// A copy of DejaVu Sans in `dir`; a missing font fails the test (CI installs the package).
fn dejavu(dir: &Path) -> std::path::PathBuf {
    let bytes = std::fs::read(DEJAVU).unwrap_or_else(|e| {
        panic!("{DEJAVU}: {e}; install the Debian package fonts-dejavu-core (as .ci/run does)")
    });
    let p = dir.join("DejaVuSans.ttf");
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn convert_and_info_a_font() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    dejavu(d);
    let (c, out, e) = cli(
        d,
        "asset convert DejaVuSans.ttf font.caf --charset 65-90,0x61-0x7A --size 24",
    );
    assert_eq!(c, 0, "{e}");
    assert!(out.contains("font 52 glyphs"), "{out}");
    assert!(e.is_empty(), "no warnings expected: {e}");
    let j = cli_json(d, "asset info font.caf --json");
    assert_eq!(j["type_name"], "font");
    assert_eq!(j["metadata"]["glyph_count"], 52);
    assert_eq!(j["metadata"]["em_size"], 24.0);
    assert_eq!(j["metadata"]["format_name"], "sdf");
    let out = cli_ok(d, "asset info font.caf");
    assert!(out.contains("52 glyph(s) U+0041..U+007A"), "{out}");
    cli_ok(d, "asset check --typed font.caf");

    // A text file of characters, MSDF; a character the font lacks is a warning, not a failure.
    std::fs::write(d.join("chars.txt"), "Hello \u{10FFFD}\n").unwrap();
    let j = cli_json(
        d,
        "asset convert DejaVuSans.ttf hello.caf --charset-file chars.txt --font-format msdf --json",
    );
    assert_eq!(j["type"], "font");
    assert_eq!(j["settings"]["charset"], "32,72,101,108,111,1114109");
    assert!(
        j["warnings"][0].as_str().unwrap().contains("U+10FFFD"),
        "{out}"
    );
    let j = cli_json(d, "asset info --json hello.caf");
    assert_eq!(j["metadata"]["glyph_count"], 5);
    assert_eq!(j["metadata"]["format_name"], "msdf");
}

#[test]
fn build_converts_ttf_with_a_sidecar() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::create_dir(d.join("src")).unwrap();
    dejavu(&d.join("src"));
    std::fs::write(
        d.join("src/DejaVuSans.ttf.toml"),
        "charset = \"48-57\"\nfont_size = 16\n",
    )
    .unwrap();
    let out = cli_ok(d, "asset build src out");
    assert!(out.contains("font 10 glyphs"), "{out}");
    let j = cli_json(d, "asset info --json out/DejaVuSans.caf");
    assert_eq!(j["metadata"]["glyph_count"], 10);
}

#[test]
fn font_unhappy_paths() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let font = dejavu(d);
    // A truncated font: exit 1, the file named, nothing written.
    let bytes = std::fs::read(&font).unwrap();
    std::fs::write(d.join("cut.ttf"), &bytes[..2000]).unwrap();
    let (c, _, e) = cli(d, "asset convert cut.ttf cut.caf");
    assert_eq!(c, 1, "{e}");
    assert!(e.contains("cut.ttf") && e.contains("font"), "{e}");
    assert!(!d.join("cut.caf").exists());
    // A bad or empty character set is refused before anything is read.
    for set in ["", "z-a", "0x110000"] {
        let (c, _, e) = run(
            d,
            &[
                "asset",
                "convert",
                "DejaVuSans.ttf",
                "x.caf",
                "--charset",
                set,
            ],
        );
        assert_ne!(c, 0, "{set:?}");
        assert!(e.contains("character set"), "{set:?}: {e}");
    }
    assert!(!d.join("x.caf").exists());
    // Out-of-range sizes and a bad format name.
    cli_err(
        d,
        "asset convert DejaVuSans.ttf x.caf --size 1",
        1,
        "font size",
    );
    let (c, _, e) = cli(d, "asset convert DejaVuSans.ttf x.caf --font-format psdf");
    assert_eq!(c, 2, "{e}");
    // A missing charset file.
    let (c, _, e) = cli(
        d,
        "asset convert DejaVuSans.ttf x.caf --charset-file nope.txt",
    );
    assert_ne!(c, 0);
    assert!(e.contains("nope.txt"), "{e}");
    assert!(!d.join("x.caf").exists());
}

/// `--font-face N` picks a face of a `.ttc` collection (tested on real collections in
/// caf-import's font tests); on a single font only face 0 exists, and the flag is noted as
/// doing nothing for other inputs.
#[test]
fn font_face_flag_chooses_the_face_of_a_collection() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    dejavu(d);
    let j = cli_json(
        d,
        "asset convert DejaVuSans.ttf f.caf --charset 65-90 --font-face 0 --json",
    );
    assert_eq!(j["settings"]["font_face"], 0);
    cli_err(
        d,
        "asset convert DejaVuSans.ttf g.caf --font-face 1",
        1,
        "font face 1 asked, the file is a single font (face 0)",
    );
    assert!(!d.join("g.caf").exists());
    common::write_wav(&d.join("a.wav"), 100, |i| i as i16);
    let (c, _, e) = cli(d, "asset convert a.wav a.caf --font-face 1");
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("--font-face is for font inputs"), "{e}");
}
