//! Shaders: GLSL, WGSL or SPIR-V to validated Vulkan SPIR-V.
//!
//! | input | front end | output |
//! |---|---|---|
//! | GLSL (`.vert`, `.frag`, `.comp`, `.glsl` with a stage) | Khronos glslang, the reference front end ([`GLSLANG`], `-V`: Vulkan 1.0 rules, SPIR-V 1.0), `#include` resolved next to the including file | glslang's SPIR-V |
//! | WGSL | naga | naga's SPIR-V, WebGPU clip space flipped to Vulkan's |
//! | SPIR-V | none | the input bytes unchanged |
//!
//! Every output is checked by the Khronos SPIRV-Tools validator (target environment
//! [`TARGET_ENV`]) before it is stored, and its entry points are read back to record the stage.
//! The Khronos tools run as programs: glslang's `glslangValidator` (Debian package
//! `glslang-tools`), and SPIRV-Tools' `spirv-val` and `spirv-dis` (package `spirv-tools`,
//! through the `spirv-tools` crate). A crash or assertion in them is a refused input, never a
//! crash of ours.
//! Neither compiler writes debug info, so output does not depend on how this crate was built
//! or where the source lies.

use std::path::{Path, PathBuf};

use naga::back::spv;
use naga::valid::{Capabilities, ValidationFlags, Validator};
use spirv_tools::val::Validator as _;

use crate::error::{ImportError, Result};
use crate::settings::Stage;

/// SPIR-V magic number (first word, little-endian).
pub const SPIRV_MAGIC: u32 = 0x0723_0203;

/// The environment every stored module is validated for: Vulkan 1.3 accepts SPIR-V 1.0 to
/// 1.6 with Vulkan's rules (`spirv-val --target-env vulkan1.3`).
pub const TARGET_ENV: spirv_tools::TargetEnv = spirv_tools::TargetEnv::Vulkan_1_3;

/// A compiled shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderData {
    /// The pipeline stage written to ShaderMetadata.
    pub stage: Stage,
    /// SPIR-V words as little-endian bytes.
    pub spirv: Vec<u8>,
    /// The files `#include` read (GLSL), so that batch builds rebuild when one changes.
    pub dependencies: Vec<PathBuf>,
}

/// Source language of a shader file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// GLSL for Vulkan (`#version 450`-style), stage from the extension or `--stage`.
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

fn unlocated(file: &str, message: impl Into<String>) -> ImportError {
    located(file, None, message.into())
}

/// The highest `location` a shader interface may use. Vulkan devices offer a few dozen; this
/// is far above any of them.
const MAX_LOCATION: u32 = 4095;

/// Refuses interface locations above [`MAX_LOCATION`] before validation.
///
/// Why: naga's validator keeps a bit set indexed by location, so one `location = 4278190080`
/// made it allocate and clear half a gigabyte.
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
                return Err(unlocated(
                    file,
                    format!("location {location} is out of range (at most {MAX_LOCATION})"),
                ));
            }
        }
    }
    Ok(())
}

/// A shader source as text.
fn source_text<'a>(bytes: &'a [u8], file: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        unlocated(
            file,
            format!("shader source is not UTF-8 (byte {})", e.valid_up_to()),
        )
    })
}

/// Compile `bytes` (named `file` in messages, with lower-case extension `ext`) to SPIR-V.
/// `stage` picks the stage for `.glsl` files and the entry point when a module has several.
/// GLSL `#include "x"` is resolved against the including file's folder, starting from
/// `include_dir` (the source's folder); without one, includes find nothing.
pub fn compile(
    bytes: &[u8],
    file: &str,
    ext: Option<&str>,
    stage: Option<Stage>,
    include_dir: Option<&Path>,
) -> Result<ShaderData> {
    compile_entry(bytes, file, ext, stage, None, include_dir)
}

