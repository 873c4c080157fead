//! The typed answers of [`Session`](crate::Session)'s methods. Each derives `Serialize`; the
//! HTTP layer sends them as the JSON bodies of the API (`"ok": true` first-class in each, so
//! that the page can tell answers from errors without looking at the status).
//!
//! Values the world stores as `f32` (MoveObject positions, speed, timings) are carried as the
//! `f64` of the same value, so that the JSON shows `1.100000023841858` for a stored `1.1f32`,
//! exactly what the world holds.

use serde::{Deserialize, Serialize, Serializer};

/// The `"ok": true` of every successful answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Success;

impl Serialize for Success {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(true)
    }
}

/// The summary of `GET /api/world`: dimensions, metadata, history and a waiting journal.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorldSummary {
    /// Always `true`.
    pub ok: Success,
    /// The file being edited.
    pub file: String,
    /// The world's size in blocks.
    pub block_dims: [u32; 3],
    /// The world's size in chunks.
    pub chunk_dims: [u32; 3],
    /// Blocks along each side of a chunk.
    pub chunk_size: usize,
    /// The current mesh epoch (see [`Session::chunks_since`](crate::Session::chunks_since)).
    pub epoch: u32,
    /// The spawn cell, if set.
    pub spawn: Option<[i32; 3]>,
    /// The sky region.
    pub sky_region: u32,
    /// The mission number.
    pub mission: u32,
    /// The MoveObjects, in record order.
    pub objects: Vec<ObjectInfo>,
    /// The BigDecor cells, in record order.
    pub decors: Vec<DecorInfo>,
    /// The label of the step an undo would take back.
    pub undo: Option<String>,
    /// The label of the step a redo would bring back.
    pub redo: Option<String>,
    /// Undo steps held.
    pub undo_depth: usize,
    /// Redo steps held.
    pub redo_depth: usize,
    /// The autosave journal waiting for a decision, if any.
    pub recovery: Option<RecoveryInfo>,
    /// Where the world is: `file`, or `database` (every edit committed at once; the page
    /// then polls `GET /api/sync` for other editors' commits).
    pub store: &'static str,
    /// A database world's commit counter as the session holds it.
    pub head: Option<u64>,
    /// Whether the session holds edits not saved to the file yet (false for a database
    /// world, whose edits are committed at once): what a reloaded page shows. Only in
    /// `GET /api/world` (it compares the whole world with the file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<bool>,
}

impl SharedFields {
    /// The shared fields of `world`.
    pub fn of(world: &vwr::World) -> SharedFields {
        let objects = world.move_objects().unwrap_or_default();
        let decors = world.big_decors().unwrap_or_default();
        SharedFields {
            spawn: world.spawn(),
            sky_region: world.sky_region(),
            mission: world.mission_number(),
            objects: objects.iter().map(|(p, m)| ObjectInfo::of(*p, m)).collect(),
            decors: decors
                .into_iter()
                .map(|(pos, icon)| DecorInfo { pos, icon })
                .collect(),
        }
    }
}

impl WorldSummary {
    /// The fields every page shares (the undo fields are each caller's own).
    pub fn shared(&self) -> SharedFields {
        SharedFields {
            spawn: self.spawn,
            sky_region: self.sky_region,
            mission: self.mission,
            objects: self.objects.clone(),
            decors: self.decors.clone(),
        }
    }
}

/// What of a [`WorldSummary`] every page shares: a change of it is pushed to every page even
/// when no chunk changed. It reads back from a summary's JSON (other fields ignored): what a
/// client that follows the editor keeps in step (the Bevy plugin's live link).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SharedFields {
    /// The spawn cell.
    pub spawn: Option<[i32; 3]>,
    /// The sky region.
    pub sky_region: u32,
    /// The mission number.
    pub mission: u32,
    /// The MoveObjects.
    pub objects: Vec<ObjectInfo>,
    /// The BigDecor cells.
    pub decors: Vec<DecorInfo>,
}

