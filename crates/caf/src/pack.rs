//! Pack archives (`.cafpack`, `docs/format/caf-extensions.md` section 7): many complete `.caf`
//! assets in one file with a sorted index by path.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use zerocopy::FromBytes;

use crate::container::crc::crc32;
use crate::container::header::{AssetType, HEADER_SIZE, MAX_PAYLOAD_ALIGNMENT};
use crate::container::layout::layout;
use crate::container::load::{Asset, LoadedAsset};
use crate::error::CafError;

/// Magic of a pack (`"CAFPACK\0"`).
pub const PACK_MAGIC: [u8; 8] = *b"CAFPACK\0";
/// The pack version this crate reads and writes.
pub const PACK_VERSION: u16 = 1;

layout! {
    /// The 48-byte header of a pack.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub struct PackHeader (RawPackHeader, 48 bytes) {
        /// Offset 0: [`PACK_MAGIC`].
        pub magic: [u8; 8],
        /// Offset 8: [`PACK_VERSION`].
        pub version: u16,
        /// Offset 10: 0.
        pub reserved0: u16,
        /// Offset 12: number of entries.
        pub entry_count: u32,
        /// Offset 16: file offset of the index.
        pub index_offset: u64,
        /// Offset 24: bytes of entries and paths.
        pub index_size: u64,
        /// Offset 32: CRC-32 of the index bytes.
        pub index_crc32: u32,
        /// Offset 36: 0.
        pub reserved1: u32,
        /// Offset 40: length of the pack.
        pub file_size: u64,
    }
}

layout! {
    /// One asset of a pack (32 bytes).
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub struct PackEntry (RawPackEntry, 32 bytes) {
        /// FNV-1a 64 of the path bytes.
        pub hash: u64,
        /// File offset of the asset.
        pub offset: u64,
        /// Bytes of the asset.
        pub size: u64,
        /// Offset of the path in the path bytes.
        pub path_offset: u32,
        /// Length of the path.
        pub path_len: u16,
        /// The asset's header type.
        pub asset_type: u16,
    }
}

const PACK_HEADER_SIZE: usize = PackHeader::SIZE;

/// FNV-1a 64 of `bytes` (the pack index hash).
pub fn path_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

fn bad(offset: u64, what: &'static str) -> CafError {
    CafError::BadPack { offset, what }
}

fn valid_path(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
        && !p.contains('\\')
        && p.len() <= usize::from(u16::MAX)
}

/// Writes a pack of `(path, asset bytes)` items to `w`: each asset is verified
/// ([`Asset::parse`]) and placed so that its payload is 32-byte aligned in the file.
pub fn write_pack<W: Write + Seek>(
    mut w: W,
    items: impl IntoIterator<Item = (String, Vec<u8>)>,
) -> Result<(), CafError> {
    let io = |e| CafError::io(None, e);
    let start = w.stream_position().map_err(io)?;
    w.write_all(&[0u8; PACK_HEADER_SIZE]).map_err(io)?;
    let mut pos = PACK_HEADER_SIZE as u64;
    let mut entries: Vec<(PackEntry, String)> = Vec::new();
    for (path, bytes) in items {
        if !valid_path(&path) {
            return Err(CafError::BadPackPath { path });
        }
        let a = Asset::parse(&bytes)?;
        let a_len = MAX_PAYLOAD_ALIGNMENT as u64;
        let payload_at = (HEADER_SIZE + a.metadata.len()) as u64;
        let pad = (a_len - (pos + payload_at) % a_len) % a_len;
        w.write_all(&vec![0u8; pad as usize]).map_err(io)?;
        pos += pad;
        w.write_all(&bytes).map_err(io)?;
        entries.push((
            PackEntry {
                hash: path_hash(path.as_bytes()),
                offset: pos,
                size: bytes.len() as u64,
                path_offset: 0,
                path_len: path.len() as u16,
                asset_type: a.header.asset_type.0,
            },
            path,
        ));
        pos += bytes.len() as u64;
    }
    entries.sort_by(|(a, pa), (b, pb)| (a.hash, pa.as_bytes()).cmp(&(b.hash, pb.as_bytes())));
    if entries.windows(2).any(|w| w[0].1 == w[1].1) {
        let dup = entries
            .windows(2)
            .find(|w| w[0].1 == w[1].1)
            .map(|w| w[0].1.clone())
            .unwrap_or_default();
        return Err(CafError::BadPackPath { path: dup });
    }
    let mut index = Vec::with_capacity(entries.len() * PackEntry::SIZE);
    let mut paths = Vec::new();
    for (e, p) in &mut entries {
        e.path_offset = u32::try_from(paths.len()).map_err(|_| CafError::TooLarge {
            what: "pack path table",
            size: paths.len() as u64,
        })?;
        paths.extend_from_slice(p.as_bytes());
        index.extend_from_slice(zerocopy::IntoBytes::as_bytes(&RawPackEntry::from(&*e)));
    }
    index.extend_from_slice(&paths);
    w.write_all(&index).map_err(io)?;
    let header = PackHeader {
        magic: PACK_MAGIC,
        version: PACK_VERSION,
        reserved0: 0,
        entry_count: u32::try_from(entries.len()).map_err(|_| CafError::TooLarge {
            what: "pack entry count",
            size: entries.len() as u64,
        })?,
        index_offset: pos,
        index_size: index.len() as u64,
        index_crc32: crc32(&index),
        reserved1: 0,
        file_size: pos + index.len() as u64,
    };
    let end = w.stream_position().map_err(io)?;
    w.seek(SeekFrom::Start(start)).map_err(io)?;
    w.write_all(zerocopy::IntoBytes::as_bytes(&RawPackHeader::from(&header)))
        .map_err(io)?;
    w.seek(SeekFrom::Start(end)).map_err(io)?;
    w.flush().map_err(io)
}

