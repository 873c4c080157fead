//! Plays a `.vwr` level in a window: the world drawn through [`VoxcafPlugin`] (one mesh per
//! chunk and pass, ambient occlusion baked into the vertex colours), the player of
//! [`VoxPlayPlugin`] (`vwr-play`'s kinematic box, moving objects, triggers) driven by the
//! keyboard, a camera following the player from behind and above, and the score in the
//! window's title.
//!
//! ```text
//! cargo run --release -p bevy_voxcaf --features game --example play
//! cargo run --release -p bevy_voxcaf --features game --example play -- level.vwr
//! cargo run --release -p bevy_voxcaf --features game --example play -- level.vwr \
//!     --live 'http://127.0.0.1:8080/?token=...'
//! ```
//!
//! Without a level it writes the demo's showcase level (`vwr::samples::showcase`) into a
//! temporary folder and plays that; with one, the level's folder is the asset folder.
//! `--live URL` follows a running `voxcaf world serve` (the URL it printed): its users' edits
//! appear in the game as they are made, and the player collides with them. `--distant` draws
//! far regions from levels of detail chosen by their distance to the camera
//! ([`VoxDistantView`]), for worlds too big to draw whole.
//!
//! Controls (relative to the view; the camera looks towards +z): W / ↑ forward (+z),
//! S / ↓ back (−z), A / ← left on the screen (+x), D / → right on the screen (−x), Space
//! jump, Escape quit. The title shows the objects collected, the deaths and "exit reached".
//! Collectibles are drawn as gold cubes, enemies red, exits green, lifts grey.
//!
//! Unattended runs (CI, screenshots): `VOXCAF_PLAY_SCRIPT` replaces the keyboard by an input
//! script (`vwr_play::InputScript` lines, `;` also separates them: `"20 forward; 10
//! right+jump"`); `VOXCAF_PLAY_SCREENSHOT=out.png` saves a screenshot once the level has
//! loaded, the script has run and `VOXCAF_PLAY_FRAMES` (default 30) more frames have been
//! drawn, then quits. A scripted run plays one game tick a frame (the game's clock follows
//! the frames, not the wall clock), so it plays the same on any machine, however slow. Under
//! a virtual X server with software Vulkan:
//!
//! ```text
//! VOXCAF_PLAY_SCREENSHOT=/tmp/play.png VOXCAF_PLAY_SCRIPT="60 forward; 20 right+jump" \
//!     xvfb-run -s "-screen 0 1280x720x24" target/release/examples/play
//! ```
//!
//! The `game` feature (off by default) turns on Bevy's window (winit, X11 only: no Wayland),
//! renderer, PBR, keyboard input, PNG screenshots, tonemapping LUTs and logging. Building it
//! needs no system library beyond what the crate needs headless (a C compiler): the binary
//! links only libc, and winit and wgpu open libX11, libX11-xcb, libXcursor, libXi,
//! libxkbcommon-x11 and the Vulkan loader when the game starts. To run it on Debian:
//! `libx11-6 libx11-xcb1 libxcursor1 libxi6 libxkbcommon-x11-0` (any X11 desktop has them),
//! `libvulkan1` and a Vulkan driver (`mesa-vulkan-drivers`, or the GPU vendor's); for a run
//! without a display, `xvfb xauth` (Mesa's lavapipe draws it in software). Wayland sessions
//! run it through XWayland.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use bevy::asset::{AssetPlugin, LoadState};
use bevy::camera::ClearColor;
use bevy::input::InputSystems;
use bevy::prelude::*;
use bevy::render::view::screenshot::{save_to_disk, Screenshot, ScreenshotCaptured};
use bevy::render::RenderPlugin;
use bevy::time::TimeUpdateStrategy;
use bevy::transform::TransformSystems;
use bevy::window::PrimaryWindow;
use bevy_voxcaf::vwr_play::{
    raycast, Event, Game, Input, InputScript, ObjectKind, TICKS_PER_SECOND,
};
use bevy_voxcaf::{
    DistantRegions, PlayEvent, PlayInput, PlayRefused, PlayState, SpawnedChunks, VoxChunkPart,
    VoxDistantView, VoxPlayPlugin, VoxPlayer, VoxRegionPart, VoxWorld, VoxWorldRoot, VoxcafPlugin,
};

