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

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::{ImportError, Result};
use crate::settings::{MeshNodes, Profile};

/// Most vertices or indices accepted in one mesh.
pub const MAX_ELEMENTS: usize = 1 << 26;

/// One output vertex: position xyz, normal xyz, uv, tangent xyzw (CAF.md §4).
pub type Vert = [f32; 12];

/// A mesh ready to be written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    /// Vertices.
    pub vertices: Vec<Vert>,
    /// Triangle list indices into `vertices`.
    pub indices: Vec<u32>,
    /// Sub-mesh count for the metadata.
    pub sub_meshes: u32,
    /// The sub-mesh table (default profile; empty for the original profile). Bounds are
    /// filled in when the mesh is encoded.
    pub table: Vec<caf::mesh::SubMeshEntry>,
    /// COLOR_0 per vertex, when any source primitive has it.
    pub colors: Option<Vec<[f32; 4]>>,
    /// TEXCOORD_1 per vertex, when any source primitive has it.
    pub uv1: Option<Vec<[f32; 2]>>,
    /// The skeleton of a skinned glTF scene (docs/format/caf-assets-ext.md section 2).
    pub skin: Option<caf::mesh::Skin>,
    /// JOINTS_0 per vertex of a skinned mesh.
    pub joints: Option<Vec<[u16; 4]>>,
    /// WEIGHTS_0 per vertex of a skinned mesh (renormalised).
    pub weights: Option<Vec<[f32; 4]>>,
    /// Files read besides the source (glTF external buffers), for change detection.
    pub dependencies: Vec<PathBuf>,
}

/// Triangle corners of one sub-mesh, not yet indexed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Soup {
    pub(crate) positions: Vec<[f32; 3]>,
    pub(crate) normals: Option<Vec<[f32; 3]>>,
    pub(crate) uvs: Option<Vec<[f32; 2]>>,
    pub(crate) tangents: Option<Vec<[f32; 4]>>,
}

/// JOINTS_0 and WEIGHTS_0 per corner.
pub(crate) type SkinCorners = (Vec<[u16; 4]>, Vec<[f32; 4]>);

/// What a glTF primitive adds to a [`Soup`]: per-corner colours and second UVs, and the
/// sub-mesh it belongs to.
#[derive(Clone, Debug, Default)]
pub(crate) struct SoupExtra {
    pub(crate) colors: Option<Vec<[f32; 4]>>,
    pub(crate) uv1: Option<Vec<[f32; 2]>>,
    /// JOINTS_0 and WEIGHTS_0 per corner of a skinned primitive.
    pub(crate) skin: Option<SkinCorners>,
    /// (material, node) of the sub-mesh; consecutive soups with the same group extend one
    /// sub-mesh. `None` always starts a new sub-mesh without material or node.
    pub(crate) group: Option<(u32, u32)>,
}

