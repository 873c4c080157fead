//! The declared inputs of a conversion (`caf_import::inputs`, docs/remote-build.md §3) hold
//! every file the conversion actually reads: on glTF buffers (percent-encoded names, `data:`
//! and `file:` URIs, folders), on GLSL includes (nested, conditional, cyclic, missing), and on
//! every golden and real-world conversion input that converts.

use std::path::{Path, PathBuf};

use caf_import::inputs::{declared_inputs, undeclared};
use caf_import::Settings;

type Res = Result<(), Box<dyn std::error::Error>>;

/// Converts `rel` under `root` and returns (declared, actually read), both relative to `root`.
fn both(root: &Path, rel: &str) -> Result<(Vec<String>, Vec<String>), Box<dyn std::error::Error>> {
    let path = root.join(rel);
    let bytes = std::fs::read(&path)?;
    let s = Settings::default();
    let declared = declared_inputs(root, Path::new(rel), &bytes, &s);
    let c = caf_import::convert(&bytes, &path, &s)?;
    let read = c
        .dependencies
        .iter()
        .map(|d| {
            let r = d.strip_prefix(root).unwrap_or(d);
            r.to_string_lossy().replace('\\', "/")
        })
        .collect();
    Ok((declared, read))
}

const TRIANGLE_BUFFER: &str = "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA";

fn triangle_gltf(uri: &str) -> String {
    format!(
        r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
        "buffers":[{{"uri":"{uri}","byteLength":36}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3",
        "min":[0,0,0],"max":[1,1,0]}}]}}"#
    )
}

