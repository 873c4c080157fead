//! Per-chunk meshers: exposed faces and greedy rectangles, with optional ambient occlusion.
//!
//! A chunk is meshed from a [`Neighborhood`]: its 10³ cells plus a one-cell shell read from
//! the neighbouring chunks (air outside the world), so faces on chunk borders and AO across
//! them come out exactly as if the world were one array.
//!
//! The pieces, one file each: `neighbourhood` (gathering the padded volume across chunk
//! borders, classifying it, and the face test and face keys, block + AO, that both paths
//! share); `ao` (ambient occlusion); `exposed` (one quad per visible face); `greedy`
//! (rectangles, and the row-to-quad emission the transparent pass uses too); `transparent`
//! (transparent and special cells); `quad` (the output geometry).

mod ao;
mod exposed;
mod greedy;
mod neighbourhood;
mod occupancy;
mod parallel;
mod quad;
mod transparent;

use vwr::{Chunk, World, CHUNK_SIZE, META_PLATE_ROTATION};

use greedy::FaceRows;
pub use neighbourhood::Neighborhood;
use occupancy::{ClassSlot, WorldClasses};
pub(crate) use parallel::{mesh_chunks_par, PAR_MIN_CHUNKS};
pub use quad::{Face, Quad, SpecialCell};
use vwr_blocks::Registry;

/// Cells per axis of a padded neighbourhood (10 + 2).
pub const PAD: usize = CHUNK_SIZE + 2;
const PAD2: usize = PAD * PAD;
/// Cells in a padded neighbourhood.
pub const PAD3: usize = PAD * PAD * PAD;
const N: usize = CHUNK_SIZE;
const ROW: u16 = (1 << N) - 1;

/// The mesh of one chunk: quads of the opaque and transparent passes, and special cells.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkMesh {
    /// Chunk position.
    pub chunk: [u32; 3],
    /// Faces of opaque cubes.
    pub opaque: Vec<Quad>,
    /// Faces of transparent cubes.
    pub transparent: Vec<Quad>,
    /// Cells with special geometry.
    pub special: Vec<SpecialCell>,
    /// Triangulate the cube faces without T-junctions ([`MeshOptions::watertight`]): set
    /// from the options the chunk was meshed with, read when buffers are built (which split
    /// quad edges on the border planes of the chunk at `chunk`).
    pub watertight: bool,
    /// The level of detail of the world the chunk was meshed from (0: blocks; see
    /// [`crate::lod`]): its quads and special cells are in that level's cells, and
    /// [`crate::MeshBuffers`] scales them by 2^`level` into world units.
    pub level: u8,
    /// Border planes meshed closed, in [`Face::ALL`] order: the cells across them were read
    /// as air ([`crate::lod::mesh_chunk_closed`]), so the chunk's surface ends there and
    /// watertight buffers split no edge on them for a neighbour's sake. None in a plain mesh.
    pub closed: [bool; 6],
}

impl ChunkMesh {
    /// Whether there is nothing to draw.
    pub fn is_empty(&self) -> bool {
        self.opaque.is_empty() && self.transparent.is_empty() && self.special.is_empty()
    }

    /// Number of quads in both cube passes.
    pub fn quad_count(&self) -> usize {
        self.opaque.len() + self.transparent.len()
    }

    /// Blocks per cell side: 2^level (1 for the world itself).
    pub fn cell_size(&self) -> f32 {
        (1u32 << self.level.min(31)) as f32
    }

    /// Where the chunk's corner is, in blocks (10 cells a chunk): the translation that places
    /// its chunk-local buffers ([`crate::MeshBuffers::from_chunk`]) in the world.
    pub fn origin(&self) -> [f32; 3] {
        self.chunk.map(|v| v as f32 * 10.0 * self.cell_size())
    }

    /// Number of unit faces covered by both cube passes.
    pub fn unit_face_count(&self) -> u64 {
        self.opaque
            .iter()
            .chain(&self.transparent)
            .map(|q| q.area() as u64)
            .sum()
    }

