//! # vwr-blocks — the block registry of `.vwr` worlds
//!
//! For each of the 4096 block types: its name, how it renders (opaque cube, transparent cube,
//! special geometry, invisible), its preview colour and how it collides in the gameplay layer
//! ([`Collision`]: solid, liquid, [`Trigger`] such as hazard or goal). [`Registry::default`] knows Galaxy
//! Eggbert's block types; a TOML file can override any entry ([`Registry::apply_toml`],
//! [`Registry::load_toml`]). [`Registry::id_by_name`] resolves the names users type.
//!
//! ```
//! use vwr_blocks::{Registry, RenderKind};
//!
//! let r = Registry::default();
//! assert_eq!(r.id_by_name("brick_wall"), Some(261));
//! assert_eq!(r.name(92), "Water");
//! assert_eq!(r.kind(92), RenderKind::Transparent);
//! ```
//!
//! ## Why a crate of its own
//!
//! The mesher (`vwr-mesh`), the editor (`vwr-edit`, whose edit scripts accept block names) and
//! the command line all need the same names. Keeping the registry here lets the editor and the
//! command line know block names without pulling in the mesher, and keeps the format crate
//! `vwr`, which games link, free of `toml` and `serde`. This crate depends on `vwr` only.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used)]

use std::path::Path;
use std::sync::OnceLock;

use serde::Deserialize;

/// Number of block types (the 12-bit type field of a [`vwr::Block`]).
pub const TYPE_COUNT: usize = vwr::Block::MAX_TYPE as usize + 1;

/// Why a registry override file was refused. A refused file leaves the registry untouched.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Reading the override file failed.
    #[error("block registry {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The override text is malformed (TOML syntax, unknown field, bad id, kind or colour,
    /// duplicate name).
    #[error("block registry {source_name}: {msg}")]
    Invalid {
        /// Where the text came from (a path, or `<toml>`).
        source_name: String,
        /// What is wrong, naming the `[[block]]` entry.
        msg: String,
    },
}

/// The default registry ([`Registry::galaxy_eggbert`]), built once and shared: for callers
/// that only look names up (edit scripts, layer views) and should not rebuild 4096 entries
/// each time.
pub fn default_registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(Registry::default)
}

/// Non-cube geometry drawn inside a cell. Special blocks never hide a neighbour's face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// A thin upright plate through the cell centre (thin along Z; a plate-rotation record
    /// turns it 90° so it is thin along X).
    Plate,
    /// A thin upright plate standing on the cell floor, lower than the cell (saws).
    GroundPlate,
    /// A box narrower than the cell, full height (switches, posts).
    Pillar,
    /// A thin vertical bar in the cell centre.
    Bar,
    /// Three crossed vertical quads, drawn from both sides (plants, decorations).
    Billboard,
    /// The four side walls of the cell, top and bottom open (a grate), drawn from both sides.
    Grate,
}

/// How a block type renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RenderKind {
    /// Not drawn and hides nothing (air).
    Invisible,
    /// A solid cube: drawn, hides the faces of its neighbours, casts ambient occlusion.
    Opaque,
    /// A see-through cube (water, glass): drawn in the transparent pass. It hides nothing
    /// except the face between two cells of the same transparent block.
    Transparent,
    /// Non-cube geometry; never hides a neighbour's face. Drawn in the transparent pass when
    /// its colour has alpha < 255.
    Special(Shape),
}

