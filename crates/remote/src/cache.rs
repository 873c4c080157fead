//! The remote cache of `asset build` (docs/remote-build.md): `caf_import`'s
//! [`SharedCache`] over a Remote Execution API server's action cache and CAS.
//!
//! Every fault falls back to converting locally: the server unreachable (after which the
//! cache stops asking for the rest of the build), a blob missing after an action cache hit, a
//! blob whose bytes do not match its digest, a result that does not describe its files. Each
//! kind of fault is reported once per build through the warning callback.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use caf_import::inputs::undeclared;
use caf_import::shared::{SharedAsset, SharedCache};
use caf_import::Settings;

use crate::action::{conversion_action, BlobData, OUTPUT_DIR, RESULT_FILE};
use crate::proto::reapi::{ActionResult, OutputFile};
use crate::{digest_of, Digest, Remote, RemoteError};

/// What a build's remote cache did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RemoteStats {
    /// Sources whose assets came from the cache.
    pub hits: u64,
    /// Sources the cache did not have (converted locally).
    pub misses: u64,
    /// Local conversions stored in the cache.
    pub uploaded: u64,
    /// Sources converted locally after a fault (see the warnings).
    pub fallbacks: u64,
    /// Bytes fetched from the CAS.
    pub bytes_down: u64,
    /// Bytes sent to the CAS.
    pub bytes_up: u64,
}

/// A warning callback (called from the build's threads).
pub type Warn = Box<dyn Fn(&str) + Send + Sync>;

/// `asset build`'s remote cache.
pub struct RemoteCache {
    remote: Option<Remote>,
    url: String,
    read_only: bool,
    glsl_tool: Option<String>,
    down: AtomicBool,
    warned: Mutex<HashSet<&'static str>>,
    warn: Warn,
    hits: AtomicU64,
    misses: AtomicU64,
    uploaded: AtomicU64,
    fallbacks: AtomicU64,
    bytes_down: AtomicU64,
    bytes_up: AtomicU64,
}

impl std::fmt::Debug for RemoteCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteCache")
            .field("url", &self.url)
            .field("read_only", &self.read_only)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

/// The kinds of fault, each warned about once per build.
const UNREACHABLE: &str = "unreachable";

impl RemoteCache {
    /// A cache on the server at `url`, instance `instance`. Only a malformed URL is an error: a
    /// server that cannot be reached is warned about once and the build converts locally.
    /// `glsl_tool` is the GLSL compiler's version line (part of a shader's action).
    pub fn connect(
        url: &str,
        instance: &str,
        read_only: bool,
        glsl_tool: Option<String>,
        warn: Warn,
    ) -> Result<RemoteCache, RemoteError> {
        let remote = match Remote::connect(url, instance) {
            Ok(r) => Some(r),
            Err(e @ (RemoteError::BadUrl { .. } | RemoteError::InsideRuntime)) => return Err(e),
            Err(e) => {
                warn(&format!(
                    "remote cache {url}: {e}; converting everything locally"
                ));
                None
            }
        };
        let down = AtomicBool::new(remote.is_none());
        Ok(RemoteCache {
            remote,
            url: url.to_string(),
            read_only,
            glsl_tool,
            down,
            warned: Mutex::new(HashSet::new()),
            warn,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            uploaded: AtomicU64::new(0),
            fallbacks: AtomicU64::new(0),
            bytes_down: AtomicU64::new(0),
            bytes_up: AtomicU64::new(0),
        })
    }

    /// What the cache did so far.
    pub fn stats(&self) -> RemoteStats {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        RemoteStats {
            hits: get(&self.hits),
            misses: get(&self.misses),
            uploaded: get(&self.uploaded),
            fallbacks: get(&self.fallbacks),
            bytes_down: get(&self.bytes_down),
            bytes_up: get(&self.bytes_up),
        }
    }

    /// The server, unless it was found unreachable.
    fn live(&self) -> Option<&Remote> {
        self.remote
            .as_ref()
            .filter(|_| !self.down.load(Ordering::Relaxed))
    }

