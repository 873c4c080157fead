//! Summary statistics of a world (what `voxcaf world info` prints).

use std::collections::BTreeMap;

use crate::world::World;

/// Counts describing a world's storage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorldStats {
    /// Chunks per axis (the largest axis of a non-cubic world).
    pub chunks_per_axis: u32,
    /// Chunks along x, y and z.
    pub chunk_dims: [u32; 3],
    /// Total chunk slots (`X·Y·Z`).
    pub chunk_count: u64,
    /// Chunks that a save stores (not empty).
    pub non_empty_chunks: u64,
    /// Non-empty chunks whose palette has a single entry.
    pub uniform_chunks: u64,
    /// Non-air blocks.
    pub non_air_blocks: u64,
    /// Non-empty chunks by bits per block.
    pub bits_histogram: BTreeMap<u8, u64>,
    /// Non-empty chunks by palette size.
    pub palette_sizes: BTreeMap<usize, u64>,
    /// Extra-metadata records by type.
    pub records_by_type: BTreeMap<u16, u64>,
    /// All extra-metadata records.
    pub metadata_records: u64,
    /// Size of the world in the v2 layout (what [`World::to_bytes`] writes when the world fits
    /// v2; see `v2_size`).
    pub saved_size: u64,
    /// Size of the world in v2, when it fits v2.
    pub v2_size: Option<u64>,
}

impl WorldStats {
    /// Computes the statistics of `world`.
    pub fn of(world: &World) -> WorldStats {
        let mut s = WorldStats {
            chunks_per_axis: world.chunks_per_axis(),
            chunk_dims: world.chunk_dims(),
            chunk_count: world.chunk_count() as u64,
            ..Default::default()
        };
        let n = world.chunk_count() as u64;
        s.saved_size = 40 + 20 * n;
        for (_, c) in world.non_empty_chunks() {
            s.non_empty_chunks += 1;
            if c.is_uniform() {
                s.uniform_chunks += 1;
            }
            s.non_air_blocks += c.count_non_air() as u64;
            *s.bits_histogram.entry(c.bits_per_block()).or_default() += 1;
            *s.palette_sizes.entry(c.palette().len()).or_default() += 1;
            for r in c.records() {
                *s.records_by_type.entry(r.record_type).or_default() += 1;
                s.metadata_records += 1;
            }
            s.saved_size += crate::codec::chunk_payload_size(c) as u64;
        }
        // A world v2 cannot hold has no fixed saved size (v3's depends on the codec), and
        // computing it would mean encoding the whole world.
        s.v2_size = world.fits_v2().then_some(s.saved_size);
        s
    }
}
