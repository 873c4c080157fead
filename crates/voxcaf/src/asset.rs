//! `voxcaf asset info|check|pack|repack|extract`: the `.caf` container from the command line.

use std::path::{Path, PathBuf};

use anyhow::Result;
use caf::{AssetType, CafFlags, Description, LoadedAsset, Verdict};
use clap::Subcommand;

/// Container-level asset commands.
#[derive(Subcommand)]
pub enum AssetCmd {
    /// Describe a .caf file: header, decoded metadata, offsets, both CRCs and whether they
    /// match. Damaged files are described too (exit code 1).
    Info {
        /// The .caf files (`-` reads standard input); a folder stands for every .caf file
        /// below it.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one JSON object instead of text (one per line for several files).
        #[arg(long)]
        json: bool,
        /// Key of encrypted assets (else VOXCAF_KEY), to decode and describe their payload.
        #[arg(long, value_name = "FILE")]
        key_file: Option<PathBuf>,
    },
    /// Verify .caf files (length, magic, version, sizes, payload CRC, footer CRC and, for
    /// COMPRESSED or ENCRYPTED payloads, the block index, every block's CRC and tag and the
    /// plain CRC, streamed in bounded memory); exit 0 only if every file is valid. Prints one
    /// line per file naming the failed check. A .cafpack archive is checked whole: its index,
    /// then every member (one line each, named PACK:PATH).
    ///
    /// Examples:
    ///   voxcaf asset check build/
    ///   voxcaf asset check --key-file game.key build/hero.caf
    ///   voxcaf asset check --typed game.cafpack
    Check {
        /// Files to check (.caf or .cafpack; `-` reads standard input); a folder stands for
        /// every .caf file below it (a build output).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also decode each known asset type (texture levels, audio, mesh, shader, scene, prefab,
        /// font).
        #[arg(long)]
        typed: bool,
        /// Print a JSON array instead of text.
        #[arg(long)]
        json: bool,
        /// Key of encrypted assets (else VOXCAF_KEY); without one they fail with "key required".
        #[arg(long, value_name = "FILE")]
        key_file: Option<PathBuf>,
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
        /// File holding the metadata bytes (default: none; `-` reads standard input).
        #[arg(long)]
        metadata: Option<PathBuf>,
        /// File holding the payload bytes (default: empty; `-` reads standard input).
        #[arg(long)]
        payload: Option<PathBuf>,
        /// Output .caf file (`-` writes standard output; missing folders are created).
        out: PathBuf,
        /// Overwrite an existing output that is not a .caf asset.
        #[arg(long)]
        force: bool,
    },
    /// Load and verify a .caf, then write its type, flags, metadata and payload again.
    Repack {
        /// Input .caf file (`-` reads standard input).
        input: PathBuf,
        /// Output .caf file (may be the input; `-` writes standard output; missing folders are
        /// created).
        out: PathBuf,
        /// Overwrite an existing output that is not a .caf asset.
        #[arg(long)]
        force: bool,
    },
    /// Verify a .caf and write its metadata and/or payload bytes to files (`-` = stdout).
    /// The payload written is always the plain one: COMPRESSED and ENCRYPTED payloads are
    /// decoded (streamed, block by block, in bounded memory).
    ///
    /// From a .cafpack archive, one member (--member PATH, then --out, --metadata or
    /// --payload) or all of them (--all DIR) are extracted; every file is written atomically.
    ///
    /// Examples:
    ///   voxcaf asset extract hero.caf --payload hero.rgba
    ///   VOXCAF_KEY=$(cat game.key) voxcaf asset extract music.caf --payload - | aplay -f S16_LE
    ///   voxcaf asset extract game.cafpack --member tex/hero.caf --out hero.caf
    ///   voxcaf asset extract game.cafpack --member tex/hero.caf --payload hero.rgba
    ///   voxcaf asset extract game.cafpack --all unpacked/
    Extract {
        /// The .caf file (`-` reads standard input).
        file: PathBuf,
        /// Where to write the metadata bytes (missing folders are created).
        #[arg(long)]
        metadata: Option<PathBuf>,
        /// Where to write the payload bytes (missing folders are created).
        #[arg(long)]
        payload: Option<PathBuf>,
        /// Overwrite existing files (an extracted file is never "of the kind").
        #[arg(long)]
        force: bool,
        /// Key of an encrypted asset (else VOXCAF_KEY).
        #[arg(long, value_name = "FILE")]
        key_file: Option<PathBuf>,
        /// FILE is a .cafpack: the member to extract (its path in the pack, see `asset list`);
        /// --out, --metadata and --payload then apply to it.
        #[arg(long, value_name = "PATH")]
        member: Option<String>,
        /// With --member: write the member's whole .caf file here (as stored, verified).
        #[arg(long, value_name = "FILE", requires = "member")]
        out: Option<PathBuf>,
        /// FILE is a .cafpack: write every member, verified, below this folder at its path in
        /// the pack (missing folders are created; existing files other than .caf assets are
        /// kept unless --force).
        #[arg(long, value_name = "DIR", conflicts_with_all = ["member", "metadata", "payload"])]
        all: Option<PathBuf>,
    },
    /// Pack every .caf file below DIR into one .cafpack archive with a sorted index by path
    /// (paths relative to DIR, `/`-separated); each asset is verified first and placed so that
    /// its payload is 32-byte aligned. Written atomically.
    ///
    /// Examples:
    ///   voxcaf asset pack-dir build/ game.cafpack
    ///   voxcaf asset list game.cafpack
    PackDir {
        /// Folder of .caf files (a build output).
        dir: PathBuf,
        /// Output .cafpack file (missing folders are created; not inside DIR).
        out: PathBuf,
        /// Overwrite an existing file that is not a pack.
        #[arg(long)]
        force: bool,
    },
    /// List the assets of a .cafpack archive: path, type, size and offset (the index is checked).
    List {
        /// The .cafpack file.
        pack: PathBuf,
        /// Print a JSON array instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write a new random encryption key (64 hex digits, permissions 0600) for `asset convert
    /// --encrypt` and `asset build --encrypt`.
    ///
    /// Examples:
    ///   voxcaf asset keygen game.key
    ///   voxcaf asset build --encrypt --key-file game.key --compress zstd src/ build/
    Keygen {
        /// The key file to write (missing folders are created).
        file: PathBuf,
        /// Replace an existing file.
        #[arg(long)]
        force: bool,
    },
}

impl AssetCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            AssetCmd::Info { json, .. }
            | AssetCmd::Check { json, .. }
            | AssetCmd::List { json, .. } => *json,
            _ => false,
        }
    }
}

