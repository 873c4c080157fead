//! Mesh export: a Mesh asset as glTF 2.0, one binary `.glb`, or a `.gltf` (JSON) with its
//! buffer in a `.bin` beside it; the output's extension chooses (any other is refused).
//!
//! What is written (docs/format/caf-assets-ext.md, "Export to glTF"):
//!
//! - One set of vertex attributes shared by every primitive, straight from the stored
//!   vertices: POSITION (with the `min` / `max` glTF requires), NORMAL, TANGENT, TEXCOORD_0,
//!   and for an extended mesh COLOR_0 (linear RGBA, `f32`) and TEXCOORD_1. Values are copied
//!   bit for bit: the importer stores glTF texture coordinates unchanged (V down, no flip), so
//!   import, export and import again give the same UVs. NORMAL is left out when a stored
//!   normal is not a unit vector, TANGENT when a tangent is not a unit vector with w = ±1
//!   (the original profile stores zero tangents) or NORMAL is left out, since glTF forbids
//!   the first two and ignores tangents without normals; a reader then makes its own.
//! - One primitive (u32 indices) per sub-mesh of the table, in table order, or one primitive
//!   for a mesh without a table. Empty sub-meshes are skipped.
//! - Materials: each stored material index `m` keeps its position in `materials[]`, filled
//!   with untextured placeholder materials named `material m` (gaps: `unused i`), so that the
//!   importer records the same index again. Indices of [`MAX_PLACEHOLDERS`] and more are
//!   numbered in order of first use instead (still named after the stored number), so an
//!   untrusted index never sizes an allocation. A sub-mesh without material has none.
//! - Nodes: when no sub-mesh records a node, one glTF mesh and one node; otherwise one glTF
//!   mesh and one node per sub-mesh, named `node n` after the recorded node (`sub-mesh i`
//!   where none is recorded), so a keep-nodes import finds the same split. Positions are
//!   already in world space, so nodes have no transform.
//!
//! [`GltfParts`] is the extension point: skins and animations join the mesh there.

use std::collections::HashMap;
use std::path::Path;

use json::validation::Checked::Valid;
use voxcaf_gltf::{accessor, f32_bytes, json, BinBuilder};

use super::{ExportError, ExportFile, Result};

/// Stored material indices below this keep their position in glTF `materials[]`.
pub const MAX_PLACEHOLDERS: u32 = 1024;

/// The container a glTF export writes, chosen by the output's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// `.glb`: JSON and buffer in one binary file.
    Glb,
    /// `.gltf`: JSON, with the buffer in a `.bin` file beside it.
    Gltf,
}

impl Container {
    /// The container `out`'s extension names (case-insensitive), or `None`.
    pub fn from_path(out: &Path) -> Option<Container> {
        let ext = out.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "glb" => Some(Container::Glb),
            "gltf" => Some(Container::Gltf),
            _ => None,
        }
    }
}

/// Everything one glTF export holds. Every part is optional; more (skins, animations) can
/// join without changing the callers, which build it with [`GltfParts::mesh`] or
/// [`GltfParts::default`] and set fields.
#[non_exhaustive]
#[derive(Clone, Debug, Default)]
pub struct GltfParts<'a> {
    /// The mesh, with its sub-mesh table, colours and second UV set.
    pub mesh: Option<caf::MeshView<'a>>,
}

impl<'a> GltfParts<'a> {
    /// Parts holding one mesh.
    pub fn mesh(mesh: caf::MeshView<'a>) -> GltfParts<'a> {
        GltfParts { mesh: Some(mesh) }
    }
}

/// What a document holds, for the one-line summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Vertices written.
    pub vertices: usize,
    /// Triangles written, over every primitive.
    pub triangles: usize,
    /// Primitives written.
    pub primitives: usize,
    /// Entries of `materials[]` (placeholders included).
    pub materials: usize,
    /// Nodes written.
    pub nodes: usize,
    /// The vertex attributes written, in glTF's names.
    pub attributes: Vec<&'static str>,
}

