//! Many writers, no lost update (vwr-postgres.md §3): concurrent `edit_store` writers, and a
//! writer killed with SIGKILL mid-commit.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;
use voxcaf_golden::Rng;
use vwr::{ChunkStore, World};
use vwr_edit::script::apply_ops;
use vwr_edit::Editor;
use vwr_postgres::{list_worlds, PgLocation, PgStore};

/// Chunks per axis of the shared world: small, so that the writers' edits overlap.
const DIMS: [u32; 3] = [3, 2, 3];

/// A random `place` or `box` over the shared world (never air, so that no chunk empties).
fn random_op(rng: &mut Rng) -> String {
    let b = 33 + rng.below(8);
    let p = |rng: &mut Rng, k: usize| rng.range(0, DIMS[k] as i32 * 10 - 1);
    if rng.below(2) == 0 {
        format!("place {} {} {} {b}", p(rng, 0), p(rng, 1), p(rng, 2))
    } else {
        let a = [p(rng, 0), p(rng, 1), p(rng, 2)];
        let e = a.map(|v| v + rng.range(0, 12));
        format!(
            "box {} {} {} {} {} {} {b}",
            a[0], a[1], a[2], e[0], e[1], e[2]
        )
    }
}

/// The world the `commits` log gives when replayed serially in seq order on an empty world;
/// also checks the seqs are 1, 2, 3, ... with no gap.
fn replay(store: &mut PgStore) -> (World, HashMap<u64, String>) {
    let mut log = store.commits(usize::MAX).unwrap();
    log.reverse();
    let mut ed = Editor::new(World::with_chunk_dims(store.head().unwrap().chunk_dims).unwrap());
    let mut by_seq = HashMap::new();
    for (i, c) in log.iter().enumerate() {
        assert_eq!(c.seq, i as u64 + 1, "the log has a gap");
        apply_ops(&mut ed, &script(&c.summary), 1_000_000).unwrap();
        by_seq.insert(c.seq, c.summary.clone());
    }
    assert_eq!(store.head().unwrap().head, log.len() as u64);
    (ed.into_world(), by_seq)
}

/// Checks the world equals its replayed log and every acknowledged `(seq, script)` is in it.
fn check_log(store: &mut PgStore, acked: &[(u64, String)]) {
    let (replayed, log) = replay(store);
    assert!(
        load(store) == replayed,
        "the world differs from its replayed log"
    );
    for (seq, text) in acked {
        assert_eq!(
            log.get(seq),
            Some(text),
            "acknowledged commit {seq} missing"
        );
    }
}

#[test]
fn concurrent_writers_lose_no_update() {
    let Some(srv) = server() else { return };
    let l = loc(&srv, "shared");
    drop(create_empty(&l, DIMS));
    let writers: Vec<_> = (0..4u64)
        .map(|t| {
            let l = l.clone();
            std::thread::spawn(move || {
                let mut store = PgStore::open(&l).unwrap();
                let mut rng = Rng::new(0x5eed + t);
                let mut acked = Vec::new();
                let mut retried = 0;
                for _ in 0..50 {
                    let text: String = (0..1 + rng.below(3))
                        .map(|_| random_op(&mut rng) + "\n")
                        .collect();
                    let done = edit(&mut store, &text);
                    retried += done.attempts - 1;
                    // (A script that changes nothing commits nothing.)
                    if let Some(c) = done.committed {
                        acked.push((c.seq, text));
                    }
                }
                (acked, retried)
            })
        })
        .collect();
    let mut acked = Vec::new();
    let mut retried = 0;
    for w in writers {
        let (a, r) = w.join().unwrap();
        acked.extend(a);
        retried += r;
    }
    assert!(acked.len() > 190);
    eprintln!("200 commits by 4 writers, {retried} retries after conflicts");
    let mut store = PgStore::open(&l).unwrap();
    check_log(&mut store, &acked);
}

