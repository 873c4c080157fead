//! COMPRESSED and ENCRYPTED payloads (docs/format/caf-extensions.md): round trips of golden
//! assets with every codec, with and without a key; every bit flip and truncation detected;
//! tampering with recomputed CRCs caught by authentication; wrong and missing keys; streaming.

// Every test here encodes or decodes with the default codecs and ciphers.
#![cfg(all(feature = "zstd", feature = "lz4", feature = "crypto"))]

mod common;

use caf::encoded::{
    decode_asset, decode_payload, encode_asset, Cipher, Codec, DecodeOptions, Encoding, Key,
    StreamReader, ENTRY_SIZE, INDEX_HEADER_SIZE,
};
use caf::texture::TextureView;
use caf::{Asset, AssetType, CafError, CafFlags, ErrorKind};
use common::{fix_crcs, golden_caf, lcg_bytes, manifest};

fn key(seed: u8) -> Key {
    Key::from_bytes([seed; 32])
}

fn encodings(k: &Key) -> Vec<Encoding> {
    let mut v = Vec::new();
    for codec in [Codec::Zstd, Codec::Lz4, Codec::None] {
        for (key, cipher) in [
            (None, Cipher::default()),
            (Some(k.clone()), Cipher::XChaCha20Poly1305),
            (Some(k.clone()), Cipher::Aes256Gcm),
        ] {
            let e = Encoding {
                codec,
                key,
                cipher,
                block_size: 4096,
                ..Encoding::default()
            };
            if !e.is_plain() {
                v.push(e);
            }
        }
    }
    v
}

/// Compressible but not trivial: repeated LCG noise.
fn sample(n: usize) -> Vec<u8> {
    let noise = lcg_bytes(7, 1000);
    (0..n).map(|i| noise[(i * 7 / 5) % 1000] / 4).collect()
}

fn decode(bytes: &[u8], key: Option<&Key>) -> Result<Vec<u8>, CafError> {
    let a = Asset::parse(bytes)?;
    decode_payload(&a, &DecodeOptions::with_key(key))
}

/// Fixes the CRCs of a tampered file `b`, as an attacker would: the index tag must still fail.
fn assert_auth_fails_with_crcs_fixed(b: &mut [u8], k: &Key) {
    fix_crcs(b);
    assert!(matches!(decode(b, Some(k)), Err(CafError::IndexAuthFailed)));
}

fn entry(b: &[u8], i: usize) -> (usize, usize) {
    let a = Asset::parse_layout(b).unwrap().0;
    let at = a.payload_offset() + INDEX_HEADER_SIZE + i * ENTRY_SIZE;
    let off = u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
    let size = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
    (a.payload_offset() + off, size)
}

#[test]
fn every_golden_asset_round_trips_with_every_codec_and_key() {
    let Some(dir) = golden_caf() else { return };
    let k = key(1);
    let mut n = 0;
    for row in manifest(&dir).iter().filter(|r| r.loader_valid) {
        let bytes = std::fs::read(dir.join(&row.path)).unwrap();
        let Ok(a) = Asset::parse(&bytes) else {
            continue; // the overflow file the original wrongly accepts
        };
        if caf::encoded::is_encoded(a.header.flags) {
            // Old files with COMPRESSED/ENCRYPTED set on a plain payload (flags 0xFFFF) are
            // refused by the decoder, not re-encoded.
            assert!(
                decode_asset(&a, &DecodeOptions::default()).is_err(),
                "{}",
                row.path
            );
            continue;
        }
        for enc in encodings(&k) {
            let file = encode_asset(
                a.header.asset_type,
                a.header.flags,
                a.metadata,
                a.payload,
                &enc,
            )
            .unwrap();
            let e = Asset::parse(&file).unwrap();
            assert_eq!(
                e.header.flags.contains(CafFlags::COMPRESSED),
                enc.codec != Codec::None
            );
            assert_eq!(
                e.header.flags.contains(CafFlags::ENCRYPTED),
                enc.key.is_some()
            );
            assert_ne!(
                e.payload.len(),
                a.payload.len(),
                "{}: size must differ",
                row.path
            );
            let plain = decode_asset(&e, &DecodeOptions::with_key(enc.key.as_ref())).unwrap();
            // Decoding gives back the original asset (type, flags, metadata, payload); the
            // file equals the original's repack (the writer's minor version).
            let p = Asset::parse(&plain).unwrap();
            assert_eq!(p.header.asset_type, a.header.asset_type);
            assert_eq!(p.header.flags, a.header.flags);
            assert_eq!(
                (p.metadata, p.payload),
                (a.metadata, a.payload),
                "{}",
                row.path
            );
            let repack = caf::AssetWriter::new(a.header.asset_type)
                .flags(a.header.flags)
                .metadata(a.metadata)
                .payload(a.payload)
                .to_vec();
            assert_eq!(plain, repack, "{} with {:?}", row.path, enc.codec);
            n += 1;
        }
    }
    assert!(n >= 400, "{n} round trips");
}

