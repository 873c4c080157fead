//! Configuration of an [`AssetManager`]: worker count, byte budget, hot reload.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::error::AssetError;
use crate::manager::{AssetManager, Inner};
use crate::watch::HotReload;

/// Configures an [`AssetManager`]. Start with [`AssetManager::builder`].
#[derive(Debug, Clone)]
pub struct AssetManagerBuilder {
    base: PathBuf,
    workers: Option<usize>,
    budget: Option<u64>,
    hot_reload: bool,
    debounce: Duration,
    key: Option<caf::Key>,
}

impl AssetManagerBuilder {
    /// A builder for a manager over `base` with the defaults; see [`AssetManager::builder`].
    pub(crate) fn new(base: PathBuf) -> Self {
        AssetManagerBuilder {
            base,
            workers: None,
            budget: None,
            hot_reload: false,
            debounce: Duration::from_millis(50),
            key: None,
        }
    }

    /// Number of loader threads (default: the number of CPUs). At least 1.
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = Some(n.max(1));
        self
    }

    /// Byte budget for the cache (default: none). When loaded data exceeds it, entries that no
    /// handle holds are evicted, least recently used first: after each load that grows the
    /// cache, and when the manager applies the release of an entry's last handle (at its next
    /// call, or when a worker finishes a load) while the cache is over budget. Entries with
    /// handles are never evicted, so the cache can stay above the budget while they are held.
    pub fn budget(mut self, bytes: u64) -> Self {
        self.budget = Some(bytes);
        self
    }

    /// Watch the base directory and reload changed files (default: off).
    pub fn hot_reload(mut self, on: bool) -> Self {
        self.hot_reload = on;
        self
    }

    /// How long a file must stay quiet after a change before it is reloaded (default 50 ms).
    /// Editors write in several steps; waiting for the last one avoids pointless reloads. A
    /// reload that still catches a half-written file fails its size or CRC check and keeps
    /// the previous version; the next write triggers another reload.
    pub fn debounce(mut self, d: Duration) -> Self {
        self.debounce = d;
        self
    }

    /// The key of ENCRYPTED assets (default: none; they then fail to load with "key
    /// required"). COMPRESSED assets need no key: every load decodes them.
    pub fn key(mut self, key: caf::Key) -> Self {
        self.key = Some(key);
        self
    }

    /// Creates the manager: opens the base directory, starts the loader threads and, with hot
    /// reload, the watcher.
    pub fn build(self) -> Result<AssetManager, AssetError> {
        let base = self
            .base
            .canonicalize()
            .map_err(|source| AssetError::BaseDir {
                path: self.base.clone(),
                source,
            })?;
        if !base.is_dir() {
            return Err(AssetError::BaseDir {
                path: self.base.clone(),
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"),
            });
        }
        let workers = self
            .workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("caf-assets-{i}"))
            .build()
            .map_err(|e| AssetError::ThreadPool(e.to_string()))?;
        let alt_base = std::path::absolute(&self.base).unwrap_or_else(|_| self.base.clone());
        let inner = Arc::new(Inner::new(base, alt_base, pool, self.budget, self.key));
        let watcher = if self.hot_reload {
            Some(HotReload::start(&inner, self.debounce)?)
        } else {
            None
        };
        Ok(AssetManager {
            inner,
            workers,
            watcher,
        })
    }
}
