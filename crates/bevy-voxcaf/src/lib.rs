//! # bevy_voxcaf — voxcaf's `.vwr` worlds as Bevy assets
//!
//! [`VoxcafPlugin`] registers [`VoxWorld`] and its loader: `asset_server.load("level.vwr")`
//! reads a v2 or v3 world, meshes its chunks with `vwr-mesh` (greedy rectangles with
//! per-corner ambient occlusion baked into the vertex colours, opaque and transparent passes
//! apart) and gives each chunk's meshes as labeled sub-assets, so `level.vwr#chunk/1/0/2` is an
//! ordinary mesh path. The world's moving objects, big decorations, spawn point, sky region and
//! mission number come with it.
//!
//! It needs only Bevy's asset and mesh crates: it loads headless (no window, no GPU), as the
//! `inspect` example does.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_voxcaf::{VoxWorld, VoxcafPlugin};
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, AssetPlugin::default(), VoxcafPlugin::default()));
//! let level: Handle<VoxWorld> = app.world().resource::<AssetServer>().load("level.vwr");
//! app.update(); // … until the asset server says it is loaded
//! if let Some(world) = app.world().resource::<Assets<VoxWorld>>().get(&level) {
//!     println!("{} chunks, {} quads", world.chunks.len(), world.quad_count());
//! }
//! ```

#![deny(clippy::unwrap_used)]

use std::sync::Arc;

use bevy::app::{App, Plugin, Update};
use bevy::asset::{AssetApp, Assets};
use bevy::ecs::schedule::IntoScheduleConfigs;
use bevy::image::Image;
use bevy::mesh::skinning::SkinnedMeshInverseBindposes;
use bevy::mesh::Mesh;
use vwr_blocks::Registry;

/// The Bevy this crate is built on, for applications that use no other (`bevy_voxcaf::bevy::prelude`).
pub use bevy;
/// The gameplay layer the [`VoxPlayPlugin`] runs (its `Input`, `Event`, `Game`).
pub use vwr_play;

#[cfg(feature = "animation")]
pub mod animation;
#[cfg(feature = "audio")]
pub mod audio;
pub mod caf;
pub mod caf_asset;
pub mod distant;
pub mod headless;
#[cfg(feature = "live")]
pub mod live;
pub mod pack;
pub mod play;
pub mod remesh;
pub mod spawn;
pub mod world;

pub use crate::caf::{image_loader, mesh_loader, CafLoadError, CafTypedLoader};
#[cfg(feature = "animation")]
pub use animation::{animation_loader, node_target};
#[cfg(feature = "audio")]
pub use audio::audio_loader;
pub use caf_asset::{CafAsset, CafLoader};
pub use distant::{
    drop_distant_view, update_distant_views, DistantRegions, VoxDistantView, VoxRegionPart,
};
pub use headless::{headless_app, load_now, spawn_distant_view, LoadFailure};
#[cfg(feature = "live")]
pub use live::{LinkState, LiveLink, LiveLinkError};
pub use pack::{CafPackSourcePlugin, CafPackStats};
pub use play::{PlayEvent, PlayInput, PlayRefused, PlayState, VoxPlayPlugin, VoxPlayer};
pub use remesh::{remesh_changed, ChunksRemeshed, VoxRegistry};
pub use spawn::{spawn_world_chunks, SpawnedChunks, VoxChunkPart, VoxWorldRoot};

pub use world::{
    bevy_mesh, chunk_meshes, chunk_parts, ChunkMeshes, VoxChunk, VoxWorld, VwrLoader,
    VwrLoaderSettings, WorldLoadError,
};

/// Registers [`VoxWorld`] assets and their loader (and Bevy's [`Mesh`] assets, when no other
/// plugin has), and the systems that keep worlds' meshes and entities current: a
/// [`LiveLink`] resource's changes written in, changed chunks re-meshed
/// ([`remesh_changed`]), [`VoxWorldRoot`] entities' chunk children spawned, or their regions
/// when they have a [`VoxDistantView`].
#[derive(Clone, Default)]
pub struct VoxcafPlugin {
    /// The block types' looks used to mesh worlds (default: Galaxy Eggbert's).
    pub registry: Arc<Registry>,
}

impl Plugin for VoxcafPlugin {
    fn build(&self, app: &mut App) {
        init_asset_once::<Mesh>(app);
        init_asset_once::<Image>(app);
        init_asset_once::<SkinnedMeshInverseBindposes>(app);
        app.init_asset::<VoxWorld>()
            .register_asset_loader(VwrLoader {
                registry: self.registry.clone(),
            })
            .register_asset_loader(image_loader())
            .register_asset_loader(mesh_loader())
            .insert_resource(VoxRegistry(self.registry.clone()))
            .add_message::<ChunksRemeshed>();
        #[cfg(feature = "animation")]
        {
            init_asset_once::<bevy::animation::AnimationClip>(app);
            app.register_asset_loader(animation_loader());
        }
        #[cfg(feature = "audio")]
        {
            init_asset_once::<bevy::audio::AudioSource>(app);
            app.register_asset_loader(audio_loader());
        }
        // Last of the `caf` loaders: Bevy gives it labeled and untyped `.caf` paths.
        app.init_asset::<CafAsset>()
            .register_asset_loader(CafLoader);
        #[cfg(feature = "live")]
        app.add_systems(Update, live::apply_live.before(remesh_changed));
        app.add_systems(
            Update,
            (remesh_changed, spawn_world_chunks, update_distant_views).chain(),
        )
        .add_observer(drop_distant_view);
    }
}

/// Registers the assets `A` unless a plugin already has (Bevy's own plugins register them
/// when they are there; a second registration would replace the collection).
fn init_asset_once<A: bevy::asset::Asset>(app: &mut App) {
    if !app.world().contains_resource::<Assets<A>>() {
        app.init_asset::<A>();
    }
}
