//! Changed-chunk watches (`voxcaf_watch_*`) and linear vertex colours
//! (`voxcaf_mesh_linear_colors`), through the C API: what an engine that re-meshes only the
//! chunks an edit changed relies on.
// `unsafe` here: it calls the C API, whose entries take raw pointers.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString};
use std::ptr;

use voxcaf_ffi::*;

const STONE: u16 = 35 << 4;
const DIRT: u16 = 2 << 4;
/// No chunk.
const NONE: [[u32; 3]; 0] = [];

fn world(dims: [u32; 3]) -> *mut VoxcafWorld {
    let mut w: *mut VoxcafWorld = ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let s = unsafe { voxcaf_world_new(dims[0], dims[1], dims[2], &mut w) };
    assert_eq!(s, VOXCAF_OK);
    w
}

fn set(w: *mut VoxcafWorld, [x, y, z]: [i32; 3], raw: u16) {
    // SAFETY: `w` is a live world.
    let s = unsafe { voxcaf_world_set_block(w, x, y, z, raw) };
    assert_eq!(s, VOXCAF_OK);
}

fn fill(w: *mut VoxcafWorld, a: [i32; 3], b: [i32; 3], raw: u16) {
    // SAFETY: `w` is a live world; the corners are three `int32_t` each.
    let s = unsafe { voxcaf_world_fill_box(w, a.as_ptr(), b.as_ptr(), raw, ptr::null_mut()) };
    assert_eq!(s, VOXCAF_OK);
}

fn watch(w: *const VoxcafWorld, flags: u32) -> *mut VoxcafWatch {
    let mut watch: *mut VoxcafWatch = ptr::null_mut();
    // SAFETY: `w` is a live world, `watch` an out-pointer.
    assert_eq!(unsafe { voxcaf_watch_new(w, flags, &mut watch) }, VOXCAF_OK);
    assert!(!watch.is_null());
    watch
}

/// The watch's answer, copied out of the array it lends.
fn changes(watch: *mut VoxcafWatch, w: *const VoxcafWorld) -> Vec<[u32; 3]> {
    let mut data: *const u32 = ptr::dangling();
    let mut count = usize::MAX;
    // SAFETY: live handles and valid out-pointers.
    let s = unsafe { voxcaf_watch_changes(watch, w, &mut data, &mut count) };
    assert_eq!(s, VOXCAF_OK, "{}", last_error());
    if count == 0 {
        assert!(data.is_null(), "an empty answer lends NULL");
        return Vec::new();
    }
    // SAFETY: the watch lends `count` triples, valid until it is asked again.
    let flat = unsafe { std::slice::from_raw_parts(data, 3 * count) };
    flat.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
}

fn last_error() -> String {
    let e = voxcaf_last_error();
    if e.is_null() {
        return String::new();
    }
    // SAFETY: a non-NULL message is a NUL-terminated string valid until the next call.
    unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
}

fn free(watch: *mut VoxcafWatch, w: *mut VoxcafWorld) {
    // SAFETY: both came from this library and are freed once.
    unsafe {
        voxcaf_watch_free(watch);
        voxcaf_world_free(w);
    }
}

#[test]
fn no_change_reports_nothing() {
    let w = world([3, 3, 3]);
    set(w, [1, 2, 3], STONE);
    fill(w, [0, 0, 0], [29, 0, 29], DIRT);
    let wt = watch(w, 0);
    assert_eq!(changes(wt, w), NONE);
    // Reading the world, and writing a block the value it already holds, change nothing.
    let mut b = 0;
    // SAFETY: a live world and an out-pointer.
    let s = unsafe { voxcaf_world_get_block(w, 1, 2, 3, &mut b) };
    assert_eq!(s, VOXCAF_OK);
    set(w, [1, 2, 3], STONE);
    assert_eq!(changes(wt, w), NONE);
    free(wt, w);
}

#[test]
fn set_block_reports_exactly_its_chunk_once() {
    let w = world([3, 3, 3]);
    fill(w, [0, 0, 0], [29, 0, 29], DIRT);
    let wt = watch(w, 0);
    set(w, [14, 0, 25], STONE); // chunk (1, 0, 2), allocated already
    assert_eq!(changes(wt, w), [[1, 0, 2]]);
    assert_eq!(changes(wt, w), NONE, "the watch remembers what it reported");
    set(w, [14, 0, 25], DIRT);
    set(w, [14, 0, 26], STONE);
    assert_eq!(changes(wt, w), [[1, 0, 2]], "two edits of one chunk: once");
    free(wt, w);
}

