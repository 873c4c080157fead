//! Batch builds: convert a source tree into a mirrored tree of `.caf` files plus a manifest.
//!
//! - Sources are the files whose extension names an asset kind (see [`AssetKind::from_path`]),
//!   or whose sidecar sets `type`; hidden files and folders are skipped, and so is the output
//!   folder when it lies inside the source folder. Nothing is skipped silently: every file or
//!   folder left alone is listed with its [`SkipReason`] in the report and the manifest
//!   (`ignored`), and a source whose sidecar cannot be read fails.
//! - `a/b/hero.png` becomes `a/b/hero.caf`, with id `a/b/hero`; GLSL stage files keep their
//!   extension (`sprite.vert` -> `sprite.vert.caf`, id `sprite.vert`) so that a vertex and
//!   fragment pair do not collide. Two sources that would still write the same output
//!   (`hero.png` and `hero.wav`) are an error for the second one in sorted order.
//! - A WGSL module with several entry points (of the sidecar's `stage`, or several at all
//!   without one) gives one asset per entry point, each module holding it alone, as `asset
//!   convert` into a folder makes them: `fx/shadow.wgsl` becomes `fx/shadow.vs_main.caf` and
//!   `fx/shadow.fs_main.caf`, ids `fx/shadow.vs_main` and `fx/shadow.fs_main`, each entry
//!   naming its [`ManifestEntry::entry`]. An entry's output that another source already
//!   produces fails the module (entry point names hold no `.`, so two modules never collide).
//! - A sidecar `hero.png.toml` next to a source overrides the build settings for that asset
//!   (see [`SettingsOverride`]); the effective settings are recorded in the manifest.
//! - Rebuilds compare content hashes (BLAKE3 of the source, its sidecar-derived settings and
//!   any extra files it read), never timestamps. An asset is skipped when both hashes match the
//!   manifest and its output file still has the recorded size and CRC.
//! - One failing source does not stop the others; failures are listed in the report and the
//!   manifest. Output files and the manifest are written atomically and are deterministic:
//!   the same sources and settings give identical bytes, whatever the number of jobs.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{ImportError, Result};
use crate::shared::{Origin, SharedAsset, SharedCache};
use crate::{AssetKind, Settings, SettingsOverride, CONVERTER_REVISION};

/// The manifest's file name inside the output folder.
pub const MANIFEST_NAME: &str = "manifest.json";
/// The manifest's `format` field.
pub const MANIFEST_FORMAT: &str = "voxcaf-asset-manifest";

/// Options of one build.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Settings for every asset (a sidecar overrides them per asset).
    pub settings: Settings,
    /// Worker threads; 0 means one per core.
    pub jobs: usize,
    /// Reconvert everything even when the hashes match.
    pub force: bool,
    /// Encrypt every asset with this key (ENCRYPTED). The manifest records only the key's
    /// public fingerprint (in the settings hash), never the key.
    pub key: Option<caf::encoded::Key>,
    /// A cache shared with other builds (docs/remote-build.md), asked before converting each
    /// source and offered each local conversion; not used when `key` is set.
    pub shared: Option<std::sync::Arc<dyn SharedCache>>,
}

