//! The mapping between MagicaVoxel palette indices and block values (`--palette FILE.toml`),
//! and the nearest-colour fallback.

use std::collections::BTreeMap;

use vwr::Block;
use vwr_blocks::{Registry, RenderKind};

use crate::error::{Result, VoxError};

/// Palette indices (MagicaVoxel's 1..=255) mapped to block values.
///
/// The TOML form has one table, `[palette]`, whose keys are palette indices and whose values
/// are a block name or type number (metadata 0), or `"type:meta"` / `"name:meta"`:
///
/// ```
/// let map = vwr_vox::PaletteMap::from_toml(
///     "[palette]\n1 = \"rockpile\"\n2 = 261\n3 = \"35:2\"\n",
///     vwr_blocks::default_registry(),
/// )?;
/// assert_eq!(map.block(1), Some(vwr::Block::make(35, 0)?));
/// assert_eq!(map.index(vwr::Block::make(35, 2)?), Some(3));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaletteMap {
    by_index: BTreeMap<u8, Block>,
    by_block: BTreeMap<Block, u8>,
}

impl PaletteMap {
    /// An empty mapping.
    pub fn new() -> PaletteMap {
        PaletteMap::default()
    }

    /// Maps palette index `index` (1..=255) to `block` (not air), replacing what it mapped.
    pub fn insert(&mut self, index: u8, block: Block) -> Result<()> {
        if index == 0 || block.is_air() {
            return Err(VoxError::PaletteEntry {
                key: index.to_string(),
                reason: if index == 0 {
                    "palette index 0 is empty space in MagicaVoxel; use 1..=255".into()
                } else {
                    "air cannot be a palette entry".into()
                },
            });
        }
        if let Some(&first) = self.by_block.get(&block) {
            if first != index {
                return Err(VoxError::DuplicateBlock {
                    block: format!("{}:{}", block.block_type(), block.metadata()),
                    first,
                    second: index,
                });
            }
        }
        if let Some(old) = self.by_index.insert(index, block) {
            self.by_block.remove(&old);
        }
        self.by_block.insert(block, index);
        Ok(())
    }

    /// Reads the TOML form (see the type's documentation); names are resolved by `registry`.
    pub fn from_toml(text: &str, registry: &Registry) -> Result<PaletteMap> {
        let table: toml::Table = toml::from_str(text).map_err(|e| VoxError::PaletteToml {
            message: e.to_string().trim_end().to_string(),
        })?;
        let mut map = PaletteMap::new();
        for (key, value) in &table {
            if key != "palette" {
                return Err(VoxError::PaletteToml {
                    message: format!("unknown table or key {key:?} (expected only [palette])"),
                });
            }
            let Some(entries) = value.as_table() else {
                return Err(VoxError::PaletteToml {
                    message: "`palette` must be a table of index = block".into(),
                });
            };
            for (k, v) in entries {
                let bad = |reason: String| VoxError::PaletteEntry {
                    key: k.clone(),
                    reason,
                };
                let index: u8 = k
                    .trim()
                    .parse()
                    .ok()
                    .filter(|&i| i >= 1)
                    .ok_or_else(|| bad("the key must be a palette index 1..=255".into()))?;
                let block = match v {
                    toml::Value::Integer(t) => {
                        let t = u16::try_from(*t)
                            .ok()
                            .filter(|t| (1..=Block::MAX_TYPE).contains(t))
                            .ok_or_else(|| bad(format!("block type {t} is not in 1..=4095")))?;
                        Block::make(t, 0)?
                    }
                    toml::Value::String(s) => parse_block(s, registry).map_err(bad)?,
                    other => {
                        return Err(bad(format!(
                            "expected a block name, number or \"type:meta\", found {}",
                            other.type_str()
                        )))
                    }
                };
                map.insert(index, block)?;
            }
        }
        Ok(map)
    }

    /// The block a palette index maps to.
    pub fn block(&self, index: u8) -> Option<Block> {
        self.by_index.get(&index).copied()
    }

    /// The palette index a block maps to.
    pub fn index(&self, block: Block) -> Option<u8> {
        self.by_block.get(&block).copied()
    }

