//! Worlds: open, save, convert, blocks and boxes, fields, MoveObjects and BigDecor.

use std::ffi::c_char;
use std::path::Path;

use vwr::{Block, MoveObject, World};

use crate::error::*;
use crate::ptr;
use crate::VoxcafBuffer;

/// A `.vwr` world. Opaque; created by `voxcaf_world_new` / `_open` / `_from_bytes`, freed by
/// `voxcaf_world_free`. Not thread-safe: use one handle from one thread at a time.
pub struct VoxcafWorld(pub(crate) World, pub(crate) Option<crate::store::Origin>);

/// Save format: v2 when the world is cubic with at most 255 chunks per axis, else v3.
pub const VOXCAF_FORMAT_AUTO: u32 = 0;
/// The original v2 format (cubic worlds, 1..=255 chunks per axis).
pub const VOXCAF_FORMAT_V2: u32 = 2;
/// The v3 format (any chunk dimensions; docs/format/vwr-v3.md), codec `auto`.
pub const VOXCAF_FORMAT_V3: u32 = 3;

/// A MoveObject record (a moving platform, enemy, treasure, exit, ...), as in the original.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VoxcafMoveObject {
    /// Object type (see `vwr::MOVE_OBJECT_NAMES`).
    pub object_type: u8,
    /// Start position (world units; the record is stored in the cell it starts in).
    pub pos_start: [f32; 3],
    /// End position.
    pub pos_end: [f32; 3],
    /// Speed.
    pub speed: f32,
    /// Ticks to advance one step.
    pub step_advance_ticks: f32,
    /// Ticks to recede one step.
    pub step_recede_ticks: f32,
    /// Pause at the start, in ticks.
    pub time_stop_start_ticks: f32,
    /// Pause at the end, in ticks.
    pub time_stop_end_ticks: f32,
    /// Icon drawn for it.
    pub visual_icon: u16,
}

/// `From` both ways between two structs with the same fields (a C mirror and its Rust type).
macro_rules! mirror_from {
    ($a:ident <-> $b:ident { $($field:ident),* $(,)? }) => {
        impl From<&$a> for $b {
            fn from(m: &$a) -> Self {
                $b { $($field: m.$field),* }
            }
        }
        impl From<&$b> for $a {
            fn from(m: &$b) -> Self {
                $a { $($field: m.$field),* }
            }
        }
    };
}

mirror_from!(MoveObject <-> VoxcafMoveObject {
    object_type,
    pos_start,
    pos_end,
    speed,
    step_advance_ticks,
    step_recede_ticks,
    time_stop_start_ticks,
    time_stop_end_ticks,
    visual_icon,
});

/// A MoveObject with the cell that holds it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VoxcafPlacedMoveObject {
    /// The cell (x, y, z).
    pub cell: [i32; 3],
    /// The object.
    pub object: VoxcafMoveObject,
}

/// A BigDecor (a large decoration drawn at a cell).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VoxcafBigDecor {
    /// The cell (x, y, z).
    pub cell: [i32; 3],
    /// The decoration's icon.
    pub icon: u16,
}

fn world<'a>(w: *const VoxcafWorld) -> Result<&'a World, Fail> {
    ptr::handle(w, "world").map(|w| &w.0)
}

fn world_mut<'a>(w: *mut VoxcafWorld) -> Result<&'a mut World, Fail> {
    ptr::handle_mut(w, "world").map(|w| &mut w.0)
}

fn encode(world: &World, format: u32) -> Result<Vec<u8>, Fail> {
    match format {
        VOXCAF_FORMAT_AUTO | VOXCAF_FORMAT_V2 if world.fits_v2() => Ok(world.to_bytes()),
        VOXCAF_FORMAT_V2 => Err(Fail::new(
            VOXCAF_ERR_UNSUPPORTED,
            format!(
                "a world of {:?} chunks does not fit the v2 format (cubic, at most 255 per axis)",
                world.chunk_dims()
            ),
        )),
        VOXCAF_FORMAT_AUTO => Ok(world.to_bytes()),
        VOXCAF_FORMAT_V3 => Ok(vwr::write_world_v3(
            world,
            vwr::Codec::Auto,
            vwr::DEFAULT_ZSTD_LEVEL,
        )),
        other => Err(Fail::new(
            VOXCAF_ERR_INVALID_ARGUMENT,
            format!("unknown format {other} (use VOXCAF_FORMAT_AUTO, _V2 or _V3)"),
        )),
    }
}

