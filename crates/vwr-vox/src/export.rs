//! World → `.vox`.

use std::collections::{BTreeMap, BTreeSet};

use dot_vox::{Color, DotVoxData, Frame, Layer, Model, SceneNode, ShapeModel, Size, Voxel};
use vwr::{Block, World};

use crate::error::{Result, VoxError};
use crate::palette::PaletteMap;
use crate::record::Recorded;
use crate::warning::VoxWarning;

/// Largest model edge MagicaVoxel accepts.
pub const MAX_MODEL_SIZE: u32 = 256;

/// Options of [`export`].
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// Block values to palette indices; values it does not name take free indices.
    pub palette: Option<PaletteMap>,
}

/// The result of [`export`].
#[derive(Debug)]
pub struct Exported {
    /// The `.vox` file.
    pub bytes: Vec<u8>,
    /// What was not carried over.
    pub warnings: Vec<VoxWarning>,
    /// Models written (one per non-empty 256³ tile).
    pub models: usize,
    /// Voxels written.
    pub voxels: u64,
    /// Palette index of each block value.
    pub mapping: PaletteMap,
}

/// Writes the world's blocks as a MagicaVoxel scene.
///
/// Each distinct non-air block value (type and metadata) takes one palette index coloured
/// with its registry colour; at most 255 fit ([`VoxError::TooManyBlockValues`]). The mapping,
/// the world's dimensions and header fields are recorded in the file, so [`crate::import`]
/// rebuilds the same blocks without a table. Parts of the world beyond 256 cells on an axis
/// become several models, each with its translation. Metadata records (MoveObjects, BigDecor,
/// plate rotations, ...) have no `.vox` form: each type is reported in
/// [`Exported::warnings`].
pub fn export(world: &World, options: &ExportOptions) -> Result<Exported> {
    let mut values = BTreeSet::new();
    world.for_each_non_air(|_, b| {
        values.insert(b);
    });
    if values.len() > 255 {
        return Err(VoxError::TooManyBlockValues {
            count: values.len(),
        });
    }
    let mapping = block_mapping(&values, options)?;
    let palette = vox_palette(&mapping);

    // Y-up world cell (x, y, z) -> Z-up .vox (x, zmax - z, y), grouped in 256³ tiles.
    let zmax = world.block_dims()[2] as i64 - 1;
    let mut tiles: BTreeMap<[i64; 3], Tile> = BTreeMap::new();
    let edge = i64::from(MAX_MODEL_SIZE);
    world.for_each_non_air(|p, b| {
        let v = [p[0] as i64, zmax - p[2] as i64, p[1] as i64];
        let tile = v.map(|c| c.div_euclid(edge));
        let local = [0, 1, 2].map(|k| (v[k] - tile[k] * edge) as u8);
        // Every value present was given an index above.
        let i = mapping.index(b).unwrap_or(1);
        tiles.entry(tile).or_default().push((local, i - 1));
    });

    let (models, placements, voxels) = tile_models(&tiles);

    let mut scenes = vec![
        SceneNode::Transform {
            attributes: Recorded::attributes(world, &mapping),
            frames: vec![Frame::new(dot_vox::Dict::new())],
            child: 1,
            layer_id: u32::MAX,
        },
        SceneNode::Group {
            attributes: dot_vox::Dict::new(),
            children: (0..models.len() as u32).map(|m| 2 + 2 * m).collect(),
        },
    ];
    for (m, t) in placements.iter().enumerate() {
        let mut frame = dot_vox::Dict::new();
        frame.insert("_t".into(), format!("{} {} {}", t[0], t[1], t[2]));
        scenes.push(SceneNode::Transform {
            attributes: dot_vox::Dict::new(),
            frames: vec![Frame::new(frame)],
            child: 3 + 2 * m as u32,
            layer_id: 0,
        });
        scenes.push(SceneNode::Shape {
            attributes: dot_vox::Dict::new(),
            models: vec![ShapeModel {
                model_id: m as u32,
                attributes: dot_vox::Dict::new(),
            }],
        });
    }
    let mut layer = dot_vox::Dict::new();
    layer.insert("_name".into(), "world".into());

    let model_count = if tiles.is_empty() { 0 } else { models.len() };
    let data = DotVoxData {
        version: 150,
        index_map: dot_vox::DEFAULT_INDEX_MAP.to_vec(),
        models,
        palette,
        materials: Vec::new(),
        scenes,
        layers: vec![Layer { attributes: layer }],
    };
    let mut bytes = Vec::new();
    data.write_vox(&mut bytes).map_err(vwr::VwrError::Write)?;

    let mut warnings = Vec::new();
    let mut records: BTreeMap<u16, usize> = BTreeMap::new();
    for (_, rec) in world.all_extra_metadata() {
        *records.entry(rec.record_type).or_default() += 1;
    }
    for (record_type, count) in records {
        warnings.push(VoxWarning::RecordsDropped {
            record_type,
            name: vwr::record_type_name(record_type).unwrap_or("unknown"),
            count,
        });
    }
    Ok(Exported {
        bytes,
        warnings,
        models: model_count,
        voxels,
        mapping,
    })
}

