//! Shader fidelity (issue 17): Vulkan GLSL through glslang, SPIR-V stored unchanged after the
//! Khronos validator, and the corpus of real shaders (`../shared/corpus/shader`) as regression
//! tests. Every output is checked again by the validator and its entry point read back.

use std::path::{Path, PathBuf};

use caf_import::{convert, shader, ImportError, Settings, Stage};

type Res = Result<(), Box<dyn std::error::Error>>;

/// The corpus folder, or `None` (skip) unless the golden data is required.
fn corpus() -> Option<PathBuf> {
    voxcaf_golden::corpus("shader")
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// Convert a file of the corpus; the payload must validate and the stage be `stage`.
fn convert_corpus(name: &str, stage: Stage) -> Option<caf_import::Converted> {
    let path = corpus()?.join(name);
    let c = caf_import::convert_file(&path, &Settings::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    shader::validate_spirv(&c.payload).unwrap_or_else(|e| panic!("{name}: {e}"));
    let asset_bytes = c.to_caf_bytes();
    let asset = caf::Asset::parse(&asset_bytes).unwrap();
    let view = caf::shader::ShaderView::from_asset(&asset).unwrap();
    assert_eq!(view.meta.stage, stage.code(), "{name}");
    assert!(view.is_spirv());
    Some(c)
}

fn module(spirv: &[u8]) -> rspirv::dr::Module {
    rspirv::dr::load_words(words(spirv)).unwrap()
}

/// [`convert_corpus`]'s SPIR-V, loaded as a module.
fn corpus_module(name: &str, stage: Stage) -> Option<rspirv::dr::Module> {
    Some(module(&convert_corpus(name, stage)?.payload))
}

fn glsl(src: &str, name: &str) -> Result<shader::ShaderData, ImportError> {
    let ext = Path::new(name).extension().and_then(|e| e.to_str());
    shader::compile(src.as_bytes(), name, ext, None, None)
}

/// `uniform sampler2D` (a combined image sampler), naga's GLSL front end refused it.
#[test]
fn corpus_texture_frag_combined_image_sampler() {
    let Some(m) = corpus_module("sw-texture-texture.frag", Stage::Fragment) else {
        return;
    };
    assert!(
        m.types_global_values
            .iter()
            .any(|i| i.class.opcode == rspirv::spirv::Op::TypeSampledImage),
        "no OpTypeSampledImage"
    );
}

/// `out gl_PerVertex { vec4 gl_Position; };` redeclared.
#[test]
fn corpus_triangle_vert_gl_per_vertex() {
    let Some(m) = corpus_module("sw-triangle-triangle.vert", Stage::Vertex) else {
        return;
    };
    assert!(
        m.annotations
            .iter()
            .any(|i| i.class.opcode == rspirv::spirv::Op::MemberDecorate
                && i.operands.get(2)
                    == Some(&rspirv::dr::Operand::Decoration(
                        rspirv::spirv::Decoration::BuiltIn
                    ))),
        "no BuiltIn member decoration (gl_PerVertex block)"
    );
}

/// `layout(constant_id = 0) const uint BUFFER_ELEMENTS = 32;` stays a specialization
/// constant (SpecId 0, default 32).
#[test]
fn corpus_headless_comp_specialization_constant() {
    let Some(m) = corpus_module("sw-computeheadless-headless.comp", Stage::Compute) else {
        return;
    };
    let spec_id = m
        .annotations
        .iter()
        .find(|i| {
            i.operands.get(1)
                == Some(&rspirv::dr::Operand::Decoration(
                    rspirv::spirv::Decoration::SpecId,
                ))
        })
        .expect("a SpecId decoration");
    assert_eq!(spec_id.operands[2], rspirv::dr::Operand::LiteralBit32(0));
    let target = spec_id.operands[0].unwrap_id_ref();
    let constant = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(target))
        .unwrap();
    assert_eq!(constant.class.opcode, rspirv::spirv::Op::SpecConstant);
    assert_eq!(constant.operands[0], rspirv::dr::Operand::LiteralBit32(32));
}

/// glslang's own output (SaschaWillems' texture.frag.spv) is valid and stored byte for byte.
#[test]
fn corpus_spirv_is_stored_unchanged() {
    let Some(dir) = corpus() else { return };
    let bytes = std::fs::read(dir.join("sw-texture-texture.frag.spv")).unwrap();
    let c = convert_corpus("sw-texture-texture.frag.spv", Stage::Fragment).unwrap();
    assert_eq!(c.payload, bytes);
}

/// Every corpus shader converts (the count is reported by the test output).
#[test]
fn corpus_every_shader_converts() {
    let Some(dir) = corpus() else { return };
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let c = caf_import::convert_file(&p, &Settings::default())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        shader::validate_spirv(&c.payload).unwrap();
        n += 1;
    }
    eprintln!("{n} corpus shaders converted");
    assert!(n >= 4, "expected the 4 corpus shaders, found {n}");
}

/// A broken module is refused with the validator's own message; nothing is stored.
#[test]
fn invalid_spirv_is_refused_with_the_validator_message() -> Res {
    let src = "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    let good = glsl(src, "a.frag")?.spirv;
    // Drop the final OpFunctionEnd (1 word): a function without its end.
    let bad = &good[..good.len() - 4];
    let err = shader::compile(bad, "bad.spv", Some("spv"), None, None).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("bad.spv: invalid SPIR-V: "), "{msg}");
    assert!(msg.contains("OpFunctionEnd"), "{msg}");
    // A Kernel (OpenCL) capability is valid SPIR-V but not Vulkan SPIR-V.
    let mut w = words(&good);
    let cap = w
        .iter()
        .position(|&x| x == (2 << 16 | 17))
        .expect("OpCapability");
    w[cap + 1] = 6; // Shader -> Kernel
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let msg = shader::compile(&bytes, "k.spv", Some("spv"), None, None)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("invalid SPIR-V"), "{msg}");
    Ok(())
}