#[test]
fn typed_views_refuse_encoded_assets_and_accept_them_decoded() {
    let meta = caf::texture::TextureMetadata::rgba8(64, 64, 1);
    let pixels = sample(64 * 64 * 4);
    let file = encode_asset(
        AssetType::TEXTURE,
        CafFlags::SRGB,
        &meta.to_bytes(),
        &pixels,
        &Encoding::default(),
    )
    .unwrap();
    let a = Asset::parse(&file).unwrap();
    assert!(matches!(
        TextureView::from_asset(&a),
        Err(CafError::UnsupportedFlags { .. })
    ));
    let plain = decode_asset(&a, &DecodeOptions::default()).unwrap();
    let p = Asset::parse(&plain).unwrap();
    let t = TextureView::from_asset(&p).unwrap();
    assert_eq!(t.level(0).unwrap(), &pixels[..]);
    assert!(
        file.len() < plain.len() / 2,
        "zstd should shrink this texture"
    );
}

#[test]
fn empty_and_exact_block_payloads_round_trip() {
    let k = key(2);
    for n in [0usize, 1, 4095, 4096, 4097, 8192, 3 * 4096 + 5] {
        let plain = sample(n);
        for enc in encodings(&k) {
            let file =
                encode_asset(AssetType::AUDIO, CafFlags::NONE, &[1, 2], &plain, &enc).unwrap();
            assert_eq!(
                decode(&file, enc.key.as_ref()).unwrap(),
                plain,
                "{n} {enc:?}"
            );
            let mut r = StreamReader::new(&file[..], enc.key.as_ref()).unwrap();
            let mut back = Vec::new();
            while let Some(b) = r.next_block().unwrap() {
                back.extend_from_slice(b);
            }
            assert_eq!(back, plain);
        }
    }
}

fn small_files() -> Vec<(Encoding, Vec<u8>)> {
    let k = key(3);
    let plain = sample(3 * 4096 + 100);
    encodings(&k)
        .into_iter()
        .map(|e| {
            let f =
                encode_asset(AssetType::AUDIO, CafFlags::STREAMED, &[9; 16], &plain, &e).unwrap();
            (e, f)
        })
        .collect()
}

#[test]
fn every_bit_flip_is_detected() {
    for (enc, file) in small_files() {
        let good = decode(&file, enc.key.as_ref()).unwrap();
        let mut b = file.clone();
        for i in 0..b.len() {
            for bit in 0..8 {
                b[i] ^= 1 << bit;
                let r = decode(&b, enc.key.as_ref());
                assert!(r.is_err(), "{:?} flip at {i}.{bit} accepted", enc.codec);
                // The whole-file stream checks catch the same flips (a stream decodes every
                // block before the footer, so a sample of bytes keeps this fast).
                if i % 7 == 0 || i < 200 {
                    let s = StreamReader::new(&b[..], enc.key.as_ref())
                        .and_then(|r| r.for_each_block(|_| Ok(())));
                    assert!(s.is_err(), "stream accepted a flip at {i}.{bit}");
                }
                b[i] ^= 1 << bit;
            }
        }
        assert_eq!(decode(&b, enc.key.as_ref()).unwrap(), good);
    }
}

