//! The client against a real BuildGrid (crates/bgd-test); each test skips when BuildGrid cannot
//! be had (unless VOXCAF_REQUIRE_BUILDGRID=1).

use std::time::Instant;
use voxcaf_bgd_test::{BuildGrid, Server};
use voxcaf_remote::proto::reapi::{ActionResult, OutputFile};
use voxcaf_remote::{digest_of, digest_of_message, empty_digest, Digest, Remote, RemoteError};

fn start() -> Option<(Server, Remote)> {
    let server = BuildGrid::start()?;
    let t = Instant::now();
    let remote = Remote::connect(&server.url(), "")
        .unwrap_or_else(|e| panic!("{e}\nlog:\n{}", server.log_tail()));
    eprintln!(
        "BuildGrid listening after {:?}, connected in {:?}",
        server.startup(),
        t.elapsed()
    );
    Some((server, remote))
}

/// Deterministic bytes that do not repeat in small periods.
fn pseudo_random(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn capabilities_state_the_batch_limit_and_sha256() {
    let Some((_server, remote)) = start() else {
        return;
    };
    let cache = remote
        .capabilities()
        .cache_capabilities
        .clone()
        .unwrap_or_default();
    eprintln!(
        "max_batch_total_size_bytes {}",
        cache.max_batch_total_size_bytes
    );
    assert!(remote.max_batch_bytes() > 1 << 20);
    assert_eq!(
        remote.max_batch_bytes(),
        cache.max_batch_total_size_bytes as u64
    );
}

#[test]
fn small_and_big_blobs_round_trip_and_stop_being_missing() {
    let Some((_server, remote)) = start() else {
        return;
    };
    let small: Vec<Vec<u8>> = (0..50)
        .map(|i| pseudo_random(100 + i * 37, i as u64))
        .collect();
    let big = pseudo_random(10 << 20, 99);
    let mut blobs: Vec<(Digest, &[u8])> = small.iter().map(|b| (digest_of(b), &b[..])).collect();
    blobs.push((digest_of(&big), &big));
    blobs.push((empty_digest(), &[]));
    let digests: Vec<Digest> = blobs.iter().map(|(d, _)| d.clone()).collect();

    let missing = remote.find_missing(&digests).unwrap();
    assert_eq!(
        missing,
        digests[..51],
        "all but the empty blob are missing, in order"
    );
    remote.upload(&blobs).unwrap();
    assert_eq!(remote.find_missing(&digests).unwrap(), Vec::<Digest>::new());

    let back = remote.download(&digests).unwrap();
    assert_eq!(back.len(), blobs.len());
    for ((_, data), got) in blobs.iter().zip(&back) {
        assert!(*data == &got[..]);
    }
}

#[test]
fn files_stream_both_ways() {
    let Some((_server, remote)) = start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big.bin");
    let data = pseudo_random((10 << 20) + 12345, 7);
    std::fs::write(&src, &data).unwrap();
    let digest = remote.upload_file(&src).unwrap();
    assert_eq!(digest, digest_of(&data));
    assert!(remote
        .find_missing(std::slice::from_ref(&digest))
        .unwrap()
        .is_empty());
    // Uploading again is a no-op (found present).
    assert_eq!(remote.upload_file(&src).unwrap(), digest);

    let dst = dir.path().join("out/copy.bin");
    std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
    remote.download_to(&digest, &dst).unwrap();
    assert!(std::fs::read(&dst).unwrap() == data);
    // Only the file itself is left (no temporary file).
    assert_eq!(std::fs::read_dir(dst.parent().unwrap()).unwrap().count(), 1);

    let small = dir.path().join("small.txt");
    std::fs::write(&small, b"a small file").unwrap();
    let d = remote.upload_file(&small).unwrap();
    assert_eq!(
        remote.download(&[d]).unwrap(),
        vec![b"a small file".to_vec()]
    );
}

#[test]
fn missing_blobs_are_not_found_and_leave_no_file() {
    let Some((_server, remote)) = start() else {
        return;
    };
    let small = digest_of(b"never uploaded");
    let big = digest_of(&pseudo_random(8 << 20, 3));
    for d in [&small, &big] {
        match remote.download(std::slice::from_ref(d)) {
            Err(RemoteError::NotFound { digest }) => assert_eq!(digest, *d),
            other => panic!("{other:?}"),
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join("x");
    assert!(matches!(
        remote.download_to(&big, &dst),
        Err(RemoteError::NotFound { .. })
    ));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn action_results_miss_then_hit() {
    let Some((_server, remote)) = start() else {
        return;
    };
    let action = digest_of(b"an action");
    assert_eq!(remote.get_action_result(&action).unwrap(), None);
    let content = b"the asset";
    remote.upload(&[(digest_of(content), content)]).unwrap();
    let result = ActionResult {
        output_files: vec![OutputFile {
            path: "out/asset.caf".into(),
            digest: Some(digest_of(content)),
            ..Default::default()
        }],
        exit_code: 0,
        ..Default::default()
    };
    remote.update_action_result(&action, &result).unwrap();
    let got = remote.get_action_result(&action).unwrap().expect("a hit");
    assert_eq!(got.output_files, result.output_files);

    let other = digest_of_message(&result);
    let many = remote
        .get_action_results(&[action.clone(), other, action])
        .unwrap();
    assert_eq!(many.len(), 3);
    assert!(many[0].is_some() && many[1].is_none() && many[2].is_some());
}

#[test]
fn a_blob_stored_under_a_wrong_digest_is_refused_somewhere() {
    let Some((_server, remote)) = start() else {
        return;
    };
    // A blob whose digest names other content: the server refuses the upload, or the client
    // refuses the download; it never comes back as if intact.
    let wrong = digest_of(b"what the digest says");
    let content = b"what the data says!!".to_vec();
    assert_eq!(content.len() as i64, wrong.size_bytes);
    // The same through ByteStream: content bigger than a batch.
    let big_wrong = digest_of(&pseudo_random(6 << 20, 1));
    let big_content = pseudo_random(6 << 20, 2);
    for (digest, data) in [(wrong, &content[..]), (big_wrong, &big_content[..])] {
        let uploaded = remote.upload(&[(digest.clone(), data)]);
        eprintln!("upload under a wrong digest: {uploaded:?}");
        if uploaded.is_ok() {
            assert!(matches!(
                remote.download(&[digest]),
                Err(RemoteError::DigestMismatch { .. })
            ));
        } else {
            assert!(matches!(uploaded, Err(RemoteError::Status { .. })));
            assert!(!remote.find_missing(&[digest]).unwrap().is_empty());
        }
    }
}

#[test]
fn the_empty_blob_is_always_there() {
    let Some((_server, remote)) = start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty");
    std::fs::write(&path, b"").unwrap();
    assert_eq!(remote.upload_file(&path).unwrap(), empty_digest());
    let out = dir.path().join("out");
    remote.download_to(&empty_digest(), &out).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), Vec::<u8>::new());
    assert_eq!(
        remote.download(&[empty_digest()]).unwrap(),
        vec![Vec::<u8>::new()]
    );
}

#[test]
fn a_down_server_and_bad_input_are_errors() {
    let Some((server, remote)) = start() else {
        return;
    };
    let url = server.url();
    // An instance the server does not serve.
    let other = Remote::connect(&url, "no-such-instance");
    eprintln!("unknown instance: {other:?}");
    assert!(matches!(other, Err(RemoteError::Status { .. })));
    // Data that is not as long as its digest says.
    let short = remote.upload(&[(digest_of(b"four"), b"four!")]);
    assert!(matches!(short, Err(RemoteError::BadDigest { .. })));
    drop(server);
    let d = digest_of(b"x");
    assert!(matches!(
        remote.get_action_result(&d),
        Err(RemoteError::Status { .. })
    ));
    assert!(matches!(
        remote.download(std::slice::from_ref(&d)),
        Err(RemoteError::Status { .. })
    ));
    assert!(matches!(
        Remote::connect(&url, ""),
        Err(RemoteError::Connect { .. })
    ));
    assert!(matches!(
        Remote::connect("localhost:1", ""),
        Err(RemoteError::BadUrl { .. })
    ));
    let mut bad = d;
    bad.hash.truncate(10);
    assert!(matches!(
        remote.find_missing(&[bad]),
        Err(RemoteError::BadDigest { .. })
    ));
}

#[test]
fn more_calls_than_the_server_has_threads_all_get_answers() {
    // cache.yml gives the server 20 threads; 4 clients of 16 calls in flight each, and one
    // client shared by 4 threads the way rayon shares it, go beyond them (BuildGrid may answer
    // RESOURCE_EXHAUSTED then, which the client retries).
    let Some((server, shared)) = start() else {
        return;
    };
    let actions: Vec<Digest> = (0..400)
        .map(|i| digest_of(format!("action {i}").as_bytes()))
        .collect();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let own = Remote::connect(&server.url(), "").unwrap();
                let got = own.get_action_results(&actions).unwrap();
                assert!(got.iter().all(Option::is_none));
                eprintln!("a client's retries: {}", own.retries());
            });
            s.spawn(|| {
                let got = shared.get_action_results(&actions).unwrap();
                assert_eq!(got.len(), actions.len());
            });
        }
    });
}

#[test]
fn inside_an_async_runtime_calls_are_refused_not_panics() {
    let Some((_server, remote)) = start() else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async move {
        assert!(matches!(
            remote.get_action_result(&digest_of(b"x")),
            Err(RemoteError::InsideRuntime)
        ));
        assert!(matches!(
            Remote::connect("grpc://127.0.0.1:1", ""),
            Err(RemoteError::InsideRuntime)
        ));
        // Dropped here, inside the runtime: no panic either.
        drop(remote);
    });
}