    pub(super) fn clear(&mut self) {
        self.opaque.clear();
        self.transparent.clear();
        self.special.clear();
        self.level = 0;
        self.closed = [false; 6];
    }
}

/// What to produce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MeshOptions {
    /// Merge coplanar faces of the same block (and the same AO) into rectangles.
    pub greedy: bool,
    /// Compute per-corner ambient occlusion.
    pub ao: bool,
    /// Build buffers without T-junctions: where a corner of another quad (of this chunk, or
    /// of a neighbouring chunk on the shared border) lies on a quad's edge, the edge is split
    /// there and the quad drawn as a strip of triangles, so that no pixel-wide crack shows
    /// between quads. The quads themselves are the same; only [`crate::MeshBuffers`]
    /// differ (more vertices and triangles). Off in the presets below.
    pub watertight: bool,
}

impl MeshOptions {
    /// One quad per visible face, no AO.
    pub const EXPOSED: MeshOptions = MeshOptions {
        greedy: false,
        ao: false,
        watertight: false,
    };
    /// One quad per visible face, with AO.
    pub const EXPOSED_AO: MeshOptions = MeshOptions {
        greedy: false,
        ao: true,
        watertight: false,
    };
    /// Greedy merging, no AO.
    pub const GREEDY: MeshOptions = MeshOptions {
        greedy: true,
        ao: false,
        watertight: false,
    };
    /// Greedy merging of faces with equal AO.
    pub const GREEDY_AO: MeshOptions = MeshOptions {
        greedy: true,
        ao: true,
        watertight: false,
    };
    /// Greedy merging of faces with equal AO, triangulated without T-junctions: what the
    /// browser editor draws.
    pub const GREEDY_AO_WATERTIGHT: MeshOptions = MeshOptions {
        greedy: true,
        ao: true,
        watertight: true,
    };

    /// These options with [`MeshOptions::watertight`] set to `on`.
    pub const fn with_watertight(self, on: bool) -> MeshOptions {
        MeshOptions {
            watertight: on,
            ..self
        }
    }
}

/// Room an opaque list with none is given while it is meshed ([`Mesher::mesh`]): more than
/// almost any chunk needs, so that the list does not grow (and move) while meshing; the rest
/// is given back afterwards. Meshing each chunk into one reused scratch list and copying it
/// out at its size cost more (world999, exposed faces from the world: 1.35x block-mesh
/// against 1.43x).
const FRESH_QUADS: usize = 1024;

/// Reusable meshing scratch buffers; one per thread.
#[derive(Clone)]
pub struct Mesher {
    vis: Box<FaceRows>,
    keys: [[u32; N]; N],
}

impl Default for Mesher {
    fn default() -> Self {
        Mesher::new()
    }
}

impl std::fmt::Debug for Mesher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mesher {{ .. }}")
    }
}

impl Mesher {
    /// A mesher with empty scratch buffers.
    pub fn new() -> Mesher {
        Mesher {
            vis: Box::new([[[0; N]; N]; 6]),
            keys: [[0; N]; N],
        }
    }

    /// Meshes one neighbourhood whose first interior cell is at world position `origin`,
    /// replacing the contents of `out` (its `chunk` field is left as is). Special cells come
    /// out unrotated; [`mesh_chunk`] applies plate-rotation records. An opaque list with no
    /// room yet is given room for 1024 quads first and shrunk to its size at the end (glibc's
    /// allocator shrinks a block in place), so that a new list neither grows nor is copied.
    pub fn mesh(
        &mut self,
        nb: &Neighborhood,
        origin: [i32; 3],
        opts: MeshOptions,
        out: &mut ChunkMesh,
    ) {
        out.clear();
        out.watertight = opts.watertight;
        // With no opaque cell that can show a face, the opaque pass has nothing to do.
        if !nb.no_opaque_faces {
            let fresh = out.opaque.capacity() == 0;
            if fresh {
                out.opaque.reserve(FRESH_QUADS);
            }
            if opts.greedy {
                self.greedy_opaque_quads(nb, origin, opts, &mut out.opaque);
            } else {
                exposed::opaque_quads(nb, origin, opts.ao, &mut out.opaque);
            }
            if fresh {
                // glibc splits the block in place: nothing is copied.
                out.opaque.shrink_to_fit();
            }
        }
        if !nb.others.is_empty() {
            self.other_cells(nb, origin, opts, out);
        }
    }
}

