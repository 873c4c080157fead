//! `voxcaf world mesh|render`: mesh export and preview images.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Subcommand;
use serde_json::json;
use vwr::World;
use vwr_blocks::Registry;
use vwr_mesh::{
    mesh_world, render, write_mesh, ExportFormat, ExportOptions, ExportStats, MeshOptions,
    RenderOptions, Rendered, View, WorldMesh,
};

use crate::global::{count, say};
use crate::out_arg::OutArg;

#[derive(Subcommand)]
pub enum MeshCmd {
    /// Mesh a world and export it as .glb, .gltf (+ .bin), .obj or .caf (by extension).
    ///
    /// Faces between solid blocks are culled (also across chunk borders); with --greedy
    /// coplanar faces of the same block merge into rectangles; --ao computes ambient
    /// occlusion and bakes it into the vertex colours. Transparent blocks (water, glass) go
    /// into their own primitive with a blended material.
    Mesh {
        /// The .vwr file, or a database world, postgres://USER@HOST:PORT/DB?world=NAME.
        file: PathBuf,
        /// The output: .glb, .gltf, .obj or .caf.
        #[command(flatten)]
        out: OutArg,
        /// Overwrite an existing output that is not a mesh of that format.
        #[arg(long)]
        force: bool,
        /// Merge coplanar faces into rectangles.
        #[arg(long)]
        greedy: bool,
        /// Ambient occlusion (baked into vertex colours).
        #[arg(long)]
        ao: bool,
        /// One node per chunk (at the chunk origin) instead of one merged mesh.
        #[arg(long)]
        per_chunk: bool,
        /// Export level of detail K (1..=8; cells of 2^K blocks, in world units) instead of
        /// the world: read from the file when it stores it (`voxcaf world lod`), else built.
        /// Each chunk is meshed closed, so levels side by side show no cracks.
        #[arg(long, value_parser = clap::value_parser!(u8).range(0..=8))]
        lod: Option<u8>,
        /// Block render registry overrides (TOML, see the vwr-blocks docs).
        #[arg(long)]
        registry: Option<PathBuf>,
        /// Print statistics as one JSON object.
        #[arg(long)]
        json: bool,
        /// Refuse, before building it, an export estimated to need more memory than this
        /// (bytes, or with a unit: 512M, 2G, 1.5GiB; by default what `ulimit -v` and the
        /// machine allow). A .glb past 4 GiB is always refused before it is built.
        #[arg(long, value_parser = crate::world_args::parse_byte_size)]
        max_memory: Option<u64>,
    },
    /// Render a preview PNG: a shaded 3D view, one layer as a tile map (--layer), or the
    /// chunk debug heat map (--chunks).
    Render {
        /// The .vwr file, or a database world, postgres://USER@HOST:PORT/DB?world=NAME.
        file: PathBuf,
        /// The output: a .png.
        #[command(flatten)]
        out: OutArg,
        /// Overwrite an existing output that is not a PNG image.
        #[arg(long)]
        force: bool,
        /// Camera: iso, front or top.
        #[arg(long, default_value = "iso", value_parser = parse_view)]
        view: View,
        /// Image size WIDTHxHEIGHT, at most 16384x16384. For --chunks the image is at most
        /// this size (tiles shrink, and layers that do not fit are left out); for --layer the
        /// larger side bounds the map (every k-th block is drawn when blocks outnumber pixels).
        #[arg(long, default_value = "1024x768", value_parser = parse_size)]
        size: (u32, u32),
        /// Draw horizontal layer Y as a top-down tile map instead.
        #[arg(long, conflicts_with = "chunks")]
        layer: Option<i32>,
        /// Draw the chunk debug view (empty / uniform / bits per block / palette / metadata).
        #[arg(long)]
        chunks: bool,
        /// No ambient occlusion.
        #[arg(long)]
        no_ao: bool,
        /// No MoveObject / BigDecor markers.
        #[arg(long)]
        no_markers: bool,
        /// Block render registry overrides (TOML).
        #[arg(long)]
        registry: Option<PathBuf>,
    },
}

fn parse_view(s: &str) -> Result<View, String> {
    View::parse(s).ok_or_else(|| format!("unknown view {s:?}: use iso, front or top"))
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let [w, h] = crate::lists::numbers::<u32, 2>(s, &['x', 'X'], "WIDTHxHEIGHT, e.g. 1024x768")
        .map_err(|e| format!("bad size: {e}"))?;
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("size {w}x{h} must be between 1x1 and 16384x16384"));
    }
    Ok((w, h))
}

