//! Mesh export to glTF (`caf_import::export::gltf`): source (OBJ, glTF) -> .caf -> `.glb` /
//! `.gltf` + `.bin`, read back with the `gltf` crate (an independent decoder) and compared with
//! the stored mesh attribute by attribute, primitive by primitive; then the export converted
//! again and compared with the first `.caf`. Unhappy paths: wrong extension, damaged and
//! impossible mesh assets.

use std::path::Path;

use caf::mesh::{MeshView, SubMeshEntry};
use caf_import::export::{export, gltf::MAX_PLACEHOLDERS, write_files, ExportError, ExportOptions};
use caf_import::{convert, convert_file, MeshNodes, Profile, Settings};
use voxcaf_samples as samples;

type Res = Result<(), Box<dyn std::error::Error>>;

fn opts() -> ExportOptions<'static> {
    ExportOptions::default()
}

fn settings(nodes: MeshNodes) -> Settings {
    Settings {
        mesh_nodes: nodes,
        ..Settings::default()
    }
}

/// `src` (named `name`) converted with `settings`, as `.caf` bytes.
fn caf_of(
    src: &[u8],
    name: &str,
    settings: &Settings,
) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    Ok(convert(src, Path::new(name), settings)?.to_caf_bytes())
}

fn view(caf: &[u8]) -> MeshView<'_> {
    MeshView::from_asset(&caf::Asset::parse(caf).unwrap()).unwrap()
}

/// The one export file of a `.glb` export.
fn glb_of(caf: &[u8]) -> Vec<u8> {
    let files = export(caf.to_vec(), Path::new("out/m.glb"), &opts()).unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path, Path::new("out/m.glb"));
    files.into_iter().next().unwrap().bytes
}

/// Every primitive of the document read back by the `gltf` crate and checked against the
/// stored mesh: attributes equal bit for bit to the stored ones (shared by all primitives),
/// one primitive per sub-mesh with that sub-mesh's indices and material, POSITION bounds.
/// Returns the document's primitive count.
fn check_against(doc: &gltf::Document, buffers: &[gltf::buffer::Data], v: &MeshView<'_>) -> usize {
    let table = v.sub_meshes();
    let prims: Vec<gltf::Primitive<'_>> = doc.meshes().flat_map(|m| m.primitives()).collect();
    assert_eq!(prims.len(), table.len());
    for (p, e) in prims.iter().zip(&table) {
        assert_eq!(p.mode(), gltf::mesh::Mode::Triangles);
        let r = p.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
        let pos: Vec<[f32; 3]> = r.read_positions().unwrap().collect();
        let want: Vec<[f32; 3]> = v.vertices.iter().map(|x| x.position).collect();
        assert_eq!(pos, want);
        let nor: Vec<[f32; 3]> = r.read_normals().unwrap().collect();
        assert_eq!(nor, v.vertices.iter().map(|x| x.normal).collect::<Vec<_>>());
        let uv: Vec<[f32; 2]> = r.read_tex_coords(0).unwrap().into_f32().collect();
        assert_eq!(uv, v.vertices.iter().map(|x| x.uv).collect::<Vec<_>>());
        let tan: Vec<[f32; 4]> = r.read_tangents().unwrap().collect();
        assert_eq!(
            tan,
            v.vertices.iter().map(|x| x.tangent).collect::<Vec<_>>()
        );
        match &v.colors {
            Some(c) => {
                let got: Vec<[f32; 4]> = r.read_colors(0).unwrap().into_rgba_f32().collect();
                assert_eq!(got, c.to_vec());
            }
            None => assert!(r.read_colors(0).is_none()),
        }
        match &v.uv1 {
            Some(u) => {
                let got: Vec<[f32; 2]> = r.read_tex_coords(1).unwrap().into_f32().collect();
                assert_eq!(got, u.to_vec());
            }
            None => assert!(r.read_tex_coords(1).is_none()),
        }
        let idx: Vec<u32> = r.read_indices().unwrap().into_u32().collect();
        let range = e.first_index as usize..(e.first_index + e.index_count) as usize;
        assert_eq!(idx, v.indices[range]);
        let material = (e.material != SubMeshEntry::NONE).then_some(e.material as usize);
        assert_eq!(p.material().index(), material);
        if let Some(m) = material {
            assert_eq!(p.material().name(), Some(format!("material {m}").as_str()));
        }
        let b = p.bounding_box();
        let lo = want.iter().fold([f32::INFINITY; 3], |a, p| {
            [a[0].min(p[0]), a[1].min(p[1]), a[2].min(p[2])]
        });
        let hi = want.iter().fold([f32::NEG_INFINITY; 3], |a, p| {
            [a[0].max(p[0]), a[1].max(p[1]), a[2].max(p[2])]
        });
        assert_eq!((b.min, b.max), (lo, hi));
    }
    prims.len()
}

