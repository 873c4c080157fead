//! Declares a small name table and prints it: `cargo run -p voxcaf-names --example names`.

voxcaf_names::names! {
    /// A block codec, with its on-disk code.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Codec: u8 as "codec" {
        /// Stored.
        None = 0 => "none",
        /// zstd.
        Zstd = 1 => "zstd" | "zstandard",
    }
}

fn main() {
    for c in Codec::ALL {
        println!("{} = {}", c, c.code());
    }
    match "lzma".parse::<Codec>() {
        Ok(c) => println!("parsed {c}"),
        Err(e) => println!("{e}"),
    }
}
