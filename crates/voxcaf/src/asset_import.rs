//! `voxcaf asset convert|build`: the asset pipeline (`caf-import`) from the command line.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use caf_import::batch::{self, BuildEvent, BuildOptions, BuildReport};
use caf_import::{
    AssetKind, AudioBits, Compress, FontFormat, GpuFormat, MeshNodes, MipFilter, Profile, Settings,
    Stage,
};
use clap::{Args, Subcommand};
use serde_json::json;

use crate::world_args::OutPath;

/// Conversion commands.
#[derive(Subcommand)]
pub enum ImportCmd {
    #[command(verbatim_doc_comment)]
    /// Convert one source file (PNG/JPEG/TGA/BMP/GIF/WebP/HDR/EXR/KTX2, WAV/OGG/FLAC/MP3,
    /// OBJ/glTF/GLB, GLSL/WGSL/SPIR-V, TTF/OTF) into a .caf asset. The type follows from the
    /// extension unless given. A glTF/GLB is a mesh (a skinned scene keeps its skin: joints,
    /// weights, skeleton); `--type animation` writes its animations instead, one clip per glTF
    /// animation, resampled at --anim-rate frames per second and quantised to 16 bits, each
    /// channel with its error bound (`asset info` shows them).
    ///
    /// Examples:
    ///   voxcaf asset convert hero.png hero.caf --mips --gpu-format bc7
    ///   voxcaf asset convert normal.png normal.caf --linear --mips --gpu-format bc5
    ///   voxcaf asset convert hero.png hero_mobile.caf --mips --gpu-format astc4x4
    ///   voxcaf asset convert sky.exr sky.caf --mips
    ///   voxcaf asset convert rock.ktx2 rock.caf
    ///   voxcaf asset convert DejaVuSans.ttf font.caf --charset 32-126,160-255 --size 48
    ///   voxcaf asset convert title.otf title.caf --charset-file strings.txt --font-format msdf
    ///   voxcaf asset convert hero.glb hero.caf                       # mesh (with its skin)
    ///   voxcaf asset convert hero.glb hero.anim.caf --type animation --anim-rate 60
    Convert(ConvertArgs),
    /// Convert every source under SRC_DIR into a mirrored tree of .caf files in OUT_DIR, in
    /// parallel, with OUT_DIR/manifest.json. Only sources whose content or settings changed
    /// are converted again. Exit code 1 if any source failed.
    Build(BuildArgs),
    #[command(verbatim_doc_comment)]
    /// Write a .caf asset back out as files other tools open: a texture as one PNG per mip
    /// level (OUT-mip0.png, OUT-mip1.png, ...; with --level N only that level, to OUT; float
    /// formats as OpenEXR), audio as a WAV file, a shader as its SPIR-V (OUT, byte for byte as
    /// stored) plus the SPIRV-Tools disassembly (OUT with extension .spvasm), a font as its
    /// atlas PNG (OUT) plus a JSON of metrics (OUT with extension .json), a mesh as glTF 2.0:
    /// OUT.glb, or OUT.gltf with its buffer in OUT.bin (one primitive per sub-mesh, placeholder
    /// materials at the stored indices, vertex colours and second UV set, the skin as joint
    /// nodes; with --anim the clips of an Animation asset on those joints), an Animation asset
    /// alone as glTF animations on one empty node per animated node. The asset is verified
    /// first; COMPRESSED and ENCRYPTED payloads are decoded. Other asset types are refused.
    ///
    /// Examples:
    ///   voxcaf asset export build/hero.caf out/hero.png        # out/hero-mip0.png, ...
    ///   voxcaf asset export build/hero.caf hero-small.png --level 2
    ///   voxcaf asset export build/jump.caf jump.wav
    ///   voxcaf asset export build/sprite.frag.caf sprite.frag.spv   # + sprite.frag.spvasm
    ///   voxcaf asset export build/ship.caf ship.glb
    ///   voxcaf asset export build/ship.caf ship.gltf           # + ship.bin
    ///   voxcaf asset export build/hero.caf hero.glb --anim build/hero.anim.caf
    ///   voxcaf asset export --key-file game.key build/secret.caf secret.wav
    Export(ExportArgs),
}

