//! The v3 world format (docs/format/vwr-v3.md): per-axis chunk counts, a sparse index, chunk
//! codecs (packed, RLE, zstd, zstd groups) and two commit slots for incremental saves.
//!
//! Layouts live in [`crate::layout`]; this module encodes, decodes and validates them. The lazy
//! file handle and the incremental save are in [`crate::file`].

mod checks;
mod compact;
mod encode;
mod history;
mod read;
mod stats;

pub(crate) use compact::{page_bytes, page_entry, stored_len};
pub use encode::write_world_v3;
pub(crate) use encode::*;
pub(crate) use history::chain;
pub use history::{Commit, CommitInfo, CommitKind};
pub use read::read_world_v3;
pub(crate) use read::*;
pub(crate) use stats::{file_bytes_of, stats_of};
pub use stats::{CodecStats, FileBytes, LevelStats};

pub(crate) use crate::store::{delinear, linear};
use crate::world::World;

/// Which header version a save writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// v2 when the world fits it (cubic, at most 255 chunks per axis), v3 otherwise.
    #[default]
    Auto,
    /// The original format (fails for worlds it cannot hold).
    V2,
    /// Header v3.
    V3,
}

/// How a v3 save stores chunk payloads (vwr-v3.md §7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Codec {
    /// The smaller of packed and RLE per chunk, small chunks in zstd groups.
    #[default]
    Auto,
    /// The v2 bit-packed payload, uncompressed.
    Packed,
    /// Run-length payload, uncompressed.
    Rle,
    /// The smaller of packed and RLE, one zstd frame per chunk.
    Zstd,
}

impl std::str::FromStr for Codec {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Codec, String> {
        match s {
            "auto" => Ok(Codec::Auto),
            "packed" => Ok(Codec::Packed),
            "rle" => Ok(Codec::Rle),
            "zstd" => Ok(Codec::Zstd),
            _ => Err(format!("unknown codec {s:?} (auto, packed, rle, zstd)")),
        }
    }
}

/// How a v3 file stores its entry pages (vwr-v3.md §4.1, §4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PageForm {
    /// Compact pages (header flag `COMPACT`): runs of uniform chunks, variable-length fields.
    #[default]
    Compact,
    /// 28 bytes an entry, readable by readers that predate compact pages.
    Plain,
}

impl PageForm {
    /// The form of a file whose header has (`true`) or lacks the `COMPACT` flag.
    pub(crate) fn of(compact: bool) -> PageForm {
        if compact {
            PageForm::Compact
        } else {
            PageForm::Plain
        }
    }
}

/// Default zstd level.
pub const DEFAULT_ZSTD_LEVEL: i32 = 3;
/// Chunks whose payload is smaller than this go into groups under [`Codec::Auto`].
const GROUP_CHUNK_LIMIT: usize = 16 << 10;
/// A group is closed once it holds this many payload bytes.
const GROUP_TARGET: usize = 64 << 10;

/// Options of [`World::to_bytes_with`] and [`World::save_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SaveOptions {
    /// Header version.
    pub format: Format,
    /// v3 chunk codec.
    pub codec: Codec,
    /// zstd level (1..=22).
    pub level: i32,
    /// v3: the tool and time the file's first commit records (default: none, so that the
    /// same world always gives the same bytes).
    pub commit: CommitInfo,
    /// v3: the entry page form (default compact).
    pub pages: PageForm,
    /// v3: levels of detail to build and store (vwr-v3.md §13; default 0, at most 8).
    pub lod: u8,
}

impl Default for SaveOptions {
    fn default() -> SaveOptions {
        SaveOptions {
            format: Format::Auto,
            codec: Codec::Auto,
            level: DEFAULT_ZSTD_LEVEL,
            commit: CommitInfo::default(),
            pages: PageForm::Compact,
            lod: 0,
        }
    }
}

impl SaveOptions {
    /// v3 with the given codec.
    pub fn v3(codec: Codec) -> SaveOptions {
        SaveOptions {
            format: Format::V3,
            codec,
            ..SaveOptions::default()
        }
    }

    /// The format of a file whose header version is `version` (3: v3, otherwise v2), with the
    /// default codec: what saving "in the file's own format" means.
    pub fn of_version(version: u8) -> SaveOptions {
        SaveOptions {
            format: if version == 3 { Format::V3 } else { Format::V2 },
            ..SaveOptions::default()
        }
    }

    /// Whether these options write v3 for `world`.
    pub fn writes_v3(&self, world: &World) -> bool {
        match self.format {
            Format::V3 => true,
            Format::V2 => false,
            Format::Auto => !world.fits_v2(),
        }
    }
}
