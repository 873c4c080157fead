//! The autosave journal (`FILE.journal`): the world as edited, written once a second when it
//! changed. Encoding a big world takes long, so the server copies the world under the
//! session's lock ([`Session::journal_job`]), encodes it without holding the lock
//! ([`JournalJob::encode`]), and writes it under the lock again ([`Session::journal_done`]),
//! unless a save or reload came in between.

use vwr::World;

use super::{fnv, journal_path, Session};
use crate::error::{Result, ServeError};

/// A copy of the world to journal, taken with the session locked.
#[derive(Debug)]
pub struct JournalJob {
    world: World,
    gen: u64,
    saved_hash: u64,
}

impl JournalJob {
    /// The journal's bytes (a complete `.vwr` world): the slow part, done unlocked.
    pub fn encode(&self) -> Vec<u8> {
        self.world.to_bytes()
    }
}

impl Session {
    /// Writes the autosave journal if the world changed since it was last written: the world
    /// as edited when it differs from the file on disk, no journal when it is equal. While a
    /// journal from an earlier session waits for a decision it is left alone. Returns whether
    /// the journal was written or removed.
    pub fn autosave(&mut self) -> Result<bool> {
        match self.journal_job() {
            Some(job) => {
                let bytes = job.encode();
                self.journal_done(job, &bytes)
            }
            None => Ok(false),
        }
    }

    /// A copy of the world to journal, if it changed since the journal was last written
    /// (file mode, no journal of an earlier session waiting).
    pub fn journal_job(&mut self) -> Option<JournalJob> {
        if self.gen == self.journal_gen || self.recovery.is_some() || self.db.is_some() {
            return None;
        }
        Some(JournalJob {
            world: self.world().clone(),
            gen: self.gen,
            saved_hash: self.saved_hash,
        })
    }

    /// Writes (or removes) the journal from `bytes`, the encoding of `job`; nothing when the
    /// file was saved or reloaded meanwhile (the next tick journals the world anew).
    pub fn journal_done(&mut self, job: JournalJob, bytes: &[u8]) -> Result<bool> {
        if job.saved_hash != self.saved_hash
            || self.recovery.is_some()
            || job.gen < self.journal_gen
        {
            return Ok(false);
        }
        if fnv(bytes) == self.saved_hash {
            self.remove_journal()?;
        } else {
            let j = journal_path(&self.path);
            voxcaf_fs::write_atomic(&j, bytes).map_err(|e| ServeError::io(&j, e))?;
        }
        self.journal_gen = job.gen;
        Ok(true)
    }
}
