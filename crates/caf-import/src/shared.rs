//! Conversions shared between builds: the hook through which [`crate::batch::build`] asks a
//! cache (another machine's builds, docs/remote-build.md) for a source's outputs before
//! converting it, and offers it the outputs after converting it locally.
//!
//! The build never trusts a cache blindly: a fetched asset must be named as the build would
//! name it and hold a valid `.caf` header, or the source converts locally. A cache that fails
//! answers `None` and the build goes on locally.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{AssetKind, Settings};

/// Where an output's bytes came from (the manifest's `origin`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// Converted by this build.
    #[default]
    Local,
    /// Fetched from a shared cache.
    Cache,
    /// Converted by a remote worker for this build, then fetched.
    Remote,
}

impl Origin {
    /// True for [`Origin::Local`] (left out of the manifest).
    pub fn is_local(&self) -> bool {
        *self == Origin::Local
    }

    /// What the build did to have the output: `converted`, `fetched` or `executed`.
    pub fn verb(self) -> &'static str {
        match self {
            Origin::Local => "converted",
            Origin::Cache => "fetched",
            Origin::Remote => "executed",
        }
    }
}

/// One asset of a source's conversion, as a shared cache holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedAsset {
    /// Output path relative to the output folder (the manifest's `output`).
    pub output: String,
    /// The shader entry point it holds alone, if any.
    pub entry: Option<String>,
    /// Asset kind.
    pub kind: AssetKind,
    /// Payload bytes before encoding.
    pub payload_size: u64,
    /// CRC-32 of the payload before encoding.
    pub payload_crc32: u32,
    /// One line description.
    pub summary: String,
    /// The files the conversion read besides the source, relative to the source folder,
    /// sorted.
    pub dependencies: Vec<String>,
    /// The `.caf` file's bytes (not part of the description).
    #[serde(skip)]
    pub file: Vec<u8>,
}

/// A source's assets as a shared cache gives them, and where they came from
/// ([`Origin::Cache`] or [`Origin::Remote`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    /// The assets, bytes included.
    pub assets: Vec<SharedAsset>,
    /// Where they came from.
    pub origin: Origin,
}

/// A cache of conversions shared between builds. Its methods are called from the build's
/// worker threads, for sources converted without a key (an encrypted build shares nothing).
pub trait SharedCache: Send + Sync + std::fmt::Debug {
    /// Announces the sources (with their settings, as for [`SharedCache::fetch`]) of the group
    /// the build is about to process, so that the cache can look them all up together; each is
    /// then still asked for with `fetch`. The default does nothing.
    fn prefetch(&self, src_root: &Path, requests: &[(&str, &Settings)]) {
        let _ = (src_root, requests);
    }

    /// The assets of source `source` (relative to `src_root`, `/`-separated) converted with
    /// `settings` (the sidecar applied), when the cache holds them; `None` otherwise and on any
    /// failure (the cache reports its own warnings).
    fn fetch(&self, src_root: &Path, source: &str, settings: &Settings) -> Option<Fetched>;

    /// Offers the assets a local conversion of `source` made (never called for a failed
    /// conversion). The cache decides whether to keep them.
    fn store(&self, src_root: &Path, source: &str, settings: &Settings, assets: &[SharedAsset]);
}

/// Whether fetched `assets` are what converting the source would give the build: each named as
/// the build names the source's outputs (`expected(entry)`), with a `.caf` header of its kind,
/// and at least one.
pub(crate) fn plausible(assets: &[SharedAsset], expected: impl Fn(Option<&str>) -> String) -> bool {
    !assets.is_empty()
        && assets.iter().all(|a| {
            a.output == expected(a.entry.as_deref())
                && caf::validate_header_bytes(&a.file)
                    .is_ok_and(|h| h.asset_type == a.kind.asset_type())
        })
}