/// `voxcaf asset export`.
#[derive(Args)]
#[command(mut_arg("output", |a| a.help(
    "The output file, or for a texture's mip levels the name they are numbered from; or give \
     it with -o"
)))]
pub struct ExportArgs {
    /// The .caf file (`-` reads standard input).
    input: PathBuf,
    #[command(flatten)]
    output: OutPath,
    /// Textures: write only mip level N (0 is the full size), to OUTPUT itself.
    #[arg(long, value_name = "N")]
    level: Option<u32>,
    /// Meshes: an Animation .caf whose clips join the glTF, on the mesh's joints.
    #[arg(long, value_name = "ANIM.caf")]
    anim: Option<PathBuf>,
    /// Replace existing output files.
    #[arg(long)]
    force: bool,
    /// Key of an encrypted asset (else VOXCAF_KEY).
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
}

/// Settings shared by `convert` and `build`.
#[derive(Args, Clone)]
pub struct SettingsArgs {
    /// Textures: store a full mip chain down to 1x1.
    #[arg(long)]
    mips: bool,
    /// Textures: mip filter, `linear` (area average in linear light for sRGB data) or `box`
    /// (the original's 2x2 floor average).
    #[arg(long, value_name = "FILTER", default_value = "linear")]
    mip_filter: MipFilter,
    /// Textures: the data is sRGB colour (the default).
    #[arg(long, conflicts_with = "linear")]
    srgb: bool,
    /// Textures: the data is linear (normal maps, masks): no SRGB flag, mips averaged as is.
    #[arg(long)]
    linear: bool,
    /// Textures: GPU format to store: rgba8, bc1, bc3, bc5 (normal maps: red and green),
    /// bc7, or astc4x4 (ASTC 4x4 LDR). Unset keeps the source's precision (16-bit PNG as 16-bit, HDR/EXR
    /// as half floats). KTX2 inputs are passed through and refuse it.
    #[arg(long, value_name = "FORMAT")]
    gpu_format: Option<GpuFormat>,
    /// `default`, or `original` to reproduce the original converters byte for byte.
    #[arg(long, default_value = "default")]
    profile: Profile,
    /// Audio: output bits per sample, 8, 16, 32 or `source` (keep 8/16, else 32).
    #[arg(long, value_name = "BITS", default_value = "16")]
    bits: AudioBits,
    /// Shaders: stage for .glsl files or modules with several entry points
    /// (vertex, fragment, compute).
    #[arg(long)]
    stage: Option<Stage>,
    /// Payload compression: `zstd`, `lz4` (fastest to load) or `none` (the default: readable
    /// by the original engine). A sidecar's `compress` key overrides it per asset.
    #[arg(long, value_name = "CODEC", default_value = "none")]
    compress: Compress,
    /// zstd compression level, 1 (fast) to 22 (small); default 3.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    level: Option<i32>,
    /// With --encrypt: `xchacha20-poly1305` (the default; constant-time on every CPU) or
    /// `aes-256-gcm` (faster to decrypt on x86-64 with AES-NI). A
    /// sidecar's `cipher` key overrides it per asset.
    #[arg(long, value_name = "CIPHER", requires = "encrypt")]
    cipher: Option<caf::encoded::Cipher>,
    /// glTF: `flatten` (one sub-mesh per material, the default) or `keep` (one sub-mesh per
    /// node and material). Node transforms are applied either way. Sidecar key `mesh_nodes`.
    #[arg(long, value_name = "MODE", default_value = "flatten")]
    mesh_nodes: MeshNodes,
    /// Fonts: the characters to put in the atlas, as code point ranges (`32-126,160-255`;
    /// decimal, 0x.. or U+..). Default: printable ASCII and Latin-1.
    #[arg(long, value_name = "RANGES", conflicts_with = "charset_file")]
    charset: Option<String>,
    /// Fonts: a UTF-8 text file whose characters (control characters aside) make the set.
    #[arg(long, value_name = "FILE")]
    charset_file: Option<PathBuf>,
    /// Fonts: atlas pixels per em, 4 to 512 (default 32).
    #[arg(long, value_name = "PX")]
    size: Option<u32>,
    /// Fonts: total distance range of the field in pixels, 1 to 64 (default 4).
    #[arg(long, value_name = "PX")]
    sdf_range: Option<u32>,
    /// Fonts: atlas format, `sdf` (1 channel), `msdf` (RGB, sharp corners) or `mtsdf`
    /// (MSDF plus the true distance in alpha).
    #[arg(long, value_name = "FORMAT", default_value = "sdf")]
    font_format: FontFormat,
    /// Animations (--type animation): frames per second the clips are resampled at, 1 to
    /// 1000 (default 30). Sidecar key `anim_rate`.
    #[arg(long, value_name = "HZ")]
    anim_rate: Option<u32>,
}

