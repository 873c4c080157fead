//! The canonical text dump of a world (the golden `.dump.txt` format).
//!
//! 1. `header chunksPerAxis=N skyRegion=S missionNumber=M spawn=X,Y,Z` (or `spawn=none`); a
//!    non-cubic world prints `chunks=XxYxZ` in place of `chunksPerAxis=N`;
//! 2. `x y z raw` for every non-air cell, z outer, then y, x fastest;
//! 3. `meta x y z type hex` for every record, types ascending, each type in
//!    [`World::collect_extra_metadata`] order; an empty payload prints as `-`.

use std::fmt::Write;

use crate::chunk::{local_index, CHUNK_SIZE};
use crate::world::World;

/// The canonical dump of `world`.
pub fn dump(world: &World) -> String {
    let mut s = String::new();
    write_dump(world, &mut s);
    s
}

/// Appends the canonical dump of `world` to `out`.
pub fn write_dump(world: &World, out: &mut String) {
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
    let _ = writeln!(
        out,
        "header {size} skyRegion={} missionNumber={} spawn={}",
        world.sky_region(),
        world.mission_number(),
        spawn
    );
    // World order is z, y, x over the whole world, so walk chunk rows: for each z and y, the
    // chunks along x, each contributing one 10-cell row.
    let c = CHUNK_SIZE as u32;
    for cz in 0..nz {
        for lz in 0..c {
            for cy in 0..ny {
                // Skip a whole row of chunks along x when none is allocated.
                if (0..nx).all(|cx| world.chunk([cx, cy, cz]).is_none()) {
                    continue;
                }
                for ly in 0..c {
                    for cx in 0..nx {
                        let Some(ch) = world.chunk([cx, cy, cz]) else {
                            continue;
                        };
                        for lx in 0..c {
                            let b = ch.get(local_index(lx as usize, ly as usize, lz as usize));
                            if !b.is_air() {
                                let _ = writeln!(
                                    out,
                                    "{} {} {} {}",
                                    cx * c + lx,
                                    cy * c + ly,
                                    cz * c + lz,
                                    b.raw()
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    for t in world.metadata_types() {
        for ([x, y, z], p) in world.collect_extra_metadata(t) {
            let _ = write!(out, "meta {x} {y} {z} {t} ");
            if p.is_empty() {
                out.push('-');
            }
            for b in p {
                let _ = write!(out, "{b:02x}");
            }
            out.push('\n');
        }
    }
}
