//! Describing `.caf` files for people and tools: what `voxcaf asset info` and `asset check`
//! print, built here from the file bytes so that every front end reports the same facts.
//!
//! [`Description::from_bytes`] reads as much of a file as its bytes allow, damaged files
//! included: the header fields whenever 32 bytes exist, the offsets and both CRCs (stored and
//! computed) whenever the structure is sound, the decoded metadata of the fixed-struct types and
//! a typed-view summary, and finally whether the file is valid and which check failed. Its
//! [`Display`](std::fmt::Display) form is the text report; [`Verdict`] is the one-line verdict
//! of a full check.
//!
//! ```
//! use caf::{describe::Description, AssetType, MeshMetadata};
//!
//! let bytes = caf::AssetWriter::new(AssetType::MESH)
//!     .metadata(&MeshMetadata::default().to_bytes())
//!     .to_vec();
//! let d = Description::from_bytes(&bytes);
//! assert!(d.is_valid());
//! assert!(d.to_string().starts_with("valid, 52 bytes\n  magic         0xcafecafe"));
//!
//! let d = Description::from_bytes(&bytes[..40]);
//! assert_eq!(d.error.as_ref().map(|e| e.check_name()), Some("size mismatch"));
//! ```
//!
//! # JSON
//!
//! With the `json` cargo feature, `Description::to_json` and `Verdict::to_json` give the JSON
//! objects `voxcaf` prints. The feature pulls in `serde_json`, and is off by default: loading
//! assets should not cost an engine a JSON library. Producing the JSON through `serde_json`
//! rather than by hand keeps string escaping and float formatting (the audio duration)
//! exactly as the tools have always printed them, with object keys in sorted order.

use std::fmt;
use std::path::Path;

use crate::anim::AnimationView;
use crate::block::{block_index, decode_asset, is_encoded, BlockIndexHeader, DecodeOptions, Key};
use crate::error::CafError;
use crate::format::TextureFormat;
use crate::header::{AssetType, CafHeader, HEADER_SIZE};
use crate::load::{Asset, CrcCheck, LoadedAsset};
use crate::meta::{
    AnimationMetadata, AudioMetadata, ChannelEntry, FontFormat, FontMetadata, MeshMetadata,
    SceneMetadata, ShaderMetadata, ShaderStage, SubMeshEntry, TextureMetadata,
};
use crate::view::{
    scene_component, AudioView, FontView, MeshExt, MeshView, PrefabView, SceneView, ShaderView,
    TextureView,
};

fn hex32(v: u32) -> String {
    format!("{v:#010x}")
}

/// Where the parts of a structurally sound file are, and its CRCs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Layout {
    /// File offset of the metadata (always 32).
    pub metadata_offset: usize,
    /// Metadata length in bytes.
    pub metadata_len: usize,
    /// File offset of the payload.
    pub payload_offset: usize,
    /// Payload length in bytes.
    pub payload_len: usize,
    /// File offset of the footer CRC.
    pub footer_offset: usize,
    /// Both CRCs, stored and computed.
    pub crcs: CrcCheck,
}

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

/// One section of a decoded scene.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SectionSummary {
    /// Component type id (see [`scene_component`]).
    pub type_id: u32,
    /// Number of entries.
    pub count: u32,
}

/// One entity of a decoded prefab.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EntitySummary {
    /// The entity name (invalid UTF-8 replaced).
    pub name: String,
    /// Number of components.
    pub components: usize,
    /// Number of children.
    pub children: usize,
}

/// What the typed view of a known asset type found.
#[derive(Clone, PartialEq, Debug)]
#[non_exhaustive]
pub enum Decoded {
    /// A texture.
    Texture {
        /// The format code (`docs/format/caf-textures.md`).
        format: TextureFormat,
        /// Bytes per pixel for format 0 (inferred); 0 for other formats.
        channels: u32,
        /// Width and height of every stored level, largest first.
        levels: Vec<(u32, u32)>,
        /// The byte range of every stored level in the payload.
        ranges: Vec<std::ops::Range<usize>>,
    },
    /// PCM audio.
    Audio {
        /// Frames (samples per channel).
        frames: u32,
        /// Duration in seconds.
        duration_secs: f64,
    },
    /// A mesh.
    Mesh {
        /// Number of vertices.
        vertices: usize,
        /// Number of indices.
        indices: usize,
        /// The stored sub-mesh table of an extended mesh (empty for an original mesh).
        sub_meshes: Vec<SubMeshEntry>,
        /// Names of the extra per-vertex streams stored ("COLOR_0", "TEXCOORD_1",
        /// "JOINTS_0", "WEIGHTS_0").
        streams: Vec<&'static str>,
        /// The skeleton of a skinned mesh: joint names ("" for none) and parent indices
        /// ([`crate::JointEntry::ROOT`] for a root).
        joints: Vec<(String, u32)>,
    },
    /// A shader.
    Shader {
        /// The stage.
        stage: ShaderStage,
        /// Length of the bytecode.
        bytecode_bytes: usize,
        /// Whether the bytecode starts with the SPIR-V magic.
        spirv: bool,
    },
    /// A scene.
    Scene {
        /// The sections in stored order.
        sections: Vec<SectionSummary>,
    },
    /// A prefab.
    Prefab {
        /// The entities in stored order.
        entities: Vec<EntitySummary>,
    },
    /// A font.
    Font {
        /// Number of glyphs.
        glyphs: usize,
        /// Number of kerning pairs.
        kerning_pairs: usize,
        /// First and last codepoint.
        codepoints: (u32, u32),
        /// Atlas width and height.
        atlas: (u32, u32),
        /// Atlas format name ("sdf", "msdf", "mtsdf").
        format: &'static str,
    },
    /// An animation.
    Animation {
        /// The sample rate in Hz.
        sample_rate: f32,
        /// The clips in stored order.
        clips: Vec<ClipSummary>,
    },
}