/// Encryption options shared by `convert` and `build`.
#[derive(Args, Clone)]
pub struct EncryptArgs {
    /// Encrypt payloads (XChaCha20-Poly1305, or the --cipher given) with the key of --key-file
    /// or, without it, of the VOXCAF_KEY environment variable (64 hex digits; make one with
    /// `voxcaf asset keygen`).
    #[arg(long)]
    encrypt: bool,
    /// File holding the key (64 hex digits). Keys are never given on the command line.
    #[arg(long, value_name = "FILE", requires = "encrypt")]
    key_file: Option<PathBuf>,
}

impl EncryptArgs {
    /// The key, when encrypting; refused with `--profile original`, whose engine reads neither
    /// compressed nor encrypted payloads.
    fn key(&self, settings: &Settings) -> Result<Option<caf::encoded::Key>> {
        if !self.encrypt {
            return Ok(None);
        }
        if settings.profile == Profile::Original {
            return Err(crate::output::usage(
                None,
                "--profile original writes what the original engine reads, and it reads no \
                 encrypted payload: drop --encrypt, or use the default profile",
            ));
        }
        crate::keys::load(self.key_file.as_deref(), true)
    }
}

impl SettingsArgs {
    /// Notes for the flags given (not at their defaults) that do nothing for `input`, an
    /// asset of `kind`.
    fn inapplicable(&self, kind: AssetKind, input: &Path) -> Vec<String> {
        let given: [(&'static str, AssetKind, bool); 14] = [
            ("--mips", AssetKind::Texture, self.mips),
            (
                "--mip-filter",
                AssetKind::Texture,
                self.mip_filter != MipFilter::default(),
            ),
            ("--srgb", AssetKind::Texture, self.srgb),
            ("--linear", AssetKind::Texture, self.linear),
            (
                "--gpu-format",
                AssetKind::Texture,
                self.gpu_format.is_some(),
            ),
            (
                "--bits",
                AssetKind::Audio,
                self.bits != AudioBits::default(),
            ),
            ("--stage", AssetKind::Shader, self.stage.is_some()),
            (
                "--mesh-nodes",
                AssetKind::Mesh,
                self.mesh_nodes != MeshNodes::default(),
            ),
            ("--charset", AssetKind::Font, self.charset.is_some()),
            (
                "--charset-file",
                AssetKind::Font,
                self.charset_file.is_some(),
            ),
            ("--size", AssetKind::Font, self.size.is_some()),
            ("--sdf-range", AssetKind::Font, self.sdf_range.is_some()),
            (
                "--font-format",
                AssetKind::Font,
                self.font_format != FontFormat::default(),
            ),
            (
                "--anim-rate",
                AssetKind::Animation,
                self.anim_rate.is_some(),
            ),
        ];
        let mut notes: Vec<String> = given
            .into_iter()
            .filter(|&(_, applies_to, set)| set && applies_to != kind)
            .map(|(flag, applies_to, _)| {
                format!(
                    "{flag} is for {applies_to} inputs and does nothing for {} ({kind}); ignored",
                    input.display()
                )
            })
            .collect();
        if self.level.is_some() && self.compress != Compress::Zstd {
            notes.push(
                "--level is zstd's level and does nothing without --compress zstd; ignored".into(),
            );
        }
        notes
    }

    fn settings(&self, kind: Option<AssetKind>) -> Result<Settings> {
        // The set is stored in canonical range form, so the build hash follows the characters,
        // not how they were written (and a bad set fails before any file is read).
        let charset = match (&self.charset, &self.charset_file) {
            (Some(spec), _) => Some(caf_import::font::Charset::parse(spec)?.to_spec()),
            (None, Some(path)) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("reading the character set {}", path.display()))?;
                let set = caf_import::font::Charset::from_text(&text)
                    .with_context(|| format!("character set file {}", path.display()))?;
                Some(set.to_spec())
            }
            (None, None) => None,
        };
        if self.profile == Profile::Original && self.compress != Compress::None {
            return Err(crate::output::usage(
                None,
                "--profile original writes what the original engine reads, and it reads no \
                 compressed payload: drop --compress, or use the default profile",
            ));
        }
        Ok(Settings {
            kind,
            profile: self.profile,
            mips: self.mips,
            mip_filter: self.mip_filter,
            srgb: if self.linear {
                Some(false)
            } else if self.srgb {
                Some(true)
            } else {
                None
            },
            gpu_format: self.gpu_format,
            bits: self.bits,
            stage: self.stage,
            compress: self.compress,
            level: self.level,
            cipher: caf_import::CipherSetting(self.cipher.unwrap_or_default()),
            mesh_nodes: self.mesh_nodes,
            charset,
            font_size: self.size,
            sdf_range: self.sdf_range,
            font_format: self.font_format,
            anim_rate: self.anim_rate,
        })
    }
}

