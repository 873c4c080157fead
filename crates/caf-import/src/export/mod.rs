//! The way back out: a `.caf` asset to files that ordinary tools open (`voxcaf asset export`).
//!
//! | asset type | files | module |
//! |---|---|---|
//! | Texture | one PNG (or OpenEXR for float formats) per mip level (`OUT-mipN.png`), or one level as `OUT`; to `OUT.ktx2` the levels as stored (BCn and ASTC blocks included), in one KTX2 file | [`texture`] |
//! | Audio (8/16/32-bit PCM) | a WAV file (`OUT`) | [`audio`] |
//! | Shader (SPIR-V) | the SPIR-V bytes as stored (`OUT`) and their disassembly (`OUT` with extension `.spvasm`) | [`shader`] |
//! | Mesh (original and extended) | glTF 2.0: `OUT.glb`, or `OUT.gltf` with its buffer `OUT.bin`; one primitive per sub-mesh, placeholder materials at the stored indices, COLOR_0 and TEXCOORD_1, the skin (joint nodes, inverse binds, JOINTS_0 / WEIGHTS_0), and with [`ExportOptions::animation`] the clips of an Animation asset on its joints | [`gltf`] |
//! | Animation | glTF 2.0 as for a mesh: one animation per clip, on one empty node per animated node | [`gltf`] |
//! | Font | the atlas PNG (`OUT`) and a JSON of metrics, glyphs and kerning in msdf-atlas-gen's layout (`OUT` with extension `.json`) | [`font`] |
//!
//! Other types are refused with [`ExportError::UnsupportedType`]. Each kind has one module;
//! [`export`] dispatches on the asset type, so a new kind is one module and one match arm.
//! Export builds every file in memory first ([`ExportFile`]); [`write_files`] then writes them,
//! each through the atomic writer.
//!
//! ```
//! use caf_import::{convert, export, Settings};
//! use std::path::Path;
//! use voxcaf_samples as samples; // generated sources (a dev-dependency)
//!
//! let png = samples::gradient_png(4, 4);
//! let settings = Settings { mips: true, ..Settings::default() };
//! let caf = convert(&png, Path::new("hero.png"), &settings)?.to_caf_bytes();
//! let files = export::export(caf, Path::new("out/hero.png"), &export::ExportOptions::default())?;
//! let names: Vec<_> = files.iter().map(|f| f.path.display().to_string()).collect();
//! assert_eq!(names, ["out/hero-mip0.png", "out/hero-mip1.png", "out/hero-mip2.png"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};

pub mod audio;
pub mod font;
pub mod gltf;
pub mod shader;
pub mod texture;

/// What can go wrong exporting an asset.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The file is not a valid `.caf`, cannot be decoded (for example a missing or wrong key
    /// for an encrypted asset), or its typed view refuses it.
    #[error(transparent)]
    Caf(#[from] caf::CafError),
    /// No exporter exists for this asset type.
    #[error(
        "cannot export {asset_type} assets (texture, audio, mesh, animation, shader and font assets can be exported)"
    )]
    UnsupportedType {
        /// The asset's type.
        asset_type: caf::AssetType,
    },
    /// An option does not apply to this asset.
    #[error("{option} does not apply to {asset_type} assets")]
    OptionNotApplicable {
        /// The option, as the command line spells it.
        option: &'static str,
        /// The asset's type.
        asset_type: caf::AssetType,
    },
    /// The output's extension names a format other than the one this asset type exports to
    /// (`x.jpg` for a texture, which is written as PNG).
    #[error(
        "{asset_type} assets export as {}, not .{extension}: name the output {}",
        expected.join(" or "),
        expected.iter().map(|e| format!("*{e}")).collect::<Vec<_>>().join(" or ")
    )]
    WrongExtension {
        /// The asset's type.
        asset_type: caf::AssetType,
        /// The output's extension as given.
        extension: String,
        /// The extensions of what this type exports (`.png`, ...).
        expected: &'static [&'static str],
    },
    /// The texture's stored format cannot be decoded to an image (BC6H, ASTC HDR, ...): its
    /// levels can be exported only as stored, to a KTX2 file.
    #[error(
        "cannot decode {format} (format {code}) to an image; export its levels as stored to a KTX2 file instead (name the output *.ktx2)"
    )]
    NotDecodable {
        /// The format's name (`ASTC_4x4_FLOAT`).
        format: &'static str,
        /// Its code.
        code: u32,
    },
    /// `--level N` names a level the texture does not have.
    #[error("the texture has {count} mip level(s) (0..{count}), so there is no level {level}")]
    NoSuchLevel {
        /// The level asked for.
        level: u32,
        /// The levels the texture has.
        count: usize,
    },
    /// The output name cannot work for this export.
    #[error("{}: {message}", path.display())]
    BadOutput {
        /// The output named.
        path: PathBuf,
        /// Why, and what to name instead.
        message: &'static str,
    },
    /// The asset's content cannot be written in the output format.
    #[error("cannot write {format}: {message}")]
    Encode {
        /// The output format ("PNG", "WAV", "SPIR-V").
        format: &'static str,
        /// What failed.
        message: String,
    },
    /// A mesh vertex has a NaN or infinite position, which glTF's POSITION bounds cannot say.
    #[error(
        "vertex {vertex} has the non-finite position {position:?}; glTF needs finite positions"
    )]
    NonFinitePosition {
        /// The vertex's index.
        vertex: usize,
        /// Its stored position.
        position: [f32; 3],
    },
    /// The Animation asset given to go with a mesh is not a valid one.
    #[error("the animation to export with the mesh: {0}")]
    AnimationInput(#[source] caf::CafError),
    /// The mesh has no triangle to write (glTF has no empty primitives).
    #[error("the mesh has no triangles to export")]
    EmptyMesh,
    /// Serialising or framing the glTF document failed (or the GLB would pass 4 GiB).
    #[error(transparent)]
    Gltf(#[from] voxcaf_gltf::GltfError),
    /// Writing an output file failed.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The output file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Result alias of this module.
pub type Result<T, E = ExportError> = std::result::Result<T, E>;

/// Options of an export.
#[derive(Clone, Debug, Default)]
pub struct ExportOptions<'k> {
    /// Textures: export only this mip level, to `OUT` itself.
    pub level: Option<u32>,
    /// The key of an encrypted asset (and of an encrypted `animation`).
    pub key: Option<&'k caf::encoded::Key>,
    /// Meshes: the bytes of an Animation `.caf` whose clips join the glTF, on the mesh's
    /// joints.
    pub animation: Option<&'k [u8]>,
}

/// One file of an export, built in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFile {
    /// Where it goes.
    pub path: PathBuf,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// One line for humans, e.g. "PNG 64x64 RGBA8, level 0".
    pub what: String,
}

