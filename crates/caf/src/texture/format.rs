//! Texture format codes (`docs/format/caf-textures.md`): `0` is the original's 8-bit format
//! with the channel count inferred; every other code is the `SDL_GPUTextureFormat` enumerator
//! of that number. Each known code has a block size and bytes per block, from which every
//! level's byte range follows.

use std::fmt;

/// What kind of data a format holds, for readers that turn it back into pixels.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum FormatClass {
    /// The original's code 0: 8-bit channels, 1–4 per texel, count inferred from the size.
    Legacy8,
    /// Plain texels of 8/16/32-bit unsigned or signed normalized, integer or float channels.
    Plain,
    /// Packed plain texels (R10G10B10A2, B5G6R5, R11G11B10, ...).
    Packed,
    /// BC1–BC7 4×4 blocks.
    Bc,
    /// ASTC blocks.
    Astc,
}

/// Facts about one known format code.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct FormatInfo {
    /// SDL's enumerator name without the `SDL_GPU_TEXTUREFORMAT_` prefix (`"BC7_RGBA_UNORM"`),
    /// or `"RGBA8"` for code 0.
    pub name: &'static str,
    /// Block width in texels (1 for plain formats).
    pub block_width: u32,
    /// Block height in texels (1 for plain formats).
    pub block_height: u32,
    /// Bytes per block (per texel for plain formats); 0 for code 0, whose texel size is
    /// inferred from the payload.
    pub block_bytes: u32,
    /// The sRGB variant of a format with an `_SRGB` twin.
    pub srgb: bool,
    /// What kind of data it is.
    pub class: FormatClass,
}

/// A texture `format` code (the metadata's `u32`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct TextureFormat(pub u32);

/// Why a format code cannot describe a payload.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FormatRefusal {
    /// A depth or depth-stencil format (58–62).
    Depth,
    /// Not a code of the table (above 104).
    Unknown,
}

const ASTC_SIZES: [(u32, u32); 14] = [
    (4, 4),
    (5, 4),
    (5, 5),
    (6, 5),
    (6, 6),
    (8, 5),
    (8, 6),
    (8, 8),
    (10, 5),
    (10, 6),
    (10, 8),
    (10, 10),
    (12, 10),
    (12, 12),
];

const ASTC_NAMES: [[&str; 14]; 3] = [
    [
        "ASTC_4x4_UNORM",
        "ASTC_5x4_UNORM",
        "ASTC_5x5_UNORM",
        "ASTC_6x5_UNORM",
        "ASTC_6x6_UNORM",
        "ASTC_8x5_UNORM",
        "ASTC_8x6_UNORM",
        "ASTC_8x8_UNORM",
        "ASTC_10x5_UNORM",
        "ASTC_10x6_UNORM",
        "ASTC_10x8_UNORM",
        "ASTC_10x10_UNORM",
        "ASTC_12x10_UNORM",
        "ASTC_12x12_UNORM",
    ],
    [
        "ASTC_4x4_UNORM_SRGB",
        "ASTC_5x4_UNORM_SRGB",
        "ASTC_5x5_UNORM_SRGB",
        "ASTC_6x5_UNORM_SRGB",
        "ASTC_6x6_UNORM_SRGB",
        "ASTC_8x5_UNORM_SRGB",
        "ASTC_8x6_UNORM_SRGB",
        "ASTC_8x8_UNORM_SRGB",
        "ASTC_10x5_UNORM_SRGB",
        "ASTC_10x6_UNORM_SRGB",
        "ASTC_10x8_UNORM_SRGB",
        "ASTC_10x10_UNORM_SRGB",
        "ASTC_12x10_UNORM_SRGB",
        "ASTC_12x12_UNORM_SRGB",
    ],
    [
        "ASTC_4x4_FLOAT",
        "ASTC_5x4_FLOAT",
        "ASTC_5x5_FLOAT",
        "ASTC_6x5_FLOAT",
        "ASTC_6x6_FLOAT",
        "ASTC_8x5_FLOAT",
        "ASTC_8x6_FLOAT",
        "ASTC_8x8_FLOAT",
        "ASTC_10x5_FLOAT",
        "ASTC_10x6_FLOAT",
        "ASTC_10x8_FLOAT",
        "ASTC_10x10_FLOAT",
        "ASTC_12x10_FLOAT",
        "ASTC_12x12_FLOAT",
    ],
];

