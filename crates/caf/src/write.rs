//! The writer (CAF.md section 3): byte-identical to the original, atomic on paths.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::crc::{crc32, crc32_combine, crc32_continue};
use crate::error::CafError;
use crate::header::{AssetType, CafFlags, CafHeader, FOOTER_SIZE, HEADER_SIZE};

fn header_for(
    ty: AssetType,
    flags: CafFlags,
    payload_crc: u32,
    meta_len: usize,
    data_len: u64,
) -> CafHeader {
    CafHeader::new(ty, flags, payload_crc, meta_len as u64, data_len)
}

/// Footer CRC from the finished header, the metadata and the payload's CRC (payload bytes are
/// not hashed again).
fn footer_crc(
    header: &[u8; HEADER_SIZE],
    metadata: &[u8],
    payload_crc: u32,
    payload_len: u64,
) -> u32 {
    let head = crc32_continue(crc32(header), metadata);
    crc32_combine(head, payload_crc, payload_len)
}

/// Write a complete `.caf` file to `w`: header, metadata, payload, footer.
pub fn write_to<W: Write>(
    mut w: W,
    ty: AssetType,
    flags: CafFlags,
    metadata: &[u8],
    payload: &[u8],
) -> Result<(), CafError> {
    let pcrc = crc32(payload);
    let header = header_for(ty, flags, pcrc, metadata.len(), payload.len() as u64).to_bytes();
    let footer = footer_crc(&header, metadata, pcrc, payload.len() as u64);
    let io = |e| CafError::io(None, e);
    w.write_all(&header).map_err(io)?;
    w.write_all(metadata).map_err(io)?;
    w.write_all(payload).map_err(io)?;
    w.write_all(&footer.to_le_bytes()).map_err(io)?;
    w.flush().map_err(io)
}

/// The complete file as bytes.
pub fn to_vec(ty: AssetType, flags: CafFlags, metadata: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER_SIZE + metadata.len() + payload.len() + FOOTER_SIZE);
    // Writing into a Vec cannot fail.
    let _ = write_to(&mut v, ty, flags, metadata, payload);
    v
}

/// Write a file whose payload comes from `reader`, which must yield at least `len` bytes (only
/// `len` are read). Memory use is independent of `len`: the header is written first with a
/// zero CRC, patched after the payload has streamed through, and the footer is derived with
/// [`crc32_combine`] without reading the payload back.
pub fn write_streaming<W: Write + Seek, R: Read>(
    mut w: W,
    ty: AssetType,
    flags: CafFlags,
    metadata: &[u8],
    reader: R,
    len: u64,
) -> Result<(), CafError> {
    let io = |e| CafError::io(None, e);
    let start = w.stream_position().map_err(io)?;
    let placeholder = header_for(ty, flags, 0, metadata.len(), len).to_bytes();
    w.write_all(&placeholder).map_err(io)?;
    w.write_all(metadata).map_err(io)?;

    let mut hasher = crc32fast::Hasher::new();
    let mut reader = reader.take(len);
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
    let pcrc = hasher.finalize();
    let header = header_for(ty, flags, pcrc, metadata.len(), len).to_bytes();
    let footer = footer_crc(&header, metadata, pcrc, len);
    w.write_all(&footer.to_le_bytes()).map_err(io)?;
    let end = w.stream_position().map_err(io)?;
    w.seek(SeekFrom::Start(start)).map_err(io)?;
    w.write_all(&header).map_err(io)?;
    w.seek(SeekFrom::Start(end)).map_err(io)?;
    w.flush().map_err(io)
}

/// Run `fill` on an atomic save of `path` (the workspace's one writer, `voxcaf_fs`).
fn atomic_write(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<&mut voxcaf_fs::AtomicFile>) -> Result<(), CafError>,
) -> Result<(), CafError> {
    voxcaf_fs::write_atomic_with(path, fill).map_err(|e| with_path(e, path))
}

/// Write a file atomically: a temporary file in the same directory, flushed, fsynced, then
/// renamed over `path`. A crash leaves either the old file or the new one, never half of one.
pub fn write_file(
    path: &Path,
    ty: AssetType,
    flags: CafFlags,
    metadata: &[u8],
    payload: &[u8],
) -> Result<(), CafError> {
    atomic_write(path, |w| {
        write_to(w, ty, flags, metadata, payload).map_err(|e| with_path(e, path))
    })
}

/// [`write_streaming`] to a path, atomically like [`write_file`].
pub fn write_file_streaming<R: Read>(
    path: &Path,
    ty: AssetType,
    flags: CafFlags,
    metadata: &[u8],
    reader: R,
    len: u64,
) -> Result<(), CafError> {
    atomic_write(path, |w| {
        write_streaming(w, ty, flags, metadata, reader, len).map_err(|e| with_path(e, path))
    })
}

fn with_path(e: CafError, path: &Path) -> CafError {
    match e {
        CafError::Io { path: None, source } => CafError::io(Some(path), source),
        other => other,
    }
}
