//! Compiles ARM's astc-encoder (C++14) with `cc`. The Rust bindings are committed in
//! src/bindings.rs (see README.md), so no bindgen and no libclang at build time.

const SOURCES: [&str; 22] = [
    "astcenc_averages_and_directions.cpp",
    "astcenc_block_sizes.cpp",
    "astcenc_color_quantize.cpp",
    "astcenc_color_unquantize.cpp",
    "astcenc_compress_symbolic.cpp",
    "astcenc_compute_variance.cpp",
    "astcenc_decompress_symbolic.cpp",
    "astcenc_diagnostic_trace.cpp",
    "astcenc_entry.cpp",
    "astcenc_find_best_partitioning.cpp",
    "astcenc_ideal_endpoints_and_weights.cpp",
    "astcenc_image.cpp",
    "astcenc_integer_sequence.cpp",
    "astcenc_mathlib.cpp",
    "astcenc_mathlib_softfloat.cpp",
    "astcenc_partition_tables.cpp",
    "astcenc_percentile_tables.cpp",
    "astcenc_pick_best_endpoint_format.cpp",
    "astcenc_quantization.cpp",
    "astcenc_symbolic_physical.cpp",
    "astcenc_weight_align.cpp",
    "astcenc_weight_quant_xfer_tables.cpp",
];

fn main() {
    let mut build = cc::Build::new();
    for source in SOURCES {
        let path = format!("astc-encoder/Source/{source}");
        println!("cargo:rerun-if-changed={path}");
        build.file(path);
    }
    build.cpp(true).std("c++14").compile("astcenc-vendored");

    // The C++ runtime: libstdc++ on GNU targets, libc++ on Apple ones.
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("gnu") {
        println!("cargo:rustc-link-lib=stdc++");
    } else if target.contains("apple") {
        println!("cargo:rustc-link-lib=c++");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
