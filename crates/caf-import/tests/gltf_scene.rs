//! glTF default profile: node transforms, sub-mesh table, vertex colours, second UV set, and the
//! corpus files (`../shared/corpus/mesh`) that voxcaf used to mishandle.

use std::path::{Path, PathBuf};

use caf::mesh::{MeshView, SubMeshEntry};
use caf::Asset;
use caf_import::{convert, convert_file, MeshNodes, Profile, Settings};
use serde_json::{json, Value};

/// A GLB from its JSON and binary chunk.
fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut j = json.to_string().into_bytes();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + j.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

/// Appends f32 data to `bin` and describes it as a buffer view + accessor.
struct Bin {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn new() -> Bin {
        Bin {
            bin: Vec::new(),
            views: Vec::new(),
            accessors: Vec::new(),
        }
    }

    fn floats<const N: usize>(&mut self, data: &[[f32; N]], ty: &str) -> usize {
        let offset = self.bin.len();
        for v in data {
            for c in v {
                self.bin.extend_from_slice(&c.to_le_bytes());
            }
        }
        self.views.push(
            json!({"buffer": 0, "byteOffset": offset, "byteLength": self.bin.len() - offset}),
        );
        let mut acc = json!({"bufferView": self.views.len() - 1, "componentType": 5126, "count": data.len(), "type": ty});
        if ty == "VEC3" {
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for v in data {
                for k in 0..3 {
                    lo[k] = lo[k].min(v[k]);
                    hi[k] = hi[k].max(v[k]);
                }
            }
            acc["min"] = json!(lo);
            acc["max"] = json!(hi);
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    fn indices(&mut self, data: &[u32]) -> usize {
        let offset = self.bin.len();
        for i in data {
            self.bin.extend_from_slice(&i.to_le_bytes());
        }
        self.views.push(
            json!({"buffer": 0, "byteOffset": offset, "byteLength": self.bin.len() - offset}),
        );
        self.accessors.push(json!({"bufferView": self.views.len() - 1, "componentType": 5125, "count": data.len(), "type": "SCALAR"}));
        self.accessors.len() - 1
    }

    /// The GLB with these meshes, nodes and scene.
    fn finish(self, meshes: Value, nodes: Value, scene_nodes: Value, materials: usize) -> Vec<u8> {
        let mut doc = json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": self.bin.len()}],
            "bufferViews": self.views,
            "accessors": self.accessors,
            "meshes": meshes,
            "nodes": nodes,
            "scenes": [{"nodes": scene_nodes}],
            "scene": 0,
        });
        if materials > 0 {
            doc["materials"] = Value::Array((0..materials).map(|_| json!({})).collect());
        }
        glb(&doc, &self.bin)
    }
}