/// One asset in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Stable id: the source path relative to the source folder, without its extension,
    /// with `/` separators.
    pub id: String,
    /// Source path relative to the source folder.
    pub source: String,
    /// Output path relative to the output folder.
    pub output: String,
    /// Asset kind.
    #[serde(rename = "type")]
    pub kind: AssetKind,
    /// Source file size in bytes.
    pub source_size: u64,
    /// Output file size in bytes.
    pub file_size: u64,
    /// Metadata bytes in the output.
    pub metadata_size: u64,
    /// Payload bytes in the output.
    pub payload_size: u64,
    /// CRC-32 of the payload (the header's crc32 field).
    pub payload_crc32: u32,
    /// CRC-32 of every byte of the output file before its footer: the footer's own value, so
    /// it differs between files (the CRC of a whole `.caf` file, footer included, is the same
    /// constant for every file).
    pub file_crc32: u32,
    /// BLAKE3 (hex) of the source bytes and of every dependency.
    pub source_hash: String,
    /// BLAKE3 (hex) of the effective settings and the converter revision.
    pub settings_hash: String,
    /// The effective settings.
    pub settings: Settings,
    /// The sidecar file that contributed to `settings`, relative to the source folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sidecar: Option<String>,
    /// Other files read (glTF buffers), relative to the source folder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<String>,
    /// One line description.
    pub summary: String,
    /// The shader entry point this asset holds alone, when its source (a WGSL module with
    /// several) gives one asset per entry point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// Where the output came from: converted by this build (`local`, left out), fetched from
    /// a shared cache (`cache`), or converted by a remote worker for this build (`remote`).
    #[serde(default, skip_serializing_if = "Origin::is_local")]
    pub origin: Origin,
}

/// A source that did not convert.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// Source path relative to the source folder.
    pub source: String,
    /// What went wrong.
    pub error: String,
}

/// Why `build` left a file or folder under the source folder alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SkipReason {
    /// Its extension names no asset kind and no sidecar sets `type`.
    UnknownExtension,
    /// A `.toml` file that is not the sidecar of a file next to it.
    OrphanSidecar,
    /// A hidden file or folder (its name starts with `.`), with everything inside it.
    Hidden,
    /// The build's own output folder, inside the source folder.
    OutputFolder,
    /// Neither a regular file nor a folder (a socket, a device, a pipe).
    NotAFile,
}

/// A file or folder under the source folder that was not converted (conversion failures are
/// [`Failure`]s instead).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ignored {
    /// Path relative to the source folder (a folder for hidden folders and the output).
    pub path: String,
    /// Why.
    pub reason: SkipReason,
    /// The reason in words.
    pub message: String,
}

/// The JSON manifest written to `OUT_DIR/manifest.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`MANIFEST_FORMAT`].
    pub format: String,
    /// Manifest layout version (1).
    pub version: u32,
    /// [`CONVERTER_REVISION`] of the tool that wrote it.
    pub converter_revision: u32,
    /// Converted assets, sorted by source path.
    pub assets: Vec<ManifestEntry>,
    /// Sources that failed, sorted by source path.
    #[serde(default)]
    pub failures: Vec<Failure>,
    /// Files and folders under the source folder that are not sources, sorted by path.
    #[serde(default)]
    pub ignored: Vec<Ignored>,
}

impl Manifest {
    /// Read a manifest file.
    pub fn read(path: &Path) -> Result<Manifest> {
        let text = std::fs::read_to_string(path).map_err(|e| ImportError::io(path, e))?;
        serde_json::from_str(&text).map_err(|e| ImportError::Settings {
            path: path.to_path_buf(),
            message: format!("not a manifest: {e}"),
        })
    }

    /// The manifest as pretty JSON (what is written to disk).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// Progress of a build, reported from worker threads.
#[derive(Clone, Debug)]
pub enum BuildEvent<'a> {
    /// Sources found; sent once before any work.
    Started {
        /// Number of sources.
        total: usize,
    },
    /// One source was converted and written.
    Converted {
        /// Its manifest entries: one, or one per entry point of a WGSL module split by them.
        entries: &'a [ManifestEntry],
    },
    /// One source was up to date.
    Skipped {
        /// Its manifest entries (from the previous build).
        entries: &'a [ManifestEntry],
    },
    /// One source failed.
    Failed {
        /// The failure.
        failure: &'a Failure,
    },
}

