//! The output of a command that names it as a positional argument (`world resave IN OUT`),
//! which `-o OUT` / `--out OUT` may give instead (`world edit` takes only `-o`, since its
//! positional arguments are operations).

use std::path::PathBuf;

use clap::Args;

/// A positional output that `-o`/`--out` may give instead (one of the two is required).
#[derive(Args, Debug, Clone)]
pub struct OutArg {
    /// The output file, or give it with -o (`-` writes standard output where the command can
    /// stream its result; missing folders are created).
    #[arg(value_name = "OUTPUT", required_unless_present = "out")]
    output: Option<PathBuf>,
    /// The output file, as the positional OUTPUT.
    #[arg(
        short = 'o',
        long = "out",
        value_name = "OUTPUT",
        conflicts_with = "output"
    )]
    out: Option<PathBuf>,
}

impl OutArg {
    /// The output named either way.
    pub fn path(self) -> PathBuf {
        self.output.or(self.out).unwrap_or_default()
    }
}