/// A unit cube centred on the origin: 24 vertices (per-face normals, tangents along the face's
/// u axis, UVs), 36 indices wound counter-clockwise seen from outside.
struct Cube {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    tangents: Vec<[f32; 4]>,
    uvs: Vec<[f32; 2]>,
    indices: Vec<u32>,
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn len(a: [f32; 3]) -> f32 {
    dot(a, a).sqrt()
}

fn cube() -> Cube {
    let mut c = Cube {
        positions: Vec::new(),
        normals: Vec::new(),
        tangents: Vec::new(),
        uvs: Vec::new(),
        indices: Vec::new(),
    };
    for axis in 0..3 {
        for sign in [1.0f32, -1.0] {
            let mut n = [0.0; 3];
            n[axis] = sign;
            let mut u = [0.0; 3];
            u[(axis + 1) % 3] = 1.0;
            let v = cross(n, u);
            let base = c.positions.len() as u32;
            for (a, b) in [(-0.5f32, -0.5f32), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
                c.positions
                    .push([0, 1, 2].map(|k| n[k] * 0.5 + u[k] * a + v[k] * b));
                c.normals.push(n);
                c.tangents.push([u[0], u[1], u[2], 1.0]);
                c.uvs.push([a + 0.5, b + 0.5]);
            }
            c.indices.extend([0, 1, 2, 0, 2, 3].map(|i| base + i));
        }
    }
    c
}

/// A mesh's accessors for the cube; `colors` adds COLOR_0 and TEXCOORD_1.
fn cube_primitive(b: &mut Bin, colors: bool, material: Option<usize>) -> Value {
    let c = cube();
    let mut attrs = json!({
        "POSITION": b.floats(&c.positions, "VEC3"),
        "NORMAL": b.floats(&c.normals, "VEC3"),
        "TANGENT": b.floats(&c.tangents, "VEC4"),
        "TEXCOORD_0": b.floats(&c.uvs, "VEC2"),
    });
    if colors {
        let col: Vec<[f32; 4]> = c
            .positions
            .iter()
            .map(|p| [p[0] + 0.5, p[1] + 0.5, p[2] + 0.5, 1.0])
            .collect();
        let uv1: Vec<[f32; 2]> = c
            .positions
            .iter()
            .map(|p| [p[0] * 2.0, p[2] * 2.0])
            .collect();
        attrs["COLOR_0"] = json!(b.floats(&col, "VEC4"));
        attrs["TEXCOORD_1"] = json!(b.floats(&uv1, "VEC2"));
    }
    let mut p = json!({"attributes": attrs, "indices": b.indices(&c.indices)});
    if let Some(m) = material {
        p["material"] = json!(m);
    }
    p
}

fn settings(nodes: MeshNodes) -> Settings {
    Settings {
        mesh_nodes: nodes,
        ..Settings::default()
    }
}

fn view_of(file: &[u8]) -> MeshView<'_> {
    // The tests keep the bytes alive; parse borrows them.
    let asset = Asset::parse(file).unwrap();
    MeshView::from_asset(&asset).unwrap()
}

fn convert_glb(bytes: &[u8], s: &Settings) -> Vec<u8> {
    convert(bytes, Path::new("scene.glb"), s)
        .unwrap_or_else(|e| panic!("{e}"))
        .to_caf_bytes()
}

/// Two cubes: node 0 moved to x = -2 and scaled 2x along y; node 1 a parent at x = +3 whose
/// child (node 2) is mirrored in x and turned 90 degrees about z.
fn two_cube_scene() -> Vec<u8> {
    let mut b = Bin::new();
    let prim = cube_primitive(&mut b, false, None);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    b.finish(
        json!([{"primitives": [prim]}]),
        json!([
            {"mesh": 0, "translation": [-2.0, 0.0, 0.0], "scale": [1.0, 2.0, 1.0]},
            {"translation": [3.0, 0.0, 0.0], "children": [2]},
            {"mesh": 0, "rotation": [0.0, 0.0, s, s], "scale": [-1.0, 1.0, 1.0]},
        ]),
        json!([0, 1]),
        0,
    )
}

/// Every triangle faces away from the centre of its cube, its stored normals agree with the
/// winding and are unit length, and tangents are unit and perpendicular to the normals.
fn assert_outward(view: &MeshView<'_>, centres: &[[f32; 3]]) {
    for t in view.triangles() {
        let [a, b, c] = t.map(|i| view.vertices[i as usize]);
        let face = cross(sub(b.position, a.position), sub(c.position, a.position));
        let mid = [0, 1, 2].map(|k| (a.position[k] + b.position[k] + c.position[k]) / 3.0);
        let centre = centres
            .iter()
            .min_by(|p, q| len(sub(mid, **p)).total_cmp(&len(sub(mid, **q))))
            .unwrap();
        assert!(
            dot(face, sub(mid, *centre)) > 0.0,
            "triangle {t:?} faces inwards"
        );
        for v in [a, b, c] {
            assert!((len(v.normal) - 1.0).abs() < 1e-5);
            assert!(dot(v.normal, face) > 0.0, "normal disagrees with winding");
            // Perpendicular to the face's edges even under non-uniform scale.
            let fl = len(face);
            assert!(
                (dot(v.normal, face) / fl - 1.0).abs() < 1e-4,
                "normal {:?} not perpendicular to the face {face:?}",
                v.normal
            );
            let tan = [v.tangent[0], v.tangent[1], v.tangent[2]];
            assert!((len(tan) - 1.0).abs() < 1e-5);
            assert!(dot(tan, v.normal).abs() < 1e-5);
        }
    }
}

