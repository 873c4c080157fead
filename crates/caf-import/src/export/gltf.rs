//! Mesh and animation export: a Mesh asset (with its skin), an Animation asset, or both as
//! glTF 2.0, one binary `.glb`, or a `.gltf` (JSON) with its buffer in a `.bin` beside it; the
//! output's extension chooses (any other is refused).
//!
//! What is written (docs/format/caf-assets-ext.md section 4):
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
//! - Skin (a skinned extended mesh): JOINTS_0 (u16) and WEIGHTS_0 (f32) beside the other
//!   attributes, one node per joint with its rest TRS and name, children after the stored
//!   parents, a `skin` with the joints in stored order and their inverse bind matrices, used
//!   by every mesh node. A root matrix other than the identity becomes a `skeleton root` node
//!   (with that `matrix`) above the root joints.
//! - Animation (an Animation asset, alone or beside a mesh with `--anim`): one glTF animation
//!   per clip, one sampler per channel holding the stored frames (times `k x h`, the values
//!   dequantised), LINEAR or STEP as stored. A channel targets the joint node of its joint
//!   (else of the joint whose glTF node it names); without one, an empty node `node n` made
//!   for it.
//!
//! [`GltfParts`] holds what one document gets: a mesh, an animation, or both.

use std::collections::HashMap;
use std::path::Path;

use json::validation::Checked::Valid;
use voxcaf_gltf::{accessor, default_scene, f32_bytes, json, triangles, BinBuilder};

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
    /// The mesh, with its sub-mesh table, colours, second UV set and skin.
    pub mesh: Option<caf::mesh::MeshView<'a>>,
    /// Animation clips, targeting the mesh's joints where they name them.
    pub animation: Option<caf::animation::AnimationView<'a>>,
}

