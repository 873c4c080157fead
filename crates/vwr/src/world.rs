//! The world: `n³` chunks of 10³ blocks plus a few header fields.

use zerocopy::little_endian::U16;
use zerocopy::{FromBytes, IntoBytes};

use crate::block::Block;
use crate::chunk::{local_index, local_position, Chunk, MetaRecord, CHUNK_SIZE};
use crate::error::{RecordError, Result, VwrError};
use crate::layout::{
    BigDecorPayload, PlateRotationPayload, META_BIG_DECOR, META_MOVE_OBJECT, META_PLATE_ROTATION,
};
use crate::records::MoveObject;
use crate::store::ChunkStore;

/// Default chunks per axis (a 100³-block world).
pub const DEFAULT_CHUNKS_PER_AXIS: u32 = 10;

/// Largest chunk count along one axis (a v3 header field is a `u16`).
pub const MAX_CHUNKS_PER_AXIS: u32 = 65_535;

/// Largest total chunk count of a world (chunk indices are `u32`).
pub const MAX_CHUNK_COUNT: u64 = u32::MAX as u64;

/// A voxel world of `X × Y × Z` chunks of 10³ blocks (cubic `n³` with `n` in 1..=255 fits the
/// original v2 format; any axis 1..=65535 with at most `u32::MAX` chunks in all needs v3).
///
/// World coordinates are block coordinates `0..10·dims[k]` on each axis, passed as `i32` so that
/// neighbour arithmetic never wraps: reading outside the world gives air, writing outside it is
/// an [`VwrError::OutOfBounds`] error. Chunks that were never touched take no memory.
#[derive(Clone, Debug)]
pub struct World {
    /// Chunks per axis.
    dims: [u32; 3],
    /// `10 * dims`, kept to spare a multiply on every access.
    bdims: [u32; 3],
    store: ChunkStore,
    sky_region: u32,
    mission_number: u32,
    spawn: Option<[i32; 3]>,
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}

/// The world-wide fields a v2 header or a v3 commit holds besides the chunks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorldFields {
    /// Sky region (0–31 meaningful).
    pub sky_region: u32,
    /// Mission number, 0 = none.
    pub mission_number: u32,
    /// Spawn cell.
    pub spawn: Option<[i32; 3]>,
}

/// Logical equality: same size, header fields, blocks, palettes and records. A chunk that was
/// never allocated equals a fresh chunk.
impl PartialEq for World {
    fn eq(&self, other: &World) -> bool {
        if self.dims != other.dims
            || self.sky_region != other.sky_region
            || self.mission_number != other.mission_number
            || self.spawn != other.spawn
        {
            return false;
        }
        self.store == other.store
    }
}

impl World {
    /// An empty world of the default size (10 chunks per axis).
    pub fn new() -> World {
        World::with_chunks_per_axis(DEFAULT_CHUNKS_PER_AXIS).expect("10 is a valid size")
    }

    /// An empty cubic world of `n` chunks per axis (1..=255, what the v2 format holds).
    pub fn with_chunks_per_axis(n: u32) -> Result<World> {
        if !(1..=255).contains(&n) {
            return Err(VwrError::BadChunksPerAxis(n));
        }
        World::with_chunk_dims([n, n, n])
    }

    /// An empty world of `dims` chunks per axis (each 1..=65535, at most [`MAX_CHUNK_COUNT`]
    /// chunks in all). Worlds that are not cubic or exceed 255 chunks per axis save as v3.
    pub fn with_chunk_dims(dims: [u32; 3]) -> Result<World> {
        if dims
            .iter()
            .any(|&d| !(1..=MAX_CHUNKS_PER_AXIS).contains(&d))
            || dims.iter().map(|&d| d as u64).product::<u64>() > MAX_CHUNK_COUNT
        {
            return Err(VwrError::BadChunkDims(dims));
        }
        Ok(World {
            dims,
            bdims: dims.map(|d| d * CHUNK_SIZE as u32),
            store: ChunkStore::new(dims),
            sky_region: 0,
            mission_number: 0,
            spawn: None,
        })
    }

