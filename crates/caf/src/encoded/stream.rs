//! The streaming reader (`docs/format/caf-extensions.md` section 4): a payload block by block
//! with memory bounded by two blocks and the index, whatever the payload's size.

use std::io::{Read, Seek, SeekFrom};

use crate::container::crc::{crc32, crc32_combine};
use crate::container::header::{CafHeader, FOOTER_SIZE, HEADER_SIZE};
use crate::encoded::{
    is_encoded, parse_entries, parse_index_header, BlockDecoder, BlockEntry, BlockIndexHeader, Key,
    PayloadDecoder, DEFAULT_BLOCK_SIZE, INDEX_HEADER_SIZE,
};
use crate::error::CafError;

/// Largest metadata a streaming reader accepts (16 MiB): it is held in memory.
pub const MAX_STREAM_METADATA: u64 = 16 << 20;

fn io(e: std::io::Error) -> CafError {
    CafError::io(None, e)
}

enum Mode {
    /// A plain payload handed out in pieces of `DEFAULT_BLOCK_SIZE`.
    Plain,
    /// An encoded payload.
    Blocks {
        index: BlockIndexHeader,
        entries: Vec<BlockEntry>,
        decoder: Box<BlockDecoder>,
    },
}

/// Reads an asset's plain payload block by block from any [`Read`], verifying as it goes:
/// each block's CRC and tag, and, once the last block has been read in order, the plain CRC,
/// the header's payload CRC and the footer. Memory: the metadata, the index (16 bytes a block)
/// and two blocks.
///
/// ```
/// use caf::encoded::{encode_asset, Encoding, StreamReader};
/// use caf::{AssetType, CafFlags};
///
/// # #[cfg(feature = "zstd")]
/// # fn main() -> Result<(), caf::CafError> {
/// let plain: Vec<u8> = (0..300_000u32).map(|i| (i / 7) as u8).collect();
/// let file = encode_asset(AssetType::AUDIO, CafFlags::STREAMED, &[], &plain, &Encoding::default())?;
/// let mut r = StreamReader::new(&file[..], None)?;
/// let mut back = Vec::new();
/// while let Some(block) = r.next_block()? {
///     back.extend_from_slice(block);
/// }
/// assert_eq!(back, plain);
/// # Ok(())
/// # }
/// # #[cfg(not(feature = "zstd"))]
/// # fn main() {}
/// ```
pub struct StreamReader<R> {
    reader: R,
    header: CafHeader,
    metadata: Vec<u8>,
    mode: Mode,
    /// Next block to read.
    next: u64,
    /// False once a block was read out of order: the whole-file checks are then skipped.
    sequential: bool,
    /// Hash of the stored payload bytes read so far (sequential reads only).
    payload_crc: crc32fast::Hasher,
    /// Hash of the plain bytes (encoded payloads, sequential reads only).
    plain_crc: crc32fast::Hasher,
    /// Head CRC: header and metadata.
    head_crc: u32,
    stored: Vec<u8>,
    plain: Vec<u8>,
    /// Codec context and scratch (the block decoding of [`PayloadDecoder`]).
    contexts: PayloadDecoder,
    /// Stream position (bytes from the start of the file).
    pos: u64,
    finished: bool,
}

impl<R> std::fmt::Debug for StreamReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamReader")
            .field("header", &self.header)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

impl<R: Read> StreamReader<R> {
    /// Read and check the header, metadata and block index (with the key of an encrypted
    /// asset); nothing of the payload's blocks is read yet.
    pub fn new(reader: R, key: Option<&Key>) -> Result<StreamReader<R>, CafError> {
        StreamReader::with_decoder(reader, key, PayloadDecoder::new())
    }

