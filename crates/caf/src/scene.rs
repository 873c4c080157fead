//! Scene assets (CAF.md section 4.5): the metadata, the archetype descriptor of the design,
//! and the view over the payload's component sections, read through a bounds-checked cursor.

use zerocopy::little_endian::U32;
use zerocopy::FromBytes;

use crate::container::header::AssetType;
use crate::container::layout::layout;
use crate::container::load::Asset;
use crate::container::metadata::codec;
use crate::container::view::expect_type;
use crate::error::CafError;

layout! {
    /// Scene metadata (20 bytes; in the design followed by `archetype_count` [`ArchetypeDesc`]s,
    /// which the original's runtime writer never emits).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct SceneMetadata (RawSceneMetadata, 20 bytes) {
        /// Entities in the saved world.
        pub entity_count: u32,
        /// The original writes the number of payload sections here.
        pub archetype_count: u32,
        /// Relative to the metadata start; 0 = none.
        pub string_table_offset: u32,
        /// Relative to the metadata start; 0 = none.
        pub asset_ref_table_offset: u32,
        /// Reserved, 0.
        pub reserved: u32,
    }
}
codec!(SceneMetadata, RawSceneMetadata, AssetType::SCENE);

layout! {
    /// One archetype descriptor of the scene design (12 bytes).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct ArchetypeDesc (RawArchetypeDesc, 12 bytes) {
        /// Bit set of component types.
        pub component_mask: u32,
        /// Entities in this archetype.
        pub entity_count: u32,
        /// Offset into the payload.
        pub data_offset: u32,
    }
}
codec!(ArchetypeDesc, RawArchetypeDesc, AssetType::SCENE);

/// Bounds-checked little-endian reader over a payload.
pub(crate) struct Cursor<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) ty: AssetType,
}

impl<'a> Cursor<'a> {
    pub(crate) fn err(&self, what: String) -> CafError {
        CafError::Malformed {
            ty: self.ty,
            offset: self.pos as u64,
            what,
        }
    }
    pub(crate) fn bytes(&mut self, n: u64, what: &str) -> Result<&'a [u8], CafError> {
        let left = (self.data.len() - self.pos) as u64;
        if n > left {
            return Err(self.err(format!("{what} needs {n} bytes, only {left} left")));
        }
        let s = &self.data[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }
    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, CafError> {
        let b = self.bytes(4, what)?;
        // `bytes` returned exactly 4 bytes, so the cast cannot fail; the fallback keeps the
        // path free of panics.
        Ok(U32::read_from_bytes(b).map_or(0, U32::get))
    }
    pub(crate) fn at_end(&self) -> bool {
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
