//! What reloads report: [`AssetEvent`].

use std::sync::Arc;

use crate::error::AssetError;
use crate::kind::Kind;
use crate::path::AssetPath;

/// Something that happened to an entry through a reload (a file change seen by the watcher,
/// or [`AssetManager::reload`](crate::AssetManager::reload)). Drained on the caller's thread
/// by [`AssetManager::drain_events`](crate::AssetManager::drain_events). First loads report
/// nothing; watch their [`Status`](crate::Status).
#[non_exhaustive]
#[derive(Clone, Debug)]
pub enum AssetEvent {
    /// A new version was swapped in; the next [`AssetManager::get`](crate::AssetManager::get)
    /// returns it.
    Reloaded {
        /// The asset.
        path: AssetPath,
        /// The kind of the entry.
        kind: Kind,
        /// The new version number.
        version: u64,
        /// The entry had failed before and now has data.
        recovered: bool,
    },
    /// A reload failed. The previous version, if any, stays in place.
    ReloadFailed {
        /// The asset.
        path: AssetPath,
        /// The kind of the entry.
        kind: Kind,
        /// What went wrong (a half-written file shows up as a size or CRC mismatch).
        error: Arc<AssetError>,
        /// The version still served, `None` when the entry has no data.
        kept_version: Option<u64>,
    },
}

impl AssetEvent {
    /// The asset the event is about.
    pub fn path(&self) -> &AssetPath {
        match self {
            AssetEvent::Reloaded { path, .. } | AssetEvent::ReloadFailed { path, .. } => path,
        }
    }
}
