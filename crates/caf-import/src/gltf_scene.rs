//! glTF / GLB, default profile: the scene's node tree flattened into one mesh in world space.
//!
//! The default scene (or the first, or, in a file without scenes, every mesh once at the
//! origin) is walked from its root nodes; each node's world transform is the product of its
//! ancestors' local transforms and its own. Positions are transformed by it, normals by its
//! inverse transpose, tangents by its upper 3x3 (renormalised, handedness flipped with the
//! determinant's sign), and triangles of a mirrored node (negative determinant) have their
//! winding reversed so they still face outwards.
//!
//! Sub-meshes follow [`MeshNodes`]: `flatten` merges every primitive of a material into one
//! sub-mesh (in order of first use), `keep` makes one sub-mesh per node and material. COLOR_0
//! and TEXCOORD_1 are kept; other attributes (application-specific `_NAME` ones, further
//! sets) are ignored.
//!
//! Skins (docs/format/caf-assets-ext.md section 2): when the scene's meshes are skinned, the
//! one skin they share is kept with JOINTS_0 and WEIGHTS_0 (weights renormalised); skinned
//! primitives stay in bind space (their node transform is not applied, as glTF says). A scene
//! with two skins, or with skinned and static meshes together, is refused. Draco (`KHR_draco_mesh_compression`) and meshopt
//! (`EXT_meshopt_compression`) geometry is refused with a message naming the extension.

use std::collections::HashMap;
use std::path::Path;

use glam::{Mat3, Mat4, Vec3};

use crate::error::{ImportError, Result};
use crate::gltf_read::{catch, gltf_load, read_positions};
pub use crate::gltf_read::{DRACO, MESHOPT};
use crate::mesh_build::{Builder, MeshData, Soup, SoupExtra, MAX_ELEMENTS};
use crate::settings::MeshNodes;

/// One mesh placed in the scene.
struct Instance {
    node: Option<usize>,
    mesh: usize,
    world: Mat4,
    skin: Option<usize>,
}

