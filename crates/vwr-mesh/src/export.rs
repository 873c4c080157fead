//! Mesh export: glTF 2.0 (`.glb` / `.gltf` + `.bin`), Wavefront OBJ, and `.caf` Mesh assets.

use std::path::Path;

use json::validation::Checked::Valid;
use voxcaf_gltf::{accessor, f32_bytes, json, BinBuilder};

use crate::buffers::{MeshBuffers, MeshPart};
use crate::error::MeshError;
use crate::mesher::WorldMesh;
use vwr_blocks::Registry;

/// Output formats, chosen by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// Binary glTF (`.glb`).
    Glb,
    /// glTF JSON (`.gltf`) with its buffer in a `.bin` beside it.
    Gltf,
    /// Wavefront OBJ with vertex colours (`v x y z r g b`).
    Obj,
    /// A `.caf` Mesh asset (48-byte vertices, u32 indices).
    Caf,
}

impl ExportFormat {
    /// The format a path's extension names (case-insensitive).
    pub fn from_path(path: &Path) -> Option<ExportFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "glb" => ExportFormat::Glb,
            "gltf" => ExportFormat::Gltf,
            "obj" => ExportFormat::Obj,
            "caf" => ExportFormat::Caf,
            _ => return None,
        })
    }
}

/// How to export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// One node (and mesh) per chunk, positioned at the chunk origin, instead of one merged
    /// mesh (glTF and OBJ; `.caf` is always merged).
    pub per_chunk: bool,
    /// Multiply vertex colours by the ambient-occlusion factor.
    pub bake_ao: bool,
}

/// Brightness factor for AO 0..=3.
pub const AO_FACTORS: [f32; 4] = [0.45, 0.64, 0.82, 1.0];

/// What an export wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportStats {
    /// Vertices written.
    pub vertices: usize,
    /// Triangles written.
    pub triangles: usize,
    /// Files written (the main file first).
    pub files: Vec<String>,
}

/// Units to export: (name, translation, buffers).
fn units(
    mesh: &WorldMesh,
    registry: &Registry,
    per_chunk: bool,
) -> Vec<(String, [f32; 3], MeshBuffers)> {
    if per_chunk {
        mesh.chunks
            .iter()
            .map(|c| {
                let mut b = MeshBuffers::from_chunk(c, registry);
                let o = c.origin();
                b.opaque.translate(o);
                b.transparent.translate(o);
                (
                    match c.level {
                        0 => format!("chunk_{}_{}_{}", c.chunk[0], c.chunk[1], c.chunk[2]),
                        k => format!("lod{k}_chunk_{}_{}_{}", c.chunk[0], c.chunk[1], c.chunk[2]),
                    },
                    o,
                    b,
                )
            })
            .collect()
    } else {
        vec![(
            "world".to_string(),
            [0.0; 3],
            MeshBuffers::from_world(mesh, registry),
        )]
    }
}

fn primitive(
    root: &mut json::Root,
    bin: &mut BinBuilder,
    part: &MeshPart,
    material: json::Index<json::Material>,
    bake_ao: bool,
) -> Result<json::mesh::Primitive, MeshError> {
    use json::accessor::{ComponentType as C, Type as T};
    use json::buffer::Target;
    if part.vertex_count() > u32::MAX as usize {
        return Err(MeshError::too_large(
            "glTF",
            format!("{} vertices", part.vertex_count()),
        ));
    }
    let n = part.vertex_count();
    let (lo, hi) = part.bounds().unwrap_or(([0.0; 3], [0.0; 3]));
    let v = bin.view(root, &f32_bytes(&part.positions), Some(Target::ArrayBuffer));
    let pos = accessor(
        root,
        v,
        n,
        T::Vec3,
        C::F32,
        Some(json::Value::from(lo.to_vec())),
        Some(json::Value::from(hi.to_vec())),
    );
    let v = bin.view(root, &f32_bytes(&part.normals), Some(Target::ArrayBuffer));
    let nor = accessor(root, v, n, T::Vec3, C::F32, None, None);
    let v = bin.view(root, &f32_bytes(&part.uvs), Some(Target::ArrayBuffer));
    let uv = accessor(root, v, n, T::Vec2, C::F32, None, None);
    let v = bin.view(
        root,
        &f32_bytes(&part.linear_colors(bake_ao)),
        Some(Target::ArrayBuffer),
    );
    let col = accessor(root, v, n, T::Vec4, C::F32, None, None);
    let idx_bytes: Vec<u8> = part.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    let v = bin.view(root, &idx_bytes, Some(Target::ElementArrayBuffer));
    let ind = accessor(root, v, part.indices.len(), T::Scalar, C::U32, None, None);
    let mut attributes = std::collections::BTreeMap::new();
    attributes.insert(Valid(json::mesh::Semantic::Positions), pos);
    attributes.insert(Valid(json::mesh::Semantic::Normals), nor);
    attributes.insert(Valid(json::mesh::Semantic::TexCoords(0)), uv);
    attributes.insert(Valid(json::mesh::Semantic::Colors(0)), col);
    Ok(json::mesh::Primitive {
        attributes,
        extensions: Default::default(),
        extras: Default::default(),
        indices: Some(ind),
        material: Some(material),
        mode: Valid(json::mesh::Mode::Triangles),
        targets: None,
    })
}