/// Plain and BC formats 1..=57: (name, block edge, bytes per block, class, srgb).
const TABLE: [(&str, u32, u32, FormatClass, bool); 57] = {
    use FormatClass::{Bc, Packed, Plain};
    [
        ("A8_UNORM", 1, 1, Plain, false),
        ("R8_UNORM", 1, 1, Plain, false),
        ("R8G8_UNORM", 1, 2, Plain, false),
        ("R8G8B8A8_UNORM", 1, 4, Plain, false),
        ("R16_UNORM", 1, 2, Plain, false),
        ("R16G16_UNORM", 1, 4, Plain, false),
        ("R16G16B16A16_UNORM", 1, 8, Plain, false),
        ("R10G10B10A2_UNORM", 1, 4, Packed, false),
        ("B5G6R5_UNORM", 1, 2, Packed, false),
        ("B5G5R5A1_UNORM", 1, 2, Packed, false),
        ("B4G4R4A4_UNORM", 1, 2, Packed, false),
        ("B8G8R8A8_UNORM", 1, 4, Packed, false),
        ("BC1_RGBA_UNORM", 4, 8, Bc, false),
        ("BC2_RGBA_UNORM", 4, 16, Bc, false),
        ("BC3_RGBA_UNORM", 4, 16, Bc, false),
        ("BC4_R_UNORM", 4, 8, Bc, false),
        ("BC5_RG_UNORM", 4, 16, Bc, false),
        ("BC7_RGBA_UNORM", 4, 16, Bc, false),
        ("BC6H_RGB_FLOAT", 4, 16, Bc, false),
        ("BC6H_RGB_UFLOAT", 4, 16, Bc, false),
        ("R8_SNORM", 1, 1, Plain, false),
        ("R8G8_SNORM", 1, 2, Plain, false),
        ("R8G8B8A8_SNORM", 1, 4, Plain, false),
        ("R16_SNORM", 1, 2, Plain, false),
        ("R16G16_SNORM", 1, 4, Plain, false),
        ("R16G16B16A16_SNORM", 1, 8, Plain, false),
        ("R16_FLOAT", 1, 2, Plain, false),
        ("R16G16_FLOAT", 1, 4, Plain, false),
        ("R16G16B16A16_FLOAT", 1, 8, Plain, false),
        ("R32_FLOAT", 1, 4, Plain, false),
        ("R32G32_FLOAT", 1, 8, Plain, false),
        ("R32G32B32A32_FLOAT", 1, 16, Plain, false),
        ("R11G11B10_UFLOAT", 1, 4, Packed, false),
        ("R8_UINT", 1, 1, Plain, false),
        ("R8G8_UINT", 1, 2, Plain, false),
        ("R8G8B8A8_UINT", 1, 4, Plain, false),
        ("R16_UINT", 1, 2, Plain, false),
        ("R16G16_UINT", 1, 4, Plain, false),
        ("R16G16B16A16_UINT", 1, 8, Plain, false),
        ("R32_UINT", 1, 4, Plain, false),
        ("R32G32_UINT", 1, 8, Plain, false),
        ("R32G32B32A32_UINT", 1, 16, Plain, false),
        ("R8_INT", 1, 1, Plain, false),
        ("R8G8_INT", 1, 2, Plain, false),
        ("R8G8B8A8_INT", 1, 4, Plain, false),
        ("R16_INT", 1, 2, Plain, false),
        ("R16G16_INT", 1, 4, Plain, false),
        ("R16G16B16A16_INT", 1, 8, Plain, false),
        ("R32_INT", 1, 4, Plain, false),
        ("R32G32_INT", 1, 8, Plain, false),
        ("R32G32B32A32_INT", 1, 16, Plain, false),
        ("R8G8B8A8_UNORM_SRGB", 1, 4, Plain, true),
        ("B8G8R8A8_UNORM_SRGB", 1, 4, Packed, true),
        ("BC1_RGBA_UNORM_SRGB", 4, 8, Bc, true),
        ("BC2_RGBA_UNORM_SRGB", 4, 16, Bc, true),
        ("BC3_RGBA_UNORM_SRGB", 4, 16, Bc, true),
        ("BC7_RGBA_UNORM_SRGB", 4, 16, Bc, true),
    ]
};