fn buffer_bytes() -> Vec<u8> {
    [[0f32, 0., 0.], [1., 0., 0.], [0., 1., 0.]]
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

/// An external buffer in a sub-folder with a space in its name (percent-encoded in the URI)
/// is declared under the name the converter opens; an embedded one declares nothing.
#[test]
fn gltf_buffers_are_declared_as_the_files_opened() -> Res {
    let dir = tempfile::tempdir()?;
    let root = dir.path();
    std::fs::create_dir_all(root.join("models/bin"))?;
    std::fs::write(root.join("models/bin/tri buf.bin"), buffer_bytes())?;
    std::fs::write(
        root.join("models/tri.gltf"),
        triangle_gltf("bin/tri%20buf.bin"),
    )?;
    let (declared, read) = both(root, "models/tri.gltf")?;
    assert_eq!(declared, ["models/bin/tri buf.bin"]);
    assert_eq!(read, ["models/bin/tri buf.bin"]);
    assert!(undeclared(&declared, &read).is_empty());

    let embedded = format!("data:application/octet-stream;base64,{TRIANGLE_BUFFER}");
    std::fs::write(root.join("embedded.gltf"), triangle_gltf(&embedded))?;
    let (declared, read) = both(root, "embedded.gltf")?;
    assert!(
        declared.is_empty() && read.is_empty(),
        "{declared:?} {read:?}"
    );

    // A buffer above the source folder is read but never declared: its result stays local.
    std::fs::write(root.join("up.gltf"), triangle_gltf("../outside.bin"))?;
    let declared = declared_inputs(
        root,
        Path::new("up.gltf"),
        &std::fs::read(root.join("up.gltf"))?,
        &Settings::default(),
    );
    assert!(declared.is_empty(), "{declared:?}");
    assert_eq!(
        undeclared(&declared, &["../outside.bin".to_string()]),
        ["../outside.bin"]
    );
    Ok(())
}

/// A `file:` URI names a file anywhere on the machine: not declared, so reported undeclared
/// when read.
#[test]
fn gltf_file_uris_are_never_declared() {
    let text = triangle_gltf("file:///etc/hostname");
    let d = declared_inputs(
        Path::new("."),
        Path::new("a.gltf"),
        text.as_bytes(),
        &Settings::default(),
    );
    assert!(d.is_empty(), "{d:?}");
}

fn glslang() -> bool {
    std::process::Command::new("glslangValidator")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Nested includes resolve next to the including file; an include inside `#if 0` is declared
/// too (a superset); a cycle ends; a missing include is declared (the conversion then fails).
#[test]
fn glsl_includes_are_declared_recursively() -> Res {
    let dir = tempfile::tempdir()?;
    let root = dir.path();
    std::fs::create_dir_all(root.join("shaders/lib"))?;
    std::fs::write(
        root.join("shaders/lib/colour.glsl"),
        "#ifndef COLOUR\n#define COLOUR\n#include \"tint.glsl\"\n#include \"colour.glsl\"\n\
         vec4 colour() { return vec4(TINT); }\n#endif\n",
    )?;
    std::fs::write(root.join("shaders/lib/tint.glsl"), "#define TINT 0.5\n")?;
    std::fs::write(root.join("shaders/unused.glsl"), "#error never\n")?;
    let main = "#version 450\n#extension GL_GOOGLE_include_directive : require\n\
        #include \"lib/colour.glsl\"\n#if 0\n#include \"unused.glsl\"\n#endif\n\
        layout(location = 0) out vec4 c;\nvoid main() { c = colour(); }\n";
    std::fs::write(root.join("shaders/m.frag"), main)?;
    let bytes = std::fs::read(root.join("shaders/m.frag"))?;
    let declared = declared_inputs(
        root,
        Path::new("shaders/m.frag"),
        &bytes,
        &Settings::default(),
    );
    assert_eq!(
        declared,
        [
            "shaders/lib/colour.glsl",
            "shaders/lib/tint.glsl",
            "shaders/unused.glsl"
        ]
    );
    if glslang() {
        let (_, read) = both(root, "shaders/m.frag")?;
        assert_eq!(read, ["shaders/lib/colour.glsl", "shaders/lib/tint.glsl"]);
        assert!(undeclared(&declared, &read).is_empty());
    }
    let missing = b"#version 450\n#include \"gone.glsl\"\nvoid main() {}\n";
    let d = declared_inputs(root, Path::new("x.vert"), missing, &Settings::default());
    assert_eq!(d, ["gone.glsl"]);
    Ok(())
}

/// Every file under `dir`, recursively, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// On every golden conversion input and every real-world file that converts, the files read
/// are declared; and at least one of them reads a file besides its source (the check is not
/// vacuous).
#[test]
fn every_real_input_reads_only_declared_files() -> Res {
    let golden = std::env::var_os("VOXCAF_GOLDEN").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/golden"),
        PathBuf::from,
    );
    let roots = [
        golden.join("caf/inputs"),
        golden.join("../realworld"),
        golden.join("../corpus"),
    ];
    if !roots[0].is_dir() {
        assert!(
            std::env::var("VOXCAF_REQUIRE_GOLDEN").as_deref() != Ok("1"),
            "golden data not found at {}",
            roots[0].display()
        );
        eprintln!("skipped: no golden data at {}", golden.display());
        return Ok(());
    }
    let (mut converted, mut with_deps) = (0, 0);
    for root in &roots {
        for path in files(root) {
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let Some(rel) = rel.to_str() else { continue };
            if caf_import::AssetKind::from_path(&path).is_none() {
                continue;
            }
            // Fonts and big textures convert slowly and read only themselves.
            if matches!(
                caf_import::AssetKind::from_path(&path),
                Some(caf_import::AssetKind::Font | caf_import::AssetKind::Texture)
            ) {
                continue;
            }
            let Ok((declared, read)) = both(root, rel) else {
                continue;
            };
            converted += 1;
            with_deps += usize::from(!read.is_empty());
            let missing = undeclared(&declared, &read);
            assert!(
                missing.is_empty(),
                "{}: read {missing:?} without declaring it (declared {declared:?})",
                path.display()
            );
        }
    }
    assert!(converted > 10, "only {converted} inputs converted");
    assert!(with_deps > 0, "no input read a file besides itself");
    eprintln!("{converted} inputs converted, {with_deps} with dependencies, all declared");
    Ok(())
}
