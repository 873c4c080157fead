//! Audio export: the PCM payload as a WAV file (through `hound`), same rate, channels and
//! sample size (8-bit samples, stored signed, become WAV's unsigned 8-bit).

use std::path::Path;

use super::{ExportError, ExportFile, Result};

/// The WAV file of an audio asset, at `out`.
pub fn export(asset: &caf::Asset<'_>, out: &Path) -> Result<Vec<ExportFile>> {
    let view = caf::audio::AudioView::from_asset(asset)?;
    let m = view.meta;
    let spec = hound::WavSpec {
        channels: m.channels,
        sample_rate: m.sample_rate,
        bits_per_sample: m.bits_per_sample,
        sample_format: hound::SampleFormat::Int,
    };
    let bytes = encode_wav(spec, view.data).map_err(|e| ExportError::Encode {
        format: "WAV",
        message: e.to_string(),
    })?;
    Ok(vec![ExportFile {
        path: out.to_path_buf(),
        bytes,
        what: format!(
            "WAV {} Hz, {} channel(s), {}-bit, {} frames",
            m.sample_rate, m.channels, m.bits_per_sample, m.sample_count
        ),
    }])
}

/// Little-endian signed samples of `spec.bits_per_sample` bits as a WAV file.
fn encode_wav(spec: hound::WavSpec, data: &[u8]) -> hound::Result<Vec<u8>> {
    let mut cursor = std::io::Cursor::new(Vec::with_capacity(data.len() + 64));
    let mut w = hound::WavWriter::new(&mut cursor, spec)?;
    match spec.bits_per_sample {
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