/// Push-constant blocks keep their explicit member offsets.
#[test]
fn push_constant_member_offsets() -> Res {
    let src = "#version 450\n\
        layout(push_constant) uniform PC { layout(offset = 16) vec4 tint; layout(offset = 48) float k; } pc;\n\
        layout(location = 0) out vec4 c;\n\
        void main() { c = pc.tint * pc.k; }\n";
    let s = glsl(src, "pc.frag")?;
    let m = module(&s.spirv);
    let offsets: Vec<u32> = m
        .annotations
        .iter()
        .filter(|i| {
            i.class.opcode == rspirv::spirv::Op::MemberDecorate
                && i.operands[2]
                    == rspirv::dr::Operand::Decoration(rspirv::spirv::Decoration::Offset)
        })
        .map(|i| match i.operands[3] {
            rspirv::dr::Operand::LiteralBit32(o) => o,
            _ => panic!("offset operand"),
        })
        .collect();
    assert_eq!(offsets, [16, 48]);
    Ok(())
}

/// Functions taking arrays, arrays of combined samplers, and `gl_PerVertex` out blocks with
/// several members compile.
#[test]
fn array_parameters_and_sampler_arrays() -> Res {
    let src = "#version 450\n\
        layout(set = 0, binding = 1) uniform sampler2D tex[4];\n\
        layout(location = 0) in vec2 uv;\n\
        layout(location = 0) out vec4 c;\n\
        float sum4(float v[4]) { return v[0] + v[1] + v[2] + v[3]; }\n\
        void main() { float w[4] = float[4](0.1, 0.2, 0.3, 0.4);\n\
          c = texture(tex[1], uv) * sum4(w); }\n";
    let s = glsl(src, "arr.frag")?;
    assert_eq!(s.stage, Stage::Fragment);
    let v = "#version 450\nout gl_PerVertex { vec4 gl_Position; float gl_PointSize; };\n\
        void main() { gl_Position = vec4(0.0); gl_PointSize = 1.0; }\n";
    assert_eq!(glsl(v, "p.vert")?.stage, Stage::Vertex);
    Ok(())
}

/// `#include "x"` resolves next to the including file (nested includes too) and the files read
/// become dependencies of the conversion; a missing include names the file.
#[test]
fn include_resolves_next_to_the_source() -> Res {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir(dir.path().join("lib"))?;
    std::fs::write(
        dir.path().join("lib/colour.glsl"),
        "#include \"tint.glsl\"\nvec4 colour() { return vec4(TINT); }\n",
    )?;
    std::fs::write(dir.path().join("lib/tint.glsl"), "#define TINT 0.5\n")?;
    let main = dir.path().join("m.frag");
    std::fs::write(
        &main,
        "#version 450\n#extension GL_GOOGLE_include_directive : require\n\
         #include \"lib/colour.glsl\"\nlayout(location = 0) out vec4 c;\nvoid main() { c = colour(); }\n",
    )?;
    let c = caf_import::convert_file(&main, &Settings::default())?;
    let deps: Vec<_> = c
        .dependencies
        .iter()
        .map(|d| d.strip_prefix(dir.path()).unwrap().to_path_buf())
        .collect();
    assert_eq!(
        deps,
        [
            PathBuf::from("lib/colour.glsl"),
            PathBuf::from("lib/tint.glsl")
        ]
    );
    // An error inside an included file names that file and its line.
    std::fs::write(
        dir.path().join("lib/tint.glsl"),
        "#define TINT 0.5\nfloat broken = ;\n",
    )?;
    let msg = caf_import::convert_file(&main, &Settings::default())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("tint.glsl:2:"), "{msg}");
    std::fs::remove_file(dir.path().join("lib/tint.glsl"))?;
    let msg = caf_import::convert_file(&main, &Settings::default())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("tint.glsl"), "{msg}");
    Ok(())
}

/// GLSL errors carry glslang's line; sources with NUL bytes or no usable #version are refused.
#[test]
fn glsl_errors_are_located() {
    let bad = "#version 450\nvoid main() {\n  float x = y;\n}\n";
    match glsl(bad, "bad.vert") {
        Err(ImportError::Shader {
            file,
            line,
            message,
            ..
        }) => {
            assert_eq!((file.as_str(), line), ("bad.vert", 3));
            assert!(message.contains("'y'"), "{message}");
        }
        other => panic!("expected a located error, got {other:?}"),
    }
    let msg = glsl("#version 450\0\nvoid main(){}", "n.vert")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("NUL"), "{msg}");
    let msg = glsl("#version 110\nvoid main(){}\n", "old.vert")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("require version 140"), "{msg}");
}

/// A module with a vertex and a fragment entry point needs a stage; a stored module's stage
/// must be one it has.
#[test]
fn two_stages_need_a_choice() -> Res {
    let wgsl = "@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n\
                @fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n";
    let both = shader::compile(wgsl.as_bytes(), "s.wgsl", Some("wgsl"), None, None);
    assert!(both.is_err());
    let v = shader::compile(
        wgsl.as_bytes(),
        "s.wgsl",
        Some("wgsl"),
        Some(Stage::Vertex),
        None,
    )?;
    assert_eq!(v.stage, Stage::Vertex);
    let again = convert(&v.spirv, Path::new("v.spv"), &Settings::default())?;
    assert_eq!(again.payload, v.spirv);
    let wrong = shader::compile(&v.spirv, "v.spv", Some("spv"), Some(Stage::Compute), None);
    assert!(wrong
        .unwrap_err()
        .to_string()
        .contains("no compute entry point"));
    Ok(())
}
