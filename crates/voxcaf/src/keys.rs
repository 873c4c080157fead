//! Where the CLI finds an encryption key: `--key-file FILE`, else the `VOXCAF_KEY`
//! environment variable (64 hex digits). Never a command-line argument, which other users can
//! read in the process list and which lands in shell histories.

use std::path::Path;

use anyhow::Result;
use caf::encoded::Key;

use crate::output;

/// The environment variable holding a key as 64 hex digits.
pub const ENV: &str = "VOXCAF_KEY";

/// The key of `key_file`, else of `VOXCAF_KEY`; with neither, `None`, or a usage error when
/// `required`.
pub fn load(key_file: Option<&Path>, required: bool) -> Result<Option<Key>> {
    if let Some(p) = key_file {
        if output::is_dash(p) {
            return Err(output::usage(
                Some(p),
                "the key cannot come from standard input; name a key file",
            ));
        }
        let key = Key::read_file(p).map_err(|e| output::failed(p, e))?;
        warn_if_shared(p);
        return Ok(Some(key));
    }
    match std::env::var(ENV) {
        Ok(text) => Key::from_hex(&text)
            .map(Some)
            .map_err(|e| output::usage(None, format!("{ENV}: {e}"))),
        Err(std::env::VarError::NotUnicode(_)) => Err(output::usage(
            None,
            format!("{ENV}: a key is 64 hexadecimal digits"),
        )),
        Err(std::env::VarError::NotPresent) if required => Err(output::usage(
            None,
            format!(
                "--encrypt needs a key: pass --key-file FILE or set {ENV} \
                 (make a key with `voxcaf asset keygen FILE`)"
            ),
        )),
        Err(std::env::VarError::NotPresent) => Ok(None),
    }
}

/// Warns, as ssh does for private keys, when a key file can be read or written by users other
/// than its owner (Unix permissions; nothing elsewhere, and nothing with `-q`).
fn warn_if_shared(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path) {
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                crate::global::tell!(
                    "{} {}: the key file is accessible to other users (mode {mode:03o}); \
                     anyone who can read it can read and forge your assets: chmod 600 {}",
                    crate::global::label("warning"),
                    path.display(),
                    path.display()
                );
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}
