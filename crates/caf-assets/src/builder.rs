//! Configuration of an [`AssetManager`](crate::AssetManager): worker count, byte budget, hot
//! reload, key, packs; and starting what it configures. `manager` assembles the result
//! ([`AssetManagerBuilder::build`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::error::AssetError;
use crate::inner::Inner;
use crate::watch::HotReload;

/// Configures an [`AssetManager`](crate::AssetManager). Start with
/// [`AssetManager::builder`](crate::AssetManager::builder).
#[derive(Debug, Clone)]
pub struct AssetManagerBuilder {
    base: PathBuf,
    workers: Option<usize>,
    budget: Option<u64>,
    hot_reload: bool,
    debounce: Duration,
    key: Option<caf::encoded::Key>,
    packs: Vec<PathBuf>,
}

impl AssetManagerBuilder {
    /// A builder for a manager over `base` with the defaults; see
    /// [`AssetManager::builder`](crate::AssetManager::builder).
    pub(crate) fn new(base: PathBuf) -> Self {
        AssetManagerBuilder {
            base,
            workers: None,
            budget: None,
            hot_reload: false,
            debounce: Duration::from_millis(50),
            key: None,
            packs: Vec::new(),
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
    pub fn key(mut self, key: caf::encoded::Key) -> Self {
        self.key = Some(key);
        self
    }

    /// Mounts a `.cafpack` archive (opened, header and index checked, by
    /// [`build`](Self::build)). Later mounts override earlier ones by path, so a patch pack
    /// mounted after the base pack replaces the assets it holds.
    ///
    /// Precedence of one asset path: a loose file under the base directory first (so
    /// development edits, hot reload and mods work over shipped packs), then the packs, most
    /// recently mounted first. Pack members are read into memory like loose files (one
    /// positional read into an aligned buffer, both CRCs checked); hot reload watches loose
    /// files only.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let asset = |p: &[u8]| caf::AssetWriter::new(caf::AssetType::UNKNOWN).payload(p).to_vec();
    /// caf::pack::write_pack_file(&dir.path().join("base.cafpack"),
    ///     [("a.caf".to_string(), asset(b"old")), ("b.caf".to_string(), asset(b"b"))])?;
    /// caf::pack::write_pack_file(&dir.path().join("patch.cafpack"),
    ///     [("a.caf".to_string(), asset(b"new"))])?;
    /// let m = caf_assets::AssetManager::builder(dir.path())
    ///     .mount_pack(dir.path().join("base.cafpack"))
    ///     .mount_pack(dir.path().join("patch.cafpack"))
    ///     .build()?;
    /// let a = m.load_sync::<caf_assets::Raw>("a.caf").unwrap();
    /// assert_eq!(m.get(&a).unwrap().view().payload, b"new");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mount_pack(mut self, pack: impl Into<PathBuf>) -> Self {
        self.packs.push(pack.into());
        self
    }

    /// What [`build`](Self::build) assembles into a manager: opens the base directory and the
    /// packs, starts the loader threads and, with hot reload, the watcher. Returns the shared
    /// state, the number of workers and the watcher.
    pub(crate) fn start(self) -> Result<(Arc<Inner>, usize, Option<HotReload>), AssetError> {
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
        let mut packs = caf::pack::PackSet::new();
        for p in &self.packs {
            let pack = caf::pack::Pack::open(p).map_err(|source| AssetError::Pack {
                path: p.clone(),
                source,
            })?;
            packs.mount(pack);
        }
        let alt_base = std::path::absolute(&self.base).unwrap_or_else(|_| self.base.clone());
        let inner = Arc::new(Inner::new(
            base,
            alt_base,
            pool,
            self.budget,
            self.key,
            packs,
        ));
        let watcher = if self.hot_reload {
            Some(HotReload::start(&inner, self.debounce)?)
        } else {
            None
        };
        Ok((inner, workers, watcher))
    }
}