fn read_glb(glb: &[u8]) -> (gltf::Document, Vec<gltf::buffer::Data>) {
    let (doc, buffers, _images) = gltf::import_slice(glb).unwrap();
    (doc, buffers)
}

/// `caf` exported to `.glb`, read back and checked (`check_against`): the `.glb` file, its
/// document and its primitive count.
fn glb_checked(caf: &[u8]) -> (Vec<u8>, gltf::Document, usize) {
    let glb = glb_of(caf);
    let (doc, buffers) = read_glb(&glb);
    let prims = check_against(&doc, &buffers, &view(caf));
    (glb, doc, prims)
}

/// Checks that `glb` converted again with `settings` gives `caf`, byte for byte.
fn converts_back(glb: &[u8], settings: &Settings, caf: &[u8]) -> Res {
    assert_eq!(caf_of(glb, "m.glb", settings)?, caf);
    Ok(())
}

/// The two-cube glTF sample converted with `nodes`, as `.caf` bytes.
fn two_cubes(nodes: MeshNodes) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    caf_of(&samples::two_cubes_glb(), "cubes.glb", &settings(nodes))
}

/// An OBJ cube (one group: an original-layout mesh) to `.glb`: one mesh, one primitive, no
/// material, the attributes as stored; converted again, the `.caf` is byte for byte the first.
#[test]
fn obj_cube_round_trips_through_glb() -> Res {
    let caf = caf_of(
        samples::CUBE_OBJ.as_bytes(),
        "cube.obj",
        &Settings::default(),
    )?;
    let v = view(&caf);
    assert!(v.ext.is_none());
    let (glb, doc, prims) = glb_checked(&caf);
    assert_eq!(prims, 1);
    assert_eq!(doc.materials().count(), 0);
    assert_eq!(doc.nodes().count(), 1);
    assert_eq!(doc.default_scene().unwrap().nodes().count(), 1);

    converts_back(&glb, &Settings::default(), &caf)
}

/// The extended mesh of two cubes (flatten: one sub-mesh per material, in order of first use:
/// 2 then 1; colours on the first, defaults on the second; a second UV set): two primitives in
/// one mesh, three placeholder materials (index 0 unused), COLOR_0 and TEXCOORD_1; converted
/// again, the same `.caf`.
#[test]
fn extended_mesh_round_trips_through_glb() -> Res {
    let caf = two_cubes(MeshNodes::Flatten)?;
    let v = view(&caf);
    let table = v.sub_meshes();
    assert_eq!(table.iter().map(|e| e.material).collect::<Vec<_>>(), [2, 1]);
    assert!(v.colors.is_some() && v.uv1.is_some());

    let (glb, doc, prims) = glb_checked(&caf);
    assert_eq!(prims, 2);
    assert_eq!(doc.meshes().count(), 1);
    let names: Vec<_> = doc
        .materials()
        .map(|m| m.name().unwrap().to_string())
        .collect();
    assert_eq!(names, ["unused 0", "material 1", "material 2"]);

    converts_back(&glb, &settings(MeshNodes::Flatten), &caf)
}

/// Kept nodes: one glTF node (and mesh) per sub-mesh, named after the recorded node; a
/// keep-nodes import of the export records the same table.
#[test]
fn kept_nodes_become_one_node_per_sub_mesh() -> Res {
    let caf = two_cubes(MeshNodes::Keep)?;
    let v = view(&caf);
    let nodes: Vec<u32> = v.sub_meshes().iter().map(|e| e.node).collect();
    assert_eq!(nodes, [0, 1]);

    let (glb, doc, prims) = glb_checked(&caf);
    assert_eq!(prims, 2);
    let names: Vec<_> = doc.nodes().map(|n| n.name().unwrap().to_string()).collect();
    assert_eq!(names, ["node 0", "node 1"]);
    assert!(doc
        .nodes()
        .all(|n| n.mesh().map(|m| m.primitives().count()) == Some(1)));
    assert_eq!(doc.default_scene().unwrap().nodes().count(), 2);

    converts_back(&glb, &settings(MeshNodes::Keep), &caf)
}

