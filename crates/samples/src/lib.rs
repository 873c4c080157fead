//! Small generated source files (PNG, WAV, OBJ, GLSL, WGSL, glTF) for tests, benchmarks and
//! demos. Everything is deterministic: the noise comes from the test kit's LCG generators
//! (`voxcaf-golden`, re-exported as [`lcg_bytes`] and [`lcg_i16`]).
//!
//! The libraries use this crate as a dev-dependency only; `voxcaf-demo` and the CLI (whose
//! `voxcaf demo` builds a generated source tree) depend on it normally.
//!
//! ```
//! // A 4x2 gradient as RGBA8 pixels and as a PNG file.
//! let px = voxcaf_samples::gradient_rgba(4, 2);
//! assert_eq!(px.len(), 4 * 2 * 4);
//! let png = voxcaf_samples::gradient_png(4, 2);
//! assert!(png.starts_with(b"\x89PNG"));
//!
//! // One second of 16-bit mono WAV at 8 kHz, and a unit cube mesh.
//! let wav = voxcaf_samples::wav_i16(8000, 1, 8000);
//! assert!(wav.starts_with(b"RIFF"));
//! let (vertices, indices) = voxcaf_samples::cube_mesh();
//! assert_eq!((vertices.len(), indices.len()), (24, 36));
//! ```

#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used)]

use std::io::Cursor;

pub use voxcaf_golden::{lcg_bytes, lcg_i16};

/// RGBA8 pixels that compress and filter like a real texture: [`gradient_rgba`] plus fine
/// noise in the low four bits (used by the benchmarks).
pub fn noisy_rgba(width: u32, height: u32) -> Vec<u8> {
    let mut px = gradient_rgba(width, height);
    let noise = lcg_bytes(42, px.len());
    for (p, n) in px.iter_mut().zip(noise) {
        *p = p.wrapping_add(n & 0x0F);
    }
    px
}

/// RGBA8 gradient pixels (`width × height × 4` bytes).
pub fn gradient_rgba(width: u32, height: u32) -> Vec<u8> {
    let mut v = Vec::with_capacity(width as usize * height as usize * 4);
    for y in 0..height {
        for x in 0..width {
            v.extend_from_slice(&[
                (x * 255 / width.max(2).saturating_sub(1).max(1)).min(255) as u8,
                (y * 255 / height.max(2).saturating_sub(1).max(1)).min(255) as u8,
                ((x ^ y) & 0xFF) as u8,
                255 - ((x + y) & 0x3F) as u8,
            ]);
        }
    }
    v
}

/// RGBA8 pixels of the demo texture (`width × height × 4` bytes): red and green ramps
/// (`4x`, `4y`, wrapping) over an 8-texel blue checkerboard, opaque.
pub fn checker_rgba(width: u32, height: u32) -> Vec<u8> {
    let mut v = Vec::with_capacity(width as usize * height as usize * 4);
    for y in 0..height {
        for x in 0..width {
            let checker = if (x / 8 + y / 8) % 2 == 0 { 255 } else { 64 };
            // The ramps wrap on purpose: only the low byte is kept.
            v.extend_from_slice(&[(x * 4) as u8, (y * 4) as u8, checker, 255]);
        }
    }
    v
}

