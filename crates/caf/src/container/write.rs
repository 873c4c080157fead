//! The writer (CAF.md section 3): one builder, byte-identical to the original, atomic on paths.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use zerocopy::IntoBytes;

use crate::container::crc::{crc32, crc32_combine, crc32_continue};
use crate::container::header::{
    AssetType, CafFlags, CafHeader, RawFooter, FOOTER_SIZE, HEADER_SIZE,
};
use crate::error::CafError;

/// Payload of an [`AssetWriter`] held in memory (set with [`AssetWriter::payload`]; empty by
/// default).
#[derive(Clone, Copy, Default)]
pub struct SlicePayload<'a>(&'a [u8]);

// Payloads can be large: debug output gives their length, not their bytes.
impl std::fmt::Debug for SlicePayload<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlicePayload")
            .field("len", &self.0.len())
            .finish()
    }
}

/// Payload of an [`AssetWriter`] read from a [`Read`] of promised length (set with
/// [`AssetWriter::payload_reader`]).
pub struct ReaderPayload<R> {
    reader: R,
    len: u64,
}

impl<R> std::fmt::Debug for ReaderPayload<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReaderPayload")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// Builds one `.caf` file: asset type, flags, metadata and payload, then writes it to memory, a
/// writer, or a path (atomically).
///
/// ```
/// use caf::texture::TextureMetadata;
/// use caf::{AssetType, AssetWriter, CafFlags};
///
/// let meta = TextureMetadata::rgba8(2, 2, 1);
/// let writer = AssetWriter::new(AssetType::TEXTURE)
///     .flags(CafFlags::SRGB)
///     .metadata(&meta.to_bytes())
///     .payload(&[255; 16]);
/// let bytes = writer.to_vec();
/// assert_eq!(bytes.len(), 32 + 24 + 16 + 4);
///
/// // The same file with the payload streamed from a reader of known length.
/// let mut out = std::io::Cursor::new(Vec::new());
/// AssetWriter::new(AssetType::TEXTURE)
///     .flags(CafFlags::SRGB)
///     .metadata(&meta.to_bytes())
///     .payload_reader(&[255u8; 16][..], 16)
///     .write_streaming(&mut out)?;
/// assert_eq!(out.into_inner(), bytes);
/// # Ok::<(), caf::CafError>(())
/// ```
///
/// With an in-memory payload ([`SlicePayload`], the default) the writer offers
/// [`to_vec`](AssetWriter::to_vec), [`write_to`](AssetWriter::write_to) and
/// [`write_file`](AssetWriter::write_file); with a reader ([`ReaderPayload`]) it offers
/// [`write_streaming`](AssetWriter::write_streaming) and
/// [`write_file`](AssetWriter::write_file), whose memory use does not depend on the payload
/// length.
#[derive(Clone, Debug)]
#[must_use = "an AssetWriter does nothing until one of its write methods is called"]
pub struct AssetWriter<'a, P = SlicePayload<'a>> {
    asset_type: AssetType,
    flags: CafFlags,
    // Owned so that metadata encoded on the fly (`&meta.to_bytes()`) need not outlive the
    // statement; it is a few dozen bytes, unlike the payload, which stays borrowed.
    metadata: Vec<u8>,
    payload: P,
    _borrow: std::marker::PhantomData<&'a [u8]>,
}

impl<'a> AssetWriter<'a> {
    /// A writer for an asset of type `asset_type` with no flags, no metadata and an empty
    /// payload.
    pub fn new(asset_type: AssetType) -> AssetWriter<'a> {
        AssetWriter {
            asset_type,
            flags: CafFlags::NONE,
            metadata: Vec::new(),
            payload: SlicePayload(&[]),
            _borrow: std::marker::PhantomData,
        }
    }

    /// The payload bytes (borrowed, never copied before writing).
    pub fn payload(mut self, bytes: &'a [u8]) -> Self {
        self.payload = SlicePayload(bytes);
        self
    }

    /// Stream the payload from `reader` instead, which must yield at least `len` bytes (only
    /// `len` are read). See [`write_streaming`](AssetWriter::write_streaming).
    pub fn payload_reader<R: Read>(self, reader: R, len: u64) -> AssetWriter<'a, ReaderPayload<R>> {
        AssetWriter {
            asset_type: self.asset_type,
            flags: self.flags,
            metadata: self.metadata,
            payload: ReaderPayload { reader, len },
            _borrow: std::marker::PhantomData,
        }
    }

    /// The complete file as bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        let p = self.payload.0;
        let (header, footer) = self.frame(crc32(p), p.len() as u64);
        let mut v = Vec::with_capacity(HEADER_SIZE + self.metadata.len() + p.len() + FOOTER_SIZE);
        v.extend_from_slice(&header);
        v.extend_from_slice(&self.metadata);
        v.extend_from_slice(p);
        v.extend_from_slice(footer.as_bytes());
        v
    }

    /// Write the complete file to `w` (header, metadata, payload, footer), then flush.
    pub fn write_to<W: Write>(&self, mut w: W) -> Result<(), CafError> {
        let p = self.payload.0;
        let (header, footer) = self.frame(crc32(p), p.len() as u64);
        let io = |e| CafError::io(None, e);
        w.write_all(&header).map_err(io)?;
        w.write_all(&self.metadata).map_err(io)?;
        w.write_all(p).map_err(io)?;
        w.write_all(footer.as_bytes()).map_err(io)?;
        w.flush().map_err(io)
    }

    /// Write the file atomically: a temporary file in the same directory, flushed, fsynced,
    /// then renamed over `path` (through `voxcaf_fs`, the workspace's one atomic writer). A
    /// crash leaves either the old file or the new one, never half of one. I/O errors name
    /// `path`.
    pub fn write_file(&self, path: impl AsRef<Path>) -> Result<(), CafError> {
        let path = path.as_ref();
        atomic_write(path, |w| self.write_to(w))
    }
}