/// One MoveObject of a [`WorldSummary`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ObjectInfo {
    /// The anchor cell.
    pub pos: [i32; 3],
    /// The object type.
    #[serde(rename = "type")]
    pub object_type: u8,
    /// The type's name, if it has one (read back from the type, not from the JSON).
    #[serde(skip_deserializing)]
    pub name: Option<&'static str>,
    /// Start position (world units).
    pub start: [f64; 3],
    /// End position (world units).
    pub end: [f64; 3],
    /// Speed.
    pub speed: f64,
    /// Ticks to advance one step.
    pub advance: f64,
    /// Ticks to recede one step.
    pub recede: f64,
    /// Ticks to wait at the start.
    pub stop_start: f64,
    /// Ticks to wait at the end.
    pub stop_end: f64,
    /// The icon (0: derived from the type).
    pub icon: u16,
}

impl ObjectInfo {
    /// The answer's view of the object anchored at `pos`.
    pub fn of(pos: [i32; 3], m: &vwr::MoveObject) -> ObjectInfo {
        ObjectInfo {
            pos,
            object_type: m.object_type,
            name: vwr::MoveObject::type_name(m.object_type),
            start: m.pos_start.map(f64::from),
            end: m.pos_end.map(f64::from),
            speed: f64::from(m.speed),
            advance: f64::from(m.step_advance_ticks),
            recede: f64::from(m.step_recede_ticks),
            stop_start: f64::from(m.time_stop_start_ticks),
            stop_end: f64::from(m.time_stop_end_ticks),
            icon: m.visual_icon,
        }
    }

    /// The MoveObject this is the view of: [`ObjectInfo::of`] undone, every field exact (the
    /// `f64` values are those of `f32`s).
    pub fn move_object(&self) -> vwr::MoveObject {
        vwr::MoveObject {
            object_type: self.object_type,
            pos_start: self.start.map(|v| v as f32),
            pos_end: self.end.map(|v| v as f32),
            speed: self.speed as f32,
            step_advance_ticks: self.advance as f32,
            step_recede_ticks: self.recede as f32,
            time_stop_start_ticks: self.stop_start as f32,
            time_stop_end_ticks: self.stop_end as f32,
            visual_icon: self.icon,
        }
    }
}

/// One BigDecor cell of a [`WorldSummary`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecorInfo {
    /// The cell.
    pub pos: [i32; 3],
    /// The icon.
    pub icon: u16,
}

/// The autosave journal of an earlier session, as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecoveryInfo {
    /// The journal file.
    pub journal: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// When it was last written (seconds since the Unix epoch), if known.
    pub modified_unix: Option<u64>,
}

/// The block registry of `GET /api/blocks`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockList {
    /// Always `true`.
    pub ok: Success,
    /// Every type with a registry name (not `tileN`) and every type the world uses.
    pub blocks: Vec<BlockInfo>,
    /// MoveObject type names the script language accepts, with their type, once per type.
    pub object_types: Vec<(String, u8)>,
}

/// One block type of a [`BlockList`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockInfo {
    /// The block type.
    #[serde(rename = "type")]
    pub block_type: u16,
    /// Its registry name.
    pub name: String,
    /// Its render kind (`opaque`, `transparent`, ...).
    pub kind: &'static str,
    /// Its colour (sRGB and alpha).
    pub color: [u8; 4],
    /// Whether the world uses it.
    pub used: bool,
}

/// What one command changed: [`vwr_edit::Change`] itself, serialized as it is (label, cells,
/// chunks, records_added, records_removed, fields).
pub type ChangeInfo = vwr_edit::Change;

/// The fields every answer to an edit carries (the request's own fields beside them).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EditState {
    /// Always `true`.
    pub ok: Success,
    /// The mesh epoch after the edit.
    pub epoch: u32,
    /// Chunks whose meshes or blocks changed (fetch them with `GET /api/chunks?since=`).
    pub changed_chunks: Vec<[u32; 3]>,
    /// Undo steps held.
    pub undo_depth: usize,
    /// Redo steps held.
    pub redo_depth: usize,
    /// Steps dropped from the oldest end to honour the history's bounds, in all.
    pub history_dropped: u64,
    /// The world's summary after the edit (the page needs no second request).
    pub world: WorldSummary,
    /// Database mode: what another editor's commits changed here (the undo history was
    /// cleared), or why an undo or redo was refused; for the page to show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synced: Option<String>,
}

/// The answer of `GET /api/sync`: other editors' commits pulled (database mode).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SyncAnswer {
    /// The database world's commit counter (`None` for a file).
    pub head: Option<u64>,
    /// Chunks that other editors' commits changed here.
    pub pulled: usize,
    /// The common fields.
    #[serde(flatten)]
    pub state: EditState,
}

