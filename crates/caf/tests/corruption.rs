//! Corruption sweep: every single-byte change at every offset of several golden files, every
//! truncation, and random multi-byte damage. Each result must be `Ok` or a typed `Err`, never a
//! panic; raw damage must always be rejected; and damage with the CRCs "repaired" (so it reaches
//! the typed views) must still be handled.

mod common;

use caf::audio::AudioView;
use caf::mesh::MeshView;
use caf::prefab::PrefabView;
use caf::scene::SceneView;
use caf::shader::ShaderView;
use caf::texture::TextureView;
use caf::*;
use common::{golden_caf, Rng};

const FILES: [&str; 8] = [
    "texture/raw_2x2_c4_mips.caf",
    "texture/raw_5x1_c4_mips.caf",
    "audio/wav_pcm16_3ch_11025.caf",
    "mesh/gltf_triangle.caf",
    "shader/stage1_n100.caf",
    "scene/scene_basic.caf",
    "prefab/prefab_crate.caf",
    "generic/type65535_flags65535.caf",
];

/// Run every typed view; results are ignored, panics are not.
fn all_views(a: &Asset<'_>) -> usize {
    let mut ok = 0;
    ok += TextureView::from_asset(a).is_ok() as usize;
    ok += AudioView::from_asset(a)
        .map(|v| v.samples_i16_cow().map(|s| s.len()))
        .is_ok() as usize;
    ok += MeshView::from_asset(a)
        .map(|m| m.triangles().count())
        .is_ok() as usize;
    ok += ShaderView::from_asset(a).is_ok() as usize;
    ok += SceneView::from_asset(a)
        .map(|s| s.sections().map(|x| x.entries().count()).sum::<usize>())
        .is_ok() as usize;
    ok += PrefabView::from_asset(a).map(|p| p.entity_count()).is_ok() as usize;
    ok
}

/// Recompute the header CRC and the footer when the sizes still describe the buffer.
fn repair(b: &mut [u8]) {
    let Some(h) = b
        .get(..32)
        .map(|h| CafHeader::from_bytes(h.try_into().unwrap()))
    else {
        return;
    };
    let Some(total) = h.total_file_size() else {
        return;
    };
    if total != b.len() as u64 {
        return;
    }
    let (ps, pe) = (32 + h.metadata_size as usize, b.len() - 4);
    let pcrc = crc32(&b[ps..pe]);
    b[12..16].copy_from_slice(&pcrc.to_le_bytes());
    let f = crc32(&b[..pe]);
    b[pe..].copy_from_slice(&f.to_le_bytes());
}

fn check(bytes: &[u8]) -> Result<usize, CafError> {
    let a = Asset::parse(bytes)?;
    Ok(all_views(&a))
}

#[test]
fn every_single_byte_change_is_rejected_or_handled() {
    let Some(dir) = golden_caf() else { return };
    let mut stats = (0usize, 0usize);
    for f in FILES {
        let orig = std::fs::read(dir.join(f)).unwrap();
        assert!(
            check(&orig).unwrap() >= 1 || f.starts_with("generic/"),
            "{f}: no view decodes the original"
        );
        for off in 0..orig.len() {
            for v in 0..=255u8 {
                if v == orig[off] {
                    continue;
                }
                let mut b = orig.clone();
                b[off] = v;
                // CRC-32 catches every error burst of up to 32 bits.
                assert!(check(&b).is_err(), "{f}: byte {off} = {v:#04x} accepted");
                repair(&mut b);
                match check(&b) {
                    Ok(_) => stats.0 += 1,
                    Err(_) => stats.1 += 1,
                }
            }
        }
    }
    eprintln!(
        "repaired single-byte changes: {} load, {} rejected",
        stats.0, stats.1
    );
}

#[test]
fn every_truncation_and_extension_is_rejected() {
    let Some(dir) = golden_caf() else { return };
    for f in FILES {
        let orig = std::fs::read(dir.join(f)).unwrap();
        for n in 0..orig.len() {
            assert!(check(&orig[..n]).is_err(), "{f}: truncated to {n} accepted");
        }
        let mut longer = orig.clone();
        longer.extend_from_slice(&[0; 9]);
        for extra in 1..=9 {
            assert!(check(&longer[..orig.len() + extra]).is_err());
        }
    }
}

#[test]
fn random_multi_byte_damage_never_panics() {
    let Some(dir) = golden_caf() else { return };
    let mut rng = Rng(0x5EED_CAF0);
    for f in FILES {
        let orig = std::fs::read(dir.join(f)).unwrap();
        for _ in 0..3000 {
            let mut b = orig.clone();
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(b.len() as u64) as usize;
                b[i] = rng.next_u64() as u8;
            }
            match rng.below(4) {
                0 => b.truncate(rng.below(b.len() as u64 + 1) as usize),
                1 => b.extend((0..rng.below(16)).map(|_| rng.next_u64() as u8)),
                _ => {}
            }
            let _ = check(&b);
            repair(&mut b);
            let _ = check(&b);
            let _ = validate_header_bytes(&b);
        }
    }
}

#[test]
fn hostile_sizes_in_repaired_headers_are_refused_without_allocating() {
    // Sizes that claim more than the buffer: refused by the size check before anything else.
    let base = AssetWriter::new(AssetType::MESH)
        .metadata(&[0; 16])
        .payload(&[0; 48])
        .to_vec();
    for (n, m) in [
        (u64::MAX, 0),
        (0, u64::MAX),
        (u64::MAX - 35, 1),
        (1 << 62, 1 << 62),
        (16, u64::MAX - 51),
    ] {
        let mut b = base.clone();
        b[16..24].copy_from_slice(&u64::to_le_bytes(n));
        b[24..32].copy_from_slice(&u64::to_le_bytes(m));
        let e = Asset::parse(&b).unwrap_err();
        assert!(
            matches!(
                e,
                CafError::SizeOverflow { .. } | CafError::SizeMismatch { .. }
            ),
            "{e}"
        );
        assert!(LoadedAsset::from_vec(b).is_err());
    }
}
