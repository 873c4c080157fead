//! `.vwr` worlds as Bevy assets: [`VoxWorld`], loaded by [`VwrLoader`].

use std::sync::Arc;

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, Handle, LoadContext, RenderAssetUsages};
use bevy::mesh::{Indices, Mesh, PrimitiveTopology};
use bevy::reflect::TypePath;
use serde::{Deserialize, Serialize};
use vwr::{MoveObject, World};
use vwr_blocks::Registry;
use vwr_mesh::mesher::ChunkMesh;
use vwr_mesh::{mesh_world, MeshOptions, MeshPart, WorldMesh};

/// A `.vwr` world loaded as an asset: its chunks' meshes (each also a labeled sub-asset,
/// `level.vwr#chunk/X/Y/Z` for the opaque pass and `level.vwr#chunk/X/Y/Z/transparent` for
/// the transparent one), its moving objects, big decorations, spawn point, sky region and
/// mission number.
#[derive(Asset, TypePath, Debug)]
pub struct VoxWorld {
    /// Blocks per axis (x, y, z).
    pub block_dims: [u32; 3],
    /// The chunks that show something, in the order `vwr-mesh` meshes them.
    pub chunks: Vec<VoxChunk>,
    /// The world's moving objects (MoveObject records): where each is stored, and the record.
    pub objects: Vec<([i32; 3], MoveObject)>,
    /// The world's big decorations (BigDecor records): the cell and the icon of each.
    pub decors: Vec<([i32; 3], u16)>,
    /// The player's spawn cell, when the world has one.
    pub spawn: Option<[i32; 3]>,
    /// The sky region (an index into the game's skies).
    pub sky_region: u32,
    /// The mission number.
    pub mission: u32,
    /// How the chunks were meshed (and are re-meshed).
    pub settings: VwrLoaderSettings,
    /// The world's blocks and records, kept to re-mesh the chunks that change: read it with
    /// [`VoxWorld::world`], change it with [`VoxWorld::edit`].
    pub(crate) world: World,
    /// Chunks whose blocks changed since they were last meshed.
    pub(crate) dirty: std::collections::BTreeSet<[u32; 3]>,
    /// Which load made this asset (a reload gives a new one; edits keep it): what a
    /// [`crate::VoxDistantView`] built its levels from.
    pub(crate) load_id: u64,
}

/// The next [`VoxWorld::load_id`].
static LOADS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl VoxWorld {
    /// Quads over every chunk (greedy rectangles or unit faces, both passes), the count
    /// `voxcaf world mesh --json` gives as `quads` for the same options.
    pub fn quad_count(&self) -> usize {
        self.chunks.iter().map(|c| c.quads).sum()
    }

    /// The meshing options the chunks were meshed with.
    pub fn mesh_options(&self) -> MeshOptions {
        self.settings.mesh_options()
    }

    /// Where chunk `pos` is in [`VoxWorld::chunks`] (kept in file order: z, then y, then x),
    /// or where it would go: a binary search.
    pub(crate) fn chunk_index(&self, pos: [u32; 3]) -> Result<usize, usize> {
        let order = |p: [u32; 3]| [p[2], p[1], p[0]];
        self.chunks
            .binary_search_by_key(&order(pos), |c| order(c.chunk))
    }
}

/// One chunk of a [`VoxWorld`]: its meshes, in the world's block units (one block is one unit;
/// the chunk's corner is [`VoxChunk::origin`]).
#[derive(Debug, Clone)]
pub struct VoxChunk {
    /// Chunk coordinates (10 blocks a chunk).
    pub chunk: [u32; 3],
    /// Where the chunk's corner is, in blocks (its meshes' positions are already in world
    /// units: an entity drawing them sits at the world's own transform).
    pub origin: [f32; 3],
    /// Quads of both passes, special cells not included.
    pub quads: usize,
    /// Cells drawn as special geometry (plates, pillars, bars, billboards, grates).
    pub special_cells: usize,
    /// Opaque cubes and special geometry, when the chunk has any.
    pub opaque: Option<Handle<Mesh>>,
    /// Transparent cubes (water, glass), when the chunk has any: drawn after the opaque pass.
    pub transparent: Option<Handle<Mesh>>,
}

/// How [`VwrLoader`] meshes a world (a `.vwr.meta` file can set them per asset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VwrLoaderSettings {
    /// Merge coplanar faces of the same block and light into rectangles (default `true`).
    pub greedy: bool,
    /// Per-corner ambient occlusion, baked into the vertex colours (default `true`).
    pub ao: bool,
    /// Mesh every chunk of blocks as the world loads (default `true`). Off, the world loads
    /// with no chunk meshes (`chunks` empty, none made after edits either), for a world
    /// drawn only by a [`crate::VoxDistantView`], which then meshes the chunks of blocks it
    /// draws itself: a big world loads without meshing, or keeping, what is far away.
    #[serde(default = "yes")]
    pub chunk_meshes: bool,
}

fn yes() -> bool {
    true
}

