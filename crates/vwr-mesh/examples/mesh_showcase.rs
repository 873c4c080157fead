//! Meshes the showcase level (greedy, with ambient occlusion), writes it as a `.glb` and
//! renders an isometric preview.
//!
//! `cargo run -p vwr-mesh --example mesh_showcase [OUT_DIR]` (default: the system's temporary
//! folder). Open the `.glb` in Blender or a web glTF viewer.

use vwr_mesh::{mesh_world, render_world, write_mesh, ExportOptions, MeshOptions, RenderOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let world = vwr::samples::showcase()?;
    let registry = vwr_blocks::default_registry();
    let exposed = mesh_world(&world, registry, MeshOptions::EXPOSED);
    let mesh = mesh_world(&world, registry, MeshOptions::GREEDY_AO);
    let glb = dir.join("showcase.glb");
    let stats = write_mesh(&glb, &mesh, registry, ExportOptions::default())?;
    println!(
        "{}: {} exposed faces merged into {} greedy quads; {} vertices, {} triangles",
        glb.display(),
        exposed.quad_count(),
        mesh.quad_count(),
        stats.vertices,
        stats.triangles
    );
    let png = dir.join("showcase-iso.png");
    let preview = render_world(&world, registry, &RenderOptions::default())?;
    vwr_mesh::render::save_png(&preview.image, &png)?;
    println!(
        "{}: {}x{} preview, {:.0}% of the image covered",
        png.display(),
        preview.image.width(),
        preview.image.height(),
        preview.coverage() * 100.0
    );
    Ok(())
}
