//! Commands, transactions and the undo/redo history.
//!
//! Every tool call runs inside a [`Tx`]. The first time the transaction touches a chunk it keeps
//! a copy of that chunk's previous state; at commit each touched chunk whose
//! [`vwr::Chunk::revision`] moved is compared with its copy (a copy keeps its original's
//! revision, so an equal revision means an unchanged chunk and costs no comparison) and turned
//! into the most compact exact record:
//!
//! - **cells**: the palette did not change, so the record is the list of changed cells with
//!   their other-side value (4 bytes per cell) plus the previous record list if it changed;
//!   applying it through [`vwr::Chunk::set`] reproduces the packed words exactly, because the
//!   palette holds each value once and lookups take the first entry;
//! - **swap**: the whole previous chunk (palette + packed words + records, at most ~1.5 KB; a
//!   uniform chunk ~170 bytes; an unallocated chunk nothing), used when the palette changed or
//!   when it is smaller than the cell list.
//!
//! Undo and redo apply the same record, which swaps the world's state with the stored one and
//! so turns the record into its own inverse. Chunks that did not change logically are dropped,
//! so a command holds only what it changed.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;

use vwr::{Block, Chunk, MetaRecord, World, CHUNK_SIZE, CHUNK_VOLUME};

use crate::error::Result;

/// The world header fields an edit may change (vwr's [`WorldFields`]).
pub use vwr::WorldFields;

/// Sets the fields an edit recorded: they came from this world, so its spawn lies inside it
/// and cannot be refused.
fn apply_fields(f: WorldFields, world: &mut World) {
    let r = world.set_fields(f);
    debug_assert!(r.is_ok());
}

/// What one command changed (returned by every tool, and by undo/redo for the command they
/// undid or redid).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Change {
    /// Human-readable description of the command.
    pub label: String,
    /// Cells whose block value changed.
    pub cells: u64,
    /// Chunks whose stored state changed.
    pub chunks: u32,
    /// Metadata records that appeared (counting a changed payload as one removed + one added).
    pub records_added: u32,
    /// Metadata records that disappeared.
    pub records_removed: u32,
    /// Whether sky region, mission number or spawn changed.
    pub fields: bool,
}

impl Change {
    /// Whether the command changed nothing at all (it is then not put on the history).
    pub fn is_empty(&self) -> bool {
        self.chunks == 0 && !self.fields
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return write!(f, "{}: no change", self.label);
        }
        write!(f, "{}: ", self.label)?;
        let mut sep = "";
        let records = self.records_added > 0 || self.records_removed > 0;
        if self.cells > 0 || (!records && !self.fields) {
            write!(
                f,
                "{} cell{} in {} chunk{}",
                self.cells,
                if self.cells == 1 { "" } else { "s" },
                self.chunks,
                if self.chunks == 1 { "" } else { "s" }
            )?;
            sep = ", ";
        }
        if records {
            write!(
                f,
                "{sep}metadata records +{} -{}",
                self.records_added, self.records_removed
            )?;
            sep = ", ";
        }
        if self.fields {
            write!(f, "{sep}world fields changed")?;
        }
        Ok(())
    }
}

/// The exact record of one chunk's change (see the module docs).
#[derive(Clone, Debug)]
enum Delta {
    /// The other side's whole chunk (`None` = not allocated).
    Swap(Option<Box<Chunk>>),
    /// Palette unchanged: `(cell index, other side's raw value)` for each changed cell, and the
    /// other side's record list when it differs.
    Cells {
        cells: Vec<(u16, u16)>,
        records: Option<Vec<MetaRecord>>,
    },
}

fn records_bytes(r: &[MetaRecord]) -> usize {
    r.iter()
        .map(|m| std::mem::size_of::<MetaRecord>() + m.payload.capacity())
        .sum()
}

fn chunk_bytes(c: &Chunk) -> usize {
    std::mem::size_of::<Chunk>() + c.heap_bytes()
}

