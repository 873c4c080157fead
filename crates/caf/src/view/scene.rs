//! The scene and prefab views: sections of components and entities, read through a
//! bounds-checked cursor.

use zerocopy::little_endian::U32;
use zerocopy::FromBytes;

use super::expect_type;
use crate::error::CafError;
use crate::header::AssetType;
use crate::load::Asset;
use crate::meta::{ArchetypeDesc, SceneMetadata};

/// Bounds-checked little-endian reader over a payload.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    ty: AssetType,
}

impl<'a> Cursor<'a> {
    fn err(&self, what: String) -> CafError {
        CafError::Malformed {
            ty: self.ty,
            offset: self.pos as u64,
            what,
        }
    }
    fn bytes(&mut self, n: u64, what: &str) -> Result<&'a [u8], CafError> {
        let left = (self.data.len() - self.pos) as u64;
        if n > left {
            return Err(self.err(format!("{what} needs {n} bytes, only {left} left")));
        }
        let s = &self.data[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }
    fn u32(&mut self, what: &str) -> Result<u32, CafError> {
        let b = self.bytes(4, what)?;
        // `bytes` returned exactly 4 bytes, so the cast cannot fail; the fallback keeps the
        // path free of panics.
        Ok(U32::read_from_bytes(b).map_or(0, U32::get))
    }
    fn at_end(&self) -> bool {
        self.pos == self.data.len()
    }
}

/// Scene component type ids written by the original's runtime serializer.
pub mod scene_component {
    /// Transform: position, rotation, scale (9 × f32 = 36 bytes).
    pub const TRANSFORM: u32 = 0;
    /// Acceleration2D: 2 × f32 (8 bytes).
    pub const ACCELERATION_2D: u32 = 1;
    /// Parent: u32 parent id (0xFFFFFFFF = none) + u8 dirty (5 bytes).
    pub const PARENT: u32 = 2;
    /// WorldTransform: 4×4 f32 matrix (64 bytes).
    pub const WORLD_TRANSFORM: u32 = 3;

    /// Component byte size of a known type id (entries add a 4-byte entity id).
    pub fn size(type_id: u32) -> Option<usize> {
        match type_id {
            TRANSFORM => Some(36),
            ACCELERATION_2D => Some(8),
            PARENT => Some(5),
            WORLD_TRANSFORM => Some(64),
            _ => None,
        }
    }

    /// Name of a known type id.
    pub fn name(type_id: u32) -> Option<&'static str> {
        match type_id {
            TRANSFORM => Some("Transform"),
            ACCELERATION_2D => Some("Acceleration2D"),
            PARENT => Some("Parent"),
            WORLD_TRANSFORM => Some("WorldTransform"),
            _ => None,
        }
    }
}

/// One scene section: `count` entries of one component type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneSection<'a> {
    /// Component type id (see [`scene_component`]).
    pub type_id: u32,
    /// Number of entries.
    pub count: u32,
    /// Component bytes per entry (without the entity id).
    pub component_size: usize,
    /// Offset of the section header inside the payload.
    pub offset: usize,
    /// The `count` entries, each a u32 entity id followed by the component bytes.
    pub data: &'a [u8],
}

/// One entry of a [`SceneSection`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneEntry<'a> {
    /// Entity id.
    pub entity: u32,
    /// Raw component bytes.
    pub component: &'a [u8],
}

impl<'a> SceneSection<'a> {
    /// The entries in stored order.
    pub fn entries(&self) -> impl Iterator<Item = SceneEntry<'a>> + 'a {
        let data: &'a [u8] = self.data;
        data.chunks_exact(self.component_size.saturating_add(4))
            .filter_map(|e| {
                // Each entry is `component_size + 4` bytes: the split always succeeds.
                let (entity, component) = U32::read_from_prefix(e).ok()?;
                Some(SceneEntry {
                    entity: entity.get(),
                    component,
                })
            })
    }
}

/// A scene: metadata plus the component sections of the payload.
#[derive(Clone, Debug)]
pub struct SceneView<'a> {
    /// The metadata.
    pub meta: SceneMetadata,
    /// Design-style archetype descriptors following the metadata (empty for the original's
    /// runtime writer).
    pub archetypes: Vec<ArchetypeDesc>,
    sections: Vec<SceneSection<'a>>,
}

