//! `asset export` writes what the output's name says or refuses: `x.jpg` for a texture (PNG)
//! or `x.mp3` for audio (WAV) is a usage error naming the extensions it writes.

mod common;
use common::{cli, cli_ok, write_wav};

#[test]
fn asset_export_refuses_an_extension_of_another_format() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write_wav(&d.join("a.wav"), 2000, |i| (i as i16).wrapping_mul(37));
    cli_ok(d, "asset convert a.wav a.caf");
    for out in ["x.mp3", "x.jpg", "x.ogg"] {
        let (code, _, err) = cli(d, &format!("asset export a.caf {out}"));
        assert_eq!(code, 2, "{out}: {err}");
        assert!(
            err.contains("audio assets export as .wav") && err.contains(out),
            "{out}: {err}"
        );
        assert!(!d.join(out).exists(), "{out} was written");
    }
    // The right extension, in any case, and no extension at all, are written.
    for out in ["x.wav", "y.WAV", "z"] {
        let (code, _, err) = cli(d, &format!("asset export a.caf {out}"));
        assert_eq!(code, 0, "{out}: {err}");
        assert!(std::fs::read(d.join(out)).unwrap().starts_with(b"RIFF"));
    }
}
