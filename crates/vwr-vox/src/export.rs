//! World → `.vox`.

use std::collections::{BTreeMap, BTreeSet};

use dot_vox::{Color, DotVoxData, Frame, Layer, Model, SceneNode, ShapeModel, Size, Voxel};
use vwr::{Block, World};

use crate::error::Result;
use crate::palette::PaletteMap;
use crate::record::Recorded;
use crate::vcaf::{KeptPalette, KeptRecord, ModelValues, Vcaf, VOX_PALETTE_RECORD};
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
    /// Palette index of each block value that has its own (values folded onto another's colour
    /// are not in it).
    pub mapping: PaletteMap,
}

/// Writes the world's blocks as a MagicaVoxel scene.
///
/// Each distinct non-air block value (type and metadata) takes one palette index coloured
/// with its registry colour (or, for a world imported from a `.vox`, the colour index and colour
/// it had there: the palette is kept). Beyond 255 values, the rarest are folded to the index of
/// nearest colour ([`VoxWarning::ValuesFolded`]) and every voxel's exact value is written to the
/// file's `VCAF` chunk, which MagicaVoxel skips. The mapping, the world's dimensions and header
/// fields are recorded in the file, and metadata records (MoveObjects, BigDecor, plate
/// rotations, ...), which MagicaVoxel cannot show ([`VoxWarning::RecordsHidden`]), go to the
/// `VCAF` chunk, so [`crate::import`] rebuilds the same world. Parts of the world beyond 256
/// cells on an axis become several models, each with its translation.
pub fn export(world: &World, options: &ExportOptions) -> Result<Exported> {
    let mut counts: BTreeMap<Block, u64> = BTreeMap::new();
    world.for_each_non_air(|_, b| {
        *counts.entry(b).or_default() += 1;
    });
    let kept = KeptPalette::read(world)?;
    let mapping = block_mapping(&counts, options, kept.as_ref())?;
    let palette = vox_palette(&mapping, kept.as_ref());
    let folded = fold(&counts, &mapping, &palette);

    // Y-up world cell (x, y, z) -> Z-up .vox (x, zmax - z, y), grouped in 256³ tiles.
    let zmax = world.block_dims()[2] as i64 - 1;
    let mut tiles: BTreeMap<[i64; 3], Tile> = BTreeMap::new();
    let edge = i64::from(MAX_MODEL_SIZE);
    world.for_each_non_air(|p, b| {
        let v = [p[0] as i64, zmax - p[2] as i64, p[1] as i64];
        let tile = v.map(|c| c.div_euclid(edge));
        let local = [0, 1, 2].map(|k| (v[k] - tile[k] * edge) as u8);
        // Every value present was given an index or folded onto one above.
        let i = mapping
            .index(b)
            .or_else(|| folded.get(&b).copied())
            .unwrap_or(1);
        tiles.entry(tile).or_default().push((local, i - 1, b.raw()));
    });

    let (models, exact, placements, voxels) = tile_models(&tiles);
    let model_count = models.len();
    let data = DotVoxData {
        version: 150,
        index_map: dot_vox::DEFAULT_INDEX_MAP.to_vec(),
        materials: Vec::new(),
        scenes: scene(world, &mapping, &placements),
        layers: vec![world_layer()],
        palette,
        models,
    };
    let mut bytes = Vec::new();
    data.write_vox(&mut bytes).map_err(vwr::VwrError::Write)?;

    let mut warnings = Vec::new();
    if !folded.is_empty() {
        warnings.push(VoxWarning::ValuesFolded {
            distinct: counts.len(),
            folded: folded.len(),
            voxels: folded.keys().map(|b| counts[b]).sum(),
        });
    }
    let vcaf = Vcaf {
        blocks: if folded.is_empty() {
            None
        } else {
            Some(exact_values(&bytes, exact)?)
        },
        records: kept_records(world, &mut warnings),
    };
    if vcaf.blocks.is_some() || !vcaf.records.is_empty() {
        vcaf.append_to(&mut bytes)?;
    }
    Ok(Exported {
        bytes,
        warnings,
        models: if tiles.is_empty() { 0 } else { model_count },
        voxels,
        mapping,
    })
}

