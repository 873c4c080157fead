//! The canonical text dump of a world (the golden `.dump.txt` format).
//!
//! 1. `header chunksPerAxis=N skyRegion=S missionNumber=M spawn=X,Y,Z` (or `spawn=none`); a
//!    non-cubic world prints `chunks=XxYxZ` in place of `chunksPerAxis=N`;
//! 2. `x y z raw` for every non-air cell, z outer, then y, x fastest;
//! 3. `meta x y z type hex` for every record, types ascending, each type in
//!    [`World::collect_extra_metadata`] order; an empty payload prints as `-`.

use std::io::{self, Write};

use crate::chunk::{local_index, Chunk, CHUNK_SIZE};
use crate::world::World;

/// The canonical dump of `world`.
pub fn dump(world: &World) -> String {
    let mut s = String::new();
    write_dump(world, &mut s);
    s
}

/// Appends the canonical dump of `world` to `out`.
pub fn write_dump(world: &World, out: &mut String) {
    let mut bytes = Vec::new();
    // Writing to a Vec cannot fail, and the dump is ASCII.
    let _ = write_dump_to(world, &mut bytes);
    out.push_str(&String::from_utf8_lossy(&bytes));
}

/// Writes the canonical dump of `world` to `out` as it goes: the time is in proportion to the
/// allocated chunks (not the world's nominal size) and the memory to one z-slab of chunk
/// references.
pub fn write_dump_to<W: Write>(world: &World, out: &mut W) -> io::Result<()> {
    let spawn = match world.spawn() {
        Some([x, y, z]) => format!("{x},{y},{z}"),
        None => "none".to_string(),
    };
    let [nx, ny, nz] = world.chunk_dims();
    let size = if nx == ny && ny == nz {
        format!("chunksPerAxis={nx}")
    } else {
        format!("chunks={nx}x{ny}x{nz}")
    };
    writeln!(
        out,
        "header {size} skyRegion={} missionNumber={} spawn={}",
        world.sky_region(),
        world.mission_number(),
        spawn
    )?;
    // World order is z, y, x over the whole world. Chunks come in file order (cz, cy, cx), so
    // one z-slab at a time: for each z of the slab, each row of chunks along x contributes one
    // 10-cell row per y.
    let mut slab: Vec<([u32; 3], &Chunk)> = Vec::new();
    for (pos, chunk) in world.chunks() {
        if slab.first().is_some_and(|(first, _)| first[2] != pos[2]) {
            write_slab(&slab, out)?;
            slab.clear();
        }
        slab.push((pos, chunk));
    }
    write_slab(&slab, out)?;
    for t in world.metadata_types() {
        for ([x, y, z], p) in world.collect_extra_metadata(t) {
            write!(out, "meta {x} {y} {z} {t} ")?;
            if p.is_empty() {
                out.write_all(b"-")?;
            }
            for b in p {
                write!(out, "{b:02x}")?;
            }
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// The cells of one z-slab of chunks (all with the same `cz`, in (cy, cx) order).
fn write_slab<W: Write>(slab: &[([u32; 3], &Chunk)], out: &mut W) -> io::Result<()> {
    let c = CHUNK_SIZE as u32;
    for lz in 0..c {
        for row in slab.chunk_by(|a, b| a.0[1] == b.0[1]) {
            for ly in 0..c {
                for ([cx, cy, cz], chunk) in row {
                    for lx in 0..c {
                        let b = chunk.get(local_index(lx as usize, ly as usize, lz as usize));
                        if !b.is_air() {
                            writeln!(
                                out,
                                "{} {} {} {}",
                                cx * c + lx,
                                cy * c + ly,
                                cz * c + lz,
                                b.raw()
                            )?;
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