#[test]
fn two_cube_scene_is_flattened_with_world_transforms() {
    let file = convert_glb(&two_cube_scene(), &Settings::default());
    let view = view_of(&file);
    // The same material for both: one sub-mesh, both cubes in it.
    assert_eq!(view.meta.index_count, 72);
    assert_eq!(view.meta.vertex_count, 48);
    assert_eq!(view.meta.sub_mesh_count, 1);
    assert!(
        view.ext.is_none(),
        "one sub-mesh, no material: original layout"
    );
    let xs: Vec<f32> = view.vertices.iter().map(|v| v.position[0]).collect();
    let left = xs.iter().filter(|&&x| x < 0.0).count();
    assert_eq!(left, 24, "one cube on each side");
    let table = view.sub_meshes();
    // Node 0: x in [-2.5, -1.5], y in [-1, 1] (scaled 2x); node 2: x in [2.5, 3.5].
    assert_eq!(table[0].bounds_min, [-2.5, -1.0, -0.5]);
    assert_eq!(table[0].bounds_max, [3.5, 1.0, 0.5]);
    assert_outward(&view, &[[-2.0, 0.0, 0.0], [3.0, 0.0, 0.0]]);
    // The mirrored cube's tangent handedness flips (w = -1), the other keeps w = 1.
    for v in view.vertices.iter() {
        let want = if v.position[0] > 0.0 { -1.0 } else { 1.0 };
        assert_eq!(v.tangent[3], want, "at {:?}", v.position);
    }
}

#[test]
fn nodes_can_be_kept_as_sub_meshes() {
    let file = convert_glb(&two_cube_scene(), &settings(MeshNodes::Keep));
    let view = view_of(&file);
    let table = view.sub_meshes();
    assert_eq!(view.meta.sub_mesh_count, 2);
    assert_eq!(table.len(), 2);
    assert_eq!((table[0].first_index, table[0].index_count), (0, 36));
    assert_eq!((table[1].first_index, table[1].index_count), (36, 36));
    assert_eq!((table[0].node, table[1].node), (0, 2));
    assert_eq!(table[0].material, SubMeshEntry::NONE);
    assert_eq!(table[0].bounds_min, [-2.5, -1.0, -0.5]);
    assert_eq!(table[0].bounds_max, [-1.5, 1.0, 0.5]);
    // The rotated child: its bounds are within 1e-6 of [2.5, 3.5] x [-0.5, 0.5].
    for (got, want) in table[1]
        .bounds_min
        .iter()
        .zip([2.5, -0.5, -0.5])
        .chain(table[1].bounds_max.iter().zip([3.5, 0.5, 0.5]))
    {
        assert!((got - want).abs() < 1e-6, "{:?}", table[1]);
    }
    assert_outward(&view, &[[-2.0, 0.0, 0.0], [3.0, 0.0, 0.0]]);
    // The sidecar key parses to the same setting.
    let o =
        caf_import::SettingsOverride::from_toml("mesh_nodes = \"keep\"\n", Path::new("s.glb.toml"))
            .unwrap();
    assert_eq!(
        Settings::default().with_override(&o).mesh_nodes,
        MeshNodes::Keep
    );
}