/// Builds a glTF document and its binary buffer. `bin_uri` names the external buffer file
/// for `.gltf` output (`None` for `.glb`, where the buffer is the GLB's BIN chunk).
pub fn gltf_document(
    mesh: &WorldMesh,
    registry: &Registry,
    opts: ExportOptions,
    bin_uri: Option<&str>,
) -> Result<(json::Root, Vec<u8>, ExportStats), MeshError> {
    let mut root = json::Root {
        asset: json::Asset {
            generator: Some(format!("voxcaf vwr-mesh {}", env!("CARGO_PKG_VERSION"))),
            ..Default::default()
        },
        ..Default::default()
    };
    let mat_opaque = voxcaf_gltf::plain_material(&mut root, "voxel opaque", false);
    let mat_blend = voxcaf_gltf::plain_material(&mut root, "voxel transparent", true);
    let mut bin = BinBuilder::new();
    let mut stats = ExportStats::default();
    let mut nodes = Vec::new();
    for (name, translation, b) in units(mesh, registry, opts.per_chunk) {
        let mut prims = Vec::new();
        for (part, mat) in [(&b.opaque, mat_opaque), (&b.transparent, mat_blend)] {
            if part.is_empty() {
                continue;
            }
            stats.vertices += part.vertex_count();
            stats.triangles += part.triangle_count();
            prims.push(primitive(&mut root, &mut bin, part, mat, opts.bake_ao)?);
        }
        if prims.is_empty() {
            continue;
        }
        let m = root.push(json::Mesh {
            extensions: Default::default(),
            extras: Default::default(),
            name: Some(name.clone()),
            primitives: prims,
            weights: None,
        });
        nodes.push(root.push(json::Node {
            mesh: Some(m),
            name: Some(name),
            translation: (translation != [0.0; 3]).then_some(translation),
            ..Default::default()
        }));
    }
    let bin = bin.finish(&mut root, bin_uri);
    let world = root.push(json::Node {
        children: (!nodes.is_empty()).then_some(nodes),
        name: Some("vwr world".into()),
        ..Default::default()
    });
    let scene = root.push(json::Scene {
        extensions: Default::default(),
        extras: Default::default(),
        name: Some("world".into()),
        nodes: vec![world],
    });
    root.scene = Some(scene);
    Ok((root, bin, stats))
}

/// A binary glTF (`.glb`) of the mesh.
pub fn glb_bytes(
    mesh: &WorldMesh,
    registry: &Registry,
    opts: ExportOptions,
) -> Result<(Vec<u8>, ExportStats), MeshError> {
    let (root, bin, stats) = gltf_document(mesh, registry, opts, None)?;
    let bytes = voxcaf_gltf::glb(&root, bin).map_err(|e| match e {
        voxcaf_gltf::GltfError::TooLarge { bytes } => {
            MeshError::too_large("glb", format!("{bytes} bytes"))
        }
        e => MeshError::export("glb", e),
    })?;
    Ok((bytes, stats))
}