/// The meshes of the scene with their world transforms, in depth-first order.
fn instances(doc: &gltf::Document) -> Result<Vec<Instance>> {
    let scene = doc.default_scene().or_else(|| doc.scenes().next());
    let Some(scene) = scene else {
        return Ok(doc
            .meshes()
            .map(|m| Instance {
                node: None,
                mesh: m.index(),
                world: Mat4::IDENTITY,
                skin: None,
            })
            .collect());
    };
    let mut seen = vec![false; doc.nodes().len()];
    let mut out = Vec::new();
    let mut stack: Vec<(gltf::Node<'_>, Mat4)> =
        scene.nodes().map(|n| (n, Mat4::IDENTITY)).collect();
    stack.reverse();
    while let Some((node, parent)) = stack.pop() {
        let i = node.index();
        if std::mem::replace(&mut seen[i], true) {
            return Err(ImportError::malformed(
                "glTF",
                format!(
                    "node {i} is reached twice from the scene (the node hierarchy must be a tree)"
                ),
            ));
        }
        let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        if let Some(mesh) = node.mesh() {
            out.push(Instance {
                node: Some(i),
                mesh: mesh.index(),
                world,
                skin: node.skin().map(|s| s.index()),
            });
        }
        stack.extend(
            node.children()
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .map(|c| (c, world)),
        );
    }
    Ok(out)
}

/// How one instance's vertices are moved into world space.
struct Xform {
    world: Mat4,
    /// Upper 3x3, for tangents.
    linear: Mat3,
    /// Inverse transpose of `linear`, for normals; `None` for a singular transform.
    normal: Option<Mat3>,
    /// The determinant is negative: mirror, so reverse the winding.
    mirrored: bool,
}

impl Xform {
    fn new(world: Mat4) -> Xform {
        let linear = Mat3::from_mat4(world);
        let det = linear.determinant();
        let normal = (det.is_finite() && det.abs() > 1e-30).then(|| linear.inverse().transpose());
        Xform {
            world,
            linear,
            normal,
            mirrored: det < 0.0,
        }
    }

    fn is_identity(&self) -> bool {
        self.world == Mat4::IDENTITY
    }
}

fn unit(v: Vec3) -> [f32; 3] {
    let n = v.normalize_or_zero();
    n.to_array()
}

/// The one skin the scene's meshes use: `None` when no placed mesh is skinned; refused when
/// two skins are used, or skinned and static meshes are mixed.
fn scene_skin(placed: &[Instance]) -> Result<Option<usize>> {
    let Some(first) = placed.iter().find_map(|i| i.skin) else {
        return Ok(None);
    };
    if let Some(other) = placed.iter().find_map(|i| i.skin.filter(|&s| s != first)) {
        return Err(ImportError::unsupported(
            "glTF",
            format!(
                "the scene uses skins {first} and {other}; a mesh asset holds one skin \
                 (export each skinned character to its own file)"
            ),
        ));
    }
    if let Some(stat) = placed.iter().find(|i| i.skin.is_none()) {
        return Err(ImportError::unsupported(
            "glTF",
            format!(
                "mesh {} is placed without a skin next to skinned meshes; a skinned mesh asset \
                 cannot hold static geometry (convert the static parts separately)",
                stat.mesh
            ),
        ));
    }
    Ok(Some(first))
}

/// The skin used by the default scene's nodes (the one [`gltf_default`] stores), if any.
pub(crate) fn document_skin(doc: &gltf::Document) -> Result<Option<usize>> {
    let placed = instances(doc)?;
    let Some(first) = placed.iter().find_map(|i| i.skin) else {
        return Ok(None);
    };
    if let Some(other) = placed.iter().find_map(|i| i.skin.filter(|&s| s != first)) {
        return Err(ImportError::unsupported(
            "glTF",
            format!("the scene uses skins {first} and {other}; joint indices would be ambiguous"),
        ));
    }
    Ok(Some(first))
}

/// The parent of every node (`None` for roots).
fn parents(doc: &gltf::Document) -> Vec<Option<usize>> {
    let mut p = vec![None; doc.nodes().len()];
    for n in doc.nodes() {
        for c in n.children() {
            if let Some(slot) = p.get_mut(c.index()) {
                *slot = Some(n.index());
            }
        }
    }
    p
}

/// World transform of node `n` (product of its ancestors' local transforms and its own).
fn world_of(doc: &gltf::Document, parents: &[Option<usize>], n: usize) -> Mat4 {
    let nodes: Vec<gltf::Node<'_>> = doc.nodes().collect();
    let mut m = Mat4::IDENTITY;
    let mut cur = Some(n);
    // A tree has fewer ancestors than nodes; the bound also stops a cyclic crafted file.
    for _ in 0..nodes.len() {
        let Some(i) = cur else { break };
        m = Mat4::from_cols_array_2d(&nodes[i].transform().matrix()) * m;
        cur = parents[i];
    }
    m
}

/// Build the stored skeleton of skin `si` (section 2's converter rules).
pub(crate) fn build_skin(
    doc: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    si: usize,
) -> Result<caf::mesh::Skin> {
    let Some(skin) = doc.skins().nth(si) else {
        return Err(ImportError::malformed("glTF", format!("no skin {si}")));
    };
    let joints: Vec<gltf::Node<'_>> = skin.joints().collect();
    if joints.is_empty() {
        return Err(ImportError::malformed(
            "glTF",
            format!("skin {si} has no joints"),
        ));
    }
    if joints.len() > caf::mesh::SkinHeader::MAX_JOINTS as usize {
        return Err(ImportError::LimitExceeded {
            what: "skin joints",
            value: joints.len() as u64,
            limit: caf::mesh::SkinHeader::MAX_JOINTS.into(),
        });
    }
    let index_of: HashMap<usize, u32> = joints
        .iter()
        .enumerate()
        .map(|(j, n)| (n.index(), j as u32))
        .collect();
    if index_of.len() != joints.len() {
        return Err(ImportError::malformed(
            "glTF",
            format!("skin {si} lists a node twice"),
        ));
    }
    let ibms: Vec<[[f32; 4]; 4]> = match skin
        .reader(|b| buffers.get(b.index()).map(|d| &d.0[..]))
        .read_inverse_bind_matrices()
    {
        Some(it) => {
            let acc_count = skin.inverse_bind_matrices().map_or(0, |a| a.count());
            if acc_count != joints.len() {
                return Err(ImportError::malformed(
                    "glTF",
                    format!(
                        "skin {si}: {acc_count} inverse bind matrices for {} joints",
                        joints.len()
                    ),
                ));
            }
            it.collect()
        }
        None => vec![Mat4::IDENTITY.to_cols_array_2d(); joints.len()],
    };
    if ibms.len() != joints.len() {
        return Err(ImportError::malformed(
            "glTF",
            format!("skin {si}: the inverse bind matrices could not be read"),
        ));
    }
    let parent_of = parents(doc);
    let mut root_parent: Option<Option<usize>> = None;
    let mut out = Vec::with_capacity(joints.len());
    for (j, node) in joints.iter().enumerate() {
        let n = node.index();
        let direct = parent_of[n];
        let parent = match direct.and_then(|p| index_of.get(&p)) {
            Some(&pj) => pj,
            None => {
                // A root joint: no ancestor may be a joint.
                let mut cur = direct;
                for _ in 0..parent_of.len() {
                    let Some(a) = cur else { break };
                    if index_of.contains_key(&a) {
                        return Err(ImportError::unsupported(
                            "glTF",
                            format!(
                                "skin {si}: joint node {n}'s parent node {} is no joint, but \
                                 its ancestor {a} is (a node between joints is not supported)",
                                direct.unwrap_or(a)
                            ),
                        ));
                    }
                    cur = parent_of[a];
                }
                match root_parent {
                    None => root_parent = Some(direct),
                    Some(rp) if rp != direct => {
                        return Err(ImportError::unsupported(
                            "glTF",
                            format!(
                                "skin {si}: root joints have different parent nodes ({rp:?} and \
                                 {direct:?}); a skin has one root transform"
                            ),
                        ))
                    }
                    Some(_) => {}
                }
                caf::mesh::JointEntry::ROOT
            }
        };
        let (translation, rotation, scale) = node.transform().decomposed();
        let ibm: [f32; 16] = Mat4::from_cols_array_2d(&ibms[j]).to_cols_array();
        out.push(caf::mesh::Joint {
            parent,
            node: n as u32,
            name: node.name().unwrap_or_default().to_string(),
            translation,
            rotation,
            scale,
            inverse_bind: ibm,
        });
    }
    let root_matrix = match root_parent.flatten() {
        Some(p) => world_of(doc, &parent_of, p).to_cols_array(),
        None => caf::mesh::IDENTITY,
    };
    let skin = caf::mesh::Skin {
        root_matrix,
        joints: out,
    };
    skin.check()
        .map_err(|e| ImportError::malformed("glTF", format!("skin {si}: {e}")))?;
    Ok(skin)
}

/// JOINTS_0 / WEIGHTS_0 of a skinned primitive, checked and renormalised.
type SkinAttrs = (Vec<[u16; 4]>, Vec<[f32; 4]>);
fn read_skin_attrs<'a, 's, F>(
    reader: &gltf::mesh::Reader<'a, 's, F>,
    mi: usize,
    pi: usize,
    n: usize,
    joint_count: usize,
) -> Result<SkinAttrs>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    let at =
        |what: String| ImportError::malformed("glTF", format!("mesh {mi} primitive {pi}: {what}"));
    let joints: Vec<[u16; 4]> = reader
        .read_joints(0)
        .ok_or_else(|| at("a skinned primitive has no JOINTS_0".into()))?
        .into_u16()
        .collect();
    let weights: Vec<[f32; 4]> = reader
        .read_weights(0)
        .ok_or_else(|| at("a skinned primitive has no WEIGHTS_0".into()))?
        .into_f32()
        .collect();
    for (len, what) in [(joints.len(), "JOINTS_0"), (weights.len(), "WEIGHTS_0")] {
        if len != n {
            return Err(at(format!("{what} has {len} elements, POSITION has {n}")));
        }
    }
    let mut out_j = Vec::with_capacity(n);
    let mut out_w = Vec::with_capacity(n);
    for (v, (j, w)) in joints.iter().zip(&weights).enumerate() {
        if let Some(&bad) = j.iter().find(|&&x| usize::from(x) >= joint_count) {
            return Err(at(format!(
                "vertex {v}: joint {bad}, but the skin has {joint_count} joints"
            )));
        }
        if !w.iter().all(|x| x.is_finite() && *x >= 0.0) {
            return Err(at(format!(
                "vertex {v}: weights {w:?} are not finite and >= 0"
            )));
        }
        let sum: f64 = w.iter().map(|&x| f64::from(x)).sum();
        if sum <= 0.0 {
            return Err(at(format!("vertex {v}: weights {w:?} sum to 0")));
        }
        let mut nw = [0f32; 4];
        let mut nj = [0u16; 4];
        for k in 0..4 {
            nw[k] = (f64::from(w[k]) / sum) as f32;
            nj[k] = if nw[k] == 0.0 { 0 } else { j[k] };
        }
        out_j.push(nj);
        out_w.push(nw);
    }
    Ok((out_j, out_w))
}

