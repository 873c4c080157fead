//! The advisory write lock of a file that an editor keeps open: `FILE.lock` beside it, held with
//! `flock(2)` (the convention of util-linux `flock FILE.lock command`), holding the process id
//! and command of its holder.
//!
//! The lock is a file of its own because saves replace the locked file by rename: a lock on the
//! file itself would stay with the old inode. The kernel releases `flock` locks when their
//! process ends, so a lock file left behind by a crash locks nothing; a new holder takes it over.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The lock file of `path`: `PATH.lock`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

/// Who holds a lock, as its lock file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// The holder's process id, if the lock file names one.
    pub pid: Option<u32>,
    /// The holder's command line ("" if unknown).
    pub command: String,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.pid, self.command.is_empty()) {
            (Some(p), false) => write!(f, "process {p} ({})", self.command),
            (Some(p), true) => write!(f, "process {p}"),
            (None, false) => write!(f, "{}", self.command),
            (None, true) => write!(f, "another process"),
        }
    }
}

/// Why a lock could not be taken.
#[derive(Debug)]
pub enum LockError {
    /// Another process holds it.
    Held(Holder),
    /// The lock file could not be created, opened or locked.
    Io(io::Error),
}

/// A held write lock; dropping it removes the lock file and releases the lock.
#[derive(Debug)]
pub struct WriteLock {
    path: PathBuf,
    file: File,
}

impl WriteLock {
    /// Takes the write lock of `path` for `command` without waiting.
    pub fn acquire(path: &Path, command: &str) -> Result<WriteLock, LockError> {
        let lpath = lock_path(path);
        // A holder that removes its lock file between our open and our lock leaves us holding
        // an unlinked file: check that the path still names what we locked, and retry.
        for _ in 0..8 {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&lpath)
                .map_err(LockError::Io)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    let mut s = String::new();
                    let _ = file.read_to_string(&mut s);
                    return Err(LockError::Held(parse_holder(&s)));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(LockError::Io(e)),
            }
            if !same_file(&file, &lpath) {
                continue;
            }
            file.set_len(0).map_err(LockError::Io)?;
            file.rewind().map_err(LockError::Io)?;
            let line = format!("{} {}\n", std::process::id(), command.replace('\n', " "));
            file.write_all(line.as_bytes()).map_err(LockError::Io)?;
            return Ok(WriteLock { path: lpath, file });
        }
        Err(LockError::Io(io::Error::other(format!(
            "{} kept changing while it was being locked",
            lpath.display()
        ))))
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        // Removed while still locked, so no one takes over a file about to disappear.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// Who holds the write lock of `path` right now, if anyone (a lock file without a live
/// holder does not count).
pub fn holder(path: &Path) -> Option<Holder> {
    let lpath = lock_path(path);
    let mut file = File::open(&lpath).ok()?;
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            None
        }
        Err(_) => {
            let mut s = String::new();
            let _ = file.read_to_string(&mut s);
            Some(parse_holder(&s))
        }
    }
}

fn parse_holder(s: &str) -> Holder {
    let line = s.lines().next().unwrap_or("").trim();
    let (pid, command) = match line.split_once(' ') {
        Some((p, c)) => (p.parse().ok(), c.to_string()),
        None => (line.parse().ok(), String::new()),
    };
    Holder { pid, command }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_with_the_holder_and_the_lock_is_released_on_drop() {
        let d = tempfile::tempdir().unwrap();
        let w = d.path().join("w.vwr");
        let first = WriteLock::acquire(&w, "voxcaf world serve w.vwr").unwrap();
        assert!(lock_path(&w).exists());
        match WriteLock::acquire(&w, "voxcaf world edit w.vwr") {
            Err(LockError::Held(h)) => {
                assert_eq!(h.pid, Some(std::process::id()));
                assert_eq!(h.command, "voxcaf world serve w.vwr");
            }
            other => panic!("expected Held, got {other:?}"),
        }
        assert_eq!(holder(&w).unwrap().command, "voxcaf world serve w.vwr");
        drop(first);
        assert!(!lock_path(&w).exists());
        assert!(holder(&w).is_none());
        let again = WriteLock::acquire(&w, "voxcaf world edit w.vwr").unwrap();
        drop(again);
    }

    #[test]
    fn a_stale_lock_file_locks_nothing() {
        let d = tempfile::tempdir().unwrap();
        let w = d.path().join("w.vwr");
        std::fs::write(lock_path(&w), "999999 crashed editor\n").unwrap();
        assert!(holder(&w).is_none());
        let l = WriteLock::acquire(&w, "voxcaf world edit").unwrap();
        let s = std::fs::read_to_string(l.path()).unwrap();
        assert!(
            s.starts_with(&format!("{} voxcaf world edit", std::process::id())),
            "{s}"
        );
    }
}