    /// [`StreamReader::new`] decoding with `contexts`' codec context (a zstd context made once
    /// for many streams); [`StreamReader::into_decoder`] hands them back.
    pub fn with_decoder(
        mut reader: R,
        key: Option<&Key>,
        mut contexts: PayloadDecoder,
    ) -> Result<StreamReader<R>, CafError> {
        let mut hb = [0u8; HEADER_SIZE];
        reader.read_exact(&mut hb).map_err(|e| short(e, 0))?;
        let header = CafHeader::from_bytes(&hb);
        crate::container::load::validate_header_bytes(&hb)?;
        header.total_file_size().ok_or(CafError::SizeOverflow {
            metadata_size: header.metadata_size,
            data_size: header.data_size,
        })?;
        if header.metadata_size > MAX_STREAM_METADATA {
            return Err(CafError::TooLarge {
                what: "metadata",
                size: header.metadata_size,
            });
        }
        let mut metadata = vec![0u8; header.metadata_size as usize];
        reader
            .read_exact(&mut metadata)
            .map_err(|e| short(e, HEADER_SIZE as u64))?;
        let head_crc = crate::container::crc::crc32_continue(crc32(&hb), &metadata);
        let mut pos = (HEADER_SIZE + metadata.len()) as u64;
        let mut payload_crc = crc32fast::Hasher::new();
        let mode = if is_encoded(header.flags) {
            let mut ib = [0u8; INDEX_HEADER_SIZE];
            if header.data_size < INDEX_HEADER_SIZE as u64 {
                return Err(CafError::BadBlockIndex {
                    offset: 0,
                    what: "payload too short for the 88-byte block index header",
                });
            }
            reader.read_exact(&mut ib).map_err(|e| short(e, pos))?;
            let index = parse_index_header(header.flags, &ib, header.data_size)?;
            // The index length comes from the (unverified) header: read what the stream really
            // holds, so a short stream claiming 2^32 blocks allocates what it sent, not 64 GiB.
            let want = u64::from(index.data_offset) - INDEX_HEADER_SIZE as u64;
            let mut idx = ib.to_vec();
            (&mut reader).take(want).read_to_end(&mut idx).map_err(io)?;
            if idx.len() as u64 != u64::from(index.data_offset) {
                return Err(CafError::Truncated {
                    offset: pos + idx.len() as u64,
                });
            }
            let entries = parse_entries(&index, &idx, header.data_size)?;
            payload_crc.update(&idx);
            pos += idx.len() as u64;
            let decoder = BlockDecoder::new(index, &entries, &header, &metadata, key)?;
            decoder.prepare(contexts.context())?;
            Mode::Blocks {
                index,
                entries,
                decoder: Box::new(decoder),
            }
        } else {
            Mode::Plain
        };
        Ok(StreamReader {
            reader,
            header,
            metadata,
            mode,
            next: 0,
            sequential: true,
            payload_crc,
            plain_crc: crc32fast::Hasher::new(),
            head_crc,
            stored: Vec::new(),
            plain: Vec::new(),
            contexts,
            pos,
            finished: false,
        })
    }

    /// The decoder's contexts, for the next stream or [`PayloadDecoder::decode_into`].
    pub fn into_decoder(self) -> PayloadDecoder {
        self.contexts
    }

    /// The container header.
    pub fn header(&self) -> &CafHeader {
        &self.header
    }

    /// The metadata bytes.
    pub fn metadata(&self) -> &[u8] {
        &self.metadata
    }

    /// Length of the plain payload.
    pub fn plain_size(&self) -> u64 {
        match &self.mode {
            Mode::Plain => self.header.data_size,
            Mode::Blocks { index, .. } => index.plain_size,
        }
    }

    /// Plain bytes per block (the last may be shorter).
    pub fn block_size(&self) -> u32 {
        match &self.mode {
            Mode::Plain => DEFAULT_BLOCK_SIZE,
            Mode::Blocks { index, .. } => index.block_size,
        }
    }

    /// Number of blocks.
    pub fn block_count(&self) -> u64 {
        match &self.mode {
            Mode::Plain => self
                .header
                .data_size
                .div_ceil(u64::from(DEFAULT_BLOCK_SIZE)),
            Mode::Blocks { index, .. } => u64::from(index.block_count),
        }
    }

    /// Stored bytes of block `i` and where they start in the file.
    fn stored_extent(&self, i: u64) -> (u64, usize) {
        let payload_at = (HEADER_SIZE + self.metadata.len()) as u64;
        match &self.mode {
            Mode::Plain => {
                let start = i * u64::from(DEFAULT_BLOCK_SIZE);
                let len = (self.header.data_size - start).min(u64::from(DEFAULT_BLOCK_SIZE));
                (payload_at + start, len as usize)
            }
            Mode::Blocks { entries, .. } => {
                let e = &entries[i as usize];
                (payload_at + e.offset, e.stored_size as usize)
            }
        }
    }