/// Whether any palette entry of a chunk draws something.
pub(crate) fn chunk_has_visible(chunk: &Chunk, registry: &Registry) -> bool {
    chunk
        .palette()
        .iter()
        .any(|b| registry.class_of_type(b.block_type()) != vwr_blocks::CLASS_NONE)
}

/// Whether chunk `pos` is one opaque value throughout and so are its six face neighbours:
/// then no face of it shows and nothing else draws, so gathering can be skipped.
fn buried_uniform(world: &World, pos: [u32; 3], chunk: &Chunk, registry: &Registry) -> bool {
    let opaque_uniform = |c: &Chunk| match c.palette() {
        [only] => registry.class_of_type(only.block_type()) == vwr_blocks::CLASS_OPAQUE,
        _ => false,
    };
    if !opaque_uniform(chunk) {
        return false;
    }
    Face::ALL.iter().all(|f| {
        let n = f.normal();
        let q = [0, 1, 2].map(|a| pos[a].wrapping_add_signed(n[a]));
        world.chunk(q).is_some_and(opaque_uniform)
    })
}

/// Meshes chunk `pos` of a world (an empty mesh when nothing in it is drawn).
pub fn mesh_chunk(
    world: &World,
    registry: &Registry,
    pos: [u32; 3],
    opts: MeshOptions,
) -> ChunkMesh {
    let mut mesher = Mesher::new();
    let mut nb = Neighborhood::new();
    let mut out = ChunkMesh::default();
    mesh_chunk_with(world, registry, pos, opts, &mut mesher, &mut nb, &mut out);
    out
}

/// [`mesh_chunk`] with caller-owned scratch buffers.
pub fn mesh_chunk_with(
    world: &World,
    registry: &Registry,
    pos: [u32; 3],
    opts: MeshOptions,
    mesher: &mut Mesher,
    nb: &mut Neighborhood,
    out: &mut ChunkMesh,
) {
    out.clear();
    out.chunk = pos;
    out.watertight = opts.watertight;
    let Some(chunk) = world.chunk([pos[0], pos[1], pos[2]]) else {
        return;
    };
    if !chunk_has_visible(chunk, registry) || buried_uniform(world, pos, chunk, registry) {
        return;
    }
    nb.gather(world, pos, registry);
    let c = CHUNK_SIZE as i32;
    let origin = [pos[0] as i32 * c, pos[1] as i32 * c, pos[2] as i32 * c];
    mesher.mesh(nb, origin, opts, out);
    rotate_plates(chunk, origin, &mut out.special);
}

/// Applies `chunk`'s plate-rotation records to the special cells meshed from it (its first
/// cell at world position `origin`).
pub(crate) fn rotate_plates(chunk: &Chunk, origin: [i32; 3], special: &mut [SpecialCell]) {
    for s in special {
        let l = [
            (s.pos[0] - origin[0]) as usize,
            (s.pos[1] - origin[1]) as usize,
            (s.pos[2] - origin[2]) as usize,
        ];
        s.rotated = chunk
            .metadata(vwr::local_index(l[0], l[1], l[2]), META_PLATE_ROTATION)
            .is_some_and(|p| p.first().is_some_and(|&b| b != 0));
    }
}

/// Meshes of every chunk of a world that draws something, in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorldMesh {
    /// Non-empty chunk meshes.
    pub chunks: Vec<ChunkMesh>,
}

