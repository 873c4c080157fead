//! Worlds in a database through the C API (docs/format/vwr-postgres.md): `voxcaf_world_open`
//! and `voxcaf_world_save` take `postgres://USER@HOST:PORT/DB?world=NAME` wherever they take
//! a path. A world opened from a database remembers the commit it was read at, and a save
//! back is one commit that fails with `VOXCAF_ERR_CONFLICT` if another writer committed
//! since: nothing is ever overwritten unseen.

use std::cell::Cell;
use std::path::Path;

use vwr::{StoreHead, StoredChunk, World};
use vwr_postgres::{PgLocation, PgStore};

use crate::error::{Fail, VOXCAF_ERR_INVALID_ARGUMENT};
use crate::world::VoxcafWorld;

/// Where a world handle was read from: its database location and the commit it has seen.
#[derive(Debug)]
pub(crate) struct Origin {
    location: String,
    head: Cell<u64>,
}

const TOOL: &str = "voxcaf C API";

/// The database location `path` is written as, if it is one.
pub(crate) fn location(path: &Path) -> Result<Option<PgLocation>, Fail> {
    match path.to_str() {
        Some(s) if PgLocation::is_url(s) => PgLocation::parse(s)
            .map(Some)
            .map_err(|e| Fail::new(VOXCAF_ERR_INVALID_ARGUMENT, e.to_string())),
        _ => Ok(None),
    }
}

/// The whole world at `loc` and where it came from.
pub(crate) fn open(loc: &PgLocation) -> Result<(World, Origin), Fail> {
    let mut store = PgStore::open(loc)?;
    let (world, head, _) = vwr::load_store(&mut store)?;
    let origin = Origin {
        location: loc.display(),
        head: Cell::new(head.head),
    };
    Ok((world, origin))
}

/// Saves `w` into the database world `loc`: over the world it was opened from, one commit of
/// what differs (refused if another writer committed since); anywhere else, a new world (an
/// existing one is not replaced).
pub(crate) fn save(w: &VoxcafWorld, loc: &PgLocation) -> Result<(), Fail> {
    let here = loc.display();
    match &w.1 {
        Some(origin) if origin.location == here => {
            let mut store = PgStore::open(loc)?;
            let summary = "save through the C API";
            if let Some(c) = vwr::commit_world(&mut store, &w.0, origin.head.get(), TOOL, summary)?
            {
                origin.head.set(c.seq);
            }
            Ok(())
        }
        _ => {
            let head = StoreHead {
                chunk_dims: w.0.chunk_dims(),
                fields: w.0.fields(),
                head: 0,
                fields_version: 0,
                format_version: if w.0.fits_v2() { 2 } else { 3 },
            };
            let chunks: Vec<([u32; 3], StoredChunk)> =
                w.0.non_empty_chunks()
                    .filter_map(|(p, c)| {
                        StoredChunk::encode(c, vwr::Codec::Auto, vwr::DEFAULT_ZSTD_LEVEL)
                            .map(|s| (p, s))
                    })
                    .collect();
            let mut batches = std::iter::once(Ok(chunks));
            vwr_postgres::import(
                loc,
                &head,
                false,
                TOOL,
                "save through the C API",
                &mut batches,
            )?;
            Ok(())
        }
    }
}