/// The block values of a world, for callers that want to check [`export`]'s limit first.
pub fn distinct_block_values(world: &World) -> BTreeSet<Block> {
    let mut values = BTreeSet::new();
    world.for_each_non_air(|_, b| {
        values.insert(b);
    });
    values
}

/// The palette index of every block value in `values`: the indices `options` names first, then
/// free ones in value order.
fn block_mapping(values: &BTreeSet<Block>, options: &ExportOptions) -> Result<PaletteMap> {
    let mut mapping = PaletteMap::new();
    if let Some(m) = &options.palette {
        for (i, b) in m.iter() {
            if values.contains(&b) {
                mapping.insert(i, b)?;
            }
        }
    }
    let taken: BTreeSet<u8> = mapping.iter().map(|(i, _)| i).collect();
    let mut free = (1..=255u8).filter(|i| !taken.contains(i));
    for &b in values {
        if mapping.index(b).is_none() {
            // 255 indices, at most 255 values, and mapped values took their own: one is free.
            let i = free.next().ok_or(VoxError::TooManyBlockValues {
                count: values.len(),
            })?;
            mapping.insert(i, b)?;
        }
    }
    Ok(mapping)
}

/// The `.vox` palette: entry k holds the registry colour of stored index k + 1; unused entries
/// keep MagicaVoxel's defaults so the file looks familiar in the editor.
fn vox_palette(mapping: &PaletteMap) -> Vec<Color> {
    let registry = vwr_blocks::default_registry();
    let mut palette: Vec<Color> = dot_vox::DEFAULT_PALETTE.to_vec();
    palette.resize(
        256,
        Color {
            r: 0,
            g: 0,
            b: 0,
            a: 255,
        },
    );
    for (i, b) in mapping.iter() {
        let [r, g, bl, _] = registry.color(b.block_type());
        palette[usize::from(i) - 1] = Color {
            r,
            g,
            b: bl,
            a: 255,
        };
    }
    palette
}

/// A `.vox` tile's voxels: local position and stored palette index.
type Tile = Vec<([u8; 3], u8)>;

/// One model per tile, cut to its voxels' bounds, with the translation that places it; an
/// empty 1³ model when there is no tile. Returns the models, their translations and the number
/// of voxels.
fn tile_models(tiles: &BTreeMap<[i64; 3], Tile>) -> (Vec<Model>, Vec<[i64; 3]>, u64) {
    let edge = i64::from(MAX_MODEL_SIZE);
    let mut models = Vec::with_capacity(tiles.len().max(1));
    let mut placements = Vec::with_capacity(tiles.len().max(1));
    let mut voxels = 0u64;
    for (tile, cells) in tiles {
        let mut lo = [u8::MAX; 3];
        let mut hi = [0u8; 3];
        for (c, _) in cells {
            for k in 0..3 {
                lo[k] = lo[k].min(c[k]);
                hi[k] = hi[k].max(c[k]);
            }
        }
        let size = [0, 1, 2].map(|k| u32::from(hi[k] - lo[k]) + 1);
        voxels += cells.len() as u64;
        models.push(Model {
            size: Size {
                x: size[0],
                y: size[1],
                z: size[2],
            },
            voxels: cells
                .iter()
                .map(|&(c, i)| Voxel {
                    x: c[0] - lo[0],
                    y: c[1] - lo[1],
                    z: c[2] - lo[2],
                    i,
                })
                .collect(),
        });
        // MagicaVoxel centres a model on its translation: voxel v sits at t + v - size / 2.
        placements
            .push([0, 1, 2].map(|k| tile[k] * edge + i64::from(lo[k]) + i64::from(size[k] / 2)));
    }
    if models.is_empty() {
        // MagicaVoxel wants at least one model: an empty 1³ one.
        models.push(Model {
            size: Size { x: 1, y: 1, z: 1 },
            voxels: Vec::new(),
        });
        placements.push([0, 0, 0]);
    }
    (models, placements, voxels)
}
