//! One editing session: the opened file, its world inside a `vwr-edit` [`Editor`] (with its
//! exact undo history), the incremental mesh cache, saving and the autosave journal.
//!
//! Everything the HTTP API does is a method here, so the session can be driven and tested
//! without a server.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use vwr::{World, WorldSession, CHUNK_SIZE};
use vwr_blocks::Registry;
use vwr_edit::script::{parse_text, Effect, Op};
use vwr_edit::{all_chunk_stats, Change, Editor, Layer};
use vwr_mesh::{MeshCache, MeshOptions};

use crate::answer::{
    BlockInfo, BlockList, ChunkStatInfo, ChunkStatsAnswer, DiscardAnswer, EditState, HistoryAnswer,
    LayerAnswer, OpInfo, PlayState, PlayStopped, RecoverAnswer, RecoveryInfo, ReloadAnswer,
    SaveAnswer, ScriptAnswer, SharedFields, Success, WorldSummary,
};
use crate::error::{Result, ServeError};
use crate::wire;

mod db;
mod journal;
mod lod;
mod team;

pub use journal::JournalJob;
pub(crate) use lod::parse_level;
pub use lod::LOD_MAX_LEVEL;

pub use team::{oplog_path, OWNER};

/// Limits and defaults of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionOptions {
    /// Cell limit of a `fill` operation that gives none (the same default as `voxcaf world
    /// edit`, so that the same script does the same thing).
    pub fill_limit: u64,
    /// The largest `limit N` a `fill` operation may ask for.
    pub max_fill_limit: u64,
    /// Undo steps kept (one step per request: a UI action or a script).
    pub history_depth: usize,
    /// Bytes the undo and redo records may hold; the oldest steps are dropped past it.
    pub history_bytes: usize,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            fill_limit: 1_000_000,
            max_fill_limit: 16_000_000,
            history_depth: DEFAULT_HISTORY_DEPTH,
            history_bytes: 512 << 20,
        }
    }
}

/// Undo steps the editor keeps by default: a working day of edits (one step a few seconds for
/// eight hours), within the byte budget.
pub const DEFAULT_HISTORY_DEPTH: usize = 10_000;

/// The most cells one `GET /api/layer` answers (2048 × 2048; about 10 bytes each on the
/// wire): the page asks for 200 × 200 at most, and a script maps a larger level by regions.
pub const MAX_LAYER_ANSWER_CELLS: u64 = 1 << 22;

/// The autosave journal of `file`: `FILE.journal`, a complete `.vwr` world holding the unsaved
/// edits.
pub fn journal_path(file: &Path) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(".journal");
    PathBuf::from(s)
}

/// How the editor meshes chunks (the cache and the timeline's views alike): plain greedy
/// quads, compact on the wire; the page splits them watertight itself (`assets/watertight.js`,
/// the triangles of `MeshOptions::GREEDY_AO_WATERTIGHT`, held to them by the page test).
pub(crate) fn mesh_options() -> MeshOptions {
    MeshOptions::GREEDY_AO
}

/// How [`Session::save_with`] saves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaveMode {
    /// Save, refusing to overwrite a file that changed on disk.
    Normal,
    /// Save over a file that changed on disk.
    Overwrite,
    /// Save as a new file beside the opened one (a plain name ending in `.vwr`) and edit it.
    As(String),
}

fn history_limits(o: &SessionOptions) -> vwr_edit::HistoryLimits {
    vwr_edit::HistoryLimits {
        max_depth: o.history_depth,
        max_bytes: o.history_bytes,
    }
}

/// Opens `path` for writing (taking its lock) with every chunk loaded.
fn open_file(path: &Path) -> Result<(WorldSession, World)> {
    let opts = vwr::SessionOptions::tool("voxcaf world serve");
    let (mut file, mut world) =
        WorldSession::open(path, opts).map_err(|e| ServeError::world(path, e))?;
    file.load_all(&mut world)
        .map_err(|e| ServeError::world(path, e))?;
    Ok((file, world))
}

use vwr_edit::oplog::fnv64 as fnv;

/// An autosave journal found when the session was opened, waiting for the user to recover
/// or discard it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recovery {
    /// The journal file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// When it was last written (seconds since the Unix epoch), if known.
    pub modified_unix: Option<u64>,
}

