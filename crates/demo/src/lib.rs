//! The demo of `voxcaf demo`, out of the libraries it shows: the code that exists only to
//! be shown lives here, and the CLI's `demo` command calls it.
//!
//! - [`assets`]: the asset round trip (a texture with its mip chain and a cube mesh written
//!   through `caf-import`'s builders, reloaded and checked);
//! - [`world`]: the world session round trip (one block committed to a v3 file through
//!   `vwr`'s one edit path, then reverted).

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod assets;
pub mod world;
