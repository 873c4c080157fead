//! The floor of a remote cache round: a BuildGrid started (crates/bgd-test), 10,000 action
//! results stored and looked up (`get_action_results`, concurrent) and 10,000 small blobs
//! uploaded and read back (`download`, batches), each step timed.
//!
//! `cargo run --release -p voxcaf-remote --example floor [COUNT]`, or with `-- --url URL` to
//! measure a running server instead.

use std::time::Instant;
use voxcaf_remote::proto::reapi::{ActionResult, OutputFile};
use voxcaf_remote::{digest_of, Digest, Remote};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let url_arg = args.iter().position(|a| a == "--url").map(|i| i + 1);
    let count: usize = args
        .iter()
        .enumerate()
        .find(|(i, a)| Some(*i) != url_arg && !a.starts_with("--"))
        .map_or(Ok(10_000), |(_, a)| a.parse())?;
    let mut _server = None;
    let url = match url_arg.and_then(|i| args.get(i)) {
        Some(url) => url.clone(),
        None => {
            let t = Instant::now();
            let server = voxcaf_bgd_test::BuildGrid::start().ok_or("BuildGrid unavailable")?;
            println!(
                "server start: {:?} (listening after {:?})",
                t.elapsed(),
                server.startup()
            );
            let url = server.url();
            _server = Some(server);
            url
        }
    };
    let t = Instant::now();
    let remote = Remote::connect(&url, "")?;
    println!("connect + capabilities: {:?}", t.elapsed());

    let blobs: Vec<Vec<u8>> = (0..count)
        .map(|i| format!("small blob number {i} of the floor measurement").into_bytes())
        .collect();
    let digests: Vec<Digest> = blobs.iter().map(|b| digest_of(b)).collect();
    let actions: Vec<Digest> = (0..count)
        .map(|i| digest_of(format!("action {i}").as_bytes()))
        .collect();

    let t = Instant::now();
    let missing = remote.find_missing(&digests)?;
    println!(
        "find_missing {count}: {:?} ({} missing)",
        t.elapsed(),
        missing.len()
    );

    let t = Instant::now();
    let pairs: Vec<(Digest, &[u8])> = digests
        .iter()
        .cloned()
        .zip(blobs.iter().map(|b| &b[..]))
        .collect();
    remote.upload(&pairs)?;
    println!("upload {count} small blobs (batches): {:?}", t.elapsed());

    let t = Instant::now();
    let misses = remote.get_action_results(&actions)?;
    let hit = misses.iter().filter(|r| r.is_some()).count();
    println!(
        "get_action_results {count} (misses): {:?} ({hit} hits)",
        t.elapsed()
    );

    let t = Instant::now();
    for (action, digest) in actions.iter().zip(&digests) {
        let result = ActionResult {
            output_files: vec![OutputFile {
                path: "out".into(),
                digest: Some(digest.clone()),
                ..Default::default()
            }],
            ..Default::default()
        };
        remote.update_action_result(action, &result)?;
    }
    println!(
        "update_action_result {count} (one by one): {:?}",
        t.elapsed()
    );

    let t = Instant::now();
    let hits = remote.get_action_results(&actions)?;
    let hit = hits.iter().filter(|r| r.is_some()).count();
    println!(
        "get_action_results {count} (hits): {:?} ({hit} hits)",
        t.elapsed()
    );

    let t = Instant::now();
    for action in actions.iter().take(1000.min(count)) {
        remote.get_action_result(action)?;
    }
    println!(
        "get_action_result {} one by one: {:?}",
        1000.min(count),
        t.elapsed()
    );

    let t = Instant::now();
    let back = remote.download(&digests)?;
    assert!(back == blobs, "the blobs came back different");
    println!("download {count} small blobs (batches): {:?}", t.elapsed());
    println!(
        "calls retried after RESOURCE_EXHAUSTED: {}",
        remote.retries()
    );
    Ok(())
}
