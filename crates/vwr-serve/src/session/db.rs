//! The database mode of a session: the world lives in PostgreSQL (docs/format/vwr-postgres.md)
//! and every accepted edit is committed at once, as one commit with a version check over the
//! chunks it read and changed. Before an edit the session pulls other writers' commits; on a
//! conflict it puts back what the store holds, pulls, and applies the script again (like
//! `vwr_edit::script::edit_store`). Undo and redo are each person's own, through the session's
//! operation log (`vwr_edit::oplog`: a cell others changed since keeps their change), so other
//! writers' commits keep everyone's undo; an undo or redo that meets a newer commit is taken
//! back, the commit pulled, and made again on it. The answer's `synced` says what a pull
//! brought.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use vwr::{Chunk, ChunkStore, Expect, StoreCommit, VwrError, World, WorldFields};
use vwr_edit::script::{footprint, Applied, Located, MAX_ATTEMPTS};
use vwr_edit::Editor;
use vwr_postgres::{PgLocation, PgStore};

use super::team::now_ms;
use super::{Session, SessionOptions};
use crate::answer::{HistoryAnswer, SaveAnswer, Success, SyncAnswer};
use crate::error::{Result, ServeError};

/// The tool recorded with the session's commits.
pub const TOOL: &str = "voxcaf world serve";

/// What the session holds of one stored chunk: the commit that wrote it and the revision of
/// the chunk in the session's world that equals it.
#[derive(Clone, Copy, Debug)]
struct Held {
    version: u64,
    revision: u64,
}

/// A session's link to its world in a database.
#[derive(Debug)]
pub(super) struct DbLink {
    store: PgStore,
    loc: PgLocation,
    location: String,
    /// The store's head as last pulled (or moved by an own commit right after it).
    head: u64,
    fields_version: u64,
    /// The fields as the store has them at `fields_version`.
    fields: WorldFields,
    /// Every stored chunk the world holds.
    held: HashMap<[u32; 3], Held>,
    /// What the last pull brought from others, for the next answer.
    pub(super) note: Option<String>,
}

/// What a pull brought from other writers.
struct Pulled {
    head: u64,
    chunks: Vec<([u32; 3], u64, Option<Chunk>)>,
    fields: Option<(WorldFields, u64)>,
}

/// The chunks a script can read or write: `None` when its reach is not bounded.
fn reach(world: &World, ops: &[Located]) -> Option<Vec<[u32; 3]>> {
    footprint(ops).chunks_in(world)
}

impl DbLink {
    /// Opens the world `loc` names and reads it whole, in batches.
    fn open(loc: &PgLocation) -> Result<(DbLink, World)> {
        let location = loc.display();
        let err = |e| ServeError::world(Path::new(&location), e);
        let mut store = PgStore::open(loc).map_err(err)?;
        let (world, head, versions) = vwr::load_store(&mut store).map_err(err)?;
        let held = versions
            .into_iter()
            .map(|(pos, version)| {
                let revision = world.chunk_revision(pos).unwrap_or(0);
                (pos, Held { version, revision })
            })
            .collect();
        let link = DbLink {
            store,
            loc: loc.clone(),
            location: location.clone(),
            head: head.head,
            fields_version: head.fields_version,
            fields: head.fields,
            held,
            note: None,
        };
        Ok((link, world))
    }

    fn err(&self, e: VwrError) -> ServeError {
        ServeError::world(Path::new(&self.location), e)
    }

    /// The chunks of `world` that differ from what the store holds, in file order.
    fn changed(&self, world: &World) -> Vec<[u32; 3]> {
        let mut out: Vec<[u32; 3]> = world
            .chunks()
            .filter(|(p, c)| match self.held.get(p) {
                Some(h) => h.revision != c.revision(),
                None => !c.is_empty(),
            })
            .map(|(p, _)| p)
            .collect();
        out.extend(self.held.keys().filter(|p| world.chunk(**p).is_none()));
        out.sort_unstable_by_key(|p| (p[2], p[1], p[0]));
        out.dedup();
        out
    }

