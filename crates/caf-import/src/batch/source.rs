//! One source's part of a build ([`super::build_until`]): whether it is up to date
//! ([`plan`]), then its assets fetched from a shared cache or converted, written and recorded
//! ([`process`]).

use std::collections::BTreeMap;
use std::path::Path;

use voxcaf_fs::DeferredSync;

use super::{
    content_crc, keyed_settings_hash, output_matches, read_deps, rel_string, settings_hash,
    sidecar_path, source_hash, BuildOptions, Failure, ManifestEntry, Source,
};
use crate::error::{ImportError, Result};
use crate::shared::{Origin, SharedAsset};
use crate::{convert, Settings, SettingsOverride};

pub(super) enum Outcome {
    Converted(Vec<ManifestEntry>, u64),
    Skipped(Vec<ManifestEntry>),
    Failed(Failure),
    /// Not started because the build was asked to stop.
    NotReached(String),
}

/// What [`plan`] and [`process`] read besides the source: the output each other source
/// claims, the previous build's entries of this source, and the build's writes (made durable
/// together before the manifest is written).
pub(super) struct Context<'a> {
    pub(super) owner: &'a BTreeMap<&'a str, &'a str>,
    pub(super) previous: &'a [ManifestEntry],
    pub(super) writes: &'a DeferredSync,
}

/// What a source needs, decided before anything is fetched or converted.
pub(super) enum Plan {
    /// Up to date: its previous entries stand.
    Skipped(Vec<ManifestEntry>),
    /// To be fetched or converted.
    Todo(Todo),
}

/// A source to fetch or convert, with its effective settings.
pub(super) struct Todo {
    pub(super) settings: Settings,
    settings_h: String,
    sidecar: Option<String>,
    /// The source's bytes as read, or `None` to read them again (a build that plans a group of
    /// sources before processing them keeps no bytes in between).
    pub(super) bytes: Option<Vec<u8>>,
}

/// The output of one entry point's asset: `STEM.ENTRY.caf` beside the source's own output.
pub(super) fn entry_output(s: &Source, entry: Option<&str>) -> String {
    match entry {
        None => s.output.clone(),
        Some(e) => format!("{}.{e}.caf", s.id),
    }
}

