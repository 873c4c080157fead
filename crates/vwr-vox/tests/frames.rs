//! Animated `.vox` files: one frame is imported (0 by default), never all frames overlaid.

use vwr_vox::{import, ImportOptions, VoxError, VoxWarning};

mod common;

/// `deer.vox` (ephtracy's voxel-model repository: 4 frames as models without a scene graph).
fn deer() -> Option<Vec<u8>> {
    common::realworld("corpus2/vox/deer.vox")
}

#[test]
fn a_vox_animation_imports_frame_0_by_default_and_frame_n_on_request() {
    let Some(bytes) = deer() else { return };
    let first = import(&bytes, &ImportOptions::default()).unwrap();
    assert_eq!(first.models, 1);
    // Frame 0 alone (all four overlaid made 742 blocks).
    assert_eq!(first.world.count_non_air(), 355);
    assert!(
        first.warnings.iter().any(|w| matches!(
            w,
            VoxWarning::FrameChosen {
                frame: 0,
                frames: 4
            }
        )),
        "{:?}",
        first.warnings
    );
    let mut counts = vec![first.world.count_non_air()];
    for frame in 1..4 {
        let opts = ImportOptions {
            frame,
            ..ImportOptions::default()
        };
        let out = import(&bytes, &opts).unwrap();
        assert_eq!(out.models, 1);
        counts.push(out.world.count_non_air());
    }
    // The frames differ (a walking deer), so each import is its own frame.
    assert!(counts.windows(2).any(|w| w[0] != w[1]), "{counts:?}");
    let opts = ImportOptions {
        frame: 4,
        ..ImportOptions::default()
    };
    let e = import(&bytes, &opts).unwrap_err();
    assert!(
        matches!(
            e,
            VoxError::NoSuchFrame {
                frame: 4,
                frames: 4
            }
        ),
        "{e}"
    );
}
