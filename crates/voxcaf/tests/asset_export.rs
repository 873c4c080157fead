//! `voxcaf asset export` run as a user would: texture levels to PNG, audio to WAV, shaders to
//! SPIR-V plus disassembly, meshes to glTF (`.glb`, `.gltf` + `.bin`), encrypted assets with
//! `--key-file`, and the unhappy paths (a type without an exporter, a mesh to a non-glTF name,
//! `--level` out of range or on audio, existing outputs, a damaged file).

mod common;
use common::{cli, cli_err, run};

use std::path::Path;

use voxcaf_samples as samples;

fn ok(dir: &Path, args: &[&str]) -> String {
    let (c, o, e) = run(dir, args);
    assert_eq!(c, 0, "{args:?}: {o}{e}");
    o
}

/// Writes the source `name` in `dir` and converts it (with `extra` arguments) to the `.caf` of
/// the same stem.
fn convert_source(dir: &Path, name: &str, bytes: impl AsRef<[u8]>, extra: &[&str]) {
    std::fs::write(dir.join(name), bytes).unwrap();
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let out = format!("{stem}.caf");
    let mut args = vec!["asset", "convert", name, &out];
    args.extend_from_slice(extra);
    ok(dir, &args);
}

#[test]
fn help_has_examples() {
    let dir = tempfile::tempdir().unwrap();
    let help = ok(dir.path(), &["asset", "export", "--help"]);
    assert!(help.contains("Examples:"), "{help}");
    assert!(help.contains("--level"), "{help}");
    assert!(help.contains("--key-file"), "{help}");
    assert!(help.contains("ship.gltf"), "{help}");
}

#[test]
fn texture_levels_audio_and_shader() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    convert_source(p, "hero.png", samples::gradient_png(8, 4), &["--mips"]);
    convert_source(p, "jump.wav", samples::wav_i16(11025, 1, 300), &[]);
    convert_source(p, "s.vert", samples::VERTEX_GLSL, &[]);

    let out = ok(p, &["asset", "export", "hero.caf", "out/hero.png"]);
    for i in 0..4 {
        let f = p.join(format!("out/hero-mip{i}.png"));
        assert!(f.is_file(), "{}: {out}", f.display());
        assert!(out.contains(&format!("hero-mip{i}.png")), "{out}");
    }
    let img = image::open(p.join("out/hero-mip0.png")).unwrap();
    assert_eq!((img.width(), img.height()), (8, 4));

    ok(
        p,
        &["asset", "export", "hero.caf", "one.png", "--level", "1"],
    );
    let img = image::open(p.join("one.png")).unwrap();
    assert_eq!((img.width(), img.height()), (4, 2));

    ok(p, &["asset", "export", "jump.caf", "jump-out.wav"]);
    let r = hound::WavReader::open(p.join("jump-out.wav")).unwrap();
    assert_eq!((r.spec().sample_rate, r.len()), (11025, 300));

    ok(p, &["asset", "export", "s.caf", "s.spv"]);
    let spv = std::fs::read(p.join("s.spv")).unwrap();
    caf_import::shader::validate_spirv(&spv).unwrap();
    let asm = std::fs::read_to_string(p.join("s.spvasm")).unwrap();
    assert!(asm.contains("OpEntryPoint Vertex"), "{asm}");
}

