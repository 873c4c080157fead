//! Pack archives: thousands of assets, lookups (present and missing), alignment of payloads,
//! patches overriding by path, and damaged packs refused with typed errors.

use caf::pack::{write_pack_file, Pack, PackSet};
use caf::{Asset, AssetType, AssetWriter, CafError, CafFlags};

fn asset(i: u32) -> Vec<u8> {
    // Metadata lengths vary so that alignment padding varies.
    let meta = vec![i as u8; (i % 7) as usize * 3];
    let payload: Vec<u8> = (0..(i % 50) * 4).map(|k| (k ^ i) as u8).collect();
    AssetWriter::new(AssetType((i % 9) as u16))
        .flags(CafFlags::NONE)
        .metadata(&meta)
        .payload(&payload)
        .to_vec()
}

fn items(n: u32, prefix: &str) -> Vec<(String, Vec<u8>)> {
    (0..n)
        .map(|i| (format!("{prefix}dir{}/asset{i}.caf", i % 13), asset(i)))
        .collect()
}

#[test]
fn thousands_of_assets_are_found_aligned_and_missing_names_are_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.cafpack");
    let list = items(3000, "");
    write_pack_file(&path, list.clone()).unwrap();
    let pack = Pack::open(&path).unwrap();
    assert_eq!(pack.len(), 3000);
    for (name, bytes) in &list {
        let got = pack.read(name).unwrap().unwrap();
        assert_eq!(&got, bytes, "{name}");
        let e = pack.find(name).unwrap();
        let a = Asset::parse(bytes).unwrap();
        assert_eq!(
            (e.offset + 32 + a.metadata.len() as u64) % 32,
            0,
            "{name} payload aligned"
        );
    }
    for missing in [
        "",
        "dir0/asset3000.caf",
        "DIR0/asset0.caf",
        "dir0/asset0.ca",
    ] {
        assert!(pack.find(missing).is_none());
        assert!(pack.read(missing).unwrap().is_none());
    }
    assert_eq!(pack.entries().count(), 3000);
}

#[test]
fn later_packs_override_earlier_ones() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.cafpack");
    let patch = dir.path().join("patch.cafpack");
    write_pack_file(&base, items(100, "")).unwrap();
    let new = asset(9999);
    write_pack_file(&patch, vec![("dir5/asset5.caf".to_string(), new.clone())]).unwrap();
    let mut set = PackSet::new();
    set.mount(Pack::open(&base).unwrap());
    set.mount(Pack::open(&patch).unwrap());
    assert_eq!(set.read("dir5/asset5.caf").unwrap().unwrap(), new);
    assert_eq!(set.read("dir6/asset6.caf").unwrap().unwrap(), asset(6));
    assert!(set.read("nope.caf").unwrap().is_none());
}

#[test]
fn bad_paths_and_damaged_packs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.cafpack");
    for bad in ["", "/abs.caf", "a/../b.caf", "a//b.caf", "./a.caf"] {
        let r = write_pack_file(&p, vec![(bad.to_string(), asset(1))]);
        assert!(matches!(r, Err(CafError::BadPackPath { .. })), "{bad:?}");
    }
    let dup = vec![
        ("a.caf".to_string(), asset(1)),
        ("a.caf".to_string(), asset(2)),
    ];
    assert!(matches!(
        write_pack_file(&p, dup),
        Err(CafError::BadPackPath { .. })
    ));
    let mut broken = asset(3);
    broken[40] ^= 1;
    assert!(write_pack_file(&p, vec![("b.caf".to_string(), broken)]).is_err());

    write_pack_file(&p, items(50, "")).unwrap();
    let good = std::fs::read(&p).unwrap();
    // Truncations and flipped bytes of header and index are refused at open; a flip inside an
    // asset is caught when that asset is read.
    let q = dir.path().join("y.cafpack");
    for n in [0, 10, 47, 48, good.len() / 2, good.len() - 1] {
        std::fs::write(&q, &good[..n]).unwrap();
        assert!(Pack::open(&q).is_err(), "cut at {n}");
    }
    let index_at = u64::from_le_bytes(good[16..24].try_into().unwrap()) as usize;
    // Every header byte; every 5th index byte (entries and paths) keeps the test fast.
    for i in (0..48).chain((index_at..good.len()).step_by(5)) {
        let mut b = good.clone();
        b[i] ^= 0x20;
        std::fs::write(&q, &b).unwrap();
        assert!(Pack::open(&q).is_err(), "flip at {i}");
    }
    let mut b = good.clone();
    b[index_at - 2] ^= 1; // inside the last asset (its footer)
    std::fs::write(&q, &b).unwrap();
    assert_eq!(caf::pack::check_pack_bytes(&good).unwrap().len(), 50);
    assert!(
        caf::pack::check_pack_bytes(&b).is_err(),
        "the in-memory check reads every asset"
    );
    let pack = Pack::open(&q).unwrap();
    let failures = pack
        .entries()
        .map(|(n, _)| n.to_string())
        .collect::<Vec<_>>()
        .into_iter()
        .filter(|n| pack.read(n).is_err())
        .count();
    assert_eq!(failures, 1);
}