#[test]
fn every_truncation_is_detected() {
    for (enc, file) in small_files() {
        for n in 0..file.len() {
            let cut = &file[..n];
            assert!(decode(cut, enc.key.as_ref()).is_err(), "cut at {n}");
            let s =
                StreamReader::new(cut, enc.key.as_ref()).and_then(|r| r.for_each_block(|_| Ok(())));
            assert!(s.is_err(), "stream accepted a cut at {n}");
        }
    }
}

#[test]
fn flips_in_blocks_with_container_crcs_fixed_name_the_block() {
    for (enc, file) in small_files() {
        let (at, size) = entry(&file, 1);
        let mut b = file.clone();
        b[at + size / 2] ^= 0x10;
        fix_crcs(&mut b);
        // The entry CRC still disagrees: a flip inside a block names that block.
        match decode(&b, enc.key.as_ref()) {
            Err(CafError::BlockCrcMismatch { block: 1, .. }) => {}
            other => panic!("{:?}: {other:?}", enc.codec),
        }
    }
}

#[test]
fn tampering_with_every_crc_recomputed_is_caught_by_authentication() {
    let k = key(3);
    for (enc, file) in small_files().into_iter().filter(|(e, _)| e.key.is_some()) {
        // A changed ciphertext byte with its entry CRC recomputed: the tag fails.
        let (at, size) = entry(&file, 2);
        let mut b = file.clone();
        b[at] ^= 1;
        let a = Asset::parse_layout(&b).unwrap().0;
        let e_at = a.payload_offset() + INDEX_HEADER_SIZE + 2 * ENTRY_SIZE + 12;
        let c = caf::crc32(&b[at..at + size]);
        b[e_at..e_at + 4].copy_from_slice(&c.to_le_bytes());
        fix_crcs(&mut b);
        assert!(
            matches!(
                decode(&b, Some(&k)),
                Err(CafError::BlockAuthFailed { block: 2 })
            ),
            "{:?}",
            enc.codec
        );

        // Changed metadata: the index tag fails.
        let mut b = file.clone();
        b[32] ^= 1;
        assert_auth_fails_with_crcs_fixed(&mut b, &k);

        // Changed flags (SRGB added): the index tag fails.
        let mut b = file.clone();
        b[10] |= 0x4;
        assert_auth_fails_with_crcs_fixed(&mut b, &k);
    }
}

