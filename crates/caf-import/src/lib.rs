//! The voxcaf asset pipeline: ordinary files in, `.caf` assets out.
//!
//! | Kind | Sources | Output |
//! |---|---|---|
//! | Texture | PNG, JPEG, TGA, BMP, GIF, WebP, 16-bit PNG, HDR, EXR, KTX2 | RGBA8 (format 0), R16G16B16A16 UNORM/FLOAT, BC1/3/5/7 and ASTC 4×4 ([`GpuFormat`]), KTX2 levels passed through; optional mip chain (`box` or linear-light `linear`), SRGB / MIPCHAIN flags |
//! | Audio | WAV (8/16/24/32-bit int, float, EXTENSIBLE), OGG Vorbis, FLAC, MP3 | interleaved signed PCM, 16-bit by default |
//! | Mesh | OBJ, glTF, GLB | de-duplicated 48-byte vertices + u32 indices, generated normals, MikkTSpace tangents |
//! | Shader | GLSL (`.vert`/`.frag`/`.comp`, through glslang), WGSL (naga), SPIR-V (stored unchanged) | SPIR-V checked by the Khronos validator, stage in the metadata |
//! | Font | TTF, OTF, TTC/OTC collections (first face, or `font_face`) | SDF (R8) or MSDF/MTSDF atlas, glyph metrics, kerning ([`font`]) |
//! | Animation | glTF, GLB (`type = "animation"`) | clips resampled at a fixed rate, 16-bit quantised, with an error bound per channel ([`animation`]) |
//!
//! [`Profile::Original`] reproduces the original C++ converters byte for byte (golden-tested);
//! [`batch::build`] converts whole trees in parallel with a manifest and content-hash rebuilds.
//!
//! ```
//! use caf_import::{convert, encode_raw_texture, Settings};
//! use std::path::Path;
//! use voxcaf_samples as samples; // generated sources (a dev-dependency)
//!
//! // A PNG from memory, default profile, with a mip chain.
//! let png = samples::gradient_png(8, 4);
//! let settings = Settings { mips: true, ..Settings::default() };
//! let tex = convert(&png, Path::new("hero.png"), &settings)?;
//! let file = tex.to_caf_bytes();
//! let asset = caf::Asset::parse(&file)?;
//! let view = caf::texture::TextureView::from_asset(&asset)?;
//! assert_eq!((view.meta.width, view.meta.height, view.level_count()), (8, 4, 4));
//! assert!(asset.header.flags.contains(caf::CafFlags::SRGB | caf::CafFlags::MIPCHAIN));
//!
//! // The original raw encoder: 2x2 RGBA with box mips.
//! let raw = encode_raw_texture(2, 2, 4, &[10; 16], true)?;
//! assert_eq!(raw.payload.len(), 16 + 4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used)]

pub mod animation;
pub mod audio;
pub mod batch;
mod error;
pub mod export;
pub mod font;
mod gltf_read;
pub mod gltf_scene;
pub mod inputs;
pub mod mesh;
mod mesh_build;
mod obj;
mod settings;
pub mod shader;
pub mod shared;
pub mod texture;
mod texture_data;
pub mod texture_decode;
pub mod texture_gpu;

/// Helpers of the unit tests.
#[cfg(test)]
pub(crate) mod test_util {
    /// The bytes of a string of hexadecimal digit pairs (a fuzz input pasted into a test).
    pub(crate) fn hex_bytes(hex: &str) -> Vec<u8> {
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect()
    }
}

use std::path::{Path, PathBuf};

pub use error::{ImportError, Result};
pub use settings::{
    AssetKind, AudioBits, CipherSetting, Compress, FontFormat, GpuFormat, MeshNodes, MipFilter,
    Profile, Settings, SettingsOverride, Stage,
};

/// Bumped whenever a converter's output changes for the same input and settings, so that
/// `build` reconverts everything made by an older version.
pub const CONVERTER_REVISION: u32 = 2;

/// SHA-256 (hex) of the conversion code this build of voxcaf runs: the rustc version, the
/// workspace's `Cargo.lock` and every file of the crates a conversion runs (computed by
/// `build.rs`). A shared build (docs/remote-build.md §2.3) reuses a result only between builds
/// of the same code, so a new release or a local change never gets an old result.
pub const CODE_DIGEST: &str = env!("VOXCAF_CODE_DIGEST");

