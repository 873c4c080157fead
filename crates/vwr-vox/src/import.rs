//! `.vox` → world.

use dot_vox::DotVoxData;
use vwr::{Block, World, CHUNK_SIZE};
use vwr_blocks::Registry;

use crate::chunks::{fnv1a, Layout};
use crate::error::{Result, VoxError};
use crate::palette::{NearestColour, PaletteMap};
use crate::record::Recorded;
use crate::scene::{instances, Instance};
use crate::vcaf::{KeptPalette, ModelValues, Vcaf, VOX_PALETTE_RECORD};
use crate::warning::VoxWarning;

/// How big a world an import makes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WorldSize {
    /// The smallest cubic world (`n³` chunks) that holds the scene: what the v2 format saves.
    #[default]
    Cubic,
    /// The smallest world per axis (non-cubic; saves as v3).
    Tight,
    /// Exactly these chunk dimensions; a model that does not fit is an error.
    Chunks([u32; 3]),
}

/// Options of [`import`].
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Palette indices to block values; indices it does not name map to the nearest registry
    /// colour (with a warning).
    pub palette: Option<PaletteMap>,
    /// Where the scene's lowest corner lands (block coordinates). `None`: at `[0, 0, 0]`, or
    /// where it was when the file was exported by voxcaf (recorded in the file).
    pub origin: Option<[i32; 3]>,
    /// The world size.
    pub size: WorldSize,
    /// Largest world allowed, in blocks per axis (the scene, or a size recorded in the file,
    /// beyond it is an error, not an allocation).
    pub max_blocks_per_axis: u32,
    /// The animation frame to import (0, the first, by default): in a scene graph the keyframe
    /// in effect at this frame (`_f`) of each animated node; in a file without a scene graph
    /// whose models are frames (older MagicaVoxel), that model.
    pub frame: u32,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            palette: None,
            origin: None,
            size: WorldSize::Cubic,
            max_blocks_per_axis: 255 * CHUNK_SIZE as u32,
            frame: 0,
        }
    }
}

/// The result of [`import`].
#[derive(Debug)]
pub struct Imported {
    /// The world.
    pub world: World,
    /// What was not carried over.
    pub warnings: Vec<VoxWarning>,
    /// Models placed.
    pub models: usize,
    /// Voxels placed (overlapping voxels count once per model).
    pub voxels: u64,
}

