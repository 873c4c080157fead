//! Exports parse back (gltf, tobj, caf) and previews are deterministic and non-trivial.

mod common;

use std::path::PathBuf;

use common::*;
use vwr::World;
use vwr_blocks::Registry;
use vwr_mesh::{
    export, mesh_world, render, write_mesh, ExportOptions, MeshBuffers, MeshOptions, RenderOptions,
    View, WorldMesh,
};

fn small_world() -> World {
    let mut w = World::with_chunks_per_axis(2).unwrap();
    w.fill_box([0, 0, 0], [19, 0, 19], b(35)).unwrap();
    w.fill_box([3, 1, 3], [5, 3, 5], b(261)).unwrap();
    w.fill_box([10, 1, 10], [12, 1, 12], b(92)).unwrap();
    w.set_block([8, 1, 8], b(378)).unwrap();
    w.set_block([15, 1, 4], b(53)).unwrap();
    w.place_move_object(&vwr::MoveObject::new(7, [14.0, 1.0, 14.0]))
        .unwrap();
    w.place_big_decor([2, 1, 17], 66).unwrap();
    w
}

/// [`small_world`] meshed greedily, with or without ambient occlusion: the registry, the mesh
/// and its buffers.
fn small_mesh(ao: bool) -> (Registry, WorldMesh, MeshBuffers) {
    let r = Registry::default();
    let m = mesh_world(
        &small_world(),
        &r,
        MeshOptions {
            ao,
            ..MeshOptions::GREEDY
        },
    );
    let b = MeshBuffers::from_world(&m, &r);
    (r, m, b)
}

/// Writes `m` with the default export options to `NAME` in a new temporary folder: the folder
/// (keep it alive) and the file's path.
fn export_default(r: &Registry, m: &WorldMesh, name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    write_mesh(&path, m, r, ExportOptions::default()).unwrap();
    (dir, path)
}

#[test]
fn gltf_parses_back_with_right_counts() {
    let (r, m, b) = small_mesh(true);
    let dir = tempfile::tempdir().unwrap();
    for per_chunk in [false, true] {
        let path = dir
            .path()
            .join(if per_chunk { "w_chunks.glb" } else { "w.glb" });
        let stats = write_mesh(
            &path,
            &m,
            &r,
            ExportOptions {
                per_chunk,
                bake_ao: true,
            },
        )
        .unwrap();
        assert_eq!(stats.vertices, b.vertex_count());
        let bytes = std::fs::read(&path).unwrap();
        let g = gltf::Gltf::from_slice(&bytes).unwrap();
        let blob = g.blob.clone().unwrap();
        let (mut verts, mut tris, mut prims, mut blended) = (0, 0, 0, 0);
        for mesh in g.meshes() {
            for p in mesh.primitives() {
                prims += 1;
                let reader = p.reader(|_| Some(&blob[..]));
                let pos: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
                let col = reader.read_colors(0).unwrap().into_rgba_f32().count();
                let uv = reader.read_tex_coords(0).unwrap().into_f32().count();
                let nor = reader.read_normals().unwrap().count();
                assert_eq!((col, uv, nor), (pos.len(), pos.len(), pos.len()));
                let idx: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
                assert!(idx.iter().all(|&i| (i as usize) < pos.len()));
                verts += pos.len();
                tris += idx.len() / 3;
                if p.material().alpha_mode() == gltf::material::AlphaMode::Blend {
                    blended += 1;
                }
            }
        }
        assert_eq!(verts, b.vertex_count());
        assert_eq!(tris, b.triangle_count());
        assert_eq!(stats.triangles, tris);
        assert!(blended >= 1, "water goes into a blended primitive");
        let nodes = g.nodes().filter(|n| n.mesh().is_some()).count();
        if per_chunk {
            assert_eq!(nodes, m.chunks.len());
            assert!(prims >= m.chunks.len());
        } else {
            assert_eq!((nodes, prims), (1, 2));
        }
    }
    // .gltf writes the buffer beside it.
    let path = dir.path().join("w.gltf");
    let stats = write_mesh(&path, &m, &r, ExportOptions::default()).unwrap();
    assert_eq!(stats.files.len(), 2);
    let g = gltf::Gltf::open(&path).unwrap();
    assert_eq!(g.buffers().count(), 1);
    assert!(dir.path().join("w.bin").is_file());
}