impl RenderKind {
    /// The kind's name as used in TOML files (`opaque`, `transparent`, `invisible`, `plate`,
    /// `ground-plate`, `pillar`, `bar`, `billboard`, `grate`).
    pub fn as_str(self) -> &'static str {
        match self {
            RenderKind::Invisible => "invisible",
            RenderKind::Opaque => "opaque",
            RenderKind::Transparent => "transparent",
            RenderKind::Special(Shape::Plate) => "plate",
            RenderKind::Special(Shape::GroundPlate) => "ground-plate",
            RenderKind::Special(Shape::Pillar) => "pillar",
            RenderKind::Special(Shape::Bar) => "bar",
            RenderKind::Special(Shape::Billboard) => "billboard",
            RenderKind::Special(Shape::Grate) => "grate",
        }
    }

    /// Parses a kind name (see [`RenderKind::as_str`]); case-insensitive, `_` = `-`.
    pub fn parse(s: &str) -> Option<RenderKind> {
        let s = s.trim().to_ascii_lowercase().replace('_', "-");
        Some(match s.as_str() {
            "invisible" | "air" => RenderKind::Invisible,
            "opaque" | "solid" | "cube" => RenderKind::Opaque,
            "transparent" | "glass" => RenderKind::Transparent,
            "plate" => RenderKind::Special(Shape::Plate),
            "ground-plate" | "groundplate" => RenderKind::Special(Shape::GroundPlate),
            "pillar" => RenderKind::Special(Shape::Pillar),
            "bar" => RenderKind::Special(Shape::Bar),
            "billboard" | "cross" => RenderKind::Special(Shape::Billboard),
            "grate" => RenderKind::Special(Shape::Grate),
            _ => return None,
        })
    }
}

// Mesher class codes: one byte per type, so the mesher's hot loops index a flat table
// ([`Registry::class_table`]) instead of matching on [`RenderKind`].
/// Class code of [`RenderKind::Invisible`] in [`Registry::class_table`].
pub const CLASS_NONE: u8 = 0;
/// Class code of [`RenderKind::Opaque`] in [`Registry::class_table`].
pub const CLASS_OPAQUE: u8 = 1;
/// Class code of [`RenderKind::Transparent`] in [`Registry::class_table`].
pub const CLASS_TRANSPARENT: u8 = 2;
/// Class code of [`RenderKind::Special`] in [`Registry::class_table`].
pub const CLASS_SPECIAL: u8 = 3;

/// What touching a block does in the gameplay layer (`vwr-play`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Trigger {
    /// Nothing.
    #[default]
    None,
    /// Kills the player (lava, spikes, saws, lightning).
    Hazard,
    /// Completes the level, like the exit object.
    Goal,
    /// A checkpoint: the player respawns here after dying.
    Checkpoint,
    /// A teleporter (reported as an event; the level loop does not move the player).
    Teleport,
}

impl Trigger {
    /// All triggers, in code order ([`Trigger::code`]).
    pub const ALL: [Trigger; 5] = [
        Trigger::None,
        Trigger::Hazard,
        Trigger::Goal,
        Trigger::Checkpoint,
        Trigger::Teleport,
    ];

    /// The trigger's name as used in TOML files and JSON output (`none`, `hazard`, `goal`,
    /// `checkpoint`, `teleport`).
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::None => "none",
            Trigger::Hazard => "hazard",
            Trigger::Goal => "goal",
            Trigger::Checkpoint => "checkpoint",
            Trigger::Teleport => "teleport",
        }
    }

    /// Parses a trigger name (see [`Trigger::as_str`]); case-insensitive.
    pub fn parse(s: &str) -> Option<Trigger> {
        let s = s.trim().to_ascii_lowercase();
        Trigger::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// A small number (0..=4, the index in [`Trigger::ALL`]) for flag tables.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The trigger of a code from [`Trigger::code`] (`None` for other values).
    pub fn from_code(code: u8) -> Option<Trigger> {
        Trigger::ALL.get(code as usize).copied()
    }
}

/// How a block type collides in the gameplay layer (`vwr-play`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Collision {
    /// Boxes cannot enter the cell (the whole cell is the collision shape).
    pub solid: bool,
    /// A liquid (water, lava): not solid, reported by queries.
    pub liquid: bool,
    /// What touching the cell does.
    pub trigger: Trigger,
}

