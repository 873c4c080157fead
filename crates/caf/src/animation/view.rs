//! The checked animation view and its sampler.

use std::collections::HashSet;

use super::{normalize_quaternion, ChannelValue};
use crate::animation::{AnimationMetadata, ChannelEntry, ClipEntry};
use crate::container::header::AssetType;
use crate::container::load::Asset;
use crate::container::metadata::ext_header;
use crate::container::view::expect_type;
use crate::error::CafError;
use crate::strip_alignment_padding;

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
        expect_type(a, ty)?;
        let meta = check_header(a.metadata)?;
        let clips_end = AnimationMetadata::SIZE + meta.clip_count as usize * ClipEntry::SIZE;
        let channels_end = clips_end + meta.channel_count as usize * ChannelEntry::SIZE;
        let expected = channels_end + meta.names_size as usize;
        let b = strip_alignment_padding(ty, a.metadata, expected);
        if b.len() != expected {
            return Err(CafError::MetadataSize {
                ty,
                expected: expected as u64,
                actual: b.len() as u64,
            });
        }
        let names = &b[channels_end..];
        let clips = check_clips(&meta, &b[AnimationMetadata::SIZE..clips_end], names)?;
        let (channels, offset) = check_channels(&meta, &clips, &b[clips_end..channels_end])?;
        if offset != a.payload.len() as u64 {
            return Err(CafError::PayloadSize {
                ty,
                expected: offset,
                actual: a.payload.len() as u64,
            });
        }
        check_rotations(&channels, a.payload)?;
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
            ChannelValue::Rotation(normalize_quaternion(v.map(f64::from)).map(|x| x as f32))
        }
        ChannelEntry::SCALE => ChannelValue::Scale([v[0], v[1], v[2]]),
        _ => ChannelValue::Translation([v[0], v[1], v[2]]),
    }
}

/// The metadata header of an animation (`b` its whole metadata) with its counts, rate and name
/// block size checked.
fn check_header(b: &[u8]) -> Result<AnimationMetadata, CafError> {
    let meta: AnimationMetadata = ext_header(b)?;
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
    Ok(meta)
}

/// The clip table (`table`, the clip entries' bytes; `names`, the name block): consecutive,
/// non-empty channel ranges covering every channel, frame counts and UTF-8 names.
fn check_clips(
    meta: &AnimationMetadata,
    table: &[u8],
    names: &[u8],
) -> Result<Vec<ClipEntry>, CafError> {
    let rate = meta.sample_rate;
    let name_of = |off: u32, len: u32| {
        let s = off as usize;
        names.get(s..s.checked_add(len as usize)?)
    };
    let mut clips = Vec::with_capacity(meta.clip_count as usize);
    let mut next_channel = 0u64;
    for e in table.chunks_exact(ClipEntry::SIZE) {
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
    Ok(clips)
}

/// The channel table (`table`, the channel entries' bytes) clip by clip; returns the channels
/// and the payload length their values take.
fn check_channels(
    meta: &AnimationMetadata,
    clips: &[ClipEntry],
    table: &[u8],
) -> Result<(Vec<ChannelEntry>, u64), CafError> {
    let mut channels = Vec::with_capacity(meta.channel_count as usize);
    let mut offset = 0u64;
    for c in clips {
        let mut seen = HashSet::new();
        let first = c.first_channel as usize * ChannelEntry::SIZE;
        let end = first + c.channel_count as usize * ChannelEntry::SIZE;
        for e in table[first..end].chunks_exact(ChannelEntry::SIZE) {
            let ch = ChannelEntry::from_bytes(e)?;
            check_channel(&ch, c, channels.len() as u64, offset)?;
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
    Ok((channels, offset))
}

/// One channel entry `ch` (number `i`) of clip `c`, whose values must start at `offset`.
fn check_channel(ch: &ChannelEntry, c: &ClipEntry, i: u64, offset: u64) -> Result<(), CafError> {
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
        && (0..3).all(|k| ch.min[k] <= ch.max[k] && (ch.max[k] - ch.min[k]).is_finite());
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
    Ok(())
}

/// No rotation frame is a zero quaternion (every channel's values already lie in `payload`).
fn check_rotations(channels: &[ChannelEntry], payload: &[u8]) -> Result<(), CafError> {
    for ch in channels.iter().filter(|c| c.path == ChannelEntry::ROTATION) {
        let start = ch.data_offset as usize;
        let values = &payload[start..start + 8 * ch.frame_count as usize];
        if let Some(k) = values
            .chunks_exact(8)
            .position(|f| f.iter().all(|&x| x == 0))
        {
            return Err(CafError::Malformed {
                ty: AssetType::ANIMATION,
                offset: (start + 8 * k) as u64,
                what: format!("node {} rotation frame {k} is a zero quaternion", ch.node),
            });
        }
    }
    Ok(())
}
