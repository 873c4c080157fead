//! Every real file from other projects (`../shared/realworld/` and `../shared/corpus/`) either
//! converts, and what it converts to passes `check`, or is refused with exit 1 and one message
//! that names the file and says what is wrong; never a crash, a hang or a backtrace. The files
//! refused on purpose are listed in `tests/data/realworld_refusals.tsv` with what their message
//! says, so that a file that starts or stops converting is noticed here (and the README's
//! tables of inputs are kept true by this list).

mod common;
use common::{output, voxcaf};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Companion files read through another (a glTF's `.bin`, an OBJ's `.mtl`), reference data
/// (`.pcm`) and the folders' notes: not inputs of their own.
const COMPANIONS: &[&str] = &["bin", "mtl", "pcm", "md"];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if !COMPANIONS.contains(&ext(&p).as_str()) {
            out.push(p);
        }
    }
}

fn ext(p: &Path) -> String {
    p.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// What happened to one file: `Ok(())` converted and checked, `Err(message)` refused.
fn run_one(src: &Path, out_dir: &Path, k: usize) -> Result<(), String> {
    let shown = src.display().to_string();
    // A world from a `.vox`, an asset from anything else; a WGSL module may hold several
    // entry points, one asset each, so it goes into a folder.
    let (group, out) = match ext(src).as_str() {
        "vox" => ("world", out_dir.join(format!("{k}.vwr"))),
        "wgsl" => {
            let dir = out_dir.join(format!("{k}"));
            std::fs::create_dir_all(&dir).unwrap();
            ("asset", dir)
        }
        _ => ("asset", out_dir.join(format!("{k}.caf"))),
    };
    let mut convert = voxcaf();
    convert.args([group, "convert"]).arg(src).arg(&out);
    let mut check = voxcaf();
    check.args([group, "check"]).arg(&out);
    let (code, _, err) = output(&mut convert);
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{shown}: {err}"
    );
    match code {
        0 => {
            let (code, out, err) = output(&mut check);
            assert_eq!(
                code, 0,
                "{shown} converted, but its output fails check:\n{out}{err}"
            );
            Ok(())
        }
        1 => {
            let first = err.lines().next().unwrap_or_default();
            assert!(
                first.starts_with("error: ") && first.contains(&shown),
                "{shown}: a refusal must be one `error: FILE: ...` line, got:\n{err}"
            );
            Err(first.to_string())
        }
        other => panic!("{shown}: exit {other}\n{err}"),
    }
}

/// The expected refusals: path relative to the shared folder → a piece of the message.
fn expected() -> BTreeMap<String, String> {
    let text = include_str!("data/realworld_refusals.tsv");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (path, says) = l.split_once('\t').unwrap_or((l, ""));
            (path.to_string(), says.to_string())
        })
        .collect()
}

#[test]
fn every_real_file_converts_and_checks_or_is_refused_with_what_and_where() {
    let (Some(realworld), Some(corpus)) = (voxcaf_golden::realworld(""), voxcaf_golden::corpus(""))
    else {
        return;
    };
    let mut all = Vec::new();
    files(&realworld, &mut all);
    files(&corpus, &mut all);
    // The name in the list: the path under the shared folder.
    let rel = |f: &Path| -> String {
        let (label, base) = match f.strip_prefix(&realworld) {
            Ok(r) => ("realworld", r),
            Err(_) => ("corpus", f.strip_prefix(&corpus).unwrap_or(f)),
        };
        format!("{label}/{}", base.display())
    };
    assert!(all.len() > 200, "{} files", all.len());
    let t = tempfile::tempdir().unwrap();
    // Two workers: the files are independent.
    let results: Vec<(PathBuf, Result<(), String>)> = std::thread::scope(|s| {
        let chunks: Vec<_> = all.chunks(all.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .enumerate()
            .map(|(w, part)| {
                let dir = t.path();
                s.spawn(move || {
                    part.iter()
                        .enumerate()
                        .map(|(k, f)| (f.clone(), run_one(f, dir, w * 10_000 + k)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut want = expected();
    let mut wrong = Vec::new();
    for (file, result) in results {
        let rel = rel(&file);
        match (result, want.remove(&rel)) {
            (Ok(()), None) => {}
            (Ok(()), Some(_)) => wrong.push(format!("{rel}: now converts; drop it from the list")),
            (Err(msg), None) => wrong.push(format!("{rel}: refused, not on the list: {msg}")),
            (Err(msg), Some(says)) if !msg.contains(&says) => {
                wrong.push(format!("{rel}: refused saying {msg:?}, not {says:?}"))
            }
            (Err(_), Some(_)) => {}
        }
    }
    for rel in want.keys() {
        wrong.push(format!("{rel}: on the list but not among the files"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