/// An editing session on one file, or on a world in a database ([`Session::open_db`]).
#[derive(Debug)]
pub struct Session {
    /// The file, open for writing (its lock is held while the session lives); `None` in
    /// database mode.
    file: Option<WorldSession>,
    /// The world's database (database mode).
    db: Option<Box<db::DbLink>>,
    path: PathBuf,
    opts: SessionOptions,
    editor: Editor,
    registry: &'static Registry,
    cache: MeshCache,
    /// Bumped each time the mesh cache rebuilt something.
    epoch: u32,
    /// The epoch at which each chunk last changed (mesh or blocks).
    versions: HashMap<[u32; 3], u32>,
    /// Hash of the file's bytes on disk as last loaded or saved.
    saved_hash: u64,
    /// Counts changes of the world; compared with `journal_gen`.
    gen: u64,
    journal_gen: u64,
    recovery: Option<Recovery>,
    /// The levels of detail, built on the first `GET /api/lod`.
    lod: lod::Lod,
    /// The play test in progress, if any.
    play: Option<crate::play::PlayTest>,
    /// File mode: the operation log (database mode commits every edit instead).
    team: Option<team::Team>,
}

/// The file of a file session (a database session has none).
fn file_of(file: &mut Option<WorldSession>) -> Result<&mut WorldSession> {
    file.as_mut().ok_or_else(|| ServeError::Refused {
        message: "a world in a database has no file".into(),
    })
}