/// What a build did.
#[derive(Clone, Debug)]
pub struct BuildReport {
    /// The manifest that was written.
    pub manifest: Manifest,
    /// Assets converted in this run (a WGSL module split by entry point counts each).
    pub converted: usize,
    /// Assets skipped because nothing changed.
    pub skipped: usize,
    /// Outputs of sources that no longer exist, removed.
    pub removed: usize,
    /// Bytes written to asset files in this run.
    pub bytes_written: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// The build was stopped early (see [`build_until`]): sources it did not reach keep their
    /// previous manifest entry when their output is still intact, and no stale output was
    /// removed.
    pub interrupted: bool,
}

impl BuildReport {
    /// True when no source failed.
    pub fn ok(&self) -> bool {
        self.manifest.failures.is_empty()
    }
}

fn rel_string(p: &Path) -> String {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn sidecar_path(source: &Path) -> PathBuf {
    let mut s = source.as_os_str().to_owned();
    s.push(".toml");
    PathBuf::from(s)
}

fn hex(h: blake3::Hash) -> String {
    h.to_hex().to_string()
}

/// The settings hash: effective settings (canonical JSON) plus the converter revision.
pub fn settings_hash(settings: &Settings) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"voxcaf-settings\0");
    h.update(&CONVERTER_REVISION.to_le_bytes());
    h.update(settings.to_json().to_string().as_bytes());
    hex(h.finalize())
}

/// The settings hash of an encrypted build: [`settings_hash`] plus the key's public
/// fingerprint, so that a build with another key (or none) converts everything again.
pub fn keyed_settings_hash(settings: &Settings, key: &caf::encoded::Key) -> String {
    let mut h = blake3::Hasher::new();
    h.update(settings_hash(settings).as_bytes());
    h.update(b"\0voxcaf-key\0");
    h.update(&key.fingerprint());
    h.finalize().to_hex().to_string()
}

/// The source hash: the source bytes and each dependency (relative name and bytes). A
/// dependency that cannot be read hashes as missing, which forces a rebuild.
fn source_hash(bytes: &[u8], deps: &[(String, Option<Vec<u8>>)]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"voxcaf-source\0");
    h.update(&(bytes.len() as u64).to_le_bytes());
    h.update(bytes);
    for (name, data) in deps {
        h.update(&(name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        match data {
            Some(d) => {
                h.update(&[1]);
                h.update(&(d.len() as u64).to_le_bytes());
                h.update(d);
            }
            None => {
                h.update(&[0]);
            }
        }
    }
    hex(h.finalize())
}

fn read_deps(src_root: &Path, names: &[String]) -> Vec<(String, Option<Vec<u8>>)> {
    names
        .iter()
        .map(|n| (n.clone(), std::fs::read(src_root.join(n)).ok()))
        .collect()
}

/// Write `bytes` to `path` atomically: temporary file in the same folder, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(|e| ImportError::io(dir, e))?;
    voxcaf_fs::write_atomic(path, bytes).map_err(|e| ImportError::io(path, e))
}

struct Source {
    rel: PathBuf,
    rel_str: String,
    output: String,
    id: String,
}

impl Source {
    /// The source at `rel` under the source folder (`rel_str`: the same, `/`-separated).
    fn new(rel: PathBuf, rel_str: String) -> Source {
        let stem = output_stem(&rel);
        Source {
            output: format!("{}.caf", rel_string(&stem)),
            id: rel_string(&stem),
            rel,
            rel_str,
        }
    }
}

/// Converts one source as [`build`] does, writing nothing: the assets of `rel` (a
/// `/`-separated path under `src_root`) converted with `settings` (its sidecar already
/// applied), named as `build` names them. What an action of a shared build runs
/// (`voxcaf asset convert-action`, docs/remote-build.md).
pub fn convert_source(src_root: &Path, rel: &str, settings: &Settings) -> Result<Vec<SharedAsset>> {
    let s = Source::new(PathBuf::from(rel), rel.to_string());
    let path = src_root.join(&s.rel);
    let bytes = std::fs::read(&path).map_err(|e| ImportError::io(&path, e))?;
    source::convert_assets(src_root, &s, &bytes, settings, None)
}

