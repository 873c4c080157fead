use super::*;
use crate::texture::TextureFormat;
use crate::texture::TextureMetadata;
use crate::CafFlags;

fn texture_file() -> Vec<u8> {
    let meta = TextureMetadata::rgba8(2, 1, 2);
    crate::AssetWriter::new(AssetType::TEXTURE)
        .flags(CafFlags::SRGB | CafFlags::MIPCHAIN)
        .metadata(&meta.to_bytes())
        .payload(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        .to_vec()
}

#[test]
fn describes_a_valid_file() {
    let bytes = texture_file();
    let d = Description::from_bytes(&bytes);
    assert!(d.is_valid());
    assert_eq!(d.file_size, 72);
    let l = d.layout.unwrap();
    assert_eq!(
        (l.metadata_offset, l.payload_offset, l.footer_offset),
        (32, 56, 68)
    );
    assert!(l.crcs.payload_ok() && l.crcs.footer_ok());
    assert_eq!(
        d.decoded.as_ref().unwrap().as_ref().unwrap(),
        &Decoded::Texture {
            format: TextureFormat(0),
            channels: 4,
            levels: vec![(2, 1), (1, 1)],
            ranges: vec![0..8, 8..12],
        }
    );
    let text = d.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "valid, 72 bytes");
    assert_eq!(lines[1], "  magic         0xcafecafe");
    assert_eq!(lines[3], "  type          1 (texture)");
    assert_eq!(lines[4], "  flags         0x000c (SRGB|MIPCHAIN)");
    assert!(lines[7].ends_with("(matches)"), "{}", lines[7]);
    assert_eq!(
        lines[9],
        "  texture:      format=0 height=1 mip_levels=2 reserved=0 width=2"
    );
    assert_eq!(
        lines[10],
        "  decoded       4 channel(s), 2 level(s): 2x1 + 1x1"
    );
    assert_eq!(lines.len(), 11);
    assert!(Verdict::check_bytes(&bytes, true).is_valid());
    assert_eq!(
        Verdict::check_bytes(&bytes, true).line("t.caf"),
        "ok    t.caf (texture, 72 bytes)"
    );
}

#[test]
fn describes_a_bad_crc_file() {
    let mut bytes = texture_file();
    bytes[60] ^= 1;
    let d = Description::from_bytes(&bytes);
    assert!(!d.is_valid());
    assert_eq!(d.error.as_ref().unwrap().check_name(), "payload crc");
    let l = d.layout.unwrap();
    assert!(!l.crcs.payload_ok());
    // The footer covers the payload too, so it no longer matches either.
    assert!(!l.crcs.footer_ok());
    let text = d.to_string();
    assert!(text.starts_with("INVALID (payload crc), 72 bytes: payload CRC mismatch"));
    assert!(text.contains("MISMATCH, bytes hash to 0x"), "{text}");
    // Metadata and the typed view are still described.
    assert!(d.metadata.is_some());
    assert!(matches!(d.decoded, Some(Ok(_))));
    let v = Verdict::check_bytes(&bytes, false);
    assert!(!v.is_valid());
    assert!(v
        .line("bad.caf")
        .starts_with("FAIL  bad.caf [payload crc]: "));
}

#[test]
fn describes_a_truncated_file() {
    let bytes = texture_file();
    let d = Description::from_bytes(&bytes[..50]);
    assert_eq!(d.error.as_ref().unwrap().check_name(), "size mismatch");
    assert!(d.header.is_some() && d.layout.is_none() && d.decoded.is_none());
    assert_eq!(d.detail_lines().len(), 5, "header fields only");

    let d = Description::from_bytes(&bytes[..2]);
    assert!(matches!(
        d.error,
        Some(CafError::TooShort { len: 2, min: 32 })
    ));
    assert!(d.header.is_none());
    assert_eq!(
        d.to_string(),
        "INVALID (too short), 2 bytes: too short: 2 bytes, a .caf file needs at least 32"
    );
}

#[test]
fn typed_failure_is_reported_but_not_invalid() {
    // A texture whose payload does not fit its metadata: the container is fine.
    let meta = TextureMetadata::rgba8(4, 4, 1);
    let bytes = crate::AssetWriter::new(AssetType::TEXTURE)
        .metadata(&meta.to_bytes())
        .payload(&[0; 5])
        .to_vec();
    let d = Description::from_bytes(&bytes);
    assert!(d.is_valid());
    assert!(matches!(d.decoded, Some(Err(CafError::PayloadSize { .. }))));
    assert!(d.to_string().contains("cannot decode as texture: "));
    assert!(Verdict::check_bytes(&bytes, false).is_valid());
    assert!(!Verdict::check_bytes(&bytes, true).is_valid());
}

#[test]
fn describes_block_formats_with_level_byte_ranges() {
    // 5x4 BC7 with 3 levels: 2x1 blocks, then 1x1 and 1x1 -> 32 + 16 + 16 bytes.
    let meta = TextureMetadata {
        width: 5,
        height: 4,
        format: TextureFormat::BC7_RGBA_UNORM_SRGB.0,
        mip_levels: 3,
        reserved: 0,
    };
    let file = |payload: &[u8]| {
        crate::AssetWriter::new(AssetType::TEXTURE)
            .flags(CafFlags::SRGB | CafFlags::MIPCHAIN)
            .metadata(&meta.to_bytes())
            .payload(payload)
            .to_vec()
    };
    let d = Description::from_bytes(&file(&[7; 64]));
    let line = d.decoded.as_ref().unwrap().as_ref().unwrap().to_string();
    assert_eq!(
        line,
        "BC7_RGBA_UNORM_SRGB, 3 level(s): 5x4 bytes [0, 32) + 2x2 bytes [32, 48) + 1x1 bytes [48, 64)"
    );
    // One byte short of the last block: the view refuses it.
    let d = Description::from_bytes(&file(&[7; 63]));
    assert!(matches!(
        d.decoded,
        Some(Err(CafError::PayloadSize {
            expected: 64,
            actual: 63,
            ..
        }))
    ));
    // A depth format is named in the refusal.
    let mut depth = meta;
    depth.format = 60;
    let bytes = crate::AssetWriter::new(AssetType::TEXTURE)
        .metadata(&depth.to_bytes())
        .payload(&[0; 64])
        .to_vec();
    let d = Description::from_bytes(&bytes);
    assert!(d.to_string().contains("depth format"), "{d}");
}

#[cfg(feature = "json")]
#[test]
fn json_has_the_documented_fields() {
    let j = Description::from_bytes(&texture_file()).to_json("t.caf");
    for k in [
        "file",
        "file_size",
        "type",
        "type_name",
        "flags",
        "flag_names",
        "version_major",
        "version_minor",
        "metadata_size",
        "data_size",
        "payload_crc",
        "offsets",
        "payload_crc_ok",
        "footer_crc_ok",
        "metadata",
        "decoded",
        "valid",
        "check",
        "error",
    ] {
        assert!(j.get(k).is_some(), "{k}");
    }
    assert_eq!(j["metadata"]["mip_levels"], 2);
    assert_eq!(j["decoded"]["levels"][1], "1x1");
    assert_eq!(j["decoded"]["format_name"], "RGBA8");
    assert_eq!(j["decoded"]["level_ranges"][1][0], 8);
    let j = Description::from_bytes(&[0xFE, 0xCA]).to_json("s.caf");
    assert_eq!(j["check"], "too short");
    assert!(j.get("magic").is_none());
}
