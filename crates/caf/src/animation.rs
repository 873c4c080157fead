//! Animation assets (AssetType 7, docs/format/caf-assets-ext.md section 3): the encoder
//! ([`encode_animation`], resampled frames in, quantised tables and values out) and the
//! checked view ([`AnimationView`]) with its sampler.
//!
//! ```
//! use caf::animation::{encode_animation, AnimationView, ChannelData, ChannelPath, ChannelValue, ClipData};
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

use crate::container::header::AssetType;
use crate::container::layout::layout;
use crate::container::metadata::{codec, ext_header_impl};

mod encode;

#[cfg(test)]
mod tests;
mod view;

pub use encode::encode_animation;
pub use view::AnimationView;

layout! {
    /// Animation metadata header (32 bytes, docs/format/caf-assets-ext.md section 3),
    /// followed by the clip table, the channel table and the name block.
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct AnimationMetadata (RawAnimationMetadata, 32 bytes) {
        /// Bytes "ANIM".
        pub magic: [u8; 4],
        /// 1.
        pub version: u16,
        /// 0.
        pub flags: u16,
        /// Number of [`ClipEntry`]s.
        pub clip_count: u32,
        /// Number of [`ChannelEntry`]s over all clips.
        pub channel_count: u32,
        /// Frames per second the clips were resampled at (a floor, see the spec).
        pub sample_rate: f32,
        /// Bytes of the name block at the end of the metadata.
        pub names_size: u32,
        /// Reserved, 0.
        pub reserved: [u32; 2],
    }
}
codec!(
    AnimationMetadata,
    RawAnimationMetadata,
    AssetType::ANIMATION
);

ext_header_impl!(
    AnimationMetadata: AssetType::ANIMATION,
    magic "magic" ("an animation starts with \"ANIM\""),
    version "version";
    fn fields_fault(&self) -> Option<(&'static str, u64, &'static str)> {
        (self.flags != 0 || self.reserved != [0; 2]).then_some((
            "flags",
            self.flags.into(),
            "flags and reserved must be 0",
        ))
    }
);

impl AnimationMetadata {
    /// The magic bytes.
    pub const MAGIC: [u8; 4] = *b"ANIM";
    /// The only version defined.
    pub const VERSION: u16 = 1;
    /// Most clips in one asset.
    pub const MAX_CLIPS: u32 = 4096;
    /// Most channels in one asset.
    pub const MAX_CHANNELS: u32 = 65536;
    /// Most frames in one clip.
    pub const MAX_FRAMES: u32 = 1 << 20;
    /// Largest name block.
    pub const MAX_NAMES: u32 = 1 << 20;
    /// Highest sample rate, frames per second.
    pub const MAX_RATE: f32 = 1000.0;

    /// Frames of a clip of `duration` seconds at `rate` frames per second: 1 for a zero
    /// duration, else `ceil(duration x rate) + 1` (in f64); `None` when not finite, negative
    /// or over [`Self::MAX_FRAMES`].
    pub fn frames(duration: f32, rate: f32) -> Option<u32> {
        if !(duration.is_finite() && duration >= 0.0 && rate.is_finite() && rate > 0.0) {
            return None;
        }
        if duration == 0.0 {
            return Some(1);
        }
        let n = (f64::from(duration) * f64::from(rate)).ceil() + 1.0;
        (n <= f64::from(Self::MAX_FRAMES)).then_some(n as u32)
    }
}

layout! {
    /// One clip (24 bytes): its channel range, frame count, duration and name.
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct ClipEntry (RawClipEntry, 24 bytes) {
        /// First entry of the clip in the channel table.
        pub first_channel: u32,
        /// Number of channels.
        pub channel_count: u32,
        /// Frames per (non-constant) channel: [`AnimationMetadata::frames`].
        pub frame_count: u32,
        /// Seconds.
        pub duration: f32,
        /// Start of the name in the name block.
        pub name_offset: u32,
        /// Length of the name in bytes (0 = none).
        pub name_length: u32,
    }
}
codec!(ClipEntry, RawClipEntry, AssetType::ANIMATION);

