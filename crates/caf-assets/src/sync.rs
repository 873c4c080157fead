//! The one way this crate takes a lock.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks a mutex, ignoring poisoning: every critical section here leaves the state consistent
/// at each step, so a panic elsewhere (in user code holding nothing of ours) cannot break it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
