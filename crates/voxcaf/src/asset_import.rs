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

mod build;
mod watch;
mod worker;
pub use build::demo_build;
use build::BuildArgs;

/// Conversion commands.
#[derive(Subcommand)]
pub enum ImportCmd {
    #[command(verbatim_doc_comment)]
    /// Convert one source file (PNG/JPEG/TGA/BMP/GIF/WebP/HDR/EXR/KTX2, WAV/OGG/FLAC/MP3,
    /// OBJ/glTF/GLB, GLSL/WGSL/SPIR-V, TTF/OTF/TTC) into a .caf asset. The type follows from the
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
    #[command(verbatim_doc_comment)]
    /// Convert every source under SRC_DIR into a mirrored tree of .caf files in OUT_DIR, in
    /// parallel, with OUT_DIR/manifest.json. Only sources whose content or settings changed
    /// are converted again. Exit code 1 if any source failed.
    ///
    /// Examples:
    ///   voxcaf asset build assets/ build/assets --jobs 4
    ///   voxcaf asset build assets/ build/assets --watch
    ///   voxcaf asset build assets/ build/ --pack game.cafpack
    ///   voxcaf asset build assets/ build/ --remote-cache grpc://127.0.0.1:50051
    ///   voxcaf asset build assets/ build/ --remote-cache grpc://ci:50051 --remote-cache-read-only
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
    #[command(verbatim_doc_comment)]
    /// Be a worker of shared builds: take conversion actions from a Remote Execution API
    /// server (its Bots service, e.g. BuildGrid with execution), run each in a fresh
    /// temporary folder holding only its inputs, and upload the outputs; until Ctrl-C.
    /// Builds send work with `asset build --remote-cache URL --remote-exec`. Only actions of
    /// this voxcaf build (its version and conversion code) are taken.
    ///
    /// Examples:
    ///   voxcaf asset worker grpc://127.0.0.1:50051
    ///   voxcaf asset worker grpc://farm:50051 --instance main --id gpu-box-1
    Worker(worker::WorkerArgs),
    /// Run one conversion action of a shared build in the current folder, its input root
    /// (docs/remote-build.md): convert src/PATH with settings.json into out/, with
    /// out/result.json. What a Remote Execution API worker runs; not for everyday use.
    ///
    /// Example (in an action's input root):
    ///   voxcaf asset convert-action settings.json src/textures/hero.png
    #[command(hide = true, verbatim_doc_comment)]
    ConvertAction(ConvertActionArgs),
}

/// `voxcaf asset convert-action` (hidden).
#[derive(Args)]
pub struct ConvertActionArgs {
    /// The settings file: settings.json.
    settings: String,
    /// The source: src/PATH.
    source: String,
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
    /// Fonts: the face of a collection (`.ttc`, `.otc`) to convert, from 0 (default 0, with a
    /// warning when the collection has several). Sidecar key `font_face`.
    #[arg(long, value_name = "N")]
    font_face: Option<u32>,
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
        let given: [(&'static str, AssetKind, bool); 15] = [
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
            ("--font-face", AssetKind::Font, self.font_face.is_some()),
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
            font_face: self.font_face,
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
    /// Shaders: keep only this entry point of the module. Without it, a WGSL module with
    /// several entry points of the --stage asked (or several at all, without --stage) gives one
    /// asset per entry point, written into the output folder as NAME.ENTRY.caf.
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    #[command(flatten)]
    settings: SettingsArgs,
    #[command(flatten)]
    encrypt: EncryptArgs,
    /// Print one JSON object instead of text (one per asset written).
    #[arg(long)]
    json: bool,
}

impl ImportCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            ImportCmd::Convert(a) => a.json,
            ImportCmd::Build(a) => a.json,
            ImportCmd::Export(_) | ImportCmd::ConvertAction(_) | ImportCmd::Worker(_) => false,
        }
    }
}

