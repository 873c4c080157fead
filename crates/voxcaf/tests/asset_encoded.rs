//! Issue 16 from the command line: `asset keygen`, `convert|build --compress --encrypt`, and
//! `check|info|extract` of COMPRESSED / ENCRYPTED assets with `--key-file` or `VOXCAF_KEY`,
//! including the unhappy paths (missing, wrong and malformed keys, damaged files).

mod common;
use common::{cli, cli_err, cli_json, cli_ok, cli_out, run, run_env, write_wav};

use std::path::Path;

/// A 16-bit mono WAV of `frames` frames.
fn wav(path: &Path, frames: u32) {
    write_wav(path, frames, |i| ((i % 100) as i16 - 50) * 300);
}

#[test]
fn keygen_convert_check_info_extract_with_keys() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    wav(&d.join("a.wav"), 150_000);

    cli_ok(d, "asset keygen k.key");
    let text = std::fs::read_to_string(d.join("k.key")).unwrap();
    assert_eq!(text.trim().len(), 64);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(d.join("k.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // An existing file is kept unless --force.
    assert_eq!(cli(d, "asset keygen k.key").0, 2);
    assert_eq!(std::fs::read_to_string(d.join("k.key")).unwrap(), text);
    assert_eq!(cli(d, "asset keygen other.key").0, 0);

    // Plain reference, then compressed + encrypted.
    assert_eq!(cli(d, "asset convert a.wav plain.caf").0, 0);
    cli_ok(
        d,
        "asset convert a.wav enc.caf --compress zstd --level 9 --encrypt --key-file k.key",
    );
    let plain = std::fs::read(d.join("plain.caf")).unwrap();
    let enc = std::fs::read(d.join("enc.caf")).unwrap();
    assert!(enc.len() < plain.len());
    assert_eq!(enc[10] & 0x3, 0x3, "COMPRESSED|ENCRYPTED");
    // Reproducible: the same input and key give the same bytes.
    cli(
        d,
        "asset convert a.wav enc2.caf --compress zstd --level 9 --encrypt --key-file k.key",
    );
    assert_eq!(std::fs::read(d.join("enc2.caf")).unwrap(), enc);

    // check: no key, wrong key, right key (file and environment).
    let out = cli_out(d, "asset check enc.caf", 1);
    assert!(out.contains("[key required]"), "{out}");
    let out = cli_out(d, "asset check --key-file other.key enc.caf", 1);
    assert!(out.contains("[wrong key]"), "{out}");
    assert_eq!(cli(d, "asset check --key-file k.key enc.caf").0, 0);
    assert_eq!(
        run_env(d, &["asset", "check", "--typed", "enc.caf"], Some(&text)).0,
        0
    );
    let (c, _, e) = run_env(d, &["asset", "check", "enc.caf"], Some("xyz"));
    assert_eq!(c, 2, "a malformed VOXCAF_KEY is a usage error");
    assert!(e.contains("VOXCAF_KEY"), "{e}");
    cli_err(
        d,
        "asset check --key-file missing.key enc.caf",
        1,
        "missing.key",
    );

    // info shows the encoding; JSON has it too.
    let out = cli_ok(d, "asset info --key-file k.key enc.caf");
    assert!(out.contains("encoding      zstd, encrypted"), "{out}");
    assert!(out.contains("decoded       150000 frames"), "{out}");
    let j = cli_json(d, "asset info --json enc.caf");
    assert_eq!(j["encoding"]["codec"], "zstd");
    assert_eq!(j["encoding"]["encrypted"], true);
    assert_eq!(j["encoding"]["plain_size"], 300_000);

    // extract always writes the plain payload, equal to the plain conversion's.
    cli_ok(d, "asset extract --key-file k.key enc.caf --payload p.bin");
    assert_eq!(
        std::fs::read(d.join("p.bin")).unwrap(),
        &plain[48..plain.len() - 4]
    );
    cli_out(d, "asset extract enc.caf --payload q.bin", 1);
    assert!(!d.join("q.bin").exists(), "no output without the key");

    // A damaged block: check fails naming it, extract leaves no file.
    let mut bad = enc.clone();
    let n = bad.len();
    bad[n - 100] ^= 0x40;
    std::fs::write(d.join("bad.caf"), &bad).unwrap();
    let out = cli_out(d, "asset check --key-file k.key bad.caf", 1);
    assert!(out.contains("FAIL"), "{out}");
    cli_out(
        d,
        "asset extract --key-file k.key bad.caf --payload r.bin",
        1,
    );
    assert!(!d.join("r.bin").exists());
}

#[test]
fn compress_flags_and_usage_errors() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    wav(&d.join("a.wav"), 20_000);
    for codec in ["zstd", "lz4", "none"] {
        let out = format!("{codec}.caf");
        let (c, _, e) = run(d, &["asset", "convert", "a.wav", &out, "--compress", codec]);
        assert_eq!(c, 0, "{e}");
        assert_eq!(run(d, &["asset", "check", "--typed", &out]).0, 0);
    }
    let none = std::fs::read(d.join("none.caf")).unwrap();
    assert_eq!(
        none[10] & 0x3,
        0,
        "--compress none writes the original layout"
    );
    // Unhappy paths: unknown codec, --encrypt without a key, --key-file without --encrypt.
    assert_eq!(cli(d, "asset convert a.wav x.caf --compress brotli").0, 2);
    // --cipher needs --encrypt, and a known name.
    for (line, needle) in [
        (
            "asset convert a.wav x.caf --cipher aes-256-gcm",
            "--encrypt",
        ),
        (
            "asset convert a.wav x.caf --encrypt --cipher des",
            "xchacha20-poly1305 or aes-256-gcm",
        ),
    ] {
        cli_err(d, line, 2, needle);
    }
    let (c, _, e) = cli(d, "asset convert a.wav x.caf --encrypt");
    assert_eq!(c, 2);
    assert!(e.contains("--key-file") && e.contains("VOXCAF_KEY"), "{e}");
    assert_eq!(cli(d, "asset convert a.wav x.caf --key-file k").0, 2);
    assert_eq!(
        cli(d, "asset convert a.wav x.caf --compress zstd --level 99").0,
        1
    );
    assert!(!d.join("x.caf").exists());
}

