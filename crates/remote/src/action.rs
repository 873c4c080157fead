//! One conversion as one Remote Execution API action (docs/remote-build.md §2): the command,
//! the input root (settings, source, declared inputs), the platform properties and the blobs a
//! server needs to run it. Computed the same way on every machine: the action digest depends
//! on the bytes of the inputs and their paths relative to the source folder, never on where
//! the checkout is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use caf_import::inputs::declared_inputs;
use caf_import::shared::SharedAsset;
use caf_import::{AssetKind, Settings};

use crate::proto::reapi::{
    platform::Property, Action, Command, Directory, DirectoryNode, FileNode, Platform,
};
use crate::{digest_of, digest_of_message, Digest, RemoteError};

/// The program name and subcommand every conversion action runs (§2.1).
pub const ARGV0: [&str; 3] = ["voxcaf", "asset", "convert-action"];
/// The input root's settings file.
pub const SETTINGS_FILE: &str = "settings.json";
/// The folder of the sources in the input root.
pub const SOURCE_DIR: &str = "src";
/// The output folder the action writes.
pub const OUTPUT_DIR: &str = "out";
/// The output folder's description of its assets.
pub const RESULT_FILE: &str = "result.json";

/// Where a blob's bytes are: in memory (messages, settings) or in a file of the checkout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlobData {
    /// Bytes held in memory.
    Bytes(Vec<u8>),
    /// A file, read when uploaded.
    File(PathBuf),
}

/// A blob the server needs for an action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blob {
    /// Its digest.
    pub digest: Digest,
    /// Its bytes.
    pub data: BlobData,
}

/// The action of one source's conversion, with every blob it refers to.
#[derive(Clone, Debug)]
pub struct ConversionAction {
    /// The action message.
    pub action: Action,
    /// Its digest: the action cache's key.
    pub digest: Digest,
    /// The command message (also among `blobs`).
    pub command: Command,
    /// The declared inputs in the input root (relative to the source folder), sorted.
    pub declared: Vec<String>,
    /// The command, the input root's directories and files: what a server must hold to run
    /// the action, each digest once.
    pub blobs: Vec<Blob>,
}

/// The first line of `glslangValidator --version` (the GLSL compiler is part of what a shader's
/// conversion is, §2.3), or `None` when it cannot run.
pub fn glsl_tool_version() -> Option<String> {
    let out = std::process::Command::new(caf_import::shader::GLSLANG)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .next()
        .map(|l| l.trim().to_string())
        .filter(|l| out.status.success() && !l.is_empty())
}

/// The platform properties of this build of voxcaf (§2.3) for a source of `kind` (GLSL
/// sources add the compiler's version, `tool`).
pub fn platform(glsl_tool: Option<&str>) -> Platform {
    let mut props = vec![
        ("voxcaf-code", caf_import::CODE_DIGEST.to_string()),
        (
            "voxcaf-converter-revision",
            caf_import::CONVERTER_REVISION.to_string(),
        ),
        ("voxcaf-version", env!("CARGO_PKG_VERSION").to_string()),
    ];
    if let Some(t) = glsl_tool {
        props.push(("voxcaf-tool", t.to_string()));
    }
    props.sort();
    Platform {
        properties: props
            .into_iter()
            .map(|(name, value)| Property {
                name: name.to_string(),
                value,
            })
            .collect(),
    }
}

