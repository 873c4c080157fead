//! Benchmarks live in benches/ and src/bin/.
