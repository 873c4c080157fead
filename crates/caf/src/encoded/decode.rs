//! Decoding encoded payloads: the per-asset block decoder (key and index tag checked), the
//! reusable codec context, and [`PayloadDecoder`] with the one-shot [`decode_payload`] and
//! [`decode_asset`].

use super::codec::{decompress, ZstdContext};
use super::index::{block_index, is_encoded};
use super::seal::{block_aad, index_aad, Key, Sealer};
use super::{
    BlockEntry, BlockIndexHeader, Codec, DEFAULT_MAX_PLAIN_SIZE, INDEX_HEADER_SIZE,
    INDEX_TAG_COUNTER, TAG_SIZE,
};
use crate::container::crc::crc32;
use crate::container::header::{CafFlags, CafHeader, FOOTER_SIZE, HEADER_SIZE};
use crate::container::load::{Asset, LoadedAsset};
use crate::error::CafError;

/// The per-asset part of block decoding: the index header and the cipher (its key checked).
/// The reusable part (codec context, scratch) is a [`DecodeContext`], so that one context
/// serves every block of every asset a [`PayloadDecoder`] or [`crate::encoded::StreamReader`] decodes.
pub(crate) struct BlockDecoder {
    header: BlockIndexHeader,
    header_bytes: [u8; INDEX_HEADER_SIZE],
    cipher: Option<Sealer>,
}

/// Codec context and scratch kept across blocks and assets: a zstd decompression context
/// (created on first use) and the buffer that decrypted compressed blocks pass through.
/// Nothing in it carries over from one block to the next except allocations, so an error in
/// one block or asset leaves it ready for the next.
#[derive(Default)]
pub(crate) struct DecodeContext {
    zstd: ZstdContext,
    scratch: Vec<u8>,
}

impl BlockDecoder {
    /// Check the key (step 5) and the index tag; `container` and `metadata` are the file's.
    pub(crate) fn new(
        header: BlockIndexHeader,
        entries: &[BlockEntry],
        container: &CafHeader,
        metadata: &[u8],
        key: Option<&Key>,
    ) -> Result<BlockDecoder, CafError> {
        header.codec().require()?;
        if let Some(kind) = header.cipher() {
            kind.require()?;
        }
        let header_bytes = header.to_bytes();
        let cipher = if header.is_encrypted() {
            let key = key.ok_or(CafError::KeyRequired)?;
            if key.check_value()? != header.key_check {
                return Err(CafError::WrongKey);
            }
            let kind = header.cipher().ok_or(CafError::UnsupportedEncoding {
                what: "cipher",
                value: u64::from(header.cipher),
            })?;
            let cipher = Sealer::new(key, kind, &header.salt)?;
            let aad = index_aad(container, metadata, &header_bytes, entries);
            cipher
                .open(INDEX_TAG_COUNTER, &aad, &mut [], &header.index_tag)
                .map_err(|_| CafError::IndexAuthFailed)?;
            Some(cipher)
        } else {
            None
        };
        Ok(BlockDecoder {
            header,
            header_bytes,
            cipher,
        })
    }

    pub(crate) fn header(&self) -> &BlockIndexHeader {
        &self.header
    }

