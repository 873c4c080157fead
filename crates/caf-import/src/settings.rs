//! Conversion settings, their text forms and sidecar files.
//!
//! Each settings enum is declared once with [`voxcaf_names::names!`]: its values, names and
//! aliases give `name`, `Display` and `FromStr` (any ASCII case; the error lists the names).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{ImportError, Result};

voxcaf_names::names! {
    /// The kind of asset a source becomes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum AssetKind as "asset type" {
        /// Pixels (RGBA8, optionally with a mip chain).
        Texture => "texture",
        /// Interleaved PCM.
        Audio => "audio",
        /// 48-byte vertices and u32 indices.
        Mesh => "mesh",
        /// SPIR-V bytecode.
        Shader => "shader",
        /// A distance-field glyph atlas with metrics and kerning (TTF/OTF, TTC/OTC collections).
        Font => "font",
        /// The animations of a glTF / GLB as resampled, quantised clips (chosen only with
        /// `--type animation` / `type = "animation"`: a `.glb` alone is a mesh).
        Animation => "animation",
    }
}

impl AssetKind {
    /// The CAF asset type this kind is written as.
    pub fn asset_type(self) -> caf::AssetType {
        match self {
            AssetKind::Texture => caf::AssetType::TEXTURE,
            AssetKind::Audio => caf::AssetType::AUDIO,
            AssetKind::Mesh => caf::AssetType::MESH,
            AssetKind::Shader => caf::AssetType::SHADER,
            AssetKind::Font => caf::AssetType::FONT,
            AssetKind::Animation => caf::AssetType::ANIMATION,
        }
    }

    /// The kind a file name's extension implies (case-insensitive), if any.
    pub fn from_path(path: &Path) -> Option<AssetKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "png" | "jpg" | "jpeg" | "tga" | "bmp" | "gif" | "webp" | "hdr" | "exr" | "ktx2" => {
                AssetKind::Texture
            }
            "wav" | "wave" | "ogg" | "oga" | "flac" | "mp3" => AssetKind::Audio,
            "obj" | "gltf" | "glb" => AssetKind::Mesh,
            "vert" | "frag" | "comp" | "glsl" | "wgsl" | "spv" => AssetKind::Shader,
            "ttf" | "otf" | "ttc" | "otc" => AssetKind::Font,
            _ => return None,
        })
    }
}

voxcaf_names::names! {
    /// Which converter behaviour to follow.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Profile as "profile" {
        /// voxcaf's converters: indexed meshes with generated normals and MikkTSpace tangents,
        /// linear-light mips, every common WAV form, OGG/FLAC/MP3, SPIR-V validation.
        #[default]
        Default => "default",
        /// Byte-for-byte the original C++ converters' output: stb-style forced-RGBA textures
        /// (16-bit samples truncated by `>> 8`), 16-bit PCM WAV only, de-indexed OBJ with zero
        /// tangents, the original's glTF rules.
        Original => "original",
    }
}

voxcaf_names::names! {
    /// How each mip level is computed from the previous one.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum MipFilter as "mip filter" {
        /// The original's 2×2 integer-floor average; an odd last row/column is dropped.
        Box => "box",
        /// Area-weighted average covering every source texel; for sRGB data it averages in
        /// linear light with alpha weighting, then re-encodes with rounding.
        #[default]
        Linear => "linear",
    }
}

voxcaf_names::names! {
    /// The GPU format a texture is stored in (`--gpu-format`, sidecar key `gpu_format`); see
    /// `docs/format/caf-textures.md`. Unset keeps the source's precision (8-bit sources as
    /// format 0, 16-bit as R16G16B16A16_UNORM, float as R16G16B16A16_FLOAT). `ALL` is in the
    /// order of `--help`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum GpuFormat as "GPU format" {
        /// Plain 8-bit RGBA (format 0); 16-bit and float sources are reduced to 8 bits.
        Rgba8 => "rgba8",
        /// BC1 (4 bits per texel, 1-bit alpha).
        Bc1 => "bc1",
        /// BC3 (8 bits per texel, interpolated alpha).
        Bc3 => "bc3",
        /// BC5 (red and green only, for normal maps).
        Bc5 => "bc5",
        /// BC7 (8 bits per texel, best quality of the BC formats).
        Bc7 => "bc7",
        /// ASTC 4×4 LDR (8 bits per texel, RGBA), by ARM's astc-encoder.
        Astc4x4 => "astc4x4",
    }
}

