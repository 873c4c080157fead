//! Blocks: a 12-bit type and a 4-bit metadata nibble in one `u16`.

use crate::error::{Result, VwrError};

/// One cell of the world: `raw = (type << 4) | metadata`.
///
/// Every `u16` is a valid block. Air is `raw == 0` only: `Block::make(0, 5)` is not air.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Block(pub u16);

impl Block {
    /// The empty cell.
    pub const AIR: Block = Block(0);
    /// Largest block type (12 bits).
    pub const MAX_TYPE: u16 = 4095;
    /// Largest metadata value (4 bits).
    pub const MAX_META: u8 = 15;

    /// Builds a block from its type and metadata, rejecting values that do not fit
    /// (no silent masking).
    pub fn make(block_type: u16, meta: u8) -> Result<Block> {
        if block_type > Self::MAX_TYPE || meta > Self::MAX_META {
            return Err(VwrError::BlockOutOfRange {
                block_type: block_type.into(),
                meta: meta.into(),
            });
        }
        Ok(Block((block_type << 4) | meta as u16))
    }

    /// Wraps a raw 16-bit value.
    pub const fn from_raw(raw: u16) -> Block {
        Block(raw)
    }

    /// The raw 16-bit value.
    pub const fn raw(self) -> u16 {
        self.0
    }

    /// The block type, 0..=4095.
    pub const fn block_type(self) -> u16 {
        self.0 >> 4
    }

    /// The metadata nibble, 0..=15.
    pub const fn metadata(self) -> u8 {
        (self.0 & 0xF) as u8
    }

    /// `true` only for `raw == 0`.
    pub const fn is_air(self) -> bool {
        self.0 == 0
    }
}

impl std::fmt::Debug for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Block({}:{})", self.block_type(), self.metadata())
    }
}

impl From<u16> for Block {
    fn from(raw: u16) -> Block {
        Block(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_and_split() {
        let b = Block::make(4095, 15).unwrap();
        assert_eq!(b.raw(), 0xFFFF);
        assert_eq!(b.block_type(), 4095);
        assert_eq!(b.metadata(), 15);
        let s = Block::make(35, 0).unwrap();
        assert_eq!(s.raw(), 560);
    }

    #[test]
    fn make_rejects_out_of_range_without_masking() {
        assert!(matches!(
            Block::make(4096, 0),
            Err(VwrError::BlockOutOfRange { .. })
        ));
        assert!(matches!(
            Block::make(0, 16),
            Err(VwrError::BlockOutOfRange { .. })
        ));
    }

    #[test]
    fn air_is_raw_zero_only() {
        assert!(Block::AIR.is_air());
        assert!(!Block::make(0, 5).unwrap().is_air());
        assert!(Block::make(0, 0).unwrap().is_air());
    }
}
