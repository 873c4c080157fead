//! `voxcaf asset build --remote-cache` against a real BuildGrid (crates/bgd-test; skipped
//! without it unless VOXCAF_REQUIRE_BUILDGRID=1): two checkouts of one source tree share every
//! conversion, byte for byte; every fault converts locally with a warning and the same bytes.

mod common;

use std::path::{Path, PathBuf};

use caf_import::Settings;
use common::run;
use voxcaf_remote::action::conversion_action;
use voxcaf_remote::proto::reapi::{ActionResult, OutputFile};
use voxcaf_remote::{digest_of, Remote};

/// The demo's source tree plus every golden conversion input (the invalid ones fail, in every
/// build alike).
fn source_tree(dir: &Path) -> PathBuf {
    let src = dir.join("src");
    voxcaf_samples::write_source_tree(&src).expect("demo sources");
    if let Some(caf) = voxcaf_golden::caf() {
        copy_dir(&caf.join("inputs"), &src.join("golden"));
    }
    src
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy");
        }
    }
}

/// Every `.caf` file under `dir`, relative, with its bytes.
fn outputs(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    files_under(dir)
        .into_iter()
        .filter(|f| f.ends_with(".caf"))
        .map(|f| {
            let bytes = std::fs::read(dir.join(&f)).expect("read");
            (PathBuf::from(f), bytes)
        })
        .collect()
}

fn build_json(dir: &Path, args: &[&str]) -> (i32, serde_json::Value, String) {
    let mut all = vec!["asset", "build", "--json"];
    all.extend_from_slice(args);
    let (code, out, err) = run(dir, &all);
    let v = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, v, err)
}