/// What the walk of the source folder found.
#[derive(Default)]
struct Walk {
    sources: Vec<Source>,
    ignored: Vec<Ignored>,
    /// Files whose sidecar cannot be read or parsed (they fail like a broken source).
    failures: Vec<Failure>,
}

fn collect_sources(src: &Path, out: &Path) -> Result<Walk> {
    let out_canon = std::fs::canonicalize(out).ok();
    let mut walk = Walk::default();
    let mut pruned: Vec<Ignored> = Vec::new();
    let rel_of = |p: &Path| rel_string(p.strip_prefix(src).unwrap_or(p));
    let walker = walkdir::WalkDir::new(src)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let hidden = e.depth() > 0 && e.file_name().to_string_lossy().starts_with('.');
            let is_out = e.file_type().is_dir()
                && out_canon.is_some()
                && std::fs::canonicalize(e.path()).ok() == out_canon;
            if hidden || is_out {
                let (reason, message) = if is_out {
                    (SkipReason::OutputFolder, "the build's output folder")
                } else if e.file_type().is_dir() {
                    (SkipReason::Hidden, "hidden folder (name starts with '.')")
                } else {
                    (SkipReason::Hidden, "hidden file (name starts with '.')")
                };
                pruned.push(Ignored {
                    path: rel_of(e.path()),
                    reason,
                    message: message.to_string(),
                });
            }
            !hidden && !is_out
        });
    for entry in walker {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(src).to_path_buf();
            ImportError::io(path, e.into())
        })?;
        let path = entry.path();
        if entry.file_type().is_dir() {
            continue;
        }
        let rel_str = rel_of(path);
        if !entry.file_type().is_file() {
            walk.ignored.push(Ignored {
                path: rel_str,
                reason: SkipReason::NotAFile,
                message: "not a regular file".to_string(),
            });
            continue;
        }
        let name = path.to_string_lossy();
        if let Some(source) = name.strip_suffix(".toml") {
            if !Path::new(source).is_file() {
                walk.ignored.push(Ignored {
                    path: rel_str,
                    reason: SkipReason::OrphanSidecar,
                    message: format!(
                        "a .toml file but no file {:?} next to it for it to configure",
                        Path::new(source)
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default()
                    ),
                });
            }
            continue;
        }
        let side = sidecar_path(path);
        let sidecar_kind = match std::fs::read_to_string(&side) {
            Ok(t) => match SettingsOverride::from_toml(&t, &side) {
                Ok(o) => o.kind.is_some(),
                Err(e) => {
                    walk.failures.push(Failure {
                        source: rel_str,
                        error: e.to_string(),
                    });
                    continue;
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => {
                walk.failures.push(Failure {
                    source: rel_str,
                    error: ImportError::io(&side, e).to_string(),
                });
                continue;
            }
        };
        if AssetKind::from_path(path).is_none() && !sidecar_kind {
            let ext = path
                .extension()
                .map(|e| format!("extension {:?}", e.to_string_lossy()))
                .unwrap_or_else(|| "no extension".to_string());
            walk.ignored.push(Ignored {
                path: rel_str,
                reason: SkipReason::UnknownExtension,
                message: format!(
                    "{ext} names no asset kind (a sidecar {}.toml with `type` makes it a source)",
                    path.file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default()
                ),
            });
            continue;
        }
        let rel = path.strip_prefix(src).unwrap_or(path).to_path_buf();
        walk.sources.push(Source::new(rel, rel_str));
    }
    walk.ignored.extend(pruned);
    walk.sources.sort_by(|a, b| a.rel_str.cmp(&b.rel_str));
    walk.ignored.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(walk)
}

mod source;
use source::{plan, process, Context, Outcome, Plan};

/// Sources planned together when a shared cache is asked ([`SharedCache::prefetch`]).
const PREFETCH_GROUP: usize = 1024;

/// A group's plans (`None`: a source not to plan: a collision, or a stop).
type Plans = Vec<Option<Result<Plan>>>;