    /// The next block's plain bytes, `None` after the last one (when the whole-file checks of
    /// a sequential read have passed).
    pub fn next_block(&mut self) -> Result<Option<&[u8]>, CafError> {
        if self.next >= self.block_count() {
            self.finish()?;
            return Ok(None);
        }
        let i = self.next;
        let (at, len) = self.stored_extent(i);
        if at != self.pos {
            return Err(CafError::BadBlockIndex {
                offset: at,
                what: "stream is not positioned at the block",
            });
        }
        self.stored.resize(len, 0);
        self.reader
            .read_exact(&mut self.stored)
            .map_err(|e| short(e, at))?;
        self.pos += len as u64;
        if self.sequential {
            self.payload_crc.update(&self.stored);
        }
        self.next += 1;
        match &mut self.mode {
            Mode::Plain => Ok(Some(&self.stored)),
            Mode::Blocks {
                index,
                entries,
                decoder,
            } => {
                let plain_len = index.plain_len(i as u32);
                // Grows once to a block, then only the shorter last block truncates it.
                self.plain.resize(plain_len, 0);
                decoder.decode(
                    self.contexts.context(),
                    i as u32,
                    &entries[i as usize],
                    &self.stored,
                    &mut self.plain,
                )?;
                if self.sequential {
                    self.plain_crc.update(&self.plain);
                }
                Ok(Some(&self.plain))
            }
        }
    }

    /// After the last block of a sequential read: plain CRC, payload CRC and footer.
    fn finish(&mut self) -> Result<(), CafError> {
        if self.finished || !self.sequential {
            return Ok(());
        }
        self.finished = true;
        if let Mode::Blocks { decoder, .. } = &self.mode {
            let computed = self.plain_crc.clone().finalize();
            let stored = decoder.header().plain_crc32;
            if computed != stored {
                return Err(CafError::PlainCrcMismatch { stored, computed });
            }
        }
        let payload = self.payload_crc.clone().finalize();
        let mut fb = [0u8; FOOTER_SIZE];
        self.reader
            .read_exact(&mut fb)
            .map_err(|e| short(e, self.pos))?;
        let check = crate::container::load::CrcCheck {
            payload_stored: self.header.crc32,
            payload_computed: payload,
            footer_stored: u32::from_le_bytes(fb),
            footer_computed: crc32_combine(self.head_crc, payload, self.header.data_size),
        };
        check.check()?;
        // Anything after the footer means the header's sizes do not describe the file.
        let mut extra = [0u8; 1];
        match self.reader.read(&mut extra) {
            Ok(0) => Ok(()),
            Ok(_) => Err(CafError::SizeMismatch {
                expected: self.header.total_file_size().unwrap_or(u64::MAX),
                actual: self.pos + FOOTER_SIZE as u64 + 1,
            }),
            Err(e) => Err(io(e)),
        }
    }

    /// Read every block, handing each to `f`, and run the whole-file checks.
    pub fn for_each_block(
        mut self,
        mut f: impl FnMut(&[u8]) -> Result<(), CafError>,
    ) -> Result<(), CafError> {
        while let Some(b) = self.next_block()? {
            f(b)?;
        }
        Ok(())
    }
}

impl<R: Read + Seek> StreamReader<R> {
    /// Position the reader at block `i` (the next [`next_block`](StreamReader::next_block)
    /// returns it). Blocks read after a seek are checked by their own CRC and tag; the
    /// whole-file checks of a sequential read no longer apply.
    pub fn seek_block(&mut self, i: u64) -> Result<(), CafError> {
        if i > self.block_count() {
            return Err(CafError::BadBlockIndex {
                offset: 0,
                what: "seek past the last block",
            });
        }
        if i == self.next {
            return Ok(());
        }
        self.sequential = false;
        let at = if i == self.block_count() {
            (HEADER_SIZE as u64 + self.metadata.len() as u64) + self.header.data_size
        } else {
            self.stored_extent(i).0
        };
        self.reader.seek(SeekFrom::Start(at)).map_err(io)?;
        self.pos = at;
        self.next = i;
        Ok(())
    }
}

fn short(e: std::io::Error, at: u64) -> CafError {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        CafError::Truncated { offset: at }
    } else {
        io(e)
    }
}