#[test]
fn reordered_and_dropped_blocks_are_caught() {
    let k = key(4);
    let plain = sample(4 * 4096);
    let enc = Encoding {
        codec: Codec::None,
        key: Some(k.clone()),
        block_size: 4096,
        ..Encoding::default()
    };
    let file = encode_asset(AssetType::AUDIO, CafFlags::NONE, &[], &plain, &enc).unwrap();
    let a = Asset::parse(&file).unwrap();
    let p0 = a.payload_offset();
    // Swap blocks 0 and 1 (equal sizes) together with their entry CRCs.
    let (a0, s0) = entry(&file, 0);
    let (a1, s1) = entry(&file, 1);
    assert_eq!(s0, s1);
    let mut b = file.clone();
    let blk0 = file[a0..a0 + s0].to_vec();
    let blk1 = file[a1..a1 + s1].to_vec();
    b[a0..a0 + s0].copy_from_slice(&blk1);
    b[a1..a1 + s1].copy_from_slice(&blk0);
    let e0 = p0 + INDEX_HEADER_SIZE + 12;
    let e1 = e0 + ENTRY_SIZE;
    let (c0, c1) = (file[e0..e0 + 4].to_vec(), file[e1..e1 + 4].to_vec());
    b[e0..e0 + 4].copy_from_slice(&c1);
    b[e1..e1 + 4].copy_from_slice(&c0);
    fix_crcs(&mut b);
    assert!(matches!(
        decode(&b, Some(&k)),
        Err(CafError::BlockAuthFailed { block: 0 })
    ));

    // Drop the last block: fix counts, sizes and every CRC. The index tag catches it.
    let (a3, s3) = entry(&file, 3);
    let mut b = file[..a3].to_vec();
    b.extend_from_slice(&file[a3 + s3..]);
    let pl = p0 + 12;
    b[pl..pl + 4].copy_from_slice(&3u32.to_le_bytes());
    b[p0 + 16..p0 + 24].copy_from_slice(&(3 * 4096u64).to_le_bytes());
    let m = u64::from_le_bytes(b[24..32].try_into().unwrap()) - s3 as u64;
    b[24..32].copy_from_slice(&m.to_le_bytes());
    // The entry table shrinks by one: remove entry 3 and move data_offset back.
    let e3 = p0 + INDEX_HEADER_SIZE + 3 * ENTRY_SIZE;
    b.drain(e3..e3 + ENTRY_SIZE);
    let d = u32::from_le_bytes(b[p0 + 28..p0 + 32].try_into().unwrap()) - ENTRY_SIZE as u32;
    b[p0 + 28..p0 + 32].copy_from_slice(&d.to_le_bytes());
    let m = m - ENTRY_SIZE as u64;
    b[24..32].copy_from_slice(&m.to_le_bytes());
    for i in 0..3 {
        let at = p0 + INDEX_HEADER_SIZE + i * ENTRY_SIZE;
        let off = u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) - ENTRY_SIZE as u64;
        b[at..at + 8].copy_from_slice(&off.to_le_bytes());
    }
    assert_auth_fails_with_crcs_fixed(&mut b, &k);
}

#[test]
fn wrong_and_missing_keys_are_their_own_errors() {
    for cipher in [Cipher::XChaCha20Poly1305, Cipher::Aes256Gcm] {
        wrong_and_missing_keys(cipher);
    }
}

fn wrong_and_missing_keys(cipher: Cipher) {
    let k = key(5);
    let enc = Encoding {
        key: Some(k.clone()),
        cipher,
        ..Encoding::default()
    };
    let file = encode_asset(AssetType::AUDIO, CafFlags::NONE, &[], &sample(10_000), &enc).unwrap();
    let wrong = decode(&file, Some(&key(6))).unwrap_err();
    assert!(matches!(wrong, CafError::WrongKey));
    assert_eq!(wrong.kind(), ErrorKind::Key);
    assert!(matches!(decode(&file, None), Err(CafError::KeyRequired)));
    assert!(matches!(
        StreamReader::new(&file[..], Some(&key(6))),
        Err(CafError::WrongKey)
    ));
    // Two encryptions of the same payload differ (random salt) and both decode.
    let again = encode_asset(AssetType::AUDIO, CafFlags::NONE, &[], &sample(10_000), &enc).unwrap();
    assert_ne!(again, file);
    assert_eq!(decode(&again, Some(&k)).unwrap(), sample(10_000));
}

