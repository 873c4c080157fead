//! Meshes: OBJ (`crate::obj`) and glTF / GLB (`gltf`) to 48-byte vertices and u32 indices.
//!
//! Default profile: each OBJ `o` / `g` group or glTF triangle primitive is one sub-mesh;
//! missing normals are generated (area-weighted, smoothed across faces that share a position
//! and meet at less than 60°); tangents come from MikkTSpace where UVs exist (a glTF's own
//! TANGENT attribute is kept), otherwise an arbitrary unit vector perpendicular to the normal
//! with w = 1; identical vertices are merged, in first-use order.
//!
//! Original profile: the original's encoders (see the golden README): OBJ corners de-indexed
//! with zero tangents, glTF primitives appended with fixed defaults.
//!
//! Axes and winding are kept exactly as in the source file. The default profile reads glTF
//! through [`crate::gltf_scene`]: node transforms applied, sub-mesh table, vertex colours and a
//! second UV set; the original profile takes meshes in their own space, as the original does.

use std::path::Path;

use crate::error::{ImportError, Result};
use crate::gltf_read::read_positions;
use crate::mesh_build::{Builder, Soup};
pub use crate::mesh_build::{MeshData, Vert, MAX_ELEMENTS};
use crate::settings::{MeshNodes, Profile};

// The glTF reading that the animation importer shares.
pub(crate) use crate::gltf_read::{catch, gltf_load};

/// OBJ through the crate's own reader, `obj.rs` (polygons fanned, negative indices allowed,
/// out-of-range indices rejected, materials not loaded; `w` is not a divisor, a corner without
/// `vt` gets (0, 0); a corner whose normal index names no normal gets a generated normal, with a
/// warning). A file whose only elements are lines or points is refused: no faces.
pub fn obj_default(bytes: &[u8]) -> Result<MeshData> {
    let file = crate::obj::read_obj(bytes)?;
    if file.groups.is_empty() {
        let what = match (file.lines, file.points) {
            (0, 0) => String::new(),
            (l, 0) => format!(", only {l} line element(s) (`l`), which make no triangles"),
            (0, p) => format!(", only {p} point element(s) (`p`), which make no triangles"),
            (l, p) => format!(", only {l} line and {p} point element(s), which make no triangles"),
        };
        return Err(ImportError::empty("OBJ", format!("no faces{what}")));
    }
    let warnings = file
        .undefined_normals
        .iter()
        .map(ToString::to_string)
        .collect();
    let mut b = Builder::default();
    for g in file.groups {
        // A corner without `vn` gets a zero normal, which the builder replaces by a
        // generated one.
        let normals = g
            .normals
            .map(|n| n.into_iter().map(|n| n.unwrap_or([0.0; 3])).collect());
        b.add(Soup {
            positions: g.positions,
            normals,
            uvs: g.uvs,
            ..Default::default()
        })?;
    }
    Ok(MeshData {
        warnings,
        ..b.finish("OBJ", Vec::new())?
    })
}

/// Resolve an OBJ index the original's way: 1-based, negative counts back from the end of the
/// list read so far, 0 / unparsable / out of range means "missing".
fn resolve_obj_index(raw: Option<i64>, len: usize) -> Option<i64> {
    match raw? {
        0 => None,
        i if i > 0 => Some(i - 1),
        i => Some(len as i64 + i),
    }
}

fn parse_int_prefix(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let mut end = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        end = 1;
    }
    let digits_start = end;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    if end == digits_start {
        return None;
    }
    s[..end].parse().ok()
}

