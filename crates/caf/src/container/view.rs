//! What the typed views (one in each asset type's module) share. Each checks the type, the
//! metadata size and the payload size the metadata implies before handing out borrowed data.
//!
//! Views refuse assets whose COMPRESSED or ENCRYPTED flag is set: this crate does not define
//! those encodings yet, and handing out the stored bytes as pixels or samples would misread
//! them.

use std::borrow::Cow;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use crate::container::header::{AssetType, CafFlags};
use crate::container::load::Asset;
use crate::error::CafError;

/// Refuse an asset of another type than `ty`, or with its payload COMPRESSED or ENCRYPTED.
pub(crate) fn expect_type(a: &Asset<'_>, ty: AssetType) -> Result<(), CafError> {
    if a.header.asset_type != ty {
        return Err(CafError::WrongType {
            expected: ty,
            found: a.header.asset_type,
        });
    }
    let encoded = CafFlags::COMPRESSED | CafFlags::ENCRYPTED;
    if a.header.flags.0 & encoded.0 != 0 {
        return Err(CafError::UnsupportedFlags {
            ty,
            flags: a.header.flags,
        });
    }
    Ok(())
}

/// Refuse a payload of `actual` bytes unless the metadata implies exactly that (`expected`;
/// `None` when the implied size overflows).
pub(crate) fn payload_size(
    ty: AssetType,
    expected: Option<u64>,
    actual: usize,
) -> Result<(), CafError> {
    let actual = actual as u64;
    match expected {
        Some(e) if e == actual => Ok(()),
        e => Err(CafError::PayloadSize {
            ty,
            expected: e.unwrap_or(u64::MAX),
            actual,
        }),
    }
}

/// Reinterpret little-endian bytes as `T`s (a payload's vertices, indices or samples): borrowed
/// when aligned (and the host is little-endian), otherwise copied once and byte-swapped on a
/// big-endian host. Every field of `T` must be 4 bytes wide (`u32`, `f32`, `[f32; N]`).
/// Trailing bytes past the last whole `T` are ignored.
pub fn cast_or_copy<T>(bytes: &[u8]) -> Cow<'_, [T]>
where
    T: FromBytes + IntoBytes + KnownLayout + Immutable + Copy,
{
    if cfg!(target_endian = "little") {
        if let Ok(s) = <[T]>::ref_from_bytes(bytes) {
            return Cow::Borrowed(s);
        }
    }
    let mut v = vec![T::new_zeroed(); bytes.len() / std::mem::size_of::<T>()];
    let n = v.as_bytes().len(); // == bytes.len() when the precondition holds
    v.as_mut_bytes().copy_from_slice(&bytes[..n]);
    if cfg!(target_endian = "big") {
        // Every field of the types used here is 4 bytes wide.
        for w in v.as_mut_bytes().chunks_exact_mut(4) {
            w.reverse();
        }
    }
    Cow::Owned(v)
}
