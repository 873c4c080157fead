//! Load jobs on the worker pool: reading and checking a file, installing the result in its
//! slot, queuing reload events ([`AssetEvent`]), and the reload requests from the watcher.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use caf::encoded::PayloadDecoder;
use caf::{CafError, LoadMode, LoadedAsset};

use crate::error::AssetError;
use crate::event::AssetEvent;
use crate::inner::Inner;
use crate::path::AssetPath;
use crate::slot::{Reason, Slot, Version};
use crate::sync::lock;

thread_local! {
    /// The payload decoder of the thread running load jobs.
    static DECODER: std::cell::RefCell<PayloadDecoder> = std::cell::RefCell::new(PayloadDecoder::new());
}

impl Inner {
    /// Runs a job for `slot` on the pool.
    pub(crate) fn spawn(self: &Arc<Self>, slot: Arc<Slot>, reason: Reason) {
        let inner = self.clone();
        self.pool
            .spawn(move || Inner::run_job(&inner, slot, reason));
    }

    /// Reads the slot's file and runs its kind's check: the one place a typed check runs.
    fn read(&self, slot: &Slot) -> Result<Version, AssetError> {
        // Always read into memory, never map: the manager watches and reloads files that other
        // programs rewrite, and a mapped file truncated in place would kill the game with
        // SIGBUS on the next access (`LoadMode::Auto` maps files of `caf::MAP_THRESHOLD`, 4 MiB, and more).
        let load_err = |source| AssetError::Load {
            path: slot.key.path.clone(),
            source,
        };
        // A loose file first; without one, the newest mounted pack that has the path.
        let asset = match LoadedAsset::open_with(&slot.file, LoadMode::Read) {
            Err(CafError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound && !self.packs.is_empty() =>
            {
                match self.packs.load(slot.key.path.as_str()) {
                    Ok(Some(a)) => Ok(a),
                    // Missing everywhere: the loose file's "not found" is the answer.
                    Ok(None) => Err(CafError::Io {
                        path: Some(slot.file.clone()),
                        source,
                    }),
                    Err(e) => Err(e),
                }
            }
            r => r,
        }
        .map_err(load_err)?;
        // COMPRESSED / ENCRYPTED payloads are decoded (every block checked) into a plain
        // asset, so handles and views never see encoded bytes.
        let asset = if caf::encoded::is_encoded(asset.header().flags) {
            let opts = caf::encoded::DecodeOptions::with_key(self.key.as_ref());
            // One decoder per worker thread: its zstd context serves every asset the worker
            // decodes (a failed asset leaves it usable).
            DECODER
                .with(|d| d.borrow_mut().decode_loaded(&asset.asset(), &opts))
                .map_err(|source| AssetError::Load {
                    path: slot.key.path.clone(),
                    source,
                })?
        } else {
            asset
        };
        self.validations.fetch_add(1, Ordering::Relaxed);
        let layout = (slot.validate)(&slot.key.path, &asset)?;
        Ok(Version {
            asset: Arc::new(asset),
            layout,
        })
    }

    /// Loads the slot's file, checks it for the slot's kind and installs the result.
    pub(crate) fn run_job(self: &Arc<Self>, slot: Arc<Slot>, reason: Reason) {
        let result = self.read(&slot);
        let mut grew = false;
        let old = {
            let mut st = lock(&slot.state);
            st.attempts += 1;
            let old = match result {
                Ok(new) => {
                    let new_bytes = new.asset.file_size();
                    let old = st.data.replace(new);
                    let old_bytes = old.as_ref().map_or(0, |d| d.asset.file_size());
                    if !st.detached {
                        self.bytes.fetch_add(new_bytes, Ordering::AcqRel);
                        self.bytes.fetch_sub(old_bytes, Ordering::AcqRel);
                        grew = new_bytes > old_bytes;
                    }
                    st.version += 1;
                    st.error = None;
                    if reason == Reason::Reload {
                        self.reloads.fetch_add(1, Ordering::Relaxed);
                        self.push_event(AssetEvent::Reloaded {
                            path: slot.key.path.clone(),
                            kind: slot.key.kind,
                            version: st.version,
                            recovered: old.is_none(),
                        });
                    }
                    old
                }
                Err(e) => {
                    let e = Arc::new(e);
                    st.error = Some(e.clone());
                    if reason == Reason::Reload {
                        self.reload_failures.fetch_add(1, Ordering::Relaxed);
                        self.push_event(AssetEvent::ReloadFailed {
                            path: slot.key.path.clone(),
                            kind: slot.key.kind,
                            error: e,
                            kept_version: st.data.as_ref().map(|_| st.version),
                        });
                    }
                    None
                }
            };
            match st.rerun.take() {
                Some(next) if !st.detached => {
                    // Stays in flight; `pending` keeps counting it.
                    self.spawn(slot.clone(), next);
                }
                _ => {
                    st.in_flight = false;
                    self.pending.fetch_sub(1, Ordering::AcqRel);
                }
            }
            slot.changed(&mut st);
            old
        };
        // The old version's buffer is released outside the lock (unless a guard holds it).
        drop(old);
        // The worker's share of the bookkeeping: releases queued meanwhile, then the budget.
        self.maintain();
        if grew {
            self.enforce_budget();
        }
    }

    fn push_event(&self, event: AssetEvent) {
        lock(&self.events).push_back(event);
        self.events_cv.notify_all();
    }

    /// Queues a reload. From the watcher (`explicit == false`), entries that were unloaded on
    /// purpose stay unloaded; failed entries are retried.
    pub(crate) fn request_reload(self: &Arc<Self>, slot: &Arc<Slot>, explicit: bool) {
        let mut st = lock(&slot.state);
        if st.detached {
            return;
        }
        if st.in_flight {
            st.rerun = Some(Reason::Reload);
            return;
        }
        if !explicit && st.data.is_none() && st.error.is_none() {
            return;
        }
        st.in_flight = true;
        self.pending.fetch_add(1, Ordering::AcqRel);
        slot.changed(&mut st);
        drop(st);
        self.spawn(slot.clone(), Reason::Reload);
    }

    /// Called by the watcher with the paths that changed (files, or directories whose
    /// contents changed); `None` means "anything may have changed" (event queue overflow).
    pub(crate) fn files_changed(self: &Arc<Self>, changed: Option<&[AssetPath]>) {
        let slots: Vec<Arc<Slot>> = {
            let cache = lock(&self.cache);
            cache
                .map
                .iter()
                .filter(|(k, _)| match changed {
                    None => true,
                    Some(paths) => paths.iter().any(|p| k.path.is_at_or_below(p)),
                })
                .map(|(_, s)| s.clone())
                .collect()
        };
        for slot in &slots {
            self.request_reload(slot, false);
        }
    }
}
