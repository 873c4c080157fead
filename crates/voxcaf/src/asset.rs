//! `voxcaf asset info|check|pack|repack|extract`: the `.caf` container from the command line.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use caf::{
    Asset, AssetType, AudioMetadata, AudioView, CafError, CafFlags, CafHeader, LoadedAsset,
    MeshMetadata, MeshView, PrefabView, SceneMetadata, SceneView, ShaderMetadata, ShaderStage,
    ShaderView, TextureMetadata, TextureView, Vertex, HEADER_SIZE,
};
use clap::Subcommand;
use serde_json::{json, Value};

/// Container-level asset commands.
#[derive(Subcommand)]
pub enum AssetCmd {
    /// Describe a .caf file: header, decoded metadata, offsets, both CRCs and whether they
    /// match. Damaged files are described too (exit code 1).
    Info {
        /// The .caf file.
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Verify .caf files (length, magic, version, sizes, payload CRC, footer CRC); exit 0 only
    /// if every file is valid. Prints one line per file naming the failed check.
    Check {
        /// Files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also decode each known asset type (texture levels, audio, mesh, shader, scene, prefab).
        #[arg(long)]
        typed: bool,
        /// Print a JSON array instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write a .caf from raw metadata and payload files (atomic; the payload is streamed).
    Pack {
        /// Asset type: a name (texture, audio, mesh, prefab, scene, shader, animation, font,
        /// unknown) or a number (0..65535).
        #[arg(long = "type", value_name = "TYPE")]
        ty: AssetType,
        /// Flags: names or numbers joined by '|', e.g. `srgb|mipchain` or `0x0c`.
        #[arg(long, default_value = "none")]
        flags: CafFlags,
        /// File holding the metadata bytes (default: none).
        #[arg(long)]
        metadata: Option<PathBuf>,
        /// File holding the payload bytes (default: empty).
        #[arg(long)]
        payload: Option<PathBuf>,
        /// Output .caf file.
        out: PathBuf,
    },
    /// Load and verify a .caf, then write its type, flags, metadata and payload again.
    Repack {
        /// Input .caf file.
        input: PathBuf,
        /// Output .caf file (may be the input).
        out: PathBuf,
    },
    /// Verify a .caf and write its metadata and/or payload bytes to files (`-` = stdout).
    Extract {
        /// The .caf file.
        file: PathBuf,
        /// Where to write the metadata bytes.
        #[arg(long)]
        metadata: Option<PathBuf>,
        /// Where to write the payload bytes.
        #[arg(long)]
        payload: Option<PathBuf>,
    },
}

/// Run one asset command; returns the process exit code.
pub fn run(cmd: AssetCmd) -> Result<u8> {
    match cmd {
        AssetCmd::Info { file, json } => info(&file, json),
        AssetCmd::Check { files, typed, json } => check(&files, typed, json),
        AssetCmd::Pack {
            ty,
            flags,
            metadata,
            payload,
            out,
        } => pack(ty, flags, metadata.as_deref(), payload.as_deref(), &out),
        AssetCmd::Repack { input, out } => repack(&input, &out),
        AssetCmd::Extract {
            file,
            metadata,
            payload,
        } => extract(&file, metadata.as_deref(), payload.as_deref()),
    }
}

fn hex32(v: u32) -> String {
    format!("{v:#010x}")
}

fn type_label(t: AssetType) -> String {
    match t.name() {
        Some(n) => format!("{} ({n})", t.0),
        None => format!("{} (no such type)", t.0),
    }
}

/// Decoded metadata of a known type, as JSON, or `None` when the type has no fixed struct or
/// the size does not match.
fn metadata_json(ty: AssetType, m: &[u8]) -> Option<Value> {
    Some(match ty {
        AssetType::TEXTURE => {
            let t = TextureMetadata::from_bytes(m).ok()?;
            json!({"width": t.width, "height": t.height, "format": t.format, "mip_levels": t.mip_levels, "reserved": t.reserved})
        }
        AssetType::AUDIO => {
            let a = AudioMetadata::from_bytes(m).ok()?;
            json!({"sample_rate": a.sample_rate, "channels": a.channels, "bits_per_sample": a.bits_per_sample, "sample_count": a.sample_count, "reserved": a.reserved})
        }
        AssetType::MESH => {
            let x = MeshMetadata::from_bytes(m).ok()?;
            json!({"vertex_count": x.vertex_count, "index_count": x.index_count, "sub_mesh_count": x.sub_mesh_count, "reserved": x.reserved})
        }
        AssetType::SHADER => {
            let s = ShaderMetadata::from_bytes(m).ok()?;
            json!({"stage": s.stage, "stage_name": ShaderStage(s.stage).name(), "reserved": s.reserved})
        }
        AssetType::SCENE => {
            let s = SceneMetadata::from_bytes(m.get(..SceneMetadata::SIZE)?).ok()?;
            json!({"entity_count": s.entity_count, "archetype_count": s.archetype_count, "string_table_offset": s.string_table_offset, "asset_ref_table_offset": s.asset_ref_table_offset, "reserved": s.reserved})
        }
        _ => return None,
    })
}

/// Typed decoding of a known type: `Ok(summary)`, `Err(reason)`, or `None` for types without
/// a payload convention.
fn typed_summary(a: &Asset<'_>) -> Option<Result<(String, Value), CafError>> {
    Some(match a.header.asset_type {
        AssetType::TEXTURE => TextureView::from_asset(a).map(|t| {
            let dims: Vec<String> = (0..t.level_count())
                .filter_map(|i| t.level_dims(i))
                .map(|(w, h)| format!("{w}x{h}"))
                .collect();
            (
                format!("{} channel(s), {} level(s): {}", t.channels, t.level_count(), dims.join(" + ")),
                json!({"channels": t.channels, "levels": dims}),
            )
        }),
        AssetType::AUDIO => AudioView::from_asset(a).map(|v| {
            (
                format!("{} frames, {:.3} s", v.frames(), v.duration_secs()),
                json!({"frames": v.frames(), "duration_secs": v.duration_secs()}),
            )
        }),
        AssetType::MESH => MeshView::from_asset(a).map(|m| {
            (
                format!("{} vertices, {} indices ({} triangles)", m.vertices.len(), m.indices.len(), m.indices.len() / 3),
                json!({"vertices": m.vertices.len(), "indices": m.indices.len()}),
            )
        }),
        AssetType::SHADER => ShaderView::from_asset(a).map(|s| {
            (
                format!(
                    "{} stage, {} bytes of bytecode{}",
                    s.stage().name().unwrap_or("?"),
                    s.bytecode.len(),
                    if s.is_spirv() { " (SPIR-V)" } else { "" }
                ),
                json!({"stage": s.stage().name(), "bytecode_bytes": s.bytecode.len(), "spirv": s.is_spirv()}),
            )
        }),
        AssetType::SCENE => SceneView::from_asset(a).map(|s| {
            let secs: Vec<Value> = s
                .sections()
                .map(|x| json!({"type_id": x.type_id, "component": caf::scene_component::name(x.type_id), "count": x.count}))
                .collect();
            let text: Vec<String> = s
                .sections()
                .map(|x| format!("{} x{}", caf::scene_component::name(x.type_id).unwrap_or("?"), x.count))
                .collect();
            (format!("{} section(s): {}", s.section_count(), text.join(", ")), json!({"sections": secs}))
        }),
        AssetType::PREFAB => PrefabView::from_asset(a).map(|p| {
            let ents: Vec<Value> = p
                .entities()
                .map(|e| json!({"name": String::from_utf8_lossy(e.name), "components": e.components.len(), "children": e.children.len()}))
                .collect();
            let text: Vec<String> = p
                .entities()
                .map(|e| format!("\"{}\" ({} components)", String::from_utf8_lossy(e.name), e.components.len()))
                .collect();
            (format!("{} entit(ies): {}", p.entity_count(), text.join(", ")), json!({"entities": ents}))
        }),
        _ => return None,
    })
}

fn info(path: &Path, as_json: bool) -> Result<u8> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut j = json!({"file": path.display().to_string(), "file_size": bytes.len()});
    let mut lines: Vec<String> = Vec::new();
    let Some(hb) = bytes.get(..HEADER_SIZE) else {
        let e = CafError::TooShort {
            len: bytes.len() as u64,
            min: HEADER_SIZE as u64,
        };
        return finish_info(path, as_json, j, lines, Some(e));
    };
    let hb: &[u8; HEADER_SIZE] = hb.try_into().expect("slice of HEADER_SIZE bytes");
    let h = CafHeader::from_bytes(hb);
    header_fields(&h, &mut j, &mut lines);
    let (asset, crcs) = match Asset::parse_layout(&bytes) {
        Ok(x) => x,
        Err(e) => return finish_info(path, as_json, j, lines, Some(e)),
    };
    let (mo, po, fo) = (HEADER_SIZE, asset.payload_offset(), asset.footer_offset());
    j["offsets"] = json!({"metadata": mo, "payload": po, "footer": fo});
    j["payload_crc_computed"] = json!(crcs.payload_computed);
    j["footer_crc_computed"] = json!(crcs.footer_computed);
    j["payload_crc_ok"] = json!(crcs.payload_ok());
    j["footer_crc_ok"] = json!(crcs.footer_ok());
    j["footer_crc"] = json!(crcs.footer_stored);
    let state = |ok: bool, computed: u32| {
        if ok {
            "matches".to_string()
        } else {
            format!("MISMATCH, bytes hash to {}", hex32(computed))
        }
    };
    lines.push(format!(
        "  metadata      {} bytes at offset {mo}",
        asset.metadata.len()
    ));
    lines.push(format!(
        "  payload       {} bytes at offset {po}, crc32 {} ({})",
        asset.payload.len(),
        hex32(crcs.payload_stored),
        state(crcs.payload_ok(), crcs.payload_computed)
    ));
    lines.push(format!(
        "  footer        at offset {fo}: {} ({})",
        hex32(crcs.footer_stored),
        state(crcs.footer_ok(), crcs.footer_computed)
    ));
    if let Some(m) = metadata_json(h.asset_type, asset.metadata) {
        let fields: Vec<String> = m
            .as_object()
            .map(|o| o.iter().map(|(k, v)| format!("{k}={v}")).collect())
            .unwrap_or_default();
        lines.push(format!(
            "  {:<13} {}",
            format!("{}:", h.asset_type),
            fields.join(" ")
        ));
        j["metadata"] = m;
    }
    if let Some(t) = typed_summary(&asset) {
        match t {
            Ok((text, v)) => {
                lines.push(format!("  decoded       {text}"));
                j["decoded"] = v;
            }
            Err(e) => {
                lines.push(format!(
                    "  decoded       cannot decode as {}: {e}",
                    h.asset_type
                ));
                j["decode_error"] = json!(e.to_string());
            }
        }
    }
    finish_info(path, as_json, j, lines, crcs.check().err())
}

fn header_fields(h: &CafHeader, j: &mut Value, lines: &mut Vec<String>) {
    j["magic"] = json!(h.magic);
    j["version_major"] = json!(h.version_major);
    j["version_minor"] = json!(h.version_minor);
    j["type"] = json!(h.asset_type.0);
    j["type_name"] = json!(h.asset_type.name());
    j["flags"] = json!(h.flags.0);
    j["flag_names"] = json!(h.flags.names());
    j["unknown_flag_bits"] = json!(h.flags.unknown_bits());
    j["metadata_size"] = json!(h.metadata_size);
    j["data_size"] = json!(h.data_size);
    j["payload_crc"] = json!(h.crc32);
    j["payload_alignment"] = json!(h.asset_type.payload_alignment());
    lines.push(format!("  magic         {}", hex32(h.magic)));
    lines.push(format!(
        "  version       {}.{}",
        h.version_major, h.version_minor
    ));
    lines.push(format!("  type          {}", type_label(h.asset_type)));
    lines.push(format!("  flags         {:#06x} ({})", h.flags.0, h.flags));
    lines.push(format!(
        "  sizes         metadata {} + payload {} bytes",
        h.metadata_size, h.data_size
    ));
}

fn finish_info(
    path: &Path,
    as_json: bool,
    mut j: Value,
    lines: Vec<String>,
    err: Option<CafError>,
) -> Result<u8> {
    j["valid"] = json!(err.is_none());
    j["check"] = json!(err.as_ref().map(|e| e.check_name()));
    j["error"] = json!(err.as_ref().map(|e| e.to_string()));
    if as_json {
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        let size = j["file_size"].as_u64().unwrap_or(0);
        match &err {
            None => println!("{}: valid, {size} bytes", path.display()),
            Some(e) => println!(
                "{}: INVALID ({}), {size} bytes: {e}",
                path.display(),
                e.check_name()
            ),
        }
        for l in lines {
            println!("{l}");
        }
    }
    Ok(if err.is_none() { 0 } else { 1 })
}

fn check(files: &[PathBuf], typed: bool, as_json: bool) -> Result<u8> {
    let mut out = Vec::new();
    let mut bad = 0usize;
    for f in files {
        let res = LoadedAsset::open(f).and_then(|l| {
            if typed {
                if let Some(Err(e)) = typed_summary(&l.asset()) {
                    return Err(e);
                }
            }
            Ok(l)
        });
        match res {
            Ok(l) => {
                let h = l.header();
                if as_json {
                    out.push(json!({"file": f.display().to_string(), "valid": true, "type": h.asset_type.0, "type_name": h.asset_type.name(), "file_size": l.file_size()}));
                } else {
                    println!(
                        "ok    {} ({}, {} bytes)",
                        f.display(),
                        h.asset_type,
                        l.file_size()
                    );
                }
            }
            Err(e) => {
                bad += 1;
                if as_json {
                    out.push(json!({"file": f.display().to_string(), "valid": false, "check": e.check_name(), "error": e.to_string()}));
                } else {
                    println!("FAIL  {} [{}]: {e}", f.display(), e.check_name());
                }
            }
        }
    }
    if as_json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else if files.len() > 1 {
        println!("{} of {} file(s) valid", files.len() - bad, files.len());
    }
    Ok(if bad == 0 { 0 } else { 1 })
}

fn pack(
    ty: AssetType,
    flags: CafFlags,
    metadata: Option<&Path>,
    payload: Option<&Path>,
    out: &Path,
) -> Result<u8> {
    let meta = match metadata {
        Some(p) => std::fs::read(p)
            .with_context(|| format!("cannot read metadata file {}", p.display()))?,
        None => Vec::new(),
    };
    match payload {
        Some(p) => {
            let f = std::fs::File::open(p)
                .with_context(|| format!("cannot open payload file {}", p.display()))?;
            let len = f.metadata()?.len();
            caf::AssetWriter::new(ty)
                .flags(flags)
                .metadata(&meta)
                .payload_reader(std::io::BufReader::new(f), len)
                .write_file(out)
                .with_context(|| format!("cannot write {}", out.display()))?;
        }
        None => caf::AssetWriter::new(ty)
            .flags(flags)
            .metadata(&meta)
            .write_file(out)
            .with_context(|| format!("cannot write {}", out.display()))?,
    }
    let size = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    println!(
        "wrote {} ({ty}, flags {flags}, {size} bytes)",
        out.display()
    );
    Ok(0)
}

fn load(path: &Path) -> Result<LoadedAsset> {
    LoadedAsset::open(path).with_context(|| format!("{} is not a valid .caf file", path.display()))
}

fn repack(input: &Path, out: &Path) -> Result<u8> {
    let l = load(input)?;
    let h = l.header();
    caf::AssetWriter::new(h.asset_type)
        .flags(h.flags)
        .metadata(l.metadata())
        .payload(l.payload())
        .write_file(out)
        .with_context(|| format!("cannot write {}", out.display()))?;
    println!(
        "wrote {} ({}, {} bytes)",
        out.display(),
        h.asset_type,
        l.file_size()
    );
    Ok(0)
}

fn write_out(dest: &Path, bytes: &[u8]) -> Result<()> {
    if dest == Path::new("-") {
        let mut so = std::io::stdout().lock();
        so.write_all(bytes)?;
        so.flush()?;
        return Ok(());
    }
    voxcaf_fs::write_atomic(dest, bytes)
        .with_context(|| format!("cannot write {}", dest.display()))?;
    Ok(())
}

fn extract(file: &Path, metadata: Option<&Path>, payload: Option<&Path>) -> Result<u8> {
    if metadata.is_none() && payload.is_none() {
        bail!("nothing to extract: pass --metadata FILE and/or --payload FILE (`-` for stdout)");
    }
    let l = load(file)?;
    for (what, dest, bytes) in [
        ("metadata", metadata, l.metadata()),
        ("payload", payload, l.payload()),
    ] {
        if let Some(d) = dest {
            write_out(d, bytes)?;
            if d != Path::new("-") {
                eprintln!("wrote {what} ({} bytes) to {}", bytes.len(), d.display());
            }
        }
    }
    Ok(0)
}

/// 2x2 box filter with integer floor that drops an odd last row/column (the original's).
fn next_mip(src: &[u8], w: u32, h: u32) -> (Vec<u8>, u32, u32) {
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let mut out = Vec::with_capacity((nw * nh * 4) as usize);
    for y in 0..nh {
        for x in 0..nw {
            for c in 0..4 {
                let mut sum = 0u32;
                let mut n = 0u32;
                for dy in 0..2 {
                    for dx in 0..2 {
                        let (sx, sy) = (2 * x + dx, 2 * y + dy);
                        if sx < w && sy < h {
                            sum += u32::from(src[((sy * w + sx) * 4 + c) as usize]);
                            n += 1;
                        }
                    }
                }
                out.push((sum / n) as u8);
            }
        }
    }
    (out, nw, nh)
}

/// A unit cube: 24 vertices (4 per face), 36 indices.
fn cube() -> (Vec<Vertex>, Vec<u32>) {
    let mut v = Vec::new();
    let mut idx = Vec::new();
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
        ([-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
        ([0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]),
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ];
    for (n, u, t) in faces {
        let base = v.len() as u32;
        for (su, sv) in [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let p = [0, 1, 2].map(|i| 0.5 * (n[i] + su * t[i] + sv * u[i]));
            v.push(Vertex {
                position: p,
                normal: n,
                uv: [(su + 1.0) / 2.0, (sv + 1.0) / 2.0],
                tangent: [t[0], t[1], t[2], 1.0],
            });
        }
        idx.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    (v, idx)
}

/// Demo hook: write a 64x64 RGBA texture with its full mip chain and a cube mesh to `dir`,
/// reload both through [`LoadedAsset::open`] (full verification) and their typed views, check
/// the contents, and return a one-paragraph report.
pub fn demo_roundtrip(dir: &Path) -> Result<String> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let (w, h) = (64u32, 64u32);
    let mut base = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let checker = if (x / 8 + y / 8) % 2 == 0 { 255 } else { 64 };
            base.extend_from_slice(&[(x * 4) as u8, (y * 4) as u8, checker, 255]);
        }
    }
    let mut levels = vec![base.clone()];
    let (mut lw, mut lh) = (w, h);
    while lw > 1 || lh > 1 {
        let (next, nw, nh) = next_mip(levels.last().expect("at least one level"), lw, lh);
        levels.push(next);
        (lw, lh) = (nw, nh);
    }
    let meta = TextureMetadata {
        width: w,
        height: h,
        format: 0,
        mip_levels: levels.len() as u32,
        reserved: 0,
    };
    let payload: Vec<u8> = levels.concat();
    let tex_path = dir.join("demo_texture.caf");
    caf::AssetWriter::new(AssetType::TEXTURE)
        .flags(CafFlags::SRGB | CafFlags::MIPCHAIN)
        .metadata(&meta.to_bytes())
        .payload(&payload)
        .write_file(&tex_path)?;