fn ext_is(p: &Path, ext: &str) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// Creates an empty world of `cx × cy × cz` chunks (10³ blocks each).
///
/// Ownership: on success `*out` receives a new world owned by the caller (free it with
/// `voxcaf_world_free`).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_new(
    cx: u32,
    cy: u32,
    cz: u32,
    out: *mut *mut VoxcafWorld,
) -> i32 {
    guard(|| {
        ptr::check_out(out, "out")?;
        let w = World::with_chunk_dims([cx, cy, cz])?;
        ptr::out(out, ptr::give(VoxcafWorld(w, None)), "out")
    })
}

/// Loads a world from a file: `.vwr` (every check of the format), or a MagicaVoxel `.vox`
/// (imported into the smallest cubic world that holds it, colours mapped to the nearest
/// registry block); or from a database, `postgres://USER@HOST:PORT/DB?world=NAME` (the password
/// from `PGPASSWORD` or `~/.pgpass`; every chunk's CRC checked), remembering the commit it was
/// read at for `voxcaf_world_save`.
///
/// Ownership: `path` is borrowed for the call; on success `*out` receives a new world owned
/// by the caller.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_open(path: *const c_char, out: *mut *mut VoxcafWorld) -> i32 {
    guard(|| {
        ptr::check_out(out, "out")?;
        let path = ptr::path(path, "path")?;
        if let Some(loc) = crate::store::location(&path)? {
            let (w, origin) = crate::store::open(&loc)?;
            return ptr::out(out, ptr::give(VoxcafWorld(w, Some(origin))), "out");
        }
        let w = if ext_is(&path, "vox") {
            let bytes = std::fs::read(&path)
                .map_err(|e| Fail::new(VOXCAF_ERR_IO, format!("{}: {e}", path.display())))?;
            vwr_vox::import(&bytes, &vwr_vox::ImportOptions::default())
                .map_err(|e| Fail::at(&path, e))?
                .world
        } else {
            World::load(&path)?
        };
        ptr::out(out, ptr::give(VoxcafWorld(w, None)), "out")
    })
}

/// Loads a world from `.vwr` bytes in memory.
///
/// Ownership: `data` is borrowed for the call (copied as needed); on success `*out`
/// receives a new world owned by the caller.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_from_bytes(
    data: *const u8,
    len: usize,
    out: *mut *mut VoxcafWorld,
) -> i32 {
    guard(|| {
        ptr::check_out(out, "out")?;
        let bytes = ptr::bytes(data, len, "data")?;
        let w = World::from_bytes(bytes)?;
        ptr::out(out, ptr::give(VoxcafWorld(w, None)), "out")
    })
}

/// Saves a world: `.vwr` in `format` (`VOXCAF_FORMAT_AUTO`, `_V2`, `_V3`), atomically
/// (temporary file, fsync, rename); with `VOXCAF_FORMAT_AUTO` over an existing world file,
/// in that file's own format through voxcaf's world session (a v3 file gets an incremental,
/// crash-safe commit; a v2 file keeps its previous version as `FILE.bak`); or MagicaVoxel `.vox` when the path ends in `.vox`
/// (`format` ignored; beyond 255 distinct block values the rarest take the nearest palette
/// colour, and the exact values and the MoveObjects and other records are kept in voxcaf's own
/// chunk, which MagicaVoxel ignores: docs/format/vox-voxcaf-chunk.md). A database location
/// (`postgres://...?world=NAME`, `format` ignored): over the world the handle was opened from,
/// one commit of what differs, refused with `VOXCAF_ERR_CONFLICT` (nothing written) if another
/// writer committed since; anywhere else a new database world (an existing one is not
/// replaced).
///
/// Ownership: borrows `world` and `path` for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_save(
    world: *const VoxcafWorld,
    path: *const c_char,
    format: u32,
) -> i32 {
    guard(|| {
        let path = ptr::path(path, "path")?;
        if let Some(loc) = crate::store::location(&path)? {
            return crate::store::save(ptr::handle(world, "world")?, &loc);
        }
        let w = self::world(world)?;
        if ext_is(&path, "vox") {
            let out = vwr_vox::export(w, &vwr_vox::ExportOptions::default())?;
            return vwr_fs_write(&path, &out.bytes);
        }
        if format == VOXCAF_FORMAT_AUTO {
            if let Some(version) = existing_world(&path) {
                return save_over(w, &path, version);
            }
        }
        let bytes = encode(w, format)?;
        vwr_fs_write(&path, &bytes)
    })
}