/// Run one asset command; returns the process exit code.
pub fn run(cmd: AssetCmd) -> Result<u8> {
    match cmd {
        AssetCmd::Info {
            files,
            json,
            key_file,
        } => {
            let key = crate::keys::load(key_file.as_deref(), false)?;
            crate::inputs::info_each(&files, "caf", json, |p, j, pretty| {
                info(p, j, pretty, key.as_ref())
            })
        }
        AssetCmd::Check {
            files,
            typed,
            json,
            key_file,
        } => {
            let key = crate::keys::load(key_file.as_deref(), false)?;
            check(
                &crate::inputs::expand(&files, "caf")?,
                typed,
                json,
                key.as_ref(),
            )
        }
        AssetCmd::Keygen { file, force } => keygen(&file, force),
        AssetCmd::PackDir { dir, out, force } => pack_dir(&dir, &out, force),
        AssetCmd::List { pack, json } => list(&pack, json),
        AssetCmd::Pack {
            ty,
            flags,
            metadata,
            payload,
            out,
            force,
        } => pack(
            ty,
            flags,
            metadata.as_deref(),
            payload.as_deref(),
            &out,
            force,
        ),
        AssetCmd::Repack { input, out, force } => repack(&input, &out, force),
        AssetCmd::Extract {
            file,
            metadata,
            payload,
            force,
            key_file,
            member,
            out,
            all,
        } => {
            let what = Extracted {
                metadata: metadata.as_deref(),
                payload: payload.as_deref(),
                force,
                key_file: key_file.as_deref(),
            };
            if is_pack(&file) {
                extract_pack(
                    &file,
                    member.as_deref(),
                    out.as_deref(),
                    all.as_deref(),
                    &what,
                )
            } else if member.is_some() || all.is_some() {
                Err(crate::output::usage(
                    Some(file.as_path()),
                    "is not a .cafpack archive; --member, --out and --all apply to packs only",
                ))
            } else {
                extract(&file, &what)
            }
        }
    }
}

