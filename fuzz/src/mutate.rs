//! Structure-unaware mutations, deterministic from a seed: bit flips, bytes set to interesting
//! values, truncations, insertions, deletions, duplicated ranges and splices between seeds,
//! stacked a few at a time.

/// xorshift64* (the same generator as `voxcaf_golden::Rng`, kept here so a run is reproducible
/// from the harness's printed seed alone).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator; any seed works (0 is remapped).
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15 | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Values that tend to sit on boundaries of length and count fields.
const INTERESTING: &[u64] = &[
    0,
    1,
    2,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x1_0000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    u64::MAX,
];

/// The longest input a mutation produces (inputs grow by insertions and splices).
pub const MAX_LEN: usize = 1 << 20;

/// Returns a mutant of `input`, drawing splice partners from `corpus`.
pub fn mutate(input: &[u8], corpus: &[Vec<u8>], rng: &mut Rng) -> Vec<u8> {
    let mut v = input.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        step(&mut v, corpus, rng);
    }
    v.truncate(MAX_LEN);
    v
}

fn step(v: &mut Vec<u8>, corpus: &[Vec<u8>], rng: &mut Rng) {
    let len = v.len();
    match rng.below(10) {
        // Flip one bit.
        0 | 1 if len > 0 => {
            let i = rng.below(len);
            v[i] ^= 1 << rng.below(8);
        }
        // Set one byte to a random value.
        2 if len > 0 => {
            let i = rng.below(len);
            v[i] = rng.next_u64() as u8;
        }
        // Overwrite 1, 2, 4 or 8 bytes with an interesting value (either endianness).
        3 | 4 if len > 0 => {
            let width = [1, 2, 4, 8][rng.below(4)].min(len);
            let i = rng.below(len - width + 1);
            let mut x = INTERESTING[rng.below(INTERESTING.len())];
            if rng.below(4) == 0 {
                x = x.wrapping_neg();
            }
            // Keep the value's low `width` bytes, written in either byte order.
            let x = if width < 8 {
                x & ((1u64 << (8 * width)) - 1)
            } else {
                x
            };
            let bytes = if rng.below(2) == 0 {
                x.to_le_bytes()
            } else {
                (x << (8 * (8 - width))).to_be_bytes()
            };
            v[i..i + width].copy_from_slice(&bytes[..width]);
        }
        // Truncate.
        5 if len > 0 => {
            let n = rng.below(len);
            v.truncate(n);
        }
        // Insert random bytes.
        6 => {
            let i = rng.below(len + 1);
            let n = 1 + rng.below(16);
            let ins: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            v.splice(i..i, ins);
        }
        // Delete a range.
        7 if len > 0 => {
            let i = rng.below(len);
            let n = 1 + rng.below((len - i).min(64));
            v.drain(i..i + n);
        }
        // Duplicate a range somewhere else.
        8 if len > 0 => {
            let i = rng.below(len);
            let n = 1 + rng.below((len - i).min(256));
            let chunk = v[i..i + n].to_vec();
            let at = rng.below(len + 1);
            v.splice(at..at, chunk);
        }
        // Splice: our head and another seed's tail.
        _ => {
            if corpus.is_empty() {
                return;
            }
            let other = &corpus[rng.below(corpus.len())];
            let cut = rng.below(len + 1);
            let from = rng.below(other.len() + 1);
            v.truncate(cut);
            v.extend_from_slice(&other[from..]);
        }
    }
}