#[test]
fn two_checkouts_share_every_conversion_byte_for_byte() {
    let Some(server) = voxcaf_bgd_test::BuildGrid::start() else {
        return;
    };
    let url = server.url();
    let t = tempfile::tempdir().expect("tempdir");
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    let src_a = source_tree(&a);
    source_tree(&b);
    let (code_local, local, _) = build_json(&a, &["src", "local"]);
    assert!(local["remote"].is_null());
    let n = local["converted"].as_u64().expect("count");
    assert!(n >= 20, "{local}");
    let failed = local["failed"].as_array().map_or(0, Vec::len) as u64;

    let (code_a, first, err) = build_json(&a, &["src", "out", "--remote-cache", &url]);
    assert_eq!(code_a, code_local, "{err}");
    let r = &first["remote"];
    assert_eq!(r["hits"], 0, "{first}");
    // Failures are looked up too and never stored.
    assert_eq!(r["misses"].as_u64(), Some(n + failed), "{first}");
    assert!(r["uploaded"].as_u64() >= Some(1) && r["bytes_up"].as_u64() > Some(0));

    // The second checkout converts nothing: every asset comes from the cache.
    let (code_b, second, err) = build_json(&b, &["src", "out", "--remote-cache", &url]);
    assert_eq!(code_b, code_local, "{err}");
    let r = &second["remote"];
    assert_eq!(r["uploaded"], 0, "{second}");
    assert_eq!(r["fallbacks"], 0, "{second}");
    assert_eq!(r["hits"], first["remote"]["uploaded"], "{second}");
    assert_eq!(second["converted"].as_u64(), Some(n));
    let manifest = std::fs::read_to_string(b.join("out/manifest.json")).expect("manifest");
    assert_eq!(
        manifest.matches("\"origin\": \"cache\"").count() as u64,
        n,
        "{manifest}"
    );
    // Byte for byte what a local build writes.
    let want = outputs(&a.join("local"));
    assert_eq!(want.len() as u64, n);
    assert!(want == outputs(&a.join("out")), "first build differs");
    assert!(want == outputs(&b.join("out")), "fetched outputs differ");

    // Read-only: fetches, never stores (a changed source misses and is not uploaded).
    std::fs::write(
        src_a.join("extra.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    )
    .expect("write");
    let args = [
        "src",
        "ro",
        "--remote-cache",
        &url,
        "--remote-cache-read-only",
    ];
    let (_, ro, _) = build_json(&a, &args);
    assert_eq!(ro["remote"]["misses"].as_u64(), Some(1 + failed), "{ro}");
    assert_eq!(ro["remote"]["uploaded"], 0, "{ro}");
    let (_, again, _) = build_json(&a, &["src", "ro2", "--remote-cache", &url]);
    assert_eq!(
        again["remote"]["misses"].as_u64(),
        Some(1 + failed),
        "{again}"
    );
}

/// An action cache entry whose blobs the CAS never got (as after an eviction), one whose
/// description names an output outside the output folder, and a server gone before the
/// build: each source converts locally (with one warning per kind of fault the client sees),
/// the outputs as a local build's.
#[test]
fn faults_convert_locally_with_the_same_bytes() {
    let Some(server) = voxcaf_bgd_test::BuildGrid::start() else {
        return;
    };
    let url = server.url();
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path();
    let src = d.join("src");
    std::fs::create_dir_all(&src).expect("mkdir");
    let tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    std::fs::write(src.join("evicted.obj"), tri).expect("write");
    std::fs::write(src.join("lying.obj"), format!("{tri}# other\n")).expect("write");
    let (_, local, _) = build_json(d, &["src", "local"]);
    assert_eq!(local["converted"], 2);

    let remote = Remote::connect(&url, "").expect("connect");
    let s = Settings::default();
    // evicted.obj: a result naming blobs the CAS does not hold.
    let evicted = conversion_action(&src, "evicted.obj", &s, None).expect("action");
    let ghost = |name: &str, bytes: &[u8]| OutputFile {
        path: format!("out/{name}"),
        digest: Some(digest_of(bytes)),
        ..Default::default()
    };
    let result = ActionResult {
        output_files: vec![
            ghost("evicted.caf", b"never uploaded"),
            ghost("result.json", b"[]never"),
        ],
        ..Default::default()
    };
    remote
        .update_action_result(&evicted.digest, &result)
        .expect("store");
    // lying.obj: a result whose description names an output outside the build's names.
    let lying = conversion_action(&src, "lying.obj", &s, None).expect("action");
    let caf = std::fs::read(d.join("local/lying.caf")).expect("local output");
    let description = br#"[{"output":"../../escape.caf","entry":null,"kind":"mesh","payload_size":1,"payload_crc32":0,"summary":"x","dependencies":[]}]"#;
    let pairs: Vec<(voxcaf_remote::Digest, &[u8])> = vec![
        (digest_of(&caf), caf.as_slice()),
        (digest_of(description), description.as_slice()),
    ];
    remote.upload(&pairs).expect("upload");
    let result = ActionResult {
        output_files: vec![
            ghost("../../escape.caf", &caf),
            ghost("result.json", description),
        ],
        ..Default::default()
    };
    remote
        .update_action_result(&lying.digest, &result)
        .expect("store");

    let (code, v, err) = run_text(d, &["src", "out", "--remote-cache", &url]);
    assert_eq!(code, 0, "{v}{err}");
    // BuildGrid itself answers a result whose blobs are gone as a miss; a server that does
    // not check gets the client's own "missing blob" fallback.
    let missing_blob = err.contains("missing blob for evicted.obj");
    assert!(err.contains("bad result for lying.obj"), "{err}");
    assert_eq!(
        err.matches("warning").count(),
        1 + usize::from(missing_blob),
        "one warning per kind: {err}"
    );
    assert!(!d.join("escape.caf").exists() && !t.path().join("escape.caf").exists());
    assert!(outputs(&d.join("local")) == outputs(&d.join("out")));

    // The server gone: one warning, a local build.
    drop(remote);
    drop(server);
    let (code, out, err) = run_text(d, &["src", "gone", "--remote-cache", &url]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(err.matches("warning").count(), 1, "{err}");
    assert!(err.contains("converting everything locally"), "{err}");
    assert!(outputs(&d.join("local")) == outputs(&d.join("gone")));
}

fn run_text(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["asset", "build"];
    all.extend_from_slice(args);
    run(dir, &all)
}

#[test]
fn help_shows_the_remote_cache_with_examples() {
    common::assert_help_example(
        &["asset", "build"],
        "voxcaf asset build assets/ build/ --remote-cache grpc://127.0.0.1:50051",
    );
    let (code, _, err) = run_text(Path::new("."), &["src", "out", "--remote-cache", "ftp://x"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad remote URL `ftp://x`"), "{err}");
}

/// The files under `dir`, relative and `/`-separated, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut v = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("inside");
                v.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    v.sort();
    v
}

/// Writes action `a`'s input root into `dir` from the action's own blobs (as a worker fetches
/// them from the CAS).
fn materialize(a: &voxcaf_remote::action::ConversionAction, dir: &Path) {
    use voxcaf_remote::action::BlobData;
    let blob = |d: &voxcaf_remote::Digest| -> Result<Vec<u8>, voxcaf_remote::RemoteError> {
        let b = a
            .blobs
            .iter()
            .find(|b| b.digest == *d)
            .expect("a blob of the action");
        Ok(match &b.data {
            BlobData::Bytes(v) => v.clone(),
            BlobData::File(p) => std::fs::read(p).expect("input file"),
        })
    };
    let root = a.action.input_root_digest.as_ref().expect("input root");
    voxcaf_remote::action::materialize(root, &blob, dir).expect("materialize");
}

#[test]
fn every_action_runs_from_its_input_root_alone_with_the_builds_bytes() {
    let t = tempfile::tempdir().expect("tempdir");
    let src = source_tree(t.path());
    let (code, _, err) = run(t.path(), &["asset", "build", "src", "local", "-q"]);
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(t.path().join("local/manifest.json")).expect("manifest"),
    )
    .expect("json");
    let failures = manifest["failures"].as_array().expect("failures");
    assert_eq!(code, i32::from(!failures.is_empty()), "{err}");
    let assets = manifest["assets"].as_array().expect("assets");
    let mut sources: Vec<&str> = assets.iter().filter_map(|e| e["source"].as_str()).collect();
    sources.dedup();
    assert!(sources.len() >= 20, "{sources:?}");
    for (i, source) in sources.iter().enumerate() {
        let entries: Vec<&serde_json::Value> =
            assets.iter().filter(|e| e["source"] == *source).collect();
        let settings: Settings =
            serde_json::from_value(entries[0]["settings"].clone()).expect("settings");
        let action = conversion_action(&src, source, &settings, None).expect("action");
        let root = t.path().join(format!("action{i}"));
        materialize(&action, &root);
        // The input root holds the settings, the source and what it declares, nothing else.
        let mut expected: Vec<String> = std::iter::once("settings.json".to_string())
            .chain(std::iter::once(format!("src/{source}")))
            .chain(action.declared.iter().map(|d| format!("src/{d}")))
            .filter(|p| p == "settings.json" || src.join(&p[4..]).is_file())
            .collect();
        expected.sort();
        assert_eq!(files_under(&root), expected, "{source}");
        // The command as the action states it, from the input root alone.
        let argv: Vec<&str> = action.command.arguments[1..]
            .iter()
            .map(String::as_str)
            .collect();
        let (code, out, err) = run(&root, &argv);
        assert_eq!(code, 0, "{source}: {out}{err}");
        let description: Vec<serde_json::Value> = serde_json::from_slice(
            &std::fs::read(root.join("out/result.json")).expect("result.json"),
        )
        .expect("result.json is JSON");
        assert_eq!(description.len(), entries.len(), "{source}");
        for d in &description {
            let e = entries
                .iter()
                .find(|e| e["output"] == d["output"])
                .expect("an entry");
            for field in [
                "output",
                "entry",
                "payload_size",
                "payload_crc32",
                "summary",
            ] {
                assert_eq!(d[field], e[field], "{source}: {field}");
            }
            // The manifest names the kind `type` and leaves out an empty dependency list.
            assert_eq!(d["kind"], e["type"], "{source}");
            let deps = match &e["dependencies"] {
                serde_json::Value::Null => serde_json::json!([]),
                v => v.clone(),
            };
            assert_eq!(d["dependencies"], deps, "{source}");
            let output = e["output"].as_str().expect("output");
            assert_eq!(
                std::fs::read(root.join("out").join(output)).expect("output file"),
                std::fs::read(t.path().join("local").join(output)).expect("local output"),
                "{source}: {output}"
            );
        }
    }
    // A source that fails in the build fails as an action too (exit 1, a message; no out/).
    for (i, f) in failures.iter().enumerate() {
        let source = f["source"].as_str().expect("source");
        // A source failed by its sidecar is not an action.
        if f["error"].as_str().is_some_and(|e| e.contains(".toml")) {
            continue;
        }
        let Ok(action) = conversion_action(&src, source, &Settings::default(), None) else {
            continue;
        };
        let root = t.path().join(format!("failing{i}"));
        materialize(&action, &root);
        let argv: Vec<&str> = action.command.arguments[1..]
            .iter()
            .map(String::as_str)
            .collect();
        let (code, _, err) = run(&root, &argv);
        assert_eq!(code, 1, "{source}");
        assert!(err.contains("error"), "{source}: {err}");
        assert!(!root.join("out/result.json").exists(), "{source}");
    }
}

#[test]
fn convert_action_refuses_other_commands() {
    let t = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(t.path().join("src")).expect("mkdir");
    std::fs::write(
        t.path().join("src/a.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    )
    .expect("source");
    let cases: [(&[&str], &str); 4] = [
        (
            &["other.json", "src/a.obj"],
            "the settings are settings.json",
        ),
        (&["settings.json", "a.obj"], "must be a path inside src/"),
        (
            &["settings.json", "src/../a.obj"],
            "must be a path inside src/",
        ),
        (&["settings.json", "src/a.obj"], "settings.json"),
    ];
    for (args, says) in cases {
        let mut argv = vec!["asset", "convert-action"];
        argv.extend_from_slice(args);
        let (code, _, err) = run(t.path(), &argv);
        assert_eq!(code, 1, "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!t.path().join("out").exists());
    }
    // With its settings it converts.
    std::fs::write(
        t.path().join("settings.json"),
        Settings::default().to_json().to_string(),
    )
    .expect("settings");
    let (code, out, err) = run(
        t.path(),
        &["asset", "convert-action", "settings.json", "src/a.obj"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("out/a.caf: mesh"), "{out}");
    assert!(t.path().join("out/result.json").is_file());
}

#[test]
fn a_worker_process_converts_what_a_build_sends_and_stops_on_ctrl_c() {
    let Some(server) = voxcaf_bgd_test::BuildGrid::start_execution() else {
        return;
    };
    let url = server.url();
    let t = tempfile::tempdir().expect("tempdir");
    let src = t.path().join("src");
    voxcaf_samples::write_source_tree(&src).expect("demo sources");
    let (code, local, _) = build_json(t.path(), &["src", "local"]);
    assert_eq!(code, 0, "{local}");
    let n = local["converted"].as_u64().expect("count");

    let worker = common::voxcaf()
        .args(["asset", "worker", &url, "--id", "cli-test-worker"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("worker");
    let (code, built, err) = build_json(
        t.path(),
        &["src", "remote", "--remote-cache", &url, "--remote-exec"],
    );
    assert_eq!(code, 0, "{built}\n{err}");
    assert_eq!(
        built["remote"]["executed"].as_u64(),
        Some(n),
        "{built}\n{err}"
    );
    assert_eq!(
        outputs(&t.path().join("remote")),
        outputs(&t.path().join("local"))
    );
    let manifest =
        std::fs::read_to_string(t.path().join("remote/manifest.json")).expect("manifest");
    assert_eq!(
        manifest.matches("\"origin\": \"remote\"").count() as u64,
        n,
        "{manifest}"
    );

    // Ctrl-C: the worker leaves the farm, says what it did and exits 130.
    let pid = worker.id().to_string();
    let ok = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill");
    assert!(ok.success());
    let out = worker.wait_with_output().expect("worker output");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(130),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("stopped after {n} actions")),
        "{stdout}"
    );
    assert!(stdout.contains("converted src/"), "{stdout}");
}

#[test]
fn worker_help_and_bad_urls() {
    let t = tempfile::tempdir().expect("tempdir");
    let (code, out, _) = run(t.path(), &["asset", "worker", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("voxcaf asset worker grpc://"), "{out}");
    let (code, _, err) = run(t.path(), &["asset", "worker", "ftp://x:1"]);
    assert_eq!(code, 1);
    assert!(err.contains("bad remote URL"), "{err}");
    let (code, _, err) = run(t.path(), &["asset", "build", "a", "b", "--remote-exec"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--remote-cache"), "{err}");
}
