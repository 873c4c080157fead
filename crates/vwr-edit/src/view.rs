//! Editor views: a layer slice with a terminal rendering, and per-chunk statistics for the
//! chunk debug view.

use std::collections::HashMap;
use std::fmt::Write as _;

use vwr::{Block, World, CHUNK_SIZE, META_BIG_DECOR, META_MOVE_OBJECT};

use crate::error::{EditError, Result};

/// The blocks of one Y level (optionally a rectangle of it), as a grid: rows along Z, columns
/// along X.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
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
    /// `width × depth` blocks, row by row: index `(z − z0) × width + (x − x0)`.
    pub cells: Vec<Block>,
    /// `(x, z)` of MoveObject anchors on this level, in record order.
    pub objects: Vec<[i32; 2]>,
    /// `(x, z)` of BigDecor cells on this level, in record order.
    pub decors: Vec<[i32; 2]>,
    /// `(x, z)` of the spawn cell if it is on this level.
    pub spawn: Option<[i32; 2]>,
}

/// How to render a [`Layer`] as text.
#[derive(Clone, Copy, Default)]
pub struct RenderOptions<'a> {
    /// Draw chunk borders (`|` every 10 columns, a `-` line every 10 rows).
    pub chunk_grid: bool,
    /// Hide MoveObject (`@`), BigDecor (`*`) and spawn (`+`) markers.
    pub no_markers: bool,
    /// Names for the legend (e.g. from a block registry).
    pub name: Option<&'a dyn Fn(Block) -> Option<String>>,
}

const SYMBOLS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// The most cells a [`Layer`] holds (2 bytes each: 128 MiB), an 8192×8192 region: larger
/// levels are viewed by region.
pub const MAX_LAYER_CELLS: u64 = 1 << 26;

impl Layer {
    /// The whole level `y`.
    pub fn of(world: &World, y: i32) -> Result<Layer> {
        let [bx, _, bz] = world.block_dims();
        Layer::region(world, y, [0, 0], [bx as i32 - 1, bz as i32 - 1])
    }

    /// The rectangle between `(x, z)` corners `a` and `b` (inclusive, any order, clamped) of
    /// level `y`.
    pub fn region(world: &World, y: i32, a: [i32; 2], b: [i32; 2]) -> Result<Layer> {
        Layer::region_at_most(world, y, a, b, MAX_LAYER_CELLS)
    }

    /// [`Layer::region`], refused with [`EditError::LayerTooLarge`] when the clamped rectangle
    /// holds more than `max_cells` cells (or more than 2²⁶, the most any layer holds).
    pub fn region_at_most(
        world: &World,
        y: i32,
        a: [i32; 2],
        b: [i32; 2],
        max_cells: u64,
    ) -> Result<Layer> {
        let max_cells = max_cells.min(MAX_LAYER_CELLS);
        let limit = world.block_dims();
        if y < 0 || y as u32 >= limit[1] {
            return Err(EditError::OutsideWorld {
                what: "layer",
                pos: [a[0], y, a[1]],
                limit,
            });
        }
        let (lo, hi) = world.clamp_box([a[0], y, a[1]], [b[0], y, b[1]]).ok_or(
            EditError::BoxOutsideWorld {
                a: [a[0], y, a[1]],
                b: [b[0], y, b[1]],
            },
        )?;
        let (x0, z0) = (lo[0] as i32, lo[2] as i32);
        let width = hi[0] - lo[0] + 1;
        let depth = hi[2] - lo[2] + 1;
        if width as u64 * depth as u64 > max_cells {
            return Err(EditError::LayerTooLarge {
                y,
                width,
                depth,
                max: max_cells,
            });
        }
        let mut cells = vec![Block::AIR; width as usize * depth as usize];
        let s = CHUNK_SIZE as u32;
        let cy = y as u32 / s;
        let ly = y as usize % CHUNK_SIZE;
        let mut objects = Vec::new();
        let mut decors = Vec::new();
        for cz in lo[2] / s..=hi[2] / s {
            for cx in lo[0] / s..=hi[0] / s {
                let Some(chunk) = world.chunk([cx, cy, cz]) else {
                    continue;
                };
                let base = [cx * s, cz * s];
                for lz in 0..CHUNK_SIZE {
                    let z = base[1] + lz as u32;
                    if z < lo[2] || z > hi[2] {
                        continue;
                    }
                    for lx in 0..CHUNK_SIZE {
                        let x = base[0] + lx as u32;
                        if x < lo[0] || x > hi[0] {
                            continue;
                        }
                        let o = (z - lo[2]) as usize * width as usize + (x - lo[0]) as usize;
                        cells[o] = chunk.get_local([lx, ly, lz]);
                    }
                }
            }
        }
        let inside = |c: [i32; 3]| {
            c[1] == y && c[0] >= x0 && c[0] <= hi[0] as i32 && c[2] >= z0 && c[2] <= hi[2] as i32
        };
        for (c, r) in world.all_extra_metadata() {
            if !inside(c) {
                continue;
            }
            match r.record_type {
                META_MOVE_OBJECT => objects.push([c[0], c[2]]),
                META_BIG_DECOR => decors.push([c[0], c[2]]),
                _ => {}
            }
        }
        let spawn = world.spawn().filter(|&s| inside(s)).map(|s| [s[0], s[2]]);
        Ok(Layer {
            y,
            x0,
            z0,
            width,
            depth,
            cells,
            objects,
            decors,
            spawn,
        })
    }

