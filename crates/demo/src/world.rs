//! The world session round trip shown by `voxcaf demo` (`pool-v3.vwr`): the one edit path,
//! [`vwr::WorldSession`], loading one chunk, committing one block and reverting it.

use std::path::Path;

use vwr::{Block, VwrError, World};

/// Why the session round trip failed.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum SessionDemoError {
    /// Saving, opening, editing or reverting failed.
    #[error(transparent)]
    Vwr(#[from] VwrError),
    /// The file, reverted, does not hold the world first saved.
    #[error("the reverted world differs from the saved one")]
    Mismatch,
}

/// What [`session_round_trip`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionDemo {
    /// Bytes of the v3 file as first written.
    pub file_bytes: u64,
    /// Chunks the edit session decoded.
    pub chunks_loaded: u64,
    /// Bytes the one-block save appended (and its commit slot).
    pub commit_bytes: u64,
    /// Commits in the file's history afterwards (write, save, revert).
    pub commits: usize,
}

/// Saves `world` as v3 at `path`, edits one block through a [`vwr::WorldSession`] (one
/// chunk loaded, one small commit), reverts the edit, and checks that the file holds `world`
/// again: the demo of the one edit path.
pub fn session_round_trip(world: &World, path: &Path) -> Result<SessionDemo, SessionDemoError> {
    let opts = vwr::SaveOptions {
        commit: vwr::CommitInfo::now("voxcaf demo"),
        ..vwr::SaveOptions::v3(vwr::Codec::Auto)
    };
    world.save_with(path, &opts)?;
    let file_bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    let tool = vwr::SessionOptions::tool("voxcaf demo");
    let (mut session, mut edited) = vwr::WorldSession::open(path, tool.clone())?;
    let at = world.block_dims().map(|d| (d / 2) as i32);
    let chunks_loaded = session.load_box(&mut edited, at, at)?;
    let other = if edited.get_block(at) == Block::AIR {
        Block::make(35, 0)?
    } else {
        Block::AIR
    };
    edited.set_block(at, other)?;
    let saved = session.save(&edited)?;
    session.revert(None)?;
    let commits = session.file().history(usize::MAX).0.len();
    drop(session);
    if World::load(path)? != *world {
        return Err(SessionDemoError::Mismatch);
    }
    Ok(SessionDemo {
        file_bytes,
        chunks_loaded,
        commit_bytes: saved.bytes_written,
        commits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_block_is_committed_then_reverted() {
        let dir = tempfile::tempdir().unwrap();
        let world = vwr::samples::showcase().unwrap();
        let d = session_round_trip(&world, &dir.path().join("s.vwr")).unwrap();
        assert!(d.chunks_loaded <= 1);
        assert!(d.commit_bytes > 0 && d.file_bytes > 0);
        assert_eq!(d.commits, 3);
        assert_eq!(World::load(dir.path().join("s.vwr")).unwrap(), world);
    }
}