/// The files of a glTF export of a Mesh asset at `out` (see the module docs).
pub fn export(asset: &caf::Asset<'_>, out: &Path) -> Result<Vec<ExportFile>> {
    let mesh = caf::MeshView::from_asset(asset)?;
    files(&GltfParts::mesh(mesh), out)
}

/// The files of a glTF export of `parts` at `out`: `out` itself for `.glb`; for `.gltf`, the
/// buffer (`out` with extension `.bin`) first, so that the JSON never names a file that is
/// not written yet, then `out`.
pub fn files(parts: &GltfParts<'_>, out: &Path) -> Result<Vec<ExportFile>> {
    let container = Container::from_path(out).ok_or_else(|| ExportError::BadOutput {
        path: out.to_path_buf(),
        message: "a mesh is written as glTF: name the output .glb (one file) or .gltf (with a .bin beside it)",
    })?;
    match container {
        Container::Glb => {
            let (root, bin, summary) = document(parts, None)?;
            let bytes = voxcaf_gltf::glb(&root, bin)?;
            Ok(vec![ExportFile {
                path: out.to_path_buf(),
                bytes,
                what: format!("glTF binary, {}", describe(&summary)),
            }])
        }
        Container::Gltf => {
            let bin_path = out.with_extension("bin");
            let bin_name = bin_path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (root, bin, summary) = document(parts, Some(&uri_escape(&bin_name)))?;
            let text = root
                .to_string_pretty()
                .map_err(voxcaf_gltf::GltfError::from)?;
            Ok(vec![
                ExportFile {
                    path: bin_path,
                    bytes: bin,
                    what: format!("glTF buffer of {}", out.display()),
                },
                ExportFile {
                    path: out.to_path_buf(),
                    bytes: text.into_bytes(),
                    what: format!("glTF JSON, {}", describe(&summary)),
                },
            ])
        }
    }
}

fn describe(s: &Summary) -> String {
    format!(
        "{} vertices, {} triangles, {} primitive(s), {} material(s), {} node(s), attributes {}",
        s.vertices,
        s.triangles,
        s.primitives,
        s.materials,
        s.nodes,
        s.attributes.join("/")
    )
}

