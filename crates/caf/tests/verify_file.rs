//! `caf::verify_file` (the streaming check behind `asset check`) gives the loader's verdict:
//! the same success and the same error for the same file, whatever the sizes and wherever the
//! chunk boundaries fall (the footer split between two reads included).

use caf::{verify_file, AssetType, AssetWriter, CafError, LoadMode, LoadedAsset};

fn same_verdict(path: &std::path::Path) {
    let streamed = verify_file(path);
    let loaded = LoadedAsset::open_with(path, LoadMode::Read);
    match (&streamed, &loaded) {
        (Ok((h, len)), Ok(l)) => {
            assert_eq!(h, l.header());
            assert_eq!(*len, l.file_size());
        }
        (Err(a), Err(b)) => assert_eq!(
            std::mem::discriminant(a),
            std::mem::discriminant(b),
            "{a} vs {b}"
        ),
        _ => panic!("{}: {streamed:?} vs {loaded:?}", path.display()),
    }
}

#[test]
fn streaming_verification_agrees_with_the_loader() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.caf");
    const CHUNK: usize = 256 * 1024;
    // Footer wholly in a chunk, straddling two chunks, starting a chunk; metadata larger than
    // a chunk; empty payload.
    for (meta, payload) in [
        (5usize, 1000usize),
        (0, CHUNK - 32 - 2),
        (0, CHUNK - 32),
        (CHUNK + 3, 7),
        (24, 3 * CHUNK + 11),
        (0, 0),
        // Large enough to be hashed in parts on threads, with a ragged last part.
        (40, caf::PARALLEL_VERIFY_MIN as usize + 13),
    ] {
        let m: Vec<u8> = (0..meta).map(|i| i as u8).collect();
        let d: Vec<u8> = (0..payload).map(|i| (i * 31 % 251) as u8).collect();
        let bytes = AssetWriter::new(AssetType::TEXTURE)
            .metadata(&m)
            .payload(&d)
            .to_vec();
        std::fs::write(&p, &bytes).unwrap();
        let (h, len) = verify_file(&p).unwrap();
        assert_eq!(len, bytes.len() as u64);
        assert_eq!(h.data_size, payload as u64);
        same_verdict(&p);
        // A flipped bit in each part (header crc, metadata, payload, footer), and truncations.
        let n = bytes.len();
        let mut spots = vec![12, n - 1, n - 3];
        if meta > 0 {
            spots.push(32 + meta / 2);
        }
        if payload > 0 {
            // First, middle and last payload byte: the first and last part of a split.
            spots.extend([32 + meta, 32 + meta + payload / 2, 32 + meta + payload - 1]);
        }
        for at in spots {
            let mut b = bytes.clone();
            b[at] ^= 0x10;
            std::fs::write(&p, &b).unwrap();
            assert!(verify_file(&p).is_err(), "flip at {at}");
            same_verdict(&p);
        }
        for cut in [n - 1, n - 5, n / 2, 35, 0] {
            std::fs::write(&p, &bytes[..cut]).unwrap();
            assert!(verify_file(&p).is_err(), "cut at {cut}");
            same_verdict(&p);
        }
    }
    assert!(matches!(
        verify_file(&dir.path().join("missing.caf")),
        Err(CafError::Io { .. })
    ));
}