    /// Commits the chunks of `world` in `changed` and its fields when they changed, expecting
    /// the versions held for `read` and `changed` (or the head when `read` is `None`). The
    /// commit's seq, or `None` when nothing changed.
    fn commit(
        &mut self,
        world: &World,
        changed: &[[u32; 3]],
        read: Option<&[[u32; 3]]>,
        summary: &str,
    ) -> std::result::Result<Option<u64>, VwrError> {
        let fields = (world.fields() != self.fields).then(|| (world.fields(), self.fields_version));
        if changed.is_empty() && fields.is_none() {
            return Ok(None);
        }
        let expect = match read {
            None => Expect::Head(self.head),
            Some(read) => {
                let mut v: Vec<([u32; 3], u64)> = read
                    .iter()
                    .chain(changed)
                    .map(|p| (*p, self.held.get(p).map_or(0, |h| h.version)))
                    .collect();
                v.sort_unstable_by_key(|(p, _)| (p[2], p[1], p[0]));
                v.dedup();
                Expect::Chunks(v)
            }
        };
        let commit = StoreCommit {
            expect,
            changes: changed
                .iter()
                .map(|&p| (p, world.chunk(p).filter(|c| !c.is_empty())))
                .collect(),
            fields,
            tool: TOOL,
            summary,
        };
        let seq = self.store.commit(&commit)?.seq;
        for &p in changed {
            match world.chunk(p).filter(|c| !c.is_empty()) {
                Some(c) => {
                    let revision = c.revision();
                    self.held.insert(
                        p,
                        Held {
                            version: seq,
                            revision,
                        },
                    );
                }
                None => {
                    self.held.remove(&p);
                }
            }
        }
        if let Some((f, _)) = fields {
            self.fields = f;
            self.fields_version = seq;
        }
        if seq == self.head + 1 {
            self.head = seq;
        }
        Ok(Some(seq))
    }

    /// Reads what other writers committed since the head held (and the chunks in `reset`,
    /// whatever their version): `None` when nothing of theirs is new.
    fn pull(&mut self, reset: &[[u32; 3]]) -> std::result::Result<Option<Pulled>, VwrError> {
        let head = self.store.head()?;
        if head.head == self.head && reset.is_empty() {
            return Ok(None);
        }
        let mut chunks = Vec::new();
        // What changed since the head held, when the kept history says (removals included);
        // otherwise every stored chunk, and the ones held but no longer stored are removed.
        let changed = self.store.changed_since(self.head)?;
        let whole = changed.is_none();
        let mut list = match changed {
            Some(list) => list,
            None => self.store.list()?,
        };
        list.extend(
            reset
                .iter()
                .filter(|p| !list.contains(p))
                .collect::<Vec<_>>(),
        );
        let mut stored = HashSet::new();
        for batch in list.chunks(vwr::STORE_BATCH) {
            for v in self.store.read(batch)? {
                if v.chunk.is_some() {
                    stored.insert(v.pos);
                }
                let held = self.held.get(&v.pos).map_or(0, |h| h.version);
                if held != v.version || reset.contains(&v.pos) {
                    chunks.push((v.pos, v.version, v.chunk));
                }
            }
        }
        if whole {
            for (p, _) in self.held.iter().filter(|(p, _)| !stored.contains(*p)) {
                chunks.push((*p, 0, None));
            }
        }
        let fields_moved = head.fields_version != self.fields_version;
        let fields =
            (fields_moved || !reset.is_empty()).then_some((head.fields, head.fields_version));
        if chunks.is_empty() && fields.is_none() {
            self.head = head.head;
            return Ok(None);
        }
        Ok(Some(Pulled {
            head: head.head,
            chunks,
            fields,
        }))
    }