/// One clip of a decoded animation.
#[derive(Clone, PartialEq, Debug)]
pub struct ClipSummary {
    /// The clip name.
    pub name: String,
    /// Seconds.
    pub duration: f32,
    /// Frames per animated channel.
    pub frames: u32,
    /// Channels (node and path).
    pub channels: usize,
    /// Channels stored as one constant frame.
    pub constant_channels: usize,
    /// Distinct nodes animated.
    pub nodes: usize,
    /// The largest error bound of a translation or scale channel.
    pub max_error_ts: f32,
    /// The largest error bound of a rotation channel, radians.
    pub max_error_rotation: f32,
}

impl Decoded {
    /// Decode `a` with the typed view of its type: `None` for types without a payload
    /// convention, otherwise the summary or the reason the view refused the asset.
    pub fn from_asset(a: &Asset<'_>) -> Option<Result<Decoded, CafError>> {
        Some(match a.header.asset_type {
            AssetType::TEXTURE => TextureView::from_asset(a).map(|t| Decoded::Texture {
                format: t.format_code(),
                channels: t.channels,
                levels: (0..t.level_count())
                    .filter_map(|i| t.level_dims(i))
                    .collect(),
                ranges: (0..t.level_count())
                    .filter_map(|i| t.level_range(i))
                    .collect(),
            }),
            AssetType::AUDIO => AudioView::from_asset(a).map(|v| Decoded::Audio {
                frames: v.frames(),
                duration_secs: v.duration_secs(),
            }),
            AssetType::MESH => MeshView::from_asset(a).map(|m| Decoded::Mesh {
                vertices: m.vertices.len(),
                indices: m.indices.len(),
                sub_meshes: m
                    .ext
                    .as_ref()
                    .map(|e| e.sub_meshes.clone())
                    .unwrap_or_default(),
                streams: [
                    m.colors.as_ref().map(|_| "COLOR_0"),
                    m.uv1.as_ref().map(|_| "TEXCOORD_1"),
                    m.joints.as_ref().map(|_| "JOINTS_0"),
                    m.weights.as_ref().map(|_| "WEIGHTS_0"),
                ]
                .into_iter()
                .flatten()
                .collect(),
                joints: m
                    .skin()
                    .map(|s| {
                        s.joints
                            .iter()
                            .map(|j| (j.name.clone(), j.parent))
                            .collect()
                    })
                    .unwrap_or_default(),
            }),
            AssetType::SHADER => ShaderView::from_asset(a).map(|s| Decoded::Shader {
                stage: s.stage(),
                bytecode_bytes: s.bytecode.len(),
                spirv: s.is_spirv(),
            }),
            AssetType::SCENE => SceneView::from_asset(a).map(|s| Decoded::Scene {
                sections: s
                    .sections()
                    .map(|x| SectionSummary {
                        type_id: x.type_id,
                        count: x.count,
                    })
                    .collect(),
            }),
            AssetType::PREFAB => PrefabView::from_asset(a).map(|p| Decoded::Prefab {
                entities: p
                    .entities()
                    .map(|e| EntitySummary {
                        name: String::from_utf8_lossy(e.name).into_owned(),
                        components: e.components.len(),
                        children: e.children.len(),
                    })
                    .collect(),
            }),
            AssetType::FONT => FontView::from_asset(a).map(|v| Decoded::Font {
                glyphs: v.glyphs().len(),
                kerning_pairs: v.kerning_pairs().len(),
                codepoints: (
                    v.glyphs().first().map_or(0, |g| g.codepoint),
                    v.glyphs().last().map_or(0, |g| g.codepoint),
                ),
                atlas: (v.meta.atlas_width, v.meta.atlas_height),
                format: v.format().name().unwrap_or("?"),
            }),
            AssetType::ANIMATION => AnimationView::from_asset(a).map(|v| Decoded::Animation {
                sample_rate: v.meta.sample_rate,
                clips: (0..v.clip_count())
                    .map(|i| {
                        let chans = v.channels(i);
                        let max_of = |rot: bool| {
                            chans
                                .iter()
                                .filter(|c| (c.path == ChannelEntry::ROTATION) == rot)
                                .map(|c| c.error_bound)
                                .fold(0.0f32, f32::max)
                        };
                        let nodes: std::collections::BTreeSet<u32> =
                            chans.iter().map(|c| c.node).collect();
                        ClipSummary {
                            name: v.clip_name(i).unwrap_or_default().to_string(),
                            duration: v.clip(i).map_or(0.0, |c| c.duration),
                            frames: v.clip(i).map_or(0, |c| c.frame_count),
                            channels: chans.len(),
                            constant_channels: chans.iter().filter(|c| c.frame_count == 1).count(),
                            nodes: nodes.len(),
                            max_error_ts: max_of(false),
                            max_error_rotation: max_of(true),
                        }
                    })
                    .collect(),
            }),
            _ => return None,
        })
    }