/// A file name as a relative URI reference: bytes other than unreserved ones percent-encoded.
fn uri_escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The glTF document of `parts` and its binary buffer. `bin_uri` names the external buffer
/// of a `.gltf` (`None` for a `.glb`, whose buffer is the BIN chunk).
pub fn document(
    parts: &GltfParts<'_>,
    bin_uri: Option<&str>,
) -> Result<(json::Root, Vec<u8>, Summary)> {
    let mut root = json::Root {
        asset: json::Asset {
            generator: Some(format!("voxcaf caf-import {}", env!("CARGO_PKG_VERSION"))),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut bin = BinBuilder::new();
    let mut summary = Summary::default();
    let Some(mesh) = &parts.mesh else {
        return Err(ExportError::EmptyMesh);
    };
    let nodes = mesh_nodes(&mut root, &mut bin, mesh, &mut summary)?;
    let scene = root.push(json::Scene {
        extensions: Default::default(),
        extras: Default::default(),
        name: Some("scene".into()),
        nodes,
    });
    root.scene = Some(scene);
    let bin = bin.finish(&mut root, bin_uri);
    Ok((root, bin, summary))
}

/// Whether every vector is of unit length (glTF's NORMAL and TANGENT rule, with the tolerance
/// of its validator).
fn all_unit(v: impl Iterator<Item = [f32; 3]>) -> bool {
    v.map(|[x, y, z]| x * x + y * y + z * z)
        .all(|l2| (l2.sqrt() - 1.0).abs() <= 5e-4)
}

/// The mesh's accessors, materials, glTF meshes and nodes; the nodes to put in the scene.
fn mesh_nodes(
    root: &mut json::Root,
    bin: &mut BinBuilder,
    mesh: &caf::MeshView<'_>,
    summary: &mut Summary,
) -> Result<Vec<json::Index<json::Node>>> {
    use json::accessor::{ComponentType as C, Type as T};
    use json::buffer::Target;
    use json::mesh::Semantic;
    let vertices = &mesh.vertices[..];
    if let Some((vertex, v)) = vertices
        .iter()
        .enumerate()
        .find(|(_, v)| !v.position.iter().all(|c| c.is_finite()))
    {
        return Err(ExportError::NonFinitePosition {
            vertex,
            position: v.position,
        });
    }
    let mut table = mesh.sub_meshes();
    if table.is_empty() {
        // An extended mesh may store an empty table: its indices are one primitive then.
        table.push(caf::SubMeshEntry {
            first_index: 0,
            index_count: mesh.meta.index_count,
            material: caf::SubMeshEntry::NONE,
            node: caf::SubMeshEntry::NONE,
            ..Default::default()
        });
    }
    // A plain mesh's index count need not be a multiple of 3: the partial triangle is dropped
    // (as every reader does); empty sub-meshes make no primitive.
    for e in &mut table {
        e.index_count -= e.index_count % 3;
    }
    table.retain(|e| e.index_count > 0);
    if table.is_empty() {
        return Err(ExportError::EmptyMesh);
    }

    let n = vertices.len();
    let positions: Vec<[f32; 3]> = vertices.iter().map(|v| v.position).collect();
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in &positions {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let mut attributes = Vec::new();
    let mut attribute = |root: &mut json::Root,
                         bin: &mut BinBuilder,
                         semantic: Semantic,
                         name: &'static str,
                         bytes: Vec<u8>,
                         ty: T,
                         bounds: Option<([f32; 3], [f32; 3])>| {
        let view = bin.view(root, &bytes, Some(Target::ArrayBuffer));
        let (min, max) = match bounds {
            Some((lo, hi)) => (
                Some(json::Value::from(lo.to_vec())),
                Some(json::Value::from(hi.to_vec())),
            ),
            None => (None, None),
        };
        let a = accessor(root, view, n, ty, C::F32, min, max);
        attributes.push((Valid(semantic), a));
        summary.attributes.push(name);
    };
    attribute(
        root,
        bin,
        Semantic::Positions,
        "POSITION",
        f32_bytes(&positions),
        T::Vec3,
        Some((lo, hi)),
    );
    let normals_ok = all_unit(vertices.iter().map(|v| v.normal));
    if normals_ok {
        let normals: Vec<[f32; 3]> = vertices.iter().map(|v| v.normal).collect();
        attribute(
            root,
            bin,
            Semantic::Normals,
            "NORMAL",
            f32_bytes(&normals),
            T::Vec3,
            None,
        );
    }
    // glTF ignores tangents without normals.
    let tangents_ok = normals_ok
        && all_unit(
            vertices
                .iter()
                .map(|v| [v.tangent[0], v.tangent[1], v.tangent[2]]),
        )
        && vertices.iter().all(|v| v.tangent[3].abs() == 1.0);
    if tangents_ok {
        let tangents: Vec<[f32; 4]> = vertices.iter().map(|v| v.tangent).collect();
        attribute(
            root,
            bin,
            Semantic::Tangents,
            "TANGENT",
            f32_bytes(&tangents),
            T::Vec4,
            None,
        );
    }
    let uvs: Vec<[f32; 2]> = vertices.iter().map(|v| v.uv).collect();
    attribute(
        root,
        bin,
        Semantic::TexCoords(0),
        "TEXCOORD_0",
        f32_bytes(&uvs),
        T::Vec2,
        None,
    );
    if let Some(colors) = &mesh.colors {
        attribute(
            root,
            bin,
            Semantic::Colors(0),
            "COLOR_0",
            f32_bytes(colors),
            T::Vec4,
            None,
        );
    }
    if let Some(uv1) = &mesh.uv1 {
        attribute(
            root,
            bin,
            Semantic::TexCoords(1),
            "TEXCOORD_1",
            f32_bytes(uv1),
            T::Vec2,
            None,
        );
    }
    let attributes: std::collections::BTreeMap<_, _> = attributes.into_iter().collect();

    let materials = placeholder_materials(root, &table);
    summary.materials = root.materials.len();
    summary.vertices = n;

    let primitives: Vec<json::mesh::Primitive> = table
        .iter()
        .map(|e| {
            let range = e.first_index as usize..(e.first_index + e.index_count) as usize;
            let idx: Vec<u8> = mesh.indices[range]
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect();
            let view = bin.view(root, &idx, Some(Target::ElementArrayBuffer));
            let ind = accessor(
                root,
                view,
                e.index_count as usize,
                T::Scalar,
                C::U32,
                None,
                None,
            );
            summary.triangles += e.index_count as usize / 3;
            json::mesh::Primitive {
                attributes: attributes.clone(),
                extensions: Default::default(),
                extras: Default::default(),
                indices: Some(ind),
                material: materials.get(&e.material).copied(),
                mode: Valid(json::mesh::Mode::Triangles),
                targets: None,
            }
        })
        .collect();
    summary.primitives = primitives.len();

    let per_node = table.iter().any(|e| e.node != caf::SubMeshEntry::NONE);
    let groups: Vec<(String, Vec<json::mesh::Primitive>)> = if per_node {
        table
            .iter()
            .zip(primitives)
            .enumerate()
            .map(|(i, (e, p))| {
                let name = if e.node == caf::SubMeshEntry::NONE {
                    format!("sub-mesh {i}")
                } else {
                    format!("node {}", e.node)
                };
                (name, vec![p])
            })
            .collect()
    } else {
        vec![("mesh".to_string(), primitives)]
    };
    let nodes: Vec<_> = groups
        .into_iter()
        .map(|(name, primitives)| {
            let m = root.push(json::Mesh {
                extensions: Default::default(),
                extras: Default::default(),
                name: Some(name.clone()),
                primitives,
                weights: None,
            });
            root.push(json::Node {
                mesh: Some(m),
                name: Some(name),
                ..Default::default()
            })
        })
        .collect();
    summary.nodes = nodes.len();
    Ok(nodes)
}

/// The placeholder materials of the sub-meshes (see the module docs): stored index to glTF
/// material.
fn placeholder_materials(
    root: &mut json::Root,
    table: &[caf::SubMeshEntry],
) -> HashMap<u32, json::Index<json::Material>> {
    let used: Vec<u32> = table
        .iter()
        .map(|e| e.material)
        .filter(|&m| m != caf::SubMeshEntry::NONE)
        .collect();
    let placeholder = |root: &mut json::Root, name: String| {
        root.push(json::Material {
            name: Some(name),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor([1.0, 1.0, 1.0, 1.0]),
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(1.0),
                ..Default::default()
            },
            ..Default::default()
        })
    };
    let mut map = HashMap::new();
    match used.iter().max() {
        None => {}
        Some(&max) if max < MAX_PLACEHOLDERS => {
            for i in 0..=max {
                let name = if used.contains(&i) {
                    format!("material {i}")
                } else {
                    format!("unused {i}")
                };
                map.insert(i, placeholder(root, name));
            }
            map.retain(|m, _| used.contains(m));
        }
        Some(_) => {
            for m in used {
                map.entry(m)
                    .or_insert_with(|| placeholder(root, format!("material {m}")));
            }
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_escape_keeps_unreserved_bytes() {
        assert_eq!(uri_escape("hero-1_a.b~c.bin"), "hero-1_a.b~c.bin");
        assert_eq!(uri_escape("my mesh#1.bin"), "my%20mesh%231.bin");
        assert_eq!(uri_escape("é.bin"), "%C3%A9.bin");
    }

    #[test]
    fn container_from_extension() {
        assert_eq!(
            Container::from_path(Path::new("a/b.GLB")),
            Some(Container::Glb)
        );
        assert_eq!(
            Container::from_path(Path::new("b.gltf")),
            Some(Container::Gltf)
        );
        assert_eq!(Container::from_path(Path::new("b.obj")), None);
        assert_eq!(Container::from_path(Path::new("glb")), None);
    }

    #[test]
    fn unit_test_has_the_validator_tolerance() {
        assert!(all_unit([[1.0, 0.0, 0.0], [0.0, 0.6, 0.8]].into_iter()));
        assert!(!all_unit([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]].into_iter()));
        assert!(!all_unit([[1.01, 0.0, 0.0]].into_iter()));
        assert!(!all_unit([[f32::NAN, 0.0, 0.0]].into_iter()));
    }
}