/// Writes a pack to `path` atomically (see [`write_pack`]).
pub fn write_pack_file(
    path: &Path,
    items: impl IntoIterator<Item = (String, Vec<u8>)>,
) -> Result<(), CafError> {
    voxcaf_fs::write_atomic_with(path, |w| write_pack(w, items)).map_err(|e| match e {
        CafError::Io { path: None, source } => CafError::io(Some(path), source),
        other => other,
    })
}

/// An open pack: its checked index, a hash table over it, and the file the assets are read
/// from on lookup.
#[derive(Debug)]
pub struct Pack {
    file: File,
    entries: Vec<PackEntry>,
    paths: Vec<u8>,
    table: HashTable,
}

/// Open addressing over the entries' stored path hashes, built at open (not stored in the
/// file): a power-of-two slot count at least twice the entry count, each slot the index + 1
/// of the first entry of one hash (0 = empty). Entries of equal hash are adjacent (the index
/// is sorted by hash), so a lookup is one probe sequence, then a scan of those entries.
#[derive(Debug, Default)]
struct HashTable {
    slots: Vec<u32>,
    shift: u32,
}

impl HashTable {
    fn build(entries: &[PackEntry]) -> HashTable {
        if entries.is_empty() {
            return HashTable::default();
        }
        let n = (entries.len() * 2).next_power_of_two().max(2);
        let mut t = HashTable {
            slots: vec![0; n],
            shift: 64 - n.trailing_zeros(),
        };
        let mask = n - 1;
        for (i, e) in entries.iter().enumerate() {
            if i > 0 && entries[i - 1].hash == e.hash {
                continue; // found through its first equal-hash neighbour
            }
            let mut s = t.home(e.hash);
            while t.slots[s] != 0 {
                s = (s + 1) & mask;
            }
            // i < entry_count <= u32::MAX, and slots has at least 2 x entries.
            t.slots[s] = i as u32 + 1;
        }
        t
    }

    fn home(&self, hash: u64) -> usize {
        // Fibonacci hashing of the (already mixed) FNV-1a value: the top bits index the table.
        (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Index of the first entry with `hash`, if any.
    fn first(&self, entries: &[PackEntry], hash: u64) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut s = self.home(hash);
        loop {
            let i = self.slots[s] as usize;
            if i == 0 {
                return None;
            }
            if entries[i - 1].hash == hash {
                return Some(i - 1);
            }
            s = (s + 1) & mask;
        }
    }
}

impl Pack {
    /// Opens a pack: reads and checks the header and the index (not the assets).
    pub fn open(path: &Path) -> Result<Pack, CafError> {
        let err = |e| CafError::io(Some(path), e);
        let mut file = File::open(path).map_err(err)?;
        let len = file.metadata().map_err(err)?.len();
        let mut hb = [0u8; PACK_HEADER_SIZE];
        file.read_exact(&mut hb)
            .map_err(|_| bad(0, "file shorter than the 48-byte pack header"))?;
        let h = PackHeader::from(
            RawPackHeader::read_from_bytes(&hb).map_err(|_| bad(0, "pack header"))?,
        );
        let (entry_end, index_end) = check_header(&h, len)?;
        let mut index = Vec::new();
        file.seek(SeekFrom::Start(h.index_offset)).map_err(err)?;
        (&mut file)
            .take(h.index_size)
            .read_to_end(&mut index)
            .map_err(err)?;
        let (entries, paths) = parse_index(&h, &index, entry_end, index_end)?;
        let table = HashTable::build(&entries);
        Ok(Pack {
            file,
            entries,
            paths,
            table,
        })
    }

