//! Container-level conformance against every file of `golden/caf/manifest.tsv`.

mod common;

use caf::audio::AudioMetadata;
use caf::mesh::MeshMetadata;
use caf::shader::ShaderMetadata;
use caf::texture::TextureMetadata;
use caf::{
    crc32, validate_header, Asset, AssetType, AssetWriter, CafError, CafFlags, LoadMode,
    LoadedAsset,
};
use common::{golden_caf, lcg_bytes, manifest};

/// Expected loader verdict for each file of `invalid/` (our loader; the overflow file is one
/// the original accepts).
fn expected_rejection(name: &str) -> &'static str {
    match name {
        "empty_file.caf" | "trunc_31.caf" | "trunc_header_only_32.caf" | "trunc_35.caf" => {
            "too short"
        }
        "trunc_minus1.caf"
        | "trunc_mid_payload.caf"
        | "trailing_byte.caf"
        | "trailing_copy_of_footer.caf"
        | "metadata_size_plus1.caf"
        | "data_size_minus1.caf"
        | "data_size_huge.caf" => "size mismatch",
        "bad_magic.caf"
        | "bad_magic_bigendian.caf"
        | "all_zero_36.caf"
        | "editor_caff_scene.caf"
        | "cafpack_header.caf" => "bad magic",
        "bad_major_0.caf" | "bad_major_2.caf" | "bad_major_dead.caf" => "unsupported version",
        "payload_bitflip.caf" | "header_crc_wrong_footer_fixed.caf" => "payload crc",
        "payload_bitflip_crc_fixed.caf"
        | "metadata_bitflip.caf"
        | "header_flags_bitflip.caf"
        | "header_type_changed.caf"
        | "footer_wrong.caf"
        | "footer_byteswapped.caf"
        | "minor_ffff_footer_stale.caf" => "footer crc",
        "overflow_size_sum.caf" => "size overflow",
        "payload_bitflip_both_fixed_VALID.caf" => "valid",
        other => panic!("invalid/{other} has no expected verdict in this test; add one"),
    }
}

#[test]
fn every_manifest_file_loads_or_is_rejected_as_expected() {
    let Some(dir) = golden_caf() else { return };
    let rows = manifest(&dir);
    let (mut valid, mut rejected) = (0, 0);
    for row in &rows {
        let path = dir.join(&row.path);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, row.bytes, "{}: size", row.path);

        // validateHeader agrees with the original everywhere.
        assert_eq!(
            validate_header(&path).is_ok(),
            row.validate_header,
            "{}: validate_header",
            row.path
        );

        let name = row.path.rsplit('/').next().unwrap();
        let expect = if row.path.starts_with("invalid/") {
            expected_rejection(name)
        } else {
            "valid"
        };
        // The original's verdict equals ours except for the overflow file.
        if name != "overflow_size_sum.caf" {
            assert_eq!(
                row.loader_valid,
                expect == "valid",
                "{}: manifest verdict",
                row.path
            );
        }

        let from_slice = Asset::parse(&bytes);
        let from_file = LoadedAsset::open(&path);
        let from_map = LoadedAsset::open_with(&path, LoadMode::Map);
        if expect == "valid" {
            let a = from_slice.unwrap_or_else(|e| panic!("{}: {e}", row.path));
            let h = a.header;
            assert_eq!(Some(h.asset_type.0), row.ty, "{}", row.path);
            assert_eq!(Some(h.flags.0), row.flags, "{}", row.path);
            assert_eq!(Some(h.metadata_size), row.metadata_size, "{}", row.path);
            assert_eq!(Some(h.data_size), row.data_size, "{}", row.path);
            assert_eq!(Some(h.crc32), row.crc32, "{}", row.path);
            assert_eq!(
                Some(u32::from_le_bytes(
                    bytes[bytes.len() - 4..].try_into().unwrap()
                )),
                row.footer
            );
            let l = from_file.unwrap_or_else(|e| panic!("{}: {e}", row.path));
            assert_eq!(l.bytes(), &bytes[..], "{}", row.path);
            assert_eq!(l.metadata(), a.metadata);
            assert_eq!(l.payload(), a.payload);
            assert_eq!(l.file_size(), row.bytes);
            assert_eq!(
                l.payload().as_ptr() as usize % h.asset_type.payload_alignment(),
                0,
                "{}: alignment",
                row.path
            );
            let m = from_map.unwrap_or_else(|e| panic!("{}: {e}", row.path));
            assert!(m.is_mapped());
            assert_eq!(m.bytes(), &bytes[..]);
            let v = LoadedAsset::from_vec(bytes.clone()).unwrap();
            assert_eq!(
                v.payload().as_ptr() as usize % h.asset_type.payload_alignment(),
                0
            );
            valid += 1;
        } else {
            for (how, r) in [
                ("slice", from_slice.map(|_| ())),
                ("open", from_file.map(|_| ())),
                ("map", from_map.map(|_| ())),
            ] {
                match r {
                    Err(e) => assert_eq!(e.check_name(), expect, "{} ({how}): got {e}", row.path),
                    Ok(()) => panic!("{} ({how}): accepted, expected {expect}", row.path),
                }
            }
            rejected += 1;
        }
    }
    eprintln!(
        "golden caf: {valid} valid files loaded, {rejected} invalid files rejected as expected"
    );
    assert_eq!(valid + rejected, rows.len());
}

