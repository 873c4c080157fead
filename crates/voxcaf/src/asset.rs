//! `voxcaf asset info|check|pack|repack|extract`: the `.caf` container from the command line.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use caf::{AssetType, CafFlags, Description, LoadedAsset, Verdict};
use clap::Subcommand;

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
        /// Files to check; a folder stands for every .caf file below it (a build output).
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
        AssetCmd::Check { files, typed, json } => {
            check(&crate::inputs::expand(&files, "caf")?, typed, json)
        }
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

/// Describe one file with [`caf::describe`]; the CLI only reads, prints and sets the exit code.
fn info(path: &Path, as_json: bool) -> Result<u8> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let d = Description::from_bytes(&bytes);
    if as_json {
        let j = d.to_json(&path.display().to_string());
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        println!("{}: {d}", path.display());
    }
    Ok(if d.is_valid() { 0 } else { 1 })
}

fn check(files: &[PathBuf], typed: bool, as_json: bool) -> Result<u8> {
    let mut out = Vec::new();
    let mut bad = 0usize;
    for f in files {
        let v = Verdict::check_file(f, typed);
        if !v.is_valid() {
            bad += 1;
        }
        let name = f.display().to_string();
        if as_json {
            out.push(v.to_json(&name));
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
            assert_eq!(info(f, true).unwrap(), 1, "{}", f.display());
        }
    }
}