    /// Puts what a pull brought into `world`.
    fn take_in(&mut self, world: &mut World, p: Pulled) -> std::result::Result<usize, VwrError> {
        let n = p.chunks.len();
        for (pos, version, chunk) in p.chunks {
            match chunk {
                Some(c) => {
                    let revision = c.revision();
                    world.set_chunk(pos, c)?;
                    self.held.insert(pos, Held { version, revision });
                }
                None => {
                    drop(world.take_chunk(pos));
                    self.held.remove(&pos);
                }
            }
        }
        if let Some((f, v)) = p.fields {
            world.set_fields(f)?;
            self.fields = f;
            self.fields_version = v;
        }
        self.head = p.head;
        Ok(n)
    }
}

impl Session {
    /// Opens the world in the database `loc` names for editing in database mode: read whole
    /// (in batches), every accepted edit committed at once (see [`Session::sync`]). There is
    /// no journal, no backup and nothing to save.
    pub fn open_db(loc: &PgLocation, opts: SessionOptions) -> Result<Session> {
        let (link, world) = DbLink::open(loc)?;
        let location = link.location.clone();
        let mut s = Session::with_world(None, location.into(), world, opts);
        s.db = Some(Box::new(link));
        // The operation log keeps each person's undo (its lines are not written: every
        // operation is a commit of the store).
        s.team = Some(super::team::Team::in_memory(&opts, s.world()));
        s.editor.set_limits(s.editor_limits());
        Ok(s)
    }

    /// Whether the world is in a database.
    pub fn is_db(&self) -> bool {
        self.db.is_some()
    }

    /// The database world's commit counter as the session holds it (`None` for a file).
    pub fn head(&self) -> Option<u64> {
        self.db.as_ref().map(|d| d.head)
    }

    /// Pulls other writers' commits (a head query when there are none): changed chunks
    /// replace the session's (their meshes are then in [`Session::chunks_since`]) and the undo
    /// history is cleared, which `synced` says. A file session answers with nothing pulled.
    pub fn sync(&mut self) -> Result<SyncAnswer> {
        let pulled = self.pull(&[])?;
        Ok(SyncAnswer {
            head: self.head(),
            pulled,
            state: self.edit_state(),
        })
    }

    /// Pulls other writers' commits as [`Session::sync`] does, without building its answer:
    /// the note saying what came in, `None` when nothing did (a head query). What a server
    /// that someone follows runs every second.
    pub fn pull_others(&mut self) -> Result<Option<String>> {
        self.pull(&[])?;
        Ok(self.db.as_mut().and_then(|d| d.note.take()))
    }

    /// Pulls, resetting the chunks in `reset` (and the fields) to the store's; the chunks
    /// brought in (undo stays: it is rebased over them).
    fn pull(&mut self, reset: &[[u32; 3]]) -> Result<usize> {
        let limits = self.editor_limits();
        let Some(db) = self.db.as_mut() else {
            return Ok(0);
        };
        let Some(p) = db.pull(reset).map_err(|e| db.err(e))? else {
            return Ok(0);
        };
        let ed = std::mem::replace(&mut self.editor, Editor::new(World::new()));
        let mut world = ed.into_world();
        let taken = db.take_in(&mut world, p);
        self.editor = Editor::with_limits(world, limits);
        let n = taken.map_err(|e| db.err(e))?;
        self.gen += 1;
        db.note = Some(format!(
            "another editor committed (now at commit {}): {n} chunk{} updated",
            db.head,
            if n == 1 { "" } else { "s" }
        ));
        Ok(n)
    }