    /// Number of assets.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the pack holds no asset.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry with its path, in index order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &PackEntry)> {
        self.entries.iter().map(|e| (self.path_of(e), e))
    }

    fn path_of(&self, e: &PackEntry) -> &str {
        let s = e.path_offset as usize;
        // parse_index checked bounds and UTF-8 of every path.
        std::str::from_utf8(&self.paths[s..s + usize::from(e.path_len)]).unwrap_or("")
    }

    /// The entry of `path`, if the pack has it: O(1), one hash-table probe sequence (see
    /// `caf-extensions.md` section 7), then a path comparison.
    pub fn find(&self, path: &str) -> Option<&PackEntry> {
        let h = path_hash(path.as_bytes());
        let first = self.table.first(&self.entries, h)?;
        self.entries[first..]
            .iter()
            .take_while(|e| e.hash == h)
            .find(|e| self.path_of(e) == path)
    }

    /// The bytes of the asset at `path`, verified as a `.caf` file whose type matches the
    /// entry; `None` when the pack has no such path.
    pub fn read(&self, path: &str) -> Result<Option<Vec<u8>>, CafError> {
        Ok(self.load(path)?.map(LoadedAsset::into_vec))
    }

    /// The asset at `path`, read in one pass into an aligned buffer and verified (both CRCs,
    /// its type against the entry); `None` when the pack has no such path.
    pub fn load(&self, path: &str) -> Result<Option<LoadedAsset>, CafError> {
        let Some(e) = self.find(path) else {
            return Ok(None);
        };
        self.load_entry(e).map(Some)
    }

    /// [`Pack::load`] of an entry of this pack.
    pub fn load_entry(&self, e: &PackEntry) -> Result<LoadedAsset, CafError> {
        // parse_index bounded offset + size by the file size.
        let l = LoadedAsset::read_range(&self.file, e.offset, e.size)?;
        if l.header().asset_type != AssetType(e.asset_type) {
            return Err(bad(e.offset, "asset type differs from its index entry"));
        }
        Ok(l)
    }

    /// The path of an entry of this pack.
    pub fn path(&self, e: &PackEntry) -> &str {
        self.path_of(e)
    }
}

fn check_header(h: &PackHeader, len: u64) -> Result<(u64, u64), CafError> {
    if h.magic != PACK_MAGIC {
        return Err(bad(0, "bad pack magic (expected \"CAFPACK\\0\")"));
    }
    if h.version != PACK_VERSION {
        return Err(CafError::UnsupportedEncoding {
            what: "pack version",
            value: u64::from(h.version),
        });
    }
    if h.reserved0 != 0 || h.reserved1 != 0 {
        return Err(bad(10, "reserved pack header field is not zero"));
    }
    if h.file_size != len {
        return Err(CafError::SizeMismatch {
            expected: h.file_size,
            actual: len,
        });
    }
    let index_end = h
        .index_offset
        .checked_add(h.index_size)
        .filter(|&e| e == len && h.index_offset >= PACK_HEADER_SIZE as u64)
        .ok_or(bad(16, "index is not at the end of the pack"))?;
    let entry_end = u64::from(h.entry_count)
        .checked_mul(PackEntry::SIZE as u64)
        .filter(|&n| n <= h.index_size)
        .ok_or(bad(12, "entry count larger than the index"))?;
    Ok((entry_end, index_end))
}