/// Colour and second UV of a corner that has none (the glTF defaults).
const EXTRA_DEFAULT: [f32; 6] = [1.0, 1.0, 1.0, 1.0, 0.0, 0.0];

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn normalize(a: [f32; 3]) -> Option<[f32; 3]> {
    let l = dot(a, a).sqrt();
    (l > 1e-20 && l.is_finite()).then(|| [a[0] / l, a[1] / l, a[2] / l])
}
/// A normal or tangent direction from the source: kept bit for bit when it is already of unit
/// length to `f32` precision, otherwise normalised. Normalising a unit vector again can move
/// its last bit, so without this a mesh exported (`asset export`) and imported again would
/// not come back identical.
fn normalize_given(a: [f32; 3]) -> Option<[f32; 3]> {
    if a.iter().all(|v| v.is_finite()) && (dot(a, a) - 1.0).abs() <= 4.0 * f32::EPSILON {
        Some(a)
    } else {
        normalize(a)
    }
}
fn zero_canon(v: f32) -> f32 {
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// Cosine of the largest angle between faces whose normals are smoothed together.
const SMOOTH_COS: f32 = 0.5;

fn generate_normals(positions: &[[f32; 3]]) -> Vec<[f32; 3]> {
    let faces = positions.len() / 3;
    let face_n: Vec<[f32; 3]> = (0..faces)
        .map(|f| {
            let p = &positions[f * 3..f * 3 + 3];
            cross(sub(p[1], p[0]), sub(p[2], p[0]))
        })
        .collect();
    let unit: Vec<Option<[f32; 3]>> = face_n.iter().map(|&n| normalize(n)).collect();
    let key = |p: [f32; 3]| p.map(|v| zero_canon(v).to_bits());
    let mut groups: HashMap<[u32; 3], Vec<usize>> = HashMap::new();
    for (c, &p) in positions.iter().enumerate() {
        groups.entry(key(p)).or_default().push(c);
    }
    let mut out = vec![[0f32; 3]; positions.len()];
    for corners in groups.values() {
        // Very large fans are smoothed without the angle test, to stay linear-ish.
        let test_angle = corners.len() <= 512;
        for &c in corners {
            let f = c / 3;
            let mut acc = [0f32; 3];
            match unit[f] {
                Some(uf) => {
                    for &o in corners {
                        let g = o / 3;
                        if let Some(ug) = unit[g] {
                            if !test_angle || g == f || dot(uf, ug) >= SMOOTH_COS {
                                let n = face_n[g];
                                acc = [acc[0] + n[0], acc[1] + n[1], acc[2] + n[2]];
                            }
                        }
                    }
                }
                None => acc = [0.0, 1.0, 0.0],
            }
            out[c] = normalize(acc).or(unit[f]).unwrap_or([0.0, 1.0, 0.0]);
        }
    }
    out
}

fn perpendicular(n: [f32; 3]) -> [f32; 4] {
    let a = if n[1].abs() < 0.99 {
        [0.0, 1.0, 0.0]
    } else {
        [1.0, 0.0, 0.0]
    };
    let t = normalize(cross(a, n)).unwrap_or([1.0, 0.0, 0.0]);
    [t[0], t[1], t[2], 1.0]
}

/// Accumulates sub-meshes into one de-duplicated indexed mesh.
#[derive(Default)]
pub(crate) struct Builder {
    vertices: Vec<Vert>,
    /// Colour and second UV per vertex ([`EXTRA_DEFAULT`] where the source has none).
    extras: Vec<[f32; 6]>,
    any_color: bool,
    any_uv1: bool,
    /// JOINTS_0 and WEIGHTS_0 per vertex (joint 0 with weight 1 where the source has none).
    skin: Vec<([u16; 4], [f32; 4])>,
    any_skin: bool,
    indices: Vec<u32>,
    lookup: HashMap<[u32; 26], u32>,
    table: Vec<(Option<(u32, u32)>, caf::mesh::SubMeshEntry)>,
}

impl Builder {
    fn add(&mut self, soup: Soup) -> Result<()> {
        self.add_ext(soup, SoupExtra::default())
    }

    pub(crate) fn add_ext(&mut self, soup: Soup, extra: SoupExtra) -> Result<()> {
        let n = soup.positions.len();
        if n == 0 {
            return Ok(());
        }
        if !n.is_multiple_of(3) {
            return Err(ImportError::malformed(
                "mesh",
                "corner count is not a multiple of 3",
            ));
        }
        if let Some(bad) = soup
            .positions
            .iter()
            .position(|p| !p.iter().all(|v| v.is_finite()))
        {
            return Err(ImportError::malformed(
                "mesh",
                format!("non-finite position at corner {bad}"),
            ));
        }
        if self.indices.len() + n > MAX_ELEMENTS {
            return Err(ImportError::LimitExceeded {
                what: "mesh indices",
                value: (self.indices.len() + n) as u64,
                limit: MAX_ELEMENTS as u64,
            });
        }
        let normals: Vec<[f32; 3]> = match soup.normals {
            Some(given) => {
                let unit: Vec<Option<[f32; 3]>> =
                    given.iter().map(|&g| normalize_given(g)).collect();
                if unit.iter().all(Option::is_some) {
                    unit.into_iter().flatten().collect()
                } else {
                    // Zero-length normals in the file: use generated ones for those corners.
                    let generated = generate_normals(&soup.positions);
                    unit.iter()
                        .zip(&generated)
                        .map(|(u, &fallback)| u.unwrap_or(fallback))
                        .collect()
                }
            }
            None => generate_normals(&soup.positions),
        };
        let uvs = soup.uvs;
        let tangents: Vec<[f32; 4]> = match (soup.tangents, &uvs) {
            (Some(t), _) => t
                .iter()
                .zip(&normals)
                .map(|(t, &n)| match normalize_given([t[0], t[1], t[2]]) {
                    Some(d) => [d[0], d[1], d[2], if t[3] < 0.0 { -1.0 } else { 1.0 }],
                    None => perpendicular(n),
                })
                .collect(),
            (None, Some(uv)) => {
                // MikkTSpace, or the fallback where it cannot (degenerate meshes).
                let fallback: Vec<[f32; 4]> = normals.iter().map(|&n| perpendicular(n)).collect();
                let generated =
                    voxcaf_tangents::generate(&soup.positions, &normals, uv, &|c| fallback[c]);
                let tangents = generated.unwrap_or(fallback);
                // Degenerate UVs can leave a zero tangent: fall back per corner.
                tangents
                    .iter()
                    .zip(&normals)
                    .map(|(t, &n)| match normalize([t[0], t[1], t[2]]) {
                        Some(d) if t.iter().all(|v| v.is_finite()) => [d[0], d[1], d[2], t[3]],
                        _ => perpendicular(n),
                    })
                    .collect()
            }
            (None, None) => normals.iter().map(|&n| perpendicular(n)).collect(),
        };
        for (len, what) in [
            (extra.colors.as_ref().map(Vec::len), "COLOR_0"),
            (extra.uv1.as_ref().map(Vec::len), "TEXCOORD_1"),
            (extra.skin.as_ref().map(|s| s.0.len()), "JOINTS_0"),
            (extra.skin.as_ref().map(|s| s.1.len()), "WEIGHTS_0"),
        ] {
            if len.is_some_and(|l| l != n) {
                return Err(ImportError::malformed(
                    "mesh",
                    format!("{what} has another length than POSITION"),
                ));
            }
        }
        self.any_color |= extra.colors.is_some();
        self.any_uv1 |= extra.uv1.is_some();
        self.any_skin |= extra.skin.is_some();
        let first_index = self.indices.len() as u32;
        for c in 0..n {
            let p = soup.positions[c];
            let nn = normals[c];
            let uv = uvs.as_ref().map(|u| u[c]).unwrap_or([0.0, 0.0]);
            let t = tangents[c];
            let v: Vert = [
                p[0], p[1], p[2], nn[0], nn[1], nn[2], uv[0], uv[1], t[0], t[1], t[2], t[3],
            ]
            .map(zero_canon);
            let mut e = EXTRA_DEFAULT;
            if let Some(col) = &extra.colors {
                e[..4].copy_from_slice(&col[c]);
            }
            if let Some(uv1) = &extra.uv1 {
                e[4..].copy_from_slice(&uv1[c]);
            }
            let e = e.map(zero_canon);
            let sk = match &extra.skin {
                Some((j, w)) => (j[c], w[c].map(zero_canon)),
                None => ([0; 4], [1.0, 0.0, 0.0, 0.0]),
            };
            let mut key = [0u32; 26];
            key[..12].copy_from_slice(&v.map(f32::to_bits));
            key[12..18].copy_from_slice(&e.map(f32::to_bits));
            key[18..22].copy_from_slice(&sk.0.map(u32::from));
            key[22..].copy_from_slice(&sk.1.map(f32::to_bits));
            let next = self.vertices.len() as u32;
            let idx = *self.lookup.entry(key).or_insert(next);
            if idx == next {
                self.vertices.push(v);
                self.extras.push(e);
                self.skin.push(sk);
            }
            self.indices.push(idx);
        }
        match self.table.last_mut() {
            Some((Some(g), entry)) if extra.group == Some(*g) => entry.index_count += n as u32,
            _ => {
                let (material, node) = extra
                    .group
                    .unwrap_or((caf::mesh::SubMeshEntry::NONE, caf::mesh::SubMeshEntry::NONE));
                self.table.push((
                    extra.group,
                    caf::mesh::SubMeshEntry {
                        first_index,
                        index_count: n as u32,
                        material,
                        node,
                        ..Default::default()
                    },
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn finish(
        self,
        format: &'static str,
        dependencies: Vec<PathBuf>,
    ) -> Result<MeshData> {
        if self.indices.is_empty() {
            return Err(ImportError::empty(format, "no triangles"));
        }
        let colors = self.any_color.then(|| {
            self.extras
                .iter()
                .map(|e| [e[0], e[1], e[2], e[3]])
                .collect()
        });
        let uv1 = self
            .any_uv1
            .then(|| self.extras.iter().map(|e| [e[4], e[5]]).collect());
        let joints = self
            .any_skin
            .then(|| self.skin.iter().map(|s| s.0).collect());
        let weights = self
            .any_skin
            .then(|| self.skin.iter().map(|s| s.1).collect());
        Ok(MeshData {
            joints,
            weights,
            skin: None,
            vertices: self.vertices,
            indices: self.indices,
            sub_meshes: self.table.len() as u32,
            table: self.table.into_iter().map(|(_, e)| e).collect(),
            colors,
            uv1,
            dependencies,
        })
    }
}

/// OBJ through the crate's own reader, `obj.rs` (polygons fanned, negative indices allowed,
/// out-of-range indices rejected, materials not loaded; `w` is not a divisor, a corner without
/// `vt` gets (0, 0)). A file whose only elements are lines or points is refused: no faces.
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
    b.finish("OBJ", Vec::new())
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

fn gltf_err(e: gltf::Error) -> ImportError {
    ImportError::malformed("glTF", e.to_string())
}

/// Parse a glTF/GLB and load its buffers. `base` resolves external buffer files.
pub(crate) fn gltf_load(
    bytes: &[u8],
    base: Option<&Path>,
) -> Result<(gltf::Document, Vec<gltf::buffer::Data>, Vec<PathBuf>)> {
    // Extensions whose data cannot be read are named before validation, which would only
    // report their accessors as "missing data".
    let g = gltf::Gltf::from_slice_without_validation(bytes).map_err(gltf_err)?;
    crate::gltf_scene::check_document(&g.document)?;
    let doc = gltf::Document::from_json(g.document.into_json()).map_err(gltf_err)?;
    let mut deps = Vec::new();
    for b in doc.buffers() {
        if let gltf::buffer::Source::Uri(uri) = b.source() {
            if !uri.starts_with("data:") {
                match base {
                    Some(dir) => deps.push(dir.join(uri)),
                    None => {
                        return Err(ImportError::unsupported(
                            "glTF",
                            format!("external buffer {uri:?} needs the file's folder"),
                        ))
                    }
                }
            }
        }
    }
    let buffers = gltf::import_buffers(&doc, base, g.blob)
        .map_err(|e| crate::gltf_scene::buffer_error(&doc, e))?;
    Ok((doc, buffers, deps))
}

pub(crate) fn catch<T>(what: &'static str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    // The gltf and OBJ readers index with arithmetic that can overflow on crafted files; treat
    // a panic there as malformed input instead of taking the process down.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(ImportError::malformed(
            what,
            "inconsistent accessor or buffer data (the reader gave up)",
        ))
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

/// The POSITION stream of primitive `pi` of mesh `mi`: required, and at most `MAX_ELEMENTS`
/// vertices.
pub(crate) fn read_positions<'a, 's, F>(
    reader: &gltf::mesh::Reader<'a, 's, F>,
    mi: usize,
    pi: usize,
) -> Result<Vec<[f32; 3]>>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    let positions: Vec<[f32; 3]> = reader
        .read_positions()
        .ok_or_else(|| {
            ImportError::malformed(
                "glTF",
                format!("mesh {mi} primitive {pi}: no POSITION data"),
            )
        })?
        .collect();
    if positions.len() > MAX_ELEMENTS {
        return Err(ImportError::LimitExceeded {
            what: "glTF vertices",
            value: positions.len() as u64,
            limit: MAX_ELEMENTS as u64,
        });
    }
    Ok(positions)
}

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
    /// first normal overflowed inside tobj (a panic with overflow checks on).
    #[test]
    fn fuzz_regression_obj_relative_normal_overflow() {
        let obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nvn 0 0 1\nf -3//-1 -2//-3 -1//-1\n";
        let msg = match obj_default(obj.as_bytes()) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a normal index before the first normal must be refused"),
        };
        assert!(msg.contains("OBJ"), "{msg}");
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

    /// Found by the export round trip: normalising an already normalised normal moved its
    /// last bit (0.24109282 -> 0.2410928), so an exported mesh did not import identically.
    #[test]
    fn given_unit_vectors_are_kept_bit_for_bit() {
        let mut rng = voxcaf_golden::Rng::new(7);
        let mut moved = 0;
        for _ in 0..2000 {
            let v = [0, 1, 2].map(|_| rng.range(-1000, 1000) as f32 / 77.0 + 0.01);
            let Some(u) = normalize(v) else { continue };
            moved += usize::from(normalize(u) != Some(u));
            assert_eq!(normalize_given(u), Some(u));
            assert_eq!(normalize_given(v), Some(u));
        }
        // The plain normalisation is not idempotent: the test would catch a regression.
        assert!(moved > 0);
        assert_eq!(normalize_given([0.0; 3]), None);
        assert_eq!(normalize_given([f32::NAN, 0.0, 1.0]), None);
        assert_eq!(normalize_given([0.0, 2.0, 0.0]), Some([0.0, 1.0, 0.0]));
    }

    #[test]
    fn generated_normals_are_flat_on_a_cube_corner() {
        // Two triangles at 90°, sharing an edge: normals must not be blended.
        let p = vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
        ];
        let n = generate_normals(&p);
        assert_eq!(n[0], [0.0, 0.0, 1.0]);
        assert_eq!(n[3], [0.0, 1.0, 0.0]);
    }

    #[test]
    fn original_obj_without_faces_is_rejected() {
        assert!(matches!(
            obj_original(b"v 0 0 0\nv 1 0 0\n"),
            Err(ImportError::Empty { .. })
        ));
    }
}