/// `.gltf` writes the buffer as `.bin` beside the JSON (first, so the JSON never names a
/// missing file), both through `write_files`; `gltf::import` reads them back from disk, and
/// converting the `.gltf` file gives the first `.caf` again.
#[test]
fn gltf_and_bin_written_beside_each_other() -> Res {
    let caf = two_cubes(MeshNodes::Flatten)?;
    let dir = tempfile::tempdir()?;
    let out = dir.path().join("sub dir/my cubes.gltf");
    let files = export(caf.clone(), &out, &opts())?;
    let paths: Vec<_> = files.iter().map(|f| f.path.clone()).collect();
    assert_eq!(paths, [out.with_extension("bin"), out.clone()]);
    let text = std::str::from_utf8(&files[1].bytes)?;
    assert!(text.contains("\"uri\": \"my%20cubes.bin\""), "{text}");
    write_files(&files)?;
    assert!(out.with_extension("bin").is_file());

    let (doc, buffers, _) = gltf::import(&out)?;
    assert_eq!(check_against(&doc, &buffers, &view(&caf)), 2);
    let again = convert_file(&out, &settings(MeshNodes::Flatten))?.to_caf_bytes();
    assert_eq!(again, caf);
    Ok(())
}

/// The original profile stores zero tangents: TANGENT is left out (glTF requires unit
/// tangents), the rest is written, and the file still reads.
#[test]
fn zero_tangents_are_left_out() -> Res {
    let original = Settings {
        profile: Profile::Original,
        ..Settings::default()
    };
    let caf = caf_of(samples::CUBE_OBJ.as_bytes(), "cube.obj", &original)?;
    let v = view(&caf);
    assert!(v.vertices.iter().all(|x| x.tangent == [0.0; 4]));
    let files = export(caf.clone(), Path::new("c.glb"), &opts())?;
    assert!(!files[0].what.contains("TANGENT"), "{}", files[0].what);
    assert!(files[0].what.contains("NORMAL"), "{}", files[0].what);
    let (doc, buffers) = read_glb(&files[0].bytes);
    let p = doc.meshes().next().unwrap().primitives().next().unwrap();
    let r = p.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    assert!(r.read_tangents().is_none());
    assert_eq!(r.read_positions().unwrap().count(), v.vertices.len());
    Ok(())
}

/// A mesh asset written directly: `vertices`, `indices` and a sub-mesh table.
fn mesh_caf(vertices: &[caf::mesh::Vertex], indices: &[u32], table: &[SubMeshEntry]) -> Vec<u8> {
    let (meta, payload) = caf::mesh::encode_mesh_ext(
        vertices,
        indices,
        &caf::mesh::MeshExtras {
            sub_meshes: table,
            colors: None,
            uv1: None,
            skin: None,
        },
    )
    .unwrap();
    caf::AssetWriter::new(caf::AssetType::MESH)
        .metadata(&meta)
        .payload(&payload)
        .to_vec()
}

fn entry(first_index: u32, index_count: u32, material: u32) -> SubMeshEntry {
    SubMeshEntry {
        first_index,
        index_count,
        material,
        node: SubMeshEntry::NONE,
        ..Default::default()
    }
}

/// Material numbers keep their place below `MAX_PLACEHOLDERS`; a larger one (which would
/// size `materials[]`) is numbered in order of first use, named after the stored number;
/// an empty sub-mesh makes no primitive.
#[test]
fn materials_far_apart_and_empty_sub_meshes() -> Res {
    let (cube, idx) = samples::cube_mesh();
    let big = MAX_PLACEHOLDERS + 7;
    let table = [entry(0, 18, 5), entry(18, 0, 1), entry(18, 18, big)];
    let caf = mesh_caf(&cube, &idx, &table);
    let (doc, _) = read_glb(&glb_of(&caf));
    let prims: Vec<_> = doc.meshes().flat_map(|m| m.primitives()).collect();
    assert_eq!(prims.len(), 2);
    let names: Vec<_> = doc
        .materials()
        .map(|m| m.name().unwrap().to_string())
        .collect();
    assert_eq!(names, ["material 5".to_string(), format!("material {big}")]);
    assert_eq!(prims[0].material().index(), Some(0));
    assert_eq!(prims[1].material().index(), Some(1));

    let table = [entry(0, 18, 3), entry(18, 18, 1)];
    let caf = mesh_caf(&cube, &idx, &table);
    let (_, doc, _) = glb_checked(&caf);
    assert_eq!(doc.materials().count(), 4);
    Ok(())
}

