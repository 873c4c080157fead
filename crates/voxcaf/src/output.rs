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
#[error("{}", self.text())]
pub struct Failed {
    /// The file the error is about.
    pub file: PathBuf,
    /// What is wrong: without the file's name in front, though it may start with the file as
    /// its subject (`w.vwr is read-only`), and then the file is not named again.
    pub message: String,
}

impl Failed {
    /// The one-line text: `FILE: MESSAGE`, or the message alone when the file is its subject.
    fn text(&self) -> String {
        let file = self.file.display().to_string();
        if self.message.starts_with(&format!("{file} ")) {
            self.message.clone()
        } else {
            format!("{file}: {}", self.message)
        }
    }
}

/// A [`Failed`] error about `file`, from any error (its source chain joined into one line, and
/// the file's name taken off its front, so `w.vwr: w.vwr is read-only` says it once).
pub fn failed(file: &Path, e: impl std::fmt::Display) -> anyhow::Error {
    let message = strip_file(&format!("{e:#}"), file);
    Failed {
        file: file.to_path_buf(),
        message,
    }
    .into()
}

/// `message` without `FILE: ` in front (as often as it is repeated).
fn strip_file(message: &str, file: &Path) -> String {
    let prefix = format!("{}: ", file.display());
    let mut rest = message;
    while let Some(r) = rest.strip_prefix(&prefix) {
        rest = r;
    }
    rest.to_string()
}

/// Whether `text` names `path` as one of its words (`w.vwr is read-only`,
/// `cannot open w.vwr: ...`), not merely as part of a longer name (`w.vwr.bak`).
fn mentions(text: &str, path: &str) -> bool {
    !path.is_empty() && words(text).any(|w| w == path)
}

/// The words of a message, with the punctuation around them taken off.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, ':' | ',' | ';' | '\'' | '"' | '(' | ')' | '`'))
        })
        .filter(|w| !w.is_empty())
}

/// Whether a word of a message looks like a file name: it has a folder separator or an
/// extension, and is not a number.
fn path_like(w: &str) -> bool {
    let number = w.parse::<f64>().is_ok();
    !number && w.len() > 2 && (w.contains('/') || Path::new(w).extension().is_some())
}

/// Joins an error's parts (outermost first) into one line without saying anything twice: a
/// part that an earlier one already contains is left out, and an earlier part is left out
/// when a later one contains it or names the same file (`reading x.toml` before
/// `x.toml: no such file`): the innermost part that names the file says it best.
fn join_parts(parts: impl Iterator<Item = String>) -> String {
    let mut kept: Vec<String> = Vec::new();
    for s in parts {
        if s.is_empty() || kept.iter().any(|p| p.contains(&s)) {
            continue;
        }
        let files: Vec<&str> = words(&s).filter(|w| path_like(w)).collect();
        kept.retain(|p| !s.contains(p.as_str()) && !files.iter().any(|f| mentions(p, f)));
        kept.push(s);
    }
    kept.join(": ")
}

/// The file a command's arguments name that `message` is about: the first word of the
/// message that is a path given on the command line (`missing.vwr: cannot read: ...`).
fn file_in(message: &str) -> Option<PathBuf> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| match a.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => value.to_string(),
            _ => a,
        })
        .filter(|a| a != "-" && !a.starts_with('-'))
        .collect();
    words(message)
        .find(|w| (path_like(w) || Path::new(w).exists()) && args.iter().any(|a| a == w))
        .map(PathBuf::from)
}

/// The JSON shape of a failed command (see the README's "JSON output"):
/// `{"ok": false, "error": {"kind": "usage"|"input", "message": ..., "file": ...|null}}`.
/// The file is the one the error is about, also when the error is not typed but names a file
/// of the command line; the message does not repeat it in front.
pub fn error_json(e: &anyhow::Error) -> serde_json::Value {
    let (kind, file, message) = if let Some(u) = e.downcast_ref::<Usage>() {
        ("usage", u.file.clone(), u.message.clone())
    } else if let Some(f) = e.downcast_ref::<Failed>() {
        ("input", Some(f.file.clone()), f.message.clone())
    } else {
        let m = message(e);
        let file = file_in(&m);
        let m = match &file {
            Some(f) => strip_file(&m, f),
            None => m,
        };
        ("input", file, m)
    };
    serde_json::json!({"ok": false, "error": {
        "kind": kind,
        "message": message,
        "file": file.map(|f| f.display().to_string()),
    }})
}

/// One line for an error and its causes, without saying a part or a file twice (see
/// [`join_parts`]).
pub fn message(e: &anyhow::Error) -> String {
    join_parts(e.chain().map(|c| c.to_string()))
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
            .map_err(|e| failed(dir, format!("cannot create the folder: {e}")))?;
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
    std::fs::read(p).map_err(|e| failed(p, format!("cannot read: {e}")))
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
pub fn spinner(msg: String) -> Spinner {
    use std::io::IsTerminal;
    if crate::global::quiet() || !std::io::stderr().is_terminal() {
        return Spinner(indicatif::ProgressBar::hidden());
    }
    let s = indicatif::ProgressBar::new_spinner();
    s.set_message(msg);
    s.enable_steady_tick(std::time::Duration::from_millis(120));
    Spinner(s)
}

/// A [`spinner`] that clears its line when dropped, so an error ending the command mid-way
/// leaves no stale "converting ..." line behind it.
pub struct Spinner(indicatif::ProgressBar);

impl std::ops::Deref for Spinner {
    type Target = indicatif::ProgressBar;
    fn deref(&self) -> &indicatif::ProgressBar {
        &self.0
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
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
    fn parts_and_files_are_said_once() {
        let parts = |v: &[&str]| join_parts(v.iter().map(|s| s.to_string()));
        assert_eq!(
            parts(&["ro/w.vwr", "ro/w.vwr is read-only"]),
            "ro/w.vwr is read-only"
        );
        assert_eq!(
            parts(&[
                "reading block registry b.toml",
                "block registry b.toml: not found"
            ]),
            "block registry b.toml: not found"
        );
        assert_eq!(
            parts(&["saving", "w.vwr.bak: full"]),
            "saving: w.vwr.bak: full"
        );
        assert_eq!(parts(&["line 3: bad", "bad"]), "line 3: bad");
        let e = failed(Path::new("w.vwr"), "w.vwr: w.vwr: w.vwr is read-only");
        assert_eq!(e.to_string(), "w.vwr is read-only");
        let e = failed(Path::new("w.vwr"), "bad magic at offset 0");
        assert_eq!(e.to_string(), "w.vwr: bad magic at offset 0");
        let e = failed(
            Path::new("w.vwr"),
            "w.vwr: held by (voxcaf world serve w.vwr)",
        );
        assert_eq!(e.to_string(), "w.vwr: held by (voxcaf world serve w.vwr)");
        assert!(!mentions("cannot copy w.vwr.bak", "w.vwr"));
        assert!(mentions("cannot open `w.vwr`: denied", "w.vwr"));
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
