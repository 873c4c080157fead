//! Import of real and generated `.vox` files, export read back by `dot_vox`, the lossless round
//! trip on the golden worlds, scene transforms and the errors.

use std::collections::{BTreeMap, BTreeSet};

use dot_vox::{
    Color, DotVoxData, Frame, Layer, Material, Model, SceneNode, ShapeModel, Size, Voxel,
};
use vwr::{Block, MoveObject, World};
use vwr_vox::{
    export, import, ExportOptions, ImportOptions, PaletteMap, VoxError, VoxWarning, WorldSize,
};

mod common;
use common::*;

#[test]
fn corpus_files_import_where_the_reference_places_them() -> Res {
    let Some(dir) = corpus_vox() else {
        return Ok(());
    };
    let mut n = 0;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "vox") {
            let bytes = std::fs::read(&path)?;
            check_against_reference(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            let out = import(&bytes, &ImportOptions::default())?;
            assert!(out.world.count_non_air() > 0, "{}", path.display());
            assert!(out.world.fits_v2());
            n += 1;
        }
    }
    assert!(n >= 2, "expected the corpus .vox files, found {n}");
    Ok(())
}

#[test]
fn corpus_materials_are_reported() -> Res {
    let Some(bytes) = corpus_vox_file("dot_vox-placeholder-with-materials.vox") else {
        return Ok(());
    };
    let out = import(&bytes, &ImportOptions::default())?;
    assert!(
        out.warnings
            .iter()
            .any(|w| matches!(w, VoxWarning::MaterialsIgnored { .. })),
        "{:?}",
        out.warnings
    );
    Ok(())
}

/// A scene using every chunk kind `dot_vox` writes: SIZE, XYZI, RGBA, MATL, nTRN (with `_r`,
/// `_t`, several frames), nGRP, nSHP, LAYR (one hidden), IMAP.
fn every_chunk_scene(r: u8) -> DotVoxData {
    let tr = |child: u32, layer: u32, frames: Vec<Frame>| SceneNode::Transform {
        attributes: dot_vox::Dict::new(),
        frames,
        child,
        layer_id: layer,
    };
    let shape = |m: u32| SceneNode::Shape {
        attributes: dot_vox::Dict::new(),
        models: vec![ShapeModel {
            model_id: m,
            attributes: dot_vox::Dict::new(),
        }],
    };
    let rs = r.to_string();
    DotVoxData {
        version: 150,
        index_map: dot_vox::DEFAULT_INDEX_MAP.to_vec(),
        models: vec![l_model(), l_model(), l_model()],
        palette: dot_vox::DEFAULT_PALETTE.to_vec(),
        materials: vec![Material {
            id: 2,
            properties: dict(&[("_type", "_glass"), ("_alpha", "0.5")]),
        }],
        scenes: vec![
            tr(1, u32::MAX, vec![Frame::new(dict(&[]))]),
            SceneNode::Group {
                attributes: dot_vox::Dict::new(),
                children: vec![2, 4, 6],
            },
            // Rotated and moved, with a second (ignored) animation frame.
            tr(
                3,
                0,
                vec![
                    Frame::new(dict(&[("_r", &rs), ("_t", "10 -4 3")])),
                    Frame::new(dict(&[("_f", "5"), ("_t", "0 0 0")])),
                ],
            ),
            shape(0),
            // Plain.
            tr(5, 0, vec![Frame::new(dict(&[("_t", "-7 2 0")]))]),
            shape(1),
            // On a hidden layer: left out.
            tr(7, 1, vec![Frame::new(dict(&[("_t", "40 40 40")]))]),
            shape(2),
        ],
        layers: vec![
            Layer {
                attributes: dict(&[("_name", "shown")]),
            },
            Layer {
                attributes: dict(&[("_name", "hidden"), ("_hidden", "1")]),
            },
        ],
    }
}

#[test]
fn a_dot_vox_written_scene_with_every_chunk_kind_imports() -> Res {
    let data = every_chunk_scene(0b0010_0001); // x' = y, y' = -x
    let bytes = write(&data);
    let out = import(&bytes, &ImportOptions::default())?;
    assert_eq!(out.models, 2, "the hidden-layer model is left out");
    assert_eq!(out.world.count_non_air(), 8);
    let w = &out.warnings;
    assert!(
        w.contains(&VoxWarning::AnimationIgnored { node: 2, frames: 2 }),
        "{w:?}"
    );
    assert!(w.contains(&VoxWarning::HiddenSkipped { node: 6 }), "{w:?}");
    assert!(
        w.contains(&VoxWarning::UnplacedModels { count: 1 }),
        "{w:?}"
    );
    assert!(
        w.contains(&VoxWarning::MaterialsIgnored { indices: vec![2] }),
        "{w:?}"
    );
    // Without the hidden part the reference placement must agree.
    let mut visible = data;
    if let SceneNode::Group { children, .. } = &mut visible.scenes[1] {
        children.pop();
    }
    check_against_reference(&write(&visible))
}