#[test]
fn fill_box_reports_the_chunks_it_touched_in_file_order() {
    let w = world([3, 3, 3]);
    let wt = watch(w, 0);
    fill(w, [5, 3, 12], [14, 3, 4], STONE); // x 0..=1, y 0, z 0..=1
    assert_eq!(
        changes(wt, w),
        [[0, 0, 0], [1, 0, 0], [0, 0, 1], [1, 0, 1]],
        "z outer, then y, x fastest"
    );
    // A box over whole chunks and parts of others, most of them holding blocks already.
    fill(w, [0, 0, 0], [29, 9, 9], DIRT);
    assert_eq!(changes(wt, w), [[0, 0, 0], [1, 0, 0], [2, 0, 0]]);
    free(wt, w);
}

#[test]
fn a_change_undone_is_still_reported() {
    // Documented: the watch compares revisions, not contents.
    let w = world([2, 2, 2]);
    set(w, [3, 3, 3], STONE);
    let wt = watch(w, 0);
    set(w, [3, 3, 3], DIRT);
    set(w, [3, 3, 3], STONE);
    assert_eq!(changes(wt, w), [[0, 0, 0]]);
    free(wt, w);
}

#[test]
fn emptied_and_removed_chunks_are_reported() {
    let w = world([3, 1, 1]);
    set(w, [2, 2, 2], STONE); // chunk 0: one block
    fill(w, [10, 0, 0], [19, 9, 9], STONE); // chunk 1: whole
    let wt = watch(w, 0);
    set(w, [2, 2, 2], 0); // chunk 0 emptied (still allocated)
    fill(w, [10, 0, 0], [19, 9, 9], 0); // chunk 1 removed
    assert_eq!(changes(wt, w), [[0, 0, 0], [1, 0, 0]]);
    // Air written where there is none: nothing.
    fill(w, [20, 0, 0], [29, 9, 9], 0);
    set(w, [25, 5, 5], 0);
    assert_eq!(changes(wt, w), NONE);
    free(wt, w);
}

#[test]
fn a_new_chunk_is_reported() {
    let w = world([4, 4, 4]);
    set(w, [1, 1, 1], STONE);
    let wt = watch(w, 0);
    set(w, [39, 39, 39], STONE);
    assert_eq!(changes(wt, w), [[3, 3, 3]]);
    fill(w, [20, 0, 0], [29, 9, 9], DIRT); // a whole new chunk
    assert_eq!(changes(wt, w), [[2, 0, 0]]);
    free(wt, w);
}

#[test]
fn records_are_reported_only_with_the_records_flag() {
    let w = world([2, 2, 2]);
    set(w, [1, 1, 1], STONE);
    let blocks = watch(w, 0);
    let records = watch(w, VOXCAF_WATCH_RECORDS);
    let m = VoxcafMoveObject {
        object_type: 7,
        pos_start: [1.5, 2.0, 1.5],
        pos_end: [4.0, 2.0, 1.5],
        ..Default::default()
    };
    // SAFETY: a live world and a valid object; `cell` may be NULL.
    unsafe {
        assert_eq!(
            voxcaf_world_place_move_object(w, &m, ptr::null_mut()),
            VOXCAF_OK
        );
        assert_eq!(voxcaf_world_place_big_decor(w, 15, 15, 15, 3), VOXCAF_OK);
    }
    assert_eq!(changes(blocks, w), NONE, "records do not change meshes");
    assert_eq!(
        changes(records, w),
        [[0, 0, 0], [1, 1, 1]],
        "a record in a chunk with blocks, and one in a chunk of air"
    );
    set(w, [1, 1, 2], STONE);
    assert_eq!(changes(blocks, w), [[0, 0, 0]]);
    assert_eq!(changes(records, w), [[0, 0, 0]]);
    // SAFETY: `records` came from this library and is freed once.
    unsafe { voxcaf_watch_free(records) };
    free(blocks, w);
}

