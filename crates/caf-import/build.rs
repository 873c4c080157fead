//! intel_tex_2's prebuilt ASTC kernel archive is C++ and needs the C++ runtime at link time,
//! which the crate does not ask for itself.
fn main() {
    let target = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target == "linux" || target == "android" {
        println!("cargo:rustc-link-lib=dylib=stdc++");
    } else if target == "macos" || target == "ios" {
        println!("cargo:rustc-link-lib=dylib=c++");
    }
}