impl<'a> SceneView<'a> {
    /// Check a scene asset whose sections use the original's component types.
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        SceneView::from_asset_with(a, scene_component::size)
    }

    /// Check a scene asset, with `component_size` giving the byte size of each type id (entries
    /// carry no length, so an unknown type cannot be skipped and is an error).
    pub fn from_asset_with(
        a: &Asset<'a>,
        component_size: impl Fn(u32) -> Option<usize>,
    ) -> Result<Self, CafError> {
        let ty = AssetType::SCENE;
        expect_type(a, ty)?;
        let head = a
            .metadata
            .get(..SceneMetadata::SIZE)
            .ok_or(CafError::MetadataSize {
                ty,
                expected: SceneMetadata::SIZE as u64,
                actual: a.metadata.len() as u64,
            })?;
        let meta = SceneMetadata::from_bytes(head)?;
        let mut archetypes = Vec::new();
        if a.metadata.len() != SceneMetadata::SIZE {
            let expected = SceneMetadata::SIZE as u64
                + u64::from(meta.archetype_count) * ArchetypeDesc::SIZE as u64;
            if a.metadata.len() as u64 != expected {
                return Err(CafError::MetadataSize {
                    ty,
                    expected,
                    actual: a.metadata.len() as u64,
                });
            }
            for d in a.metadata[SceneMetadata::SIZE..].chunks_exact(ArchetypeDesc::SIZE) {
                archetypes.push(ArchetypeDesc::from_bytes(d)?);
            }
        }
        for (field, off) in [
            ("string_table_offset", meta.string_table_offset),
            ("asset_ref_table_offset", meta.asset_ref_table_offset),
        ] {
            if off as usize > a.metadata.len() {
                return Err(CafError::BadMetadata {
                    ty,
                    field,
                    value: off.into(),
                    reason: "points past the end of the metadata",
                });
            }
        }
        let mut c = Cursor {
            data: a.payload,
            pos: 0,
            ty,
        };
        let mut sections = Vec::new();
        while !c.at_end() {
            let offset = c.pos;
            let type_id = c.u32("section type id")?;
            let count = c.u32("section count")?;
            // An entry is a u32 entity id plus the component; the size must leave room for it.
            let size = component_size(type_id)
                .filter(|s| s.checked_add(4).is_some())
                .ok_or_else(|| CafError::Malformed {
                    ty,
                    offset: offset as u64,
                    what: format!("section of unknown component type {type_id}"),
                })?;
            let n = u64::from(count).saturating_mul((size as u64).saturating_add(4));
            let data = c.bytes(n, &format!("section of {count} type-{type_id} entries"))?;
            sections.push(SceneSection {
                type_id,
                count,
                component_size: size,
                offset,
                data,
            });
        }
        if archetypes.is_empty() && sections.len() as u64 != u64::from(meta.archetype_count) {
            return Err(CafError::Malformed {
                ty,
                offset: a.payload.len() as u64,
                what: format!(
                    "{} sections, but the metadata's archetype_count is {}",
                    sections.len(),
                    meta.archetype_count
                ),
            });
        }
        Ok(SceneView {
            meta,
            archetypes,
            sections,
        })
    }

    /// The sections in stored order.
    pub fn sections(&self) -> impl Iterator<Item = &SceneSection<'a>> + '_ {
        self.sections.iter()
    }

    /// Number of sections.
    pub fn section_count(&self) -> usize {
        self.sections.len()
    }
}

/// Prefab component type ids written by the original's prefab serializer.
pub mod prefab_component {
    /// Position3D: 3 × f32.
    pub const POSITION_3D: u32 = 15;
    /// Rotation3D: quaternion 4 × f32.
    pub const ROTATION_3D: u32 = 16;
    /// Scale3D: 3 × f32.
    pub const SCALE_3D: u32 = 17;
}

/// One component of a prefab entity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrefabComponent<'a> {
    /// Component type id (see [`prefab_component`]).
    pub type_id: u32,
    /// Raw component bytes.
    pub data: &'a [u8],
}

/// One prefab entity.
#[derive(Clone, Debug, PartialEq)]
pub struct PrefabEntity<'a> {
    /// Name bytes (no terminator; UTF-8 in practice, see [`PrefabEntity::name_str`]).
    pub name: &'a [u8],
    /// Components in stored order.
    pub components: Vec<PrefabComponent<'a>>,
    /// Child entity ids.
    pub children: Vec<u32>,
}

impl PrefabEntity<'_> {
    /// The name as text, when it is valid UTF-8.
    pub fn name_str(&self) -> Option<&str> {
        std::str::from_utf8(self.name).ok()
    }
}

/// A prefab: no metadata, a payload of entities.
#[derive(Clone, Debug)]
pub struct PrefabView<'a> {
    entities: Vec<PrefabEntity<'a>>,
}

impl<'a> PrefabView<'a> {
    /// Check and parse a prefab asset (the whole payload must be consumed).
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::PREFAB;
        expect_type(a, ty)?;
        if !a.metadata.is_empty() {
            return Err(CafError::MetadataSize {
                ty,
                expected: 0,
                actual: a.metadata.len() as u64,
            });
        }
        let mut c = Cursor {
            data: a.payload,
            pos: 0,
            ty,
        };
        let count = c.u32("entity count")?;
        let mut entities = Vec::new();
        for e in 0..count {
            let name_len = c.u32(&format!("entity {e} name length"))?;
            let name = c.bytes(name_len.into(), &format!("entity {e} name"))?;
            let ncomp = c.u32(&format!("entity {e} component count"))?;
            let mut components = Vec::new();
            for k in 0..ncomp {
                let type_id = c.u32(&format!("entity {e} component {k} type"))?;
                let size = c.u32(&format!("entity {e} component {k} size"))?;
                let data = c.bytes(size.into(), &format!("entity {e} component {k} data"))?;
                components.push(PrefabComponent { type_id, data });
            }
            let nchild = c.u32(&format!("entity {e} child count"))?;
            let ids = c.bytes(u64::from(nchild) * 4, &format!("entity {e} child ids"))?;
            let children = <[U32]>::ref_from_bytes(ids)
                .map(|v| v.iter().map(|c| c.get()).collect())
                .unwrap_or_default();
            entities.push(PrefabEntity {
                name,
                components,
                children,
            });
        }
        if !c.at_end() {
            return Err(c.err(format!(
                "{} bytes after the last entity",
                a.payload.len() - c.pos
            )));
        }
        Ok(PrefabView { entities })
    }

    /// The entities in stored order.
    pub fn entities(&self) -> impl Iterator<Item = &PrefabEntity<'a>> + '_ {
        self.entities.iter()
    }

    /// Number of entities.
    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }
}
