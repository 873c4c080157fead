//! Codecs and ciphers whose cargo feature is off are refused with
//! [`CafError::FeatureDisabled`] naming the feature, by the encoder and by every decoder; those
//! whose feature is on are not. Run with and without `--no-default-features`.

use super::index::index_crc;
use super::{
    decode_payload, encode_payload, BlockEntry, BlockIndexHeader, Cipher, Codec, DecodeOptions,
    Encoding, Key, StreamReader, BLOCK_MAGIC, BLOCK_VERSION, DEFAULT_BLOCK_SIZE, ENTRY_SIZE,
    INDEX_HEADER_SIZE, TAG_SIZE,
};
use crate::container::crc::crc32;
use crate::{Asset, AssetType, AssetWriter, CafError, CafFlags};

/// A one-block encoded texture payload labelled with `codec` and `cipher` (flags, index and
/// every CRC consistent; the block's bytes are never decoded): only the feature check, or
/// the codec or tag check after it, stands between it and decoding.
fn labelled(codec: Codec, cipher: Option<Cipher>) -> Vec<u8> {
    let plain = [7u8; 100];
    let tag = if cipher.is_some() { TAG_SIZE } else { 0 };
    let stored = vec![1u8; plain.len() + tag];
    let data_offset = INDEX_HEADER_SIZE + ENTRY_SIZE;
    let entry = BlockEntry {
        offset: data_offset as u64,
        stored_size: stored.len() as u32,
        stored_crc32: crc32(&stored),
    };
    let fill = if cipher.is_some() { [9u8; 16] } else { [0; 16] };
    let mut h = BlockIndexHeader {
        magic: BLOCK_MAGIC,
        version: BLOCK_VERSION,
        codec: codec.code(),
        cipher: cipher.map_or(0, Cipher::code),
        block_size: DEFAULT_BLOCK_SIZE,
        block_count: 1,
        plain_size: plain.len() as u64,
        plain_crc32: crc32(&plain),
        data_offset: data_offset as u32,
        salt: fill,
        key_check: fill,
        index_tag: fill,
        reserved: 0,
        index_crc32: 0,
    };
    h.index_crc32 = index_crc(&h.to_bytes(), &entry.to_bytes());
    let mut payload = h.to_bytes().to_vec();
    payload.extend_from_slice(&entry.to_bytes());
    payload.extend_from_slice(&stored);
    let mut flags = CafFlags::NONE;
    if codec != Codec::None {
        flags |= CafFlags::COMPRESSED;
    }
    if cipher.is_some() {
        flags |= CafFlags::ENCRYPTED;
    }
    AssetWriter::new(AssetType::TEXTURE)
        .flags(flags)
        .payload(&payload)
        .to_vec()
}

/// True when `r` is the refusal of `feature`.
fn refused<T>(r: &Result<T, CafError>, feature: &str) -> bool {
    matches!(r, Err(CafError::FeatureDisabled { feature: f, .. }) if *f == feature)
}

/// Whether decoding `file` (with `key`) through `decode_payload` and `StreamReader` is
/// refused for `feature`; panics when the two disagree.
fn decode_refused(file: &[u8], key: Option<&Key>, feature: &str) -> bool {
    let asset = Asset::parse(file).expect("a consistent file");
    let one_shot = refused(
        &decode_payload(&asset, &DecodeOptions::with_key(key)),
        feature,
    );
    let streamed = refused(&StreamReader::new(std::io::Cursor::new(file), key), feature);
    assert_eq!(
        one_shot, streamed,
        "decode_payload and StreamReader disagree"
    );
    one_shot
}

#[test]
fn each_codec_is_refused_exactly_when_its_feature_is_off() {
    for (codec, on) in [
        (Codec::Zstd, cfg!(feature = "zstd")),
        (Codec::Lz4, cfg!(feature = "lz4")),
    ] {
        let feature = codec.feature().expect("a compressing codec has a feature");
        assert_eq!(codec.is_available(), on, "{codec}");
        let enc = Encoding {
            codec,
            ..Encoding::default()
        };
        let encoded = encode_payload(AssetType::TEXTURE, CafFlags::NONE, &[], &[3; 64], &enc);
        assert_eq!(refused(&encoded, feature), !on, "{codec}: encode");
        let file = labelled(codec, None);
        assert_eq!(decode_refused(&file, None, feature), !on, "{codec}: decode");
        if !on {
            let msg = decode_payload(&Asset::parse(&file).unwrap(), &DecodeOptions::default())
                .unwrap_err()
                .to_string();
            assert!(msg.contains(&format!("`{feature}` feature")), "{msg}");
        }
    }
    assert!(Codec::None.is_available() && Codec::None.feature().is_none());
}

#[test]
fn ciphers_are_refused_exactly_when_crypto_is_off() {
    let on = cfg!(feature = "crypto");
    let key = Key::from_bytes([5; 32]);
    for cipher in [Cipher::XChaCha20Poly1305, Cipher::Aes256Gcm] {
        assert_eq!(cipher.is_available(), on);
        let enc = Encoding {
            codec: Codec::None,
            cipher,
            key: Some(key.clone()),
            ..Encoding::default()
        };
        let encoded = encode_payload(AssetType::TEXTURE, CafFlags::NONE, &[], &[3; 64], &enc);
        assert_eq!(
            refused(&encoded, "crypto"),
            !on,
            "{}: encode",
            cipher.name()
        );
        let file = labelled(Codec::None, Some(cipher));
        // Refused before the key is asked for, and with a key.
        assert_eq!(
            decode_refused(&file, None, "crypto"),
            !on,
            "{}",
            cipher.name()
        );
        assert_eq!(
            decode_refused(&file, Some(&key), "crypto"),
            !on,
            "{}",
            cipher.name()
        );
    }
}