/// The build's sources with a shared cache, in groups of [`PREFETCH_GROUP`]: each group is
/// planned, then announced to the cache ([`SharedCache::prefetch`], on a thread of its own)
/// while the group before it is processed, so that the cache's lookups overlap the writing of
/// outputs. Outcomes in the order of `sources`.
fn run_grouped(
    sources: &[Source],
    cache: &dyn SharedCache,
    src: &Path,
    plan_one: &(dyn Fn(&Source) -> Option<Result<Plan>> + Sync),
    one: &(dyn Fn(&Source, Option<Result<Plan>>) -> Outcome + Sync),
) -> Vec<Outcome> {
    let plan_group = |g: &[Source]| -> Plans {
        g.par_iter()
            .map(|s| {
                // Not kept between planning and processing: memory stays bounded by the
                // sources being processed.
                plan_one(s).map(|p| {
                    p.map(|p| match p {
                        Plan::Todo(mut t) => {
                            t.bytes = None;
                            Plan::Todo(t)
                        }
                        p => p,
                    })
                })
            })
            .collect()
    };
    let announce = |g: &[Source], plans: &Plans| {
        let requests: Vec<(&str, &Settings)> = g
            .iter()
            .zip(plans)
            .filter_map(|(s, p)| match p {
                Some(Ok(Plan::Todo(t))) => Some((s.rel_str.as_str(), &t.settings)),
                _ => None,
            })
            .collect();
        if !requests.is_empty() {
            cache.prefetch(src, &requests);
        }
    };
    let groups: Vec<&[Source]> = sources.chunks(PREFETCH_GROUP).collect();
    let mut outcomes = Vec::with_capacity(sources.len());
    let mut ready = groups.first().map(|g| {
        let plans = plan_group(g);
        announce(g, &plans);
        plans
    });
    for (k, group) in groups.iter().enumerate() {
        let plans = ready.take().unwrap_or_default();
        let next = groups.get(k + 1).map(|g| (*g, plan_group(g)));
        std::thread::scope(|scope| {
            let ahead = next.as_ref().map(|(g, p)| scope.spawn(|| announce(g, p)));
            let done: Vec<Outcome> = group
                .par_iter()
                .zip(plans)
                .map(|(s, p)| one(s, p))
                .collect();
            outcomes.extend(done);
            // A look-ahead that panicked only loses its head start.
            if let Some(h) = ahead {
                let _ = h.join();
            }
        });
        ready = next.map(|(_, p)| p);
    }
    outcomes
}