/// [`compile`] keeping only the entry point named `entry`, when given: a WGSL module is
/// written with that entry point alone (its stage must be `stage`, when given); a GLSL or
/// SPIR-V module must have it as its only entry point (glslang names it `main`; SPIR-V is
/// stored unchanged).
pub fn compile_entry(
    bytes: &[u8],
    file: &str,
    ext: Option<&str>,
    stage: Option<Stage>,
    entry: Option<&str>,
    include_dir: Option<&Path>,
) -> Result<ShaderData> {
    let text = || source_text(bytes, file);
    let (words, dependencies) = match Language::detect(bytes, ext) {
        Language::Glsl => {
            let st = stage.or_else(|| stage_from_ext(ext)).ok_or_else(|| {
                unlocated(
                    file,
                    "cannot tell the GLSL stage: use a .vert/.frag/.comp name or set the stage explicitly",
                )
            })?;
            glsl_to_spirv(text()?, file, st, include_dir)?
        }
        Language::Wgsl => (wgsl_to_spirv(text()?, file, stage, entry)?, Vec::new()),
        Language::SpirV => (spirv_words(bytes, file)?, Vec::new()),
    };
    validate_words(&words).map_err(|m| unlocated(file, m))?;
    let eps = entry_points(&words).map_err(|m| unlocated(file, m))?;
    if let Some(name) = entry {
        only_entry(&eps, name).map_err(|m| unlocated(file, m))?;
    }
    let stage = choose_stage(&eps, stage).map_err(|m| unlocated(file, m))?;
    let spirv = if Language::detect(bytes, ext) == Language::SpirV {
        bytes.to_vec()
    } else {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    };
    Ok(ShaderData {
        stage,
        spirv,
        dependencies,
    })
}

/// Checks that a compiled module's one entry point is `name`.
fn only_entry(eps: &[EntryPoint], name: &str) -> std::result::Result<(), String> {
    if matches!(eps, [(only, _)] if only == name) {
        return Ok(());
    }
    let names: Vec<&str> = eps.iter().map(|(n, _)| n.as_str()).collect();
    Err(format!(
        "no entry point {name:?} alone: the module has {} ({}); choosing among several works \
         for WGSL sources",
        eps.len(),
        names.join(", ")
    ))
}

/// One asset of a shader source converted entry point by entry point.
#[derive(Clone, Debug)]
pub struct EntryAsset {
    /// The entry point the asset holds (outputs named after the source are `NAME.ENTRY.caf`).
    pub entry: String,
    /// The asset.
    pub converted: crate::Converted,
}