/// `voxcaf asset convert`.
#[derive(Args)]
#[command(mut_arg("output", |a| a.help(
    "Output .caf file, or an existing folder to write the name `build` gives inside it \
     (`hero.png` -> `hero.caf`, `sprite.vert` -> `sprite.vert.caf`; with --stage, the stage \
     joins the name, `lit.wgsl` -> `lit.vertex.caf`, so each stage of a module has its own \
     file); `-` writes standard output; missing folders are created; or give it with -o"
)))]
pub struct ConvertArgs {
    /// Source file (`-` reads standard input and then needs --type).
    input: PathBuf,
    #[command(flatten)]
    output: OutPath,
    /// Overwrite an existing output that is not a .caf asset.
    #[arg(long)]
    force: bool,
    /// Asset type instead of the one the extension implies: texture, audio, mesh, shader, font,
    /// or animation (the animations of a glTF/GLB).
    #[arg(long = "type", value_name = "TYPE")]
    kind: Option<AssetKind>,
    #[command(flatten)]
    settings: SettingsArgs,
    #[command(flatten)]
    encrypt: EncryptArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// `voxcaf asset build`.
#[derive(Args)]
#[command(mut_arg("output", |a| a.value_name("OUT_DIR").help(
    "Output folder (created if missing, with its parents), or give it with -o; it must not be \
     SRC_DIR or lie inside it, and an existing folder with files in it must be an earlier \
     build output (holding its manifest.json) unless --force"
)))]
#[command(mut_arg("out", |a| a.value_name("OUT_DIR")))]
pub struct BuildArgs {
    /// Folder of source files (sidecars `<file>.toml` override settings per asset).
    src_dir: PathBuf,
    #[command(flatten)]
    out_dir: OutPath,
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// Convert everything, even what is up to date; also build into an existing folder that is
    /// not a build output.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    settings: SettingsArgs,
    #[command(flatten)]
    encrypt: EncryptArgs,
    /// After a build without failures, also pack OUT_DIR into this .cafpack archive (as
    /// `asset pack-dir OUT_DIR PACK` does; not inside OUT_DIR).
    #[arg(long, value_name = "PACK")]
    pack: Option<PathBuf>,
    /// Print a JSON summary instead of text.
    #[arg(long)]
    json: bool,
}

impl ImportCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            ImportCmd::Convert(a) => a.json,
            ImportCmd::Build(a) => a.json,
            ImportCmd::Export(_) => false,
        }
    }
}

/// Run a conversion command; returns the exit code.
pub fn run(cmd: ImportCmd) -> Result<u8> {
    match cmd {
        ImportCmd::Convert(a) => convert(a),
        ImportCmd::Build(a) => build(a),
        ImportCmd::Export(a) => export(a),
    }
}

