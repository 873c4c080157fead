//! Animation assets (AssetType 7, docs/format/caf-assets-ext.md section 3): the encoder
//! ([`encode_animation`], resampled frames in, quantised tables and values out) and the
//! checked view ([`AnimationView`]) with its sampler.
//!
//! ```
//! use caf::{encode_animation, AnimationView, ChannelData, ChannelPath, ChannelValue, ClipData};
//!
//! // A one-second clip at 2 Hz (3 frames): node 0 moves along x.
//! let clip = ClipData {
//!     name: "walk".into(),
//!     duration: 1.0,
//!     channels: vec![ChannelData {
//!         node: 0,
//!         joint: 0,
//!         path: ChannelPath::Translation,
//!         step: false,
//!         frames: vec![[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]],
//!         resample_error: 0.0,
//!     }],
//! };
//! let (meta, payload) = encode_animation(2.0, &[clip])?;
//! let file = caf::AssetWriter::new(caf::AssetType::ANIMATION)
//!     .metadata(&meta)
//!     .payload(&payload)
//!     .to_vec();
//! let view = AnimationView::from_asset(&caf::Asset::parse(&file)?)?;
//! assert_eq!(view.clip_name(0), Some("walk"));
//! let Some(ChannelValue::Translation(p)) = view.sample(0, 0, 0.75) else { panic!() };
//! assert!((p[0] - 1.5).abs() <= view.channel(0, 0).unwrap().error_bound);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;

use crate::error::CafError;
use crate::header::{AssetType, CafFlags};
use crate::load::Asset;
use crate::meta::{strip_alignment_padding, AnimationMetadata, ChannelEntry, ClipEntry};

/// What a channel animates.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ChannelPath {
    /// Translation x, y, z.
    Translation,
    /// Rotation, unit quaternion x, y, z, w.
    Rotation,
    /// Scale x, y, z.
    Scale,
}

impl ChannelPath {
    /// The stored code ([`ChannelEntry::path`]).
    pub fn code(self) -> u8 {
        match self {
            ChannelPath::Translation => ChannelEntry::TRANSLATION,
            ChannelPath::Rotation => ChannelEntry::ROTATION,
            ChannelPath::Scale => ChannelEntry::SCALE,
        }
    }

    /// The path of a stored code.
    pub fn from_code(c: u8) -> Option<ChannelPath> {
        match c {
            ChannelEntry::TRANSLATION => Some(ChannelPath::Translation),
            ChannelEntry::ROTATION => Some(ChannelPath::Rotation),
            ChannelEntry::SCALE => Some(ChannelPath::Scale),
            _ => None,
        }
    }
}

/// A sampled, dequantised channel value.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum ChannelValue {
    /// Translation x, y, z.
    Translation([f32; 3]),
    /// Unit quaternion x, y, z, w.
    Rotation([f32; 4]),
    /// Scale x, y, z.
    Scale([f32; 3]),
}

/// One channel as given to [`encode_animation`]: already resampled.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelData {
    /// The glTF node animated.
    pub node: u32,
    /// Its joint index in the skin, [`crate::SubMeshEntry::NONE`] when no joint.
    pub joint: u32,
    /// What is animated.
    pub path: ChannelPath,
    /// Hold frames instead of interpolating (glTF STEP).
    pub step: bool,
    /// The frames at the clip's frame times (x, y, z, unused w for T / S; x, y, z, w for R),
    /// or one frame for a constant channel.
    pub frames: Vec<[f32; 4]>,
    /// e_r of the spec: the largest deviation of the sampled unquantised frames from the
    /// source curve (T / S per component, R in radians).
    pub resample_error: f64,
}

/// One clip as given to [`encode_animation`].
#[derive(Clone, Debug, PartialEq)]
pub struct ClipData {
    /// The clip's name.
    pub name: String,
    /// Seconds.
    pub duration: f32,
    /// Its channels (at most one per node and path).
    pub channels: Vec<ChannelData>,
}

