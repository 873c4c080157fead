//! Shaders: GLSL, WGSL or SPIR-V to validated SPIR-V through `naga`.
//!
//! Coordinate conventions: GLSL is taken as Vulkan GLSL and SPIR-V as Vulkan SPIR-V, so both
//! keep their clip space; WGSL is in WebGPU clip space and gets the usual y flip when written
//! as Vulkan SPIR-V. The SPIR-V writer runs without debug info, so output does not depend on
//! how this crate was built.

use naga::back::spv;
use naga::valid::{Capabilities, ValidationFlags, Validator};

use crate::error::{ImportError, Result};
use crate::settings::Stage;

/// SPIR-V magic number (first word, little-endian).
pub const SPIRV_MAGIC: u32 = 0x0723_0203;

/// A compiled shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderData {
    /// The pipeline stage written to ShaderMetadata.
    pub stage: Stage,
    /// SPIR-V words as little-endian bytes.
    pub spirv: Vec<u8>,
}

/// Source language of a shader file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// GLSL 4.50-style (`#version 450`), stage from the extension or `--stage`.
    Glsl,
    /// WGSL.
    Wgsl,
    /// SPIR-V binary.
    SpirV,
}

impl Language {
    /// Choose the language from the contents (SPIR-V magic) and the extension.
    pub fn detect(bytes: &[u8], ext: Option<&str>) -> Language {
        if bytes.len() >= 4
            && u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == SPIRV_MAGIC
        {
            return Language::SpirV;
        }
        match ext {
            Some("wgsl") => Language::Wgsl,
            Some("spv") => Language::SpirV,
            _ => Language::Glsl,
        }
    }
}

fn stage_from_ext(ext: Option<&str>) -> Option<Stage> {
    match ext? {
        "vert" => Some(Stage::Vertex),
        "frag" => Some(Stage::Fragment),
        "comp" => Some(Stage::Compute),
        _ => None,
    }
}

fn to_naga(stage: Stage) -> naga::ShaderStage {
    match stage {
        Stage::Vertex => naga::ShaderStage::Vertex,
        Stage::Fragment => naga::ShaderStage::Fragment,
        Stage::Compute => naga::ShaderStage::Compute,
    }
}

fn from_naga(stage: naga::ShaderStage) -> Option<Stage> {
    match stage {
        naga::ShaderStage::Vertex => Some(Stage::Vertex),
        naga::ShaderStage::Fragment => Some(Stage::Fragment),
        naga::ShaderStage::Compute => Some(Stage::Compute),
        _ => None,
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut msg = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        let part = s.to_string();
        if !msg.contains(&part) {
            msg.push_str(": ");
            msg.push_str(&part);
        }
        src = s.source();
    }
    msg
}

fn located(file: &str, loc: Option<naga::SourceLocation>, message: String) -> ImportError {
    let (line, column) = loc
        .map(|l| (l.line_number, l.line_position))
        .unwrap_or((0, 0));
    ImportError::Shader {
        file: file.to_string(),
        line,
        column,
        message,
    }
}

/// The highest `location` a shader interface may use. Vulkan devices offer a few dozen; this
/// is far above any of them.
const MAX_LOCATION: u32 = 4095;

/// Refuses interface locations above [`MAX_LOCATION`] before validation.
///
/// Why: naga's validator keeps a bit set indexed by location, so one `location = 4278190080`
/// (in SPIR-V, GLSL or WGSL) made it allocate and clear half a gigabyte.
fn check_locations(module: &naga::Module, file: &str) -> Result<()> {
    let struct_members = module.types.iter().flat_map(|(_, ty)| match &ty.inner {
        naga::TypeInner::Struct { members, .. } => members.iter().map(|m| &m.binding).collect(),
        _ => Vec::new(),
    });
    let entry_points = module.entry_points.iter().flat_map(|ep| {
        ep.function
            .arguments
            .iter()
            .map(|a| &a.binding)
            .chain(ep.function.result.iter().map(|r| &r.binding))
    });
    for b in struct_members.chain(entry_points).flatten() {
        if let naga::Binding::Location { location, .. } = b {
            if *location > MAX_LOCATION {
                return Err(located(
                    file,
                    None,
                    format!("location {location} is out of range (at most {MAX_LOCATION})"),
                ));
            }
        }
    }
    Ok(())
}

