//! The remote cache of `asset build` (docs/remote-build.md): `caf_import`'s
//! [`SharedCache`] over a Remote Execution API server's action cache and CAS.
//!
//! Every fault falls back to converting locally: the server unreachable (after which the
//! cache stops asking for the rest of the build), a blob missing after an action cache hit, a
//! blob whose bytes do not match its digest, a result that does not describe its files. Each
//! kind of fault is reported once per build through the warning callback.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use caf_import::inputs::undeclared;
use caf_import::shared::{Fetched, Origin, SharedAsset, SharedCache};
use caf_import::Settings;

use crate::action::{
    conversion_action, result_description, Blob, BlobData, ConversionAction, OUTPUT_DIR,
    RESULT_FILE,
};
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
    /// Sources converted by a remote worker for this build (`--remote-exec`).
    pub executed: u64,
    /// Hits and misses answered by the look-ahead of their group of sources (the rest were
    /// asked for one by one).
    pub ahead: u64,
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
    ahead: AtomicU64,
    executed: AtomicU64,
    prefetched: Mutex<Prefetched>,
    /// How long a group's remote executions may take, when misses are executed remotely.
    exec: Option<std::time::Duration>,
    /// Set when remote execution cannot help this build: the server does not execute (its
    /// capabilities say so, or it answers `UNIMPLEMENTED`), or executions timed out (no worker
    /// is taking work); the rest of the build converts locally without asking again.
    exec_off: AtomicBool,
}

/// What [`SharedCache::prefetch`] looked up and read ahead for the groups of sources the
/// build is processing and about to process, taken by [`SharedCache::fetch`]. Each entry
/// carries the number of the look-ahead that made it; a look-ahead drops what the one before
/// the previous left (a source that was never asked for), so at most two groups' worth is
/// held.
#[derive(Default)]
struct Prefetched {
    /// The number of the latest look-ahead.
    generation: u64,
    /// Action digest's hash -> the result found (in the action cache, or executed for this
    /// build) and where it came from; `None`: no result.
    lookups: HashMap<String, (u64, Option<(ActionResult, Origin)>)>,
    /// Blob hash -> its bytes (checked against the digest when read).
    blobs: HashMap<String, (u64, Vec<u8>)>,
}

impl Prefetched {
    /// Starts look-ahead number n + 1, dropping what look-ahead n − 1 left; its number.
    fn start(&mut self) -> u64 {
        self.generation += 1;
        let keep = self.generation - 1;
        self.lookups.retain(|_, (g, _)| *g >= keep);
        self.blobs.retain(|_, (g, _)| *g >= keep);
        self.generation
    }
}

/// Bytes of outputs read ahead per group: the results beyond it are read when their source
/// is processed, so memory stays bounded whatever the assets' sizes.
const PREFETCH_BYTES: u64 = 64 << 20;

impl std::fmt::Debug for RemoteCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteCache")
            .field("url", &self.url)
            .field("read_only", &self.read_only)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

/// A blob's digest and where its bytes are (in memory, or a file read only if sent).
fn blob_source(b: &Blob) -> (Digest, Result<&[u8], &Path>) {
    match &b.data {
        BlobData::Bytes(v) => (b.digest.clone(), Ok(v.as_slice())),
        BlobData::File(p) => (b.digest.clone(), Err(p.as_path())),
    }
}

/// Whether a cached result is of a conversion that succeeded (a server may keep failed ones;
/// they count as misses, so the source converts here and reports its own error).
fn succeeded(r: &ActionResult) -> bool {
    r.exit_code == 0
}