impl TextureFormat {
    /// 0: the original's 8-bit channels, count inferred from the payload size.
    pub const RGBA8_LEGACY: TextureFormat = TextureFormat(0);
    /// 4: R8G8B8A8_UNORM.
    pub const R8G8B8A8_UNORM: TextureFormat = TextureFormat(4);
    /// 7: R16G16B16A16_UNORM.
    pub const R16G16B16A16_UNORM: TextureFormat = TextureFormat(7);
    /// 13: BC1_RGBA_UNORM.
    pub const BC1_RGBA_UNORM: TextureFormat = TextureFormat(13);
    /// 14: BC2_RGBA_UNORM.
    pub const BC2_RGBA_UNORM: TextureFormat = TextureFormat(14);
    /// 15: BC3_RGBA_UNORM.
    pub const BC3_RGBA_UNORM: TextureFormat = TextureFormat(15);
    /// 16: BC4_R_UNORM.
    pub const BC4_R_UNORM: TextureFormat = TextureFormat(16);
    /// 17: BC5_RG_UNORM.
    pub const BC5_RG_UNORM: TextureFormat = TextureFormat(17);
    /// 18: BC7_RGBA_UNORM.
    pub const BC7_RGBA_UNORM: TextureFormat = TextureFormat(18);
    /// 19: BC6H_RGB_FLOAT (signed).
    pub const BC6H_RGB_FLOAT: TextureFormat = TextureFormat(19);
    /// 20: BC6H_RGB_UFLOAT.
    pub const BC6H_RGB_UFLOAT: TextureFormat = TextureFormat(20);
    /// 29: R16G16B16A16_FLOAT.
    pub const R16G16B16A16_FLOAT: TextureFormat = TextureFormat(29);
    /// 32: R32G32B32A32_FLOAT.
    pub const R32G32B32A32_FLOAT: TextureFormat = TextureFormat(32);
    /// 52: R8G8B8A8_UNORM_SRGB.
    pub const R8G8B8A8_UNORM_SRGB: TextureFormat = TextureFormat(52);
    /// 54: BC1_RGBA_UNORM_SRGB.
    pub const BC1_RGBA_UNORM_SRGB: TextureFormat = TextureFormat(54);
    /// 55: BC2_RGBA_UNORM_SRGB.
    pub const BC2_RGBA_UNORM_SRGB: TextureFormat = TextureFormat(55);
    /// 56: BC3_RGBA_UNORM_SRGB.
    pub const BC3_RGBA_UNORM_SRGB: TextureFormat = TextureFormat(56);
    /// 57: BC7_RGBA_UNORM_SRGB.
    pub const BC7_RGBA_UNORM_SRGB: TextureFormat = TextureFormat(57);
    /// 63: ASTC_4x4_UNORM.
    pub const ASTC_4X4_UNORM: TextureFormat = TextureFormat(63);
    /// 77: ASTC_4x4_UNORM_SRGB.
    pub const ASTC_4X4_UNORM_SRGB: TextureFormat = TextureFormat(77);
    /// 91: ASTC_4x4_FLOAT.
    pub const ASTC_4X4_FLOAT: TextureFormat = TextureFormat(91);
    /// The largest code of the table (ASTC_12x12_FLOAT).
    pub const MAX_CODE: u32 = 104;

    /// The facts about this code, or why it cannot describe a payload.
    pub fn info(self) -> Result<FormatInfo, FormatRefusal> {
        let c = self.0;
        Ok(match c {
            0 => FormatInfo {
                name: "RGBA8",
                block_width: 1,
                block_height: 1,
                block_bytes: 0,
                srgb: false,
                class: FormatClass::Legacy8,
            },
            1..=57 => {
                let (name, edge, bytes, class, srgb) = TABLE[c as usize - 1];
                FormatInfo {
                    name,
                    block_width: edge,
                    block_height: edge,
                    block_bytes: bytes,
                    srgb,
                    class,
                }
            }
            58..=62 => return Err(FormatRefusal::Depth),
            63..=104 => {
                let group = ((c - 63) / 14) as usize;
                let i = ((c - 63) % 14) as usize;
                let (bw, bh) = ASTC_SIZES[i];
                FormatInfo {
                    name: ASTC_NAMES[group][i],
                    block_width: bw,
                    block_height: bh,
                    block_bytes: 16,
                    srgb: group == 1,
                    class: FormatClass::Astc,
                }
            }
            _ => return Err(FormatRefusal::Unknown),
        })
    }

