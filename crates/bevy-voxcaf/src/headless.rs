//! Loading without a window: an [`App`] that loads files from any folder and waits for them,
//! for tools, tests and the `inspect` example, and a distant view spawned in it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bevy::app::{App, PluginsState};
use bevy::asset::{Asset, AssetLoadError, AssetPlugin, AssetServer, Assets, Handle, LoadState};
use bevy::math::Vec3;
use bevy::prelude::{Entity, GlobalTransform, Transform};
use bevy::MinimalPlugins;

use crate::{
    CafLoadError, CafPackSourcePlugin, VoxDistantView, VoxPlayPlugin, VoxWorld, VoxWorldRoot,
    VoxcafPlugin, WorldLoadError,
};

/// How long [`load_now`] waits without sleeping.
const SPIN: Duration = Duration::from_millis(5);

/// Why [`load_now`] has no asset.
#[derive(Debug, thiserror::Error)]
pub enum LoadFailure {
    /// The loader refused the file (its error says why).
    #[error("{path}: {message}")]
    Failed {
        /// The file.
        path: PathBuf,
        /// The asset server's error.
        message: String,
    },
    /// Still loading when the time was up.
    #[error("{path}: not loaded within {timeout:?}")]
    TimedOut {
        /// The file.
        path: PathBuf,
        /// How long it was given.
        timeout: Duration,
    },
}

/// A headless app (Bevy's `MinimalPlugins`, the asset plugin reading from `root`, the
/// `cafpack://` source over the packs in `root`, [`VoxcafPlugin`] and [`VoxPlayPlugin`])
/// ready to update.
pub fn headless_app(root: &Path) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        CafPackSourcePlugin {
            root: root.to_path_buf(),
        },
        AssetPlugin {
            file_path: root.display().to_string(),
            ..AssetPlugin::default()
        },
        VoxcafPlugin::default(),
        VoxPlayPlugin,
    ));
    while app.plugins_state() == PluginsState::Adding {
        bevy::tasks::tick_global_task_pools_on_main_thread();
    }
    app.finish();
    app.cleanup();
    app
}

/// Loads `path` (relative to the app's asset folder) and updates `app` until the asset is in
/// its `Assets` (a world's chunk meshes arrive with it), or failed, or `timeout` passed.
/// The first milliseconds it only yields between updates, so a small file is there as soon as
/// it can be; then it sleeps a millisecond between them, leaving the cores to the loader.
pub fn load_now<A: Asset>(
    app: &mut App,
    path: &str,
    timeout: Duration,
) -> Result<Handle<A>, LoadFailure> {
    let handle: Handle<A> = app.world().resource::<AssetServer>().load(path.to_string());
    let start = Instant::now();
    loop {
        app.update();
        let server = app.world().resource::<AssetServer>();
        match server.load_state(&handle) {
            LoadState::Loaded if app.world().resource::<Assets<A>>().contains(&handle) => {
                return Ok(handle)
            }
            LoadState::Failed(e) => {
                return Err(LoadFailure::Failed {
                    path: path.into(),
                    message: failure_message(&e),
                })
            }
            _ if start.elapsed() > timeout => {
                return Err(LoadFailure::TimedOut {
                    path: path.into(),
                    timeout,
                })
            }
            _ if start.elapsed() < SPIN => std::thread::yield_now(),
            _ => std::thread::sleep(Duration::from_millis(1)),
        }
    }
}

/// Spawns a viewer at `at` and a [`VoxWorldRoot`] drawing `world` from it with the settings
/// `view` gives for the viewer's entity; returns (viewer, root). A headless app propagates no
/// transforms, so the viewer's [`GlobalTransform`] is set along with its [`Transform`]; move
/// it by inserting both again. The regions come with the next updates.
pub fn spawn_distant_view(
    app: &mut App,
    world: Handle<VoxWorld>,
    at: Vec3,
    view: impl FnOnce(Entity) -> VoxDistantView,
) -> (Entity, Entity) {
    let viewer = app
        .world_mut()
        .spawn((
            Transform::from_translation(at),
            GlobalTransform::from_translation(at),
        ))
        .id();
    let root = app
        .world_mut()
        .spawn((VoxWorldRoot(world), view(viewer)))
        .id();
    (viewer, root)
}

/// What a failed load says: a loader's own error alone (without the asset server's wrapping
/// or a backtrace), anything else as the asset server puts it.
fn failure_message(e: &AssetLoadError) -> String {
    match e {
        AssetLoadError::AssetLoaderError(l) => match (
            l.error().downcast_ref::<WorldLoadError>(),
            l.error().downcast_ref::<CafLoadError>(),
        ) {
            (Some(w), _) => w.to_string(),
            (_, Some(c)) => c.to_string(),
            _ => l
                .error()
                .to_string()
                .lines()
                .next()
                .unwrap_or("")
                .to_string(),
        },
        other => other.to_string(),
    }
}