/// Why clips cannot be encoded as an Animation asset.
#[non_exhaustive]
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum AnimationEncodeError {
    /// The sample rate is not finite or outside 1..=1000.
    #[error("sample rate {0} Hz is outside 1 to 1000")]
    SampleRate(f32),
    /// No clips, or more than the format holds.
    #[error(
        "{count} clips; an animation asset holds 1 to {}",
        AnimationMetadata::MAX_CLIPS
    )]
    ClipCount {
        /// Clips given.
        count: usize,
    },
    /// No channels in a clip, or more than the format holds in all.
    #[error(
        "{count} channels; an animation asset holds 1 to {} and every clip at least one",
        AnimationMetadata::MAX_CHANNELS
    )]
    ChannelCount {
        /// Channels given (in all clips, or in the clip that has none).
        count: usize,
    },
    /// The names exceed the name block's limit.
    #[error(
        "clip names take {size} bytes, more than {}",
        AnimationMetadata::MAX_NAMES
    )]
    NamesTooLong {
        /// Bytes of all names.
        size: usize,
    },
    /// A clip's duration is negative, not finite, or makes too many frames.
    #[error(
        "clip {clip}: duration {duration} s at {rate} Hz is negative, not finite or over {} frames",
        AnimationMetadata::MAX_FRAMES
    )]
    Duration {
        /// Which clip.
        clip: usize,
        /// Its duration.
        duration: f32,
        /// The sample rate.
        rate: f32,
    },
    /// A channel has neither one frame nor its clip's frame count.
    #[error("clip {clip} channel {channel}: {frames} frames, expected 1 or {expected}")]
    FrameCount {
        /// Which clip.
        clip: usize,
        /// Which channel of the clip.
        channel: usize,
        /// Frames given.
        frames: usize,
        /// The clip's frame count.
        expected: u32,
    },
    /// A frame value is not finite, or a rotation is zero.
    #[error(
        "clip {clip} channel {channel} frame {frame}: value is not finite (or a zero quaternion)"
    )]
    BadValue {
        /// Which clip.
        clip: usize,
        /// Which channel of the clip.
        channel: usize,
        /// Which frame.
        frame: usize,
    },
    /// Two channels of a clip animate the same node and path.
    #[error("clip {clip}: node {node} has two {path:?} channels")]
    DuplicateChannel {
        /// Which clip.
        clip: usize,
        /// The node.
        node: u32,
        /// The path.
        path: ChannelPath,
    },
}

/// The f32 at or above `v` (v finite and >= 0).
fn round_up(v: f64) -> f32 {
    let f = v as f32;
    if f64::from(f) >= v || !f.is_finite() {
        f
    } else {
        f32::from_bits(f.to_bits() + 1)
    }
}

