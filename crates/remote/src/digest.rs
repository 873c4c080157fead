//! SHA-256 digests: of bytes, of messages, streamed, and the checks of what arrives.

use crate::proto::reapi::Digest;
use crate::RemoteError;
use sha2::{Digest as _, Sha256};

/// The digest of `data`: its SHA-256 in lowercase hex and its length.
pub fn digest_of(data: &[u8]) -> Digest {
    Digest {
        hash: hex::encode(Sha256::digest(data)),
        size_bytes: len_i64(data.len() as u64),
    }
}

/// The digest of a message's encoding (what the server stores for an `Action`, a `Command`,
/// a `Directory`).
pub fn digest_of_message(message: &impl prost::Message) -> Digest {
    digest_of(&message.encode_to_vec())
}

/// The digest of the empty blob, which every server holds without an upload.
pub fn empty_digest() -> Digest {
    digest_of(&[])
}

fn len_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A digest computed piece by piece.
#[derive(Default)]
pub(crate) struct Hasher {
    sha: Sha256,
    len: u64,
}

impl Hasher {
    pub(crate) fn update(&mut self, data: &[u8]) {
        self.sha.update(data);
        self.len += data.len() as u64;
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    pub(crate) fn finish(self) -> Digest {
        Digest {
            hash: hex::encode(self.sha.finalize()),
            size_bytes: len_i64(self.len),
        }
    }
}

/// A digest's size, or `BadDigest` when it cannot be one (a hash that is not 64 lowercase hex
/// digits, a negative size).
pub fn check_digest(digest: &Digest) -> Result<u64, RemoteError> {
    let bad = |reason| RemoteError::BadDigest {
        digest: digest.clone(),
        reason,
    };
    let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if digest.hash.len() != 64 || !digest.hash.bytes().all(hex) {
        return Err(bad("the hash is not 64 lowercase hex digits (SHA-256)"));
    }
    u64::try_from(digest.size_bytes).map_err(|_| bad("negative size"))
}

/// Checks that `data` is the blob `expected` names: `Truncated` when shorter than its size,
/// `DigestMismatch` when longer or of another hash.
pub fn verify(expected: &Digest, data: &[u8]) -> Result<(), RemoteError> {
    let mut h = Hasher::default();
    h.update(data);
    verify_hashed(expected, h)
}

/// [`verify`] for a blob hashed as it arrived.
pub(crate) fn verify_hashed(expected: &Digest, hashed: Hasher) -> Result<(), RemoteError> {
    let size = check_digest(expected)?;
    if hashed.len() < size {
        return Err(RemoteError::Truncated {
            digest: expected.clone(),
            got: hashed.len(),
        });
    }
    let got = hashed.finish();
    if got != *expected {
        return Err(RemoteError::DigestMismatch {
            expected: expected.clone(),
            got,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_sha256_hex_and_length() {
        let d = digest_of(b"abc");
        assert_eq!(
            d.hash,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(d.size_bytes, 3);
        assert_eq!(
            empty_digest().hash,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let action = crate::proto::reapi::Action {
            do_not_cache: true,
            ..Default::default()
        };
        assert_eq!(
            digest_of_message(&action),
            digest_of(&prost::Message::encode_to_vec(&action))
        );
    }

    #[test]
    fn verification_tells_truncation_from_corruption() {
        let d = digest_of(b"hello world");
        assert!(verify(&d, b"hello world").is_ok());
        assert!(matches!(
            verify(&d, b"hello"),
            Err(RemoteError::Truncated { got: 5, .. })
        ));
        match verify(&d, b"hello worle") {
            Err(RemoteError::DigestMismatch { expected, got }) => {
                assert_eq!(expected, d);
                assert_eq!(got, digest_of(b"hello worle"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            verify(&d, b"hello world!"),
            Err(RemoteError::DigestMismatch { .. })
        ));
    }

    #[test]
    fn impossible_digests_are_refused() {
        let mut d = digest_of(b"x");
        d.size_bytes = -1;
        assert!(matches!(
            check_digest(&d),
            Err(RemoteError::BadDigest { .. })
        ));
        let mut d = digest_of(b"x");
        d.hash = d.hash.to_uppercase();
        assert!(matches!(
            verify(&d, b"x"),
            Err(RemoteError::BadDigest { .. })
        ));
    }
}