#[test]
fn the_neighbours_flag_adds_the_chunks_around_that_hold_blocks() {
    let w = world([4, 3, 3]);
    // Chunks holding blocks: (0..=2, 0, 0..=2) except (2, 0, 2), and (3, 2, 2).
    fill(w, [0, 0, 0], [29, 0, 29], DIRT);
    fill(w, [20, 0, 20], [29, 9, 29], 0);
    set(w, [35, 25, 25], STONE);
    let plain = watch(w, 0);
    let around = watch(w, VOXCAF_WATCH_NEIGHBOURS);
    set(w, [15, 0, 15], STONE); // chunk (1, 0, 1)
    assert_eq!(changes(plain, w), [[1, 0, 1]]);
    let got = changes(around, w);
    let mut want = Vec::new();
    for z in 0..3 {
        for x in 0..3 {
            if [x, z] != [2, 2] {
                want.push([x, 0, z]);
            }
        }
    }
    assert_eq!(
        got, want,
        "the 3×3 layer but the removed (2, 0, 2); not (3, 2, 2)"
    );
    // SAFETY: `around` came from this library and is freed once.
    unsafe { voxcaf_watch_free(around) };
    free(plain, w);
}

#[test]
fn a_world_of_other_dims_is_refused_and_the_watch_kept() {
    let w = world([2, 2, 2]);
    let other = world([2, 2, 3]);
    let wt = watch(w, 0);
    set(w, [1, 1, 1], STONE);
    let mut data: *const u32 = ptr::null();
    let mut count = 77usize;
    // SAFETY: live handles and valid out-pointers.
    let s = unsafe { voxcaf_watch_changes(wt, other, &mut data, &mut count) };
    assert_eq!(s, VOXCAF_ERR_MISMATCH);
    let e = last_error();
    assert!(e.contains("[2, 2, 2]") && e.contains("[2, 2, 3]"), "{e}");
    assert_eq!(count, 77, "out-pointers untouched");
    // SAFETY: a static string.
    let name = unsafe { CStr::from_ptr(voxcaf_status_name(s)) };
    assert_eq!(name.to_str().unwrap(), "VOXCAF_ERR_MISMATCH");
    assert_eq!(
        changes(wt, w),
        [[0, 0, 0]],
        "the refused call changed nothing"
    );
    // SAFETY: `other` came from this library and is freed once.
    unsafe { voxcaf_world_free(other) };
    free(wt, w);
}

#[test]
fn a_world_loaded_again_reports_each_chunk_holding_blocks() {
    // Documented: decoded chunks get new revisions.
    let w = world([3, 3, 3]);
    set(w, [1, 1, 1], STONE);
    set(w, [25, 25, 25], STONE);
    let wt = watch(w, 0);
    let mut bytes = VoxcafBuffer {
        data: ptr::null_mut(),
        len: 0,
    };
    let mut again: *mut VoxcafWorld = ptr::null_mut();
    // SAFETY: live handles, valid out-pointers; the buffer is freed once.
    unsafe {
        assert_eq!(
            voxcaf_world_to_bytes(w, VOXCAF_FORMAT_AUTO, &mut bytes),
            VOXCAF_OK
        );
        assert_eq!(
            voxcaf_world_from_bytes(bytes.data, bytes.len, &mut again),
            VOXCAF_OK
        );
        voxcaf_buffer_free(&mut bytes);
    }
    assert_eq!(changes(wt, again), [[0, 0, 0], [2, 2, 2]]);
    assert_eq!(changes(wt, again), NONE);
    // SAFETY: `again` came from this library and is freed once.
    unsafe { voxcaf_world_free(again) };
    free(wt, w);
}

#[test]
fn null_pointers_and_unknown_flags_are_refused() {
    let w = world([1, 1, 1]);
    let wt = watch(w, 0);
    let mut out: *mut VoxcafWatch = ptr::null_mut();
    let mut data: *const u32 = ptr::null();
    let mut count = 0usize;
    let refused = |s: i32, what: &str| {
        assert_eq!(s, VOXCAF_ERR_INVALID_ARGUMENT, "{what}");
        let e = last_error();
        assert!(e.contains(what), "{what}: {e}");
    };
    // SAFETY: every pointer is NULL or valid; NULLs are what is tested.
    unsafe {
        refused(voxcaf_watch_new(ptr::null(), 0, &mut out), "world is NULL");
        refused(voxcaf_watch_new(w, 0, ptr::null_mut()), "out is NULL");
        refused(voxcaf_watch_new(w, 4, &mut out), "unknown watch flags 0x4");
        assert!(out.is_null());
        refused(
            voxcaf_watch_changes(ptr::null_mut(), w, &mut data, &mut count),
            "watch is NULL",
        );
        refused(
            voxcaf_watch_changes(wt, ptr::null(), &mut data, &mut count),
            "world is NULL",
        );
        refused(
            voxcaf_watch_changes(wt, w, ptr::null_mut(), &mut count),
            "chunks is NULL",
        );
        refused(
            voxcaf_watch_changes(wt, w, &mut data, ptr::null_mut()),
            "count is NULL",
        );
        // Freeing NULL does nothing and keeps the last message.
        voxcaf_watch_free(ptr::null_mut());
        assert!(last_error().contains("count is NULL"));
    }
    free(wt, w);
}

