//! The crate's only `unsafe`: a read-only memory map (opt-in through `LoadMode::Map`).

use std::fs::File;
use std::ops::Deref;

/// A read-only map of a whole file.
pub(crate) struct Map(memmap2::Mmap);

impl Map {
    pub(crate) fn open(f: &File) -> std::io::Result<Map> {
        // SAFETY: the map is read-only and private to this process. Its contents are verified
        // (both CRCs) before any slice is handed out. The remaining hazard is another process
        // truncating or rewriting the file while it is mapped, which memmap2 cannot prevent;
        // `LoadMode::Map` documents this and the default mode never maps. Our own writer
        // replaces files by rename, which leaves existing maps intact.
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
