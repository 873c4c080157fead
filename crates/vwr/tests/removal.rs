//! A commit that empties chunks (down to none) is read back as written: its index may keep
//! groups that no entry names any more (vwr-v3.md §4), and that must not make the reader fall
//! back to the commit before.

use vwr::{Block, Codec, SaveOptions, SessionOptions, World, WorldFile, WorldSession};

fn edit(p: &std::path::Path, block: Block) {
    let (mut s, mut w) = WorldSession::open(p, SessionOptions::tool("t")).unwrap();
    s.load_box(&mut w, [0, 0, 0], [9, 0, 9]).unwrap();
    w.fill_box([0, 0, 0], [9, 0, 9], block).unwrap();
    s.save(&w).unwrap();
}

#[test]
fn a_commit_that_empties_the_last_chunks_is_read_not_skipped() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("e.vwr");
    World::with_chunk_dims([3, 3, 3])
        .unwrap()
        .save_with(&p, &SaveOptions::v3(Codec::Auto))
        .unwrap();
    edit(&p, Block::make(35, 0).unwrap());
    assert_eq!(World::load(&p).unwrap().count_non_air(), 100);
    edit(&p, Block::AIR);
    let f = WorldFile::open(&p).unwrap();
    let (commits, _) = f.history(10);
    assert_eq!(
        commits[0].generation, 3,
        "the newest commit is the one read"
    );
    assert_eq!(World::load(&p).unwrap().count_non_air(), 0);
    assert_eq!(
        vwr::read_world_checked(&std::fs::read(&p).unwrap())
            .unwrap()
            .1,
        []
    );
    // And again: filled, emptied, filled.
    edit(&p, Block::make(36, 0).unwrap());
    assert_eq!(World::load(&p).unwrap().count_non_air(), 100);
}