    /// The entries, by index.
    pub fn iter(&self) -> impl Iterator<Item = (u8, Block)> + '_ {
        self.by_index.iter().map(|(&i, &b)| (i, b))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.by_index.len()
    }

    /// Whether the mapping is empty.
    pub fn is_empty(&self) -> bool {
        self.by_index.is_empty()
    }
}

/// `"rockpile"`, `"35"`, `"35:2"`, `"rockpile:2"`.
fn parse_block(s: &str, registry: &Registry) -> std::result::Result<Block, String> {
    let (name, meta) = match s.rsplit_once(':') {
        Some((n, m)) => {
            let meta: u8 = m
                .trim()
                .parse()
                .ok()
                .filter(|&m| m <= Block::MAX_META)
                .ok_or_else(|| format!("metadata {m:?} is not in 0..=15"))?;
            (n, meta)
        }
        None => (s, 0),
    };
    let t = registry
        .id_by_name(name)
        .ok_or_else(|| match registry.suggest_name(name) {
            Some(near) => format!("unknown block {name:?}; did you mean {near}?"),
            None => format!("unknown block {name:?}"),
        })?;
    if t == 0 {
        return Err("air cannot be a palette entry".into());
    }
    Block::make(t, meta).map_err(|e| e.to_string())
}

/// Maps colours to the registry's opaque named block types by nearest colour.
pub(crate) struct NearestColour {
    candidates: Vec<(u16, [u8; 3])>,
}

impl NearestColour {
    pub(crate) fn new(registry: &Registry) -> NearestColour {
        let named = |t: u16| registry.name(t) != format!("tile{t}");
        let mut candidates: Vec<(u16, [u8; 3])> = (1..=Block::MAX_TYPE)
            .filter(|&t| registry.kind(t) == RenderKind::Opaque && named(t))
            .map(|t| {
                let c = registry.color(t);
                (t, [c[0], c[1], c[2]])
            })
            .collect();
        if candidates.is_empty() {
            // A registry that names nothing: every visible type is a candidate.
            candidates = (1..=Block::MAX_TYPE)
                .filter(|&t| registry.kind(t) != RenderKind::Invisible)
                .map(|t| {
                    let c = registry.color(t);
                    (t, [c[0], c[1], c[2]])
                })
                .collect();
        }
        NearestColour { candidates }
    }

    /// The block type whose colour is nearest (squared RGB distance, lowest type on ties).
    pub(crate) fn nearest(&self, rgb: [u8; 3]) -> u16 {
        let d = |c: [u8; 3]| -> u32 {
            (0..3)
                .map(|k| (c[k] as i32 - rgb[k] as i32).pow(2) as u32)
                .sum()
        };
        self.candidates
            .iter()
            .min_by_key(|(t, c)| (d(*c), *t))
            .map_or(1, |&(t, _)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_errors_name_the_entry() {
        let r = vwr_blocks::default_registry();
        let e = PaletteMap::from_toml("[palette]\n0 = 35\n", r).unwrap_err();
        assert!(e.to_string().contains("\"0\""), "{e}");
        let e = PaletteMap::from_toml("[palette]\n1 = \"no such\"\n", r).unwrap_err();
        assert!(e.to_string().contains("unknown block"), "{e}");
        let e = PaletteMap::from_toml("[palette]\n1 = \"35:16\"\n", r).unwrap_err();
        assert!(e.to_string().contains("metadata"), "{e}");
        let e = PaletteMap::from_toml("[palette]\n1 = 35\n2 = 35\n", r).unwrap_err();
        assert!(matches!(e, VoxError::DuplicateBlock { .. }), "{e}");
        let e = PaletteMap::from_toml("[palette\n", r).unwrap_err();
        assert!(matches!(e, VoxError::PaletteToml { .. }), "{e}");
        let e = PaletteMap::from_toml("[other]\n", r).unwrap_err();
        assert!(matches!(e, VoxError::PaletteToml { .. }), "{e}");
        let e = PaletteMap::from_toml("[palette]\n1 = 0\n", r).unwrap_err();
        assert!(matches!(e, VoxError::PaletteEntry { .. }), "{e}");
    }

    #[test]
    fn nearest_colour_finds_an_exact_registry_colour() {
        let r = vwr_blocks::default_registry();
        let n = NearestColour::new(r);
        let c = r.color(261);
        let t = n.nearest([c[0], c[1], c[2]]);
        assert_eq!(&r.color(t)[..3], &c[..3]);
    }
}
