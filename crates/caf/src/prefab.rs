//! Prefab assets: no metadata, a payload of entities with their components and children, read
//! through the scene's bounds-checked cursor.

use zerocopy::little_endian::U32;
use zerocopy::FromBytes;

use crate::container::header::AssetType;
use crate::container::load::Asset;
use crate::container::view::expect_type;
use crate::error::CafError;
use crate::scene::Cursor;

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