    /// Decode block `i` (entry `e`, stored bytes `stored`) into `out`, which must be exactly
    /// the block's plain length; every byte of `out` is written (nothing needs zeroing first).
    /// Checks the stored CRC first (the stored bytes are then in cache for the codec), then
    /// the tag (in place on `out`, or on the context's scratch when the block is also
    /// compressed), then the codec's output length.
    pub(crate) fn decode(
        &self,
        ctx: &mut DecodeContext,
        i: u32,
        e: &BlockEntry,
        stored: &[u8],
        out: &mut [u8],
    ) -> Result<(), CafError> {
        let computed = crc32(stored);
        if computed != e.stored_crc32 {
            return Err(CafError::BlockCrcMismatch {
                block: i,
                stored: e.stored_crc32,
                computed,
            });
        }
        let codec = self.header.codec();
        let body: &[u8] = if let Some(cipher) = &self.cipher {
            let (ct, tag) = stored.split_at(stored.len() - TAG_SIZE);
            let buf: &mut [u8] = if codec == Codec::None {
                if ct.len() != out.len() {
                    return Err(block_decode(
                        i,
                        "stored block length differs from its plain length",
                    ));
                }
                &mut *out
            } else {
                // Grown, never shrunk or cleared: no zero-fill per block.
                if ctx.scratch.len() < ct.len() {
                    ctx.scratch.resize(ct.len(), 0);
                }
                &mut ctx.scratch[..ct.len()]
            };
            buf.copy_from_slice(ct);
            cipher
                .open(u64::from(i), &block_aad(&self.header_bytes, e), buf, tag)
                .map_err(|_| CafError::BlockAuthFailed { block: i })?;
            if codec == Codec::None {
                return Ok(());
            }
            &ctx.scratch[..ct.len()]
        } else {
            stored
        };
        match codec {
            Codec::None => {
                if body.len() != out.len() {
                    return Err(block_decode(
                        i,
                        "stored block length differs from its plain length",
                    ));
                }
                out.copy_from_slice(body);
            }
            Codec::Zstd | Codec::Lz4 => decompress(codec, &mut ctx.zstd, i, body, out)?,
        }
        Ok(())
    }

    /// Make sure `ctx` has what this asset's codec needs (a zstd context is created once per
    /// context, not per asset).
    pub(crate) fn prepare(&self, ctx: &mut DecodeContext) -> Result<(), CafError> {
        if self.header.codec() == Codec::Zstd {
            ctx.zstd.ensure()?;
        }
        Ok(())
    }
}

fn block_decode(block: u32, what: &'static str) -> CafError {
    CafError::BlockDecode { block, what }
}

/// Decoding limits and key for [`decode_payload`] and [`decode_asset`].
#[derive(Clone, Debug)]
pub struct DecodeOptions<'k> {
    /// The key of encrypted assets.
    pub key: Option<&'k Key>,
    /// Largest plain payload decoded whole (default [`DEFAULT_MAX_PLAIN_SIZE`]).
    pub max_plain_size: u64,
}

impl Default for DecodeOptions<'_> {
    fn default() -> Self {
        DecodeOptions {
            key: None,
            max_plain_size: DEFAULT_MAX_PLAIN_SIZE,
        }
    }
}

impl<'k> DecodeOptions<'k> {
    /// Default limits with this key.
    pub fn with_key(key: Option<&'k Key>) -> DecodeOptions<'k> {
        DecodeOptions {
            key,
            ..DecodeOptions::default()
        }
    }
}

/// Reusable payload decoding: one zstd context and one scratch buffer kept across blocks and
/// assets, output written straight into the caller's buffer (no zero-fill of reused memory,
/// no copy of decrypted blocks), each block's plain CRC computed right after the block is
/// decoded, while it is still in cache. What a game streaming many assets keeps per thread;
/// [`decode_payload`], [`decode_asset`] and [`crate::encoded::StreamReader`] go through the same
/// block decoder.
///
/// An error in one asset (corrupt block, wrong key, ...) leaves the decoder ready for the
/// next one; the output buffer's content is then unspecified.
///
/// ```
/// use caf::encoded::{encode_asset, Codec, DecodeOptions, Encoding, PayloadDecoder};
/// use caf::{Asset, AssetType, CafFlags};
///
/// # #[cfg(all(feature = "zstd", feature = "lz4"))]
/// # fn main() -> Result<(), caf::CafError> {
/// let mut dec = PayloadDecoder::new();
/// let mut plain = Vec::new(); // reused: grows to the largest payload, never zeroed again
/// for (i, codec) in [Codec::Zstd, Codec::Lz4, Codec::Zstd].into_iter().enumerate() {
///     let data = vec![i as u8; 100_000];
///     let enc = Encoding { codec, ..Encoding::default() };
///     let file = encode_asset(AssetType::TEXTURE, CafFlags::NONE, &[], &data, &enc)?;
///     dec.decode_into(&Asset::parse(&file)?, &DecodeOptions::default(), &mut plain)?;
///     assert_eq!(plain, data);
/// }
/// # Ok(())
/// # }
/// # #[cfg(not(all(feature = "zstd", feature = "lz4")))]
/// # fn main() {}
/// ```
#[derive(Default)]
pub struct PayloadDecoder {
    ctx: DecodeContext,
}

impl std::fmt::Debug for PayloadDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PayloadDecoder")
            .field("zstd_context", &self.ctx.zstd.is_ready())
            .field("scratch", &self.ctx.scratch.len())
            .finish()
    }
}