/// A converted asset, ready to be written as a `.caf` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Converted {
    /// What the asset is.
    pub kind: AssetKind,
    /// Header flags.
    pub flags: caf::CafFlags,
    /// Encoded metadata struct.
    pub metadata: Vec<u8>,
    /// Payload bytes.
    pub payload: Vec<u8>,
    /// Other files the conversion read (glTF external buffers).
    pub dependencies: Vec<PathBuf>,
    /// One line for humans, e.g. "texture 256x256 RGBA8, 9 levels, sRGB".
    pub summary: String,
    /// What the conversion left out or changed, for the user to see (e.g. requested font
    /// characters without a glyph); empty when nothing was lost.
    pub warnings: Vec<String>,
}

impl Converted {
    /// The CAF asset type.
    pub fn asset_type(&self) -> caf::AssetType {
        self.kind.asset_type()
    }

    /// The complete `.caf` file.
    pub fn to_caf_bytes(&self) -> Vec<u8> {
        caf::AssetWriter::new(self.asset_type())
            .flags(self.flags)
            .metadata(&self.metadata)
            .payload(&self.payload)
            .to_vec()
    }

    /// The complete `.caf` file with its payload encoded (compressed and/or encrypted, see
    /// [`Settings::encoding`]); the same bytes as [`Converted::to_caf_bytes`] for a plain
    /// encoding without `align_payload` (the original profile). With `align_payload` (the
    /// default profile) a plain payload starts aligned in the file (metadata padded). An encrypted file's nonce salt is derived from the key and the content
    /// (a keyed BLAKE3 hash), so equal inputs give equal files.
    pub fn to_caf_bytes_encoded(&self, enc: &caf::encoded::Encoding) -> Result<Vec<u8>> {
        if enc.is_plain() && !enc.align_payload {
            return Ok(self.to_caf_bytes());
        }
        let mut enc = enc.clone();
        if let (Some(key), None) = (&enc.key, enc.salt) {
            let k = blake3::derive_key("voxcaf caf block salt v1", key.as_bytes());
            let mut h = blake3::Hasher::new_keyed(&k);
            h.update(&self.asset_type().0.to_le_bytes());
            h.update(&self.flags.0.to_le_bytes());
            h.update(&enc.codec.code().to_le_bytes());
            h.update(&enc.level.to_le_bytes());
            h.update(&enc.block_size.to_le_bytes());
            h.update(&(self.metadata.len() as u64).to_le_bytes());
            h.update(&self.metadata);
            h.update(&self.payload);
            let mut salt = [0u8; 16];
            salt.copy_from_slice(&h.finalize().as_bytes()[..16]);
            enc.salt = Some(salt);
        }
        Ok(caf::encoded::encode_asset(
            self.asset_type(),
            self.flags,
            &self.metadata,
            &self.payload,
            &enc,
        )?)
    }

    /// Write the `.caf` file atomically (temporary file, fsync, rename).
    pub fn write(&self, path: &Path) -> Result<()> {
        caf::AssetWriter::new(self.asset_type())
            .flags(self.flags)
            .metadata(&self.metadata)
            .payload(&self.payload)
            .write_file(path)?;
        Ok(())
    }

    /// Wrap a texture.
    pub fn from_texture(t: texture::TextureData) -> Converted {
        let mut flags = caf::CafFlags::NONE;
        if t.srgb {
            flags |= caf::CafFlags::SRGB;
        }
        if t.levels > 1 {
            flags |= caf::CafFlags::MIPCHAIN;
        }
        let format = t.format.with_srgb(t.srgb);
        let meta = caf::texture::TextureMetadata {
            width: t.width,
            height: t.height,
            format: format.0,
            mip_levels: t.levels,
            reserved: 0,
        };
        let channels = t.payload.len() as u64
            / texture::level_sizes(t.width, t.height)
                .iter()
                .take(t.levels as usize)
                .map(|&(w, h)| w as u64 * h as u64)
                .sum::<u64>()
                .max(1);
        let summary = format!(
            "texture {}x{} {}, {} level{}{}",
            t.width,
            t.height,
            match (format.0, channels) {
                (0, 1) => "R8",
                (0, 2) => "RG8",
                (0, 3) => "RGB8",
                (0, _) => "RGBA8",
                _ => format.name(),
            },
            t.levels,
            if t.levels == 1 { "" } else { "s" },
            if t.srgb { ", sRGB" } else { "" }
        );
        Converted {
            kind: AssetKind::Texture,
            flags,
            metadata: meta.to_bytes().to_vec(),
            payload: t.payload,
            dependencies: Vec::new(),
            summary,
            warnings: Vec::new(),
        }
    }

