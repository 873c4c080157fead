//! The animation encoder: resampled frames in, quantised clip and channel tables and values out.

use std::collections::HashSet;

use super::{normalize_quaternion, AnimationEncodeError, ChannelPath, ClipData};
use crate::animation::{AnimationMetadata, ChannelEntry, ClipEntry};

/// The f32 at or above `v` (v finite and >= 0).
fn round_up(v: f64) -> f32 {
    let f = v as f32;
    if f64::from(f) >= v || !f.is_finite() {
        f
    } else {
        f32::from_bits(f.to_bits() + 1)
    }
}

/// Encode clips as Animation metadata and payload (docs/format/caf-assets-ext.md section 3):
/// T / S quantised to u16 within each channel's range, rotations normalised, put in one
/// hemisphere with their neighbours and stored as snorm16; each channel's error bound is
/// `resample_error` plus the quantisation and rounding terms.
pub fn encode_animation(
    sample_rate: f32,
    clips: &[ClipData],
) -> Result<(Vec<u8>, Vec<u8>), AnimationEncodeError> {
    if !(sample_rate.is_finite() && (1.0..=AnimationMetadata::MAX_RATE).contains(&sample_rate)) {
        return Err(AnimationEncodeError::SampleRate(sample_rate));
    }
    if clips.is_empty() || clips.len() > AnimationMetadata::MAX_CLIPS as usize {
        return Err(AnimationEncodeError::ClipCount { count: clips.len() });
    }
    let total: usize = clips.iter().map(|c| c.channels.len()).sum();
    if total > AnimationMetadata::MAX_CHANNELS as usize {
        return Err(AnimationEncodeError::ChannelCount { count: total });
    }
    let names_size: usize = clips.iter().map(|c| c.name.len()).sum();
    if names_size > AnimationMetadata::MAX_NAMES as usize {
        return Err(AnimationEncodeError::NamesTooLong { size: names_size });
    }
    let mut clip_entries = Vec::with_capacity(clips.len());
    let mut channel_entries = Vec::with_capacity(total);
    let mut payload = Vec::new();
    let mut name_offset = 0u32;
    for (ci, clip) in clips.iter().enumerate() {
        if clip.channels.is_empty() {
            return Err(AnimationEncodeError::ChannelCount { count: 0 });
        }
        let n = AnimationMetadata::frames(clip.duration, sample_rate).ok_or(
            AnimationEncodeError::Duration {
                clip: ci,
                duration: clip.duration,
                rate: sample_rate,
            },
        )?;
        let mut seen = HashSet::new();
        for (k, ch) in clip.channels.iter().enumerate() {
            if !seen.insert((ch.node, ch.path)) {
                return Err(AnimationEncodeError::DuplicateChannel {
                    clip: ci,
                    node: ch.node,
                    path: ch.path,
                });
            }
            if ch.frames.len() != 1 && ch.frames.len() != n as usize {
                return Err(AnimationEncodeError::FrameCount {
                    clip: ci,
                    channel: k,
                    frames: ch.frames.len(),
                    expected: n,
                });
            }
            let bad = |frame| AnimationEncodeError::BadValue {
                clip: ci,
                channel: k,
                frame,
            };
            let data_offset = payload.len() as u32;
            let mut entry = ChannelEntry {
                node: ch.node,
                joint: ch.joint,
                path: ch.path.code(),
                interpolation: if ch.step {
                    ChannelEntry::STEP
                } else {
                    ChannelEntry::LINEAR
                },
                reserved: 0,
                frame_count: ch.frames.len() as u32,
                data_offset,
                ..Default::default()
            };
            let resample = if ch.resample_error.is_finite() {
                ch.resample_error.max(0.0)
            } else {
                f64::MAX
            };
            if ch.path == ChannelPath::Rotation {
                let e_q = quantise_rotations(&ch.frames, &mut payload).map_err(bad)?;
                entry.error_bound = round_up(resample + e_q + 1e-6);
            } else {
                let (lo, hi, e_q, e_f) = quantise_vectors(&ch.frames, &mut payload).map_err(bad)?;
                entry.min = lo;
                entry.max = hi;
                entry.error_bound = round_up(resample + e_q + e_f);
            }
            channel_entries.push(entry);
        }
        clip_entries.push(ClipEntry {
            first_channel: (channel_entries.len() - clip.channels.len()) as u32,
            channel_count: clip.channels.len() as u32,
            frame_count: n,
            duration: clip.duration,
            name_offset,
            name_length: clip.name.len() as u32,
        });
        name_offset += clip.name.len() as u32;
    }
    let meta = AnimationMetadata {
        magic: AnimationMetadata::MAGIC,
        version: AnimationMetadata::VERSION,
        flags: 0,
        clip_count: clips.len() as u32,
        channel_count: total as u32,
        sample_rate,
        names_size: names_size as u32,
        reserved: [0; 2],
    };
    let mut metadata = Vec::with_capacity(
        AnimationMetadata::SIZE
            + clips.len() * ClipEntry::SIZE
            + total * ChannelEntry::SIZE
            + names_size,
    );
    metadata.extend_from_slice(&meta.to_bytes());
    for c in &clip_entries {
        metadata.extend_from_slice(&c.to_bytes());
    }
    for c in &channel_entries {
        metadata.extend_from_slice(&c.to_bytes());
    }
    for c in clips {
        metadata.extend_from_slice(c.name.as_bytes());
    }
    Ok((metadata, payload))
}