/// Meshes (an OBJ cube, and the extended two-cube glTF with sub-meshes, colours and a second
/// UV set) to `.glb` and to `.gltf` + `.bin`; each export converted back is the first `.caf`
/// byte for byte. An existing `.bin` is only replaced with `--force`.
#[test]
fn mesh_to_glb_and_gltf_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("cube.obj"), samples::CUBE_OBJ).unwrap();
    std::fs::write(p.join("cubes.glb"), samples::two_cubes_glb()).unwrap();
    ok(p, &["asset", "convert", "cube.obj", "cube.caf"]);
    ok(p, &["asset", "convert", "cubes.glb", "cubes.caf"]);

    let out = ok(p, &["asset", "export", "cube.caf", "out/cube.glb"]);
    assert!(
        out.contains("out/cube.glb") && out.contains("1 primitive(s)"),
        "{out}"
    );
    ok(p, &["asset", "convert", "out/cube.glb", "cube-again.caf"]);
    assert_eq!(
        std::fs::read(p.join("cube-again.caf")).unwrap(),
        std::fs::read(p.join("cube.caf")).unwrap()
    );

    let out = ok(p, &["asset", "export", "cubes.caf", "out/cubes.gltf"]);
    assert!(
        out.contains("out/cubes.bin") && out.contains("out/cubes.gltf"),
        "{out}"
    );
    assert!(
        out.contains("2 primitive(s)") && out.contains("COLOR_0"),
        "{out}"
    );
    ok(
        p,
        &["asset", "convert", "out/cubes.gltf", "cubes-again.caf"],
    );
    assert_eq!(
        std::fs::read(p.join("cubes-again.caf")).unwrap(),
        std::fs::read(p.join("cubes.caf")).unwrap()
    );

    // Exporting again over the same files needs --force (the .bin too).
    std::fs::remove_file(p.join("out/cubes.gltf")).unwrap();
    cli_err(p, "asset export cubes.caf out/cubes.gltf", 2, "cubes.bin");
    assert!(!p.join("out/cubes.gltf").exists());
    ok(
        p,
        &["asset", "export", "cubes.caf", "out/cubes.gltf", "--force"],
    );
    assert!(p.join("out/cubes.gltf").is_file());
}

#[test]
fn unhappy_paths() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    convert_source(p, "hero.png", samples::gradient_png(4, 4), &[]);
    convert_source(p, "jump.wav", samples::wav_i16(8000, 1, 50), &[]);
    convert_source(p, "cube.obj", samples::CUBE_OBJ, &[]);

    // A mesh goes to .glb or .gltf only: another extension is a usage error, nothing written.
    let (c, _, e) = cli(p, "asset export cube.caf cube.bin");
    assert_eq!(c, 2, "{e}");
    assert!(e.contains(".glb") && e.contains(".gltf"), "{e}");
    assert!(!p.join("cube.bin").exists());

    // A type without an exporter (a scene): exit 1, nothing written.
    std::fs::write(p.join("scene-meta.bin"), [0u8; 20]).unwrap();
    std::fs::write(p.join("scene-payload.bin"), []).unwrap();
    ok(
        p,
        &[
            "asset",
            "pack",
            "--type",
            "scene",
            "--metadata",
            "scene-meta.bin",
            "--payload",
            "scene-payload.bin",
            "scene.caf",
        ],
    );
    cli_err(
        p,
        "asset export scene.caf scene.glb",
        1,
        "cannot export scene",
    );
    assert!(!p.join("scene.glb").exists());

    // --level on audio is a usage error; a level the texture lacks is bad input.
    cli_err(p, "asset export jump.caf j.wav --level 0", 2, "--level");
    cli_err(p, "asset export hero.caf h.png --level 3", 1, "no level 3");
    assert!(!p.join("h.png").exists());

    // An existing output is only replaced with --force.
    std::fs::write(p.join("j.wav"), b"keep").unwrap();
    let (c, _, e) = cli(p, "asset export jump.caf j.wav");
    assert_eq!(c, 2, "{e}");
    assert_eq!(std::fs::read(p.join("j.wav")).unwrap(), b"keep");
    ok(p, &["asset", "export", "jump.caf", "j.wav", "--force"]);
    assert!(hound::WavReader::open(p.join("j.wav")).is_ok());

    // A damaged file is refused by the loader.
    let mut bytes = std::fs::read(p.join("jump.caf")).unwrap();
    let n = bytes.len();
    bytes[n - 8] ^= 0xff;
    std::fs::write(p.join("bad.caf"), bytes).unwrap();
    cli_err(p, "asset export bad.caf bad.wav", 1, "bad.caf");
    assert!(!p.join("bad.wav").exists());
}

#[test]
fn encrypted_asset_with_key_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("jump.wav"), samples::wav_i16(8000, 2, 64)).unwrap();
    ok(p, &["asset", "keygen", "game.key"]);
    ok(
        p,
        &[
            "asset",
            "convert",
            "jump.wav",
            "enc.caf",
            "--encrypt",
            "--key-file",
            "game.key",
        ],
    );
    cli_err(p, "asset export enc.caf out.wav", 1, "key");
    ok(
        p,
        &[
            "asset",
            "export",
            "--key-file",
            "game.key",
            "enc.caf",
            "out.wav",
        ],
    );
    let r = hound::WavReader::open(p.join("out.wav")).unwrap();
    assert_eq!((r.spec().channels, r.len()), (2, 128));
}
