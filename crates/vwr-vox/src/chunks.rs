//! The `.vox` chunk structure checked before `dot_vox` reads the file.
//!
//! A `.vox` file is `VOX ` and a version, then one `MAIN` chunk whose children are the content
//! chunks; every chunk is a 4-byte id, its content size and its children's size (`u32`, little
//! endian). `dot_vox` stops at the first chunk it cannot parse and returns what it had, so a
//! damaged voxel count turned a model into nothing with no word. This walk refuses any chunk
//! whose sizes do not fit its parent, and `SIZE` / `XYZI` chunks whose content does not match
//! their own counts, naming the chunk and its byte offset.

use crate::error::{Result, VoxError};

/// Bytes of a chunk header: id, content size, children size.
const HEADER: usize = 12;

/// What the walk found besides the checks: the content of every `XYZI` chunk in file order and
/// voxcaf's own `VCAF` chunk (its offset and content), if any.
#[derive(Default)]
pub(crate) struct Layout<'a> {
    pub(crate) xyzi: Vec<&'a [u8]>,
    pub(crate) vcaf: Option<(u64, &'a [u8])>,
}

/// Checks the chunk tree of `bytes` (a file that starts with `VOX `).
pub(crate) fn check(bytes: &[u8]) -> Result<Layout<'_>> {
    let mut layout = Layout::default();
    if bytes.len() < 8 || &bytes[..4] != b"VOX " {
        // dot_vox says what is wrong with the magic and the version.
        return Ok(layout);
    }
    let (id, content, children) = header(bytes, 8)?;
    if &id != b"MAIN" {
        return Err(bad(
            8,
            id,
            format!("the first chunk is {}, not MAIN", name(id)),
        ));
    }
    let start = 8 + HEADER + content;
    let end = start + children;
    if end != bytes.len() {
        return Err(bad(
            8,
            id,
            format!(
                "its children end at byte {end}, the file at byte {}",
                bytes.len()
            ),
        ));
    }
    let mut at = start;
    // Each model is a SIZE chunk directly followed by its XYZI chunk.
    let mut open_size: Option<usize> = None;
    while at < end {
        let (id, content, children) = header(bytes, at)?;
        let next = at + HEADER + content + children;
        if next > end {
            return Err(bad(
                at,
                id,
                format!("it ends at byte {next}, past the end of MAIN at byte {end}"),
            ));
        }
        let body = &bytes[at + HEADER..at + HEADER + content];
        check_content(at, id, body)?;
        match &id {
            b"XYZI" => layout.xyzi.push(body),
            b"VCAF" if layout.vcaf.is_some() => {
                return Err(bad(at, id, "a second VCAF chunk".into()));
            }
            b"VCAF" => layout.vcaf = Some((at as u64, body)),
            _ => {}
        }
        match (open_size, &id) {
            (Some(_), b"XYZI") => open_size = None,
            (None, b"SIZE") => open_size = Some(at),
            (None, b"XYZI") => {
                return Err(bad(
                    at,
                    id,
                    "voxels without a SIZE chunk before them".into(),
                ));
            }
            (Some(size_at), _) => {
                let hint = if &id == b"TDCZ" {
                    " (Teardown's compressed voxels, which this reader does not support)"
                } else {
                    ""
                };
                return Err(bad(
                    at,
                    id,
                    format!(
                        "the model's SIZE chunk at byte {size_at} is followed by {}, not by its \
                         XYZI chunk{hint}",
                        name(id)
                    ),
                ));
            }
            (None, _) => {}
        }
        at = next;
    }
    if let Some(size_at) = open_size {
        return Err(VoxError::Chunk {
            id: "SIZE".into(),
            offset: size_at as u64,
            reason: "the last model has no XYZI chunk".into(),
        });
    }
    Ok(layout)
}

/// The FNV-1a 32-bit hash (of an `XYZI` chunk's content, in the `VCAF` chunk).
pub(crate) fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The chunk header at `at`: id and the two sizes, which must lie within the file.
fn header(bytes: &[u8], at: usize) -> Result<([u8; 4], usize, usize)> {
    let field = |i: usize| -> Option<u32> {
        let b = bytes.get(at + i..at + i + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (Some(content), Some(children)) = (field(4), field(8)) else {
        return Err(VoxError::Chunk {
            id: "????".into(),
            offset: at as u64,
            reason: format!(
                "a chunk header needs 12 bytes, the file ends at byte {}",
                bytes.len()
            ),
        });
    };
    let mut id = [0u8; 4];
    id.copy_from_slice(&bytes[at..at + 4]);
    let left = bytes.len() - at - HEADER;
    let (content, children) = (content as usize, children as usize);
    if content > left || children > left - content {
        return Err(bad(
            at,
            id,
            format!(
                "its sizes ({content} bytes of content, {children} of children) run past the end \
                 of the file ({left} bytes left)"
            ),
        ));
    }
    Ok((id, content, children))
}

/// The content checks of the chunks whose size follows from their own fields.
fn check_content(at: usize, id: [u8; 4], content: &[u8]) -> Result<()> {
    match &id {
        b"SIZE" if content.len() < 12 => Err(bad(
            at,
            id,
            format!(
                "a model size needs 12 bytes, the chunk holds {}",
                content.len()
            ),
        )),
        b"XYZI" => {
            let Some(count) = content.get(..4) else {
                return Err(bad(at, id, "the voxel count is missing".to_string()));
            };
            let count = u32::from_le_bytes([count[0], count[1], count[2], count[3]]) as u64;
            let needed = 4 + 4 * count;
            if needed != content.len() as u64 {
                Err(bad(
                    at,
                    id,
                    format!(
                        "{count} voxels need {needed} bytes, the chunk holds {}",
                        content.len()
                    ),
                ))
            } else {
                Ok(())
            }
        }
        _ => Ok(()),
    }
}

fn name(id: [u8; 4]) -> String {
    String::from_utf8_lossy(&id).escape_debug().to_string()
}

fn bad(at: usize, id: [u8; 4], reason: String) -> VoxError {
    VoxError::Chunk {
        id: name(id),
        offset: at as u64,
        reason,
    }
}