/// A unit cube centred on the origin as mesh data: 24 vertices (4 per face, with normals,
/// UVs and tangents) and 36 indices, two triangles per face.
pub fn cube_mesh() -> (Vec<caf::mesh::Vertex>, Vec<u32>) {
    let mut v = Vec::with_capacity(24);
    let mut idx = Vec::with_capacity(36);
    // (normal, up, tangent) per face.
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
        ([-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
        ([0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]),
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ];
    for (n, u, t) in faces {
        let base = v.len() as u32;
        for (su, sv) in [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let p = [0, 1, 2].map(|i| 0.5 * (n[i] + su * t[i] + sv * u[i]));
            v.push(caf::mesh::Vertex {
                position: p,
                normal: n,
                uv: [(su + 1.0) / 2.0, (sv + 1.0) / 2.0],
                tangent: [t[0], t[1], t[2], 1.0],
            });
        }
        idx.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    (v, idx)
}

/// Encode RGBA8 pixels as a PNG.
pub fn png_rgba(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let enc = image::codecs::png::PngEncoder::new(Cursor::new(&mut out));
    // Encoding into a Vec only fails on a size mismatch, which callers control.
    let _ =
        image::ImageEncoder::write_image(enc, rgba, width, height, image::ExtendedColorType::Rgba8);
    out
}

/// A PNG of [`gradient_rgba`].
pub fn gradient_png(width: u32, height: u32) -> Vec<u8> {
    png_rgba(width, height, &gradient_rgba(width, height))
}

/// A 16-bit PCM WAV with a sine-ish deterministic signal.
pub fn wav_i16(sample_rate: u32, channels: u16, frames: u32) -> Vec<u8> {
    let samples: Vec<i16> = (0..frames as usize * channels as usize)
        .map(|i| {
            let t = (i / channels as usize) as f32 / sample_rate.max(1) as f32;
            let ch = (i % channels as usize) as f32;
            ((t * 440.0 * (1.0 + ch) * std::f32::consts::TAU).sin() * 12000.0) as i16
        })
        .collect();
    wav_from_i16(sample_rate, channels, &samples)
}

/// A 16-bit PCM WAV holding `samples` (interleaved).
pub fn wav_from_i16(sample_rate: u32, channels: u16, samples: &[i16]) -> Vec<u8> {
    let spec = hound::WavSpec {
        channels,
        sample_rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut out = Cursor::new(Vec::new());
    if let Ok(mut w) = hound::WavWriter::new(&mut out, spec) {
        for &s in samples {
            let _ = w.write_sample(s);
        }
        let _ = w.finalize();
    }
    out.into_inner()
}

/// A unit cube with positions, UVs and normals on every corner (6 quads).
pub const CUBE_OBJ: &str = "\
# unit cube
o Cube
v -0.5 -0.5 0.5
v 0.5 -0.5 0.5
v 0.5 0.5 0.5
v -0.5 0.5 0.5
v -0.5 -0.5 -0.5
v 0.5 -0.5 -0.5
v 0.5 0.5 -0.5
v -0.5 0.5 -0.5
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vn 0 0 1
vn 0 0 -1
vn 0 1 0
vn 0 -1 0
vn 1 0 0
vn -1 0 0
f 1/1/1 2/2/1 3/3/1 4/4/1
f 6/1/2 5/2/2 8/3/2 7/4/2
f 4/1/3 3/2/3 7/3/3 8/4/3
f 5/1/4 6/2/4 2/3/4 1/4/4
f 2/1/5 6/2/5 7/3/5 3/4/5
f 5/1/6 1/2/6 4/3/6 8/4/6
";

/// A textured quad without normals (they get generated).
pub const QUAD_OBJ: &str = "\
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
vt 0 0
vt 1 0
vt 1 1
vt 0 1
f 1/1 2/2 3/3 4/4
";

/// A GLSL vertex shader.
pub const VERTEX_GLSL: &str = "\
#version 450
layout(location = 0) in vec3 position;
layout(location = 1) in vec2 uv;
layout(location = 0) out vec2 v_uv;
layout(set = 0, binding = 0) uniform Camera { mat4 view_proj; };
void main() {
    v_uv = uv;
    gl_Position = view_proj * vec4(position, 1.0);
}
";

/// A GLSL fragment shader.
pub const FRAGMENT_GLSL: &str = "\
#version 450
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 1) uniform texture2D tex;
layout(set = 0, binding = 2) uniform sampler samp;
void main() {
    color = texture(sampler2D(tex, samp), v_uv);
}
";

/// A WGSL compute shader.
pub const COMPUTE_WGSL: &str = "\
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&data)) {
        data[id.x] = data[id.x] * 2u;
    }
}
";