#[test]
fn materials_colours_and_second_uvs_are_stored() {
    let mut b = Bin::new();
    let p0 = cube_primitive(&mut b, true, Some(1));
    let p1 = cube_primitive(&mut b, false, Some(0));
    let p2 = cube_primitive(&mut b, false, Some(1));
    let glb = b.finish(
        json!([{"primitives": [p0, p1]}, {"primitives": [p2]}]),
        json!([{"mesh": 0}, {"mesh": 1, "translation": [0.0, 5.0, 0.0]}]),
        json!([0, 1]),
        2,
    );
    let file = convert_glb(&glb, &Settings::default());
    let view = view_of(&file);
    let table = view.sub_meshes();
    // Flattened by material in order of first use: material 1 (two cubes), then 0.
    assert_eq!(table.len(), 2);
    assert_eq!((table[0].material, table[0].index_count), (1, 72));
    assert_eq!((table[1].material, table[1].index_count), (0, 36));
    assert_eq!(table[0].bounds_max[1], 5.5);
    let colors = view.colors.as_ref().expect("COLOR_0 stored");
    let uv1 = view.uv1.as_ref().expect("TEXCOORD_1 stored");
    assert_eq!(colors.len(), view.vertices.len());
    for (i, v) in view.vertices.iter().enumerate() {
        let p = v.position;
        if p[1] > 1.0 {
            // The moved cube has no colours: the glTF default white.
            assert_eq!(colors[i], [1.0; 4]);
            assert_eq!(uv1[i], [0.0, 0.0]);
        } else if colors[i] != [1.0; 4] {
            assert_eq!(colors[i], [p[0] + 0.5, p[1] + 0.5, p[2] + 0.5, 1.0]);
            assert_eq!(uv1[i], [p[0] * 2.0, p[2] * 2.0]);
        }
    }
    // Vertices of the coloured and the plain cube at the same place stay apart.
    assert_eq!(view.vertices.len(), 72);
    // `asset info` describes the table and the streams.
    let caf_asset = Asset::parse(&file).unwrap();
    let decoded = caf::describe::Decoded::from_asset(&caf_asset)
        .unwrap()
        .unwrap();
    let text = decoded.to_string();
    assert!(text.contains("streams COLOR_0 + TEXCOORD_1"), "{text}");
    assert!(
        text.contains("2 sub-mesh(es): indices 0..72 material 1"),
        "{text}"
    );
    // The original profile still writes the original layout.
    let orig = convert(&glb, Path::new("scene.glb"), &Settings::original()).unwrap();
    assert_eq!(orig.metadata.len(), 16);
}

#[test]
fn a_node_cycle_is_an_error_not_a_hang() {
    let mut b = Bin::new();
    let prim = cube_primitive(&mut b, false, None);
    let glb = b.finish(
        json!([{"primitives": [prim]}]),
        json!([{"mesh": 0, "children": [1]}, {"children": [0]}]),
        json!([0]),
        0,
    );
    assert!(convert(&glb, Path::new("c.glb"), &Settings::default()).is_err());
}

#[test]
fn meshopt_is_refused_by_name() {
    let mut b = Bin::new();
    let prim = cube_primitive(&mut b, false, None);
    let mut bytes = b.finish(
        json!([{"primitives": [prim]}]),
        json!([{"mesh": 0}]),
        json!([0]),
        0,
    );
    // Rewrite the JSON chunk with the extension listed as required.
    let doc_start = 20;
    let doc_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut doc: Value = serde_json::from_slice(&bytes[doc_start..doc_start + doc_len]).unwrap();
    doc["extensionsUsed"] = json!(["EXT_meshopt_compression"]);
    doc["extensionsRequired"] = json!(["EXT_meshopt_compression"]);
    let bin_start = doc_start + doc_len + 8;
    let bin = bytes.split_off(bin_start);
    bytes = glb(&doc, &bin);
    for s in [Settings::default(), Settings::original()] {
        let e = convert(&bytes, Path::new("m.glb"), &s)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("EXT_meshopt_compression") && e.contains("meshopt"),
            "{e}"
        );
    }
}