/// Describe one file with [`caf::describe`]; the CLI only reads, prints and sets the exit code.
fn info(path: &Path, as_json: bool, pretty: bool, key: Option<&caf::Key>) -> Result<u8> {
    let bytes = crate::output::read_input(path)?;
    let d = Description::from_bytes_with_key(&bytes, key);
    if as_json {
        let mut j = d.to_json(&path.display().to_string());
        j["ok"] = d.is_valid().into();
        if pretty {
            println!("{}", serde_json::to_string_pretty(&j)?);
        } else {
            println!("{j}");
        }
    } else {
        println!("{}: {d}", path.display());
    }
    Ok(if d.is_valid() { 0 } else { 1 })
}

fn check(files: &[PathBuf], typed: bool, as_json: bool, key: Option<&caf::Key>) -> Result<u8> {
    let mut out = Vec::new();
    let (mut total, mut bad) = (0usize, 0usize);
    let mut report = |name: String, v: Verdict| {
        total += 1;
        if !v.is_valid() {
            bad += 1;
        }
        if as_json {
            let mut j = v.to_json(&name);
            j["ok"] = v.is_valid().into();
            out.push(j);
        } else {
            println!("{}", v.line(&name));
        }
    };
    for f in files {
        if is_pack(f) {
            // A pack: its index (at open), then every member, each reported as PACK:PATH.
            match caf::pack::Pack::open(f) {
                Ok(p) => {
                    for (member, v) in p.check_members(typed, key) {
                        report(format!("{}:{member}", f.display()), v);
                    }
                }
                Err(e) => report(f.display().to_string(), Verdict::Invalid(e)),
            }
            continue;
        }
        let v = if crate::output::is_dash(f) {
            Verdict::check_bytes_with_key(&crate::output::read_input(f)?, typed, key)
        } else {
            Verdict::check_file_with_key(f, typed, key)
        };
        report(f.display().to_string(), v);
    }
    if as_json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else if total > 1 {
        println!("{} of {total} file(s) valid", total - bad);
    }
    Ok(if bad == 0 { 0 } else { 1 })
}

fn pack(
    ty: AssetType,
    flags: CafFlags,
    metadata: Option<&Path>,
    payload: Option<&Path>,
    out: &Path,
    force: bool,
) -> Result<u8> {
    use crate::output as o;
    if metadata.is_some_and(o::is_dash) && payload.is_some_and(o::is_dash) {
        return Err(o::usage(
            None,
            "--metadata and --payload cannot both read standard input; name a file for one",
        ));
    }
    let inputs: Vec<&Path> = metadata.into_iter().chain(payload).collect();
    if !o::is_dash(out) {
        o::check_file(out, &inputs, &o::CAF, force, false)?;
    }
    let meta = match metadata {
        Some(p) => o::read_input(p)?,
        None => Vec::new(),
    };
    let w = caf::AssetWriter::new(ty).flags(flags).metadata(&meta);
    if o::is_dash(out) {
        let bytes = match payload {
            Some(p) => w.payload(&o::read_input(p)?).to_vec(),
            None => w.to_vec(),
        };
        return o::write_stdout(&bytes).map(|_| 0);
    }
    o::create_parent(out)?;
    match payload {
        // Standard input has no length up front: read it whole.
        Some(p) if o::is_dash(p) => w
            .payload(&o::read_input(p)?)
            .write_file(out)
            .map_err(|e| o::failed(out, e))?,
        Some(p) => {
            let f = std::fs::File::open(p).map_err(|e| o::failed(p, e))?;
            let len = f.metadata().map_err(|e| o::failed(p, e))?.len();
            w.payload_reader(std::io::BufReader::new(f), len)
                .write_file(out)
                .map_err(|e| o::failed(out, e))?;
        }
        None => w.write_file(out).map_err(|e| o::failed(out, e))?,
    }
    let size = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    println!(
        "wrote {} ({ty}, flags {flags}, {size} bytes)",
        out.display()
    );
    Ok(0)
}

