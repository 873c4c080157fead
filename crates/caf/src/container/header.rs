//! The 32-byte header, the open code types and the layout constants (CAF.md section 1).

use std::fmt;
use std::ops::{BitAnd, BitOr, BitOrAssign};
use std::str::FromStr;

use zerocopy::little_endian::U32;

use crate::container::layout::{layout, le_newtype};

/// Size of the fixed header at the start of every file (32).
pub const HEADER_SIZE: usize = CafHeader::SIZE;
/// Size of the footer CRC at the end of every file (4).
pub const FOOTER_SIZE: usize = std::mem::size_of::<RawFooter>();
/// Smallest valid file: a header and a footer with no metadata and no payload.
pub const MIN_FILE_SIZE: usize = HEADER_SIZE + FOOTER_SIZE;
/// Magic number at offset 0 (bytes `FE CA FE CA` on disk).
pub const MAGIC: u32 = 0xCAFE_CAFE;
/// The only major version readers accept.
pub const VERSION_MAJOR: u16 = 1;
/// The minor version this crate writes (not checked on read).
pub const VERSION_MINOR: u16 = 0;

/// The largest alignment any asset type asks for; owned loads align payloads to this.
pub const MAX_PAYLOAD_ALIGNMENT: usize = 32;

voxcaf_names::names! {
    /// Asset type code (header offset 8). An open code: values without a name survive unchanged.
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Default)]
    pub struct AssetType(pub u16) as "asset type", unknown "type" {
        /// No particular type (0).
        UNKNOWN = 0 => "unknown",
        /// Texture: pixel levels, largest first (1).
        TEXTURE = 1 => "texture",
        /// Audio: interleaved PCM (2).
        AUDIO = 2 => "audio",
        /// Mesh: vertices then u32 indices (3).
        MESH = 3 => "mesh",
        /// Prefab: an entity tree (4).
        PREFAB = 4 => "prefab",
        /// Scene: component sections (5).
        SCENE = 5 => "scene",
        /// Shader: SPIR-V bytecode (6).
        SHADER = 6 => "shader",
        /// Animation (7); no payload convention defined yet.
        ANIMATION = 7 => "animation",
        /// Font (8); no payload convention defined yet.
        FONT = 8 => "font",
    }
}

impl AssetType {
    /// Alignment the loader gives the payload in memory: 32 for Mesh and Shader, 16 otherwise.
    /// The file itself has no padding.
    pub fn payload_alignment(self) -> usize {
        match self {
            AssetType::MESH | AssetType::SHADER => 32,
            _ => 16,
        }
    }
}

/// Header flag bits (offset 10). Unknown bits are kept.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CafFlags(pub u16);

impl CafFlags {
    /// No flags.
    pub const NONE: CafFlags = CafFlags(0);
    /// Payload is zstd/LZ4 blocks with a block index (docs/format/caf-extensions.md).
    pub const COMPRESSED: CafFlags = CafFlags(0x1);
    /// Payload blocks are encrypted, XChaCha20-Poly1305 or AES-256-GCM
    /// (docs/format/caf-extensions.md).
    pub const ENCRYPTED: CafFlags = CafFlags(0x2);
    /// Texture pixels are sRGB-encoded.
    pub const SRGB: CafFlags = CafFlags(0x4);
    /// Texture payload holds more than one mip level.
    pub const MIPCHAIN: CafFlags = CafFlags(0x8);
    /// Asset meant to be read block by block ([`crate::encoded::StreamReader`]); no layout change.
    pub const STREAMED: CafFlags = CafFlags(0x10);

    /// All bits that have a name.
    pub const KNOWN: CafFlags = CafFlags(0x1F);

    const NAMES: [(&'static str, CafFlags); 5] = [
        ("compressed", CafFlags::COMPRESSED),
        ("encrypted", CafFlags::ENCRYPTED),
        ("srgb", CafFlags::SRGB),
        ("mipchain", CafFlags::MIPCHAIN),
        ("streamed", CafFlags::STREAMED),
    ];

    /// True when every bit of `o` is set in `self`.
    pub fn contains(self, o: CafFlags) -> bool {
        self.0 & o.0 == o.0
    }

    /// Names of the known bits that are set, lowest bit first (unknown bits are left out; see
    /// [`CafFlags::unknown_bits`]).
    pub fn names(self) -> Vec<&'static str> {
        Self::NAMES
            .iter()
            .filter(|(_, f)| self.contains(*f))
            .map(|(n, _)| *n)
            .collect()
    }

    /// The set bits that have no name.
    pub fn unknown_bits(self) -> u16 {
        self.0 & !Self::KNOWN.0
    }

    /// The flag with this single name (case-insensitive); `none` gives [`CafFlags::NONE`].
    pub fn from_name(s: &str) -> Option<CafFlags> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("none") {
            return Some(CafFlags::NONE);
        }
        Self::NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(s))
            .map(|(_, f)| *f)
    }
}

impl BitOr for CafFlags {
    type Output = CafFlags;
    fn bitor(self, o: CafFlags) -> CafFlags {
        CafFlags(self.0 | o.0)
    }
}

impl BitOrAssign for CafFlags {
    fn bitor_assign(&mut self, o: CafFlags) {
        self.0 |= o.0;
    }
}

impl BitAnd for CafFlags {
    type Output = CafFlags;
    fn bitand(self, o: CafFlags) -> CafFlags {
        CafFlags(self.0 & o.0)
    }
}