/// The action converting `rel` (relative to `src_root`, `/`-separated) with the effective
/// `settings` (sidecar applied). `glsl_tool` is the GLSL compiler's version line, used only
/// for GLSL sources. Reads the source and every declared input (a declared file that does not
/// exist is left out of the input root).
pub fn conversion_action(
    src_root: &Path,
    rel: &str,
    settings: &Settings,
    glsl_tool: Option<&str>,
) -> Result<ConversionAction, RemoteError> {
    let source = src_root.join(rel);
    let bytes = std::fs::read(&source).map_err(|e| RemoteError::io(&source, e))?;
    let declared = declared_inputs(src_root, Path::new(rel), &bytes, settings);
    let mut files: BTreeMap<String, Blob> = BTreeMap::new();
    let settings_json = settings.to_json().to_string().into_bytes();
    files.insert(
        SETTINGS_FILE.to_string(),
        Blob {
            digest: digest_of(&settings_json),
            data: BlobData::Bytes(settings_json),
        },
    );
    files.insert(
        format!("{SOURCE_DIR}/{rel}"),
        Blob {
            digest: digest_of(&bytes),
            data: BlobData::File(source.clone()),
        },
    );
    for d in &declared {
        let path = src_root.join(d);
        match std::fs::read(&path) {
            Ok(b) => {
                files.insert(
                    format!("{SOURCE_DIR}/{d}"),
                    Blob {
                        digest: digest_of(&b),
                        data: BlobData::File(path),
                    },
                );
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(RemoteError::io(&path, e)),
        }
    }
    let mut blobs = Vec::new();
    let root = directory_tree(&files, &mut blobs);
    let is_glsl = settings
        .kind
        .or_else(|| AssetKind::from_path(Path::new(rel)))
        == Some(AssetKind::Shader)
        && caf_import::shader::Language::detect(&bytes, ext(rel).as_deref())
            == caf_import::shader::Language::Glsl;
    let platform = platform(glsl_tool.filter(|_| is_glsl));
    // `output_directories` and the command's `platform` are deprecated since v2.2 in favour of
    // `output_paths` and the action's `platform`; both are set, with the same values, for
    // servers and workers that read only the older fields.
    #[allow(deprecated)]
    let command = Command {
        arguments: ARGV0
            .iter()
            .map(|s| s.to_string())
            .chain([SETTINGS_FILE.to_string(), format!("{SOURCE_DIR}/{rel}")])
            .collect(),
        output_paths: vec![OUTPUT_DIR.to_string()],
        output_directories: vec![OUTPUT_DIR.to_string()],
        platform: Some(platform.clone()),
        ..Default::default()
    };
    let command_bytes = prost::Message::encode_to_vec(&command);
    let command_digest = digest_of(&command_bytes);
    blobs.push(Blob {
        digest: command_digest.clone(),
        data: BlobData::Bytes(command_bytes),
    });
    let action = Action {
        command_digest: Some(command_digest),
        input_root_digest: Some(root),
        platform: Some(platform),
        ..Default::default()
    };
    let digest = digest_of_message(&action);
    // The action itself too: an execution reads it from the CAS.
    blobs.push(Blob {
        digest: digest.clone(),
        data: BlobData::Bytes(prost::Message::encode_to_vec(&action)),
    });
    blobs.sort_by(|a, b| a.digest.hash.cmp(&b.digest.hash));
    blobs.dedup_by(|a, b| a.digest == b.digest);
    Ok(ConversionAction {
        action,
        digest,
        command,
        declared,
        blobs,
    })
}

fn ext(rel: &str) -> Option<String> {
    Path::new(rel)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// The `Directory` messages of a tree of files (`/`-separated paths), children sorted by name
/// as the API requires; each message and each file goes into `blobs`. Returns the root's
/// digest.
fn directory_tree(files: &BTreeMap<String, Blob>, blobs: &mut Vec<Blob>) -> Digest {
    #[derive(Default)]
    struct Node {
        files: BTreeMap<String, Digest>,
        dirs: BTreeMap<String, Node>,
    }
    let mut root = Node::default();
    for (path, blob) in files {
        let mut parts: Vec<&str> = path.split('/').collect();
        let Some(name) = parts.pop() else { continue };
        // The paths are files of one folder (and `settings.json` beside `src/`), so no name
        // is both a file and a folder.
        let mut node = &mut root;
        for p in parts {
            node = node.dirs.entry(p.to_string()).or_default();
        }
        node.files.insert(name.to_string(), blob.digest.clone());
        blobs.push(blob.clone());
    }
    fn encode(node: &Node, blobs: &mut Vec<Blob>) -> Digest {
        let dir = Directory {
            files: node
                .files
                .iter()
                .map(|(name, d)| FileNode {
                    name: name.clone(),
                    digest: Some(d.clone()),
                    ..Default::default()
                })
                .collect(),
            directories: node
                .dirs
                .iter()
                .map(|(name, child)| DirectoryNode {
                    name: name.clone(),
                    digest: Some(encode(child, blobs)),
                })
                .collect(),
            ..Default::default()
        };
        let bytes = prost::Message::encode_to_vec(&dir);
        let digest = digest_of(&bytes);
        blobs.push(Blob {
            digest: digest.clone(),
            data: BlobData::Bytes(bytes),
        });
        digest
    }
    encode(&root, blobs)
}

/// The description `out/result.json` holds (§2.4): the assets without their bytes, as JSON.
pub fn result_description(assets: &[SharedAsset]) -> Result<Vec<u8>, RemoteError> {
    serde_json::to_vec(assets).map_err(|e| RemoteError::Protocol {
        rpc: "UpdateActionResult",
        message: e.to_string(),
    })
}

/// Runs a conversion action's command in `root`, its input root (§2.1): `args` are the
/// command's arguments after `voxcaf asset convert-action` (`settings.json`, `src/<REL>`).
/// Converts the source with the settings and writes `out/` (§2.4): each asset under its
/// output name and `out/result.json`. Returns the assets. Refuses any other arguments, and a
/// source path that leaves `src/`.
pub fn run_conversion(root: &Path, args: &[String]) -> Result<Vec<SharedAsset>, RemoteError> {
    let not_ours = |what: String| RemoteError::NotAnAction(what);
    let [settings_arg, source_arg] = args else {
        return Err(not_ours(format!(
            "expected 2 arguments ({SETTINGS_FILE} and {SOURCE_DIR}/PATH), got {}",
            args.len()
        )));
    };
    if settings_arg != SETTINGS_FILE {
        return Err(not_ours(format!(
            "the settings are {SETTINGS_FILE}, not {settings_arg:?}"
        )));
    }
    let rel = source_arg
        .strip_prefix(&format!("{SOURCE_DIR}/"))
        .filter(|rel| {
            !rel.is_empty()
                && rel
                    .split('/')
                    .all(|p| !p.is_empty() && p != "." && p != "..")
        })
        .ok_or_else(|| {
            not_ours(format!(
                "the source must be a path inside {SOURCE_DIR}/, not {source_arg:?}"
            ))
        })?;
    let settings_path = root.join(SETTINGS_FILE);
    let text = std::fs::read(&settings_path).map_err(|e| RemoteError::io(&settings_path, e))?;
    let settings: Settings = serde_json::from_slice(&text)
        .map_err(|e| not_ours(format!("{}: {e}", settings_path.display())))?;
    let assets = caf_import::batch::convert_source(&root.join(SOURCE_DIR), rel, &settings)?;
    let out = root.join(OUTPUT_DIR);
    for a in &assets {
        let path = out.join(&a.output);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| RemoteError::io(dir, e))?;
        }
        voxcaf_fs::write_atomic(&path, &a.file).map_err(|e| RemoteError::io(&path, e))?;
    }
    let path = out.join(RESULT_FILE);
    voxcaf_fs::write_atomic(&path, &result_description(&assets)?)
        .map_err(|e| RemoteError::io(&path, e))?;
    Ok(assets)
}