/// Cipher 2 decoded by hand from the spec (section 1a) with the RustCrypto crates directly:
/// HKDF-SHA256 file key, nonce = block index ‖ 4 zero bytes, aad = header [0, 32) ‖ entry
/// [0, 12); the key check is the key's fingerprint, the same as cipher 1's.
#[test]
fn aes_256_gcm_files_follow_the_spec_byte_for_byte() {
    use aes_gcm::aead::{AeadInPlace, KeyInit};
    let k = key(8);
    let plain = sample(2 * 4096 + 77);
    let enc = Encoding {
        codec: Codec::None,
        key: Some(k.clone()),
        cipher: Cipher::Aes256Gcm,
        block_size: 4096,
        ..Encoding::default()
    };
    let file = encode_asset(AssetType::AUDIO, CafFlags::NONE, &[], &plain, &enc).unwrap();
    let a = Asset::parse(&file).unwrap();
    let p0 = a.payload_offset();
    let h = &file[p0..p0 + INDEX_HEADER_SIZE];
    assert_eq!(h[7], 2, "cipher code");
    assert_eq!(&h[48..64], &k.fingerprint(), "key check");
    let salt = &h[32..48];
    let mut file_key = [0u8; 32];
    hkdf::Hkdf::<sha2::Sha256>::new(Some(salt), k.as_bytes())
        .expand(b"voxcaf caf cipher 2 aes-256-gcm v1", &mut file_key)
        .unwrap();
    let cipher = aes_gcm::Aes256Gcm::new(&file_key.into());
    let mut out = Vec::new();
    for i in 0..3 {
        let (at, size) = entry(&file, i);
        let e_at = p0 + INDEX_HEADER_SIZE + i * ENTRY_SIZE;
        let mut aad = h[..32].to_vec();
        aad.extend_from_slice(&file[e_at..e_at + 12]);
        let mut nonce = [0u8; 12];
        nonce[..8].copy_from_slice(&(i as u64).to_le_bytes());
        let (ct, tag) = file[at..at + size].split_at(size - 16);
        let mut buf = ct.to_vec();
        cipher
            .decrypt_in_place_detached(&nonce.into(), &aad, &mut buf, tag.into())
            .unwrap();
        out.extend_from_slice(&buf);
    }
    assert_eq!(out, plain);
    assert_eq!(decode(&file, Some(&k)).unwrap(), plain);
    // The same key as XChaCha20-Poly1305 gives a different file with the same key check.
    let x = encode_asset(
        AssetType::AUDIO,
        CafFlags::NONE,
        &[],
        &plain,
        &Encoding {
            cipher: Cipher::XChaCha20Poly1305,
            ..enc.clone()
        },
    )
    .unwrap();
    let xp = Asset::parse(&x).unwrap().payload_offset();
    assert_eq!(x[xp + 7], 1);
    assert_eq!(&x[xp + 48..xp + 64], &h[48..64]);
}

#[test]
fn switching_the_cipher_code_fails_authentication() {
    let k = key(9);
    for (from, to) in [(Cipher::XChaCha20Poly1305, 2u8), (Cipher::Aes256Gcm, 1u8)] {
        let enc = Encoding {
            key: Some(k.clone()),
            cipher: from,
            block_size: 4096,
            ..Encoding::default()
        };
        let file =
            encode_asset(AssetType::AUDIO, CafFlags::NONE, &[], &sample(9000), &enc).unwrap();
        let mut b = file.clone();
        let p0 = Asset::parse(&file).unwrap().payload_offset();
        b[p0 + 7] = to;
        fix_crcs(&mut b);
        assert!(
            matches!(decode(&b, Some(&k)), Err(CafError::IndexAuthFailed)),
            "{from}"
        );
        // An unknown cipher code is refused by name before any key is needed.
        b[p0 + 7] = 3;
        fix_crcs(&mut b);
        let e = decode(&b, None).unwrap_err();
        assert!(e.to_string().contains("unsupported cipher"), "{e}");
    }
}

#[test]
fn cipher_names_parse_and_print() {
    for c in [Cipher::XChaCha20Poly1305, Cipher::Aes256Gcm] {
        assert_eq!(c.name().parse::<Cipher>().unwrap(), c);
        assert_eq!(Cipher::from_code(c.code()), Some(c));
    }
    assert_eq!("AES-256-GCM".parse::<Cipher>().unwrap(), Cipher::Aes256Gcm);
    let e = "rot13".parse::<Cipher>().unwrap_err();
    assert!(e.contains("xchacha20-poly1305 or aes-256-gcm"), "{e}");
    assert_eq!(Cipher::from_code(0), None);
    assert_eq!(Cipher::from_code(3), None);
}