impl WorldMesh {
    /// Quads in both cube passes.
    pub fn quad_count(&self) -> usize {
        self.chunks.iter().map(|c| c.quad_count()).sum()
    }

    /// Unit faces covered.
    pub fn unit_face_count(&self) -> u64 {
        self.chunks.iter().map(|c| c.unit_face_count()).sum()
    }

    /// Special cells.
    pub fn special_count(&self) -> usize {
        self.chunks.iter().map(|c| c.special.len()).sum()
    }
}

/// Meshes a whole world, chunks in parallel: the calling thread and the other threads of
/// rayon's pool share the work (a world of few chunks is meshed on the calling thread). The
/// result is the same as [`mesh_world_serial`]'s (chunks in file order).
pub fn mesh_world(world: &World, registry: &Registry, opts: MeshOptions) -> WorldMesh {
    let mut mesh = WorldMesh::default();
    mesh_world_into(world, registry, opts, &mut mesh);
    mesh
}

/// [`mesh_world`] into an existing mesh, replacing its contents. Each chunk that `mesh`
/// already holds is meshed again into its own buffers, so re-meshing a world that changed
/// little allocates, copies and frees next to nothing; the result equals [`mesh_world`]'s.
pub fn mesh_world_into(
    world: &World,
    registry: &Registry,
    opts: MeshOptions,
    mesh: &mut WorldMesh,
) {
    let mut old = std::mem::take(&mut mesh.chunks);
    mesh.chunks = parallel::mesh_world_par(world, registry, opts, &mut old);
}

/// Scratch buffers of one meshing thread.
#[derive(Default)]
struct Scratch {
    mesher: Mesher,
    nb: Neighborhood,
}

/// Meshes chunk `pos` for whole-world meshing: from the world's classes (each chunk decoded
/// once) when given and the chunk holds only opaque and invisible cells, else through the
/// full [`Neighborhood::gather`]. Same result as [`mesh_chunk_with`].
fn mesh_chunk_classed<S: ClassSlot>(
    world: &World,
    registry: &Registry,
    classes: Option<&WorldClasses<'_, S>>,
    pos: [u32; 3],
    opts: MeshOptions,
    s: &mut Scratch,
    out: &mut ChunkMesh,
) {
    let Some((classes, (chunk, class))) = classes.and_then(|c| Some((c, c.chunk_and_class(pos)?)))
    else {
        return mesh_chunk_with(world, registry, pos, opts, &mut s.mesher, &mut s.nb, out);
    };
    if class.other {
        return mesh_chunk_with(world, registry, pos, opts, &mut s.mesher, &mut s.nb, out);
    }
    out.clear();
    out.chunk = pos;
    out.watertight = opts.watertight;
    if !class.visible {
        return;
    }
    // All opaque, and so are the six face neighbours: no face shows.
    if class.full && buried(classes, pos) {
        return;
    }
    s.nb.gather_classes(classes, (chunk, class), pos, opts.ao);
    let c = CHUNK_SIZE as i32;
    let origin = [pos[0] as i32 * c, pos[1] as i32 * c, pos[2] as i32 * c];
    // No transparent or special cell: only the opaque pass runs, and no plate rotation applies.
    s.mesher.mesh(&s.nb, origin, opts, out);
}

/// Whether the six face neighbours of chunk `pos` are all opaque.
fn buried<S: ClassSlot>(classes: &WorldClasses<'_, S>, pos: [u32; 3]) -> bool {
    Face::ALL.iter().all(|f| {
        let n = f.normal();
        let q = [0, 1, 2].map(|a| pos[a].wrapping_add_signed(n[a]));
        classes.get(q).is_some_and(|c| c.full)
    })
}

/// Sort key of a chunk position in file order: (z, y, x). Reversing a key gives the position
/// back, so it is its own inverse.
pub(crate) fn file_key(p: [u32; 3]) -> [u32; 3] {
    [p[2], p[1], p[0]]
}

