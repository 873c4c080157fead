//! The conversion action (docs/remote-build.md §2): the same digest in any checkout of the same
//! files, a new one whenever anything the conversion reads changes, the input root and command
//! as specified, and every blob it refers to accepted by a real BuildGrid.

use std::path::Path;

use caf_import::Settings;
use prost::Message;
use voxcaf_remote::action::{conversion_action, BlobData, ConversionAction};
use voxcaf_remote::proto::reapi::Directory;
use voxcaf_remote::{digest_of, Digest, Remote};

type Res = Result<(), Box<dyn std::error::Error>>;

/// A small source tree: a shader with nested includes, a texture, an unrelated file.
fn tree(root: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(root.join("shaders/lib"))?;
    std::fs::write(
        root.join("shaders/lit.frag"),
        "#version 450\n#include \"lib/light.glsl\"\nvoid main() {}\n",
    )?;
    std::fs::write(
        root.join("shaders/lib/light.glsl"),
        "#include \"consts.glsl\"\n",
    )?;
    std::fs::write(root.join("shaders/lib/consts.glsl"), "#define K 1\n")?;
    std::fs::write(root.join("notes.txt"), "not an input\n")?;
    std::fs::write(root.join("hero.png"), [0x89, b'P', b'N', b'G'])?;
    Ok(())
}

fn action(root: &Path, rel: &str, s: &Settings) -> ConversionAction {
    conversion_action(root, rel, s, Some("Glslang Version: 11:14.0.0"))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn blob_bytes(a: &ConversionAction, d: &Digest) -> Vec<u8> {
    let b = a
        .blobs
        .iter()
        .find(|b| &b.digest == d)
        .expect("blob listed");
    match &b.data {
        BlobData::Bytes(v) => v.clone(),
        BlobData::File(p) => std::fs::read(p).expect("file readable"),
    }
}

#[test]
fn two_checkouts_give_one_action_and_every_input_changes_it() -> Res {
    let (a, b) = (tempfile::tempdir()?, tempfile::tempdir()?);
    tree(a.path())?;
    tree(b.path())?;
    let s = Settings::default();
    let lit = action(a.path(), "shaders/lit.frag", &s);
    assert_eq!(lit.digest, action(b.path(), "shaders/lit.frag", &s).digest);
    assert_eq!(
        lit.declared,
        ["shaders/lib/consts.glsl", "shaders/lib/light.glsl"]
    );
    let before = lit.digest.clone();

    // A file the conversion does not read changes nothing.
    std::fs::write(b.path().join("notes.txt"), "changed\n")?;
    assert_eq!(action(b.path(), "shaders/lit.frag", &s).digest, before);
    // The source, a nested include, the settings: each gives a new action.
    std::fs::write(b.path().join("shaders/lib/consts.glsl"), "#define K 2\n")?;
    let changed_include = action(b.path(), "shaders/lit.frag", &s).digest;
    assert_ne!(changed_include, before);
    std::fs::write(
        b.path().join("shaders/lit.frag"),
        "#version 450\n#include \"lib/light.glsl\"\nvoid main() { }\n",
    )?;
    let changed_source = action(b.path(), "shaders/lit.frag", &s).digest;
    assert_ne!(changed_source, changed_include);
    let other = Settings {
        profile: caf_import::Profile::Original,
        ..Settings::default()
    };
    assert_ne!(action(a.path(), "shaders/lit.frag", &other).digest, before);
    // The same bytes under another name are another action (the name is in the command).
    std::fs::copy(
        a.path().join("shaders/lit.frag"),
        a.path().join("shaders/lit2.frag"),
    )?;
    assert_ne!(action(a.path(), "shaders/lit2.frag", &s).digest, before);
    Ok(())
}

#[test]
fn the_command_input_root_and_platform_are_as_specified() -> Res {
    let dir = tempfile::tempdir()?;
    tree(dir.path())?;
    let s = Settings::default();
    let lit = action(dir.path(), "shaders/lit.frag", &s);
    assert_eq!(
        lit.command.arguments,
        [
            "voxcaf",
            "asset",
            "convert-action",
            "settings.json",
            "src/shaders/lit.frag"
        ]
    );
    assert_eq!(lit.command.output_paths, ["out"]);
    assert!(lit.command.environment_variables.is_empty());
    let props: Vec<(String, String)> = lit
        .action
        .platform
        .as_ref()
        .map(|p| {
            p.properties
                .iter()
                .map(|p| (p.name.clone(), p.value.clone()))
                .collect()
        })
        .unwrap_or_default();
    let names: Vec<&str> = props.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "voxcaf-code",
            "voxcaf-converter-revision",
            "voxcaf-tool",
            "voxcaf-version"
        ]
    );
    assert_eq!(props[0].1, caf_import::CODE_DIGEST);
    // A texture has no compiler property.
    let hero = action(dir.path(), "hero.png", &s);
    let hero_props = hero.action.platform.map(|p| p.properties.len());
    assert_eq!(hero_props, Some(3));

    // The input root: settings.json and src/, the files at their relative paths.
    let root_digest = lit.action.input_root_digest.clone().ok_or("no root")?;
    let root = Directory::decode(blob_bytes(&lit, &root_digest).as_slice())?;
    let names: Vec<&str> = root.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["settings.json"]);
    let settings = blob_bytes(&lit, root.files[0].digest.as_ref().ok_or("digest")?);
    assert_eq!(settings, s.to_json().to_string().into_bytes());
    let dirs: Vec<&str> = root.directories.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(dirs, ["src"]);
    let mut listed = Vec::new();
    walk(&lit, &root, "", &mut listed);
    assert_eq!(
        listed,
        [
            "settings.json",
            "src/shaders/lib/consts.glsl",
            "src/shaders/lib/light.glsl",
            "src/shaders/lit.frag"
        ]
    );
    // Every blob is listed once and matches its digest.
    for b in &lit.blobs {
        assert_eq!(digest_of(&blob_bytes(&lit, &b.digest)), b.digest);
    }
    let mut hashes: Vec<&str> = lit.blobs.iter().map(|b| b.digest.hash.as_str()).collect();
    hashes.dedup();
    assert_eq!(hashes.len(), lit.blobs.len());
    Ok(())
}

