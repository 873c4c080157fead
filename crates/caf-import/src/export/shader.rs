//! Shader export: the SPIR-V exactly as stored, and its SPIRV-Tools disassembly.

use std::path::Path;

use super::{ExportError, ExportFile, Result};

/// The SPIR-V at `out` and its disassembly beside it (`out` with extension `.spvasm`). The
/// bytes are validated first; a shader asset that does not hold valid SPIR-V is refused.
pub fn export(asset: &caf::Asset<'_>, out: &Path) -> Result<Vec<ExportFile>> {
    let view = caf::shader::ShaderView::from_asset(asset)?;
    let asm = out.with_extension("spvasm");
    if asm == out {
        return Err(ExportError::BadOutput {
            path: out.to_path_buf(),
            message:
                "the disassembly goes to OUT with extension .spvasm; name the SPIR-V output OUT.spv",
        });
    }
    let text = crate::shader::disassemble(view.bytecode).map_err(|e| ExportError::Encode {
        format: "SPIR-V",
        message: match e {
            crate::ImportError::Shader { message, .. } => message,
            other => other.to_string(),
        },
    })?;
    let stage = view.stage().name().unwrap_or("unknown");
    Ok(vec![
        ExportFile {
            path: out.to_path_buf(),
            bytes: view.bytecode.to_vec(),
            what: format!("SPIR-V, {stage} stage, {} bytes", view.bytecode.len()),
        },
        ExportFile {
            path: asm,
            bytes: text.into_bytes(),
            what: "SPIR-V disassembly".into(),
        },
    ])
}