impl GpuFormat {
    /// The format code written (the `_UNORM` one; the writer picks the `_SRGB` twin for sRGB
    /// data).
    pub fn code(self) -> caf::texture::TextureFormat {
        match self {
            GpuFormat::Rgba8 => caf::texture::TextureFormat::RGBA8_LEGACY,
            GpuFormat::Bc1 => caf::texture::TextureFormat::BC1_RGBA_UNORM,
            GpuFormat::Bc3 => caf::texture::TextureFormat::BC3_RGBA_UNORM,
            GpuFormat::Bc5 => caf::texture::TextureFormat::BC5_RG_UNORM,
            GpuFormat::Bc7 => caf::texture::TextureFormat::BC7_RGBA_UNORM,
            GpuFormat::Astc4x4 => caf::texture::TextureFormat::ASTC_4X4_UNORM,
        }
    }
}

voxcaf_names::names! {
    /// Bits per sample of converted audio; the text form is "8", "16", "32" or "source"
    /// ("keep" is read too).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub enum AudioBits as "bit depth" {
        /// Signed 8-bit.
        B8 => "8",
        /// Signed 16-bit (the default, what the original writes).
        #[default]
        B16 => "16",
        /// Signed 32-bit.
        B32 => "32",
        /// Keep the source depth: 8 stays 8, 16 stays 16, 24/32-bit and float become 32.
        Source => "source" | "keep",
    }
}

impl Serialize for AudioBits {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AudioBits::B8 => s.serialize_u16(8),
            AudioBits::B16 => s.serialize_u16(16),
            AudioBits::B32 => s.serialize_u16(32),
            AudioBits::Source => s.serialize_str("source"),
        }
    }
}

impl<'de> Deserialize<'de> for AudioBits {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(i64),
            Str(String),
        }
        let text = match Raw::deserialize(d)? {
            Raw::Int(i) => i.to_string(),
            Raw::Str(s) => s,
        };
        text.parse().map_err(serde::de::Error::custom)
    }
}

voxcaf_names::names! {
    /// Shader pipeline stage, with its ShaderMetadata code (0 vertex, 1 fragment, 2 compute).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Stage: u32 as "shader stage" {
        /// stage 0.
        Vertex = 0 => "vertex" | "vert" | "vs",
        /// stage 1.
        Fragment = 1 => "fragment" | "frag" | "fs" | "pixel",
        /// stage 2.
        Compute = 2 => "compute" | "comp" | "cs",
    }
}

voxcaf_names::names! {
    /// How a glTF scene's nodes become sub-meshes (`mesh_nodes` setting, default profile). Node
    /// transforms are applied either way.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum MeshNodes as "mesh node mode" {
        /// One sub-mesh per material: the scene's primitives, in world space, merged by material.
        #[default]
        Flatten => "flatten",
        /// One sub-mesh per node and material, each recording its node index.
        Keep => "keep",
    }
}

impl MeshNodes {
    /// True for [`MeshNodes::Flatten`].
    pub fn is_flatten(&self) -> bool {
        *self == MeshNodes::Flatten
    }
}

voxcaf_names::names! {
    /// The distance field a font atlas stores (`font_format` setting).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum FontFormat as "font format" {
        /// Single-channel signed distance field, R8 (the default).
        #[default]
        Sdf => "sdf",
        /// Multi-channel signed distance field, RGB8 (sharp corners; median of the channels).
        Msdf => "msdf",
        /// MSDF in RGB plus the true distance in alpha, RGBA8.
        Mtsdf => "mtsdf",
    }
}

