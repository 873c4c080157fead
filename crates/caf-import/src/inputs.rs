//! The files a conversion will read besides its source, known before converting: the declared
//! inputs of `docs/remote-build.md` §3, which make a conversion's input root (and so its
//! action digest) computable up front.
//!
//! - glTF (`.gltf`, `.glb`, or a mesh or animation whose bytes are glTF): every external
//!   buffer (`buffers[].uri` that is not a `data:` URI, percent-decoded), relative to the
//!   file's folder: the files [`crate::convert`] opens for it.
//! - GLSL: every `#include "x"` and `#include <x>` line, relative to the including file's
//!   folder, followed recursively, whatever preprocessor conditionals surround it: a superset
//!   of the files glslang opens.
//! - Every other source reads only itself.
//!
//! A reference that leaves the source folder is not declared. The conversion records what it
//! actually read ([`crate::Converted::dependencies`]); [`undeclared`] compares the two, so a
//! gap here can only keep a result from being shared, never make a shared result wrong.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use crate::shader::Language;
use crate::{AssetKind, Settings};

/// The files the conversion of source `rel` (relative to `src_root`, whose bytes are `bytes`)
/// will read besides the source, as `/`-separated paths relative to `src_root`, sorted, without
/// duplicates and without the source itself. References that leave `src_root` and sources that
/// do not parse declare nothing (the conversion then fails or reads only what is declared).
pub fn declared_inputs(
    src_root: &Path,
    rel: &Path,
    bytes: &[u8],
    settings: &Settings,
) -> Vec<String> {
    let Some(kind) = settings.kind.or_else(|| AssetKind::from_path(rel)) else {
        return Vec::new();
    };
    let ext = crate::lower_ext(rel);
    let mut found = BTreeSet::new();
    match kind {
        AssetKind::Mesh | AssetKind::Animation => {
            let dir = rel.parent().unwrap_or(Path::new(""));
            for uri in crate::gltf_read::external_buffer_paths(bytes) {
                // `file:` URIs name files anywhere: never part of an input root.
                if uri.contains(':') {
                    continue;
                }
                if let Some(name) = inside(&dir.join(uri)) {
                    found.insert(name);
                }
            }
        }
        AssetKind::Shader if Language::detect(bytes, ext.as_deref()) == Language::Glsl => {
            glsl_includes(src_root, rel, bytes, &mut found);
        }
        _ => {}
    }
    if let Some(me) = inside(rel) {
        found.remove(&me);
    }
    found.into_iter().collect()
}

/// The names in `read` (files a conversion read, relative to the source folder, as the
/// manifest's `dependencies`) that are not in `declared`, compared after lexical
/// normalisation (`a/../b` is `b`). Empty when the conversion read only what was declared.
pub fn undeclared<'a>(declared: &[String], read: &'a [String]) -> Vec<&'a str> {
    let declared: BTreeSet<Option<String>> =
        declared.iter().map(|d| inside(Path::new(d))).collect();
    read.iter()
        .filter(|r| {
            let n = inside(Path::new(r.as_str()));
            n.is_none() || !declared.contains(&n)
        })
        .map(String::as_str)
        .collect()
}

/// `p` (relative) normalised lexically to a `/`-separated path inside the source folder, or
/// `None` when it is absolute or climbs out of it.
fn inside(p: &Path) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str()?),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The files GLSL source `rel` includes, recursively (each file read once; a file that cannot
/// be read declares itself but nothing further).
fn glsl_includes(src_root: &Path, rel: &Path, bytes: &[u8], found: &mut BTreeSet<String>) {
    let mut todo: Vec<(PathBuf, Vec<u8>)> = vec![(rel.to_path_buf(), bytes.to_vec())];
    while let Some((file, text)) = todo.pop() {
        let dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
        for name in include_names(&text) {
            let Some(norm) = inside(&dir.join(name)) else {
                continue;
            };
            if found.insert(norm.clone()) {
                if let Ok(b) = std::fs::read(src_root.join(&norm)) {
                    todo.push((PathBuf::from(norm), b));
                }
            }
        }
    }
}

/// The names of a GLSL text's `#include "x"` and `#include <x>` lines.
fn include_names(text: &[u8]) -> Vec<&str> {
    let Ok(text) = std::str::from_utf8(text) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("include")?.trim_start();
            let close = match rest.chars().next()? {
                '"' => '"',
                '<' => '>',
                _ => return None,
            };
            let body = &rest[1..];
            let end = body.find(close)?;
            Some(&body[..end]).filter(|n| !n.is_empty())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_lines_are_found_in_both_forms_and_nothing_else() {
        let t = b"#version 450\n  #  include \"a.glsl\"\n#include <lib/b.glsl>\n\
            // #include \"c\" in a comment is not at the line start\n#include\n#include \"\"\n\
            #includes \"d\"\n#define X\n";
        assert_eq!(include_names(t), ["a.glsl", "lib/b.glsl"]);
        assert!(include_names(b"\xff\xfe").is_empty());
    }

    #[test]
    fn the_code_digest_is_a_sha256() {
        assert_eq!(crate::CODE_DIGEST.len(), 64);
        assert!(crate::CODE_DIGEST
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    }

    #[test]
    fn paths_are_normalised_and_kept_inside() {
        assert_eq!(inside(Path::new("a/./b/../c")).as_deref(), Some("a/c"));
        assert_eq!(inside(Path::new("../x")), None);
        assert_eq!(inside(Path::new("a/../../x")), None);
        assert_eq!(inside(Path::new("/etc/passwd")), None);
        assert_eq!(inside(Path::new(".")), None);
        let read = ["m/../buf.bin".to_string(), "other.bin".to_string()];
        assert_eq!(undeclared(&["buf.bin".to_string()], &read), ["other.bin"]);
        assert_eq!(undeclared(&[], &["../up.bin".to_string()]), ["../up.bin"]);
    }
}