impl Session {
    /// Opens `path` (which must be a readable `.vwr` world). An autosave journal beside it
    /// that differs from the file is offered for recovery ([`Session::recovery`]); one equal
    /// to the file is removed.
    pub fn open(path: &Path, opts: SessionOptions) -> Result<Session> {
        let (file, world) = open_file(path)?;
        // The world's v2-or-v3 bytes as `World::to_bytes` writes them: what the journal holds.
        let bytes = world.to_bytes();
        let saved_hash = fnv(&bytes);
        let jpath = journal_path(path);
        let recovery = match std::fs::read(&jpath) {
            Ok(j) if fnv(&j) == saved_hash && j == bytes => {
                std::fs::remove_file(&jpath).map_err(|e| ServeError::io(&jpath, e))?;
                None
            }
            Ok(j) => {
                let modified_unix = std::fs::metadata(&jpath)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_secs());
                Some(Recovery {
                    path: jpath,
                    bytes: j.len() as u64,
                    modified_unix,
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(ServeError::io(&jpath, e)),
        };
        let team = team::Team::start(path, &world, &opts)?;
        let mut s = Session::with_world(Some(file), path.to_path_buf(), world, opts);
        s.team = Some(team);
        s.editor
            .set_limits(vwr_edit::oplog::editor_limits(history_limits(&opts)));
        s.saved_hash = saved_hash;
        s.recovery = recovery;
        Ok(s)
    }

    fn with_world(
        file: Option<WorldSession>,
        path: PathBuf,
        world: World,
        opts: SessionOptions,
    ) -> Session {
        let mut s = Session {
            file,
            db: None,
            path,
            opts,
            editor: Editor::with_limits(world, history_limits(&opts)),
            registry: vwr_blocks::default_registry(),
            cache: MeshCache::new(mesh_options()),
            epoch: 0,
            versions: HashMap::new(),
            saved_hash: 0,
            gen: 0,
            journal_gen: 0,
            recovery: None,
            lod: lod::Lod::default(),
            play: None,
            team: None,
        };
        // The meshes of the world as opened (epoch 1), so that the first edit's answer lists
        // the chunks it changed rather than every chunk of a first build.
        s.update_meshes();
        s
    }

    /// The editor's history bounds: the newest command only in file mode (the log keeps
    /// each user's steps), the whole history in database mode.
    fn editor_limits(&self) -> vwr_edit::HistoryLimits {
        let l = history_limits(&self.opts);
        match self.team {
            Some(_) => vwr_edit::oplog::editor_limits(l),
            None => l,
        }
    }

    /// The opened file (in database mode: the world's location, without password).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The world as edited.
    pub fn world(&self) -> &World {
        self.editor.world()
    }

    /// The editor (world and history).
    pub fn editor(&self) -> &Editor {
        &self.editor
    }

    /// The journal waiting for a decision, if any.
    pub fn recovery(&self) -> Option<&Recovery> {
        self.recovery.as_ref()
    }

    /// The current mesh epoch (see [`Session::chunks_since`]).
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// Whether the world differs from the file on disk (never in database mode: every
    /// edit is committed).
    pub fn modified(&self) -> bool {
        self.db.is_none() && fnv(&self.world().to_bytes()) != self.saved_hash
    }

    /// The summary of `GET /api/world`, with whether edits are unsaved.
    pub fn summary_with_state(&self) -> WorldSummary {
        self.summary_with_state_for(OWNER)
    }

    /// [`Session::summary_with_state`] with `user`'s undo state.
    pub fn summary_with_state_for(&self, user: &str) -> WorldSummary {
        WorldSummary {
            modified: Some(self.modified()),
            ..self.summary_for(user)
        }
    }

    /// `user`'s undo depth, redo depth and steps dropped.
    fn depth(&self, user: &str) -> (usize, usize, u64) {
        match &self.team {
            Some(t) => {
                let d = t.log.depth(user);
                (d.undo, d.redo, d.dropped)
            }
            None => {
                let h = self.editor.history();
                (h.undo_depth(), h.redo_depth(), h.dropped())
            }
        }
    }

    /// `user`'s next undo and redo labels.
    fn labels(&self, user: &str) -> (Option<String>, Option<String>) {
        match &self.team {
            Some(t) => (
                t.log.undo_label(user).map(str::to_string),
                t.log.redo_label(user).map(str::to_string),
            ),
            None => {
                let h = self.editor.history();
                (
                    h.undo_changes().last().map(|c| c.label.clone()),
                    h.redo_changes().last().map(|c| c.label.clone()),
                )
            }
        }
    }

    /// The summary every edit answer carries (the owner's undo state).
    pub fn summary(&self) -> WorldSummary {
        self.summary_for(OWNER)
    }

    /// The summary, with `user`'s undo state.
    pub fn summary_for(&self, user: &str) -> WorldSummary {
        let w = self.world();
        let shared = SharedFields::of(w);
        let (undo_depth, redo_depth, _) = self.depth(user);
        let (undo, redo) = self.labels(user);
        WorldSummary {
            ok: Success,
            file: self.path.display().to_string(),
            block_dims: w.block_dims(),
            chunk_dims: w.chunk_dims(),
            chunk_size: CHUNK_SIZE,
            epoch: self.epoch,
            spawn: shared.spawn,
            sky_region: shared.sky_region,
            mission: shared.mission,
            objects: shared.objects,
            decors: shared.decors,
            undo,
            redo,
            undo_depth,
            redo_depth,
            recovery: self.recovery.as_ref().map(|r| RecoveryInfo {
                journal: r.path.display().to_string(),
                bytes: r.bytes,
                modified_unix: r.modified_unix,
            }),
            store: if self.db.is_some() {
                "database"
            } else {
                "file"
            },
            head: self.head(),
            modified: None,
        }
    }

    /// The block registry: every type with a registry name (not `tileN`) and every type the
    /// world uses, with name, render kind and colour.
    pub fn blocks(&self) -> BlockList {
        let mut used = std::collections::BTreeSet::new();
        for (_, c) in self.world().chunks() {
            for b in c.palette() {
                used.insert(b.block_type());
            }
        }
        let r = self.registry;
        let blocks = (0..vwr_blocks::TYPE_COUNT as u16)
            .filter(|&t| !r.name(t).starts_with("tile") || used.contains(&t))
            .map(|t| BlockInfo {
                block_type: t,
                name: r.name(t).to_string(),
                kind: r.kind(t).as_str(),
                color: r.color(t),
                used: used.contains(&t),
            })
            .collect();
        // MoveObject types with a name, once each (the names the script language accepts).
        let mut object_types: Vec<(String, u8)> = Vec::new();
        for &(name, t) in vwr::MOVE_OBJECT_NAMES {
            if !object_types.iter().any(|(_, x)| *x == t) {
                let shown = vwr::MoveObject::type_name(t).unwrap_or(name);
                object_types.push((shown.to_string(), t));
            }
        }
        BlockList {
            ok: Success,
            blocks,
            object_types,
        }
    }

    /// Applies an edit script (the `voxcaf world edit` language, several lines allowed),
    /// all-or-nothing: if any line is malformed or refused, the world and history are left as
    /// they were. Answers what each operation did and which chunks changed.
    pub fn apply_script(&mut self, text: &str) -> Result<ScriptAnswer> {
        self.apply_script_as(OWNER, text)
    }

    /// [`Session::apply_script`] as `user`'s operation (the log names them; their undo
    /// undoes it).
    pub fn apply_script_as(&mut self, user: &str, text: &str) -> Result<ScriptAnswer> {
        let ops = parse_text("request", text).map_err(|errors| ServeError::Script { errors })?;
        if ops.is_empty() {
            return Err(ServeError::EmptyScript);
        }
        for l in &ops {
            if let Op::Fill {
                limit: Some(asked), ..
            } = l.op
            {
                if asked > self.opts.max_fill_limit {
                    return Err(ServeError::FillLimit {
                        line: l.at.line().unwrap_or(0),
                        asked,
                        max: self.opts.max_fill_limit,
                    });
                }
            }
        }
        let applied = if self.db.is_some() {
            self.apply_db(user, text, &ops)?
        } else {
            self.apply_logged(user, text, &ops)?
        };
        let ops = applied
            .iter()
            .map(|a| OpInfo {
                change: a.change.clone(),
                note: match a.effect {
                    Effect::Undone => Some("undone".to_string()),
                    Effect::Redone => Some("redone".to_string()),
                    Effect::Copied { size, records } => Some(format!(
                        "copied {}x{}x{} cells, {records} metadata records",
                        size[0], size[1], size[2]
                    )),
                    _ => None,
                },
            })
            .collect();
        if applied.iter().any(|a| !a.change.is_empty()) {
            self.gen += 1;
        }
        Ok(ScriptAnswer {
            ops,
            state: self.edit_state_for(user),
        })
    }

    /// Undoes the newest command (`"change": null` when there is nothing to undo, or, in
    /// database mode, when the undo is refused: [`Session::try_undo`] says why).
    pub fn undo(&mut self) -> HistoryAnswer {
        self.try_undo().unwrap_or_else(|e| self.refused_history(e))
    }

    /// Redoes the last undone command (`"change": null` when there is nothing to redo, or,
    /// in database mode, when the redo is refused: [`Session::try_redo`] says why).
    pub fn redo(&mut self) -> HistoryAnswer {
        self.try_redo().unwrap_or_else(|e| self.refused_history(e))
    }

    /// [`Session::undo`]; in database mode committed at once, and refused
    /// ([`ServeError::Refused`]) when another editor changed the same chunks since.
    pub fn try_undo(&mut self) -> Result<HistoryAnswer> {
        self.undo_as(OWNER)
    }

    /// Undoes `user`'s own newest operation under the undo rule (see [`vwr_edit::oplog`]):
    /// cells others changed since are left as they are.
    pub fn undo_as(&mut self, user: &str) -> Result<HistoryAnswer> {
        if self.db.is_some() {
            return self.history_db(user, false);
        }
        let c = self.step_logged(user, false)?;
        Ok(self.after_history(user, c))
    }

    /// Redoes `user`'s own newest undo, under the same rule.
    pub fn redo_as(&mut self, user: &str) -> Result<HistoryAnswer> {
        if self.db.is_some() {
            return self.history_db(user, true);
        }
        let c = self.step_logged(user, true)?;
        Ok(self.after_history(user, c))
    }

    /// [`Session::redo`]; in database mode committed at once, and refused when another
    /// editor changed the same chunks since.
    pub fn try_redo(&mut self) -> Result<HistoryAnswer> {
        self.redo_as(OWNER)
    }

    fn refused_history(&mut self, e: ServeError) -> HistoryAnswer {
        let mut a = self.after_history(OWNER, None);
        a.state.synced = Some(e.to_string());
        a
    }

    fn after_history(&mut self, user: &str, c: Option<Change>) -> HistoryAnswer {
        if c.is_some() {
            self.gen += 1;
        }
        HistoryAnswer {
            change: c,
            state: self.edit_state_for(user),
        }
    }

    /// [`Session::edit_state_for`] the owner.
    fn edit_state(&mut self) -> EditState {
        self.edit_state_for(OWNER)
    }

    /// Brings the meshes up to date; the common fields of an edit answer, for `user`.
    fn edit_state_for(&mut self, user: &str) -> EditState {
        let changed_chunks = self.update_meshes();
        let (undo_depth, redo_depth, history_dropped) = self.depth(user);
        EditState {
            ok: Success,
            epoch: self.epoch,
            changed_chunks,
            undo_depth,
            redo_depth,
            // Steps dropped from the oldest end to honour the history's bounds: the page says so.
            history_dropped,
            // The summary too, so the page needs no second request to show objects and history.
            world: self.summary_for(user),
            synced: self.db.as_mut().and_then(|d| d.note.take()),
        }
    }

    /// Rebuilds the meshes an edit can have changed; returns the chunks that changed.
    fn update_meshes(&mut self) -> Vec<[u32; 3]> {
        let mut changed = self.cache.update(self.editor.world(), self.registry);
        // A chunk that disappeared without ever drawing anything still needs its block values
        // dropped on the page.
        let world = self.editor.world();
        let gone: Vec<[u32; 3]> = self
            .versions
            .keys()
            .filter(|p| world.chunk(**p).is_none() && !changed.contains(p))
            .copied()
            .collect();
        changed.extend(gone);
        self.lod.note(&changed);
        if !changed.is_empty() {
            self.epoch += 1;
            for p in &changed {
                self.versions.insert(*p, self.epoch);
            }
        }
        changed
    }

    /// The binary chunk answer (see [`crate::wire`]) of every chunk that changed after
    /// `since` (0: all of them), meshes brought up to date first.
    pub fn chunks_since(&mut self, since: u32) -> Vec<u8> {
        self.update_meshes();
        let mut list: Vec<[u32; 3]> = self
            .versions
            .iter()
            .filter(|(_, v)| **v > since)
            .map(|(p, _)| *p)
            .collect();
        list.sort_by_key(|p| [p[2], p[1], p[0]]);
        let world = self.editor.world();
        let mut out = Vec::new();
        wire::begin(&mut out, self.epoch, list.len() as u32);
        for p in list {
            wire::push_chunk(
                &mut out,
                p,
                world.chunk(p),
                self.cache.get(p),
                self.registry,
            );
        }
        out
    }

    /// The layer map of `GET /api/layer`: one Y level as rows of raw block values, the whole
    /// level or the rectangle between the `(x, z)` corners of `region` (inclusive, any order,
    /// clamped to the world).
    pub fn layer(&self, y: i32, region: Option<[[i32; 2]; 2]>) -> Result<LayerAnswer> {
        let world = self.world();
        let [width, height, depth] = world.block_dims();
        if y < 0 || y >= height as i32 {
            return Err(ServeError::LayerOutside { y, height });
        }
        let [a, b] = region.unwrap_or([[0, 0], [width as i32 - 1, depth as i32 - 1]]);
        let l = Layer::region_at_most(world, y, a, b, MAX_LAYER_ANSWER_CELLS).map_err(|e| match e {
            vwr_edit::EditError::LayerTooLarge {
                width, depth, max, ..
            } => ServeError::LayerTooLarge {
                y,
                width,
                depth,
                max,
            },
            // The only other refusal: a region outside the world (the whole level is inside).
            _ => ServeError::LayerRegion {
                message: format!(
                    "layer region x {}..={}, z {}..={} is outside the world's {width}×{depth} columns",
                    a[0].min(b[0]),
                    a[0].max(b[0]),
                    a[1].min(b[1]),
                    a[1].max(b[1]),
                ),
            },
        })?;
        let rows: Vec<Vec<u16>> = l
            .cells
            .chunks(l.width.max(1) as usize)
            .map(|r| r.iter().map(|b| b.raw()).collect())
            .collect();
        Ok(LayerAnswer {
            ok: Success,
            y: l.y,
            x0: l.x0,
            z0: l.z0,
            width: l.width,
            depth: l.depth,
            rows,
            objects: l.objects,
            decors: l.decors,
            spawn: l.spawn,
        })
    }

    /// The chunk debug view of `GET /api/chunk-stats`: storage of every allocated chunk.
    pub fn chunk_stats(&self) -> ChunkStatsAnswer {
        let chunks = all_chunk_stats(self.world())
            .iter()
            .filter(|c| c.allocated)
            .map(ChunkStatInfo::from)
            .collect();
        ChunkStatsAnswer {
            ok: Success,
            chunks,
        }
    }

    /// Saves in the file's own format (v3: an incremental commit; v2: an atomic rewrite keeping
    /// `FILE.bak`) and removes the autosave journal. Saving an unchanged world writes nothing.
    /// A file changed on disk since it was opened is not overwritten: the error is
    /// [`ServeError::Conflict`], and [`SaveMode`] says what to do instead.
    pub fn save(&mut self) -> Result<SaveAnswer> {
        self.save_with(SaveMode::Normal)
    }

    /// [`Session::save`], or the answers to a conflict: overwrite, or save as a new file beside
    /// the opened one (which the session then edits).
    pub fn save_with(&mut self, mode: SaveMode) -> Result<SaveAnswer> {
        self.save_by(OWNER, mode)
    }

    /// [`Session::save_with`] by `user` (the log names who saved).
    pub fn save_by(&mut self, user: &str, mode: SaveMode) -> Result<SaveAnswer> {
        if self.db.is_some() {
            if let SaveMode::As(_) = mode {
                return Err(ServeError::Refused {
                    message: "a world in a database is not saved as a file: every edit is \
                              committed; `voxcaf world migrate` copies it to one"
                        .into(),
                });
            }
            return self.save_db();
        }
        let time = team::now_ms();
        let report = match mode {
            SaveMode::Normal => {
                let world = self.editor.world();
                file_of(&mut self.file)?
                    .save_at(world, time)
                    .map_err(|e| ServeError::world(&self.path, e))?
            }
            SaveMode::Overwrite => self.overwrite(time)?,
            SaveMode::As(name) => self.save_as(&name)?,
        };
        if report.written {
            self.saved_hash = fnv(&self.world().to_bytes());
        }
        if let Some(t) = self.team.as_mut() {
            t.write(&self.path, self.editor.world(), user, time)?;
        }
        if self.recovery.is_none() {
            self.remove_journal()?;
        }
        self.journal_gen = self.gen;
        Ok(SaveAnswer {
            ok: Success,
            file: self.path.display().to_string(),
            written: report.written,
            backup: report.backup.map(|b| b.display().to_string()),
            bytes: report.file_size,
            bytes_written: report.bytes_written,
            commit: report.generation,
            incremental: report.incremental,
            committed: None,
        })
    }

    /// Saves over a file that changed on disk: the file is opened again (its lock is ours
    /// already) and this world is saved against what is there now.
    fn overwrite(&mut self, time: u64) -> Result<vwr::SaveReport> {
        let err = |e| ServeError::world(&self.path, e);
        let file = file_of(&mut self.file)?;
        let mut disk = file.reopen().map_err(err)?;
        file.load_all(&mut disk).map_err(err)?;
        drop(disk);
        file.save_at(self.editor.world(), time).map_err(err)
    }

    /// Writes the world as a new file beside the opened one, in the same format, and edits
    /// that file from now on.
    fn save_as(&mut self, name: &str) -> Result<vwr::SaveReport> {
        let bad = |m: &str| ServeError::SaveAs {
            name: name.to_string(),
            message: m.to_string(),
        };
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            return Err(bad("give a plain file name (no folders), ending in .vwr"));
        }
        if !name.ends_with(".vwr") {
            return Err(bad("the name must end in .vwr"));
        }
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let target = dir.join(name);
        if target.exists() {
            return Err(bad(
                "a file of that name exists already; choose another name",
            ));
        }
        let opts = vwr::SaveOptions::of_version(file_of(&mut self.file)?.version());
        let bytes = self
            .world()
            .to_bytes_with(&opts)
            .map_err(|e| ServeError::world(&target, e))?;
        voxcaf_fs::write_atomic(&target, &bytes).map_err(|e| ServeError::io(&target, e))?;
        let (file, _) = open_file(&target)?;
        if self.recovery.is_none() {
            self.remove_journal()?;
        }
        self.file = Some(file);
        self.path = target;
        // The new file's log starts from the world as written there.
        self.team = Some(team::Team::start(
            &self.path,
            self.editor.world(),
            &self.opts,
        )?);
        Ok(vwr::SaveReport {
            written: true,
            bytes_written: bytes.len() as u64,
            file_size: bytes.len() as u64,
            ..vwr::SaveReport::default()
        })
    }

    /// Drops the edits and the undo history and edits the file as it is on disk now.
    pub fn reload(&mut self) -> Result<ReloadAnswer> {
        self.reload_by(OWNER)
    }

    /// [`Session::reload`] by `user` (the log names who dropped the edits).
    pub fn reload_by(&mut self, user: &str) -> Result<ReloadAnswer> {
        let world = if self.db.is_some() {
            self.reload_db()?
        } else {
            let err = |e| ServeError::world(&self.path, e);
            let file = file_of(&mut self.file)?;
            let mut world = file.reopen().map_err(err)?;
            file.load_all(&mut world).map_err(err)?;
            self.saved_hash = fnv(&world.to_bytes());
            world
        };
        self.editor = Editor::with_limits(world, self.editor_limits());
        if let Some(t) = self.team.as_mut() {
            t.reloaded(user);
        }
        self.gen += 1;
        self.journal_gen = self.gen;
        self.remove_journal()?;
        Ok(ReloadAnswer {
            reloaded: self.path.display().to_string(),
            state: self.edit_state(),
        })
    }

    fn remove_journal(&self) -> Result<()> {
        if self.db.is_some() {
            return Ok(());
        }
        let j = journal_path(&self.path);
        match std::fs::remove_file(&j) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(ServeError::io(&j, e)),
        }
    }

