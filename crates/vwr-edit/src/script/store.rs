//! An edit script applied to a world in a [`ChunkStore`]: read what the script reaches, apply,
//! commit with a version check, and on a conflict read again and apply again
//! (docs/format/vwr-postgres.md §3). The world then equals the serial application of every
//! committed script in commit order.

use std::collections::HashMap;

use vwr::{Chunk, ChunkStore, Committed, Expect, StoreCommit, VwrError, World};

use super::{apply_ops, footprint, Applied, Footprint, Located, ScriptError};
use crate::Editor;

/// Attempts before a script that keeps meeting other writers' commits gives up.
pub const MAX_ATTEMPTS: u32 = 64;

/// How an edit of a store went wrong.
#[derive(Debug, thiserror::Error)]
pub enum StoreEditError {
    /// An operation the world refuses (nothing was written).
    #[error(transparent)]
    Script(#[from] ScriptError),
    /// The store failed, or other writers kept committing first.
    #[error(transparent)]
    Store(#[from] VwrError),
}

/// What an edit of a store did.
#[derive(Debug)]
pub struct StoreEdit {
    /// The operations, as applied by the attempt that committed.
    pub applied: Vec<Applied>,
    /// The commit; `None` when nothing changed or for a dry run.
    pub committed: Option<Committed>,
    /// Chunks that changed.
    pub chunks_changed: u64,
    /// Whether the world-wide fields changed.
    pub fields_changed: bool,
    /// Attempts made (1 unless other writers committed in between).
    pub attempts: u32,
    /// The edited world (only the chunks the script reached are loaded).
    pub world: World,
}

/// Applies `ops` to the world in `store` and commits the result as one commit (unless
/// `dry_run`), retrying on conflicts up to [`MAX_ATTEMPTS`] times. `tool` and the script's
/// text are recorded with the commit.
pub fn edit_store(
    store: &mut dyn ChunkStore,
    ops: &[Located],
    fill_limit: u64,
    tool: &str,
    dry_run: bool,
) -> Result<StoreEdit, StoreEditError> {
    let summary: String = ops.iter().map(|l| format!("{}\n", l.text)).collect();
    let reach = footprint(ops);
    let mut last = None;
    for attempt in 1..=MAX_ATTEMPTS {
        let head = store.head()?;
        let mut world = World::with_chunk_dims(head.chunk_dims)?;
        world.set_fields(head.fields)?;
        let positions = match reach.chunks_in(&world) {
            Some(p) => p,
            None => store.list()?,
        };
        let mut read: HashMap<[u32; 3], (u64, Option<Chunk>)> = HashMap::new();
        for batch in positions.chunks(vwr::STORE_BATCH) {
            for v in store.read(batch)? {
                if let Some(c) = &v.chunk {
                    world.set_chunk(v.pos, c.clone())?;
                }
                read.insert(v.pos, (v.version, v.chunk));
            }
        }
        let revisions: HashMap<[u32; 3], u64> =
            world.chunks().map(|(p, c)| (p, c.revision())).collect();
        let mut ed = Editor::new(world);
        let applied = apply_ops(&mut ed, ops, fill_limit)?;
        let world = ed.into_world();
        let changes = changed_chunks(&world, &read, &revisions);
        let fields_changed = world.fields() != head.fields;
        let chunks_changed = changes.len() as u64;
        let mut done = StoreEdit {
            applied,
            committed: None,
            chunks_changed,
            fields_changed,
            attempts: attempt,
            world: World::new(),
        };
        if dry_run || (changes.is_empty() && !fields_changed) {
            done.world = world;
            return Ok(done);
        }
        let bounded = matches!(reach, Footprint::Boxes(_));
        let expect = if bounded && changes.iter().all(|p| read.contains_key(p)) {
            let mut v: Vec<([u32; 3], u64)> = read.iter().map(|(p, (v, _))| (*p, *v)).collect();
            v.sort_unstable_by_key(|(p, _)| (p[2], p[1], p[0]));
            Expect::Chunks(v)
        } else {
            Expect::Head(head.head)
        };
        let commit = StoreCommit {
            expect,
            changes: changes
                .iter()
                .map(|&p| (p, world.chunk(p).filter(|c| !c.is_empty())))
                .collect(),
            fields: fields_changed.then_some((world.fields(), head.fields_version)),
            tool,
            summary: &summary,
        };
        match store.commit(&commit) {
            Ok(c) => {
                done.committed = Some(c);
                done.world = world;
                return Ok(done);
            }
            Err(e @ VwrError::Conflict { .. }) => last = Some(e),
            Err(e) => return Err(e.into()),
        }
    }
    Err(last
        .map(|e| match e {
            VwrError::Conflict { location, what } => VwrError::Conflict {
                location,
                what: format!("{what} (after {MAX_ATTEMPTS} attempts)"),
            },
            e => e,
        })
        .unwrap_or_else(|| VwrError::Unrepresentable("no attempt was made".into()))
        .into())
}

/// The positions whose chunk differs from what was read (a new chunk where none was read, a
/// read chunk emptied), in file order.
fn changed_chunks(
    world: &World,
    read: &HashMap<[u32; 3], (u64, Option<Chunk>)>,
    revisions: &HashMap<[u32; 3], u64>,
) -> Vec<[u32; 3]> {
    let mut out = Vec::new();
    for (p, c) in world.chunks() {
        if revisions.get(&p) == Some(&c.revision()) {
            continue;
        }
        let before = read.get(&p).and_then(|(_, c)| c.as_ref());
        let same = match before {
            Some(b) => b == c,
            None => c.is_empty(),
        };
        if !same {
            out.push(p);
        }
    }
    // Chunks read and no longer in the world (taken whole).
    for (p, (_, c)) in read {
        if c.is_some() && world.chunk(*p).is_none() {
            out.push(*p);
        }
    }
    out.sort_unstable_by_key(|p| (p[2], p[1], p[0]));
    out
}