    let (verts, idx) = cube();
    let mut mesh_payload: Vec<u8> = verts.iter().flat_map(Vertex::to_bytes).collect();
    mesh_payload.extend(idx.iter().flat_map(|i| i.to_le_bytes()));
    let mmeta = MeshMetadata {
        vertex_count: verts.len() as u32,
        index_count: idx.len() as u32,
        sub_mesh_count: 1,
        reserved: 0,
    };
    let mesh_path = dir.join("demo_cube.caf");
    caf::AssetWriter::new(AssetType::MESH)
        .metadata(&mmeta.to_bytes())
        .payload(&mesh_payload)
        .write_file(&mesh_path)?;

    let t0 = Instant::now();
    let tex = LoadedAsset::open(&tex_path)?;
    let tv = TextureView::from_asset(&tex.asset())?;
    let tex_time = t0.elapsed();
    if tv.level(0) != Some(&base[..]) || tv.level_count() != levels.len() || tv.channels != 4 {
        bail!("demo texture did not read back as written");
    }
    let t1 = Instant::now();
    let mesh = LoadedAsset::open(&mesh_path)?;
    let mv = MeshView::from_asset(&mesh.asset())?;
    let mesh_time = t1.elapsed();
    let zero_copy = matches!(mv.vertices, std::borrow::Cow::Borrowed(_));
    if mv.vertices.as_ref() != &verts[..] || mv.indices.as_ref() != &idx[..] {
        bail!("demo mesh did not read back as written");
    }
    Ok(format!(
        "Assets: wrote {} ({}x{} RGBA8 sRGB texture, {} mip levels, {} bytes) and {} ({} vertices, {} \
         indices, {} bytes) atomically, then reloaded each with full verification (length, magic, \
         version, sizes, payload and footer CRC-32): the texture in {:.1} µs with its mip chain \
         split into levels, the mesh in {:.1} µs with its vertices {}.",
        tex_path.display(),
        w,
        h,
        tv.level_count(),
        tex.file_size(),
        mesh_path.display(),
        mv.vertices.len(),
        mv.indices.len(),
        mesh.file_size(),
        tex_time.as_secs_f64() * 1e6,
        mesh_time.as_secs_f64() * 1e6,
        if zero_copy { "cast in place from the 32-byte-aligned buffer (zero copy)" } else { "copied" },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(subcommand)]
        cmd: AssetCmd,
    }