    /// Warns once per kind; a fault that says the server is unreachable stops every further
    /// call of this build.
    fn fault(&self, kind: &'static str, what: &str, e: &RemoteError) {
        let unreachable = matches!(e, RemoteError::Connect { .. })
            || matches!(e, RemoteError::Status { code, .. }
                if matches!(code, tonic::Code::Unavailable | tonic::Code::DeadlineExceeded));
        let kind = if unreachable {
            self.down.store(true, Ordering::Relaxed);
            UNREACHABLE
        } else {
            kind
        };
        let first = self
            .warned
            .lock()
            .map(|mut w| w.insert(kind))
            .unwrap_or(false);
        if first {
            let rest = if unreachable {
                "; converting the rest locally"
            } else {
                "; converted locally (further faults of this kind not shown)"
            };
            let what = match kind {
                UNREACHABLE => what.to_string(),
                _ => format!("{kind} for {what}"),
            };
            (self.warn)(&format!("remote cache {}: {what}: {e}{rest}", self.url));
        }
    }

    /// The assets of an action result, fetched and checked.
    fn fetch_result(
        &self,
        r: &Remote,
        result: &ActionResult,
    ) -> Result<Vec<SharedAsset>, RemoteError> {
        let prefix = format!("{OUTPUT_DIR}/");
        let files: Vec<(&str, Digest)> = result
            .output_files
            .iter()
            .filter_map(|f| Some((f.path.strip_prefix(&prefix)?, f.digest.clone()?)))
            .collect();
        let digests: Vec<Digest> = files.iter().map(|(_, d)| d.clone()).collect();
        let blobs = r.download(&digests)?;
        let size: usize = blobs.iter().map(Vec::len).sum();
        self.bytes_down.fetch_add(size as u64, Ordering::Relaxed);
        let mut by_name: std::collections::HashMap<&str, Vec<u8>> =
            files.iter().map(|(n, _)| *n).zip(blobs).collect();
        let bad = |m: String| RemoteError::Protocol {
            rpc: "GetActionResult",
            message: m,
        };
        let description = by_name
            .remove(RESULT_FILE)
            .ok_or_else(|| bad(format!("the result has no {OUTPUT_DIR}/{RESULT_FILE}")))?;
        let mut assets: Vec<SharedAsset> = serde_json::from_slice(&description)
            .map_err(|e| bad(format!("{OUTPUT_DIR}/{RESULT_FILE}: {e}")))?;
        for a in &mut assets {
            // Only names inside the output folder, of valid assets: a result is data from
            // another machine.
            let inside = !a.output.is_empty()
                && a.output.ends_with(".caf")
                && Path::new(&a.output)
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !inside {
                return Err(bad(format!(
                    "output {:?} is not a .caf path inside the output folder",
                    a.output
                )));
            }
            a.file = by_name
                .remove(a.output.as_str())
                .ok_or_else(|| bad(format!("the result has no {OUTPUT_DIR}/{}", a.output)))?;
            caf::validate_header_bytes(&a.file)
                .map_err(|e| bad(format!("{OUTPUT_DIR}/{}: {e}", a.output)))?;
        }
        Ok(assets)
    }
}