#[test]
fn every_rotation_places_like_the_reference() -> Res {
    let mut tried = 0;
    for r in 0u8..128 {
        let (c0, c1) = (r & 3, (r >> 2) & 3);
        if c0 > 2 || c1 > 2 || c0 == c1 {
            continue;
        }
        let mut data = every_chunk_scene(r);
        if let SceneNode::Group { children, .. } = &mut data.scenes[1] {
            children.pop();
        }
        check_against_reference(&write(&data)).map_err(|e| format!("rotation {r}: {e}"))?;
        tried += 1;
    }
    assert_eq!(tried, 48);
    Ok(())
}

#[test]
fn a_quarter_turn_about_z_stands_the_bar_along_world_z() -> Res {
    // A 3×1×1 bar along .vox x, indices 0, 1, 2, turned by x' = -y, y' = x, z' = z.
    let r: u8 = 0b0001_0001; // row 0: column 1, negative; row 1: column 0
    let data = DotVoxData {
        version: 150,
        index_map: dot_vox::DEFAULT_INDEX_MAP.to_vec(),
        models: vec![Model {
            size: Size { x: 3, y: 1, z: 1 },
            voxels: (0..3)
                .map(|x| Voxel {
                    x,
                    y: 0,
                    z: 0,
                    i: x,
                })
                .collect(),
        }],
        palette: dot_vox::DEFAULT_PALETTE.to_vec(),
        materials: vec![],
        scenes: vec![
            SceneNode::Transform {
                attributes: dot_vox::Dict::new(),
                frames: vec![Frame::new(dict(&[("_r", &r.to_string())]))],
                child: 1,
                layer_id: 0,
            },
            SceneNode::Shape {
                attributes: dot_vox::Dict::new(),
                models: vec![ShapeModel {
                    model_id: 0,
                    attributes: dot_vox::Dict::new(),
                }],
            },
        ],
        layers: vec![],
    };
    let mut map = PaletteMap::new();
    for i in 1..=3u8 {
        map.insert(i, Block::make(100 + u16::from(i), 0)?)?;
    }
    let out = import(
        &write(&data),
        &ImportOptions {
            palette: Some(map),
            ..Default::default()
        },
    )?;
    // .vox x -> .vox y (x' = -y means y' = x): world z = -y, so index 0 is at the largest z.
    let got = blocks(&out.world);
    let expect: BTreeMap<[i32; 3], Block> = [
        ([0, 0, 2], Block::make(101, 0)?),
        ([0, 0, 1], Block::make(102, 0)?),
        ([0, 0, 0], Block::make(103, 0)?),
    ]
    .into();
    assert_eq!(got, expect);
    Ok(())
}

fn sample_world() -> Result<World, vwr::VwrError> {
    let mut w = World::with_chunks_per_axis(3)?;
    let mut rng = voxcaf_golden::Rng::new(7);
    for _ in 0..500 {
        let p = [rng.range(0, 29), rng.range(0, 29), rng.range(0, 29)];
        let b = Block::make(1 + rng.below(40) as u16, rng.below(4) as u8)?;
        w.set_block(p, b)?;
    }
    w.set_spawn([3, 4, 5])?;
    w.set_sky_region(2);
    w.set_mission_number(17);
    Ok(w)
}

fn assert_same_world(a: &World, b: &World) {
    assert_eq!(a.chunk_dims(), b.chunk_dims());
    assert_eq!(a.spawn(), b.spawn());
    assert_eq!(a.sky_region(), b.sky_region());
    assert_eq!(a.mission_number(), b.mission_number());
    assert_eq!(blocks(a), blocks(b));
    assert_eq!(records(a), records(b));
}

