//! The pointer handling of the API, in one place: reading C strings and byte ranges, writing
//! out-pointers, borrowing handles.

use std::ffi::{c_char, CStr};
use std::path::PathBuf;

use crate::error::Fail;

/// A path from a NUL-terminated UTF-8 string.
pub(crate) fn path(p: *const c_char, what: &str) -> Result<PathBuf, Fail> {
    if p.is_null() {
        return Err(Fail::null(what));
    }
    // SAFETY: the caller's contract: a non-NULL `p` points to a NUL-terminated string that
    // stays valid for the call.
    let s = unsafe { CStr::from_ptr(p) };
    let s = s.to_str().map_err(|_| {
        Fail::new(
            crate::error::VOXCAF_ERR_INVALID_ARGUMENT,
            format!("{what} is not valid UTF-8"),
        )
    })?;
    Ok(PathBuf::from(s))
}

/// A borrowed byte range (`len == 0` allows NULL).
pub(crate) fn bytes<'a>(p: *const u8, len: usize, what: &str) -> Result<&'a [u8], Fail> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Fail::null(what));
    }
    // SAFETY: the caller's contract: `p` points to `len` readable bytes valid for the call.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// A writable range of `len` values (`len == 0` allows NULL).
pub(crate) fn slice_mut<'a, T>(p: *mut T, len: usize, what: &str) -> Result<&'a mut [T], Fail> {
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(Fail::null(what));
    }
    // SAFETY: the caller's contract: `p` points to `len` writable, initialised values of `T`
    // (plain C data), not aliased during the call.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, len) })
}

/// Writes `value` through an out-pointer.
pub(crate) fn out<T>(p: *mut T, value: T, what: &str) -> Result<(), Fail> {
    if p.is_null() {
        return Err(Fail::null(what));
    }
    // SAFETY: the caller's contract: a non-NULL out-pointer points to writable memory for a
    // `T`; `write` does not read or drop the old contents.
    unsafe { p.write(value) };
    Ok(())
}

/// Checks an out-pointer before work is done (so a NULL costs nothing).
pub(crate) fn check_out<T>(p: *mut T, what: &str) -> Result<(), Fail> {
    if p.is_null() {
        Err(Fail::null(what))
    } else {
        Ok(())
    }
}

/// Lends a byte range through two out-pointers (`*data`, `*len`); neither is written unless
/// both are non-NULL.
pub(crate) fn out_bytes(data: *mut *const u8, len: *mut usize, bytes: &[u8]) -> Result<(), Fail> {
    check_out(len, "len")?;
    out(data, bytes.as_ptr(), "data")?;
    out(len, bytes.len(), "len")
}

/// The C API's list convention: `*count` receives how many items there are, and the first
/// `cap` of them are written to `dst` (`cap = 0` sizes the array), each through `convert`.
pub(crate) fn out_list<I, T>(
    dst: *mut T,
    cap: usize,
    count: *mut usize,
    items: &[I],
    convert: impl Fn(&I) -> T,
) -> Result<(), Fail> {
    check_out(count, "count")?;
    let dst = slice_mut(dst, cap.min(items.len()), "out")?;
    for (d, item) in dst.iter_mut().zip(items) {
        *d = convert(item);
    }
    out(count, items.len(), "count")
}

/// Borrows a handle.
pub(crate) fn handle<'a, T>(p: *const T, what: &str) -> Result<&'a T, Fail> {
    // SAFETY: the caller's contract: NULL or a live handle this library returned.
    unsafe { p.as_ref() }.ok_or_else(|| Fail::null(what))
}

/// Borrows a handle mutably.
pub(crate) fn handle_mut<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, Fail> {
    // SAFETY: the caller's contract: NULL or a live handle this library returned, not used by
    // another thread during the call.
    unsafe { p.as_mut() }.ok_or_else(|| Fail::null(what))
}

/// Hands a new handle to the caller.
pub(crate) fn give<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Takes a handle back for a `*_free` function: NULL does nothing, a panic while dropping is
/// caught, and the last error message is kept readable (see `guard_keep`).
pub(crate) fn free<T>(p: *mut T) {
    let _ = crate::error::guard_keep(|| {
        take(p);
        Ok(())
    });
}

/// Takes a handle back (NULL: nothing).
pub(crate) fn take<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: the caller's contract: a handle this library returned by `give`, freed once.
        drop(unsafe { Box::from_raw(p) });
    }
}