impl<'a> GltfParts<'a> {
    /// Parts holding one mesh.
    pub fn mesh(mesh: caf::mesh::MeshView<'a>) -> GltfParts<'a> {
        GltfParts {
            mesh: Some(mesh),
            animation: None,
        }
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
    /// Joints of the skin (0 without one).
    pub joints: usize,
    /// Animations (clips) written.
    pub animations: usize,
    /// Animation channels written, over every clip.
    pub channels: usize,
}

/// The files of a glTF export of a Mesh asset at `out`, with the clips of an Animation asset
/// when `animation` is given (see the module docs).
pub fn export(
    asset: &caf::Asset<'_>,
    animation: Option<&caf::Asset<'_>>,
    out: &Path,
) -> Result<Vec<ExportFile>> {
    let mesh = caf::mesh::MeshView::from_asset(asset)?;
    let animation = animation
        .map(caf::animation::AnimationView::from_asset)
        .transpose()
        .map_err(ExportError::AnimationInput)?;
    files(
        &GltfParts {
            mesh: Some(mesh),
            animation,
        },
        out,
    )
}

/// The files of a glTF export of an Animation asset alone at `out`: its clips, targeting one
/// empty node per animated glTF node.
pub fn export_animation(asset: &caf::Asset<'_>, out: &Path) -> Result<Vec<ExportFile>> {
    let animation = caf::animation::AnimationView::from_asset(asset)?;
    files(
        &GltfParts {
            mesh: None,
            animation: Some(animation),
        },
        out,
    )
}

/// The files of a glTF export of `parts` at `out`: `out` itself for `.glb`; for `.gltf`, the
/// buffer (`out` with extension `.bin`) first, so that the JSON never names a file that is
/// not written yet, then `out`.
pub fn files(parts: &GltfParts<'_>, out: &Path) -> Result<Vec<ExportFile>> {
    let container = Container::from_path(out).ok_or_else(|| ExportError::BadOutput {
        path: out.to_path_buf(),
        message: "meshes and animations are written as glTF: name the output .glb (one file) or .gltf (with a .bin beside it)",
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
    let mut parts = Vec::new();
    if s.primitives > 0 {
        parts.push(format!(
            "{} vertices, {} triangles, {} primitive(s), {} material(s), attributes {}",
            s.vertices,
            s.triangles,
            s.primitives,
            s.materials,
            s.attributes.join("/")
        ));
    }
    if s.joints > 0 {
        parts.push(format!("skin of {} joint(s)", s.joints));
    }
    if s.animations > 0 {
        parts.push(format!(
            "{} animation(s) of {} channel(s)",
            s.animations, s.channels
        ));
    }
    parts.push(format!("{} node(s)", s.nodes));
    parts.join(", ")
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
    let mut nodes = Vec::new();
    let mut skeleton = None;
    if let Some(mesh) = &parts.mesh {
        let mesh_nodes = mesh_nodes(&mut root, &mut bin, mesh, &mut summary)?;
        if let Some(skin) = mesh.skin() {
            let (sk, roots) = skin_nodes(&mut root, &mut bin, skin);
            for n in &mesh_nodes {
                root.nodes[n.value()].skin = Some(sk.skin);
            }
            summary.joints = skin.joints.len();
            nodes.extend(mesh_nodes);
            nodes.extend(roots);
            skeleton = Some((sk, skin));
        } else {
            nodes.extend(mesh_nodes);
        }
    }
    if let Some(anim) = &parts.animation {
        let targets = animations(&mut root, &mut bin, anim, skeleton.as_ref(), &mut summary);
        nodes.extend(targets);
    }
    if parts.mesh.is_none() && parts.animation.is_none() {
        return Err(ExportError::EmptyMesh);
    }
    summary.nodes = root.nodes.len();
    default_scene(&mut root, Some("scene".into()), nodes);
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
    mesh: &caf::mesh::MeshView<'_>,
    summary: &mut Summary,
) -> Result<Vec<json::Index<json::Node>>> {
    use json::accessor::{ComponentType as C, Type as T};
    use json::buffer::Target;
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
    let table = sub_mesh_table(mesh)?;
    let n = vertices.len();
    let attributes = vertex_attributes(root, bin, mesh, summary);

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
            triangles(
                attributes.clone(),
                Some(ind),
                materials.get(&e.material).copied(),
            )
        })
        .collect();
    summary.primitives = primitives.len();

    let per_node = table
        .iter()
        .any(|e| e.node != caf::mesh::SubMeshEntry::NONE);
    let groups: Vec<(String, Vec<json::mesh::Primitive>)> = if per_node {
        table
            .iter()
            .zip(primitives)
            .enumerate()
            .map(|(i, (e, p))| {
                let name = if e.node == caf::mesh::SubMeshEntry::NONE {
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
    Ok(nodes)
}

/// The primitives to write, one per sub-mesh: an extended mesh's stored table or one primitive
/// of all the indices, each cut to whole triangles, the empty ones left out.
fn sub_mesh_table(mesh: &caf::mesh::MeshView<'_>) -> Result<Vec<caf::mesh::SubMeshEntry>> {
    let mut table = mesh.sub_meshes();
    if table.is_empty() {
        // An extended mesh may store an empty table: its indices are one primitive then.
        table.push(caf::mesh::SubMeshEntry {
            first_index: 0,
            index_count: mesh.meta.index_count,
            material: caf::mesh::SubMeshEntry::NONE,
            node: caf::mesh::SubMeshEntry::NONE,
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

    Ok(table)
}

/// The accessors of the vertex streams (positions with their bounds, the normals and tangents
/// when every one is of unit length, UVs, colours, the second UVs, joints and weights), by
/// attribute.
fn vertex_attributes(
    root: &mut json::Root,
    bin: &mut BinBuilder,
    mesh: &caf::mesh::MeshView<'_>,
    summary: &mut Summary,
) -> std::collections::BTreeMap<
    json::validation::Checked<json::mesh::Semantic>,
    json::Index<json::Accessor>,
> {
    use json::accessor::{ComponentType as C, Type as T};
    use json::buffer::Target;
    use json::mesh::Semantic;
    let vertices = &mesh.vertices[..];
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
    let normals_ok = all_unit(vertices.iter().map(|v| v.normal));
    // glTF ignores tangents without normals.
    let tangents_ok = normals_ok
        && all_unit(
            vertices
                .iter()
                .map(|v| [v.tangent[0], v.tangent[1], v.tangent[2]]),
        )
        && vertices.iter().all(|v| v.tangent[3].abs() == 1.0);
    let normals: Vec<[f32; 3]> = vertices.iter().map(|v| v.normal).collect();
    let tangents: Vec<[f32; 4]> = vertices.iter().map(|v| v.tangent).collect();
    let uvs: Vec<[f32; 2]> = vertices.iter().map(|v| v.uv).collect();
    let position = Some(f32_bytes(&positions));
    let normal = normals_ok.then(|| f32_bytes(&normals));
    let tangent = tangents_ok.then(|| f32_bytes(&tangents));
    let uv = Some(f32_bytes(&uvs));
    let color = mesh.colors.as_deref().map(f32_bytes);
    let uv1 = mesh.uv1.as_deref().map(f32_bytes);
    // The float attributes, in this order, when written: semantic, name, type, data.
    let floats = [
        (Semantic::Positions, "POSITION", T::Vec3, position),
        (Semantic::Normals, "NORMAL", T::Vec3, normal),
        (Semantic::Tangents, "TANGENT", T::Vec4, tangent),
        (Semantic::TexCoords(0), "TEXCOORD_0", T::Vec2, uv),
        (Semantic::Colors(0), "COLOR_0", T::Vec4, color),
        (Semantic::TexCoords(1), "TEXCOORD_1", T::Vec2, uv1),
    ];
    let mut attributes = Vec::new();
    for (semantic, name, ty, bytes) in floats {
        let Some(bytes) = bytes else { continue };
        let view = bin.view(root, &bytes, Some(Target::ArrayBuffer));
        // POSITION carries its bounds.
        let (min, max) = match semantic {
            Semantic::Positions => (
                Some(json::Value::from(lo.to_vec())),
                Some(json::Value::from(hi.to_vec())),
            ),
            _ => (None, None),
        };
        let a = accessor(root, view, n, ty, C::F32, min, max);
        attributes.push((Valid(semantic), a));
        summary.attributes.push(name);
    }
    if let (Some(joints), Some(weights)) = (&mesh.joints, &mesh.weights) {
        let bytes: Vec<u8> = joints
            .iter()
            .flatten()
            .flat_map(|j| j.to_le_bytes())
            .collect();
        let view = bin.view(root, &bytes, Some(Target::ArrayBuffer));
        let a = accessor(root, view, n, T::Vec4, C::U16, None, None);
        attributes.push((Valid(Semantic::Joints(0)), a));
        summary.attributes.push("JOINTS_0");
        let view = bin.view(root, &f32_bytes(weights), Some(Target::ArrayBuffer));
        let a = accessor(root, view, n, T::Vec4, C::F32, None, None);
        attributes.push((Valid(Semantic::Weights(0)), a));
        summary.attributes.push("WEIGHTS_0");
    }
    attributes.into_iter().collect()
}

/// A skin's glTF objects: the skin and its joint nodes in stored joint order.
struct Skeleton {
    skin: json::Index<json::Skin>,
    joints: Vec<json::Index<json::Node>>,
}

/// The joint nodes (rest TRS, names, children), the inverse bind matrices and the `skin` of
/// `skin`; with the nodes to put in the scene (the root joints, or the `skeleton root` node
/// carrying a root matrix other than the identity).
fn skin_nodes(
    root: &mut json::Root,
    bin: &mut BinBuilder,
    skin: &caf::mesh::Skin,
) -> (Skeleton, Vec<json::Index<json::Node>>) {
    use json::accessor::{ComponentType as C, Type as T};
    let base = root.nodes.len();
    let index = |i: usize| json::Index::<json::Node>::new((base + i) as u32);
    // Parents are checked in range and acyclic by the view.
    let mut children = vec![Vec::new(); skin.joints.len()];
    let mut roots = Vec::new();
    for (i, j) in skin.joints.iter().enumerate() {
        if j.parent == caf::mesh::JointEntry::ROOT {
            roots.push(index(i));
        } else {
            children[j.parent as usize].push(index(i));
        }
    }
    let joints: Vec<_> = skin
        .joints
        .iter()
        .zip(children)
        .enumerate()
        .map(|(i, (j, children))| {
            root.push(json::Node {
                name: Some(if j.name.is_empty() {
                    format!("joint {i}")
                } else {
                    j.name.clone()
                }),
                translation: Some(j.translation),
                rotation: Some(json::scene::UnitQuaternion(j.rotation)),
                scale: Some(j.scale),
                children: (!children.is_empty()).then_some(children),
                ..Default::default()
            })
        })
        .collect();
    let (scene, skeleton) = if skin.root_matrix == caf::mesh::IDENTITY {
        let skeleton = (roots.len() == 1).then(|| roots[0]);
        (roots, skeleton)
    } else {
        let top = root.push(json::Node {
            name: Some("skeleton root".into()),
            matrix: Some(skin.root_matrix),
            children: Some(roots),
            ..Default::default()
        });
        (vec![top], Some(top))
    };
    let ibm: Vec<[f32; 16]> = skin.joints.iter().map(|j| j.inverse_bind).collect();
    let view = bin.view(root, &f32_bytes(&ibm), None);
    let ibm = accessor(root, view, ibm.len(), T::Mat4, C::F32, None, None);
    let skin = root.push(json::Skin {
        extensions: Default::default(),
        extras: Default::default(),
        inverse_bind_matrices: Some(ibm),
        joints: joints.clone(),
        name: Some("skin".into()),
        skeleton,
    });
    (Skeleton { skin, joints }, scene)
}

/// The glTF animations of `anim` (see the module docs); returns the empty target nodes made
/// for channels that no joint of `skeleton` takes, for the scene.
fn animations(
    root: &mut json::Root,
    bin: &mut BinBuilder,
    anim: &caf::animation::AnimationView<'_>,
    skeleton: Option<&(Skeleton, &caf::mesh::Skin)>,
    summary: &mut Summary,
) -> Vec<json::Index<json::Node>> {
    use json::accessor::{ComponentType as C, Type as T};
    use json::animation::{Interpolation, Property};
    let mut made: std::collections::BTreeMap<u32, json::Index<json::Node>> = Default::default();
    let mut target = |root: &mut json::Root, ch: &caf::animation::ChannelEntry| {
        if let Some((sk, skin)) = skeleton {
            let by_joint = (ch.joint != caf::mesh::SubMeshEntry::NONE)
                .then(|| sk.joints.get(ch.joint as usize))
                .flatten();
            let by_node = || {
                skin.joints
                    .iter()
                    .position(|j| j.node == ch.node && j.node != caf::mesh::SubMeshEntry::NONE)
                    .map(|i| &sk.joints[i])
            };
            if let Some(&n) = by_joint.or_else(by_node) {
                return n;
            }
        }
        *made.entry(ch.node).or_insert_with(|| {
            root.push(json::Node {
                name: Some(format!("node {}", ch.node)),
                ..Default::default()
            })
        })
    };
    let times = |root: &mut json::Root, bin: &mut BinBuilder, t: &[f32]| {
        let bytes: Vec<u8> = t.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = bin.view(root, &bytes, None);
        let (lo, hi) = (t[0], t[t.len() - 1]);
        accessor(
            root,
            view,
            t.len(),
            T::Scalar,
            C::F32,
            Some(json::Value::from(vec![lo])),
            Some(json::Value::from(vec![hi])),
        )
    };
    for c in 0..anim.clip_count() {
        let n = anim.clip(c).map_or(1, |e| e.frame_count as usize);
        let all: Vec<f32> = (0..n).filter_map(|k| anim.frame_time(c, k)).collect();
        let (mut full, mut one) = (None, None);
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        for (i, ch) in anim.channels(c).iter().enumerate() {
            let frames = ch.frame_count as usize;
            let input = if frames == 1 {
                *one.get_or_insert_with(|| times(root, bin, &[0.0]))
            } else {
                *full.get_or_insert_with(|| times(root, bin, &all))
            };
            let mut values = Vec::with_capacity(frames * 4);
            for k in 0..frames {
                match anim.frame_value(c, i, k) {
                    Some(caf::animation::ChannelValue::Rotation(q)) => values.extend(q),
                    Some(
                        caf::animation::ChannelValue::Translation(v)
                        | caf::animation::ChannelValue::Scale(v),
                    ) => values.extend(v),
                    None => {}
                }
            }
            let (ty, path) = match ch.path {
                caf::animation::ChannelEntry::ROTATION => (T::Vec4, Property::Rotation),
                caf::animation::ChannelEntry::SCALE => (T::Vec3, Property::Scale),
                _ => (T::Vec3, Property::Translation),
            };
            let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
            let view = bin.view(root, &bytes, None);
            let output = accessor(root, view, frames, ty, C::F32, None, None);
            samplers.push(json::animation::Sampler {
                extensions: Default::default(),
                extras: Default::default(),
                input,
                interpolation: Valid(if ch.interpolation == caf::animation::ChannelEntry::STEP {
                    Interpolation::Step
                } else {
                    Interpolation::Linear
                }),
                output,
            });
            let node = target(root, ch);
            channels.push(json::animation::Channel {
                sampler: json::Index::new(i as u32),
                target: json::animation::Target {
                    extensions: Default::default(),
                    extras: Default::default(),
                    node,
                    path: Valid(path),
                },
                extensions: Default::default(),
                extras: Default::default(),
            });
        }
        summary.channels += channels.len();
        let name = anim.clip_name(c).filter(|s| !s.is_empty());
        root.push(json::Animation {
            extensions: Default::default(),
            extras: Default::default(),
            channels,
            name: Some(name.map_or_else(|| format!("clip {c}"), str::to_string)),
            samplers,
        });
    }
    summary.animations = anim.clip_count();
    made.into_values().collect()
}

/// The placeholder materials of the sub-meshes (see the module docs): stored index to glTF
/// material.
fn placeholder_materials(
    root: &mut json::Root,
    table: &[caf::mesh::SubMeshEntry],
) -> HashMap<u32, json::Index<json::Material>> {
    let used: Vec<u32> = table
        .iter()
        .map(|e| e.material)
        .filter(|&m| m != caf::mesh::SubMeshEntry::NONE)
        .collect();
    let placeholder =
        |root: &mut json::Root, name: String| voxcaf_gltf::plain_material(root, &name, false);
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
        for (path, container) in [
            ("a/b.GLB", Some(Container::Glb)),
            ("b.gltf", Some(Container::Gltf)),
            ("b.obj", None),
            ("glb", None),
        ] {
            assert_eq!(Container::from_path(Path::new(path)), container, "{path}");
        }
    }

    #[test]
    fn unit_test_has_the_validator_tolerance() {
        assert!(all_unit([[1.0, 0.0, 0.0], [0.0, 0.6, 0.8]].into_iter()));
        assert!(!all_unit([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]].into_iter()));
        assert!(!all_unit([[1.01, 0.0, 0.0]].into_iter()));
        assert!(!all_unit([[f32::NAN, 0.0, 0.0]].into_iter()));
    }
}