    fn level_labels(levels: &[(u32, u32)]) -> Vec<String> {
        levels.iter().map(|(w, h)| format!("{w}x{h}")).collect()
    }

    /// `8x8 bytes [0, 64)` per level.
    fn level_range_labels(levels: &[(u32, u32)], ranges: &[std::ops::Range<usize>]) -> Vec<String> {
        levels
            .iter()
            .zip(ranges)
            .map(|((w, h), r)| format!("{w}x{h} bytes [{}, {})", r.start, r.end))
            .collect()
    }
}

/// `indices 0..36 material 1 node 3 bounds [..]..[..]`.
fn sub_mesh_label(s: &SubMeshEntry) -> String {
    let mut t = format!(
        "indices {}..{}",
        s.first_index,
        u64::from(s.first_index) + u64::from(s.index_count)
    );
    if s.material != SubMeshEntry::NONE {
        t += &format!(" material {}", s.material);
    }
    if s.node != SubMeshEntry::NONE {
        t += &format!(" node {}", s.node);
    }
    t += &format!(" bounds {:?}..{:?}", s.bounds_min, s.bounds_max);
    t
}

impl fmt::Display for Decoded {
    /// One line, e.g. `4 channel(s), 2 level(s): 2x1 + 1x1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decoded::Texture {
                format,
                channels,
                levels,
                ranges,
            } => {
                if format.0 == 0 {
                    write!(
                        f,
                        "{channels} channel(s), {} level(s): {}",
                        levels.len(),
                        Decoded::level_labels(levels).join(" + ")
                    )
                } else {
                    write!(
                        f,
                        "{}, {} level(s): {}",
                        format.name(),
                        levels.len(),
                        Decoded::level_range_labels(levels, ranges).join(" + ")
                    )
                }
            }
            Decoded::Audio {
                frames,
                duration_secs,
            } => write!(f, "{frames} frames, {duration_secs:.3} s"),
            Decoded::Mesh {
                vertices,
                indices,
                sub_meshes,
                streams,
                joints,
            } => {
                write!(
                    f,
                    "{vertices} vertices, {indices} indices ({} triangles)",
                    indices / 3
                )?;
                if !streams.is_empty() {
                    write!(f, ", streams {}", streams.join(" + "))?;
                }
                if !sub_meshes.is_empty() {
                    let parts: Vec<String> = sub_meshes.iter().map(sub_mesh_label).collect();
                    write!(
                        f,
                        "; {} sub-mesh(es): {}",
                        sub_meshes.len(),
                        parts.join(", ")
                    )?;
                }
                if !joints.is_empty() {
                    let parts: Vec<String> = joints
                        .iter()
                        .enumerate()
                        .map(|(i, (name, parent))| {
                            let name = if name.is_empty() {
                                format!("#{i}")
                            } else {
                                format!("\"{name}\"")
                            };
                            if *parent == crate::meta::JointEntry::ROOT {
                                name
                            } else {
                                format!("{name}<-{parent}")
                            }
                        })
                        .collect();
                    write!(f, "; skin {} joint(s): {}", joints.len(), parts.join(", "))?;
                }
                Ok(())
            }
            Decoded::Shader {
                stage,
                bytecode_bytes,
                spirv,
            } => write!(
                f,
                "{} stage, {bytecode_bytes} bytes of bytecode{}",
                stage.name().unwrap_or("?"),
                if *spirv { " (SPIR-V)" } else { "" }
            ),
            Decoded::Scene { sections } => {
                let text: Vec<String> = sections
                    .iter()
                    .map(|x| {
                        format!(
                            "{} x{}",
                            scene_component::name(x.type_id).unwrap_or("?"),
                            x.count
                        )
                    })
                    .collect();
                write!(f, "{} section(s): {}", sections.len(), text.join(", "))
            }
            Decoded::Prefab { entities } => {
                let text: Vec<String> = entities
                    .iter()
                    .map(|e| format!("\"{}\" ({} components)", e.name, e.components))
                    .collect();
                write!(f, "{} entit(ies): {}", entities.len(), text.join(", "))
            }
            Decoded::Font {
                glyphs,
                kerning_pairs,
                codepoints,
                atlas,
                format,
            } => write!(
                f,
                "{glyphs} glyph(s) U+{:04X}..U+{:04X}, {kerning_pairs} kerning pair(s), {}x{} {format} atlas",
                codepoints.0, codepoints.1, atlas.0, atlas.1
            ),
            Decoded::Animation { sample_rate, clips } => {
                let parts: Vec<String> = clips
                    .iter()
                    .map(|c| {
                        format!(
                            "\"{}\" {:.3} s, {} frames, {} channel(s) ({} constant) on {} node(s), error <= {:.3e} (T/S) {:.3e} rad (R)",
                            c.name,
                            c.duration,
                            c.frames,
                            c.channels,
                            c.constant_channels,
                            c.nodes,
                            c.max_error_ts,
                            c.max_error_rotation
                        )
                    })
                    .collect();
                write!(
                    f,
                    "{} clip(s) at {sample_rate} Hz: {}",
                    clips.len(),
                    parts.join(", ")
                )
            }
        }
    }
}

/// True when the payload starts with a block index's magic. Files written before the
/// COMPRESSED / ENCRYPTED extension may carry those flags on a plain payload; without the
/// magic they are judged as containers only (their payload cannot be decoded).
fn has_block_index(a: &Asset<'_>) -> bool {
    a.payload.starts_with(&crate::block::BLOCK_MAGIC)
}