layout! {
    /// One animated property of one node (48 bytes).
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    pub struct ChannelEntry (RawChannelEntry, 48 bytes) {
        /// The glTF node animated.
        pub node: u32,
        /// The node's index in the skin's joint list, [`SubMeshEntry::NONE`](crate::mesh::SubMeshEntry::NONE) when no joint.
        pub joint: u32,
        /// [`ChannelEntry::TRANSLATION`], [`ChannelEntry::ROTATION`] or [`ChannelEntry::SCALE`].
        pub path: u8,
        /// [`ChannelEntry::LINEAR`] or [`ChannelEntry::STEP`].
        pub interpolation: u8,
        /// Reserved, 0.
        pub reserved: u16,
        /// The clip's frame count, or 1 for a constant channel.
        pub frame_count: u32,
        /// Byte offset of the values in the payload.
        pub data_offset: u32,
        /// Smallest value per component (T / S; 0 for R).
        pub min: [f32; 3],
        /// Largest value per component (T / S; 0 for R).
        pub max: [f32; 3],
        /// Largest deviation from the source curve (T / S: per component; R: radians).
        pub error_bound: f32,
    }
}
codec!(ChannelEntry, RawChannelEntry, AssetType::ANIMATION);

impl ChannelEntry {
    /// Path: translation ([`ChannelPath::Translation`]).
    pub const TRANSLATION: u8 = 0;
    /// Path: rotation ([`ChannelPath::Rotation`]).
    pub const ROTATION: u8 = 1;
    /// Path: scale ([`ChannelPath::Scale`]).
    pub const SCALE: u8 = 2;
    /// Interpolation between frames: linear (nlerp for rotations).
    pub const LINEAR: u8 = 0;
    /// Interpolation between frames: hold the previous frame.
    pub const STEP: u8 = 1;

    /// 16-bit values per frame: 4 for rotations, 3 otherwise.
    pub fn components(&self) -> usize {
        if self.path == Self::ROTATION {
            4
        } else {
            3
        }
    }

    /// "translation", "rotation", "scale", or `None`.
    pub fn path_name(&self) -> Option<&'static str> {
        ChannelPath::from_code(self.path).map(ChannelPath::name)
    }
}

/// The identity rotation `[x, y, z, w] = [0, 0, 0, 1]`.
pub const IDENTITY_QUATERNION: [f64; 4] = [0.0, 0.0, 0.0, 1.0];

/// `q` (`[x, y, z, w]`) scaled to unit length, or [`IDENTITY_QUATERNION`] when its length is
/// zero or not finite (a zero, NaN or infinite component): the one quaternion normaliser of the
/// encoder, the view's sampler and `caf_import`'s glTF resampling.
///
/// ```
/// use caf::animation::{normalize_quaternion, IDENTITY_QUATERNION};
///
/// assert_eq!(normalize_quaternion([0.0, 0.0, 3.0, 4.0]), [0.0, 0.0, 0.6, 0.8]);
/// assert_eq!(normalize_quaternion([0.0; 4]), IDENTITY_QUATERNION);
/// assert_eq!(normalize_quaternion([f64::NAN, 0.0, 0.0, 1.0]), IDENTITY_QUATERNION);
/// ```
pub fn normalize_quaternion(q: [f64; 4]) -> [f64; 4] {
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    if n.is_finite() && n > 0.0 {
        q.map(|v| v / n)
    } else {
        IDENTITY_QUATERNION
    }
}

voxcaf_names::names! {
    /// What a channel animates, with its stored code ([`ChannelEntry::path`]).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
    pub enum ChannelPath: u8 as "channel path" {
        /// Translation x, y, z (code 0).
        Translation = 0 => "translation",
        /// Rotation, unit quaternion x, y, z, w (code 1).
        Rotation = 1 => "rotation",
        /// Scale x, y, z (code 2).
        Scale = 2 => "scale",
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
    /// Its joint index in the skin, [`crate::mesh::SubMeshEntry::NONE`] when no joint.
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
