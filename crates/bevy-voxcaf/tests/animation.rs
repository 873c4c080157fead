//! `.caf` animations as Bevy clips, played by Bevy's own animation player: every channel of
//! every clip moves its target's `Transform` as caf's sampler says, at times between frames
//! too.

#![cfg(feature = "animation")]

use std::path::Path;
use std::time::Duration;

use bevy::animation::graph::{AnimationGraph, AnimationGraphHandle};
use bevy::animation::{AnimatedBy, AnimationClip, AnimationPlayer, AnimationPlugin};
use bevy::app::{App, PluginsState};
use bevy::asset::{AssetPlugin, Assets, Handle};
use bevy::prelude::{Entity, Transform};
use bevy::time::TimeUpdateStrategy;
use bevy::MinimalPlugins;
use bevy_voxcaf::{load_now, node_target, VoxcafPlugin};
use caf::animation::{AnimationView, ChannelValue};
use caf_import::{AssetKind, Settings};

const STEP: Duration = Duration::from_millis(20);

fn app(root: &Path) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: root.display().to_string(),
            ..AssetPlugin::default()
        },
        AnimationPlugin,
        VoxcafPlugin::default(),
    ));
    while app.plugins_state() == PluginsState::Adding {
        bevy::tasks::tick_global_task_pools_on_main_thread();
    }
    app.finish();
    app.cleanup();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(STEP));
    app
}

#[test]
fn clips_move_their_targets_as_cafs_sampler_says() {
    let dir = tempfile::tempdir().unwrap();
    let glb = voxcaf_samples::animated_glb(&voxcaf_samples::AnimatedOptions::default());
    let settings = Settings {
        kind: Some(AssetKind::Animation),
        ..Settings::default()
    };
    let anim = caf_import::convert(&glb, Path::new("hero.glb"), &settings).unwrap();
    let bytes = anim.to_caf_bytes();
    std::fs::write(dir.path().join("hero.caf"), &bytes).unwrap();
    let view = AnimationView::from_asset(&caf::Asset::parse(&bytes).unwrap()).unwrap();
    assert!(view.clip_count() >= 2);
    let mut app = app(dir.path());
    let mut checked = 0;
    for clip in 0..view.clip_count() {
        let h: Handle<AnimationClip> = load_now(
            &mut app,
            &format!("hero.caf#clip/{clip}"),
            Duration::from_secs(30),
        )
        .unwrap();
        let (graph, node) = AnimationGraph::from_clip(h);
        let graph = app
            .world_mut()
            .resource_mut::<Assets<AnimationGraph>>()
            .add(graph);
        let mut player = AnimationPlayer::default();
        player.play(node);
        let p = app
            .world_mut()
            .spawn((player, AnimationGraphHandle(graph)))
            .id();
        // One entity per animated node.
        let mut nodes: Vec<u32> = view.channels(clip).iter().map(|c| c.node).collect();
        nodes.sort_unstable();
        nodes.dedup();
        let targets: Vec<(u32, Entity)> = nodes
            .iter()
            .map(|&n| {
                let e = app
                    .world_mut()
                    .spawn((node_target(n), AnimatedBy(p), Transform::default()))
                    .id();
                (n, e)
            })
            .collect();
        let duration = view.clip(clip).unwrap().duration;
        // The player starts on the first update; then every update is 20 ms later.
        app.update();
        let mut t = 0.0f32;
        while t < duration {
            app.update();
            let seek = app.world().get::<AnimationPlayer>(p).unwrap();
            let now = seek.animation(node).unwrap().seek_time();
            for (c, ch) in view.channels(clip).iter().enumerate() {
                let e = targets.iter().find(|(n, _)| *n == ch.node).unwrap().1;
                let tr = app.world().get::<Transform>(e).unwrap();
                let tol = ch.error_bound + 1e-4;
                match view.sample(clip, c, now).unwrap() {
                    ChannelValue::Translation(v) => {
                        let d = tr.translation - bevy::math::Vec3::from_array(v);
                        assert!(
                            d.abs().max_element() <= tol,
                            "clip {clip} ch {c} t {now}: {d}"
                        );
                    }
                    ChannelValue::Scale(v) => {
                        let d = tr.scale - bevy::math::Vec3::from_array(v);
                        assert!(
                            d.abs().max_element() <= tol,
                            "clip {clip} ch {c} t {now}: {d}"
                        );
                    }
                    ChannelValue::Rotation(q) => {
                        let q = bevy::math::Quat::from_array(q);
                        let angle = tr.rotation.angle_between(q);
                        assert!(angle <= tol + 1e-3, "clip {clip} ch {c} t {now}: {angle}");
                    }
                }
                checked += 1;
            }
            t = now + STEP.as_secs_f32();
        }
        app.world_mut().despawn(p);
        for (_, e) in targets {
            app.world_mut().despawn(e);
        }
    }
    assert!(checked > 50, "{checked} samples checked");
}