impl Collision {
    /// The default collision of a render kind: opaque cubes, grates and pillars are solid;
    /// transparent cubes are solid (glass) unless `liquid`; plates, ground plates, bars,
    /// billboards and invisible blocks are passable.
    pub fn for_kind(kind: RenderKind, liquid: bool) -> Collision {
        let solid = match kind {
            RenderKind::Invisible => false,
            RenderKind::Opaque => !liquid,
            RenderKind::Transparent => !liquid,
            RenderKind::Special(Shape::Grate | Shape::Pillar) => true,
            RenderKind::Special(_) => false,
        };
        Collision {
            solid,
            liquid,
            trigger: Trigger::None,
        }
    }
}

/// Render and collision information of one block type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockInfo {
    /// Display name; unique within a registry (case-insensitively).
    pub name: String,
    /// How the type renders.
    pub kind: RenderKind,
    /// Preview colour, sRGB with straight alpha.
    pub color: [u8; 4],
    /// How the type collides (gameplay layer).
    pub collision: Collision,
}

/// Render information for all 4096 block types.
///
/// [`Registry::default`] knows Galaxy Eggbert's block types (the type is the icon index in the
/// game's tile sheet); unknown types render as opaque cubes with a colour hashed from the type
/// and are named `tileN`. A TOML file can override any entry (see [`Registry::apply_toml`]).
#[derive(Clone, Debug)]
pub struct Registry {
    infos: Vec<BlockInfo>,
    class: Box<[u8; TYPE_COUNT]>,
    by_name: std::collections::HashMap<String, u16>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::galaxy_eggbert()
    }
}

/// A deterministic pleasant colour for a type nobody described.
pub fn hashed_color(block_type: u16) -> [u8; 4] {
    // FNV-1a over the two bytes, then HSV with moderate saturation.
    let mut h: u32 = 0x811c_9dc5;
    for b in block_type.to_le_bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    let hue = (h % 360) as f32;
    let sat = 0.35 + ((h >> 9) % 30) as f32 / 100.0;
    let val = 0.62 + ((h >> 17) % 25) as f32 / 100.0;
    let rgb = hsv(hue, sat, val);
    [rgb[0], rgb[1], rgb[2], 255]
}

