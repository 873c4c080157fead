//! The default profile's Wavefront OBJ reader: faces to triangle corners, one group per
//! `o` / `g` statement.
//!
//! Why not `tobj` (used before): it divides `v x y z w` positions by `w` (the OBJ
//! specification's `w` is a rational-curve weight, not a homogeneous divisor), gives a face
//! corner without `vt` the previous corner's texture coordinate instead of none, and reads an
//! `l` polyline of three or more points as a filled polygon. Its data model cannot tell those
//! cases apart afterwards, and the other OBJ crates refuse ordinary files (vertex colours) or
//! panic on free-form statements, so the small subset a mesh needs is read here:
//!
//! - `v x y z [w | r g b]`: the position is `x y z` as written; `w` and colours are ignored.
//! - `vt u [v [w]]` (a missing `v` is 0), `vn x y z`.
//! - `f c1 c2 c3 ...` with corners `v`, `v/vt`, `v//vn` or `v/vt/vn`; indices are 1-based,
//!   negative ones count back from the last element read. Polygons are fanned
//!   (c1, ci, ci+1). A corner without `vt` in a group where other corners have one gets
//!   (0, 0); a corner without `vn` gets a generated normal, and so does a corner whose `vn`
//!   index names a normal the file never defined (as tinyobjloader and other loaders do:
//!   tinyobjloader's own test models have such faces); [`ObjFile::undefined_normals`] counts them
//!   for a warning.
//! - `l` and `p` (and faces of fewer than 3 corners) are counted and produce no triangles.
//! - `o` and `g` start a new group when the current one has faces; everything else
//!   (materials, smoothing groups, free-form geometry) is ignored.
//!
//! Every error names its line (1-based).

use crate::error::{ImportError, Result};
use crate::mesh_build::MAX_ELEMENTS;

const FMT: &str = "OBJ";

/// Triangle corners of one `o` / `g` group.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ObjGroup {
    /// Three per triangle.
    pub positions: Vec<[f32; 3]>,
    /// Per corner; `None` where the corner has no `vn`. Absent when no corner has one.
    pub normals: Option<Vec<Option<[f32; 3]>>>,
    /// Per corner; `(0, 0)` where the corner has no `vt`. Absent when no corner has one.
    pub uvs: Option<Vec<[f32; 2]>>,
}

/// What an OBJ file holds, as far as meshes are concerned.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ObjFile {
    /// Groups with at least one triangle, in file order.
    pub groups: Vec<ObjGroup>,
    /// `l` polylines and 2-corner faces read (they make no triangles).
    pub lines: usize,
    /// `p` points and 1-corner faces read (they make no triangles).
    pub points: usize,
    /// Face corners whose `vn` index named no normal defined before it (their normals are
    /// generated), and the first of them.
    pub undefined_normals: Option<UndefinedNormals>,
}

/// Face corners whose normal index is out of range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UndefinedNormals {
    /// How many corners.
    pub corners: usize,
    /// The first one's line (1-based).
    pub line: usize,
    /// Its index as written.
    pub index: i64,
    /// Normals defined before that line.
    pub defined: usize,
}

impl std::fmt::Display for UndefinedNormals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} face corner(s) name normals the file does not define (first at line {}: normal \
             index {} with {} defined); their normals were generated",
            self.corners, self.line, self.index, self.defined
        )
    }
}

#[derive(Clone, Copy)]
struct Corner {
    v: usize,
    vt: Option<usize>,
    vn: Option<usize>,
}

/// Parse a 1-based or negative (relative) index and resolve it into a list of `len`
/// elements: `Ok(Err(i))` when it is out of range.
fn parse_index(
    raw: &str,
    len: usize,
    what: &str,
    line: usize,
) -> Result<std::result::Result<usize, i64>> {
    let bad = |why: String| ImportError::malformed(FMT, format!("line {line}: {what} {why}"));
    let i: i64 = raw
        .parse()
        .map_err(|_| bad(format!("index {raw:?} is not an integer")))?;
    let resolved = match i {
        0 => return Err(bad("index 0 (indices start at 1)".into())),
        i if i > 0 => i - 1,
        i => len as i64 + i,
    };
    Ok(usize::try_from(resolved).ok().filter(|&r| r < len).ok_or(i))
}