const USAGE: &str = "\
usage: play [LEVEL.vwr] [--live URL] [--distant]

Plays a .vwr level in a window (without LEVEL: the demo's showcase level).

  LEVEL.vwr   the level to play; its folder is the asset folder
  --live URL  follow a running `voxcaf world serve` (the URL it printed,
              http://HOST:PORT/?token=...): its edits appear in the game
  --distant   draw far regions from levels of detail (for big worlds)
  -h, --help  this help

controls: W/A/S/D or the arrows walk (relative to the view), Space jumps, Escape quits

environment:
  VOXCAF_PLAY_SCRIPT=\"20 forward; 10 right+jump\"   play an input script, not the keyboard
  VOXCAF_PLAY_SCREENSHOT=out.png   save a screenshot when the level has loaded (and the
                                   script has run), then quit
  VOXCAF_PLAY_FRAMES=N             frames drawn before that screenshot (default 30)

examples:
  cargo run --release -p bevy_voxcaf --features game --example play
  cargo run --release -p bevy_voxcaf --features game --example play -- level.vwr
  cargo run --release -p bevy_voxcaf --features game --example play -- level.vwr \\
      --live 'http://127.0.0.1:8080/?token=abc'
  cargo run --release -p bevy_voxcaf --features game --example play -- big.vwr --distant";

/// How long an unattended run waits for its screenshot before giving up.
const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(900);

/// The player's box (x, y, z), in blocks: `vwr-play`'s default player.
const PLAYER_SIZE: Vec3 = Vec3::new(0.6, 1.8, 0.6);

/// Where the camera sits relative to the player's feet (behind is −z: the player walks
/// forward towards +z), the first one the blocks leave in sight of the player; and the point
/// above the feet it looks at.
const FOLLOW_OFFSETS: [Vec3; 3] = [
    Vec3::new(0.0, 7.0, -11.0),
    Vec3::new(0.0, 11.0, -7.0),
    Vec3::new(0.0, 14.0, -3.0),
];
const LOOK_ABOVE_FEET: f32 = 1.2;

/// What the command line asks for.
#[derive(Debug, Default)]
struct Args {
    level: Option<PathBuf>,
    live: Option<String>,
    distant: bool,
}

enum Parsed {
    Help,
    Run(Args),
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Parsed, String> {
    let mut out = Args::default();
    while let Some(a) = args.next() {
        match a.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--distant" => out.distant = true,
            "--live" => {
                let url = args.next().ok_or("--live needs a URL")?;
                if out.live.replace(url).is_some() {
                    return Err("--live given twice".into());
                }
            }
            s if s.starts_with("--live=") => {
                let url = s["--live=".len()..].to_string();
                if out.live.replace(url).is_some() {
                    return Err("--live given twice".into());
                }
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            _ => {
                if out.level.replace(PathBuf::from(&a)).is_some() {
                    return Err(format!("one level at a time ({a:?} is a second one)"));
                }
            }
        }
    }
    Ok(Parsed::Run(out))
}

/// The asset folder and the level's path in it: a given file, or the showcase written to a
/// temporary folder (kept as long as the returned guard lives).
fn locate_level(
    level: Option<&Path>,
) -> Result<(PathBuf, String, Option<tempfile::TempDir>), (u8, String)> {
    let Some(file) = level else {
        let tmp = tempfile::Builder::new()
            .prefix("voxcaf-play-")
            .tempdir()
            .map_err(|e| (1, format!("a temporary folder: {e}")))?;
        let world = vwr::samples::showcase().map_err(|e| (1, format!("the showcase: {e}")))?;
        let bytes = world.to_bytes();
        let path = tmp.path().join("showcase.vwr");
        std::fs::write(&path, bytes).map_err(|e| (1, format!("{}: {e}", path.display())))?;
        return Ok((tmp.path().to_path_buf(), "showcase.vwr".into(), Some(tmp)));
    };
    let shown = file.display();
    let is_vwr = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("vwr"));
    if !is_vwr {
        return Err((2, format!("{shown}: not a .vwr level")));
    }
    if !file.is_file() {
        return Err((2, format!("{shown}: no such file")));
    }
    let file = file
        .canonicalize()
        .map_err(|e| (2, format!("{shown}: {e}")))?;
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| (2, format!("{shown}: the file name is not UTF-8")))?
        .to_string();
    let dir = file.parent().unwrap_or(Path::new("/")).to_path_buf();
    Ok((dir, name, None))
}

/// The unattended-run settings from the environment.
#[derive(Default)]
struct Unattended {
    script: Option<InputScript>,
    screenshot: Option<PathBuf>,
    frames: u32,
}

fn unattended_from_env() -> Result<Unattended, String> {
    let script = match std::env::var("VOXCAF_PLAY_SCRIPT") {
        Ok(text) => Some(
            InputScript::parse(&text.replace(';', "\n"))
                .map_err(|e| format!("VOXCAF_PLAY_SCRIPT: {e}"))?,
        ),
        Err(_) => None,
    };
    let frames = match std::env::var("VOXCAF_PLAY_FRAMES") {
        Ok(n) => n
            .trim()
            .parse()
            .map_err(|_| format!("VOXCAF_PLAY_FRAMES: {n:?} is not a frame count"))?,
        Err(_) => 30,
    };
    let screenshot = std::env::var_os("VOXCAF_PLAY_SCREENSHOT")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    Ok(Unattended {
        script,
        screenshot,
        frames,
    })
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Parsed::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Run(a)) => a,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let unattended = match unattended_from_env() {
        Ok(u) => u,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // `_tmp` keeps the showcase's folder until the game ends.
    let (dir, asset, _tmp) = match locate_level(args.level.as_deref()) {
        Ok(found) => found,
        Err((code, e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(code);
        }
    };
    let screenshot = unattended.screenshot.clone();
    if let Some(path) = &screenshot {
        // So that a stale file does not pass for this run's.
        let _ = std::fs::remove_file(path);
    }
    let mut app = match build_app(&dir, &asset, args.live.as_deref(), args.distant, unattended) {
        Ok(app) => app,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match app.run() {
        AppExit::Success => match screenshot {
            Some(path) if !path.is_file() => {
                eprintln!("error: {}: the screenshot was not saved", path.display());
                ExitCode::FAILURE
            }
            _ => ExitCode::SUCCESS,
        },
        AppExit::Error(code) => ExitCode::from(code.get()),
    }
}

/// The level being played.
#[derive(Resource)]
struct Level {
    handle: Handle<VoxWorld>,
    name: String,
    /// Far regions drawn from levels of detail (`--distant`).
    distant: bool,
}

/// The materials of the world's chunk passes.
#[derive(Resource)]
struct ChunkMaterials {
    opaque: Handle<StandardMaterial>,
    transparent: Handle<StandardMaterial>,
}

impl ChunkMaterials {
    /// The material of the opaque or the transparent pass.
    fn pass(&self, transparent: bool) -> Handle<StandardMaterial> {
        match transparent {
            true => self.transparent.clone(),
            false => self.opaque.clone(),
        }
    }
}

/// The input script played instead of the keyboard.
#[derive(Resource)]
struct Script(InputScript);

/// An unattended run's screenshot: where, after how many frames, and how far it got.
#[derive(Resource)]
struct Capture {
    path: PathBuf,
    frames: u32,
    counted: u32,
    requested: bool,
    started: Instant,
}

/// The camera, and where it looks when there is no player to follow.
#[derive(Component)]
struct GameCamera;

/// A drawn moving object: its index in the level's object list.
#[derive(Component)]
struct ObjectView(usize);

fn build_app(
    dir: &Path,
    asset: &str,
    live: Option<&str>,
    distant: bool,
    unattended: Unattended,
) -> Result<App, String> {
    let mut app = App::new();
    let title = format!("voxcaf play — {asset}");
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title,
                    resolution: (1280, 720).into(),
                    ..default()
                }),
                ..default()
            })
            .set(AssetPlugin {
                file_path: dir.display().to_string(),
                ..default()
            })
            .set(RenderPlugin {
                // A screenshot must show the world, not frames whose shaders are still
                // compiling.
                synchronous_pipeline_compilation: unattended.screenshot.is_some(),
                ..default()
            }),
    )
    .add_plugins((VoxcafPlugin::default(), VoxPlayPlugin))
    .insert_resource(ClearColor(Color::srgb(0.55, 0.75, 0.95)))
    .insert_resource(GlobalAmbientLight {
        color: Color::srgb(0.85, 0.9, 1.0),
        brightness: 1500.0,
        ..default()
    })
    .add_systems(Startup, setup)
    // The buttons are read before `VoxPlayPlugin` steps the game (in `Update`), the scene
    // follows the game after.
    .add_systems(PreUpdate, read_input.after(InputSystems))
    .add_systems(Update, (watch_load, quit_on_escape))
    .add_systems(
        PostUpdate,
        (
            (show_player, spawn_objects, move_objects, log_events),
            follow_camera,
            update_title,
        )
            .chain()
            .before(TransformSystems::Propagate),
    )
    .add_observer(add_chunk_material)
    .add_observer(add_region_material);
    #[cfg(feature = "live")]
    app.add_systems(Update, watch_link);
    let handle: Handle<VoxWorld> = app
        .world()
        .resource::<AssetServer>()
        .load(asset.to_string());
    if let Some(url) = live {
        #[cfg(feature = "live")]
        app.insert_resource(
            bevy_voxcaf::LiveLink::connect(url, handle.clone()).map_err(|e| e.to_string())?,
        );
        #[cfg(not(feature = "live"))]
        return Err(format!(
            "--live {url}: this build has no live link (build with the `live` feature)"
        ));
    }
    app.insert_resource(Level {
        handle,
        name: asset.to_string(),
        distant,
    });
    if let Some(script) = unattended.script {
        // One tick a frame, whatever the frame rate: a scripted run plays the same everywhere.
        let tick = Duration::from_secs(1) / TICKS_PER_SECOND;
        app.insert_resource(Script(script))
            .insert_resource(TimeUpdateStrategy::ManualDuration(tick));
    }
    if let Some(path) = unattended.screenshot {
        app.insert_resource(Capture {
            path,
            frames: unattended.frames,
            counted: 0,
            requested: false,
            started: Instant::now(),
        })
        .add_systems(Last, take_screenshot);
    }
    Ok(app)
}

