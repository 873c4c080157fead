//! Loads a file through the plugin, headless (no window, no GPU), and prints one JSON line:
//!
//! - a `.vwr` world: `{"chunks": N, "quads": N, "objects": N, ...}`, the chunk and quad counts
//!   that `voxcaf world mesh --greedy --ao --json` gives for the same file;
//! - a `.caf` texture: `{"type": "texture", "width": W, "height": H, "mips": N, "format": ...}`;
//! - a `.caf` mesh: `{"type": "mesh", "vertices": N, "indices": N, "parts": N, ...}`;
//! - a `.caf` animation: `{"type": "animation", "clips": N, "duration": S, "targets": N}`
//!   (the first clip's duration and animated nodes);
//! - a member of a pack, named `PACK.cafpack/MEMBER` (loaded as `cafpack://...`), the same.
//!
//! ```text
//! cargo run --release -p bevy_voxcaf --example inspect -- level.vwr
//! cargo run --release -p bevy_voxcaf --example inspect -- game.cafpack/textures/hero.caf
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use bevy::app::App;
use bevy::asset::{Asset, Assets};
use bevy::image::Image;
use bevy::mesh::Mesh;
use bevy_voxcaf::{headless_app, load_now, CafAsset, LoadFailure, VoxWorld};
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(600);

fn main() -> ExitCode {
    let Some(file) = std::env::args_os().nth(1) else {
        eprintln!("usage: inspect FILE.vwr | FILE.caf | PACK.cafpack/MEMBER.caf");
        return ExitCode::from(2);
    };
    let file = PathBuf::from(file);
    let (dir, asset_path, asset_type) = match locate(&file) {
        Ok(found) => found,
        Err(e) => {
            eprintln!("error: {}: {e}", file.display());
            return ExitCode::from(if file.exists() { 1 } else { 2 });
        }
    };
    let mut app = headless_app(&dir);
    let answer = match asset_type {
        None => world(&mut app, &asset_path),
        Some(t) if t == caf::AssetType::TEXTURE => texture(&mut app, &asset_path),
        Some(t) if t == caf::AssetType::MESH => mesh(&mut app, &asset_path),
        Some(t) if t == caf::AssetType::ANIMATION => animation(&mut app, &asset_path),
        Some(t) => Err(format!(
            "{t} asset: the plugin loads textures, meshes and animations"
        )),
    };
    match answer {
        Ok(mut line) => {
            line["file"] = json!(file.display().to_string());
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// The asset folder, the asset path in it and, for a `.caf` (or a pack member), its type.
fn locate(file: &Path) -> Result<(PathBuf, String, Option<caf::AssetType>), String> {
    let text = file.to_string_lossy();
    if let Some(at) = text.find(".cafpack/") {
        let (pack, member) = text.split_at(at + ".cafpack".len());
        let member = &member[1..];
        let pack = Path::new(pack);
        let opened = caf::pack::Pack::open(pack).map_err(|e| e.to_string())?;
        let entry = opened.find(member).ok_or("no such member in the pack")?;
        let dir = absolute(pack.parent().unwrap_or(Path::new(".")));
        let name = pack.file_name().unwrap_or_default().to_string_lossy();
        let path = format!("cafpack://{name}/{member}");
        return Ok((dir, path, Some(caf::AssetType(entry.asset_type))));
    }
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return Err("not a file name".into());
    };
    let name = name.to_string_lossy().to_string();
    let ty = if name.ends_with(".caf") {
        let header = caf::validate_header(file).map_err(|e| e.to_string())?;
        Some(header.asset_type)
    } else {
        None
    };
    Ok((absolute(dir), name, ty))
}

fn absolute(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// Loads `path` as an `A` and gives it to `f`.
fn with<A: Asset>(app: &mut App, path: &str, f: impl FnOnce(&A) -> Value) -> Result<Value, String> {
    let handle = load_now::<A>(app, path, WAIT).map_err(|e: LoadFailure| e.to_string())?;
    let assets = app.world().resource::<Assets<A>>();
    assets
        .get(&handle)
        .map(f)
        .ok_or_else(|| format!("{path}: loaded but gone"))
}

fn world(app: &mut App, path: &str) -> Result<Value, String> {
    with(app, path, |w: &VoxWorld| {
        let special: usize = w.chunks.iter().map(|c| c.special_cells).sum();
        json!({
            "chunks": w.chunks.len(),
            "quads": w.quad_count(),
            "special_cells": special,
            "objects": w.objects.len(),
            "spawn": w.spawn,
            "sky_region": w.sky_region,
        })
    })
}

fn texture(app: &mut App, path: &str) -> Result<Value, String> {
    with(app, path, |i: &Image| {
        json!({
            "type": "texture",
            "width": i.width(),
            "height": i.height(),
            "mips": i.texture_descriptor.mip_level_count,
            "format": format!("{:?}", i.texture_descriptor.format),
            "bytes": i.data.as_ref().map_or(0, Vec::len),
        })
    })
}

/// Loads `path` as a [`CafAsset`] (the file once, its parts as labeled assets) and gives it
/// to `f` with the app's world, where its parts are.
fn with_parts(
    app: &mut App,
    path: &str,
    f: impl FnOnce(&CafAsset, &bevy::ecs::world::World) -> Option<Value>,
) -> Result<Value, String> {
    let handle = load_now::<CafAsset>(app, path, WAIT).map_err(|e| e.to_string())?;
    let world = app.world();
    let assets = world.resource::<Assets<CafAsset>>();
    assets
        .get(&handle)
        .and_then(|c| f(c, world))
        .ok_or_else(|| format!("{path}: loaded but gone"))
}

fn mesh(app: &mut App, path: &str) -> Result<Value, String> {
    with_parts(app, path, |c, world| {
        let m = world.resource::<Assets<Mesh>>().get(c.mesh.as_ref()?)?;
        Some(json!({
            "type": "mesh",
            "vertices": m.count_vertices(),
            "indices": m.indices().map_or(0, |i| i.len()),
            // Sub-meshes are parts of their own when there are several.
            "parts": c.parts.len().max(1),
            "colors": m.attribute(Mesh::ATTRIBUTE_COLOR).is_some(),
            "skinned": m.attribute(Mesh::ATTRIBUTE_JOINT_INDEX).is_some(),
        }))
    })
}

fn animation(app: &mut App, path: &str) -> Result<Value, String> {
    use bevy::animation::AnimationClip;
    with_parts(app, path, |c, world| {
        let first = world
            .resource::<Assets<AnimationClip>>()
            .get(c.clips.first()?)?;
        Some(json!({
            "type": "animation",
            "clips": c.clips.len(),
            "duration": first.duration(),
            "targets": first.curves().len(),
        }))
    })
}