/// The checked index and per-asset decoder of an encoded payload, after the size limit.
struct Prepared {
    header: BlockIndexHeader,
    entries: Vec<BlockEntry>,
    blocks: BlockDecoder,
    plain: usize,
}

impl PayloadDecoder {
    /// A decoder with no context yet (the zstd context is created by the first zstd asset).
    pub fn new() -> PayloadDecoder {
        PayloadDecoder::default()
    }

    /// The reusable contexts (for the streaming reader).
    pub(crate) fn context(&mut self) -> &mut DecodeContext {
        &mut self.ctx
    }

    /// Index, key and limit checks of an encoded asset (check order steps 2 to 5).
    fn prepare(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
    ) -> Result<Prepared, CafError> {
        let (header, entries) = block_index(asset)?;
        let blocks = BlockDecoder::new(header, &entries, &asset.header, asset.metadata, opts.key)?;
        if header.plain_size > opts.max_plain_size {
            return Err(CafError::PlainTooLarge {
                size: header.plain_size,
                limit: opts.max_plain_size,
            });
        }
        let plain = usize::try_from(header.plain_size).map_err(|_| CafError::TooLarge {
            what: "plain payload",
            size: header.plain_size,
        })?;
        blocks.prepare(&mut self.ctx)?;
        Ok(Prepared {
            header,
            entries,
            blocks,
            plain,
        })
    }

    /// Decode the plain payload of a verified asset into `out`, replacing its content (a
    /// plain asset's payload is copied). `out`'s memory is reused: bytes it already holds are
    /// overwritten, not zeroed first, so decoding into the same buffer again costs no
    /// allocation and no zero-fill. Returns the CRC-32 of the plain payload.
    pub fn decode_into(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
        out: &mut Vec<u8>,
    ) -> Result<u32, CafError> {
        self.decode_into_after(asset, opts, out, 0)
    }

    /// Decode the plain payload of a verified asset into `out`, which must be exactly
    /// [`plain_size`](super::plain_size) bytes long (else [`CafError::OutputSize`]): for a
    /// buffer the caller placed, e.g. a mapped GPU upload buffer. Returns the CRC-32 of the
    /// plain payload.
    pub fn decode_to_slice(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
        out: &mut [u8],
    ) -> Result<u32, CafError> {
        if !is_encoded(asset.header.flags) {
            if out.len() != asset.payload.len() {
                return Err(CafError::OutputSize {
                    expected: asset.payload.len() as u64,
                    actual: out.len() as u64,
                });
            }
            out.copy_from_slice(asset.payload);
            return Ok(crc32(asset.payload));
        }
        let p = self.prepare(asset, opts)?;
        if out.len() != p.plain {
            return Err(CafError::OutputSize {
                expected: p.header.plain_size,
                actual: out.len() as u64,
            });
        }
        self.decode_blocks(&p, asset.payload, out)
    }