fn export(a: ExportArgs) -> Result<u8> {
    use crate::output as o;
    use caf_import::export::{self, ExportError, ExportOptions};
    o::no_dash(&a.output, "the export output")?;
    let key = crate::keys::load(a.key_file.as_deref(), false)?;
    let bytes = o::read_input(&a.input)?;
    if let Some(p) = &a.anim {
        o::no_dash(p, "--anim")?;
    }
    let anim = a.anim.as_deref().map(o::read_input).transpose()?;
    let opts = ExportOptions {
        level: a.level,
        key: key.as_ref(),
        animation: anim.as_deref(),
    };
    let files = export::export(bytes, &a.output, &opts).map_err(|e| match e {
        ExportError::OptionNotApplicable { .. } | ExportError::BadOutput { .. } => {
            o::usage(Some(&a.input), e.to_string())
        }
        ExportError::WrongExtension { .. } => o::usage(Some(&a.output), e.to_string()),
        // Named after the --anim file, which is the one at fault.
        ExportError::AnimationInput(_) => o::failed(a.anim.as_deref().unwrap_or(&a.input), e),
        e => o::failed(&a.input, e),
    })?;
    // Every output is checked before any is written.
    let inputs: Vec<&std::path::Path> = std::iter::once(a.input.as_path())
        .chain(a.anim.as_deref())
        .collect();
    for f in &files {
        o::check_file(&f.path, &inputs, &o::RAW, a.force, false)?;
    }
    export::write_files(&files).map_err(|e| o::failed(&a.input, e))?;
    for f in &files {
        crate::global::say!(
            "wrote {} ({}, {} bytes)",
            f.path.display(),
            f.what,
            f.bytes.len()
        );
    }
    Ok(0)
}

fn convert(a: ConvertArgs) -> Result<u8> {
    use crate::output as o;
    let settings = a.settings.settings(a.kind)?;
    let key = a.encrypt.key(&settings)?;
    let stdin = o::is_dash(&a.input);
    if stdin && a.kind.is_none() {
        return Err(o::usage(
            None,
            "standard input has no extension to tell the type; pass --type texture|audio|mesh|shader|font|animation",
        ));
    }
    let out = if a.output.is_dir() {
        if stdin {
            return Err(o::usage(
                Some(&a.output),
                "standard input has no name to give the output; name the output .caf file",
            ));
        }
        let name = Path::new(a.input.file_name().unwrap_or_default());
        match a.settings.stage {
            // One module, several stages: each its own asset, never one replacing another.
            Some(stage) => a.output.join(format!(
                "{}.{stage}.caf",
                name.file_stem().unwrap_or_default().to_string_lossy()
            )),
            None => a.output.join(caf_import::batch::output_name(name)),
        }
    } else {
        a.output.to_path_buf()
    };
    if !o::is_dash(&out) {
        o::check_file(&out, &[&a.input], &o::CAF, a.force, false)?;
    }
    let start = Instant::now();
    let result = match o::read_input(&a.input) {
        Ok(bytes) => convert_with_progress(&bytes, &a.input, &settings, a.json),
        Err(e) => return Err(e),
    };
    let converted = match result {
        Ok(c) => {
            for note in a.settings.inapplicable(c.kind, &a.input) {
                crate::global::note(note);
            }
            c
        }
        Err(e) => {
            if a.json {
                println!("{}", o::error_json(&o::failed(&a.input, &e)));
            } else if matches!(e, caf_import::ImportError::Shader { .. }) {
                // Already "file:line:column: message".
                eprintln!("{} {e}", crate::global::label("error"));
            } else {
                let error = crate::global::label("error");
                eprintln!("{error} {}: {e}", a.input.display());
            }
            // The library says what to set; the CLI says which flag sets it.
            if !a.json {
                match &e {
                    caf_import::ImportError::UnknownType { .. } => {
                        eprintln!("hint: pass --type texture|audio|mesh|shader|font|animation")
                    }
                    caf_import::ImportError::Shader { .. } if e.to_string().contains("stage") => {
                        eprintln!("hint: pass --stage vertex|fragment|compute")
                    }
                    _ => {}
                }
            }
            return Ok(1);
        }
    };
    if !a.json {
        for w in &converted.warnings {
            let warning = crate::global::label("warning");
            crate::global::tell!("{warning} {}: {w}", a.input.display());
        }
    }
    let file = converted
        .to_caf_bytes_encoded(&settings.encoding(key.as_ref()))
        .map_err(|e| o::failed(&a.input, e))?;
    if o::is_dash(&out) {
        return o::write_stdout(&file).map(|_| 0);
    }
    o::create_parent(&out)?;
    voxcaf_fs::write_atomic(&out, &file).map_err(|e| o::failed(&out, e))?;
    let size = file.len();
    let header = caf::validate_header_bytes(&file).ok();
    let flags = header.map_or(converted.flags.0, |h| h.flags.0);
    // As written: the default profile pads the metadata to align the payload.
    let metadata_size = header.map_or(converted.metadata.len() as u64, |h| h.metadata_size);
    if a.json {
        println!(
            "{}",
            json!({
                "ok": true,
                "input": a.input.display().to_string(),
                "output": out.display().to_string(),
                "type": converted.kind.name(),
                "flags": flags,
                "metadata_size": metadata_size,
                "payload_size": converted.payload.len(),
                "file_size": size,
                "payload_crc32": caf::crc32(&converted.payload),
                "summary": converted.summary,
                "warnings": converted.warnings,
                "settings": settings.to_json(),
            })
        );
    } else {
        crate::global::say!(
            "{} -> {}: {} ({} bytes, {:.1} ms)",
            a.input.display(),
            out.display(),
            converted.summary,
            size,
            start.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(0)
}

fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 10 << 20 => format!("{:.1} MiB", n as f64 / (1 << 20) as f64),
        n if n >= 10 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} bytes"),
    }
}

