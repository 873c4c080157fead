//! The manager over mounted `.cafpack` archives: thousands of assets, a patch pack overriding
//! the base by path, loose files overriding packs, missing names, damaged packs and members.

mod common;

use std::path::{Path, PathBuf};

use caf::pack::write_pack_file;
use caf::CafError;
use caf_assets::{AssetError, AssetManager, Raw, Texture};
use common::{load_error, texture_bytes, write_atomic, WAIT};

fn pack<N: Into<String>>(path: &Path, items: impl IntoIterator<Item = (N, Vec<u8>)>) {
    write_pack_file(path, items.into_iter().map(|(n, b)| (n.into(), b))).unwrap();
}

/// A temporary folder with an empty `game` folder in it (the base of the loose files; packs go
/// next to it): the temporary folder and the game folder.
fn game_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game");
    std::fs::create_dir(&game).unwrap();
    (dir, game)
}

#[test]
fn thousands_of_pack_assets_load_typed_and_aligned() {
    let (dir, game) = game_dir();
    let items: Vec<(String, Vec<u8>)> = (0..2000u32)
        .map(|i| {
            (
                format!("tex/{}/t{i}.caf", i % 17),
                texture_bytes(1 + i % 40, i as u8),
            )
        })
        .collect();
    let p = dir.path().join("base.cafpack");
    pack(&p, items.clone());
    let m = AssetManager::builder(&game)
        .workers(2)
        .mount_pack(&p)
        .build()
        .unwrap();
    let handles: Vec<_> = items
        .iter()
        .map(|(name, _)| m.load::<Texture>(name))
        .collect();
    for (h, (name, bytes)) in handles.iter().zip(&items) {
        assert!(m.wait(h, WAIT).is_loaded(), "{name}: {:?}", m.status(h));
        let g = m.get(h).unwrap();
        let v = g.view();
        let want = caf::Asset::parse(bytes).unwrap();
        assert_eq!(v.payload(), want.payload, "{name}");
        assert_eq!(v.payload().as_ptr() as usize % 16, 0, "{name} aligned");
    }
}

#[test]
fn patches_override_the_base_and_loose_files_override_packs() {
    let (dir, game) = game_dir();
    let base = dir.path().join("base.cafpack");
    let patch = dir.path().join("patch.cafpack");
    pack(
        &base,
        [
            ("a.caf", texture_bytes(1, 1)),
            ("b.caf", texture_bytes(1, 2)),
            ("c.caf", texture_bytes(1, 3)),
        ],
    );
    pack(
        &patch,
        [
            ("b.caf", texture_bytes(2, 20)),
            ("d.caf", texture_bytes(1, 40)),
        ],
    );
    write_atomic(&game.join("c.caf"), &texture_bytes(3, 30));
    let m = AssetManager::builder(&game)
        .mount_pack(&base)
        .mount_pack(&patch)
        .build()
        .unwrap();
    let px = |name: &str| {
        let h = m.load_sync::<Raw>(name).unwrap();
        let g = m.get(&h).unwrap();
        g.view().payload.to_vec()
    };
    assert_eq!(px("a.caf"), vec![1; 4], "only in the base");
    assert_eq!(px("b.caf"), vec![20; 8], "the patch wins over the base");
    assert_eq!(px("c.caf"), vec![30; 12], "the loose file wins over packs");
    assert_eq!(px("d.caf"), vec![40; 4], "only in the patch");
    assert_eq!(px("./x/../a.caf"), vec![1; 4], "paths are normalised first");

    // Mounted in the other order, the base wins.
    let m2 = AssetManager::builder(&game)
        .mount_pack(&patch)
        .mount_pack(&base)
        .build()
        .unwrap();
    let h = m2.load_sync::<Raw>("b.caf").unwrap();
    assert_eq!(m2.get(&h).unwrap().view().payload, &[2; 4]);

    // Missing everywhere: "not found", as for loose files.
    let e = m.load_sync::<Raw>("nope.caf").unwrap_err();
    assert!(e.is_not_found(), "{e}");
    let e = m.load_sync::<Raw>("A.caf").unwrap_err();
    assert!(e.is_not_found(), "paths are case-sensitive: {e}");
    // The typed check runs on pack members too.
    let e = m.load_sync::<caf_assets::Audio>("a.caf").unwrap_err();
    assert!(matches!(*e, AssetError::WrongType { .. }), "{e}");
}