impl Delta {
    fn bytes(&self) -> usize {
        std::mem::size_of::<([u32; 3], Delta)>()
            + match self {
                Delta::Swap(None) => 0,
                Delta::Swap(Some(c)) => std::mem::size_of::<Box<Chunk>>() + chunk_bytes(c),
                Delta::Cells { cells, records } => {
                    4 * cells.capacity()
                        + records.as_ref().map_or(0, |r| {
                            records_bytes(r) + std::mem::size_of::<Vec<MetaRecord>>()
                        })
                }
            }
    }

    /// The chunk as it is on the stored side, given `current`, its state on the world's side.
    fn other_side(&self, current: Option<Chunk>) -> Option<Chunk> {
        match self {
            Delta::Swap(stored) => stored.as_deref().cloned(),
            Delta::Cells { cells, records } => {
                // A cells record exists only for a chunk present on both sides.
                let mut chunk = current?;
                for (i, other) in cells {
                    // Same palette on both sides: the value is there already.
                    let r = chunk.set(*i as usize, Block::from_raw(*other));
                    debug_assert!(r.is_ok());
                }
                if let Some(r) = records {
                    chunk.set_records(r.clone());
                }
                Some(chunk)
            }
        }
    }

    /// Swaps the world's state of chunk `pos` with the stored one.
    fn apply(&mut self, world: &mut World, pos: [u32; 3]) {
        let [cx, cy, cz] = pos;
        match self {
            Delta::Swap(stored) => {
                let current = world.take_chunk([cx, cy, cz]);
                if let Some(c) = stored.take() {
                    // `pos` came from this world, so it is inside it.
                    let r = world.set_chunk([cx, cy, cz], *c);
                    debug_assert!(r.is_ok());
                }
                *stored = current.map(Box::new);
            }
            Delta::Cells { cells, records } => {
                // A cells record is only made for a chunk that exists on both sides, and the
                // world is in exactly the state the record was made against.
                let Some(chunk) = world.chunk_mut([cx, cy, cz]) else {
                    debug_assert!(false, "chunk {pos:?} outside the world");
                    return;
                };
                for (i, other) in cells.iter_mut() {
                    let i = *i as usize;
                    let current = chunk.get(i);
                    // The value is in the palette (the palette is the same on both sides), so
                    // this cannot need a new entry and cannot fail.
                    let r = chunk.set(i, Block::from_raw(*other));
                    debug_assert!(r.is_ok());
                    *other = current.raw();
                }
                if let Some(r) = records {
                    let current = chunk.records().to_vec();
                    chunk.set_records(std::mem::replace(r, current));
                }
            }
        }
    }
}

/// One undoable command: the exact records of what it changed.
#[derive(Clone, Debug)]
struct Command {
    change: Change,
    /// One step per tool call; several when a group of calls is one command.
    steps: Vec<Step>,
    bytes: usize,
}

/// The records of one tool call.
#[derive(Clone, Debug)]
struct Step {
    chunks: Vec<([u32; 3], Delta)>,
    fields: Option<WorldFields>,
}

impl Step {
    fn apply(&mut self, world: &mut World) {
        for (pos, d) in self.chunks.iter_mut() {
            d.apply(world, *pos);
        }
        if let Some(f) = self.fields.as_mut() {
            let current = world.fields();
            apply_fields(*f, world);
            *f = current;
        }
    }
}

impl Command {
    /// Undoes (steps newest first) or redoes (oldest first) the command.
    fn apply(&mut self, world: &mut World, undo: bool) {
        if undo {
            self.steps.iter_mut().rev().for_each(|s| s.apply(world));
        } else {
            self.steps.iter_mut().for_each(|s| s.apply(world));
        }
    }
}

/// A group of commands in progress ([`History::begin`]).
#[derive(Clone, Debug, Default)]
struct Open {
    /// Commands pushed since the group began.
    pushed: usize,
    /// The redo branch as it was when the group began, until the group ends.
    redo: Option<Vec<Command>>,
}

