//! The verifying loader (CAF.md section 2).
//!
//! Checks run in the original's order: length >= 36, magic, major version, file length ==
//! 32 + N + M + 4 (checked arithmetic: an overflowing sum is rejected), payload CRC, footer CRC.
//! Every byte is hashed exactly once: the payload CRC and the CRC of header + metadata are
//! combined into the footer CRC with [`crc32_combine`].

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::container::crc::{crc32, crc32_combine, crc32_continue};
use crate::error::CafError;
use zerocopy::FromBytes;

use crate::container::header::{
    CafHeader, RawFooter, FOOTER_SIZE, HEADER_SIZE, MAX_PAYLOAD_ALIGNMENT, MIN_FILE_SIZE,
};

/// Checks the 32 header bytes against the real file length: magic, major version and the
/// (checked) size sum. `file_len` must already be at least [`MIN_FILE_SIZE`].
fn check_structure(hb: &[u8; HEADER_SIZE], file_len: u64) -> Result<CafHeader, CafError> {
    let h = check_header_fields(hb)?;
    let expected = h.total_file_size().ok_or(CafError::SizeOverflow {
        metadata_size: h.metadata_size,
        data_size: h.data_size,
    })?;
    if expected != file_len {
        return Err(CafError::SizeMismatch {
            expected,
            actual: file_len,
        });
    }
    Ok(h)
}

fn check_header_fields(hb: &[u8; HEADER_SIZE]) -> Result<CafHeader, CafError> {
    let h = CafHeader::from_bytes(hb);
    if h.magic != crate::MAGIC {
        return Err(CafError::BadMagic { found: h.magic });
    }
    if h.version_major != crate::VERSION_MAJOR {
        return Err(CafError::UnsupportedVersion {
            major: h.version_major,
            minor: h.version_minor,
        });
    }
    Ok(h)
}

/// Splits what follows a checked header into metadata, payload and the stored footer CRC.
/// `check_structure` has already matched the sizes to the file length, so the split only fails
/// if called on the wrong bytes; it then reports the mismatch instead of panicking.
fn split_body<'a>(h: &CafHeader, body: &'a [u8]) -> Result<(&'a [u8], &'a [u8], u32), CafError> {
    let mismatch = || CafError::SizeMismatch {
        expected: h.total_file_size().unwrap_or(u64::MAX),
        actual: (HEADER_SIZE + body.len()) as u64,
    };
    let n = usize::try_from(h.metadata_size).map_err(|_| mismatch())?;
    let m = usize::try_from(h.data_size).map_err(|_| mismatch())?;
    let (metadata, rest) = body.split_at_checked(n).ok_or_else(mismatch)?;
    let (payload, footer) = rest.split_at_checked(m).ok_or_else(mismatch)?;
    let footer = RawFooter::read_from_bytes(footer).map_err(|_| mismatch())?;
    Ok((metadata, payload, footer.crc32.get()))
}

fn too_short(len: u64) -> CafError {
    CafError::TooShort {
        len,
        min: MIN_FILE_SIZE as u64,
    }
}

/// Both CRCs of a structurally sound file: what is stored and what the bytes hash to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CrcCheck {
    /// Header crc32 (offset 12).
    pub payload_stored: u32,
    /// CRC of the payload bytes.
    pub payload_computed: u32,
    /// The footer.
    pub footer_stored: u32,
    /// CRC of everything before the footer.
    pub footer_computed: u32,
}

impl CrcCheck {
    /// Stored and computed payload CRCs agree.
    pub fn payload_ok(&self) -> bool {
        self.payload_stored == self.payload_computed
    }

    /// Stored and computed footer CRCs agree.
    pub fn footer_ok(&self) -> bool {
        self.footer_stored == self.footer_computed
    }

    /// The first failing CRC check as an error, in the loader's order.
    pub fn check(&self) -> Result<(), CafError> {
        if !self.payload_ok() {
            return Err(CafError::PayloadCrcMismatch {
                stored: self.payload_stored,
                computed: self.payload_computed,
            });
        }
        if !self.footer_ok() {
            return Err(CafError::FooterCrcMismatch {
                stored: self.footer_stored,
                computed: self.footer_computed,
            });
        }
        Ok(())
    }