/// Everything that can be said about one file's bytes, valid or not.
#[derive(Debug)]
pub struct Description {
    /// Length of the file.
    pub file_size: u64,
    /// The header fields as stored, when the file has at least 32 bytes (decoded even when
    /// they are wrong).
    pub header: Option<CafHeader>,
    /// Offsets and CRCs, when length, magic, version and sizes are sound.
    pub layout: Option<Layout>,
    /// The decoded metadata of a fixed-struct type whose size matches (needs `layout`).
    pub metadata: Option<KnownMetadata>,
    /// The typed-view summary, or why the view refused the asset, for types with a payload
    /// convention (needs `layout`).
    pub decoded: Option<Result<Decoded, CafError>>,
    /// The block index of a COMPRESSED or ENCRYPTED payload (needs `layout`).
    pub encoding: Option<BlockIndexHeader>,
    /// The first check that failed (`None` = valid): the container checks and, for an
    /// encoded payload, its decoding (a missing key is not a failure: `decoded` then says a
    /// key is needed). Typed-view failures do not make a file invalid here; they are
    /// reported in `decoded`.
    pub error: Option<CafError>,
}

impl Description {
    /// Describe a file from its bytes, going as far as the damage allows.
    pub fn from_bytes(bytes: &[u8]) -> Description {
        Description::from_bytes_with_key(bytes, None)
    }

    /// [`Description::from_bytes`] with the key of an encrypted asset, so that its payload
    /// is decoded, checked and summarised too.
    pub fn from_bytes_with_key(bytes: &[u8], key: Option<&Key>) -> Description {
        let mut d = Description {
            file_size: bytes.len() as u64,
            header: None,
            layout: None,
            metadata: None,
            decoded: None,
            encoding: None,
            error: None,
        };
        let Some(hb) = bytes
            .get(..HEADER_SIZE)
            .and_then(|s| <&[u8; HEADER_SIZE]>::try_from(s).ok())
        else {
            // Too short even for the header: the check names the header's 32 bytes, not the
            // 36 of a whole file, because that is what is missing first.
            d.error = Some(CafError::TooShort {
                len: bytes.len() as u64,
                min: HEADER_SIZE as u64,
            });
            return d;
        };
        let h = CafHeader::from_bytes(hb);
        d.header = Some(h);
        let (asset, crcs) = match Asset::parse_layout(bytes) {
            Ok(x) => x,
            Err(e) => {
                d.error = Some(e);
                return d;
            }
        };
        d.layout = Some(Layout {
            metadata_offset: HEADER_SIZE,
            metadata_len: asset.metadata.len(),
            payload_offset: asset.payload_offset(),
            payload_len: asset.payload.len(),
            footer_offset: asset.footer_offset(),
            crcs,
        });
        d.metadata = KnownMetadata::decode(h.asset_type, asset.metadata);
        d.error = crcs.check().err();
        if !is_encoded(h.flags) {
            d.decoded = Decoded::from_asset(&asset);
            return d;
        }
        d.encoding = block_index(&asset).ok().map(|(ix, _)| ix);
        if d.error.is_some() {
            return d;
        }
        if !has_block_index(&asset) {
            // Flags set by a writer from before the extension on a plain payload: a valid
            // container whose payload nothing can decode.
            d.decoded = Some(Err(CafError::BadBlockIndex {
                offset: 0,
                what: "no block index: COMPRESSED/ENCRYPTED set on a plain payload (a file \
                       from before the extension)",
            }));
            return d;
        }
        match decode_asset(&asset, &DecodeOptions::with_key(key)) {
            Ok(plain) => {
                // decode_asset builds a sound plain file; parse only fails on a bug.
                d.decoded = match Asset::parse(&plain) {
                    Ok(p) => Decoded::from_asset(&p),
                    Err(e) => Some(Err(e)),
                };
            }
            Err(CafError::KeyRequired) => d.decoded = Some(Err(CafError::KeyRequired)),
            Err(e) => d.error = Some(e),
        }
        d
    }

    /// True when every container check passed.
    pub fn is_valid(&self) -> bool {
        self.error.is_none()
    }

    /// The first line of the report: `valid, N bytes` or `INVALID (check), N bytes: reason`.
    pub fn status_line(&self) -> String {
        match &self.error {
            None => format!("valid, {} bytes", self.file_size),
            Some(e) => format!(
                "INVALID ({}), {} bytes: {e}",
                e.check_name(),
                self.file_size
            ),
        }
    }