/// The world, its materials, the player, a sun and the camera.
fn setup(
    mut commands: Commands,
    level: Res<Level>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    // White, so that the mesh's vertex colours (the blocks' colours with their ambient
    // occlusion) are what shows.
    commands.insert_resource(ChunkMaterials {
        opaque: materials.add(StandardMaterial {
            base_color: Color::WHITE,
            perceptual_roughness: 0.95,
            reflectance: 0.1,
            ..default()
        }),
        transparent: materials.add(StandardMaterial {
            base_color: Color::WHITE,
            alpha_mode: AlphaMode::Blend,
            perceptual_roughness: 0.2,
            cull_mode: None,
            ..default()
        }),
    });
    let body = meshes.add(Cuboid::new(PLAYER_SIZE.x, PLAYER_SIZE.y, PLAYER_SIZE.z));
    let suit = materials.add(StandardMaterial {
        base_color: Color::srgb(0.95, 0.4, 0.1),
        perceptual_roughness: 0.6,
        ..default()
    });
    // Hidden until the game has started (and put the player at its spawn point).
    commands
        .spawn((
            Name::new("player"),
            VoxPlayer {
                world: level.handle.clone(),
            },
            Visibility::Hidden,
        ))
        .with_child((
            Mesh3d(body),
            MeshMaterial3d(suit),
            Transform::from_xyz(0.0, PLAYER_SIZE.y / 2.0, 0.0),
        ));
    commands.spawn((
        DirectionalLight {
            illuminance: 7_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::IDENTITY.looking_to(Vec3::new(-0.45, -1.0, 0.6), Vec3::Y),
    ));
    let camera = commands
        .spawn((
            Camera3d::default(),
            GameCamera,
            Transform::from_xyz(50.0, 60.0, -40.0).looking_at(Vec3::new(50.0, 0.0, 50.0), Vec3::Y),
        ))
        .id();
    let mut root = commands.spawn((
        Name::new("level"),
        VoxWorldRoot(level.handle.clone()),
        Visibility::default(),
    ));
    if level.distant {
        // The window is 1280 pixels wide and the camera's field of view 45° vertically,
        // about 72.7° across: 1008 pixels per radian.
        root.insert(VoxDistantView {
            px_per_radian: 1008.0,
            ..VoxDistantView::new(camera)
        });
    }
}

/// Gives each chunk pass the plugin spawns its material.
fn add_chunk_material(
    add: On<Add, VoxChunkPart>,
    parts: Query<&VoxChunkPart>,
    materials: Res<ChunkMaterials>,
    mut commands: Commands,
) {
    let Ok(part) = parts.get(add.entity) else {
        return;
    };
    commands
        .entity(add.entity)
        .insert(MeshMaterial3d(materials.pass(part.transparent)));
}

/// Gives each region pass a distant view spawns its material.
fn add_region_material(
    add: On<Add, VoxRegionPart>,
    parts: Query<&VoxRegionPart>,
    materials: Res<ChunkMaterials>,
    mut commands: Commands,
) {
    if let Ok(part) = parts.get(add.entity) {
        commands
            .entity(add.entity)
            .insert(MeshMaterial3d(materials.pass(part.transparent)));
    }
}

/// Says when the level has loaded, or why it did not (and quits).
fn watch_load(
    server: Res<AssetServer>,
    level: Res<Level>,
    worlds: Res<Assets<VoxWorld>>,
    mut reported: Local<bool>,
    mut exit: MessageWriter<AppExit>,
) {
    if *reported {
        return;
    }
    match server.load_state(&level.handle) {
        LoadState::Failed(e) => {
            error!("{}: {e}", level.name);
            *reported = true;
            exit.write(AppExit::error());
        }
        LoadState::Loaded => {
            if let Some(w) = worlds.get(&level.handle) {
                let [x, y, z] = w.block_dims;
                info!(
                    "{}: {x}×{y}×{z} blocks, {} chunks, {} quads, {} objects",
                    level.name,
                    w.chunks.len(),
                    w.quad_count(),
                    w.objects.len()
                );
                *reported = true;
            }
        }
        _ => {}
    }
}

fn quit_on_escape(keys: Res<ButtonInput<KeyCode>>, mut exit: MessageWriter<AppExit>) {
    if keys.just_pressed(KeyCode::Escape) {
        exit.write(AppExit::Success);
    }
}

/// The buttons of the keyboard (relative to the camera, which looks towards +z: the screen's
/// right is −x) or of the script.
fn read_input(
    keys: Res<ButtonInput<KeyCode>>,
    script: Option<Res<Script>>,
    players: Query<&PlayState>,
    mut input: ResMut<PlayInput>,
) {
    let next = match script {
        // The game starts and plays its first tick in the same update: tick 0 until then.
        Some(s) => {
            let tick = players.single().map_or(0, |p| p.game.tick());
            script_input(&s.0, tick).unwrap_or(Input::NONE)
        }
        None => {
            let any = |k: [KeyCode; 2]| keys.any_pressed(k);
            Input {
                forward: any([KeyCode::KeyW, KeyCode::ArrowUp]),
                back: any([KeyCode::KeyS, KeyCode::ArrowDown]),
                right: any([KeyCode::KeyA, KeyCode::ArrowLeft]),
                left: any([KeyCode::KeyD, KeyCode::ArrowRight]),
                jump: keys.pressed(KeyCode::Space),
            }
        }
    };
    if input.0 != next {
        input.0 = next;
    }
}

/// The script's buttons at `tick`; `None` once it has run.
fn script_input(script: &InputScript, tick: u64) -> Option<Input> {
    let mut end = 0;
    for &(n, input) in script.steps() {
        end += n;
        if tick < end {
            return Some(input);
        }
    }
    None
}

/// Shows the player once its game has started.
fn show_player(mut players: Query<&mut Visibility, (With<VoxPlayer>, Added<PlayState>)>) {
    for mut v in &mut players {
        *v = Visibility::Inherited;
    }
}

/// How a moving object is drawn: its colour and cube size, `None` for inert ones.
fn object_look(kind: ObjectKind) -> Option<(Color, f32)> {
    match kind {
        ObjectKind::Collectible => Some((Color::srgb(1.0, 0.8, 0.1), 0.5)),
        ObjectKind::Enemy => Some((Color::srgb(0.85, 0.1, 0.1), 0.8)),
        ObjectKind::Exit => Some((Color::srgb(0.1, 0.9, 0.3), 0.9)),
        ObjectKind::Lift => Some((Color::srgb(0.6, 0.6, 0.65), 1.0)),
        ObjectKind::Other => None,
    }
}

/// Draws the level's moving objects once its game has started.
fn spawn_objects(
    mut commands: Commands,
    started: Query<&PlayState, Added<PlayState>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    for state in &started {
        let cube = meshes.add(Cuboid::from_length(1.0));
        for (i, o) in state.game.level().objects.list().iter().enumerate() {
            let Some((color, size)) = object_look(o.kind) else {
                continue;
            };
            let material = materials.add(StandardMaterial {
                base_color: color,
                emissive: LinearRgba::from(color) * 0.3,
                ..default()
            });
            commands.spawn((
                Name::new(format!("object {i} ({})", o.kind.as_str())),
                ObjectView(i),
                Mesh3d(cube.clone()),
                MeshMaterial3d(material),
                Transform::from_scale(Vec3::splat(size)),
            ));
        }
    }
}

/// Puts the drawn objects where the game has them (each fills the unit box above its
/// position), and hides the collected ones.
fn move_objects(
    players: Query<&PlayState>,
    mut objects: Query<(&ObjectView, &mut Transform, &mut Visibility)>,
) {
    let Ok(state) = players.single() else {
        return;
    };
    let at = state.game.object_positions();
    for (ObjectView(i), mut t, mut v) in &mut objects {
        if let Some(&[x, y, z]) = at.get(*i) {
            t.translation = Vec3::new(x as f32, y as f32, z as f32) + Vec3::splat(0.5);
        }
        let shown = if state.game.is_collected(*i) {
            Visibility::Hidden
        } else {
            Visibility::Inherited
        };
        v.set_if_neq(shown);
    }
}

fn log_events(mut events: MessageReader<PlayEvent>) {
    for e in events.read() {
        let what = match e.event {
            Event::Collected {
                object,
                object_type,
                ..
            } => format!("collected object {object} (type {object_type})"),
            Event::Died { cause, .. } => format!("died ({cause:?}): back at the spawn point"),
            Event::Checkpoint { cell, .. } => format!("checkpoint {cell:?}"),
            Event::ReachedExit { .. } => "reached the exit: level complete".to_string(),
        };
        info!("tick {}: {what}", e.event.tick());
    }
}

/// Follows the player from behind and above; before the game starts (or when the world is
/// not a level), circles the world.
fn follow_camera(
    time: Res<Time>,
    level: Res<Level>,
    worlds: Res<Assets<VoxWorld>>,
    players: Query<(&Transform, &PlayState), Without<GameCamera>>,
    mut camera: Query<&mut Transform, With<GameCamera>>,
) {
    let Ok(mut cam) = camera.single_mut() else {
        return;
    };
    if let Ok((player, state)) = players.single() {
        let feet = player.translation;
        let look = feet + Vec3::Y * LOOK_ABOVE_FEET;
        let want = camera_place(&state.game, feet, look);
        // Ease towards the place behind the player; jump there from far away (a respawn).
        let eye = if cam.translation.distance(want) > 30.0 {
            want
        } else {
            let k = 1.0 - (-4.0 * time.delta_secs()).exp();
            cam.translation.lerp(want, k)
        };
        *cam = Transform::from_translation(eye).looking_at(look, Vec3::Y);
        return;
    }
    let Some(world) = worlds.get(&level.handle) else {
        return;
    };
    let dims = Vec3::from_array(world.block_dims.map(|d| d as f32));
    let centre = dims * Vec3::new(0.5, 0.1, 0.5);
    let r = 0.8 * dims.x.max(dims.z);
    let a = 0.15 * time.elapsed_secs();
    let eye = centre + Vec3::new(r * a.cos(), 0.6 * r, r * a.sin());
    *cam = Transform::from_translation(eye).looking_at(centre, Vec3::Y);
}

/// Where the camera should be: the first of [`FOLLOW_OFFSETS`] from which nothing solid
/// hides `look`, or else the first brought in front of what hides it.
fn camera_place(game: &Game, feet: Vec3, look: Vec3) -> Vec3 {
    let collider = &game.level().collider;
    let mut fallback = None;
    for offset in FOLLOW_OFFSETS {
        let want = feet + offset;
        let (dir, len) = (want - look).normalize_and_length();
        let hit = raycast(
            collider,
            look.as_dvec3().to_array(),
            dir.as_dvec3().to_array(),
            f64::from(len),
        );
        match hit {
            Ok(Some(hit)) => {
                let before = (hit.distance as f32 - 0.3).max(0.5);
                fallback.get_or_insert(look + dir * before);
            }
            _ => return want,
        }
    }
    fallback.unwrap_or(feet + FOLLOW_OFFSETS[0])
}

/// The window's title: the level, the score, the live link.
fn update_title(
    level: Res<Level>,
    players: Query<(Option<&PlayState>, Option<&PlayRefused>), With<VoxPlayer>>,
    #[cfg(feature = "live")] link: Option<Res<bevy_voxcaf::LiveLink>>,
    mut windows: Query<&mut Window, With<PrimaryWindow>>,
) {
    let mut title = format!("voxcaf play — {}", level.name);
    match players.single() {
        Ok((Some(state), _)) => {
            let g = &state.game;
            let total = g
                .level()
                .objects
                .list()
                .iter()
                .filter(|o| o.kind == ObjectKind::Collectible)
                .count();
            title += &format!(
                " — collected {}/{total} — deaths {}",
                g.collected_count(),
                g.deaths()
            );
            if g.is_complete() {
                title += " — exit reached!";
            }
        }
        Ok((None, Some(refused))) => title += &format!(" — not a level: {}", refused.0),
        _ => title += " — loading…",
    }
    #[cfg(feature = "live")]
    if let Some(link) = link {
        title += " — live: ";
        title += link_state(link.state()).0;
    }
    if let Ok(mut w) = windows.single_mut() {
        if w.title != title {
            w.title = title;
        }
    }
}

/// An unattended run: once the world shows, the game has started and the script has run,
/// counts the frames, then takes the screenshot and quits when it is saved.
fn take_screenshot(
    mut commands: Commands,
    mut capture: ResMut<Capture>,
    roots: Query<(&SpawnedChunks, Option<&DistantRegions>)>,
    players: Query<(Option<&PlayState>, Has<PlayRefused>), With<VoxPlayer>>,
    script: Option<Res<Script>>,
    mut exit: MessageWriter<AppExit>,
) {
    if capture.requested {
        return;
    }
    if capture.started.elapsed() > SCREENSHOT_TIMEOUT {
        error!("no screenshot after {SCREENSHOT_TIMEOUT:?}: the level did not load or play");
        exit.write(AppExit::error());
        return;
    }
    // Chunk children, or a distant view's regions.
    let shown = roots
        .iter()
        .any(|(s, d)| !s.is_empty() || d.is_some_and(|d| !d.is_empty()));
    let played = players.iter().all(|(state, refused)| {
        refused
            || state.is_some_and(|s| {
                // A complete level plays no more ticks.
                s.game.is_complete()
                    || script
                        .as_ref()
                        .is_none_or(|sc| s.game.tick() >= sc.0.ticks())
            })
    });
    if !(shown && played) {
        return;
    }
    capture.counted += 1;
    if capture.counted < capture.frames {
        return;
    }
    capture.requested = true;
    commands
        .spawn(Screenshot::primary_window())
        .observe(save_to_disk(capture.path.clone()))
        .observe(
            |_: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
                exit.write(AppExit::Success);
            },
        );
}

