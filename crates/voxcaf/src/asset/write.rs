//! `asset pack` and `asset repack`: one `.caf` written from its parts, or rewritten.

use std::path::Path;

use anyhow::Result;
use caf::{AssetType, CafFlags, LoadedAsset};

pub(super) fn pack(
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
    crate::global::say!(
        "wrote {} ({ty}, flags {flags}, {size} bytes)",
        out.display()
    );
    Ok(0)
}

fn load(path: &Path) -> Result<LoadedAsset> {
    let bytes = crate::output::read_input(path)?;
    LoadedAsset::from_vec(bytes).map_err(|e| crate::output::failed(path, e))
}

pub(super) fn repack(input: &Path, out: &Path, force: bool) -> Result<u8> {
    use crate::output as o;
    if !o::is_dash(out) {
        o::check_file(out, &[input], &o::CAF, force, true)?;
    }
    let l = load(input)?;
    let h = l.header();
    // The writer always writes the version the original writer writes (1.0), as the golden
    // repacks expect: a newer minor version is not kept, and that is said.
    if (h.version_major, h.version_minor) != (caf::VERSION_MAJOR, caf::VERSION_MINOR) {
        crate::global::note(format_args!(
            "{}: version {}.{} is written as {}.{}, the version the writer writes (the \
             layout is the same for every 1.x)",
            input.display(),
            h.version_major,
            h.version_minor,
            caf::VERSION_MAJOR,
            caf::VERSION_MINOR
        ));
    }
    let w = caf::AssetWriter::new(h.asset_type)
        .flags(h.flags)
        .metadata(l.metadata())
        .payload(l.payload());
    if o::is_dash(out) {
        return o::write_stdout(&w.to_vec()).map(|_| 0);
    }
    o::create_parent(out)?;
    w.write_file(out).map_err(|e| o::failed(out, e))?;
    crate::global::say!(
        "wrote {} ({}, {} bytes)",
        out.display(),
        h.asset_type,
        l.file_size()
    );
    Ok(0)
}