/// A Wavefront OBJ of the mesh (positions, UVs with V up, normals, and sRGB vertex colours
/// after each position, which Blender and MeshLab read).
pub fn obj_string(
    mesh: &WorldMesh,
    registry: &Registry,
    opts: ExportOptions,
) -> (String, ExportStats) {
    use std::fmt::Write;
    let mut s = String::new();
    let mut stats = ExportStats::default();
    let _ = writeln!(s, "# voxcaf vwr-mesh {}", env!("CARGO_PKG_VERSION"));
    let mut base = 1usize;
    for (name, translation, b) in units(mesh, registry, opts.per_chunk) {
        for (pass, part) in [("opaque", &b.opaque), ("transparent", &b.transparent)] {
            if part.is_empty() {
                continue;
            }
            let _ = writeln!(s, "o {name}_{pass}");
            for (k, p) in part.positions.iter().enumerate() {
                let c = part.colors[k];
                let f = if opts.bake_ao {
                    AO_FACTORS[part.ao[k].min(3) as usize]
                } else {
                    1.0
                };
                let _ = writeln!(
                    s,
                    "v {} {} {} {:.4} {:.4} {:.4}",
                    p[0] + translation[0],
                    p[1] + translation[1],
                    p[2] + translation[2],
                    c[0] as f32 / 255.0 * f,
                    c[1] as f32 / 255.0 * f,
                    c[2] as f32 / 255.0 * f
                );
            }
            for t in &part.uvs {
                let _ = writeln!(s, "vt {} {}", t[0], -t[1]);
            }
            for n in &part.normals {
                let _ = writeln!(s, "vn {} {} {}", n[0], n[1], n[2]);
            }
            for tri in part.indices.chunks_exact(3) {
                let [a, b2, c] = [
                    tri[0] as usize + base,
                    tri[1] as usize + base,
                    tri[2] as usize + base,
                ];
                let _ = writeln!(s, "f {a}/{a}/{a} {b2}/{b2}/{b2} {c}/{c}/{c}");
            }
            base += part.vertex_count();
            stats.vertices += part.vertex_count();
            stats.triangles += part.triangle_count();
        }
    }
    (s, stats)
}

