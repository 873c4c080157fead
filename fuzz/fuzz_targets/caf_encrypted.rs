//! cargo-fuzz entry for `voxcaf_fuzz::targets::caf_encrypted` (the body is shared with the stable harness).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| voxcaf_fuzz::targets::caf_encrypted(data));