    /// The indented detail lines after the status line: header, offsets and CRCs, metadata,
    /// decoded view. Damaged files give as many as their bytes allow.
    pub fn detail_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let Some(h) = &self.header else {
            return lines;
        };
        lines.push(format!("  magic         {}", hex32(h.magic)));
        lines.push(format!(
            "  version       {}.{}",
            h.version_major, h.version_minor
        ));
        let ty = h.asset_type;
        let label = match ty.name() {
            Some(n) => format!("{} ({n})", ty.0),
            None => format!("{} (no such type)", ty.0),
        };
        lines.push(format!("  type          {label}"));
        lines.push(format!("  flags         {:#06x} ({})", h.flags.0, h.flags));
        lines.push(format!(
            "  sizes         metadata {} + payload {} bytes",
            h.metadata_size, h.data_size
        ));
        let Some(l) = &self.layout else {
            return lines;
        };
        let state = |ok: bool, computed: u32| {
            if ok {
                "matches".to_string()
            } else {
                format!("MISMATCH, bytes hash to {}", hex32(computed))
            }
        };
        let c = &l.crcs;
        lines.push(format!(
            "  metadata      {} bytes at offset {}",
            l.metadata_len, l.metadata_offset
        ));
        lines.push(format!(
            "  payload       {} bytes at offset {}, crc32 {} ({})",
            l.payload_len,
            l.payload_offset,
            hex32(c.payload_stored),
            state(c.payload_ok(), c.payload_computed)
        ));
        lines.push(format!(
            "  footer        at offset {}: {} ({})",
            l.footer_offset,
            hex32(c.footer_stored),
            state(c.footer_ok(), c.footer_computed)
        ));
        if let Some(ix) = &self.encoding {
            lines.push(format!(
                "  encoding      {}{}, {} block(s) of {} bytes, plain payload {} bytes (crc32 {})",
                ix.codec(),
                match ix.cipher() {
                    Some(c) => format!(", encrypted ({})", c.title()),
                    None => String::new(),
                },
                ix.block_count,
                ix.block_size,
                ix.plain_size,
                hex32(ix.plain_crc32)
            ));
        }
        if let Some(m) = &self.metadata {
            let fields: Vec<String> = m.fields().iter().map(|(k, v)| format!("{k}={v}")).collect();
            lines.push(format!("  {:<13} {}", format!("{ty}:"), fields.join(" ")));
        }
        match &self.decoded {
            Some(Ok(d)) => lines.push(format!("  decoded       {d}")),
            Some(Err(e)) => lines.push(format!("  decoded       cannot decode as {ty}: {e}")),
            None => {}
        }
        lines
    }
}

impl fmt::Display for Description {
    /// The text report: [`Description::status_line`], then each of
    /// [`Description::detail_lines`] on its own line (no trailing newline). `voxcaf asset info`
    /// prints it after `FILE: `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.status_line())?;
        for l in self.detail_lines() {
            write!(f, "\n{l}")?;
        }
        Ok(())
    }
}

/// The verdict of a full check of one file: every container check, and optionally the typed
/// view of its type.
#[derive(Debug)]
#[non_exhaustive]
pub enum Verdict {
    /// Every check passed.
    Valid {
        /// The asset type.
        asset_type: AssetType,
        /// Length of the file.
        file_size: u64,
    },
    /// A check failed; [`CafError::check_name`] names it.
    Invalid(CafError),
}

/// Whether the payload of the file at `path` starts with a block index's magic.
fn file_has_block_index(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let read = || -> std::io::Result<[u8; 4]> {
        let mut f = std::fs::File::open(path)?;
        let mut hb = [0u8; HEADER_SIZE];
        f.read_exact(&mut hb)?;
        let h = CafHeader::from_bytes(&hb);
        f.seek(SeekFrom::Start(h.payload_offset().unwrap_or(u64::MAX)))?;
        let mut m = [0u8; 4];
        f.read_exact(&mut m)?;
        Ok(m)
    };
    read().is_ok_and(|m| m == crate::block::BLOCK_MAGIC)
}

impl Verdict {
    /// Load and verify `path` (see [`LoadedAsset::open`]); with `typed`, also decode it with
    /// the typed view of its type (types without a payload convention pass).
    pub fn check_file(path: &Path, typed: bool) -> Verdict {
        Verdict::check_file_with_key(path, typed, None)
    }

    /// [`Verdict::check_file`] with the key of encrypted assets. A COMPRESSED or ENCRYPTED
    /// file is streamed ([`crate::StreamReader`]): every block, the plain CRC and both
    /// container CRCs are checked with memory for a few blocks, whatever the payload's size
    /// (with `typed` it is decoded whole to run the typed view).
    pub fn check_file_with_key(path: &Path, typed: bool, key: Option<&Key>) -> Verdict {
        let header = match crate::load::validate_header(path) {
            Ok(h) => h,
            Err(e) => return Verdict::Invalid(e),
        };
        if is_encoded(header.flags) && !typed && (key.is_some() || file_has_block_index(path)) {
            let r = std::fs::File::open(path)
                .map_err(|e| CafError::io(Some(path), e))
                .and_then(|f| {
                    let len = f.metadata().map_err(|e| CafError::io(Some(path), e))?.len();
                    crate::StreamReader::new(std::io::BufReader::with_capacity(1 << 20, f), key)?
                        .for_each_block(|_| Ok(()))?;
                    Ok(len)
                });
            return match r {
                Ok(file_size) => Verdict::Valid {
                    asset_type: header.asset_type,
                    file_size,
                },
                Err(e) => Verdict::Invalid(e),
            };
        }
        if !typed {
            // Container checks only (encoded payloads were handled above): one streaming pass
            // through a small buffer, at the speed of the read itself.
            return match crate::load::verify_file(path) {
                Ok((h, file_size)) => Verdict::Valid {
                    asset_type: h.asset_type,
                    file_size,
                },
                Err(e) => Verdict::Invalid(e),
            };
        }
        match LoadedAsset::open(path) {
            Ok(l) => Verdict::of_asset(&l.asset(), l.file_size(), typed, key),
            Err(e) => Verdict::Invalid(e),
        }
    }

    /// [`Verdict::check_file`] for a file already in memory.
    pub fn check_bytes(bytes: &[u8], typed: bool) -> Verdict {
        Verdict::check_bytes_with_key(bytes, typed, None)
    }

