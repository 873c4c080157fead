//! The decoded metadata of the asset types with a fixed metadata struct, field by field.

use std::fmt;

use crate::animation::AnimationMetadata;
use crate::audio::AudioMetadata;
use crate::container::header::AssetType;
use crate::font::{FontFormat, FontMetadata};
use crate::mesh::MeshExt;
use crate::mesh::MeshMetadata;
use crate::scene::SceneMetadata;
use crate::shader::{ShaderMetadata, ShaderStage};
use crate::texture::TextureMetadata;

/// One field of decoded metadata.
#[derive(Clone, Copy, PartialEq, Debug)]
#[non_exhaustive]
pub enum FieldValue {
    /// An integer field.
    Uint(u64),
    /// A floating-point field (font metrics).
    Float(f32),
    /// A name derived from a code (`None` when the code has no name).
    Name(Option<&'static str>),
}

impl fmt::Display for FieldValue {
    /// JSON-style: numbers bare, names quoted, a missing name as `null`. Names are ASCII
    /// identifiers, so quoting needs no escaping.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldValue::Uint(v) => write!(f, "{v}"),
            FieldValue::Float(v) => write!(f, "{v}"),
            FieldValue::Name(Some(n)) => write!(f, "\"{n}\""),
            FieldValue::Name(None) => f.write_str("null"),
        }
    }
}

/// The decoded metadata of a type with a fixed metadata struct.
#[derive(Clone, Copy, PartialEq, Debug)]
#[non_exhaustive]
pub enum KnownMetadata {
    /// Texture metadata.
    Texture(TextureMetadata),
    /// Audio metadata.
    Audio(AudioMetadata),
    /// Mesh metadata.
    Mesh(MeshMetadata),
    /// Shader metadata.
    Shader(ShaderMetadata),
    /// Scene metadata (the first 20 bytes; design-style archetype descriptors may follow).
    Scene(SceneMetadata),
    /// Font metadata.
    Font(FontMetadata),
    /// Animation metadata header (the first 32 bytes; the clip and channel tables follow).
    Animation(AnimationMetadata),
}

impl KnownMetadata {
    /// Decode the metadata of `ty`; `None` when the type has no fixed struct or the size does
    /// not match it.
    pub fn decode(ty: AssetType, m: &[u8]) -> Option<KnownMetadata> {
        Some(match ty {
            AssetType::TEXTURE => KnownMetadata::Texture(TextureMetadata::from_metadata(m).ok()?),
            AssetType::AUDIO => KnownMetadata::Audio(AudioMetadata::from_metadata(m).ok()?),
            AssetType::MESH => KnownMetadata::Mesh(MeshExt::decode(m).ok()?.0),
            AssetType::SHADER => KnownMetadata::Shader(ShaderMetadata::from_metadata(m).ok()?),
            AssetType::FONT => KnownMetadata::Font(FontMetadata::from_bytes(m).ok()?),
            AssetType::ANIMATION => KnownMetadata::Animation(
                AnimationMetadata::from_bytes(m.get(..AnimationMetadata::SIZE)?).ok()?,
            ),
            AssetType::SCENE => {
                KnownMetadata::Scene(SceneMetadata::from_bytes(m.get(..SceneMetadata::SIZE)?).ok()?)
            }
            _ => return None,
        })
    }

    /// The fields by name, sorted by name (the order of the JSON object, so text and JSON
    /// list them alike).
    pub fn fields(&self) -> Vec<(&'static str, FieldValue)> {
        use FieldValue::{Float, Name, Uint};
        let mut v = match *self {
            KnownMetadata::Texture(t) => vec![
                ("width", Uint(t.width.into())),
                ("height", Uint(t.height.into())),
                ("format", Uint(t.format.into())),
                ("mip_levels", Uint(t.mip_levels.into())),
                ("reserved", Uint(t.reserved)),
            ],
            KnownMetadata::Audio(a) => vec![
                ("sample_rate", Uint(a.sample_rate.into())),
                ("channels", Uint(a.channels.into())),
                ("bits_per_sample", Uint(a.bits_per_sample.into())),
                ("sample_count", Uint(a.sample_count.into())),
                ("reserved", Uint(a.reserved.into())),
            ],
            KnownMetadata::Mesh(m) => vec![
                ("vertex_count", Uint(m.vertex_count.into())),
                ("index_count", Uint(m.index_count.into())),
                ("sub_mesh_count", Uint(m.sub_mesh_count.into())),
                ("reserved", Uint(m.reserved.into())),
            ],
            KnownMetadata::Shader(s) => vec![
                ("stage", Uint(s.stage.into())),
                ("stage_name", Name(ShaderStage(s.stage).name())),
                ("reserved", Uint(s.reserved.into())),
            ],
            KnownMetadata::Scene(s) => vec![
                ("entity_count", Uint(s.entity_count.into())),
                ("archetype_count", Uint(s.archetype_count.into())),
                ("string_table_offset", Uint(s.string_table_offset.into())),
                (
                    "asset_ref_table_offset",
                    Uint(s.asset_ref_table_offset.into()),
                ),
                ("reserved", Uint(s.reserved.into())),
            ],
            KnownMetadata::Font(m) => vec![
                ("version", Uint(m.version.into())),
                ("format", Uint(m.format.into())),
                ("format_name", Name(FontFormat(m.format).name())),
                ("atlas_width", Uint(m.atlas_width.into())),
                ("atlas_height", Uint(m.atlas_height.into())),
                ("glyph_count", Uint(m.glyph_count.into())),
                ("kerning_count", Uint(m.kerning_count.into())),
                ("em_size", Float(m.em_size)),
                ("distance_range", Float(m.distance_range)),
                ("ascent", Float(m.ascent)),
                ("descent", Float(m.descent)),
                ("line_gap", Float(m.line_gap)),
                ("units_per_em", Uint(m.units_per_em.into())),
                ("reserved", Uint(m.reserved.into())),
            ],
            KnownMetadata::Animation(m) => vec![
                ("version", Uint(m.version.into())),
                ("flags", Uint(m.flags.into())),
                ("clip_count", Uint(m.clip_count.into())),
                ("channel_count", Uint(m.channel_count.into())),
                ("sample_rate", Float(m.sample_rate)),
                ("names_size", Uint(m.names_size.into())),
            ],
        };
        v.sort_by_key(|(k, _)| *k);
        v
    }
}