/// A binary glTF (GLB) holding one triangle with POSITION only and u16 indices.
pub fn triangle_glb() -> Vec<u8> {
    let mut bin = Vec::new();
    for v in [[0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        for c in v {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    for i in [0u16, 1, 2] {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    bin.extend_from_slice(&[0, 0]); // pad to 4
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":6}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},{{"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}}],"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}]}}"#,
        bin.len()
    );
    // Cannot fail: a small document, far below 4 GiB.
    voxcaf_gltf::glb_from_parts(json.into_bytes(), bin).expect("a small GLB")
}

/// A binary glTF (GLB) of two unit cubes, the source of an extended mesh: a root node with
/// two children, translated to x = -1 and x = +1, each with its own mesh. The first cube has
/// material 2, vertex colours (COLOR_0) and a second UV set (TEXCOORD_1); the second has
/// material 1 and TEXCOORD_1 only (material 0 is unused). Positions, normals and TEXCOORD_0
/// come from [`cube_mesh`]; tangents are left to the importer.
pub fn two_cubes_glb() -> Vec<u8> {
    use json::accessor::{ComponentType as C, Type as T};
    use json::mesh::Semantic;
    use voxcaf_gltf::json::{self, validation::Checked::Valid};
    use voxcaf_gltf::{accessor, f32_bytes, BinBuilder};
    let (cube, indices) = cube_mesh();
    let mut root = json::Root::default();
    let mut bin = BinBuilder::new();
    let mut add = |root: &mut json::Root, bytes: Vec<u8>, count: usize, ty: T, comp: C| {
        let view = bin.view(root, &bytes, None);
        accessor(root, view, count, ty, comp, None, None)
    };
    let n = cube.len();
    let positions: Vec<[f32; 3]> = cube.iter().map(|v| v.position).collect();
    let normals: Vec<[f32; 3]> = cube.iter().map(|v| v.normal).collect();
    let uvs: Vec<[f32; 2]> = cube.iter().map(|v| v.uv).collect();
    let colors: Vec<[f32; 4]> = (0..n)
        .map(|i| [i as f32 / n as f32, 1.0 - i as f32 / n as f32, 0.5, 1.0])
        .collect();
    let uv1: Vec<[f32; 2]> = uvs
        .iter()
        .map(|t| [t[0] * 0.5, t[1] * 0.5 + 0.25])
        .collect();
    let pos = add(&mut root, f32_bytes(&positions), n, T::Vec3, C::F32);
    root.accessors[pos.value()].min = Some(json::Value::from(vec![-0.5f32; 3]));
    root.accessors[pos.value()].max = Some(json::Value::from(vec![0.5f32; 3]));
    let nor = add(&mut root, f32_bytes(&normals), n, T::Vec3, C::F32);
    let uv0 = add(&mut root, f32_bytes(&uvs), n, T::Vec2, C::F32);
    let col = add(&mut root, f32_bytes(&colors), n, T::Vec4, C::F32);
    let uv1 = add(&mut root, f32_bytes(&uv1), n, T::Vec2, C::F32);
    let idx: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    let ind = add(&mut root, idx, indices.len(), T::Scalar, C::U32);
    let bin = bin.finish(&mut root, None);
    for i in 0..3 {
        root.push(json::Material {
            name: Some(format!("m{i}")),
            ..Default::default()
        });
    }
    let mut children = Vec::new();
    for (material, x, with_colors) in [(2, -1.0, true), (1, 1.0, false)] {
        let mut attributes = std::collections::BTreeMap::new();
        attributes.insert(Valid(Semantic::Positions), pos);
        attributes.insert(Valid(Semantic::Normals), nor);
        attributes.insert(Valid(Semantic::TexCoords(0)), uv0);
        attributes.insert(Valid(Semantic::TexCoords(1)), uv1);
        if with_colors {
            attributes.insert(Valid(Semantic::Colors(0)), col);
        }
        let mesh = root.push(json::Mesh {
            extensions: None,
            extras: Default::default(),
            name: Some(format!("cube {material}")),
            primitives: vec![voxcaf_gltf::triangles(
                attributes,
                Some(ind),
                Some(json::Index::new(material)),
            )],
            weights: None,
        });
        children.push(root.push(json::Node {
            mesh: Some(mesh),
            translation: Some([x, 0.0, 0.0]),
            ..Default::default()
        }));
    }
    let top = root.push(json::Node {
        children: Some(children),
        name: Some("cubes".into()),
        ..Default::default()
    });
    voxcaf_gltf::default_scene(&mut root, None, vec![top]);
    // Cannot fail: a small document of finite numbers serialises, and is far below 4 GiB.
    voxcaf_gltf::glb(&root, bin).expect("a small GLB")
}