    /// Chunks per axis of a cubic world; for a non-cubic world the largest axis. New code
    /// should use [`World::chunk_dims`].
    pub fn chunks_per_axis(&self) -> u32 {
        self.dims.into_iter().max().unwrap_or(0)
    }

    /// Blocks per axis of a cubic world (`10 × chunks_per_axis`); for a non-cubic world the
    /// largest axis. New code should use [`World::block_dims`].
    pub fn blocks_per_axis(&self) -> u32 {
        self.bdims.into_iter().max().unwrap_or(0)
    }

    /// Chunks along x, y and z.
    pub fn chunk_dims(&self) -> [u32; 3] {
        self.dims
    }

    /// Blocks along x, y and z (`10 ×` [`World::chunk_dims`]).
    pub fn block_dims(&self) -> [u32; 3] {
        self.bdims
    }

    /// Whether the world is cubic with at most 255 chunks per axis (what a v2 file can hold).
    pub fn fits_v2(&self) -> bool {
        let [x, y, z] = self.dims;
        x == y && y == z && x <= 255
    }

    /// Whether a block position lies inside the world.
    #[inline]
    pub fn contains(&self, p: [i32; 3]) -> bool {
        self.in_world(p[0], p[1], p[2])
    }

    /// Whether a chunk position lies inside the world.
    #[inline]
    pub fn contains_chunk(&self, c: [u32; 3]) -> bool {
        c[0] < self.dims[0] && c[1] < self.dims[1] && c[2] < self.dims[2]
    }

    /// Total chunk count (`X·Y·Z`).
    pub fn chunk_count(&self) -> usize {
        self.dims.iter().map(|&d| d as usize).product()
    }

    #[inline]
    fn in_world(&self, x: i32, y: i32, z: i32) -> bool {
        let b = self.bdims;
        (x as u32) < b[0] && (y as u32) < b[1] && (z as u32) < b[2]
    }

    fn check(&self, x: i32, y: i32, z: i32) -> Result<()> {
        if self.in_world(x, y, z) {
            Ok(())
        } else {
            Err(VwrError::OutOfBounds {
                x: x.into(),
                y: y.into(),
                z: z.into(),
                limit: self.bdims,
            })
        }
    }

    /// The block at a world position; air outside the world.
    #[inline]
    pub fn get_block(&self, p: [i32; 3]) -> Block {
        // A negative coordinate becomes a large one, outside the world like any other.
        self.store.block(p.map(|v| v as u32))
    }

    /// Sets the block at a world position.
    #[inline]
    pub fn set_block(&mut self, p: [i32; 3], block: Block) -> Result<()> {
        let [x, y, z] = p;
        self.check(x, y, z)?;
        let (x, y, z) = (x as u32, y as u32, z as u32);
        let c = CHUNK_SIZE as u32;
        let (cx, cy, cz) = (x / c, y / c, z / c);
        let i = local_index((x % c) as usize, (y % c) as usize, (z % c) as usize);
        self.store.update([cx, cy, cz], |slot| {
            let chunk = match slot {
                Some(ch) => ch,
                none => {
                    if block.is_air() {
                        return Ok(()); // a fresh chunk already holds air there
                    }
                    none.insert(Chunk::new())
                }
            };
            chunk.set(i, block).map_err(|e| with_pos(e, [cx, cy, cz]))
        })
    }

    /// The chunk at chunk position `(cx, cy, cz)`, if it was ever allocated.
    pub fn chunk(&self, c: [u32; 3]) -> Option<&Chunk> {
        let [cx, cy, cz] = c;
        if !self.contains_chunk([cx, cy, cz]) {
            return None;
        }
        self.store.get([cx, cy, cz])
    }

