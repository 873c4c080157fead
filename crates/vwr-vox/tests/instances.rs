//! MagicaVoxel instances: several transforms naming the same group or shape place it each
//! time; cycles, over-deep graphs and graphs that double with each level are typed errors.

use dot_vox::{Color, DotVoxData, Frame, SceneNode, ShapeModel};
use vwr_vox::{import, ImportOptions, VoxError};

mod common;
use common::*;

fn transform(t: &str, r: Option<&str>, child: u32) -> SceneNode {
    let mut frame = vec![("_t", t)];
    if let Some(r) = r {
        frame.push(("_r", r));
    }
    SceneNode::Transform {
        attributes: dot_vox::Dict::new(),
        frames: vec![Frame::new(dict(&frame))],
        child,
        layer_id: 0,
    }
}

fn group(children: Vec<u32>) -> SceneNode {
    SceneNode::Group {
        attributes: dot_vox::Dict::new(),
        children,
    }
}

fn scene(scenes: Vec<SceneNode>) -> DotVoxData {
    let palette = (0..=255u8)
        .map(|i| Color {
            r: i,
            g: 255 - i,
            b: i / 2,
            a: 255,
        })
        .collect();
    DotVoxData {
        version: 150,
        index_map: dot_vox::DEFAULT_INDEX_MAP.to_vec(),
        models: vec![l_model()],
        palette,
        materials: vec![],
        scenes,
        layers: vec![],
    }
}

#[test]
fn a_vox_that_reuses_groups_and_shapes_imports_each_instance_where_it_is_referenced() -> Res {
    // Root → group of two transforms naming the same group 4, which holds two transforms
    // naming the same shape 6: four instances of one model, one of them rotated.
    let data = scene(vec![
        transform("0 0 0", None, 1),
        group(vec![2, 3]),
        transform("0 0 0", None, 4),
        transform("20 0 0", Some("17"), 4),
        group(vec![5, 7]),
        transform("0 0 0", None, 6),
        SceneNode::Shape {
            attributes: dot_vox::Dict::new(),
            models: vec![ShapeModel {
                model_id: 0,
                attributes: dot_vox::Dict::new(),
            }],
        },
        transform("0 0 9", None, 6),
    ]);
    let bytes = write(&data);
    let out = import(&bytes, &ImportOptions::default())?;
    assert_eq!(out.models, 4);
    let per_model = data.models[0].voxels.len() as u64;
    assert_eq!(out.voxels, 4 * per_model);
    assert_eq!(out.world.count_non_air(), 4 * per_model);
    // Every instance where the independent placement puts it.
    check_against_reference(&bytes)?;
    Ok(())
}

#[test]
fn a_real_vox_with_instances_imports_where_the_reference_places_them() -> Res {
    // vengi's test-transform.vox names shapes from several transforms ("not a tree" before).
    let Some((bytes, data)) = realworld_vox("corpus2/vox/vengi-test-transform.vox") else {
        return Ok(());
    };
    let out = import(&bytes, &ImportOptions::default())?;
    let shapes = data
        .scenes
        .iter()
        .filter(|n| matches!(n, SceneNode::Shape { .. }))
        .count();
    assert!(
        out.models > shapes,
        "{} placed, {shapes} shapes",
        out.models
    );
    check_against_reference(&bytes)?;
    Ok(())
}

#[test]
fn scene_graph_cycles_depth_and_expansion_are_typed_errors() {
    // A group below itself.
    let cycle = scene(vec![
        transform("0 0 0", None, 1),
        group(vec![2]),
        transform("1 0 0", None, 1),
    ]);
    let e = import(&write(&cycle), &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, VoxError::SceneCycle { node: 1 }), "{e}");
    assert!(e.to_string().contains("cycle"), "{e}");

    // A chain of 5000 transforms: refused, not a stack overflow.
    let mut deep: Vec<SceneNode> = (1..5000).map(|c| transform("0 0 0", None, c)).collect();
    deep.push(SceneNode::Shape {
        attributes: dot_vox::Dict::new(),
        models: vec![ShapeModel {
            model_id: 0,
            attributes: dot_vox::Dict::new(),
        }],
    });
    let e = import(&write(&scene(deep)), &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, VoxError::SceneTooDeep { .. }), "{e}");

    // 40 levels of groups naming the next one twice: 2^40 paths, refused quickly.
    let mut doubling: Vec<SceneNode> = (1..=40).map(|c| group(vec![c, c])).collect();
    doubling.push(group(vec![]));
    let start = std::time::Instant::now();
    let e = import(&write(&scene(doubling)), &ImportOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            VoxError::SceneExpansion {
                what: "node visits",
                ..
            }
        ),
        "{e}"
    );
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
}
