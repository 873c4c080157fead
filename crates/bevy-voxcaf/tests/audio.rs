//! `.caf` audio as Bevy `AudioSource`s (feature `audio`): every golden audio asset loads and
//! Bevy's own decoder (rodio, what plays it) gives back its rate, channels and samples.

#![cfg(feature = "audio")]

use std::time::Duration;

use bevy::asset::{Assets, Handle};
use bevy::audio::{AudioSource, Decodable, Source};
use bevy_voxcaf::{headless_app, load_now, LoadFailure};
use caf::audio::AudioView;
use caf::LoadedAsset;

#[test]
fn golden_audio_plays_back_as_stored() {
    let Some(root) = voxcaf_golden::caf() else {
        return;
    };
    let mut app = headless_app(&root);
    let mut files: Vec<_> = std::fs::read_dir(root.join("audio"))
        .unwrap()
        .flatten()
        .collect();
    files.sort_by_key(|e| e.file_name());
    let (mut played, mut refused) = (0, 0);
    for e in files {
        let name = format!("audio/{}", e.file_name().to_string_lossy());
        if !name.ends_with(".caf") {
            continue;
        }
        let lib = LoadedAsset::from_vec(std::fs::read(e.path()).unwrap()).unwrap();
        let view = AudioView::from_asset(&lib.asset());
        let got = load_now::<AudioSource>(&mut app, &name, Duration::from_secs(30));
        let (view, h): (AudioView<'_>, Handle<AudioSource>) = match (view, got) {
            (Ok(v), Ok(h)) => (v, h),
            (Err(e), Err(LoadFailure::Failed { message, .. })) => {
                assert_eq!(message, e.to_string(), "{name}");
                refused += 1;
                continue;
            }
            (v, got) => panic!("{name}: library {:?}, plugin {got:?}", v.map(|_| ())),
        };
        let source = app
            .world()
            .resource::<Assets<AudioSource>>()
            .get(&h)
            .unwrap();
        let decoder = source.decoder();
        let m = view.meta;
        assert_eq!(decoder.sample_rate().get(), m.sample_rate, "{name}");
        assert_eq!(decoder.channels().get(), m.channels, "{name}");
        let samples: Vec<f32> = decoder.collect();
        let bytes = usize::from(m.bits_per_sample / 8);
        let stored: Vec<f32> = view
            .data
            .chunks_exact(bytes)
            .map(|s| match bytes {
                1 => f32::from(s[0] as i8) / 128.0,
                2 => f32::from(i16::from_le_bytes([s[0], s[1]])) / 32768.0,
                _ => i32::from_le_bytes([s[0], s[1], s[2], s[3]]) as f32 / 2_147_483_648.0,
            })
            .collect();
        assert_eq!(samples.len(), stored.len(), "{name}");
        // Within two steps of the stored resolution (and f32's, for 32-bit samples).
        let tol = (2.0 / (1u64 << (m.bits_per_sample - 1)) as f32).max(1e-6);
        for (i, (a, b)) in samples.iter().zip(&stored).enumerate() {
            assert!((a - b).abs() <= tol, "{name} sample {i}: {a} vs {b}");
        }
        played += 1;
    }
    eprintln!("golden audio: {played} played, {refused} refused");
    assert!(played >= 8, "{played} played");
}
