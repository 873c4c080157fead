//! Worlds in PostgreSQL through the CLI, against a real server the test starts
//! (`voxcaf_pg_test`; skipped without PostgreSQL unless `VOXCAF_REQUIRE_POSTGRES=1`): every
//! golden world migrated file -> database -> file comes back exactly; the world commands read
//! a database world; concurrent writers (and one killed with SIGKILL) lose no update.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};

use common::{cli_json, run};
use voxcaf_pg_test::TestServer;

fn server() -> Option<TestServer> {
    TestServer::start()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = run(dir, args);
    assert_eq!(code, 0, "voxcaf {args:?}: {err}{out}");
    out
}

/// The golden worlds of the manifest (every one valid).
fn golden_worlds() -> Vec<std::path::PathBuf> {
    let Some(root) = voxcaf_golden::with_worlds() else {
        return Vec::new();
    };
    let m = std::fs::read_to_string(root.join("vwr/manifest.tsv")).unwrap();
    m.lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .map(|f| root.join("vwr").join(f))
        .collect()
}

#[test]
fn every_golden_world_migrates_to_the_database_and_back_exactly() {
    let Some(pg) = server() else { return };
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let worlds = golden_worlds();
    for (n, file) in worlds.iter().enumerate() {
        let f = file.to_str().unwrap();
        let url = pg.url(&format!("g{n}"));
        ok(d, &["world", "migrate", f, &url]);
        let back = d.join(format!("back{n}.vwr"));
        ok(d, &["world", "migrate", &url, back.to_str().unwrap()]);
        // The same bytes as resaving the file in its own format.
        let resaved = d.join(format!("resaved{n}.vwr"));
        ok(d, &["world", "resave", f, resaved.to_str().unwrap()]);
        let (a, b) = (
            std::fs::read(&resaved).unwrap(),
            std::fs::read(&back).unwrap(),
        );
        assert!(a == b, "{f}: the database round trip differs from a resave");
        // The read commands see the same world in the database.
        assert_eq!(
            ok(d, &["world", "dump", &url]),
            ok(d, &["world", "dump", f]),
            "{f}"
        );
    }
    if worlds.is_empty() {
        return;
    }
    let url = pg.url("g0");
    let list = cli_json(d, &format!("world list {url} --json"));
    assert_eq!(list["worlds"].as_array().unwrap().len(), worlds.len());
    assert!(ok(d, &["world", "check", &url]).starts_with("OK"));
    let info = cli_json(d, &format!("world info {url} --json"));
    assert_eq!(info["database"], true);
    // A world that exists is not replaced without --replace.
    let (code, _, err) = run(d, &["world", "migrate", worlds[0].to_str().unwrap(), &url]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("exists"), "{err}");
    ok(
        d,
        &[
            "world",
            "migrate",
            worlds[0].to_str().unwrap(),
            &url,
            "--replace",
        ],
    );
}

