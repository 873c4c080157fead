//! CRC-32 (IEEE, zlib's) through `crc32fast`, with zlib-style continue and combine helpers.

/// CRC-32 of `data`: `crc32(b"123456789") == 0xCBF4_3926`, `crc32(b"") == 0`.
pub fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// Continue a finished CRC over more data, like zlib's `crc32(prev, buf, len)`:
/// `crc32_continue(crc32(a), b) == crc32(a ++ b)`.
pub fn crc32_continue(prev: u32, data: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial(prev);
    h.update(data);
    h.finalize()
}

/// The CRC of `a ++ b` from `crc32(a)`, `crc32(b)` and `b.len()`, like zlib's `crc32_combine`.
/// Costs O(log len_b), so verification can hash every byte exactly once.
pub fn crc32_combine(crc_a: u32, crc_b: u32, len_b: u64) -> u32 {
    let mut a = crc32fast::Hasher::new_with_initial(crc_a);
    a.combine(&crc32fast::Hasher::new_with_initial_len(crc_b, len_b));
    a.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_continue_combine() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let (a, b) = (b"12345".as_slice(), b"6789".as_slice());
        assert_eq!(crc32_continue(crc32(a), b), 0xCBF4_3926);
        assert_eq!(
            crc32_combine(crc32(a), crc32(b), b.len() as u64),
            0xCBF4_3926
        );
        assert_eq!(crc32_combine(crc32(a), 0, 0), crc32(a));
        assert_eq!(crc32_combine(0, crc32(b), b.len() as u64), crc32(b));
    }
}
