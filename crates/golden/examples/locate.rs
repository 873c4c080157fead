//! Prints where the test kit finds the golden data and how many files of each kind it holds.
//!
//! `VOXCAF_GOLDEN=DIR cargo run -p voxcaf-golden --example locate`

fn count(dir: &std::path::Path, ext: &str) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| e.path())
        .map(|p| {
            if p.is_dir() {
                count(&p, ext)
            } else {
                usize::from(p.extension().is_some_and(|x| x == ext))
            }
        })
        .sum()
}

fn main() {
    let root = voxcaf_golden::root();
    println!(
        "golden root: {} (exists: {})",
        root.display(),
        root.is_dir()
    );
    println!("  .vwr worlds: {}", count(&root.join("vwr"), "vwr"));
    println!("  .caf assets: {}", count(&root.join("caf"), "caf"));
    let mut rng = voxcaf_golden::Rng::new(1);
    println!("  Rng::new(1) first value: {:#018x}", rng.next_u64());
    println!("  lcg_bytes(1, 4): {:02x?}", voxcaf_golden::lcg_bytes(1, 4));
}
