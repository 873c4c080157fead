//! Builds one triangle as a GLB with the shared buffer builder, accessor helper and GLB
//! framing, reads it back with the `gltf` crate and prints what it holds.
//!
//! Run: `cargo run -p voxcaf-gltf --example triangle`

use voxcaf_gltf::{accessor, default_scene, f32_bytes, glb, json, triangles, BinBuilder};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    use json::accessor::{ComponentType, Type};
    use json::validation::Checked::Valid;
    let mut root = json::Root::default();
    let mut bin = BinBuilder::new();
    let p = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let v = bin.view(
        &mut root,
        &f32_bytes(&p),
        Some(json::buffer::Target::ArrayBuffer),
    );
    let min = Some(json::Value::from(vec![0.0, 0.0, 0.0]));
    let max = Some(json::Value::from(vec![1.0, 1.0, 0.0]));
    let pos = accessor(&mut root, v, 3, Type::Vec3, ComponentType::F32, min, max);
    let mesh = root.push(json::Mesh {
        extensions: None,
        extras: Default::default(),
        name: Some("triangle".into()),
        primitives: vec![triangles(
            [(Valid(json::mesh::Semantic::Positions), pos)].into(),
            None,
            None,
        )],
        weights: None,
    });
    let node = root.push(json::Node {
        mesh: Some(mesh),
        ..Default::default()
    });
    default_scene(&mut root, None, vec![node]);
    let bin = bin.finish(&mut root, None);
    let bytes = glb(&root, bin)?;
    let back = gltf::Gltf::from_slice(&bytes)?;
    println!(
        "GLB of {} bytes: {} mesh(es), {} accessor(s), BIN chunk of {} bytes",
        bytes.len(),
        back.meshes().count(),
        back.accessors().count(),
        back.blob.as_ref().map_or(0, Vec::len)
    );
    Ok(())
}
