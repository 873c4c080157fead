//! Fuzz targets for every parser and decoder of the workspace, shared by the stable smoke
//! harness (`src/bin/smoke.rs`, see `fuzz/README.md`) and the cargo-fuzz binaries in
//! `fuzz_targets/`, so each target body exists once.
//!
//! A target takes any byte string and must return without panicking; parsers answer `Ok` or a
//! typed error. Where a round trip exists the target also checks it (those asserts are findings
//! too). [`seeds`] builds each target's seed corpus at run time from the golden files and the
//! crates' generated samples, so no sample file is copied into the repository.

pub mod mutate;
mod seeds;
pub mod targets;

pub use seeds::seeds;

/// One fuzz target: a name (also the artifact folder and the cargo-fuzz binary name) and the
/// function that runs one input.
#[derive(Clone, Copy)]
pub struct Target {
    /// Name, `[a-z0-9_]+`.
    pub name: &'static str,
    /// Runs one input; a panic is a finding.
    pub run: fn(&[u8]),
}

/// Every target, in the order the smoke harness runs them.
pub fn all() -> Vec<Target> {
    use targets::*;
    macro_rules! t {
        ($($f:ident),* $(,)?) => { vec![$(Target { name: stringify!($f), run: $f }),*] };
    }
    t![
        vwr_load,
        vwr_v3_load,
        caf_load,
        caf_views,
        caf_describe,
        caf_encoded,
        caf_encrypted,
        caf_pack,
        import_png,
        import_jpeg,
        import_tga,
        import_bmp,
        import_gif,
        import_webp,
        import_wav,
        import_ogg,
        import_flac,
        import_mp3,
        import_obj,
        import_gltf,
        import_glb,
        import_vert,
        import_frag,
        import_wgsl,
        import_spv,
        registry_toml,
        sidecar_toml,
        edit_script,
        vox_import,
    ]
}