#[test]
fn damaged_packs_fail_to_mount_and_damaged_members_fail_to_load() {
    let (dir, game) = game_dir();
    let p = dir.path().join("p.cafpack");
    pack(
        &p,
        [
            ("a.caf", texture_bytes(4, 1)),
            ("b.caf", texture_bytes(4, 2)),
        ],
    );
    let good = std::fs::read(&p).unwrap();

    let missing = AssetManager::builder(&game)
        .mount_pack(dir.path().join("missing.cafpack"))
        .build();
    assert!(matches!(missing, Err(AssetError::Pack { .. })));

    let mut cut = good.clone();
    cut.pop();
    std::fs::write(&p, &cut).unwrap();
    let e = AssetManager::builder(&game)
        .mount_pack(&p)
        .build()
        .unwrap_err();
    assert!(matches!(e, AssetError::Pack { .. }), "{e}");
    assert!(e.to_string().contains("p.cafpack"), "{e}");

    // A flipped pixel of member "a.caf": the index is fine, that member fails its CRC.
    let pack = caf::pack::Pack::open(&{
        std::fs::write(&p, &good).unwrap();
        p.clone()
    })
    .unwrap();
    let at = pack.find("a.caf").unwrap().offset as usize + 32 + 24;
    let mut b = good.clone();
    b[at] ^= 1;
    std::fs::write(&p, &b).unwrap();
    let m = AssetManager::builder(&game).mount_pack(&p).build().unwrap();
    let e = m.load_sync::<Texture>("a.caf").unwrap_err();
    assert!(
        matches!(load_error(&e), Some(CafError::PayloadCrcMismatch { .. })),
        "{e}"
    );
    let h = m.load::<Texture>("b.caf");
    assert!(m.wait(&h, WAIT).is_loaded());
}

#[test]
fn pack_members_stream_block_by_block() {
    let (dir, game) = game_dir();
    let pcm: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let meta = caf::audio::AudioMetadata {
        sample_rate: 48_000,
        channels: 1,
        bits_per_sample: 16,
        sample_count: 150_000,
        reserved: 0,
    };
    let music = caf::encoded::encode_asset(
        caf::AssetType::AUDIO,
        caf::CafFlags::STREAMED,
        &meta.to_bytes(),
        &pcm,
        &caf::encoded::Encoding::default(),
    )
    .unwrap();
    let p = dir.path().join("p.cafpack");
    pack(
        &p,
        [
            ("a.caf", texture_bytes(4, 1)),
            ("music.caf", music),
            ("z.caf", texture_bytes(4, 2)),
        ],
    );
    let m = AssetManager::builder(&game).mount_pack(&p).build().unwrap();
    // Two streams of one pack at once: reads are positional, they do not disturb each other.
    let mut s1 = m.stream("music.caf").unwrap();
    let mut s2 = m.stream("music.caf").unwrap();
    let (mut b1, mut b2) = (Vec::new(), Vec::new());
    loop {
        let x = s1.next_block().unwrap().map(<[u8]>::to_vec);
        let y = s2.next_block().unwrap().map(<[u8]>::to_vec);
        match (x, y) {
            (Some(x), Some(y)) => {
                b1.extend(x);
                b2.extend(y);
            }
            (None, None) => break,
            other => panic!("streams diverged: {other:?}"),
        }
    }
    assert_eq!(b1, pcm);
    assert_eq!(b2, pcm);
    assert!(m.stream("nope.caf").unwrap_err().is_not_found());
    // A plain member streams too, ending at the member's end (not the pack's).
    let mut s = m.stream("a.caf").unwrap();
    let mut n = 0;
    while let Some(b) = s.next_block().unwrap() {
        n += b.len();
    }
    assert_eq!(n, 16);
}
