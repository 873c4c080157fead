//! glTF animations to an Animation asset (docs/format/caf-assets-ext.md section 3).
//!
//! Every glTF animation becomes one clip; each (node, path) channel is evaluated as glTF
//! defines it (LINEAR lerp / slerp, STEP, CUBICSPLINE Hermite; rotations normalised) at the
//! clip's frame times, `anim_rate` frames per second at least, and handed to
//! [`caf::animation::encode_animation`] with its measured resampling error (the spec's e_r).
//!
//! ```
//! use caf_import::{convert, AssetKind, Settings};
//! use std::path::Path;
//! use voxcaf_samples as samples; // generated sources (a dev-dependency)
//!
//! let glb = samples::animated_glb(&samples::AnimatedOptions::default());
//! let settings = Settings { kind: Some(AssetKind::Animation), ..Settings::default() };
//! let anim = convert(&glb, Path::new("hero.glb"), &settings)?;
//! let file = anim.to_caf_bytes();
//! let view = caf::animation::AnimationView::from_asset(&caf::Asset::parse(&file)?)?;
//! assert_eq!(view.clip_count(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use caf::animation::normalize_quaternion;

use crate::error::{ImportError, Result};
use crate::mesh::{catch, gltf_load};
use crate::settings::Settings;

/// Frames per second when `anim_rate` is not set.
pub const DEFAULT_RATE: u32 = 30;
/// Most keys one sampler input may hold.
pub const MAX_KEYS: usize = 1 << 20;
/// Most frames over all channels of all clips (bounds the work and the payload: 8 MiB of
/// translations, 32 MiB at most).
pub const MAX_TOTAL_FRAMES: u64 = 1 << 22;
/// Check points per frame interval when measuring the resampling error.
pub const CHECKS_PER_FRAME: usize = 32;

/// A converted animation, ready to be wrapped by [`crate::Converted::from_animation`].
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationData {
    /// Encoded metadata (header, clip and channel tables, names).
    pub metadata: Vec<u8>,
    /// Quantised values.
    pub payload: Vec<u8>,
    /// Frames per second.
    pub rate: u32,
    /// Number of clips.
    pub clips: usize,
    /// Number of channels over all clips.
    pub channels: usize,
    /// What was left out (morph target weights, clips without channels).
    pub warnings: Vec<String>,
    /// Files read besides the source (external buffers).
    pub dependencies: Vec<PathBuf>,
}

/// How a source sampler interpolates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Interp {
    Linear,
    Step,
    Cubic,
}

/// One source curve in f64: key times, values (T / S in `[..3]`), and for CUBICSPLINE the
/// in- and out-tangents.
struct Curve {
    times: Vec<f64>,
    values: Vec<[f64; 4]>,
    in_tan: Vec<[f64; 4]>,
    out_tan: Vec<[f64; 4]>,
    interp: Interp,
    rotation: bool,
}

fn norm4(q: [f64; 4]) -> f64 {
    q.iter().map(|v| v * v).sum::<f64>().sqrt()
}

fn dot4(a: [f64; 4], b: [f64; 4]) -> f64 {
    (0..4).map(|i| a[i] * b[i]).sum()
}

fn slerp(a: [f64; 4], b: [f64; 4], s: f64) -> [f64; 4] {
    let (a, mut b) = (normalize_quaternion(a), normalize_quaternion(b));
    let mut d = dot4(a, b);
    if d < 0.0 {
        b = b.map(|v| -v);
        d = -d;
    }
    if d > 0.999_999 {
        let mut r = [0.0; 4];
        for i in 0..4 {
            r[i] = a[i] + (b[i] - a[i]) * s;
        }
        return normalize_quaternion(r);
    }
    let th = d.min(1.0).acos();
    let (wa, wb) = (((1.0 - s) * th).sin() / th.sin(), (s * th).sin() / th.sin());
    let mut r = [0.0; 4];
    for i in 0..4 {
        r[i] = wa * a[i] + wb * b[i];
    }
    normalize_quaternion(r)
}

/// The rotation angle (radians) between two unit quaternions.
pub(crate) fn rotation_angle(a: [f64; 4], b: [f64; 4]) -> f64 {
    let b = if dot4(a, b) < 0.0 { b.map(|v| -v) } else { b };
    let mut diff = [0.0; 4];
    let mut sum = [0.0; 4];
    for i in 0..4 {
        diff[i] = a[i] - b[i];
        sum[i] = a[i] + b[i];
    }
    4.0 * norm4(diff).atan2(norm4(sum))
}

