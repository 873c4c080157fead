//! voxcaf's own `.vox` chunk, `VCAF` (`docs/format/vox-voxcaf-chunk.md`): the exact block value
//! of every voxel when a world holds more values than a palette has colours (`BLKS`), and the
//! world's metadata records (`RECS`); and the MagicaVoxel palette an import keeps in a world as
//! a metadata record ([`VOX_PALETTE_RECORD`]).

use vwr::{Block, World};

use crate::error::{Result, VoxError};

/// The chunk id.
pub(crate) const CHUNK_ID: &[u8; 4] = b"VCAF";
/// The version this reader and writer know.
const VERSION: u32 = 1;
const TAG_BLOCKS: &[u8; 4] = b"BLKS";
const TAG_RECORDS: &[u8; 4] = b"RECS";

/// The metadata record type (`0x5650`, "VP") under which an import keeps the `.vox` palette in
/// the world (on cell `(0, 0, 0)`), so that an export writes the same palette back.
pub const VOX_PALETTE_RECORD: u16 = vwr::META_VOX_PALETTE;
const PALETTE_RECORD_VERSION: u8 = 1;

/// The exact values of one model's voxels, in `XYZI` order, with the hash of that chunk.
pub(crate) struct ModelValues {
    pub(crate) hash: u32,
    pub(crate) values: Vec<u16>,
}

/// A metadata record carried in the chunk.
pub(crate) struct KeptRecord {
    pub(crate) pos: [i32; 3],
    pub(crate) record_type: u16,
    pub(crate) payload: Vec<u8>,
}

/// The content of a `VCAF` chunk.
#[derive(Default)]
pub(crate) struct Vcaf {
    pub(crate) blocks: Option<Vec<ModelValues>>,
    pub(crate) records: Vec<KeptRecord>,
}

/// Reads fields from a chunk's content; running past the end is an error naming the chunk.
struct Reader<'a> {
    bytes: &'a [u8],
    offset: u64,
}

impl<'a> Reader<'a> {
    fn error(&self, reason: String) -> VoxError {
        VoxError::Chunk {
            id: "VCAF".into(),
            offset: self.offset,
            reason,
        }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.bytes.len() {
            return Err(self.error(format!(
                "{what} needs {n} bytes, {} are left",
                self.bytes.len()
            )));
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u16(&mut self, what: &str) -> Result<u16> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn sub(&mut self, n: usize, what: &str) -> Result<Reader<'a>> {
        Ok(Reader {
            bytes: self.take(n, what)?,
            offset: self.offset,
        })
    }
}

impl Vcaf {
    /// Reads the content of the chunk at byte `offset`.
    pub(crate) fn parse(offset: u64, content: &[u8]) -> Result<Vcaf> {
        let mut r = Reader {
            bytes: content,
            offset,
        };
        let version = r.u32("the version")?;
        if version != VERSION {
            return Err(r.error(format!("version {version}, this reader knows {VERSION}")));
        }
        let mut out = Vcaf::default();
        let mut seen_records = false;
        while !r.bytes.is_empty() {
            let tag = r.take(4, "a section tag")?;
            let len = r.u32("a section length")? as usize;
            let mut body = r.sub(len, "a section")?;
            let again = |r: &Reader<'_>| r.error(format!("a second {} section", tag_name(tag)));
            if tag == TAG_BLOCKS {
                if out.blocks.is_some() {
                    return Err(again(&r));
                }
                out.blocks = Some(parse_blocks(&mut body)?);
            } else if tag == TAG_RECORDS {
                if seen_records {
                    return Err(again(&r));
                }
                seen_records = true;
                out.records = parse_records(&mut body)?;
            }
            if !body.bytes.is_empty() {
                return Err(body.error(format!(
                    "{} trailing bytes in the {} section",
                    body.bytes.len(),
                    tag_name(tag)
                )));
            }
        }
        Ok(out)
    }

    /// The chunk's content.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = VERSION.to_le_bytes().to_vec();
        if let Some(models) = &self.blocks {
            let mut s = (models.len() as u32).to_le_bytes().to_vec();
            for m in models {
                s.extend_from_slice(&(m.values.len() as u32).to_le_bytes());
                s.extend_from_slice(&m.hash.to_le_bytes());
                for v in &m.values {
                    s.extend_from_slice(&v.to_le_bytes());
                }
            }
            section(&mut out, TAG_BLOCKS, &s);
        }
        if !self.records.is_empty() {
            let mut s = (self.records.len() as u32).to_le_bytes().to_vec();
            for rec in &self.records {
                for c in rec.pos {
                    s.extend_from_slice(&c.to_le_bytes());
                }
                s.extend_from_slice(&rec.record_type.to_le_bytes());
                // Payloads are at most u16::MAX bytes in a world.
                s.extend_from_slice(&(rec.payload.len() as u16).to_le_bytes());
                s.extend_from_slice(&rec.payload);
            }
            section(&mut out, TAG_RECORDS, &s);
        }
        out
    }