fn parse_index(
    h: &PackHeader,
    index: &[u8],
    entry_end: u64,
    _index_end: u64,
) -> Result<(Vec<PackEntry>, Vec<u8>), CafError> {
    if index.len() as u64 != h.index_size {
        return Err(CafError::Truncated {
            offset: h.index_offset + index.len() as u64,
        });
    }
    let computed = crc32(index);
    if computed != h.index_crc32 {
        return Err(CafError::IndexCrcMismatch {
            stored: h.index_crc32,
            computed,
        });
    }
    let (raw, paths) = index.split_at(entry_end as usize);
    let raws = <[RawPackEntry]>::ref_from_bytes(raw).map_err(|_| bad(h.index_offset, "entries"))?;
    let mut entries = Vec::with_capacity(raws.len());
    let mut prev: Option<(u64, &[u8])> = None;
    let mut spans: Vec<(u64, u64)> = Vec::with_capacity(raws.len());
    for (i, r) in raws.iter().enumerate() {
        let e = PackEntry::from(*r);
        let at = h.index_offset + (i * PackEntry::SIZE) as u64;
        let s = e.path_offset as usize;
        let p = paths
            .get(s..s + usize::from(e.path_len))
            .ok_or(bad(at + 24, "path outside the path bytes"))?;
        let text = std::str::from_utf8(p).map_err(|_| bad(at + 24, "path is not UTF-8"))?;
        if !valid_path(text) || path_hash(p) != e.hash {
            return Err(bad(at, "path is invalid or does not match its hash"));
        }
        if let Some(pk) = prev {
            if pk >= (e.hash, p) {
                return Err(bad(
                    at,
                    "entries are not sorted by (hash, path) or repeat a path",
                ));
            }
        }
        prev = Some((e.hash, p));
        let end = e
            .offset
            .checked_add(e.size)
            .filter(|&end| e.offset >= PACK_HEADER_SIZE as u64 && end <= h.index_offset)
            .ok_or(bad(at + 8, "asset outside the pack's asset area"))?;
        spans.push((e.offset, end));
        entries.push(e);
    }
    spans.sort_unstable();
    if spans.windows(2).any(|w| w[1].0 < w[0].1) {
        return Err(bad(h.index_offset, "two assets overlap"));
    }
    Ok((entries, paths.to_vec()))
}

/// Several mounted packs: a lookup searches the most recently mounted first, so a patch pack
/// mounted after the base overrides its assets by path.
#[derive(Debug, Default)]
pub struct PackSet {
    packs: Vec<Pack>,
}

impl PackSet {
    /// An empty set.
    pub fn new() -> PackSet {
        PackSet::default()
    }

    /// Mounts `pack` above every pack mounted before.
    pub fn mount(&mut self, pack: Pack) {
        self.packs.push(pack);
    }

    /// The asset at `path` from the newest pack that has it (see [`Pack::read`]).
    pub fn read(&self, path: &str) -> Result<Option<Vec<u8>>, CafError> {
        Ok(self.load(path)?.map(LoadedAsset::into_vec))
    }

    /// The asset at `path` from the newest pack that has it (see [`Pack::load`]).
    pub fn load(&self, path: &str) -> Result<Option<LoadedAsset>, CafError> {
        match self
            .packs
            .iter()
            .rev()
            .find_map(|p| Some((p, p.find(path)?)))
        {
            Some((p, e)) => p.load_entry(e).map(Some),
            None => Ok(None),
        }
    }

    /// True when some mounted pack has `path`.
    pub fn contains(&self, path: &str) -> bool {
        self.packs.iter().any(|p| p.find(path).is_some())
    }

    /// Number of mounted packs.
    pub fn len(&self) -> usize {
        self.packs.len()
    }

    /// True when no pack is mounted.
    pub fn is_empty(&self) -> bool {
        self.packs.is_empty()
    }
}

/// Checks a whole pack held in memory: the header and index as [`Pack::open`] does, then every
/// asset as [`Pack::read`] does. Returns the paths and entries in index order.
pub fn check_pack_bytes(bytes: &[u8]) -> Result<Vec<(String, PackEntry)>, CafError> {
    let hb = bytes
        .get(..PACK_HEADER_SIZE)
        .ok_or(bad(0, "file shorter than the 48-byte pack header"))?;
    let h =
        PackHeader::from(RawPackHeader::read_from_bytes(hb).map_err(|_| bad(0, "pack header"))?);
    let (entry_end, index_end) = check_header(&h, bytes.len() as u64)?;
    // check_header put the index at the end of these bytes.
    let index = &bytes[h.index_offset as usize..];
    let (entries, paths) = parse_index(&h, index, entry_end, index_end)?;
    let mut out = Vec::with_capacity(entries.len());
    for e in entries {
        let s = e.path_offset as usize;
        let name = String::from_utf8_lossy(&paths[s..s + usize::from(e.path_len)]).into_owned();
        let a = Asset::parse(&bytes[e.offset as usize..(e.offset + e.size) as usize])?;
        if a.header.asset_type != AssetType(e.asset_type) {
            return Err(bad(e.offset, "asset type differs from its index entry"));
        }
        out.push((name, e));
    }
    Ok(out)
}

