//! The one atomic file writer of the workspace: every crate that saves a file (worlds, assets,
//! meshes, images, manifests) writes through [`AtomicFile`] or [`write_atomic`], or, for the
//! thousands of outputs of one build, [`DeferredSync`] (the same save, made durable together
//! at the end).
//!
//! A save is a temporary file in the target's directory, written, flushed and fsynced, then
//! renamed over the target, and the directory fsynced. A crash or an error at any step leaves
//! the target exactly as it was (the old version, or no file), never half of the new one.
//!
//! Beyond that procedure the writer keeps what a user expects of an ordinary save:
//! - an existing file's permission bits are kept; a new file gets the usual `0o666` minus the
//!   process umask (not the `0o600` of a typical temporary file);
//! - a symbolic link is written through: the file it points at is replaced, the link stays;
//! - a read-only target is refused with [`std::io::ErrorKind::PermissionDenied`] instead of
//!   being silently replaced (renaming over it would succeed even though the file is marked
//!   read-only);
//! - the temporary file is removed on every error path, and when an [`AtomicFile`] is dropped
//!   without [`AtomicFile::commit`].
//!
//! Replacing a file by rename gives it a new inode, so other hard links to the old file keep
//! the old contents.
//!
//! Every temporary file that exists is listed in a process-wide registry, so that a signal
//! handler can remove them before the process exits ([`remove_temp_files_and_exit`], and the
//! ready-made handler in `signals` on Unix). A process killed by `SIGKILL`
//! cannot clean up: its temporary file `.{name}.{pid}-{n}.tmp` stays next to the target,
//! which itself is always the old or the new version. Stale temporary files are deliberately
//! not swept by [`AtomicFile::create`]: whether their pid is dead cannot be told safely (pid
//! namespaces in containers sharing a folder, network file systems shared between hosts,
//! pid reuse), and removing a live writer's temporary file would make its save fail.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("level.txt");
//! voxcaf_fs::write_atomic(&path, b"first")?;
//! voxcaf_fs::write_atomic(&path, b"second")?;
//! assert_eq!(std::fs::read(&path)?, b"second");
//! # Ok::<(), std::io::Error>(())
//! ```
#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used)]

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};

#[cfg(unix)]
pub mod lock;
pub mod signals;

/// The temporary files of the saves in progress in this process.
static IN_FLIGHT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn in_flight() -> MutexGuard<'static, Vec<PathBuf>> {
    // A panic while the lock was held cannot leave the list inconsistent (single push or
    // remove), so a poisoned lock is still usable.
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner())
}

fn unregister(tmp: &Path) {
    let mut list = in_flight();
    if let Some(i) = list.iter().position(|p| p == tmp) {
        list.swap_remove(i);
    }
}

/// The temporary files of the saves in progress in this process right now.
pub fn temp_files_in_flight() -> Vec<PathBuf> {
    in_flight().clone()
}

