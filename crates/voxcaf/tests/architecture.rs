//! docs/ARCHITECTURE.md's crate map is held against `cargo metadata`: the edge list under the
//! drawing ("Direction of dependencies") must name every workspace member once and list exactly
//! the normal dependencies between workspace members (no dev- or build-dependencies).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The line right above the fenced edge list in docs/ARCHITECTURE.md.
const MARKER: &str = "<!-- crate-edges: checked by crates/voxcaf/tests/architecture.rs -->";

/// One dependency edge: (dependent crate, crate it depends on), package names.
type Edge = (String, String);

/// The workspace root: the nearest ancestor of this crate whose Cargo.toml has `[workspace]`.
fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .is_ok_and(|text| text.lines().any(|line| line.trim() == "[workspace]"))
        })
        .unwrap_or_else(|| panic!("no workspace Cargo.toml above {}", manifest_dir.display()))
        .to_path_buf()
}

/// The workspace's members and the normal dependencies between them, from `cargo metadata`.
struct Metadata {
    members: BTreeSet<String>,
    edges: BTreeSet<Edge>,
}

fn cargo_metadata() -> Metadata {
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let manifest = workspace_root().join("Cargo.toml");
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .unwrap_or_else(|e| panic!("running `{cargo} metadata`: {e}"));
    assert!(
        output.status.success(),
        "`{cargo} metadata` failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let member_ids: BTreeSet<&str> = json["workspace_members"]
        .as_array()
        .expect("workspace_members is an array")
        .iter()
        .map(|id| id.as_str().expect("a member id is a string"))
        .collect();
    let packages: Vec<&serde_json::Value> = json["packages"]
        .as_array()
        .expect("packages is an array")
        .iter()
        .filter(|package| member_ids.contains(package["id"].as_str().unwrap_or_default()))
        .collect();
    let members: BTreeSet<String> = packages
        .iter()
        .map(|package| {
            package["name"]
                .as_str()
                .expect("a package has a name")
                .to_owned()
        })
        .collect();
    assert_eq!(
        members.len(),
        member_ids.len(),
        "every workspace member is in `packages`"
    );
    let mut edges = BTreeSet::new();
    for package in &packages {
        let from = package["name"].as_str().expect("a package has a name");
        for dependency in package["dependencies"]
            .as_array()
            .expect("dependencies is an array")
        {
            // `kind` is null for normal dependencies, "dev" or "build" for the others; a
            // workspace member is a path dependency (no registry `source`).
            let normal = dependency["kind"].is_null();
            let local = dependency["source"].is_null();
            let to = dependency["name"]
                .as_str()
                .expect("a dependency has a name");
            if normal && local && members.contains(to) {
                edges.insert((from.to_owned(), to.to_owned()));
            }
        }
    }
    Metadata { members, edges }
}

/// The crate map as docs/ARCHITECTURE.md states it: one line per crate, `a -> b, c` or
/// `a -> (none)`, in the fenced block right after [`MARKER`].
struct DocMap {
    /// Each listed crate with its dependencies, in the order written.
    lines: Vec<(String, Vec<String>)>,
}

impl DocMap {
    fn crates(&self) -> BTreeSet<String> {
        self.lines.iter().map(|(name, _)| name.clone()).collect()
    }

    fn edges(&self) -> BTreeSet<Edge> {
        self.lines
            .iter()
            .flat_map(|(from, deps)| deps.iter().map(move |to| (from.clone(), to.clone())))
            .collect()
    }
}

fn architecture_doc() -> (PathBuf, String) {
    let path = workspace_root().join("docs/ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    (path, text)
}

/// Parses the edge list; panics naming the line when the block is missing or malformed.
fn parse_edge_list(text: &str) -> DocMap {
    let mut lines = text
        .lines()
        .enumerate()
        .skip_while(|(_, line)| line.trim() != MARKER);
    assert!(
        lines.next().is_some(),
        "docs/ARCHITECTURE.md has no line `{MARKER}`"
    );
    let (_, fence) = lines.next().expect("a fenced block follows the marker");
    assert!(
        fence.trim().starts_with("```"),
        "the line after the marker opens a fenced block: `{fence}`"
    );
    let mut map = DocMap { lines: Vec::new() };
    for (index, line) in lines {
        let number = index + 1;
        let line = line.trim();
        if line.starts_with("```") {
            return map;
        }
        if line.is_empty() {
            continue;
        }
        let (from, to) = line
            .split_once("->")
            .unwrap_or_else(|| panic!("ARCHITECTURE.md line {number}: no `->` in `{line}`"));
        let from = from.trim().to_owned();
        let deps: Vec<String> = match to.trim() {
            "(none)" => Vec::new(),
            list => list.split(',').map(|name| name.trim().to_owned()).collect(),
        };
        assert!(
            !from.is_empty() && deps.iter().all(|name| !name.is_empty() && !name.contains(' ')),
            "ARCHITECTURE.md line {number}: expected `crate -> a, b` or `crate -> (none)`, got `{line}`"
        );
        let unique: BTreeSet<&String> = deps.iter().collect();
        assert_eq!(
            unique.len(),
            deps.len(),
            "ARCHITECTURE.md line {number}: a dependency listed twice"
        );
        assert!(
            map.lines.iter().all(|(name, _)| *name != from),
            "ARCHITECTURE.md line {number}: `{from}` has a second line"
        );
        map.lines.push((from, deps));
    }
    panic!("the edge list's fenced block in ARCHITECTURE.md is never closed")
}

fn format_edges<'a>(edges: impl Iterator<Item = &'a Edge>) -> String {
    let mut text = String::new();
    for (from, to) in edges {
        // Writing to a String cannot fail.
        let _ = writeln!(text, "    {from} -> {to}");
    }
    text
}

#[test]
fn architecture_edge_list_matches_the_normal_dependencies_in_cargo_metadata() {
    let metadata = cargo_metadata();
    let (path, text) = architecture_doc();
    let drawn = parse_edge_list(&text).edges();
    let absent: Vec<&Edge> = drawn.difference(&metadata.edges).collect();
    let undrawn: Vec<&Edge> = metadata.edges.difference(&drawn).collect();
    assert!(
        absent.is_empty() && undrawn.is_empty(),
        "the crate edge list in {} disagrees with `cargo metadata` (normal dependencies \
         between workspace members):\nedges listed but absent from the metadata:\n{}\
         edges in the metadata but not listed:\n{}",
        path.display(),
        format_edges(absent.into_iter()),
        format_edges(undrawn.into_iter()),
    );
}

#[test]
fn architecture_edge_list_names_every_workspace_member_and_nothing_else() {
    let metadata = cargo_metadata();
    let (path, text) = architecture_doc();
    let map = parse_edge_list(&text);
    let listed = map.crates();
    let missing: Vec<&String> = metadata.members.difference(&listed).collect();
    let strangers: Vec<&String> = listed.difference(&metadata.members).collect();
    let named_deps: BTreeSet<&String> = map.lines.iter().flat_map(|(_, deps)| deps).collect();
    let unknown_deps: Vec<&&String> = named_deps
        .iter()
        .filter(|name| !metadata.members.contains(**name))
        .collect();
    assert!(
        missing.is_empty() && strangers.is_empty() && unknown_deps.is_empty(),
        "the crate edge list in {} must have one line per workspace member:\n\
         members without a line: {missing:?}\nlines for crates that are not members: \
         {strangers:?}\ndependencies that are not members: {unknown_deps:?}",
        path.display(),
    );
}

#[test]
fn architecture_edge_list_parser_reads_lists_and_none() {
    let text = format!("x\n{MARKER}\n```text\na -> b, c\n\nb -> (none)\nc -> b\n```\nafter\n");
    let map = parse_edge_list(&text);
    let by_crate: BTreeMap<String, Vec<String>> = map.lines.into_iter().collect();
    assert_eq!(by_crate["a"], ["b", "c"]);
    assert!(by_crate["b"].is_empty());
    assert_eq!(by_crate["c"], ["b"]);
}
