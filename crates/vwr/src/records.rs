//! Typed extra-metadata records: MoveObject (type 1), plate rotation (type 2), BigDecor (type 3).
//!
//! Their byte layouts are declared in [`crate::layout`]; this module gives them meaning.

use core::mem::size_of;

use zerocopy::little_endian::{F32, U16};
use zerocopy::FromBytes;

use crate::error::RecordError;
use crate::layout::{MoveObjectLegacyPayload, MoveObjectPayload};
pub use crate::layout::{META_BIG_DECOR, META_MOVE_OBJECT, META_PLATE_ROTATION, META_VOX_PALETTE};

/// The readable name of a metadata record type (`"MoveObject"`, `"plate rotation"`,
/// `"BigDecor"`), `None` for types this library does not interpret.
pub fn record_type_name(record_type: u16) -> Option<&'static str> {
    Some(match record_type {
        META_MOVE_OBJECT => "MoveObject",
        META_PLATE_ROTATION => "plate rotation",
        META_BIG_DECOR => "BigDecor",
        META_VOX_PALETTE => "MagicaVoxel palette",
        _ => return None,
    })
}

/// The short names by which tools accept MoveObject types (`object add exit ...`), with their
/// codes; several names may share a code. Matching ignores case, `_`, `-` and spaces
/// ([`MoveObject::type_by_name`]).
pub const MOVE_OBJECT_NAMES: &[(&str, u8)] = &[
    ("none", 0),
    ("lift", 1),
    ("enemy", 2),
    ("patrol", 2),
    ("bulldozer", 4),
    ("treasure", 5),
    ("egg", 6),
    ("extralife", 6),
    ("exit", 7),
    ("levelexit", 7),
    ("crate", 12),
    ("secretexit", 21),
    ("key", 49),
    ("avatar", 200),
];

/// A moving or interactive object (lift, enemy, collectible, exit…), 47-byte payload.
///
/// The record is anchored at the cell `floor(pos_start)`; one MoveObject per cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveObject {
    /// Object type (0..=203 declared; unknown values are kept).
    pub object_type: u8,
    /// Start position in world units (blocks).
    pub pos_start: [f32; 3],
    /// End position (for patrolling objects).
    pub pos_end: [f32; 3],
    /// Speed (default 1.5).
    pub speed: f32,
    /// Ticks (20 Hz) to advance one step (default 60).
    pub step_advance_ticks: f32,
    /// Ticks to recede one step (default 60).
    pub step_recede_ticks: f32,
    /// Ticks to wait at the start (default 40).
    pub time_stop_start_ticks: f32,
    /// Ticks to wait at the end (default 40).
    pub time_stop_end_ticks: f32,
    /// Icon, 0 = derive from the object type.
    pub visual_icon: u16,
}

impl Default for MoveObject {
    fn default() -> Self {
        MoveObject {
            object_type: 0,
            pos_start: [0.0; 3],
            pos_end: [0.0; 3],
            speed: 1.5,
            step_advance_ticks: 60.0,
            step_recede_ticks: 60.0,
            time_stop_start_ticks: 40.0,
            time_stop_end_ticks: 40.0,
            visual_icon: 0,
        }
    }
}

impl MoveObject {
    /// Encoded size.
    pub const SIZE: usize = size_of::<MoveObjectPayload>();
    /// Size of the legacy form without `visual_icon`.
    pub const LEGACY_SIZE: usize = size_of::<MoveObjectLegacyPayload>();

    /// An object of `object_type` standing at `pos` (end = start), other fields default.
    pub fn new(object_type: u8, pos: [f32; 3]) -> MoveObject {
        MoveObject {
            object_type,
            pos_start: pos,
            pos_end: pos,
            ..MoveObject::default()
        }
    }

    /// The 47-byte payload.
    pub fn encode(&self) -> [u8; Self::SIZE] {
        let f = |v: [f32; 3]| v.map(F32::new);
        let raw = MoveObjectPayload {
            legacy: MoveObjectLegacyPayload {
                object_type: self.object_type,
                pos_start: f(self.pos_start),
                pos_end: f(self.pos_end),
                speed: F32::new(self.speed),
                step_advance_ticks: F32::new(self.step_advance_ticks),
                step_recede_ticks: F32::new(self.step_recede_ticks),
                time_stop_start_ticks: F32::new(self.time_stop_start_ticks),
                time_stop_end_ticks: F32::new(self.time_stop_end_ticks),
            },
            visual_icon: U16::new(self.visual_icon),
        };
        zerocopy::transmute!(raw)
    }