impl FontFormat {
    /// The `caf::font::FontFormat` code written to the metadata.
    pub fn code(self) -> caf::font::FontFormat {
        match self {
            FontFormat::Sdf => caf::font::FontFormat::SDF,
            FontFormat::Msdf => caf::font::FontFormat::MSDF,
            FontFormat::Mtsdf => caf::font::FontFormat::MTSDF,
        }
    }

    /// True for [`FontFormat::Sdf`].
    pub fn is_default(&self) -> bool {
        *self == FontFormat::Sdf
    }
}

voxcaf_names::names! {
    /// Compression of a `.caf` payload (`compress` setting): stored plain (the default, readable
    /// by the original engine), zstd blocks, or LZ4 blocks for the fastest decoding. Named as
    /// [`caf::encoded::Codec`] names them.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Compress as "compression" {
        /// Plain payload.
        #[default]
        None => "none",
        /// zstd blocks (COMPRESSED).
        Zstd => "zstd",
        /// LZ4 blocks (COMPRESSED).
        Lz4 => "lz4",
    }
}

impl Compress {
    /// The block codec.
    pub fn codec(self) -> caf::encoded::Codec {
        match self {
            Compress::None => caf::encoded::Codec::None,
            Compress::Zstd => caf::encoded::Codec::Zstd,
            Compress::Lz4 => caf::encoded::Codec::Lz4,
        }
    }

    /// True for [`Compress::None`].
    pub fn is_none(&self) -> bool {
        *self == Compress::None
    }
}

/// The cipher of encrypted payloads (`cipher` setting), named as [`caf::encoded::Cipher`] names them
/// (`xchacha20-poly1305`, the default, or `aes-256-gcm`). Only encrypted builds use it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CipherSetting(pub caf::encoded::Cipher);

impl CipherSetting {
    /// True for the default cipher.
    pub fn is_default(&self) -> bool {
        *self == CipherSetting::default()
    }
}

impl TryFrom<String> for CipherSetting {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse().map(CipherSetting)
    }
}

impl From<CipherSetting> for String {
    fn from(c: CipherSetting) -> String {
        c.0.name().to_string()
    }
}

/// Everything that decides a conversion's output. Two conversions of the same bytes with equal
/// settings produce identical files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Force the asset kind instead of choosing it from the extension.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<AssetKind>,
    /// Converter behaviour.
    pub profile: Profile,
    /// Textures: store a full mip chain down to 1×1.
    pub mips: bool,
    /// Textures: how mip levels are computed (the original profile always uses `box`).
    pub mip_filter: MipFilter,
    /// Textures: `Some(false)` marks the data as linear (normal maps, masks); `None` means
    /// "colour", i.e. sRGB. Ignored by the original profile, which never sets SRGB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub srgb: Option<bool>,
    /// Textures: the GPU format to store (`None`: keep the source's precision).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_format: Option<GpuFormat>,
    /// Audio: output bits per sample.
    pub bits: AudioBits,
    /// Shaders: the stage, when the extension does not say (.glsl) or a module has several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<Stage>,
    /// Payload compression (COMPRESSED); `none` keeps the original layout.
    #[serde(skip_serializing_if = "Compress::is_none")]
    pub compress: Compress,
    /// zstd compression level (1..=22; default 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<i32>,
    /// The cipher of encrypted builds (ignored without a key).
    #[serde(skip_serializing_if = "CipherSetting::is_default")]
    pub cipher: CipherSetting,
    /// glTF: one sub-mesh per material (`flatten`) or per node and material (`keep`).
    #[serde(skip_serializing_if = "MeshNodes::is_flatten")]
    pub mesh_nodes: MeshNodes,
    /// Fonts: the characters to put in the atlas, as ranges (`"32-126,160-255"`, decimal or
    /// `0x`/`U+` hex); `None` means printable ASCII and Latin-1 (see [`crate::font::Charset`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charset: Option<String>,
    /// Fonts: atlas pixels per em (default 32).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub font_size: Option<u32>,
    /// Fonts: total range of the distance field in pixels (default 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sdf_range: Option<u32>,
    /// Fonts: SDF (R8, the default), MSDF (RGB8) or MTSDF (RGBA8).
    #[serde(skip_serializing_if = "FontFormat::is_default")]
    pub font_format: FontFormat,
    /// Animations: frames per second the clips are resampled at, 1..=1000 (default 30).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anim_rate: Option<u32>,
    /// Fonts: which face of a collection (`.ttc`, `.otc`) to convert, from 0; `None` means the
    /// first (with a warning when the collection has several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub font_face: Option<u32>,
}

