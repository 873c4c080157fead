//! What an import or export could not carry over: reported, never dropped silently.

use std::fmt;

/// Something of the source that the destination cannot represent.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VoxWarning {
    /// A file without a scene graph holds several models, the frames of an animation; one is
    /// imported ([`ImportOptions::frame`](crate::ImportOptions::frame)).
    FrameChosen {
        /// The frame imported.
        frame: u32,
        /// Frames in the file.
        frames: usize,
    },
    /// A transform or shape node has several animation frames; only the chosen one is used.
    AnimationIgnored {
        /// The scene node.
        node: u32,
        /// Frames it has.
        frames: usize,
    },
    /// A hidden node or a node on a hidden layer was left out.
    HiddenSkipped {
        /// The transform node.
        node: u32,
    },
    /// Models that no shape node places were left out.
    UnplacedModels {
        /// How many.
        count: usize,
    },
    /// Palette entries with a material other than diffuse: imported as plain blocks.
    MaterialsIgnored {
        /// Palette indices (1..=255) with a non-diffuse material.
        indices: Vec<u8>,
    },
    /// Palette indices used by voxels that the mapping does not name: mapped by nearest colour.
    UnmappedIndices {
        /// The palette indices (1..=255).
        indices: Vec<u8>,
    },
    /// Metadata records of the world that MagicaVoxel cannot show (MoveObjects, BigDecor, ...):
    /// kept in the file's `VCAF` chunk, which only voxcaf reads back.
    RecordsHidden {
        /// The record type.
        record_type: u16,
        /// Its name.
        name: &'static str,
        /// Records of that type.
        count: usize,
    },
    /// The world holds more distinct block values than a `.vox` palette has colours: the
    /// rarest were folded to the nearest palette colour (exact values kept in `VCAF`).
    ValuesFolded {
        /// Distinct non-air block values in the world.
        distinct: usize,
        /// Values folded onto another value's colour.
        folded: usize,
        /// Voxels of the folded values.
        voxels: u64,
    },
    /// The file's `VCAF` chunk does not match its models (another tool rewrote them): its exact
    /// block values were ignored.
    ExactValuesStale,
    /// Metadata records kept in the file's `VCAF` chunk were not restored, because the world is
    /// not the one exported (`--origin` or a size was given).
    KeptRecordsSkipped {
        /// Records left out.
        count: usize,
    },
}

impl fmt::Display for VoxWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VoxWarning::FrameChosen { frame, frames } => write!(
                f,
                "the file is an animation of {frames} frames (models without a scene graph); \
                 frame {frame} is imported (choose another with --frame N)"
            ),
            VoxWarning::AnimationIgnored { node, frames } => write!(
                f,
                "scene node {node} has {frames} animation frames; only the chosen frame is \
                 imported (--frame N, default 0)"
            ),
            VoxWarning::HiddenSkipped { node } => {
                write!(
                    f,
                    "scene node {node} is hidden (or on a hidden layer); left out"
                )
            }
            VoxWarning::UnplacedModels { count } => {
                write!(
                    f,
                    "{count} model(s) are not placed by the scene graph; left out"
                )
            }
            VoxWarning::MaterialsIgnored { indices } => write!(
                f,
                "materials (glass, metal, emission, ...) of palette indices {indices:?} are not \
                 representable; imported as plain blocks"
            ),
            VoxWarning::UnmappedIndices { indices } => write!(
                f,
                "palette indices {indices:?} are not in the mapping; mapped to the nearest \
                 registry colour"
            ),
            VoxWarning::RecordsHidden {
                name,
                count,
                record_type,
            } => write!(
                f,
                "{count} {name} record(s) (metadata type {record_type}) cannot be shown in \
                 MagicaVoxel; kept in the file's VCAF chunk for voxcaf"
            ),
            VoxWarning::ValuesFolded {
                distinct,
                folded,
                voxels,
            } => write!(
                f,
                "the world holds {distinct} distinct block values, a .vox palette 255: {folded} \
                 value(s) ({voxels} voxels) take the nearest palette colour; the exact values \
                 are kept in the file's VCAF chunk for voxcaf"
            ),
            VoxWarning::ExactValuesStale => write!(
                f,
                "the file's VCAF chunk does not match its models (rewritten by another tool?); \
                 its exact block values are ignored and colours mapped as usual"
            ),
            VoxWarning::KeptRecordsSkipped { count } => write!(
                f,
                "{count} metadata record(s) kept in the file's VCAF chunk are not restored: \
                 the world is placed differently than it was exported (--origin)"
            ),
        }
    }
}