/// Removes the outputs the previous build wrote whose source is gone (only files the previous
/// manifest names, inside `out`, ending in .caf); how many.
fn remove_stale(
    previous: &HashMap<String, Vec<ManifestEntry>>,
    manifest: &Manifest,
    out: &Path,
) -> usize {
    let live: std::collections::HashSet<&str> =
        manifest.assets.iter().map(|e| e.output.as_str()).collect();
    let failed: std::collections::HashSet<&str> = manifest
        .failures
        .iter()
        .map(|f| f.source.as_str())
        .collect();
    let mut removed = 0;
    for e in previous.values().flatten() {
        let safe = e.output.ends_with(".caf")
            && Path::new(&e.output)
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
        if safe
            && !live.contains(e.output.as_str())
            && !failed.contains(e.source.as_str())
            && std::fs::remove_file(out.join(&e.output)).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

fn output_matches(path: &Path, e: &ManifestEntry) -> bool {
    match std::fs::read(path) {
        Ok(b) => b.len() as u64 == e.file_size && content_crc(&b) == e.file_crc32,
        Err(_) => false,
    }
}

/// The name of a source's asset without `.caf`: the source name without its extension, except
/// that shader stage extensions stay (`sprite.vert` -> `sprite.vert`, `hero.png` -> `hero`),
/// because `sprite.vert` and `sprite.frag` usually come in pairs and must not collide.
pub fn output_stem(source: &Path) -> PathBuf {
    let keep_ext = matches!(
        source
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .as_deref(),
        Some("vert" | "frag" | "comp")
    );
    if keep_ext {
        source.to_path_buf()
    } else {
        source.with_extension("")
    }
}

/// The file name `build` gives a source's asset: [`output_stem`] plus `.caf`
/// (`sprite.vert` -> `sprite.vert.caf`, `hero.png` -> `hero.caf`).
pub fn output_name(source: &Path) -> PathBuf {
    let mut s = output_stem(source).into_os_string();
    s.push(".caf");
    PathBuf::from(s)
}

/// CRC-32 of a file's bytes before the footer (the whole file when it is too short to have one).
fn content_crc(file: &[u8]) -> u32 {
    caf::crc32(&file[..file.len().saturating_sub(caf::FOOTER_SIZE)])
}

/// The previous build's entries by source: one, or one per entry point of a WGSL module
/// (none when there is no readable manifest).
fn previous_entries(manifest_path: &Path) -> HashMap<String, Vec<ManifestEntry>> {
    let mut previous: HashMap<String, Vec<ManifestEntry>> = HashMap::new();
    if let Ok(m) = Manifest::read(manifest_path) {
        for e in m.assets {
            previous.entry(e.source.clone()).or_default().push(e);
        }
    }
    previous
}

/// Build every source under `src` into `out` (created if missing) and write the manifest.
///
/// Returns an error only when the build as a whole cannot run (unreadable source folder,
/// unwritable manifest); a source that fails is recorded in the report and the manifest.
pub fn build(
    src: &Path,
    out: &Path,
    opts: &BuildOptions,
    on_event: &(dyn Fn(&BuildEvent<'_>) + Sync),
) -> Result<BuildReport> {
    build_until(src, out, opts, &AtomicBool::new(false), on_event)
}

/// [`build`] that stops early once `stop` is set (by a Ctrl-C handler, say): each source not
/// yet started is left alone, the sources in progress finish, and the manifest is written for
/// the assets finished (plus the previous entries of sources not reached whose outputs are
/// still intact, so the next build skips them). The report is marked
/// [`interrupted`](BuildReport::interrupted).
pub fn build_until(
    src: &Path,
    out: &Path,
    opts: &BuildOptions,
    stop: &AtomicBool,
    on_event: &(dyn Fn(&BuildEvent<'_>) + Sync),
) -> Result<BuildReport> {
    let start = Instant::now();
    if !src.is_dir() {
        return Err(ImportError::io(
            src,
            std::io::Error::new(std::io::ErrorKind::NotFound, "source folder not found"),
        ));
    }
    std::fs::create_dir_all(out).map_err(|e| ImportError::io(out, e))?;
    let manifest_path = out.join(MANIFEST_NAME);
    let previous = previous_entries(&manifest_path);
    let Walk {
        sources,
        ignored,
        failures: sidecar_failures,
    } = collect_sources(src, out)?;
    on_event(&BuildEvent::Started {
        total: sources.len(),
    });
    for failure in &sidecar_failures {
        on_event(&BuildEvent::Failed { failure });
    }

    // Output name collisions are decided up front, in sorted order, so the result does not
    // depend on scheduling.
    let mut owner: BTreeMap<&str, &str> = BTreeMap::new();
    let mut collision: HashMap<&str, String> = HashMap::new();
    for s in &sources {
        if let Some(first) = owner.get(s.output.as_str()) {
            collision.insert(
                s.rel_str.as_str(),
                format!(
                    "output {} is already produced by {first}; rename one of them",
                    s.output
                ),
            );
        } else {
            owner.insert(s.output.as_str(), s.rel_str.as_str());
        }
    }

    let writes = voxcaf_fs::DeferredSync::new();
    let context = |s: &Source| Context {
        owner: &owner,
        previous: previous.get(&s.rel_str).map_or(&[], Vec::as_slice),
        writes: &writes,
    };
    // A source's outcome, from its plan when it was planned ahead.
    let one = |s: &Source, planned: Option<Result<Plan>>| -> Outcome {
        // Checked between assets: an asset in progress finishes, so its output and manifest
        // entry agree.
        if stop.load(Ordering::SeqCst) {
            return Outcome::NotReached(s.rel_str.clone());
        }
        let outcome = if let Some(msg) = collision.get(s.rel_str.as_str()) {
            Outcome::Failed(Failure {
                source: s.rel_str.clone(),
                error: msg.clone(),
            })
        } else {
            let cx = context(s);
            let planned = planned.unwrap_or_else(|| plan(src, out, s, opts, &cx));
            match planned.and_then(|p| process(src, out, s, opts, &cx, p)) {
                Ok(o) => o,
                Err(e) => Outcome::Failed(Failure {
                    source: s.rel_str.clone(),
                    error: e.to_string(),
                }),
            }
        };
        match &outcome {
            Outcome::Converted(entries, _) => on_event(&BuildEvent::Converted { entries }),
            Outcome::Skipped(entries) => on_event(&BuildEvent::Skipped { entries }),
            Outcome::Failed(failure) => on_event(&BuildEvent::Failed { failure }),
            Outcome::NotReached(_) => {}
        }
        outcome
    };
    let shared = opts.shared.as_deref().filter(|_| opts.key.is_none());
    let plan_one = |s: &Source| -> Option<Result<Plan>> {
        let skip = stop.load(Ordering::SeqCst) || collision.contains_key(s.rel_str.as_str());
        (!skip).then(|| plan(src, out, s, opts, &context(s)))
    };
    let run = || -> Vec<Outcome> {
        match shared {
            None => sources.par_iter().map(|s| one(s, None)).collect(),
            Some(cache) => run_grouped(&sources, cache, src, &plan_one, &one),
        }
    };
    let outcomes = if opts.jobs == 0 {
        run()
    } else {
        rayon::ThreadPoolBuilder::new()
            .num_threads(opts.jobs)
            .build()
            .map_err(|e| {
                ImportError::InvalidArgument(format!("cannot start {} jobs: {e}", opts.jobs))
            })?
            .install(run)
    };

    let mut manifest = Manifest {
        format: MANIFEST_FORMAT.to_string(),
        version: 1,
        converter_revision: CONVERTER_REVISION,
        assets: Vec::new(),
        failures: sidecar_failures,
        ignored,
    };
    let (mut converted, mut skipped, mut bytes_written) = (0, 0, 0u64);
    let mut interrupted = false;
    for o in outcomes {
        match o {
            Outcome::Converted(e, n) => {
                converted += e.len();
                bytes_written += n;
                manifest.assets.extend(e);
            }
            Outcome::Skipped(e) => {
                skipped += e.len();
                manifest.assets.extend(e);
            }
            Outcome::Failed(f) => manifest.failures.push(f),
            Outcome::NotReached(source) => {
                interrupted = true;
                let prev = previous.get(&source).map_or(&[][..], Vec::as_slice);
                if !prev.is_empty() && prev.iter().all(|e| output_matches(&out.join(&e.output), e))
                {
                    manifest.assets.extend(prev.iter().cloned());
                }
            }
        }
    }

    manifest.failures.sort_by(|a, b| a.source.cmp(&b.source));

    // An interrupted build does not know which sources are gone.
    let removed = match interrupted {
        true => 0,
        false => remove_stale(&previous, &manifest, out),
    };

    // The outputs are durable before the manifest vouches for them.
    writes.sync().map_err(|e| ImportError::io(out, e))?;
    write_atomic(&manifest_path, manifest.to_json().as_bytes())?;
    Ok(BuildReport {
        manifest,
        converted,
        skipped,
        removed,
        bytes_written,
        elapsed: start.elapsed(),
        interrupted,
    })
}