impl Curve {
    /// The value at `t` as glTF defines it (held before the first and after the last key).
    fn eval(&self, t: f64) -> [f64; 4] {
        let n = self.times.len();
        let fix = |v: [f64; 4]| {
            if self.rotation {
                normalize_quaternion(v)
            } else {
                v
            }
        };
        if t <= self.times[0] {
            return fix(self.values[0]);
        }
        if t >= self.times[n - 1] {
            return fix(self.values[n - 1]);
        }
        let k = self.times.partition_point(|&x| x <= t) - 1;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let dt = t1 - t0;
        let s = (t - t0) / dt;
        let (a, b) = (self.values[k], self.values[k + 1]);
        match self.interp {
            Interp::Step => fix(a),
            Interp::Linear if self.rotation => slerp(a, b, s),
            Interp::Linear => {
                let mut r = [0.0; 4];
                for i in 0..4 {
                    r[i] = a[i] + (b[i] - a[i]) * s;
                }
                r
            }
            Interp::Cubic => {
                let (s2, s3) = (s * s, s * s * s);
                let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
                let h10 = s3 - 2.0 * s2 + s;
                let h01 = -2.0 * s3 + 3.0 * s2;
                let h11 = s3 - s2;
                let (bo, ai) = (self.out_tan[k], self.in_tan[k + 1]);
                let mut r = [0.0; 4];
                for i in 0..4 {
                    r[i] = h00 * a[i] + h10 * dt * bo[i] + h01 * b[i] + h11 * dt * ai[i];
                }
                fix(r)
            }
        }
    }

    /// The largest |c''| (per component, over all segments) of a CUBICSPLINE curve: c'' is
    /// linear in t on each segment, so its extremes are at the segment ends.
    fn max_second_derivative(&self) -> f64 {
        let mut m = 0.0f64;
        for k in 0..self.times.len().saturating_sub(1) {
            let dt = self.times[k + 1] - self.times[k];
            let (a, b) = (self.values[k], self.values[k + 1]);
            let (bo, ai) = (self.out_tan[k], self.in_tan[k + 1]);
            for i in 0..4 {
                let at0 = -6.0 * a[i] - 4.0 * dt * bo[i] + 6.0 * b[i] - 2.0 * dt * ai[i];
                let at1 = 6.0 * a[i] + 2.0 * dt * bo[i] - 6.0 * b[i] + 4.0 * dt * ai[i];
                m = m.max(at0.abs().max(at1.abs()) / (dt * dt));
            }
        }
        m
    }
}

/// The sampling of stored (unquantised) frames the view does, in f64.
fn reconstruct(
    frames: &[[f32; 4]],
    h: f64,
    d: f64,
    t: f64,
    step: bool,
    rotation: bool,
) -> [f64; 4] {
    let n = frames.len();
    let get = |k: usize| frames[k].map(f64::from);
    if n == 1 {
        return get(0);
    }
    let t = t.clamp(0.0, d);
    let u = t / h;
    let k = (u.floor() as usize).min(n - 2);
    let f = (u - k as f64).clamp(0.0, 1.0);
    if step {
        return get(if f >= 1.0 { k + 1 } else { k });
    }
    let (a, b) = (get(k), get(k + 1));
    let mut r = [0.0; 4];
    for i in 0..4 {
        r[i] = a[i] + (b[i] - a[i]) * f;
    }
    if rotation {
        normalize_quaternion(r)
    } else {
        r
    }
}

fn malformed(what: String) -> ImportError {
    ImportError::malformed("glTF", what)
}