impl VwrLoaderSettings {
    /// The text of the `.vwr.meta` file that gives a world these settings: saved beside the
    /// world as `NAME.vwr.meta`, the asset server loads `NAME.vwr` with them.
    pub fn meta_file(&self) -> String {
        format!(
            "(\n    meta_format_version: \"1.0\",\n    asset: Load(\n        loader: \"{}\",\n        \
             settings: (greedy: {}, ao: {}, chunk_meshes: {}),\n    ),\n)\n",
            <VwrLoader as TypePath>::type_path(),
            self.greedy,
            self.ao,
            self.chunk_meshes
        )
    }

    /// `vwr-mesh`'s options for these settings.
    pub fn mesh_options(&self) -> MeshOptions {
        MeshOptions {
            greedy: self.greedy,
            ao: self.ao,
            watertight: false,
        }
    }
}

impl Default for VwrLoaderSettings {
    fn default() -> Self {
        VwrLoaderSettings {
            greedy: true,
            ao: true,
            chunk_meshes: true,
        }
    }
}

/// Why a `.vwr` asset did not load.
#[derive(Debug, thiserror::Error)]
pub enum WorldLoadError {
    /// The asset's bytes could not be read.
    #[error("reading the world: {0}")]
    Io(#[from] std::io::Error),
    /// The bytes are not a world `vwr` reads (the error says what and where).
    #[error("{0}")]
    World(#[from] vwr::VwrError),
}

/// The [`AssetLoader`] of `.vwr` files (v2 and v3): reads the world, meshes every chunk with
/// `vwr-mesh` in parallel, and gives each chunk's meshes as labeled sub-assets.
#[derive(TypePath)]
pub struct VwrLoader {
    /// The block types' looks (the default: Galaxy Eggbert's).
    pub registry: Arc<Registry>,
}

impl AssetLoader for VwrLoader {
    type Asset = VoxWorld;
    type Settings = VwrLoaderSettings;
    type Error = WorldLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &VwrLoaderSettings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<VoxWorld, WorldLoadError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        let world = World::from_bytes(&bytes)?;
        drop(bytes);
        let opts = settings.mesh_options();
        let mesh = match settings.chunk_meshes {
            true => mesh_world(&world, &self.registry, opts),
            false => WorldMesh::default(),
        };
        let parts = chunk_meshes(&mesh, &self.registry, opts.ao);
        let chunks = parts
            .into_iter()
            .map(|p| {
                let [x, y, z] = p.chunk.chunk;
                let label = format!("chunk/{x}/{y}/{z}");
                let transparent_label = format!("{label}/transparent");
                VoxChunk {
                    opaque: p.opaque.map(|m| load_context.add_labeled_asset(label, m)),
                    transparent: p
                        .transparent
                        .map(|m| load_context.add_labeled_asset(transparent_label, m)),
                    ..p.chunk
                }
            })
            .collect();
        Ok(VoxWorld {
            block_dims: world.block_dims(),
            chunks,
            objects: world.move_objects()?,
            decors: world.big_decors()?,
            spawn: world.spawn(),
            sky_region: world.sky_region(),
            mission: world.mission_number(),
            world,
            settings: *settings,
            dirty: Default::default(),
            load_id: LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    fn extensions(&self) -> &[&str] {
        &["vwr"]
    }
}

/// A chunk's description and its two passes as Bevy meshes, before they become sub-assets.
pub struct ChunkMeshes {
    /// The chunk (its handles not set yet).
    pub chunk: VoxChunk,
    /// The opaque pass, when not empty.
    pub opaque: Option<Mesh>,
    /// The transparent pass, when not empty.
    pub transparent: Option<Mesh>,
}

/// Every chunk of `mesh` that shows something, as Bevy meshes (AO baked into the colours
/// when `bake_ao`); what [`VwrLoader`] builds its sub-assets from.
pub fn chunk_meshes(mesh: &WorldMesh, registry: &Registry, bake_ao: bool) -> Vec<ChunkMeshes> {
    mesh.chunks
        .iter()
        .map(|c| chunk_parts(c, registry, bake_ao))
        .collect()
}

/// One chunk's mesh as Bevy meshes (both passes `None` when it shows nothing): what the
/// loader and the re-meshing of changed chunks build their assets from.
pub fn chunk_parts(c: &ChunkMesh, registry: &Registry, bake_ao: bool) -> ChunkMeshes {
    let b = vwr_mesh::MeshBuffers::from_chunk(c, registry);
    ChunkMeshes {
        chunk: VoxChunk {
            chunk: c.chunk,
            origin: c.origin(),
            quads: c.quad_count(),
            special_cells: c.special.len(),
            opaque: None,
            transparent: None,
        },
        opaque: bevy_mesh(b.opaque, bake_ao),
        transparent: bevy_mesh(b.transparent, bake_ao),
    }
}

/// A pass as a Bevy triangle list: positions, normals, tiling UVs, linear vertex colours;
/// `None` when it is empty.
pub fn bevy_mesh(part: MeshPart, bake_ao: bool) -> Option<Mesh> {
    if part.is_empty() {
        return None;
    }
    let colors = part.linear_colors(bake_ao);
    let mesh = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, part.positions)
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, part.normals)
    .with_inserted_attribute(Mesh::ATTRIBUTE_UV_0, part.uvs)
    .with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, colors)
    .with_inserted_indices(Indices::U32(part.indices));
    Some(mesh)
}
