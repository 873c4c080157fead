//! A mesh under construction, shared by every mesh importer: the triangle soups a reader
//! produces ([`Soup`], [`SoupExtra`]), the [`Builder`] that indexes them (generated normals,
//! MikkTSpace tangents, merged vertices, the sub-mesh table) into [`MeshData`], and the
//! element limit. Re-exported by [`crate::mesh`].

use std::collections::HashMap;
use std::path::PathBuf;

use crate::error::{ImportError, Result};

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
    /// What the conversion changed or left out, for the user to see (e.g. OBJ normals the
    /// file names but never defines, generated instead); empty when nothing was.
    pub warnings: Vec<String>,
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
    pub(crate) fn add(&mut self, soup: Soup) -> Result<()> {
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
            warnings: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