/// Reads the source and its sidecar and decides whether the previous build's outputs stand.
pub(super) fn plan(
    src_root: &Path,
    out_root: &Path,
    s: &Source,
    opts: &BuildOptions,
    cx: &Context<'_>,
) -> Result<Plan> {
    let path = src_root.join(&s.rel);
    let bytes = std::fs::read(&path).map_err(|e| ImportError::io(&path, e))?;
    let side = sidecar_path(&path);
    let (settings, sidecar) = match std::fs::read_to_string(&side) {
        Ok(text) => {
            let o = SettingsOverride::from_toml(&text, &side)?;
            (
                opts.settings.with_override(&o),
                Some(format!("{}.toml", s.rel_str)),
            )
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (opts.settings.clone(), None),
        Err(e) => return Err(ImportError::io(&side, e)),
    };
    let settings_h = match &opts.key {
        None => settings_hash(&settings),
        Some(k) => keyed_settings_hash(&settings, k),
    };
    let up_to_date = |prev: &ManifestEntry| {
        let deps = read_deps(src_root, &prev.dependencies);
        prev.settings_hash == settings_h
            && prev.source_hash == source_hash(&bytes, &deps)
            && prev.output == entry_output(s, prev.entry.as_deref())
            && prev.sidecar == sidecar
            && output_matches(&out_root.join(&prev.output), prev)
    };
    if !opts.force && !cx.previous.is_empty() && cx.previous.iter().all(up_to_date) {
        return Ok(Plan::Skipped(cx.previous.to_vec()));
    }
    Ok(Plan::Todo(Todo {
        settings,
        settings_h,
        sidecar,
        bytes: Some(bytes),
    }))
}

/// Carries out a source's [`Plan`]: its assets from the shared cache when it has them
/// (unless the build is encrypted), converted here otherwise (and offered to the cache).
pub(super) fn process(
    src_root: &Path,
    out_root: &Path,
    s: &Source,
    opts: &BuildOptions,
    cx: &Context<'_>,
    plan: Plan,
) -> Result<Outcome> {
    let todo = match plan {
        Plan::Skipped(entries) => return Ok(Outcome::Skipped(entries)),
        Plan::Todo(todo) => todo,
    };
    let path = src_root.join(&s.rel);
    let bytes = match todo.bytes {
        Some(b) => b,
        None => std::fs::read(&path).map_err(|e| ImportError::io(&path, e))?,
    };
    let settings = &todo.settings;
    // Encrypted builds share nothing: the key would have to be an input.
    let shared = opts.shared.as_deref().filter(|_| opts.key.is_none());
    let mut fin = Finish {
        bytes: &bytes,
        settings,
        settings_h: &todo.settings_h,
        sidecar: &todo.sidecar,
        origin: Origin::Cache,
    };
    if let Some(cache) = shared {
        if let Some(fetched) = cache.fetch(src_root, &s.rel_str, settings) {
            let expected = |entry: Option<&str>| entry_output(s, entry);
            let assets = fetched.assets;
            if crate::shared::plausible(&assets, expected) && claims_ok(&assets, cx).is_ok() {
                fin.origin = fetched.origin;
                return finish(src_root, out_root, s, assets, &fin, cx);
            }
        }
    }
    let assets = convert_assets(src_root, s, &bytes, settings, opts.key.as_ref())?;
    claims_ok(&assets, cx)?;
    if let Some(cache) = shared {
        cache.store(src_root, &s.rel_str, settings, &assets);
    }
    fin.origin = Origin::Local;
    finish(src_root, out_root, s, assets, &fin, cx)
}

/// The assets of source `s` (its `bytes`) converted here, named as the build names them,
/// encrypted with `key` when given.
pub(super) fn convert_assets(
    src_root: &Path,
    s: &Source,
    bytes: &[u8],
    settings: &Settings,
    key: Option<&caf::encoded::Key>,
) -> Result<Vec<SharedAsset>> {
    let path = src_root.join(&s.rel);
    let converted: Vec<(Option<String>, crate::Converted)> =
        match crate::shader::convert_entries(bytes, &path, settings, None)? {
            Some(list) => list
                .into_iter()
                .map(|e| (Some(e.entry), e.converted))
                .collect(),
            None => vec![(None, convert(bytes, &path, settings)?)],
        };
    let mut assets = Vec::with_capacity(converted.len());
    for (entry, c) in converted {
        let mut dependencies: Vec<String> = c
            .dependencies
            .iter()
            .map(|d| rel_string(d.strip_prefix(src_root).unwrap_or(d)))
            .collect();
        dependencies.sort();
        dependencies.dedup();
        assets.push(SharedAsset {
            output: entry_output(s, entry.as_deref()),
            file: c.to_caf_bytes_encoded(&settings.encoding(key))?,
            entry,
            kind: c.kind,
            payload_size: c.payload.len() as u64,
            payload_crc32: caf::crc32(&c.payload),
            summary: c.summary,
            dependencies,
        });
    }
    Ok(assets)
}

/// Refuses assets of entry points whose output another source already produces (decided
/// before anything is written, from the outputs claimed up front).
fn claims_ok(assets: &[SharedAsset], cx: &Context<'_>) -> Result<()> {
    for a in assets {
        if let (Some(e), Some(first)) = (&a.entry, cx.owner.get(a.output.as_str())) {
            return Err(ImportError::InvalidArgument(format!(
                "the asset of entry point {e} would be {}, which {first} already produces; \
                 rename one of them",
                a.output
            )));
        }
    }
    Ok(())
}

/// What [`finish`] records of a source besides its assets.
struct Finish<'a> {
    bytes: &'a [u8],
    settings: &'a Settings,
    settings_h: &'a str,
    sidecar: &'a Option<String>,
    origin: Origin,
}

/// Writes a source's assets (durable once the build syncs its writes) and makes their
/// manifest entries.
fn finish(
    src_root: &Path,
    out_root: &Path,
    s: &Source,
    assets: Vec<SharedAsset>,
    fin: &Finish<'_>,
    cx: &Context<'_>,
) -> Result<Outcome> {
    let mut entries = Vec::with_capacity(assets.len());
    let mut written = 0;
    for a in assets {
        let deps = read_deps(src_root, &a.dependencies);
        let path = out_root.join(&a.output);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| ImportError::io(dir, e))?;
        }
        cx.writes
            .write(&path, &a.file)
            .map_err(|e| ImportError::io(&path, e))?;
        written += a.file.len() as u64;
        entries.push(ManifestEntry {
            id: a
                .entry
                .as_ref()
                .map_or_else(|| s.id.clone(), |e| format!("{}.{e}", s.id)),
            source: s.rel_str.clone(),
            output: a.output,
            kind: a.kind,
            source_size: fin.bytes.len() as u64,
            file_size: a.file.len() as u64,
            // As written: the default profile pads the metadata to align the payload.
            metadata_size: caf::validate_header_bytes(&a.file)?.metadata_size,
            payload_size: a.payload_size,
            payload_crc32: a.payload_crc32,
            file_crc32: content_crc(&a.file),
            source_hash: source_hash(fin.bytes, &deps),
            settings_hash: fin.settings_h.to_string(),
            settings: fin.settings.clone(),
            sidecar: fin.sidecar.clone(),
            dependencies: a.dependencies,
            summary: a.summary,
            entry: a.entry,
            origin: fin.origin,
        });
    }
    Ok(Outcome::Converted(entries, written))
}
