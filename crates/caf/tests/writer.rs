//! Writer behaviour beyond byte identity: streaming, atomic replacement, failures.

use std::io::Read;

use caf::*;

fn pattern(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect()
}

fn leftovers(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "a.caf")
        .collect()
}

#[test]
fn streaming_file_equals_in_memory_writer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.caf");
    let payload = pattern(3 << 20 | 12345); // several internal buffer fills
    let meta = [1u8, 2, 3];
    AssetWriter::new(AssetType::FONT)
        .flags(CafFlags::STREAMED)
        .metadata(&meta)
        .payload_reader(&payload[..], payload.len() as u64)
        .write_file(&path)
        .unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        AssetWriter::new(AssetType::FONT)
            .flags(CafFlags::STREAMED)
            .metadata(&meta)
            .payload(&payload)
            .to_vec()
    );
    assert!(LoadedAsset::open(&path).is_ok());
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn streaming_reads_only_len_bytes() {
    let mut cur = std::io::Cursor::new(Vec::new());
    AssetWriter::new(AssetType::UNKNOWN)
        .payload_reader(&b"abcdef"[..], 4)
        .write_streaming(&mut cur)
        .unwrap();
    assert_eq!(
        cur.into_inner(),
        AssetWriter::new(AssetType::UNKNOWN)
            .payload(b"abcd")
            .to_vec()
    );
}

#[test]
fn short_reader_fails_and_leaves_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.caf");
    AssetWriter::new(AssetType::AUDIO)
        .payload(b"old")
        .write_file(&path)
        .unwrap();
    let old = std::fs::read(&path).unwrap();
    let e = AssetWriter::new(AssetType::AUDIO)
        .payload_reader(&b"short"[..], 100)
        .write_file(&path)
        .unwrap_err();
    assert!(
        matches!(
            e,
            CafError::StreamTooShort {
                expected: 100,
                actual: 5
            }
        ),
        "{e}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), old);
    assert!(
        leftovers(dir.path()).is_empty(),
        "temp files left: {:?}",
        leftovers(dir.path())
    );
}

struct Failing(usize);
impl Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0 == 0 {
            return Err(std::io::Error::other("disk on fire"));
        }
        let n = buf.len().min(self.0);
        buf[..n].fill(7);
        self.0 -= n;
        Ok(n)
    }
}

#[test]
fn failing_reader_fails_and_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.caf");
    let e = AssetWriter::new(AssetType::MESH)
        .metadata(&[0; 16])
        .payload_reader(Failing(5000), 1 << 20)
        .write_file(&path)
        .unwrap_err();
    assert!(matches!(e, CafError::Io { .. }), "{e}");
    assert!(!path.exists());
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn write_file_replaces_existing_and_reports_bad_paths() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.caf");
    AssetWriter::new(AssetType::SHADER)
        .metadata(&[0; 8])
        .payload(b"one")
        .write_file(&path)
        .unwrap();
    AssetWriter::new(AssetType::SHADER)
        .metadata(&[0; 8])
        .payload(b"second")
        .write_file(&path)
        .unwrap();
    assert_eq!(LoadedAsset::open(&path).unwrap().payload(), b"second");
    let missing = dir.path().join("no/such/dir/x.caf");
    match AssetWriter::new(AssetType::SHADER)
        .payload(b"")
        .write_file(&missing)
    {
        Err(CafError::Io { path: Some(p), .. }) => assert_eq!(p, missing),
        other => panic!("{other:?}"),
    }
}

