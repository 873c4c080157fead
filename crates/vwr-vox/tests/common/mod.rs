//! Helpers shared by the test files: dictionaries, writing, the blocks of a world, the
//! corpus and real-world `.vox` files, and an independent placement to compare imports with.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use dot_vox::{DotVoxData, Model, SceneNode, Size, Voxel};
use vwr::{Block, World};
use vwr_vox::{import, ImportOptions};

pub type Res = Result<(), Box<dyn std::error::Error>>;

pub fn dict(pairs: &[(&str, &str)]) -> dot_vox::Dict {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

pub fn write(data: &DotVoxData) -> Vec<u8> {
    let mut out = Vec::new();
    data.write_vox(&mut out).unwrap();
    out
}

pub fn blocks(world: &World) -> BTreeMap<[i32; 3], Block> {
    let mut m = BTreeMap::new();
    world.for_each_non_air(|p, b| {
        m.insert(p, b);
    });
    m
}

/// The corpus folder, or `None` (skip) unless the golden data is required.
pub fn corpus_vox() -> Option<PathBuf> {
    voxcaf_golden::corpus("vox")
}

/// The bytes of the corpus file `vox/NAME`, or `None` (skip) like [`corpus_vox`].
pub fn corpus_vox_file(name: &str) -> Option<Vec<u8>> {
    let path = corpus_vox()?.join(name);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// An independent placement: floats, `dot_vox`'s own rotation decoding, the model centre at
/// `size / 2`. Returns `.vox` scene cells (Z-up) with their palette index.
pub fn reference_cells(data: &DotVoxData) -> Vec<([i64; 3], u8)> {
    fn walk(
        data: &DotVoxData,
        node: usize,
        chain: &mut Vec<([[f32; 3]; 3], [f32; 3])>,
        out: &mut Vec<([i64; 3], u8)>,
    ) {
        match &data.scenes[node] {
            SceneNode::Transform { frames, child, .. } => {
                let f = frames.first().cloned().unwrap_or_default();
                let cols = f.orientation().map(|r| r.to_cols_array_2d()).unwrap_or([
                    [1.0, 0.0, 0.0],
                    [0.0, 1.0, 0.0],
                    [0.0, 0.0, 1.0],
                ]);
                let t = f
                    .position()
                    .map(|p| [p.x as f32, p.y as f32, p.z as f32])
                    .unwrap_or([0.0; 3]);
                chain.push((cols, t));
                walk(data, *child as usize, chain, out);
                chain.pop();
            }
            SceneNode::Group { children, .. } => {
                for &c in children {
                    walk(data, c as usize, chain, out);
                }
            }
            SceneNode::Shape { models, .. } => {
                let m = &data.models[models[0].model_id as usize];
                let s = [m.size.x as f32, m.size.y as f32, m.size.z as f32];
                for v in &m.voxels {
                    let mut p = [
                        v.x as f32 + 0.5 - s[0] / 2.0,
                        v.y as f32 + 0.5 - s[1] / 2.0,
                        v.z as f32 + 0.5 - s[2] / 2.0,
                    ];
                    for (cols, t) in chain.iter().rev() {
                        let mut q = *t;
                        for (row, qr) in q.iter_mut().enumerate() {
                            for col in 0..3 {
                                *qr += cols[col][row] * p[col];
                            }
                        }
                        p = q;
                    }
                    out.push((p.map(|c| c.floor() as i64), v.i));
                }
            }
        }
    }
    let mut out = Vec::new();
    if data.scenes.is_empty() {
        // No scene graph (older files): each model at the origin, unmoved.
        for m in &data.models {
            for v in &m.voxels {
                out.push(([v.x, v.y, v.z].map(i64::from), v.i));
            }
        }
    } else {
        walk(data, 0, &mut Vec::new(), &mut out);
    }
    out
}

/// Reference cells in world space (`(x, z, -y)`, lowest corner at the origin).
pub fn reference_world_cells(data: &DotVoxData) -> BTreeMap<[i32; 3], u8> {
    let cells: Vec<([i64; 3], u8)> = reference_cells(data)
        .into_iter()
        .map(|(c, i)| ([c[0], c[2], -c[1]], i))
        .collect();
    let lo = [0, 1, 2].map(|k| cells.iter().map(|(c, _)| c[k]).min().unwrap_or(0));
    cells
        .into_iter()
        .map(|(c, i)| ([0, 1, 2].map(|k| (c[k] - lo[k]) as i32), i))
        .collect()
}

pub fn check_against_reference(bytes: &[u8]) -> Res {
    let data = dot_vox::load_bytes(bytes)?;
    let reference = reference_world_cells(&data);
    let out = import(bytes, &ImportOptions::default())?;
    let got = blocks(&out.world);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        reference.keys().collect::<Vec<_>>()
    );
    // Equal palette indices give equal blocks.
    let mut by_index: BTreeMap<u8, Block> = BTreeMap::new();
    for (p, i) in &reference {
        let b = got[p];
        assert_eq!(*by_index.entry(*i).or_insert(b), b, "index {i}");
    }
    Ok(())
}

/// A world's metadata records: position, type, payload.
pub fn records(w: &World) -> Vec<([i32; 3], u16, Vec<u8>)> {
    let mut v: Vec<_> = w
        .all_extra_metadata()
        .map(|(p, r)| (p, r.record_type, r.payload.clone()))
        .collect();
    v.sort();
    v
}

/// `../shared/realworld/REL`, or `None` (skip) unless the golden data is required.
pub fn realworld(rel: &str) -> Option<Vec<u8>> {
    let path = voxcaf_golden::root().join("../realworld").join(rel);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) if voxcaf_golden::required() => panic!("{}: {e}", path.display()),
        Err(_) => {
            eprintln!("note: {} not found; skipping", path.display());
            None
        }
    }
}

/// A real-world `.vox` file's bytes and `dot_vox`'s reading of them, or `None` (skip) like
/// [`realworld`].
pub fn realworld_vox(rel: &str) -> Option<(Vec<u8>, DotVoxData)> {
    let bytes = realworld(rel)?;
    let data = dot_vox::load_bytes(&bytes).unwrap_or_else(|e| panic!("{rel}: {e}"));
    Some((bytes, data))
}

/// An L-shaped model: its orientation shows in the result.
pub fn l_model() -> Model {
    Model {
        size: Size { x: 3, y: 2, z: 1 },
        voxels: vec![
            Voxel {
                x: 0,
                y: 0,
                z: 0,
                i: 0,
            },
            Voxel {
                x: 1,
                y: 0,
                z: 0,
                i: 1,
            },
            Voxel {
                x: 2,
                y: 0,
                z: 0,
                i: 2,
            },
            Voxel {
                x: 0,
                y: 1,
                z: 0,
                i: 3,
            },
        ],
    }
}
