//! Running out of memory is an error with a message and exit status 1, not an abort.
//!
//! Rust's default reaction to a failed allocation is to print "memory allocation of N bytes
//! failed" and abort (SIGABRT, exit 134, a core dump where enabled). The CLI's global allocator
//! forwards to the system allocator and, when that returns nothing, writes one line naming the
//! command and the size asked for, as `error: ...` on stderr or, for `--json` commands, as the
//! usual JSON error on stdout, and exits with 1. Nothing on that path allocates: the line is
//! formatted into a stack buffer.
//!
//! Commands should refuse work they cannot do before they start (estimates, `--box`); this is
//! the net under them, for a limit the machine or `ulimit -v` sets.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// What the process is doing, for the message (set once, before the command runs).
static COMMAND: OnceLock<String> = OnceLock::new();
/// Whether the command answers in JSON.
static JSON: AtomicBool = AtomicBool::new(false);

/// Records the command line's subcommand (`world mesh`) and whether errors answer in JSON.
pub fn describe(command: String, json: bool) {
    let _ = COMMAND.set(command);
    JSON.store(json, Ordering::Relaxed);
}

/// The system allocator, with a message and exit 1 instead of an abort when it fails.
pub struct Allocator;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged and returns
// its answer; a null answer never returns (the process exits), which the contract allows.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, forwarded (non-zero size by `alloc`'s contract).
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator (that is, from `System`) with `layout`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            out_of_memory(new_size);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator (that is, from `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Writes the message without allocating and ends the process with status 1.
fn out_of_memory(size: usize) -> ! {
    let mut buf = [0u8; 640];
    let len = {
        let mut cursor = std::io::Cursor::new(&mut buf[..]);
        let command = COMMAND.get().map_or("voxcaf", String::as_str);
        let message = Message { command, size };
        let _ = if JSON.load(Ordering::Relaxed) {
            // The shape of `output::error_json`; the command has no quotes or backslashes to
            // escape (clap names), and the numbers are plain.
            writeln!(
                cursor,
                "{{\"ok\":false,\"error\":{{\"kind\":\"out_of_memory\",\"message\":\"{message}\",\"file\":null}}}}"
            )
        } else {
            writeln!(cursor, "error: {message}")
        };
        usize::try_from(cursor.position()).unwrap_or(0)
    };
    let bytes = buf.get(..len).unwrap_or(&[]);
    if JSON.load(Ordering::Relaxed) {
        let _ = std::io::stdout().lock().write_all(bytes);
        let _ = std::io::stdout().lock().flush();
    } else {
        let _ = std::io::stderr().lock().write_all(bytes);
    }
    std::process::exit(1)
}

/// "out of memory while running `voxcaf world mesh`: ... 17.2 GB ...", formatted in place.
struct Message<'a> {
    command: &'a str,
    size: usize,
}

impl std::fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "out of memory while running `{}`: an allocation of ",
            self.command
        )?;
        // Sizes for people: bytes below 1 KiB, else one decimal in the largest unit.
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB"];
        if self.size < 1024 {
            write!(f, "{} bytes", self.size)?;
        } else {
            let mut value = self.size as f64 / 1024.0;
            let mut unit = 0;
            while value >= 1024.0 && unit + 1 < units.len() {
                value /= 1024.0;
                unit += 1;
            }
            write!(f, "{value:.1} {}", units[unit])?;
        }
        write!(
            f,
            " failed (limit it with --box or a smaller --size where the command has them, or \
             free memory)"
        )
    }
}