/// What [`History::newest_before`] answers.
pub(crate) struct NewestBefore {
    pub chunks: Vec<([u32; 3], Option<Chunk>)>,
    pub fields: Option<WorldFields>,
}

/// Bounds of a [`History`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryLimits {
    /// Most commands kept for undo (default 200, like the original editor). 0 disables undo.
    pub max_depth: usize,
    /// Most bytes the undo and redo records may hold together (default 64 MiB). The oldest
    /// commands are dropped first; the newest command is always kept, so the last edit can be
    /// undone even when it alone is larger than the budget.
    pub max_bytes: usize,
}

impl Default for HistoryLimits {
    fn default() -> Self {
        HistoryLimits {
            max_depth: 200,
            max_bytes: 64 << 20,
        }
    }
}

/// The undo and redo stacks.
#[derive(Clone, Debug, Default)]
pub struct History {
    undo: VecDeque<Command>,
    redo: Vec<Command>,
    limits: HistoryLimits,
    bytes: usize,
    dropped: u64,
    open: Option<Open>,
}

impl History {
    /// An empty history with the given bounds.
    pub fn new(limits: HistoryLimits) -> History {
        History {
            limits,
            ..History::default()
        }
    }

    /// The bounds.
    pub fn limits(&self) -> HistoryLimits {
        self.limits
    }

    /// Changes the bounds, dropping the oldest commands if they are now exceeded.
    pub fn set_limits(&mut self, limits: HistoryLimits) {
        self.limits = limits;
        self.enforce();
    }

    /// Commands that can be undone.
    pub fn undo_depth(&self) -> usize {
        self.undo.len()
    }

    /// Commands that can be redone.
    pub fn redo_depth(&self) -> usize {
        self.redo.len()
    }

    /// Approximate heap bytes held by all undo and redo records.
    pub fn memory_bytes(&self) -> usize {
        self.bytes
    }

