//! The `VCAF` chunk (`docs/format/vox-voxcaf-chunk.md`): worlds of more than 255 block values
//! export folded to the nearest colours and import back exactly; a MagicaVoxel palette is kept
//! through `.vox -> .vwr -> .vox`; a damaged or stale chunk is an error or a warning.

use std::collections::BTreeSet;

use vwr::World;
use vwr_vox::{
    export, import, ExportOptions, ImportOptions, VoxError, VoxWarning, VOX_PALETTE_RECORD,
};

mod common;
use common::*;

/// The original's showcase world (`world999.vwr`: a tile exhibition of 419 block values, 100
/// MoveObjects), or `None` (skip) unless the golden data is required.
fn showcase() -> Option<World> {
    let dir = voxcaf_golden::with_worlds()?;
    Some(World::load(dir.join("vwr/worlds3d/world999.vwr")).unwrap())
}

#[test]
fn the_showcase_world_of_419_block_values_exports_to_vox_and_back_losslessly() -> Res {
    let Some(world) = showcase() else {
        return Ok(());
    };
    let distinct = vwr_vox::distinct_block_values(&world).len();
    assert_eq!(distinct, 419);
    let out = export(&world, &ExportOptions::default())?;
    let folded = out
        .warnings
        .iter()
        .find_map(|w| match w {
            VoxWarning::ValuesFolded {
                distinct, folded, ..
            } => Some((*distinct, *folded)),
            _ => None,
        })
        .ok_or("no ValuesFolded warning")?;
    assert_eq!(folded, (419, 419 - 255));
    assert_eq!(out.mapping.len(), 255);
    // A plain .vox reader (dot_vox, as MagicaVoxel) reads it and skips the VCAF chunk.
    let data = dot_vox::load_bytes(&out.bytes)?;
    let voxels: u64 = data.models.iter().map(|m| m.voxels.len() as u64).sum();
    assert_eq!(voxels, world.count_non_air());
    let used: BTreeSet<u8> = data
        .models
        .iter()
        .flat_map(|m| m.voxels.iter().map(|v| v.i))
        .collect();
    assert_eq!(used.len(), 255);
    // voxcaf reads it back exactly: blocks, fields and records.
    let back = import(&out.bytes, &ImportOptions::default())?;
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    assert_eq!(blocks(&back.world), blocks(&world));
    assert_eq!(back.world.chunk_dims(), world.chunk_dims());
    assert_eq!(back.world.mission_number(), 999);
    assert_eq!(back.world.spawn(), world.spawn());
    assert_eq!(records(&back.world), records(&world));
    Ok(())
}

#[test]
fn magicavoxel_palette_is_kept_through_vox_to_vwr_to_vox() -> Res {
    let Some((original, source)) = realworld_vox("corpus/vox/chr_knight.vox") else {
        return Ok(());
    };
    let imported = import(&original, &ImportOptions::default())?;
    assert!(imported
        .world
        .extra_metadata([0, 0, 0], VOX_PALETTE_RECORD)
        .is_some());
    // Through a .vwr file.
    let world = World::from_bytes(&imported.world.to_bytes())?;
    let out = export(&world, &ExportOptions::default())?;
    // The palette record is not one of the warned-about records.
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    let written = dot_vox::load_bytes(&out.bytes)?;
    assert_eq!(written.palette, source.palette);
    // Each voxel keeps its colour where its colour index imported as a block of its own.
    let colour = |d: &dot_vox::DotVoxData, i: u8| {
        let c = d.palette[usize::from(i)];
        [c.r, c.g, c.b, c.a]
    };
    let source_colours: BTreeSet<_> = source.models[0]
        .voxels
        .iter()
        .map(|v| colour(&source, v.i))
        .collect();
    let written_colours: BTreeSet<_> = written
        .models
        .iter()
        .flat_map(|m| m.voxels.iter().map(|v| colour(&written, v.i)))
        .collect();
    assert!(written_colours.is_subset(&source_colours));
    // And back: the same world, palette record included.
    let back = import(&out.bytes, &ImportOptions::default())?;
    assert_eq!(blocks(&back.world), blocks(&world));
    assert_eq!(records(&back.world), records(&world));
    Ok(())
}

/// The showcase export and the byte offset of its VCAF chunk.
fn showcase_vox(world: &World) -> Result<(Vec<u8>, usize), Box<dyn std::error::Error>> {
    let out = export(world, &ExportOptions::default())?;
    let at = out
        .bytes
        .windows(4)
        .rposition(|w| w == b"VCAF")
        .ok_or("no VCAF chunk")?;
    Ok((out.bytes, at))
}

#[test]
fn a_damaged_vcaf_chunk_is_an_error_and_a_stale_one_a_warning() -> Res {
    let Some(world) = showcase() else {
        return Ok(());
    };
    let (bytes, at) = showcase_vox(&world)?;
    // The BLKS section's model count raised: runs past the section.
    let mut damaged = bytes.clone();
    let count_at = at + 12 + 4 + 8;
    damaged[count_at] ^= 0x40;
    let e = import(&damaged, &ImportOptions::default()).unwrap_err();
    assert!(
        matches!(&e, VoxError::Chunk { id, offset, .. } if id == "VCAF" && *offset == at as u64),
        "{e}"
    );
    // A voxel's colour index changed by another tool: the exact values no longer match.
    let data = dot_vox::load_bytes(&bytes)?;
    let xyzi = bytes
        .windows(4)
        .position(|w| w == b"XYZI")
        .ok_or("no XYZI")?;
    let mut stale = bytes.clone();
    stale[xyzi + 12 + 4 + 3] = stale[xyzi + 12 + 4 + 3] % 254 + 1;
    let out = import(&stale, &ImportOptions::default())?;
    assert!(
        out.warnings.contains(&VoxWarning::ExactValuesStale),
        "{:?}",
        out.warnings
    );
    assert_eq!(
        out.world.count_non_air(),
        data.models
            .iter()
            .map(|m| m.voxels.len() as u64)
            .sum::<u64>()
    );
    Ok(())
}