impl Settings {
    /// How the payload is encoded with these settings and an optional encryption key. With
    /// a key the nonce salt is derived from the key and the content, so equal inputs give
    /// byte-identical files (builds stay reproducible) while different contents never share a
    /// salt.
    pub fn encoding(&self, key: Option<&caf::encoded::Key>) -> caf::encoded::Encoding {
        caf::encoded::Encoding {
            codec: self.compress.codec(),
            level: self.level.unwrap_or(3),
            key: key.cloned(),
            cipher: self.cipher.0,
            // The default profile lays plain payloads out aligned (CAF.md's payloadAlignment);
            // the original profile stays byte-identical to the original tools.
            align_payload: self.profile == Profile::Default,
            ..caf::encoded::Encoding::default()
        }
    }

    /// Settings of the original profile with everything else at its default.
    pub fn original() -> Settings {
        Settings {
            profile: Profile::Original,
            ..Settings::default()
        }
    }

    /// Whether texture data is treated as sRGB colour.
    pub fn is_srgb(&self) -> bool {
        self.srgb.unwrap_or(true)
    }

    /// The canonical JSON form (stable key order), used for hashing and manifests.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// Apply a sidecar override on top of these settings.
    pub fn with_override(&self, o: &SettingsOverride) -> Settings {
        Settings {
            kind: o.kind.or(self.kind),
            profile: o.profile.unwrap_or(self.profile),
            mips: o.mips.unwrap_or(self.mips),
            mip_filter: o.mip_filter.unwrap_or(self.mip_filter),
            srgb: o.srgb.or(self.srgb),
            gpu_format: o.gpu_format.or(self.gpu_format),
            bits: o.bits.unwrap_or(self.bits),
            stage: o.stage.or(self.stage),
            compress: o.compress.unwrap_or(self.compress),
            level: o.level.or(self.level),
            cipher: o.cipher.unwrap_or(self.cipher),
            mesh_nodes: o.mesh_nodes.unwrap_or(self.mesh_nodes),
            charset: o.charset.clone().or_else(|| self.charset.clone()),
            font_size: o.font_size.or(self.font_size),
            sdf_range: o.sdf_range.or(self.sdf_range),
            font_format: o.font_format.unwrap_or(self.font_format),
            anim_rate: o.anim_rate.or(self.anim_rate),
            font_face: o.font_face.or(self.font_face),
        }
    }
}