fn build(a: BuildArgs) -> Result<u8> {
    crate::output::no_dash(&a.src_dir, "a source folder")?;
    crate::output::check_folder(&a.out_dir, &a.src_dir, a.force)?;
    if let Some(p) = &a.pack {
        crate::asset::check_pack_output(&a.out_dir, p, a.force)?;
        crate::output::check_file(
            p,
            &[a.src_dir.as_path()],
            &crate::asset::PACK,
            a.force,
            false,
        )?;
    }
    let settings = a.settings.settings(None)?;
    let key = a.encrypt.key(&settings)?;
    let opts = BuildOptions {
        settings,
        jobs: a.jobs.unwrap_or(0),
        force: a.force,
        key,
    };
    // `-q` prints no progress, per-asset lines or summary (failures still print).
    let quiet = a.json || crate::global::quiet();
    let tty = !quiet && std::io::stderr().is_terminal();
    let bar = indicatif::ProgressBar::hidden();
    if tty {
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{bar:30}] {pos}/{len} {elapsed_precise} {wide_msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
    }
    // Ctrl-C, SIGTERM or a closed stdout pipe stop the build between assets; it still writes
    // the manifest. Prints must not panic on a broken pipe, hence `say`.
    let stop = voxcaf_fs::signals::StopOnSignal::new().with_broken_pipe()?;
    let say = |line: std::fmt::Arguments<'_>| {
        let _ = writeln!(std::io::stdout(), "{line}");
    };
    let on_event = |ev: &BuildEvent<'_>| match ev {
        BuildEvent::Started { total } => bar.set_length(*total as u64),
        BuildEvent::Converted { entry } => {
            bar.inc(1);
            if tty {
                bar.set_message(entry.source.clone());
            } else if !quiet {
                say(format_args!(
                    "converted {} -> {}: {}",
                    entry.source, entry.output, entry.summary
                ));
            }
        }
        BuildEvent::Skipped { entry } => {
            bar.inc(1);
            if !tty && !quiet {
                say(format_args!("up to date {}", entry.source));
            }
        }
        BuildEvent::Failed { failure } => {
            bar.inc(1);
            if tty {
                bar.println(format!("FAILED {}: {}", failure.source, failure.error));
            } else if !quiet {
                say(format_args!("FAILED {}: {}", failure.source, failure.error));
            }
        }
    };
    let report = batch::build_until(&a.src_dir, &a.out_dir, &opts, &stop.flag(), &on_event);
    bar.finish_and_clear();
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            if a.json {
                println!("{}", crate::output::error_json(&e.into()));
            } else {
                eprintln!("{} {e}", crate::global::label("error"));
            }
            return Ok(1);
        }
    };
    // The pack is written only from a complete build without failures.
    let packed = match &a.pack {
        Some(p) if report.ok() && !report.interrupted => {
            Some(crate::asset::write_dir_pack(&a.out_dir, p).map(|(n, size)| (p, n, size))?)
        }
        _ => None,
    };
    if a.json {
        say(format_args!(
            "{}",
            json!({
                "pack": packed.map(|(p, n, size)| json!({
                    "path": p.display().to_string(), "assets": n, "bytes": size,
                })),
                "ok": report.ok() && !report.interrupted,
                "interrupted": report.interrupted,
                "assets": report.manifest.assets.len(),
                "converted": report.converted,
                "skipped": report.skipped,
                "removed": report.removed,
                "failed": report.manifest.failures,
                "ignored": report.manifest.ignored,
                "bytes_written": report.bytes_written,
                "elapsed_ms": report.elapsed.as_secs_f64() * 1000.0,
                "manifest": a.out_dir.join(batch::MANIFEST_NAME).display().to_string(),
            })
        ));
    } else {
        if !quiet {
            for i in &report.manifest.ignored {
                say(format_args!("ignored {}: {}", i.path, i.message));
            }
            say(format_args!("{}", summary(&report, &a.out_dir)));
        }
        for f in &report.manifest.failures {
            eprintln!("failed: {}: {}", f.source, f.error);
        }
        if let Some((p, n, size)) = packed.filter(|_| !quiet) {
            say(format_args!(
                "wrote {} ({n} assets, {size} bytes)",
                p.display()
            ));
        } else if let Some(p) = a.pack.as_ref().filter(|_| packed.is_none()) {
            eprintln!(
                "not packed: {} (the build had failures or was stopped)",
                p.display()
            );
        }
    }
    if report.interrupted {
        if !stop.broken_pipe() {
            eprintln!(
                "interrupted: the manifest lists the {} assets finished; run the build again to complete it",
                report.manifest.assets.len()
            );
        }
        // The conventional 128 + signal: 130 for Ctrl-C, 143 for SIGTERM, 141 for SIGPIPE.
        return Ok(match voxcaf_fs::signals::exit_code() {
            _ if stop.broken_pipe() => 141,
            Some(code) => code,
            None => 130,
        });
    }
    Ok(if report.ok() { 0 } else { 1 })
}

