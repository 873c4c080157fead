//! `voxcaf world serve`: the browser level editor. The server, the page and the API are the
//! `vwr-serve` crate; this module parses the command line, prints the URL and waits for
//! Ctrl+C. With `-q` the URL is the only line it prints.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::{Args, Subcommand};

use crate::global::{label, say, tell};

#[derive(Subcommand)]
pub enum ServeCmd {
    /// Edit a world in the browser: starts a local server and prints the editor's URL.
    ///
    /// The page places and erases blocks by clicking faces, box-fills by dragging, has
    /// brushes, flood fill, replace, copy/paste, objects, spawn, sky, a layer view and a chunk
    /// debug view, with undo (Ctrl+Z), redo (Ctrl+Shift+Z) and save (Ctrl+S; in the file's
    /// format: a v3 commit, or a v2 rewrite keeping FILE.bak), and a play test (walk the level with WASD, jump with Space). Unsaved edits
    /// are journalled to FILE.journal every second; the next serve offers to recover them. The URL carries a random session token that every request
    /// needs; scripts can drive the same HTTP API (see the README).
    ///
    /// The printed URL is the owner's. Others join through invitations made on the page
    /// (People panel) or with POST /api/invite ({"role": "edit"|"view", "name": "..."}): each
    /// is its own address, revocable; every page sees the others' edits at once and their
    /// cursors; each person's undo takes back their own steps only. Every save appends the
    /// operations to FILE.oplog, which `voxcaf world replay` replays byte for byte.
    ///
    /// A world in PostgreSQL (postgres://USER@HOST:PORT/DB?world=NAME) is edited in database
    /// mode: every edit is committed at once (Ctrl+S has nothing to write), and several
    /// servers on one world see each other's commits (each looks every second while a page
    /// or a game follows it, and pushes them); undo is each person's own there too, and
    /// leaves the cells others changed since as they are.
    ///
    /// Examples:
    ///   voxcaf world serve level.vwr
    ///   voxcaf world serve 'postgres://me@localhost/levels?world=castle'
    ///   voxcaf world serve level.vwr --addr 127.0.0.1:8080 --open
    ///   voxcaf world serve level.vwr --addr 0.0.0.0:8080 --allow-host build-pc.lan
    #[command(verbatim_doc_comment)]
    Serve(ServeArgs),
}

#[derive(Args)]
pub struct ServeArgs {
    /// The .vwr file to edit (saved in its own format: a v3 file by an incremental commit, a
    /// v2 file rewritten keeping FILE.bak). Its write lock FILE.lock is held while serving.
    /// Or a world in a database: postgres://USER@HOST:PORT/DB?world=NAME.
    pub file: PathBuf,
    /// Address to listen on (loopback by default; port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub addr: SocketAddr,
    /// A host name (or address) others reach this machine by, accepted in requests' Host
    /// header when serving beyond loopback (--addr 0.0.0.0:8080 --allow-host build-pc.lan);
    /// repeatable. Other names are refused (DNS rebinding).
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Undo steps kept (one per edit request: a click, "apply to selection", a pasted
    /// script); the page says when older ones are dropped. Also bounded to 512 MiB of records.
    #[arg(long, value_name = "N", default_value_t = vwr_serve::DEFAULT_HISTORY_DEPTH)]
    pub history: usize,
}

impl ServeCmd {
    /// Whether `--json` was given (never: the command prints a URL and runs).
    pub fn json(&self) -> bool {
        false
    }
}

/// Runs the server until SIGINT/SIGTERM; returns the process exit code.
pub fn run(cmd: ServeCmd) -> Result<u8> {
    let ServeCmd::Serve(a) = cmd;
    crate::output::no_dash(&a.file, "the world to serve")?;
    let db = crate::world_db::location(&a.file).transpose()?;
    if db.is_none() && !a.file.is_file() {
        return Err(crate::output::failed(
            &a.file,
            "no such world file (create one first, e.g. with `voxcaf world edit`)",
        ));
    }
    if !a.addr.ip().is_loopback() {
        tell!(
            "{} listening on {}, not on loopback: anyone who can reach it and has the token can edit",
            label("warning"),
            a.addr
        );
        if a.allow_host.is_empty() && a.addr.ip().is_unspecified() {
            tell!(
                "{} others' requests name this machine in their Host header: allow that name \
                 with --allow-host NAME, or they are refused",
                label("note")
            );
        }
    }
    // A signal asks the loop below to stop, so the journal is brought up to date first.
    let stop = voxcaf_fs::signals::StopOnSignal::new();
    let opts = vwr_serve::ServerOptions {
        addr: a.addr,
        allow_hosts: a.allow_host.clone(),
        session: vwr_serve::SessionOptions {
            history_depth: a.history,
            ..Default::default()
        },
        ..Default::default()
    };
    let server = match &db {
        Some(loc) => vwr_serve::start_db(loc, opts)
            .map_err(|e| crate::world_db::failed(&loc.display(), e))?,
        None => vwr_serve::start(&a.file, opts).map_err(|e| crate::output::failed(&a.file, e))?,
    };
    let url = server.url();
    match &db {
        Some(loc) => say!(
            "voxcaf world serve: editing {} (every edit is committed at once)",
            loc.display()
        ),
        None => say!("voxcaf world serve: editing {}", a.file.display()),
    }
    if let Some(r) = server.with_session(|s| s.recovery().cloned()) {
        say!(
            "  {} holds unsaved edits from an earlier session: the page offers to recover or discard them",
            r.path.display()
        );
    }
    // The URL carries the session's token: it is what the command is asked for, so `-q`
    // leaves it (alone).
    println!("  open {url}");
    say!("  this is the owner's address: invite others from the page's People panel");
    if db.is_some() {
        say!("  Ctrl+C stops");
    } else {
        say!("  Ctrl+C stops (unsaved edits stay in the journal)");
    }
    if a.open {
        open_browser(&url);
    }
    while !stop.stopped() {
        std::thread::sleep(Duration::from_millis(100));
    }
    server
        .shutdown()
        .map_err(|e| crate::output::failed(&a.file, e))?;
    Ok(voxcaf_fs::signals::exit_code().unwrap_or(0))
}

/// Opens `url` with the platform's opener; a failure is only reported.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        tell!(
            "{} could not open a browser ({opener}: {e}); open the URL yourself",
            label("warning")
        );
    }
}