#[test]
fn keys_parse_from_hex_and_refuse_anything_else() {
    let k = Key::generate().unwrap();
    assert_eq!(Key::from_hex(&format!("  {}\n", k.to_hex())).unwrap(), k);
    assert_ne!(Key::generate().unwrap(), k);
    assert!(matches!(Key::from_hex("abc"), Err(CafError::BadKey { .. })));
    assert!(matches!(
        Key::from_hex(&"zz".repeat(32)),
        Err(CafError::BadKey { .. })
    ));
    assert_eq!(format!("{k:?}"), "Key(..)");
}

#[test]
fn bad_index_fields_are_refused_by_name() {
    let file = encode_asset(
        AssetType::AUDIO,
        CafFlags::NONE,
        &[],
        &sample(20_000),
        &Encoding {
            block_size: 4096,
            ..Encoding::default()
        },
    )
    .unwrap();
    let p0 = 32;
    let cases: [(usize, u8, &str); 5] = [
        (0, b'X', "magic"),
        (4, 9, "unsupported block index version"),
        (6, 9, "unsupported codec"),
        (7, 1, "cipher disagrees"),
        (8, 0x11, "block size"),
    ];
    for (at, v, want) in cases {
        let mut b = file.clone();
        b[p0 + at] = v;
        fix_crcs(&mut b);
        let e = decode(&b, None).unwrap_err();
        assert!(e.to_string().contains(want), "{at}: {e}");
    }
    // The index CRC itself.
    let mut b = file.clone();
    b[p0 + 16] ^= 1; // plain size
    let n = b.len();
    let pcrc = caf::crc32(&b[32..n - 4]);
    b[12..16].copy_from_slice(&pcrc.to_le_bytes());
    let f = caf::crc32(&b[..n - 4]);
    b[n - 4..].copy_from_slice(&f.to_le_bytes());
    assert!(matches!(
        decode(&b, None),
        Err(CafError::IndexCrcMismatch { .. })
    ));
}

#[test]
fn streaming_seeks_to_any_block() {
    let k = key(7);
    let plain = sample(10 * 4096 + 17);
    for enc in encodings(&k) {
        let file = encode_asset(AssetType::AUDIO, CafFlags::STREAMED, &[], &plain, &enc).unwrap();
        let mut r = StreamReader::new(std::io::Cursor::new(&file), enc.key.as_ref()).unwrap();
        assert_eq!(r.block_count(), 11);
        for i in [7u64, 2, 10, 0] {
            r.seek_block(i).unwrap();
            let b = r.next_block().unwrap().unwrap();
            let start = i as usize * 4096;
            assert_eq!(b, &plain[start..(start + 4096).min(plain.len())]);
        }
    }
    // A plain STREAMED asset streams in 64 KiB pieces and is checked at the end.
    let file = caf::AssetWriter::new(AssetType::AUDIO)
        .flags(CafFlags::STREAMED)
        .payload(&plain)
        .to_vec();
    let mut back = Vec::new();
    StreamReader::new(&file[..], None)
        .unwrap()
        .for_each_block(|b| {
            back.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
    assert_eq!(back, plain);
}

#[test]
fn encoding_options_are_checked() {
    for bs in [0u32, 1000, 4095, 32 << 20] {
        let e = Encoding {
            block_size: bs,
            ..Encoding::default()
        };
        let r = encode_asset(AssetType::AUDIO, CafFlags::NONE, &[], &[1; 10], &e);
        assert!(matches!(r, Err(CafError::BadEncoding { .. })), "{bs}");
    }
    let e = Encoding {
        level: 99,
        ..Encoding::default()
    };
    assert!(encode_asset(AssetType::AUDIO, CafFlags::NONE, &[], &[1; 10], &e).is_err());
    // A plain encoding writes the original layout.
    let plain = Encoding {
        codec: Codec::None,
        ..Encoding::default()
    };
    let f = encode_asset(AssetType::AUDIO, CafFlags::NONE, &[], &[1; 10], &plain).unwrap();
    assert_eq!(
        f,
        caf::AssetWriter::new(AssetType::AUDIO)
            .payload(&[1; 10])
            .to_vec()
    );
}