    /// How many of the oldest commands were dropped to honour the bounds so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Summaries of the undoable commands, oldest first.
    pub fn undo_changes(&self) -> impl Iterator<Item = &Change> + '_ {
        self.undo.iter().map(|c| &c.change)
    }

    /// Summaries of the redoable commands, next redo first.
    pub fn redo_changes(&self) -> impl Iterator<Item = &Change> + '_ {
        self.redo.iter().rev().map(|c| &c.change)
    }

    /// The chunks the newest command changed, each as it was before the command (`None`: not
    /// allocated), and the world fields before it if it changed them; `world` is the world
    /// as it is after the command. `None` when there is no command.
    pub(crate) fn newest_before(&self, world: &World) -> Option<NewestBefore> {
        let cmd = self.undo.back()?;
        let mut before: Vec<([u32; 3], Option<Chunk>)> = Vec::new();
        let mut at: HashMap<[u32; 3], usize> = HashMap::new();
        let mut fields = None;
        for step in cmd.steps.iter().rev() {
            for (pos, d) in &step.chunks {
                match at.get(pos) {
                    Some(&i) => before[i].1 = d.other_side(before[i].1.take()),
                    None => {
                        at.insert(*pos, before.len());
                        before.push((*pos, d.other_side(world.chunk(*pos).cloned())));
                    }
                }
            }
            fields = step.fields.or(fields);
        }
        before.sort_unstable_by_key(|(p, _)| [p[2], p[1], p[0]]);
        Some(NewestBefore {
            chunks: before,
            fields,
        })
    }

    /// Forgets every command.
    pub fn clear(&mut self) {
        self.undo.clear();
        self.redo.clear();
        self.bytes = 0;
    }

    fn push(&mut self, cmd: Command) {
        let redo = std::mem::take(&mut self.redo);
        for c in &redo {
            self.bytes -= c.bytes;
        }
        match self.open.as_mut() {
            Some(open) => {
                open.pushed += 1;
                open.redo.get_or_insert(redo);
            }
            None => drop(redo),
        }
        self.bytes += cmd.bytes;
        self.undo.push_back(cmd);
        self.enforce();
    }

    /// Starts a group: the commands pushed until [`History::commit`] become one command, or
    /// are undone by [`History::rollback`]. Undo and redo are not used inside a group.
    pub(crate) fn begin(&mut self) {
        self.open = Some(Open::default());
    }

    /// Ends a group, merging its commands into one labelled `label` (a group of one keeps
    /// its own label); returns the merged command's summary, if the group changed anything.
    pub(crate) fn commit(&mut self, label: impl FnOnce(&[&Change]) -> String) -> Option<Change> {
        let open = self.open.take()?;
        let n = open.pushed.min(self.undo.len());
        if n > 1 {
            let parts: Vec<Command> = self.undo.drain(self.undo.len() - n..).collect();
            let changes: Vec<&Change> = parts.iter().map(|c| &c.change).collect();
            let mut change = Change {
                label: label(&changes),
                ..Change::default()
            };
            let mut chunks = HashSet::new();
            for c in &changes {
                change.cells += c.cells;
                change.records_added += c.records_added;
                change.records_removed += c.records_removed;
                change.fields |= c.fields;
            }
            for p in &parts {
                for s in &p.steps {
                    chunks.extend(s.chunks.iter().map(|(pos, _)| *pos));
                }
            }
            change.chunks = chunks.len() as u32;
            let bytes = parts.iter().map(|p| p.bytes).sum();
            let steps = parts.into_iter().flat_map(|p| p.steps).collect();
            self.undo.push_back(Command {
                change,
                steps,
                bytes,
            });
        }
        self.enforce();
        (n > 0)
            .then(|| self.undo.back().map(|c| c.change.clone()))
            .flatten()
    }

    /// Ends a group by undoing its commands on `world` and forgetting them; the redo branch
    /// is as it was before the group.
    pub(crate) fn rollback(&mut self, world: &mut World) {
        let Some(open) = self.open.take() else {
            return;
        };
        for _ in 0..open.pushed.min(self.undo.len()) {
            if let Some(mut c) = self.undo.pop_back() {
                c.apply(world, true);
                self.bytes -= c.bytes;
            }
        }
        if let Some(redo) = open.redo {
            self.bytes += redo.iter().map(|c| c.bytes).sum::<usize>();
            self.redo = redo;
        }
    }

    fn enforce(&mut self) {
        // Inside a group nothing is dropped: a rollback must find every command.
        if self.open.is_some() {
            return;
        }
        while self.undo.len() > self.limits.max_depth
            || (self.bytes > self.limits.max_bytes && self.undo.len() > 1)
        {
            match self.undo.pop_front() {
                Some(c) => {
                    self.bytes -= c.bytes;
                    self.dropped += 1;
                }
                None => break,
            }
        }
        // Redo records count against the budget too; drop the farthest redo first.
        while self.bytes > self.limits.max_bytes && !self.redo.is_empty() && !self.undo.is_empty() {
            let c = self.redo.remove(0);
            self.bytes -= c.bytes;
            self.dropped += 1;
        }
    }

    /// Undoes the newest command on `world`; returns its summary.
    pub(crate) fn undo(&mut self, world: &mut World) -> Option<Change> {
        // An undo ends a group: its commands stay separate commands.
        self.open = None;
        let cmd = self.undo.pop_back()?;
        Some(self.replay(cmd, world, true))
    }

    /// Redoes the last undone command on `world`; returns its summary.
    pub(crate) fn redo(&mut self, world: &mut World) -> Option<Change> {
        self.open = None;
        let cmd = self.redo.pop()?;
        Some(self.replay(cmd, world, false))
    }

    /// Applies `cmd` backwards (`undo`) or forwards on `world` and moves it to the other
    /// stack; its summary.
    fn replay(&mut self, mut cmd: Command, world: &mut World, undo: bool) -> Change {
        cmd.apply(world, undo);
        let change = cmd.change.clone();
        if undo {
            self.redo.push(cmd);
        } else {
            self.undo.push_back(cmd);
        }
        change
    }
}