/// `../shared/corpus/mesh/NAME`, or `None` (skip) unless the golden data is required.
fn corpus(name: &str) -> Option<PathBuf> {
    voxcaf_golden::corpus(&format!("mesh/{name}"))
}

#[test]
fn corpus_feature_id_attribute_is_ignored() {
    let Some(path) = corpus("FeatureIdAttribute.gltf") else {
        return;
    };
    for profile in [Profile::Default, Profile::Original] {
        let s = Settings {
            profile,
            ..Settings::default()
        };
        let c = convert_file(&path, &s).unwrap_or_else(|e| panic!("{profile}: {e}"));
        let file = c.to_caf_bytes();
        let view = view_of(&file);
        // 16 positions on a plane, 8 triangles; the `_FEATURE_ID_0` values are not stored.
        assert_eq!(view.meta.index_count, 24, "{profile}");
        assert!(view.vertices.iter().all(|v| v.normal == [0.0, 0.0, 1.0]));
        if profile == Profile::Default {
            // Material 0 is recorded in the sub-mesh table.
            assert_eq!(view.sub_meshes()[0].material, 0);
            assert_eq!(view.sub_meshes()[0].bounds_max, [1.0, 1.0, 0.0]);
        }
    }
}

#[test]
fn corpus_draco_is_refused_by_name() {
    let Some(path) = corpus("BoxDraco/BoxDraco.gltf") else {
        return;
    };
    for s in [Settings::default(), Settings::original()] {
        let e = convert_file(&path, &s).unwrap_err().to_string();
        assert!(
            e.contains("Draco") && e.contains("KHR_draco_mesh_compression"),
            "{e}"
        );
    }
}

#[test]
fn a_glb_length_shorter_than_its_header_is_a_typed_error() {
    // A fuzzer's find: the gltf crate subtracts the header from this field unchecked.
    let mut bytes = glb(&json!({"asset": {"version": "2.0"}}), &[]);
    for length in [0u32, 11] {
        bytes[8..12].copy_from_slice(&length.to_le_bytes());
        for kind in [None, Some(caf_import::AssetKind::Animation)] {
            let s = Settings {
                kind,
                ..Settings::default()
            };
            let e = convert(&bytes, Path::new("short.glb"), &s)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!(
                    "length field is {length}, less than the 12-byte header"
                )),
                "{e}"
            );
        }
    }
}

#[test]
fn a_primitive_naming_a_missing_accessor_is_a_typed_error() {
    // A fuzzer's find: gltf's validation indexes the POSITION accessor before checking it.
    let doc = json!({
        "asset": {"version": "2.0"},
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
    });
    for e in refusals(&doc) {
        assert!(
            e.contains("mesh 0 primitive 0 names accessor 0, but the file has 0 accessors"),
            "{e}"
        );
    }
}

#[test]
fn vertex_attributes_of_another_type_than_gltf_allows_are_refused_by_type() {
    // A fuzzer's find: a VEC2 NORMAL was read with the VEC3 element size in release builds.
    let accessor = |ty: &str, component: u32| {
        json!({"componentType": component, "count": 3, "type": ty,
               "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 1.0]})
    };
    let doc = |normal: &str, position_component: u32, used: &[&str]| {
        json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": used,
            "accessors": [accessor("VEC3", position_component), accessor(normal, 5126)],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}}]}],
            "nodes": [{"mesh": 0}],
            "scenes": [{"nodes": [0]}],
        })
    };
    let error = |d: &Value| {
        convert(&glb(d, &[]), Path::new("a.glb"), &Settings::default())
            .unwrap_err()
            .to_string()
    };
    let e = error(&doc("VEC2", 5126, &[]));
    assert!(
        e.contains(
            "mesh 0 primitive 0: attribute Normals must be a VEC3 of F32, not a Vec2 of F32"
        ),
        "{e}"
    );
    // Integer positions are what KHR_mesh_quantization allows: named as that extension.
    let e = error(&doc("VEC3", 5122, &["KHR_mesh_quantization"]));
    assert!(
        e.contains("quantized attributes (KHR_mesh_quantization)") && e.contains("unsupported"),
        "{e}"
    );
}