/// Per-quad tangents (+U texture direction, handedness in w) of a part whose vertices come
/// in groups of four coplanar corners, as every part built by [`MeshBuffers`] does.
fn tangents(part: &MeshPart) -> Vec<[f32; 4]> {
    let mut out = vec![[1.0, 0.0, 0.0, 1.0]; part.vertex_count()];
    for q in 0..part.vertex_count() / 4 {
        let i = 4 * q;
        let p = &part.positions;
        let t = &part.uvs;
        let sub = |a: [f32; 3], b: [f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        let e1 = sub(p[i + 1], p[i]);
        let e2 = sub(p[i + 3], p[i]);
        let (du1, dv1) = (t[i + 1][0] - t[i][0], t[i + 1][1] - t[i][1]);
        let (du2, dv2) = (t[i + 3][0] - t[i][0], t[i + 3][1] - t[i][1]);
        let det = du1 * dv2 - du2 * dv1;
        if det.abs() < 1e-12 {
            continue;
        }
        let r = 1.0 / det;
        let tan = [
            (e1[0] * dv2 - e2[0] * dv1) * r,
            (e1[1] * dv2 - e2[1] * dv1) * r,
            (e1[2] * dv2 - e2[2] * dv1) * r,
        ];
        let bit = [
            (e2[0] * du1 - e1[0] * du2) * r,
            (e2[1] * du1 - e1[1] * du2) * r,
            (e2[2] * du1 - e1[2] * du2) * r,
        ];
        let len = (tan[0] * tan[0] + tan[1] * tan[1] + tan[2] * tan[2])
            .sqrt()
            .max(1e-12);
        let tn = [tan[0] / len, tan[1] / len, tan[2] / len];
        let n = part.normals[i];
        let c = [
            n[1] * tn[2] - n[2] * tn[1],
            n[2] * tn[0] - n[0] * tn[2],
            n[0] * tn[1] - n[1] * tn[0],
        ];
        let w = if c[0] * bit[0] + c[1] * bit[1] + c[2] * bit[2] < 0.0 {
            -1.0
        } else {
            1.0
        };
        for o in &mut out[i..i + 4] {
            *o = [tn[0], tn[1], tn[2], w];
        }
    }
    out
}

/// The metadata and payload of a `.caf` Mesh asset: both passes merged (opaque first), one
/// sub-mesh per non-empty pass (material 0 opaque, 1 transparent) in the extended header's
/// sub-mesh table, and the vertex colours (linear, AO baked in when `bake_ao`) as COLOR_0
/// (docs/format/caf-assets-ext.md). Returns the metadata bytes and the payload.
pub fn caf_mesh(
    mesh: &WorldMesh,
    registry: &Registry,
    bake_ao: bool,
) -> Result<(Vec<u8>, Vec<u8>, ExportStats), MeshError> {
    let b = MeshBuffers::from_world(mesh, registry);
    let mut all = b.opaque.clone();
    all.append(&b.transparent);
    let tan = tangents(&all);
    let vertices: Vec<caf::mesh::Vertex> = all
        .positions
        .iter()
        .zip(&all.normals)
        .zip(&all.uvs)
        .zip(&tan)
        .map(
            |(((&position, &normal), &uv), &tangent)| caf::mesh::Vertex {
                position,
                normal,
                uv,
                tangent,
            },
        )
        .collect();
    let opaque_indices = b.opaque.indices.len() as u32;
    let table: Vec<caf::mesh::SubMeshEntry> = [
        (0, opaque_indices, 0),
        (opaque_indices, all.indices.len() as u32 - opaque_indices, 1),
    ]
    .into_iter()
    .filter(|&(_, count, _)| count > 0)
    .map(
        |(first_index, index_count, material)| caf::mesh::SubMeshEntry {
            first_index,
            index_count,
            material,
            node: caf::mesh::SubMeshEntry::NONE,
            ..Default::default()
        },
    )
    .collect();
    let colors = all.linear_colors(bake_ao);
    let extras = caf::mesh::MeshExtras {
        sub_meshes: &table,
        colors: Some(&colors),
        uv1: None,
        skin: None,
    };
    let (meta, payload) =
        caf::mesh::encode_mesh_ext(&vertices, &all.indices, &extras).map_err(|e| match e {
            caf::mesh::MeshEncodeError::TooManyVertices { count } => {
                MeshError::too_large("caf", format!("{count} vertices"))
            }
            caf::mesh::MeshEncodeError::TooManyIndices { count } => {
                MeshError::too_large("caf", format!("{count} indices"))
            }
            other => MeshError::export("caf", other),
        })?;
    let stats = ExportStats {
        vertices: all.vertex_count(),
        triangles: all.triangle_count(),
        files: Vec::new(),
    };
    Ok((meta, payload, stats))
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), MeshError> {
    voxcaf_fs::write_atomic(path, bytes).map_err(|source| MeshError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Writes the mesh to `path` in the format its extension names.
pub fn write_mesh(
    path: &Path,
    mesh: &WorldMesh,
    registry: &Registry,
    opts: ExportOptions,
) -> Result<ExportStats, MeshError> {
    let format = ExportFormat::from_path(path).ok_or_else(|| {
        MeshError::Invalid(format!(
            "{}: unknown output type (use .glb, .gltf, .obj or .caf)",
            path.display()
        ))
    })?;
    let mut stats = match format {
        ExportFormat::Glb => {
            let (bytes, stats) = glb_bytes(mesh, registry, opts)?;
            write_atomic(path, &bytes)?;
            stats
        }
        ExportFormat::Gltf => {
            let bin_path = path.with_extension("bin");
            let bin_name = bin_path
                .file_name()
                .and_then(|n| n.to_str())
                .ok_or_else(|| MeshError::Invalid(format!("{}: bad file name", path.display())))?
                .to_string();
            let (root, bin, mut stats) = gltf_document(mesh, registry, opts, Some(&bin_name))?;
            let text = root
                .to_string_pretty()
                .map_err(|e| MeshError::export("gltf", e))?;
            write_atomic(path, text.as_bytes())?;
            if !bin.is_empty() {
                write_atomic(&bin_path, &bin)?;
                stats.files.push(bin_path.display().to_string());
            }
            stats
        }
        ExportFormat::Obj => {
            let (text, stats) = obj_string(mesh, registry, opts);
            write_atomic(path, text.as_bytes())?;
            stats
        }
        ExportFormat::Caf => {
            let (meta, payload, stats) = caf_mesh(mesh, registry, opts.bake_ao)?;
            caf::AssetWriter::new(caf::AssetType::MESH)
                .metadata(&meta)
                .payload(&payload)
                .write_file(path)
                .map_err(|e| MeshError::export("caf", e))?;
            stats
        }
    };
    stats.files.insert(0, path.display().to_string());
    Ok(stats)
}