/// A live link's state in a word, and what it says more.
#[cfg(feature = "live")]
fn link_state(state: &bevy_voxcaf::LinkState) -> (&'static str, &str) {
    use bevy_voxcaf::LinkState;
    match state {
        LinkState::Connecting => ("connecting", ""),
        LinkState::Connected => ("connected", ""),
        LinkState::Lost(why) => ("lost", why),
        LinkState::Refused(why) => ("refused", why),
    }
}

/// Logs the live link's changes of state, and how many chunks it has changed.
#[cfg(feature = "live")]
fn watch_link(
    link: Option<Res<bevy_voxcaf::LiveLink>>,
    mut last: Local<Option<bevy_voxcaf::LinkState>>,
    mut applied: Local<u64>,
) {
    let Some(link) = link else {
        return;
    };
    if last.as_ref() != Some(link.state()) {
        let (word, why) = link_state(link.state());
        match link.state() {
            bevy_voxcaf::LinkState::Lost(_) | bevy_voxcaf::LinkState::Refused(_) => {
                warn!("live link {word}: {why}");
            }
            _ => info!("live link {word}"),
        }
        *last = Some(link.state().clone());
    }
    if link.chunks_applied() != *applied {
        *applied = link.chunks_applied();
        info!("live link: {} chunks changed so far", *applied);
    }
}