impl fmt::Display for CafFlags {
    /// `NONE`, or names joined by `|` with unknown bits in hex: `SRGB|MIPCHAIN|0x8000`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("NONE");
        }
        let mut parts: Vec<String> = self.names().iter().map(|n| n.to_uppercase()).collect();
        if self.unknown_bits() != 0 {
            parts.push(format!("{:#06x}", self.unknown_bits()));
        }
        f.write_str(&parts.join("|"))
    }
}

impl FromStr for CafFlags {
    type Err = String;
    /// Names and numbers joined by `|`, `,` or `+`: `srgb|mipchain`, `0x0c`, `12`, `none`.
    fn from_str(s: &str) -> Result<Self, String> {
        let mut flags = CafFlags::NONE;
        for part in s.split(['|', ',', '+']) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            if let Some(f) = CafFlags::from_name(part) {
                flags |= f;
            } else if let Some(v) = parse_u16(part) {
                flags |= CafFlags(v);
            } else {
                return Err(format!(
                    "unknown flag '{part}': use names ({}) or numbers like 0x0c, joined by '|'",
                    CafFlags::NAMES.map(|(n, _)| n).join(", ")
                ));
            }
        }
        Ok(flags)
    }
}

fn parse_u16(s: &str) -> Option<u16> {
    let s = s.trim();
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u16::from_str_radix(hex, 16).ok()
    } else {
        s.parse().ok()
    }
}

layout! {
    /// The fixed 32-byte header, declared once and used by both the reader and the writer.
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
    pub struct CafHeader (RawHeader, 32 bytes) {
        /// Offset 0: must be [`MAGIC`].
        pub magic: u32,
        /// Offset 4: must be [`VERSION_MAJOR`].
        pub version_major: u16,
        /// Offset 6: not checked on read.
        pub version_minor: u16,
        /// Offset 8.
        pub asset_type: AssetType,
        /// Offset 10.
        pub flags: CafFlags,
        /// Offset 12: CRC-32 of the payload (0 for an empty payload).
        pub crc32: u32,
        /// Offset 16: metadata length N.
        pub metadata_size: u64,
        /// Offset 24: payload length M.
        pub data_size: u64,
    }
}

layout! {
    /// The footer: CRC-32 of every byte before it.
    raw struct RawFooter (4 bytes) {
        crc32: u32,
    }
}

impl RawFooter {
    /// The footer holding `crc`.
    pub(crate) fn new(crc: u32) -> RawFooter {
        RawFooter {
            crc32: U32::new(crc),
        }
    }
}

// The open codes and flag bits are stored as plain little-endian u16s.
le_newtype!(AssetType(u16), CafFlags(u16));

impl CafHeader {
    /// A current-version header for the given fields.
    pub fn new(
        asset_type: AssetType,
        flags: CafFlags,
        crc32: u32,
        metadata_size: u64,
        data_size: u64,
    ) -> CafHeader {
        CafHeader {
            magic: MAGIC,
            version_major: VERSION_MAJOR,
            version_minor: VERSION_MINOR,
            asset_type,
            flags,
            crc32,
            metadata_size,
            data_size,
        }
    }

    /// Decode the header bytes as they are; nothing is checked here.
    pub fn from_bytes(b: &[u8; HEADER_SIZE]) -> CafHeader {
        let raw: RawHeader = zerocopy::transmute!(*b);
        CafHeader::from(raw)
    }

    /// Encode to the on-disk bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_SIZE] {
        zerocopy::transmute!(RawHeader::from(self))
    }

    /// 32 + N + M + 4, or `None` when that overflows a u64 (the original wraps; we refuse).
    pub fn total_file_size(&self) -> Option<u64> {
        (HEADER_SIZE as u64 + FOOTER_SIZE as u64)
            .checked_add(self.metadata_size)?
            .checked_add(self.data_size)
    }

    /// File offset of the payload (32 + N), `None` on overflow.
    pub fn payload_offset(&self) -> Option<u64> {
        (HEADER_SIZE as u64).checked_add(self.metadata_size)
    }

    /// File offset of the footer (32 + N + M), `None` on overflow.
    pub fn footer_offset(&self) -> Option<u64> {
        self.payload_offset()?.checked_add(self.data_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_layout() {
        let h = CafHeader::new(AssetType::TEXTURE, CafFlags::MIPCHAIN, 0xC35A9EFF, 24, 20);
        let b = h.to_bytes();
        assert_eq!(&b[0..4], &[0xFE, 0xCA, 0xFE, 0xCA]);
        assert_eq!(CafHeader::from_bytes(&b), h);
        assert_eq!(h.total_file_size(), Some(80));
        let o = CafHeader {
            metadata_size: u64::MAX - 15,
            data_size: 32,
            ..h
        };
        assert_eq!(o.total_file_size(), None);
    }

    #[test]
    fn names_and_parsing() {
        assert_eq!(AssetType::MESH.name(), Some("mesh"));
        assert_eq!(AssetType(9).name(), None);
        assert_eq!("Texture".parse::<AssetType>(), Ok(AssetType::TEXTURE));
        assert_eq!("0xffff".parse::<AssetType>(), Ok(AssetType(0xFFFF)));
        assert!("sprite".parse::<AssetType>().is_err());
        assert_eq!("srgb|mipchain".parse::<CafFlags>(), Ok(CafFlags(0x0C)));
        assert_eq!("0x0c".parse::<CafFlags>(), Ok(CafFlags(0x0C)));
        assert_eq!("none".parse::<CafFlags>(), Ok(CafFlags::NONE));
        assert!("shiny".parse::<CafFlags>().is_err());
        assert_eq!(CafFlags(0x800C).to_string(), "SRGB|MIPCHAIN|0x8000");
        assert_eq!(CafFlags(0x800C).names(), vec!["srgb", "mipchain"]);
    }
}