/// The files in `dir` named like temporary files (ending in `.tmp`; this writer's are
/// `.{name}.{pid}-{n}.tmp`), sorted: those of saves in progress in any process and those left
/// by a killed one. Only lists them; it cannot tell which are stale (see the crate docs).
pub fn temp_files_in(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name().to_string_lossy().ends_with(".tmp") {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

/// Removes the temporary file of every save in progress and ends the process with `code`,
/// for a signal handler (`SIGINT`, `SIGTERM`). The registry stays locked until the process
/// has exited, so no save can create a new temporary file in between; a save whose temporary
/// file was removed fails its rename and leaves its target unchanged.
pub fn remove_temp_files_and_exit(code: i32) -> ! {
    let list = in_flight();
    for tmp in list.iter() {
        let _ = std::fs::remove_file(tmp);
    }
    std::process::exit(code)
}

/// How many symbolic links are followed before giving up (as Linux's `MAXSYMLINKS`).
const MAX_LINK_HOPS: usize = 40;

/// Where a save to `path` really goes: `path` itself, or the file at the end of its chain of
/// symbolic links (which need not exist yet).
pub fn resolve_target(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        match std::fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)?;
                current = if link.is_absolute() {
                    link
                } else {
                    parent_dir(&current).join(link)
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A file being saved atomically. Write to it (it is [`Write`] and [`Seek`]), then
/// [`commit`](AtomicFile::commit). Dropping it uncommitted removes the temporary file and
/// leaves the target untouched.
#[derive(Debug)]
pub struct AtomicFile {
    file: Option<File>,
    tmp: PathBuf,
    target: PathBuf,
    keep_permissions: Option<std::fs::Permissions>,
}

impl AtomicFile {
    /// Starts a save to `path`: creates the temporary file next to the final target.
    ///
    /// Fails without creating anything when the target is read-only, is a directory, or its
    /// folder does not exist.
    pub fn create(path: impl AsRef<Path>) -> io::Result<AtomicFile> {
        let path = path.as_ref();
        if path.file_name().is_none() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a file path", path.display()),
            ));
        }
        let target = resolve_target(path)?;
        let keep_permissions = match std::fs::metadata(&target) {
            Ok(m) if m.is_dir() => {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    format!("{} is a directory", target.display()),
                ))
            }
            Ok(m) if m.permissions().readonly() => {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("{} is read-only", target.display()),
                ))
            }
            Ok(m) => Some(m.permissions()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = parent_dir(&target);
        let mut attempt = 0;
        loop {
            let tmp = dir.join(format!(
                ".{name}.{}-{}.tmp",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            // Registered under the same lock that creates it, so a signal handler sees every
            // temporary file that exists.
            let mut list = in_flight();
            // `create_new` with the default mode: the umask applies, as for any new file.
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(file) => {
                    list.push(tmp.clone());
                    return Ok(AtomicFile {
                        file: Some(file),
                        tmp,
                        target,
                        keep_permissions,
                    });
                }
                // A stale file of a killed process with the same pid: take the next name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The file that will be replaced (the end of the link chain of the path given).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The temporary file's path (removed on drop unless committed).
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    fn file(&mut self) -> &mut File {
        // Only `commit` takes the file, and it consumes `self`.
        self.file.as_mut().expect("AtomicFile used after commit")
    }

    /// Flushes and fsyncs the temporary file, gives it the old file's permissions, renames it
    /// over the target and fsyncs the folder. On error the temporary file is removed and the
    /// target is unchanged.
    pub fn commit(mut self) -> io::Result<()> {
        let result = self.finish(true);
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        unregister(&self.tmp);
        // Either renamed away or removed: nothing left for `drop`.
        self.tmp = PathBuf::new();
        result
    }

    /// [`AtomicFile::commit`] without waiting for the disk: the file is renamed into place
    /// unsynced, to be made durable with many others by [`DeferredSync::sync`].
    fn commit_unsynced(mut self) -> io::Result<PathBuf> {
        let result = self.finish(false);
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        unregister(&self.tmp);
        self.tmp = PathBuf::new();
        result.map(|()| self.target.clone())
    }

    fn finish(&mut self, durable: bool) -> io::Result<()> {
        let mut file = self.file.take().expect("AtomicFile committed twice");
        file.flush()?;
        if let Some(p) = self.keep_permissions.take() {
            file.set_permissions(p)?;
        }
        if durable {
            file.sync_all()?;
        }
        drop(file);
        std::fs::rename(&self.tmp, &self.target)?;
        // Make the rename itself durable; a failure here does not undo a complete file.
        if durable {
            if let Ok(d) = File::open(parent_dir(&self.target)) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file().write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file().seek(pos)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            self.file = None;
            let _ = std::fs::remove_file(&self.tmp);
            unregister(&self.tmp);
        }
    }
}

/// Saves `bytes` to `path` atomically (see the [crate docs](crate)).
pub fn write_atomic(path: impl AsRef<Path>, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Saves what `fill` writes to `path` atomically. `fill` gets a buffered writer; an error from
/// it abandons the save (the target is untouched, the temporary file removed).
pub fn write_atomic_with<E: From<io::Error>>(
    path: impl AsRef<Path>,
    fill: impl FnOnce(&mut io::BufWriter<&mut AtomicFile>) -> Result<(), E>,
) -> Result<(), E> {
    let mut file = AtomicFile::create(path)?;
    {
        let mut w = io::BufWriter::with_capacity(1 << 16, &mut file);
        fill(&mut w)?;
        w.flush()?;
    }
    file.commit()?;
    Ok(())
}

/// Many files saved atomically now and made durable together later, for a build that writes
/// thousands of files and records them in a manifest afterwards: each [`DeferredSync::write`]
/// is a temporary file renamed over the target as in [`write_atomic`] (a reader sees the old
/// file or the new one, never half of one), but without the two fsyncs per file; one
/// [`DeferredSync::sync`] then makes them all durable (on Linux one `syncfs` per file
/// system). Until `sync` returns, a crash may leave a written file empty or short: write
/// whatever vouches for the files (a manifest with their sizes and checksums) after `sync`.
#[derive(Debug, Default)]
pub struct DeferredSync {
    written: Mutex<Vec<PathBuf>>,
}

impl DeferredSync {
    /// Nothing written yet.
    pub fn new() -> DeferredSync {
        DeferredSync::default()
    }

    /// Saves `bytes` to `path` atomically, durable once [`DeferredSync::sync`] returns.
    pub fn write(&self, path: impl AsRef<Path>, bytes: &[u8]) -> io::Result<()> {
        let mut file = AtomicFile::create(path)?;
        file.write_all(bytes)?;
        let target = file.commit_unsynced()?;
        self.written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(target);
        Ok(())
    }

    /// Makes every file written so far durable, with the folders that name them.
    pub fn sync(&self) -> io::Result<()> {
        let files = std::mem::take(&mut *self.written.lock().unwrap_or_else(|e| e.into_inner()));
        let dirs: std::collections::BTreeSet<PathBuf> =
            files.iter().map(|f| parent_dir(f)).collect();
        sync_all_of(&files, &dirs)
    }
}

/// Linux: one `syncfs` per file system holding `dirs` (it writes back every file and folder
/// of that file system).
#[cfg(target_os = "linux")]
fn sync_all_of(_files: &[PathBuf], dirs: &std::collections::BTreeSet<PathBuf>) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let mut done = std::collections::BTreeSet::new();
    for d in dirs {
        let dir = File::open(d)?;
        if done.insert(dir.metadata()?.dev()) {
            rustix::fs::syncfs(&dir)?;
        }
    }
    Ok(())
}

/// Elsewhere: an fsync per file, then per folder.
#[cfg(not(target_os = "linux"))]
fn sync_all_of(files: &[PathBuf], dirs: &std::collections::BTreeSet<PathBuf>) -> io::Result<()> {
    for f in files {
        File::open(f)?.sync_all()?;
    }
    for d in dirs {
        if let Ok(d) = File::open(d) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::PermissionsExt;

    /// A symbolic link `name` in `dir` to `to`.
    #[cfg(unix)]
    fn symlink_in(dir: &Path, name: &str, to: &str) -> PathBuf {
        let link = dir.join(name);
        std::os::unix::fs::symlink(to, &link).unwrap();
        link
    }

    /// An [`AtomicFile`] for `name` in a fresh folder, `bytes` written, not committed.
    fn started(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf, AtomicFile) {
        let (dir, p) = target(name);
        let mut f = AtomicFile::create(&p).unwrap();
        f.write_all(bytes).unwrap();
        (dir, p, f)
    }

    /// `p` holds `bytes` and no temporary file is left beside it.
    fn assert_holds_and_no_temp_left(p: &Path, bytes: &[u8]) {
        assert_eq!(std::fs::read(p).unwrap(), bytes);
        let dir = p.parent().unwrap();
        assert!(temp_files_in(dir).unwrap().is_empty());
    }

    /// A fresh temporary folder and the path `name` in it (the folder lives as long as the
    /// guard).
    fn target(name: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        (dir, p)
    }

    #[test]
    fn replaces_and_leaves_no_temporary_file() {
        let (_dir, p) = target("a.bin");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two two").unwrap();
        assert_holds_and_no_temp_left(&p, b"two two");
    }

    #[test]
    fn deferred_writes_replace_and_sync() {
        let (dir, p) = target("a.bin");
        write_atomic(&p, b"old").unwrap();
        let q = dir.path().join("b.bin");
        let writes = DeferredSync::new();
        writes.write(&p, b"new").unwrap();
        writes.write(&q, b"second file").unwrap();
        writes.sync().unwrap();
        assert_holds_and_no_temp_left(&p, b"new");
        assert_holds_and_no_temp_left(&q, b"second file");
        // Nothing left to sync twice, and an error leaves the target alone.
        writes.sync().unwrap();
        let missing = dir.path().join("no/such/dir/c.bin");
        assert_eq!(
            writes.write(&missing, b"x").unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert!(temp_files_in_flight()
            .iter()
            .all(|t| !t.starts_with(dir.path())));
    }

    #[test]
    fn failed_fill_keeps_the_old_file_and_removes_the_temporary() {
        let (_dir, p) = target("a.bin");
        write_atomic(&p, b"old").unwrap();
        let r: io::Result<()> = write_atomic_with(&p, |w| {
            w.write_all(b"half of the new")?;
            Err(io::Error::other("disk on fire"))
        });
        assert!(r.is_err());
        assert_holds_and_no_temp_left(&p, b"old");
    }

    #[test]
    fn dropped_uncommitted_file_leaves_nothing() {
        let (_dir, p, f) = started("new.bin", b"abc");
        let tmp = f.temp_path().to_path_buf();
        assert!(tmp.exists());
        assert!(temp_files_in_flight().contains(&tmp));
        drop(f);
        assert!(!tmp.exists());
        assert!(!temp_files_in_flight().contains(&tmp));
        assert!(!p.exists());
    }

    #[test]
    fn missing_folder_is_an_error_that_creates_nothing() {
        let (dir, p) = target("no/such/dir/a.bin");
        assert_eq!(
            write_atomic(&p, b"x").unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    }

    #[test]
    fn a_directory_is_not_replaced() {
        let (_dir, p) = target("d");
        std::fs::create_dir(&p).unwrap();
        assert!(write_atomic(&p, b"x").is_err());
        assert!(p.is_dir());
    }

    #[cfg(unix)]
    #[test]
    fn keeps_permission_bits_and_new_files_follow_the_umask() {
        let (_dir, p) = target("a.bin");
        write_atomic(&p, b"1").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        // Not the 0600 of a temporary file: 0666 minus whatever umask the test runs under
        // (never one that removes the owner's bits).
        assert_eq!(mode & 0o600, 0o600);
        assert_eq!(mode & !0o666, 0);
        let umask_free = mode;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"2").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "umask-derived mode was {umask_free:o}");
    }

    #[cfg(unix)]
    #[test]
    fn writes_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.bin");
        std::fs::write(&real, b"old").unwrap();
        let link = symlink_in(dir.path(), "link.bin", "real.bin");
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        // A dangling link creates its target.
        let dangling = symlink_in(dir.path(), "dangling.bin", "created.bin");
        write_atomic(&dangling, b"made").unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("created.bin")).unwrap(),
            b"made"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_loop_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let a = symlink_in(dir.path(), "a", "b");
        symlink_in(dir.path(), "b", "a");
        assert!(write_atomic(&a, b"x").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_file_is_refused() {
        let (_dir, p) = target("locked.bin");
        std::fs::write(&p, b"keep").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
        let e = write_atomic(&p, b"lost").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert_holds_and_no_temp_left(&p, b"keep");
    }

    #[test]
    fn seek_and_patch_before_commit() {
        let (_dir, p, mut f) = started("patched.bin", b"xxxxBODY");
        f.seek(SeekFrom::Start(0)).unwrap();
        f.write_all(b"HEAD").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"HEADBODY");
    }
}
