//! `.caf` animations as Bevy [`AnimationClip`]s (feature `animation`): each clip's channels
//! become curves on the [`Transform`] of their target (translation, rotation, scale), linear
//! or stepped as stored, a constant channel a constant curve. The first clip is the asset
//! of `load::<AnimationClip>("hero.caf")`; every clip is the labeled asset `hero.caf#clip/N`
//! ([`crate::CafLoader`]).
//!
//! A channel names the glTF node it animates; its target is [`node_target`]`(node)`, the
//! [`AnimationTargetId`] of the name `node/N`. Give the entity of node N that id (its
//! `AnimationTargetId` component, with the `AnimatedBy` of the player's entity).

use bevy::animation::animated_field;
use bevy::animation::animation_curves::{AnimatableCurve, AnimatableKeyframeCurve, AnimatedField};
use bevy::animation::gltf_curves::SteppedKeyframeCurve;
use bevy::animation::{AnimationClip, AnimationTargetId};
use bevy::ecs::name::Name;
use bevy::math::curve::{ConstantCurve, Interval};
use bevy::math::{Quat, Vec3};
use bevy::transform::components::Transform;
use caf::animation::{AnimationView, ChannelEntry, ChannelValue};
use caf::AssetType;

use crate::caf::{CafLoadError, CafTypedLoader};

/// The animation target of glTF node `node`: the id of the name `node/N`.
pub fn node_target(node: u32) -> AnimationTargetId {
    AnimationTargetId::from_name(&Name::new(format!("node/{node}")))
}

/// Loads `.caf` animations as [`AnimationClip`]s: the first clip (every clip is a labeled
/// asset of [`crate::CafLoader`]).
pub fn animation_loader() -> CafTypedLoader<AnimationClip> {
    CafTypedLoader::new(AssetType::ANIMATION, |a| {
        let view = AnimationView::from_asset(a)?;
        if view.clip_count() == 0 {
            return Err(CafLoadError::NoClip);
        }
        Ok(clip_of(&view, 0))
    })
}

/// Clip `i` of a checked animation view (`i` < its clip count).
pub fn clip_of(view: &AnimationView<'_>, i: usize) -> AnimationClip {
    let mut clip = AnimationClip::default();
    let duration = view.clip(i).map_or(0.0, |c| c.duration);
    for (c, ch) in view.channels(i).iter().enumerate() {
        let frames = ch.frame_count as usize;
        let keys: Vec<(f32, ChannelValue)> = (0..frames)
            .filter_map(|k| Some((view.frame_time(i, k)?, view.frame_value(i, c, k)?)))
            .collect();
        add_channel(&mut clip, ch, &keys, duration);
    }
    clip.set_duration(duration);
    clip
}

/// Adds one channel's curve: constant (one frame), stepped, or linear.
fn add_channel(
    clip: &mut AnimationClip,
    ch: &ChannelEntry,
    keys: &[(f32, ChannelValue)],
    duration: f32,
) {
    let target = node_target(ch.node);
    let step = ch.interpolation == ChannelEntry::STEP;
    let domain = Interval::new(0.0, duration.max(0.0)).unwrap_or(Interval::UNIT);
    macro_rules! curve {
        ($field:expr, $values:expr) => {{
            let values: Vec<(f32, _)> = $values;
            match values.as_slice() {
                [] => {}
                [(_, v)] => clip.add_curve_to_target(
                    target,
                    AnimatableCurve::new($field, ConstantCurve::new(domain, *v)),
                ),
                _ if step => {
                    if let Ok(c) = SteppedKeyframeCurve::new(values) {
                        clip.add_curve_to_target(target, AnimatableCurve::new($field, c));
                    }
                }
                _ => {
                    if let Ok(c) = AnimatableKeyframeCurve::new(values) {
                        clip.add_curve_to_target(target, AnimatableCurve::new($field, c));
                    }
                }
            }
        }};
    }
    let vec3 = |f: fn(&ChannelValue) -> Option<[f32; 3]>| -> Vec<(f32, Vec3)> {
        keys.iter()
            .filter_map(|(t, v)| Some((*t, Vec3::from_array(f(v)?))))
            .collect()
    };
    match ch.path {
        ChannelEntry::TRANSLATION => curve!(
            animated_field!(Transform::translation),
            vec3(|v| match v {
                ChannelValue::Translation(p) => Some(*p),
                _ => None,
            })
        ),
        ChannelEntry::SCALE => curve!(
            animated_field!(Transform::scale),
            vec3(|v| match v {
                ChannelValue::Scale(s) => Some(*s),
                _ => None,
            })
        ),
        _ => curve!(
            animated_field!(Transform::rotation),
            keys.iter()
                .filter_map(|(t, v)| match v {
                    ChannelValue::Rotation(q) => Some((*t, Quat::from_array(*q))),
                    _ => None,
                })
                .collect()
        ),
    }
}