fn load(path: &Path) -> Result<LoadedAsset> {
    let bytes = crate::output::read_input(path)?;
    LoadedAsset::from_vec(bytes).map_err(|e| crate::output::failed(path, e))
}

fn repack(input: &Path, out: &Path, force: bool) -> Result<u8> {
    use crate::output as o;
    if !o::is_dash(out) {
        o::check_file(out, &[input], &o::CAF, force, true)?;
    }
    let l = load(input)?;
    let h = l.header();
    let w = caf::AssetWriter::new(h.asset_type)
        .flags(h.flags)
        .metadata(l.metadata())
        .payload(l.payload());
    if o::is_dash(out) {
        return o::write_stdout(&w.to_vec()).map(|_| 0);
    }
    o::create_parent(out)?;
    w.write_file(out).map_err(|e| o::failed(out, e))?;
    println!(
        "wrote {} ({}, {} bytes)",
        out.display(),
        h.asset_type,
        l.file_size()
    );
    Ok(0)
}

/// What `extract` writes: the destinations of the metadata and payload, and how.
struct Extracted<'a> {
    metadata: Option<&'a Path>,
    payload: Option<&'a Path>,
    force: bool,
    key_file: Option<&'a Path>,
}

/// Checks the `--metadata`/`--payload` destinations of `extract` (reading `file`).
fn check_extract_outputs(file: &Path, what: &Extracted<'_>) -> Result<()> {
    use crate::output as o;
    let (metadata, payload) = (what.metadata, what.payload);
    if metadata.is_some_and(o::is_dash) && payload.is_some_and(o::is_dash) {
        return Err(o::usage(
            None,
            "--metadata and --payload cannot both write standard output; name a file for one",
        ));
    }
    for d in metadata.into_iter().chain(payload) {
        if !o::is_dash(d) {
            o::check_file(d, &[file], &o::RAW, what.force, false)?;
        }
    }
    if let (Some(m), Some(p)) = (metadata, payload) {
        if !o::is_dash(m) && (m == p || o::same_file(m, p)) {
            return Err(o::usage(
                Some(m),
                "--metadata and --payload name the same file; name two files",
            ));
        }
    }
    Ok(())
}

fn extract(file: &Path, what: &Extracted<'_>) -> Result<u8> {
    use crate::output as o;
    let (metadata, payload) = (what.metadata, what.payload);
    if metadata.is_none() && payload.is_none() {
        return Err(o::usage(
            None,
            "nothing to extract: pass --metadata FILE and/or --payload FILE (`-` for stdout)",
        ));
    }
    check_extract_outputs(file, what)?;
    let key = crate::keys::load(what.key_file, false)?;
    let encoded = if o::is_dash(file) {
        None
    } else {
        caf::validate_header(file)
            .ok()
            .filter(|h| caf::is_encoded(h.flags))
    };
    if encoded.is_some() {
        return extract_streamed(file, metadata, payload, key.as_ref());
    }
    let bytes = o::read_input(file)?;
    let l = LoadedAsset::from_vec(bytes).map_err(|e| o::failed(file, e))?;
    write_parts(file, l, metadata, payload, key.as_ref())
}