/// A byte range of a file read as a file of its own (positions are relative to the range's
/// start, and reads end at its end): a pack member handed to [`crate::encoded::StreamReader`], or a
/// whole loose file. Reads are positional, so several ranges of one pack (sharing its open
/// file) can be read at once.
#[derive(Debug)]
pub struct FileRange {
    file: File,
    start: u64,
    len: u64,
    pos: u64,
}

impl FileRange {
    /// The range `[start, start + len)` of `file`.
    pub fn new(file: File, start: u64, len: u64) -> std::io::Result<FileRange> {
        Ok(FileRange {
            file,
            start,
            len,
            pos: 0,
        })
    }

    /// The whole of `file`.
    pub fn whole(file: File) -> std::io::Result<FileRange> {
        let len = file.metadata()?.len();
        FileRange::new(file, 0, len)
    }

    /// Length of the range.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for an empty range.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Read for FileRange {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.len.saturating_sub(self.pos);
        let n = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        if n == 0 {
            return Ok(0);
        }
        let got = pread(&self.file, &mut buf[..n], self.start + self.pos)?;
        self.pos += got as u64;
        Ok(got)
    }
}

#[cfg(unix)]
fn pread(f: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, at)
}

#[cfg(windows)]
fn pread(f: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, at)
}

#[cfg(not(any(unix, windows)))]
fn pread(mut f: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    f.seek(SeekFrom::Start(at))?;
    f.read(buf)
}

impl Seek for FileRange {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        }
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "seek before the start of the range",
            )
        })?;
        self.start.checked_add(target).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek offset overflows")
        })?;
        self.pos = target;
        Ok(target)
    }
}

impl Pack {
    /// A reader over the member `path` (for [`crate::encoded::StreamReader`]: streaming a member reads
    /// a few blocks at a time, whatever its size); `None` when the pack has no such path.
    pub fn open_member(&self, path: &str) -> Result<Option<FileRange>, CafError> {
        let Some(e) = self.find(path) else {
            return Ok(None);
        };
        let file = self.file.try_clone().map_err(|e| CafError::io(None, e))?;
        FileRange::new(file, e.offset, e.size)
            .map(Some)
            .map_err(|e| CafError::io(None, e))
    }
}

impl PackSet {
    /// [`Pack::open_member`] of the newest pack that has `path`.
    pub fn open_member(&self, path: &str) -> Result<Option<FileRange>, CafError> {
        match self.packs.iter().rev().find(|p| p.find(path).is_some()) {
            Some(p) => p.open_member(path),
            None => Ok(None),
        }
    }
}

impl Pack {
    /// Verifies every member (the index was checked at open): reads each one as
    /// [`Pack::load_entry`] does (both CRCs, its type against the entry) and, when `typed` or
    /// its payload is COMPRESSED/ENCRYPTED, judges it as [`crate::Verdict::check_bytes_with_key`]
    /// does (typed decoding; every block and the plain CRC). Returns each member's path and
    /// verdict, in index order.
    pub fn check_members(
        &self,
        typed: bool,
        key: Option<&crate::encoded::Key>,
    ) -> Vec<(&str, crate::Verdict)> {
        use crate::Verdict;
        self.entries
            .iter()
            .map(|e| {
                let v = match self.load_entry(e) {
                    Err(err) => Verdict::Invalid(err),
                    Ok(l) if typed || crate::encoded::is_encoded(l.header().flags) => {
                        Verdict::check_bytes_with_key(l.bytes(), typed, key)
                    }
                    Ok(l) => Verdict::Valid {
                        asset_type: l.header().asset_type,
                        file_size: l.file_size(),
                    },
                };
                (self.path_of(e), v)
            })
            .collect()
    }
}