/// Normalise a quaternion in f64.
fn unit4(q: [f64; 4]) -> [f64; 4] {
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    q.map(|v| v / n)
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
                let mut prev: Option<[f64; 4]> = None;
                // Smallest norm of a lerp between neighbours: cos(a / 2).
                let mut m = 1.0f64;
                for (fi, f) in ch.frames.iter().enumerate() {
                    let q = f.map(f64::from);
                    let norm = q.iter().map(|v| v * v).sum::<f64>().sqrt();
                    if !(norm.is_finite() && norm > 0.0) {
                        return Err(bad(fi));
                    }
                    let mut q = unit4(q);
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
                let e_q = 2.0 * (1.0 / (32767.0 * m)).min(1.0).asin();
                entry.error_bound = round_up(resample + e_q + 1e-6);
            } else {
                let mut lo = [f32::INFINITY; 3];
                let mut hi = [f32::NEG_INFINITY; 3];
                for (fi, f) in ch.frames.iter().enumerate() {
                    if !f[..3].iter().all(|v| v.is_finite()) {
                        return Err(bad(fi));
                    }
                    for c in 0..3 {
                        lo[c] = lo[c].min(f[c]);
                        hi[c] = hi[c].max(f[c]);
                    }
                }
                if !(0..3).all(|c| (hi[c] - lo[c]).is_finite()) {
                    return Err(bad(0));
                }
                for f in &ch.frames {
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

/// A checked Animation asset: its clip and channel tables (owned) and the quantised values
/// (borrowed), with a sampler that dequantises and interpolates as the spec says.
#[derive(Clone, Debug)]
pub struct AnimationView<'a> {
    /// The metadata header.
    pub meta: AnimationMetadata,
    clips: Vec<ClipEntry>,
    channels: Vec<ChannelEntry>,
    names: &'a [u8],
    payload: &'a [u8],
}

fn bad(field: &'static str, value: u64, reason: &'static str) -> CafError {
    CafError::BadMetadata {
        ty: AssetType::ANIMATION,
        field,
        value,
        reason,
    }
}

impl<'a> AnimationView<'a> {
    /// Check an Animation asset: every rule of the spec's "What a reader refuses".
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::ANIMATION;
        if a.header.asset_type != ty {
            return Err(CafError::WrongType {
                expected: ty,
                found: a.header.asset_type,
            });
        }
        let encoded = CafFlags::COMPRESSED | CafFlags::ENCRYPTED;
        if a.header.flags.0 & encoded.0 != 0 {
            return Err(CafError::UnsupportedFlags {
                ty,
                flags: a.header.flags,
            });
        }
        let b = a.metadata;
        let head = b
            .get(..AnimationMetadata::SIZE)
            .ok_or(CafError::MetadataSize {
                ty,
                expected: AnimationMetadata::SIZE as u64,
                actual: b.len() as u64,
            })?;
        let meta = AnimationMetadata::from_bytes(head)?;
        if meta.magic != AnimationMetadata::MAGIC {
            return Err(bad(
                "magic",
                u32::from_le_bytes(meta.magic).into(),
                "an animation starts with \"ANIM\"",
            ));
        }
        if meta.version != AnimationMetadata::VERSION {
            return Err(bad(
                "version",
                meta.version.into(),
                "only version 1 is defined",
            ));
        }
        if meta.flags != 0 || meta.reserved != [0; 2] {
            return Err(bad(
                "flags",
                meta.flags.into(),
                "flags and reserved must be 0",
            ));
        }
        if meta.clip_count == 0 || meta.clip_count > AnimationMetadata::MAX_CLIPS {
            return Err(bad(
                "clip_count",
                meta.clip_count.into(),
                "must be between 1 and 4096",
            ));
        }
        if meta.channel_count == 0 || meta.channel_count > AnimationMetadata::MAX_CHANNELS {
            return Err(bad(
                "channel_count",
                meta.channel_count.into(),
                "must be between 1 and 65536",
            ));
        }
        let rate = meta.sample_rate;
        if !(rate.is_finite() && (1.0..=AnimationMetadata::MAX_RATE).contains(&rate)) {
            return Err(bad(
                "sample_rate",
                rate.to_bits().into(),
                "must be finite and between 1 and 1000",
            ));
        }
        if meta.names_size > AnimationMetadata::MAX_NAMES {
            return Err(bad(
                "names_size",
                meta.names_size.into(),
                "must be at most 1 MiB",
            ));
        }
        let clips_end = AnimationMetadata::SIZE + meta.clip_count as usize * ClipEntry::SIZE;
        let channels_end = clips_end + meta.channel_count as usize * ChannelEntry::SIZE;
        let expected = channels_end + meta.names_size as usize;
        let b = strip_alignment_padding(ty, b, expected);
        if b.len() != expected {
            return Err(CafError::MetadataSize {
                ty,
                expected: expected as u64,
                actual: b.len() as u64,
            });
        }
        let names = &b[channels_end..];
        let name_of = |off: u32, len: u32| -> Option<&'a [u8]> {
            let s = off as usize;
            names.get(s..s.checked_add(len as usize)?)
        };
        let mut clips = Vec::with_capacity(meta.clip_count as usize);
        let mut next_channel = 0u64;
        for e in b[AnimationMetadata::SIZE..clips_end].chunks_exact(ClipEntry::SIZE) {
            let c = ClipEntry::from_bytes(e)?;
            let i = clips.len() as u64;
            if u64::from(c.first_channel) != next_channel || c.channel_count == 0 {
                return Err(bad(
                    "clip.first_channel",
                    i,
                    "clips must own consecutive, non-empty channel ranges in order",
                ));
            }
            next_channel += u64::from(c.channel_count);
            if next_channel > u64::from(meta.channel_count) {
                return Err(bad(
                    "clip.channel_count",
                    i,
                    "the clip's channels end past channel_count",
                ));
            }
            if AnimationMetadata::frames(c.duration, rate) != Some(c.frame_count) {
                return Err(bad(
                    "clip.frame_count",
                    i,
                    "duration must be finite and >= 0, and frame_count = frames(duration, sample_rate)",
                ));
            }
            let name = name_of(c.name_offset, c.name_length).ok_or_else(|| {
                bad(
                    "clip.name_offset",
                    i,
                    "the name lies outside the name block",
                )
            })?;
            if std::str::from_utf8(name).is_err() {
                return Err(bad("clip.name", i, "not UTF-8"));
            }
            clips.push(c);
        }
        if next_channel != u64::from(meta.channel_count) {
            return Err(bad(
                "channel_count",
                meta.channel_count.into(),
                "the clips' channel ranges do not cover every channel",
            ));
        }
        let mut channels = Vec::with_capacity(meta.channel_count as usize);
        let mut offset = 0u64;
        for c in &clips {
            let mut seen = HashSet::new();
            let first = clips_end + c.first_channel as usize * ChannelEntry::SIZE;
            let end = first + c.channel_count as usize * ChannelEntry::SIZE;
            for e in b[first..end].chunks_exact(ChannelEntry::SIZE) {
                let ch = ChannelEntry::from_bytes(e)?;
                let i = channels.len() as u64;
                if ch.path_name().is_none() {
                    return Err(bad("channel.path", ch.path.into(), "must be 0, 1 or 2"));
                }
                if ch.interpolation > ChannelEntry::STEP {
                    return Err(bad(
                        "channel.interpolation",
                        ch.interpolation.into(),
                        "must be 0 (LINEAR) or 1 (STEP)",
                    ));
                }
                if ch.reserved != 0 {
                    return Err(bad("channel.reserved", ch.reserved.into(), "must be 0"));
                }
                if ch.frame_count != 1 && ch.frame_count != c.frame_count {
                    return Err(bad(
                        "channel.frame_count",
                        ch.frame_count.into(),
                        "must be 1 or the clip's frame_count",
                    ));
                }
                if u64::from(ch.data_offset) != offset {
                    return Err(bad(
                        "channel.data_offset",
                        ch.data_offset.into(),
                        "must be where the previous channel's values end",
                    ));
                }
                let floats_ok = ch.min.iter().chain(&ch.max).all(|v| v.is_finite())
                    && (0..3)
                        .all(|k| ch.min[k] <= ch.max[k] && (ch.max[k] - ch.min[k]).is_finite());
                if !floats_ok {
                    return Err(bad(
                        "channel.min",
                        i,
                        "min and max must be finite with min <= max",
                    ));
                }
                if ch.path == ChannelEntry::ROTATION && (ch.min != [0.0; 3] || ch.max != [0.0; 3]) {
                    return Err(bad("channel.min", i, "must be 0 for a rotation"));
                }
                if !(ch.error_bound.is_finite() && ch.error_bound >= 0.0) {
                    return Err(bad(
                        "channel.error_bound",
                        ch.error_bound.to_bits().into(),
                        "must be finite and >= 0",
                    ));
                }
                if !seen.insert((ch.node, ch.path)) {
                    return Err(bad(
                        "channel.node",
                        ch.node.into(),
                        "a clip has two channels of the same node and path",
                    ));
                }
                offset += 2 * ch.components() as u64 * u64::from(ch.frame_count);
                channels.push(ch);
            }
        }
        if offset != a.payload.len() as u64 {
            return Err(CafError::PayloadSize {
                ty,
                expected: offset,
                actual: a.payload.len() as u64,
            });
        }
        for ch in channels.iter().filter(|c| c.path == ChannelEntry::ROTATION) {
            let start = ch.data_offset as usize;
            let values = &a.payload[start..start + 8 * ch.frame_count as usize];
            if let Some(k) = values
                .chunks_exact(8)
                .position(|f| f.iter().all(|&x| x == 0))
            {
                return Err(CafError::Malformed {
                    ty,
                    offset: (start + 8 * k) as u64,
                    what: format!("node {} rotation frame {k} is a zero quaternion", ch.node),
                });
            }
        }
        Ok(AnimationView {
            meta,
            clips,
            channels,
            names,
            payload: a.payload,
        })
    }

    /// Number of clips.
    pub fn clip_count(&self) -> usize {
        self.clips.len()
    }

    /// The table entry of clip `i`.
    pub fn clip(&self, i: usize) -> Option<&ClipEntry> {
        self.clips.get(i)
    }

    /// The name of clip `i` ("" when it has none).
    pub fn clip_name(&self, i: usize) -> Option<&'a str> {
        let c = self.clips.get(i)?;
        let s = c.name_offset as usize;
        // Checked on construction to lie within the block and be UTF-8.
        std::str::from_utf8(self.names.get(s..s + c.name_length as usize)?).ok()
    }

    /// The index of the clip named `name`.
    pub fn find_clip(&self, name: &str) -> Option<usize> {
        (0..self.clips.len()).find(|&i| self.clip_name(i) == Some(name))
    }

    /// The channels of clip `i`.
    pub fn channels(&self, clip: usize) -> &[ChannelEntry] {
        match self.clips.get(clip) {
            Some(c) => {
                let s = c.first_channel as usize;
                &self.channels[s..s + c.channel_count as usize]
            }
            None => &[],
        }
    }

    /// Channel `channel` of clip `clip`.
    pub fn channel(&self, clip: usize, channel: usize) -> Option<&ChannelEntry> {
        self.channels(clip).get(channel)
    }

    /// Every channel of every clip, in table order.
    pub fn all_channels(&self) -> &[ChannelEntry] {
        &self.channels
    }

    /// The dequantised value of frame `k` (T / S in `[..3]`).
    fn frame(&self, ch: &ChannelEntry, k: usize) -> [f32; 4] {
        let n = ch.components();
        let at = ch.data_offset as usize + k * 2 * n;
        let raw = |i: usize| -> [u8; 2] {
            let s = at + 2 * i;
            // Every channel's values lie within the payload (checked on construction).
            [self.payload[s], self.payload[s + 1]]
        };
        if ch.path == ChannelEntry::ROTATION {
            [0, 1, 2, 3].map(|i| (f32::from(i16::from_le_bytes(raw(i))) / 32767.0).max(-1.0))
        } else {
            let mut v = [0.0; 4];
            for (c, out) in v.iter_mut().enumerate().take(3) {
                let q = f32::from(u16::from_le_bytes(raw(c)));
                *out = ch.min[c] + q / 65535.0 * (ch.max[c] - ch.min[c]);
            }
            v
        }
    }

    /// The time of frame `k` of clip `clip`, in seconds: `k x h` with `h = duration / (N - 1)`
    /// (the spec's "Sampling"), computed in f64 and rounded down to an f32, so that a key
    /// written at this time (a glTF export) is never later than the frame and a STEP switch
    /// lands on the same frame when converted again; the last frame lies exactly at the
    /// duration. `None` when the clip or frame does not exist.
    pub fn frame_time(&self, clip: usize, k: usize) -> Option<f32> {
        let c = self.clips.get(clip)?;
        let n = c.frame_count as usize;
        if k >= n {
            return None;
        }
        if k + 1 == n {
            return Some(c.duration);
        }
        let h = f64::from(c.duration) / (n - 1) as f64;
        let exact = k as f64 * h;
        let t = exact as f32;
        // Rounded to nearest: step down one ulp when that went up (t > 0 here).
        Some(if f64::from(t) > exact {
            f32::from_bits(t.to_bits() - 1)
        } else {
            t
        })
    }

    /// The stored value of frame `k` of a channel, dequantised (a rotation normalised): the
    /// keys a glTF sampler of the channel holds. A constant channel has frame 0 only. `None`
    /// when there is no such channel or frame.
    pub fn frame_value(&self, clip: usize, channel: usize, k: usize) -> Option<ChannelValue> {
        let ch = self.channel(clip, channel)?;
        if k >= ch.frame_count as usize {
            return None;
        }
        Some(value_of(ch.path, self.frame(ch, k)))
    }

    /// The value of channel `channel` of clip `clip` at `t` seconds (clamped to the clip),
    /// dequantised and interpolated as the spec's "Sampling" says; `None` when there is no
    /// such channel. Within the channel's `error_bound` of the source curve.
    pub fn sample(&self, clip: usize, channel: usize, t: f32) -> Option<ChannelValue> {
        let c = self.clips.get(clip)?;
        let ch = self.channel(clip, channel)?;
        let v = if ch.frame_count == 1 {
            self.frame(ch, 0)
        } else {
            let d = f64::from(c.duration);
            let n = ch.frame_count as usize;
            let h = d / (n - 1) as f64;
            let t = if t.is_nan() {
                0.0
            } else {
                f64::from(t).clamp(0.0, d)
            };
            let u = t / h;
            let k = (u.floor() as usize).min(n - 2);
            let f = (u - k as f64).clamp(0.0, 1.0);
            if ch.interpolation == ChannelEntry::STEP {
                self.frame(ch, if f >= 1.0 { k + 1 } else { k })
            } else {
                let (a, b) = (self.frame(ch, k), self.frame(ch, k + 1));
                let f = f as f32;
                let mut v = [0.0; 4];
                for i in 0..4 {
                    v[i] = a[i] + (b[i] - a[i]) * f;
                }
                v
            }
        };
        Some(value_of(ch.path, v))
    }
}