fn load(path: &Path) -> Result<World> {
    crate::world::load(path)
}

fn registry(path: Option<&Path>) -> Result<Registry> {
    match path {
        Some(p) => Registry::load_toml(p)
            .with_context(|| format!("reading block registry {}", p.display())),
        None => Ok(Registry::default()),
    }
}

impl MeshCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        matches!(self, MeshCmd::Mesh { json: true, .. })
    }
}

/// Run one mesh or render command; returns the process exit code.
pub fn run(cmd: MeshCmd) -> Result<u8> {
    match cmd {
        MeshCmd::Mesh {
            file,
            out,
            greedy,
            ao,
            per_chunk,
            lod,
            registry: reg,
            json,
            force,
            max_memory,
        } => {
            let t = Instant::now();
            let out = out.path();
            check_mesh_output(&file, &out, force)?;
            let opts = MeshOptions {
                greedy,
                ao,
                watertight: false,
            };
            let what = Export {
                opts,
                per_chunk,
                lod: lod.unwrap_or(0),
                max_memory,
            };
            let (mesh, stats, mesh_ms) = export_mesh(&file, &out, reg.as_deref(), what)?;
            let times = Times {
                mesh_ms,
                total_ms: t.elapsed().as_secs_f64() * 1e3,
            };
            if json {
                print_mesh_json(&file, &mesh, &stats, opts, times);
            } else {
                print_mesh_text(&file, &mesh, &stats, times);
            }
            Ok(0)
        }
        MeshCmd::Render {
            file,
            out,
            view,
            size,
            layer,
            chunks,
            no_ao,
            no_markers,
            registry: reg,
            force,
        } => {
            use crate::output as o;
            let out = out.path();
            o::no_dash(&out, "a render output")?;
            o::check_file(&out, &[&file], &o::PNG, force, false)?;
            let picture = if chunks {
                Picture::Chunks
            } else if let Some(y) = layer {
                Picture::Layer(y)
            } else {
                Picture::View(RenderOptions {
                    view,
                    width: size.0,
                    height: size.1,
                    ao: !no_ao,
                    markers: !no_markers,
                })
            };
            render_png(&file, &out, reg.as_deref(), picture, size)?;
            Ok(0)
        }
    }
}

/// `world mesh --out`: a file (not `-`) of a known mesh type that may be replaced, and for a
/// .gltf a buffer beside it that may be replaced too.
fn check_mesh_output(file: &Path, out: &Path, force: bool) -> Result<()> {
    use crate::output as o;
    o::no_dash(out, "a mesh output (a .gltf needs its .bin beside it)")?;
    if ExportFormat::from_path(out).is_none() {
        return Err(o::usage(
            Some(out),
            "unknown output type; use .glb, .gltf, .obj or .caf",
        ));
    }
    o::check_file(out, &[file], &o::mesh_kind(out), force, false)?;
    if ExportFormat::from_path(out) == Some(ExportFormat::Gltf) {
        // The buffer beside a .gltf is written too: it may only replace the buffer of a
        // .gltf export at the same name (or anything, with --force).
        let bin = out.with_extension("bin");
        let ours = std::fs::read(out).is_ok_and(|b| b.trim_ascii_start().starts_with(b"{"));
        if bin.exists() && !ours && !force {
            return Err(o::usage(
                Some(&bin),
                "exists and is not the buffer of an earlier .gltf export; pass --force to \
                 overwrite it, or name another output",
            ));
        }
        if o::same_file(&bin, file) {
            return Err(o::usage(
                Some(&bin),
                "the .gltf's buffer would overwrite the input; name another output",
            ));
        }
    }
    Ok(())
}

/// What `world mesh` exports.
#[derive(Clone, Copy)]
struct Export {
    opts: MeshOptions,
    per_chunk: bool,
    /// 0: the world; k: its level of detail k.
    lod: u8,
    max_memory: Option<u64>,
}

/// Level `k` of a world: read from a v3 file that stores it (only that level's chunks), else
/// built from the whole world.
fn load_level(file: &Path, k: u8) -> Result<vwr::World> {
    let o = |e| crate::output::failed(file, e);
    if !crate::world_db::is_db(file) && !crate::output::is_dash(file) {
        if let Ok(f) = vwr::WorldFile::open(file) {
            if f.lod_levels() >= k {
                return f.load_level(k).map_err(o);
            }
        }
    }
    vwr::lod::build_level(&load(file)?, k).map_err(o)
}

/// Milliseconds spent meshing, and on the whole command.
#[derive(Clone, Copy)]
struct Times {
    mesh_ms: f64,
    total_ms: f64,
}