    /// Wrap audio.
    pub fn from_audio(a: audio::AudioData) -> Converted {
        let meta = caf::audio::AudioMetadata {
            sample_rate: a.sample_rate,
            channels: a.channels,
            bits_per_sample: a.bits,
            sample_count: a.frames,
            reserved: 0,
        };
        let summary = format!(
            "audio {} Hz, {} channel{}, {}-bit, {} frames ({:.2} s)",
            a.sample_rate,
            a.channels,
            if a.channels == 1 { "" } else { "s" },
            a.bits,
            a.frames,
            a.frames as f64 / a.sample_rate.max(1) as f64
        );
        Converted {
            kind: AssetKind::Audio,
            flags: caf::CafFlags::NONE,
            metadata: meta.to_bytes().to_vec(),
            payload: a.payload,
            dependencies: Vec::new(),
            summary,
            warnings: Vec::new(),
        }
    }

    /// Wrap a mesh; its payload comes from [`caf::mesh::encode_mesh`], or from
    /// [`caf::mesh::encode_mesh_ext`] (docs/format/caf-assets-ext.md) when the mesh has more than one
    /// sub-mesh, a material or node in its table, vertex colours or a second UV set. Fails when
    /// the mesh has more vertices or indices than the u32 counts of the format hold, or an
    /// index names no vertex.
    pub fn from_mesh(m: mesh::MeshData) -> Result<Converted> {
        let vertices: Vec<caf::mesh::Vertex> = m
            .vertices
            .iter()
            .map(|v| caf::mesh::Vertex {
                position: [v[0], v[1], v[2]],
                normal: [v[3], v[4], v[5]],
                uv: [v[6], v[7]],
                tangent: [v[8], v[9], v[10], v[11]],
            })
            .collect();
        let extended = m.table.len() > 1
            || m.table.iter().any(|e| {
                e.material != caf::mesh::SubMeshEntry::NONE
                    || e.node != caf::mesh::SubMeshEntry::NONE
            })
            || m.colors.is_some()
            || m.uv1.is_some()
            || m.skin.is_some();
        let map_err = |e| match e {
            caf::mesh::MeshEncodeError::TooManyVertices { count } => ImportError::LimitExceeded {
                what: "mesh vertex count",
                value: count,
                limit: u32::MAX.into(),
            },
            caf::mesh::MeshEncodeError::TooManyIndices { count } => ImportError::LimitExceeded {
                what: "mesh index count",
                value: count,
                limit: u32::MAX.into(),
            },
            other => ImportError::malformed("mesh", other.to_string()),
        };
        let (metadata, payload) = if extended {
            let skin = match (&m.skin, &m.joints, &m.weights) {
                (Some(skin), Some(joints), Some(weights)) => Some(caf::mesh::SkinStreams {
                    skin,
                    joints,
                    weights,
                }),
                _ => None,
            };
            let extras = caf::mesh::MeshExtras {
                sub_meshes: &m.table,
                colors: m.colors.as_deref(),
                uv1: m.uv1.as_deref(),
                skin,
            };
            caf::mesh::encode_mesh_ext(&vertices, &m.indices, &extras).map_err(map_err)?
        } else {
            let (meta, payload) =
                caf::mesh::encode_mesh(&vertices, &m.indices, m.sub_meshes).map_err(map_err)?;
            (meta.to_bytes().to_vec(), payload)
        };
        let mut streams: String = [
            (m.colors.is_some(), ", COLOR_0"),
            (m.uv1.is_some(), ", TEXCOORD_1"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| *name)
        .collect();
        if let Some(s) = &m.skin {
            streams += &format!(", skin of {} joint(s)", s.joints.len());
        }
        let summary = format!(
            "mesh {} vertices, {} indices ({} triangles), {} sub-mesh{}{streams}",
            m.vertices.len(),
            m.indices.len(),
            m.indices.len() / 3,
            m.sub_meshes,
            if m.sub_meshes == 1 { "" } else { "es" }
        );
        Ok(Converted {
            kind: AssetKind::Mesh,
            flags: caf::CafFlags::NONE,
            metadata,
            payload,
            dependencies: m.dependencies,
            summary,
            warnings: m.warnings,
        })
    }

    /// Wrap a shader.
    pub fn from_shader(s: shader::ShaderData) -> Converted {
        let meta = caf::shader::ShaderMetadata {
            stage: s.stage.code(),
            reserved: 0,
        };
        let summary = format!(
            "shader {} stage, {} bytes of SPIR-V",
            s.stage,
            s.spirv.len()
        );
        Converted {
            kind: AssetKind::Shader,
            flags: caf::CafFlags::NONE,
            metadata: meta.to_bytes().to_vec(),
            payload: s.spirv,
            dependencies: s.dependencies,
            summary,
            warnings: Vec::new(),
        }
    }
}

impl Converted {
    /// Wrap a font.
    pub fn from_font(f: font::FontData) -> Converted {
        let m = &f.meta;
        let summary = format!(
            "font {} glyphs, {} kerning pairs, {}x{} {} atlas, {} px/em, range {} px",
            m.glyph_count,
            m.kerning_count,
            m.atlas_width,
            m.atlas_height,
            caf::font::FontFormat(m.format).name().unwrap_or("?"),
            m.em_size,
            m.distance_range
        );
        Converted {
            kind: AssetKind::Font,
            flags: caf::CafFlags::NONE,
            metadata: m.to_bytes().to_vec(),
            payload: f.payload,
            dependencies: Vec::new(),
            summary,
            warnings: f.warnings,
        }
    }
}

impl Converted {
    /// Wrap an animation.
    pub fn from_animation(a: animation::AnimationData) -> Converted {
        let summary = format!(
            "animation {} clip{}, {} channel{}, {} Hz",
            a.clips,
            if a.clips == 1 { "" } else { "s" },
            a.channels,
            if a.channels == 1 { "" } else { "s" },
            a.rate
        );
        Converted {
            kind: AssetKind::Animation,
            flags: caf::CafFlags::NONE,
            metadata: a.metadata,
            payload: a.payload,
            dependencies: a.dependencies,
            summary,
            warnings: a.warnings,
        }
    }
}

/// The folder a source's relative references (glTF buffers, GLSL includes) resolve against.
fn source_dir(path: &Path) -> Option<&Path> {
    path.parent().map(|p| {
        if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        }
    })
}