    fn parse(args: &[&str]) -> AssetCmd {
        Cli::try_parse_from(std::iter::once("asset").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{args:?}: {e}"))
            .cmd
    }

    #[test]
    fn pack_repack_extract_info_check() {
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n).display().to_string();
        let meta = TextureMetadata {
            width: 2,
            height: 1,
            format: 0,
            mip_levels: 2,
            reserved: 0,
        };
        std::fs::write(p("meta.bin"), meta.to_bytes()).unwrap();
        std::fs::write(p("pixels.bin"), [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]).unwrap();
        let cmd = parse(&[
            "pack",
            "--type",
            "texture",
            "--flags",
            "srgb|mipchain",
            "--metadata",
            &p("meta.bin"),
            "--payload",
            &p("pixels.bin"),
            &p("t.caf"),
        ]);
        assert_eq!(run(cmd).unwrap(), 0);
        let want = caf::AssetWriter::new(AssetType::TEXTURE)
            .flags(CafFlags(0x0C))
            .metadata(&meta.to_bytes())
            .payload(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
            .to_vec();
        assert_eq!(std::fs::read(p("t.caf")).unwrap(), want);

        // Numbers work as well as names.
        assert_eq!(
            run(parse(&[
                "pack",
                "--type",
                "1",
                "--flags",
                "0x0c",
                "--metadata",
                &p("meta.bin"),
                "--payload",
                &p("pixels.bin"),
                &p("n.caf")
            ]))
            .unwrap(),
            0
        );
        assert_eq!(std::fs::read(p("n.caf")).unwrap(), want);
        assert!(Cli::try_parse_from(["asset", "pack", "--type", "sprite", "x.caf"]).is_err());
        assert!(Cli::try_parse_from([
            "asset", "pack", "--type", "mesh", "--flags", "shiny", "x.caf"
        ])
        .is_err());

        assert_eq!(
            run(parse(&["repack", &p("t.caf"), &p("r.caf")])).unwrap(),
            0
        );
        assert_eq!(std::fs::read(p("r.caf")).unwrap(), want);

        assert_eq!(
            run(parse(&[
                "extract",
                &p("t.caf"),
                "--metadata",
                &p("m.out"),
                "--payload",
                &p("p.out")
            ]))
            .unwrap(),
            0
        );
        assert_eq!(std::fs::read(p("m.out")).unwrap(), meta.to_bytes());
        assert_eq!(std::fs::read(p("p.out")).unwrap().len(), 12);
        assert!(run(parse(&["extract", &p("t.caf")])).is_err());

        assert_eq!(run(parse(&["info", &p("t.caf")])).unwrap(), 0);
        assert_eq!(run(parse(&["info", "--json", &p("t.caf")])).unwrap(), 0);
        assert_eq!(
            run(parse(&["check", &p("t.caf"), &p("r.caf"), "--typed"])).unwrap(),
            0
        );

        let mut bad = want.clone();
        bad[60] ^= 1;
        std::fs::write(p("bad.caf"), &bad).unwrap();
        assert_eq!(
            run(parse(&["info", &p("bad.caf")])).unwrap(),
            1,
            "info describes but fails"
        );
        assert_eq!(
            run(parse(&["check", &p("t.caf"), &p("bad.caf")])).unwrap(),
            1
        );
        assert_eq!(run(parse(&["check", "--json", &p("bad.caf")])).unwrap(), 1);
        assert!(run(parse(&["repack", &p("bad.caf"), &p("x.caf")])).is_err());
        std::fs::write(p("short.caf"), [0xFE, 0xCA]).unwrap();
        assert_eq!(run(parse(&["info", &p("short.caf")])).unwrap(), 1);
        assert!(run(parse(&["check", &p("missing.caf")])).unwrap() == 1);
    }

    #[test]
    fn info_json_has_the_documented_fields() {
        let bytes = caf::AssetWriter::new(AssetType::MESH)
            .metadata(&MeshMetadata::default().to_bytes())
            .to_vec();
        let asset = Asset::parse(&bytes).unwrap();
        let mut j = json!({});
        let mut lines = Vec::new();
        header_fields(&asset.header, &mut j, &mut lines);
        for k in [
            "type",
            "flags",
            "version_major",
            "version_minor",
            "metadata_size",
            "data_size",
            "payload_crc",
            "type_name",
            "flag_names",
        ] {
            assert!(j.get(k).is_some(), "{k}");
        }
        assert_eq!(j["type_name"], "mesh");
        assert_eq!(
            metadata_json(AssetType::MESH, asset.metadata).unwrap()["vertex_count"],
            0
        );
        assert!(typed_summary(&asset).unwrap().is_ok());
    }

    #[test]
    fn demo_roundtrip_writes_and_reloads() {
        let dir = tempfile::tempdir().unwrap();
        let report = demo_roundtrip(dir.path()).unwrap();
        assert!(
            report.contains("demo_texture.caf") && report.contains("7 mip levels"),
            "{report}"
        );
        let l = LoadedAsset::open(&dir.path().join("demo_cube.caf")).unwrap();
        assert_eq!(MeshView::from_asset(&l.asset()).unwrap().vertices.len(), 24);
    }

    #[test]
    fn check_agrees_with_the_golden_verdicts() {
        let Some(dir) = voxcaf_golden::caf() else {
            return;
        };
        let manifest = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
        let (mut good, mut bad) = (Vec::new(), Vec::new());
        for line in manifest.lines().skip(1) {
            let path = line.split('\t').next().unwrap();
            let valid = !path.starts_with("invalid/") || path.ends_with("_VALID.caf");
            if valid { &mut good } else { &mut bad }.push(dir.join(path));
        }
        assert_eq!(check(&good, false, true).unwrap(), 0);
        for f in &bad {
            assert_eq!(
                check(std::slice::from_ref(f), false, true).unwrap(),
                1,
                "{}",
                f.display()
            );
            assert_eq!(info(f, true).unwrap(), 1, "{}", f.display());
        }
    }
}
