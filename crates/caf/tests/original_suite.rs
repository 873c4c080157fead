//! The original engine's 27 test cases (tests/test_caf.cpp), re-expressed, plus the case its
//! suite misnames: a metadata byte flip that only the footer CRC catches.

use caf::audio::AudioMetadata;
use caf::mesh::{MeshMetadata, Vertex};
use caf::scene::{ArchetypeDesc, SceneMetadata};
use caf::shader::ShaderMetadata;
use caf::texture::TextureMetadata;
use caf::*;

fn sample() -> (TextureMetadata, Vec<u8>) {
    let m = TextureMetadata::rgba8(4, 4, 1);
    (m, (0..64u8).collect())
}

/// The texture file of [`sample`]'s metadata and payload.
fn sample_file(m: &TextureMetadata, p: &[u8]) -> Vec<u8> {
    AssetWriter::new(AssetType::TEXTURE)
        .metadata(&m.to_bytes())
        .payload(p)
        .to_vec()
}

#[test]
fn t01_header_is_32_bytes() {
    assert_eq!(HEADER_SIZE, 32);
    assert_eq!(
        CafHeader::new(AssetType::MESH, CafFlags::NONE, 0, 0, 0)
            .to_bytes()
            .len(),
        32
    );
}

#[test]
fn t02_header_constants() {
    assert_eq!(MAGIC, 0xCAFE_CAFE);
    assert_eq!((VERSION_MAJOR, VERSION_MINOR), (1, 0));
    assert_eq!(FOOTER_SIZE, 4);
}

