//! Status codes, the per-thread error message, and the guard every entry point runs in.

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Success.
pub const VOXCAF_OK: i32 = 0;
/// A NULL pointer, a bad enum value, a bad UTF-8 path or a size that does not add up.
pub const VOXCAF_ERR_INVALID_ARGUMENT: i32 = 1;
/// Reading or writing a file failed.
pub const VOXCAF_ERR_IO: i32 = 2;
/// The input is not a valid file of its format (damaged, truncated, inconsistent).
pub const VOXCAF_ERR_MALFORMED: i32 = 3;
/// Well-formed but not supported (another format version, a feature not available yet).
pub const VOXCAF_ERR_UNSUPPORTED: i32 = 4;
/// A position outside the world, a chunk or a texture level that does not exist.
pub const VOXCAF_ERR_OUT_OF_BOUNDS: i32 = 5;
/// A limit was exceeded (a chunk palette full, a `.vox` scene or export too large).
pub const VOXCAF_ERR_LIMIT: i32 = 6;
/// A typed view asked of an asset of another type.
pub const VOXCAF_ERR_WRONG_TYPE: i32 = 7;
/// Nothing at that position (no MoveObject, no BigDecor).
pub const VOXCAF_ERR_NOT_FOUND: i32 = 8;
/// An internal error (a panic inside the library, caught at the boundary).
pub const VOXCAF_ERR_PANIC: i32 = 9;
/// A save into a database world found it changed by another writer since it was opened;
/// nothing was written (open it again, apply the change again, save).
pub const VOXCAF_ERR_CONFLICT: i32 = 10;
/// A database could not be reached or refused a query (the message says which).
pub const VOXCAF_ERR_STORE: i32 = 11;
/// A handle used with a world it does not fit (a watch asked about a world of other chunk
/// dimensions than the one it was made for).
pub const VOXCAF_ERR_MISMATCH: i32 = 12;

/// An error on its way to the caller: a status and a message.
pub(crate) struct Fail {
    pub(crate) status: i32,
    pub(crate) message: String,
}

impl Fail {
    pub(crate) fn new(status: i32, message: impl Into<String>) -> Fail {
        Fail {
            status,
            message: message.into(),
        }
    }
    pub(crate) fn null(what: &str) -> Fail {
        Fail::new(VOXCAF_ERR_INVALID_ARGUMENT, format!("{what} is NULL"))
    }

    /// The failure `e` with the path it concerns in front of its message.
    pub(crate) fn at(path: &std::path::Path, e: impl Into<Fail>) -> Fail {
        let f = e.into();
        Fail::new(f.status, format!("{}: {}", path.display(), f.message))
    }
}

fn vwr_status(e: &vwr::VwrError) -> i32 {
    use vwr::VwrError as E;
    match e {
        E::Io { .. } | E::Write(_) => VOXCAF_ERR_IO,
        E::Conflict { .. } => VOXCAF_ERR_CONFLICT,
        E::Store { .. } => VOXCAF_ERR_STORE,
        E::OutOfBounds { .. } => VOXCAF_ERR_OUT_OF_BOUNDS,
        E::PaletteFull { .. } | E::PayloadTooLarge(_) => VOXCAF_ERR_LIMIT,
        E::UnsupportedVersion { .. } => VOXCAF_ERR_UNSUPPORTED,
        E::BlockOutOfRange { .. } | E::BadChunksPerAxis(_) | E::BadChunkDims(_) => {
            VOXCAF_ERR_INVALID_ARGUMENT
        }
        _ => VOXCAF_ERR_MALFORMED,
    }
}

impl From<vwr::VwrError> for Fail {
    fn from(e: vwr::VwrError) -> Fail {
        Fail::new(vwr_status(&e), e.to_string())
    }
}