/// The scene graph: a root transform recording the world, a group, and per model a transform
/// (its translation) and a shape.
fn scene(world: &World, mapping: &PaletteMap, placements: &[[i64; 3]]) -> Vec<SceneNode> {
    let mut scenes = vec![
        SceneNode::Transform {
            attributes: Recorded::attributes(world, mapping),
            frames: vec![Frame::new(dot_vox::Dict::new())],
            child: 1,
            layer_id: u32::MAX,
        },
        SceneNode::Group {
            attributes: dot_vox::Dict::new(),
            children: (0..placements.len() as u32).map(|m| 2 + 2 * m).collect(),
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
    scenes
}

fn world_layer() -> Layer {
    let mut layer = dot_vox::Dict::new();
    layer.insert("_name".into(), "world".into());
    Layer { attributes: layer }
}

/// Each model's exact voxel values with the hash of its `XYZI` chunk as written.
fn exact_values(file: &[u8], models: Vec<Vec<u16>>) -> Result<Vec<ModelValues>> {
    let layout = crate::chunks::check(file)?;
    Ok(layout
        .xyzi
        .iter()
        .zip(models)
        .map(|(chunk, values)| ModelValues {
            hash: crate::chunks::fnv1a(chunk),
            values,
        })
        .collect())
}

/// The world's metadata records for the `VCAF` chunk; each type but the kept palette is
/// reported, since MagicaVoxel cannot show it.
fn kept_records(world: &World, warnings: &mut Vec<VoxWarning>) -> Vec<KeptRecord> {
    let mut out = Vec::new();
    let mut by_type: BTreeMap<u16, usize> = BTreeMap::new();
    for (pos, rec) in world.all_extra_metadata() {
        if rec.record_type != VOX_PALETTE_RECORD {
            *by_type.entry(rec.record_type).or_default() += 1;
        }
        out.push(KeptRecord {
            pos,
            record_type: rec.record_type,
            payload: rec.payload.clone(),
        });
    }
    for (record_type, count) in by_type {
        warnings.push(VoxWarning::RecordsHidden {
            record_type,
            name: vwr::record_type_name(record_type).unwrap_or("unknown"),
            count,
        });
    }
    out
}

/// The block values of a world (each takes a palette index, up to 255; [`export`] folds the
/// rest).
pub fn distinct_block_values(world: &World) -> BTreeSet<Block> {
    let mut values = BTreeSet::new();
    world.for_each_non_air(|_, b| {
        values.insert(b);
    });
    values
}

/// The palette index of the block values: the indices `options` names first, then those of a
/// kept `.vox` palette, then free ones, most frequent values first, while indices last.
fn block_mapping(
    counts: &BTreeMap<Block, u64>,
    options: &ExportOptions,
    kept: Option<&KeptPalette>,
) -> Result<PaletteMap> {
    let mut mapping = PaletteMap::new();
    if let Some(m) = &options.palette {
        for (i, b) in m.iter() {
            if counts.contains_key(&b) {
                mapping.insert(i, b)?;
            }
        }
    }
    for &(i, b) in kept.map_or(&[][..], |k| &k.mapping[..]) {
        if counts.contains_key(&b) && mapping.index(b).is_none() && mapping.block(i).is_none() {
            mapping.insert(i, b)?;
        }
    }
    // Indices a kept palette names stay with their colours while others are free.
    let kept_indices: BTreeSet<u8> = kept
        .map(|k| k.mapping.iter().map(|(i, _)| *i).collect())
        .unwrap_or_default();
    let taken: BTreeSet<u8> = mapping.iter().map(|(i, _)| i).collect();
    let (fresh, reused): (Vec<u8>, Vec<u8>) = (1..=255u8)
        .filter(|i| !taken.contains(i))
        .partition(|i| !kept_indices.contains(i));
    let mut free = fresh.into_iter().chain(reused);
    let mut by_count: Vec<(&Block, &u64)> = counts.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (&b, _) in by_count {
        if mapping.index(b).is_none() {
            let Some(i) = free.next() else { break };
            mapping.insert(i, b)?;
        }
    }
    Ok(mapping)
}

/// The values without an index, each with the index of nearest colour (squared RGB distance
/// between its registry colour and the palette's, lowest index on ties).
fn fold(
    counts: &BTreeMap<Block, u64>,
    mapping: &PaletteMap,
    palette: &[Color],
) -> BTreeMap<Block, u8> {
    let registry = vwr_blocks::default_registry();
    let entries: Vec<(u8, [i32; 3])> = mapping
        .iter()
        .map(|(i, _)| {
            let c = palette[usize::from(i) - 1];
            (i, [c.r, c.g, c.b].map(i32::from))
        })
        .collect();
    counts
        .keys()
        .filter(|b| mapping.index(**b).is_none())
        .map(|&b| {
            let c = registry.color(b.block_type());
            let rgb = [c[0], c[1], c[2]].map(i32::from);
            let d = |e: &[i32; 3]| (0..3).map(|k| (e[k] - rgb[k]).pow(2)).sum::<i32>();
            let i = entries
                .iter()
                .min_by_key(|(i, e)| (d(e), *i))
                .map_or(1, |(i, _)| *i);
            (b, i)
        })
        .collect()
}

/// The `.vox` palette: entry k holds the colour of stored index k + 1: the kept `.vox`
/// palette's where it maps that index to the same value, else the registry colour; unused
/// entries keep the kept palette, or MagicaVoxel's defaults so the file looks familiar in the
/// editor.
fn vox_palette(mapping: &PaletteMap, kept: Option<&KeptPalette>) -> Vec<Color> {
    let registry = vwr_blocks::default_registry();
    let mut palette: Vec<Color> = match kept {
        Some(k) => k
            .rgba
            .iter()
            .map(|&[r, g, b, a]| Color { r, g, b, a })
            .collect(),
        None => dot_vox::DEFAULT_PALETTE.to_vec(),
    };
    palette.resize(
        256,
        Color {
            r: 0,
            g: 0,
            b: 0,
            a: 255,
        },
    );
    let kept_map: BTreeSet<(u8, Block)> = kept
        .map(|k| k.mapping.iter().copied().collect())
        .unwrap_or_default();
    for (i, b) in mapping.iter() {
        if kept_map.contains(&(i, b)) {
            continue;
        }
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

/// The models, the exact values of each model's voxels, their translations and the voxels.
type TileModels = (Vec<Model>, Vec<Vec<u16>>, Vec<[i64; 3]>, u64);

/// A `.vox` tile's voxels: local position, palette index (0-based) and exact block value.
type Tile = Vec<([u8; 3], u8, u16)>;

/// One model per tile, cut to its voxels' bounds, with the translation that places it; an
/// empty 1³ model when there is no tile. Returns the models with the exact values of their
/// voxels, their translations and the number of voxels.
fn tile_models(tiles: &BTreeMap<[i64; 3], Tile>) -> TileModels {
    let edge = i64::from(MAX_MODEL_SIZE);
    let mut models = Vec::with_capacity(tiles.len().max(1));
    let mut exact = Vec::with_capacity(tiles.len().max(1));
    let mut placements = Vec::with_capacity(tiles.len().max(1));
    let mut voxels = 0u64;
    for (tile, cells) in tiles {
        let mut lo = [u8::MAX; 3];
        let mut hi = [0u8; 3];
        for (c, _, _) in cells {
            for k in 0..3 {
                lo[k] = lo[k].min(c[k]);
                hi[k] = hi[k].max(c[k]);
            }
        }
        let size = [0, 1, 2].map(|k| u32::from(hi[k] - lo[k]) + 1);
        voxels += cells.len() as u64;
        let model = Model {
            size: Size {
                x: size[0],
                y: size[1],
                z: size[2],
            },
            voxels: cells
                .iter()
                .map(|&(c, i, _)| Voxel {
                    x: c[0] - lo[0],
                    y: c[1] - lo[1],
                    z: c[2] - lo[2],
                    i,
                })
                .collect(),
        };
        models.push(model);
        exact.push(cells.iter().map(|&(_, _, raw)| raw).collect());
        // MagicaVoxel centres a model on its translation: voxel v sits at t + v - size / 2.
        placements
            .push([0, 1, 2].map(|k| tile[k] * edge + i64::from(lo[k]) + i64::from(size[k] / 2)));
    }
    if models.is_empty() {
        // MagicaVoxel wants at least one model: an empty 1³ one.
        let empty = Model {
            size: Size { x: 1, y: 1, z: 1 },
            voxels: Vec::new(),
        };
        models.push(empty);
        exact.push(Vec::new());
        placements.push([0, 0, 0]);
    }
    (models, exact, placements, voxels)
}
