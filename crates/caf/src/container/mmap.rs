//! The crate's only `unsafe`: a read-only memory map of a whole file, used by
//! [`LoadMode::Map`](crate::LoadMode::Map) and by the default [`LoadMode::Auto`](crate::LoadMode::Auto)
//! for files of at least [`MAP_THRESHOLD`](crate::MAP_THRESHOLD) bytes.

use std::fs::File;
use std::ops::Deref;

/// A read-only map of a whole file.
pub(crate) struct Map(memmap2::Mmap);

impl Map {
    pub(crate) fn open(f: &File) -> std::io::Result<Map> {
        // SAFETY: handing out `&[u8]` over a file map is sound only while nobody changes the
        // file, and that is a promise about other processes which this crate cannot enforce.
        // What does hold: the map is read-only (PROT_READ), so this process never writes
        // through it; its length is taken from the same open file and the caller checks it
        // against the length the header was validated with; both CRCs are verified before any
        // slice leaves the crate; and files replaced by rename (this crate's writer, and
        // `voxcaf_fs` generally) keep the mapped inode alive and unchanged. What does not hold:
        // the map is MAP_SHARED, so another process writing the file in place changes the bytes
        // under live slices after verification (they may no longer match the CRCs, and Rust's
        // aliasing rules are broken), and one truncating it makes later reads of the lost pages
        // fault with SIGBUS and kill this process. Nothing here prevents either; `LoadMode`'s
        // docs tell callers to use `LoadMode::Read` for files that may be rewritten in place,
        // since `Auto` maps large files too.
        let m = unsafe { memmap2::MmapOptions::new().populate().map(f)? };
        Ok(Map(m))
    }
}

impl Deref for Map {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}