fn hsv(h: f32, s: f32, v: f32) -> [u8; 3] {
    let c = v * s;
    let hp = h / 60.0;
    let x = c * (1.0 - ((hp % 2.0) - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    let f = |t: f32| ((t + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    [f(r), f(g), f(b)]
}

/// Galaxy Eggbert's named types: (type, name, kind, colour).
const KNOWN: &[(u16, &str, RenderKind, [u8; 4])] = {
    use RenderKind::*;
    use Shape::*;
    &[
        (1, "Grass", Opaque, [92, 160, 64, 255]),
        (2, "Dirt", Opaque, [134, 96, 62, 255]),
        (3, "Stone", Opaque, [128, 128, 128, 255]),
        (10, "Ground", Opaque, [104, 150, 72, 255]),
        (18, "StoneA", Opaque, [176, 174, 166, 255]),
        (25, "StoneB", Opaque, [96, 96, 104, 255]),
        (30, "Glass", Transparent, [170, 215, 235, 110]),
        (31, "GlassTinted", Transparent, [140, 190, 220, 120]),
        (35, "RockPile", Opaque, [138, 124, 108, 255]),
        (68, "Lava", Opaque, [240, 104, 24, 255]),
        (69, "Lava2", Opaque, [244, 120, 30, 255]),
        (70, "Lava3", Opaque, [246, 136, 36, 255]),
        (71, "Lava4", Opaque, [244, 120, 30, 255]),
        (72, "Lava5", Opaque, [240, 104, 24, 255]),
        (76, "Post", Special(Pillar), [150, 130, 100, 255]),
        (91, "DeepWater", Transparent, [36, 84, 170, 170]),
        (92, "Water", Transparent, [52, 116, 210, 140]),
        (93, "Water1b", Transparent, [52, 116, 210, 140]),
        (94, "Water1c", Transparent, [52, 116, 210, 140]),
        (95, "Water1d", Transparent, [52, 116, 210, 140]),
        (96, "Water2", Transparent, [44, 140, 196, 140]),
        (97, "Water2b", Transparent, [44, 140, 196, 140]),
        (98, "Water2c", Transparent, [44, 140, 196, 140]),
        (126, "FanLeft", Opaque, [128, 164, 188, 255]),
        (129, "FanRight", Opaque, [128, 164, 188, 255]),
        (132, "FanUp", Opaque, [128, 164, 188, 255]),
        (135, "FanDown", Opaque, [128, 164, 188, 255]),
        (158, "WorldSelect1", Opaque, [150, 92, 200, 255]),
        (159, "WorldSelect2", Opaque, [150, 92, 200, 255]),
        (160, "WorldSelect3", Opaque, [150, 92, 200, 255]),
        (161, "WorldSelect4", Opaque, [150, 92, 200, 255]),
        (162, "WorldSelect5", Opaque, [150, 92, 200, 255]),
        (163, "WorldSelect6", Opaque, [150, 92, 200, 255]),
        (164, "WorldSelect7", Opaque, [150, 92, 200, 255]),
        (165, "WorldSelect8", Opaque, [150, 92, 200, 255]),
        (166, "WorldSelect9", Opaque, [150, 92, 200, 255]),
        (167, "WorldSelect10", Opaque, [150, 92, 200, 255]),
        (168, "WorldSelect11", Opaque, [150, 92, 200, 255]),
        (169, "WorldSelect12", Opaque, [150, 92, 200, 255]),
        (170, "ProgressDoor2", Opaque, [150, 104, 60, 255]),
        (171, "ProgressDoor3", Opaque, [150, 104, 60, 255]),
        (172, "ProgressDoor4", Opaque, [150, 104, 60, 255]),
        (173, "ProgressDoor5", Opaque, [150, 104, 60, 255]),
        (174, "ProgressDoor6", Opaque, [150, 104, 60, 255]),
        (175, "ProgressDoor7", Opaque, [150, 104, 60, 255]),
        (176, "ProgressDoor8", Opaque, [150, 104, 60, 255]),
        (177, "DemoPortal", Opaque, [220, 64, 200, 255]),
        (183, "GoldPillar", Opaque, [214, 174, 56, 255]),
        (200, "Grate", Special(Grate), [92, 98, 106, 255]),
        (202, "ThinBar", Special(Bar), [160, 200, 220, 160]),
        (203, "Marine", Transparent, [40, 120, 180, 150]),
        (204, "Marine2", Transparent, [40, 120, 180, 150]),
        (205, "Marine3", Transparent, [40, 120, 180, 150]),
        (206, "Marine4", Transparent, [40, 120, 180, 150]),
        (207, "Marine5", Transparent, [40, 120, 180, 150]),
        (208, "Marine6", Transparent, [40, 120, 180, 150]),
        (211, "Spring", Opaque, [170, 210, 60, 255]),
        (261, "BrickWall", Opaque, [168, 72, 52, 255]),
        (304, "BlitzEmitter", Opaque, [200, 200, 90, 255]),
        (305, "Blitz", Opaque, [250, 232, 60, 255]),
        (309, "Marker", Opaque, [230, 230, 230, 255]),
        (317, "Crusher", Opaque, [84, 88, 100, 255]),
        (324, "Temp", Opaque, [150, 190, 150, 255]),
        (330, "Teleport1", Transparent, [80, 220, 230, 150]),
        (331, "Teleport2", Transparent, [80, 220, 230, 150]),
        (332, "Teleport3", Transparent, [80, 220, 230, 150]),
        (333, "Teleport4", Transparent, [80, 220, 230, 150]),
        (334, "Door1", Opaque, [200, 50, 50, 255]),
        (335, "Door2", Opaque, [50, 170, 70, 255]),
        (336, "Door3", Opaque, [50, 80, 200, 255]),
        (364, "Bridge", Opaque, [160, 120, 72, 255]),
        (373, "Spike", Opaque, [196, 200, 210, 255]),
        (378, "Saw", Special(GroundPlate), [180, 184, 194, 255]),
        (
            379,
            "SawStopped",
            Special(GroundPlate),
            [150, 154, 164, 255],
        ),
        (384, "Switch", Special(Pillar), [220, 60, 50, 255]),
        (385, "SwitchOff", Special(Pillar), [70, 170, 70, 255]),
        (404, "Drip", Opaque, [86, 164, 86, 255]),
        (411, "Tile411", Opaque, [180, 160, 120, 255]),
        (412, "Tile412", Opaque, [170, 150, 110, 255]),
        (413, "Tile413", Opaque, [160, 140, 100, 255]),
    ]
};

/// Liquids of Galaxy Eggbert: water, deep water, marine water and lava (not solid).
const LIQUIDS: &[u16] = &[
    68, 69, 70, 71, 72, 91, 92, 93, 94, 95, 96, 97, 98, 203, 204, 205, 206, 207, 208,
];
/// Hazards: lava, spikes, lightning, running saws.
const HAZARDS: &[u16] = &[68, 69, 70, 71, 72, 305, 373, 378, 380, 381, 382, 383];
/// Teleporters (transparent, passable).
const TELEPORTS: &[u16] = &[330, 331, 332, 333];

/// Special-geometry classes of the original's render-mode table.
const PLATES: &[u16] = &[
    77, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 138, 199,
    264, 265, 266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282,
    285, 286, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 298, 299, 300, 302, 303, 367,
    368, 369, 370, 371, 372, 398,
];
const BILLBOARDS: &[u16] = &[53, 54, 55, 56, 57, 58, 59, 60, 63, 64];

impl Registry {
    /// The default registry for Galaxy Eggbert's block types.
    pub fn galaxy_eggbert() -> Registry {
        let mut infos: Vec<BlockInfo> = (0..TYPE_COUNT as u16)
            .map(|t| BlockInfo {
                name: format!("tile{t}"),
                kind: RenderKind::Opaque,
                color: hashed_color(t),
                collision: Collision::for_kind(RenderKind::Opaque, false),
            })
            .collect();
        infos[0] = BlockInfo {
            name: "Air".into(),
            kind: RenderKind::Invisible,
            color: [0, 0, 0, 0],
            collision: Collision::default(),
        };
        for &t in PLATES {
            infos[t as usize].kind = RenderKind::Special(Shape::Plate);
        }
        for &t in BILLBOARDS {
            let i = &mut infos[t as usize];
            i.kind = RenderKind::Special(Shape::Billboard);
            // Plants and decorations: lean the hashed colour towards green.
            i.color = [
                (i.color[0] as u16 * 2 / 3) as u8,
                (i.color[1] as u16 / 3 + 120).min(255) as u8,
                (i.color[2] as u16 * 2 / 3) as u8,
                255,
            ];
        }
        // Saw animation frames and the other fan frames share their base's look.
        for t in 380..=383u16 {
            infos[t as usize].kind = RenderKind::Special(Shape::GroundPlate);
        }
        for &(t, name, kind, color) in KNOWN {
            infos[t as usize] = BlockInfo {
                name: name.into(),
                kind,
                color,
                collision: Collision::default(),
            };
        }
        for (t, info) in infos.iter_mut().enumerate() {
            let t = t as u16;
            info.collision = Collision::for_kind(info.kind, LIQUIDS.contains(&t));
            if HAZARDS.contains(&t) {
                info.collision.trigger = Trigger::Hazard;
            }
            if TELEPORTS.contains(&t) {
                info.collision = Collision {
                    solid: false,
                    liquid: false,
                    trigger: Trigger::Teleport,
                };
            }
        }
        Registry::from_infos(infos)
    }

    /// A registry where every non-air type is an opaque cube (colours as in the default).
    /// Useful to compare with meshers that know only solid voxels.
    pub fn all_opaque() -> Registry {
        let mut r = Registry::galaxy_eggbert();
        for t in 1..TYPE_COUNT {
            r.infos[t].kind = RenderKind::Opaque;
            r.infos[t].color[3] = 255;
        }
        r.rebuild_classes();
        r
    }

    fn from_infos(infos: Vec<BlockInfo>) -> Registry {
        let mut r = Registry {
            infos,
            class: Box::new([CLASS_NONE; TYPE_COUNT]),
            by_name: std::collections::HashMap::new(),
        };
        r.rebuild_classes();
        r
    }

    fn rebuild_classes(&mut self) {
        self.by_name.clear();
        for (t, info) in self.infos.iter().enumerate() {
            // A type's own generic name `tileN` resolves without the table (id_by_name's
            // fallback), which keeps building the default registry cheap for every command.
            if info
                .name
                .strip_prefix("tile")
                .and_then(|n| n.parse::<usize>().ok())
                == Some(t)
            {
                continue;
            }
            self.by_name
                .entry(normalize_name(&info.name))
                .or_insert(t as u16);
        }
        for (c, info) in self.class.iter_mut().zip(&self.infos) {
            *c = match info.kind {
                RenderKind::Invisible => CLASS_NONE,
                RenderKind::Opaque => CLASS_OPAQUE,
                RenderKind::Transparent => CLASS_TRANSPARENT,
                RenderKind::Special(_) => CLASS_SPECIAL,
            };
        }
    }

    /// Class code ([`CLASS_NONE`], [`CLASS_OPAQUE`], …) of a block type (masked to 12 bits).
    #[inline]
    pub fn class_of_type(&self, block_type: u16) -> u8 {
        self.class[(block_type & 0xFFF) as usize]
    }

    /// The class codes of all types, indexed by type (for the mesher's hot loops).
    #[inline]
    pub fn class_table(&self) -> &[u8; TYPE_COUNT] {
        &self.class
    }

    /// Render information of a type (masked to 12 bits).
    pub fn info(&self, block_type: u16) -> &BlockInfo {
        &self.infos[(block_type & 0xFFF) as usize]
    }

    /// The render kind of a type.
    pub fn kind(&self, block_type: u16) -> RenderKind {
        self.info(block_type).kind
    }

    /// How a type collides (gameplay layer).
    ///
    /// ```
    /// use vwr_blocks::{Registry, Trigger};
    /// let r = Registry::default();
    /// assert!(r.collision(35).solid); // RockPile
    /// assert!(!r.collision(92).solid && r.collision(92).liquid); // Water
    /// assert_eq!(r.collision(68).trigger, Trigger::Hazard); // Lava
    /// assert!(!r.collision(378).solid); // Saw: a passable hazard
    /// ```
    pub fn collision(&self, block_type: u16) -> Collision {
        self.info(block_type).collision
    }

    /// The preview colour of a type (sRGB + straight alpha).
    pub fn color(&self, block_type: u16) -> [u8; 4] {
        self.info(block_type).color
    }

    /// The name of a type (`tileN` for types nobody named).
    pub fn name(&self, block_type: u16) -> &str {
        &self.info(block_type).name
    }

    /// Resolves a block name to its type. Case-insensitive, ignoring `_`, `-` and spaces;
    /// also accepts a plain number (`"35"`) or `tileN`.
    ///
    /// ```
    /// let r = vwr_blocks::Registry::default();
    /// assert_eq!(r.id_by_name("RockPile"), Some(35));
    /// assert_eq!(r.id_by_name("brick_wall"), Some(261));
    /// assert_eq!(r.id_by_name("tile999"), Some(999));
    /// assert_eq!(r.id_by_name("261"), Some(261));
    /// assert_eq!(r.id_by_name("no such block"), None);
    /// ```
    pub fn id_by_name(&self, name: &str) -> Option<u16> {
        let key = normalize_name(name);
        if key.is_empty() {
            return None;
        }
        if let Ok(n) = key.parse::<u16>() {
            return ((n as usize) < TYPE_COUNT).then_some(n);
        }
        if let Some(&t) = self.by_name.get(&key) {
            return Some(t);
        }
        let n: u16 = key.strip_prefix("tile")?.parse().ok()?;
        ((n as usize) < TYPE_COUNT).then_some(n)
    }

    /// The registry's name nearest to a name that [`id_by_name`](Self::id_by_name) does not
    /// know, for a "did you mean" hint: the closest by edit distance (after the same
    /// normalisation), when it is at most a third of the name's length away (at least one edit).
    ///
    /// ```
    /// let r = vwr_blocks::Registry::default();
    /// assert_eq!(r.suggest_name("rockpil").as_deref(), Some("RockPile"));
    /// assert_eq!(r.suggest_name("brik_wall").as_deref(), Some("BrickWall"));
    /// assert_eq!(r.suggest_name("zzzzzzzz"), None);
    /// ```
    pub fn suggest_name(&self, name: &str) -> Option<String> {
        let key = normalize_name(name);
        let limit = (key.chars().count() / 3).max(1);
        let (distance, id, _) = self
            .by_name
            .iter()
            .map(|(candidate, &id)| (strsim::damerau_levenshtein(&key, candidate), id, candidate))
            .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.2.cmp(b.2)))?;
        (distance <= limit).then(|| self.name(id).to_string())
    }

    /// Replaces the information of one type.
    pub fn set(&mut self, block_type: u16, info: BlockInfo) {
        let t = (block_type & 0xFFF) as usize;
        self.infos[t] = info;
        self.rebuild_classes();
    }

    /// Reads a registry: the default one with the overrides of a TOML file applied.
    pub fn load_toml(path: &Path) -> Result<Registry, RegistryError> {
        let text = std::fs::read_to_string(path).map_err(|e| RegistryError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        let mut r = Registry::default();
        r.apply_toml(&text).map_err(|e| match e {
            RegistryError::Invalid { msg, .. } => RegistryError::Invalid {
                source_name: path.display().to_string(),
                msg,
            },
            other => other,
        })?;
        Ok(r)
    }

    /// Applies overrides from TOML text:
    ///
    /// ```toml
    /// [[block]]
    /// id = 35                 # or: name = "RockPile" to pick an existing entry
    /// name = "Boulders"       # optional new name
    /// kind = "opaque"         # opaque | transparent | invisible | plate | ground-plate |
    ///                         # pillar | bar | billboard | grate
    /// color = "#8a7c6c"       # "#rrggbb", "#rrggbbaa" or [r, g, b] / [r, g, b, a]
    /// solid = true            # gameplay collision (default: from the kind, see
    ///                         # Collision::for_kind)
    /// liquid = false          # a liquid (not solid unless `solid = true` is given)
    /// trigger = "hazard"      # none | hazard | goal | checkpoint | teleport
    /// ```
    ///
    /// Changing `kind` (or `liquid`) resets the collision to that kind's default before `solid`
    /// and `trigger` are applied; the trigger is kept unless given.
    ///
    /// ```
    /// let mut r = vwr_blocks::Registry::default();
    /// r.apply_toml("[[block]]\nid = 35\nkind = \"transparent\"\ncolor = [10, 20, 30, 128]\n")?;
    /// assert_eq!(r.kind(35), vwr_blocks::RenderKind::Transparent);
    /// assert_eq!(r.color(35), [10, 20, 30, 128]);
    /// # Ok::<(), vwr_blocks::RegistryError>(())
    /// ```
    pub fn apply_toml(&mut self, text: &str) -> Result<(), RegistryError> {
        let err = |msg: String| RegistryError::Invalid {
            source_name: "<toml>".into(),
            msg,
        };
        let file: TomlFile = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        // Work on a copy so that a bad file leaves the registry untouched.
        let mut next = self.clone();
        for (n, b) in file.block.iter().enumerate() {
            let t = match (b.id, &b.name) {
                (Some(id), _) => {
                    if id as usize >= TYPE_COUNT {
                        return Err(err(format!("block #{n}: id {id} is above 4095")));
                    }
                    id as u16
                }
                (None, Some(name)) => next.id_by_name(name).ok_or_else(|| {
                    err(format!(
                        "block #{n}: no block named {name:?} (give `id` to add one)"
                    ))
                })?,
                (None, None) => return Err(err(format!("block #{n}: needs `id` or `name`"))),
            };
            let mut info = next.info(t).clone();
            if let (Some(_), Some(name)) = (b.id, &b.name) {
                info.name = name.clone();
            }
            if let Some(k) = &b.kind {
                info.kind = RenderKind::parse(k)
                    .ok_or_else(|| err(format!("block #{n}: unknown kind {k:?}")))?;
            }
            if b.kind.is_some() || b.liquid.is_some() {
                let trigger = info.collision.trigger;
                let liquid = b.liquid.unwrap_or(info.collision.liquid);
                info.collision = Collision::for_kind(info.kind, liquid);
                info.collision.trigger = trigger;
            }
            if let Some(solid) = b.solid {
                info.collision.solid = solid;
            }
            if let Some(tr) = &b.trigger {
                info.collision.trigger = Trigger::parse(tr).ok_or_else(|| {
                    err(format!(
                        "block #{n}: unknown trigger {tr:?} (none, hazard, goal, checkpoint, teleport)"
                    ))
                })?;
            }
            if let Some(c) = &b.color {
                info.color = c
                    .to_rgba()
                    .ok_or_else(|| err(format!("block #{n}: bad colour {c:?}")))?;
            }
            next.infos[t as usize] = info;
        }
        // Names must stay unique so that `id_by_name` is unambiguous.
        let mut seen = std::collections::HashMap::new();
        for (t, i) in next.infos.iter().enumerate() {
            if let Some(prev) = seen.insert(normalize_name(&i.name), t) {
                return Err(err(format!(
                    "name {:?} is used by types {prev} and {t}",
                    i.name
                )));
            }
        }
        next.rebuild_classes();
        *self = next;
        Ok(())
    }
}

/// The form in which block names are compared: lower case, without `_`, `-` and spaces
/// (`"Brick_Wall"`, `"brick wall"` and `"brickwall"` are the same name).
pub fn normalize_name(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(|c| c.to_lowercase())
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlFile {
    #[serde(default)]
    block: Vec<TomlBlock>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlBlock {
    id: Option<u32>,
    name: Option<String>,
    kind: Option<String>,
    color: Option<TomlColor>,
    solid: Option<bool>,
    liquid: Option<bool>,
    trigger: Option<String>,
}

#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum TomlColor {
    Hex(String),
    List(Vec<i64>),
}

impl TomlColor {
    fn to_rgba(&self) -> Option<[u8; 4]> {
        match self {
            TomlColor::Hex(s) => {
                let h = s.strip_prefix('#').unwrap_or(s);
                if !(h.len() == 6 || h.len() == 8) || !h.is_ascii() {
                    return None;
                }
                let byte = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).ok();
                Some([
                    byte(0)?,
                    byte(2)?,
                    byte(4)?,
                    if h.len() == 8 { byte(6)? } else { 255 },
                ])
            }
            TomlColor::List(v) => {
                if !(v.len() == 3 || v.len() == 4) || v.iter().any(|&c| !(0..=255).contains(&c)) {
                    return None;
                }
                Some([
                    v[0] as u8,
                    v[1] as u8,
                    v[2] as u8,
                    *v.get(3).unwrap_or(&255) as u8,
                ])
            }
        }
    }
}

#[cfg(test)]
mod tests;