/// The accessor types glTF 2.0 requires of a sampler (§3.11): float scalar key times, float
/// VEC3 translations and scales, VEC4 rotations (float or normalized integers). The gltf
/// crate's reader assumes them (checking only in debug builds), so a file breaking them would
/// otherwise be read with the wrong element size.
fn check_accessor_types(ch: &gltf::animation::Channel<'_>) -> std::result::Result<(), String> {
    use gltf::accessor::{DataType, Dimensions};
    use gltf::animation::Property;
    let (input, output) = (ch.sampler().input(), ch.sampler().output());
    if (input.dimensions(), input.data_type()) != (Dimensions::Scalar, DataType::F32) {
        return Err(format!(
            "key times must be a float SCALAR accessor, not {:?} of {:?}",
            input.dimensions(),
            input.data_type()
        ));
    }
    let (dims, ty) = (output.dimensions(), output.data_type());
    let ok = match ch.target().property() {
        Property::Translation | Property::Scale => (dims, ty) == (Dimensions::Vec3, DataType::F32),
        Property::Rotation => {
            dims == Dimensions::Vec4
                && (ty == DataType::F32 || (output.normalized() && ty != DataType::U32))
        }
        Property::MorphTargetWeights => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{:?} values cannot be a {dims:?} accessor of {ty:?}{}",
            ch.target().property(),
            if output.normalized() {
                " (normalized)"
            } else {
                ""
            }
        ))
    }
}

/// Read one channel's sampler as a [`Curve`]; `None` for morph target weights (which have one
/// output value per key and morph target, so their counts are not checked here).
fn read_curve(
    ch: &gltf::animation::Channel<'_>,
    buffers: &[gltf::buffer::Data],
    ai: usize,
    ci: usize,
) -> Result<Option<(caf::animation::ChannelPath, Curve)>> {
    use gltf::animation::util::ReadOutputs;
    use gltf::animation::Interpolation;
    let at = |what: &str| malformed(format!("animation {ai} channel {ci}: {what}"));
    if ch.target().property() == gltf::animation::Property::MorphTargetWeights {
        return Ok(None);
    }
    let sampler = ch.sampler();
    let interp = match sampler.interpolation() {
        Interpolation::Linear => Interp::Linear,
        Interpolation::Step => Interp::Step,
        Interpolation::CubicSpline => Interp::Cubic,
    };
    let keys = sampler.input().count();
    if keys > MAX_KEYS {
        return Err(ImportError::LimitExceeded {
            what: "animation sampler keys",
            value: keys as u64,
            limit: MAX_KEYS as u64,
        });
    }
    check_accessor_types(ch).map_err(|what| at(&what))?;
    let per_key = if interp == Interp::Cubic { 3 } else { 1 };
    let outputs = sampler.output().count();
    if outputs != keys * per_key {
        return Err(at(&format!(
            "{outputs} output values for {keys} input keys (expected {})",
            keys * per_key
        )));
    }
    let reader = ch.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let times: Vec<f32> = reader
        .read_inputs()
        .ok_or_else(|| at("the input accessor has no data"))?
        .collect();
    let (path, raw): (caf::animation::ChannelPath, Vec<[f32; 4]>) = match reader
        .read_outputs()
        .ok_or_else(|| at("the output accessor has no data"))?
    {
        ReadOutputs::Translations(it) => (
            caf::animation::ChannelPath::Translation,
            it.map(|v| [v[0], v[1], v[2], 0.0]).collect(),
        ),
        ReadOutputs::Scales(it) => (
            caf::animation::ChannelPath::Scale,
            it.map(|v| [v[0], v[1], v[2], 0.0]).collect(),
        ),
        ReadOutputs::Rotations(r) => (
            caf::animation::ChannelPath::Rotation,
            r.into_f32().collect(),
        ),
        ReadOutputs::MorphTargetWeights(_) => return Ok(None),
    };
    if times.is_empty() || times.len() != keys || raw.len() != outputs {
        return Err(at(&format!(
            "read {} keys and {} values, the accessors declare {keys} and {outputs}",
            times.len(),
            raw.len()
        )));
    }
    if !(times[0].is_finite() && times[0] >= 0.0) {
        return Err(at(&format!(
            "first key time {} is not finite and >= 0",
            times[0]
        )));
    }
    if let Some(k) = times
        .windows(2)
        .position(|w| !(w[1] > w[0] && w[1].is_finite()))
    {
        return Err(at(&format!(
            "key times must increase strictly: key {} is {} after {}",
            k + 1,
            times[k + 1],
            times[k]
        )));
    }
    if let Some(k) = raw.iter().position(|v| !v.iter().all(|x| x.is_finite())) {
        return Err(at(&format!("output value {k} is not finite")));
    }
    let rotation = path == caf::animation::ChannelPath::Rotation;
    let f64s: Vec<[f64; 4]> = raw.iter().map(|v| v.map(f64::from)).collect();
    let (values, in_tan, out_tan) = if interp == Interp::Cubic {
        let mut v = Vec::with_capacity(keys);
        let mut a = Vec::with_capacity(keys);
        let mut b = Vec::with_capacity(keys);
        for k in f64s.chunks_exact(3) {
            a.push(k[0]);
            v.push(k[1]);
            b.push(k[2]);
        }
        (v, a, b)
    } else {
        (f64s, Vec::new(), Vec::new())
    };
    if rotation {
        if let Some(k) = values.iter().position(|&q| norm4(q) == 0.0) {
            return Err(at(&format!("rotation key {k} is a zero quaternion")));
        }
    }
    Ok(Some((
        path,
        Curve {
            times: times.iter().map(|&t| f64::from(t)).collect(),
            values,
            in_tan,
            out_tan,
            interp,
            rotation,
        },
    )))
}