#[test]
fn loader_modes_agree_and_report_io_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.caf");
    // Heap-read and mapped by Auto; then above the huge-page threshold of reads (32 MiB).
    for size in [5usize << 20, 33 << 20] {
        let payload = pattern(size);
        AssetWriter::new(AssetType::MESH)
            .metadata(&[0; 32])
            .payload(&payload)
            .write_file(&path)
            .unwrap();
        for mode in [LoadMode::Auto, LoadMode::Read, LoadMode::Map] {
            let l = LoadedAsset::open_with(&path, mode).unwrap();
            assert_eq!(l.payload(), &payload[..], "{mode:?}");
            assert_eq!(
                l.payload().as_ptr() as usize % 32,
                0,
                "{mode:?}: 32 + 32 is aligned in a map too"
            );
            // Auto maps an aligned file of MAP_THRESHOLD bytes or more.
            assert_eq!(l.is_mapped(), mode != LoadMode::Read, "{mode:?}");
        }
        // A file damaged deep inside is caught in every mode.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[4 << 20] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        for mode in [LoadMode::Auto, LoadMode::Read, LoadMode::Map] {
            let e = LoadedAsset::open_with(&path, mode).unwrap_err();
            assert!(
                matches!(e, CafError::PayloadCrcMismatch { .. }),
                "{mode:?}: {e}"
            );
        }
    }
    let e = LoadedAsset::open(&dir.path().join("missing.caf")).unwrap_err();
    assert!(matches!(e, CafError::Io { .. }));
    let e = validate_header(&dir.path().join("missing.caf")).unwrap_err();
    assert!(e.to_string().contains("missing.caf"), "{e}");
}

/// Auto maps only files of at least MAP_THRESHOLD bytes whose payload a map would align.
#[test]
fn auto_maps_large_aligned_files_only() {
    let dir = tempfile::tempdir().unwrap();
    let t = caf::MAP_THRESHOLD as usize;
    // (metadata bytes, payload bytes, mapped): MESH payloads align to 32 bytes.
    for (meta, size, mapped) in [(32, t, true), (24, t, false), (32, t - 4096, false)] {
        let path = dir.path().join(format!("m{meta}_{size}.caf"));
        let payload = pattern(size);
        AssetWriter::new(AssetType::MESH)
            .metadata(&vec![0; meta])
            .payload(&payload)
            .write_file(&path)
            .unwrap();
        let l = LoadedAsset::open(&path).unwrap();
        assert_eq!(l.is_mapped(), mapped, "metadata {meta}, payload {size}");
        assert_eq!(l.payload(), &payload[..]);
        assert_eq!(l.payload().as_ptr() as usize % 32, 0);
    }
}

#[test]
fn builder_defaults_and_error_kinds() {
    // No flags, no metadata, empty payload: the smallest file.
    let empty = AssetWriter::new(AssetType::FONT).to_vec();
    assert_eq!(empty.len(), MIN_FILE_SIZE);
    let a = Asset::parse(&empty).unwrap();
    assert_eq!(
        a.header,
        CafHeader::new(AssetType::FONT, CafFlags::NONE, 0, 0, 0)
    );
    // The writer can be kept and reused; later settings replace earlier ones.
    let w = AssetWriter::new(AssetType::SHADER)
        .flags(CafFlags::SRGB)
        .flags(CafFlags::STREAMED)
        .metadata(&[1; 8])
        .payload(b"abc");
    assert_eq!(w.to_vec(), w.to_vec());
    let mut sink = Vec::new();
    w.write_to(&mut sink).unwrap();
    assert_eq!(sink, w.to_vec());
    assert_eq!(
        Asset::parse(&sink).unwrap().header.flags,
        CafFlags::STREAMED
    );

    let mut cur = std::io::Cursor::new(Vec::new());
    let short = AssetWriter::new(AssetType::AUDIO)
        .payload_reader(&b"ab"[..], 3)
        .write_streaming(&mut cur)
        .unwrap_err();
    assert_eq!(short.kind(), ErrorKind::Misuse);
    let failing = AssetWriter::new(AssetType::AUDIO)
        .payload_reader(Failing(1), 3)
        .write_streaming(std::io::Cursor::new(Vec::new()))
        .unwrap_err();
    assert_eq!(failing.kind(), ErrorKind::Io);
}
