//! `.caf` audio as Bevy [`AudioSource`]s (feature `audio`): the PCM samples as a WAV file
//! (`caf::audio::AudioView::to_wav`: same rate, channels and sample size), which Bevy's
//! audio plays. Ask for the type (`load::<AudioSource>("jump.caf")`).

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, LoadContext};
use bevy::audio::AudioSource;
use bevy::reflect::TypePath;
use caf::audio::AudioView;
use caf::AssetType;

use crate::caf::{plain, read_all, CafLoadError};

/// Loads `.caf` audio as [`AudioSource`]s.
#[derive(TypePath, Default)]
pub struct CafAudioLoader;

impl AssetLoader for CafAudioLoader {
    type Asset = AudioSource;
    type Settings = ();
    type Error = CafLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        _: &mut LoadContext<'_>,
    ) -> Result<AudioSource, CafLoadError> {
        let loaded = plain(read_all(reader).await?, AssetType::AUDIO)?;
        let view = AudioView::from_asset(&loaded.asset())?;
        let wav = view
            .to_wav()
            .map_err(|e| CafLoadError::Wav(e.to_string()))?;
        Ok(AudioSource { bytes: wav.into() })
    }

    fn extensions(&self) -> &[&str] {
        &["caf"]
    }
}
