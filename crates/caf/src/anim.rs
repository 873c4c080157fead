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

use crate::meta::{AnimationMetadata, ChannelEntry};

mod encode;

#[cfg(test)]
mod tests;
mod view;

pub use encode::encode_animation;
pub use view::AnimationView;

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