fn summary(r: &BuildReport, out: &Path) -> String {
    let failed = r.manifest.failures.len();
    format!(
        "{} asset{} in {}: {} converted, {} up to date, {} failed, {} ignored{}; {} written in {:.2} s",
        r.manifest.assets.len(),
        if r.manifest.assets.len() == 1 {
            ""
        } else {
            "s"
        },
        out.display(),
        r.converted,
        r.skipped,
        failed,
        r.manifest.ignored.len(),
        if r.removed > 0 {
            format!(", {} stale removed", r.removed)
        } else {
            String::new()
        },
        human_bytes(r.bytes_written),
        r.elapsed.as_secs_f64()
    )
}

/// Demo hook: write a small source tree into `src_dir` (a PNG texture with a sidecar asking
/// for mips, a WAV sound, an OBJ mesh, a GLSL vertex and fragment shader), build it into
/// `out_dir`, build again to show the content-hash skip, and return a short report.
pub fn demo_build(src_dir: &Path, out_dir: &Path) -> Result<String> {
    let written = voxcaf_samples::write_source_tree(src_dir)
        .with_context(|| format!("writing the sample sources to {}", src_dir.display()))?;
    // Shaders need the Khronos programs (Debian packages glslang-tools and spirv-tools); a
    // machine without them still gets the rest of the demo, and is told why.
    let mut note = None;
    if !caf_import::shader::tools_available() {
        for rel in written.iter().filter(|r| r.starts_with("shaders/")) {
            let p = src_dir.join(rel);
            std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
        }
        note = Some(format!(
            "note: shaders left out: importing them runs {} and spirv-val/spirv-dis (Debian \
             packages glslang-tools and spirv-tools), which are not installed",
            caf_import::shader::GLSLANG
        ));
    }

    let opts = BuildOptions::default();
    let first = batch::build(src_dir, out_dir, &opts, &|_| {})?;
    if !first.ok() {
        let f = &first.manifest.failures[0];
        anyhow::bail!("demo asset build failed: {}: {}", f.source, f.error);
    }
    let second = batch::build(src_dir, out_dir, &opts, &|_| {})?;
    let total: u64 = first.manifest.assets.iter().map(|e| e.file_size).sum();
    let mut lines = vec![format!(
        "asset build: {} assets -> {} ({} bytes) in {:.1} ms; rebuild skipped {}/{} (content hash unchanged)",
        first.manifest.assets.len(),
        out_dir.display(),
        total,
        first.elapsed.as_secs_f64() * 1000.0,
        second.skipped,
        second.manifest.assets.len()
    )];
    for e in &first.manifest.assets {
        lines.push(format!("  {} -> {}: {}", e.source, e.output, e.summary));
    }
    lines.extend(note);
    Ok(lines.join("\n"))
}