/// Writes the metadata and/or the plain payload of a verified asset (decoded in memory when
/// COMPRESSED or ENCRYPTED).
fn write_parts(
    file: &Path,
    l: LoadedAsset,
    metadata: Option<&Path>,
    payload: Option<&Path>,
    key: Option<&caf::Key>,
) -> Result<u8> {
    use crate::output as o;
    let l = if caf::is_encoded(l.header().flags) {
        // Standard input or a pack member: decode in memory.
        caf::PayloadDecoder::new()
            .decode_loaded(&l.asset(), &caf::DecodeOptions::with_key(key))
            .map_err(|e| o::failed(file, e))?
    } else {
        l
    };
    for (what, dest, bytes) in [
        ("metadata", metadata, l.metadata()),
        ("payload", payload, l.payload()),
    ] {
        if let Some(d) = dest {
            if o::is_dash(d) {
                o::write_stdout(bytes)?;
                continue;
            }
            o::create_parent(d)?;
            voxcaf_fs::write_atomic(d, bytes).map_err(|e| o::failed(d, e))?;
            eprintln!("wrote {what} ({} bytes) to {}", bytes.len(), d.display());
        }
    }
    Ok(0)
}

/// `extract` from a pack: one member (`--member`, to `--out` / `--metadata` / `--payload`) or
/// every member (`--all DIR`).
fn extract_pack(
    file: &Path,
    member: Option<&str>,
    out: Option<&Path>,
    all: Option<&Path>,
    what: &Extracted<'_>,
) -> Result<u8> {
    use crate::output as o;
    let pack = caf::pack::Pack::open(file).map_err(|e| o::failed(file, e))?;
    if let Some(dir) = all {
        return extract_all(file, &pack, dir, what.force);
    }
    let Some(member) = member else {
        return Err(o::usage(
            Some(file),
            "is a .cafpack archive: name a member with --member PATH (see `voxcaf asset list`), \
             or extract every member with --all DIR",
        ));
    };
    if out.is_none() && what.metadata.is_none() && what.payload.is_none() {
        return Err(o::usage(
            None,
            "nothing to extract: pass --out FILE, --metadata FILE and/or --payload FILE",
        ));
    }
    if let Some(out) = out {
        if !o::is_dash(out) {
            o::check_file(out, &[file], &o::CAF, what.force, false)?;
        }
    }
    check_extract_outputs(file, what)?;
    let key = crate::keys::load(what.key_file, false)?;
    let l = pack
        .load(member)
        .map_err(|e| o::failed(file, format!("member {member}: {e}")))?
        .ok_or_else(|| {
            o::failed(
                file,
                format!("no member {member:?} in the pack (see `voxcaf asset list`)"),
            )
        })?;
    if let Some(out) = out {
        if o::is_dash(out) {
            o::write_stdout(l.bytes())?;
        } else {
            o::create_parent(out)?;
            voxcaf_fs::write_atomic(out, l.bytes()).map_err(|e| o::failed(out, e))?;
            eprintln!(
                "wrote {member} ({} bytes) to {}",
                l.file_size(),
                out.display()
            );
        }
    }
    if what.metadata.is_none() && what.payload.is_none() {
        return Ok(0);
    }
    write_parts(file, l, what.metadata, what.payload, key.as_ref())
}

/// `extract --all DIR`: every member below `dir` at its path. Every destination is checked
/// before anything is written; a path that would leave `dir` (through `..`, an absolute path
/// or a link inside `dir` pointing elsewhere) is refused.
fn extract_all(file: &Path, pack: &caf::pack::Pack, dir: &Path, force: bool) -> Result<u8> {
    use crate::output as o;
    use std::path::Component;
    o::no_dash(dir, "a folder")?;
    if dir.exists() && !dir.is_dir() {
        return Err(o::usage(Some(dir), "exists and is not a folder"));
    }
    let mut plan = Vec::with_capacity(pack.len());
    for (name, e) in pack.entries() {
        let rel = Path::new(name);
        let escapes = rel.components().any(|c| !matches!(c, Component::Normal(_)));
        let dest = dir.join(rel);
        if escapes || !o::inside(&dest, dir) {
            return Err(o::failed(
                file,
                format!(
                    "member path {name:?} would be written outside {}; nothing extracted",
                    dir.display()
                ),
            ));
        }
        o::check_file(&dest, &[file], &o::CAF, force, false)?;
        plan.push((dest, *e));
    }
    for (dest, e) in &plan {
        let l = pack
            .load_entry(e)
            .map_err(|err| o::failed(file, format!("member {}: {err}", pack.path(e))))?;
        o::create_parent(dest)?;
        voxcaf_fs::write_atomic(dest, l.bytes()).map_err(|err| o::failed(dest, err))?;
    }
    eprintln!("wrote {} asset(s) below {}", plan.len(), dir.display());
    Ok(0)
}