    /// The [`Chunk::revision`] of the chunk at `(cx, cy, cz)`; `None` if it is not allocated
    /// (or outside the world).
    pub fn chunk_revision(&self, c: [u32; 3]) -> Option<u64> {
        let [cx, cy, cz] = c;
        self.chunk([cx, cy, cz]).map(Chunk::revision)
    }

    /// Mutable access to a chunk, allocating a fresh one if needed. `None` outside the world.
    pub fn chunk_mut(&mut self, c: [u32; 3]) -> Option<&mut Chunk> {
        let [cx, cy, cz] = c;
        if !self.contains_chunk([cx, cy, cz]) {
            return None;
        }
        Some(
            self.store
                .slot_mut([cx, cy, cz])
                .get_or_insert_with(Chunk::new),
        )
    }

    /// Replaces a whole chunk (e.g. one made with [`Chunk::uniform`] or [`Chunk::from_blocks`]).
    pub fn set_chunk(&mut self, c: [u32; 3], chunk: Chunk) -> Result<()> {
        let [cx, cy, cz] = c;
        if !self.contains_chunk([cx, cy, cz]) {
            let c = CHUNK_SIZE as i64;
            return Err(VwrError::OutOfBounds {
                x: cx as i64 * c,
                y: cy as i64 * c,
                z: cz as i64 * c,
                limit: self.bdims,
            });
        }
        self.store.update([cx, cy, cz], |slot| *slot = Some(chunk));
        Ok(())
    }

    /// Removes a chunk (it reads as air and is saved as empty); returns it if it existed.
    pub fn take_chunk(&mut self, c: [u32; 3]) -> Option<Chunk> {
        let [cx, cy, cz] = c;
        if !self.contains_chunk([cx, cy, cz]) {
            return None;
        }
        let taken = self
            .store
            .existing_slot_mut([cx, cy, cz])
            .and_then(|s| s.take());
        self.store.settle();
        taken
    }

