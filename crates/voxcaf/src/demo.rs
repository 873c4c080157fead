//! `voxcaf demo`: the main job for a new user.

use anyhow::Result;
use clap::Args;

#[derive(Args)]
pub struct DemoArgs {
    /// Output folder.
    #[arg(default_value = "voxcaf-demo")]
    pub dir: std::path::PathBuf,
}

pub fn run(_a: DemoArgs) -> Result<u8> {
    anyhow::bail!("not implemented yet")
}