#[test]
fn t03_header_fields_little_endian_at_their_offsets() {
    let h = CafHeader::new(
        AssetType(0x0102),
        CafFlags(0x0304),
        0x0506_0708,
        0x1122,
        0x3344,
    );
    let b = h.to_bytes();
    assert_eq!(&b[0..4], &[0xFE, 0xCA, 0xFE, 0xCA]);
    assert_eq!(&b[4..8], &[1, 0, 0, 0]);
    assert_eq!(&b[8..12], &[0x02, 0x01, 0x04, 0x03]);
    assert_eq!(&b[12..16], &[0x08, 0x07, 0x06, 0x05]);
    assert_eq!(&b[16..24], &[0x22, 0x11, 0, 0, 0, 0, 0, 0]);
    assert_eq!(&b[24..32], &[0x44, 0x33, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn t04_payload_alignment_default_is_16() {
    for t in [
        AssetType::UNKNOWN,
        AssetType::TEXTURE,
        AssetType::AUDIO,
        AssetType::PREFAB,
        AssetType::SCENE,
        AssetType::ANIMATION,
        AssetType::FONT,
        AssetType(9),
    ] {
        assert_eq!(t.payload_alignment(), 16, "{t}");
    }
}

#[test]
fn t05_payload_alignment_mesh_is_32() {
    assert_eq!(AssetType::MESH.payload_alignment(), 32);
}

#[test]
fn t06_payload_alignment_shader_is_32() {
    assert_eq!(AssetType::SHADER.payload_alignment(), 32);
}

#[test]
fn t07_total_file_size_572_for_24_and_512() {
    let h = CafHeader::new(AssetType::TEXTURE, CafFlags::NONE, 0, 24, 512);
    assert_eq!(h.total_file_size(), Some(572));
}

#[test]
fn t08_total_file_size_empty_is_36_and_overflow_is_none() {
    assert_eq!(
        CafHeader::new(AssetType::UNKNOWN, CafFlags::NONE, 0, 0, 0).total_file_size(),
        Some(36)
    );
    assert_eq!(
        CafHeader::new(AssetType::UNKNOWN, CafFlags::NONE, 0, u64::MAX, 1).total_file_size(),
        None
    );
}

#[test]
fn t09_asset_type_codes() {
    let all = [
        AssetType::UNKNOWN,
        AssetType::TEXTURE,
        AssetType::AUDIO,
        AssetType::MESH,
        AssetType::PREFAB,
        AssetType::SCENE,
        AssetType::SHADER,
        AssetType::ANIMATION,
        AssetType::FONT,
    ];
    for (i, t) in all.iter().enumerate() {
        assert_eq!(t.0 as usize, i);
    }
}

#[test]
fn t10_asset_type_names_round_trip() {
    for code in 0..=8u16 {
        let t = AssetType(code);
        assert_eq!(AssetType::from_name(t.name().unwrap()), Some(t));
    }
    assert_eq!(AssetType(9).name(), None);
}

#[test]
fn t11_flag_bits() {
    assert_eq!(CafFlags::NONE.0, 0);
    assert_eq!(CafFlags::COMPRESSED.0, 0x1);
    assert_eq!(CafFlags::ENCRYPTED.0, 0x2);
    assert_eq!(CafFlags::SRGB.0, 0x4);
    assert_eq!(CafFlags::MIPCHAIN.0, 0x8);
    assert_eq!(CafFlags::STREAMED.0, 0x10);
}

#[test]
fn t12_flag_combinations() {
    let mut f = CafFlags::SRGB | CafFlags::MIPCHAIN;
    assert_eq!(f.0, 0x0C);
    assert!(f.contains(CafFlags::SRGB) && f.contains(CafFlags::MIPCHAIN));
    assert!(!f.contains(CafFlags::COMPRESSED));
    f |= CafFlags::STREAMED;
    assert_eq!(f.names(), vec!["srgb", "mipchain", "streamed"]);
}

#[test]
fn t13_texture_metadata_is_24_bytes() {
    assert_eq!(TextureMetadata::SIZE, 24);
    assert_eq!(TextureMetadata::default().to_bytes().len(), 24);
}

#[test]
fn t14_audio_metadata_is_16_bytes() {
    assert_eq!(AudioMetadata::SIZE, 16);
    let a = AudioMetadata {
        sample_rate: 44100,
        channels: 2,
        bits_per_sample: 16,
        sample_count: 1,
        reserved: 0,
    };
    assert_eq!(&a.to_bytes()[4..8], &[2, 0, 16, 0]);
}

#[test]
fn t15_scene_metadata_is_20_bytes() {
    assert_eq!(SceneMetadata::SIZE, 20);
}

#[test]
fn t16_archetype_desc_is_12_bytes() {
    assert_eq!(ArchetypeDesc::SIZE, 12);
}

#[test]
fn t17_shader_metadata_is_8_bytes() {
    assert_eq!(ShaderMetadata::SIZE, 8);
    assert_eq!(MeshMetadata::SIZE, 16);
    assert_eq!(std::mem::size_of::<Vertex>(), 48);
}

#[test]
fn t18_crc_of_empty_is_zero() {
    assert_eq!(crc32(b""), 0);
}

#[test]
fn t19_crc_check_value() {
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(
        crc32(b"The quick brown fox jumps over the lazy dog"),
        0x414F_A339
    );
}

#[test]
fn t20_crc_streaming_equals_one_shot() {
    let data: Vec<u8> = (0..10_000u32).map(|i| (i * 31 % 251) as u8).collect();
    for split in [0, 1, 7, 4096, 9_999, 10_000] {
        let mut h = crc32fast::Hasher::new();
        h.update(&data[..split]);
        h.update(&data[split..]);
        assert_eq!(h.finalize(), crc32(&data));
        assert_eq!(
            crc32_continue(crc32(&data[..split]), &data[split..]),
            crc32(&data)
        );
        assert_eq!(
            crc32_combine(
                crc32(&data[..split]),
                crc32(&data[split..]),
                (data.len() - split) as u64
            ),
            crc32(&data)
        );
    }
}

#[test]
fn t21_crc_continue_from_zero_is_one_shot() {
    assert_eq!(crc32_continue(0, b"123456789"), 0xCBF4_3926);
}

#[test]
fn t22_writer_layout() {
    let (m, p) = sample();
    let v = sample_file(&m, &p);
    assert_eq!(v.len(), 32 + 24 + 64 + 4);
    let h = CafHeader::from_bytes(v[..32].try_into().unwrap());
    assert_eq!((h.metadata_size, h.data_size, h.crc32), (24, 64, crc32(&p)));
    assert_eq!(&v[32..56], &m.to_bytes());
    assert_eq!(&v[56..120], &p[..]);
    assert_eq!(
        u32::from_le_bytes(v[120..].try_into().unwrap()),
        crc32(&v[..120])
    );
}

#[test]
fn t23_writer_loader_round_trip_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.caf");
    let (m, p) = sample();
    AssetWriter::new(AssetType::TEXTURE)
        .metadata(&m.to_bytes())
        .payload(&p)
        .write_file(&path)
        .unwrap();
    let l = LoadedAsset::open(&path).unwrap();
    assert_eq!(l.header().asset_type, AssetType::TEXTURE);
    assert_eq!(TextureMetadata::from_bytes(l.metadata()).unwrap(), m);
    assert_eq!(l.payload(), &p[..]);
    assert_eq!(l.file_size(), 124);
    assert_eq!(validate_header(&path).unwrap().data_size, 64);
}

#[test]
fn t24_flags_preserved() {
    for f in [
        CafFlags::NONE,
        CafFlags::SRGB | CafFlags::MIPCHAIN,
        CafFlags(0xFFFF),
        CafFlags(0x8000),
    ] {
        let v = AssetWriter::new(AssetType::TEXTURE)
            .flags(f)
            .payload(b"px")
            .to_vec();
        assert_eq!(Asset::parse(&v).unwrap().header.flags, f);
    }
}

/// The error parsing [`sample_file`] gives once `damage` has changed it.
fn damaged_sample_error(damage: impl FnOnce(&mut [u8])) -> CafError {
    let (m, p) = sample();
    let mut v = sample_file(&m, &p);
    damage(&mut v);
    Asset::parse(&v).expect_err("the damaged file parsed")
}

#[test]
fn t25_corrupt_header_crc_rejected() {
    assert!(matches!(
        damaged_sample_error(|v| v[12] ^= 0xFF),
        CafError::PayloadCrcMismatch { .. }
    ));
}

#[test]
fn t26_corrupt_payload_rejected() {
    match damaged_sample_error(|v| v[60] ^= 0x08) {
        CafError::PayloadCrcMismatch { stored, computed } => {
            assert_eq!(stored, crc32(&sample().1));
            assert_ne!(computed, stored);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn t27_corrupt_footer_rejected() {
    assert!(matches!(
        damaged_sample_error(|v| v[v.len() - 1] ^= 0x80),
        CafError::FooterCrcMismatch { .. }
    ));
}

/// The original's "footer CRC mismatch" test actually corrupts versionMajor (caught by the
/// version check); this is the case it meant: metadata damage only the footer can see.
#[test]
fn metadata_byte_flip_caught_by_footer_crc() {
    // mipLevels 1 -> 0
    match damaged_sample_error(|v| v[32 + 12] ^= 0x01) {
        CafError::FooterCrcMismatch { stored, computed } => assert_ne!(stored, computed),
        other => panic!("{other:?}"),
    }
}
