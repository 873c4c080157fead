//! The crate's error type.

use std::path::{Path, PathBuf};

use caf::{AssetType, CafError};

use crate::kind::Kind;
use crate::path::AssetPath;

/// Why an asset could not be loaded, or why a manager could not be built.
///
/// Load failures are shared between every handle of an entry, so the manager hands them out as
/// `Arc<AssetError>` (see [`Status::Failed`](crate::Status::Failed)).
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    /// The requested path is empty, not UTF-8, or leaves the base directory.
    #[error("invalid asset path {path:?}: {reason}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The `caf` loader rejected the file: I/O error (missing file, permissions), bad magic,
    /// wrong size, CRC mismatch (a corrupt or half-written file), ...
    #[error("{path}: {source}")]
    Load {
        /// The asset (relative to the base directory).
        path: AssetPath,
        /// What the loader found.
        #[source]
        source: CafError,
    },
    /// The file is a valid container of another type than the one requested.
    #[error("{path}: wrong asset type: requested {expected}, but the file header (offset 8) says {found}")]
    WrongType {
        /// The asset (relative to the base directory).
        path: AssetPath,
        /// The kind requested through the handle's type parameter.
        expected: Kind,
        /// The type in the file's header.
        found: AssetType,
    },
    /// The file has the requested type but its typed view rejected it (metadata of the wrong
    /// size, payload not matching what the metadata implies).
    #[error("{path}: not a usable {kind} asset: {source}")]
    BadContent {
        /// The asset (relative to the base directory).
        path: AssetPath,
        /// The kind requested.
        kind: Kind,
        /// What the typed view found.
        #[source]
        source: CafError,
    },
    /// The base directory could not be opened.
    #[error("asset base directory {}: {source}", path.display())]
    BaseDir {
        /// The directory as given.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file watcher for hot reload could not be started.
    #[error("cannot watch {} for hot reload: {source}", path.display())]
    Watch {
        /// The directory to watch.
        path: PathBuf,
        /// The watcher's error.
        #[source]
        source: notify::Error,
    },
    /// A pack given to [`AssetManagerBuilder::mount_pack`](crate::AssetManagerBuilder::mount_pack)
    /// could not be opened or its index is damaged.
    #[error("cannot mount pack {}: {source}", path.display())]
    Pack {
        /// The pack file.
        path: PathBuf,
        /// What was wrong with it.
        #[source]
        source: caf::CafError,
    },
    /// A worker thread pool could not be created.
    #[error("cannot start the asset loader threads: {0}")]
    ThreadPool(String),
}

impl AssetError {
    /// The error for `path`, refused by normalisation for `reason`.
    pub(crate) fn invalid_path(path: &Path, reason: &'static str) -> AssetError {
        AssetError::InvalidPath {
            path: path.display().to_string(),
            reason,
        }
    }

    /// The asset this error is about, when it concerns one asset.
    pub fn asset_path(&self) -> Option<&AssetPath> {
        match self {
            AssetError::Load { path, .. }
            | AssetError::WrongType { path, .. }
            | AssetError::BadContent { path, .. } => Some(path),
            _ => None,
        }
    }

    /// True when the file does not exist (an I/O "not found" from the loader).
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            AssetError::Load { source: CafError::Io { source, .. }, .. }
                if source.kind() == std::io::ErrorKind::NotFound
        )
    }
}