/// The assets of a shader source when it is converted entry point by entry point, or `None`
/// when it is one asset as [`crate::convert`] makes it.
///
/// - `entry` given: that entry point alone (a WGSL module is written with it alone; a GLSL or
///   SPIR-V module must have it as its only entry point).
/// - Otherwise a WGSL module with several entry points of `settings.stage` (or several at
///   all, without a stage) gives one asset per entry point, each holding it alone, in source
///   order: one asset never holds entry points the engine did not ask for, and none replaces
///   another.
/// - Otherwise, and for inputs that are not shaders, `None`.
pub fn convert_entries(
    bytes: &[u8],
    path: &Path,
    settings: &crate::Settings,
    entry: Option<&str>,
) -> Result<Option<Vec<EntryAsset>>> {
    let kind = settings.kind.or_else(|| crate::AssetKind::from_path(path));
    if kind != Some(crate::AssetKind::Shader) {
        return Ok(None);
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let file = path.display().to_string();
    if Language::detect(bytes, ext.as_deref()) != Language::Wgsl {
        let Some(name) = entry else { return Ok(None) };
        let converted = crate::convert(bytes, path, settings)?;
        let eps = entry_points(&le_words(&converted.payload)).map_err(|m| unlocated(&file, m))?;
        only_entry(&eps, name).map_err(|m| unlocated(&file, m))?;
        let entry = name.to_string();
        return Ok(Some(vec![EntryAsset { entry, converted }]));
    }
    let names: Vec<String> = match entry {
        Some(name) => vec![name.to_string()],
        None => {
            let (module, _) = wgsl_module(source_text(bytes, &file)?, &file)?;
            let names: Vec<String> = module
                .entry_points
                .iter()
                .filter(|ep| {
                    settings
                        .stage
                        .is_none_or(|s| naga_stage(ep.stage) == Some(s))
                })
                .map(|ep| ep.name.clone())
                .collect();
            if names.len() < 2 {
                return Ok(None);
            }
            names
        }
    };
    names
        .into_iter()
        .map(|name| {
            let s = compile_entry(
                bytes,
                &file,
                ext.as_deref(),
                settings.stage,
                Some(&name),
                None,
            )?;
            Ok(EntryAsset {
                entry: name,
                converted: crate::Converted::from_shader(s),
            })
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// The reference GLSL compiler: Khronos glslang's command-line front end (Debian package
/// `glslang-tools`).
pub const GLSLANG: &str = "glslangValidator";

/// Whether the Khronos programs every shader import runs (`glslangValidator`, and `spirv-val`
/// and `spirv-dis` from SPIRV-Tools) can be started on this machine: the demo leaves its
/// shaders out, with a note, when they cannot.
pub fn tools_available() -> bool {
    [GLSLANG, "spirv-val", "spirv-dis"].iter().all(|program| {
        std::process::Command::new(program)
            .arg("--version")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok()
    })
}

fn glslang_stage(stage: Stage) -> &'static str {
    match stage {
        Stage::Vertex => "vert",
        Stage::Fragment => "frag",
        Stage::Compute => "comp",
    }
}

/// The first `ERROR: <source>:<line>: <message>` of glslang's output, as (line, message) and
/// the number of further errors. The source itself is `stdin`; an error inside an included file
/// names that file in the message (its line is not the source's).
fn first_glslang_error(log: &str) -> Option<(u32, String, usize)> {
    let errors: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("ERROR: "))
        // The totals line and glslang's follow-up of the first error.
        .filter(|l| !l.contains("compilation errors.") && !l.contains("compilation terminated"))
        .collect();
    let rest = *errors.first()?;
    // "stdin:3: 'x' : undeclared identifier", "./lib/a.glsl:2: ...", "Linking fragment stage: ...".
    let mut parts = rest.splitn(3, ':');
    let (src, num, msg) = (parts.next()?, parts.next()?, parts.next());
    let (line, message) = match (num.trim().parse::<u32>(), msg) {
        (Ok(n), Some(m)) if src == "stdin" => (n, m.trim().to_string()),
        (Ok(n), Some(m)) if !src.is_empty() => (
            0,
            format!(
                "{}:{n}: {}",
                src.strip_prefix("./").unwrap_or(src),
                m.trim()
            ),
        ),
        _ => (0, rest.trim().to_string()),
    };
    Some((line, message, errors.len() - 1))
}

/// The files of a make-style depfile (`out: in1 in2`, spaces in names escaped as `\ `),
/// without the first (the source itself, `stdin`).
fn depfile_inputs(text: &str) -> Vec<String> {
    let Some((_, inputs)) = text.split_once(": ") else {
        return Vec::new();
    };
    let mut names = Vec::new();
    let mut cur = String::new();
    let mut chars = inputs.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if !cur.is_empty() {
                    names.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        names.push(cur);
    }
    names.into_iter().skip(1).collect()
}

/// GLSL to SPIR-V with glslang (`glslangValidator -V`: Vulkan 1.0 rules, SPIR-V 1.0, no debug
/// info), run in `include_dir` so that `#include` resolves next to the source.
fn glsl_to_spirv(
    src: &str,
    file: &str,
    stage: Stage,
    include_dir: Option<&Path>,
) -> Result<(Vec<u32>, Vec<PathBuf>)> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    if let Some(at) = src.find('\0') {
        return Err(unlocated(
            file,
            format!("GLSL source has a NUL byte at byte {at}"),
        ));
    }
    let tmp = tempfile::tempdir().map_err(|e| ImportError::io(std::env::temp_dir(), e))?;
    let out = tmp.path().join("out.spv");
    let deps = tmp.path().join("deps.d");
    // Without the source's folder, includes resolve in the empty scratch folder: none exist.
    let cwd = include_dir.unwrap_or(tmp.path());
    let mut child = Command::new(GLSLANG)
        .current_dir(cwd)
        .args(["-V", "--target-env", "vulkan1.0", "--stdin", "-S"])
        .arg(glslang_stage(stage))
        .arg("-o")
        .arg(&out)
        .arg("--depfile")
        .arg(&deps)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            unlocated(
                file,
                format!(
                    "the GLSL compiler {GLSLANG} (Debian package glslang-tools) could not run: {e}"
                ),
            )
        })?;
    // Feed the source from another thread so that a compiler printing much cannot block on a
    // full pipe while we are still writing.
    let mut stdin = child.stdin.take();
    let source = src.to_string();
    let feeder = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            // A compiler that stops reading early shows up in its exit status and output.
            let _ = s.write_all(source.as_bytes());
        }
    });
    let output = child
        .wait_with_output()
        .map_err(|e| unlocated(file, format!("the GLSL compiler {GLSLANG} failed: {e}")))?;
    let _ = feeder.join();
    let log = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(match first_glslang_error(&log) {
            Some((line, message, more)) => ImportError::Shader {
                file: file.to_string(),
                line,
                column: 0,
                message: if more > 0 {
                    format!("{message} (and {more} more errors)")
                } else {
                    message
                },
            },
            None => unlocated(
                file,
                format!(
                    "the GLSL compiler {GLSLANG} failed ({}): {}",
                    output.status,
                    log.trim()
                ),
            ),
        });
    }
    let bytes = std::fs::read(&out).map_err(|e| ImportError::io(&out, e))?;
    if bytes.is_empty() || bytes.len() % 4 != 0 {
        return Err(unlocated(
            file,
            format!("{GLSLANG} wrote {} bytes, not a SPIR-V module", bytes.len()),
        ));
    }
    let words = le_words(&bytes);
    let dependencies = std::fs::read_to_string(&deps)
        .map(|t| depfile_inputs(&t))
        .unwrap_or_default()
        .into_iter()
        .map(|d| {
            let d = d.strip_prefix("./").map(str::to_string).unwrap_or(d);
            cwd.join(d)
        })
        .collect();
    Ok((words, dependencies))
}