impl From<caf::CafError> for Fail {
    fn from(e: caf::CafError) -> Fail {
        let status = match e.kind() {
            caf::ErrorKind::Io => VOXCAF_ERR_IO,
            caf::ErrorKind::Malformed => VOXCAF_ERR_MALFORMED,
            caf::ErrorKind::Unsupported => VOXCAF_ERR_UNSUPPORTED,
            caf::ErrorKind::Misuse => VOXCAF_ERR_WRONG_TYPE,
            caf::ErrorKind::LimitExceeded => VOXCAF_ERR_LIMIT,
            _ => VOXCAF_ERR_MALFORMED,
        };
        Fail::new(status, e.to_string())
    }
}

impl From<vwr_vox::VoxError> for Fail {
    fn from(e: vwr_vox::VoxError) -> Fail {
        use vwr_vox::VoxError as E;
        let status = match &e {
            E::TooManyBlockValues { .. }
            | E::SceneTooLarge { .. }
            | E::SceneTooDeep { .. }
            | E::SceneExpansion { .. }
            | E::ExportTooLarge { .. } => VOXCAF_ERR_LIMIT,
            E::ModelOutsideWorld { .. } => VOXCAF_ERR_OUT_OF_BOUNDS,
            E::World(w) => vwr_status(w),
            _ => VOXCAF_ERR_MALFORMED,
        };
        Fail::new(status, e.to_string())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

fn set_error(message: &str) {
    let c = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(c));
}

/// Runs an entry point: clears the thread's message, catches panics, records the message of
/// a failure and returns the status.
pub(crate) fn guard(f: impl FnOnce() -> Result<(), Fail>) -> i32 {
    LAST_ERROR.with(|e| *e.borrow_mut() = None);
    guard_keep(f)
}

/// [`guard`] without clearing the message first: the `*_free` functions use it, so that
/// freeing a handle after a failure keeps that failure's message readable.
pub(crate) fn guard_keep(f: impl FnOnce() -> Result<(), Fail>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => VOXCAF_OK,
        Ok(Err(fail)) => {
            set_error(&fail.message);
            fail.status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            set_error(&format!(
                "internal error (panic caught at the C boundary): {what}"
            ));
            VOXCAF_ERR_PANIC
        }
    }
}

/// The message of the last failed call on this thread, or NULL after a successful one.
///
/// Ownership: borrowed; valid until the next `voxcaf_*` call on the same thread. Never free it.
#[no_mangle]
pub extern "C" fn voxcaf_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ref().map_or(std::ptr::null(), |c| c.as_ptr()))
}

/// A static name for a status code (`"VOXCAF_ERR_IO"`, ...; `"unknown"` for others).
///
/// Ownership: a static string; never free it.
#[no_mangle]
pub extern "C" fn voxcaf_status_name(status: i32) -> *const c_char {
    let s: &'static str = match status {
        VOXCAF_OK => "VOXCAF_OK\0",
        VOXCAF_ERR_INVALID_ARGUMENT => "VOXCAF_ERR_INVALID_ARGUMENT\0",
        VOXCAF_ERR_IO => "VOXCAF_ERR_IO\0",
        VOXCAF_ERR_MALFORMED => "VOXCAF_ERR_MALFORMED\0",
        VOXCAF_ERR_UNSUPPORTED => "VOXCAF_ERR_UNSUPPORTED\0",
        VOXCAF_ERR_OUT_OF_BOUNDS => "VOXCAF_ERR_OUT_OF_BOUNDS\0",
        VOXCAF_ERR_LIMIT => "VOXCAF_ERR_LIMIT\0",
        VOXCAF_ERR_WRONG_TYPE => "VOXCAF_ERR_WRONG_TYPE\0",
        VOXCAF_ERR_NOT_FOUND => "VOXCAF_ERR_NOT_FOUND\0",
        VOXCAF_ERR_PANIC => "VOXCAF_ERR_PANIC\0",
        VOXCAF_ERR_CONFLICT => "VOXCAF_ERR_CONFLICT\0",
        VOXCAF_ERR_STORE => "VOXCAF_ERR_STORE\0",
        VOXCAF_ERR_MISMATCH => "VOXCAF_ERR_MISMATCH\0",
        _ => "unknown\0",
    };
    s.as_ptr().cast()
}