/// Reads a MagicaVoxel `.vox` file into a new world.
///
/// Every model of the scene graph is placed (translations and 90° rotations applied; the
/// first animation frame; hidden nodes left out with a warning). MagicaVoxel is Z-up, worlds
/// are Y-up: `.vox` `(x, y, z)` becomes block `(x, z, -y)`, then the scene is moved so that
/// its lowest corner lands on the origin. Colours map to blocks through
/// [`ImportOptions::palette`], else through the mapping a voxcaf export recorded, else to
/// the registry type of nearest colour.
pub fn import(bytes: &[u8], options: &ImportOptions) -> Result<Imported> {
    let layout = crate::chunks::check(bytes)?;
    let vcaf = match layout.vcaf {
        Some((offset, content)) => Vcaf::parse(offset, content)?,
        None => Vcaf::default(),
    };
    // dot_vox promises not to panic; should it, the input is reported as malformed.
    let data = voxcaf_guard::catch(|| dot_vox::load_bytes(bytes))
        .map_err(|_| VoxError::Parse {
            reason: "the .vox reader failed on this input",
        })?
        .map_err(|reason| VoxError::Parse { reason })?;
    let mut warnings = Vec::new();
    let recorded = Recorded::read(&data)?;
    let placed = instances(&data, options.frame, &mut warnings)?;

    let mut used_models = vec![false; data.models.len()];
    for p in &placed {
        used_models[p.model] = true;
    }
    let unplaced = used_models.iter().filter(|u| !**u).count();
    // (Without a scene graph the models left out are the other frames, said once already.)
    if unplaced > 0 && !data.scenes.is_empty() {
        warnings.push(VoxWarning::UnplacedModels { count: unplaced });
    }

    let (spans, voxels) = scene_spans(&data, &placed, &used_models)?;

    let mut lo = [i64::MAX; 3];
    let mut hi = [i64::MIN; 3];
    for (_, a, b) in &spans {
        for k in 0..3 {
            lo[k] = lo[k].min(a[k]);
            hi[k] = hi[k].max(b[k]);
        }
    }
    if spans.is_empty() {
        lo = [0; 3];
        hi = [-1; 3];
    }

    // The shift from scene space to world cells.
    let use_record = options.origin.is_none() && recorded.dims.is_some();
    let shift: [i64; 3] = match (options.origin, recorded.dims) {
        (Some(o), _) => [0, 1, 2].map(|k| i64::from(o[k]) - lo[k]),
        (None, Some(d)) => [0, 0, i64::from(d[2]) * CHUNK_SIZE as i64 - 1],
        (None, None) => [0, 1, 2].map(|k| -lo[k]),
    };
    let limit = i64::from(options.max_blocks_per_axis);
    let need: [i64; 3] = [0, 1, 2].map(|k| (hi[k] + shift[k] + 1).max(1));
    let chunks_for = |blocks: i64| -> u32 { ((blocks + 9) / 10).clamp(1, u32::MAX as i64) as u32 };
    let dims: [u32; 3] = match options.size {
        WorldSize::Chunks(d) => d,
        _ if use_record => recorded.dims.unwrap_or([1; 3]),
        WorldSize::Tight => need.map(chunks_for),
        WorldSize::Cubic => [chunks_for(need[0].max(need[1]).max(need[2])); 3],
    };
    if dims.iter().any(|&d| i64::from(d) * 10 > limit) || need.iter().any(|&n| n > limit) {
        return Err(VoxError::SceneTooLarge {
            extent: [0, 1, 2].map(|k| need[k].max(i64::from(dims[k]) * 10) as u64),
            limit: options.max_blocks_per_axis,
        });
    }
    let mut world = World::with_chunk_dims(dims)?;
    let bdims = world.block_dims();
    for (model, a, b) in &spans {
        let min = [0, 1, 2].map(|k| a[k] + shift[k]);
        let max = [0, 1, 2].map(|k| b[k] + shift[k]);
        if (0..3).any(|k| min[k] < 0 || max[k] >= i64::from(bdims[k])) {
            return Err(VoxError::ModelOutsideWorld {
                model: *model,
                min,
                max,
                world: bdims,
            });
        }
    }

    let exact = exact_values(&data, &layout, vcaf.blocks, &mut warnings);
    let mut blocks = BlockTable::new(&data, options.palette.as_ref(), &recorded.blocks);
    for inst in &placed {
        let model = &data.models[inst.model];
        let exact = exact.as_ref().map(|e| &e[inst.model]);
        for (j, v) in model.voxels.iter().enumerate() {
            let cell = scene_cell(inst, &model.size, v);
            let p = [0, 1, 2].map(|k| (cell[k] + shift[k]) as i32);
            let block = match exact {
                Some(values) => Block::from_raw(values[j]),
                None => blocks.block(v.i)?,
            };
            world.set_block(p, block)?;
        }
    }
    if use_record {
        recorded.apply_fields(&mut world)?;
        for r in &vcaf.records {
            world.set_extra_metadata(r.pos, r.record_type, &r.payload)?;
        }
    } else if !vcaf.records.is_empty() {
        warnings.push(VoxWarning::KeptRecordsSkipped {
            count: vcaf.records.len(),
        });
    }
    if recorded.dims.is_none() && recorded.blocks.is_empty() {
        // A file voxcaf did not write: its palette is kept for the way back.
        let kept = KeptPalette {
            rgba: data.palette.iter().map(|c| [c.r, c.g, c.b, c.a]).collect(),
            mapping: blocks.resolved(),
        };
        world.set_extra_metadata([0, 0, 0], VOX_PALETTE_RECORD, &kept.to_payload())?;
    }
    blocks.warn(&mut warnings);
    Ok(Imported {
        world,
        warnings,
        models: placed.len(),
        voxels,
    })
}

/// The exact block values of the `VCAF` chunk, per model, when they match the file's models;
/// a mismatch (another tool rewrote the models) is a warning and the palette maps as usual.
fn exact_values(
    data: &DotVoxData,
    layout: &Layout<'_>,
    models: Option<Vec<ModelValues>>,
    warnings: &mut Vec<VoxWarning>,
) -> Option<Vec<Vec<u16>>> {
    let models = models?;
    let matches = models.len() == layout.xyzi.len()
        && models.len() == data.models.len()
        && models
            .iter()
            .zip(&layout.xyzi)
            .zip(&data.models)
            .all(|((m, chunk), model)| {
                m.hash == fnv1a(chunk) && m.values.len() == model.voxels.len()
            });
    if !matches {
        warnings.push(VoxWarning::ExactValuesStale);
        return None;
    }
    Some(models.into_iter().map(|m| m.values).collect())
}

/// Most voxels one import places, instances counted each time they are placed (a scene that
/// places a full 256³ model many times would take hours, not a bigger world).
pub(crate) const MAX_PLACED_VOXELS: u64 = 1 << 28;

/// A placed model with voxels and the bounds of its cells in scene space.
type Span = (usize, [i64; 3], [i64; 3]);

/// The Y-up scene cell of voxel `v` of a model of size `size` placed by `inst`.
fn scene_cell(inst: &Instance, size: &dot_vox::Size, v: &dot_vox::Voxel) -> [i64; 3] {
    let size = [size.x, size.y, size.z];
    let local = [v.x, v.y, v.z];
    let centred = [0, 1, 2].map(|k| 2 * i64::from(local[k]) + 1 - i64::from(size[k]));
    let s = inst.affine.apply(centred).map(|c| c.div_euclid(2));
    [s[0], s[2], -s[1]]
}