    /// The code's name, or `"depth format"` / `"unknown format"`.
    pub fn name(self) -> &'static str {
        match self.info() {
            Ok(i) => i.name,
            Err(FormatRefusal::Depth) => "depth format",
            Err(FormatRefusal::Unknown) => "unknown format",
        }
    }

    /// The `_SRGB` twin of this format when `srgb` is true and it has one, else itself; the
    /// `_UNORM` one when `srgb` is false and this is an `_SRGB` code.
    pub fn with_srgb(self, srgb: bool) -> TextureFormat {
        const PAIRS: [(u32, u32); 6] = [(4, 52), (12, 53), (13, 54), (14, 55), (15, 56), (18, 57)];
        let c = self.0;
        let twin = if (63..=76).contains(&c) && srgb {
            c + 14
        } else if (77..=90).contains(&c) && !srgb {
            c - 14
        } else if srgb {
            PAIRS.iter().find(|p| p.0 == c).map_or(c, |p| p.1)
        } else {
            PAIRS.iter().find(|p| p.1 == c).map_or(c, |p| p.0)
        };
        TextureFormat(twin)
    }

    /// Bytes of one `width × height` level with `texel_bytes` for code 0 (ignored otherwise),
    /// or `None` when the code is refused or the size overflows `u64`.
    pub fn level_bytes(self, width: u32, height: u32, texel_bytes: u32) -> Option<u64> {
        let i = self.info().ok()?;
        let bytes = if i.class == FormatClass::Legacy8 {
            texel_bytes
        } else {
            i.block_bytes
        };
        let bx = u64::from(width.div_ceil(i.block_width));
        let by = u64::from(height.div_ceil(i.block_height));
        bx.checked_mul(by)?.checked_mul(u64::from(bytes))
    }
}

impl fmt::Display for TextureFormat {
    /// `18 (BC7_RGBA_UNORM)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.0, self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_sdl_numbering() {
        // Spot checks against SDL_gpu.h's declaration order.
        let named = [
            (4, "R8G8B8A8_UNORM"),
            (7, "R16G16B16A16_UNORM"),
            (13, "BC1_RGBA_UNORM"),
            (17, "BC5_RG_UNORM"),
            (18, "BC7_RGBA_UNORM"),
            (20, "BC6H_RGB_UFLOAT"),
            (29, "R16G16B16A16_FLOAT"),
            (32, "R32G32B32A32_FLOAT"),
            (33, "R11G11B10_UFLOAT"),
            (42, "R32G32B32A32_UINT"),
            (51, "R32G32B32A32_INT"),
            (52, "R8G8B8A8_UNORM_SRGB"),
            (57, "BC7_RGBA_UNORM_SRGB"),
            (63, "ASTC_4x4_UNORM"),
            (76, "ASTC_12x12_UNORM"),
            (77, "ASTC_4x4_UNORM_SRGB"),
            (91, "ASTC_4x4_FLOAT"),
            (104, "ASTC_12x12_FLOAT"),
        ];
        for (c, n) in named {
            assert_eq!(TextureFormat(c).name(), n, "code {c}");
        }
        assert_eq!(TextureFormat(60).info(), Err(FormatRefusal::Depth));
        assert_eq!(TextureFormat(105).info(), Err(FormatRefusal::Unknown));
        assert_eq!(TextureFormat(0).name(), "RGBA8");
    }

    #[test]
    fn level_bytes_round_blocks_up() {
        let bc7 = TextureFormat::BC7_RGBA_UNORM;
        assert_eq!(bc7.level_bytes(1, 1, 0), Some(16));
        assert_eq!(bc7.level_bytes(5, 4, 0), Some(32));
        assert_eq!(TextureFormat::BC1_RGBA_UNORM.level_bytes(8, 8, 0), Some(32));
        // ASTC 10x8: 21x9 -> 3x2 blocks.
        assert_eq!(TextureFormat(73).level_bytes(21, 9, 0), Some(96));
        assert_eq!(TextureFormat(0).level_bytes(3, 2, 3), Some(18));
        assert_eq!(TextureFormat(29).level_bytes(3, 2, 0), Some(48));
        assert_eq!(TextureFormat(61).level_bytes(1, 1, 0), None);
    }

    #[test]
    fn srgb_twins() {
        assert_eq!(TextureFormat::BC7_RGBA_UNORM.with_srgb(true).0, 57);
        assert_eq!(TextureFormat(57).with_srgb(false).0, 18);
        assert_eq!(TextureFormat::ASTC_4X4_UNORM.with_srgb(true).0, 77);
        assert_eq!(TextureFormat(77).with_srgb(false).0, 63);
        assert_eq!(TextureFormat::BC5_RG_UNORM.with_srgb(true).0, 17);
        assert_eq!(TextureFormat(0).with_srgb(true).0, 0);
        for c in 0..=TextureFormat::MAX_CODE {
            if TextureFormat(c).info().is_ok() {
                let t = TextureFormat(c).with_srgb(true);
                assert!(t == TextureFormat(c) || t.info().unwrap().srgb, "{c}");
            }
        }
    }
}