/// The answer of an edit script (`POST /api/ops`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScriptAnswer {
    /// What each operation did, in order.
    pub ops: Vec<OpInfo>,
    /// The common fields.
    #[serde(flatten)]
    pub state: EditState,
}

/// What one operation of a script did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpInfo {
    /// Its change.
    #[serde(flatten)]
    pub change: ChangeInfo,
    /// `undone`, `redone`, what a copy took, or nothing.
    pub note: Option<String>,
}

/// The answer of `POST /api/undo` and `POST /api/redo`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryAnswer {
    /// The step undone or redone; `None` when there was nothing to undo or redo.
    pub change: Option<ChangeInfo>,
    /// The common fields.
    #[serde(flatten)]
    pub state: EditState,
}

/// The answer of `POST /api/reload`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReloadAnswer {
    /// The file read again.
    pub reloaded: String,
    /// The common fields.
    #[serde(flatten)]
    pub state: EditState,
}

/// The answer of `POST /api/recover`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecoverAnswer {
    /// The journal whose world is now edited.
    pub recovered: String,
    /// The common fields.
    #[serde(flatten)]
    pub state: EditState,
}

/// The answer of `POST /api/discard-journal`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DiscardAnswer {
    /// Always `true`.
    pub ok: Success,
    /// The journal deleted.
    pub discarded: String,
}

/// The layer map of `GET /api/layer`: one Y level as rows of raw block values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LayerAnswer {
    /// Always `true`.
    pub ok: Success,
    /// The Y level.
    pub y: i32,
    /// World X of the first column.
    pub x0: i32,
    /// World Z of the first row.
    pub z0: i32,
    /// Columns (cells along X).
    pub width: u32,
    /// Rows (cells along Z).
    pub depth: u32,
    /// Raw block values, one row per Z.
    pub rows: Vec<Vec<u16>>,
    /// `(x, z)` of MoveObject anchors on this level.
    pub objects: Vec<[i32; 2]>,
    /// `(x, z)` of BigDecor cells on this level.
    pub decors: Vec<[i32; 2]>,
    /// `(x, z)` of the spawn cell if it is on this level.
    pub spawn: Option<[i32; 2]>,
}

/// The chunk debug view of `GET /api/chunk-stats`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChunkStatsAnswer {
    /// Always `true`.
    pub ok: Success,
    /// Every allocated chunk.
    pub chunks: Vec<ChunkStatInfo>,
}

/// The storage of one chunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChunkStatInfo {
    /// Chunk position.
    pub pos: [u32; 3],
    /// Empty (not stored in a save).
    pub empty: bool,
    /// One palette entry.
    pub uniform: bool,
    /// Bits per block.
    pub bits: u8,
    /// Palette entries.
    pub palette: usize,
    /// Palette entries some cell uses.
    pub live_palette: usize,
    /// Non-air cells.
    pub non_air: u32,
    /// Metadata records.
    pub records: u32,
    /// Bytes of the chunk's payload in a save.
    pub bytes: u32,
}

impl From<&vwr_edit::ChunkStats> for ChunkStatInfo {
    fn from(c: &vwr_edit::ChunkStats) -> ChunkStatInfo {
        ChunkStatInfo {
            pos: c.pos,
            empty: c.empty,
            uniform: c.uniform,
            bits: c.bits,
            palette: c.palette_len,
            live_palette: c.live_palette,
            non_air: c.non_air,
            records: c.records,
            bytes: c.payload_bytes,
        }
    }
}

/// The answer of `POST /api/save`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SaveAnswer {
    /// Always `true`.
    pub ok: Success,
    /// The file saved (after a save-as, the new file).
    pub file: String,
    /// Whether anything was written (an unchanged world writes nothing).
    pub written: bool,
    /// The backup of the previous version (a v2 rewrite), if one was kept.
    pub backup: Option<String>,
    /// The file's size after saving.
    pub bytes: u64,
    /// Bytes written by this save.
    pub bytes_written: u64,
    /// The commit's generation (a v3 file).
    pub commit: Option<u32>,
    /// Whether the save appended to the file (a v3 commit) instead of rewriting it.
    pub incremental: bool,
    /// Database mode: nothing to write, every edit is committed already; the world's commit
    /// counter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committed: Option<u64>,
}