/// Read one triangle primitive as a soup of corners, transformed by `x`; with `joint_count`
/// (a skinned primitive) also its JOINTS_0 / WEIGHTS_0.
fn primitive_soup(
    prim: &gltf::Primitive<'_>,
    buffers: &[gltf::buffer::Data],
    mi: usize,
    pi: usize,
    x: &Xform,
    joint_count: Option<usize>,
) -> Result<Option<(Soup, SoupExtra)>> {
    use gltf::mesh::Mode;
    let mode = prim.mode();
    if !matches!(
        mode,
        Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
    ) {
        return Ok(None);
    }
    let reader = prim.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let positions = read_positions(&reader, mi, pi)?;
    let n = positions.len();
    let check = |len: usize, what: &str| {
        if len != n {
            Err(ImportError::malformed(
                "glTF",
                format!("mesh {mi} primitive {pi}: {what} has {len} elements, POSITION has {n}"),
            ))
        } else {
            Ok(())
        }
    };
    let normals = reader.read_normals().map(|i| i.collect::<Vec<_>>());
    let uvs = reader
        .read_tex_coords(0)
        .map(|t| t.into_f32().collect::<Vec<_>>());
    let uv1 = reader
        .read_tex_coords(1)
        .map(|t| t.into_f32().collect::<Vec<_>>());
    let tangents = reader.read_tangents().map(|t| t.collect::<Vec<_>>());
    let colors = reader
        .read_colors(0)
        .map(|c| c.into_rgba_f32().collect::<Vec<_>>());
    let skin = match joint_count {
        Some(jc) => Some(read_skin_attrs(&reader, mi, pi, n, jc)?),
        None => None,
    };
    for (len, what) in [
        (normals.as_ref().map(Vec::len), "NORMAL"),
        (uvs.as_ref().map(Vec::len), "TEXCOORD_0"),
        (uv1.as_ref().map(Vec::len), "TEXCOORD_1"),
        (tangents.as_ref().map(Vec::len), "TANGENT"),
        (colors.as_ref().map(Vec::len), "COLOR_0"),
    ] {
        if let Some(len) = len {
            check(len, what)?;
        }
    }
    let seq: Vec<u32> = match reader.read_indices() {
        Some(i) => {
            let v: Vec<u32> = i.into_u32().collect();
            if v.len() > MAX_ELEMENTS {
                return Err(ImportError::LimitExceeded {
                    what: "glTF indices",
                    value: v.len() as u64,
                    limit: MAX_ELEMENTS as u64,
                });
            }
            v
        }
        None => (0..n as u32).collect(),
    };
    if let Some(bad) = seq.iter().position(|&i| i as usize >= n) {
        return Err(ImportError::malformed(
            "glTF",
            format!(
                "mesh {mi} primitive {pi}: index {} at position {bad} is out of range ({n} vertices)",
                seq[bad]
            ),
        ));
    }
    let mut tris: Vec<u32> = match mode {
        Mode::TriangleStrip => (0..seq.len().saturating_sub(2))
            .flat_map(|i| {
                if i % 2 == 0 {
                    [seq[i], seq[i + 1], seq[i + 2]]
                } else {
                    [seq[i + 1], seq[i], seq[i + 2]]
                }
            })
            .collect(),
        Mode::TriangleFan => (1..seq.len().saturating_sub(1))
            .flat_map(|i| [seq[0], seq[i], seq[i + 1]])
            .collect(),
        _ => seq[..seq.len() - seq.len() % 3].to_vec(),
    };
    if x.mirrored {
        for t in tris.chunks_exact_mut(3) {
            t.swap(1, 2);
        }
    }
    fn pick<T: Copy>(v: &Option<Vec<T>>, tris: &[u32]) -> Option<Vec<T>> {
        v.as_ref()
            .map(|v| tris.iter().map(|&i| v[i as usize]).collect())
    }
    let mut soup = Soup {
        positions: tris.iter().map(|&i| positions[i as usize]).collect(),
        normals: pick(&normals, &tris),
        uvs: pick(&uvs, &tris),
        tangents: pick(&tangents, &tris),
    };
    if !x.is_identity() {
        for p in &mut soup.positions {
            *p = x.world.transform_point3(Vec3::from(*p)).to_array();
        }
        match x.normal {
            Some(nm) => {
                if let Some(ns) = &mut soup.normals {
                    for v in ns.iter_mut() {
                        *v = unit(nm * Vec3::from(*v));
                    }
                }
                if let Some(ts) = &mut soup.tangents {
                    let sign = if x.mirrored { -1.0 } else { 1.0 };
                    for t in ts.iter_mut() {
                        let d = unit(x.linear * Vec3::new(t[0], t[1], t[2]));
                        *t = [d[0], d[1], d[2], t[3] * sign];
                    }
                }
            }
            None => {
                // A singular transform (zero scale) has no normal matrix: regenerate.
                soup.normals = None;
                soup.tangents = None;
            }
        }
    }
    let extra = SoupExtra {
        colors: pick(&colors, &tris),
        uv1: pick(&uv1, &tris),
        skin: skin.map(|(j, w)| {
            (
                tris.iter().map(|&i| j[i as usize]).collect(),
                tris.iter().map(|&i| w[i as usize]).collect(),
            )
        }),
        group: None,
    };
    Ok(Some((soup, extra)))
}

