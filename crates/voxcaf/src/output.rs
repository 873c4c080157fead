//! The one output policy of every `voxcaf` command that writes a file (see the README's
//! "Output policy"):
//!
//! - `-` as an output means standard output where the command can stream its result, and is a
//!   usage error elsewhere (never a file named `-`);
//! - the output must carry an extension of the command's kind and must not be an input (the
//!   same file after resolving links, compared by device and inode) nor lie inside a source
//!   folder;
//! - an existing file that is not what the command produces is only replaced with `--force`;
//! - missing parent folders are created by every command, just before writing.
//!
//! Every check runs before the command does its work, so a refused output costs nothing and
//! leaves no file behind.

use std::path::{Path, PathBuf};

use anyhow::Result;

/// A usage error: the command line asks for something the tool will not do. The process exits
/// with status 2 and the message says what to do instead.
#[derive(Debug, thiserror::Error)]
#[error("{}{message}", file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default())]
pub struct Usage {
    /// The file the error is about, if any.
    pub file: Option<PathBuf>,
    /// What is wrong and what to do.
    pub message: String,
}

/// Bad input or a failed step about one file (exit status 1), with the file named once.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", file.display())]
pub struct Failed {
    /// The file the error is about.
    pub file: PathBuf,
    /// What is wrong.
    pub message: String,
}

/// A [`Failed`] error about `file`, from any error (its source chain joined into one line).
pub fn failed(file: &Path, e: impl std::fmt::Display) -> anyhow::Error {
    let message = format!("{e:#}");
    // Library errors that already start with the file are not prefixed twice.
    let prefix = format!("{}: ", file.display());
    let message = match message.strip_prefix(&prefix) {
        Some(rest) => rest.to_string(),
        None => message,
    };
    Failed {
        file: file.to_path_buf(),
        message,
    }
    .into()
}

/// The JSON shape of a failed command (see the README's "JSON output"):
/// `{"ok": false, "error": {"kind": "usage"|"input", "message": ..., "file": ...|null}}`.
pub fn error_json(e: &anyhow::Error) -> serde_json::Value {
    let (kind, file) = if let Some(u) = e.downcast_ref::<Usage>() {
        ("usage", u.file.clone())
    } else if let Some(f) = e.downcast_ref::<Failed>() {
        ("input", Some(f.file.clone()))
    } else {
        ("input", None)
    };
    let message = match (e.downcast_ref::<Usage>(), e.downcast_ref::<Failed>()) {
        (Some(u), _) => u.message.clone(),
        (_, Some(f)) => f.message.clone(),
        _ => message(e),
    };
    serde_json::json!({"ok": false, "error": {
        "kind": kind,
        "message": message,
        "file": file.map(|f| f.display().to_string()),
    }})
}

/// One line for an error and its causes, leaving out a cause whose text an outer message
/// already contains (so the path and OS error appear once).
pub fn message(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in e.chain() {
        let s = c.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
    }
    parts.join(": ")
}

/// The exit status for an error: 2 for a usage error, 1 for everything else.
pub fn exit_status(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<Usage>().is_some() {
        2
    } else {
        1
    }
}

/// A usage error about `file`.
pub fn usage(file: Option<&Path>, message: impl Into<String>) -> anyhow::Error {
    Usage {
        file: file.map(Path::to_path_buf),
        message: message.into(),
    }
    .into()
}

/// Whether `p` is the `-` that stands for standard input or output.
pub fn is_dash(p: &Path) -> bool {
    p.as_os_str() == "-"
}

/// Refuse `-` where a command cannot read standard input or write standard output.
pub fn no_dash(p: &Path, what: &str) -> Result<()> {
    if is_dash(p) {
        return Err(usage(
            None,
            format!("`-` (standard input/output) cannot be used as {what}; name a file"),
        ));
    }
    Ok(())
}

/// What a command writes: its file extensions and, when the format has one, the magic bytes an
/// existing file of that kind starts with.
pub struct Kind {
    /// Human name used in messages ("a .vwr world").
    pub name: &'static str,
    /// Accepted extensions, lower case, without the dot; empty accepts any name.
    pub exts: &'static [&'static str],
    /// The bytes an existing file of this kind starts with; `None` trusts the extension.
    pub magic: Option<&'static [u8]>,
}

