//! Property tests: random assets round-trip; any single-bit flip of a valid file is rejected.

use caf::texture::TextureMetadata;
use caf::*;
use proptest::prelude::*;

fn asset_parts() -> impl Strategy<Value = (u16, u16, Vec<u8>, Vec<u8>)> {
    (
        any::<u16>(),
        any::<u16>(),
        proptest::collection::vec(any::<u8>(), 0..200),
        proptest::collection::vec(any::<u8>(), 0..3000),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn round_trip((ty, flags, meta, payload) in asset_parts()) {
        let (ty, flags) = (AssetType(ty), CafFlags(flags));
        let writer = AssetWriter::new(ty).flags(flags).metadata(&meta);
        let bytes = writer.clone().payload(&payload).to_vec();
        prop_assert_eq!(bytes.len(), 36 + meta.len() + payload.len());
        let a = Asset::parse(&bytes).unwrap();
        prop_assert_eq!(a.header.asset_type, ty);
        prop_assert_eq!(a.header.flags, flags);
        prop_assert_eq!(a.metadata, &meta[..]);
        prop_assert_eq!(a.payload, &payload[..]);
        prop_assert_eq!(a.header.crc32, crc32(&payload));

        let mut cur = std::io::Cursor::new(Vec::new());
        writer
            .payload_reader(&payload[..], payload.len() as u64)
            .write_streaming(&mut cur)
            .unwrap();
        prop_assert_eq!(cur.into_inner(), bytes.clone());

        let l = LoadedAsset::from_vec(bytes.clone()).unwrap();
        prop_assert_eq!(l.payload(), &payload[..]);
        prop_assert_eq!(l.payload().as_ptr() as usize % ty.payload_alignment(), 0);
        let repacked = AssetWriter::new(ty)
            .flags(flags)
            .metadata(l.metadata())
            .payload(l.payload())
            .to_vec();
        prop_assert_eq!(repacked, bytes);
    }

    #[test]
    fn any_single_bit_flip_is_rejected((ty, flags, meta, payload) in asset_parts(), bit in any::<prop::sample::Index>()) {
        let mut bytes = AssetWriter::new(AssetType(ty))
            .flags(CafFlags(flags))
            .metadata(&meta)
            .payload(&payload)
            .to_vec();
        let bit = bit.index(bytes.len() * 8);
        bytes[bit / 8] ^= 1 << (bit % 8);
        prop_assert!(Asset::parse(&bytes).is_err(), "bit {} accepted", bit);
        prop_assert!(LoadedAsset::from_bytes(&bytes).is_err());
    }

    #[test]
    fn crc_combine_matches_concatenation(a in proptest::collection::vec(any::<u8>(), 0..500), b in proptest::collection::vec(any::<u8>(), 0..500)) {
        let whole = [a.clone(), b.clone()].concat();
        prop_assert_eq!(crc32_combine(crc32(&a), crc32(&b), b.len() as u64), crc32(&whole));
        prop_assert_eq!(crc32_continue(crc32(&a), &b), crc32(&whole));
    }

    #[test]
    fn flags_display_parses_back(f in any::<u16>()) {
        let shown = CafFlags(f).to_string();
        prop_assert_eq!(shown.parse::<CafFlags>(), Ok(CafFlags(f)));
    }

    #[test]
    fn header_bytes_round_trip(b in proptest::array::uniform32(any::<u8>())) {
        prop_assert_eq!(CafHeader::from_bytes(&b).to_bytes(), b);
    }

    #[test]
    fn texture_metadata_round_trip(w in any::<u32>(), h in any::<u32>(), f in any::<u32>(), m in any::<u32>(), r in any::<u64>()) {
        let t = TextureMetadata { width: w, height: h, format: f, mip_levels: m, reserved: r };
        prop_assert_eq!(TextureMetadata::from_bytes(&t.to_bytes()).unwrap(), t);
    }
}

#[test]
fn every_bit_of_a_small_file_is_protected() {
    let meta = TextureMetadata::rgba8(2, 2, 2);
    let bytes = AssetWriter::new(AssetType::TEXTURE)
        .flags(CafFlags::MIPCHAIN)
        .metadata(&meta.to_bytes())
        .payload(&[9u8; 20])
        .to_vec();
    for bit in 0..bytes.len() * 8 {
        let mut b = bytes.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        let e = Asset::parse(&b).expect_err("flip accepted");
        // Which check catches it depends only on where the bit is.
        let want = match bit / 8 {
            0..=3 => "bad magic",
            4..=5 => "unsupported version",
            12..=15 => "payload crc",
            16..=31 => {
                if matches!(e, CafError::SizeOverflow { .. }) {
                    "size overflow"
                } else {
                    "size mismatch"
                }
            }
            76.. => "footer crc",
            56..=75 => "payload crc",
            _ => "footer crc", // minor version, type, flags, metadata
        };
        assert_eq!(e.check_name(), want, "bit {bit}: {e}");
    }
}
