//! `.vox` → world.

use dot_vox::DotVoxData;
use vwr::{Block, World, CHUNK_SIZE};
use vwr_blocks::Registry;

use crate::error::{Result, VoxError};
use crate::palette::{NearestColour, PaletteMap};
use crate::record::Recorded;
use crate::scene::{instances, Instance};
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
    crate::chunks::check(bytes)?;
    // dot_vox promises not to panic; should it, the input is reported as malformed.
    let data = std::panic::catch_unwind(|| dot_vox::load_bytes(bytes))
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

    let (cells, spans) = scene_cells(&data, &placed)?;

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

    // Palette index (0-based, as dot_vox gives it) -> block, resolved once per index.
    let registry: &Registry = vwr_blocks::default_registry();
    let mut table: [Option<Block>; 256] = [None; 256];
    let mut nearest: Option<NearestColour> = None;
    let mut unmapped = Vec::new();
    let mut non_diffuse = Vec::new();
    for (cell, i) in &cells {
        let i = *i as usize;
        let block = match table[i] {
            Some(b) => b,
            None => {
                let stored = (i + 1) as u8;
                let b = match (
                    options.palette.as_ref().and_then(|m| m.block(stored)),
                    recorded.blocks.block(stored),
                ) {
                    (Some(b), _) => b,
                    (None, Some(b)) => b,
                    (None, None) => {
                        if options.palette.is_some() {
                            unmapped.push(stored);
                        }
                        if data.materials.iter().any(|m| {
                            m.id as usize == usize::from(stored)
                                && m.material_type().is_some_and(|t| t != "_diffuse")
                        }) {
                            non_diffuse.push(stored);
                        }
                        let c = data.palette.get(i).copied().unwrap_or(dot_vox::Color {
                            r: 255,
                            g: 255,
                            b: 255,
                            a: 255,
                        });
                        let n = nearest.get_or_insert_with(|| NearestColour::new(registry));
                        Block::make(n.nearest([c.r, c.g, c.b]), 0)?
                    }
                };
                table[i] = Some(b);
                b
            }
        };
        let p = [0, 1, 2].map(|k| (cell[k] + shift[k]) as i32);
        world.set_block(p, block)?;
    }
    if !unmapped.is_empty() {
        unmapped.sort_unstable();
        warnings.push(VoxWarning::UnmappedIndices { indices: unmapped });
    }
    if !non_diffuse.is_empty() {
        non_diffuse.sort_unstable();
        warnings.push(VoxWarning::MaterialsIgnored {
            indices: non_diffuse,
        });
    }
    if use_record {
        recorded.apply_fields(&mut world)?;
    }
    Ok(Imported {
        world,
        warnings,
        models: placed.len(),
        voxels: cells.len() as u64,
    })
}

/// A voxel in Y-up scene space and its palette index (0-based, as dot_vox gives it).
type Cell = ([i64; 3], u8);
/// A placed model with voxels and the bounds of its cells in scene space.
type Span = (usize, [i64; 3], [i64; 3]);

/// Every voxel of every placed model in Y-up scene space, before the move to the origin, and
/// each non-empty model's bounds.
fn scene_cells(data: &DotVoxData, placed: &[Instance]) -> Result<(Vec<Cell>, Vec<Span>)> {
    let mut cells: Vec<Cell> = Vec::new();
    let mut spans: Vec<Span> = Vec::with_capacity(placed.len());
    for inst in placed {
        let model = &data.models[inst.model];
        let size = [model.size.x, model.size.y, model.size.z];
        let (mut lo, mut hi) = ([i64::MAX; 3], [i64::MIN; 3]);
        for v in &model.voxels {
            let local = [v.x, v.y, v.z];
            if (0..3).any(|k| u32::from(local[k]) >= size[k]) {
                return Err(VoxError::VoxelOutsideModel {
                    model: inst.model,
                    x: v.x,
                    y: v.y,
                    z: v.z,
                    size,
                });
            }
            let centred = [0, 1, 2].map(|k| 2 * i64::from(local[k]) + 1 - i64::from(size[k]));
            let s = inst.affine.apply(centred).map(|c| c.div_euclid(2));
            let cell = [s[0], s[2], -s[1]];
            for k in 0..3 {
                lo[k] = lo[k].min(cell[k]);
                hi[k] = hi[k].max(cell[k]);
            }
            cells.push((cell, v.i));
        }
        if !model.voxels.is_empty() {
            spans.push((inst.model, lo, hi));
        }
    }
    Ok((cells, spans))
}