    /// The block at world `(x, z)` of this level (air outside the layer).
    pub fn get(&self, x: i32, z: i32) -> Block {
        let (dx, dz) = (x as i64 - self.x0 as i64, z as i64 - self.z0 as i64);
        if dx < 0 || dz < 0 || dx >= self.width as i64 || dz >= self.depth as i64 {
            return Block::AIR;
        }
        self.cells[dz as usize * self.width as usize + dx as usize]
    }

    /// Distinct non-air blocks with their counts, in first-appearance order (row by row).
    pub fn block_counts(&self) -> Vec<(Block, u64)> {
        let mut order: Vec<(Block, u64)> = Vec::new();
        let mut at: HashMap<Block, usize> = HashMap::new();
        for &b in &self.cells {
            if b.is_air() {
                continue;
            }
            match at.get(&b) {
                Some(&i) => order[i].1 += 1,
                None => {
                    at.insert(b, order.len());
                    order.push((b, 1));
                }
            }
        }
        order
    }

    /// A text rendering for the terminal: a coordinate ruler, one row per Z, one character
    /// per cell (`.` air, a letter or digit per block value, `?` beyond 62 values, markers
    /// `@` MoveObject, `*` BigDecor, `+` spawn), then a legend.
    pub fn render(&self, opts: &RenderOptions<'_>) -> String {
        let counts = self.block_counts();
        let symbol: HashMap<Block, u8> = counts
            .iter()
            .enumerate()
            .map(|(i, &(b, _))| (b, SYMBOLS.get(i).copied().unwrap_or(b'?')))
            .collect();
        let mut markers: HashMap<[i32; 2], u8> = HashMap::new();
        if !opts.no_markers {
            for &p in &self.decors {
                markers.insert(p, b'*');
            }
            for &p in &self.objects {
                markers.insert(p, b'@');
            }
            if let Some(p) = self.spawn {
                markers.insert(p, b'+');
            }
        }
        let grid = |x: i32| opts.chunk_grid && x != self.x0 && x.rem_euclid(CHUNK_SIZE as i32) == 0;
        let mut out = String::new();
        let x1 = self.x0 + self.width as i32 - 1;
        let z1 = self.z0 + self.depth as i32 - 1;
        let _ = writeln!(
            out,
            "layer y={}  x {}..{}  z {}..{}",
            self.y, self.x0, x1, self.z0, z1
        );
        // Ruler: tens on one line, units on the next.
        for digit in [10, 1] {
            let mut line = String::from("      ");
            for x in self.x0..=x1 {
                if grid(x) {
                    line.push(' ');
                }
                let c = if digit == 10 {
                    if x % 10 == 0 {
                        char::from(b'0' + ((x / 10) % 10) as u8)
                    } else {
                        ' '
                    }
                } else {
                    char::from(b'0' + (x % 10) as u8)
                };
                line.push(c);
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        let mut row = String::with_capacity(self.width as usize + 16);
        for z in self.z0..=z1 {
            if opts.chunk_grid && z != self.z0 && z % CHUNK_SIZE as i32 == 0 {
                out.push_str("      ");
                for x in self.x0..=x1 {
                    out.push(if grid(x) { '+' } else { '-' });
                    if grid(x) {
                        out.push('-');
                    }
                }
                out.push('\n');
            }
            row.clear();
            let _ = write!(row, "{z:>4}  ");
            for x in self.x0..=x1 {
                if grid(x) {
                    row.push('|');
                }
                let c = match markers.get(&[x, z]) {
                    Some(&m) => m,
                    None => {
                        let b = self.get(x, z);
                        if b.is_air() {
                            b'.'
                        } else {
                            symbol.get(&b).copied().unwrap_or(b'?')
                        }
                    }
                };
                row.push(char::from(c));
            }
            out.push_str(row.trim_end());
            out.push('\n');
        }
        out.push_str("legend: . air");
        let mut others = 0usize;
        for (i, &(b, n)) in counts.iter().enumerate() {
            let Some(&s) = SYMBOLS.get(i) else {
                others += 1;
                continue;
            };
            let _ = write!(
                out,
                "  {} {}:{}",
                char::from(s),
                b.block_type(),
                b.metadata()
            );
            if let Some(name) = opts.name.and_then(|f| f(b)) {
                let _ = write!(out, " {name}");
            }
            let _ = write!(out, " ({n})");
        }
        if others > 0 {
            let _ = write!(out, "  ? {others} more values");
        }
        if !opts.no_markers {
            if !self.objects.is_empty() {
                let _ = write!(out, "  @ MoveObject ({})", self.objects.len());
            }
            if !self.decors.is_empty() {
                let _ = write!(out, "  * BigDecor ({})", self.decors.len());
            }
            if self.spawn.is_some() {
                out.push_str("  + spawn");
            }
        }
        out.push('\n');
        out
    }
}

/// Storage statistics of one chunk, for the chunk debug view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkStats {
    /// Chunk position.
    pub pos: [u32; 3],
    /// Whether the chunk is allocated in memory.
    pub allocated: bool,
    /// Empty (palette `[air]`, no records): not stored in a save.
    pub empty: bool,
    /// One palette entry.
    pub uniform: bool,
    /// Palette entries.
    pub palette_len: usize,
    /// Palette entries some cell uses (the rest would go on [`vwr::Chunk::compact`]).
    pub live_palette: usize,
    /// Bits per block.
    pub bits: u8,
    /// Non-air cells.
    pub non_air: u32,
    /// Metadata records.
    pub records: u32,
    /// Bytes of the chunk's payload in a save (0 when empty).
    pub payload_bytes: u32,
    /// Changed since the dirty flags were last cleared.
    pub dirty: bool,
}

/// Statistics of chunk `pos` (`None` outside the world). An unallocated chunk reports as an
/// empty all-air chunk.
pub fn chunk_stats(world: &World, pos: [u32; 3]) -> Option<ChunkStats> {
    if !world.contains_chunk(pos) {
        return None;
    }
    Some(match world.chunk([pos[0], pos[1], pos[2]]) {
        None => ChunkStats {
            pos,
            allocated: false,
            empty: true,
            uniform: true,
            palette_len: 1,
            live_palette: 1,
            bits: 1,
            non_air: 0,
            records: 0,
            payload_bytes: 0,
            dirty: false,
        },
        Some(c) => ChunkStats {
            pos,
            allocated: true,
            empty: c.is_empty(),
            uniform: c.is_uniform(),
            palette_len: c.palette().len(),
            live_palette: c.palette_usage().iter().filter(|&&u| u > 0).count(),
            bits: c.bits_per_block(),
            non_air: c.count_non_air() as u32,
            records: c.records().len() as u32,
            payload_bytes: if c.is_empty() {
                0
            } else {
                vwr::chunk_payload_size(c) as u32
            },
            dirty: c.is_dirty(),
        },
    })
}

/// Statistics of every allocated chunk, in file order.
pub fn all_chunk_stats(world: &World) -> Vec<ChunkStats> {
    world
        .chunks()
        .filter_map(|(pos, _)| chunk_stats(world, pos))
        .collect()
}

/// A text table of chunk statistics (one line per chunk).
pub fn render_chunk_stats(stats: &[ChunkStats]) -> String {
    let mut out =
        String::from("chunk          palette  live  bits  non-air  records  bytes  state\n");
    for s in stats {
        let state = if !s.allocated {
            "unallocated"
        } else if s.empty {
            "empty"
        } else if s.uniform {
            "uniform"
        } else {
            "mixed"
        };
        let _ = writeln!(
            out,
            "{:<14} {:>7}  {:>4}  {:>4}  {:>7}  {:>7}  {:>5}  {}{}",
            format!("({},{},{})", s.pos[0], s.pos[1], s.pos[2]),
            s.palette_len,
            s.live_palette,
            s.bits,
            s.non_air,
            s.records,
            s.payload_bytes,
            state,
            if s.dirty { ", dirty" } else { "" }
        );
    }
    out
}
