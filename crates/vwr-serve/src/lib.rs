//! # vwr-serve — a level editor for `.vwr` worlds in the browser
//!
//! [`start`] opens a world and serves a local editor page and its HTTP API (axum on tokio).
//! The server holds the world inside a `vwr-edit` [`Editor`](vwr_edit::Editor) with its exact
//! undo history; the page sends operations in the `voxcaf world edit` script language and
//! gets back the chunks whose meshes changed (from `vwr-mesh`'s revision-based
//! [`MeshCache`](vwr_mesh::MeshCache), neighbours across borders included). Saving goes
//! through [`vwr::WorldSession`], which holds the file's lock (`FILE.lock`) and keeps its
//! format (a v3 commit, or a v2 rewrite keeping `FILE.bak`), and refuses to overwrite a change
//! made on disk meanwhile ([`SaveMode`] says what to do then); an autosave journal (`FILE.journal`) keeps
//! unsaved edits across a crash and is offered for recovery on the next start. A play test
//! ([`play`]) runs `vwr-play`'s level loop on the world as edited, stepped by the page.
//!
//! A world in PostgreSQL ([`start_db`], [`Session::open_db`]) is edited in database mode:
//! every accepted edit, undo and redo is committed at once (one commit, tool `voxcaf world
//! serve`, with a version check over the chunks it read and changed); other editors' commits
//! are pulled before each edit, by `GET /api/sync`, which the page polls every second, and
//! every second by the server itself while a page or a live link follows its events, which
//! pushes what they changed like any edit. A
//! conflicting script, undo or redo is applied again on the new state. Undo is each person's
//! own in both modes (the session's `vwr_edit::oplog::OpLog`: cells others changed since keep
//! their change). There is no journal and nothing to save.
//!
//! Security: loopback by default, a random session token required on every request (the
//! `token` query parameter, an `X-Voxcaf-Token` header, or the path `/page/TOKEN/` of the
//! page's ES modules and style sheet; 401 without it), foreign `Origin`
//! and `Host` headers refused (403), request bodies and flood fills bounded, and only the
//! opened file, its `.bak`, its lock and its journal are ever written (and a file the user
//! names in a save-as, beside it).
//!
//! ```no_run
//! use vwr_serve::{start, ServerOptions};
//!
//! let server = start("level.vwr".as_ref(), ServerOptions::default())?;
//! println!("open {}", server.url());
//! // ... a script or the page edits through the API ...
//! server.with_session(|s| s.apply_script("box 0 0 0 9 0 9 stone\nplace 5 1 5 lava"))?;
//! server.with_session(|s| s.save())?;
//! server.shutdown()?;
//! # Ok::<(), vwr_serve::ServeError>(())
//! ```
//!
//! The same [`Session`] can be driven without a server, which is how the API is tested. Its
//! methods answer typed values ([`answer`]); only the HTTP layer turns them into JSON.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod answer;
mod error;
pub mod play;
mod server;
mod session;
mod team;
pub mod wire;

pub use error::{Result, ServeError};
pub use server::{start, start_db, RunningServer, ServerOptions};
pub use session::{
    journal_path, oplog_path, JournalJob, Recovery, SaveMode, Session, SessionOptions,
    DEFAULT_HISTORY_DEPTH, LOD_MAX_LEVEL, MAX_LAYER_ANSWER_CELLS, OWNER,
};
pub use team::{Role, User};
pub use vwr::backup_path;