/// Resample `curve` at `n` frames over `duration` seconds and measure e_r.
fn resample(curve: &Curve, duration: f32, n: u32) -> (Vec<[f32; 4]>, f64) {
    let d = f64::from(duration);
    let n = n as usize;
    let h = if n > 1 { d / (n - 1) as f64 } else { 0.0 };
    let mut frames: Vec<[f32; 4]> = Vec::with_capacity(n);
    let mut prev: Option<[f64; 4]> = None;
    for k in 0..n {
        let t = if k + 1 == n { d } else { k as f64 * h };
        let mut v = curve.eval(t);
        if curve.rotation {
            if let Some(p) = prev {
                if dot4(p, v) < 0.0 {
                    v = v.map(|x| -x);
                }
            }
            prev = Some(v);
        }
        frames.push(v.map(|x| x as f32));
    }
    if frames.iter().all(|f| f == &frames[0]) {
        frames.truncate(1);
    }
    let step = curve.interp == Interp::Step;
    if step {
        // Exact outside the switch windows (the spec's STEP rule).
        return (frames, 0.0);
    }
    let dev = |t: f64| -> f64 {
        let c = curve.eval(t);
        let r = reconstruct(&frames, h, d, t, false, curve.rotation);
        if curve.rotation {
            rotation_angle(normalize_quaternion(c), r)
        } else {
            (0..3).map(|i| (c[i] - r[i]).abs()).fold(0.0, f64::max)
        }
    };
    let mut e = curve
        .times
        .iter()
        .filter(|&&t| t <= d)
        .map(|&t| dev(t))
        .fold(0.0, f64::max);
    e = e.max(dev(d));
    for k in 0..n.saturating_sub(1) {
        for j in 0..CHECKS_PER_FRAME {
            let t = k as f64 * h + j as f64 * h / CHECKS_PER_FRAME as f64;
            e = e.max(dev(t));
        }
    }
    if curve.interp == Interp::Cubic && !curve.rotation && n > 1 {
        let g = h / CHECKS_PER_FRAME as f64;
        e += g * g / 8.0 * curve.max_second_derivative();
    }
    (frames, e)
}