/// The mesh of chunk `pos` (see [`mesh_chunk_classed`]). `previous` walks meshes in file
/// order, positioned at or before `pos`: when it holds one of `pos`, that mesh is taken and
/// filled again in its own buffers; otherwise the chunk is meshed into new lists.
#[allow(clippy::too_many_arguments)]
fn mesh_reusing<'a, S: ClassSlot>(
    world: &World,
    registry: &Registry,
    classes: Option<&WorldClasses<'_, S>>,
    pos: [u32; 3],
    opts: MeshOptions,
    previous: &mut std::iter::Peekable<impl Iterator<Item = &'a mut ChunkMesh>>,
    s: &mut Scratch,
) -> ChunkMesh {
    while previous
        .next_if(|m| file_key(m.chunk) < file_key(pos))
        .is_some()
    {}
    match previous.next_if(|m| m.chunk == pos) {
        Some(m) => {
            let mut m = std::mem::take(m);
            mesh_chunk_classed(world, registry, classes, pos, opts, s, &mut m);
            m
        }
        None => {
            let mut m = ChunkMesh::default();
            mesh_chunk_classed(world, registry, classes, pos, opts, s, &mut m);
            m
        }
    }
}

/// Meshes a whole world on the calling thread, chunk by chunk in file order.
pub fn mesh_world_serial(world: &World, registry: &Registry, opts: MeshOptions) -> WorldMesh {
    let mut mesh = WorldMesh::default();
    mesh_world_serial_into(world, registry, opts, &mut mesh);
    mesh
}

/// [`mesh_world_serial`] into an existing mesh, replacing its contents, with the buffers of
/// the chunks it already holds reused as in [`mesh_world_into`].
pub fn mesh_world_serial_into(
    world: &World,
    registry: &Registry,
    opts: MeshOptions,
    mesh: &mut WorldMesh,
) {
    let classes = WorldClasses::new(world, registry);
    let mut old = std::mem::take(&mut mesh.chunks);
    let mut previous = old.iter_mut().peekable();
    let chunks = &mut mesh.chunks;
    // Room for every allocated chunk at once: growing the list a chunk at a time moved it
    // (and touched new memory) several times per call.
    chunks.reserve(classes.positions().len());
    with_scratch(|s| {
        for &pos in classes.positions() {
            let m = mesh_reusing(world, registry, Some(&classes), pos, opts, &mut previous, s);
            if !m.is_empty() {
                chunks.push(m);
            }
        }
    });
}

thread_local! {
    /// Each thread's whole-world meshing scratch, kept across calls: allocating it per call
    /// cost its allocation every time, and per task made the worker threads' allocator
    /// arenas grow and shrink on every call (page faults).
    static SCRATCH: std::cell::RefCell<Scratch> = Default::default();
}

/// Runs `f` with this thread's kept scratch buffers (new ones if they are in use already).
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut kept) => f(&mut kept),
        Err(_) => f(&mut Scratch::default()),
    })
}

/// The gather of whole-world meshing alone, for benchmarks: classifies every chunk once, then
/// builds each allocated chunk's neighbourhood the way [`mesh_world_serial`] does with AO on
/// (edge and corner rows included, the most a gather does; no meshing). Returns how many of
/// them have an opaque face to show.
pub fn gather_world(world: &World, registry: &Registry) -> usize {
    let classes = WorldClasses::new(world, registry);
    let mut nb = Neighborhood::new();
    let mut n = 0;
    for &pos in classes.positions() {
        match classes.chunk_and_class(pos) {
            Some((_, c)) if !c.visible => continue,
            Some((_, c)) if c.full && buried(&classes, pos) => continue,
            Some((chunk, c)) if !c.other => nb.gather_classes(&classes, (chunk, c), pos, true),
            _ => nb.gather(world, pos, registry),
        }
        n += !nb.no_opaque_faces as usize;
    }
    n
}
