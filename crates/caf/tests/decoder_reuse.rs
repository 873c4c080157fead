//! One `PayloadDecoder` (and one output buffer) reused across many assets of mixed codecs,
//! keys, block sizes and lengths gives exactly what a fresh decode gives; an asset that fails
//! (corrupt block, wrong or missing key, bomb, wrong output length) leaves the decoder ready
//! for the next one.

// Every test here encodes or decodes with the default codecs and ciphers.
#![cfg(all(feature = "zstd", feature = "lz4", feature = "crypto"))]

mod common;
use common::{encode_audio, fix_crcs};

use caf::encoded::{
    decode_asset, decode_payload, encode_asset, plain_size, Codec, DecodeOptions, Encoding, Key,
    PayloadDecoder, StreamReader,
};
use caf::texture::{TextureMetadata, TextureView};
use caf::{Asset, AssetType, CafError, CafFlags, LoadedAsset};
use voxcaf_golden::Rng;

/// Texture-like bytes (compressible, not trivial) of length `n`, different per `seed`.
fn sample(seed: u64, n: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let step = 1 + rng.below(13) as usize;
    (0..n)
        .map(|i| ((i / step) as u8).wrapping_add((rng.next_u64() & 3) as u8))
        .collect()
}

struct Case {
    file: Vec<u8>,
    plain: Vec<u8>,
    key: Option<Key>,
    label: String,
}

/// Assets of every codec / key combination (and plain ones), sizes growing and shrinking so
/// that a reused buffer is both too short and too long for the next asset.
fn cases() -> Vec<Case> {
    let k = Key::from_bytes([9; 32]);
    let mut rng = Rng::new(0xCAF);
    let sizes = [
        0usize, 1, 4095, 4096, 4097, 300_000, 17, 65_536, 200_001, 3, 70_000,
    ];
    let mut out = Vec::new();
    for (n, &size) in sizes.iter().enumerate() {
        for codec in [Codec::Zstd, Codec::Lz4, Codec::None] {
            for key in [None, Some(k.clone())] {
                let block_size = [4096u32, 8192, 65_536][rng.below(3) as usize];
                let enc = Encoding {
                    codec,
                    key: key.clone(),
                    block_size,
                    level: 1 + rng.below(5) as i32,
                    ..Encoding::default()
                };
                let plain = sample(n as u64 * 31 + rng.below(1000), size);
                let file =
                    encode_asset(AssetType::TEXTURE, CafFlags::NONE, &[1, 2, 3], &plain, &enc)
                        .expect("encode");
                out.push(Case {
                    file,
                    plain,
                    key,
                    label: format!("{size} bytes, {codec}, key {}", enc.key.is_some()),
                });
            }
        }
    }
    out
}

#[test]
fn one_decoder_and_one_buffer_decode_every_asset_like_a_fresh_decode() {
    let cases = cases();
    let mut dec = PayloadDecoder::new();
    let mut buf = Vec::new();
    let mut slice_buf = Vec::new();
    // Twice through, so that the second round starts with a buffer and contexts used by all.
    for round in 0..2 {
        for c in &cases {
            let a = Asset::parse(&c.file).expect("parse");
            let opts = DecodeOptions::with_key(c.key.as_ref());
            let crc = dec.decode_into(&a, &opts, &mut buf).expect(&c.label);
            assert_eq!(buf, c.plain, "round {round}: {}", c.label);
            assert_eq!(crc, caf::crc32(&c.plain), "{}", c.label);
            assert_eq!(decode_payload(&a, &opts).expect("fresh"), c.plain);

            assert_eq!(plain_size(&a).unwrap(), c.plain.len() as u64);
            slice_buf.resize(c.plain.len(), 0xEE);
            let crc2 = dec
                .decode_to_slice(&a, &opts, &mut slice_buf)
                .expect(&c.label);
            assert_eq!(slice_buf, c.plain, "{}", c.label);
            assert_eq!(crc2, crc);

            let fresh = decode_asset(&a, &opts).expect("decode_asset");
            assert_eq!(dec.decode_asset(&a, &opts).expect("reused"), fresh);
            let loaded = dec.decode_loaded(&a, &opts).expect("decode_loaded");
            assert_eq!(loaded.bytes(), &fresh[..], "{}", c.label);
            assert_eq!(*loaded.header(), Asset::parse(&fresh).unwrap().header);
        }
    }
}