/// A `.vwr` world.
pub const WORLD: Kind = Kind {
    name: "a .vwr world",
    exts: &["vwr"],
    magic: Some(b"VWR1"),
};
/// A `.caf` asset (magic 0xCAFECAFE, little endian).
pub const CAF: Kind = Kind {
    name: "a .caf asset",
    exts: &["caf"],
    magic: Some(&[0xFE, 0xCA, 0xFE, 0xCA]),
};
/// A PNG image.
pub const PNG: Kind = Kind {
    name: "a .png image",
    exts: &["png"],
    magic: Some(b"\x89PNG"),
};
/// Raw bytes (`asset extract`): any name, and no existing file is of this kind, so replacing
/// one always needs `--force`.
pub const RAW: Kind = Kind {
    name: "extracted bytes",
    exts: &[],
    magic: Some(b""),
};

/// A mesh export: the kind follows from the extension, which the exporter checks itself.
pub fn mesh_kind(out: &Path) -> Kind {
    let ext = lower_ext(out);
    let (name, magic): (&'static str, Option<&'static [u8]>) = match ext.as_deref() {
        Some("glb") => ("a .glb mesh", Some(b"glTF")),
        Some("caf") => ("a .caf mesh", CAF.magic),
        Some("gltf") => ("a .gltf mesh", Some(b"{")),
        _ => ("an .obj mesh", None),
    };
    Kind {
        name,
        exts: &["glb", "gltf", "obj", "caf"],
        magic,
    }
}

fn lower_ext(p: &Path) -> Option<String> {
    p.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// Whether `a` and `b` name the same existing file after resolving links.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if is_dash(a) || is_dash(b) {
        return false;
    }
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
    }
}

/// The canonical form of `p`, or of its nearest existing ancestor joined with the rest, so
/// paths that do not exist yet can be compared with folders that do.
fn canonical_lenient(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut rest = Vec::new();
    let mut cur = abs.as_path();
    loop {
        if let Ok(c) = cur.canonicalize() {
            let mut out = c;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return out;
        }
        match (cur.parent(), cur.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                cur = parent;
            }
            _ => return abs,
        }
    }
}

/// Whether `path` is `folder` or lies below it (after resolving links).
pub fn inside(path: &Path, folder: &Path) -> bool {
    canonical_lenient(path).starts_with(canonical_lenient(folder))
}

/// Checks an output file against the policy (see the module docs) before any work is done.
/// `inputs` are the files and folders the command reads; `in_place` allows the output to be
/// the input (a rewrite of the same kind, such as `world resave F F`).
pub fn check_file(
    out: &Path,
    inputs: &[&Path],
    kind: &Kind,
    force: bool,
    in_place: bool,
) -> Result<()> {
    if !kind.exts.is_empty() {
        let ok = lower_ext(out).is_some_and(|e| kind.exts.contains(&e.as_str()));
        if !ok {
            let list: Vec<String> = kind.exts.iter().map(|e| format!(".{e}")).collect();
            return Err(usage(
                Some(out),
                format!("the output must end in {}", list.join(", ")),
            ));
        }
    }
    for input in inputs {
        if is_dash(input) {
            continue;
        }
        if input.is_dir() && inside(out, input) {
            return Err(usage(
                Some(out),
                format!(
                    "the output lies inside the source folder {}; write it elsewhere",
                    input.display()
                ),
            ));
        }
        if same_file(out, input) && !in_place {
            return Err(usage(
                Some(out),
                "the output is also the input, which it would overwrite; name another output file",
            ));
        }
    }
    check_parent(out)?;
    let Ok(meta) = std::fs::metadata(out) else {
        return Ok(());
    };
    if meta.is_dir() {
        return Err(usage(
            Some(out),
            "the output is a folder; name a file inside it",
        ));
    }
    if force || inputs.iter().any(|i| same_file(out, i)) {
        return Ok(());
    }
    if !is_kind(out, kind) {
        return Err(usage(
            Some(out),
            format!(
                "exists and is not {}; pass --force to overwrite it, or name another output",
                kind.name
            ),
        ));
    }
    Ok(())
}

/// The nearest existing ancestor of `out` must be a folder, or the parents cannot be created
/// later; saying so now saves the work.
fn check_parent(out: &Path) -> Result<()> {
    let mut cur = out.parent();
    while let Some(dir) = cur.filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(m) = std::fs::metadata(dir) {
            if !m.is_dir() {
                return Err(usage(
                    Some(dir),
                    format!(
                        "is a file, so {} cannot be written below it; name another output",
                        out.display()
                    ),
                ));
            }
            return Ok(());
        }
        cur = dir.parent();
    }
    Ok(())
}

