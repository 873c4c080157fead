//! The C API on a database world (a real PostgreSQL started by the test; skipped without it
//! unless `VOXCAF_REQUIRE_POSTGRES=1`): open, edit, save back as one commit; a save after
//! another writer's commit is `VOXCAF_ERR_CONFLICT` and writes nothing; a save elsewhere makes
//! a new world.
// `unsafe` here: it calls the C API, whose entries take raw pointers.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::ptr;

use voxcaf_ffi::*;

fn open(url: &CString) -> *mut VoxcafWorld {
    let mut w: *mut VoxcafWorld = ptr::null_mut();
    // SAFETY: a valid C string and out-pointer.
    let status = unsafe { voxcaf_world_open(url.as_ptr(), &mut w) };
    assert_eq!(status, VOXCAF_OK);
    w
}

#[test]
fn a_database_world_opens_saves_as_one_commit_and_refuses_a_stale_save() {
    let Some(pg) = voxcaf_pg_test::TestServer::start() else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("w.vwr");
    let mut w = vwr::World::with_chunk_dims([3, 3, 3]).unwrap();
    w.fill_box([0, 0, 0], [29, 0, 29], vwr::Block(35 << 4))
        .unwrap();
    w.save(&file).unwrap();
    let url = CString::new(pg.url("w")).unwrap();
    let c_file = CString::new(file.to_str().unwrap()).unwrap();
    // SAFETY: valid handles, C strings and out-pointers throughout.
    unsafe {
        // A file world saved to a database location that has none: a new world.
        let from_file = open(&c_file);
        assert_eq!(voxcaf_world_save(from_file, url.as_ptr(), 0), VOXCAF_OK);
        // ... which is not replaced by a second such save.
        assert_ne!(voxcaf_world_save(from_file, url.as_ptr(), 0), VOXCAF_OK);
        voxcaf_world_free(from_file);

        let a = open(&url);
        let b = open(&url);
        let mut raw = 0u16;
        assert_eq!(voxcaf_world_get_block(a, 3, 0, 3, &mut raw), VOXCAF_OK);
        assert_eq!(raw, 35 << 4);
        assert_eq!(voxcaf_world_set_block(a, 5, 5, 5, 7 << 4), VOXCAF_OK);
        assert_eq!(voxcaf_world_save(a, url.as_ptr(), 0), VOXCAF_OK);
        // b was read before a's commit: its save is refused, nothing written.
        assert_eq!(voxcaf_world_set_block(b, 6, 6, 6, 9 << 4), VOXCAF_OK);
        assert_eq!(voxcaf_world_save(b, url.as_ptr(), 0), VOXCAF_ERR_CONFLICT);
        let msg = std::ffi::CStr::from_ptr(voxcaf_last_error())
            .to_string_lossy()
            .into_owned();
        assert!(msg.contains("changed since it was read"), "{msg}");
        // a saves again after its own commit: fine.
        assert_eq!(voxcaf_world_set_block(a, 1, 1, 1, 7 << 4), VOXCAF_OK);
        assert_eq!(voxcaf_world_save(a, url.as_ptr(), 0), VOXCAF_OK);
        voxcaf_world_free(a);
        voxcaf_world_free(b);
        let c = open(&url);
        for (p, want) in [([5, 5, 5], 7u16 << 4), ([1, 1, 1], 7 << 4), ([6, 6, 6], 0)] {
            assert_eq!(
                voxcaf_world_get_block(c, p[0], p[1], p[2], &mut raw),
                VOXCAF_OK
            );
            assert_eq!(raw, want, "{p:?}");
        }
        voxcaf_world_free(c);
    }
}
