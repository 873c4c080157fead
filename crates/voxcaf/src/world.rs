//! `voxcaf world info|dump|check|resave|new`.

use anyhow::Result;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum WorldCmd {
    /// Write an empty world.
    New {
        /// Output file.
        out: std::path::PathBuf,
    },
}

pub fn run(cmd: WorldCmd) -> Result<u8> {
    match cmd {
        WorldCmd::New { out } => anyhow::bail!("not implemented yet: {}", out.display()),
    }
}