/// A parsed and validated WGSL module.
fn wgsl_module(src: &str, file: &str) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| {
        let mut msg = e.message().to_string();
        if let Some((_, label)) = e.labels().next() {
            if !label.is_empty() {
                msg.push_str(&format!(" ({label})"));
            }
        }
        located(file, e.location(src), msg)
    })?;
    check_locations(&module, file)?;
    let info = Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(&module)
        .map_err(|e| {
            located(
                file,
                e.location(src),
                format!("validation failed: {}", error_chain(e.as_inner())),
            )
        })?;
    Ok((module, info))
}

/// The entry point `name` of `module` (of stage `stage`, when given), as naga's writer takes
/// it.
fn named_entry(
    module: &naga::Module,
    file: &str,
    name: &str,
    stage: Option<Stage>,
) -> Result<spv::PipelineOptions> {
    let Some(ep) = module.entry_points.iter().find(|ep| ep.name == name) else {
        let names: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        return Err(unlocated(
            file,
            format!(
                "the module has no entry point {name:?} (it has {})",
                names.join(", ")
            ),
        ));
    };
    match (naga_stage(ep.stage), stage) {
        (Some(have), Some(want)) if have != want => Err(unlocated(
            file,
            format!("entry point {name:?} is a {have} entry point, not {want}"),
        )),
        _ => Ok(spv::PipelineOptions {
            shader_stage: ep.stage,
            entry_point: ep.name.clone(),
        }),
    }
}