/// Per-asset settings from a sidecar file (`hero.png.toml` next to `hero.png`). Every key is
/// optional and overrides the build-wide setting of the same name.
///
/// ```toml
/// srgb = false        # linear data (normal map)
/// gpu_format = "bc5"  # rgba8, bc1, bc3, bc5, bc7, astc4x4
/// mips = true
/// mip_filter = "box"  # or "linear"
/// bits = 8            # audio: 8, 16, 32 or "source"
/// stage = "fragment"  # shaders
/// compress = "zstd"   # or "lz4", "none"
/// level = 19          # zstd level
/// cipher = "aes-256-gcm" # encrypted builds: or "xchacha20-poly1305" (the default)
/// mesh_nodes = "keep" # glTF: one sub-mesh per node (default "flatten")
/// profile = "original"
/// type = "texture"
/// charset = "32-126"  # fonts: code point ranges
/// font_size = 48      # fonts: atlas pixels per em
/// sdf_range = 6       # fonts: distance range in pixels
/// font_format = "msdf" # fonts: sdf, msdf or mtsdf
/// font_face = 1       # fonts: the face of a collection (.ttc), from 0
/// anim_rate = 60      # animations (type = "animation"): frames per second
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SettingsOverride {
    /// See [`Settings::kind`].
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<AssetKind>,
    /// See [`Settings::profile`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// See [`Settings::mips`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mips: Option<bool>,
    /// See [`Settings::mip_filter`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mip_filter: Option<MipFilter>,
    /// See [`Settings::srgb`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub srgb: Option<bool>,
    /// See [`Settings::gpu_format`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_format: Option<GpuFormat>,
    /// See [`Settings::bits`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bits: Option<AudioBits>,
    /// See [`Settings::stage`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<Stage>,
    /// See [`Settings::compress`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compress: Option<Compress>,
    /// See [`Settings::level`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<i32>,
    /// See [`Settings::cipher`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cipher: Option<CipherSetting>,
    /// See [`Settings::mesh_nodes`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh_nodes: Option<MeshNodes>,
    /// See [`Settings::charset`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charset: Option<String>,
    /// See [`Settings::font_size`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub font_size: Option<u32>,
    /// See [`Settings::sdf_range`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sdf_range: Option<u32>,
    /// See [`Settings::font_format`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub font_format: Option<FontFormat>,
    /// See [`Settings::anim_rate`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anim_rate: Option<u32>,
    /// See [`Settings::font_face`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub font_face: Option<u32>,
}

impl SettingsOverride {
    /// Parse a sidecar's TOML text. `path` is only used in error messages.
    pub fn from_toml(text: &str, path: &Path) -> Result<SettingsOverride> {
        toml::from_str(text).map_err(|e| ImportError::Settings {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })
    }

    /// True when no key is set.
    pub fn is_empty(&self) -> bool {
        *self == SettingsOverride::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecar_overrides_and_rejects_unknown_keys() {
        let o = SettingsOverride::from_toml(
            "srgb = false\nmips = true\nbits = 8\nmip_filter = \"box\"\n",
            Path::new("a.png.toml"),
        )
        .unwrap();
        let s = Settings::default().with_override(&o);
        assert!(!s.is_srgb());
        assert!(s.mips);
        assert_eq!(s.bits, AudioBits::B8);
        assert_eq!(s.mip_filter, MipFilter::Box);
        let e = SettingsOverride::from_toml("srbg = false\n", Path::new("a.png.toml"));
        assert!(matches!(e, Err(ImportError::Settings { .. })));
        let e = SettingsOverride::from_toml("bits = 12\n", Path::new("a.wav.toml"));
        assert!(e.is_err());
        let o =
            SettingsOverride::from_toml("bits = \"source\"\n", Path::new("a.wav.toml")).unwrap();
        assert_eq!(o.bits, Some(AudioBits::Source));
    }

    #[test]
    fn kinds_from_extension_any_case() {
        for (path, kind) in [
            ("A.WAV", Some(AssetKind::Audio)),
            ("x.Png", Some(AssetKind::Texture)),
            ("m.glb", Some(AssetKind::Mesh)),
            ("s.comp", Some(AssetKind::Shader)),
            ("readme.txt", None),
            ("noext", None),
        ] {
            assert_eq!(AssetKind::from_path(Path::new(path)), kind, "{path}");
        }
    }

    #[test]
    fn settings_json_is_stable() {
        let a = Settings::default().to_json();
        let b = Settings::default().to_json();
        assert_eq!(a.to_string(), b.to_string());
        assert_eq!(a["bits"], 16);
        assert_eq!(a["mip_filter"], "linear");
        assert_eq!(a["profile"], "default");
        assert!(a.get("srgb").is_none());
    }
}
