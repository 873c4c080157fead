//! The editor: a world, its history, and the tools.

use vwr::{
    local_index, local_position, Block, MetaRecord, MoveObject, World, CHUNK_SIZE, META_BIG_DECOR,
    META_MOVE_OBJECT, META_PLATE_ROTATION,
};

use crate::clipboard::{self, Clipboard, PasteOptions};
use crate::error::{in_chunk, EditError, Result};
use crate::flood::{self, FloodLimits};
use crate::history::{self, Change, History, HistoryLimits, Tx};

/// Shape of a [`Brush`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BrushShape {
    /// Every cell within `radius` on each axis: a cube of side `2 × radius + 1`.
    Cube,
    /// Every cell whose centre lies within `radius` of the centre cell's
    /// (`dx² + dy² + dz² <= radius²`).
    Sphere,
}

/// A brush: a shape and a radius (0 = the centre cell only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Brush {
    /// Shape.
    pub shape: BrushShape,
    /// Radius in cells.
    pub radius: u32,
}

/// Largest brush radius honoured (larger values behave like this one; it covers any world).
pub const MAX_BRUSH_RADIUS: u32 = 1 << 16;

/// Formats a block as `type:meta` for labels.
pub fn block_label(b: Block) -> String {
    format!("{}:{}", b.block_type(), b.metadata())
}

fn p3(p: [i32; 3]) -> String {
    format!("({}, {}, {})", p[0], p[1], p[2])
}

/// A world under edit, with an exact undo/redo history. Every tool call is one command.
///
/// The editor owns the world so that nothing can change it behind the history's back; read it
/// with [`Editor::world`], take it back with [`Editor::into_world`]. A tool that fails leaves
/// the world unchanged and the history untouched. A tool call that changes nothing is not
/// recorded and does not clear the redo branch.
#[derive(Clone, Debug, Default)]
pub struct Editor {
    world: World,
    history: History,
}

impl Editor {
    /// Edits `world` with the default history bounds (200 commands, 64 MiB).
    pub fn new(world: World) -> Editor {
        Editor::with_limits(world, HistoryLimits::default())
    }

    /// Edits `world` with the given history bounds.
    pub fn with_limits(world: World, limits: HistoryLimits) -> Editor {
        Editor {
            world,
            history: History::new(limits),
        }
    }

    /// The world as edited.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Ends the edit session and returns the world.
    pub fn into_world(self) -> World {
        self.world
    }

    /// The history.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Changes the history bounds (dropping the oldest commands if needed).
    pub fn set_limits(&mut self, limits: HistoryLimits) {
        self.history.set_limits(limits);
    }

    /// Undoes the newest command; `None` when there is nothing to undo.
    pub fn undo(&mut self) -> Option<Change> {
        self.history.undo(&mut self.world)
    }

    /// Redoes the last undone command; `None` when there is nothing to redo.
    pub fn redo(&mut self) -> Option<Change> {
        self.history.redo(&mut self.world)
    }

    /// Runs several tool calls as one undoable command (one UI action: "apply to selection",
    /// cut then paste, a script sent in one request). If `f` fails, every call it made is
    /// undone exactly and the redo branch is as before. `label` names the merged command from
    /// the calls' summaries (a single call keeps its own label). `f` must not undo or redo:
    /// an undo or redo ends the group, leaving the calls before it as separate commands.
    pub fn group<T, E>(
        &mut self,
        label: impl FnOnce(&[&Change]) -> String,
        f: impl FnOnce(&mut Editor) -> std::result::Result<T, E>,
    ) -> std::result::Result<(T, Option<Change>), E> {
        self.history.begin();
        match f(self) {
            Ok(v) => Ok((v, self.history.commit(label))),
            Err(e) => {
                self.history.rollback(&mut self.world);
                Err(e)
            }
        }
    }