#[test]
fn a_database_world_is_made_edited_and_read_by_the_world_commands() {
    let Some(pg) = server() else { return };
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let url = pg.url("level");
    ok(d, &["world", "new", &url, "--size", "100x50x100"]);
    let e = ok(
        d,
        &[
            "world",
            "edit",
            &url,
            "box 0 0 0 99 0 99 rockpile",
            "place 5 1 5 35:2",
        ],
    );
    assert!(e.contains("committed to"), "{e}");
    let j = cli_json(d, &format!("world get {url} 5,1,5 --json"));
    assert_eq!(
        (j["type"].as_u64(), j["meta"].as_u64()),
        (Some(35), Some(2))
    );
    let h = cli_json(d, &format!("world history {url} --json"));
    let commits = h["commits"].as_array().unwrap();
    assert_eq!(commits.len(), 1, "{h}");
    assert!(commits[0]["summary"]
        .as_str()
        .unwrap()
        .contains("place 5 1 5 35:2"));
    // mesh and render read it too.
    ok(d, &["world", "render", &url, "-o", "v.png"]);
    assert!(d.join("v.png").is_file());
    // A dry run writes nothing; a world that is not there is a clear error.
    ok(d, &["world", "edit", &url, "--dry-run", "place 6 1 6 35"]);
    assert_eq!(
        cli_json(d, &format!("world history {url} --json"))["commits"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let (code, _, err) = run(d, &["world", "info", &pg.url("nope")]);
    assert_eq!(code, 1);
    assert!(err.contains("nope"), "{err}");
    // A password in the URL is refused and never repeated.
    let with_password = pg.url("level").replacen("postgres@", "postgres:s3cret@", 1);
    let (code, out, err) = run(d, &["world", "info", &with_password]);
    assert_eq!(code, 1);
    assert!(err.contains("password") && !(err + &out).contains("s3cret"));
    // The commit reports its chunks.
    let e = ok(d, &["world", "edit", &url, "place 7 1 7 35"]);
    assert!(
        e.contains("as commit 2: 1 chunk") && !e.contains("1 chunks"),
        "{e}"
    );
    // Revert makes commit 1 current again as commit 3, which can itself be reverted.
    let block = |d: &Path| cli_json(d, &format!("world get {url} 7,1,7 --json"))["type"].clone();
    assert_eq!(block(d), 35);
    let r = cli_json(d, &format!("world revert {url} --json"));
    assert_eq!(
        (r["commit"].as_u64(), r["reverted_to"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(block(d), 0);
    ok(d, &["world", "revert", &url]);
    assert_eq!(block(d), 35);
    let h = cli_json(d, &format!("world history {url} --json"));
    assert_eq!(h["commits"][0]["kind"], "revert", "{h}");
    // Compact keeps the last commit's state only: a revert past it is refused, naming why.
    ok(d, &["world", "compact", &url, "--keep", "1"]);
    let (code, _, err) = run(d, &["world", "revert", &url, "--to", "1"]);
    assert_eq!(code, 1);
    assert!(err.contains("commit 1 is not in the kept history"), "{err}");
}

/// A writer: `voxcaf world edit URL OP` once per operation, printing each acknowledged
/// operation that changed the world on its own line.
fn writer(url: &str, seed: u64, ops: usize) -> Child {
    let mut script = String::new();
    let mut rng = voxcaf_golden::Rng::new(seed);
    for _ in 0..ops {
        // Overlapping chunks: every writer works in the same 30x5x30 corner.
        let (x, y, z) = (rng.range(0, 29), rng.range(0, 4), rng.range(0, 29));
        let op = match rng.below(3) {
            0 => format!("place {x} {y} {z} {}", 1 + rng.below(60)),
            1 => format!(
                "box {x} {y} {z} {} {} {} {}",
                x + 3,
                y,
                z + 2,
                1 + rng.below(60)
            ),
            _ => format!(
                "replace {} {} {x} 0 {z} {} 4 {}",
                1 + rng.below(60),
                1 + rng.below(60),
                x + 5,
                z + 5
            ),
        };
        script.push_str(&op);
        script.push('\n');
    }
    let exe = env!("CARGO_BIN_EXE_voxcaf");
    // Acknowledged and changing something: printed. (An operation that changes nothing
    // commits nothing, so it is in no log.)
    let sh = format!(
        "while IFS= read -r op; do r=$({exe} world edit '{url}' --json \"$op\") || exit 1; \
         case \"$r\" in *'\"changed\": true'*) echo \"$op\";; esac; done"
    );
    let mut child = Command::new("sh")
        .args(["-c", &sh])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    child
}

/// The final world equals the serial application of the committed operations in commit
/// order, and every operation a writer saw acknowledged is among them.
fn check_serial(d: &Path, url: &str, acknowledged: &[String]) {
    let h = cli_json(d, &format!("world history {url} --json"));
    let mut commits: Vec<(u64, String)> = h["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["generation"].as_u64().unwrap(),
                c["summary"].as_str().unwrap().trim_end().to_string(),
            )
        })
        .collect();
    commits.sort();
    // `world new` makes no commit: every commit is one writer's operation.
    let logged: Vec<&str> = commits.iter().map(|(_, s)| s.as_str()).collect();
    for op in acknowledged {
        assert!(
            logged.contains(&op.as_str()),
            "acknowledged {op:?} is not in the log"
        );
    }
    // Replay on a file made the way the database world was.
    let replay = d.join("replay.vwr");
    ok(
        d,
        &[
            "world",
            "new",
            replay.to_str().unwrap(),
            "--size",
            "100x50x100",
            "--format",
            "v3",
            "--force",
        ],
    );
    let script = d.join("replay.txt");
    std::fs::write(&script, logged.join("\n")).unwrap();
    ok(
        d,
        &[
            "world",
            "edit",
            replay.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
        ],
    );
    let fin = d.join("final.vwr");
    ok(
        d,
        &[
            "world",
            "migrate",
            url,
            fin.to_str().unwrap(),
            "--format",
            "v3",
            "--replace",
        ],
    );
    let (code, out, err) = run(
        d,
        &[
            "world",
            "diff",
            replay.to_str().unwrap(),
            fin.to_str().unwrap(),
        ],
    );
    assert_eq!(
        code, 0,
        "the database world differs from the serial replay: {out}{err}"
    );
}

#[test]
fn four_writers_lose_no_update_even_when_one_is_killed() {
    let Some(pg) = server() else { return };
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    for (name, kill) in [("calm", false), ("killed", true)] {
        let url = pg.url(name);
        ok(
            d,
            &[
                "world",
                "new",
                &url,
                "--size",
                "100x50x100",
                "--format",
                "v3",
            ],
        );
        let ops = 250;
        let mut writers: Vec<Child> = (0..4).map(|i| writer(&url, 7 + i, ops)).collect();
        if kill {
            std::thread::sleep(std::time::Duration::from_millis(800));
            // SIGKILL the whole writer: the shell and the edit it is running.
            let pid = writers[0].id();
            let _ = Command::new("pkill")
                .args(["-KILL", "-P", &pid.to_string()])
                .status();
            writers[0].kill().unwrap();
        }
        let mut acknowledged = Vec::new();
        for (i, w) in writers.into_iter().enumerate() {
            let out = w.wait_with_output().unwrap();
            let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(String::from)
                .collect();
            if kill && i == 0 {
                // Killed in the middle, not after its last operation.
                assert!(
                    lines.len() < ops,
                    "the writer finished before it was killed"
                );
            } else {
                // Most operations change something.
                assert!(lines.len() > ops / 2, "{}", lines.len());
            }
            acknowledged.extend(lines);
        }
        check_serial(d, &url, &acknowledged);
    }
}