#[test]
fn build_with_compress_sidecar_and_encryption() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    wav(&d.join("src/a.wav"), 30_000);
    wav(&d.join("src/b.wav"), 30_000);
    std::fs::write(
        d.join("src/b.wav.toml"),
        "compress = \"lz4\"\ncipher = \"aes-256-gcm\"\n",
    )
    .unwrap();
    assert_eq!(cli(d, "asset keygen k.key").0, 0);
    cli_ok(
        d,
        "asset build src out --compress zstd --encrypt --key-file k.key",
    );
    let a = std::fs::read(d.join("out/a.caf")).unwrap();
    let b = std::fs::read(d.join("out/b.caf")).unwrap();
    let codec = |f: &[u8]| f[32 + 16 + 6];
    assert_eq!(
        (codec(&a), codec(&b)),
        (1, 2),
        "zstd, and lz4 from the sidecar"
    );
    let cipher = |f: &[u8]| f[32 + 16 + 7];
    assert_eq!(
        (cipher(&a), cipher(&b)),
        (1, 2),
        "XChaCha20-Poly1305, and AES-256-GCM from the sidecar"
    );
    assert_eq!(cli(d, "asset check --key-file k.key out").0, 0);
    let manifest = std::fs::read_to_string(d.join("out/manifest.json")).unwrap();
    let key = std::fs::read_to_string(d.join("k.key")).unwrap();
    assert!(
        !manifest.contains(key.trim()),
        "the key never lands in the manifest"
    );
    // A rebuild with the same key skips everything; with another key it converts again.
    let j = cli_json(
        d,
        "asset build src out --compress zstd --encrypt --key-file k.key --json",
    );
    assert_eq!(j["converted"], 0, "{j}");
    assert_eq!(cli(d, "asset keygen k2.key").0, 0);
    let j = cli_json(
        d,
        "asset build src out --compress zstd --encrypt --key-file k2.key --json",
    );
    assert_eq!(j["converted"], 2, "{j}");
    // --cipher for the whole build: only a.wav changes (b.wav's sidecar already chose it).
    let j = cli_json(d, "asset build src out --compress zstd --encrypt --key-file k2.key --cipher aes-256-gcm --json");
    assert_eq!(j["converted"], 1, "{j}");
    let a = std::fs::read(d.join("out/a.caf")).unwrap();
    assert_eq!(cipher(&a), 2);
    let out = cli_ok(d, "asset info --key-file k2.key out/a.caf");
    assert!(out.contains("encrypted (AES-256-GCM)"), "{out}");
    assert_eq!(cli(d, "asset check --typed --key-file k2.key out").0, 0);
}

#[test]
fn pack_dir_and_list() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    wav(&d.join("src/a.wav"), 1000);
    wav(&d.join("src/sub/b.wav"), 2000);
    assert_eq!(cli(d, "asset build src out --compress lz4").0, 0);
    let out = cli_ok(d, "asset pack-dir out game.cafpack");
    assert!(out.contains("2 assets"), "{out}");
    let out = cli_ok(d, "asset list game.cafpack");
    assert!(
        out.contains("a.caf\taudio") && out.contains("sub/b.caf\taudio"),
        "{out}"
    );
    let j = cli_json(d, "asset list --json game.cafpack");
    assert_eq!(j.as_array().unwrap().len(), 2);
    // The packed bytes are the files'.
    let pack = caf::pack::Pack::open(&d.join("game.cafpack")).unwrap();
    assert_eq!(
        pack.read("sub/b.caf").unwrap().unwrap(),
        std::fs::read(d.join("out/sub/b.caf")).unwrap()
    );
    // Unhappy paths: output inside the folder, wrong extension, existing pack kept without
    // --force only if it is not a pack, missing folder, a damaged pack.
    assert_eq!(cli(d, "asset pack-dir out out/x.cafpack").0, 2);
    assert_eq!(cli(d, "asset pack-dir out x.zip").0, 2);
    assert_eq!(
        cli(d, "asset pack-dir out game.cafpack").0,
        0,
        "a pack is replaced"
    );
    std::fs::write(d.join("notes.cafpack"), "mine").unwrap();
    assert_eq!(cli(d, "asset pack-dir out notes.cafpack").0, 2);
    assert_eq!(cli(d, "asset pack-dir missing y.cafpack").0, 2);
    let mut b = std::fs::read(d.join("game.cafpack")).unwrap();
    let n = b.len();
    b[n - 3] ^= 1;
    std::fs::write(d.join("bad.cafpack"), &b).unwrap();
    cli_err(d, "asset list bad.cafpack", 1, "bad.cafpack");
}
