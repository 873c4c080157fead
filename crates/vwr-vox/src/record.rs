//! What a voxcaf export records in the `.vox` so that the import needs no table: the block
//! value of each palette index, the world's chunk dimensions and its header fields. They are
//! attributes of the root transform node (`_vwr_blocks`, `_vwr_dims`, `_vwr_sky`,
//! `_vwr_mission`, `_vwr_spawn`), which MagicaVoxel and `dot_vox` carry as a dictionary.

use dot_vox::{DotVoxData, SceneNode};
use vwr::{Block, World};

use crate::error::{Result, VoxError};
use crate::palette::PaletteMap;

pub(crate) const KEY_BLOCKS: &str = "_vwr_blocks";
pub(crate) const KEY_DIMS: &str = "_vwr_dims";
pub(crate) const KEY_SKY: &str = "_vwr_sky";
pub(crate) const KEY_MISSION: &str = "_vwr_mission";
pub(crate) const KEY_SPAWN: &str = "_vwr_spawn";

#[derive(Default)]
pub(crate) struct Recorded {
    pub(crate) blocks: PaletteMap,
    pub(crate) dims: Option<[u32; 3]>,
    sky: Option<u32>,
    mission: Option<u32>,
    spawn: Option<[i32; 3]>,
}

fn three<T: std::str::FromStr>(s: &str) -> Option<[T; 3]> {
    let mut it = s.split_whitespace().map(|p| p.parse::<T>());
    let out = [it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?];
    it.next().is_none().then_some(out)
}

impl Recorded {
    pub(crate) fn read(data: &DotVoxData) -> Result<Recorded> {
        let mut r = Recorded::default();
        let Some(SceneNode::Transform { attributes, .. }) = data.scenes.first() else {
            return Ok(r);
        };
        let bad = |what: &'static str, value: &str| VoxError::BadRecord {
            what,
            value: value.chars().take(80).collect(),
        };
        if let Some(text) = attributes.get(KEY_BLOCKS) {
            for item in text.split_whitespace() {
                let parsed = item.split_once('=').and_then(|(i, b)| {
                    let (t, m) = b.split_once(':')?;
                    Some((
                        i.parse::<u8>().ok()?,
                        t.parse::<u16>().ok()?,
                        m.parse().ok()?,
                    ))
                });
                let (i, t, m) = parsed.ok_or_else(|| bad(KEY_BLOCKS, item))?;
                let block = Block::make(t, m).map_err(|_| bad(KEY_BLOCKS, item))?;
                r.blocks
                    .insert(i, block)
                    .map_err(|_| bad(KEY_BLOCKS, item))?;
            }
        }
        if let Some(text) = attributes.get(KEY_DIMS) {
            let d = three::<u32>(text)
                .filter(|d| d.iter().all(|&c| (1..=65_535).contains(&c)))
                .ok_or_else(|| bad(KEY_DIMS, text))?;
            r.dims = Some(d);
        }
        if let Some(text) = attributes.get(KEY_SKY) {
            r.sky = Some(text.parse().map_err(|_| bad(KEY_SKY, text))?);
        }
        if let Some(text) = attributes.get(KEY_MISSION) {
            r.mission = Some(text.parse().map_err(|_| bad(KEY_MISSION, text))?);
        }
        if let Some(text) = attributes.get(KEY_SPAWN) {
            r.spawn = Some(three::<i32>(text).ok_or_else(|| bad(KEY_SPAWN, text))?);
        }
        Ok(r)
    }

    /// Restores the header fields on the world the recorded dimensions made.
    pub(crate) fn apply_fields(&self, world: &mut World) -> Result<()> {
        if let Some(s) = self.sky {
            world.set_sky_region(s);
        }
        if let Some(m) = self.mission {
            world.set_mission_number(m);
        }
        if let Some(p) = self.spawn {
            world.set_spawn(p)?;
        }
        Ok(())
    }

    /// The attributes recording `world` with the palette `blocks`.
    pub(crate) fn attributes(world: &World, blocks: &PaletteMap) -> dot_vox::Dict {
        let mut d = dot_vox::Dict::new();
        let list: Vec<String> = blocks
            .iter()
            .map(|(i, b)| format!("{i}={}:{}", b.block_type(), b.metadata()))
            .collect();
        d.insert(KEY_BLOCKS.into(), list.join(" "));
        let [x, y, z] = world.chunk_dims();
        d.insert(KEY_DIMS.into(), format!("{x} {y} {z}"));
        d.insert(KEY_SKY.into(), world.sky_region().to_string());
        d.insert(KEY_MISSION.into(), world.mission_number().to_string());
        if let Some([x, y, z]) = world.spawn() {
            d.insert(KEY_SPAWN.into(), format!("{x} {y} {z}"));
        }
        d
    }
}
