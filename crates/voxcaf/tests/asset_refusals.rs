//! Asset commands refuse or say what would mislead: `asset export` to a name of another format
//! (`x.jpg` for a texture, `x.mp3` for audio), `--profile original` with compression or
//! encryption, `asset repack` writing a newer minor version as 1.0, two stages of one module
//! written over each other; and notes for flags that do nothing for an input. A reader's panic
//! that the importer catches is its typed error alone, with no `panicked at` line.

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

#[test]
fn profile_original_refuses_compress_and_encrypt() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write_wav(&d.join("a.wav"), 500, |i| i as i16);
    std::fs::create_dir(d.join("src")).unwrap();
    std::fs::copy(d.join("a.wav"), d.join("src/a.wav")).unwrap();
    cli_ok(d, "asset keygen k.key");
    for line in [
        "asset convert a.wav o.caf --profile original --compress zstd",
        "asset convert a.wav o.caf --profile original --encrypt --key-file k.key",
        "asset build src out --profile original --compress lz4",
    ] {
        let (code, _, err) = cli(d, line);
        assert_eq!(code, 2, "{line}: {err}");
        assert!(err.contains("--profile original"), "{line}: {err}");
        assert!(
            !d.join("o.caf").exists() && !d.join("out").exists(),
            "{line}"
        );
    }
    // Plain files of the original profile are still written.
    cli_ok(d, "asset convert a.wav o.caf --profile original");
}

#[test]
fn repack_says_that_a_newer_minor_version_is_written_as_1_0() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write_wav(&d.join("a.wav"), 500, |i| i as i16);
    cli_ok(d, "asset convert a.wav a.caf");
    // Version 1.7: the minor version is the u16 at byte 6; the footer CRC covers the header.
    let mut bytes = std::fs::read(d.join("a.caf")).unwrap();
    bytes[6..8].copy_from_slice(&7u16.to_le_bytes());
    let n = bytes.len();
    let footer = caf::crc32(&bytes[..n - 4]);
    bytes[n - 4..].copy_from_slice(&footer.to_le_bytes());
    std::fs::write(d.join("a17.caf"), &bytes).unwrap();
    let (code, _, err) = cli(d, "asset repack a17.caf r.caf");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: a17.caf: version 1.7 is written as 1.0"),
        "{err}"
    );
    assert_eq!(std::fs::read(d.join("r.caf")).unwrap()[6..8], [0, 0]);
    // A 1.0 file repacks without a note.
    let (code, _, err) = cli(d, "asset repack a.caf r2.caf");
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("note:"), "{err}");
}

#[test]
fn two_stages_of_one_wgsl_module_into_one_folder_are_two_assets() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(
        d.join("lit.wgsl"),
        "@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n\
         @fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n",
    )
    .unwrap();
    std::fs::create_dir(d.join("out")).unwrap();
    cli_ok(d, "asset convert lit.wgsl out --stage vertex");
    cli_ok(d, "asset convert lit.wgsl out --stage fragment");
    let vertex = std::fs::read(d.join("out/lit.vertex.caf")).unwrap();
    let fragment = std::fs::read(d.join("out/lit.fragment.caf")).unwrap();
    assert_ne!(vertex, fragment);
    assert!(!d.join("out/lit.caf").exists());
}

#[test]
fn flags_that_do_nothing_for_an_input_get_a_note() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(d.join("p.png"), voxcaf_samples::gradient_png(4, 4)).unwrap();
    write_wav(&d.join("a.wav"), 500, |i| i as i16);
    let (code, _, err) = cli(d, "asset convert p.png p.caf --bits 8 --mips");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: --bits is for audio inputs and does nothing for p.png (texture)"),
        "{err}"
    );
    assert!(
        !err.contains("--mips"),
        "--mips applies to a texture: {err}"
    );
    let (code, _, err) = cli(d, "asset convert a.wav a.caf --linear --level 9");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: --linear is for texture inputs"),
        "{err}"
    );
    assert!(err.contains("note: --level is zstd's level"), "{err}");
    // Flags that apply: no note.
    let (_, _, err) = cli(
        d,
        "asset convert a.wav b.caf --bits 8 --compress zstd --level 9",
    );
    assert!(!err.contains("note:"), "{err}");
}

#[test]
fn a_readers_caught_panic_is_a_typed_error_without_a_panic_message() {
    // naga 30 validates an i64 array layer but its SPIR-V writer then hits `unreachable!`
    // (a fuzzer's find, reduced).
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(
        d.join("layer.wgsl"),
        "@group(0) @binding(0) var t: texture_depth_2d_array;\n\
         @group(0) @binding(1) var s: sampler_comparison;\n\
         @fragment fn main() -> @location(0) vec4<f32> {\n\
           let v = textureSampleCompareLevel(t, s, vec2<f32>(0.5, 0.5), i64(1), 0.5);\n\
           return vec4<f32>(v);\n\
         }\n",
    )
    .unwrap();
    let (code, out, err) = cli(d, "asset convert layer.wgsl layer.caf");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("SPIR-V generation failed") && err.contains("(naga: "),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(!d.join("layer.caf").exists());
}
