//! Audio export: the PCM payload as a WAV file (`caf::audio::AudioView::to_wav`: same rate,
//! channels and sample size; 8-bit samples, stored signed, become WAV's unsigned 8-bit).

use std::path::Path;

use super::{ExportError, ExportFile, Result};

/// The WAV file of an audio asset, at `out`.
pub fn export(asset: &caf::Asset<'_>, out: &Path) -> Result<Vec<ExportFile>> {
    let view = caf::audio::AudioView::from_asset(asset)?;
    let m = view.meta;
    let bytes = view.to_wav().map_err(|e| ExportError::Encode {
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