/// `extract` of a COMPRESSED or ENCRYPTED file: the payload is decoded block by block into
/// its output (atomic: a block that fails its check leaves no output behind).
fn extract_streamed(
    file: &Path,
    metadata: Option<&Path>,
    payload: Option<&Path>,
    key: Option<&caf::Key>,
) -> Result<u8> {
    use crate::output as o;
    let open = || -> Result<caf::StreamReader<std::io::BufReader<std::fs::File>>> {
        let f = std::fs::File::open(file).map_err(|e| o::failed(file, e))?;
        caf::StreamReader::new(std::io::BufReader::with_capacity(1 << 20, f), key)
            .map_err(|e| o::failed(file, e))
    };
    if let Some(d) = metadata {
        let r = open()?;
        if o::is_dash(d) {
            o::write_stdout(r.metadata())?;
        } else {
            o::create_parent(d)?;
            voxcaf_fs::write_atomic(d, r.metadata()).map_err(|e| o::failed(d, e))?;
            eprintln!(
                "wrote metadata ({} bytes) to {}",
                r.metadata().len(),
                d.display()
            );
        }
    }
    let Some(d) = payload else { return Ok(0) };
    let r = open()?;
    let size = r.plain_size();
    if o::is_dash(d) {
        let mut out = std::io::stdout().lock();
        r.for_each_block(|b| {
            use std::io::Write;
            out.write_all(b).map_err(caf::CafError::from)
        })
        .map_err(|e| o::failed(file, e))?;
        return Ok(0);
    }
    o::create_parent(d)?;
    voxcaf_fs::write_atomic_with(d, |w| {
        use std::io::Write;
        r.for_each_block(|b| w.write_all(b).map_err(caf::CafError::from))
    })
    .map_err(|e| o::failed(file, e))?;
    eprintln!("wrote payload ({size} bytes) to {}", d.display());
    Ok(0)
}

/// A `.cafpack` archive.
pub(crate) const PACK: crate::output::Kind = crate::output::Kind {
    name: "a .cafpack archive",
    exts: &["cafpack"],
    magic: Some(b"CAFPACK\0"),
};

/// `pack-dir`: every `.caf` below `dir`, by relative path, into one pack.
fn pack_dir(dir: &Path, out: &Path, force: bool) -> Result<u8> {
    check_pack_output(dir, out, force)?;
    if !dir.is_dir() {
        return Err(crate::output::usage(
            Some(dir),
            "not a folder; name a folder of .caf files",
        ));
    }
    let (n, size) = write_dir_pack(dir, out)?;
    println!("wrote {} ({n} assets, {size} bytes)", out.display());
    Ok(0)
}

/// Checks the output of `pack-dir DIR OUT` and `build --pack OUT` (of the build folder DIR)
/// before any work: not `-`, a `.cafpack` name, not inside DIR, an existing file replaced
/// only if it is a pack (or with `force`).
pub(crate) fn check_pack_output(dir: &Path, out: &Path, force: bool) -> Result<()> {
    use crate::output as o;
    o::no_dash(dir, "a source folder")?;
    o::no_dash(out, "a pack (it is written with seeks)")?;
    if o::inside(out, dir) {
        return Err(o::usage(
            Some(out),
            "the pack may not be written inside the folder it packs; name a file elsewhere",
        ));
    }
    o::check_file(out, &[dir], &PACK, force, false)
}

/// Packs every `.caf` below `dir` (paths relative to it, `/`-separated) into `out`, atomically;
/// the one code path of `pack-dir` and `build --pack`. Returns the asset count and pack size.
pub(crate) fn write_dir_pack(dir: &Path, out: &Path) -> Result<(usize, u64)> {
    use crate::output as o;
    let files = crate::inputs::expand(&[dir.to_path_buf()], "caf")?;
    let mut items = Vec::with_capacity(files.len());
    for f in &files {
        let rel = f.strip_prefix(dir).unwrap_or(f);
        let name: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let bytes = std::fs::read(f).map_err(|e| o::failed(f, e))?;
        caf::Asset::parse(&bytes).map_err(|e| o::failed(f, e))?;
        items.push((name.join("/"), bytes));
    }
    let n = items.len();
    o::create_parent(out)?;
    caf::pack::write_pack_file(out, items).map_err(|e| o::failed(out, e))?;
    let size = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    Ok((n, size))
}

