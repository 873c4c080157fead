//! Worlds in PostgreSQL: the [`vwr::ChunkStore`] backend of docs/format/vwr-postgres.md.
//!
//! A world is named by a [`PgLocation`] (`postgres://USER@HOST:PORT/DB?world=NAME`; the
//! password from `PGPASSWORD` or `~/.pgpass`, never from the URL). [`PgStore`] reads and commits
//! it (one transaction per commit, compare-and-swap on chunk versions); [`list_worlds`],
//! [`PgStore::create`] and [`import`] make and list worlds. Each commit keeps the rows it
//! replaced, so [`PgStore::revert`] makes an older state current again and
//! [`PgStore::compact`] drops history no longer wanted (§7).
#![deny(clippy::unwrap_used)]

mod commit;
mod db;
mod history;
mod location;
pub mod schema;
mod store;
#[cfg(feature = "tls")]
mod tls;

pub use commit::CommitKind;
pub use location::{check_world_name, pgpass_lookup, PgLocation, SslMode, KNOWN_KEYS};
pub use store::{import, list_worlds, CommitRow, ImportReport, PgStore, WorldRow, CHANNEL};