    /// Takes the world of the waiting journal as the edited world (unsaved; the undo history
    /// starts afresh, and undoing is not possible past the recovery).
    pub fn recover(&mut self) -> Result<RecoverAnswer> {
        let r = self.recovery.take().ok_or(ServeError::NoJournal)?;
        let bytes = std::fs::read(&r.path).map_err(|e| ServeError::io(&r.path, e))?;
        let world = match World::from_bytes(&bytes) {
            Ok(w) => w,
            Err(source) => {
                self.recovery = Some(r.clone());
                return Err(ServeError::World {
                    path: r.path,
                    source,
                });
            }
        };
        self.editor = Editor::with_limits(world, self.editor_limits());
        let limit = self.opts.fill_limit;
        if let Some(t) = self.team.as_mut() {
            t.restart(self.editor.world(), limit);
        }
        self.gen += 1;
        // The journal now describes this session's world; it is rewritten on the next autosave.
        self.journal_gen = self.gen;
        Ok(RecoverAnswer {
            recovered: r.path.display().to_string(),
            state: self.edit_state(),
        })
    }

    /// Deletes the waiting journal and keeps editing the file as it is on disk.
    pub fn discard_recovery(&mut self) -> Result<DiscardAnswer> {
        let r = self.recovery.take().ok_or(ServeError::NoJournal)?;
        match std::fs::remove_file(&r.path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(ServeError::io(&r.path, e)),
        }
        // Edits made before the decision still need a journal.
        self.journal_gen = self.gen.wrapping_sub(1);
        Ok(DiscardAnswer {
            ok: Success,
            discarded: r.path.display().to_string(),
        })
    }
}

impl Session {
    /// Starts a play test of the world as edited (from its spawn point), replacing any
    /// running one.
    pub fn play_start(&mut self) -> Result<PlayState> {
        let p = crate::play::PlayTest::new(self.world(), self.registry)
            .map_err(|message| ServeError::Play { message })?;
        let v = p.state(Vec::new());
        self.play = Some(p);
        Ok(v)
    }

    /// Plays `ticks` ticks of the running play test holding `keys` (see
    /// [`crate::play::PlayTest::step`]).
    pub fn play_step(&mut self, keys: &str, ticks: u32) -> Result<PlayState> {
        let p = self.play.as_mut().ok_or(ServeError::Play {
            message: "no play test is running: POST /api/play/start first".into(),
        })?;
        p.step(keys, ticks)
            .map_err(|message| ServeError::Play { message })
    }

    /// Ends the play test.
    pub fn play_stop(&mut self) -> PlayStopped {
        PlayStopped {
            ok: Success,
            stopped: self.play.take().is_some(),
        }
    }
}
