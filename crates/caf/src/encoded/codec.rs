//! The block codecs, each behind its cargo feature (`zstd`, `lz4`): compressing a block, the
//! reusable zstd decompression context, decompressing a block. The encoder and the decoder
//! refuse a codec whose feature is off before any block ([`Codec::require`]); the refusals here
//! only keep these functions total.

use super::Codec;
use crate::error::CafError;

/// A zstd decompression context, created on first use and kept across blocks and assets
/// (empty without the `zstd` feature).
#[derive(Default)]
pub(crate) struct ZstdContext {
    #[cfg(feature = "zstd")]
    decompressor: Option<zstd::bulk::Decompressor<'static>>,
}

impl ZstdContext {
    /// True once the context exists.
    pub(crate) fn is_ready(&self) -> bool {
        #[cfg(feature = "zstd")]
        return self.decompressor.is_some();
        #[cfg(not(feature = "zstd"))]
        false
    }

    /// Create the context unless it exists.
    pub(crate) fn ensure(&mut self) -> Result<(), CafError> {
        #[cfg(feature = "zstd")]
        if self.decompressor.is_none() {
            self.decompressor =
                Some(zstd::bulk::Decompressor::new().map_err(|e| CafError::io(None, e))?);
        }
        #[cfg(not(feature = "zstd"))]
        Codec::Zstd.require()?;
        Ok(())
    }
}

/// Refuse a zstd `level` outside zstd's range (other codecs have no level).
pub(crate) fn check_level(codec: Codec, level: i32) -> Result<(), CafError> {
    #[cfg(feature = "zstd")]
    if codec == Codec::Zstd && !zstd::compression_level_range().contains(&level) {
        return Err(CafError::BadEncoding {
            what: "zstd level out of range (1 to 22, or negative for faster modes)",
        });
    }
    let _ = level;
    codec.require()
}

/// Append `plain` compressed with `codec` (at `level` for zstd) to `out`.
pub(crate) fn compress(
    codec: Codec,
    level: i32,
    plain: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), CafError> {
    match codec {
        Codec::None => out.extend_from_slice(plain),
        #[cfg(feature = "zstd")]
        Codec::Zstd => {
            let c = zstd::bulk::compress(plain, level).map_err(|e| CafError::io(None, e))?;
            out.extend_from_slice(&c);
        }
        #[cfg(feature = "lz4")]
        Codec::Lz4 => out.extend_from_slice(&lz4_flex::block::compress(plain)),
        #[allow(unreachable_patterns)]
        _ => {
            let _ = level;
            codec.require()?;
        }
    }
    Ok(())
}

fn block_decode(block: u32, what: &'static str) -> CafError {
    CafError::BlockDecode { block, what }
}

/// Decompress block `i`'s `body` (zstd or LZ4) into `out`, which must be exactly its plain
/// length; a zstd block needs `ctx` ready ([`ZstdContext::ensure`]).
pub(crate) fn decompress(
    codec: Codec,
    ctx: &mut ZstdContext,
    i: u32,
    body: &[u8],
    out: &mut [u8],
) -> Result<(), CafError> {
    match codec {
        #[cfg(feature = "zstd")]
        Codec::Zstd => {
            let z = ctx
                .decompressor
                .as_mut()
                .ok_or(block_decode(i, "no zstd context"))?;
            let n = z
                .decompress_to_buffer(body, out)
                .map_err(|_| block_decode(i, "zstd data is corrupt or larger than the block"))?;
            whole(i, n, out.len(), "zstd data is shorter than the block")
        }
        #[cfg(feature = "lz4")]
        Codec::Lz4 => {
            let n = lz4_flex::block::decompress_into(body, out)
                .map_err(|_| block_decode(i, "LZ4 data is corrupt or larger than the block"))?;
            whole(i, n, out.len(), "LZ4 data is shorter than the block")
        }
        _ => {
            let _ = (ctx, body, out);
            codec.require()?;
            Err(block_decode(i, "not a compressed block"))
        }
    }
}

/// Block `i` decompressed to `n` bytes of the `len` it holds: `short` unless all.
#[cfg(any(feature = "zstd", feature = "lz4"))]
fn whole(i: u32, n: usize, len: usize, short: &'static str) -> Result<(), CafError> {
    if n != len {
        return Err(block_decode(i, short));
    }
    Ok(())
}