/// Folders an input root may nest (a conversion's are a few deep).
const MAX_DEPTH: usize = 64;

/// Writes the input root whose `Directory` message has digest `root` into the empty folder
/// `dir`, reading every message and file through `blob` (the CAS, or a list of blobs). Names
/// are checked (no `/`, `.`, `..` or empty name), nesting is bounded, and files are written
/// not executable.
pub fn materialize(
    root: &Digest,
    blob: &dyn Fn(&Digest) -> Result<Vec<u8>, RemoteError>,
    dir: &Path,
) -> Result<(), RemoteError> {
    fn walk(
        digest: &Digest,
        blob: &dyn Fn(&Digest) -> Result<Vec<u8>, RemoteError>,
        dir: &Path,
        depth: usize,
    ) -> Result<(), RemoteError> {
        let bad = |message: String| RemoteError::Protocol {
            rpc: "input root",
            message,
        };
        if depth > MAX_DEPTH {
            return Err(bad(format!("folders nested deeper than {MAX_DEPTH}")));
        }
        let bytes = blob(digest)?;
        let node: Directory =
            prost::Message::decode(bytes.as_slice()).map_err(|e| bad(e.to_string()))?;
        std::fs::create_dir_all(dir).map_err(|e| RemoteError::io(dir, e))?;
        // A node's digest, once its name is checked (`what`: file or folder).
        let checked = |what: &str, name: &str, digest: Option<&Digest>| {
            let name_ok =
                !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\']);
            if !name_ok {
                return Err(bad(format!("{what} name {name:?}")));
            }
            digest
                .cloned()
                .ok_or_else(|| bad(format!("{what} {name:?} has no digest")))
        };
        for f in &node.files {
            let d = checked("file", &f.name, f.digest.as_ref())?;
            let path = dir.join(&f.name);
            std::fs::write(&path, blob(&d)?).map_err(|e| RemoteError::io(&path, e))?;
        }
        for sub in &node.directories {
            let d = checked("folder", &sub.name, sub.digest.as_ref())?;
            walk(&d, blob, &dir.join(&sub.name), depth + 1)?;
        }
        Ok(())
    }
    walk(root, blob, dir, 0)
}
