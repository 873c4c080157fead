//! The workspace test kit: locates the golden data written by the original C++ implementations,
//! and generates deterministic test data ([`Rng`], [`lcg_bytes`], [`lcg_i16`]) for the test suites of
//! every crate (a dev-dependency only; a normal dependency of `voxcaf-samples` alone, whose generated
//! sources use the LCG generators).
//!
//! The folder is `$VOXCAF_GOLDEN`, by default `shared/golden` beside the repository. When it is
//! missing, the helpers print a note and return `None` so the test skips — unless
//! `VOXCAF_REQUIRE_GOLDEN=1` (as CI sets it), in which case they panic and the test fails.

use std::path::{Path, PathBuf};

/// The golden root folder, whether or not it exists.
pub fn root() -> PathBuf {
    match std::env::var_os("VOXCAF_GOLDEN") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/golden"),
    }
}

/// Whether missing golden data must fail the tests.
pub fn required() -> bool {
    std::env::var("VOXCAF_REQUIRE_GOLDEN").is_ok_and(|v| v == "1")
}

fn missing<T>(what: &Path) -> Option<T> {
    if required() {
        panic!(
            "golden data not found at {} and VOXCAF_REQUIRE_GOLDEN=1",
            what.display()
        );
    }
    eprintln!(
        "note: golden data not found at {}; skipping",
        what.display()
    );
    None
}

/// The golden root, when it holds the `.vwr` set (`root/vwr`).
pub fn with_worlds() -> Option<PathBuf> {
    let dir = root();
    if dir.join("vwr").is_dir() {
        Some(dir)
    } else {
        missing(&dir.join("vwr"))
    }
}

/// The golden `caf` folder, when it holds its `manifest.tsv`.
pub fn caf() -> Option<PathBuf> {
    let caf = root().join("caf");
    if caf.join("manifest.tsv").is_file() {
        Some(caf)
    } else {
        missing(&caf)
    }
}

/// `../corpus/REL` beside the golden folder (real files from other projects: `REL` names a file
/// or a folder, e.g. `mesh/Box.glb` or `vox`), when it exists.
pub fn corpus(rel: &str) -> Option<PathBuf> {
    beside("corpus", rel)
}

/// `../realworld/REL` beside the golden folder (real files from public repositories, with their
/// origins in its `SOURCES.md`), when it exists.
pub fn realworld(rel: &str) -> Option<PathBuf> {
    beside("realworld", rel)
}

/// `../FOLDER/REL` beside the golden folder, when it exists (else skipped, or a failure when
/// the data is required).
fn beside(folder: &str, rel: &str) -> Option<PathBuf> {
    let path = root().join("..").join(folder).join(rel);
    if path.exists() {
        Some(path)
    } else {
        missing(&path)
    }
}

/// A small deterministic PRNG for tests and benchmarks (xorshift64*), so they need no seed
/// files. A seed of 0 would stay 0: callers pass an odd seed or use [`Rng::new`].
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// A generator from any seed (mixed and made non-zero).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A value in `lo..=hi`.
    pub fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + self.below((hi - lo + 1) as u64) as i32
    }
}

/// The original tools' LCG byte generator ("LCG bytes (seed S)" in the golden README):
/// `s = s * 1664525 + 1013904223`, then `s >> 24`.
pub fn lcg_bytes(seed: u32, n: usize) -> Vec<u8> {
    lcg(seed).take(n).map(|s| (s >> 24) as u8).collect()
}

/// The original tools' LCG 16-bit samples: the same recurrence, `s >> 16` as i16.
pub fn lcg_i16(seed: u32, n: usize) -> Vec<i16> {
    lcg(seed).take(n).map(|s| (s >> 16) as u16 as i16).collect()
}

fn lcg(seed: u32) -> impl Iterator<Item = u32> {
    let mut s = seed;
    std::iter::repeat_with(move || {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcg_matches_the_recurrence() {
        // s1 = 1 * 1664525 + 1013904223 = 1015568748 = 0x3C88_596C
        assert_eq!(lcg_bytes(1, 1), vec![0x3C]);
        assert_eq!(lcg_i16(1, 1), vec![0x3C88u16 as i16]);
        assert_eq!(lcg_bytes(7, 100).len(), 100);
    }

    #[test]
    fn rng_is_deterministic_and_in_range() {
        let mut a = Rng::new(5);
        let mut b = Rng::new(5);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
            let v = a.range(-3, 4);
            assert!((-3..=4).contains(&v));
            b.range(-3, 4);
        }
    }
}