fn lower_ext(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
}

/// Convert the contents of one source file. `path` gives the extension (which chooses the kind
/// unless [`Settings::kind`] is set), the name used in messages, and the folder that glTF
/// external buffers are resolved against.
pub fn convert(bytes: &[u8], path: &Path, settings: &Settings) -> Result<Converted> {
    let kind = settings
        .kind
        .or_else(|| AssetKind::from_path(path))
        .ok_or_else(|| ImportError::UnknownType {
            path: path.to_path_buf(),
            ext: lower_ext(path).unwrap_or_default(),
        })?;
    let ext = lower_ext(path);
    let ext = ext.as_deref();
    match kind {
        AssetKind::Texture => {
            if ext == Some("ktx2") || bytes.starts_with(&texture_gpu::KTX2_IDENTIFIER[..]) {
                if settings.profile == Profile::Original {
                    return Err(ImportError::unsupported(
                        "KTX2",
                        "the original profile reads only PNG-like images",
                    ));
                }
                if let Some(g) = settings.gpu_format {
                    return Err(ImportError::unsupported(
                        "KTX2",
                        format!("the levels are passed through as stored; they cannot be re-encoded to {g}"),
                    ));
                }
                return Ok(Converted::from_texture(texture_gpu::import_ktx2(bytes)?));
            }
            let (tex, warnings) = match settings.profile {
                Profile::Original => (
                    texture::build_texture(texture::decode_image_original(bytes)?, settings)?,
                    Vec::new(),
                ),
                Profile::Default => texture::build_source_with_warnings(
                    texture::decode_source(bytes, ext)?,
                    settings,
                )?,
            };
            let mut c = Converted::from_texture(tex);
            c.warnings.extend(warnings.iter().map(|w| w.to_string()));
            Ok(c)
        }
        AssetKind::Audio => {
            let pcm = audio::decode_audio(bytes, ext, settings.profile)?;
            Ok(Converted::from_audio(audio::build_audio(pcm, settings)?))
        }
        AssetKind::Mesh => {
            let m = mesh::decode_mesh(
                bytes,
                ext,
                source_dir(path),
                settings.profile,
                settings.mesh_nodes,
            )?;
            Converted::from_mesh(m)
        }
        AssetKind::Shader => {
            let name = path.display().to_string();
            let s = shader::compile(bytes, &name, ext, settings.stage, source_dir(path))?;
            Ok(Converted::from_shader(s))
        }
        AssetKind::Font => {
            if settings.profile == Profile::Original {
                return Err(ImportError::unsupported(
                    "font",
                    "the original converters have no font import; use the default profile",
                ));
            }
            Ok(Converted::from_font(font::convert_font(bytes, settings)?))
        }
        AssetKind::Animation => {
            if settings.profile == Profile::Original {
                return Err(ImportError::unsupported(
                    "animation",
                    "the original converters have no animation import; use the default profile",
                ));
            }
            let is_gltf = bytes.starts_with(b"glTF") || matches!(ext, Some("gltf" | "glb"));
            if !is_gltf {
                return Err(ImportError::unsupported(
                    "animation",
                    "animations are read from glTF / GLB files only",
                ));
            }
            Ok(Converted::from_animation(animation::convert_animation(
                bytes,
                source_dir(path),
                settings,
            )?))
        }
    }
}