/// What [`animated_gltf`] puts in its document.
#[derive(Clone, Debug)]
pub struct AnimatedOptions {
    /// A skinned mesh (two joints) placed in the scene; without it the animated nodes carry
    /// no mesh.
    pub skinned: bool,
    /// Every WEIGHTS_0 value is multiplied by this (1 keeps them normalised).
    pub weight_scale: f32,
}

impl Default for AnimatedOptions {
    fn default() -> Self {
        AnimatedOptions {
            skinned: true,
            weight_scale: 1.0,
        }
    }
}

/// Binary buffer and accessor tables of a generated glTF.
#[derive(Default)]
struct GltfBin {
    bin: Vec<u8>,
    views: Vec<serde_json::Value>,
    accessors: Vec<serde_json::Value>,
}

impl GltfBin {
    /// Append `bytes` as a buffer view and an accessor; returns the accessor index.
    fn add(
        &mut self,
        bytes: &[u8],
        component_type: u32,
        count: usize,
        ty: &str,
        min_max: Option<(Vec<f32>, Vec<f32>)>,
    ) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views.push(serde_json::json!({
            "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()
        }));
        self.bin.extend_from_slice(bytes);
        let mut a = serde_json::json!({
            "bufferView": self.views.len() - 1, "componentType": component_type,
            "count": count, "type": ty
        });
        if let Some((min, max)) = min_max {
            a["min"] = serde_json::json!(min);
            a["max"] = serde_json::json!(max);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    fn floats(&mut self, v: &[f32], width: usize, ty: &str) -> usize {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let min_max = (width == 1).then(|| {
            let lo = v.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            (vec![lo], vec![hi])
        });
        self.add(&bytes, 5126, v.len() / width, ty, min_max)
    }
}

/// The accessors of [`animated_gltf`]'s skinned strip: positions, indices, joints, weights
/// (scaled by `weight_scale`) and the inverse bind matrices.
fn skinned_strip(b: &mut GltfBin, weight_scale: f32) -> [usize; 5] {
    let mut pos = Vec::new();
    for y in 0..3 {
        for x in 0..2 {
            pos.extend_from_slice(&[x as f32, y as f32, 0.0]);
        }
    }
    let p = b.add(
        &pos.iter()
            .flat_map(|x: &f32| x.to_le_bytes())
            .collect::<Vec<u8>>(),
        5126,
        6,
        "VEC3",
        Some((vec![0.0, 0.0, 0.0], vec![1.0, 2.0, 0.0])),
    );
    let idx: Vec<u8> = [0u16, 1, 2, 2, 1, 3, 2, 3, 4, 4, 3, 5]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let i = b.add(&idx, 5123, 12, "SCALAR", None);
    let joints: Vec<u8> = [
        [0u8, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 1, 0, 0],
        [1, 0, 0, 0],
        [1, 0, 0, 0],
    ]
    .concat();
    let j = b.add(&joints, 5121, 6, "VEC4", None);
    let weights: Vec<f32> = [
        [1.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0, 0.0],
        [0.25, 0.75, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
    ]
    .iter()
    .flatten()
    .map(|w| w * weight_scale)
    .collect();
    let w = b.floats(&weights, 4, "VEC4");
    #[rustfmt::skip]
    let ibm: Vec<f32> = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0,
    ].to_vec();
    let ibm = b.floats(&ibm, 16, "MAT4");
    [p, i, j, w, ibm]
}

/// The unit quaternion of a rotation by `deg` degrees about `axis`.
fn axis_angle(axis: [f32; 3], deg: f32) -> [f32; 4] {
    let (sn, c) = (deg.to_radians() / 2.0).sin_cos();
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    [axis[0] / n * sn, axis[1] / n * sn, axis[2] / n * sn, c]
}

/// A glTF document (JSON and binary chunk) with two joints and two animations, for tests of
/// skins and Animation assets: nodes 0 "hip" (root joint) and 1 "knee" (its child, 1 up),
/// node 2 the skinned mesh (a strip of 4 triangles, 6 vertices at y = 0, 1, 2 bound to the hip,
/// both, the knee); animation 0 "walk" (LINEAR hip translation, LINEAR knee rotation, STEP
/// knee scale, keys at irregular times) and animation 1 "wave" (CUBICSPLINE hip translation
/// and knee rotation). Tests edit the JSON for unhappy paths and pack it with [`glb`].
pub fn animated_gltf(opts: &AnimatedOptions) -> (serde_json::Value, Vec<u8>) {
    use serde_json::json;
    let mut b = GltfBin::default();
    let [p, i, j, w, ibm] = skinned_strip(&mut b, opts.weight_scale);
    // "walk": LINEAR translation, LINEAR rotation (large angles), STEP scale.
    let t_walk = b.floats(&[0.0, 0.37, 1.1, 1.6], 1, "SCALAR");
    let tr = b.floats(
        &[0.0, 0.0, 0.0, 0.5, 0.2, 0.0, 1.5, -0.3, 0.25, 2.0, 0.0, 0.0],
        3,
        "VEC3",
    );
    let t_rot = b.floats(&[0.0, 0.5, 0.9, 1.45], 1, "SCALAR");
    let rot: Vec<f32> = [
        axis_angle([0.0, 0.0, 1.0], 0.0),
        axis_angle([0.0, 0.0, 1.0], 80.0),
        axis_angle([1.0, 0.0, 1.0], 150.0),
        axis_angle([0.0, 1.0, 0.2], -60.0),
    ]
    .concat();
    let rot = b.floats(&rot, 4, "VEC4");
    let t_scale = b.floats(&[0.2, 0.75, 1.3], 1, "SCALAR");
    let sc = b.floats(&[1.0, 1.0, 1.0, 1.5, 0.5, 1.0, 0.8, 0.8, 2.0], 3, "VEC3");
    // "wave": CUBICSPLINE translation and rotation (in-tangent, value, out-tangent per key).
    let t_wave = b.floats(&[0.0, 0.4, 1.25, 2.0], 1, "SCALAR");
    let cubic_t: Vec<f32> = [
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
        [1.0, 2.0, 0.0],
        [-1.0, 3.0, 0.5],
        [0.3, 0.6, 0.0],
        [2.0, -1.0, 0.5],
        [0.5, 0.5, 0.0],
        [-0.2, 1.0, 0.4],
        [1.5, 0.0, -2.0],
        [0.0, -1.0, 0.0],
        [0.1, 0.0, 0.0],
        [0.0, 0.0, 0.0],
    ]
    .concat();
    let cubic_t = b.floats(&cubic_t, 3, "VEC3");
    let r0 = axis_angle([0.0, 1.0, 0.0], 10.0);
    let r1 = axis_angle([0.3, 1.0, 0.0], 70.0);
    let r2 = axis_angle([1.0, 0.2, 0.0], -40.0);
    let r3 = axis_angle([0.0, 0.0, 1.0], 120.0);
    let tan =
        |a: [f32; 4], b: [f32; 4], k: f32| -> [f32; 4] { [0, 1, 2, 3].map(|i| (b[i] - a[i]) * k) };
    let cubic_r: Vec<f32> = [
        [0.0; 4],
        r0,
        tan(r0, r1, 1.5),
        tan(r0, r1, 2.0),
        r1,
        tan(r1, r2, 0.5),
        tan(r1, r2, 1.0),
        r2,
        tan(r2, r3, 1.2),
        tan(r2, r3, 0.8),
        r3,
        [0.0; 4],
    ]
    .concat();
    let cubic_r = b.floats(&cubic_r, 4, "VEC4");
    let mut nodes = vec![
        json!({"name": "hip", "translation": [0.0, 0.0, 0.0], "children": [1]}),
        json!({"name": "knee", "translation": [0.0, 1.0, 0.0]}),
    ];
    let mut scene_nodes = vec![0];
    let mut doc = json!({
        "asset": {"version": "2.0"},
        "animations": [
            {"name": "walk",
             "samplers": [
                {"input": t_walk, "output": tr, "interpolation": "LINEAR"},
                {"input": t_rot, "output": rot, "interpolation": "LINEAR"},
                {"input": t_scale, "output": sc, "interpolation": "STEP"}],
             "channels": [
                {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                {"sampler": 1, "target": {"node": 1, "path": "rotation"}},
                {"sampler": 2, "target": {"node": 1, "path": "scale"}}]},
            {"name": "wave",
             "samplers": [
                {"input": t_wave, "output": cubic_t, "interpolation": "CUBICSPLINE"},
                {"input": t_wave, "output": cubic_r, "interpolation": "CUBICSPLINE"}],
             "channels": [
                {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                {"sampler": 1, "target": {"node": 1, "path": "rotation"}}]}
        ],
    });
    if opts.skinned {
        nodes.push(json!({"name": "body", "mesh": 0, "skin": 0}));
        scene_nodes.push(2);
        doc["meshes"] = json!([{"primitives": [{"attributes": {"POSITION": p, "JOINTS_0": j, "WEIGHTS_0": w}, "indices": i}]}]);
        doc["skins"] = json!([{"joints": [0, 1], "inverseBindMatrices": ibm, "skeleton": 0}]);
    }
    doc["nodes"] = json!(nodes);
    doc["scenes"] = json!([{"nodes": scene_nodes}]);
    doc["scene"] = json!(0);
    doc["bufferViews"] = json!(b.views);
    doc["accessors"] = json!(b.accessors);
    doc["buffers"] = json!([{"byteLength": b.bin.len()}]);
    (doc, b.bin)
}

/// [`animated_gltf`] packed as a GLB.
pub fn animated_glb(opts: &AnimatedOptions) -> Vec<u8> {
    let (json, bin) = animated_gltf(opts);
    glb(&json, &bin)
}

/// Pack a glTF JSON document and its binary chunk as a GLB file (the JSON's `buffers[0]`
/// must describe `bin`).
pub fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    // Cannot fail: the generated documents are far below 4 GiB.
    voxcaf_gltf::glb_from_parts(json.to_string().into_bytes(), bin.to_vec()).expect("a small GLB")
}

/// Writes a small source tree into `dir` (created if missing), the input of the demo build and
/// of caf-import's `examples/build.rs`: a PNG texture with a sidecar asking for mips, a WAV
/// sound, an OBJ mesh, and a GLSL vertex and fragment shader. Returns the relative paths written.
pub fn write_source_tree(dir: &std::path::Path) -> std::io::Result<Vec<&'static str>> {
    let files: [(&str, Vec<u8>); 6] = [
        ("textures/hero.png", gradient_png(128, 128)),
        ("textures/hero.png.toml", b"mips = true\n".to_vec()),
        ("sounds/jump.wav", wav_i16(22050, 1, 5512)),
        ("meshes/cube.obj", CUBE_OBJ.as_bytes().to_vec()),
        ("shaders/sprite.vert", VERTEX_GLSL.as_bytes().to_vec()),
        ("shaders/sprite.frag", FRAGMENT_GLSL.as_bytes().to_vec()),
    ];
    for (rel, bytes) in &files {
        let p = dir.join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d)?;
        }
        voxcaf_fs::write_atomic(&p, bytes)?;
    }
    Ok(files.map(|(rel, _)| rel).to_vec())
}

#[cfg(test)]
mod tests {
    #[test]
    fn lcg_first_byte_of_seed_0() {
        assert_eq!(super::lcg_bytes(0, 1), vec![0x3C]);
    }
}