fn wgsl_to_spirv(
    src: &str,
    file: &str,
    stage: Option<Stage>,
    entry: Option<&str>,
) -> Result<Vec<u32>> {
    let (module, info) = wgsl_module(src, file)?;
    // One entry point per stored module when the caller names one, or names a stage and there
    // are several; several of that stage cannot be told apart by the stage, and storing them
    // all would hand the engine a module with entry points it did not ask for.
    let mut chosen = None;
    if let Some(name) = entry {
        chosen = Some(named_entry(&module, file, name, stage)?);
    } else if let Some(s) = stage.filter(|_| module.entry_points.len() > 1) {
        let same: Vec<_> = module
            .entry_points
            .iter()
            .filter(|ep| naga_stage(ep.stage) == Some(s))
            .collect();
        if same.len() > 1 {
            let names: Vec<&str> = same.iter().map(|ep| ep.name.as_str()).collect();
            return Err(unlocated(
                file,
                format!(
                    "the module has {} {s} entry points ({}); a shader asset holds one: choose \
                     one (`--entry NAME`), or convert into a folder for one asset each",
                    same.len(),
                    names.join(", ")
                ),
            ));
        }
        chosen = same.first().map(|ep| spv::PipelineOptions {
            shader_stage: ep.stage,
            entry_point: ep.name.clone(),
        });
    }
    let options = spv::Options {
        flags: spv::WriterFlags::LABEL_VARYINGS
            | spv::WriterFlags::CLAMP_FRAG_DEPTH
            | spv::WriterFlags::ADJUST_COORDINATE_SPACE,
        ..spv::Options::default()
    };
    // naga's writer has hit `unreachable!` on validated modules; a panic there means the
    // input is not something we can convert, not a reason to take the process down.
    voxcaf_guard::catch(|| spv::write_vec(&module, &info, &options, chosen.as_ref()))
        .map_err(|panic| {
            unlocated(
                file,
                format!(
                    "SPIR-V generation failed: the module uses a construct the writer cannot \
                     handle (naga: {panic})"
                ),
            )
        })?
        .map_err(|e| {
            unlocated(
                file,
                format!("SPIR-V generation failed: {}", error_chain(&e)),
            )
        })
}

fn naga_stage(stage: naga::ShaderStage) -> Option<Stage> {
    match stage {
        naga::ShaderStage::Vertex => Some(Stage::Vertex),
        naga::ShaderStage::Fragment => Some(Stage::Fragment),
        naga::ShaderStage::Compute => Some(Stage::Compute),
        _ => None,
    }
}

/// Validate SPIR-V words with the Khronos validator; the error is its message.
fn validate_words(words: &[u32]) -> std::result::Result<(), String> {
    use spirv_tools::SpirvResult as R;
    spirv_tools::val::create(Some(TARGET_ENV))
        .validate(words, None)
        .map_err(|e| match e.diagnostic {
            // The tool could not be started or talked to: not a verdict on the module.
            Some(d) if matches!(e.inner, R::Unsupported | R::EndOfStream) => format!(
                "the SPIR-V validator (spirv-val, Debian package spirv-tools) could not run: {}",
                d.message
            ),
            Some(d) if !d.notes.is_empty() => {
                format!("invalid SPIR-V: {}\n{}", d.message, d.notes.trim_end())
            }
            Some(d) => format!("invalid SPIR-V: {}", d.message),
            None => format!("invalid SPIR-V: the validator answered {:?}", e.inner),
        })
}

/// An entry point of a SPIR-V module: its name and its stage (`Err` names an unsupported
/// execution model).
type EntryPoint = (String, std::result::Result<Stage, String>);