#[test]
fn repack_reproduces_every_valid_file() {
    let Some(dir) = golden_caf() else { return };
    let rows = manifest(&dir);
    let want = rows
        .iter()
        .filter(|r| !r.path.starts_with("invalid/") || r.path.ends_with("_VALID.caf"))
        .count();
    let mut n = 0;
    for row in rows {
        let bytes = std::fs::read(dir.join(&row.path)).unwrap();
        let Ok(a) = Asset::parse(&bytes) else {
            continue;
        };
        let again = AssetWriter::new(a.header.asset_type)
            .flags(a.header.flags)
            .metadata(a.metadata)
            .payload(a.payload)
            .to_vec();
        if row.path == "generic/edge_minor7.caf" {
            // The writer writes versionMinor 0: repacking gives back the unedited original.
            let orig = std::fs::read(dir.join("generic/type6_shader.caf")).unwrap();
            assert_eq!(again, orig);
        } else {
            assert_eq!(again, bytes, "{}: repack differs", row.path);
        }
        n += 1;
    }
    assert_eq!(n, want, "valid files repacked");
    eprintln!("golden caf: {n} valid files repacked byte for byte");
}

fn tex(w: u32, h: u32, mips: u32) -> Vec<u8> {
    TextureMetadata::rgba8(w, h, mips).to_bytes().to_vec()
}