// ---------------------------------------------------------------- linear colours

fn mesh(w: *const VoxcafWorld, c: [u32; 3], flags: u32) -> *mut VoxcafMesh {
    let mut m: *mut VoxcafMesh = ptr::null_mut();
    // SAFETY: a live world and an out-pointer.
    let s = unsafe { voxcaf_mesh_chunk(w, c[0], c[1], c[2], flags, &mut m) };
    assert_eq!(s, VOXCAF_OK, "{}", last_error());
    m
}

fn vertex_count(m: *const VoxcafMesh, which: u32) -> usize {
    // SAFETY: the part view is plain data; `m` is a live mesh.
    unsafe {
        let mut p: VoxcafMeshPart = std::mem::zeroed();
        assert_eq!(voxcaf_mesh_part(m, which, &mut p), VOXCAF_OK);
        p.vertex_count
    }
}

fn linear_colors(m: *const VoxcafMesh, which: u32, bake_ao: bool) -> Vec<[f32; 4]> {
    let n = vertex_count(m, which);
    let mut out = vec![0f32; 4 * n];
    let mut written = usize::MAX;
    // SAFETY: `out` holds `4 n` floats.
    let s = unsafe {
        voxcaf_mesh_linear_colors(m, which, bake_ao, out.as_mut_ptr(), out.len(), &mut written)
    };
    assert_eq!(s, VOXCAF_OK, "{}", last_error());
    assert_eq!(written, 4 * n);
    out.chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

fn bits(v: &[[f32; 4]]) -> Vec<[u32; 4]> {
    v.iter().map(|c| c.map(f32::to_bits)).collect()
}

#[test]
fn linear_colors_are_mesh_part_linear_colors_on_a_golden_world() {
    let Some(root) = voxcaf_golden::with_worlds() else {
        return;
    };
    let path = root.join("vwr/worlds3d/world999.vwr");
    let reference = vwr::World::load(&path).unwrap();
    let registry = vwr_blocks::default_registry();
    let c_path = CString::new(path.to_str().unwrap()).unwrap();
    let mut w: *mut VoxcafWorld = ptr::null_mut();
    // SAFETY: a valid C string and out-pointer.
    let s = unsafe { voxcaf_world_open(c_path.as_ptr(), &mut w) };
    assert_eq!(s, VOXCAF_OK);
    let (mut vertices, mut transparent) = (0, 0);
    for (pos, _) in reference.non_empty_chunks() {
        let opts = vwr_mesh::MeshOptions {
            greedy: true,
            ao: true,
            watertight: false,
        };
        let want = vwr_mesh::MeshBuffers::from_chunk(
            &vwr_mesh::mesh_chunk(&reference, registry, pos, opts),
            registry,
        );
        let m = mesh(w, pos, VOXCAF_MESH_GREEDY | VOXCAF_MESH_AO);
        for (which, part) in [
            (VOXCAF_MESH_PART_OPAQUE, &want.opaque),
            (VOXCAF_MESH_PART_TRANSPARENT, &want.transparent),
        ] {
            for bake_ao in [true, false] {
                assert_eq!(
                    bits(&linear_colors(m, which, bake_ao)),
                    bits(&part.linear_colors(bake_ao)),
                    "chunk {pos:?} part {which} bake_ao {bake_ao}"
                );
            }
            vertices += part.vertex_count();
        }
        transparent += want.transparent.vertex_count();
        // SAFETY: `m` came from this library and is freed once.
        unsafe { voxcaf_mesh_free(m) };
    }
    assert!(
        vertices > 10_000 && transparent > 0,
        "{vertices} vertices compared, {transparent} transparent"
    );
    eprintln!("{vertices} vertices compared, {transparent} of them transparent");
    // SAFETY: `w` came from this library and is freed once.
    unsafe { voxcaf_world_free(w) };
}

#[test]
fn linear_colors_shade_by_ao_only_when_asked_and_meshed_with_it() {
    let w = world([1, 1, 1]);
    fill(w, [0, 0, 0], [9, 0, 9], STONE);
    set(w, [5, 1, 5], STONE); // a bump: the floor around it is shaded
    let with_ao = mesh(w, [0, 0, 0], VOXCAF_MESH_AO);
    let shaded = linear_colors(with_ao, VOXCAF_MESH_PART_OPAQUE, true);
    let plain = linear_colors(with_ao, VOXCAF_MESH_PART_OPAQUE, false);
    assert!(shaded.iter().zip(&plain).any(|(s, p)| s[0] < p[0]));
    assert!(shaded
        .iter()
        .zip(&plain)
        .all(|(s, p)| s[0] <= p[0] && s[3] == p[3]));
    let without = mesh(w, [0, 0, 0], 0);
    assert_eq!(
        bits(&linear_colors(without, VOXCAF_MESH_PART_OPAQUE, true)),
        bits(&linear_colors(without, VOXCAF_MESH_PART_OPAQUE, false)),
        "without VOXCAF_MESH_AO every corner is open"
    );
    // SAFETY: the handles came from this library and are freed once.
    unsafe {
        voxcaf_mesh_free(with_ao);
        voxcaf_mesh_free(without);
        voxcaf_world_free(w);
    }
}

#[test]
fn linear_colors_refuse_a_small_buffer_a_bad_part_and_nulls() {
    let w = world([1, 1, 1]);
    set(w, [1, 1, 1], STONE);
    let m = mesh(w, [0, 0, 0], 0);
    let n = vertex_count(m, VOXCAF_MESH_PART_OPAQUE);
    assert_eq!(n, 24);
    let mut out = vec![-1f32; 4 * n];
    let mut written = 5usize;
    // SAFETY: `out` holds `4 n` floats; the capacities passed never exceed it.
    unsafe {
        let s = voxcaf_mesh_linear_colors(
            m,
            VOXCAF_MESH_PART_OPAQUE,
            true,
            out.as_mut_ptr(),
            4 * n - 1,
            &mut written,
        );
        assert_eq!(s, VOXCAF_ERR_INVALID_ARGUMENT);
        let e = last_error();
        assert!(e.contains("95 floats") && e.contains("96"), "{e}");
        assert_eq!(written, 5, "nothing written");
        assert!(out.iter().all(|&v| v == -1.0), "nothing written");
        let s = voxcaf_mesh_linear_colors(m, 2, true, out.as_mut_ptr(), out.len(), &mut written);
        assert_eq!(s, VOXCAF_ERR_INVALID_ARGUMENT);
        assert!(last_error().contains("unknown mesh part 2"));
        let s = voxcaf_mesh_linear_colors(m, 0, true, ptr::null_mut(), out.len(), &mut written);
        assert_eq!(s, VOXCAF_ERR_INVALID_ARGUMENT);
        assert!(last_error().contains("out is NULL"));
        let s = voxcaf_mesh_linear_colors(m, 0, true, out.as_mut_ptr(), out.len(), ptr::null_mut());
        assert_eq!(s, VOXCAF_ERR_INVALID_ARGUMENT);
        assert!(last_error().contains("written is NULL"));
        let s = voxcaf_mesh_linear_colors(
            ptr::null(),
            0,
            true,
            out.as_mut_ptr(),
            out.len(),
            &mut written,
        );
        assert_eq!(s, VOXCAF_ERR_INVALID_ARGUMENT);
        assert!(last_error().contains("mesh is NULL"));
        // An empty part: no floats, and `out` may be NULL.
        let s = voxcaf_mesh_linear_colors(
            m,
            VOXCAF_MESH_PART_TRANSPARENT,
            true,
            ptr::null_mut(),
            0,
            &mut written,
        );
        assert_eq!(s, VOXCAF_OK);
        assert_eq!(written, 0);
        // A larger buffer is fine: the first `4 n` floats are written.
        let mut big = vec![-1f32; 4 * n + 8];
        let s = voxcaf_mesh_linear_colors(
            m,
            VOXCAF_MESH_PART_OPAQUE,
            true,
            big.as_mut_ptr(),
            big.len(),
            &mut written,
        );
        assert_eq!(s, VOXCAF_OK);
        assert_eq!(written, 4 * n);
        assert!(big[4 * n..].iter().all(|&v| v == -1.0));
        voxcaf_mesh_free(m);
        voxcaf_world_free(w);
    }
}
