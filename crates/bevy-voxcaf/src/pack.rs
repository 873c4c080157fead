//! `.cafpack` archives as an asset source: `cafpack://game.cafpack/textures/hero.caf` is the
//! member `textures/hero.caf` of `game.cafpack` (in the source's folder), read alone: opening a
//! pack reads its header and index once, and a member's load reads that member's bytes and no
//! others (Bevy issue 21641). Bevy's `#` names a labeled sub-asset, so the member path follows
//! the pack's name after a `/`: `cafpack://game.cafpack/meshes/hero.caf#part/0` is a sub-mesh
//! of a packed mesh.
//!
//! Register it before Bevy's asset plugin with [`CafPackSourcePlugin`] (the headless app does).

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bevy::app::{App, Plugin};
use bevy::asset::io::{
    AssetReader, AssetReaderError, AssetSourceBuilder, PathStream, Reader, VecReader,
};
use bevy::asset::AssetApp;
use bevy::prelude::Resource;
use bevy::tasks::futures_lite::stream;
use caf::pack::Pack;

/// The name of the asset source (`cafpack://...`).
pub const SOURCE: &str = "cafpack";

/// Registers the `cafpack://` asset source over the packs in `root`; add it before Bevy's
/// asset plugin (before `DefaultPlugins`).
#[derive(Clone, Debug)]
pub struct CafPackSourcePlugin {
    /// The folder the packs are in (relative paths: to the working directory).
    pub root: PathBuf,
}

/// How many member bytes the `cafpack://` source has read (a pack's header and index, read
/// once when it is first opened, not counted).
#[derive(Resource, Clone, Default, Debug)]
pub struct CafPackStats {
    read: Arc<AtomicU64>,
}

impl CafPackStats {
    /// Member bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }
}

impl Plugin for CafPackSourcePlugin {
    fn build(&self, app: &mut App) {
        let stats = CafPackStats::default();
        let (root, counter) = (self.root.clone(), stats.read.clone());
        let packs: Arc<Mutex<HashMap<PathBuf, Arc<Pack>>>> = Arc::default();
        app.register_asset_source(
            SOURCE,
            AssetSourceBuilder::new(move || {
                Box::new(CafPackReader {
                    root: root.clone(),
                    packs: packs.clone(),
                    read: counter.clone(),
                })
            }),
        );
        app.insert_resource(stats);
    }
}

/// The [`AssetReader`] of `cafpack://`: packs opened on first use and kept open.
pub struct CafPackReader {
    root: PathBuf,
    packs: Arc<Mutex<HashMap<PathBuf, Arc<Pack>>>>,
    read: Arc<AtomicU64>,
}

/// `game.cafpack/textures/hero.caf` as (`game.cafpack`, `textures/hero.caf`); the member part
/// may be empty (the pack itself).
fn split(path: &Path) -> Option<(PathBuf, String)> {
    let mut pack = PathBuf::new();
    let mut parts = path.components();
    for c in parts.by_ref() {
        match c {
            Component::Normal(n) => {
                pack.push(n);
                if n.to_str().is_some_and(|s| s.ends_with(".cafpack")) {
                    let rest: Vec<&str> = parts
                        .map(|c| c.as_os_str().to_str())
                        .collect::<Option<_>>()?;
                    return Some((pack, rest.join("/")));
                }
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    None
}

fn io_error(e: impl std::fmt::Display) -> AssetReaderError {
    AssetReaderError::Io(Arc::new(std::io::Error::other(e.to_string())))
}

impl CafPackReader {
    /// The open pack at `rel` (opened now, on first use).
    fn pack(&self, rel: &Path) -> Result<Arc<Pack>, AssetReaderError> {
        let mut packs = self.packs.lock().map_err(io_error)?;
        if let Some(p) = packs.get(rel) {
            return Ok(p.clone());
        }
        let full = self.root.join(rel);
        if !full.is_file() {
            return Err(AssetReaderError::NotFound(full));
        }
        let pack = Arc::new(Pack::open(&full).map_err(io_error)?);
        packs.insert(rel.to_path_buf(), pack.clone());
        Ok(pack)
    }

    /// The member at `path`, read alone.
    fn member(&self, path: &Path) -> Result<Vec<u8>, AssetReaderError> {
        let not_found = || AssetReaderError::NotFound(path.to_path_buf());
        let (rel, member) = split(path).ok_or_else(not_found)?;
        let pack = self.pack(&rel)?;
        let mut range = pack
            .open_member(&member)
            .map_err(io_error)?
            .ok_or_else(not_found)?;
        // The index bounded every member by the file's size.
        let mut bytes = Vec::with_capacity(usize::try_from(range.len()).unwrap_or(0));
        range
            .read_to_end(&mut bytes)
            .map_err(|e| AssetReaderError::Io(Arc::new(e)))?;
        self.read.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(bytes)
    }

    /// The member paths of the pack at `path`'s pack, directly under `path`.
    fn children(&self, path: &Path) -> Result<Vec<PathBuf>, AssetReaderError> {
        let not_found = || AssetReaderError::NotFound(path.to_path_buf());
        let (rel, dir) = split(path).ok_or_else(not_found)?;
        let pack = self.pack(&rel)?;
        let prefix = if dir.is_empty() {
            dir
        } else {
            format!("{dir}/")
        };
        let names: BTreeSet<String> = pack
            .entries()
            .filter_map(|(p, _)| p.strip_prefix(prefix.as_str()))
            .map(|rest| rest.split('/').next().unwrap_or(rest).to_string())
            .collect();
        if names.is_empty() && !prefix.is_empty() {
            return Err(not_found());
        }
        Ok(names.into_iter().map(|n| path.join(n)).collect())
    }
}

impl AssetReader for CafPackReader {
    async fn read<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        self.member(path).map(VecReader::new)
    }

    async fn read_meta<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        // Members carry no `.meta` files: the loaders' defaults apply.
        Err::<VecReader, _>(AssetReaderError::NotFound(path.to_path_buf()))
    }

    async fn read_directory<'a>(
        &'a self,
        path: &'a Path,
    ) -> Result<Box<PathStream>, AssetReaderError> {
        let children = self.children(path)?;
        Ok(Box::new(stream::iter(children)))
    }

    async fn is_directory<'a>(&'a self, path: &'a Path) -> Result<bool, AssetReaderError> {
        let Some((rel, member)) = split(path) else {
            return Ok(false);
        };
        if member.is_empty() {
            return Ok(true);
        }
        let pack = self.pack(&rel)?;
        let prefix = format!("{member}/");
        Ok(pack.find(&member).is_none() && pack.entries().any(|(p, _)| p.starts_with(&prefix)))
    }
}