    /// Allocated chunks with their positions, in file order (z outer, then y, x fastest).
    pub fn chunks(&self) -> impl Iterator<Item = ([u32; 3], &Chunk)> + '_ {
        self.store.iter()
    }

    /// Mutable iteration over allocated chunks, in file order.
    pub fn chunks_mut(&mut self) -> impl Iterator<Item = ([u32; 3], &mut Chunk)> + '_ {
        self.store.iter_mut()
    }

    /// Non-empty chunks (see [`Chunk::is_empty`]) in file order: what a save stores.
    pub fn non_empty_chunks(&self) -> impl Iterator<Item = ([u32; 3], &Chunk)> + '_ {
        self.chunks().filter(|(_, c)| !c.is_empty())
    }

    /// Sky region (0–31 meaningful; stored as is).
    pub fn sky_region(&self) -> u32 {
        self.sky_region
    }

    /// Sets the sky region.
    pub fn set_sky_region(&mut self, sky: u32) {
        self.sky_region = sky;
    }

    /// Mission number (0 = none).
    pub fn mission_number(&self) -> u32 {
        self.mission_number
    }

    /// Sets the mission number.
    pub fn set_mission_number(&mut self, mission: u32) {
        self.mission_number = mission;
    }

    /// The spawn cell, if set.
    pub fn spawn(&self) -> Option<[i32; 3]> {
        self.spawn
    }

    /// The world-wide fields: sky region, mission number and spawn.
    pub fn fields(&self) -> WorldFields {
        WorldFields {
            sky_region: self.sky_region,
            mission_number: self.mission_number,
            spawn: self.spawn,
        }
    }

    /// Sets the world-wide fields; a spawn outside the world is refused (and nothing set).
    pub fn set_fields(&mut self, f: WorldFields) -> Result<()> {
        if let Some([x, y, z]) = f.spawn {
            self.check(x, y, z)?;
        }
        self.sky_region = f.sky_region;
        self.mission_number = f.mission_number;
        self.spawn = f.spawn;
        Ok(())
    }

    /// Sets the spawn cell (must lie inside the world).
    pub fn set_spawn(&mut self, p: [i32; 3]) -> Result<()> {
        let [x, y, z] = p;
        self.check(x, y, z)?;
        self.spawn = Some([x, y, z]);
        Ok(())
    }

    /// Clears the spawn point.
    pub fn clear_spawn(&mut self) {
        self.spawn = None;
    }

    pub(crate) fn set_spawn_unchecked(&mut self, spawn: Option<[i32; 3]>) {
        self.spawn = spawn;
    }

    fn cell_parts(&self, x: i32, y: i32, z: i32) -> Result<([u32; 3], usize)> {
        self.check(x, y, z)?;
        let c = CHUNK_SIZE as u32;
        let (x, y, z) = (x as u32, y as u32, z as u32);
        Ok((
            [x / c, y / c, z / c],
            local_index((x % c) as usize, (y % c) as usize, (z % c) as usize),
        ))
    }

    /// Payload of the first record of `record_type` on a cell.
    pub fn extra_metadata(&self, p: [i32; 3], record_type: u16) -> Option<&[u8]> {
        let [x, y, z] = p;
        let ([cx, cy, cz], i) = self.cell_parts(x, y, z).ok()?;
        self.chunk([cx, cy, cz])?.metadata(i, record_type)
    }

    /// Sets a record on a cell: replaces the first record of that type there, else appends.
    pub fn set_extra_metadata(
        &mut self,
        p: [i32; 3],
        record_type: u16,
        payload: &[u8],
    ) -> Result<()> {
        let [x, y, z] = p;
        let ([cx, cy, cz], i) = self.cell_parts(x, y, z)?;
        let r =
            self.chunk_mut([cx, cy, cz])
                .expect("checked")
                .set_metadata(i, record_type, payload);
        self.store.settle();
        r
    }

    /// Removes every record of `record_type` on a cell; returns how many were removed.
    pub fn remove_extra_metadata(&mut self, p: [i32; 3], record_type: u16) -> usize {
        let [x, y, z] = p;
        let Ok(([cx, cy, cz], i)) = self.cell_parts(x, y, z) else {
            return 0;
        };
        let removed = match self
            .store
            .existing_slot_mut([cx, cy, cz])
            .and_then(|s| s.as_mut())
        {
            Some(c) => c.remove_metadata(i, record_type),
            None => 0,
        };
        self.store.settle();
        removed
    }

    /// Removes every record on every chunk.
    pub fn clear_extra_metadata(&mut self) {
        for (_, c) in self.chunks_mut() {
            c.clear_metadata();
        }
        self.store.settle();
    }

    /// Every record of `record_type` with its world cell, in the original's order: chunks in
    /// file order (z, y, x with x fastest), inside a chunk its record order.
    pub fn collect_extra_metadata(&self, record_type: u16) -> Vec<([i32; 3], &[u8])> {
        let mut out = Vec::new();
        for (pos, c) in self.chunks() {
            for r in c.records().iter().filter(|r| r.record_type == record_type) {
                out.push((world_cell(pos, r), r.payload.as_slice()));
            }
        }
        out
    }

    /// Every record in the world with its cell, in file order.
    pub fn all_extra_metadata(&self) -> impl Iterator<Item = ([i32; 3], &MetaRecord)> + '_ {
        self.chunks()
            .flat_map(|(pos, c)| c.records().iter().map(move |r| (world_cell(pos, r), r)))
    }

    /// The distinct metadata types present, ascending.
    pub fn metadata_types(&self) -> Vec<u16> {
        let mut t: Vec<u16> = self
            .all_extra_metadata()
            .map(|(_, r)| r.record_type)
            .collect();
        t.sort_unstable();
        t.dedup();
        t
    }

    /// Places a MoveObject at its anchor cell `floor(pos_start)`, replacing one already there.
    /// Rejects NaN, infinite, negative or out-of-world starts. Returns the anchor cell.
    pub fn place_move_object(&mut self, object: &MoveObject) -> Result<[i32; 3]> {
        let cell = object
            .anchor(self.block_dims())
            .map_err(|reason| VwrError::InvalidRecord {
                what: "MoveObject",
                reason,
            })?;
        let [x, y, z] = cell.map(|v| v as i32);
        self.set_extra_metadata([x, y, z], META_MOVE_OBJECT, &object.encode())?;
        Ok([x, y, z])
    }

    /// The MoveObject anchored on a cell.
    pub fn move_object_at(&self, p: [i32; 3]) -> Result<Option<MoveObject>> {
        self.decoded_record_at(p, META_MOVE_OBJECT, MoveObject::decode)
    }

    /// Removes the MoveObject(s) on a cell; returns whether there was one.
    pub fn remove_move_object(&mut self, p: [i32; 3]) -> bool {
        let [x, y, z] = p;
        self.remove_extra_metadata([x, y, z], META_MOVE_OBJECT) > 0
    }

    /// All MoveObjects in collect order; fails on the first malformed payload, naming its cell.
    pub fn move_objects(&self) -> Result<Vec<([i32; 3], MoveObject)>> {
        self.decoded_records(META_MOVE_OBJECT, MoveObject::decode)
    }

    /// Sets the plate rotation of a cell (`true` = rotated 90°, swapping X and Z). "Not rotated"
    /// is stored as `{0}`, not by removing the record.
    pub fn set_plate_rotation(&mut self, p: [i32; 3], rotated: bool) -> Result<()> {
        let [x, y, z] = p;
        let payload = PlateRotationPayload {
            rotated: rotated.into(),
        };
        self.set_extra_metadata([x, y, z], META_PLATE_ROTATION, payload.as_bytes())
    }

    /// The plate rotation of a cell, if a record exists (non-zero first byte = rotated).
    pub fn plate_rotation(&self, p: [i32; 3]) -> Option<bool> {
        let [x, y, z] = p;
        self.extra_metadata([x, y, z], META_PLATE_ROTATION)
            // Lenient like the original: extra bytes are ignored, an empty payload is "not rotated".
            .map(|p| PlateRotationPayload::ref_from_prefix(p).is_ok_and(|(r, _)| r.rotated != 0))
    }

    /// Removes the plate-rotation record(s) of a cell.
    pub fn remove_plate_rotation(&mut self, p: [i32; 3]) -> bool {
        let [x, y, z] = p;
        self.remove_extra_metadata([x, y, z], META_PLATE_ROTATION) > 0
    }

    /// Places a BigDecor icon (non-zero) on a cell, replacing one already there.
    pub fn place_big_decor(&mut self, p: [i32; 3], icon: u16) -> Result<()> {
        let [x, y, z] = p;
        if icon == 0 {
            return Err(VwrError::InvalidRecord {
                what: "BigDecor",
                reason: RecordError::ZeroIcon,
            });
        }
        let payload = BigDecorPayload {
            icon: U16::new(icon),
        };
        self.set_extra_metadata([x, y, z], META_BIG_DECOR, payload.as_bytes())
    }

    /// The BigDecor icon on a cell.
    pub fn big_decor_at(&self, p: [i32; 3]) -> Result<Option<u16>> {
        self.decoded_record_at(p, META_BIG_DECOR, decode_big_decor)
    }

    /// Removes the BigDecor record(s) of a cell.
    pub fn remove_big_decor(&mut self, p: [i32; 3]) -> bool {
        let [x, y, z] = p;
        self.remove_extra_metadata([x, y, z], META_BIG_DECOR) > 0
    }

    /// All BigDecor records in collect order.
    pub fn big_decors(&self) -> Result<Vec<([i32; 3], u16)>> {
        self.decoded_records(META_BIG_DECOR, decode_big_decor)
    }

    /// The record of `record_type` on a cell, decoded; a malformed payload is an error naming
    /// the cell.
    fn decoded_record_at<T>(
        &self,
        p: [i32; 3],
        record_type: u16,
        decode: impl Fn(&[u8]) -> std::result::Result<T, RecordError>,
    ) -> Result<Option<T>> {
        self.extra_metadata(p, record_type)
            .map(|payload| decode(payload).map_err(|r| bad_payload(record_type, p, r)))
            .transpose()
    }

    /// Every record of `record_type` in collect order, decoded; fails on the first malformed
    /// payload, naming its cell.
    fn decoded_records<T>(
        &self,
        record_type: u16,
        decode: impl Fn(&[u8]) -> std::result::Result<T, RecordError>,
    ) -> Result<Vec<([i32; 3], T)>> {
        self.collect_extra_metadata(record_type)
            .into_iter()
            .map(|(cell, payload)| {
                decode(payload)
                    .map(|v| (cell, v))
                    .map_err(|r| bad_payload(record_type, cell, r))
            })
            .collect()
    }

    /// Fills the inclusive box between two corners (any order, clamped to the world) with
    /// `block`. Whole chunks covered by the box are replaced by a uniform chunk; partial chunks
    /// are written index by index with one palette lookup. Returns the number of cells visited.
    pub fn fill_box(&mut self, a: [i32; 3], b: [i32; 3], block: Block) -> Result<u64> {
        let Some((lo, hi)) = self.clamp_box(a, b) else {
            return Ok(0);
        };
        let c = CHUNK_SIZE as u32;
        let mut cells = 0u64;
        for cz in lo[2] / c..=hi[2] / c {
            for cy in lo[1] / c..=hi[1] / c {
                for cx in lo[0] / c..=hi[0] / c {
                    let base = [cx * c, cy * c, cz * c];
                    let mut min = [0usize; 3];
                    let mut max = [0usize; 3];
                    for k in 0..3 {
                        min[k] = (lo[k].max(base[k]) - base[k]) as usize;
                        max[k] = (hi[k].min(base[k] + c - 1) - base[k]) as usize;
                    }
                    cells += ((max[0] - min[0] + 1) * (max[1] - min[1] + 1) * (max[2] - min[2] + 1))
                        as u64;
                    let whole = min == [0, 0, 0] && max == [9, 9, 9];
                    if block.is_air() && self.store.get([cx, cy, cz]).is_none() {
                        continue; // a fresh chunk already holds air everywhere
                    }
                    self.store.update([cx, cy, cz], |entry| {
                        if whole {
                            match entry {
                                Some(ch) => {
                                    ch.fill(block);
                                    if ch.is_empty() {
                                        *entry = None;
                                    }
                                }
                                None => *entry = Some(Chunk::uniform(block)),
                            }
                            Ok(())
                        } else {
                            let ch = entry.get_or_insert_with(Chunk::new);
                            ch.fill_box(min, max, block)
                                .map(drop)
                                .map_err(|e| with_pos(e, [cx, cy, cz]))
                        }
                    })?;
                }
            }
        }
        Ok(cells)
    }

    /// Clamps a box given by two corners (any order) to the world; `None` if it misses it.
    pub fn clamp_box(&self, a: [i32; 3], b: [i32; 3]) -> Option<([u32; 3], [u32; 3])> {
        let mut lo = [0u32; 3];
        let mut hi = [0u32; 3];
        for k in 0..3 {
            let limit = self.bdims[k] as i64 - 1;
            let (l, h) = (a[k].min(b[k]) as i64, a[k].max(b[k]) as i64);
            if h < 0 || l > limit {
                return None;
            }
            lo[k] = l.max(0) as u32;
            hi[k] = h.min(limit) as u32;
        }
        Some((lo, hi))
    }

    /// Calls `f(x, y, z, block)` for every non-air block, chunk by chunk in file order.
    pub fn for_each_non_air(&self, mut f: impl FnMut([i32; 3], Block)) {
        for (pos, c) in self.chunks() {
            let base = pos.map(|v| (v * CHUNK_SIZE as u32) as i32);
            c.for_each_non_air(|i, b| {
                let [x, y, z] = local_position(i);
                f(
                    [base[0] + x as i32, base[1] + y as i32, base[2] + z as i32],
                    b,
                )
            });
        }
    }

    /// Number of non-air blocks.
    pub fn count_non_air(&self) -> u64 {
        self.chunks().map(|(_, c)| c.count_non_air() as u64).sum()
    }

    /// Compacts every chunk's palette (see [`Chunk::compact`]) and frees chunks that became
    /// empty. Never changes any block or record.
    pub fn compact(&mut self) {
        self.store.retain_mut(|c| {
            c.compact();
            !c.is_empty()
        });
    }

    /// Clears the dirty flag of every chunk.
    pub fn clear_dirty(&mut self) {
        for (_, c) in self.chunks_mut() {
            c.set_dirty(false);
        }
        self.store.settle();
    }
}