/// Run a conversion command; returns the exit code.
pub fn run(cmd: ImportCmd) -> Result<u8> {
    match cmd {
        ImportCmd::Convert(a) => convert(a),
        ImportCmd::Build(a) => build::build(a),
        ImportCmd::Export(a) => export(a),
        ImportCmd::Worker(a) => worker::worker(a),
        ImportCmd::ConvertAction(a) => {
            let args = [a.settings, a.source];
            for asset in voxcaf_remote::action::run_conversion(Path::new("."), &args)? {
                println!(
                    "{}/{}: {}",
                    voxcaf_remote::action::OUTPUT_DIR,
                    asset.output,
                    asset.summary
                );
            }
            Ok(0)
        }
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
    if a.output.is_dir() && stdin {
        return Err(o::usage(
            Some(&a.output),
            "standard input has no name to give the output; name the output .caf file",
        ));
    }
    let start = Instant::now();
    let bytes = o::read_input(&a.input)?;
    let entry = a.entry.as_deref();
    let assets = match caf_import::shader::convert_entries(&bytes, &a.input, &settings, entry) {
        // One module, several entry points: each its own asset, never one replacing another.
        Ok(Some(assets)) => {
            let outs = entry_outputs(&a, &assets)?;
            for out in &outs {
                o::check_file(out, &[&a.input], &o::CAF, a.force, false)?;
            }
            outs.into_iter()
                .zip(assets)
                .map(|(out, e)| (out, Some(e.entry), e.converted))
                .collect()
        }
        Ok(None) => {
            let out = single_output(&a);
            if !o::is_dash(&out) {
                o::check_file(&out, &[&a.input], &o::CAF, a.force, false)?;
            }
            match convert_with_progress(&bytes, &a.input, &settings, a.json) {
                Ok(c) => vec![(out, None, c)],
                Err(e) => return Ok(convert_failed(&a, &e)),
            }
        }
        Err(e) => return Ok(convert_failed(&a, &e)),
    };
    let kind = assets.first().map(|(_, _, c)| c.kind);
    let mut notes = kind.map_or_else(Vec::new, |k| a.settings.inapplicable(k, &a.input));
    if a.entry.is_some() && kind != Some(AssetKind::Shader) {
        notes.push("--entry is for shader inputs; ignored".into());
    }
    for note in notes {
        crate::global::note(note);
    }
    for (out, entry, converted) in assets {
        write_converted(&a, &settings, key.as_ref(), &out, entry, &converted, start)?;
    }
    Ok(0)
}

/// The output of a conversion to one asset: the path given, or in the folder given the name
/// `build` gives (with `--stage`, the stage joins the name, so that each stage of a module has
/// its own file).
fn single_output(a: &ConvertArgs) -> PathBuf {
    if !a.output.is_dir() {
        return a.output.to_path_buf();
    }
    let name = Path::new(a.input.file_name().unwrap_or_default());
    match a.settings.stage {
        Some(stage) => a.output.join(format!(
            "{}.{stage}.caf",
            name.file_stem().unwrap_or_default().to_string_lossy()
        )),
        None => a.output.join(caf_import::batch::output_name(name)),
    }
}

/// The outputs of a source split by entry point: `NAME.ENTRY.caf` in the output folder, or
/// the output file given when there is one asset (`--entry`).
fn entry_outputs(
    a: &ConvertArgs,
    assets: &[caf_import::shader::EntryAsset],
) -> Result<Vec<PathBuf>> {
    let stem = a.input.file_stem().unwrap_or_default().to_string_lossy();
    if a.output.is_dir() {
        return Ok(assets
            .iter()
            .map(|e| a.output.join(format!("{stem}.{}.caf", e.entry)))
            .collect());
    }
    if let [_] = assets {
        return Ok(vec![a.output.to_path_buf()]);
    }
    let names: Vec<&str> = assets.iter().map(|e| e.entry.as_str()).collect();
    let what = a.settings.stage.map_or(String::new(), |s| format!("{s} "));
    Err(crate::output::usage(
        Some(&a.output),
        format!(
            "{} has {} {what}entry points ({}), one asset each: give an output folder \
             (they are written as {stem}.ENTRY.caf), or choose one with --entry NAME",
            a.input.display(),
            assets.len(),
            names.join(", ")
        ),
    ))
}

/// Reports a failed conversion of `a.input`; the exit code.
fn convert_failed(a: &ConvertArgs, e: &caf_import::ImportError) -> u8 {
    use crate::output as o;
    if a.json {
        println!("{}", o::error_json(&o::failed(&a.input, e)));
    } else if matches!(e, caf_import::ImportError::Shader { .. }) {
        // Already "file:line:column: message".
        eprintln!("{} {e}", crate::global::label("error"));
    } else {
        let error = crate::global::label("error");
        eprintln!("{error} {}: {e}", a.input.display());
    }
    // The library says what to set; the CLI says which flag sets it.
    if !a.json {
        match e {
            caf_import::ImportError::UnknownType { .. } => {
                eprintln!("hint: pass --type texture|audio|mesh|shader|font|animation")
            }
            caf_import::ImportError::Shader { .. } if e.to_string().contains("stage") => {
                eprintln!("hint: pass --stage vertex|fragment|compute")
            }
            _ => {}
        }
    }
    1
}

/// Writes one asset to `out` (`-`: stdout) and prints it, with its entry point when split.
fn write_converted(
    a: &ConvertArgs,
    settings: &Settings,
    key: Option<&caf::encoded::Key>,
    out: &Path,
    entry: Option<String>,
    converted: &caf_import::Converted,
    start: Instant,
) -> Result<()> {
    use crate::output as o;
    if !a.json {
        for w in &converted.warnings {
            let warning = crate::global::label("warning");
            crate::global::tell!("{warning} {}: {w}", a.input.display());
        }
    }
    let file = converted
        .to_caf_bytes_encoded(&settings.encoding(key))
        .map_err(|e| o::failed(&a.input, e))?;
    if o::is_dash(out) {
        return o::write_stdout(&file);
    }
    o::create_parent(out)?;
    voxcaf_fs::write_atomic(out, &file).map_err(|e| o::failed(out, e))?;
    let size = file.len();
    let header = caf::validate_header_bytes(&file).ok();
    let flags = header.map_or(converted.flags.0, |h| h.flags.0);
    // As written: the default profile pads the metadata to align the payload.
    let metadata_size = header.map_or(converted.metadata.len() as u64, |h| h.metadata_size);
    if a.json {
        let mut j = json!({
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
        });
        if let Some(entry) = entry {
            j["entry"] = json!(entry);
        }
        println!("{j}");
    } else {
        crate::global::say!(
            "{} -> {}: {}{} ({} bytes, {:.1} ms)",
            a.input.display(),
            out.display(),
            converted.summary,
            entry.map_or(String::new(), |e| format!(", entry point {e}")),
            size,
            start.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(())
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
