//! Key files: `asset keygen` never replaces a key by accident and says why, and a key file that
//! other users can read is warned about, as ssh does.

mod common;
use common::cli;

#[test]
fn keygen_refuses_to_replace_a_key_and_says_why() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let (code, _, err) = cli(d, "asset keygen k.key");
    assert_eq!(code, 0, "{err}");
    let first = std::fs::read_to_string(d.join("k.key")).unwrap();
    let (code, _, err) = cli(d, "asset keygen k.key");
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("not a key file"), "{err}");
    assert!(
        err.contains("already exists") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(d.join("k.key")).unwrap(), first);
    let (code, _, err) = cli(d, "asset keygen k.key --force");
    assert_eq!(code, 0, "{err}");
    assert_ne!(std::fs::read_to_string(d.join("k.key")).unwrap(), first);
}

#[cfg(unix)]
#[test]
fn a_key_file_readable_by_others_is_warned_about() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    assert_eq!(cli(d, "asset keygen k.key").0, 0);
    // keygen writes it for the owner only: no warning.
    let (code, _, err) = cli(d, "asset check --key-file k.key missing.caf");
    assert_eq!(code, 1, "{err}");
    assert!(!err.contains("warning"), "{err}");
    std::fs::set_permissions(d.join("k.key"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let (_, _, err) = cli(d, "asset check --key-file k.key missing.caf");
    assert!(
        err.contains("warning: k.key: the key file is accessible to other users (mode 644)")
            && err.contains("chmod 600 k.key"),
        "{err}"
    );
}

#[test]
fn asset_info_without_a_key_does_not_call_an_encrypted_asset_valid() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    common::write_wav(&d.join("a.wav"), 4000, |i| (i as i16).wrapping_mul(31));
    common::cli_ok(d, "asset keygen k.key");
    common::cli_ok(d, "asset convert a.wav a.caf --encrypt --key-file k.key");
    // Without the key: the container is valid, the payload unverified (as `check` says).
    let out = common::cli_ok(d, "asset info a.caf");
    assert!(
        out.contains("a.caf: valid container") && out.contains("not verified: no key"),
        "{out}"
    );
    let j = common::cli_json(d, "asset info a.caf --json");
    let j = if j.is_array() { j[0].clone() } else { j };
    assert_eq!(j["valid"], true, "{j}");
    assert_eq!(j["payload_verified"], false, "{j}");
    // With it: valid, verified.
    let out = common::cli_ok(d, "asset info --key-file k.key a.caf");
    assert!(out.contains("a.caf: valid, "), "{out}");
    let j = common::cli_json(d, "asset info --key-file k.key a.caf --json");
    let j = if j.is_array() { j[0].clone() } else { j };
    assert_eq!(j["payload_verified"], true, "{j}");
}