#[test]
fn export_is_read_back_by_dot_vox_with_registry_colours() -> Res {
    let world = sample_world()?;
    let out = export(&world, &ExportOptions::default())?;
    let data = dot_vox::load_bytes(&out.bytes)?;
    assert_eq!(data.models.len(), 1);
    let voxels: usize = data.models.iter().map(|m| m.voxels.len()).sum();
    assert_eq!(voxels as u64, world.count_non_air());
    let reg = vwr_blocks::default_registry();
    for (i, b) in out.mapping.iter() {
        let c = data.palette[usize::from(i) - 1];
        let r = reg.color(b.block_type());
        assert_eq!([c.r, c.g, c.b], [r[0], r[1], r[2]]);
    }
    // The reference placement of the exported scene is the world, moved to its lowest corner.
    let reference = reference_world_cells(&data);
    let cells = blocks(&world);
    let lo = [0, 1, 2].map(|k| cells.keys().map(|p| p[k]).min().unwrap());
    let moved: BTreeSet<[i32; 3]> = cells
        .keys()
        .map(|p| [p[0] - lo[0], p[1] - lo[1], p[2] - lo[2]])
        .collect();
    assert_eq!(reference.keys().copied().collect::<BTreeSet<_>>(), moved);
    Ok(())
}

#[test]
fn round_trip_is_lossless_for_blocks_and_fields() -> Res {
    let world = sample_world()?;
    let out = export(&world, &ExportOptions::default())?;
    let back = import(&out.bytes, &ImportOptions::default())?;
    assert_same_world(&world, &back.world);
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    Ok(())
}

#[test]
fn worlds_wider_than_256_export_as_several_models() -> Res {
    let mut world = World::with_chunk_dims([30, 2, 27])?;
    world.fill_box([0, 0, 0], [299, 0, 3], Block::make(35, 0)?)?;
    world.set_block([299, 19, 269], Block::make(261, 1)?)?;
    world.set_block([0, 0, 269], Block::make(261, 2)?)?;
    let out = export(&world, &ExportOptions::default())?;
    let data = dot_vox::load_bytes(&out.bytes)?;
    assert!(data.models.len() >= 3, "{}", data.models.len());
    assert!(data
        .models
        .iter()
        .all(|m| m.size.x <= 256 && m.size.y <= 256 && m.size.z <= 256));
    let back = import(&out.bytes, &ImportOptions::default())?;
    assert_same_world(&world, &back.world);
    Ok(())
}

#[test]
fn golden_worlds_round_trip_losslessly() -> Res {
    let Some(dir) = voxcaf_golden::with_worlds() else {
        return Ok(());
    };
    let (mut fit, mut folded) = (0, 0);
    for sub in ["edge", "random", "worlds3d"] {
        for entry in std::fs::read_dir(dir.join("vwr").join(sub))? {
            let path = entry?.path();
            if path.extension().is_none_or(|e| e != "vwr") {
                continue;
            }
            let world = World::load(&path)?;
            let distinct = vwr_vox::distinct_block_values(&world).len();
            let out = export(&world, &ExportOptions::default())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let back = import(&out.bytes, &ImportOptions::default())?;
            assert_same_world(&world, &back.world);
            let records = world.all_extra_metadata().count();
            let reported: usize = out
                .warnings
                .iter()
                .map(|w| match w {
                    VoxWarning::RecordsHidden { count, .. } => *count,
                    _ => 0,
                })
                .sum();
            assert_eq!(records, reported, "{}", path.display());
            let was_folded = out
                .warnings
                .iter()
                .any(|w| matches!(w, VoxWarning::ValuesFolded { .. }));
            assert_eq!(was_folded, distinct > 255, "{}", path.display());
            fit += 1;
            folded += usize::from(was_folded);
        }
    }
    assert!(fit > 50, "{fit} worlds");
    assert!(folded >= 1, "edge-palette-256 has 256 values");
    Ok(())
}

#[test]
fn move_objects_are_reported_not_dropped_silently() -> Res {
    let mut world = World::with_chunks_per_axis(2)?;
    world.set_block([1, 1, 1], Block::make(35, 0)?)?;
    world.place_move_object(&MoveObject::new(7, [5.0, 1.0, 5.0]))?;
    world.place_big_decor([2, 2, 2], 4)?;
    let out = export(&world, &ExportOptions::default())?;
    let names: Vec<_> = out
        .warnings
        .iter()
        .filter_map(|w| match w {
            VoxWarning::RecordsHidden { name, count, .. } => Some((*name, *count)),
            _ => None,
        })
        .collect();
    assert_eq!(names, vec![("MoveObject", 1), ("BigDecor", 1)]);
    assert!(out.warnings[0].to_string().contains("MoveObject"));
    // Kept in the VCAF chunk: back on import.
    let back = import(&out.bytes, &ImportOptions::default())?;
    assert_same_world(&world, &back.world);
    Ok(())
}

