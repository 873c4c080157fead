//! `SIGINT` / `SIGTERM` handling for programs that save through this crate.
//!
//! [`install`] starts a thread (through `signal-hook`, no hand-written signal code) that, on
//! the first signal, either
//! - sets the stop flag of a long job that asked to stop gracefully ([`StopOnSignal`]), which
//!   then finishes its current step, writes what it has and ends itself; or
//! - removes the temporary file of every save in progress and exits with the conventional
//!   status `128 + signal` (130 for `SIGINT`, 143 for `SIGTERM`).
//!
//! A second signal during a graceful stop takes the second path, so an impatient user can
//! always end the process.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

use signal_hook::consts::{SIGINT, SIGPIPE, SIGTERM};
use signal_hook::iterator::Signals;
use signal_hook::SigId;

/// The stop flag of the job that wants a graceful stop, if any.
static GRACEFUL: Mutex<Option<Arc<AtomicBool>>> = Mutex::new(None);
/// The last signal received (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Installs the handler for `SIGINT` and `SIGTERM` (see the [module docs](self)). Call it
/// once, early in `main`.
pub fn install() -> io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new()
        .name("voxcaf-signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                RECEIVED.store(sig, Ordering::SeqCst);
                let graceful = GRACEFUL.lock().unwrap_or_else(|e| e.into_inner()).clone();
                match graceful {
                    // First signal: let the job stop between steps.
                    Some(flag) if !flag.swap(true, Ordering::SeqCst) => {}
                    _ => crate::remove_temp_files_and_exit(128 + sig),
                }
            }
        })?;
    Ok(())
}

/// The exit status for the signal received so far (`128 + signal`), if any.
pub fn exit_code() -> Option<u8> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => u8::try_from(128 + s).ok(),
    }
}

/// While alive, a signal sets [`flag`](StopOnSignal::flag) instead of ending the process.
/// Dropping it restores the immediate exit.
#[derive(Debug)]
pub struct StopOnSignal {
    flag: Arc<AtomicBool>,
    broken_pipe: Arc<AtomicBool>,
    pipe_ids: Vec<SigId>,
}

impl StopOnSignal {
    /// Asks for graceful stops from now on.
    pub fn new() -> StopOnSignal {
        let flag = Arc::new(AtomicBool::new(false));
        *GRACEFUL.lock().unwrap_or_else(|e| e.into_inner()) = Some(flag.clone());
        StopOnSignal {
            flag,
            broken_pipe: Arc::new(AtomicBool::new(false)),
            pipe_ids: Vec::new(),
        }
    }

    /// Also stops gracefully when a write to a closed pipe raises `SIGPIPE` (`... | head`)
    /// instead of dying: the write then fails with [`io::ErrorKind::BrokenPipe`], so the job
    /// must print without panicking (`let _ = writeln!(...)`). After this guard is dropped
    /// `SIGPIPE` stays caught and does nothing, so writes keep failing instead of killing the
    /// process.
    pub fn with_broken_pipe(mut self) -> io::Result<StopOnSignal> {
        self.pipe_ids
            .push(signal_hook::flag::register(SIGPIPE, self.flag.clone())?);
        self.pipe_ids.push(signal_hook::flag::register(
            SIGPIPE,
            self.broken_pipe.clone(),
        )?);
        Ok(self)
    }

    /// True once a write to a closed pipe raised `SIGPIPE` (see
    /// [`with_broken_pipe`](StopOnSignal::with_broken_pipe)).
    pub fn broken_pipe(&self) -> bool {
        self.broken_pipe.load(Ordering::SeqCst)
    }

    /// True once a stop was asked for (a signal or a broken pipe).
    pub fn stopped(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The flag a signal sets; the job checks it between steps.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }
}

impl Default for StopOnSignal {
    fn default() -> Self {
        StopOnSignal::new()
    }
}

impl Drop for StopOnSignal {
    fn drop(&mut self) {
        for id in self.pipe_ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
        let mut g = GRACEFUL.lock().unwrap_or_else(|e| e.into_inner());
        if g.as_ref().is_some_and(|f| Arc::ptr_eq(f, &self.flag)) {
            *g = None;
        }
    }
}