    /// Applies a script in database mode and commits it: pull, apply as `user`'s one step
    /// of the log, commit; on a conflict take the step back, put the store's chunks back,
    /// pull, and apply again.
    pub(super) fn apply_db(
        &mut self,
        user: &str,
        text: &str,
        ops: &[Located],
    ) -> Result<Vec<Applied>> {
        let summary: String = ops.iter().map(|l| format!("{}\n", l.text)).collect();
        self.pull(&[])?;
        let mut last = None;
        for _ in 0..MAX_ATTEMPTS {
            let limit = self.opts.fill_limit;
            let team = self.team.as_mut().ok_or_else(super::team::no_log)?;
            let (applied, entry) = team
                .log
                .edit(&mut self.editor, user, text, ops, limit, now_ms())
                .map_err(ServeError::from_log)?;
            let logged = entry.is_some();
            let read = reach(self.editor.world(), ops);
            match self.commit_step(user, logged, read.as_deref(), &summary)? {
                None => return Ok(applied),
                Some(e) => last = Some(e),
            }
        }
        Err(kept_losing(last))
    }

    /// Commits what the newest step changed (`logged`: it is in the log, `user`'s). On a
    /// conflict the step is taken back out of the log and the store's chunks put back:
    /// `Some(conflict)`, for the caller to try again.
    fn commit_step(
        &mut self,
        user: &str,
        logged: bool,
        read: Option<&[[u32; 3]]>,
        summary: &str,
    ) -> Result<Option<VwrError>> {
        let Some(db) = self.db.as_mut() else {
            return Ok(None);
        };
        let changed = db.changed(self.editor.world());
        let r = db.commit(self.editor.world(), &changed, read, summary);
        if r.is_ok() {
            return Ok(None);
        }
        if let (true, Some(t)) = (logged, self.team.as_mut()) {
            t.log.retract_last(user);
        }
        match r {
            Err(e @ VwrError::Conflict { .. }) => {
                self.pull(&changed)?;
                Ok(Some(e))
            }
            Err(e) => {
                let e = match self.db.as_ref() {
                    Some(d) => d.err(e),
                    None => ServeError::Refused {
                        message: e.to_string(),
                    },
                };
                self.editor.undo();
                Err(e)
            }
            Ok(_) => Ok(None),
        }
    }

    /// Undo or redo of `user`'s own step in database mode, under the log's rule (cells
    /// others changed since keep their change), committed; on a conflict it is taken back,
    /// the others' commits pulled, and made again on them.
    pub(super) fn history_db(&mut self, user: &str, redo: bool) -> Result<HistoryAnswer> {
        self.pull(&[])?;
        let mut last = None;
        for _ in 0..MAX_ATTEMPTS {
            let team = self.team.as_mut().ok_or_else(super::team::no_log)?;
            let Some(e) = team.step(&mut self.editor, user, redo)? else {
                return Ok(self.after_history(user, None));
            };
            match self.commit_step(user, true, Some(&[]), &e.change.label)? {
                None => return Ok(self.after_history(user, Some(e.change))),
                Some(c) => last = Some(c),
            }
        }
        Err(kept_losing(last))
    }

    /// Save in database mode: everything is committed already; the answer names the head.
    pub(super) fn save_db(&mut self) -> Result<SaveAnswer> {
        self.pull(&[])?;
        let head = self.head();
        Ok(SaveAnswer {
            ok: Success,
            file: self.path.display().to_string(),
            written: false,
            backup: None,
            bytes: 0,
            bytes_written: 0,
            commit: None,
            incremental: false,
            committed: head,
        })
    }

    /// Reload in database mode: the whole world read again, the history dropped.
    pub(super) fn reload_db(&mut self) -> Result<World> {
        let Some(db) = self.db.as_mut() else {
            return Err(ServeError::Refused {
                message: "not a database world".into(),
            });
        };
        let (link, world) = DbLink::open(&db.loc)?;
        **db = link;
        Ok(world)
    }
}

/// The refusal when other writers won every attempt.
fn kept_losing(last: Option<VwrError>) -> ServeError {
    let what = last.map_or_else(String::new, |e| e.to_string());
    ServeError::Refused {
        message: format!("other editors kept committing first ({what}); nothing was written"),
    }
}
