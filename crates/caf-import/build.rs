//! Two jobs: link the C++ runtime, and compute the digest of the conversion code.
//!
//! intel_tex_2's prebuilt ASTC kernel archive is C++ and needs the C++ runtime at link time,
//! which the crate does not ask for itself.
//!
//! `VOXCAF_CODE_DIGEST` (`caf_import::CODE_DIGEST`, docs/remote-build.md §2.3): SHA-256 over
//! the rustc version, the workspace's `Cargo.lock` and every file of the crates a conversion
//! runs, each preceded by its path, in path order. A remote build shares a result only between
//! builds of the same code.
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The crates whose code a conversion runs, relative to this crate's folder.
const CODE: [&str; 7] = [
    ".",
    "../caf",
    "../gltf",
    "../tangents",
    "../fs",
    "../names",
    "../../vendor/astcenc-sys",
];

fn main() {
    let target = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target == "linux" || target == "android" {
        println!("cargo:rustc-link-lib=dylib=stdc++");
    } else if target == "macos" || target == "ios" {
        println!("cargo:rustc-link-lib=dylib=c++");
    }
    let here = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let mut h = Sha256::new();
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    if let Ok(out) = std::process::Command::new(rustc).arg("-vV").output() {
        h.update(&out.stdout);
    }
    let lock = here.join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    if let Ok(b) = std::fs::read(&lock) {
        h.update(b"Cargo.lock\0");
        h.update(&b);
    }
    for dir in CODE {
        let root = here.join(dir);
        let mut files = Vec::new();
        for part in ["Cargo.toml", "build.rs", "src", "astc-encoder", "wrapper.h"] {
            let p = root.join(part);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
                collect(&p, &mut files);
            }
        }
        files.sort();
        for f in files {
            let name = f
                .strip_prefix(&here)
                .unwrap_or(&f)
                .to_string_lossy()
                .replace('\\', "/");
            h.update((name.len() as u64).to_le_bytes());
            h.update(name.as_bytes());
            let bytes = std::fs::read(&f).unwrap_or_default();
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(&bytes);
        }
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=VOXCAF_CODE_DIGEST={hex}");
}

/// Every file under `p` (or `p` itself).
fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_file() {
        out.push(p.to_path_buf());
    } else if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd.flatten() {
            collect(&e.path(), out);
        }
    }
}