/// An edit in progress: tools write through it so that every chunk's previous state is kept
/// before its first change. Obtained from [`crate::Editor::edit`].
///
/// Reads go to [`Tx::world`]; every write method first records the chunks it may touch. If the
/// closure given to `edit` returns an error, every change made so far is rolled back.
pub struct Tx<'w> {
    world: &'w mut World,
    touched: Vec<([u32; 3], Option<Box<Chunk>>)>,
    seen: HashSet<u64>,
    last: Option<[u32; 3]>,
    fields: WorldFields,
}

impl<'w> Tx<'w> {
    pub(crate) fn new(world: &'w mut World) -> Tx<'w> {
        let fields = world.fields();
        Tx {
            world,
            touched: Vec::new(),
            seen: HashSet::new(),
            last: None,
            fields,
        }
    }

    /// The world as edited so far (read only).
    pub fn world(&self) -> &World {
        self.world
    }

    /// Keeps the previous state of chunk `c` if this transaction has not touched it yet.
    /// Positions outside the world are ignored.
    pub fn touch_chunk(&mut self, c: [u32; 3]) {
        if self.last == Some(c) {
            return;
        }
        if !self.world.contains_chunk(c) {
            return;
        }
        self.last = Some(c);
        let [dx, dy, _] = self.world.chunk_dims().map(u64::from);
        let slot = c[0] as u64 + dx * (c[1] as u64 + dy * c[2] as u64);
        if self.seen.insert(slot) {
            let before = self.world.chunk([c[0], c[1], c[2]]).cloned().map(Box::new);
            self.touched.push((c, before));
        }
    }

    /// Records every chunk overlapping the clamped box `lo..=hi` (world cells).
    fn touch_range(&mut self, lo: [u32; 3], hi: [u32; 3]) {
        let s = CHUNK_SIZE as u32;
        for cz in lo[2] / s..=hi[2] / s {
            for cy in lo[1] / s..=hi[1] / s {
                for cx in lo[0] / s..=hi[0] / s {
                    self.touch_chunk([cx, cy, cz]);
                }
            }
        }
    }

    fn touch_cell(&mut self, x: i32, y: i32, z: i32) {
        if self.world.contains([x, y, z]) {
            let s = CHUNK_SIZE as u32;
            self.touch_chunk([x as u32 / s, y as u32 / s, z as u32 / s]);
        }
    }

    /// Mutable access to a chunk (allocating it), after recording it.
    pub fn chunk_mut(&mut self, c: [u32; 3]) -> Option<&mut Chunk> {
        self.touch_chunk(c);
        self.world.chunk_mut([c[0], c[1], c[2]])
    }

    /// Puts `chunk` (`None`: unallocated) in place of chunk `c`, recorded. Positions
    /// outside the world are ignored.
    pub fn replace_chunk(&mut self, c: [u32; 3], chunk: Option<Chunk>) {
        if !self.world.contains_chunk(c) {
            return;
        }
        self.touch_chunk(c);
        self.world.take_chunk(c);
        if let Some(chunk) = chunk {
            let r = self.world.set_chunk(c, chunk);
            debug_assert!(r.is_ok());
        }
    }

    /// [`World::set_block`], recorded.
    pub fn set_block(&mut self, p: [i32; 3], block: Block) -> Result<()> {
        let [x, y, z] = p;
        self.touch_cell(x, y, z);
        Ok(self.world.set_block([x, y, z], block)?)
    }

    /// [`World::fill_box`], recorded. Returns the number of cells in the clamped box.
    pub fn fill_box(&mut self, a: [i32; 3], b: [i32; 3], block: Block) -> Result<u64> {
        let Some((lo, hi)) = self.world.clamp_box(a, b) else {
            return Ok(0);
        };
        self.touch_range(lo, hi);
        Ok(self.world.fill_box(a, b, block)?)
    }

    /// [`World::set_extra_metadata`], recorded.
    pub fn set_extra_metadata(
        &mut self,
        p: [i32; 3],
        record_type: u16,
        payload: &[u8],
    ) -> Result<()> {
        let [x, y, z] = p;
        self.touch_cell(x, y, z);
        Ok(self
            .world
            .set_extra_metadata([x, y, z], record_type, payload)?)
    }

    /// [`World::remove_extra_metadata`], recorded.
    pub fn remove_extra_metadata(&mut self, p: [i32; 3], record_type: u16) -> usize {
        let [x, y, z] = p;
        self.touch_cell(x, y, z);
        self.world.remove_extra_metadata([x, y, z], record_type)
    }

    /// [`World::place_move_object`], recorded.
    pub fn place_move_object(&mut self, object: &vwr::MoveObject) -> Result<[i32; 3]> {
        if let Ok(cell) = object.anchor(self.world.block_dims()) {
            let [x, y, z] = cell.map(|v| v as i32);
            self.touch_cell(x, y, z);
        }
        Ok(self.world.place_move_object(object)?)
    }

    /// [`World::set_plate_rotation`], recorded.
    pub fn set_plate_rotation(&mut self, p: [i32; 3], rotated: bool) -> Result<()> {
        let [x, y, z] = p;
        self.touch_cell(x, y, z);
        Ok(self.world.set_plate_rotation([x, y, z], rotated)?)
    }

    /// [`World::place_big_decor`], recorded.
    pub fn place_big_decor(&mut self, p: [i32; 3], icon: u16) -> Result<()> {
        let [x, y, z] = p;
        self.touch_cell(x, y, z);
        Ok(self.world.place_big_decor([x, y, z], icon)?)
    }

    /// Sets the sky region.
    pub fn set_sky_region(&mut self, sky: u32) {
        self.world.set_sky_region(sky);
    }

    /// Sets the mission number.
    pub fn set_mission_number(&mut self, mission: u32) {
        self.world.set_mission_number(mission);
    }

    /// Sets (inside the world) or clears the spawn cell.
    pub fn set_spawn(&mut self, spawn: Option<[i32; 3]>) -> Result<()> {
        match spawn {
            Some([x, y, z]) => self.world.set_spawn([x, y, z])?,
            None => self.world.clear_spawn(),
        }
        Ok(())
    }

    /// Puts every touched chunk and the fields back as they were.
    pub(crate) fn rollback(self) {
        for ([cx, cy, cz], before) in self.touched {
            if unchanged(before.as_deref(), self.world.chunk([cx, cy, cz])) {
                continue;
            }
            self.world.take_chunk([cx, cy, cz]);
            if let Some(c) = before {
                let r = self.world.set_chunk([cx, cy, cz], *c);
                debug_assert!(r.is_ok());
            }
        }
        apply_fields(self.fields, self.world);
    }

    /// Turns the transaction into a command (possibly empty).
    fn into_command(self, label: String) -> Command {
        let mut change = Change {
            label,
            ..Change::default()
        };
        let mut chunks = Vec::new();
        let fresh = Chunk::new();
        for (pos, before) in self.touched {
            if unchanged(before.as_deref(), self.world.chunk(pos)) {
                continue;
            }
            // An edit leaves no palette entry that no cell uses (`check --strict` reports
            // them): the changed chunk is compacted before its record is taken, so undo and
            // redo stay exact. Blocks never change.
            if self.world.chunk(pos).is_some() {
                if let Some(c) = self.world.chunk_mut(pos) {
                    c.compact();
                }
            }
            let after = self.world.chunk(pos);
            if let Some(d) = diff(before, after, &fresh, &mut change) {
                chunks.push((pos, d));
            }
        }
        let now = self.world.fields();
        let fields = (now != self.fields).then_some(self.fields);
        change.fields = fields.is_some();
        change.chunks = chunks.len() as u32;
        chunks.shrink_to_fit();
        let bytes = std::mem::size_of::<Command>()
            + std::mem::size_of::<Step>()
            + change.label.capacity()
            + chunks.iter().map(|(_, d)| d.bytes()).sum::<usize>();
        Command {
            change,
            steps: vec![Step { chunks, fields }],
            bytes,
        }
    }
}

/// Whether a touched chunk is certainly as it was: still unallocated, or still at the revision
/// its copy was taken at (a copy keeps its original's revision, and every change of blocks,
/// palette or records draws a new one). `false` only means [`diff`] has to look.
fn unchanged(before: Option<&Chunk>, after: Option<&Chunk>) -> bool {
    match (before, after) {
        (None, None) => true,
        (Some(b), Some(a)) => b.revision() == a.revision(),
        _ => false,
    }
}

fn has_duplicates(palette: &[Block]) -> bool {
    let mut v: Vec<u16> = palette.iter().map(|b| b.raw()).collect();
    v.sort_unstable();
    v.windows(2).any(|w| w[0] == w[1])
}

/// Counts records that appear / disappear between two lists (multiset difference).
fn count_record_changes(before: &[MetaRecord], after: &[MetaRecord], change: &mut Change) {
    let mut count: HashMap<&MetaRecord, i64> = HashMap::new();
    for r in before {
        *count.entry(r).or_default() -= 1;
    }
    for r in after {
        *count.entry(r).or_default() += 1;
    }
    for v in count.values() {
        if *v > 0 {
            change.records_added += *v as u32;
        } else {
            change.records_removed += (-*v) as u32;
        }
    }
}

/// The exact record of the change of one chunk, or `None` if it did not change logically.
fn diff(
    before: Option<Box<Chunk>>,
    after: Option<&Chunk>,
    fresh: &Chunk,
    change: &mut Change,
) -> Option<Delta> {
    let b = before.as_deref().unwrap_or(fresh);
    let a = after.unwrap_or(fresh);
    if a == b {
        return None;
    }
    if a.records() != b.records() {
        count_record_changes(b.records(), a.records(), change);
    }
    let same_palette = a.palette() == b.palette();
    // Count changed cells; collect them when a cells record is possible.
    let want_cells = same_palette && before.is_some() && after.is_some();
    let mut cells: Vec<(u16, u16)> = Vec::new();
    let changed = if a.is_uniform() && b.is_uniform() {
        if a.palette()[0] == b.palette()[0] {
            0
        } else {
            CHUNK_VOLUME as u64
        }
    } else if a.words() == b.words() && same_palette {
        0
    } else {
        let (ab, bb) = (a.to_blocks(), b.to_blocks());
        let mut n = 0u64;
        for (i, (x, y)) in ab.iter().zip(bb.iter()).enumerate() {
            if x != y {
                n += 1;
                if want_cells {
                    cells.push((i as u16, y.raw()));
                }
            }
        }
        n
    };
    change.cells += changed;
    if want_cells && !has_duplicates(b.palette()) {
        // A cells record reproduces the words only if they differ exactly at those cells.
        let words_explained = !cells.is_empty() || a.words() == b.words();
        let records_cost = if a.records() != b.records() {
            records_bytes(b.records())
        } else {
            0
        };
        if words_explained && 4 * cells.len() + records_cost < chunk_bytes(b) {
            cells.shrink_to_fit();
            let records = (a.records() != b.records()).then(|| b.records().to_vec());
            return Some(Delta::Cells { cells, records });
        }
    }
    Some(Delta::Swap(before))
}

/// The editor's history driver: runs a closure in a transaction and records the result.
pub(crate) fn run<T>(
    world: &mut World,
    history: &mut History,
    label: impl FnOnce() -> String,
    f: impl FnOnce(&mut Tx<'_>) -> Result<T>,
) -> Result<(T, Change)> {
    let mut tx = Tx::new(world);
    match f(&mut tx) {
        Ok(v) => {
            let cmd = tx.into_command(label());
            let change = cmd.change.clone();
            if !change.is_empty() {
                history.push(cmd);
            }
            Ok((v, change))
        }
        Err(e) => {
            tx.rollback();
            Err(e)
        }
    }
}