/// Resolve an index that must name a defined element.
fn resolve(raw: &str, len: usize, what: &str, line: usize) -> Result<usize> {
    parse_index(raw, len, what, line)?.map_err(|i| {
        ImportError::malformed(
            FMT,
            format!("line {line}: {what} index {i} is out of range ({len} defined so far)"),
        )
    })
}

fn floats<const N: usize>(
    tok: &mut std::str::SplitWhitespace<'_>,
    required: usize,
    what: &str,
    line: usize,
) -> Result<[f32; N]> {
    let mut out = [0f32; N];
    for (k, slot) in out.iter_mut().enumerate() {
        match tok.next() {
            Some(t) => {
                *slot = t.parse().map_err(|_| {
                    ImportError::malformed(
                        FMT,
                        format!("line {line}: {what}: {t:?} is not a number"),
                    )
                })?;
            }
            None if k >= required => break,
            None => {
                return Err(ImportError::malformed(
                    FMT,
                    format!("line {line}: {what} needs {required} numbers, found {k}"),
                ))
            }
        }
    }
    Ok(out)
}

/// Read the faces, lines and points of an OBJ file.
pub(crate) fn read_obj(bytes: &[u8]) -> Result<ObjFile> {
    let text = String::from_utf8_lossy(bytes);
    let mut pos: Vec<[f32; 3]> = Vec::new();
    let mut uv: Vec<[f32; 2]> = Vec::new();
    let mut nrm: Vec<[f32; 3]> = Vec::new();
    let mut file = ObjFile::default();
    let mut current: Vec<[Corner; 3]> = Vec::new();
    let mut total_corners = 0usize;
    let mut face: Vec<Corner> = Vec::new();

    let finish = |tris: &mut Vec<[Corner; 3]>,
                  file: &mut ObjFile,
                  pos: &[[f32; 3]],
                  uv: &[[f32; 2]],
                  nrm: &[[f32; 3]]| {
        if tris.is_empty() {
            return;
        }
        let corners = || tris.iter().flatten();
        let any_uv = corners().any(|c| c.vt.is_some());
        let any_n = corners().any(|c| c.vn.is_some());
        // Indices were checked when read.
        file.groups.push(ObjGroup {
            positions: corners().map(|c| pos[c.v]).collect(),
            normals: any_n.then(|| corners().map(|c| c.vn.map(|i| nrm[i])).collect()),
            uvs: any_uv.then(|| {
                corners()
                    .map(|c| c.vt.map_or([0.0, 0.0], |i| uv[i]))
                    .collect()
            }),
        });
        tris.clear();
    };

    for (n, raw_line) in text.lines().enumerate() {
        let line = n + 1;
        // A comment runs to the end of the line.
        let content = raw_line.split('#').next().unwrap_or("");
        let mut tok = content.split_whitespace();
        match tok.next() {
            Some("v") => pos.push(floats(&mut tok, 3, "vertex position", line)?),
            Some("vt") => uv.push(floats(&mut tok, 1, "texture coordinate", line)?),
            Some("vn") => nrm.push(floats(&mut tok, 3, "normal", line)?),
            Some("l") => file.lines += 1,
            Some("p") => file.points += 1,
            Some("o" | "g") => finish(&mut current, &mut file, &pos, &uv, &nrm),
            Some("f") => {
                face.clear();
                for c in tok {
                    let mut parts = c.split('/');
                    let v = parts.next().unwrap_or("");
                    let vt = parts.next().filter(|s| !s.is_empty());
                    let vn = parts.next().filter(|s| !s.is_empty());
                    if parts.next().is_some() {
                        return Err(ImportError::malformed(
                            FMT,
                            format!("line {line}: face corner {c:?} has more than 3 indices"),
                        ));
                    }
                    let vn = match vn.map(|s| parse_index(s, nrm.len(), "normal", line)) {
                        Some(Ok(Ok(i))) => Some(i),
                        Some(Ok(Err(index))) => {
                            let u = file.undefined_normals.get_or_insert(UndefinedNormals {
                                corners: 0,
                                line,
                                index,
                                defined: nrm.len(),
                            });
                            u.corners += 1;
                            None
                        }
                        Some(Err(e)) => return Err(e),
                        None => None,
                    };
                    face.push(Corner {
                        v: resolve(v, pos.len(), "vertex", line)?,
                        vt: vt
                            .map(|s| resolve(s, uv.len(), "texture coordinate", line))
                            .transpose()?,
                        vn,
                    });
                }
                match face.len() {
                    0 => {
                        return Err(ImportError::malformed(
                            FMT,
                            format!("line {line}: a face without corners"),
                        ))
                    }
                    1 => file.points += 1,
                    2 => file.lines += 1,
                    k => {
                        total_corners += 3 * (k - 2);
                        if total_corners > MAX_ELEMENTS {
                            return Err(ImportError::LimitExceeded {
                                what: "mesh indices",
                                value: total_corners as u64,
                                limit: MAX_ELEMENTS as u64,
                            });
                        }
                        for i in 1..k - 1 {
                            current.push([face[0], face[i], face[i + 1]]);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    finish(&mut current, &mut file, &pos, &uv, &nrm);
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_without_vt_get_zero_and_w_is_not_a_divisor() {
        let f = read_obj(b"v 0 0 0 2\nv 4 0 0 0.5\nv 0 4 0\nvt 0.5 0.25\nf 1/1 2/1 3\n").unwrap();
        assert_eq!(f.groups.len(), 1);
        let g = &f.groups[0];
        assert_eq!(
            g.positions,
            [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]]
        );
        assert_eq!(
            g.uvs.as_deref(),
            Some(&[[0.5, 0.25], [0.5, 0.25], [0.0, 0.0]][..])
        );
        assert_eq!(g.normals, None);
    }

    #[test]
    fn normals_the_file_never_defines_are_counted_and_left_out() {
        let f = read_obj(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//2 3//-3\n").unwrap();
        assert_eq!(
            f.undefined_normals,
            Some(UndefinedNormals {
                corners: 2,
                line: 5,
                index: 2,
                defined: 1
            })
        );
        assert_eq!(
            f.groups[0].normals.as_deref(),
            Some(&[Some([0.0, 0.0, 1.0]), None, None][..])
        );
    }

    #[test]
    fn groups_fans_lines_and_errors() {
        let f = read_obj(
            b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\n\
              o a\nf 1//1 2//1 3//1 4//1\nl 1 2 3\ng b\nf -4 -3 -2\np 1\n",
        )
        .unwrap();
        assert_eq!((f.groups.len(), f.lines, f.points), (2, 1, 1));
        assert_eq!(f.groups[0].positions.len(), 6);
        assert_eq!(
            f.groups[0].positions[3..],
            [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
        );
        assert_eq!(f.groups[1].normals, None);
        for (text, needle) in [
            (
                "v 0 0 0\nf 1 2 3\n",
                "line 2: vertex index 2 is out of range",
            ),
            ("v 0 0\n", "line 1: vertex position needs 3 numbers"),
            ("v 0 0 0\nvn 0 0 1\nf 1//0 1 1\n", "line 3: normal index 0"),
            ("v 0 0 0\nf 0 1 1\n", "index 0"),
            ("v 0 0 0\nf -2 1 1\n", "index -2 is out of range"),
            ("v 0 0 0\nf 1/x 1 1\n", "\"x\" is not an integer"),
        ] {
            let msg = read_obj(text.as_bytes()).unwrap_err().to_string();
            assert!(msg.contains(needle), "{text:?}: {msg}");
        }
    }
}
