//! `voxcaf`: the command line over the voxcaf crates.
//!
//! Exit codes: 0 success, 1 bad input or a failed check, 2 usage error (clap's and the CLI's
//! own, `output::Usage`); a closed output pipe ends the process quietly through `SIGPIPE` (see
//! `sigpipe.rs`); `SIGINT` / `SIGTERM` exit 130 / 143 without leaving a temporary file
//! (`voxcaf_fs::signals`).
//!
//! Each domain owns one module with a clap `Subcommand` enum and a `run` function returning the
//! process exit code; this file only wires them together.

#![deny(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod asset;
mod asset_import;
mod demo;
mod global;
mod inputs;
mod keys;
mod lists;
#[allow(unsafe_code)]
mod oom;
mod out_arg;
mod output;
#[allow(unsafe_code)]
mod sigpipe;
mod world;
mod world_args;
mod world_blocks;
mod world_db;
mod world_diff;
mod world_edit;
mod world_history;
mod world_lod;
mod world_mesh;
mod world_play;
mod world_serve;
mod world_vox;

/// A failed allocation ends the command with a message and exit 1 (`oom.rs`), not an abort.
#[global_allocator]
static ALLOCATOR: oom::Allocator = oom::Allocator;

#[derive(Parser)]
#[command(
    name = "voxcaf",
    version,
    about = "Voxel worlds (.vwr) and game assets (.caf): inspect, check, convert, edit, mesh, render"
)]
struct Cli {
    #[command(flatten)]
    global: global::Flags,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Work with .vwr voxel worlds.
    World {
        #[command(subcommand)]
        cmd: WorldCmd,
    },
    /// Work with .caf game assets.
    Asset {
        #[command(subcommand)]
        cmd: AssetCmd,
    },
    /// Build a showcase level and assets, save, reload and verify them, and print a report.
    Demo(demo::DemoArgs),
    /// Print a shell completion script
    ///
    /// Examples:
    ///   voxcaf completions bash > ~/.local/share/bash-completion/completions/voxcaf
    ///   voxcaf completions zsh > ~/.zfunc/_voxcaf
    ///   voxcaf completions fish > ~/.config/fish/completions/voxcaf.fish
    #[command(verbatim_doc_comment)]
    Completions {
        /// The shell.
        shell: global::Shell,
    },
    /// Print the manual page (roff) of voxcaf, or of one of its commands
    ///
    /// Examples:
    ///   voxcaf man | man -l -
    ///   voxcaf man world edit > voxcaf-world-edit.1
    #[command(verbatim_doc_comment)]
    Man {
        /// The command whose page to print (`world edit`); none for the main page.
        words: Vec<String>,
    },
}

#[derive(Subcommand)]
enum WorldCmd {
    #[command(flatten)]
    Core(world::WorldCmd),
    #[command(flatten)]
    Edit(world_edit::EditCmd),
    #[command(flatten)]
    History(world_history::HistoryCmd),
    #[command(flatten)]
    Lod(world_lod::LodCmd),
    #[command(flatten)]
    Blocks(world_blocks::BlocksCmd),
    #[command(flatten)]
    Diff(world_diff::DiffCmd),
    #[command(flatten)]
    Mesh(world_mesh::MeshCmd),
    #[command(flatten)]
    Serve(world_serve::ServeCmd),
    #[command(flatten)]
    Play(world_play::PlayCmd),
    #[command(flatten)]
    Db(world_db::DbCmd),
}

#[derive(Subcommand)]
enum AssetCmd {
    #[command(flatten)]
    Container(asset::AssetCmd),
    #[command(flatten)]
    Import(asset_import::ImportCmd),
}

impl Cmd {
    /// Whether the command was asked for JSON output (errors then answer in JSON too).
    fn json(&self) -> bool {
        match self {
            Cmd::World { cmd } => match cmd {
                WorldCmd::Core(c) => c.json(),
                WorldCmd::Edit(c) => c.json(),
                WorldCmd::History(c) => c.json(),
                WorldCmd::Lod(c) => c.json(),
                WorldCmd::Blocks(c) => c.json(),
                WorldCmd::Diff(c) => c.json(),
                WorldCmd::Mesh(c) => c.json(),
                WorldCmd::Serve(c) => c.json(),
                WorldCmd::Play(c) => c.json(),
                WorldCmd::Db(c) => c.json(),
            },
            Cmd::Asset { cmd } => match cmd {
                AssetCmd::Container(c) => c.json(),
                AssetCmd::Import(c) => c.json(),
            },
            Cmd::Demo(_) | Cmd::Completions { .. } | Cmd::Man { .. } => false,
        }
    }
}

fn main() -> ExitCode {
    sigpipe::restore_default();
    // SIGINT/SIGTERM remove the temporary files of saves in progress and exit 130/143 (or
    // stop a build gracefully). Should it fail to start, the signals kill as before.
    let _ = voxcaf_fs::signals::install();
    // A reader's panic that the importers catch is reported as their typed error only, not
    // also as a `panicked at` line (see voxcaf-guard).
    voxcaf_guard::quiet_hook();
    let cli = Cli::parse();
    global::set(cli.global);
    let started = std::time::Instant::now();
    let json = cli.cmd.json();
    // The subcommand's words (`voxcaf world mesh`), for the out-of-memory message.
    let words: Vec<String> = std::env::args()
        .skip(1)
        .skip_while(|a| matches!(a.as_str(), "-q" | "--quiet" | "-v" | "--verbose"))
        .take_while(|a| !a.starts_with('-'))
        .take(2)
        .collect();
    let words = format!("voxcaf {}", words.join(" "));
    oom::describe(words.clone(), json);
    let result = match cli.cmd {
        Cmd::World { cmd } => match cmd {
            WorldCmd::Core(c) => world::run(c),
            WorldCmd::Edit(c) => world_edit::run(c),
            WorldCmd::History(c) => world_history::run(c),
            WorldCmd::Lod(c) => world_lod::run(c),
            WorldCmd::Blocks(c) => world_blocks::run(c),
            WorldCmd::Diff(c) => world_diff::run(c),
            WorldCmd::Mesh(c) => world_mesh::run(c),
            WorldCmd::Serve(c) => world_serve::run(c),
            WorldCmd::Play(c) => world_play::run(c),
            WorldCmd::Db(c) => world_db::run(c),
        },
        Cmd::Asset { cmd } => match cmd {
            AssetCmd::Container(c) => asset::run(c),
            AssetCmd::Import(c) => asset_import::run(c),
        },
        Cmd::Demo(a) => demo::run(a),
        Cmd::Completions { shell } => global::completions::<Cli>(shell),
        Cmd::Man { words } => global::man::<Cli>(&words),
    };
    let code = match result {
        Ok(code) => code,
        // One shape for every failure: `--json` commands answer on stdout (README, "JSON
        // output"), the others on stderr; usage errors exit 2, everything else 1.
        Err(e) => {
            if json {
                println!("{}", output::error_json(&e));
            } else {
                global::print_error(&e);
            }
            output::exit_status(&e)
        }
    };
    if global::verbose() {
        eprintln!(
            "{} {words}: exit {code} after {:.3} s",
            global::label("note"),
            started.elapsed().as_secs_f64()
        );
    }
    ExitCode::from(code)
}