/// Whether `e` says the server cannot be reached (or does not answer in time).
fn unreachable(e: &RemoteError) -> bool {
    matches!(e, RemoteError::Connect { .. })
        || matches!(e, RemoteError::Status { code, .. }
            if matches!(code, tonic::Code::Unavailable | tonic::Code::DeadlineExceeded))
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
            ahead: AtomicU64::new(0),
            executed: AtomicU64::new(0),
            prefetched: Mutex::new(Prefetched::default()),
            exec: None,
            exec_off: AtomicBool::new(false),
        })
    }

    /// This cache with remote execution (`--remote-exec`): the sources the action cache does
    /// not have are executed by the server's workers, each group of sources within `timeout`;
    /// what does not come back in time, or fails remotely, converts locally.
    pub fn with_execution(mut self, timeout: std::time::Duration) -> RemoteCache {
        self.exec = Some(timeout);
        let executes = |r: &Remote| {
            r.capabilities()
                .execution_capabilities
                .as_ref()
                .is_some_and(|e| e.exec_enabled)
        };
        if self.remote.as_ref().is_some_and(|r| !executes(r)) {
            self.execution_off(&"the server does not execute actions (no Execution service)");
        }
        self
    }

    /// Turns remote execution off for the rest of the build, saying why once.
    fn execution_off(&self, why: &dyn std::fmt::Display) {
        if !self.exec_off.swap(true, Ordering::Relaxed) {
            (self.warn)(&format!(
                "remote cache {}: {why}; converting the rest of the build's misses locally",
                self.url
            ));
        }
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
            ahead: get(&self.ahead),
            executed: get(&self.executed),
        }
    }

    fn lock_prefetched(&self) -> std::sync::MutexGuard<'_, Prefetched> {
        // Only whole maps are stored or entries removed: a panic cannot leave it half-made.
        self.prefetched.lock().unwrap_or_else(|e| e.into_inner())
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
        let unreachable = unreachable(e);
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
        // The blobs read ahead, then the rest. Read-ahead blobs are copied, not taken: other
        // sources of the group may have outputs with the same bytes (one blob in the CAS).
        let mut by_name: HashMap<&str, Vec<u8>> = HashMap::new();
        let mut rest = Vec::new();
        {
            let ahead = self.lock_prefetched();
            for (name, d) in &files {
                match ahead.blobs.get(&d.hash) {
                    Some((_, bytes)) => drop(by_name.insert(*name, bytes.clone())),
                    None => rest.push((*name, d.clone())),
                }
            }
        }
        let digests: Vec<Digest> = rest.iter().map(|(_, d)| d.clone()).collect();
        let blobs = r.download(&digests)?;
        let size: usize = blobs.iter().map(Vec::len).sum();
        self.bytes_down.fetch_add(size as u64, Ordering::Relaxed);
        by_name.extend(rest.iter().map(|(n, _)| *n).zip(blobs));
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
    /// Computes the group's actions, looks them all up (concurrently), has the
    /// server execute the misses when remote execution is on, and reads the outputs in
    /// batches, up to 64 MiB. A fault here only loses the head start: `fetch`
    /// asks again source by source (without executing) and reports what fails.
    fn prefetch(&self, src_root: &Path, requests: &[(&str, &Settings)]) {
        let generation = self.lock_prefetched().start();
        let Some(r) = self.live() else { return };
        let glsl = self.glsl_tool.as_deref();
        // On this thread, not the build's pool: the look-ahead runs while the pool's threads
        // process the group before (their work would queue ahead of these tasks).
        let actions: Vec<(&str, ConversionAction)> = requests
            .iter()
            .filter_map(|(source, settings)| {
                let a = conversion_action(src_root, source, settings, glsl).ok()?;
                Some((*source, a))
            })
            .collect();
        let digests: Vec<Digest> = actions.iter().map(|(_, a)| a.digest.clone()).collect();
        let answers = match r.get_action_results(&digests) {
            Ok(a) => a,
            // Asked again source by source, unless the server is gone.
            Err(e) if unreachable(&e) => return self.fault("lookup", "the lookups", &e),
            Err(_) => return,
        };
        let mut found: Vec<Option<(ActionResult, Origin)>> = answers
            .into_iter()
            .map(|a| a.filter(succeeded).map(|r| (r, Origin::Cache)))
            .collect();
        if let Some(timeout) = self.exec {
            self.execute_misses(r, &actions, &mut found, timeout);
        }
        let mut wanted = Vec::new();
        let mut seen = HashSet::new();
        let mut budget = PREFETCH_BYTES;
        {
            let mut ahead = self.lock_prefetched();
            for (result, _) in found.iter().flatten() {
                let mut fresh: Vec<&Digest> = Vec::new();
                for d in result.output_files.iter().filter_map(|f| f.digest.as_ref()) {
                    if seen.contains(&d.hash) {
                        continue;
                    }
                    // A blob still held from the group before is kept for this one, not read
                    // again.
                    match ahead.blobs.get_mut(&d.hash) {
                        Some((g, bytes)) => {
                            *g = generation;
                            budget = budget.saturating_sub(bytes.len() as u64);
                            seen.insert(d.hash.clone());
                        }
                        None => fresh.push(d),
                    }
                }
                let size: u64 = fresh.iter().map(|d| d.size_bytes.max(0) as u64).sum();
                if size > budget {
                    continue;
                }
                budget -= size;
                for d in fresh {
                    seen.insert(d.hash.clone());
                    wanted.push(d.clone());
                }
            }
        }
        // A blob that cannot be read here is read (and its fault reported) by `fetch`.
        let blobs = r.download(&wanted).unwrap_or_default();
        let size: usize = blobs.iter().map(Vec::len).sum();
        self.bytes_down.fetch_add(size as u64, Ordering::Relaxed);
        let mut ahead = self.lock_prefetched();
        let hashes = wanted.into_iter().map(|d| d.hash);
        ahead
            .blobs
            .extend(hashes.zip(blobs.into_iter().map(|b| (generation, b))));
        let actions = digests.into_iter().map(|a| a.hash);
        ahead
            .lookups
            .extend(actions.zip(found.into_iter().map(|f| (generation, f))));
    }

    fn fetch(&self, src_root: &Path, source: &str, settings: &Settings) -> Option<Fetched> {
        let r = self.live()?;
        let action = match conversion_action(src_root, source, settings, self.glsl_tool.as_deref())
        {
            Ok(a) => a,
            Err(e) => {
                self.fault("action", source, &e);
                return None;
            }
        };
        let ahead = self
            .lock_prefetched()
            .lookups
            .remove(&action.digest.hash)
            .map(|(_, found)| found);
        let lookup = match ahead {
            Some(answer) => {
                self.ahead.fetch_add(1, Ordering::Relaxed);
                Ok(answer)
            }
            None => r
                .get_action_result(&action.digest)
                .map(|a| a.filter(succeeded).map(|r| (r, Origin::Cache))),
        };
        let (result, origin) = match lookup {
            Ok(Some(found)) => found,
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
                let counter = match origin {
                    Origin::Remote => &self.executed,
                    _ => &self.hits,
                };
                counter.fetch_add(1, Ordering::Relaxed);
                Some(Fetched { assets, origin })
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
    /// Has the server execute the group's actions that `found` has no result for (their
    /// inputs sent first), all at once, within `timeout`; each that converted becomes a
    /// found result. An action that fails remotely is left to convert locally (where it fails
    /// with its own message, or converts); a fault is warned about once.
    fn execute_misses(
        &self,
        r: &Remote,
        actions: &[(&str, ConversionAction)],
        found: &mut [Option<(ActionResult, Origin)>],
        timeout: std::time::Duration,
    ) {
        if self.exec_off.load(Ordering::Relaxed) {
            return;
        }
        let misses: Vec<usize> = (0..actions.len()).filter(|&i| found[i].is_none()).collect();
        let Some(&first) = misses.first() else { return };
        let blobs: Vec<(Digest, Result<&[u8], &Path>)> = misses
            .iter()
            .flat_map(|&i| actions[i].1.blobs.iter().map(blob_source))
            .collect();
        if let Err(e) = self.send_blobs(r, &blobs) {
            return self.fault("execution", "the inputs", &e);
        }
        let digests: Vec<Digest> = misses
            .iter()
            .map(|&i| actions[i].1.digest.clone())
            .collect();
        let answers = match r.execute_all(&digests, true, timeout) {
            Ok(a) => a,
            Err(e) => return self.fault("execution", actions[first].0, &e),
        };
        for (&i, answer) in misses.iter().zip(answers) {
            match answer {
                Ok(done) if done.result.exit_code == 0 => {
                    found[i] = Some((done.result, Origin::Remote));
                }
                Ok(_) => {}
                // No worker, or no execution at all: the later groups do not ask again.
                Err(
                    e @ (RemoteError::ExecutionTimeout { .. }
                    | RemoteError::Status {
                        code: tonic::Code::Unimplemented,
                        ..
                    }),
                ) => self.execution_off(&e),
                Err(e) => self.fault("execution", actions[i].0, &e),
            }
        }
    }

    /// Sends the CAS the blobs it lacks (a file's bytes read only then, a batch of at most
    /// [`PREFETCH_BYTES`] held at a time).
    fn send_blobs(
        &self,
        r: &Remote,
        blobs: &[(Digest, Result<&[u8], &Path>)],
    ) -> Result<(), RemoteError> {
        let digests: Vec<Digest> = blobs.iter().map(|(d, _)| d.clone()).collect();
        let missing: HashSet<String> = r
            .find_missing(&digests)?
            .into_iter()
            .map(|d| d.hash)
            .collect();
        let mut sent = HashSet::new();
        let mut batch: Vec<(Digest, std::borrow::Cow<'_, [u8]>)> = Vec::new();
        let mut held = 0u64;
        let flush = |batch: &mut Vec<(Digest, std::borrow::Cow<'_, [u8]>)>| {
            let send: Vec<(Digest, &[u8])> =
                batch.iter().map(|(d, b)| (d.clone(), b.as_ref())).collect();
            r.upload(&send)?;
            let up: usize = send.iter().map(|(_, b)| b.len()).sum();
            self.bytes_up.fetch_add(up as u64, Ordering::Relaxed);
            batch.clear();
            Ok::<(), RemoteError>(())
        };
        for (d, data) in blobs {
            if !missing.contains(&d.hash) || !sent.insert(d.hash.clone()) {
                continue;
            }
            let bytes = match data {
                Ok(b) => std::borrow::Cow::Borrowed(*b),
                Err(p) => std::fs::read(p).map_err(|e| RemoteError::io(p, e))?.into(),
            };
            held += bytes.len() as u64;
            batch.push((d.clone(), bytes));
            if held >= PREFETCH_BYTES {
                flush(&mut batch)?;
                held = 0;
            }
        }
        flush(&mut batch)
    }

    /// Sends an action's inputs and outputs to the CAS (only the blobs it lacks) and then its
    /// result to the action cache, so a result never names a blob the CAS was not sent.
    fn upload(
        &self,
        r: &Remote,
        action: &ConversionAction,
        assets: &[SharedAsset],
    ) -> Result<(), RemoteError> {
        let description = result_description(assets)?;
        let mut outputs: Vec<(String, &[u8])> = assets
            .iter()
            .map(|a| (a.output.clone(), a.file.as_slice()))
            .collect();
        outputs.push((RESULT_FILE.to_string(), &description));
        outputs.sort_by(|a, b| a.0.cmp(&b.0));
        // Where each blob's bytes are; files are read only when the server lacks them.
        let mut blobs: Vec<(Digest, Result<&[u8], &Path>)> =
            action.blobs.iter().map(blob_source).collect();
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
        self.send_blobs(r, &blobs)?;
        r.update_action_result(&action.digest, &result)?;
        self.uploaded.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}