    /// Decode every block of `p` into `out` (exactly the plain length) and check the plain CRC.
    fn decode_blocks(
        &mut self,
        p: &Prepared,
        payload: &[u8],
        out: &mut [u8],
    ) -> Result<u32, CafError> {
        let mut crc = crc32fast::Hasher::new();
        let mut start = 0usize;
        for (i, e) in p.entries.iter().enumerate() {
            let i = i as u32;
            let end = start + p.header.plain_len(i);
            let block = &mut out[start..end];
            self.decode_block(p, i, e, payload, block)?;
            crc.update(block);
            start = end;
        }
        check_plain_crc(&p.header, crc.finalize())
    }

    /// The plain asset of a verified (possibly encoded) asset, ready for typed views: decoded
    /// straight into the loaded asset's aligned buffer, its CRCs taken from the decoding (the
    /// plain payload is hashed once, block by block, and never copied or re-verified). What
    /// [`decode_asset`] and [`LoadedAsset::from_vec`] do in two steps, in one.
    pub fn decode_loaded(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
    ) -> Result<LoadedAsset, CafError> {
        let front = HEADER_SIZE + asset.metadata.len();
        let (plain_len, prepared) = if is_encoded(asset.header.flags) {
            let p = self.prepare(asset, opts)?;
            // Past the bomb bound, grow as the blocks prove themselves (then copy once).
            let stored = asset.payload.len() as u64;
            if p.header.plain_size > stored.saturating_mul(64) {
                return LoadedAsset::from_vec(self.decode_asset(asset, opts)?);
            }
            (p.plain, Some(p))
        } else {
            (asset.payload.len(), None)
        };
        let encoded_bits = CafFlags::COMPRESSED.0 | CafFlags::ENCRYPTED.0;
        let mut h = CafHeader {
            flags: CafFlags(asset.header.flags.0 & !encoded_bits),
            data_size: plain_len as u64,
            ..asset.header
        };
        let len = front + plain_len + FOOTER_SIZE;
        LoadedAsset::build(len, front, |file| {
            let (head, rest) = file.split_at_mut(front);
            let (body, footer) = rest.split_at_mut(plain_len);
            let plain_crc = match &prepared {
                Some(p) => self.decode_blocks(p, asset.payload, body)?,
                None => {
                    body.copy_from_slice(asset.payload);
                    let c = crc32(body);
                    if c != asset.header.crc32 {
                        return Err(CafError::PayloadCrcMismatch {
                            stored: asset.header.crc32,
                            computed: c,
                        });
                    }
                    c
                }
            };
            h.crc32 = plain_crc;
            head[..HEADER_SIZE].copy_from_slice(&h.to_bytes());
            head[HEADER_SIZE..].copy_from_slice(asset.metadata);
            let footer_crc =
                crate::container::crc::crc32_combine(crc32(head), plain_crc, plain_len as u64);
            footer.copy_from_slice(&footer_crc.to_le_bytes());
            Ok(())
        })
    }

    /// A plain `.caf` file equivalent to a verified (possibly encoded) asset, like
    /// [`decode_asset`], with this decoder's contexts.
    pub fn decode_asset(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
    ) -> Result<Vec<u8>, CafError> {
        let front = HEADER_SIZE + asset.metadata.len();
        let mut out = Vec::new();
        let plain_crc = self.decode_into_after(asset, opts, &mut out, front)?;
        let plain_len = (out.len() - front) as u64;
        let encoded_bits = CafFlags::COMPRESSED.0 | CafFlags::ENCRYPTED.0;
        let h = CafHeader {
            flags: CafFlags(asset.header.flags.0 & !encoded_bits),
            crc32: plain_crc,
            data_size: plain_len,
            ..asset.header
        };
        out[..HEADER_SIZE].copy_from_slice(&h.to_bytes());
        out[HEADER_SIZE..front].copy_from_slice(asset.metadata);
        let head = crc32(&out[..front]);
        let footer = crate::container::crc::crc32_combine(head, plain_crc, plain_len);
        out.extend_from_slice(&footer.to_le_bytes());
        Ok(out)
    }