/// Export the `.caf` file `caf_bytes` to files named after `out` (see the module docs). The
/// file is verified (CRCs) and a COMPRESSED or ENCRYPTED payload decoded first.
pub fn export(caf_bytes: Vec<u8>, out: &Path, opts: &ExportOptions<'_>) -> Result<Vec<ExportFile>> {
    let loaded = load(caf_bytes, opts)?;
    let asset = loaded.asset();
    let asset_type = asset.header.asset_type;
    if opts.level.is_some() && asset_type != caf::AssetType::TEXTURE {
        return Err(ExportError::OptionNotApplicable {
            option: "--level",
            asset_type,
        });
    }
    if opts.animation.is_some() && asset_type != caf::AssetType::MESH {
        return Err(ExportError::OptionNotApplicable {
            option: "--anim",
            asset_type,
        });
    }
    check_extension(asset_type, out)?;
    match asset_type {
        caf::AssetType::TEXTURE => texture::export(&asset, out, opts.level),
        caf::AssetType::AUDIO => audio::export(&asset, out),
        caf::AssetType::MESH => {
            let anim = match opts.animation {
                Some(b) => Some(load(b.to_vec(), opts).map_err(|e| match e {
                    ExportError::Caf(e) => ExportError::AnimationInput(e),
                    e => e,
                })?),
                None => None,
            };
            gltf::export(&asset, anim.as_ref().map(|a| a.asset()).as_ref(), out)
        }
        caf::AssetType::ANIMATION => gltf::export_animation(&asset, out),
        caf::AssetType::SHADER => shader::export(&asset, out),
        caf::AssetType::FONT => font::export(&asset, out),
        _ => Err(ExportError::UnsupportedType { asset_type }),
    }
}

/// The output extensions of each exported type (see the module docs).
fn extensions(asset_type: caf::AssetType) -> &'static [&'static str] {
    match asset_type {
        caf::AssetType::TEXTURE => &[".png", ".ktx2"],
        caf::AssetType::FONT => &[".png"],
        caf::AssetType::AUDIO => &[".wav"],
        caf::AssetType::SHADER => &[".spv"],
        // Meshes and animations: the glTF writer refuses every name but .glb / .gltf itself.
        _ => &[],
    }
}

/// An output named with an extension must name the format written: `x.jpg` holding PNG bytes,
/// or `x.mp3` holding WAV, would mislead every program that opens it. No extension is fine.
fn check_extension(asset_type: caf::AssetType, out: &Path) -> Result<()> {
    let expected = extensions(asset_type);
    let Some(ext) = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
    else {
        return Ok(());
    };
    if expected.is_empty() || expected.iter().any(|e| e[1..] == ext) {
        return Ok(());
    }
    Err(ExportError::WrongExtension {
        asset_type,
        extension: ext,
        expected,
    })
}

/// A verified asset, its payload decoded when COMPRESSED or ENCRYPTED.
fn load(caf_bytes: Vec<u8>, opts: &ExportOptions<'_>) -> Result<caf::LoadedAsset> {
    let loaded = caf::LoadedAsset::from_vec(caf_bytes)?;
    Ok(if caf::encoded::is_encoded(loaded.header().flags) {
        caf::encoded::PayloadDecoder::new().decode_loaded(
            &loaded.asset(),
            &caf::encoded::DecodeOptions::with_key(opts.key),
        )?
    } else {
        loaded
    })
}

/// Write every file of an export, each atomically (missing parent folders are created).
pub fn write_files(files: &[ExportFile]) -> Result<()> {
    for f in files {
        if let Some(dir) = f.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| ExportError::Write {
                path: f.path.clone(),
                source,
            })?;
        }
        voxcaf_fs::write_atomic(&f.path, &f.bytes).map_err(|source| ExportError::Write {
            path: f.path.clone(),
            source,
        })?;
    }
    Ok(())
}

/// `out` with `suffix` added to its file stem and its extension replaced by `ext`
/// (`out/hero.png` + `-mip1`, `png` -> `out/hero-mip1.png`).
pub(crate) fn sibling(out: &Path, suffix: &str, ext: &str) -> PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    out.with_file_name(format!("{stem}{suffix}.{ext}"))
}