/// glTF / GLB, default profile (see the module documentation).
pub fn gltf_default(bytes: &[u8], base: Option<&Path>, nodes: MeshNodes) -> Result<MeshData> {
    catch("glTF", || {
        let (doc, buffers, deps) = gltf_load(bytes, base)?;
        let placed = instances(&doc)?;
        let skin = match scene_skin(&placed)? {
            Some(si) => Some(build_skin(&doc, &buffers, si)?),
            None => None,
        };
        let joint_count = skin.as_ref().map(|s| s.joints.len());
        let meshes: Vec<gltf::Mesh<'_>> = doc.meshes().collect();
        // Soups grouped by sub-mesh key, groups in order of first use.
        let mut order: Vec<(u32, u32)> = Vec::new();
        let mut groups: HashMap<(u32, u32), Vec<(Soup, SoupExtra)>> = HashMap::new();
        let mut corners = 0usize;
        for inst in &placed {
            let Some(mesh) = meshes.get(inst.mesh) else {
                continue;
            };
            // A skinned mesh is placed by its joints only: its vertices stay in bind space.
            let x = Xform::new(if skin.is_some() {
                Mat4::IDENTITY
            } else {
                inst.world
            });
            for (pi, prim) in mesh.primitives().enumerate() {
                let Some((soup, mut extra)) =
                    primitive_soup(&prim, &buffers, inst.mesh, pi, &x, joint_count)?
                else {
                    continue;
                };
                corners += soup.positions.len();
                if corners > MAX_ELEMENTS {
                    return Err(ImportError::LimitExceeded {
                        what: "mesh indices",
                        value: corners as u64,
                        limit: MAX_ELEMENTS as u64,
                    });
                }
                let material = prim
                    .material()
                    .index()
                    .map_or(caf::mesh::SubMeshEntry::NONE, |m| m as u32);
                let node = match nodes {
                    MeshNodes::Flatten => caf::mesh::SubMeshEntry::NONE,
                    MeshNodes::Keep => inst
                        .node
                        .map_or(caf::mesh::SubMeshEntry::NONE, |n| n as u32),
                };
                let key = (material, node);
                extra.group = Some(key);
                groups
                    .entry(key)
                    .or_insert_with(|| {
                        order.push(key);
                        Vec::new()
                    })
                    .push((soup, extra));
            }
        }
        let mut b = Builder::default();
        for key in order {
            for (soup, extra) in groups.remove(&key).unwrap_or_default() {
                b.add_ext(soup, extra)?;
            }
        }
        let mut m = b.finish("glTF", deps)?;
        m.skin = skin;
        m.warnings = morph_warnings(&meshes, &placed);
        Ok(m)
    })
}

/// One warning per placed mesh with morph targets, which the mesh asset does not store.
fn morph_warnings(meshes: &[gltf::Mesh<'_>], placed: &[Instance]) -> Vec<String> {
    let mut used: Vec<usize> = placed.iter().map(|i| i.mesh).collect();
    used.sort_unstable();
    used.dedup();
    used.into_iter()
        .filter_map(|mi| {
            let mesh = meshes.get(mi)?;
            let targets = mesh.primitives().map(|p| p.morph_targets().len()).max()?;
            (targets > 0).then(|| {
                format!(
                    "mesh {mi}{}: {targets} morph target(s) left out (the base shape is stored)",
                    mesh.name().map_or(String::new(), |n| format!(" {n:?}"))
                )
            })
        })
        .collect()
}