fn world_cell(pos: [u32; 3], r: &MetaRecord) -> [i32; 3] {
    let [x, y, z] = local_position(r.index as usize);
    let c = CHUNK_SIZE as u32;
    [
        (pos[0] * c) as i32 + x as i32,
        (pos[1] * c) as i32 + y as i32,
        (pos[2] * c) as i32 + z as i32,
    ]
}

fn with_pos(e: VwrError, pos: [u32; 3]) -> VwrError {
    match e {
        VwrError::PaletteFull { pos: None } => VwrError::PaletteFull {
            pos: Some(pos.map(|v| v as u16)),
        },
        other => other,
    }
}

fn bad_payload(record_type: u16, cell: [i32; 3], reason: RecordError) -> VwrError {
    VwrError::BadPayload {
        record_type,
        x: cell[0] as u32,
        y: cell[1] as u32,
        z: cell[2] as u32,
        reason,
    }
}

fn decode_big_decor(p: &[u8]) -> std::result::Result<u16, RecordError> {
    match BigDecorPayload::ref_from_bytes(p) {
        Ok(r) if r.icon.get() == 0 => Err(RecordError::BigDecorIconZero),
        Ok(r) => Ok(r.icon.get()),
        Err(_) => Err(RecordError::BigDecorSize { len: p.len() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every method that changes chunks leaves the fast read table settled, so reads after it
    /// take the fast path; chunks lent by `chunk_mut` wait for the next mutable call.
    #[test]
    fn world_methods_leave_the_fast_table_settled() {
        let mut w = crate::samples::full_8bit();
        assert!(w.store.settled(), "decoded");
        type Step = (&'static str, fn(&mut World));
        let steps: [Step; 10] = [
            ("set_block", |w| w.set_block([5, 5, 5], Block(17)).unwrap()),
            ("set_block into a full palette", |w| {
                assert!(w.set_block([5, 5, 5], Block(3)).is_err());
            }),
            ("fill_box", |w| {
                w.fill_box([0, 0, 0], [25, 3, 12], Block(17)).unwrap();
            }),
            ("set_chunk", |w| {
                w.set_chunk([1, 1, 1], Chunk::uniform(Block(5))).unwrap()
            }),
            ("take_chunk", |w| {
                w.take_chunk([2, 2, 2]);
            }),
            ("set_extra_metadata", |w| {
                w.set_extra_metadata([3, 3, 3], 7, &[1]).unwrap()
            }),
            ("remove_extra_metadata", |w| {
                w.remove_extra_metadata([3, 3, 3], 7);
            }),
            ("clear_extra_metadata", World::clear_extra_metadata),
            ("clear_dirty", World::clear_dirty),
            ("compact", World::compact),
        ];
        for (name, step) in steps {
            step(&mut w);
            assert!(w.store.settled(), "{name}");
        }
        w.chunk_mut([4, 4, 4]).unwrap().set(0, Block(33)).unwrap();
        assert!(!w.store.settled(), "a lent chunk waits");
        assert_eq!(w.get_block([40, 40, 40]), Block(33));
        w.set_block([0, 0, 0], Block(1)).unwrap();
        assert!(w.store.settled(), "settled by the next mutable call");
        assert!(w.clone().store.settled(), "clone");
    }
}
