//! The executing BuildGrid runs one action end to end: `execute_e2e.py` (the venv's Python,
//! grpc and BuildGrid's generated modules) is the client and the bot. It prints its timings
//! and the lease and bot session fields it saw (`cargo test -p voxcaf-bgd-test --test
//! execution -- --nocapture`).

use std::path::Path;
use std::process::Command;
use std::time::Instant;
use voxcaf_bgd_test::BuildGrid;

#[test]
fn a_bot_executes_an_action_and_the_second_execute_is_a_cache_hit() {
    let begun = Instant::now();
    let Some(server) = BuildGrid::start_execution() else {
        return;
    };
    eprintln!(
        "PostgreSQL, migrations and BuildGrid (execution) in {:?}, bgd alone {:?}",
        begun.elapsed(),
        server.startup()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/execute_e2e.py");
    let out = Command::new(server.python())
        .arg(&script)
        .arg(format!("127.0.0.1:{}", server.port()))
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", server.python().display()));
    eprintln!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{} failed ({}); BuildGrid's log:\n{}",
        script.display(),
        out.status,
        server.log_tail()
    );
}