/// `world mesh`: meshes the world and writes it to `out` (after checking the estimate of the
/// export against `.glb`'s limit and `max_memory`); the mesh, what was written and the
/// meshing time in milliseconds.
fn export_mesh(
    file: &Path,
    out: &Path,
    reg: Option<&Path>,
    what: Export,
) -> Result<(WorldMesh, ExportStats, f64)> {
    let Export {
        opts,
        per_chunk,
        lod,
        max_memory,
    } = what;
    let reg = registry(reg)?;
    let spinner = crate::output::spinner(format!("meshing {}", file.display()));
    let (world, mesh_ms, mesh) = if lod == 0 {
        let world = load(file)?;
        let t = Instant::now();
        let mesh = mesh_world(&world, &reg, opts);
        (world, t.elapsed().as_secs_f64() * 1e3, mesh)
    } else {
        let level = load_level(file, lod)?;
        let t = Instant::now();
        let mesh = vwr_mesh::lod::mesh_level(&level, lod, &reg, opts);
        (level, t.elapsed().as_secs_f64() * 1e3, mesh)
    };
    drop(world);
    let format = ExportFormat::from_path(out).unwrap_or(ExportFormat::Glb);
    let budget = crate::world_args::memory_budget(max_memory);
    if let Err(e) = mesh.estimate(format).check(format, budget) {
        let hint = if opts.greedy {
            "write a .gltf (no 4 GiB limit) or raise --max-memory"
        } else {
            "use --greedy (far fewer vertices), write a .gltf (no 4 GiB limit) or raise --max-memory"
        };
        return Err(crate::output::failed(file, format!("{e}; {hint}")));
    }
    spinner.set_message(format!("writing {}", out.display()));
    crate::output::create_parent(out)?;
    let stats = write_mesh(
        out,
        &mesh,
        &reg,
        ExportOptions {
            per_chunk,
            bake_ao: opts.ao,
        },
    )
    .with_context(|| format!("writing {}", out.display()))?;
    spinner.finish_and_clear();
    Ok((mesh, stats, mesh_ms))
}

/// `world mesh --json`: the statistics as one JSON object.
fn print_mesh_json(
    file: &Path,
    mesh: &WorldMesh,
    stats: &ExportStats,
    opts: MeshOptions,
    times: Times,
) {
    println!(
        "{}",
        json!({
            "ok": true,
            "file": file.display().to_string(),
            "out": stats.files,
            "chunks": mesh.chunks.len(),
            "quads": mesh.quad_count(),
            "unit_faces": mesh.unit_face_count(),
            "special_cells": mesh.special_count(),
            "vertices": stats.vertices,
            "triangles": stats.triangles,
            "greedy": opts.greedy,
            "ao": opts.ao,
            "mesh_ms": times.mesh_ms,
            "total_ms": times.total_ms,
        })
    );
}

/// `world mesh`'s statistics as text, and the files written (nothing with `-q`).
fn print_mesh_text(file: &Path, mesh: &WorldMesh, stats: &ExportStats, times: Times) {
    say!(
        "{}: {}, {} covering {}, {} -> {} vertices, {} triangles ({:.1} ms meshing, {:.2} s in all)",
        file.display(),
        count(mesh.chunks.len() as u64, "chunk"),
        count(mesh.quad_count() as u64, "quad"),
        count(mesh.unit_face_count(), "face"),
        count(mesh.special_count() as u64, "special cell"),
        stats.vertices,
        stats.triangles,
        times.mesh_ms,
        times.total_ms / 1e3
    );
    say!("wrote {}", stats.files.join(", "));
}

/// What `world render` draws.
enum Picture {
    /// The chunk debug view (`--chunks`).
    Chunks,
    /// One horizontal layer as a tile map (`--layer Y`).
    Layer(i32),
    /// A shaded 3D view.
    View(RenderOptions),
}

