//! What the typed view of a known asset type found: [`Decoded`], its parts and its one-line
//! text form.

use std::fmt;

use crate::animation::AnimationView;
use crate::animation::ChannelEntry;
use crate::audio::AudioView;
use crate::container::header::AssetType;
use crate::container::load::Asset;
use crate::error::CafError;
use crate::font::FontView;
use crate::mesh::MeshView;
use crate::mesh::SubMeshEntry;
use crate::prefab::PrefabView;
use crate::scene::{scene_component, SceneView};
use crate::shader::ShaderStage;
use crate::shader::ShaderView;
use crate::texture::TextureFormat;
use crate::texture::TextureView;

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
        /// ([`crate::mesh::JointEntry::ROOT`] for a root).
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

    pub(super) fn level_labels(levels: &[(u32, u32)]) -> Vec<String> {
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
                            if *parent == crate::mesh::JointEntry::ROOT {
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