/// Compile `bytes` (named `file` in messages, with lower-case extension `ext`) to SPIR-V.
/// `stage` picks the stage for `.glsl` files and the entry point when a module has several.
pub fn compile(
    bytes: &[u8],
    file: &str,
    ext: Option<&str>,
    stage: Option<Stage>,
) -> Result<ShaderData> {
    let lang = Language::detect(bytes, ext);
    let text = || {
        std::str::from_utf8(bytes).map_err(|e| {
            located(
                file,
                None,
                format!("shader source is not UTF-8 (byte {})", e.valid_up_to()),
            )
        })
    };
    let mut flags = spv::WriterFlags::LABEL_VARYINGS | spv::WriterFlags::CLAMP_FRAG_DEPTH;
    let (module, source) = match lang {
        Language::Glsl => {
            let src = text()?;
            let st = stage.or_else(|| stage_from_ext(ext)).ok_or_else(|| {
                located(
                    file,
                    None,
                    "cannot tell the GLSL stage: use a .vert/.frag/.comp name or set the stage explicitly"
                        .into(),
                )
            })?;
            let mut frontend = naga::front::glsl::Frontend::default();
            let module = frontend
                .parse(&naga::front::glsl::Options::from(to_naga(st)), src)
                .map_err(|errs| {
                    let first = errs.errors.first();
                    let loc = first.and_then(|e| e.location(src));
                    let mut msg = first
                        .map(|e| e.kind.to_string())
                        .unwrap_or_else(|| "GLSL parse error".into());
                    if errs.errors.len() > 1 {
                        msg.push_str(&format!(" (and {} more errors)", errs.errors.len() - 1));
                    }
                    located(file, loc, msg)
                })?;
            (module, Some(src))
        }
        Language::Wgsl => {
            let src = text()?;
            flags |= spv::WriterFlags::ADJUST_COORDINATE_SPACE;
            let module = naga::front::wgsl::parse_str(src).map_err(|e| {
                let mut msg = e.message().to_string();
                if let Some((_, label)) = e.labels().next() {
                    if !label.is_empty() {
                        msg.push_str(&format!(" ({label})"));
                    }
                }
                located(file, e.location(src), msg)
            })?;
            (module, Some(src))
        }
        Language::SpirV => {
            if bytes.len() % 4 != 0 {
                return Err(located(
                    file,
                    None,
                    format!("SPIR-V length {} is not a multiple of 4", bytes.len()),
                ));
            }
            flags |= spv::WriterFlags::ADJUST_COORDINATE_SPACE;
            // naga's SPIR-V reader indexes instruction operands without checking their count
            // (an `OpExecutionMode LocalSize` with one operand panics); a panic there is
            // invalid input, not a reason to take the process down.
            let parsed = std::panic::catch_unwind(|| {
                naga::front::spv::parse_u8_slice(bytes, &naga::front::spv::Options::default())
            })
            .map_err(|_| {
                located(
                    file,
                    None,
                    "invalid SPIR-V: an instruction is malformed (the reader gave up)".into(),
                )
            })?;
            let module = parsed
                .map_err(|e| located(file, None, format!("invalid SPIR-V: {}", error_chain(&e))))?;
            (module, None)
        }
    };
    check_locations(&module, file)?;
    let info = Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(&module)
        .map_err(|e| {
            let loc = source.and_then(|s| e.location(s));
            located(
                file,
                loc,
                format!("validation failed: {}", error_chain(e.as_inner())),
            )
        })?;

    let eps: Vec<(String, Stage)> = module
        .entry_points
        .iter()
        .map(|ep| {
            from_naga(ep.stage)
                .map(|s| (ep.name.clone(), s))
                .ok_or_else(|| {
                    located(
                        file,
                        None,
                        format!(
                            "entry point {:?}: stage {:?} is not supported",
                            ep.name, ep.stage
                        ),
                    )
                })
        })
        .collect::<Result<_>>()?;
    if eps.is_empty() {
        return Err(located(file, None, "the module has no entry point".into()));
    }
    let chosen = match stage {
        Some(s) => {
            let ep = eps
                .iter()
                .find(|(_, st)| *st == s)
                .ok_or_else(|| located(file, None, format!("the module has no {s} entry point")))?;
            Some(ep.clone())
        }
        None => {
            let first = eps[0].1;
            if let Some((_, other)) = eps.iter().find(|(_, st)| *st != first) {
                return Err(located(
                    file,
                    None,
                    format!(
                        "the module has {first} and {other} entry points; set the stage to choose one"
                    ),
                ));
            }
            None
        }
    };
    let stage = chosen.as_ref().map(|c| c.1).unwrap_or(eps[0].1);
    let pipeline = chosen
        .filter(|_| eps.len() > 1)
        .map(|(name, st)| spv::PipelineOptions {
            shader_stage: to_naga(st),
            entry_point: name,
        });
    let options = spv::Options {
        flags,
        ..spv::Options::default()
    };
    // naga's writer hits `unreachable!` on some validated modules that came from SPIR-V (an
    // expression used before it is emitted); a panic there means the input is not something
    // we can convert, not a reason to take the process down.
    let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        spv::write_vec(&module, &info, &options, pipeline.as_ref())
    }))
    .map_err(|_| {
        located(
            file,
            None,
            "SPIR-V generation failed: the module uses a construct the writer cannot handle".into(),
        )
    })?;
    let words = written.map_err(|e| {
        located(
            file,
            None,
            format!("SPIR-V generation failed: {}", error_chain(&e)),
        )
    })?;
    let mut spirv = Vec::with_capacity(words.len() * 4);
    for w in words {
        spirv.extend_from_slice(&w.to_le_bytes());
    }
    Ok(ShaderData { stage, spirv })
}