/// The header version of the world file at `path`, if there is one.
fn existing_world(path: &Path) -> Option<u8> {
    let mut head = [0u8; 5];
    let mut f = std::fs::File::open(path).ok()?;
    std::io::Read::read_exact(&mut f, &mut head).ok()?;
    vwr::world_version(&head)
}

/// `VOXCAF_FORMAT_AUTO` over an existing world: saved in that file's format through the one
/// world session (v3: an incremental commit; v2: a rewrite keeping `FILE.bak`).
fn save_over(w: &World, path: &Path, version: u8) -> Result<(), Fail> {
    let opts = vwr::SessionOptions::tool("voxcaf C API");
    let (mut session, mut disk) = vwr::WorldSession::open(path, opts)?;
    if disk.chunk_dims() != w.chunk_dims() {
        drop(session);
        let opts = vwr::SaveOptions::of_version(version);
        return vwr_fs_write(path, &w.to_bytes_with(&opts)?);
    }
    session.load_all(&mut disk)?;
    drop(disk);
    session.save(w)?;
    Ok(())
}

fn vwr_fs_write(path: &Path, bytes: &[u8]) -> Result<(), Fail> {
    // The one atomic writer of the workspace (what `World::save` uses too).
    voxcaf_fs::write_atomic(path, bytes)
        .map_err(|e| Fail::new(VOXCAF_ERR_IO, format!("{}: {e}", path.display())))
}

/// Encodes a world as `.vwr` bytes in `format` (see `voxcaf_world_save`).
///
/// Ownership: borrows `world`; on success `*out` receives bytes owned by the caller (free
/// them with `voxcaf_buffer_free`).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_to_bytes(
    world: *const VoxcafWorld,
    format: u32,
    out: *mut VoxcafBuffer,
) -> i32 {
    guard(|| {
        ptr::check_out(out, "out")?;
        let bytes = encode(self::world(world)?, format)?;
        ptr::out(out, VoxcafBuffer::from_vec(bytes), "out")
    })
}

/// Converts a world file: `.vwr` or `.vox` in, `.vwr` (in `format`) or `.vox` out, by the
/// extensions (`voxcaf world convert` of the command line).
///
/// Ownership: borrows both paths for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_convert(
    input: *const c_char,
    output: *const c_char,
    format: u32,
) -> i32 {
    let mut w: *mut VoxcafWorld = std::ptr::null_mut();
    // SAFETY: forwards the caller's contract on `input`; `w` is a local out-pointer.
    let status = unsafe { voxcaf_world_open(input, &mut w) };
    if status != VOXCAF_OK {
        return status;
    }
    // SAFETY: `w` is the live world just opened; `output` is the caller's.
    let status = unsafe { voxcaf_world_save(w, output, format) };
    // SAFETY: `w` came from `voxcaf_world_open` and is freed once.
    unsafe { voxcaf_world_free(w) };
    status
}

/// Frees a world. Accepts NULL.
/// Leaves `voxcaf_last_error()` as it was.
///
/// Ownership: takes back `world`; it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_free(world: *mut VoxcafWorld) {
    ptr::free(world);
}

/// Chunks along x, y, z (`chunk_dims[3]`) and blocks along x, y, z (`block_dims[3]`); either
/// may be NULL.
///
/// Ownership: borrows `world`; writes the caller's arrays.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_dims(
    world: *const VoxcafWorld,
    chunk_dims: *mut u32,
    block_dims: *mut u32,
) -> i32 {
    guard(|| {
        let w = self::world(world)?;
        if !chunk_dims.is_null() {
            ptr::slice_mut(chunk_dims, 3, "chunk_dims")?.copy_from_slice(&w.chunk_dims());
        }
        if !block_dims.is_null() {
            ptr::slice_mut(block_dims, 3, "block_dims")?.copy_from_slice(&w.block_dims());
        }
        Ok(())
    })
}

/// Reads one block (air outside the world, like the original).
///
/// Ownership: borrows `world`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_get_block(
    world: *const VoxcafWorld,
    x: i32,
    y: i32,
    z: i32,
    out: *mut u16,
) -> i32 {
    guard(|| {
        let b = self::world(world)?.get_block([x, y, z]);
        ptr::out(out, b.raw(), "out")
    })
}

/// Writes one block (raw value `type << 4 | meta`); outside the world is
/// `VOXCAF_ERR_OUT_OF_BOUNDS`.
///
/// Ownership: borrows `world` mutably for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_set_block(
    world: *mut VoxcafWorld,
    x: i32,
    y: i32,
    z: i32,
    raw: u16,
) -> i32 {
    guard(|| Ok(world_mut(world)?.set_block([x, y, z], Block::from_raw(raw))?))
}