/// `world render`: draws the picture of the world, saves it as a PNG and prints a line on
/// what was drawn (unless `-q`).
fn render_png(
    file: &Path,
    out: &Path,
    reg: Option<&Path>,
    picture: Picture,
    size: (u32, u32),
) -> Result<()> {
    use crate::output as o;
    let reg = registry(reg)?;
    let world = load(file)?;
    let t = Instant::now();
    let (rendered, what) = render_with_spinner(file, &world, &reg, picture, size)?;
    o::create_parent(out)?;
    render::save_png(&rendered.image, out).map_err(|e| o::failed(out, e))?;
    say!(
        "{} -> {} ({}, {}x{}, {:.0}% covered, {} markers, {:.0} ms)",
        file.display(),
        out.display(),
        what,
        rendered.image.width(),
        rendered.image.height(),
        rendered.coverage() * 100.0,
        rendered.markers,
        t.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}

/// `world render`: draws the picture (with a spinner on a terminal: large worlds take seconds
/// to render); the image and what it shows.
fn render_with_spinner(
    file: &Path,
    world: &World,
    reg: &Registry,
    picture: Picture,
    size: (u32, u32),
) -> Result<(Rendered, String)> {
    let spinner = crate::output::spinner(format!("rendering {}", file.display()));
    let drawn = match picture {
        Picture::Chunks => (
            render::render_chunks_within(world, size.0, size.1),
            "chunk view".to_string(),
        ),
        Picture::Layer(y) => (
            render::render_layer(world, reg, y, size.0.max(size.1))?,
            format!("layer y={y}"),
        ),
        Picture::View(opts) => (
            vwr_mesh::render_world(world, reg, &opts)?,
            format!("{:?} view", opts.view).to_lowercase(),
        ),
    };
    spinner.finish_and_clear();
    Ok(drawn)
}

/// Demo hook: writes `DIR/NAME.glb` (greedy, AO) and `DIR/NAME-iso.png` for a world and
/// returns mesh statistics as text (faces before and after greedy meshing, times).
pub fn demo_mesh(world: &World, dir: &Path, name: &str) -> Result<String> {
    let reg = Registry::default();
    let t = Instant::now();
    let exposed = mesh_world(world, &reg, MeshOptions::EXPOSED_AO);
    let t_exposed = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let greedy = mesh_world(world, &reg, MeshOptions::GREEDY_AO);
    let t_greedy = t.elapsed().as_secs_f64() * 1e3;
    let glb = dir.join(format!("{name}.glb"));
    let stats = write_mesh(
        &glb,
        &greedy,
        &reg,
        ExportOptions {
            per_chunk: true,
            bake_ao: true,
        },
    )
    .with_context(|| format!("writing {}", glb.display()))?;
    let png = dir.join(format!("{name}-iso.png"));
    let t = Instant::now();
    let r = vwr_mesh::render_world(
        world,
        &reg,
        &RenderOptions {
            width: 1200,
            height: 800,
            ..Default::default()
        },
    )?;
    render::save_png(&r.image, &png).with_context(|| format!("writing {}", png.display()))?;
    let t_render = t.elapsed().as_secs_f64() * 1e3;
    let faces = exposed.quad_count();
    let quads = greedy.quad_count();
    Ok(format!(
        "mesh: {} chunks, {faces} exposed faces -> {quads} greedy quads ({:.1}x fewer; AO on), {} special cells\n\
         mesh: exposed {t_exposed:.1} ms, greedy {t_greedy:.1} ms; {} vertices, {} triangles -> {}\n\
         mesh: iso preview {}x{} ({:.0}% covered, {} markers) in {t_render:.0} ms -> {}",
        greedy.chunks.len(),
        faces as f64 / quads.max(1) as f64,
        greedy.special_count(),
        stats.vertices,
        stats.triangles,
        glb.display(),
        r.image.width(),
        r.image.height(),
        r.coverage() * 100.0,
        r.markers,
        png.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_mesh_writes_glb_and_png() {
        let mut w = World::with_chunks_per_axis(2).unwrap();
        let stone = vwr::Block::make(35, 0).unwrap();
        w.fill_box([0, 0, 0], [19, 0, 19], stone).unwrap();
        w.fill_box([4, 1, 4], [6, 4, 6], vwr::Block::make(261, 0).unwrap())
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let text = demo_mesh(&w, dir.path(), "show").unwrap();
        assert!(text.contains("exposed faces"), "{text}");
        assert!(text.contains("greedy quads"), "{text}");
        let glb = std::fs::read(dir.path().join("show.glb")).unwrap();
        assert_eq!(&glb[..4], b"glTF");
        let png = std::fs::read(dir.path().join("show-iso.png")).unwrap();
        assert_eq!(&png[1..4], b"PNG");
    }

    #[test]
    fn size_and_view_parsing() {
        assert_eq!(parse_size("640x480"), Ok((640, 480)));
        assert_eq!(parse_size("640X480"), Ok((640, 480)));
        assert!(parse_size("640").is_err());
        assert!(parse_size("0x10").is_err());
        assert!(parse_size("axb").is_err());
        assert_eq!(parse_view("TOP"), Ok(View::Top));
        assert!(parse_view("side").is_err());
    }
}