/// Rotation frames appended to `payload` as snorm16 unit quaternions, each in the hemisphere
/// of the one before; returns the quantisation error bound in radians, or the index of a frame
/// that is not a rotation (zero or not finite).
fn quantise_rotations(frames: &[[f32; 4]], payload: &mut Vec<u8>) -> Result<f64, usize> {
    let mut prev: Option<[f64; 4]> = None;
    // Smallest norm of a lerp between neighbours: cos(a / 2).
    let mut m = 1.0f64;
    for (fi, f) in frames.iter().enumerate() {
        let q = f.map(f64::from);
        let norm = q.iter().map(|v| v * v).sum::<f64>().sqrt();
        if !(norm.is_finite() && norm > 0.0) {
            return Err(fi);
        }
        let mut q = normalize_quaternion(q);
        if let Some(p) = prev {
            let dot: f64 = (0..4).map(|i| p[i] * q[i]).sum();
            if dot < 0.0 {
                q = q.map(|v| -v);
            }
            let d = dot.abs().min(1.0);
            // cos(a / 2) with cos(a) = d.
            m = m.min(((1.0 + d) / 2.0).sqrt());
        }
        prev = Some(q);
        for v in q {
            let s = (v * 32767.0).round().clamp(-32767.0, 32767.0) as i16;
            payload.extend_from_slice(&s.to_le_bytes());
        }
    }
    Ok(2.0 * (1.0 / (32767.0 * m)).min(1.0).asin())
}

/// The range (`lo`, `hi`) of quantised translation or scale frames, their quantisation error
/// bound and their f32 rounding term.
type Quantised = ([f32; 3], [f32; 3], f64, f64);

/// Translation or scale frames appended to `payload` as u16 within their per-component range,
/// or the index of a frame that is not finite.
fn quantise_vectors(frames: &[[f32; 4]], payload: &mut Vec<u8>) -> Result<Quantised, usize> {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for (fi, f) in frames.iter().enumerate() {
        if !f[..3].iter().all(|v| v.is_finite()) {
            return Err(fi);
        }
        for c in 0..3 {
            lo[c] = lo[c].min(f[c]);
            hi[c] = hi[c].max(f[c]);
        }
    }
    if !(0..3).all(|c| (hi[c] - lo[c]).is_finite()) {
        return Err(0);
    }
    for f in frames {
        for c in 0..3 {
            let span = f64::from(hi[c]) - f64::from(lo[c]);
            let q = if span > 0.0 {
                ((f64::from(f[c]) - f64::from(lo[c])) / span * 65535.0)
                    .round()
                    .clamp(0.0, 65535.0) as u16
            } else {
                0
            };
            payload.extend_from_slice(&q.to_le_bytes());
        }
    }
    let e_q = (0..3)
        .map(|c| (f64::from(hi[c]) - f64::from(lo[c])) / 131070.0)
        .fold(0.0, f64::max);
    let mag = (0..3)
        .map(|c| f64::from(lo[c].abs().max(hi[c].abs())))
        .fold(0.0, f64::max);
    let e_f = 8.0 * f64::from(f32::EPSILON) * mag;
    Ok((lo, hi, e_q, e_f))
}
