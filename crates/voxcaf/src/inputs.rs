//! Command-line inputs: folders named where files are expected are walked for files of the
//! command's kind (`voxcaf asset check build/` checks a build output).

use std::path::PathBuf;

use anyhow::Result;

/// `paths` with every folder replaced by the files below it whose extension is `ext`
/// (case-insensitive), sorted, following no symbolic links out of the tree. Files named
/// explicitly are kept whatever their extension; a folder without any such file is an error.
pub fn expand(paths: &[PathBuf], ext: &str) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if !p.is_dir() {
            out.push(p.clone());
            continue;
        }
        let mut found = Vec::new();
        for entry in walkdir::WalkDir::new(p).sort_by_file_name() {
            let entry = entry
                .map_err(|e| crate::output::failed(p, format!("cannot read the folder: {e}")))?;
            let is_kind = entry
                .path()
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case(ext));
            if entry.file_type().is_file() && is_kind {
                found.push(entry.into_path());
            }
        }
        if found.is_empty() {
            return Err(crate::output::failed(
                p,
                format!("folder holds no .{ext} file"),
            ));
        }
        out.extend(found);
    }
    Ok(out)
}

/// Runs `info(file, json, single)` for every file named (folders walked for `.ext` files), the
/// way `world info` and `asset info` report: one file is described on its own (`single`, a
/// pretty JSON object); several are each described in turn (one JSON line each), a file that
/// fails is reported in the same shape and the others still run; the exit code is the worst.
pub fn info_each(
    files: &[PathBuf],
    ext: &str,
    json: bool,
    info: impl Fn(&std::path::Path, bool, bool) -> Result<u8>,
) -> Result<u8> {
    let many = files.len() > 1 || files.iter().any(|f| f.is_dir());
    let files = expand(files, ext)?;
    if !many {
        return info(&files[0], json, true);
    }
    let mut code = 0;
    for f in &files {
        match info(f, json, false) {
            Ok(c) => code = code.max(c),
            Err(e) => {
                code = code.max(1);
                if json {
                    println!("{}", crate::output::error_json(&e));
                } else {
                    crate::global::print_error(&e);
                }
            }
        }
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_expand_to_their_files_of_the_kind_sorted() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("sub")).unwrap();
        for n in ["b.caf", "a.CAF", "sub/c.caf", "notes.txt"] {
            std::fs::write(d.path().join(n), b"x").unwrap();
        }
        let explicit = d.path().join("notes.txt");
        let got = expand(&[d.path().to_path_buf(), explicit.clone()], "caf").unwrap();
        let names: Vec<String> = got
            .iter()
            .map(|p| p.strip_prefix(d.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["a.CAF", "b.caf", "sub/c.caf", "notes.txt"]);
        let empty = tempfile::tempdir().unwrap();
        let e = expand(&[empty.path().to_path_buf()], "vwr").unwrap_err();
        assert!(e.to_string().contains("holds no .vwr file"), "{e}");
    }
}