/// `caf_import::convert` with a progress bar of the block encoders (BC1/3/5/7, ASTC) on standard
/// error when it is a terminal (an 8192² BC7 texture takes a minute per core).
fn convert_with_progress(
    bytes: &[u8],
    input: &Path,
    settings: &caf_import::Settings,
    json: bool,
) -> caf_import::Result<caf_import::Converted> {
    let encodes = settings
        .gpu_format
        .is_some_and(|g| g != caf_import::GpuFormat::Rgba8);
    if json || !encodes || crate::global::quiet() || !std::io::stderr().is_terminal() {
        return caf_import::convert(bytes, input, settings);
    }
    let bar = indicatif::ProgressBar::new(0).with_style(
        indicatif::ProgressStyle::with_template("[{bar:30}] {pos}/{len} blocks, {eta} left {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(format!("encoding {}", input.display()));
    let shown = bar.clone();
    let progress = std::sync::Arc::new(move |blocks: u64, total: u64| {
        shown.set_length(total);
        shown.inc(blocks);
    });
    let result = caf_import::texture_gpu::with_encode_progress(progress, || {
        caf_import::convert(bytes, input, settings)
    });
    bar.finish_and_clear();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_exits_1_naming_the_broken_file_and_demo_skips_on_rebuild() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        let out = tmp.path().join("out");
        let report = demo_build(&src, &out).unwrap();
        assert!(report.contains("rebuild skipped 5/5"), "{report}");
        std::fs::write(src.join("textures/broken.png"), b"not a png").unwrap();
        let args = BuildArgs {
            src_dir: src.clone(),
            out_dir: out.clone().into(),
            jobs: Some(2),
            force: false,
            settings: SettingsArgs {
                mips: false,
                mip_filter: MipFilter::Linear,
                srgb: false,
                linear: false,
                gpu_format: None,
                profile: Profile::Default,
                bits: AudioBits::B16,
                stage: None,
                compress: Compress::None,
                level: None,
                cipher: None,
                mesh_nodes: MeshNodes::Flatten,
                charset: None,
                charset_file: None,
                size: None,
                sdf_range: None,
                font_format: FontFormat::Sdf,
                anim_rate: None,
            },
            encrypt: EncryptArgs {
                encrypt: false,
                key_file: None,
            },
            pack: None,
            json: true,
        };
        assert_eq!(build(args).unwrap(), 1);
        let m = batch::Manifest::read(&out.join(batch::MANIFEST_NAME)).unwrap();
        assert_eq!(m.failures.len(), 1);
        assert_eq!(m.failures[0].source, "textures/broken.png");
        assert_eq!(m.assets.len(), 5);
    }
}