/// Convert the animations of a glTF / GLB (see the module documentation).
pub fn convert_animation(
    bytes: &[u8],
    base: Option<&Path>,
    settings: &Settings,
) -> Result<AnimationData> {
    let rate = settings.anim_rate.unwrap_or(DEFAULT_RATE);
    if !(1..=caf::animation::AnimationMetadata::MAX_RATE as u32).contains(&rate) {
        return Err(ImportError::InvalidArgument(format!(
            "animation rate {rate} Hz (expected 1 to 1000)"
        )));
    }
    catch("glTF", || {
        let (doc, buffers, deps) = gltf_load(bytes, base)?;
        let joint_of: HashMap<usize, u32> = match crate::gltf_scene::document_skin(&doc)? {
            Some(si) => doc
                .skins()
                .nth(si)
                .map(|s| {
                    s.joints()
                        .enumerate()
                        .map(|(j, n)| (n.index(), j as u32))
                        .collect()
                })
                .unwrap_or_default(),
            None => HashMap::new(),
        };
        let mut clips = Vec::new();
        let mut warnings = Vec::new();
        let mut total_frames = 0u64;
        let mut morph_only = 0usize;
        for (ai, anim) in doc.animations().enumerate() {
            let mut curves = Vec::new();
            let mut seen = HashSet::new();
            for (ci, ch) in anim.channels().enumerate() {
                let node = ch.target().node().index();
                let Some((path, curve)) = read_curve(&ch, &buffers, ai, ci)? else {
                    warnings.push(format!(
                        "animation {ai} channel {ci}: morph target weights of node {node} are \
                         not stored (left out)"
                    ));
                    continue;
                };
                if !seen.insert((node, path)) {
                    return Err(malformed(format!(
                        "animation {ai}: node {node} has two {path:?} channels"
                    )));
                }
                curves.push((node, path, curve));
            }
            if curves.is_empty() {
                if anim.channels().next().is_some() {
                    morph_only += 1;
                }
                warnings.push(format!(
                    "animation {ai} has no translation, rotation or scale channel; left out"
                ));
                continue;
            }
            if curves.len() > caf::animation::AnimationMetadata::MAX_CHANNELS as usize {
                return Err(ImportError::LimitExceeded {
                    what: "animation channels",
                    value: curves.len() as u64,
                    limit: caf::animation::AnimationMetadata::MAX_CHANNELS.into(),
                });
            }
            let duration = curves
                .iter()
                .map(|(_, _, c)| c.times[c.times.len() - 1] as f32)
                .fold(0.0f32, f32::max);
            let n = caf::animation::AnimationMetadata::frames(duration, rate as f32).ok_or(
                ImportError::LimitExceeded {
                    what: "animation clip frames",
                    value: (f64::from(duration) * f64::from(rate)).ceil() as u64 + 1,
                    limit: caf::animation::AnimationMetadata::MAX_FRAMES.into(),
                },
            )?;
            total_frames += u64::from(n) * curves.len() as u64;
            if total_frames > MAX_TOTAL_FRAMES {
                return Err(ImportError::LimitExceeded {
                    what: "animation frames over all channels",
                    value: total_frames,
                    limit: MAX_TOTAL_FRAMES,
                });
            }
            let channels = curves
                .iter()
                .map(|(node, path, curve)| {
                    let (frames, resample_error) = resample(curve, duration, n);
                    caf::animation::ChannelData {
                        node: *node as u32,
                        joint: joint_of
                            .get(node)
                            .copied()
                            .unwrap_or(caf::mesh::SubMeshEntry::NONE),
                        path: *path,
                        step: curve.interp == Interp::Step,
                        frames,
                        resample_error,
                    }
                })
                .collect();
            clips.push(caf::animation::ClipData {
                name: anim.name().unwrap_or_default().to_string(),
                duration,
                channels,
            });
        }
        if clips.is_empty() {
            let why = match morph_only {
                0 => String::new(),
                n => format!(
                    " ({n} animation(s) animate only morph target weights, which an animation \
                     asset does not store; the mesh imports without its morph targets)"
                ),
            };
            return Err(ImportError::empty(
                "glTF",
                format!("no animation with translation, rotation or scale channels{why}"),
            ));
        }
        let channels = clips.iter().map(|c| c.channels.len()).sum();
        let (metadata, payload) =
            caf::animation::encode_animation(rate as f32, &clips).map_err(|e| match e {
                caf::animation::AnimationEncodeError::ClipCount { count } => {
                    ImportError::LimitExceeded {
                        what: "animation clips",
                        value: count as u64,
                        limit: caf::animation::AnimationMetadata::MAX_CLIPS.into(),
                    }
                }
                caf::animation::AnimationEncodeError::ChannelCount { count } => {
                    ImportError::LimitExceeded {
                        what: "animation channels",
                        value: count as u64,
                        limit: caf::animation::AnimationMetadata::MAX_CHANNELS.into(),
                    }
                }
                other => malformed(other.to_string()),
            })?;
        Ok(AnimationData {
            metadata,
            payload,
            rate,
            clips: clips.len(),
            channels,
            warnings,
            dependencies: deps,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_angle_of_a_quarter_turn() {
        let a = [0.0, 0.0, 0.0, 1.0];
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let b = [0.0, 0.0, h, h];
        assert!((rotation_angle(a, b) - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        // q and -q are the same rotation.
        assert!(rotation_angle(b, b.map(|v| -v)).abs() < 1e-12);
    }

    #[test]
    fn slerp_halfway_is_half_the_angle() {
        let a = [0.0, 0.0, 0.0, 1.0];
        let b = [0.0, 0.0, 1.0, 0.0]; // 180 degrees about z
        let m = slerp(a, b, 0.5);
        assert!((rotation_angle(a, m) - std::f64::consts::FRAC_PI_2).abs() < 1e-9);
    }
}
