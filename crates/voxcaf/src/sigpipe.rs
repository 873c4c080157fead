//! Broken pipes end the process quietly, as `cat`, ripgrep or cargo do.
//!
//! Rust programs start with `SIGPIPE` ignored, so writing to a closed pipe
//! (`voxcaf world check *.vwr | head -1`) returns `EPIPE` and `println!` panics. Restoring the
//! default action makes the kernel end the process with the conventional status (128 + 13 in a
//! shell) and no message, which is what a pipeline expects. Files are always saved through
//! `voxcaf_fs` (temporary file, then rename), so ending mid-way never leaves a half-written one.

/// Restores the default `SIGPIPE` action (Unix; nothing elsewhere).
pub fn restore_default() {
    #[cfg(unix)]
    // SAFETY: `signal` with `SIG_DFL` only changes the process's disposition for SIGPIPE; it is
    // called once at the start of `main`, before any thread is spawned, and installs no
    // handler code, so no Rust invariant can be broken by it.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