/// The entry points of a (validated) module, in order.
fn entry_points(words: &[u32]) -> std::result::Result<Vec<EntryPoint>, String> {
    use rspirv::dr::Operand;
    use rspirv::spirv::ExecutionModel as M;
    let module =
        rspirv::dr::load_words(words).map_err(|e| format!("cannot read the SPIR-V module: {e}"))?;
    Ok(module
        .entry_points
        .iter()
        .filter_map(|inst| {
            let model = match inst.operands.first()? {
                Operand::ExecutionModel(m) => *m,
                _ => return None,
            };
            let name = match inst.operands.get(2)? {
                Operand::LiteralString(s) => s.clone(),
                _ => return None,
            };
            let stage = match model {
                M::Vertex => Ok(Stage::Vertex),
                M::Fragment => Ok(Stage::Fragment),
                M::GLCompute => Ok(Stage::Compute),
                other => Err(format!("{other:?}")),
            };
            Some((name, stage))
        })
        .collect())
}

/// The stage to record: the one asked for (which must exist), else the module's only one.
fn choose_stage(eps: &[EntryPoint], want: Option<Stage>) -> std::result::Result<Stage, String> {
    if eps.is_empty() {
        return Err("the module has no entry point".into());
    }
    let stages: Vec<Stage> = eps
        .iter()
        .map(|(name, st)| {
            st.clone().map_err(|model| {
                format!("entry point {name:?}: stage {model} is not supported (vertex, fragment or compute)")
            })
        })
        .collect::<std::result::Result<_, _>>()?;
    match want {
        Some(s) if stages.contains(&s) => Ok(s),
        Some(s) => Err(format!("the module has no {s} entry point")),
        None => {
            let first = stages[0];
            match stages.iter().find(|s| **s != first) {
                Some(other) => Err(format!(
                    "the module has {first} and {other} entry points; set the stage to choose one"
                )),
                None => Ok(first),
            }
        }
    }
}

/// Validate SPIR-V bytes with the Khronos validator (target [`TARGET_ENV`]).
pub fn validate_spirv(bytes: &[u8]) -> Result<()> {
    let words = spirv_words(bytes, "<spirv>")?;
    validate_words(&words).map_err(|m| unlocated("<spirv>", m))
}

/// The words of the SPIR-V module `bytes` (from `file`), whose length must be a multiple of 4.
fn spirv_words(bytes: &[u8], file: &str) -> Result<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(unlocated(
            file,
            format!("SPIR-V length {} is not a multiple of 4", bytes.len()),
        ));
    }
    Ok(le_words(bytes))
}

