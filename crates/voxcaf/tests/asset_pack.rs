//! `.cafpack` archives from the command line: `asset build --pack`, `asset check` and
//! `asset extract` (one member or all) on packs, with their unhappy paths.

mod common;
use common::{cli, cli_err, cli_json, cli_ok, cli_out, run, write_wav};

use std::path::Path;

/// A 16-bit mono WAV of `frames` frames.
fn wav(path: &Path, frames: u32) {
    write_wav(path, frames, |i| (i * 37 % 2000) as i16);
}

/// A `w` x `h` uncompressed 32-bit TGA, top-left origin; pixel (x, y) is RGBA (x, y, 7, 255).
fn tga(path: &Path, w: u16, h: u16) {
    let mut b = vec![0u8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    b.extend_from_slice(&w.to_le_bytes());
    b.extend_from_slice(&h.to_le_bytes());
    b.extend_from_slice(&[32, 0x28]);
    for y in 0..h {
        for x in 0..w {
            b.extend_from_slice(&[7, y as u8, x as u8, 255]); // BGRA
        }
    }
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).unwrap();
    }
    std::fs::write(path, b).unwrap();
}

fn build_pack(d: &Path) {
    wav(&d.join("src/a.wav"), 1000);
    wav(&d.join("src/sub/b.wav"), 3000);
    tga(&d.join("src/tex/hero.tga"), 8, 4);
    let out = cli_ok(d, "asset build src out --pack game.cafpack");
    assert!(out.contains("game.cafpack (3 assets"), "{out}");
}

#[test]
fn build_pack_is_pack_dir_of_the_build() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    build_pack(d);
    // One code path: the same bytes as pack-dir of the build output.
    assert_eq!(cli(d, "asset pack-dir out again.cafpack").0, 0);
    assert_eq!(
        std::fs::read(d.join("game.cafpack")).unwrap(),
        std::fs::read(d.join("again.cafpack")).unwrap()
    );
    // JSON names the pack.
    let out = cli_ok(d, "asset build src out --pack game.cafpack --json");
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(j["pack"]["assets"], 3, "{j}");
    // The default profile aligns plain payloads in the file: the texture's metadata is padded.
    let hero = caf::LoadedAsset::open(&d.join("out/tex/hero.caf")).unwrap();
    assert_eq!(hero.metadata().len(), 32);
    assert_eq!((32 + hero.metadata().len()) % 16, 0);
    assert!(caf::texture::TextureView::from_asset(&hero.asset()).is_ok());

    // Unhappy paths: the pack inside the output or source folder, a non-pack name, an
    // existing file that is not a pack; a build with failures writes no pack.
    for bad in ["out/x.cafpack", "src/x.cafpack", "x.zip"] {
        let (c, _, e) = run(d, &["asset", "build", "src", "out", "--pack", bad]);
        assert_eq!(c, 2, "{bad}: {e}");
    }
    std::fs::write(d.join("notes.cafpack"), "mine").unwrap();
    assert_eq!(cli(d, "asset build src out --pack notes.cafpack").0, 2);
    std::fs::write(d.join("src/broken.png"), b"not a png").unwrap();
    cli_err(
        d,
        "asset build src out --pack fail.cafpack",
        1,
        "not packed",
    );
    assert!(!d.join("fail.cafpack").exists());
}

#[test]
fn check_and_extract_packs() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    build_pack(d);
    let out = cli_ok(d, "asset check --typed game.cafpack");
    assert!(out.contains("game.cafpack:sub/b.caf"), "{out}");
    assert!(out.contains("3 of 3 files valid"), "{out}");
    let j = cli_json(d, "asset check --json game.cafpack");
    assert_eq!(j.as_array().unwrap().len(), 3);

    // One member: whole, or its payload.
    cli_ok(
        d,
        "asset extract game.cafpack --member tex/hero.caf --out x/hero.caf --payload x/hero.rgba",
    );
    assert_eq!(
        std::fs::read(d.join("x/hero.caf")).unwrap(),
        std::fs::read(d.join("out/tex/hero.caf")).unwrap()
    );
    let rgba = std::fs::read(d.join("x/hero.rgba")).unwrap();
    assert_eq!(&rgba[..4], &[0, 0, 7, 255]);
    // All members.
    cli_ok(d, "asset extract game.cafpack --all unpacked");
    for m in ["a.caf", "sub/b.caf", "tex/hero.caf"] {
        assert_eq!(
            std::fs::read(d.join("unpacked").join(m)).unwrap(),
            std::fs::read(d.join("out").join(m)).unwrap(),
            "{m}"
        );
    }

    extract_refusals(d);
    damaged_members_and_index(d);
}

/// What `asset extract` refuses on [`build_pack`]'s pack in `d`, writing nothing.
fn extract_refusals(d: &Path) {
    cli_err(d, "asset extract game.cafpack --payload p", 2, "--member");
    cli_err(
        d,
        "asset extract game.cafpack --member nope.caf --out n.caf",
        1,
        "nope.caf",
    );
    assert!(!d.join("n.caf").exists());
    let (c, _, e) = cli(d, "asset extract out/a.caf --member a.caf --out y.caf");
    assert_eq!(c, 2, "--member on a .caf: {e}");
    let (c, _, _) = cli(d, "asset extract game.cafpack --all u2 --member a.caf");
    assert_eq!(c, 2, "--all and --member conflict");
    // An existing file that is not an asset is kept without --force.
    std::fs::write(d.join("unpacked/a.caf"), "notes").unwrap();
    assert_eq!(cli(d, "asset extract game.cafpack --all unpacked").0, 2);
    assert_eq!(
        cli(d, "asset extract game.cafpack --all unpacked --force").0,
        0
    );
    // A link inside the folder pointing elsewhere would let a member escape: refused, and
    // nothing is written.
    #[cfg(unix)]
    {
        std::fs::create_dir_all(d.join("elsewhere")).unwrap();
        std::fs::create_dir_all(d.join("u3")).unwrap();
        std::os::unix::fs::symlink(d.join("elsewhere"), d.join("u3/tex")).unwrap();
        cli_err(d, "asset extract game.cafpack --all u3", 1, "outside");
        assert!(!d.join("elsewhere/hero.caf").exists());
        assert!(!d.join("u3/a.caf").exists(), "checked before writing");
    }
}

/// A damaged member fails `check` by name and cannot be extracted; a damaged index fails the
/// whole pack.
fn damaged_members_and_index(d: &Path) {
    let pack = caf::pack::Pack::open(&d.join("game.cafpack")).unwrap();
    let e = *pack.find("sub/b.caf").unwrap();
    let mut b = std::fs::read(d.join("game.cafpack")).unwrap();
    b[(e.offset + e.size - 10) as usize] ^= 1;
    std::fs::write(d.join("bad.cafpack"), &b).unwrap();
    let out = cli_out(d, "asset check bad.cafpack", 1);
    assert!(out.contains("FAIL  bad.cafpack:sub/b.caf"), "{out}");
    assert!(out.contains("2 of 3 files valid"), "{out}");
    let (c, _, e) = cli(
        d,
        "asset extract bad.cafpack --member sub/b.caf --out b.caf",
    );
    assert_eq!(c, 1, "{e}");
    assert!(!d.join("b.caf").exists());
    // A damaged index: one failing line for the pack.
    let n = b.len();
    b[n - 2] ^= 1;
    std::fs::write(d.join("bad2.cafpack"), &b).unwrap();
    let out = cli_out(d, "asset check bad2.cafpack", 1);
    assert!(out.contains("FAIL  bad2.cafpack ["), "{out}");
}