    fn decode_block(
        &mut self,
        p: &Prepared,
        i: u32,
        e: &BlockEntry,
        payload: &[u8],
        out: &mut [u8],
    ) -> Result<(), CafError> {
        let s = e.offset as usize; // parse_entries checked offsets against the payload
        let stored = &payload[s..s + e.stored_size as usize];
        p.blocks.decode(&mut self.ctx, i, e, stored, out)
    }

    /// Decode into `out[front..]`, `out[..front]` left for the caller to fill.
    fn decode_into_after(
        &mut self,
        asset: &Asset<'_>,
        opts: &DecodeOptions<'_>,
        out: &mut Vec<u8>,
        front: usize,
    ) -> Result<u32, CafError> {
        if !is_encoded(asset.header.flags) {
            out.truncate(front);
            out.resize(front, 0);
            out.extend_from_slice(asset.payload);
            return Ok(crc32(asset.payload));
        }
        let p = self.prepare(asset, opts)?;
        let want = front + p.plain;
        // Only what the stored bytes can honestly expand to is allocated up front (every block
        // must decode to its full length); a bomb that declares more fails at its first short
        // block long before the buffer grows to the declared size. Memory `out` already holds
        // is reused as it is: every byte of it is overwritten by a block.
        let stored = asset.payload.len() as u64;
        let first = front + (stored.saturating_mul(64)).min(p.header.plain_size) as usize;
        out.truncate(want);
        if out.len() < first {
            grow_zeroed(out, first);
        }
        let mut crc = crc32fast::Hasher::new();
        let mut start = front;
        for (i, e) in p.entries.iter().enumerate() {
            let i = i as u32;
            let end = start + p.header.plain_len(i);
            if out.len() < end {
                grow_zeroed(out, end.max(out.len().saturating_mul(2)).min(want));
            }
            let block = &mut out[start..end];
            self.decode_block(&p, i, e, asset.payload, block)?;
            crc.update(block);
            start = end;
        }
        debug_assert_eq!(start, want);
        check_plain_crc(&p.header, crc.finalize())
    }
}

/// Lengthen `out` to `n` bytes. A buffer without memory takes it zeroed from the allocator
/// (fresh pages come zeroed from the kernel, so large buffers are not written twice).
fn grow_zeroed(out: &mut Vec<u8>, n: usize) {
    if out.capacity() == 0 {
        *out = vec![0u8; n];
    } else {
        out.resize(n, 0);
    }
}

fn check_plain_crc(h: &BlockIndexHeader, computed: u32) -> Result<u32, CafError> {
    if computed != h.plain_crc32 {
        return Err(CafError::PlainCrcMismatch {
            stored: h.plain_crc32,
            computed,
        });
    }
    Ok(computed)
}

/// The plain payload of a verified asset: decoded and checked block by block when the asset is
/// COMPRESSED or ENCRYPTED, a copy of the payload otherwise. A fresh decoder and buffer per
/// call; to decode many assets, keep a [`PayloadDecoder`] and an output buffer instead.
pub fn decode_payload(asset: &Asset<'_>, opts: &DecodeOptions<'_>) -> Result<Vec<u8>, CafError> {
    let mut out = Vec::new();
    PayloadDecoder::new().decode_into(asset, opts, &mut out)?;
    Ok(out)
}

/// A plain `.caf` file equivalent to a verified (possibly encoded) asset: same type, metadata
/// and flags without COMPRESSED and ENCRYPTED, the decoded payload and fresh CRCs. Typed views
/// work on the result. A fresh decoder per call ([`PayloadDecoder::decode_asset`] reuses one).
pub fn decode_asset(asset: &Asset<'_>, opts: &DecodeOptions<'_>) -> Result<Vec<u8>, CafError> {
    PayloadDecoder::new().decode_asset(asset, opts)
}