/// `bytes` as little-endian 32-bit words (a tail shorter than a word is left out).
fn le_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// The SPIRV-Tools disassembly of SPIR-V bytes (`spirv-dis` text: friendly names, indented,
/// with the header comment), after validating them.
pub fn disassemble(bytes: &[u8]) -> Result<String> {
    use spirv_tools::assembler::Assembler as _;
    validate_spirv(bytes)?;
    let words = le_words(bytes);
    let options = spirv_tools::assembler::DisassembleOptions {
        comment: false,
        ..Default::default()
    };
    spirv_tools::assembler::create(Some(TARGET_ENV))
        .disassemble(&words, options)
        .map_err(|e| unlocated("<spirv>", format!("disassembly failed: {e}")))?
        .ok_or_else(|| unlocated("<spirv>", "disassembly failed: no text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes` as a `.spv` file: refused by the SPIR-V validator.
    fn assert_invalid_spirv(bytes: &[u8]) {
        let msg = compile(bytes, "x.spv", Some("spv"), None, None)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("invalid SPIR-V"), "{msg}");
    }

    const FRAG: &str =
        "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n";

    /// Found by the `import_spv` fuzz target: a mutated compute shader that naga read and
    /// validated but whose SPIR-V writer then hit `unreachable!` ("Expression [4] is not
    /// cached"). SPIR-V no longer goes through naga; the Khronos validator refuses it.
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
        let bytes = crate::test_util::hex_bytes(&hex);
        assert_invalid_spirv(&bytes);
    }

    /// Found by the `import_spv` fuzz target (as a 1.3 s input): a huge interface location
    /// made naga's validator allocate and clear a bit set of half a gigabyte.
    #[test]
    fn fuzz_regression_huge_location() {
        let src = "@fragment fn main() -> @location(4000000000) vec4<f32> \
                   { return vec4<f32>(1.0); }\n";
        let msg = compile(src.as_bytes(), "x.wgsl", Some("wgsl"), None, None)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("location 4000000000 is out of range"), "{msg}");
        // A high but sane location still compiles.
        let ok = src.replace("4000000000", "31");
        assert!(compile(ok.as_bytes(), "x.wgsl", Some("wgsl"), None, None).is_ok());
    }

    /// Found by the `import_spv` fuzz target: a truncated `OpExecutionMode LocalSize` (one
    /// operand of three) made naga's SPIR-V reader index past its operands and panic; the
    /// validator refuses it.
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
        assert_invalid_spirv(&bytes);
    }

    #[test]
    fn glsl_fragment_compiles_and_revalidates() {
        let s = compile(FRAG.as_bytes(), "a.frag", Some("frag"), None, None).unwrap();
        assert_eq!(s.stage, Stage::Fragment);
        assert_eq!(&s.spirv[..4], &SPIRV_MAGIC.to_le_bytes());
        validate_spirv(&s.spirv).unwrap();
        // SPIR-V in, the same SPIR-V out.
        let again = compile(&s.spirv, "a.spv", Some("spv"), None, None).unwrap();
        assert_eq!(again.stage, Stage::Fragment);
        assert_eq!(again.spirv, s.spirv);
    }

    #[test]
    fn glsl_error_has_line() {
        let bad = "#version 450\nvoid main() {\n  float x = ;\n}\n";
        match compile(bad.as_bytes(), "bad.vert", Some("vert"), None, None) {
            Err(ImportError::Shader {
                file, line, column, ..
            }) => {
                assert_eq!(file, "bad.vert");
                assert_eq!(line, 3);
                assert_eq!(column, 0, "glslang gives no column");
            }
            other => panic!("expected a located error, got {other:?}"),
        }
    }

    #[test]
    fn wgsl_stage_with_several_entry_points_of_that_stage_is_refused_not_stored_whole() {
        let src = "@vertex fn vs_a() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n\
                   @vertex fn vs_b() -> @builtin(position) vec4<f32> { return vec4<f32>(1.0); }\n\
                   @fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n";
        let wgsl = |stage| compile(src.as_bytes(), "s.wgsl", Some("wgsl"), Some(stage), None);
        let e = wgsl(Stage::Vertex).unwrap_err().to_string();
        assert!(e.contains("2 vertex entry points (vs_a, vs_b)"), "{e}");
        assert!(e.contains("`--entry NAME`"), "{e}");
        // The fragment stage is one entry point: stored alone.
        let f = wgsl(Stage::Fragment).unwrap();
        let eps = entry_points(
            &f.spirv
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert_eq!(eps.len(), 1, "{eps:?}");
    }

    #[test]
    fn wgsl_with_two_stages_needs_a_choice() {
        let src = "@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n\
                   @fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n";
        assert!(compile(src.as_bytes(), "s.wgsl", Some("wgsl"), None, None).is_err());
        let v = compile(
            src.as_bytes(),
            "s.wgsl",
            Some("wgsl"),
            Some(Stage::Vertex),
            None,
        )
        .unwrap();
        assert_eq!(v.stage, Stage::Vertex);
        validate_spirv(&v.spirv).unwrap();
        assert!(compile(
            src.as_bytes(),
            "s.wgsl",
            Some("wgsl"),
            Some(Stage::Compute),
            None
        )
        .is_err());
    }
}