/// The state of a play test (`POST /api/play/start` and `/api/play/step`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayState {
    /// Always `true`.
    pub ok: Success,
    /// Ticks played.
    pub tick: u64,
    /// The player's box.
    pub player: BoxInfo,
    /// The player's velocity (blocks per tick).
    pub velocity: [f64; 3],
    /// Whether the player stands on the ground.
    pub on_ground: bool,
    /// Whether the level is complete.
    pub complete: bool,
    /// Deaths so far.
    pub deaths: u32,
    /// Collectibles collected so far.
    pub collected: usize,
    /// The level's objects.
    pub objects: Vec<PlayObject>,
    /// The events of the last step.
    pub events: Vec<PlayEvent>,
}

/// An axis-aligned box in world units.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BoxInfo {
    /// Minimum corner.
    pub min: [f64; 3],
    /// Maximum corner.
    pub max: [f64; 3],
}

/// One object of a [`PlayState`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayObject {
    /// Its kind (`lift`, `enemy`, ...).
    pub kind: &'static str,
    /// Minimum corner of its box now.
    pub min: [f64; 3],
    /// Maximum corner of its box now.
    pub max: [f64; 3],
    /// Whether it was collected.
    pub collected: bool,
}

/// One event of a play step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayEvent {
    /// The event's name.
    pub name: &'static str,
    /// The tick it happened at.
    pub tick: u64,
}

/// The answer of `POST /api/play/stop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PlayStopped {
    /// Always `true`.
    pub ok: Success,
    /// Whether a play test was running.
    pub stopped: bool,
}

/// One operation of the log (`GET /api/log`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogOp {
    /// Its number in the log.
    pub seq: u64,
    /// Who did it.
    pub user: String,
    /// When (milliseconds since the Unix epoch).
    pub time: u64,
    /// `edit`, `undo` or `redo`.
    pub kind: &'static str,
    /// The edit script (for an edit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The operation undone, or the undo redone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub of: Option<u64>,
    /// What it did.
    pub label: String,
    /// Cells it changed.
    pub cells: u64,
}

impl LogOp {
    /// The answer's form of a log entry.
    pub fn of(e: &vwr_edit::oplog::Entry) -> LogOp {
        use vwr_edit::oplog::Action;
        let (kind, text, of) = match &e.action {
            Action::Edit { text } => ("edit", Some(text.clone()), None),
            Action::Undo { of } => ("undo", None, Some(*of)),
            Action::Redo { of } => ("redo", None, Some(*of)),
        };
        LogOp {
            seq: e.seq,
            user: e.user.clone(),
            time: e.time_ms,
            kind,
            text,
            of,
            label: e.change.label.clone(),
            cells: e.change.cells,
        }
    }
}

/// The answer of `GET /api/log?since=SEQ`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogAnswer {
    /// Always `true`.
    pub ok: Success,
    /// The operations from `since` on, oldest first.
    pub ops: Vec<LogOp>,
    /// The number the next operation will get.
    pub next: u64,
    /// The oldest operation the timeline (`GET /api/timeline`) can show the world before.
    pub timeline_from: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A summary's shared fields read back from its JSON give every MoveObject exactly.
    #[test]
    fn shared_fields_read_back_from_json_give_the_objects_exactly() {
        let m = vwr::MoveObject {
            pos_end: [1.1, 2.2, 1e-7],
            speed: 0.3,
            step_advance_ticks: 61.5,
            visual_icon: 7,
            ..vwr::MoveObject::new(3, [12.7, 4.0, 0.1])
        };
        let objects = vec![ObjectInfo::of([12, 4, 0], &m)];
        let json = serde_json::json!({
            "ok": true, "spawn": [1, 2, 3], "sky_region": 4, "mission": 5,
            "objects": serde_json::to_value(&objects).unwrap(),
            "decors": [{"pos": [0, 1, 2], "icon": 9}], "undo": "place",
        });
        let back: SharedFields = serde_json::from_value(json).unwrap();
        assert_eq!(
            (back.spawn, back.sky_region, back.mission),
            (Some([1, 2, 3]), 4, 5)
        );
        assert_eq!(back.objects.len(), 1);
        assert_eq!(back.objects[0].move_object(), m);
        assert_eq!(back.objects[0].pos, [12, 4, 0]);
        assert_eq!(
            back.decors,
            vec![DecorInfo {
                pos: [0, 1, 2],
                icon: 9
            }]
        );
    }
}
