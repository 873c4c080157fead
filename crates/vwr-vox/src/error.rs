//! The one error type of the crate.

/// Everything that can go wrong importing or exporting a `.vox` file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VoxError {
    /// The bytes are not a MagicaVoxel file that `dot_vox` can read.
    #[error("not a readable MagicaVoxel .vox file: {reason}")]
    Parse {
        /// What the reader said.
        reason: &'static str,
    },
    /// A chunk of the file's structure is damaged: its sizes do not fit, or its content does
    /// not match its own counts.
    #[error("not a readable MagicaVoxel .vox file: chunk {id} at byte {offset}: {reason}")]
    Chunk {
        /// The chunk id (`XYZI`, `SIZE`, ...).
        id: String,
        /// Byte offset of the chunk header in the file.
        offset: u64,
        /// What does not fit.
        reason: String,
    },
    /// The animation frame asked for is not in the file.
    #[error("frame {frame} does not exist: the file has {frames} frames (0..={})", frames - 1)]
    NoSuchFrame {
        /// The frame asked for.
        frame: u32,
        /// Frames in the file.
        frames: usize,
    },
    /// A scene-graph node refers to a node that does not exist.
    #[error("scene node {node}: child {child} does not exist ({count} nodes)")]
    MissingNode {
        /// The referring node.
        node: u32,
        /// The missing child id.
        child: u32,
        /// Nodes in the file.
        count: usize,
    },
    /// A scene-graph node is its own ancestor: the graph has a cycle (MagicaVoxel's instances
    /// share nodes, but never in a loop).
    #[error("scene node {node} is its own ancestor: the scene graph has a cycle")]
    SceneCycle {
        /// The node reached again below itself.
        node: u32,
    },
    /// The scene graph nests deeper than the reader follows.
    #[error("scene node {node} lies {depth} levels deep, more than the limit of {limit}")]
    SceneTooDeep {
        /// The node past the limit.
        node: u32,
        /// Its depth.
        depth: usize,
        /// The limit in force.
        limit: usize,
    },
    /// Shared nodes (instances) expand to more node visits or voxels than the reader places.
    #[error(
        "the scene graph expands to more than {limit} {what} (instances of shared groups and \
         shapes counted each time they are placed)"
    )]
    SceneExpansion {
        /// `"node visits"` or `"voxels"`.
        what: &'static str,
        /// The limit in force.
        limit: u64,
    },
    /// A shape node places a model that does not exist.
    #[error("scene node {node}: model {model} does not exist ({count} models)")]
    MissingModel {
        /// The shape node.
        node: u32,
        /// The missing model index.
        model: u32,
        /// Models in the file.
        count: usize,
    },
    /// A transform's rotation byte is not a valid signed permutation.
    #[error("scene node {node}: invalid rotation _r = {value:?}")]
    BadRotation {
        /// The transform node.
        node: u32,
        /// The attribute text.
        value: String,
    },
    /// A transform's translation is not three integers.
    #[error("scene node {node}: invalid translation _t = {value:?}")]
    BadTranslation {
        /// The transform node.
        node: u32,
        /// The attribute text.
        value: String,
    },
    /// A model voxel lies outside the model's own size.
    #[error("model {model}: voxel ({x}, {y}, {z}) lies outside its size {size:?}")]
    VoxelOutsideModel {
        /// The model index.
        model: usize,
        /// Voxel coordinates.
        x: u8,
        /// Voxel coordinates.
        y: u8,
        /// Voxel coordinates.
        z: u8,
        /// The model size.
        size: [u32; 3],
    },
    /// A model lands outside the world (a negative origin, or a world size given too small).
    #[error(
        "model {model} lands outside the world: it spans blocks {min:?}..={max:?}, the world \
         holds 0..{world:?}"
    )]
    ModelOutsideWorld {
        /// The model index.
        model: usize,
        /// Smallest world cell the model covers.
        min: [i64; 3],
        /// Largest world cell the model covers.
        max: [i64; 3],
        /// Blocks per axis of the world.
        world: [u32; 3],
    },
    /// The scene is larger than the largest world allowed.
    #[error("the scene spans {extent:?} blocks, more than the limit of {limit} per axis")]
    SceneTooLarge {
        /// Blocks per axis the scene needs.
        extent: [u64; 3],
        /// The limit in force.
        limit: u32,
    },
    /// A world-size record in the file is unusable.
    #[error("invalid recorded {what} {value:?}")]
    BadRecord {
        /// Which record (`_vwr_dims`, `_vwr_blocks`, ...).
        what: &'static str,
        /// The text found.
        value: String,
    },
    /// The world holds more distinct block values than a `.vox` palette has entries. No longer
    /// returned by [`crate::export`], which folds the extra values to the nearest colours and
    /// keeps them exactly in its `VCAF` chunk; kept for callers that match on it.
    #[error(
        "the world holds {count} distinct block values (type and metadata); a .vox palette holds \
         at most 255"
    )]
    TooManyBlockValues {
        /// Distinct non-air block values in the world.
        count: usize,
    },
    /// The `.vox` file would be larger than its 32-bit chunk sizes can say.
    #[error("the .vox file would hold {bytes} bytes of chunks; a .vox chunk holds at most 4 GiB")]
    ExportTooLarge {
        /// Bytes of `MAIN`'s children.
        bytes: u64,
    },
    /// The palette mapping text is not valid TOML of the expected shape.
    #[error("palette mapping: {message}")]
    PaletteToml {
        /// What is wrong, with the line where TOML says it.
        message: String,
    },
    /// A palette mapping entry is unusable.
    #[error("palette mapping entry {key:?}: {reason}")]
    PaletteEntry {
        /// The key (palette index) of the entry.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// Two block values map to the same palette index in the mapping.
    #[error("palette mapping: block {block} is mapped by both index {first} and index {second}")]
    DuplicateBlock {
        /// The block, `type:meta`.
        block: String,
        /// First index.
        first: u8,
        /// Second index.
        second: u8,
    },
    /// A world operation failed.
    #[error(transparent)]
    World(#[from] vwr::VwrError),
}

/// Result with [`VoxError`].
pub type Result<T> = std::result::Result<T, VoxError>;
