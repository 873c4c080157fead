//! The container every asset shares (CAF.md sections 2, 3 and 5): the 32-byte header and the
//! footer, the declaration of on-disk structs, the CRCs, the writer, the verifying loader (with
//! its memory map), what every metadata struct and typed view shares.

pub(crate) mod crc;
pub(crate) mod header;
pub(crate) mod layout;
pub(crate) mod load;
pub(crate) mod metadata;
#[allow(unsafe_code)]
pub(crate) mod mmap;
pub(crate) mod view;
pub(crate) mod write;