#[test]
fn palette_mapping_is_used_both_ways() -> Res {
    let reg = vwr_blocks::default_registry();
    let map = PaletteMap::from_toml("[palette]\n7 = \"rockpile\"\n9 = \"261:3\"\n", reg)?;
    let mut world = World::with_chunks_per_axis(1)?;
    world.set_block([0, 0, 0], Block::make(35, 0)?)?;
    world.set_block([1, 0, 0], Block::make(261, 3)?)?;
    world.set_block([2, 0, 0], Block::make(40, 0)?)?;
    let out = export(
        &world,
        &ExportOptions {
            palette: Some(map.clone()),
        },
    )?;
    let data = dot_vox::load_bytes(&out.bytes)?;
    let indices: BTreeSet<u8> = data.models[0].voxels.iter().map(|v| v.i + 1).collect();
    assert!(indices.contains(&7) && indices.contains(&9), "{indices:?}");
    // A foreign file (no record) imports through the mapping; index 1 is unmapped.
    let mut foreign = data;
    foreign.scenes.clear();
    foreign.models[0].voxels.push(Voxel {
        x: 0,
        y: 0,
        z: 5,
        i: 0,
    });
    foreign.models[0].size.z = 6;
    let back = import(
        &write(&foreign),
        &ImportOptions {
            palette: Some(map),
            ..Default::default()
        },
    )?;
    let got: BTreeSet<Block> = blocks(&back.world).into_values().collect();
    assert!(got.contains(&Block::make(35, 0)?) && got.contains(&Block::make(261, 3)?));
    assert!(back
        .warnings
        .iter()
        .any(|w| matches!(w, VoxWarning::UnmappedIndices { indices } if indices.contains(&1))));
    Ok(())
}

