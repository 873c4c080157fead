//! Helpers shared by the benches (`mod common;` in each).
#![allow(dead_code)]

/// `CAF_BENCH_MIB` (the payload size the bench builds, in MiB), else `default`.
pub fn bench_mib(default: usize) -> usize {
    std::env::var("CAF_BENCH_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Texture-like RGBA of `w` x `h` pixels, row by row: smooth gradients with a little noise
/// from the project's deterministic `Rng` (PNG compresses it about as well as real art).
pub fn texture_like(w: usize, h: usize) -> Vec<u8> {
    let mut rng = voxcaf_golden::Rng::new(0x5EED);
    let mut v = Vec::with_capacity(w * h * 4);
    for y in 0..h {
        for x in 0..w {
            let noise = (rng.next_u64() & 0x7) as usize;
            v.extend_from_slice(&[
                ((x / 8 + noise) & 0xFF) as u8,
                ((y / 8 + noise) & 0xFF) as u8,
                (((x + y) / 16) & 0xFF) as u8,
                255,
            ]);
        }
    }
    v
}