/// The original OBJ encoder: every face corner becomes a vertex, polygons are fanned
/// (0, i, i+1), missing or out-of-range references are zero, tangents are zero.
pub fn obj_original(bytes: &[u8]) -> Result<MeshData> {
    let text = String::from_utf8_lossy(bytes);
    let mut pos: Vec<[f32; 3]> = Vec::new();
    let mut uv: Vec<[f32; 2]> = Vec::new();
    let mut nrm: Vec<[f32; 3]> = Vec::new();
    // Corners as resolved absolute (0-based) indices into the three lists.
    let mut corners: Vec<[Option<i64>; 3]> = Vec::new();
    let num = |t: Option<&str>| t.and_then(|s| s.parse::<f32>().ok()).unwrap_or(0.0);
    for line in text.split('\n') {
        let mut tok = line.split_whitespace();
        match tok.next() {
            Some("v") => pos.push([num(tok.next()), num(tok.next()), num(tok.next())]),
            Some("vt") => uv.push([num(tok.next()), num(tok.next())]),
            Some("vn") => nrm.push([num(tok.next()), num(tok.next()), num(tok.next())]),
            Some("f") => {
                let face: Vec<[Option<i64>; 3]> = tok
                    .map(|c| {
                        let mut parts = c.split('/');
                        let mut next = |len: usize| {
                            resolve_obj_index(parts.next().and_then(parse_int_prefix), len)
                        };
                        [next(pos.len()), next(uv.len()), next(nrm.len())]
                    })
                    .collect();
                for i in 1..face.len().saturating_sub(1) {
                    corners.extend_from_slice(&[face[0], face[i], face[i + 1]]);
                }
                if corners.len() > MAX_ELEMENTS {
                    return Err(ImportError::LimitExceeded {
                        what: "mesh indices",
                        value: corners.len() as u64,
                        limit: MAX_ELEMENTS as u64,
                    });
                }
            }
            _ => {}
        }
    }
    if corners.is_empty() {
        return Err(ImportError::empty(
            "OBJ",
            "Failed to parse OBJ file: no faces",
        ));
    }
    fn pick<const N: usize>(list: &[[f32; N]], i: Option<i64>) -> [f32; N] {
        i.and_then(|i| usize::try_from(i).ok())
            .and_then(|i| list.get(i).copied())
            .unwrap_or([0.0; N])
    }
    let vertices: Vec<Vert> = corners
        .iter()
        .map(|c| {
            let p = pick(&pos, c[0]);
            let t = pick(&uv, c[1]);
            let n = pick(&nrm, c[2]);
            [
                p[0], p[1], p[2], n[0], n[1], n[2], t[0], t[1], 0.0, 0.0, 0.0, 0.0,
            ]
        })
        .collect();
    let indices = (0..vertices.len() as u32).collect();
    Ok(MeshData {
        vertices,
        indices,
        sub_meshes: 1,
        ..MeshData::default()
    })
}

/// Attribute arrays of one glTF primitive: positions, normals, uv0, tangents, indices.
type PrimitiveData = (
    Vec<[f32; 3]>,
    Option<Vec<[f32; 3]>>,
    Option<Vec<[f32; 2]>>,
    Option<Vec<[f32; 4]>>,
    Option<Vec<u32>>,
);

fn read_primitive(
    prim: &gltf::Primitive<'_>,
    buffers: &[gltf::buffer::Data],
    mi: usize,
    pi: usize,
) -> Result<PrimitiveData> {
    let reader = prim.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let positions = read_positions(&reader, mi, pi)?;
    let normals = reader.read_normals().map(|n| n.collect::<Vec<_>>());
    let uvs = reader
        .read_tex_coords(0)
        .map(|t| t.into_f32().collect::<Vec<_>>());
    let tangents = reader.read_tangents().map(|t| t.collect::<Vec<_>>());
    let indices = reader
        .read_indices()
        .map(|i| i.into_u32().collect::<Vec<_>>());
    let check = |len: usize, what: &str| {
        if len != positions.len() {
            Err(ImportError::malformed(
                "glTF",
                format!(
                    "mesh {mi} primitive {pi}: {what} has {len} elements, POSITION has {}",
                    positions.len()
                ),
            ))
        } else {
            Ok(())
        }
    };
    if let Some(n) = &normals {
        check(n.len(), "NORMAL")?;
    }
    if let Some(t) = &uvs {
        check(t.len(), "TEXCOORD_0")?;
    }
    if let Some(t) = &tangents {
        check(t.len(), "TANGENT")?;
    }
    if let Some(idx) = &indices {
        if idx.len() > MAX_ELEMENTS {
            return Err(ImportError::LimitExceeded {
                what: "glTF indices",
                value: idx.len() as u64,
                limit: MAX_ELEMENTS as u64,
            });
        }
    }
    Ok((positions, normals, uvs, tangents, indices))
}

/// glTF / GLB, default profile: the default scene flattened in world space, see
/// [`crate::gltf_scene::gltf_default`].
pub fn gltf_default(bytes: &[u8], base: Option<&Path>, nodes: MeshNodes) -> Result<MeshData> {
    crate::gltf_scene::gltf_default(bytes, base, nodes)
}