    /// Decodes a 47-byte payload or the legacy 45-byte one (`visual_icon` = 0).
    pub fn decode(payload: &[u8]) -> Result<MoveObject, RecordError> {
        let (legacy, visual_icon) = if let Ok(p) = MoveObjectPayload::ref_from_bytes(payload) {
            (&p.legacy, p.visual_icon.get())
        } else if let Ok(p) = MoveObjectLegacyPayload::ref_from_bytes(payload) {
            (p, 0)
        } else {
            return Err(RecordError::MoveObjectSize { len: payload.len() });
        };
        let f = |v: [F32; 3]| v.map(F32::get);
        Ok(MoveObject {
            object_type: legacy.object_type,
            pos_start: f(legacy.pos_start),
            pos_end: f(legacy.pos_end),
            speed: legacy.speed.get(),
            step_advance_ticks: legacy.step_advance_ticks.get(),
            step_recede_ticks: legacy.step_recede_ticks.get(),
            time_stop_start_ticks: legacy.time_stop_start_ticks.get(),
            time_stop_end_ticks: legacy.time_stop_end_ticks.get(),
            visual_icon,
        })
    }

    /// The anchor cell `floor(pos_start)`, checked against a world of `block_dims` blocks
    /// (see [`crate::World::block_dims`]).
    pub fn anchor(&self, block_dims: [u32; 3]) -> Result<[u32; 3], RecordError> {
        let start = self.pos_start;
        let mut cell = [0u32; 3];
        for (k, &v) in start.iter().enumerate() {
            if !v.is_finite() {
                return Err(RecordError::StartNotFinite { start });
            }
            if v < 0.0 {
                return Err(RecordError::StartNegative { start });
            }
            let f = v.floor();
            if f >= block_dims[k] as f32 {
                return Err(RecordError::StartOutsideWorld { start, block_dims });
            }
            cell[k] = f as u32;
        }
        Ok(cell)
    }

    /// The type code of a short name from [`MOVE_OBJECT_NAMES`] (case, `_`, `-` and spaces
    /// ignored: `"Level-Exit"` is 7).
    pub fn type_by_name(name: &str) -> Option<u8> {
        let key: String = name
            .chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        MOVE_OBJECT_NAMES
            .iter()
            .find(|(n, _)| *n == key)
            .map(|&(_, t)| t)
    }

    /// A readable name for the known object types of Galaxy Eggbert.
    pub fn type_name(object_type: u8) -> Option<&'static str> {
        Some(match object_type {
            0 => "none",
            1 | 47 | 48 => "lift",
            2 | 3 | 96 | 97 => "patrol enemy",
            4 => "bulldozer",
            5 => "treasure",
            6 => "extra-life egg",
            7 => "level exit",
            21 => "secret exit",
            49..=51 => "key",
            12 => "crate",
            13 | 19 | 24 | 25 | 26 | 28 | 29 | 30 | 31 | 40 | 46 | 55 => "vehicle/power-up",
            16 | 17 | 18 | 20 | 32 | 33 | 44 | 54 => "walker",
            200..=203 => "avatar",
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_object_47_and_legacy_45() {
        let mut m = MoveObject::new(6, [52.5, 57.0, 51.25]);
        m.visual_icon = 513;
        let bytes = m.encode();
        assert_eq!(MoveObject::decode(&bytes).unwrap(), m);
        let legacy = MoveObject::decode(&bytes[..45]).unwrap();
        assert_eq!(legacy.visual_icon, 0);
        assert_eq!(legacy.pos_start, m.pos_start);
        assert!(MoveObject::decode(&bytes[..46]).is_err());
        assert!(MoveObject::decode(&[]).is_err());
    }

    #[test]
    fn names_are_found_whatever_the_spelling() {
        assert_eq!(MoveObject::type_by_name("Level-Exit"), Some(7));
        assert_eq!(MoveObject::type_by_name("extra_life"), Some(6));
        assert_eq!(MoveObject::type_by_name("dragon"), None);
        for &(n, t) in MOVE_OBJECT_NAMES {
            assert_eq!(MoveObject::type_by_name(n), Some(t));
        }
        assert_eq!(record_type_name(META_BIG_DECOR), Some("BigDecor"));
        assert_eq!(record_type_name(9), None);
    }

    #[test]
    fn anchor_rejects_bad_starts() {
        let ok = MoveObject::new(1, [9.99, 0.0, 3.5]);
        assert_eq!(ok.anchor([10; 3]).unwrap(), [9, 0, 3]);
        for p in [
            [f32::NAN, 0.0, 0.0],
            [0.0, f32::INFINITY, 0.0],
            [-0.5, 0.0, 0.0],
            [10.0, 0.0, 0.0],
        ] {
            assert!(MoveObject::new(1, p).anchor([10; 3]).is_err(), "{p:?}");
        }
    }
}