/// Fills the box between two corners (inclusive, any order, clamped to the world) with one
/// block; `*changed` (may be NULL) receives the number of cells written.
///
/// Ownership: borrows `world` mutably for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_fill_box(
    world: *mut VoxcafWorld,
    a: *const i32,
    b: *const i32,
    raw: u16,
    changed: *mut u64,
) -> i32 {
    guard(|| {
        let a = corner(a, "a")?;
        let b = corner(b, "b")?;
        let n = world_mut(world)?.fill_box(a, b, Block::from_raw(raw))?;
        if !changed.is_null() {
            ptr::out(changed, n, "changed")?;
        }
        Ok(())
    })
}

fn corner(p: *const i32, what: &str) -> Result<[i32; 3], Fail> {
    if p.is_null() {
        return Err(Fail::null(what));
    }
    // SAFETY: the caller's contract: three readable `int32_t`.
    let s = unsafe { std::slice::from_raw_parts(p, 3) };
    Ok([s[0], s[1], s[2]])
}

/// Reads the box from `min` to `max` (inclusive; `max >= min` on each axis) into `out`: the
/// cell `(x, y, z)` goes to index `(x - min.x) + sx * ((z - min.z) + sz * (y - min.y))` (x
/// fastest, then z, then y). `len` must be the box volume. Cells outside the world read as air.
///
/// Ownership: borrows `world`; writes `len` values of the caller's array.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_get_box(
    world: *const VoxcafWorld,
    min: *const i32,
    max: *const i32,
    out: *mut u16,
    len: usize,
) -> i32 {
    guard(|| {
        let w = self::world(world)?;
        let lo = corner(min, "min")?;
        let hi = corner(max, "max")?;
        let size: Vec<u64> = (0..3)
            .map(|k| (i64::from(hi[k]) - i64::from(lo[k]) + 1).max(0) as u64)
            .collect();
        if size.contains(&0) {
            return Err(Fail::new(
                VOXCAF_ERR_INVALID_ARGUMENT,
                format!("max {hi:?} is below min {lo:?} on an axis"),
            ));
        }
        let volume = size[0]
            .checked_mul(size[1])
            .and_then(|v| v.checked_mul(size[2]));
        if volume != Some(len as u64) {
            return Err(Fail::new(
                VOXCAF_ERR_INVALID_ARGUMENT,
                format!("len is {len} but the box holds {size:?} cells"),
            ));
        }
        let dst = ptr::slice_mut(out, len, "out")?;
        let mut i = 0;
        for y in lo[1]..=hi[1] {
            for z in lo[2]..=hi[2] {
                for x in lo[0]..=hi[0] {
                    dst[i] = w.get_block([x, y, z]).raw();
                    i += 1;
                }
            }
        }
        Ok(())
    })
}

/// Sky region (`*out`).
///
/// Ownership: borrows `world`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_sky_region(world: *const VoxcafWorld, out: *mut u32) -> i32 {
    guard(|| ptr::out(out, self::world(world)?.sky_region(), "out"))
}

/// Sets the sky region.
///
/// Ownership: borrows `world` mutably for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_set_sky_region(world: *mut VoxcafWorld, sky: u32) -> i32 {
    guard(|| {
        world_mut(world)?.set_sky_region(sky);
        Ok(())
    })
}

/// Mission number (`*out`).
///
/// Ownership: borrows `world`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_mission_number(
    world: *const VoxcafWorld,
    out: *mut u32,
) -> i32 {
    guard(|| ptr::out(out, self::world(world)?.mission_number(), "out"))
}

/// Sets the mission number.
///
/// Ownership: borrows `world` mutably for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_set_mission_number(
    world: *mut VoxcafWorld,
    mission: u32,
) -> i32 {
    guard(|| {
        world_mut(world)?.set_mission_number(mission);
        Ok(())
    })
}

/// The spawn cell: `*has_spawn` tells whether there is one, `cell[3]` receives it.
///
/// Ownership: borrows `world`; writes the caller's `has_spawn` and `cell[3]`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_spawn(
    world: *const VoxcafWorld,
    has_spawn: *mut bool,
    cell: *mut i32,
) -> i32 {
    guard(|| {
        let s = self::world(world)?.spawn();
        ptr::check_out(cell, "cell")?;
        ptr::out(has_spawn, s.is_some(), "has_spawn")?;
        ptr::slice_mut(cell, 3, "cell")?.copy_from_slice(&s.unwrap_or([0; 3]));
        Ok(())
    })
}