impl SharedCache for RemoteCache {
    fn fetch(
        &self,
        src_root: &Path,
        source: &str,
        settings: &Settings,
    ) -> Option<Vec<SharedAsset>> {
        let r = self.live()?;
        let action = match conversion_action(src_root, source, settings, self.glsl_tool.as_deref())
        {
            Ok(a) => a,
            Err(e) => {
                self.fault("action", source, &e);
                return None;
            }
        };
        let result = match r.get_action_result(&action.digest) {
            Ok(Some(result)) => result,
            Ok(None) => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                return None;
            }
            Err(e) => {
                self.fallbacks.fetch_add(1, Ordering::Relaxed);
                self.fault("lookup", source, &e);
                return None;
            }
        };
        match self.fetch_result(r, &result) {
            Ok(assets) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Some(assets)
            }
            Err(e) => {
                self.fallbacks.fetch_add(1, Ordering::Relaxed);
                let kind = match e {
                    RemoteError::NotFound { .. } => "missing blob",
                    RemoteError::DigestMismatch { .. } | RemoteError::Truncated { .. } => {
                        "corrupt blob"
                    }
                    _ => "bad result",
                };
                self.fault(kind, source, &e);
                None
            }
        }
    }

    fn store(&self, src_root: &Path, source: &str, settings: &Settings, assets: &[SharedAsset]) {
        if self.read_only {
            return;
        }
        let Some(r) = self.live() else { return };
        let action = match conversion_action(src_root, source, settings, self.glsl_tool.as_deref())
        {
            Ok(a) => a,
            Err(e) => return self.fault("action", source, &e),
        };
        for a in assets {
            let read = undeclared(&action.declared, &a.dependencies);
            if let Some(first) = read.first() {
                let e = RemoteError::Unsupported(format!(
                    "the conversion read {first}, which it did not declare; its result is kept local"
                ));
                return self.fault("undeclared input", source, &e);
            }
        }
        if let Err(e) = self.upload(r, &action, assets) {
            self.fault("upload", source, &e);
        }
    }
}

impl RemoteCache {
    /// Sends an action's inputs and outputs to the CAS (only the blobs it lacks) and then its
    /// result to the action cache, so a result never names a blob the CAS was not sent.
    fn upload(
        &self,
        r: &Remote,
        action: &crate::action::ConversionAction,
        assets: &[SharedAsset],
    ) -> Result<(), RemoteError> {
        let description = serde_json::to_vec(assets).map_err(|e| RemoteError::Protocol {
            rpc: "UpdateActionResult",
            message: e.to_string(),
        })?;
        let mut outputs: Vec<(String, &[u8])> = assets
            .iter()
            .map(|a| (a.output.clone(), a.file.as_slice()))
            .collect();
        outputs.push((RESULT_FILE.to_string(), &description));
        outputs.sort_by(|a, b| a.0.cmp(&b.0));
        // Where each blob's bytes are; files are read only when the server lacks them.
        let mut blobs: Vec<(Digest, Result<&[u8], &Path>)> = action
            .blobs
            .iter()
            .map(|b| match &b.data {
                BlobData::Bytes(v) => (b.digest.clone(), Ok(v.as_slice())),
                BlobData::File(p) => (b.digest.clone(), Err(p.as_path())),
            })
            .collect();
        let mut result = ActionResult::default();
        for (name, bytes) in &outputs {
            let digest = digest_of(bytes);
            result.output_files.push(OutputFile {
                path: format!("{OUTPUT_DIR}/{name}"),
                digest: Some(digest.clone()),
                ..Default::default()
            });
            blobs.push((digest, Ok(bytes)));
        }
        let digests: Vec<Digest> = blobs.iter().map(|(d, _)| d.clone()).collect();
        let missing: HashSet<String> = r
            .find_missing(&digests)?
            .into_iter()
            .map(|d| d.hash)
            .collect();
        let mut sent = HashSet::new();
        let mut read = Vec::new();
        for (d, data) in &blobs {
            if !missing.contains(&d.hash) || !sent.insert(d.hash.clone()) {
                continue;
            }
            let bytes = match data {
                Ok(b) => std::borrow::Cow::Borrowed(*b),
                Err(p) => std::fs::read(p)
                    .map_err(|e| RemoteError::Io {
                        path: p.to_path_buf(),
                        source: e,
                    })?
                    .into(),
            };
            read.push((d.clone(), bytes));
        }
        let send: Vec<(Digest, &[u8])> =
            read.iter().map(|(d, b)| (d.clone(), b.as_ref())).collect();
        r.upload(&send)?;
        let up: usize = send.iter().map(|(_, b)| b.len()).sum();
        self.bytes_up.fetch_add(up as u64, Ordering::Relaxed);
        r.update_action_result(&action.digest, &result)?;
        self.uploaded.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}