/// Wrong output extensions are `BadOutput`; a NaN position, a mesh without triangles and a
/// damaged mesh asset are typed errors, never a panic or a half-written file.
#[test]
fn unhappy_paths() -> Res {
    let (cube, idx) = samples::cube_mesh();
    let good = mesh_caf(&cube, &idx, &[entry(0, 36, SubMeshEntry::NONE)]);
    for name in ["m.obj", "m", "m.glb.txt", "m.bin"] {
        let e = export(good.clone(), Path::new(name), &opts()).unwrap_err();
        assert!(
            matches!(&e, ExportError::BadOutput { path, .. } if path == Path::new(name)),
            "{e}"
        );
        assert!(e.to_string().contains(".glb"), "{e}");
    }
    // Upper-case extensions are fine.
    assert_eq!(export(good.clone(), Path::new("M.GLB"), &opts())?.len(), 1);

    let mut nan = cube.clone();
    nan[7].position[1] = f32::NAN;
    let caf = mesh_caf(&nan, &idx, &[entry(0, 36, SubMeshEntry::NONE)]);
    let e = export(caf, Path::new("m.glb"), &opts()).unwrap_err();
    assert!(
        matches!(e, ExportError::NonFinitePosition { vertex: 7, .. }),
        "{e}"
    );

    let (meta, payload) = caf::mesh::encode_mesh(&cube, &[], 0)?;
    let empty = caf::AssetWriter::new(caf::AssetType::MESH)
        .metadata(&meta.to_bytes())
        .payload(&payload)
        .to_vec();
    let e = export(empty, Path::new("m.glb"), &opts()).unwrap_err();
    assert!(matches!(e, ExportError::EmptyMesh), "{e}");

    // An index past the vertices, with the CRCs made right again: the view refuses it.
    let (meta, mut payload) = caf::mesh::encode_mesh(&cube, &idx, 1)?;
    let at = cube.len() * caf::mesh::Vertex::SIZE + 4 * 5;
    payload[at..at + 4].copy_from_slice(&99u32.to_le_bytes());
    let bad = caf::AssetWriter::new(caf::AssetType::MESH)
        .metadata(&meta.to_bytes())
        .payload(&payload)
        .to_vec();
    let e = export(bad, Path::new("m.glb"), &opts()).unwrap_err();
    assert!(matches!(e, ExportError::Caf(_)), "{e}");
    assert!(e.to_string().contains("99"), "{e}");

    // A flipped payload byte: the CRC check refuses it before any export.
    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n - 20] ^= 0x55;
    let e = export(flipped, Path::new("m.glb"), &opts()).unwrap_err();
    assert!(matches!(e, ExportError::Caf(_)), "{e}");
    Ok(())
}

/// A random OBJ: `groups` objects of random triangles over shared random positions, with
/// random (not unit) normals and random UVs on every corner.
fn random_obj(seed: u64, groups: usize) -> String {
    use std::fmt::Write;
    let mut rng = voxcaf_golden::Rng::new(seed);
    let mut f = |scale: i32| rng.range(-scale, scale) as f32 / 7.0;
    let mut s = String::new();
    let n = 12;
    for _ in 0..n {
        let _ = writeln!(s, "v {} {} {}", f(70), f(70), f(70));
        let _ = writeln!(s, "vt {} {}", f(7), f(7));
        let (x, y, z) = (f(30), f(30), f(30));
        let _ = writeln!(
            s,
            "vn {x} {y} {} ",
            if x == 0.0 && y == 0.0 { 1.0 } else { z }
        );
    }
    let mut rng = voxcaf_golden::Rng::new(seed ^ 0x5EED);
    for g in 0..groups {
        let _ = writeln!(s, "o part{g}");
        for _ in 0..8 {
            let c: Vec<u64> = (0..3).map(|_| rng.below(n) + 1).collect();
            if c[0] == c[1] || c[1] == c[2] || c[0] == c[2] {
                continue;
            }
            let _ = writeln!(s, "f {0}/{0}/{0} {1}/{1}/{1} {2}/{2}/{2}", c[0], c[1], c[2]);
        }
    }
    s
}

/// Random meshes with slanted normals and MikkTSpace tangents: the export converted again has
/// the same vertices and indices bit for bit. Two OBJ groups without materials become one
/// sub-mesh on the way back (the glTF importer makes one sub-mesh per material), so only the
/// single-group files are compared whole.
#[test]
fn random_obj_meshes_round_trip_bit_for_bit() -> Res {
    for seed in 0..24 {
        let groups = 1 + seed as usize % 2;
        let obj = random_obj(seed, groups);
        let caf = caf_of(obj.as_bytes(), "r.obj", &Settings::default())?;
        let v = view(&caf);
        let (glb, _, prims) = glb_checked(&caf);
        assert_eq!(prims, v.sub_meshes().len());
        let again = caf_of(&glb, "r.glb", &Settings::default())?;
        let w = view(&again);
        assert_eq!(w.vertices, v.vertices, "seed {seed}");
        assert_eq!(w.indices, v.indices, "seed {seed}");
        if groups == 1 {
            assert_eq!(again, caf, "seed {seed}");
        } else {
            assert_eq!(v.sub_meshes().len(), 2, "seed {seed}");
            assert_eq!(w.sub_meshes().len(), 1, "seed {seed}");
        }
    }
    Ok(())
}
