//! What every command shares: the global flags `-q/--quiet` and `-v/--verbose`, colour on
//! standard error, and the `completions` and `man` commands.
//!
//! - `-q` prints only errors: a command's report lines ("wrote …", "OK …"), notes, warnings and
//!   spinners are left out; what was asked for on standard output (`world get`, `world info`,
//!   `world dump`, `--json`, `-` as an output) is still printed.
//! - `-v` adds, on standard error, each cause of an error on its own line and, at the end, the
//!   command's wall time and exit status.
//! - Colour (the `error:`/`warning:`/`note:` labels) only when standard error is a terminal
//!   whose `TERM` is not `dumb`; `NO_COLOR` (set and not empty) turns it off, `CLICOLOR=0` too,
//!   and `CLICOLOR_FORCE` turns it on where there is no terminal: the same rules as clap's own
//!   help and usage errors follow.

use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicU8, Ordering};

use anyhow::Result;
use clap::{Args, CommandFactory};

/// The global flags, accepted before or after the subcommand.
#[derive(Args, Debug, Clone, Copy)]
pub struct Flags {
    /// Print only errors: no report lines, notes, warnings or progress (what a command is asked
    /// to print on standard output, such as `world get` or `--json`, is still printed).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print more: each cause of an error on its own line, and the command's time and exit
    /// status at the end.
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

/// 0 quiet, 1 normal, 2 verbose.
static LEVEL: AtomicU8 = AtomicU8::new(1);

/// Sets the level for the whole process (once, from `main`).
pub fn set(flags: Flags) {
    let level = match (flags.quiet, flags.verbose) {
        (true, _) => 0,
        (_, true) => 2,
        _ => 1,
    };
    LEVEL.store(level, Ordering::Relaxed);
}

/// Whether `-q` was given: print only errors.
pub fn quiet() -> bool {
    LEVEL.load(Ordering::Relaxed) == 0
}

/// Whether `-v` was given.
pub fn verbose() -> bool {
    LEVEL.load(Ordering::Relaxed) == 2
}

/// `println!` unless `-q` was given: for a command's report lines (not for what it was asked
/// to print).
macro_rules! say {
    ($($t:tt)*) => {
        if !$crate::global::quiet() {
            println!($($t)*);
        }
    };
}
pub(crate) use say;

/// `eprintln!` unless `-q` was given: for messages on standard error that are not errors.
macro_rules! tell {
    ($($t:tt)*) => {
        if !$crate::global::quiet() {
            eprintln!($($t)*);
        }
    };
}
pub(crate) use tell;

/// Whether the colour rules (module docs) allow colour, given the environment's variables and
/// whether the stream is a terminal.
fn colour_allowed(var: impl Fn(&str) -> Option<String>, terminal: bool) -> bool {
    let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
    if set("NO_COLOR") || var("CLICOLOR").as_deref() == Some("0") {
        return false;
    }
    if var("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0") {
        return true;
    }
    terminal && var("TERM").as_deref() != Some("dumb")
}

/// Whether standard error gets colour.
pub fn stderr_colour() -> bool {
    colour_allowed(|n| std::env::var(n).ok(), std::io::stderr().is_terminal())
}

/// A message label (`error`, `warning`, `note`) with its colon, in colour when allowed.
pub fn label(kind: &str) -> String {
    if !stderr_colour() {
        return format!("{kind}:");
    }
    let code = match kind {
        "error" => "1;31",
        "warning" => "1;33",
        _ => "1;36",
    };
    format!("\x1b[{code}m{kind}\x1b[0m:")
}

/// Prints an error line on standard error (`error: …`), and with `-v` its causes, one a line.
pub fn print_error(e: &anyhow::Error) {
    eprintln!("{} {}", label("error"), crate::output::message(e));
    if verbose() {
        for cause in e.chain().skip(1) {
            eprintln!("  caused by: {cause}");
        }
    }
}

/// Prints `note: …` on standard error unless `-q` was given.
pub fn note(text: impl std::fmt::Display) {
    if !quiet() {
        eprintln!("{} {text}", label("note"));
    }
}

/// Prints `warning: …` on standard error (also with `-q`).
pub fn warn(text: impl std::fmt::Display) {
    eprintln!("{} {text}", label("warning"));
}

/// `n` and the noun, plural unless `n` is 1: `count(1, "chunk")` is `1 chunk`, `count(3,
/// "chunk")` is `3 chunks`. For the nouns of report lines, whose plural adds an `s`.
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The shells `voxcaf completions` writes a script for.
pub type Shell = clap_complete::Shell;

/// `voxcaf completions SHELL`: the completion script on standard output.
pub fn completions<C: CommandFactory>(shell: Shell) -> Result<u8> {
    let mut cmd = C::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "voxcaf", &mut out);
    crate::output::write_stdout(&out)?;
    Ok(0)
}

/// `voxcaf man [WORDS…]`: the manual page (roff) of the command, or of the subcommand the
/// words name (`voxcaf man world edit`), on standard output.
pub fn man<C: CommandFactory>(words: &[String]) -> Result<u8> {
    let mut cmd = C::command();
    // Gives every subcommand its full name (`voxcaf-world-edit`) for its page's title.
    cmd.build();
    let mut page = cmd;
    for (i, w) in words.iter().enumerate() {
        let Some(sub) = page.find_subcommand(w).cloned() else {
            let names: Vec<&str> = page.get_subcommands().map(|s| s.get_name()).collect();
            let parent: Vec<&str> = std::iter::once("voxcaf")
                .chain(words[..i].iter().map(String::as_str))
                .collect();
            return Err(crate::output::usage(
                None,
                format!(
                    "`{}` has no subcommand {w:?}; it has: {}",
                    parent.join(" "),
                    names.join(", ")
                ),
            ));
        };
        page = sub;
    }
    let mut out = Vec::new();
    clap_mangen::Man::new(page)
        .source(format!("voxcaf {}", env!("CARGO_PKG_VERSION")))
        .render(&mut out)?;
    crate::output::write_stdout(&out)?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::{colour_allowed, count};

    #[test]
    fn count_says_one_thing_and_many_things() {
        assert_eq!(count(1u32, "chunk"), "1 chunk");
        assert_eq!(count(0u32, "chunk"), "0 chunks");
        assert_eq!(count(12u64, "record"), "12 records");
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |n| {
            vars.iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn colour_follows_no_color_and_the_terminal() {
        assert!(colour_allowed(env(&[]), true));
        assert!(!colour_allowed(env(&[]), false));
        assert!(!colour_allowed(env(&[("NO_COLOR", "1")]), true));
        assert!(colour_allowed(env(&[("NO_COLOR", "")]), true));
        assert!(!colour_allowed(env(&[("TERM", "dumb")]), true));
        assert!(colour_allowed(env(&[("CLICOLOR_FORCE", "1")]), false));
        let both = [("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")];
        assert!(!colour_allowed(env(&both), false));
        assert!(!colour_allowed(env(&[("CLICOLOR", "0")]), true));
    }
}
