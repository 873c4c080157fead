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
    },
    /// Verify .caf files (length, magic, version, sizes, payload CRC, footer CRC); exit 0 only
    /// if every file is valid. Prints one line per file naming the failed check.
    Check {
        /// Files to check (`-` reads standard input); a folder stands for every .caf file
        /// below it (a build output).
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
    },
}

impl AssetCmd {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            AssetCmd::Info { json, .. } | AssetCmd::Check { json, .. } => *json,
            _ => false,
        }
    }
}

/// Run one asset command; returns the process exit code.
pub fn run(cmd: AssetCmd) -> Result<u8> {
    match cmd {
        AssetCmd::Info { files, json } => crate::inputs::info_each(&files, "caf", json, info),
        AssetCmd::Check { files, typed, json } => {
            check(&crate::inputs::expand(&files, "caf")?, typed, json)
        }
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
        } => extract(&file, metadata.as_deref(), payload.as_deref(), force),
    }
}

/// Describe one file with [`caf::describe`]; the CLI only reads, prints and sets the exit code.
fn info(path: &Path, as_json: bool, pretty: bool) -> Result<u8> {
    let bytes = crate::output::read_input(path)?;
    let d = Description::from_bytes(&bytes);
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

fn check(files: &[PathBuf], typed: bool, as_json: bool) -> Result<u8> {
    let mut out = Vec::new();
    let mut bad = 0usize;
    for f in files {
        let v = if crate::output::is_dash(f) {
            Verdict::check_bytes(&crate::output::read_input(f)?, typed)
        } else {
            Verdict::check_file(f, typed)
        };
        if !v.is_valid() {
            bad += 1;
        }
        let name = f.display().to_string();
        if as_json {
            let mut j = v.to_json(&name);
            j["ok"] = v.is_valid().into();
            out.push(j);
        } else {
            println!("{}", v.line(&name));
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

fn extract(
    file: &Path,
    metadata: Option<&Path>,
    payload: Option<&Path>,
    force: bool,
) -> Result<u8> {
    use crate::output as o;
    if metadata.is_none() && payload.is_none() {
        return Err(o::usage(
            None,
            "nothing to extract: pass --metadata FILE and/or --payload FILE (`-` for stdout)",
        ));
    }
    if metadata.is_some_and(o::is_dash) && payload.is_some_and(o::is_dash) {
        return Err(o::usage(
            None,
            "--metadata and --payload cannot both write standard output; name a file for one",
        ));
    }
    for d in metadata.into_iter().chain(payload) {
        if !o::is_dash(d) {
            o::check_file(d, &[file], &o::RAW, force, false)?;
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
    let l = load(file)?;
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
        assert_eq!(check(&good, false, true).unwrap(), 0);
        for f in &bad {
            assert_eq!(
                check(std::slice::from_ref(f), false, true).unwrap(),
                1,
                "{}",
                f.display()
            );
            assert_eq!(info(f, true, true).unwrap(), 1, "{}", f.display());
        }
    }
}