/// Parse and validate SPIR-V bytes again (used by tests and `voxcaf asset check`-style tools).
pub fn validate_spirv(bytes: &[u8]) -> Result<()> {
    let module = naga::front::spv::parse_u8_slice(bytes, &naga::front::spv::Options::default())
        .map_err(|e| {
            located(
                "<spirv>",
                None,
                format!("invalid SPIR-V: {}", error_chain(&e)),
            )
        })?;
    Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(&module)
        .map_err(|e| {
            located(
                "<spirv>",
                None,
                format!("validation failed: {}", error_chain(e.as_inner())),
            )
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAG: &str =
        "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n";

    /// Found by the `import_spv` fuzz target: a mutated compute shader that naga reads and
    /// validates but whose SPIR-V writer then hits `unreachable!` ("Expression [4] is not
    /// cached"). Converting it is refused with a typed error.
    #[test]
    fn fuzz_regression_spirv_writer_unreachable() {
        let hex: String = [
            "03022307000001001c000000220000000000000011000200010000000a000b005350565f4b48525f73746f72",
            "6167655f6275666665725f73746f726167655f636c617373000000000b00060001000000474c534c2e737464",
            "2e343530000000000e00030000000000010000000f000600050000000d0000006d61696e000000000a000000",
            "100006000d000000110000004000000001000000010000004700040004000000060000000400000047000400",
            "0600000022000000000000004700040006000000210000000000000047000300070000000200000048000500",
            "07000000000000002300000000000000470004000a0000000b0000001c000000130002000200000015000400",
            "0300000020000000000000001d0003000400000003000000170004000500000003000000030000001e000300",
            "070000000400000020000400080000000c000000070000003b00040008000000060000000c00000020000400",
            "0b00000001000000050000003b0004000b0000000a00000001000000210003000e0000000200000020000400",
            "0f0000000c000000040000002b0004000300000010000000000000002b000400030000001200000002000000",
            "1400020016000000200004001c0000000c0000000300000036000500020000000d000000000000000e000000",
            "f8000200090000003d000400050000000c0000000a000000410005000f000000110000000600000010000000",
            "f900020013000000f8000200130000005100050003000000140000000c000000000000004400050003000000",
            "150000000600000000000000b000050016000000170000001400000015000000f70003001800000000000000",
            "fa00040017000000190000001a000000f80002000900000051000500030000001b0000000c00000000000000",
            "51000500030000001d0000000c00000000000000410005001c0000001e000000110000001d0000003d000400",
            "030000001f0000001e0000008400050003000000200000001f00000012000000410005001c00000021000000",
            "110000001b0000003e0003002100000020000000fd000100f80002001a000000fd000100f800020018000000",
            "fd00010038000100",
        ]
        .concat();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let msg = compile(&bytes, "x.spv", Some("spv"), None)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("SPIR-V generation failed"), "{msg}");
    }

    /// Found by the `import_spv` fuzz target (as a 1.3 s input): a huge interface location
    /// made naga's validator allocate and clear a bit set of half a gigabyte.
    #[test]
    fn fuzz_regression_huge_location() {
        let src = "@fragment fn main() -> @location(4000000000) vec4<f32> \
                   { return vec4<f32>(1.0); }\n";
        let msg = compile(src.as_bytes(), "x.wgsl", Some("wgsl"), None)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("location 4000000000 is out of range"), "{msg}");
        // A high but sane location still compiles.
        let ok = src.replace("4000000000", "31");
        assert!(compile(ok.as_bytes(), "x.wgsl", Some("wgsl"), None).is_ok());
    }

    /// Found by the `import_spv` fuzz target: a truncated `OpExecutionMode LocalSize` (one
    /// operand of three) made naga's SPIR-V reader index past its operands and panic.
    #[test]
    fn fuzz_regression_spirv_short_execution_mode() {
        let words: [u32; 37] = [
            0x07230203, 0x00010000, 0x0000001c, 0x00000022, 0x00000000, 0x00020011, 0x00000001,
            0x000b000a, 0x5f565053, 0x5f52484b, 0x726f7473, 0x5f656761, 0x66667562, 0x735f7265,
            0x61726f74, 0x635f6567, 0x7373616c, 0x00000000, 0x0006000b, 0x00000001, 0x4c534c47,
            0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0006000f,
            0x00000005, 0x0000000d, 0x6e69616d, 0x00000000, 0x0000000a, 0x00060010, 0x0000000d,
            0x00000011, 0x00000040,
        ];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let msg = compile(&bytes, "x.spv", Some("spv"), None)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("invalid SPIR-V"), "{msg}");
    }

    #[test]
    fn glsl_fragment_compiles_and_revalidates() {
        let s = compile(FRAG.as_bytes(), "a.frag", Some("frag"), None).unwrap();
        assert_eq!(s.stage, Stage::Fragment);
        assert_eq!(&s.spirv[..4], &SPIRV_MAGIC.to_le_bytes());
        validate_spirv(&s.spirv).unwrap();
        // SPIR-V in, SPIR-V out.
        let again = compile(&s.spirv, "a.spv", Some("spv"), None).unwrap();
        assert_eq!(again.stage, Stage::Fragment);
    }

    #[test]
    fn glsl_error_has_line_and_column() {
        let bad = "#version 450\nvoid main() {\n  float x = ;\n}\n";
        match compile(bad.as_bytes(), "bad.vert", Some("vert"), None) {
            Err(ImportError::Shader {
                file, line, column, ..
            }) => {
                assert_eq!(file, "bad.vert");
                assert_eq!(line, 3);
                assert!(column > 1);
            }
            other => panic!("expected a located error, got {other:?}"),
        }
    }

    #[test]
    fn wgsl_with_two_stages_needs_a_choice() {
        let src = "@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n\
                   @fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n";
        assert!(compile(src.as_bytes(), "s.wgsl", Some("wgsl"), None).is_err());
        let v = compile(src.as_bytes(), "s.wgsl", Some("wgsl"), Some(Stage::Vertex)).unwrap();
        assert_eq!(v.stage, Stage::Vertex);
        validate_spirv(&v.spirv).unwrap();
        assert!(compile(src.as_bytes(), "s.wgsl", Some("wgsl"), Some(Stage::Compute)).is_err());
    }
}
