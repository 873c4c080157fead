//! `asset extract`: the metadata and payload of a `.caf`, or the members of a `.cafpack`,
//! written out to files.

use std::path::Path;

use anyhow::Result;
use caf::LoadedAsset;

/// What `extract` writes: the destinations of the metadata and payload, and how.
pub(super) struct Extracted<'a> {
    pub(super) metadata: Option<&'a Path>,
    pub(super) payload: Option<&'a Path>,
    pub(super) force: bool,
    pub(super) key_file: Option<&'a Path>,
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

pub(super) fn extract(file: &Path, what: &Extracted<'_>) -> Result<u8> {
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
            .filter(|h| caf::encoded::is_encoded(h.flags))
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
/// Writes `bytes` (the part `what`) to `dest`, or to standard output for `-`, and says so on
/// standard error.
fn write_part(what: &str, dest: &Path, bytes: &[u8]) -> Result<()> {
    use crate::output as o;
    if o::is_dash(dest) {
        return o::write_stdout(bytes);
    }
    o::create_parent(dest)?;
    voxcaf_fs::write_atomic(dest, bytes).map_err(|e| o::failed(dest, e))?;
    crate::global::tell!("wrote {what} ({} bytes) to {}", bytes.len(), dest.display());
    Ok(())
}

fn write_parts(
    file: &Path,
    l: LoadedAsset,
    metadata: Option<&Path>,
    payload: Option<&Path>,
    key: Option<&caf::encoded::Key>,
) -> Result<u8> {
    use crate::output as o;
    let l = if caf::encoded::is_encoded(l.header().flags) {
        // Standard input or a pack member: decode in memory.
        caf::encoded::PayloadDecoder::new()
            .decode_loaded(&l.asset(), &caf::encoded::DecodeOptions::with_key(key))
            .map_err(|e| o::failed(file, e))?
    } else {
        l
    };
    for (what, dest, bytes) in [
        ("metadata", metadata, l.metadata()),
        ("payload", payload, l.payload()),
    ] {
        if let Some(d) = dest {
            write_part(what, d, bytes)?;
        }
    }
    Ok(0)
}

/// `extract` from a pack: one member (`--member`, to `--out` / `--metadata` / `--payload`) or
/// every member (`--all DIR`).
pub(super) fn extract_pack(
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
        write_part(member, out, l.bytes())?;
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
    crate::global::tell!(
        "wrote {} below {}",
        crate::global::count(plan.len() as u64, "asset"),
        dir.display()
    );
    Ok(0)
}

/// `extract` of a COMPRESSED or ENCRYPTED file: the payload is decoded block by block into
/// its output (atomic: a block that fails its check leaves no output behind).
fn extract_streamed(
    file: &Path,
    metadata: Option<&Path>,
    payload: Option<&Path>,
    key: Option<&caf::encoded::Key>,
) -> Result<u8> {
    use crate::output as o;
    let open = || -> Result<caf::encoded::StreamReader<std::io::BufReader<std::fs::File>>> {
        let f = std::fs::File::open(file).map_err(|e| o::failed(file, e))?;
        caf::encoded::StreamReader::new(std::io::BufReader::with_capacity(1 << 20, f), key)
            .map_err(|e| o::failed(file, e))
    };
    if let Some(d) = metadata {
        write_part("metadata", d, open()?.metadata())?;
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
    crate::global::tell!("wrote payload ({size} bytes) to {}", d.display());
    Ok(0)
}