    /// [`Verdict::check_bytes`] with the key of encrypted assets.
    pub fn check_bytes_with_key(bytes: &[u8], typed: bool, key: Option<&Key>) -> Verdict {
        match Asset::parse(bytes) {
            Ok(a) => Verdict::of_asset(&a, bytes.len() as u64, typed, key),
            Err(e) => Verdict::Invalid(e),
        }
    }

    fn of_asset(a: &Asset<'_>, file_size: u64, typed: bool, key: Option<&Key>) -> Verdict {
        // Without a key or a typed check, a payload without a block index (flags from a writer
        // older than the extension) is judged as a container, as the original loader does.
        let legacy = key.is_none() && !typed && !has_block_index(a);
        if is_encoded(a.header.flags) && !legacy {
            let plain = match decode_asset(a, &DecodeOptions::with_key(key)) {
                Ok(p) => p,
                Err(e) => return Verdict::Invalid(e),
            };
            return match Asset::parse(&plain) {
                Ok(p) => Verdict::of_asset(&p, file_size, typed, None),
                Err(e) => Verdict::Invalid(e),
            };
        }
        if typed {
            if let Some(Err(e)) = Decoded::from_asset(a) {
                return Verdict::Invalid(e);
            }
        }
        Verdict::Valid {
            asset_type: a.header.asset_type,
            file_size,
        }
    }

    /// True for [`Verdict::Valid`].
    pub fn is_valid(&self) -> bool {
        matches!(self, Verdict::Valid { .. })
    }

    /// The report line for `file`: `ok    FILE (type, N bytes)` or
    /// `FAIL  FILE [check]: reason`.
    pub fn line(&self, file: &str) -> String {
        match self {
            Verdict::Valid {
                asset_type,
                file_size,
            } => format!("ok    {file} ({asset_type}, {file_size} bytes)"),
            Verdict::Invalid(e) => format!("FAIL  {file} [{}]: {e}", e.check_name()),
        }
    }
}

#[cfg(feature = "json")]
mod json {
    use serde_json::{json, Value};

    use super::{Decoded, Description, FieldValue, KnownMetadata, Verdict};

    fn field_json(v: FieldValue) -> Value {
        match v {
            FieldValue::Uint(n) => json!(n),
            FieldValue::Float(x) => json!(x),
            FieldValue::Name(n) => json!(n),
        }
    }

