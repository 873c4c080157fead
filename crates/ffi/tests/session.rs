//! The C API's save over an existing world goes through the world session: a v3 file stays
//! v3 and gains one commit; a v2 file keeps `FILE.bak`.
// `unsafe` here: it calls the C API, whose entries take raw pointers.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::ptr;

use voxcaf_ffi::*;

fn c(p: &std::path::Path) -> CString {
    CString::new(p.to_str().unwrap()).unwrap()
}

#[test]
fn saving_over_a_v3_world_commits_in_place() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("w.vwr");
    let mut w = vwr::World::with_chunk_dims([3, 3, 3]).unwrap();
    w.fill_box([0, 0, 0], [29, 0, 29], vwr::Block(35 << 4))
        .unwrap();
    w.save_with(&p, &vwr::SaveOptions::v3(vwr::Codec::Auto))
        .unwrap();
    let path = c(&p);
    // SAFETY: the pointers are valid C strings and out-pointers for the calls.
    unsafe {
        let mut world: *mut VoxcafWorld = ptr::null_mut();
        assert_eq!(voxcaf_world_open(path.as_ptr(), &mut world), VOXCAF_OK);
        assert_eq!(voxcaf_world_set_block(world, 5, 5, 5, 7 << 4), VOXCAF_OK);
        assert_eq!(
            voxcaf_world_save(world, path.as_ptr(), VOXCAF_FORMAT_AUTO),
            VOXCAF_OK
        );
        voxcaf_world_free(world);
    }
    let f = vwr::WorldFile::open(&p).unwrap();
    assert_eq!(f.version(), 3, "a cubic v3 world is not rewritten as v2");
    let (h, _) = f.history(10);
    assert_eq!(h.len(), 2);
    assert_eq!(h[0].tool, "voxcaf C API");
    assert_eq!(
        vwr::World::load(&p).unwrap().get_block([5, 5, 5]),
        vwr::Block(7 << 4)
    );
    assert!(!vwr::backup_path(&p).exists());
}
