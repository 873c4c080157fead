//! Hot reload: a `notify` watcher on the base directory feeding a small debouncer thread.
//!
//! The watcher callback runs on notify's thread and only records which paths changed. The
//! debouncer thread waits until a path has been quiet for the debounce interval (or has been
//! changing for ten intervals, so a file rewritten continuously still reloads) and then asks
//! the manager to reload the entries at or below it. Reloads run on the worker pool.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use crate::error::AssetError;
use crate::inner::Inner;
use crate::path::AssetPath;
use crate::sync::lock;

#[derive(Default)]
struct Pending {
    /// Changed path -> (first change, last change) since it was last handed on.
    paths: HashMap<AssetPath, (Instant, Instant)>,
    /// The watcher lost events (queue overflow): everything may have changed.
    rescan: Option<Instant>,
    shutdown: bool,
}

struct Shared {
    pending: Mutex<Pending>,
    cv: Condvar,
}

/// The running watcher and debouncer thread. Dropping it stops both.
pub(crate) struct HotReload {
    watcher: Option<RecommendedWatcher>,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// Whether a notify event can mean new file contents. Reads (`Access` other than closing a
/// file opened for writing) are ignored: the loader's own reads must not trigger reloads.
/// Metadata-only changes (permissions, times) are ignored too.
fn is_content_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => true,
        EventKind::Any | EventKind::Other => true,
    }
}

impl HotReload {
    pub(crate) fn start(inner: &Arc<Inner>, debounce: Duration) -> Result<HotReload, AssetError> {
        let shared = Arc::new(Shared {
            pending: Mutex::new(Pending::default()),
            cv: Condvar::new(),
        });
        let base = inner.base.clone();
        let cb_shared = shared.clone();
        let cb_base = base.clone();
        let handler = move |res: notify::Result<notify::Event>| {
            let Ok(event) = res else {
                // An error from the backend (e.g. a watch that could not be added for a new
                // directory). Nothing to reload; entries keep their data.
                return;
            };
            let now = Instant::now();
            let mut p = lock(&cb_shared.pending);
            if event.need_rescan() {
                p.rescan.get_or_insert(now);
            } else if is_content_change(&event.kind) {
                for path in &event.paths {
                    let Ok(rel) = path.strip_prefix(&cb_base) else {
                        continue;
                    };
                    let Ok(key) = AssetPath::normalise(rel, &cb_base, &cb_base) else {
                        continue;
                    };
                    p.paths
                        .entry(key)
                        .and_modify(|(_, last)| *last = now)
                        .or_insert((now, now));
                }
            } else {
                return;
            }
            drop(p);
            cb_shared.cv.notify_all();
        };
        let watch_err = |source| AssetError::Watch {
            path: base.clone(),
            source,
        };
        let mut watcher = notify::recommended_watcher(handler).map_err(watch_err)?;
        watcher
            .watch(&base, RecursiveMode::Recursive)
            .map_err(watch_err)?;
        let weak = Arc::downgrade(inner);
        let thread_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name("caf-assets-watch".into())
            .spawn(move || debounce_loop(&thread_shared, &weak, debounce))
            .map_err(|e| AssetError::Watch {
                path: PathBuf::from(&base),
                source: notify::Error::io(e),
            })?;
        Ok(HotReload {
            watcher: Some(watcher),
            shared,
            thread: Some(thread),
        })
    }
}

impl Drop for HotReload {
    fn drop(&mut self) {
        // Stop the event source first, then the debouncer.
        drop(self.watcher.take());
        lock(&self.shared.pending).shutdown = true;
        self.shared.cv.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn debounce_loop(shared: &Shared, inner: &Weak<Inner>, debounce: Duration) {
    let max_delay = debounce.saturating_mul(10);
    let due_at = |(first, last): (Instant, Instant)| {
        let quiet = last.checked_add(debounce).unwrap_or(last);
        let capped = first.checked_add(max_delay).unwrap_or(first);
        quiet.min(capped)
    };
    let mut p = lock(&shared.pending);
    loop {
        if p.shutdown {
            return;
        }
        let now = Instant::now();
        let rescan_due = p.rescan.map(|t| t.checked_add(debounce).unwrap_or(t));
        let next = p
            .paths
            .values()
            .map(|&fl| due_at(fl))
            .chain(rescan_due)
            .min();
        let Some(next) = next else {
            p = shared.cv.wait(p).unwrap_or_else(PoisonError::into_inner);
            continue;
        };
        if next > now {
            p = shared
                .cv
                .wait_timeout(p, next - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            continue;
        }
        let rescan = rescan_due.is_some_and(|t| t <= now);
        if rescan {
            p.rescan = None;
        }
        let due: Vec<AssetPath> = p
            .paths
            .iter()
            .filter(|(_, &fl)| due_at(fl) <= now)
            .map(|(k, _)| k.clone())
            .collect();
        for k in &due {
            p.paths.remove(k);
        }
        drop(p);
        let Some(inner) = inner.upgrade() else { return };
        if rescan {
            inner.files_changed(None);
        } else if !due.is_empty() {
            inner.files_changed(Some(&due));
        }
        drop(inner);
        p = lock(&shared.pending);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, DataChange, MetadataKind, RemoveKind, RenameMode};

    #[test]
    fn own_reads_and_metadata_changes_do_not_count() {
        assert!(!is_content_change(&EventKind::Access(AccessKind::Open(
            AccessMode::Read
        ))));
        assert!(!is_content_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(!is_content_change(&EventKind::Access(AccessKind::Read)));
        assert!(!is_content_change(&EventKind::Modify(
            ModifyKind::Metadata(MetadataKind::AccessTime)
        )));
        assert!(is_content_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(is_content_change(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(is_content_change(&EventKind::Modify(ModifyKind::Name(
            RenameMode::To
        ))));
        assert!(is_content_change(&EventKind::Create(CreateKind::File)));
        assert!(is_content_change(&EventKind::Remove(RemoveKind::File)));
    }
}