    impl KnownMetadata {
        /// The fields as a JSON object (feature `json`).
        pub fn to_json(&self) -> Value {
            Value::Object(
                self.fields()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), field_json(v)))
                    .collect(),
            )
        }
    }

    impl Decoded {
        /// The summary as a JSON object (feature `json`).
        pub fn to_json(&self) -> Value {
            match self {
                Decoded::Texture {
                    format,
                    channels,
                    levels,
                    ranges,
                } => {
                    let ranges: Vec<[usize; 2]> = ranges.iter().map(|r| [r.start, r.end]).collect();
                    json!({
                        "format": format.0,
                        "format_name": format.name(),
                        "channels": channels,
                        "levels": Decoded::level_labels(levels),
                        "level_ranges": ranges,
                    })
                }
                Decoded::Audio {
                    frames,
                    duration_secs,
                } => json!({"frames": frames, "duration_secs": duration_secs}),
                Decoded::Mesh {
                    vertices,
                    indices,
                    sub_meshes,
                    streams,
                    joints,
                } => {
                    let none = |v: u32| (v != crate::meta::SubMeshEntry::NONE).then_some(v);
                    let subs: Vec<Value> = sub_meshes
                        .iter()
                        .map(|s| json!({"first_index": s.first_index, "index_count": s.index_count, "material": none(s.material), "node": none(s.node), "bounds_min": s.bounds_min, "bounds_max": s.bounds_max}))
                        .collect();
                    let joints: Vec<Value> = joints
                        .iter()
                        .map(|(name, parent)| json!({"name": name, "parent": (*parent != crate::meta::JointEntry::ROOT).then_some(*parent)}))
                        .collect();
                    json!({"vertices": vertices, "indices": indices, "streams": streams, "sub_meshes": subs, "joints": joints})
                }
                Decoded::Shader {
                    stage,
                    bytecode_bytes,
                    spirv,
                } => {
                    json!({"stage": stage.name(), "bytecode_bytes": bytecode_bytes, "spirv": spirv})
                }
                Decoded::Scene { sections } => {
                    let secs: Vec<Value> = sections
                        .iter()
                        .map(|x| json!({"type_id": x.type_id, "component": super::scene_component::name(x.type_id), "count": x.count}))
                        .collect();
                    json!({ "sections": secs })
                }
                Decoded::Prefab { entities } => {
                    let ents: Vec<Value> = entities
                        .iter()
                        .map(|e| json!({"name": e.name, "components": e.components, "children": e.children}))
                        .collect();
                    json!({ "entities": ents })
                }
                Decoded::Font {
                    glyphs,
                    kerning_pairs,
                    codepoints,
                    atlas,
                    format,
                } => json!({
                    "glyphs": glyphs,
                    "kerning_pairs": kerning_pairs,
                    "first_codepoint": codepoints.0,
                    "last_codepoint": codepoints.1,
                    "atlas_width": atlas.0,
                    "atlas_height": atlas.1,
                    "format": format,
                }),
                Decoded::Animation { sample_rate, clips } => {
                    let clips: Vec<Value> = clips
                        .iter()
                        .map(|c| json!({"name": c.name, "duration": c.duration, "frames": c.frames, "channels": c.channels, "constant_channels": c.constant_channels, "nodes": c.nodes, "max_error_ts": c.max_error_ts, "max_error_rotation": c.max_error_rotation}))
                        .collect();
                    json!({"sample_rate": sample_rate, "clips": clips})
                }
            }
        }
    }

    impl Description {
        /// The description as one JSON object, with `file` as its `"file"` field (feature
        /// `json`). Fields that the damage hides are left out, as in the text form.
        pub fn to_json(&self, file: &str) -> Value {
            let mut j = json!({"file": file, "file_size": self.file_size});
            if let Some(h) = &self.header {
                j["magic"] = json!(h.magic);
                j["version_major"] = json!(h.version_major);
                j["version_minor"] = json!(h.version_minor);
                j["type"] = json!(h.asset_type.0);
                j["type_name"] = json!(h.asset_type.name());
                j["flags"] = json!(h.flags.0);
                j["flag_names"] = json!(h.flags.names());
                j["unknown_flag_bits"] = json!(h.flags.unknown_bits());
                j["metadata_size"] = json!(h.metadata_size);
                j["data_size"] = json!(h.data_size);
                j["payload_crc"] = json!(h.crc32);
                j["payload_alignment"] = json!(h.asset_type.payload_alignment());
            }
            if let Some(l) = &self.layout {
                let c = &l.crcs;
                j["offsets"] = json!({"metadata": l.metadata_offset, "payload": l.payload_offset, "footer": l.footer_offset});
                j["payload_crc_computed"] = json!(c.payload_computed);
                j["footer_crc_computed"] = json!(c.footer_computed);
                j["payload_crc_ok"] = json!(c.payload_ok());
                j["footer_crc_ok"] = json!(c.footer_ok());
                j["footer_crc"] = json!(c.footer_stored);
            }
            if let Some(m) = &self.metadata {
                j["metadata"] = m.to_json();
            }
            if let Some(ix) = &self.encoding {
                j["encoding"] = json!({
                    "codec": ix.codec().name(),
                    "encrypted": ix.is_encrypted(),
                    "cipher": ix.cipher().map(|c| c.name()),
                    "block_size": ix.block_size,
                    "block_count": ix.block_count,
                    "plain_size": ix.plain_size,
                    "plain_crc32": ix.plain_crc32,
                });
            }
            match &self.decoded {
                Some(Ok(d)) => j["decoded"] = d.to_json(),
                Some(Err(e)) => j["decode_error"] = json!(e.to_string()),
                None => {}
            }
            let err = self.error.as_ref();
            j["valid"] = json!(err.is_none());
            j["check"] = json!(err.map(|e| e.check_name()));
            j["error"] = json!(err.map(|e| e.to_string()));
            j
        }
    }

    impl Verdict {
        /// The verdict as a JSON object for `file` (feature `json`).
        pub fn to_json(&self, file: &str) -> Value {
            match self {
                Verdict::Valid {
                    asset_type,
                    file_size,
                } => {
                    json!({"file": file, "valid": true, "type": asset_type.0, "type_name": asset_type.name(), "file_size": file_size})
                }
                Verdict::Invalid(e) => {
                    json!({"file": file, "valid": false, "check": e.check_name(), "error": e.to_string()})
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CafFlags, TextureMetadata};

    fn texture_file() -> Vec<u8> {
        let meta = TextureMetadata {
            width: 2,
            height: 1,
            format: 0,
            mip_levels: 2,
            reserved: 0,
        };
        crate::AssetWriter::new(AssetType::TEXTURE)
            .flags(CafFlags::SRGB | CafFlags::MIPCHAIN)
            .metadata(&meta.to_bytes())
            .payload(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
            .to_vec()
    }

    #[test]
    fn describes_a_valid_file() {
        let bytes = texture_file();
        let d = Description::from_bytes(&bytes);
        assert!(d.is_valid());
        assert_eq!(d.file_size, 72);
        let l = d.layout.unwrap();
        assert_eq!(
            (l.metadata_offset, l.payload_offset, l.footer_offset),
            (32, 56, 68)
        );
        assert!(l.crcs.payload_ok() && l.crcs.footer_ok());
        assert_eq!(
            d.decoded.as_ref().unwrap().as_ref().unwrap(),
            &Decoded::Texture {
                format: TextureFormat(0),
                channels: 4,
                levels: vec![(2, 1), (1, 1)],
                ranges: vec![0..8, 8..12],
            }
        );
        let text = d.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "valid, 72 bytes");
        assert_eq!(lines[1], "  magic         0xcafecafe");
        assert_eq!(lines[3], "  type          1 (texture)");
        assert_eq!(lines[4], "  flags         0x000c (SRGB|MIPCHAIN)");
        assert!(lines[7].ends_with("(matches)"), "{}", lines[7]);
        assert_eq!(
            lines[9],
            "  texture:      format=0 height=1 mip_levels=2 reserved=0 width=2"
        );
        assert_eq!(
            lines[10],
            "  decoded       4 channel(s), 2 level(s): 2x1 + 1x1"
        );
        assert_eq!(lines.len(), 11);
        assert!(Verdict::check_bytes(&bytes, true).is_valid());
        assert_eq!(
            Verdict::check_bytes(&bytes, true).line("t.caf"),
            "ok    t.caf (texture, 72 bytes)"
        );
    }

    #[test]
    fn describes_a_bad_crc_file() {
        let mut bytes = texture_file();
        bytes[60] ^= 1;
        let d = Description::from_bytes(&bytes);
        assert!(!d.is_valid());
        assert_eq!(d.error.as_ref().unwrap().check_name(), "payload crc");
        let l = d.layout.unwrap();
        assert!(!l.crcs.payload_ok());
        // The footer covers the payload too, so it no longer matches either.
        assert!(!l.crcs.footer_ok());
        let text = d.to_string();
        assert!(text.starts_with("INVALID (payload crc), 72 bytes: payload CRC mismatch"));
        assert!(text.contains("MISMATCH, bytes hash to 0x"), "{text}");
        // Metadata and the typed view are still described.
        assert!(d.metadata.is_some());
        assert!(matches!(d.decoded, Some(Ok(_))));
        let v = Verdict::check_bytes(&bytes, false);
        assert!(!v.is_valid());
        assert!(v
            .line("bad.caf")
            .starts_with("FAIL  bad.caf [payload crc]: "));
    }

    #[test]
    fn describes_a_truncated_file() {
        let bytes = texture_file();
        let d = Description::from_bytes(&bytes[..50]);
        assert_eq!(d.error.as_ref().unwrap().check_name(), "size mismatch");
        assert!(d.header.is_some() && d.layout.is_none() && d.decoded.is_none());
        assert_eq!(d.detail_lines().len(), 5, "header fields only");

        let d = Description::from_bytes(&bytes[..2]);
        assert!(matches!(
            d.error,
            Some(CafError::TooShort { len: 2, min: 32 })
        ));
        assert!(d.header.is_none());
        assert_eq!(
            d.to_string(),
            "INVALID (too short), 2 bytes: too short: 2 bytes, a .caf file needs at least 32"
        );
    }

    #[test]
    fn typed_failure_is_reported_but_not_invalid() {
        // A texture whose payload does not fit its metadata: the container is fine.
        let meta = TextureMetadata {
            width: 4,
            height: 4,
            format: 0,
            mip_levels: 1,
            reserved: 0,
        };
        let bytes = crate::AssetWriter::new(AssetType::TEXTURE)
            .metadata(&meta.to_bytes())
            .payload(&[0; 5])
            .to_vec();
        let d = Description::from_bytes(&bytes);
        assert!(d.is_valid());
        assert!(matches!(d.decoded, Some(Err(CafError::PayloadSize { .. }))));
        assert!(d.to_string().contains("cannot decode as texture: "));
        assert!(Verdict::check_bytes(&bytes, false).is_valid());
        assert!(!Verdict::check_bytes(&bytes, true).is_valid());
    }

    #[test]
    fn describes_block_formats_with_level_byte_ranges() {
        // 5x4 BC7 with 3 levels: 2x1 blocks, then 1x1 and 1x1 -> 32 + 16 + 16 bytes.
        let meta = TextureMetadata {
            width: 5,
            height: 4,
            format: TextureFormat::BC7_RGBA_UNORM_SRGB.0,
            mip_levels: 3,
            reserved: 0,
        };
        let file = |payload: &[u8]| {
            crate::AssetWriter::new(AssetType::TEXTURE)
                .flags(CafFlags::SRGB | CafFlags::MIPCHAIN)
                .metadata(&meta.to_bytes())
                .payload(payload)
                .to_vec()
        };
        let d = Description::from_bytes(&file(&[7; 64]));
        let line = d.decoded.as_ref().unwrap().as_ref().unwrap().to_string();
        assert_eq!(
            line,
            "BC7_RGBA_UNORM_SRGB, 3 level(s): 5x4 bytes [0, 32) + 2x2 bytes [32, 48) + 1x1 bytes [48, 64)"
        );
        // One byte short of the last block: the view refuses it.
        let d = Description::from_bytes(&file(&[7; 63]));
        assert!(matches!(
            d.decoded,
            Some(Err(CafError::PayloadSize {
                expected: 64,
                actual: 63,
                ..
            }))
        ));
        // A depth format is named in the refusal.
        let mut depth = meta;
        depth.format = 60;
        let bytes = crate::AssetWriter::new(AssetType::TEXTURE)
            .metadata(&depth.to_bytes())
            .payload(&[0; 64])
            .to_vec();
        let d = Description::from_bytes(&bytes);
        assert!(d.to_string().contains("depth format"), "{d}");
    }

    #[cfg(feature = "json")]
    #[test]
    fn json_has_the_documented_fields() {
        let j = Description::from_bytes(&texture_file()).to_json("t.caf");
        for k in [
            "file",
            "file_size",
            "type",
            "type_name",
            "flags",
            "flag_names",
            "version_major",
            "version_minor",
            "metadata_size",
            "data_size",
            "payload_crc",
            "offsets",
            "payload_crc_ok",
            "footer_crc_ok",
            "metadata",
            "decoded",
            "valid",
            "check",
            "error",
        ] {
            assert!(j.get(k).is_some(), "{k}");
        }
        assert_eq!(j["metadata"]["mip_levels"], 2);
        assert_eq!(j["decoded"]["levels"][1], "1x1");
        assert_eq!(j["decoded"]["format_name"], "RGBA8");
        assert_eq!(j["decoded"]["level_ranges"][1][0], 8);
        let j = Description::from_bytes(&[0xFE, 0xCA]).to_json("s.caf");
        assert_eq!(j["check"], "too short");
        assert!(j.get("magic").is_none());
    }
}