/// Whether `path` starts with the pack magic.
fn is_pack(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = [0u8; 8];
    !crate::output::is_dash(path)
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
        && head == caf::pack::PACK_MAGIC
}

/// `list`: the index of a pack.
fn list(pack: &Path, as_json: bool) -> Result<u8> {
    use crate::output as o;
    o::no_dash(pack, "a pack")?;
    let p = caf::pack::Pack::open(pack).map_err(|e| o::failed(pack, e))?;
    let mut rows: Vec<(&str, &caf::pack::PackEntry)> = p.entries().collect();
    rows.sort_by(|a, b| a.0.cmp(b.0));
    if as_json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|(n, e)| {
                serde_json::json!({
                    "path": n,
                    "type": e.asset_type,
                    "type_name": AssetType(e.asset_type).name(),
                    "size": e.size,
                    "offset": e.offset,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        for (n, e) in &rows {
            println!(
                "{n}\t{}\t{} bytes\tat {}",
                AssetType(e.asset_type),
                e.size,
                e.offset
            );
        }
        println!("{} asset(s)", rows.len());
    }
    Ok(0)
}

/// `keygen`: a fresh random key, 64 hex digits and a newline, readable by the owner only.
fn keygen(file: &Path, force: bool) -> Result<u8> {
    use crate::output as o;
    o::no_dash(file, "a key file")?;
    const KEY: o::Kind = o::Kind {
        name: "a key file",
        exts: &[],
        magic: Some(b""),
    };
    o::check_file(file, &[], &KEY, force, false)?;
    let key = caf::Key::generate().map_err(|e| o::failed(file, e))?;
    o::create_parent(file)?;
    let mut f = voxcaf_fs::AtomicFile::create(file).map_err(|e| o::failed(file, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(f.temp_path(), std::fs::Permissions::from_mode(0o600))
            .map_err(|e| o::failed(file, e))?;
    }
    use std::io::Write;
    writeln!(f, "{}", key.to_hex()).map_err(|e| o::failed(file, e))?;
    f.commit().map_err(|e| o::failed(file, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| o::failed(file, e))?;
    }
    eprintln!(
        "wrote a new key to {} (keep it secret; anyone with it can read and forge your assets)",
        file.display()
    );
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use caf::TextureMetadata;
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
            .metadata(&caf::MeshMetadata::default().to_bytes())
            .to_vec();
        let j = Description::from_bytes(&bytes).to_json("m.caf");
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
        assert_eq!(j["metadata"]["vertex_count"], 0);
        assert!(j.get("decoded").is_some() && j.get("decode_error").is_none());
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
        // Files whose flags claim COMPRESSED/ENCRYPTED on a plain payload (written before the
        // extension existed) are valid containers; with a key the payload check fails, by name.
        let claims: Vec<&PathBuf> = good
            .iter()
            .filter(|f| caf::validate_header(f).is_ok_and(|h| caf::is_encoded(h.flags)))
            .collect();
        assert_eq!(claims.len(), 5, "{claims:?}");
        let key = caf::Key::from_bytes([1; 32]);
        for f in claims {
            match Verdict::check_file_with_key(f, false, Some(&key)) {
                Verdict::Invalid(e) => assert_eq!(e.check_name(), "block index", "{}", f.display()),
                v => panic!("{v:?}"),
            }
        }
        assert_eq!(check(&good, false, true, None).unwrap(), 0);
        for f in &bad {
            assert_eq!(
                check(std::slice::from_ref(f), false, true, None).unwrap(),
                1,
                "{}",
                f.display()
            );
            assert_eq!(info(f, true, true, None).unwrap(), 1, "{}", f.display());
        }
    }
}