#[test]
fn obj_parses_back_with_tobj() {
    let (r, m, b) = small_mesh(false);
    let (_dir, path) = export_default(&r, &m, "w.obj");
    let (models, _) = tobj::load_obj(
        &path,
        &tobj::LoadOptions {
            triangulate: true,
            ..Default::default()
        },
    )
    .unwrap();
    let tris: usize = models.iter().map(|m| m.mesh.indices.len() / 3).sum();
    assert_eq!(tris, b.triangle_count());
    assert_eq!(models.len(), 2);
    assert!(models.iter().all(|m| !m.mesh.vertex_color.is_empty()));
}

#[test]
fn caf_mesh_loads_through_typed_view() {
    let (r, m, b) = small_mesh(true);
    let (_dir, path) = export_default(&r, &m, "w.caf");
    let loaded = caf::LoadedAsset::open(&path).unwrap();
    assert_eq!(loaded.header().asset_type, caf::AssetType::MESH);
    let asset = loaded.asset();
    let view = caf::mesh::MeshView::from_asset(&asset).unwrap();
    assert_eq!(view.meta.vertex_count as usize, b.vertex_count());
    assert_eq!(view.meta.index_count as usize, b.triangle_count() * 3);
    assert_eq!(view.meta.sub_mesh_count, 2);
    assert_eq!(view.vertices.len(), b.vertex_count());
    assert_eq!(view.vertices[0].position, b.opaque.positions[0]);
    // Tangents are unit length and perpendicular to the normals.
    for v in view.vertices.iter() {
        let t = v.tangent;
        let len = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
        assert!((len - 1.0).abs() < 1e-4, "{t:?}");
        let d = t[0] * v.normal[0] + t[1] * v.normal[1] + t[2] * v.normal[2];
        assert!(d.abs() < 1e-4);
        assert!(t[3] == 1.0 || t[3] == -1.0);
    }
    let max = view.vertices.len() as u32;
    assert!(view.indices.iter().all(|&i| i < max));
    // The level keeps its colours and its two passes in the engine's own format: COLOR_0
    // per vertex and the sub-mesh table (opaque then transparent).
    let colors = view.colors.as_ref().expect("COLOR_0 stored");
    assert_eq!(colors.len(), b.vertex_count());
    assert!(colors
        .iter()
        .any(|c| c[0] != colors[0][0] || c[1] != colors[0][1]));
    let table = view.sub_meshes();
    assert_eq!(table.len(), 2);
    assert_eq!(table[0].first_index, 0);
    assert_eq!(table[0].index_count as usize, b.opaque.indices.len());
    assert_eq!(table[1].first_index as usize, b.opaque.indices.len());
    assert_eq!((table[0].material, table[1].material), (0, 1));
    // With AO baked in, the colours of occluded corners are darker.
    let (_, baked, _) = export::caf_mesh(&m, &r, true).unwrap();
    let (_, plain, _) = export::caf_mesh(&m, &r, false).unwrap();
    assert_eq!(baked.len(), plain.len());
    assert_ne!(baked, plain);
}

#[test]
fn unknown_output_extension_is_an_error() {
    let w = small_world();
    let r = Registry::default();
    let m = mesh_world(&w, &r, MeshOptions::default());
    let dir = tempfile::tempdir().unwrap();
    let err = write_mesh(&dir.path().join("w.fbx"), &m, &r, ExportOptions::default()).unwrap_err();
    assert!(err.to_string().contains(".glb"), "{err}");
    assert!(!dir.path().join("w.fbx").exists());
}

