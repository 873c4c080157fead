//! Low-level bindings to ARM's ASTC encoder, as crates.io's astcenc-sys 0.2.0 generates them,
//! committed (generated on x86_64-unknown-linux-gnu by bindgen 0.72.1 from `wrapper.h`; the
//! layout checks at the end of the file fail the build on a target where they differ).
#![allow(non_upper_case_globals)]
#![allow(non_camel_case_types)]
#![allow(non_snake_case)]
#![allow(improper_ctypes)]
#![allow(clippy::all)]
// bindgen derives PartialEq on structs holding C function pointers.
#![allow(unpredictable_function_pointer_comparisons)]

include!("bindings.rs");
