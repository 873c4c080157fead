//! `voxcaf asset info|check|pack|repack|extract`: the `.caf` container from the command line.

use std::path::{Path, PathBuf};

use anyhow::Result;
use caf::{AssetType, CafFlags, Description, Verdict};
use clap::Subcommand;
mod cafpack;
mod extract;
#[cfg(test)]
mod tests;
mod write;

pub(crate) use cafpack::{check_pack_output, write_dir_pack, PACK};
use cafpack::{is_pack, list, pack_dir};
use extract::{extract, extract_pack, Extracted};
use write::{pack, repack};

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
        /// Output .caf file.
        #[command(flatten)]
        out: crate::out_arg::OutArg,
        /// Overwrite an existing output that is not a .caf asset.
        #[arg(long)]
        force: bool,
    },
    /// Load and verify a .caf, then write its type, flags, metadata and payload again.
    Repack {
        /// Input .caf file (`-` reads standard input).
        input: PathBuf,
        /// Output .caf file (may be the input).
        #[command(flatten)]
        out: crate::out_arg::OutArg,
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
        /// Output .cafpack file (not inside DIR).
        #[command(flatten)]
        out: crate::out_arg::OutArg,
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
        /// The key file to write.
        #[command(flatten)]
        file: crate::out_arg::OutArg,
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
        AssetCmd::Keygen { file, force } => keygen(&file.path(), force),
        AssetCmd::PackDir { dir, out, force } => pack_dir(&dir, &out.path(), force),
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
            &out.path(),
            force,
        ),
        AssetCmd::Repack { input, out, force } => repack(&input, &out.path(), force),
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
fn info(path: &Path, as_json: bool, pretty: bool, key: Option<&caf::encoded::Key>) -> Result<u8> {
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

fn check(
    files: &[PathBuf],
    typed: bool,
    as_json: bool,
    key: Option<&caf::encoded::Key>,
) -> Result<u8> {
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
        } else if !v.is_valid() || !crate::global::quiet() {
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
        crate::global::say!(
            "{} of {} valid",
            total - bad,
            crate::global::count(total as u64, "file")
        );
    }
    Ok(if bad == 0 { 0 } else { 1 })
}

/// `keygen`: a fresh random key, 64 hex digits and a newline, readable by the owner only.
fn keygen(file: &Path, force: bool) -> Result<u8> {
    use crate::output as o;
    o::no_dash(file, "a key file")?;
    const KEY: o::Kind = o::Kind {
        name: "a key file",
        exts: &[],
        magic: None,
    };
    // A key is never replaced by accident: the assets encrypted with it would be lost.
    if !force && file.is_file() {
        return Err(o::usage(
            Some(file),
            "already exists; a new key there would leave the assets encrypted with the old one \
             unreadable: pass --force to replace it, or name another file",
        ));
    }
    o::check_file(file, &[], &KEY, force, false)?;
    let key = caf::encoded::Key::generate().map_err(|e| o::failed(file, e))?;
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
    crate::global::tell!(
        "wrote a new key to {} (keep it secret; anyone with it can read and forge your assets)",
        file.display()
    );
    Ok(0)
}
