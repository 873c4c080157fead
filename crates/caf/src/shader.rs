//! Shader assets: bytecode (SPIR-V for the original) and its stage (CAF.md section 4.4).

use zerocopy::FromBytes;

use crate::container::header::AssetType;
use crate::container::layout::layout;
use crate::container::load::Asset;
use crate::container::metadata::codec;
use crate::container::view::expect_type;
use crate::error::CafError;

voxcaf_names::names! {
    /// Shader stage codes for [`ShaderMetadata::stage`].
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct ShaderStage(pub u32) as "shader stage", unknown "stage" {
        /// Vertex shader (0).
        VERTEX = 0 => "vertex",
        /// Fragment shader (1).
        FRAGMENT = 1 => "fragment",
        /// Compute shader (2).
        COMPUTE = 2 => "compute",
    }
}

layout! {
    /// Shader metadata (8 bytes).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct ShaderMetadata (RawShaderMetadata, 8 bytes) {
        /// A [`ShaderStage`] code.
        pub stage: u32,
        /// Reserved, 0.
        pub reserved: u32,
    }
}
codec!(ShaderMetadata, RawShaderMetadata, AssetType::SHADER);

/// Shader bytecode.
#[derive(Clone, Copy, Debug)]
pub struct ShaderView<'a> {
    /// The metadata.
    pub meta: ShaderMetadata,
    /// The bytecode (SPIR-V for the original).
    pub bytecode: &'a [u8],
}

impl<'a> ShaderView<'a> {
    /// Check a shader asset (stage must be vertex, fragment or compute).
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::SHADER;
        expect_type(a, ty)?;
        let meta = ShaderMetadata::from_metadata(a.metadata)?;
        if ShaderStage(meta.stage).name().is_none() {
            return Err(CafError::BadMetadata {
                ty,
                field: "stage",
                value: meta.stage.into(),
                reason: "must be 0 (vertex), 1 (fragment) or 2 (compute)",
            });
        }
        Ok(ShaderView {
            meta,
            bytecode: a.payload,
        })
    }

    /// The stage.
    pub fn stage(&self) -> ShaderStage {
        ShaderStage(self.meta.stage)
    }

    /// The bytecode as 32-bit words, when its length is a multiple of 4 and it is aligned.
    pub fn words(&self) -> Option<&'a [u32]> {
        if cfg!(target_endian = "big") {
            return None;
        }
        <[u32]>::ref_from_bytes(self.bytecode).ok()
    }

    /// True when the bytecode starts with the SPIR-V magic number 0x07230203.
    pub fn is_spirv(&self) -> bool {
        self.bytecode.get(..4) == Some(&0x0723_0203u32.to_le_bytes())
    }
}