/// Read and convert one file.
pub fn convert_file(path: &Path, settings: &Settings) -> Result<Converted> {
    let bytes = std::fs::read(path).map_err(|e| ImportError::io(path, e))?;
    convert(&bytes, path, settings)
}

/// The original raw texture encoder: `pixels` are `width × height × channels` bytes (1..=4
/// channels, all tagged format 0); with `mips`, the original's box chain down to 1×1 is
/// appended. MIPCHAIN is set when more than one level is stored; SRGB never.
pub fn encode_raw_texture(
    width: u32,
    height: u32,
    channels: u8,
    pixels: &[u8],
    mips: bool,
) -> Result<Converted> {
    if !(1..=4).contains(&channels) {
        return Err(ImportError::InvalidArgument(format!(
            "{channels} channels (expected 1 to 4)"
        )));
    }
    let (payload, levels) = if mips {
        texture::box_chain(width, height, channels, pixels)?
    } else {
        let expected = width as u64 * height as u64 * channels as u64;
        if width == 0 || height == 0 || pixels.len() as u64 != expected {
            return Err(ImportError::InvalidArgument(format!(
                "{} bytes of pixels for {width}x{height} with {channels} channel(s), expected {expected}",
                pixels.len()
            )));
        }
        (pixels.to_vec(), 1)
    };
    Ok(Converted::from_texture(texture::TextureData {
        width,
        height,
        levels,
        format: caf::texture::TextureFormat::RGBA8_LEGACY,
        srgb: false,
        payload,
    }))
}

/// The original raw audio encoder: interleaved 16-bit samples, `samples.len()` a multiple of
/// `channels`.
pub fn encode_raw_audio(sample_rate: u32, channels: u16, samples: &[i16]) -> Result<Converted> {
    if channels == 0 || !samples.len().is_multiple_of(channels as usize) {
        return Err(ImportError::InvalidArgument(format!(
            "{} samples do not make whole frames of {channels} channel(s)",
            samples.len()
        )));
    }
    let pcm = audio::Pcm {
        sample_rate,
        channels,
        source_bits: 16,
        source_float: false,
        samples: samples.iter().map(|&s| (s as i32) << 16).collect(),
    };
    Ok(Converted::from_audio(audio::build_audio(
        pcm,
        &Settings::original(),
    )?))
}
