//! `asset pack-dir` and `asset list`: `.cafpack` archives of many assets.

use std::path::Path;

use anyhow::Result;
use caf::AssetType;

/// A `.cafpack` archive.
pub(crate) const PACK: crate::output::Kind = crate::output::Kind {
    name: "a .cafpack archive",
    exts: &["cafpack"],
    magic: Some(b"CAFPACK\0"),
};

/// `pack-dir`: every `.caf` below `dir`, by relative path, into one pack.
pub(super) fn pack_dir(dir: &Path, out: &Path, force: bool) -> Result<u8> {
    check_pack_output(dir, out, force)?;
    if !dir.is_dir() {
        return Err(crate::output::usage(
            Some(dir),
            "not a folder; name a folder of .caf files",
        ));
    }
    let (n, size) = write_dir_pack(dir, out)?;
    crate::global::say!(
        "wrote {} ({}, {size} bytes)",
        out.display(),
        crate::global::count(n as u64, "asset")
    );
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
pub(super) fn is_pack(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = [0u8; 8];
    !crate::output::is_dash(path)
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
        && head == caf::pack::PACK_MAGIC
}

/// `list`: the index of a pack.
pub(super) fn list(pack: &Path, as_json: bool) -> Result<u8> {
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
        println!("{}", crate::global::count(rows.len() as u64, "asset"));
    }
    Ok(0)
}