/// The original glTF encoder: vertices of every primitive of every mesh are appended, indices
/// offset by the vertices before them; a primitive without indices adds vertices only; missing
/// normals are (0, 1, 0), missing texcoords (0, 0), tangents always (1, 0, 0, 1); subMeshCount
/// counts the primitives that have indices. (Unlike the original, byteStride is honoured.)
pub fn gltf_original(bytes: &[u8], base: Option<&Path>) -> Result<MeshData> {
    catch("glTF", || {
        let (doc, buffers, deps) = gltf_load(bytes, base)?;
        let mut vertices: Vec<Vert> = Vec::new();
        let mut indices: Vec<u32> = Vec::new();
        let mut sub_meshes = 0u32;
        for (mi, mesh) in doc.meshes().enumerate() {
            for (pi, prim) in mesh.primitives().enumerate() {
                let (positions, normals, uvs, _tangents, idx) =
                    read_primitive(&prim, &buffers, mi, pi)?;
                let base_index = vertices.len() as u32;
                if vertices.len() + positions.len() > MAX_ELEMENTS {
                    return Err(ImportError::LimitExceeded {
                        what: "mesh vertices",
                        value: (vertices.len() + positions.len()) as u64,
                        limit: MAX_ELEMENTS as u64,
                    });
                }
                for (i, p) in positions.iter().enumerate() {
                    let n = normals.as_ref().map(|n| n[i]).unwrap_or([0.0, 1.0, 0.0]);
                    let t = uvs.as_ref().map(|t| t[i]).unwrap_or([0.0, 0.0]);
                    vertices.push([
                        p[0], p[1], p[2], n[0], n[1], n[2], t[0], t[1], 1.0, 0.0, 0.0, 1.0,
                    ]);
                }
                if let Some(idx) = idx {
                    if indices.len() + idx.len() > MAX_ELEMENTS {
                        return Err(ImportError::LimitExceeded {
                            what: "mesh indices",
                            value: (indices.len() + idx.len()) as u64,
                            limit: MAX_ELEMENTS as u64,
                        });
                    }
                    indices.extend(idx.iter().map(|&i| base_index.wrapping_add(i)));
                    sub_meshes += 1;
                }
            }
        }
        if vertices.is_empty() {
            return Err(ImportError::empty("glTF", "no mesh primitives"));
        }
        Ok(MeshData {
            vertices,
            indices,
            sub_meshes,
            dependencies: deps,
            ..MeshData::default()
        })
    })
}

/// Decode a mesh file; `ext` is its lower-case extension, `base` its folder, `nodes` how a
/// glTF scene's nodes become sub-meshes (default profile only).
pub fn decode_mesh(
    bytes: &[u8],
    ext: Option<&str>,
    base: Option<&Path>,
    profile: Profile,
    nodes: MeshNodes,
) -> Result<MeshData> {
    let is_gltf = bytes.starts_with(b"glTF") || matches!(ext, Some("gltf" | "glb"));
    match (is_gltf, profile) {
        (true, Profile::Default) => gltf_default(bytes, base, nodes),
        (true, Profile::Original) => gltf_original(bytes, base),
        (false, Profile::Default) => obj_default(bytes),
        (false, Profile::Original) => obj_original(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `import_obj` fuzz target: these faces (two vertex lists, the second
    /// repeating positions) made mikktspace subtract with overflow while generating tangents.
    /// The mesh imports with the fallback tangents instead.
    #[test]
    fn fuzz_regression_obj_mikktspace_overflow() {
        let obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0 0.0\nv 1.0 1.0 0.0\n\
                   v 0.0 1.0 0.0\nvt 0.0 0.0\nvt 1.0 0.0\nvt 1.0 1.0\nvt 0.0 1.0\n\
                   vn 0.0 0.0 1.0\nf -4/-4/-1 -3/-3/-1 -2/-2/-1 -1/-1/-1\n";
        let m = match obj_default(obj.as_bytes()) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        assert!(!m.vertices.is_empty());
        assert!(m.vertices.iter().all(|v| v.iter().all(|x| x.is_finite())));
    }

    /// Found by the `import_obj` fuzz target: a relative normal index reaching before the
    /// first normal overflowed inside tobj (a panic with overflow checks on). The corner's
    /// normal is generated instead, with a warning.
    #[test]
    fn fuzz_regression_obj_relative_normal_overflow() {
        let obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nvn 0 0 1\nf -3//-1 -2//-3 -1//-1\n";
        let m = match obj_default(obj.as_bytes()) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(m.warnings.len(), 1, "{:?}", m.warnings);
        assert!(m.warnings[0].contains("line 5: normal index -3"));
    }

    #[test]
    fn obj_index_resolution() {
        assert_eq!(resolve_obj_index(Some(1), 4), Some(0));
        assert_eq!(resolve_obj_index(Some(-1), 4), Some(3));
        assert_eq!(resolve_obj_index(Some(-5), 4), Some(-1));
        assert_eq!(resolve_obj_index(Some(0), 4), None);
        assert_eq!(resolve_obj_index(None, 4), None);
        assert_eq!(parse_int_prefix("12abc"), Some(12));
        assert_eq!(parse_int_prefix("-3"), Some(-3));
        assert_eq!(parse_int_prefix(""), None);
        assert_eq!(parse_int_prefix("x"), None);
    }

    #[test]
    fn original_obj_without_faces_is_rejected() {
        assert!(matches!(
            obj_original(b"v 0 0 0\nv 1 0 0\n"),
            Err(ImportError::Empty { .. })
        ));
    }
}