/// The world the killed writer imports as `imp-N`: deterministic from N, about 150 chunks.
fn import_content(n: u64) -> World {
    let mut rng = Rng::new(n);
    let text: String = (0..40).map(|_| random_op(&mut rng) + "\n").collect();
    let mut ed = Editor::new(World::with_chunk_dims([10, 2, 10]).unwrap());
    apply_ops(&mut ed, &script(&text), 1_000_000).unwrap();
    let mut ed2 = Editor::new(World::with_chunk_dims([10, 2, 10]).unwrap());
    // Spread over the whole world: the same ops shifted to every 3x3 block of chunks.
    for dx in [0, 30, 60] {
        for dz in [0, 30, 60] {
            let shifted: String = text.lines().map(|op| shift(op, dx, dz) + "\n").collect();
            apply_ops(&mut ed2, &script(&shifted), 1_000_000).unwrap();
        }
    }
    drop(ed);
    ed2.into_world()
}

/// An op of [`random_op`] moved by `dx`, `dz` cells.
fn shift(op: &str, dx: i32, dz: i32) -> String {
    let mut w: Vec<String> = op.split(' ').map(String::from).collect();
    let n = w.len() - 1;
    for (i, v) in w.iter_mut().enumerate().take(n).skip(1) {
        let d = match (i - 1) % 3 {
            0 => dx,
            2 => dz,
            _ => 0,
        };
        *v = (v.parse::<i32>().unwrap() + d).to_string();
    }
    w.join(" ")
}

const WRITER_ENV: &str = "VOXCAF_PG_KILL_WRITER";

/// The writer the kill test runs in a child process: imports `imp-N` worlds and commits
/// edits to `shared`, printing `acked SEQ` after each acknowledged commit, until killed.
fn writer(url: &str) -> ! {
    let shared = PgLocation::parse(&format!("{url}shared")).unwrap();
    let mut store = PgStore::open(&shared).unwrap();
    let mut rng = Rng::new(std::process::id().into());
    for n in 0.. {
        let w = import_content(n);
        import_world(&PgLocation::parse(&format!("{url}imp-{n}")).unwrap(), &w);
        println!("imported {n}");
        for _ in 0..3 {
            let text = random_op(&mut rng) + "\n";
            if let Some(c) = edit(&mut store, &text).committed {
                println!("acked {} {}", c.seq, text.trim_end());
            }
        }
    }
    unreachable!()
}

#[test]
fn a_writer_killed_mid_commit_leaves_whole_commits() {
    if let Ok(url) = std::env::var(WRITER_ENV) {
        writer(&url);
    }
    let Some(srv) = server() else { return };
    let shared = loc(&srv, "shared");
    drop(create_empty(&shared, DIMS));
    let base = srv.url("");
    let mut rng = Rng::new(u64::from(std::process::id()));
    let mut acked = Vec::new();
    for round in 0..3 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_writer_killed_mid_commit_leaves_whole_commits",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(WRITER_ENV, &base)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(700 + rng.below(1500)));
        assert!(
            child.try_wait().unwrap().is_none(),
            "the writer ended before the kill"
        );
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(9)
        );
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut imported = 0;
        for line in out.lines().map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix("acked ") {
                let (seq, op) = rest.split_once(' ').unwrap();
                acked.push((seq.parse().unwrap(), format!("{op}\n")));
            } else if line.starts_with("imported") {
                imported += 1;
            }
        }
        eprintln!(
            "round {round}: {imported} imports acknowledged, {} commits so far",
            acked.len()
        );
        // Every imported world is absent or complete: an import is one commit.
        for row in list_worlds(&shared).unwrap() {
            let Some(n) = row.name.strip_prefix("imp-") else {
                continue;
            };
            let l = loc(&srv, &row.name);
            let mut store = PgStore::open(&l).unwrap();
            assert!(
                load(&mut store) == import_content(n.parse().unwrap()),
                "{} is partial",
                row.name
            );
            assert_eq!(store.commits(5).unwrap().len(), 1);
            drop(store);
            sql(
                &l,
                &format!("DELETE FROM voxcaf.worlds WHERE name = '{}'", row.name),
            );
        }
        let mut store = PgStore::open(&shared).unwrap();
        check_log(&mut store, &acked);
    }
}