/// A channel's raw four values as its typed value (a rotation normalised).
fn value_of(path: u8, v: [f32; 4]) -> ChannelValue {
    match path {
        ChannelEntry::ROTATION => {
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            let q = if n > 0.0 {
                v.map(|x| x / n)
            } else {
                [0.0, 0.0, 0.0, 1.0]
            };
            ChannelValue::Rotation(q)
        }
        ChannelEntry::SCALE => ChannelValue::Scale([v[0], v[1], v[2]]),
        _ => ChannelValue::Translation([v[0], v[1], v[2]]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AssetWriter;

    fn clips() -> Vec<ClipData> {
        let n = AnimationMetadata::frames(0.5, 10.0).unwrap() as usize; // 6 frames
        let turn = |a: f32| [0.0, 0.0, (a / 2.0).sin(), (a / 2.0).cos()];
        vec![
            ClipData {
                name: "walk".into(),
                duration: 0.5,
                channels: vec![
                    ChannelData {
                        node: 3,
                        joint: 0,
                        path: ChannelPath::Translation,
                        step: false,
                        frames: (0..n)
                            .map(|k| [k as f32, -2.0 * k as f32, 0.5, 0.0])
                            .collect(),
                        resample_error: 0.0,
                    },
                    ChannelData {
                        node: 3,
                        joint: 0,
                        path: ChannelPath::Rotation,
                        step: false,
                        frames: (0..n).map(|k| turn(k as f32 * 0.3)).collect(),
                        resample_error: 0.0,
                    },
                    ChannelData {
                        node: 4,
                        joint: crate::SubMeshEntry::NONE,
                        path: ChannelPath::Scale,
                        step: true,
                        frames: vec![[2.0, 2.0, 2.0, 0.0]],
                        resample_error: 0.0,
                    },
                ],
            },
            ClipData {
                name: "idle".into(),
                duration: 0.0,
                channels: vec![ChannelData {
                    node: 3,
                    joint: 0,
                    path: ChannelPath::Rotation,
                    step: false,
                    frames: vec![turn(1.0)],
                    resample_error: 0.25,
                }],
            },
        ]
    }

    fn file(meta: &[u8], payload: &[u8]) -> Vec<u8> {
        AssetWriter::new(AssetType::ANIMATION)
            .metadata(meta)
            .payload(payload)
            .to_vec()
    }

    fn view_of(f: &[u8]) -> Result<(), CafError> {
        let a = Asset::parse(f)?;
        let v = AnimationView::from_asset(&a)?;
        // Whatever a damaged file decodes to, sampling stays in bounds and finite.
        for c in 0..v.clip_count() {
            for k in 0..v.channels(c).len() {
                for t in [-1.0, 0.0, 0.13, 0.25, 0.5, 7.0, f32::NAN] {
                    let s = v.sample(c, k, t).expect("channel exists");
                    let vals: Vec<f32> = match s {
                        ChannelValue::Translation(x) | ChannelValue::Scale(x) => x.to_vec(),
                        ChannelValue::Rotation(q) => q.to_vec(),
                    };
                    assert!(vals.iter().all(|x| x.is_finite()), "{vals:?}");
                }
            }
        }
        Ok(())
    }

    #[test]
    fn round_trip_and_sampling() {
        let (meta, payload) = encode_animation(10.0, &clips()).unwrap();
        assert_eq!(meta.len(), 32 + 2 * 24 + 4 * 48 + 8);
        // T 6x3, R 6x4, S 1x3, R 1x4 u16 values.
        assert_eq!(payload.len(), 2 * (18 + 24 + 3 + 4));
        let f = file(&meta, &payload);
        let a = Asset::parse(&f).unwrap();
        let v = AnimationView::from_asset(&a).unwrap();
        assert_eq!(v.clip_count(), 2);
        assert_eq!(v.clip_name(0), Some("walk"));
        assert_eq!(v.find_clip("idle"), Some(1));
        assert_eq!(v.clip(0).unwrap().frame_count, 6);
        assert_eq!(v.clip(1).unwrap().frame_count, 1);
        // Translation: x = 10 t, y = -20 t within the bound.
        let ch = *v.channel(0, 0).unwrap();
        for i in 0..=50 {
            let t = i as f32 / 100.0;
            let Some(ChannelValue::Translation(p)) = v.sample(0, 0, t) else {
                panic!("translation expected")
            };
            assert!((p[0] - 10.0 * t).abs() <= ch.error_bound, "{t} {p:?}");
            assert!((p[1] + 20.0 * t).abs() <= ch.error_bound, "{t} {p:?}");
            assert!((p[2] - 0.5).abs() <= ch.error_bound);
        }
        // Half a step of a 5-wide range, plus rounding.
        assert!(ch.error_bound >= 5.0 / 131070.0 && ch.error_bound < 1e-4);
        // Rotation frames: the angle grows 0.3 rad per frame (0.1 s); at a frame the stored
        // rotation is within the quantisation bound.
        let rb = v.channel(0, 1).unwrap().error_bound;
        assert!(rb > 6e-5 && rb < 1e-4, "{rb}");
        let Some(ChannelValue::Rotation(q)) = v.sample(0, 1, 0.3) else {
            panic!("rotation expected")
        };
        let angle = 2.0 * q[2].atan2(q[3]);
        assert!((angle - 0.9).abs() <= rb, "{angle}");
        // Constant STEP scale; clamped times.
        assert_eq!(v.sample(0, 2, 9.0), Some(ChannelValue::Scale([2.0; 3])));
        assert_eq!(v.channel(0, 2).unwrap().frame_count, 1);
        // The stored bound includes the given resampling error.
        assert!(v.channel(1, 0).unwrap().error_bound > 0.25);
        assert_eq!(v.sample(0, 9, 0.0), None);
        assert_eq!(v.sample(5, 0, 0.0), None);
    }

    #[test]
    fn frames_are_the_stored_keys() {
        let (meta, payload) = encode_animation(10.0, &clips()).unwrap();
        let f = file(&meta, &payload);
        let a = Asset::parse(&f).unwrap();
        let v = AnimationView::from_asset(&a).unwrap();
        // Clip 0: 0.5 s, 6 frames 0.1 s apart; the last exactly at the duration.
        assert_eq!(v.frame_time(0, 0), Some(0.0));
        assert!((v.frame_time(0, 3).unwrap() - 0.3).abs() < 1e-7);
        for k in 1..5 {
            // Never later than the exact frame time, and at most one ulp earlier.
            let t = v.frame_time(0, k).unwrap();
            let exact = k as f64 * 0.5f64 / 5.0;
            assert!(f64::from(t) <= exact && f64::from(f32::from_bits(t.to_bits() + 1)) > exact);
        }
        assert_eq!(v.frame_time(0, 5), Some(0.5));
        assert_eq!(v.frame_time(0, 6), None);
        assert_eq!(v.frame_time(1, 0), Some(0.0));
        assert_eq!(v.frame_time(9, 0), None);
        for k in 0..6 {
            // A frame value is what sampling gives at the frame's time.
            let t = v.frame_time(0, k).unwrap();
            for c in 0..2 {
                let (Some(a), Some(b)) = (v.frame_value(0, c, k), v.sample(0, c, t)) else {
                    panic!("frame {k} of channel {c}")
                };
                let (a, b) = match (a, b) {
                    (ChannelValue::Translation(a), ChannelValue::Translation(b)) => {
                        (a.to_vec(), b.to_vec())
                    }
                    (ChannelValue::Rotation(a), ChannelValue::Rotation(b)) => {
                        (a.to_vec(), b.to_vec())
                    }
                    other => panic!("{other:?}"),
                };
                for (x, y) in a.iter().zip(&b) {
                    assert!((x - y).abs() < 1e-5, "frame {k} channel {c}: {a:?} {b:?}");
                }
            }
        }
        let Some(ChannelValue::Translation(p)) = v.frame_value(0, 0, 2) else {
            panic!("translation expected")
        };
        assert!(
            (p[0] - 2.0).abs() < 1e-4 && (p[1] + 4.0).abs() < 1e-4,
            "{p:?}"
        );
        // A constant channel has frame 0 only.
        assert_eq!(v.frame_value(0, 2, 0), Some(ChannelValue::Scale([2.0; 3])));
        assert_eq!(v.frame_value(0, 2, 1), None);
        assert_eq!(v.frame_value(0, 9, 0), None);
    }

    #[test]
    fn encoder_refusals() {
        assert!(matches!(
            encode_animation(0.5, &clips()),
            Err(AnimationEncodeError::SampleRate(_))
        ));
        assert!(matches!(
            encode_animation(10.0, &[]),
            Err(AnimationEncodeError::ClipCount { count: 0 })
        ));
        let mut c = clips();
        c[0].channels[0].frames.pop();
        assert!(matches!(
            encode_animation(10.0, &c),
            Err(AnimationEncodeError::FrameCount {
                frames: 5,
                expected: 6,
                ..
            })
        ));
        let mut c = clips();
        c[0].channels[1].frames[2] = [0.0; 4];
        assert!(matches!(
            encode_animation(10.0, &c),
            Err(AnimationEncodeError::BadValue { frame: 2, .. })
        ));
        let mut c = clips();
        c[0].channels[2].node = 3;
        c[0].channels[2].path = ChannelPath::Rotation;
        assert!(matches!(
            encode_animation(10.0, &c),
            Err(AnimationEncodeError::DuplicateChannel { node: 3, .. })
        ));
        let mut c = clips();
        c[0].duration = f32::INFINITY;
        assert!(matches!(
            encode_animation(10.0, &c),
            Err(AnimationEncodeError::Duration { clip: 0, .. })
        ));
        let mut c = clips();
        c[0].duration = 2.0e6; // more than 2^20 frames at 10 Hz
        assert!(matches!(
            encode_animation(10.0, &c),
            Err(AnimationEncodeError::Duration { clip: 0, .. })
        ));
    }

    #[test]
    fn truncated_and_corrupt_assets_are_refused() {
        let (meta, payload) = encode_animation(10.0, &clips()).unwrap();
        assert!(view_of(&file(&meta, &payload)).is_ok());
        for cut in [1, 8, 48, meta.len() - 1] {
            assert!(
                matches!(
                    view_of(&file(&meta[..meta.len() - cut], &payload)),
                    Err(CafError::MetadataSize { .. } | CafError::BadMetadata { .. })
                ),
                "metadata cut by {cut}"
            );
        }
        for cut in [1, 2, payload.len()] {
            assert!(matches!(
                view_of(&file(&meta, &payload[..payload.len() - cut])),
                Err(CafError::PayloadSize { .. })
            ));
        }
        let mut longer = payload.clone();
        longer.extend_from_slice(&[0, 0]);
        assert!(matches!(
            view_of(&file(&meta, &longer)),
            Err(CafError::PayloadSize { .. })
        ));
        // A zero rotation frame (the first frame of channel 1).
        let mut zero = payload.clone();
        zero[36..44].fill(0);
        assert!(matches!(
            view_of(&file(&meta, &zero)),
            Err(CafError::Malformed { offset: 36, .. })
        ));
        // A huge declared count is refused before anything is allocated.
        let mut huge = meta.clone();
        huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            view_of(&file(&huge, &payload)),
            Err(CafError::BadMetadata {
                field: "channel_count",
                ..
            })
        ));
        // The wrong type, and an encoded payload, are refused.
        let other = AssetWriter::new(AssetType::MESH)
            .metadata(&meta)
            .payload(&payload)
            .to_vec();
        assert!(matches!(view_of(&other), Err(CafError::WrongType { .. })));
    }

    /// Every single-bit flip of the metadata (written with fresh CRCs, so only the view
    /// stands between it and the sampler) is refused or decodes to something that samples
    /// without panicking to finite values.
    #[test]
    fn every_metadata_bit_flip_is_caught_or_harmless() {
        let (meta, payload) = encode_animation(10.0, &clips()).unwrap();
        let mut refused = 0;
        for bit in 0..meta.len() * 8 {
            let mut m = meta.clone();
            m[bit / 8] ^= 1 << (bit % 8);
            if view_of(&file(&m, &payload)).is_err() {
                refused += 1;
            }
        }
        // Structural fields are all checked: most flips are refused.
        assert!(refused > meta.len() * 8 / 2, "{refused}");
        // Every payload bit flip too.
        for bit in 0..payload.len() * 8 {
            let mut p = payload.clone();
            p[bit / 8] ^= 1 << (bit % 8);
            let _ = view_of(&file(&meta, &p));
        }
    }
}
