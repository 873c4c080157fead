//! Reading a glTF / GLB document, shared by the mesh importers (both profiles) and the
//! animation importer: parsing, refusing geometry that cannot be read (Draco, meshopt),
//! loading the buffers, the POSITION stream of a primitive, and [`catch`] for readers that
//! give up with a panic.

use std::path::{Path, PathBuf};

use gltf::json::accessor::{ComponentType as C, Type as T};

use crate::error::{ImportError, Result};
use crate::mesh_build::MAX_ELEMENTS;

/// The Draco geometry compression extension.
pub const DRACO: &str = "KHR_draco_mesh_compression";
/// The meshoptimizer buffer compression extension.
pub const MESHOPT: &str = "EXT_meshopt_compression";

fn compressed(ext: &str, what: &str) -> ImportError {
    let kind = if ext == DRACO {
        "Draco-compressed geometry"
    } else {
        "meshopt-compressed buffers"
    };
    ImportError::unsupported(
        "glTF",
        format!(
            "{what} uses {kind} ({ext}), which voxcaf cannot decode; \
             write the file without it (e.g. `gltf-transform copy` or Blender's exporter \
             with compression off)"
        ),
    )
}

/// Every accessor a mesh primitive names (attributes, indices, morph targets) exists: the gltf
/// crate's validation indexes the POSITION accessor before it checks the index (a panic), and
/// the error names the primitive.
fn check_accessor_indices(root: &gltf::json::Root) -> Result<()> {
    let count = root.accessors.len();
    for (mi, mesh) in root.meshes.iter().enumerate() {
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            let named = prim.attributes.values().chain(&prim.indices).chain(
                prim.targets.iter().flatten().flat_map(|t| {
                    [&t.positions, &t.normals, &t.tangents]
                        .into_iter()
                        .flatten()
                }),
            );
            if let Some(bad) = named.map(|a| a.value()).find(|&a| a >= count) {
                return Err(ImportError::malformed(
                    "glTF",
                    format!(
                        "mesh {mi} primitive {pi} names accessor {bad}, but the file has \
                         {count} accessor{}",
                        if count == 1 { "" } else { "s" }
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Every accessor the importers read has a type glTF 2.0 allows for its use: vertex attributes
/// (see [`attribute_type_error`]; a file using quantized attributes is named as such), indices
/// (a SCALAR of U8, U16 or U32), morph target displacements (a VEC3 of F32) and skins' inverse
/// bind matrices (a MAT4 of F32). The gltf crate reads each with the element size of the type
/// it expects (checked only in debug builds), so another type would be misread.
fn check_read_types(root: &gltf::json::Root) -> Result<()> {
    for (mi, mesh) in root.meshes.iter().enumerate() {
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            for (semantic, index) in &prim.attributes {
                let (gltf::json::validation::Checked::Valid(semantic), Some(a)) =
                    (semantic, root.accessors.get(index.value()))
                else {
                    continue;
                };
                let Some(want) = attribute_type_error(semantic, a) else {
                    continue;
                };
                let at = format!("mesh {mi} primitive {pi}");
                if root.extensions_used.iter().any(|e| e == QUANTIZATION) {
                    return Err(ImportError::unsupported(
                        "glTF",
                        format!(
                            "{at} has quantized attributes ({QUANTIZATION}), which voxcaf \
                             cannot read; write the file without it"
                        ),
                    ));
                }
                return Err(ImportError::malformed("glTF", format!("{at}: {want}")));
            }
            let at = || format!("mesh {mi} primitive {pi}");
            if let Some(e) = prim
                .indices
                .as_ref()
                .and_then(|i| index_type_error(root, i))
            {
                return Err(ImportError::malformed("glTF", format!("{}: {e}", at())));
            }
            for (ti, t) in prim.targets.iter().flatten().enumerate() {
                let named = [&t.positions, &t.normals, &t.tangents];
                if let Some(e) = named.into_iter().flatten().find_map(|i| {
                    let a = root.accessors.get(i.value())?;
                    let ok = |ty: T, ct: C, _| ty == T::Vec3 && ct == C::F32;
                    type_error(a, ok, "a VEC3 of F32")
                }) {
                    let e = format!("{} morph target {ti}: {e}", at());
                    return Err(ImportError::malformed("glTF", e));
                }
            }
        }
    }
    for (si, skin) in root.skins.iter().enumerate() {
        let Some(a) = skin
            .inverse_bind_matrices
            .as_ref()
            .and_then(|i| root.accessors.get(i.value()))
        else {
            continue;
        };
        let ok = |ty: T, ct: C, _| ty == T::Mat4 && ct == C::F32;
        if let Some(e) = type_error(a, ok, "a MAT4 of F32") {
            let e = format!("skin {si}: inverse bind matrices: {e}");
            return Err(ImportError::malformed("glTF", e));
        }
    }
    Ok(())
}

/// Every animation channel targets a node the file has, by a path glTF 2.0 names: the gltf
/// crate's validation of an animation checks only its samplers, and reading a channel's
/// target unwraps both (a panic).
fn check_animation_targets(root: &gltf::json::Root) -> Result<()> {
    let nodes = root.nodes.len();
    for (ai, anim) in root.animations.iter().enumerate() {
        for (ci, ch) in anim.channels.iter().enumerate() {
            let at = format!("animation {ai} channel {ci}");
            let node = ch.target.node.value();
            if node >= nodes {
                return Err(ImportError::malformed(
                    "glTF",
                    format!(
                        "{at} targets node {node}, but the file has {nodes} node{}",
                        if nodes == 1 { "" } else { "s" }
                    ),
                ));
            }
            if let gltf::json::validation::Checked::Invalid = ch.target.path {
                return Err(ImportError::malformed(
                    "glTF",
                    format!("{at}: its target path is not translation, rotation, scale or weights"),
                ));
            }
        }
    }
    Ok(())
}

/// What is wrong with accessor `a` when `ok(type, component type, normalized)` refuses it (the
/// gltf crate reads it with the element size of the type it expects, not of the accessor's):
/// "must be {want}, not …". None when it is fine or its type is not valid JSON (which the
/// crate's own validation reports).
fn type_error(
    a: &gltf::json::Accessor,
    ok: impl Fn(T, C, bool) -> bool,
    want: &str,
) -> Option<String> {
    use gltf::json::validation::Checked::Valid;
    let (Valid(ty), Valid(ct)) = (&a.type_, &a.component_type) else {
        return None;
    };
    (!ok(*ty, ct.0, a.normalized)).then(|| {
        format!(
            "must be {want}, not a {ty:?} of {:?}{}",
            ct.0,
            if a.normalized { " (normalized)" } else { "" }
        )
    })
}

/// The error of a primitive's index accessor that is not a SCALAR of U8, U16 or U32.
fn index_type_error(
    root: &gltf::json::Root,
    i: &gltf::json::Index<gltf::json::Accessor>,
) -> Option<String> {
    let a = root.accessors.get(i.value())?;
    let ok = |ty: T, ct: C, _| ty == T::Scalar && matches!(ct, C::U8 | C::U16 | C::U32);
    type_error(a, ok, "a SCALAR of U8, U16 or U32").map(|e| format!("indices {e}"))
}

/// The glTF extension for integer vertex attributes.
const QUANTIZATION: &str = "KHR_mesh_quantization";

/// What glTF 2.0 (§3.7.2.1) requires of the accessor of a vertex attribute, when `a` breaks
/// it. The gltf crate's readers assume these types (checking only in debug builds), so an
/// attribute of another type would be read with the wrong element size.
fn attribute_type_error(
    semantic: &gltf::json::mesh::Semantic,
    a: &gltf::json::Accessor,
) -> Option<String> {
    use gltf::json::mesh::Semantic as S;
    let unit =
        |ct: C, normalized: bool| ct == C::F32 || (normalized && matches!(ct, C::U8 | C::U16));
    let want = match semantic {
        S::Positions | S::Normals => "a VEC3 of F32",
        S::Tangents => "a VEC4 of F32",
        S::TexCoords(_) => "a VEC2 of F32 or of normalized U8/U16",
        S::Colors(_) => "a VEC3 or VEC4 of F32 or of normalized U8/U16",
        S::Joints(_) => "a VEC4 of U8 or U16",
        S::Weights(_) => "a VEC4 of F32 or of normalized U8/U16",
        #[allow(unreachable_patterns)]
        _ => return None,
    };
    let ok = |ty: T, ct: C, normalized: bool| match semantic {
        S::Positions | S::Normals => ty == T::Vec3 && ct == C::F32,
        S::Tangents => ty == T::Vec4 && ct == C::F32,
        S::TexCoords(_) => ty == T::Vec2 && unit(ct, normalized),
        S::Colors(_) => matches!(ty, T::Vec3 | T::Vec4) && unit(ct, normalized),
        S::Joints(_) => ty == T::Vec4 && matches!(ct, C::U8 | C::U16),
        S::Weights(_) => ty == T::Vec4 && unit(ct, normalized),
        #[allow(unreachable_patterns)]
        _ => true,
    };
    type_error(a, ok, want).map(|e| format!("attribute {semantic:?} {e}"))
}

/// Refuse a file whose geometry cannot be read: one that requires Draco or meshopt, or a
/// primitive whose accessors hold no data because its geometry is only present in Draco form
/// (accessors without a buffer view, in a file that uses Draco).
pub(crate) fn check_document(doc: &gltf::Document) -> Result<()> {
    if let Some(ext) = doc
        .extensions_required()
        .find(|e| *e == DRACO || *e == MESHOPT)
    {
        return Err(compressed(ext, "the file requires and"));
    }
    if !doc.extensions_used().any(|e| e == DRACO) {
        return Ok(());
    }
    for mesh in doc.meshes() {
        for prim in mesh.primitives() {
            let empty = prim
                .attributes()
                .map(|(_, a)| a)
                .chain(prim.indices())
                .any(|a| a.view().is_none() && a.sparse().is_none());
            if empty {
                return Err(compressed(
                    DRACO,
                    &format!("mesh {} primitive {}", mesh.index(), prim.index()),
                ));
            }
        }
    }
    Ok(())
}

/// The error for buffers that failed to load: named after meshopt when the file uses it (its
/// fallback buffers may have no data at all).
pub(crate) fn buffer_error(doc: &gltf::Document, e: gltf::Error) -> ImportError {
    if doc.extensions_used().any(|x| x == MESHOPT) {
        compressed(
            MESHOPT,
            &format!("a buffer could not be loaded ({e}); the file"),
        )
    } else {
        ImportError::malformed("glTF", e.to_string())
    }
}

fn gltf_err(e: gltf::Error) -> ImportError {
    ImportError::malformed("glTF", e.to_string())
}

/// Parse a glTF/GLB and load its buffers. `base` resolves external buffer files.
pub(crate) fn gltf_load(
    bytes: &[u8],
    base: Option<&Path>,
) -> Result<(gltf::Document, Vec<gltf::buffer::Data>, Vec<PathBuf>)> {
    if let Some(length) = short_glb(bytes) {
        return Err(ImportError::malformed(
            "glTF",
            format!("the GLB header's length field is {length}, less than the 12-byte header"),
        ));
    }
    // Extensions whose data cannot be read are named before validation, which would only
    // report their accessors as "missing data".
    let g = gltf::Gltf::from_slice_without_validation(bytes).map_err(gltf_err)?;
    check_accessor_indices(g.document.as_json())?;
    check_document(&g.document)?;
    check_read_types(g.document.as_json())?;
    check_animation_targets(g.document.as_json())?;
    let doc = gltf::Document::from_json(g.document.into_json()).map_err(gltf_err)?;
    let mut deps = Vec::new();
    for uri in external_buffers(&doc) {
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
    let buffers = gltf::import_buffers(&doc, base, g.blob).map_err(|e| buffer_error(&doc, e))?;
    Ok((doc, buffers, deps))
}

/// The files a glTF document's external buffers name (relative to its folder): every buffer URI
/// that is not a `data:` URI, percent-decoded as the `gltf` crate decodes it before opening the
/// file.
fn external_buffers(doc: &gltf::Document) -> Vec<String> {
    doc.buffers()
        .filter_map(|b| match b.source() {
            gltf::buffer::Source::Uri(uri) if !uri.starts_with("data:") => {
                Some(urlencoding::decode(uri).map_or_else(|_| uri.to_string(), |d| d.into_owned()))
            }
            _ => None,
        })
        .collect()
}

/// [`external_buffers`] of a glTF or GLB file's bytes, read without validation (none when they
/// are not glTF): the files its conversion will open, for `crate::inputs`.
pub(crate) fn external_buffer_paths(bytes: &[u8]) -> Vec<String> {
    if short_glb(bytes).is_some() {
        return Vec::new();
    }
    gltf::Gltf::from_slice_without_validation(bytes)
        .map(|g| external_buffers(&g.document))
        .unwrap_or_default()
}

/// The length field of a GLB header that is below the 12-byte header itself, which the gltf
/// crate would subtract 12 from unchecked (a panic with overflow checks, else a wrapped size).
fn short_glb(bytes: &[u8]) -> Option<u32> {
    let head = bytes.strip_prefix(b"glTF")?.get(4..8)?;
    let length = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    (length < 12).then_some(length)
}

pub(crate) fn catch<T>(what: &'static str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    // The gltf and OBJ readers index with arithmetic that can overflow on crafted files; treat
    // a panic there as malformed input instead of taking the process down.
    voxcaf_guard::catch(f).unwrap_or_else(|panic| {
        Err(ImportError::malformed(
            what,
            format!("inconsistent accessor or buffer data (the reader gave up: {panic})"),
        ))
    })
}

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