/// Every kind of failure, each followed by a good asset decoded with the same decoder and
/// buffer.
#[test]
fn a_failed_asset_leaves_the_decoder_usable() {
    let cases = cases();
    let wrong = Key::from_bytes([1; 32]);
    let mut dec = PayloadDecoder::new();
    let mut buf = Vec::new();
    let mut failures = 0;
    for (i, c) in cases.iter().enumerate() {
        let a = Asset::parse(&c.file).expect("parse");
        let encoded = caf::encoded::is_encoded(a.header.flags);
        if encoded && !c.plain.is_empty() {
            // A flipped byte in the last stored block, with every CRC that would catch it
            // before the block decoder rewritten (as an attacker would).
            let mut bad = c.file.clone();
            let (_, entries) = caf::encoded::block_index(&a).unwrap();
            let e = entries.last().unwrap();
            let at = a.payload_offset() + e.offset as usize + e.stored_size as usize / 2;
            bad[at] ^= 0x5A;
            let stored_crc = caf::crc32(
                &bad[a.payload_offset() + e.offset as usize
                    ..a.payload_offset() + (e.offset + u64::from(e.stored_size)) as usize],
            );
            let ent = a.payload_offset()
                + caf::encoded::INDEX_HEADER_SIZE
                + (entries.len() - 1) * caf::encoded::ENTRY_SIZE;
            bad[ent + 12..ent + 16].copy_from_slice(&stored_crc.to_le_bytes());
            fix_crcs(&mut bad);
            let b = Asset::parse(&bad).expect("outer CRCs rewritten");
            let r = dec.decode_into(&b, &DecodeOptions::with_key(c.key.as_ref()), &mut buf);
            assert!(
                matches!(
                    r,
                    Err(CafError::BlockDecode { .. }
                        | CafError::BlockAuthFailed { .. }
                        | CafError::PlainCrcMismatch { .. })
                ),
                "{}: {r:?}",
                c.label
            );
            failures += 1;
        }
        if c.key.is_some() {
            let r = dec.decode_into(&a, &DecodeOptions::with_key(Some(&wrong)), &mut buf);
            assert!(matches!(r, Err(CafError::WrongKey)), "{r:?}");
            let r = dec.decode_into(&a, &DecodeOptions::default(), &mut buf);
            assert!(matches!(r, Err(CafError::KeyRequired)), "{r:?}");
            failures += 2;
        }
        if !c.plain.is_empty() {
            let mut short = vec![0u8; c.plain.len() - 1];
            let r = dec.decode_to_slice(&a, &DecodeOptions::with_key(c.key.as_ref()), &mut short);
            assert!(
                matches!(r, Err(CafError::OutputSize { expected, actual })
                    if expected == c.plain.len() as u64 && actual == expected - 1),
                "{r:?}"
            );
            failures += 1;
        }
        // The next good asset (wrapping round) decodes right after the failures.
        let next = &cases[(i + 1) % cases.len()];
        let n = Asset::parse(&next.file).unwrap();
        dec.decode_into(&n, &DecodeOptions::with_key(next.key.as_ref()), &mut buf)
            .expect(&next.label);
        assert_eq!(buf, next.plain, "after a failure: {}", next.label);
    }
    assert!(failures > 100, "{failures}");
}

/// A zstd bomb fails at its block; the same decoder then decodes a real zstd asset.
#[test]
fn a_bomb_then_a_good_asset() {
    let bomb = zstd::bulk::compress(&vec![0u8; 1 << 20], 19).unwrap();
    let good_plain = sample(5, 100_000);
    let good = encode_audio(&good_plain);
    // Replace the first block of a genuine 64 KiB-block asset by the bomb frame.
    let victim_plain = sample(6, 70_000);
    let victim = encode_audio(&victim_plain);
    let a = Asset::parse(&victim).unwrap();
    let (h, entries) = caf::encoded::block_index(&a).unwrap();
    let p0 = a.payload_offset();
    let mut payload = victim[p0..p0 + h.data_offset as usize].to_vec();
    let first = &entries[0];
    let rest =
        &victim[p0 + (first.offset + u64::from(first.stored_size)) as usize..victim.len() - 4];
    let delta = bomb.len() as i64 - i64::from(first.stored_size);
    // Entry 0: the bomb's size and CRC; entry 1 moves by the size difference.
    let e0 = caf::encoded::INDEX_HEADER_SIZE;
    payload[e0 + 8..e0 + 12].copy_from_slice(&(bomb.len() as u32).to_le_bytes());
    payload[e0 + 12..e0 + 16].copy_from_slice(&caf::crc32(&bomb).to_le_bytes());
    let e1 = e0 + caf::encoded::ENTRY_SIZE;
    let off1 = (entries[1].offset as i64 + delta) as u64;
    payload[e1..e1 + 8].copy_from_slice(&off1.to_le_bytes());
    payload.extend_from_slice(&bomb);
    payload.extend_from_slice(rest);
    let icrc = caf::crc32_continue(
        caf::crc32(&payload[..84]),
        &payload[caf::encoded::INDEX_HEADER_SIZE
            ..caf::encoded::INDEX_HEADER_SIZE + 2 * caf::encoded::ENTRY_SIZE],
    );
    payload[84..88].copy_from_slice(&icrc.to_le_bytes());
    let bombed = caf::AssetWriter::new(AssetType::AUDIO)
        .flags(CafFlags::COMPRESSED)
        .payload(&payload)
        .to_vec();

    let mut dec = PayloadDecoder::new();
    let mut buf = Vec::new();
    let ba = Asset::parse(&bombed).unwrap();
    let r = dec.decode_into(&ba, &DecodeOptions::default(), &mut buf);
    assert!(
        matches!(r, Err(CafError::BlockDecode { block: 0, .. })),
        "{r:?}"
    );
    let r = dec.decode_loaded(&ba, &DecodeOptions::default());
    assert!(
        matches!(r, Err(CafError::BlockDecode { block: 0, .. })),
        "{r:?}"
    );
    dec.decode_into(
        &Asset::parse(&good).unwrap(),
        &DecodeOptions::default(),
        &mut buf,
    )
    .unwrap();
    assert_eq!(buf, good_plain);
}

