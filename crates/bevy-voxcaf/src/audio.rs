//! `.caf` audio as Bevy [`AudioSource`]s (feature `audio`): the PCM samples as a WAV file
//! (`caf::audio::AudioView::to_wav`: same rate, channels and sample size), which Bevy's
//! audio plays. Ask for the type (`load::<AudioSource>("jump.caf")`).

use bevy::audio::AudioSource;
use caf::audio::AudioView;
use caf::AssetType;

use crate::caf::{CafLoadError, CafTypedLoader};

/// Loads `.caf` audio as [`AudioSource`]s.
pub fn audio_loader() -> CafTypedLoader<AudioSource> {
    CafTypedLoader::new(AssetType::AUDIO, |a| {
        let view = AudioView::from_asset(a)?;
        let wav = view
            .to_wav()
            .map_err(|e| CafLoadError::Wav(e.to_string()))?;
        Ok(AudioSource { bytes: wav.into() })
    })
}