/// The bounds in scene space of each placed non-empty model, and the voxels placed in all
/// (checked against [`MAX_PLACED_VOXELS`]). Each used model's voxels are checked against its
/// size once; a placement maps the two corners of the model's voxel box (a signed permutation
/// maps a box's opposite corners to its image's opposite corners).
fn scene_spans(data: &DotVoxData, placed: &[Instance], used: &[bool]) -> Result<(Vec<Span>, u64)> {
    let mut boxes: Vec<Option<([u8; 3], [u8; 3])>> = vec![None; data.models.len()];
    for (m, model) in data.models.iter().enumerate().filter(|(m, _)| used[*m]) {
        let size = [model.size.x, model.size.y, model.size.z];
        for v in &model.voxels {
            let local = [v.x, v.y, v.z];
            if (0..3).any(|k| u32::from(local[k]) >= size[k]) {
                return Err(VoxError::VoxelOutsideModel {
                    model: m,
                    x: v.x,
                    y: v.y,
                    z: v.z,
                    size,
                });
            }
            let (lo, hi) = boxes[m].get_or_insert((local, local));
            for k in 0..3 {
                lo[k] = lo[k].min(local[k]);
                hi[k] = hi[k].max(local[k]);
            }
        }
    }
    let mut spans = Vec::with_capacity(placed.len());
    let mut voxels = 0u64;
    for inst in placed {
        let model = &data.models[inst.model];
        voxels += model.voxels.len() as u64;
        if voxels > MAX_PLACED_VOXELS {
            return Err(VoxError::SceneExpansion {
                what: "voxels",
                limit: MAX_PLACED_VOXELS,
            });
        }
        let Some((lo, hi)) = boxes[inst.model] else {
            continue;
        };
        let corner = |c: [u8; 3]| {
            let v = dot_vox::Voxel {
                x: c[0],
                y: c[1],
                z: c[2],
                i: 0,
            };
            scene_cell(inst, &model.size, &v)
        };
        let (a, b) = (corner(lo), corner(hi));
        spans.push((
            inst.model,
            [0, 1, 2].map(|k| a[k].min(b[k])),
            [0, 1, 2].map(|k| a[k].max(b[k])),
        ));
    }
    Ok((spans, voxels))
}

/// Palette index (0-based, as dot_vox gives it) to block, resolved once per index: the
/// `--palette` mapping, else the recorded mapping, else the nearest registry colour.
struct BlockTable<'a> {
    data: &'a DotVoxData,
    palette: Option<&'a PaletteMap>,
    recorded: &'a PaletteMap,
    table: [Option<Block>; 256],
    nearest: Option<NearestColour>,
    unmapped: Vec<u8>,
    non_diffuse: Vec<u8>,
}

impl<'a> BlockTable<'a> {
    fn new(
        data: &'a DotVoxData,
        palette: Option<&'a PaletteMap>,
        recorded: &'a PaletteMap,
    ) -> BlockTable<'a> {
        BlockTable {
            data,
            palette,
            recorded,
            table: [None; 256],
            nearest: None,
            unmapped: Vec::new(),
            non_diffuse: Vec::new(),
        }
    }

    fn block(&mut self, i: u8) -> Result<Block> {
        let i = usize::from(i);
        if let Some(b) = self.table[i] {
            return Ok(b);
        }
        let stored = (i + 1) as u8;
        let b = match (
            self.palette.and_then(|m| m.block(stored)),
            self.recorded.block(stored),
        ) {
            (Some(b), _) | (None, Some(b)) => b,
            (None, None) => {
                if self.palette.is_some() {
                    self.unmapped.push(stored);
                }
                if self.data.materials.iter().any(|m| {
                    m.id as usize == usize::from(stored)
                        && m.material_type().is_some_and(|t| t != "_diffuse")
                }) {
                    self.non_diffuse.push(stored);
                }
                let c = self.data.palette.get(i).copied().unwrap_or(dot_vox::Color {
                    r: 255,
                    g: 255,
                    b: 255,
                    a: 255,
                });
                let registry: &Registry = vwr_blocks::default_registry();
                let n = self
                    .nearest
                    .get_or_insert_with(|| NearestColour::new(registry));
                Block::make(n.nearest([c.r, c.g, c.b]), 0)?
            }
        };
        self.table[i] = Some(b);
        Ok(b)
    }

    /// The colour indices (1..=255) resolved so far and their blocks.
    fn resolved(&self) -> Vec<(u8, Block)> {
        (0..255)
            .filter_map(|i| self.table[i].map(|b| (i as u8 + 1, b)))
            .collect()
    }

    /// The warnings of the indices resolved.
    fn warn(mut self, warnings: &mut Vec<VoxWarning>) {
        if !self.unmapped.is_empty() {
            self.unmapped.sort_unstable();
            warnings.push(VoxWarning::UnmappedIndices {
                indices: self.unmapped,
            });
        }
        if !self.non_diffuse.is_empty() {
            self.non_diffuse.sort_unstable();
            warnings.push(VoxWarning::MaterialsIgnored {
                indices: self.non_diffuse,
            });
        }
    }
}