    /// Appends the chunk to a `.vox` file as the last child of `MAIN`.
    pub(crate) fn append_to(&self, file: &mut Vec<u8>) -> Result<()> {
        let content = self.to_bytes();
        let main = file
            .get(16..20)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .unwrap_or(0);
        let total = u64::from(main) + 12 + content.len() as u64;
        let (Ok(children), Ok(content_len)) = (u32::try_from(total), u32::try_from(content.len()))
        else {
            return Err(VoxError::ExportTooLarge { bytes: total });
        };
        file[16..20].copy_from_slice(&children.to_le_bytes());
        file.extend_from_slice(CHUNK_ID);
        file.extend_from_slice(&content_len.to_le_bytes());
        file.extend_from_slice(&0u32.to_le_bytes());
        file.extend_from_slice(&content);
        Ok(())
    }
}

fn tag_name(tag: &[u8]) -> String {
    String::from_utf8_lossy(tag).escape_debug().to_string()
}

fn section(out: &mut Vec<u8>, tag: &[u8; 4], body: &[u8]) {
    out.extend_from_slice(tag);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
}

fn parse_blocks(r: &mut Reader<'_>) -> Result<Vec<ModelValues>> {
    let models = r.u32("the model count")?;
    let mut out = Vec::new();
    for m in 0..models {
        let n = r.u32("a voxel count")? as usize;
        let hash = r.u32("a model hash")?;
        let bytes = r.take(n.saturating_mul(2), "a model's block values")?;
        let values: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        if values.contains(&0) {
            return Err(r.error(format!("model {m}: a voxel's block value is 0 (air)")));
        }
        out.push(ModelValues { hash, values });
    }
    Ok(out)
}

fn parse_records(r: &mut Reader<'_>) -> Result<Vec<KeptRecord>> {
    let count = r.u32("the record count")?;
    let mut out = Vec::new();
    for _ in 0..count {
        let mut pos = [0i32; 3];
        for c in &mut pos {
            *c = r.u32("a record position")? as i32;
        }
        let record_type = r.u16("a record type")?;
        let len = r.u16("a record size")?;
        let payload = r.take(usize::from(len), "a record payload")?.to_vec();
        out.push(KeptRecord {
            pos,
            record_type,
            payload,
        });
    }
    Ok(out)
}

/// A `.vox` palette kept in a world: the 256 RGBA entries and the block each used colour index
/// was imported as.
pub(crate) struct KeptPalette {
    pub(crate) rgba: Vec<[u8; 4]>,
    pub(crate) mapping: Vec<(u8, Block)>,
}

impl KeptPalette {
    /// The record's payload.
    pub(crate) fn to_payload(&self) -> Vec<u8> {
        let mut out = vec![PALETTE_RECORD_VERSION];
        for k in 0..256 {
            out.extend_from_slice(&self.rgba.get(k).copied().unwrap_or([0, 0, 0, 255]));
        }
        out.extend_from_slice(&(self.mapping.len() as u16).to_le_bytes());
        for (i, b) in &self.mapping {
            out.push(*i);
            out.extend_from_slice(&b.raw().to_le_bytes());
        }
        out
    }

    /// The palette kept in `world`, if any; a record that is not of this layout is an error.
    pub(crate) fn read(world: &World) -> Result<Option<KeptPalette>> {
        let Some(payload) = world.extra_metadata([0, 0, 0], VOX_PALETTE_RECORD) else {
            return Ok(None);
        };
        let bad = |why: &str| VoxError::BadRecord {
            what: "vox palette record (metadata type 0x5650)",
            value: why.to_string(),
        };
        let (version, rest) = payload.split_first().ok_or_else(|| bad("empty"))?;
        if *version != PALETTE_RECORD_VERSION || rest.len() < 1026 {
            return Err(bad("unknown version or too short"));
        }
        let rgba = rest[..1024]
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        let count = usize::from(u16::from_le_bytes([rest[1024], rest[1025]]));
        let entries = &rest[1026..];
        if entries.len() != 3 * count {
            return Err(bad("its entry count does not match its size"));
        }
        let mut mapping = Vec::with_capacity(count);
        for e in entries.chunks_exact(3) {
            let block = Block::from_raw(u16::from_le_bytes([e[1], e[2]]));
            if e[0] == 0 || block.is_air() {
                return Err(bad("an entry maps colour index 0 or air"));
            }
            mapping.push((e[0], block));
        }
        Ok(Some(KeptPalette { rgba, mapping }))
    }
}
