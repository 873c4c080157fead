//! Audio assets: interleaved PCM samples (CAF.md section 4.2).

use std::borrow::Cow;

use zerocopy::little_endian::I16;
use zerocopy::FromBytes;

use crate::container::header::AssetType;
use crate::container::layout::layout;
use crate::container::load::Asset;
use crate::container::metadata::codec;
use crate::container::view::{expect_type, payload_size};
use crate::error::CafError;

layout! {
    /// Audio metadata (16 bytes).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct AudioMetadata (RawAudioMetadata, 16 bytes) {
        /// Frames per second.
        pub sample_rate: u32,
        /// Interleaved channels.
        pub channels: u16,
        /// 8, 16 or 32.
        pub bits_per_sample: u16,
        /// Frames (samples per channel).
        pub sample_count: u32,
        /// Reserved, 0.
        pub reserved: u32,
    }
}
codec!(AudioMetadata, RawAudioMetadata, AssetType::AUDIO);

/// Interleaved PCM audio.
#[derive(Clone, Copy, Debug)]
pub struct AudioView<'a> {
    /// The metadata.
    pub meta: AudioMetadata,
    /// The interleaved little-endian samples.
    pub data: &'a [u8],
}

impl<'a> AudioView<'a> {
    /// Check an audio asset.
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::AUDIO;
        expect_type(a, ty)?;
        let meta = AudioMetadata::from_metadata(a.metadata)?;
        if !matches!(meta.bits_per_sample, 8 | 16 | 32) {
            return Err(CafError::BadMetadata {
                ty,
                field: "bits_per_sample",
                value: meta.bits_per_sample.into(),
                reason: "must be 8, 16 or 32",
            });
        }
        if meta.channels == 0 {
            return Err(CafError::BadMetadata {
                ty,
                field: "channels",
                value: 0,
                reason: "must be at least 1",
            });
        }
        let expected = u64::from(meta.sample_count)
            * u64::from(meta.channels)
            * u64::from(meta.bits_per_sample / 8);
        payload_size(ty, Some(expected), a.payload.len())?;
        Ok(AudioView {
            meta,
            data: a.payload,
        })
    }

    /// The samples as `i16` without copying, when 16-bit, little-endian host and aligned.
    pub fn samples_i16(&self) -> Option<&'a [i16]> {
        if self.meta.bits_per_sample != 16 || cfg!(target_endian = "big") {
            return None;
        }
        <[i16]>::ref_from_bytes(self.data).ok()
    }

    /// The 16-bit samples, borrowed when possible and copied otherwise; `None` unless 16-bit.
    pub fn samples_i16_cow(&self) -> Option<Cow<'a, [i16]>> {
        if self.meta.bits_per_sample != 16 {
            return None;
        }
        Some(match self.samples_i16() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(
                <[I16]>::ref_from_prefix_with_elems(self.data, self.data.len() / 2)
                    .map(|(v, _)| v.iter().map(|s| s.get()).collect())
                    .unwrap_or_default(),
            ),
        })
    }

    /// Frames (samples per channel).
    pub fn frames(&self) -> u32 {
        self.meta.sample_count
    }

    /// Duration in seconds (0 when the sample rate is 0).
    pub fn duration_secs(&self) -> f64 {
        if self.meta.sample_rate == 0 {
            return 0.0;
        }
        f64::from(self.meta.sample_count) / f64::from(self.meta.sample_rate)
    }
}

#[cfg(feature = "wav")]
impl AudioView<'_> {
    /// The samples as a WAV file: same rate, channels and sample size (8-bit samples, stored
    /// signed, become WAV's unsigned 8-bit).
    pub fn to_wav(&self) -> Result<Vec<u8>, hound::Error> {
        let m = self.meta;
        let spec = hound::WavSpec {
            channels: m.channels,
            sample_rate: m.sample_rate,
            bits_per_sample: m.bits_per_sample,
            sample_format: hound::SampleFormat::Int,
        };
        let data = self.data;
        let mut cursor = std::io::Cursor::new(Vec::with_capacity(data.len() + 64));
        let mut w = hound::WavWriter::new(&mut cursor, spec)?;
        match m.bits_per_sample {
            8 => {
                for &b in data {
                    w.write_sample(b as i8)?;
                }
            }
            16 => {
                for s in data.chunks_exact(2) {
                    w.write_sample(i16::from_le_bytes([s[0], s[1]]))?;
                }
            }
            _ => {
                for s in data.chunks_exact(4) {
                    w.write_sample(i32::from_le_bytes([s[0], s[1], s[2], s[3]]))?;
                }
            }
        }
        w.finalize()?;
        Ok(cursor.into_inner())
    }
}