/// (file, type, flags, metadata, payload) for every file the README says was written by the
/// container writer directly from these inputs.
/// (file, type, flags, metadata, payload)
type WriterInput = (&'static str, u16, u16, Vec<u8>, Vec<u8>);

fn writer_inputs() -> Vec<WriterInput> {
    let audio = AudioMetadata {
        sample_rate: 44100,
        channels: 1,
        bits_per_sample: 16,
        sample_count: 8,
        reserved: 0,
    };
    let mesh = MeshMetadata {
        vertex_count: 1,
        index_count: 3,
        sub_mesh_count: 1,
        reserved: 0,
    };
    let shader = |stage| ShaderMetadata { stage, reserved: 0 }.to_bytes().to_vec();
    let mut v = vec![
        (
            "generic/type0_unknown.caf",
            0,
            0,
            vec![0xDE, 0xAD, 0xBE, 0xEF],
            lcg_bytes(100, 37),
        ),
        (
            "generic/type1_texture.caf",
            1,
            0,
            tex(2, 2, 1),
            lcg_bytes(101, 16),
        ),
        (
            "generic/type2_audio.caf",
            2,
            0,
            audio.to_bytes().to_vec(),
            lcg_bytes(102, 16),
        ),
        (
            "generic/type3_mesh.caf",
            3,
            0,
            mesh.to_bytes().to_vec(),
            lcg_bytes(103, 60),
        ),
        ("generic/type4_prefab.caf", 4, 0, vec![], lcg_bytes(104, 16)),
        ("generic/type5_scene.caf", 5, 0, vec![0; 20], vec![]),
        (
            "generic/type6_shader.caf",
            6,
            0,
            shader(1),
            lcg_bytes(106, 64),
        ),
        (
            "generic/type7_animation.caf",
            7,
            0,
            vec![1, 2, 3],
            lcg_bytes(107, 5),
        ),
        ("generic/type8_font.caf", 8, 0, vec![], lcg_bytes(108, 100)),
        (
            "generic/type9_undefined.caf",
            9,
            0,
            vec![],
            lcg_bytes(109, 8),
        ),
        (
            "generic/type65535_flags65535.caf",
            0xFFFF,
            0xFFFF,
            vec![0xFF],
            lcg_bytes(110, 3),
        ),
        ("generic/empty_unknown.caf", 0, 0, vec![], vec![]),
        ("generic/empty_shader.caf", 6, 0, vec![], vec![]),
        (
            "generic/empty_payload_texture_meta.caf",
            1,
            0,
            vec![0; 24],
            vec![],
        ),
        (
            "generic/empty_metadata_payload16.caf",
            6,
            0,
            vec![],
            lcg_bytes(300, 16),
        ),
        (
            "generic/metadata_only_unknown.caf",
            0,
            0,
            (0u8..40).collect(),
            vec![],
        ),
        (
            "generic/odd_sizes.caf",
            2,
            0,
            vec![1, 2, 3, 4, 5],
            lcg_bytes(301, 7),
        ),
        (
            "generic/large_payload_100000.caf",
            0,
            0,
            (0u8..10).map(|i| i * 0x11).collect(),
            lcg_bytes(302, 100000),
        ),
        ("shader/stage0_n64.caf", 6, 0, shader(0), lcg_bytes(400, 64)),
        (
            "shader/stage1_n100.caf",
            6,
            0,
            shader(1),
            lcg_bytes(401, 100),
        ),
        (
            "shader/stage2_n4096.caf",
            6,
            0,
            shader(2),
            lcg_bytes(402, 4096),
        ),
        ("shader/stage0_n0.caf", 6, 0, shader(0), lcg_bytes(403, 0)),
    ];
    for (flags, seed) in [
        (0x0001, 201),
        (0x0002, 202),
        (0x0004, 204),
        (0x0008, 208),
        (0x0010, 216),
        (0x000C, 212),
        (0x0003, 203),
        (0x001F, 231),
        (0x0020, 232),
        (0x8000, 32968),
    ] {
        let name: &'static str =
            Box::leak(format!("generic/flags_{flags:04x}.caf").into_boxed_str());
        v.push((name, 1, flags, tex(2, 2, 1), lcg_bytes(seed, 16)));
    }
    v
}

#[test]
fn writer_output_is_byte_identical_to_the_original() {
    let Some(dir) = golden_caf() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let inputs = writer_inputs();
    for (file, ty, flags, meta, payload) in &inputs {
        let golden = std::fs::read(dir.join(file)).unwrap();
        let (ty, flags) = (AssetType(*ty), CafFlags(*flags));
        assert_eq!(
            AssetWriter::new(ty)
                .flags(flags)
                .metadata(meta)
                .payload(payload)
                .to_vec(),
            golden,
            "{file}: to_vec"
        );
        let out = tmp.path().join("out.caf");
        AssetWriter::new(ty)
            .flags(flags)
            .metadata(meta)
            .payload(payload)
            .write_file(&out)
            .unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), golden, "{file}: write_file");
        let mut cur = std::io::Cursor::new(Vec::new());
        AssetWriter::new(ty)
            .flags(flags)
            .metadata(meta)
            .payload_reader(&payload[..], payload.len() as u64)
            .write_streaming(&mut cur)
            .unwrap();
        assert_eq!(cur.into_inner(), golden, "{file}: write_streaming");
    }
    // texture_short_meta: the README does not list its 8 metadata bytes; take them from the
    // file and check the payload recipe and the rest of the layout.
    let golden = std::fs::read(dir.join("generic/texture_short_meta.caf")).unwrap();
    let a = Asset::parse(&golden).unwrap();
    assert_eq!(a.payload, &lcg_bytes(303, 4)[..]);
    assert_eq!(
        AssetWriter::new(AssetType::TEXTURE)
            .metadata(a.metadata)
            .payload(&lcg_bytes(303, 4))
            .to_vec(),
        golden
    );
    // edge_minor7 = type6_shader with versionMinor 7 and the footer recomputed.
    let mut edited = std::fs::read(dir.join("generic/type6_shader.caf")).unwrap();
    edited[6] = 7;
    let n = edited.len() - 4;
    let footer = crc32(&edited[..n]);
    edited[n..].copy_from_slice(&footer.to_le_bytes());
    assert_eq!(
        edited,
        std::fs::read(dir.join("generic/edge_minor7.caf")).unwrap()
    );
    eprintln!(
        "golden caf: {} writer outputs byte-identical",
        inputs.len() + 2
    );
}

#[test]
fn overflow_file_is_refused_with_both_sizes() {
    let Some(dir) = golden_caf() else { return };
    let bytes = std::fs::read(dir.join("invalid/overflow_size_sum.caf")).unwrap();
    match Asset::parse(&bytes) {
        Err(CafError::SizeOverflow {
            metadata_size,
            data_size,
        }) => {
            assert_eq!(metadata_size, u64::MAX - 15);
            assert_eq!(data_size, 32);
        }
        other => panic!("expected SizeOverflow, got {other:?}"),
    }
}

#[test]
fn size_mismatch_reports_both_numbers() {
    let Some(dir) = golden_caf() else { return };
    let bytes = std::fs::read(dir.join("invalid/trailing_byte.caf")).unwrap();
    assert!(matches!(
        Asset::parse(&bytes),
        Err(CafError::SizeMismatch {
            expected: 80,
            actual: 81
        })
    ));
    let bytes = std::fs::read(dir.join("invalid/data_size_huge.caf")).unwrap();
    assert!(matches!(
        Asset::parse(&bytes),
        Err(CafError::SizeMismatch { expected, actual: 80 }) if expected == 32 + 24 + (1u64 << 40) + 4
    ));
}