/// FNV-1a 64 over bytes (stable across Rust versions, unlike `DefaultHasher`).
fn fnv(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Pixel hash of the world999 iso render at 480×320, AO and markers on. Recorded from this
/// implementation; a change here means the rendering changed (look at the image, then update).
const WORLD999_ISO_480X320: u64 = 0x9e68_2c01_b0e9_05ad;

#[test]
fn render_world999_is_deterministic_and_non_trivial() {
    let Some(w) = world999() else { return };
    let r = Registry::default();
    let opts = RenderOptions {
        view: View::Iso,
        width: 480,
        height: 320,
        ao: true,
        markers: true,
    };
    let a = vwr_mesh::render_world(&w, &r, &opts).unwrap();
    let b2 = vwr_mesh::render_world(&w, &r, &opts).unwrap();
    let (pa, pb) = (
        render::png_bytes(&a.image).unwrap(),
        render::png_bytes(&b2.image).unwrap(),
    );
    assert_eq!(fnv(&pa), fnv(&pb), "two renders differ");
    assert_eq!(a.image.as_raw(), b2.image.as_raw());
    let h = fnv(a.image.as_raw());
    eprintln!("world999 iso 480x320 pixel hash: {h:#018x}");
    assert_eq!(
        h, WORLD999_ISO_480X320,
        "render changed: pixel hash {h:#018x}"
    );
    assert_eq!(a.markers, 100);
    // Most of the fitted picture's pixels are geometry: measured inside the content's
    // bounding box, and overall at least a quarter.
    assert!(a.coverage() > 0.25, "coverage {}", a.coverage());
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    let bg_top = *a.image.get_pixel(0, 0);
    let mut fg = 0u64;
    for (x, y, p) in a.image.enumerate_pixels() {
        let bg = *a.image.get_pixel(0, y);
        if *p != bg {
            fg += 1;
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
    }
    let _ = bg_top;
    assert!(fg as f64 / ((x1 - x0 + 1) as f64 * (y1 - y0 + 1) as f64) > 0.3);
    // Different views give different pictures.
    for view in [View::Front, View::Top] {
        let o = vwr_mesh::render_world(&w, &r, &RenderOptions { view, ..opts }).unwrap();
        assert_ne!(o.image.as_raw(), a.image.as_raw());
        assert!(o.covered > 0);
    }
}

#[test]
fn dense_world_render_is_mostly_geometry() {
    let w = voxcaf_like_hill();
    let r = Registry::default();
    let out = vwr_mesh::render_world(
        &w,
        &r,
        &RenderOptions {
            width: 200,
            height: 200,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(out.coverage() > 0.5, "{}", out.coverage());
}

fn voxcaf_like_hill() -> World {
    let mut w = World::with_chunks_per_axis(2).unwrap();
    for z in 0..20 {
        for x in 0..20 {
            let h = 3 + ((x as f32 / 3.0).sin() * 3.0 + (z as f32 / 4.0).cos() * 3.0 + 6.0) as i32;
            w.fill_box([x, 0, z], [x, h, z], b(3)).unwrap();
            w.set_block([x, h + 1, z], b(1)).unwrap();
        }
    }
    w
}

#[test]
fn layer_and_chunk_views() {
    let w = small_world();
    let r = Registry::default();
    let l = render::render_layer(&w, &r, 1, 400).unwrap();
    assert!(l.covered > 0);
    assert_eq!(l.markers, 2);
    assert!(render::render_layer(&w, &r, 20, 400).is_err());
    assert!(render::render_layer(&w, &r, -1, 400).is_err());
    let c = render::render_chunks(&w);
    assert!(c.covered > 0);
    // An empty world renders to background only, without error.
    let e = World::with_chunks_per_axis(1).unwrap();
    let out = vwr_mesh::render_world(
        &e,
        &r,
        &RenderOptions {
            width: 64,
            height: 48,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(out.covered, 0);
    assert!(vwr_mesh::render_world(
        &e,
        &r,
        &RenderOptions {
            width: 0,
            height: 48,
            ..Default::default()
        }
    )
    .is_err());
}
