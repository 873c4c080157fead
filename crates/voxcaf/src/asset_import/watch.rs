//! `asset build --watch`: waits for the next change under the source folder (a `notify`
//! watcher, debounced), so the build runs again; reads of the sources by the build itself are
//! not changes.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, EventKind};
use notify::{RecursiveMode, Watcher};

/// How long the sources must stay quiet before the build runs again: an editor's save is
/// several writes.
const QUIET: Duration = Duration::from_millis(300);
/// How often the stop flag is looked at while nothing happens.
const TICK: Duration = Duration::from_millis(100);

/// Whether an event changes the sources (creations, writes, renames, removals; not reads).
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Other => false,
        EventKind::Any | EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => true,
    }
}

/// A watcher on the source folder, started before the first build so that no change made
/// while a build runs is missed.
pub(super) struct SourceWatch {
    _watcher: notify::RecommendedWatcher,
    changes: mpsc::Receiver<()>,
}

impl SourceWatch {
    /// Watches everything under `src`.
    pub(super) fn new(src: &Path) -> anyhow::Result<SourceWatch> {
        let (tx, changes) = mpsc::channel();
        let mut watcher = notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
            // A lost event (an overflowing queue) is a change too: the build looks at everything.
            if ev.map_or(true, |e| is_change(&e.kind)) {
                let _ = tx.send(());
            }
        })?;
        watcher.watch(src, RecursiveMode::Recursive)?;
        Ok(SourceWatch {
            _watcher: watcher,
            changes,
        })
    }

    /// Waits until something under the folder has changed (since the watch began or the last
    /// wait) and then stayed quiet for a moment: `true`; `false` when `stop` is set first
    /// (Ctrl-C).
    pub(super) fn wait_for_change(&self, stop: &AtomicBool) -> bool {
        let mut last: Option<Instant> = None;
        loop {
            if stop.load(Ordering::SeqCst) {
                return false;
            }
            match self.changes.recv_timeout(TICK) {
                Ok(()) => last = Some(Instant::now()),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return true,
            }
            if last.is_some_and(|t| t.elapsed() >= QUIET) {
                return true;
            }
        }
    }
}