    fn from_parts(h: &CafHeader, head_crc: u32, payload_crc: u32, footer_stored: u32) -> CrcCheck {
        CrcCheck {
            payload_stored: h.crc32,
            payload_computed: payload_crc,
            footer_stored,
            footer_computed: crc32_combine(head_crc, payload_crc, h.data_size),
        }
    }
}

/// A parsed file borrowing its bytes: the header and zero-copy metadata and payload slices.
#[derive(Clone, Copy, Debug)]
pub struct Asset<'a> {
    /// The decoded header.
    pub header: CafHeader,
    /// Metadata bytes (offset 32, `metadata_size` long).
    pub metadata: &'a [u8],
    /// Payload bytes (offset 32 + N, `data_size` long).
    pub payload: &'a [u8],
}

impl<'a> Asset<'a> {
    /// Parse and fully verify a complete file held in memory.
    pub fn parse(bytes: &'a [u8]) -> Result<Asset<'a>, CafError> {
        let (asset, crcs) = Asset::parse_layout(bytes)?;
        crcs.check()?;
        Ok(asset)
    }

    /// Check the structure (length, magic, version, sizes) and compute both CRCs without
    /// judging them, so tools can describe a damaged file. [`Asset::parse`] is this plus
    /// [`CrcCheck::check`].
    pub fn parse_layout(bytes: &'a [u8]) -> Result<(Asset<'a>, CrcCheck), CafError> {
        let len = bytes.len() as u64;
        if bytes.len() < MIN_FILE_SIZE {
            return Err(too_short(len));
        }
        let (hb, rest) = bytes
            .split_first_chunk::<HEADER_SIZE>()
            .ok_or(too_short(len))?;
        let header = check_structure(hb, len)?;
        let (metadata, payload, footer_stored) = split_body(&header, rest)?;
        let head_crc = crc32_continue(crc32(hb), metadata);
        let crcs = CrcCheck::from_parts(&header, head_crc, crc32(payload), footer_stored);
        Ok((
            Asset {
                header,
                metadata,
                payload,
            },
            crcs,
        ))
    }

    /// File offset of the payload (32 + N).
    pub fn payload_offset(&self) -> usize {
        HEADER_SIZE + self.metadata.len()
    }

    /// File offset of the footer.
    pub fn footer_offset(&self) -> usize {
        self.payload_offset() + self.payload.len()
    }

    /// Size of the whole file.
    pub fn file_size(&self) -> u64 {
        (self.footer_offset() + FOOTER_SIZE) as u64
    }
}

/// Check only the first 32 bytes of a file: length, magic, major version (like the original's
/// `validateHeader`). Reads 32 bytes, whatever the file size.
pub fn validate_header(path: &Path) -> Result<CafHeader, CafError> {
    let mut f = File::open(path).map_err(|e| CafError::io(Some(path), e))?;
    let mut hb = [0u8; HEADER_SIZE];
    let n = read_up_to(&mut f, &mut hb).map_err(|e| CafError::io(Some(path), e))?;
    if n < HEADER_SIZE {
        return Err(CafError::TooShort {
            len: n as u64,
            min: HEADER_SIZE as u64,
        });
    }
    check_header_fields(&hb)
}

/// [`validate_header`] for bytes in memory.
pub fn validate_header_bytes(bytes: &[u8]) -> Result<CafHeader, CafError> {
    let hb = bytes
        .first_chunk::<HEADER_SIZE>()
        .ok_or(CafError::TooShort {
            len: bytes.len() as u64,
            min: HEADER_SIZE as u64,
        })?;
    check_header_fields(hb)
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Fully verifies the file at `path` without keeping it (what `voxcaf asset check` needs):
/// the checks of [`LoadedAsset::open`] in the same order, with the bytes read into reused
/// buffers of 256 KiB and each chunk hashed while it is still in cache. Memory does not
/// depend on the file size, and the only pass over the data is the read itself (no buffer the
/// size of the file to allocate, fault in and zero). A payload of [`PARALLEL_VERIFY_MIN`] bytes
/// or more is split into one contiguous part per core, each read (positional reads of the one
/// file handle) and hashed by its own thread, and the parts' CRCs combined in order, so a large
/// check runs at the speed of the read rather than of read plus CRC. Returns the header and
/// file length.
pub fn verify_file(path: &Path) -> Result<(CafHeader, u64), CafError> {
    let err = |e| CafError::io(Some(path), e);
    let f = File::open(path).map_err(err)?;
    let len = f.metadata().map_err(err)?.len();
    if len < MIN_FILE_SIZE as u64 {
        return Err(too_short(len));
    }
    let mut hb = [0u8; HEADER_SIZE];
    read_exact_at(&f, &mut hb, 0).map_err(err)?;
    let header = check_structure(&hb, len)?;
    let meta_end = HEADER_SIZE as u64 + header.metadata_size;
    let footer_at = meta_end + header.data_size;
    let mut buf = vec![0u8; READ_CHUNK];
    // The metadata, continuing the header's CRC.
    let mut head = crc32(&hb);
    read_chunks(&f, HEADER_SIZE as u64, meta_end, &mut buf, path, |c| {
        head = crc32_continue(head, c)
    })?;
    // The payload: in parts on threads when large, else on this thread.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8)) as u64;
    let payload_crc = if header.data_size >= PARALLEL_VERIFY_MIN && threads > 1 {
        let part = header.data_size.div_ceil(threads);
        let crcs: Vec<Result<(u32, u64), CafError>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|i| {
                    let start = meta_end + i * part;
                    let end = (start + part).min(footer_at);
                    let f = &f;
                    s.spawn(move || -> Result<(u32, u64), CafError> {
                        let mut buf = vec![0u8; VERIFY_PART_CHUNK];
                        let mut h = crc32fast::Hasher::new();
                        read_chunks(f, start, end, &mut buf, path, |c| h.update(c))?;
                        Ok((h.finalize(), end - start))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        let mut crc = 0; // the CRC of no bytes
        for r in crcs {
            let (c, n) = r?;
            crc = crc32_combine(crc, c, n);
        }
        crc
    } else {
        let mut h = crc32fast::Hasher::new();
        read_chunks(&f, meta_end, footer_at, &mut buf, path, |c| h.update(c))?;
        h.finalize()
    };
    let mut footer = [0u8; FOOTER_SIZE];
    read_chunks(&f, footer_at, len, &mut footer, path, |_| {})?;
    let crcs = CrcCheck::from_parts(&header, head, payload_crc, u32::from_le_bytes(footer));
    crcs.check()?;
    Ok((header, len))
}

/// The read size of [`verify_file`]'s payload threads (1 MiB, as `dd bs=1M`): fewer system
/// calls than [`READ_CHUNK`] on the large payloads they handle.
const VERIFY_PART_CHUNK: usize = 1 << 20;

/// Payloads at least this large are verified by [`verify_file`] on several threads (16 MiB):
/// below it a thread costs more than it saves.
pub const PARALLEL_VERIFY_MIN: u64 = 16 << 20;

/// Read the bytes `start..end` of `f` through `buf` by positional reads (so threads can share
/// `f`), giving each chunk to `sink`. A file shorter than `end` is [`CafError::Truncated`] at the first missing
/// byte's chunk. A `buf` at least `end - start` long receives the bytes whole.
fn read_chunks(
    f: &File,
    start: u64,
    end: u64,
    buf: &mut [u8],
    path: &Path,
    mut sink: impl FnMut(&[u8]),
) -> Result<(), CafError> {
    let mut pos = start;
    while pos < end {
        let n = (end - pos).min(buf.len() as u64) as usize;
        let chunk = &mut buf[..n];
        read_exact_at(f, chunk, pos).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                CafError::Truncated { offset: pos }
            } else {
                CafError::io(Some(path), e)
            }
        })?;
        sink(chunk);
        pos += n as u64;
    }
    Ok(())
}

/// How [`LoadedAsset::open_with`] gets the bytes into memory.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum LoadMode {
    /// [`LoadMode::Map`] for files of at least [`MAP_THRESHOLD`] bytes whose mapped payload
    /// happens to be aligned to `payload_alignment()` (measured about 4x faster than reading
    /// a 256 MiB file here, 3x for 16 MiB, even at 4 MiB), [`LoadMode::Read`] otherwise.
    /// Either way the payload is aligned. Large files are therefore mapped by default, with
    /// the hazard described under [`LoadMode::Map`].
    #[default]
    Auto,
    /// One pass of reads into an owned buffer placed so that the payload starts at a multiple
    /// of `payload_alignment()`; each chunk is hashed right after it is read. Files of 32 MiB
    /// and more go into anonymous memory with transparent huge pages.
    Read,
    /// Memory-map the file (read-only, populated). The payload is then only as aligned as its
    /// file offset (32 + N from a page boundary); typed views copy when a cast is impossible.
    /// Another process truncating the file while it is mapped can crash this one (SIGBUS), and
    /// one writing it in place changes bytes that were already verified: use `Read` for files
    /// that may be rewritten in place. Files replaced by rename, as this crate's writer does,
    /// are safe.
    Map,
}

/// [`LoadMode::Auto`] maps files at least this large (4 MiB): where mapping stops being slower
/// than reading (`benches/disk_speed.rs`, `map_vs_read`: equal at 4 MiB, mapping 3x faster at
/// 16 MiB, 5-10x for a 2048x2048 texture with mips).
pub const MAP_THRESHOLD: u64 = 4 << 20;

enum Storage {
    /// `buf[start..start + len]` is the file; `start` aligns the payload.
    Owned {
        buf: Vec<u8>,
        start: usize,
    },
    /// Like `Owned`, in anonymous memory asking for transparent huge pages: large reads then
    /// take a page fault per 2 MiB instead of per 4 KiB.
    Anon {
        buf: memmap2::MmapMut,
        start: usize,
    },
    Mapped(crate::container::mmap::Map),
}

/// Files at least this large are read into anonymous huge-page memory (32 MiB). Smaller ones go
/// into the heap, whose memory the allocator hands out again after a load is dropped (glibc
/// serves blocks up to 32 MiB from the heap once one was freed), while fresh anonymous pages
/// are zeroed by the kernel and faulted in every time: reading a 16 MiB file into anonymous
/// memory measured about 4x slower than into the heap (`benches/disk_speed.rs`,
/// `map_vs_read`).
const ANON_THRESHOLD: usize = 32 << 20;

/// A zeroed buffer of `n` bytes for a file read.
fn read_buffer(n: usize) -> std::io::Result<Storage> {
    if n >= ANON_THRESHOLD {
        let buf = memmap2::MmapMut::map_anon(n)?;
        #[cfg(target_os = "linux")]
        let _ = buf.advise(memmap2::Advice::HugePage); // only a hint
        return Ok(Storage::Anon { buf, start: 0 });
    }
    Ok(Storage::Owned {
        buf: vec![0u8; n],
        start: 0,
    })
}

/// A verified file owning its bytes: an aligned buffer read in one pass, or a memory map.
pub struct LoadedAsset {
    storage: Storage,
    len: usize,
    header: CafHeader,
    meta_end: usize,
}

impl std::fmt::Debug for LoadedAsset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedAsset")
            .field("header", &self.header)
            .field("file_size", &self.len)
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

/// Chunk size for read-and-hash: small enough that each chunk is hashed while still in cache.
const READ_CHUNK: usize = 256 * 1024;

/// Front padding so that `ptr + front + payload_offset` is a multiple of the max alignment.
fn front_pad(ptr: *const u8, payload_offset: u64) -> usize {
    let a = MAX_PAYLOAD_ALIGNMENT;
    let at = (ptr as usize).wrapping_add((payload_offset % a as u64) as usize);
    (a - at % a) % a
}

/// Reads the `len`-byte file at `offset` of `f` (whose 32 header bytes `hb` were checked
/// into `header`) into an aligned buffer, hashing each chunk right after it arrives, and checks
/// both CRCs.
fn read_verified(
    f: &File,
    offset: u64,
    len: usize,
    hb: &[u8; HEADER_SIZE],
    header: CafHeader,
) -> Result<LoadedAsset, CafError> {
    let io = |e| CafError::io(None, e);
    let meta_end = HEADER_SIZE + header.metadata_size as usize;
    let mut storage = read_buffer(len + MAX_PAYLOAD_ALIGNMENT).map_err(io)?;
    let (buf, start): (&mut [u8], &mut usize) = match &mut storage {
        Storage::Owned { buf, start } => (buf, start),
        Storage::Anon { buf, start } => (buf, start),
        Storage::Mapped(_) => unreachable!("read_buffer never maps a file"),
    };
    *start = front_pad(buf.as_ptr(), meta_end as u64);
    let file = &mut buf[*start..*start + len];
    file[..HEADER_SIZE].copy_from_slice(hb);
    // Read the rest in cache-sized chunks and hash each chunk right after it arrives.
    let mut head = crc32(hb);
    let mut payload = crc32fast::Hasher::new();
    let footer_at = meta_end + header.data_size as usize;
    let mut pos = HEADER_SIZE;
    while pos < len {
        let end = (pos + READ_CHUNK).min(len);
        read_exact_at(f, &mut file[pos..end], offset + pos as u64).map_err(io)?;
        // Split the chunk into its metadata part and its payload part.
        let m_end = end.min(meta_end).max(pos);
        head = crc32_continue(head, &file[pos..m_end]);
        let p_start = m_end.max(meta_end);
        let p_end = end.min(footer_at).max(p_start);
        payload.update(&file[p_start..p_end]);
        pos = end;
    }
    let (_, _, footer_stored) = split_body(&header, &file[HEADER_SIZE..])?;
    CrcCheck::from_parts(&header, head, payload.finalize(), footer_stored).check()?;
    Ok(LoadedAsset {
        storage,
        len,
        header,
        meta_end,
    })
}

#[cfg(unix)]
fn read_exact_at(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
}

#[cfg(not(unix))]
fn read_exact_at(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    let mut f = f.try_clone()?;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

impl LoadedAsset {
    /// Load and fully verify a file (see [`LoadMode::Auto`]).
    pub fn open(path: &Path) -> Result<LoadedAsset, CafError> {
        LoadedAsset::open_with(path, LoadMode::Auto)
    }

    /// Load and fully verify a file the chosen way.
    pub fn open_with(path: &Path, mode: LoadMode) -> Result<LoadedAsset, CafError> {
        let err = |e| CafError::io(Some(path), e);
        let mut f = File::open(path).map_err(err)?;
        let len64 = f.metadata().map_err(err)?.len();
        if len64 < MIN_FILE_SIZE as u64 {
            return Err(too_short(len64));
        }
        let len = usize::try_from(len64)
            .ok()
            .filter(|l| l.checked_add(MAX_PAYLOAD_ALIGNMENT).is_some())
            .ok_or(CafError::TooLarge {
                what: "file",
                size: len64,
            })?;
        let mut hb = [0u8; HEADER_SIZE];
        f.read_exact(&mut hb).map_err(err)?;
        // Structure first: a bad header is reported without reading (or allocating) the rest.
        let header = check_structure(&hb, len64)?;
        let meta_end = HEADER_SIZE + header.metadata_size as usize;

        let align = header.asset_type.payload_alignment();
        let map_aligned = meta_end.is_multiple_of(align); // a map starts on a page boundary
        if mode == LoadMode::Map
            || (mode == LoadMode::Auto && len64 >= MAP_THRESHOLD && map_aligned)
        {
            let map = crate::container::mmap::Map::open(&f).map_err(err)?;
            if map.len() != len {
                return Err(CafError::SizeMismatch {
                    expected: len64,
                    actual: map.len() as u64,
                });
            }
            let asset = Asset::parse(&map)?;
            let header = asset.header;
            return Ok(LoadedAsset {
                storage: Storage::Mapped(map),
                len,
                header,
                meta_end,
            });
        }

        read_verified(&f, 0, len, &hb, header).map_err(|e| match e {
            CafError::Io { path: None, source } => CafError::io(Some(path), source),
            other => other,
        })
    }

    /// Reads and fully verifies the `.caf` file stored at `[offset, offset + size)` of `file`
    /// (a member of a pack), in one pass into an aligned buffer, hashing each chunk as it
    /// arrives. Positional reads: the file's cursor is not used.
    pub fn read_range(file: &File, offset: u64, size: u64) -> Result<LoadedAsset, CafError> {
        if size < MIN_FILE_SIZE as u64 {
            return Err(too_short(size));
        }
        let len = usize::try_from(size)
            .ok()
            .filter(|l| l.checked_add(MAX_PAYLOAD_ALIGNMENT).is_some())
            .ok_or(CafError::TooLarge { what: "file", size })?;
        let mut hb = [0u8; HEADER_SIZE];
        read_exact_at(file, &mut hb, offset).map_err(|e| CafError::io(None, e))?;
        let header = check_structure(&hb, size)?;
        read_verified(file, offset, len, &hb, header)
    }

    /// A plain file of `len` bytes whose metadata ends at `meta_end`, written in place by `fill`
    /// into a buffer whose payload is aligned like a read file's (large ones in huge-page
    /// memory); its header is then taken from the first 32 bytes written. The
    /// caller vouches for the bytes: `fill` writes header, metadata, payload and footer with
    /// the CRCs it computed while producing them (the payload decoder), so nothing is hashed
    /// or copied again.
    pub(crate) fn build(
        len: usize,
        meta_end: usize,
        fill: impl FnOnce(&mut [u8]) -> Result<(), CafError>,
    ) -> Result<LoadedAsset, CafError> {
        let total = len
            .checked_add(MAX_PAYLOAD_ALIGNMENT)
            .ok_or(CafError::TooLarge {
                what: "file",
                size: len as u64,
            })?;
        let mut storage = read_buffer(total).map_err(|e| CafError::io(None, e))?;
        let (buf, start): (&mut [u8], &mut usize) = match &mut storage {
            Storage::Owned { buf, start } => (buf, start),
            Storage::Anon { buf, start } => (buf, start),
            Storage::Mapped(_) => unreachable!("read_buffer never maps a file"),
        };
        *start = front_pad(buf.as_ptr(), meta_end as u64);
        let file = &mut buf[*start..*start + len];
        fill(file)?;
        let hb = file
            .first_chunk::<HEADER_SIZE>()
            .ok_or(too_short(len as u64))?;
        let header = CafHeader::from_bytes(hb);
        Ok(LoadedAsset {
            storage,
            len,
            header,
            meta_end,
        })
    }

    /// Verify a file already in memory. The vector is kept when its payload is already aligned
    /// to `payload_alignment()`, otherwise the bytes are copied once into an aligned buffer.
    pub fn from_vec(bytes: Vec<u8>) -> Result<LoadedAsset, CafError> {
        let asset = Asset::parse(&bytes)?;
        let header = asset.header;
        let meta_end = asset.payload_offset();
        let len = bytes.len();
        let align = header.asset_type.payload_alignment();
        if (bytes.as_ptr() as usize).wrapping_add(meta_end) % align == 0 {
            return Ok(LoadedAsset {
                storage: Storage::Owned {
                    buf: bytes,
                    start: 0,
                },
                len,
                header,
                meta_end,
            });
        }
        let mut buf = vec![0u8; len + MAX_PAYLOAD_ALIGNMENT];
        let start = front_pad(buf.as_ptr(), meta_end as u64);
        buf[start..start + len].copy_from_slice(&bytes);
        Ok(LoadedAsset {
            storage: Storage::Owned { buf, start },
            len,
            header,
            meta_end,
        })
    }

    /// Verify a copy of `bytes` (into an aligned buffer).
    pub fn from_bytes(bytes: &[u8]) -> Result<LoadedAsset, CafError> {
        let asset = Asset::parse(bytes)?;
        let header = asset.header;
        let meta_end = asset.payload_offset();
        let len = bytes.len();
        let mut buf = vec![0u8; len + MAX_PAYLOAD_ALIGNMENT];
        let start = front_pad(buf.as_ptr(), meta_end as u64);
        buf[start..start + len].copy_from_slice(bytes);
        Ok(LoadedAsset {
            storage: Storage::Owned { buf, start },
            len,
            header,
            meta_end,
        })
    }

    /// The whole file.
    pub fn bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Owned { buf, start } => &buf[*start..*start + self.len],
            Storage::Anon { buf, start } => &buf[*start..*start + self.len],
            Storage::Mapped(m) => m,
        }
    }

    /// A borrowed [`Asset`] over the verified bytes.
    pub fn asset(&self) -> Asset<'_> {
        Asset {
            header: self.header,
            metadata: self.metadata(),
            payload: self.payload(),
        }
    }

    /// The verified header.
    pub fn header(&self) -> &CafHeader {
        &self.header
    }

    /// Metadata bytes.
    pub fn metadata(&self) -> &[u8] {
        &self.bytes()[HEADER_SIZE..self.meta_end]
    }

    /// Payload bytes; aligned to `payload_alignment()` unless memory-mapped.
    pub fn payload(&self) -> &[u8] {
        &self.bytes()[self.meta_end..self.len - FOOTER_SIZE]
    }

    /// Size of the file in bytes.
    pub fn file_size(&self) -> u64 {
        self.len as u64
    }

    /// True when the bytes are a memory map rather than an owned buffer.
    pub fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped(_))
    }

    /// Give up the bytes of the file as a vector (copies when mapped or padded).
    pub fn into_vec(self) -> Vec<u8> {
        match self.storage {
            Storage::Owned { buf, start: 0 } if buf.len() == self.len => buf,
            _ => self.bytes().to_vec(),
        }
    }
}