/// Whether the existing file `p` is of `kind` (its first bytes are the kind's magic).
fn is_kind(p: &Path, kind: &Kind) -> bool {
    let Some(magic) = kind.magic else {
        return true;
    };
    if magic.is_empty() {
        return false;
    }
    use std::io::Read as _;
    let mut head = vec![0u8; magic.len()];
    std::fs::File::open(p)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && head == magic
}

/// Checks an output folder (`asset build OUT`): it must not be a file, nor the source folder,
/// nor lie inside it; an existing folder that holds files must be an earlier build output (it
/// has the build's `manifest.json`) unless `force`.
pub fn check_folder(out: &Path, src: &Path, force: bool) -> Result<()> {
    no_dash(out, "an output folder")?;
    if inside(out, src) {
        return Err(usage(
            Some(out),
            format!(
                "the output folder is inside the source folder {}; build into a folder outside it",
                src.display()
            ),
        ));
    }
    if out.exists() && !out.is_dir() {
        return Err(usage(Some(out), "exists and is not a folder"));
    }
    let holds_files = std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some());
    if holds_files && !force && !out.join(caf_import::batch::MANIFEST_NAME).is_file() {
        return Err(usage(
            Some(out),
            format!(
                "holds files but is not a build output (no {}); pass --force to build into it \
                 anyway, or name a new or empty folder",
                caf_import::batch::MANIFEST_NAME
            ),
        ));
    }
    check_parent(out)?;
    Ok(())
}

/// Creates the missing parent folders of `out` (every command does, just before writing).
pub fn create_parent(out: &Path) -> Result<()> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("{}: cannot create the folder: {e}", dir.display()))?;
    }
    Ok(())
}

/// Reads a whole input file, or standard input for `-`; the error names the file once.
pub fn read_input(p: &Path) -> Result<Vec<u8>> {
    if is_dash(p) {
        let mut v = Vec::new();
        use std::io::Read as _;
        std::io::stdin()
            .lock()
            .read_to_end(&mut v)
            .map_err(|e| anyhow::anyhow!("standard input: cannot read: {e}"))?;
        return Ok(v);
    }
    std::fs::read(p).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", p.display()))
}

/// Writes `bytes` to standard output.
pub fn write_stdout(bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let mut so = std::io::stdout().lock();
    so.write_all(bytes)?;
    so.flush()?;
    Ok(())
}

/// A spinner saying `msg` on standard error while a long step runs, when standard error is a
/// terminal (hidden otherwise, so pipes and logs get only the final lines).
pub fn spinner(msg: String) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let s = indicatif::ProgressBar::new_spinner();
    s.set_message(msg);
    s.enable_steady_tick(std::time::Duration::from_millis(120));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_file_sees_through_links_and_inside_through_dots() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a.vwr");
        std::fs::write(&a, b"VWR1").unwrap();
        #[cfg(unix)]
        {
            let l = d.path().join("l.vwr");
            std::os::unix::fs::symlink(&a, &l).unwrap();
            assert!(same_file(&a, &l));
            let e = check_file(&l, &[&a], &WORLD, true, false).unwrap_err();
            assert!(e.downcast_ref::<Usage>().is_some(), "{e}");
        }
        assert!(!same_file(&a, &d.path().join("missing.vwr")));
        assert!(inside(&d.path().join("x/../y/z"), d.path()));
        assert!(!inside(d.path(), &d.path().join("y")));
    }

    #[test]
    fn existing_files_of_another_kind_need_force() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("notes.vwr");
        std::fs::write(&t, b"my notes").unwrap();
        assert!(check_file(&t, &[], &WORLD, false, false).is_err());
        assert!(check_file(&t, &[], &WORLD, true, false).is_ok());
        std::fs::write(&t, b"VWR1....").unwrap();
        assert!(check_file(&t, &[], &WORLD, false, false).is_ok());
        assert!(check_file(&d.path().join("w.png"), &[], &WORLD, true, false).is_err());
        let below_a_file = t.join("x.vwr");
        let e = check_file(&below_a_file, &[], &WORLD, true, false).unwrap_err();
        assert!(e.to_string().contains("is a file"), "{e}");
    }
}
