//! Saving never loses data: atomic replace, no temporary files left behind on failure.

use vwr::{Block, VwrError, World};

fn leftovers(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    voxcaf_fs::temp_files_in(dir).unwrap()
}

#[test]
fn save_replaces_the_whole_file_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.vwr");
    let mut big = World::new();
    big.fill_box([0, 0, 0], [99, 3, 99], Block(560)).unwrap();
    big.set_block([5, 5, 5], Block(17)).unwrap();
    big.save(&path).unwrap();
    let small = World::with_chunks_per_axis(1).unwrap();
    small.save(&path).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        small.to_bytes(),
        "no tail of the longer file remains"
    );
    assert_eq!(World::load(&path).unwrap(), small);
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn failed_save_leaves_the_target_and_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    // The target is a non-empty directory: the final rename must fail.
    let target = dir.path().join("taken.vwr");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("keep"), b"x").unwrap();
    match World::new().save(&target) {
        Err(VwrError::Io { path, .. }) => assert_eq!(path, target),
        other => panic!("expected an Io error, got {other:?}"),
    }
    assert!(target.join("keep").exists());
    assert!(
        leftovers(dir.path()).is_empty(),
        "temp file cleaned up: {:?}",
        leftovers(dir.path())
    );
    // A missing directory is reported with the path.
    let err = World::new()
        .save(dir.path().join("no/such/dir/w.vwr"))
        .unwrap_err();
    assert!(err.to_string().contains("no/such/dir"), "{err}");
}

#[test]
fn load_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.vwr");
    let err = World::load(&missing).unwrap_err();
    assert!(err.to_string().contains("missing.vwr"), "{err}");
    let short = dir.path().join("short.vwr");
    std::fs::write(&short, b"VWR1").unwrap();
    match World::load(&short) {
        Err(VwrError::Truncated {
            offset: 0,
            needed: 40,
            available: 4,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
}