#[test]
fn origin_size_and_placement_errors() -> Res {
    let Some(bytes) = corpus_vox_file("chr_sol.vox") else {
        return Ok(());
    };
    let base = import(&bytes, &ImportOptions::default())?;
    let moved = import(
        &bytes,
        &ImportOptions {
            origin: Some([5, 0, 7]),
            ..Default::default()
        },
    )?;
    let shifted: BTreeMap<[i32; 3], Block> = blocks(&base.world)
        .into_iter()
        .map(|(p, b)| ([p[0] + 5, p[1], p[2] + 7], b))
        .collect();
    assert_eq!(blocks(&moved.world), shifted);

    let tight = import(
        &bytes,
        &ImportOptions {
            size: WorldSize::Tight,
            ..Default::default()
        },
    )?;
    let d = tight.world.chunk_dims();
    assert!(d.iter().zip(base.world.chunk_dims()).all(|(a, b)| *a <= b));
    assert_eq!(blocks(&tight.world), blocks(&base.world));

    let e = import(
        &bytes,
        &ImportOptions {
            origin: Some([-1, 0, 0]),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(e, VoxError::ModelOutsideWorld { model: 0, .. }),
        "{e}"
    );
    let e = import(
        &bytes,
        &ImportOptions {
            size: WorldSize::Chunks([1, 1, 1]),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(e, VoxError::ModelOutsideWorld { .. }), "{e}");
    assert!(e.to_string().contains("outside the world"));
    Ok(())
}

fn one_voxel_scene(frame: &[(&str, &str)], child: u32, model: u32) -> DotVoxData {
    DotVoxData {
        version: 150,
        index_map: dot_vox::DEFAULT_INDEX_MAP.to_vec(),
        models: vec![Model {
            size: Size { x: 1, y: 1, z: 1 },
            voxels: vec![Voxel {
                x: 0,
                y: 0,
                z: 0,
                i: 0,
            }],
        }],
        palette: vec![
            Color {
                r: 1,
                g: 2,
                b: 3,
                a: 255
            };
            256
        ],
        materials: vec![],
        scenes: vec![
            SceneNode::Transform {
                attributes: dot_vox::Dict::new(),
                frames: vec![Frame::new(dict(frame))],
                child,
                layer_id: 0,
            },
            SceneNode::Shape {
                attributes: dot_vox::Dict::new(),
                models: vec![ShapeModel {
                    model_id: model,
                    attributes: dot_vox::Dict::new(),
                }],
            },
        ],
        layers: vec![],
    }
}

#[test]
fn malformed_scenes_are_typed_errors() {
    // The version is there, the MAIN chunk's header is cut short.
    let e = import(b"VOX nonsense", &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, VoxError::Chunk { offset: 8, .. }), "{e}");
    let e = import(
        &write(&one_voxel_scene(&[("_r", "3")], 1, 0)),
        &Default::default(),
    )
    .unwrap_err();
    assert!(matches!(e, VoxError::BadRotation { node: 0, .. }), "{e}");
    let e = import(
        &write(&one_voxel_scene(&[("_t", "1 2")], 1, 0)),
        &Default::default(),
    )
    .unwrap_err();
    assert!(matches!(e, VoxError::BadTranslation { node: 0, .. }), "{e}");
    let e = import(&write(&one_voxel_scene(&[], 9, 0)), &Default::default()).unwrap_err();
    assert!(
        matches!(
            e,
            VoxError::MissingNode {
                node: 0,
                child: 9,
                ..
            }
        ),
        "{e}"
    );
    let e = import(&write(&one_voxel_scene(&[], 0, 0)), &Default::default()).unwrap_err();
    assert!(matches!(e, VoxError::SceneCycle { node: 0 }), "{e}");
    let e = import(&write(&one_voxel_scene(&[], 1, 3)), &Default::default()).unwrap_err();
    assert!(
        matches!(
            e,
            VoxError::MissingModel {
                node: 1,
                model: 3,
                ..
            }
        ),
        "{e}"
    );
    // Two voxels two billion cells apart: refused before any allocation.
    let mut far = one_voxel_scene(&[], 1, 0);
    far.scenes[0] = SceneNode::Group {
        attributes: dot_vox::Dict::new(),
        children: vec![2, 4],
    };
    far.scenes[1] = SceneNode::Shape {
        attributes: dot_vox::Dict::new(),
        models: vec![],
    };
    for t in ["-1000000000 0 0", "1000000000 0 0"] {
        far.scenes.push(SceneNode::Transform {
            attributes: dot_vox::Dict::new(),
            frames: vec![Frame::new(dict(&[("_t", t)]))],
            child: far.scenes.len() as u32 + 1,
            layer_id: 0,
        });
        far.scenes.push(SceneNode::Shape {
            attributes: dot_vox::Dict::new(),
            models: vec![ShapeModel {
                model_id: 0,
                attributes: dot_vox::Dict::new(),
            }],
        });
    }
    let e = import(&write(&far), &Default::default()).unwrap_err();
    assert!(matches!(e, VoxError::SceneTooLarge { .. }), "{e}");
    // A model whose voxel lies outside its size.
    let mut bad = one_voxel_scene(&[], 1, 0);
    bad.models[0].voxels[0].x = 4;
    let e = import(&write(&bad), &Default::default()).unwrap_err();
    assert!(
        matches!(e, VoxError::VoxelOutsideModel { model: 0, x: 4, .. }),
        "{e}"
    );
}

mod property {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn random_worlds_round_trip(
            dims in proptest::array::uniform3(1u32..4),
            cells in proptest::collection::vec((0i32..40, 0i32..40, 0i32..40, 1u16..4096, 0u8..16), 0..200),
        ) {
            let mut world = World::with_chunk_dims(dims).unwrap();
            for (x, y, z, t, m) in cells {
                if world.contains([x, y, z]) {
                    world.set_block([x, y, z], Block::make(t, m).unwrap()).unwrap();
                }
            }
            let out = export(&world, &ExportOptions::default()).unwrap();
            let back = import(&out.bytes, &ImportOptions::default()).unwrap();
            assert_same_world(&world, &back.world);
        }
    }
}

#[test]
fn a_corrupted_voxel_count_is_an_error_naming_the_chunk() -> Res {
    let Some(dir) = corpus_vox() else {
        return Ok(());
    };
    let good = std::fs::read(dir.join("chr_sol.vox"))?;
    let at = good
        .windows(4)
        .position(|w| w == b"XYZI")
        .ok_or("no XYZI chunk")?;
    let count = u32::from_le_bytes(good[at + 12..at + 16].try_into()?);
    // More voxels than the chunk holds, fewer, and a high bit set: each was a silent empty or
    // short model before (dot_vox stops at the chunk it cannot parse).
    for bad_count in [count + 1000, count - 5, count ^ (1 << 20)] {
        let mut bytes = good.clone();
        bytes[at + 12..at + 16].copy_from_slice(&bad_count.to_le_bytes());
        let e = import(&bytes, &ImportOptions::default()).unwrap_err();
        assert!(
            matches!(&e, VoxError::Chunk { id, offset, .. } if id == "XYZI" && *offset == at as u64),
            "{e}"
        );
        assert!(
            e.to_string().contains(&format!("{bad_count} voxels need")),
            "{e}"
        );
    }
    // A chunk whose size runs past its parent.
    let mut bytes = good.clone();
    bytes[at + 4..at + 8].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = import(&bytes, &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("past the end"), "{e}");
    Ok(())
}
