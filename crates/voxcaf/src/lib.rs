//! Library side of the `voxcaf` package: it exists so that the README's code examples compile
//! and run as doc tests (`cargo test --workspace`). The command line lives in `main.rs`.

#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
