//! Single-bit damage to real `.vox` files: every flip either imports or is a typed error (no
//! panic, no hang), and a flipped voxel count is always refused, naming its `XYZI` chunk,
//! never a silently empty or shortened world.

use std::panic::{catch_unwind, AssertUnwindSafe};

use voxcaf_golden::Rng;
use vwr_vox::{import, ImportOptions, VoxError};

mod common;

/// The real files flipped: the corpus pair and the real-world MagicaVoxel files that import.
const FILES: &[&str] = &[
    "corpus/vox/chr_sol.vox",
    "corpus/vox/chr_knight.vox",
    "corpus/vox/ff3.vox",
    "corpus/vox/dot_vox-placeholder-with-materials.vox",
    "corpus2/vox/deer.vox",
    "corpus2/vox/chr_fox.vox",
    "corpus2/vox/maze.vox",
    "corpus2/vox/vengi-8ontop.vox",
];

/// Byte offsets of the voxel-count field of every `XYZI` chunk, found by walking the chunks
/// of `MAIN` (a byte search could match voxel data).
fn xyzi_counts(bytes: &[u8]) -> Vec<usize> {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let mut at = 8 + 12 + u32_at(8 + 4);
    let mut out = Vec::new();
    while at + 12 <= bytes.len() {
        if &bytes[at..at + 4] == b"XYZI" {
            out.push(at + 12);
        }
        at += 12 + u32_at(at + 4) + u32_at(at + 8);
    }
    out
}

#[test]
fn single_bit_flips_of_real_vox_files_import_or_fail_typed_and_a_flipped_count_never_succeeds() {
    let mut rng = Rng::new(43);
    let (mut flips, mut imported, mut refused) = (0, 0, 0);
    let mut empty = Vec::new();
    for rel in FILES {
        let Some(good) = common::realworld(rel) else {
            return;
        };
        let before = import(&good, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{rel}: {e}"))
            .world
            .count_non_air();
        assert!(before > 0, "{rel}");
        let counts = xyzi_counts(&good);
        assert!(!counts.is_empty(), "{rel}: no XYZI chunk found");
        // 40 flips anywhere past the magic, 8 in voxel counts.
        for n in 0..48 {
            let (at, in_count) = if n < 40 {
                (4 + rng.below(good.len() as u64 - 4) as usize, false)
            } else {
                let field = counts[rng.below(counts.len() as u64) as usize];
                (field + rng.below(4) as usize, true)
            };
            let bit = rng.below(8) as u8;
            let mut bytes = good.clone();
            bytes[at] ^= 1 << bit;
            let count_field = counts.iter().copied().find(|&f| (f..f + 4).contains(&at));
            assert!(!in_count || count_field.is_some());
            flips += 1;
            let what = format!("{rel}: bit {bit} of byte {at}");
            let result = catch_unwind(AssertUnwindSafe(|| {
                import(&bytes, &ImportOptions::default())
            }))
            .unwrap_or_else(|_| panic!("{what}: the import panicked"));
            match result {
                Ok(out) => {
                    imported += 1;
                    assert!(
                        count_field.is_none(),
                        "{what}: a flipped voxel count imported"
                    );
                    if out.world.count_non_air() == 0 {
                        empty.push(what);
                    }
                }
                Err(e) => {
                    refused += 1;
                    if let Some(field) = count_field {
                        // The chunk header is 12 bytes before its count.
                        let chunk = (field - 12) as u64;
                        assert!(
                            matches!(&e, VoxError::Chunk { id, offset, .. }
                                if id == "XYZI" && *offset == chunk),
                            "{what}: {e}"
                        );
                    }
                    // Every error says what is wrong.
                    assert!(!e.to_string().is_empty(), "{what}");
                }
            }
        }
    }
    eprintln!("{flips} flips: {imported} imported, {refused} refused, empty: {empty:?}");
    assert_eq!(flips, imported + refused);
    // With this seed no flip empties a world (one turning a `_hidden` flag on could, rightly).
    assert!(empty.is_empty(), "{empty:?}");
}

#[test]
fn single_bit_flips_of_a_vcaf_chunk_import_or_fail_typed() {
    // The showcase world's export: folded values (BLKS) and 101 records (RECS).
    let Some(dir) = voxcaf_golden::with_worlds() else {
        return;
    };
    let world = vwr::World::load(dir.join("vwr/worlds3d/world999.vwr")).unwrap();
    let good = vwr_vox::export(&world, &vwr_vox::ExportOptions::default())
        .unwrap()
        .bytes;
    let at = good.windows(4).rposition(|w| w == b"VCAF").unwrap();
    let mut rng = Rng::new(999);
    for _ in 0..200 {
        let byte = at + rng.below((good.len() - at) as u64) as usize;
        let bit = rng.below(8);
        let mut bytes = good.clone();
        bytes[byte] ^= 1 << bit;
        let what = format!("bit {bit} of byte {byte} (VCAF at {at})");
        let result = catch_unwind(AssertUnwindSafe(|| {
            import(&bytes, &ImportOptions::default())
        }))
        .unwrap_or_else(|_| panic!("{what}: the import panicked"));
        if let Ok(out) = result {
            assert!(out.world.count_non_air() > 0, "{what}");
        }
    }
}