#[test]
fn indices_morph_targets_and_inverse_bind_matrices_of_another_type_are_refused_by_type() {
    // A fuzzer's find: a skin's VEC4 inverse bind matrices were read as MAT4 (an assertion in
    // debug builds, a misread in release builds). Indices and morph targets are read the same way.
    let accessor = |ty: &str, component: u32| {
        json!({"componentType": component, "count": 3, "type": ty,
               "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 1.0]})
    };
    let doc = |second: Value, primitive: Value, skins: Value| {
        json!({
            "asset": {"version": "2.0"},
            "accessors": [accessor("VEC3", 5126), second],
            "meshes": [{"primitives": [primitive]}],
            "nodes": [{"mesh": 0, "skin": 0}, {}],
            "skins": skins,
            "scenes": [{"nodes": [0]}],
        })
    };
    let plain = json!({"attributes": {"POSITION": 0}});
    let cases = [
        (
            doc(
                accessor("VEC4", 5126),
                plain.clone(),
                json!([{"joints": [1], "inverseBindMatrices": 1}]),
            ),
            "skin 0: inverse bind matrices: must be a MAT4 of F32, not a Vec4 of F32",
        ),
        (
            doc(
                accessor("VEC2", 5123),
                json!({"attributes": {"POSITION": 0}, "indices": 1}),
                json!([{"joints": [1]}]),
            ),
            "mesh 0 primitive 0: indices must be a SCALAR of U8, U16 or U32, not a Vec2 of U16",
        ),
        (
            doc(
                accessor("VEC2", 5126),
                json!({"attributes": {"POSITION": 0}, "targets": [{"POSITION": 1}]}),
                json!([{"joints": [1]}]),
            ),
            "mesh 0 primitive 0 morph target 0: must be a VEC3 of F32, not a Vec2 of F32",
        ),
    ];
    for (d, want) in cases {
        for e in refusals(&d) {
            assert!(e.contains(want), "{e}");
        }
    }
}

/// The errors of converting the GLB of `doc` as a mesh and as an animation.
fn refusals(doc: &Value) -> [String; 2] {
    [None, Some(caf_import::AssetKind::Animation)].map(|kind| {
        let s = Settings {
            kind,
            ..Settings::default()
        };
        convert(&glb(doc, &[]), Path::new("a.glb"), &s)
            .unwrap_err()
            .to_string()
    })
}

#[test]
fn an_animation_channel_with_a_missing_node_or_an_unknown_path_is_refused_by_name() {
    // A fuzzer's find: the gltf crate validates an animation's samplers but not its channels'
    // targets, and reading a target unwraps both (a panic, caught as "the reader gave up").
    let doc = |node: u32, path: &str| {
        json!({
            "asset": {"version": "2.0"},
            "accessors": [
                {"componentType": 5126, "count": 3, "type": "VEC3",
                 "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 1.0]},
                {"componentType": 5126, "count": 1, "type": "SCALAR", "min": [0.0], "max": [0.0]},
            ],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "nodes": [{"mesh": 0}],
            "scenes": [{"nodes": [0]}],
            "animations": [{
                "samplers": [{"input": 1, "output": 0}],
                "channels": [{"sampler": 0, "target": {"node": node, "path": path}}],
            }],
        })
    };
    for (d, want) in [
        (
            doc(0, "bogus"),
            "animation 0 channel 0: its target path is not translation, rotation, scale or weights",
        ),
        (
            doc(7, "translation"),
            "animation 0 channel 0 targets node 7, but the file has 1 node",
        ),
    ] {
        for e in refusals(&d) {
            assert!(e.contains(want), "{e}");
        }
    }
}