/// Sets the spawn cell (inside the world).
///
/// Ownership: borrows `world` mutably for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_set_spawn(
    world: *mut VoxcafWorld,
    x: i32,
    y: i32,
    z: i32,
) -> i32 {
    guard(|| Ok(world_mut(world)?.set_spawn([x, y, z])?))
}

/// Removes the spawn cell.
///
/// Ownership: borrows `world` mutably for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_clear_spawn(world: *mut VoxcafWorld) -> i32 {
    guard(|| {
        world_mut(world)?.clear_spawn();
        Ok(())
    })
}

/// Places a MoveObject in the cell of its start position; `cell` (may be NULL) receives it.
///
/// Ownership: borrows `world` mutably and `object` for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_place_move_object(
    world: *mut VoxcafWorld,
    object: *const VoxcafMoveObject,
    cell: *mut i32,
) -> i32 {
    guard(|| {
        let o = ptr::handle(object, "object")?;
        let c = world_mut(world)?.place_move_object(&MoveObject::from(o))?;
        if !cell.is_null() {
            ptr::slice_mut(cell, 3, "cell")?.copy_from_slice(&c);
        }
        Ok(())
    })
}

/// Lists the MoveObjects: `*count` receives how many there are; up to `cap` are written to
/// `out` (call with `cap = 0` to size the array).
///
/// Ownership: borrows `world`; writes the caller's array.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_move_objects(
    world: *const VoxcafWorld,
    out: *mut VoxcafPlacedMoveObject,
    cap: usize,
    count: *mut usize,
) -> i32 {
    guard(|| {
        let list = self::world(world)?.move_objects()?;
        ptr::out_list(out, cap, count, &list, |(cell, m)| VoxcafPlacedMoveObject {
            cell: *cell,
            object: m.into(),
        })
    })
}

/// Removes the MoveObject of a cell; `VOXCAF_ERR_NOT_FOUND` when there is none.
///
/// Ownership: borrows `world` mutably for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_remove_move_object(
    world: *mut VoxcafWorld,
    x: i32,
    y: i32,
    z: i32,
) -> i32 {
    guard(|| {
        let removed = world_mut(world)?.remove_move_object([x, y, z]);
        found(removed, "MoveObject", [x, y, z])
    })
}

/// `Ok` when a removal found what it removed, else `VOXCAF_ERR_NOT_FOUND` naming the cell.
fn found(removed: bool, what: &str, [x, y, z]: [i32; 3]) -> Result<(), Fail> {
    if removed {
        Ok(())
    } else {
        Err(Fail::new(
            VOXCAF_ERR_NOT_FOUND,
            format!("no {what} at ({x}, {y}, {z})"),
        ))
    }
}

/// Places a BigDecor with `icon` at a cell.
///
/// Ownership: borrows `world` mutably for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_place_big_decor(
    world: *mut VoxcafWorld,
    x: i32,
    y: i32,
    z: i32,
    icon: u16,
) -> i32 {
    guard(|| Ok(world_mut(world)?.place_big_decor([x, y, z], icon)?))
}

/// Lists the BigDecors like `voxcaf_world_move_objects`.
///
/// Ownership: borrows `world`; writes the caller's array.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_big_decors(
    world: *const VoxcafWorld,
    out: *mut VoxcafBigDecor,
    cap: usize,
    count: *mut usize,
) -> i32 {
    guard(|| {
        let list = self::world(world)?.big_decors()?;
        ptr::out_list(out, cap, count, &list, |(cell, icon)| VoxcafBigDecor {
            cell: *cell,
            icon: *icon,
        })
    })
}

/// Removes the BigDecor of a cell; `VOXCAF_ERR_NOT_FOUND` when there is none.
///
/// Ownership: borrows `world` mutably for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_remove_big_decor(
    world: *mut VoxcafWorld,
    x: i32,
    y: i32,
    z: i32,
) -> i32 {
    guard(|| {
        let removed = world_mut(world)?.remove_big_decor([x, y, z]);
        found(removed, "BigDecor", [x, y, z])
    })
}

/// Number of non-air blocks (`*out`).
///
/// Ownership: borrows `world`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_world_count_non_air(
    world: *const VoxcafWorld,
    out: *mut u64,
) -> i32 {
    guard(|| ptr::out(out, self::world(world)?.count_non_air(), "out"))
}