/// A highly compressible asset (beyond the 64x bound on up-front allocation) still decodes
/// through every entry point.
#[test]
fn highly_compressible_assets_decode_everywhere() {
    let zeros = vec![0u8; 3 << 20];
    let file = encode_audio(&zeros);
    assert!(file.len() * 64 < zeros.len(), "{}", file.len());
    let a = Asset::parse(&file).unwrap();
    let mut dec = PayloadDecoder::new();
    let mut buf = vec![7u8; 10];
    dec.decode_into(&a, &DecodeOptions::default(), &mut buf)
        .unwrap();
    assert_eq!(buf, zeros);
    let l = dec.decode_loaded(&a, &DecodeOptions::default()).unwrap();
    assert_eq!(l.payload(), &zeros[..]);
    assert!(Asset::parse(l.bytes()).is_ok());
}

/// The loaded result of an encoded texture is aligned, verifies on its own, and views work.
#[test]
fn decode_loaded_gives_an_aligned_verified_texture() {
    let meta = TextureMetadata::rgba8(64, 64, 1);
    let plain = sample(11, 64 * 64 * 4);
    for codec in [Codec::Zstd, Codec::Lz4] {
        let enc = Encoding {
            codec,
            block_size: 4096,
            ..Encoding::default()
        };
        let file = encode_asset(
            AssetType::TEXTURE,
            CafFlags::NONE,
            &meta.to_bytes(),
            &plain,
            &enc,
        )
        .unwrap();
        let src = LoadedAsset::from_vec(file).unwrap();
        let l = PayloadDecoder::new()
            .decode_loaded(&src.asset(), &DecodeOptions::default())
            .unwrap();
        assert!(!caf::encoded::is_encoded(l.header().flags));
        let align = AssetType::TEXTURE.payload_alignment();
        assert_eq!(l.payload().as_ptr() as usize % align, 0);
        let reparsed = Asset::parse(l.bytes()).expect("CRCs of the built file");
        assert_eq!(reparsed.payload, &plain[..]);
        let v = TextureView::from_asset(&l.asset()).unwrap();
        assert_eq!(v.level(0).unwrap(), &plain[..]);
    }
    // A plain asset whose payload does not match its header CRC is refused.
    let mut file = caf::AssetWriter::new(AssetType::AUDIO)
        .payload(&plain)
        .to_vec();
    file[40] ^= 1;
    let (a, _) = Asset::parse_layout(&file).unwrap();
    let r = PayloadDecoder::new().decode_loaded(&a, &DecodeOptions::default());
    assert!(
        matches!(r, Err(CafError::PayloadCrcMismatch { .. })),
        "{r:?}"
    );
}

/// Streams reuse the contexts handed from one reader to the next.
#[test]
fn streams_pass_the_decoder_along() {
    let cases = cases();
    let mut dec = PayloadDecoder::new();
    for c in &cases {
        let mut r = StreamReader::with_decoder(&c.file[..], c.key.as_ref(), dec).expect(&c.label);
        let mut back = Vec::new();
        while let Some(b) = r.next_block().expect(&c.label) {
            back.extend_from_slice(b);
        }
        assert_eq!(back, c.plain, "{}", c.label);
        dec = r.into_decoder();
    }
    // And the decoder is still a working whole-payload decoder afterwards.
    let c = &cases[cases.len() / 2];
    let mut buf = Vec::new();
    dec.decode_into(
        &Asset::parse(&c.file).unwrap(),
        &DecodeOptions::with_key(c.key.as_ref()),
        &mut buf,
    )
    .unwrap();
    assert_eq!(buf, c.plain);
}