    /// Runs a custom command: everything `f` writes through the [`Tx`] is one undoable
    /// command. If `f` fails, its changes are rolled back.
    pub fn edit<T>(
        &mut self,
        label: impl Into<String>,
        f: impl FnOnce(&mut Tx<'_>) -> Result<T>,
    ) -> Result<(T, Change)> {
        let label = label.into();
        history::run(&mut self.world, &mut self.history, move || label, f)
    }

    fn cmd<T>(
        &mut self,
        label: impl FnOnce() -> String,
        f: impl FnOnce(&mut Tx<'_>) -> Result<T>,
    ) -> Result<(T, Change)> {
        history::run(&mut self.world, &mut self.history, label, f)
    }

    /// [`Self::cmd`] for a command whose only answer is its [`Change`].
    fn change<T>(
        &mut self,
        label: impl FnOnce() -> String,
        f: impl FnOnce(&mut Tx<'_>) -> Result<T>,
    ) -> Result<Change> {
        Ok(self.cmd(label, f)?.1)
    }

    /// Removes the record of type `record_type` on a cell, as a command;
    /// [`EditError::NothingThere`] (naming `what`) if there is none.
    fn remove_record(
        &mut self,
        p: [i32; 3],
        record_type: u16,
        what: &'static str,
        label: impl FnOnce() -> String,
    ) -> Result<Change> {
        self.change(label, |tx| {
            match tx.remove_extra_metadata([p[0], p[1], p[2]], record_type) {
                0 => Err(EditError::NothingThere { what, pos: p }),
                _ => Ok(()),
            }
        })
    }

    /// Places one block. Fails outside the world.
    pub fn place(&mut self, p: [i32; 3], block: Block) -> Result<Change> {
        let label = || format!("place {} at {}", block_label(block), p3(p));
        self.change(label, |tx| tx.set_block([p[0], p[1], p[2]], block))
    }

    /// Sets one cell to air (metadata records on the cell stay). Fails outside the world.
    pub fn erase(&mut self, p: [i32; 3]) -> Result<Change> {
        let label = || format!("erase {}", p3(p));
        self.change(label, |tx| tx.set_block([p[0], p[1], p[2]], Block::AIR))
    }

    /// Fills the box between two corners (inclusive, any order, clamped to the world). Chunks
    /// the box covers entirely become uniform chunks, so whole-world fills take milliseconds.
    /// A box entirely outside the world changes nothing.
    pub fn fill_box(&mut self, a: [i32; 3], b: [i32; 3], block: Block) -> Result<Change> {
        let label = || format!("box {}..{} {}", p3(a), p3(b), block_label(block));
        self.change(label, |tx| tx.fill_box(a, b, block))
    }

    /// The six faces of the box between two corners (one cell thick). Faces that fall outside
    /// the world are not drawn (the box is not shrunk to the world first).
    pub fn hollow_box(&mut self, a: [i32; 3], b: [i32; 3], block: Block) -> Result<Change> {
        let label = || format!("hollow box {}..{} {}", p3(a), p3(b), block_label(block));
        self.change(label, |tx| box_faces(tx, a, b, block, true))
    }

    /// The four vertical faces of the box between two corners (no floor, no ceiling).
    pub fn walls(&mut self, a: [i32; 3], b: [i32; 3], block: Block) -> Result<Change> {
        let label = || format!("walls {}..{} {}", p3(a), p3(b), block_label(block));
        self.change(label, |tx| box_faces(tx, a, b, block, false))
    }

    /// Paints `brush` centred on `center` (clamped to the world; the centre may lie outside).
    pub fn brush(&mut self, brush: Brush, center: [i32; 3], block: Block) -> Result<Change> {
        let label = || {
            format!(
                "brush {} r={} at {} {}",
                match brush.shape {
                    BrushShape::Cube => "cube",
                    BrushShape::Sphere => "sphere",
                },
                brush.radius,
                p3(center),
                block_label(block)
            )
        };
        self.change(label, |tx| paint_brush(tx, brush, center, block))
    }

    /// Flood fill from `seed`: the 6-connected region of cells holding the seed's value, inside
    /// `limits.bounds`, becomes `block`. A region larger than `limits.max_cells` is refused with
    /// [`EditError::FloodLimit`] and nothing changes.
    pub fn flood_fill(
        &mut self,
        seed: [i32; 3],
        block: Block,
        limits: FloodLimits,
    ) -> Result<Change> {
        let label = || format!("flood fill from {} with {}", p3(seed), block_label(block));
        self.change(label, |tx| flood::flood_fill(tx, seed, block, limits))
    }

    /// Replaces every `from` by `to` inside the box (the whole world when `None`).
    pub fn replace(
        &mut self,
        from: Block,
        to: Block,
        region: Option<([i32; 3], [i32; 3])>,
    ) -> Result<Change> {
        let label = || {
            let mut s = format!("replace {} by {}", block_label(from), block_label(to));
            if let Some((a, b)) = region {
                s += &format!(" in {}..{}", p3(a), p3(b));
            }
            s
        };
        self.change(label, |tx| replace_in(tx, from, to, region))
    }

    /// Copies the box between two corners (clamped) into a clipboard. Not a command.
    pub fn copy(&self, a: [i32; 3], b: [i32; 3]) -> Result<Clipboard> {
        Clipboard::copy(&self.world, a, b)
    }

    /// Copies the box into a clipboard, then clears it to air and removes its records.
    pub fn cut(&mut self, a: [i32; 3], b: [i32; 3]) -> Result<(Clipboard, Change)> {
        let clip = Clipboard::copy(&self.world, a, b)?;
        let label = || format!("cut {}..{}", p3(a), p3(b));
        let ((), change) = self.cmd(label, |tx| {
            tx.fill_box(a, b, Block::AIR)?;
            remove_records_in(tx, a, b);
            Ok(())
        })?;
        Ok((clip, change))
    }

    /// Pastes a clipboard with its minimum corner at `origin` (after rotation and mirroring).
    /// Cells falling outside the world are dropped. MoveObjects are moved with their cell:
    /// their start keeps its offset inside the cell (mirrored with it, grid-aligned starts stay
    /// grid-aligned) and their travel `end − start` is rotated and mirrored; plate rotations
    /// flip on 90° and 270°.
    pub fn paste(
        &mut self,
        clip: &Clipboard,
        origin: [i32; 3],
        options: PasteOptions,
    ) -> Result<Change> {
        let label = || {
            let mut s = format!(
                "paste {}x{}x{} at {}",
                clip.size[0],
                clip.size[1],
                clip.size[2],
                p3(origin)
            );
            if options.rotation.degrees() != 0 {
                s += &format!(" rot {}", options.rotation.degrees());
            }
            match options.mirror {
                clipboard::Mirror::None => {}
                clipboard::Mirror::X => s += " mirror x",
                clipboard::Mirror::Z => s += " mirror z",
            }
            s
        };
        self.change(label, |tx| clipboard::paste(tx, clip, origin, options))
    }

    /// Places a MoveObject at its anchor `floor(pos_start)` (replacing one there); returns
    /// the anchor.
    pub fn place_move_object(&mut self, object: &MoveObject) -> Result<([i32; 3], Change)> {
        let label = || format!("object {} at {:?}", object.object_type, object.pos_start);
        self.cmd(label, |tx| tx.place_move_object(object))
    }

    /// Removes the MoveObject anchored on a cell; [`EditError::NothingThere`] if none.
    pub fn remove_move_object(&mut self, p: [i32; 3]) -> Result<Change> {
        let label = || format!("remove object at {}", p3(p));
        self.remove_record(p, META_MOVE_OBJECT, "MoveObject", label)
    }

    /// Moves the MoveObject anchored on `from` so that it starts at `to`; its end moves by the
    /// same amount. An object already anchored on the new cell is replaced. Returns the new
    /// anchor.
    pub fn move_move_object(&mut self, from: [i32; 3], to: [f32; 3]) -> Result<([i32; 3], Change)> {
        let label = || format!("move object {} to {to:?}", p3(from));
        self.cmd(label, |tx| {
            let mut m = tx
                .world()
                .move_object_at([from[0], from[1], from[2]])?
                .ok_or(EditError::NothingThere {
                    what: "MoveObject",
                    pos: from,
                })?;
            let d = [0, 1, 2].map(|k| to[k] - m.pos_start[k]);
            m.pos_end = [0, 1, 2].map(|k| m.pos_end[k] + d[k]);
            m.pos_start = to;
            tx.remove_extra_metadata([from[0], from[1], from[2]], META_MOVE_OBJECT);
            tx.place_move_object(&m)
        })
    }

    /// Places a BigDecor icon (non-zero) on a cell, replacing one there.
    pub fn place_big_decor(&mut self, p: [i32; 3], icon: u16) -> Result<Change> {
        let label = || format!("decor {icon} at {}", p3(p));
        self.change(label, |tx| tx.place_big_decor([p[0], p[1], p[2]], icon))
    }

    /// Removes the BigDecor on a cell; [`EditError::NothingThere`] if none.
    pub fn remove_big_decor(&mut self, p: [i32; 3]) -> Result<Change> {
        let label = || format!("remove decor at {}", p3(p));
        self.remove_record(p, META_BIG_DECOR, "BigDecor", label)
    }

    /// Sets the plate rotation of a cell (`true` = rotated 90°).
    pub fn set_plate_rotation(&mut self, p: [i32; 3], rotated: bool) -> Result<Change> {
        let label = || format!("plate rotation {rotated} at {}", p3(p));
        self.change(label, |tx| {
            tx.set_plate_rotation([p[0], p[1], p[2]], rotated)
        })
    }

    /// Removes the plate-rotation record of a cell (no change if there is none).
    pub fn remove_plate_rotation(&mut self, p: [i32; 3]) -> Result<Change> {
        let label = || format!("remove plate rotation at {}", p3(p));
        self.change(label, |tx| {
            if tx.world().plate_rotation([p[0], p[1], p[2]]).is_none() {
                return Ok(());
            }
            tx.remove_extra_metadata([p[0], p[1], p[2]], META_PLATE_ROTATION);
            Ok(())
        })
    }

    /// Sets an opaque metadata record (replacing the first of its type on the cell).
    pub fn set_metadata(
        &mut self,
        p: [i32; 3],
        record_type: u16,
        payload: &[u8],
    ) -> Result<Change> {
        let label = || format!("metadata type {record_type} at {}", p3(p));
        self.change(label, |tx| {
            tx.set_extra_metadata([p[0], p[1], p[2]], record_type, payload)
        })
    }

    /// Removes every record of a type on a cell.
    pub fn remove_metadata(&mut self, p: [i32; 3], record_type: u16) -> Result<Change> {
        let label = || format!("remove metadata type {record_type} at {}", p3(p));
        self.change(label, |tx| {
            tx.remove_extra_metadata([p[0], p[1], p[2]], record_type);
            Ok(())
        })
    }

    /// Sets the sky region.
    pub fn set_sky_region(&mut self, sky: u32) -> Result<Change> {
        let label = || format!("sky region {sky}");
        self.change(label, |tx| {
            tx.set_sky_region(sky);
            Ok(())
        })
    }

    /// Sets the mission number (0 = none).
    pub fn set_mission_number(&mut self, mission: u32) -> Result<Change> {
        let label = || format!("mission number {mission}");
        self.change(label, |tx| {
            tx.set_mission_number(mission);
            Ok(())
        })
    }

    /// Sets (inside the world) or clears the spawn cell.
    pub fn set_spawn(&mut self, spawn: Option<[i32; 3]>) -> Result<Change> {
        let label = || match spawn {
            Some(p) => format!("spawn {}", p3(p)),
            None => "clear spawn".to_string(),
        };
        self.change(label, |tx| tx.set_spawn(spawn))
    }
}

fn box_faces(tx: &mut Tx<'_>, a: [i32; 3], b: [i32; 3], block: Block, caps: bool) -> Result<()> {
    let lo = [0, 1, 2].map(|k| a[k].min(b[k]));
    let hi = [0, 1, 2].map(|k| a[k].max(b[k]));
    for k in [0usize, 2] {
        let mut h = hi;
        h[k] = lo[k];
        tx.fill_box(lo, h, block)?;
        let mut l = lo;
        l[k] = hi[k];
        tx.fill_box(l, hi, block)?;
    }
    if caps {
        let mut h = hi;
        h[1] = lo[1];
        tx.fill_box(lo, h, block)?;
        let mut l = lo;
        l[1] = hi[1];
        tx.fill_box(l, hi, block)?;
    }
    Ok(())
}

fn paint_brush(tx: &mut Tx<'_>, brush: Brush, c: [i32; 3], block: Block) -> Result<()> {
    let r = brush.radius.min(MAX_BRUSH_RADIUS) as i64;
    let c64 = c.map(|v| v as i64);
    let lo = c64.map(|v| v - r);
    let hi = c64.map(|v| v + r);
    let clamp = |v: i64| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    match brush.shape {
        BrushShape::Cube => {
            tx.fill_box(lo.map(clamp), hi.map(clamp), block)?;
        }
        BrushShape::Sphere => {
            let limit = tx.world().block_dims().map(i64::from);
            let (y0, y1) = (lo[1].max(0), hi[1].min(limit[1] - 1));
            let (z0, z1) = (lo[2].max(0), hi[2].min(limit[2] - 1));
            for z in z0..=z1 {
                for y in y0..=y1 {
                    let (dy, dz) = (y - c64[1], z - c64[2]);
                    let rem = r * r - dy * dy - dz * dz;
                    if rem < 0 {
                        continue;
                    }
                    let dx = (rem as u64).isqrt() as i64;
                    let (x0, x1) = (c64[0] - dx, c64[0] + dx);
                    if x1 < 0 || x0 >= limit[0] {
                        continue;
                    }
                    tx.fill_box(
                        [clamp(x0), y as i32, z as i32],
                        [clamp(x1), y as i32, z as i32],
                        block,
                    )?;
                }
            }
        }
    }
    Ok(())
}

/// Chunk-local inclusive bounds of the clamped box `lo..=hi` inside chunk `c`.
fn local_bounds(lo: [u32; 3], hi: [u32; 3], c: [u32; 3]) -> ([usize; 3], [usize; 3]) {
    let s = CHUNK_SIZE as u32;
    let base = c.map(|v| v * s);
    (
        [0, 1, 2].map(|k| (lo[k].max(base[k]) - base[k]) as usize),
        [0, 1, 2].map(|k| (hi[k].min(base[k] + s - 1) - base[k]) as usize),
    )
}

fn replace_in(
    tx: &mut Tx<'_>,
    from: Block,
    to: Block,
    region: Option<([i32; 3], [i32; 3])>,
) -> Result<()> {
    if from == to {
        return Ok(());
    }
    let limit = tx.world().block_dims();
    let (a, b) = region.unwrap_or(([0; 3], limit.map(|v| v as i32 - 1)));
    let Some((lo, hi)) = tx.world().clamp_box(a, b) else {
        return Ok(());
    };
    let s = CHUNK_SIZE as u32;
    for cz in lo[2] / s..=hi[2] / s {
        for cy in lo[1] / s..=hi[1] / s {
            for cx in lo[0] / s..=hi[0] / s {
                let (min, max) = local_bounds(lo, hi, [cx, cy, cz]);
                let whole = min == [0; 3] && max == [9; 3];
                match tx.world().chunk([cx, cy, cz]) {
                    None if from.is_air() => {
                        let base = [cx, cy, cz].map(|v| (v * s) as i32);
                        tx.fill_box(
                            [0, 1, 2].map(|k| base[k] + min[k] as i32),
                            [0, 1, 2].map(|k| base[k] + max[k] as i32),
                            to,
                        )?;
                        continue;
                    }
                    None => continue,
                    Some(c) if !c.palette().contains(&from) => continue,
                    Some(_) => {}
                }
                let Some(chunk) = tx.chunk_mut([cx, cy, cz]) else {
                    continue;
                };
                if whole && chunk.palette() == [from] {
                    chunk.fill(to);
                    continue;
                }
                let blocks = chunk.to_blocks();
                for z in min[2]..=max[2] {
                    for y in min[1]..=max[1] {
                        for x in min[0]..=max[0] {
                            let i = local_index(x, y, z);
                            if blocks[i] == from {
                                chunk.set(i, to).map_err(|e| in_chunk(e, [cx, cy, cz]))?;
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Removes every record whose cell lies in the box (clamped).
pub(crate) fn remove_records_in(tx: &mut Tx<'_>, a: [i32; 3], b: [i32; 3]) {
    let Some((lo, hi)) = tx.world().clamp_box(a, b) else {
        return;
    };
    let s = CHUNK_SIZE as u32;
    for cz in lo[2] / s..=hi[2] / s {
        for cy in lo[1] / s..=hi[1] / s {
            for cx in lo[0] / s..=hi[0] / s {
                let (min, max) = local_bounds(lo, hi, [cx, cy, cz]);
                let inside = |r: &MetaRecord| {
                    let l = local_position(r.index as usize);
                    (0..3).all(|k| l[k] >= min[k] && l[k] <= max[k])
                };
                match tx.world().chunk([cx, cy, cz]) {
                    Some(c) if c.records().iter().any(inside) => {}
                    _ => continue,
                }
                if let Some(chunk) = tx.chunk_mut([cx, cy, cz]) {
                    let keep: Vec<MetaRecord> = chunk
                        .records()
                        .iter()
                        .filter(|r| !inside(r))
                        .cloned()
                        .collect();
                    chunk.set_records(keep);
                }
            }
        }
    }
}