/// The files of a directory tree, with their paths, in the tree's (sorted) order.
fn walk(a: &ConversionAction, dir: &Directory, prefix: &str, out: &mut Vec<String>) {
    let mut entries: Vec<(String, Option<Directory>)> = dir
        .files
        .iter()
        .map(|f| (format!("{prefix}{}", f.name), None))
        .collect();
    for d in &dir.directories {
        let digest = d.digest.clone().expect("directory digest");
        let child = Directory::decode(blob_bytes(a, &digest).as_slice()).expect("directory");
        entries.push((format!("{prefix}{}/", d.name), Some(child)));
    }
    entries.sort_by(|x, y| x.0.cmp(&y.0));
    for (name, child) in entries {
        match child {
            None => out.push(name),
            Some(c) => walk(a, &c, &name, out),
        }
    }
}

/// BuildGrid accepts every blob of an action (it checks each hash), and then misses none.
#[test]
fn a_real_server_holds_every_blob_of_an_action() -> Res {
    let Some(server) = voxcaf_bgd_test::BuildGrid::start() else {
        return Ok(());
    };
    let remote = Remote::connect(&server.url(), "")?;
    let dir = tempfile::tempdir()?;
    tree(dir.path())?;
    let lit = action(dir.path(), "shaders/lit.frag", &Settings::default());
    let digests: Vec<Digest> = lit.blobs.iter().map(|b| b.digest.clone()).collect();
    assert_eq!(remote.find_missing(&digests)?.len(), digests.len());
    let bytes: Vec<Vec<u8>> = digests.iter().map(|d| blob_bytes(&lit, d)).collect();
    let pairs: Vec<(Digest, &[u8])> = digests
        .iter()
        .cloned()
        .zip(bytes.iter().map(Vec::as_slice))
        .collect();
    remote.upload(&pairs)?;
    assert!(remote.find_missing(&digests)?.is_empty());
    Ok(())
}

/// The compiler line of GLSL actions is glslang's own version line (CI installs glslang).
#[test]
fn the_glsl_tool_is_named_by_its_version_line() {
    match voxcaf_remote::action::glsl_tool_version() {
        Some(v) => assert!(v.starts_with("Glslang Version"), "{v}"),
        None => assert!(
            std::process::Command::new(caf_import::shader::GLSLANG)
                .arg("--version")
                .output()
                .is_err(),
            "glslang runs but its version was not read"
        ),
    }
}