impl<'a, R: Read> AssetWriter<'a, ReaderPayload<R>> {
    /// Write the file to `w`, streaming the payload through a fixed-size buffer: memory use is
    /// independent of the payload length. The header goes out first with a zero CRC and is
    /// patched once the payload has streamed through; the footer is derived with
    /// [`crc32_combine`](crate::crc32_combine) without reading the payload back. `w` is left
    /// positioned after the footer.
    ///
    /// A reader that ends before the promised length gives [`CafError::StreamTooShort`].
    pub fn write_streaming<W: Write + Seek>(mut self, mut w: W) -> Result<(), CafError> {
        let io = |e| CafError::io(None, e);
        let len = self.payload.len;
        let start = w.stream_position().map_err(io)?;
        w.write_all(&self.header_for(0, len).to_bytes())
            .map_err(io)?;
        w.write_all(&self.metadata).map_err(io)?;

        let mut hasher = crc32fast::Hasher::new();
        let mut reader = self.payload.reader.by_ref().take(len);
        let mut buf = vec![0u8; 1 << 20];
        let mut copied = 0u64;
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io(e)),
            };
            hasher.update(&buf[..n]);
            w.write_all(&buf[..n]).map_err(io)?;
            copied += n as u64;
        }
        if copied != len {
            return Err(CafError::StreamTooShort {
                expected: len,
                actual: copied,
            });
        }
        let (header, footer) = self.frame(hasher.finalize(), len);
        w.write_all(footer.as_bytes()).map_err(io)?;
        let end = w.stream_position().map_err(io)?;
        w.seek(SeekFrom::Start(start)).map_err(io)?;
        w.write_all(&header).map_err(io)?;
        w.seek(SeekFrom::Start(end)).map_err(io)?;
        w.flush().map_err(io)
    }

    /// [`write_streaming`](AssetWriter::write_streaming) to a path, atomically like the
    /// in-memory [`write_file`](AssetWriter::write_file): a failing or short reader leaves the
    /// old file (or no file) and no temporary file.
    pub fn write_file(self, path: impl AsRef<Path>) -> Result<(), CafError> {
        let path = path.as_ref();
        atomic_write(path, |w| self.write_streaming(w))
    }
}

impl<P> AssetWriter<'_, P> {
    /// The header flags (default [`CafFlags::NONE`]).
    pub fn flags(mut self, flags: CafFlags) -> Self {
        self.flags = flags;
        self
    }

    /// The metadata bytes, e.g. `&TextureMetadata { .. }.to_bytes()` (copied; default empty).
    pub fn metadata(mut self, bytes: &[u8]) -> Self {
        self.metadata = bytes.to_vec();
        self
    }

    /// Pads the metadata (set it first) with zero bytes so that the payload starts at a
    /// multiple of the type's `payload_alignment()` in the file (16 bytes, 32 for meshes and
    /// shaders): then a memory map or a page-aligned read hands out an aligned payload
    /// without copying. Only for types whose metadata is one fixed struct (texture, audio,
    /// mesh, shader), whose typed readers accept such padding (`from_metadata`,
    /// `docs/format/caf-extensions.md` section 8); other types are left unpadded. The
    /// original loader ignores the metadata size, so it reads padded files too.
    pub fn align_payload(mut self) -> Self {
        let size = match self.asset_type {
            AssetType::TEXTURE => crate::texture::TextureMetadata::SIZE,
            AssetType::AUDIO => crate::audio::AudioMetadata::SIZE,
            AssetType::MESH => crate::mesh::MeshMetadata::SIZE,
            AssetType::SHADER => crate::shader::ShaderMetadata::SIZE,
            _ => return self,
        };
        // The plain struct, or (meshes) the struct with its extension and sub-mesh table; any
        // other length is left for the size check to judge.
        let extended_mesh = self.asset_type == AssetType::MESH && self.metadata.len() > size;
        if self.metadata.len() != size && !extended_mesh {
            return self;
        }
        let a = self.asset_type.payload_alignment();
        let len = self.metadata.len();
        let pad = (a - (HEADER_SIZE + len) % a) % a;
        self.metadata.resize(len + pad, 0);
        self
    }

    fn header_for(&self, payload_crc: u32, payload_len: u64) -> CafHeader {
        CafHeader::new(
            self.asset_type,
            self.flags,
            payload_crc,
            self.metadata.len() as u64,
            payload_len,
        )
    }

    /// The encoded header and the footer for a payload with this CRC and length. The footer
    /// CRC is combined from the header, the metadata and the payload's CRC, so payload bytes are
    /// hashed once.
    fn frame(&self, payload_crc: u32, payload_len: u64) -> ([u8; HEADER_SIZE], RawFooter) {
        let header = self.header_for(payload_crc, payload_len).to_bytes();
        let head = crc32_continue(crc32(&header), &self.metadata);
        let footer = RawFooter::new(crc32_combine(head, payload_crc, payload_len));
        (header, footer)
    }
}

/// Run `fill` on an atomic save of `path`; I/O errors without a path get this one.
fn atomic_write(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<&mut voxcaf_fs::AtomicFile>) -> Result<(), CafError>,
) -> Result<(), CafError> {
    voxcaf_fs::write_atomic_with(path, fill).map_err(|e| with_path(e, path))
}

fn with_path(e: CafError, path: &Path) -> CafError {
    match e {
        CafError::Io { path: None, source } => CafError::io(Some(path), source),
        other => other,
    }
}
