//! Sizes for people, in the messages of estimates and refusals.

/// `n` bytes for people: "570.1 MB", "3.2 GB", "812 bytes".
pub fn human_bytes(n: u64) -> String {
    match n {
        0..=9_999 => format!("{n} bytes"),
        10_000..=999_999 => format!("{:.1} kB", n as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

#[cfg(test)]
mod tests {
    use super::human_bytes;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_bytes(812), "812 bytes");
        assert_eq!(human_bytes(12_500), "12.5 kB");
        assert_eq!(human_bytes(570_062_648), "570.1 MB");
        assert_eq!(human_bytes(5_400_000_000), "5.4 GB");
    }
}
